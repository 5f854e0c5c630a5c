"""chrF statistics of a batch: input checks, the route, and the best reference per pair.

:func:`statistics` reads the user's hypotheses and references through
:mod:`vecscore.inputs` (errors name the user's row), lowercases if asked,
then counts n-grams on one of two routes that give identical integers
(:mod:`vecscore.route` picks by size):

* plain (:mod:`vecscore.chrf.plain`): ``Counter``s, no numba, for small calls;
* compiled (:mod:`vecscore.kernels.chrf`): every text's code points read
  where CPython keeps them (:func:`text_rows`; encoded to UTF-32 where they
  cannot be), counted and scored pair by pair by one numba kernel on
  numba's threads.

Both give one row per (pair, reference), and per pair its best reference
as sacreBLEU picks it (:func:`vecscore.chrf.formulas.best_rows` on the plain
route, :func:`vecscore.kernels.chrf.f_score` in the kernel: the same float
operations, so the same bits).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from vecscore._jit import is_active
from vecscore.chrf import formulas
from vecscore.chrf import plain as plain_chrf
from vecscore.columns import JoinedRows, TextColumn
from vecscore.errors import VecscoreError
from vecscore.inputs import read_rows
from vecscore.references import read_refs
from vecscore.route import note_compiled, text_chars, use_plain
from vecscore.route import route as route_setting
from vecscore.row_errors import check_unicode, unicode_errors

__all__ = ["ChrfBatch", "Options", "pair_rows", "read_batch", "read_hyps", "statistics"]

#: relative cost per character of the plain route (:data:`vecscore.route.COST` units: 1 = ~0.25 us)
_COST_CHARS = 5
_COST_WORDS = 7
#: with numba already loaded, the plain route only below this much work (cost units: ~5 ms of Python)
_WARM_PLAIN_MAX = 20_000
#: chunks of pairs the kernel's threads claim: per thread, and at least this many pairs each
_CHUNKS_PER_THREAD = 32
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
    user_hyps: object = None  # the hypotheses as read (for messages)
    user_refs: object = None  # the references as read (:class:`vecscore.references.Refs`, for messages)

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
    """The hypotheses read once (:func:`vecscore.inputs.read_rows`): a new list of exact ``str``; errors name
    the row."""
    rows, kind = read_rows(hyps, "hyps")
    if kind != "text":
        raise VecscoreError(f"chrF scores text: hyps[0] is {type(rows[0]).__name__}; pass a list of str")
    return rows


def read_batch(hyps, refs, refs_layout: str, lowercase: bool, refs_name: str = "refs") -> ChrfBatch:
    """``hyps``/``refs`` read once and flattened (see :func:`vecscore.references.read_refs` for the layouts)."""
    hyps = read_hyps(hyps)
    read = read_refs(refs, len(hyps), "text", refs_layout, refs_name)
    if not lowercase and (isinstance(hyps, TextColumn) or isinstance(read.flat, TextColumn)):
        texts: Any = JoinedRows(hyps, read.flat)  # string columns: read from their buffers (text_rows)
    else:
        texts = hyps + read.flat
    if lowercase:
        texts = list(map(str.lower, texts))  # exact str: no subclass's lower
    return ChrfBatch(texts, len(hyps), read.ptr, hyps, read)


def pair_rows(batch: ChrfBatch, opts: Options, route: str | None = None) -> np.ndarray:
    """int64 ``(n_refs_total, width)``: the statistics of every (pair, reference), on the route by size.

    ``route``: ``"plain"`` or ``"compiled"`` to force one (tests), else :func:`vecscore.route.use_plain` decides.
    """
    return _routed(batch, opts, route)[0]


def _routed(batch: ChrfBatch, opts: Options, route: str | None):
    """``(rows, best, scores)``: :func:`pair_rows`, and per pair its best reference's row and chrF."""
    plain = _use_plain(batch, opts) if route is None else route == "plain"
    if plain:
        check_unicode(batch.user_hyps if batch.user_hyps is not None else [], "hyps")
        if batch.user_refs is not None and not isinstance(batch.user_refs, (str, bytes)):
            check_unicode(batch.user_refs, "refs")
        rows = plain_chrf.pair_stats(batch.texts, batch.n_pairs, batch.ref_ptr, int(opts.char_order),
                                     int(opts.word_order), bool(opts.whitespace))
        return (rows, *formulas.best_rows(rows, batch.ref_ptr, opts.beta, opts.eps_smoothing))
    with unicode_errors(batch.user_hyps or [], batch.user_refs if batch.user_refs is not None else []):
        out = compiled_statistics(batch.texts, batch.n_pairs, batch.ref_ptr, opts)
    note_compiled(_warm_key(opts))
    return out


def _warm_key(opts: Options) -> tuple:
    """The kind of call for :func:`vecscore.route.use_plain`'s ``warm`` (chrF and chrF++ use other kernels)."""
    return ("chrf", "words" if opts.word_order else "chars")


def _use_plain(batch: ChrfBatch, opts: Options) -> bool:
    """:func:`vecscore.route.use_plain`, except that once numba is loaded the kernels win from a few pairs on."""
    cost = _COST_WORDS if opts.word_order else _COST_CHARS
    if route_setting() != "auto" or not is_active():
        return use_plain(True, lambda: text_chars(batch.texts), cost, warm=_warm_key(opts))
    return text_chars(batch.texts) * cost <= _WARM_PLAIN_MAX


def compiled_rows(texts: list, n_pairs: int, ref_ptr: np.ndarray, opts: Options) -> np.ndarray:
    """The compiled route of :func:`pair_rows` (loads numba)."""
    return compiled_statistics(texts, n_pairs, ref_ptr, opts)[0]


def compiled_statistics(texts: list, n_pairs: int, ref_ptr: np.ndarray, opts: Options):
    """``(rows, best, scores)`` on the compiled route: every (pair, reference)'s statistics, and per pair
    the row of its best reference and that chrF (as :func:`vecscore.chrf.formulas.best_rows` gives them).

    The texts are read where they lie (:func:`text_rows`); the kernel
    (:func:`vecscore.kernels.chrf.pair_stats`) counts every pair, and scores it, on numba's threads.
    """
    from vecscore.kernels import chrf as k
    from vecscore.kernels import chrf_text as kt
    from vecscore.kernels.swar import work_counter
    from vecscore.parallel import current_threads, in_threads

    rows = text_rows(texts)
    lens = rows.lens
    ref_ptr = np.ascontiguousarray(ref_ptr, np.int64)
    n_rows = int(ref_ptr[n_pairs]) if n_pairs else 0
    out = np.zeros((n_rows, opts.width), np.int64)
    best = np.zeros(n_pairs, np.int64)
    scores = np.zeros(n_pairs)
    if n_pairs == 0:
        return out, best, scores
    # scratch per thread: sized by the largest pair (all its texts' code points) and hypothesis
    ref_cum = np.zeros(len(lens) - n_pairs + 1, np.int64)
    np.cumsum(lens[n_pairs:], out=ref_cum[1:])
    pair_units = lens[:n_pairs] + ref_cum[ref_ptr[1:]] - ref_cum[ref_ptr[:-1]]
    units = int(pair_units.max()) + 1
    hyp = int(lens[:n_pairs].max()) + 1
    most = int(np.diff(ref_ptr).max()) + 2
    workers = max(1, min(current_threads(), -(-n_pairs // _MIN_CHUNK_PAIRS)))
    n_chunks = max(1, min(-(-n_pairs // _MIN_CHUNK_PAIRS), _CHUNKS_PER_THREAD * workers))
    bounds = np.linspace(0, n_pairs, n_chunks + 1).round().astype(np.int64)
    size = kt.table_size(hyp)
    word_units = units if opts.word_order else 1
    i32 = np.empty((workers, 4, units), np.int32)
    w32 = np.empty((workers, 3, word_units), np.int32)
    i64 = np.empty((workers, kt.HYP_ROWS, hyp), np.int64)
    u64 = np.empty((workers, 3, word_units), np.int64)
    ctab = np.zeros((workers, kt.CODE_POINTS), np.int64)
    dense = np.zeros((workers, kt.DENSE + 1), kt.DENSE_DTYPE)  # zero outside the kernel's orders
    hkey = np.empty((workers, size), np.int64)
    hval = np.zeros((workers, size), np.int64)
    hhash = np.empty((workers, size), np.int64)
    small = np.empty((workers, 5, most), np.int64)
    bad = np.zeros(1, np.int64)
    ws, punct = _tables()
    factor = float(opts.beta ** 2)
    taken = work_counter(workers)
    addrs, widths = rows.addrs, rows.widths

    def run(w0, w1):  # the workers w0 .. w1 - 1, with their rows of the scratch
        k.pair_stats(addrs, lens, widths, n_pairs, ref_ptr, int(opts.char_order), int(opts.word_order),
                     bool(opts.whitespace), ws, punct, bounds, taken, w1 - w0, factor, bool(opts.eps_smoothing), out,
                     best, scores, bad, i32[w0:w1], w32[w0:w1], i64[w0:w1], u64[w0:w1], ctab[w0:w1], dense[w0:w1],
                     hkey[w0:w1], hval[w0:w1], hhash[w0:w1], small[w0:w1])

    in_threads(run, workers, k.pair_stats)
    del rows
    if bad[0]:
        raise VecscoreError("a text holds a lone surrogate, which is not valid Unicode text")
    return out, best, scores


@dataclass(frozen=True)
class CodePoints:
    """Row ``t``: ``lens[t]`` code points of ``widths[t]`` bytes (1, 2 or 4) at ``addrs[t]``; ``keep`` owns them."""

    addrs: np.ndarray  # int64
    lens: np.ndarray  # int64
    widths: np.ndarray  # int64
    keep: tuple


def text_rows(texts: list) -> CodePoints:
    """The code points of ``texts`` (plain ``str``) for the kernel: read in place where CPython keeps a
    compact ``str`` (:mod:`vecscore.kernels.in_place`), otherwise encoded to UTF-32 here (every text
    when in-place reading is off or unavailable, ``VECSCORE_FAST_PATH=0``)."""
    from vecscore.kernels.in_place import ASCII, str_rows

    if isinstance(texts, (JoinedRows, TextColumn)):
        parts = [_column_points(p) if isinstance(p, TextColumn) else text_rows(p)
                 for p in (texts.parts if isinstance(texts, JoinedRows) else (texts,))]
        return CodePoints(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("addrs", "lens", "widths")),
                          tuple(k for p in parts for k in p.keep))
    rows = str_rows(texts)
    if rows is None:
        return _encoded(texts, np.arange(len(texts)), None)
    width = getattr(rows, "width", None)
    widths = np.zeros(len(texts), np.int64) if width is None else width.astype(np.int64)
    widths[rows.kind == ASCII] = 1
    todo = np.flatnonzero(widths == 0)  # not a compact str: encoded here
    if len(todo) == 0:
        return CodePoints(rows.addrs, rows.lens, widths, (rows,))
    return _encoded(texts, todo, CodePoints(rows.addrs, rows.lens, widths, (rows,)))


def _column_points(column: TextColumn) -> CodePoints:
    """A string column's code points, with no ``str`` made: its ASCII rows read from its own buffer (one byte
    each), the others decoded together into one ``str`` (C-level passes over those rows only) read in place."""
    n = len(column)
    addrs = column.data.ctypes.data + column.offsets[:-1]
    lens = np.diff(column.offsets)
    widths = np.ones(n, np.int64)
    if column.nbytes() == 0:
        return CodePoints(addrs, lens, widths, (column,))
    other = column.non_ascii_rows()
    if len(other) == 0:
        return CodePoints(addrs, lens, widths, (column,))
    text, starts = column.joined(other)
    joined = text_rows([text])  # one str for them all: read in place (or its UTF-32)
    addrs[other] = joined.addrs[0] + joined.widths[0] * starts[:-1]
    lens[other] = np.diff(starts)
    widths[other] = joined.widths[0]
    return CodePoints(addrs, lens, widths, (column, *joined.keep))


def _encoded(texts: list, todo: np.ndarray, base: CodePoints | None) -> CodePoints:
    """``base`` with the rows ``todo`` pointed at their UTF-32 encoding (``base`` ``None``: every row)."""
    if base is None:
        n = len(texts)
        base = CodePoints(np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64), ())
        picked = texts
    else:
        picked = [texts[i] for i in todo]
    lengths = np.fromiter(map(len, picked), np.int64, len(picked))
    starts = np.zeros(len(picked), np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    buf = np.frombuffer("".join(picked).encode("utf-32-le") or b"\0\0\0\0", np.uint32)
    addrs, lens, widths = base.addrs.copy(), base.lens.copy(), base.widths.copy()
    addrs[todo] = buf.ctypes.data + 4 * starts
    lens[todo] = lengths
    widths[todo] = 4
    return CodePoints(addrs, lens, widths, base.keep + (buf,))


_TABLES: list = []


def _tables():
    if not _TABLES:
        from vecscore.kernels import chrf_text as kt

        _TABLES.extend((kt.whitespace_table(), kt.punctuation_table()))
    return _TABLES


def statistics(batch: ChrfBatch, opts: Options, route: str | None = None):
    """``(stats, scores)``: per pair the statistics against its best reference, and that pair's chrF."""
    rows, best, scores = _routed(batch, opts, route)
    if len(rows) == batch.n_pairs:  # one reference each: every row is its pair's best
        return rows, scores
    return rows[best], scores
