"""chrF statistics of a batch: input checks, the route, and the best reference per pair.

:func:`statistics` reads the user's hypotheses and references through
:mod:`vecscore.inputs` (errors name the user's row), lowercases if asked,
then counts n-grams on one of two routes that give identical integers
(:mod:`vecscore.route` picks by size):

* plain (:mod:`vecscore.chrf.plain`): ``Counter``s, no numba, for small calls;
* compiled (:mod:`vecscore.kernels.chrf`): every text's code points in one
  array, counted per pair by numba kernels in parallel.

Both give one row per (pair, reference); :func:`vecscore.chrf.formulas.best_rows`
then keeps each pair's best reference as sacreBLEU does.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vecscore._jit import is_active
from vecscore.chrf import formulas
from vecscore.chrf import plain as plain_chrf
from vecscore.errors import VecscoreError
from vecscore.inputs import (
    as_rows,
    check_unicode,
    check_units,
    input_kind,
    normalize_refs,
    plain_str,
    resolve_layout,
    unicode_errors,
)
from vecscore.parallel import serialized
from vecscore.route import route as route_setting
from vecscore.route import text_chars, use_plain

__all__ = ["ChrfBatch", "Options", "pair_rows", "read_batch", "read_hyps", "statistics"]

#: relative cost per character of the plain route (:data:`vecscore.route.COST` units: 1 = ~0.25 us)
_COST_CHARS = 5
_COST_WORDS = 7
#: with numba already loaded, the plain route only below this much work (cost units: ~5 ms of Python)
_WARM_PLAIN_MAX = 20_000
#: parallel work items of the kernel: per thread, and at least this many pairs each
_CHUNKS_PER_THREAD = 4
_MIN_CHUNK_PAIRS = 64


@dataclass(frozen=True)
class Options:
    """sacreBLEU's ``CHRF`` options, checked."""

    char_order: int = 6
    word_order: int = 0
    beta: float = 2
    lowercase: bool = False
    whitespace: bool = False
    eps_smoothing: bool = False

    def __post_init__(self):
        for name in ("char_order", "word_order"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
                raise VecscoreError(f"{name} must be an int >= 0, got {v!r}")
        if self.char_order + self.word_order < 1:
            raise VecscoreError("char_order + word_order must be at least 1 (chrF needs some n-gram order)")
        if isinstance(self.beta, bool) or not isinstance(self.beta, (int, float, np.integer, np.floating)):
            raise VecscoreError(f"beta must be a number, got {self.beta!r}")

    @property
    def order(self) -> int:
        return int(self.char_order) + int(self.word_order)

    @property
    def width(self) -> int:
        """Columns of a statistics row: ``3 * (char_order + word_order)``."""
        return 3 * self.order


@dataclass(frozen=True)
class ChrfBatch:
    """A checked batch: every text (hypotheses, then the flattened references), lowercased if asked."""

    texts: list
    n_pairs: int
    ref_ptr: np.ndarray
    user_hyps: object = None
    user_refs: object = None

    @property
    def nrefs(self) -> np.ndarray:
        return np.diff(self.ref_ptr)


def nrefs_label(nrefs: np.ndarray):
    """``nrefs`` as sacreBLEU's signature prints it: an int, or ``"var"``."""
    if len(nrefs) == 0:
        return 0
    first = int(nrefs[0])
    return first if bool(np.all(nrefs == first)) else "var"


def read_hyps(hyps) -> list:
    """The hypotheses as a checked list of ``str`` (errors name the row)."""
    hyps = as_rows(hyps, "hyps")
    if input_kind(hyps) != "text":
        raise VecscoreError(f"chrF scores text: hyps[0] is {type(hyps[0]).__name__}; pass a list of str")
    check_units(hyps, "text", "hyps")
    return hyps


def read_batch(hyps, refs, refs_layout: str, lowercase: bool) -> ChrfBatch:
    """Check ``hyps``/``refs`` and flatten them (see :mod:`vecscore.inputs` for the layouts)."""
    hyps = read_hyps(hyps)
    if not isinstance(refs, (str, bytes)) and hasattr(refs, "__iter__"):
        refs = as_rows(refs, "refs")
    layout = resolve_layout(refs, len(hyps), refs_layout)
    flat, ref_ptr = normalize_refs(refs, len(hyps), "text", layout)
    texts = plain_str(hyps) + plain_str(flat)
    if lowercase:
        texts = list(map(str.lower, texts))
    return ChrfBatch(texts, len(hyps), ref_ptr, hyps, refs)


def pair_rows(batch: ChrfBatch, opts: Options, route: str | None = None) -> np.ndarray:
    """int64 ``(n_refs_total, width)``: the statistics of every (pair, reference), on the route by size.

    ``route``: ``"plain"`` or ``"compiled"`` to force one (tests), else :func:`vecscore.route.use_plain` decides.
    """
    plain = _use_plain(batch, opts) if route is None else route == "plain"
    if plain:
        check_unicode(batch.user_hyps if batch.user_hyps is not None else [], "hyps")
        if batch.user_refs is not None and not isinstance(batch.user_refs, (str, bytes)):
            check_unicode(batch.user_refs, "refs")
        return plain_chrf.pair_stats(batch.texts, batch.n_pairs, batch.ref_ptr, int(opts.char_order),
                                     int(opts.word_order), bool(opts.whitespace))
    with unicode_errors(batch.user_hyps or [], batch.user_refs if batch.user_refs is not None else []):
        return compiled_rows(batch.texts, batch.n_pairs, batch.ref_ptr, opts)


def _use_plain(batch: ChrfBatch, opts: Options) -> bool:
    """:func:`vecscore.route.use_plain`, except that once numba is loaded the kernels win from a few pairs on."""
    cost = _COST_WORDS if opts.word_order else _COST_CHARS
    if route_setting() != "auto" or not is_active():
        return use_plain(True, lambda: text_chars(batch.texts), cost)
    return text_chars(batch.texts) * cost <= _WARM_PLAIN_MAX


def compiled_rows(texts: list, n_pairs: int, ref_ptr: np.ndarray, opts: Options) -> np.ndarray:
    """The compiled route of :func:`pair_rows` (loads numba)."""
    from vecscore.kernels import chrf as k

    lengths = np.fromiter(map(len, texts), np.int64, len(texts))
    offs = np.zeros(len(texts) + 1, np.int64)
    np.cumsum(lengths, out=offs[1:])
    cps = np.frombuffer("".join(texts).encode("utf-32-le"), dtype=np.uint32)
    if len(cps) == 0:
        cps = np.zeros(1, np.uint32)
    words = opts.word_order > 0
    ws, punct = _tables()
    with serialized():
        return _run_kernels(k, cps, offs, ws, punct, texts, n_pairs, ref_ptr, opts, words)


def _run_kernels(k, cps, offs, ws, punct, texts, n_pairs, ref_ptr, opts, words):
    chars = np.empty(len(cps), np.uint32)
    clen = np.empty(len(texts), np.int64)
    index = np.int32 if len(cps) < 2**31 - 1 else np.int64  # token bounds: half the memory when they fit
    tok_s = np.empty(len(cps) if words else 1, index)
    tok_e = np.empty(len(cps) if words else 1, index)
    ntok = np.zeros(len(texts), np.int64)
    k.prepare(cps, offs, ws, punct, bool(opts.whitespace), words, chars, clen, tok_s, tok_e, ntok)
    import numba

    n_chunks = max(1, min(n_pairs // _MIN_CHUNK_PAIRS, _CHUNKS_PER_THREAD * numba.get_num_threads()))
    chunks = np.linspace(0, n_pairs, n_chunks + 1).round().astype(np.int64)
    ref_ptr = np.ascontiguousarray(ref_ptr, np.int64)
    alphabet = int(cps.max()) + 1
    return k.pair_stats(chars, clen, cps, tok_s, tok_e, ntok, offs, n_pairs, ref_ptr, int(opts.char_order),
                        int(opts.word_order), chunks, alphabet)


_TABLES: list = []


def _tables():
    if not _TABLES:
        from vecscore.kernels import chrf as k

        _TABLES.extend((k.whitespace_table(), k.punctuation_table()))
    return _TABLES


def statistics(batch: ChrfBatch, opts: Options, route: str | None = None):
    """``(stats, scores)``: per pair the statistics against its best reference, and that pair's chrF."""
    rows = pair_rows(batch, opts, route)
    best, scores = formulas.best_rows(rows, batch.ref_ptr, opts.beta, opts.eps_smoothing)
    return rows[best], scores
