"""chrF statistics of a batch: the texts read once, the route, and the best reference per pair.

:func:`read_batch` reads the user's hypotheses and references once
(:func:`vecscore.references.read_texts`; errors name the user's row) and
lowercases if asked; :func:`statistics` counts n-grams on one of two routes
that give identical integers (:func:`vecscore.route.use_plain` picks by size):

* plain (:mod:`vecscore.chrf.plain`): ``Counter``s, no numba, for small calls;
* compiled (:mod:`vecscore.chrf.compiled`): every text's code points read
  where CPython keeps them, counted and scored pair by pair by one numba
  kernel on numba's threads.

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
from vecscore.chrf.options import Options
from vecscore.chrf.plain import plain_statistics
from vecscore.columns import JoinedRows, TextColumn
from vecscore.references import Refs, read_texts
from vecscore.route import note_compiled, text_chars, use_plain
from vecscore.route import route as route_setting

__all__ = ["ChrfBatch", "Options", "batch_of", "compiled_route", "pair_rows", "read_batch", "statistics"]

#: relative cost per character of the plain route (:data:`vecscore.route.COST` units: 1 = ~0.25 us)
_COST_CHARS = 5
_COST_WORDS = 7
#: with numba already loaded, the plain route only below this much work (cost units: ~5 ms of Python)
_WARM_PLAIN_MAX = 20_000


@dataclass(frozen=True)
class ChrfBatch:
    """A batch read once: every text (the hypotheses, then the references pair by pair), lowercased if asked;
    ``hyps`` and ``refs`` as read (for messages, and ``refs.ptr``: where each pair's references start)."""

    texts: Any
    hyps: list
    refs: Refs

    @property
    def n_pairs(self) -> int:
        return len(self.hyps)

    @property
    def ref_ptr(self) -> np.ndarray:
        return self.refs.ptr


def read_batch(hyps, refs, refs_layout: str, lowercase: bool, refs_name: str = "refs") -> ChrfBatch:
    """``hyps``/``refs`` read once and flattened (see :func:`vecscore.references.read_refs` for the layouts)."""
    hyps, read = read_texts(hyps, refs, refs_layout, "chrF", refs_name)
    return batch_of(hyps, read, lowercase)


def batch_of(hyps: list, refs: Refs, lowercase: bool, refs_lowercased: bool = False) -> ChrfBatch:
    """The batch of hypotheses and references read already (``refs_lowercased``: a class's cached ones)."""
    if lowercase:  # exact str: no subclass's lower
        flat = refs.flat if refs_lowercased else list(map(str.lower, refs.flat))
        return ChrfBatch(list(map(str.lower, hyps)) + flat, hyps, refs)
    if isinstance(hyps, TextColumn) or isinstance(refs.flat, TextColumn):
        return ChrfBatch(JoinedRows(hyps, refs.flat), hyps, refs)  # string columns: read from their buffers
    return ChrfBatch(hyps + refs.flat, hyps, refs)


def pair_rows(batch: ChrfBatch, opts: Options, route: str | None = None) -> np.ndarray:
    """int64 ``(n_refs_total, width)``: the statistics of every (pair, reference), on the route by size.

    ``route``: ``"plain"`` or ``"compiled"`` to force one (tests), else :func:`vecscore.route.use_plain` decides.
    """
    return _routed(batch, opts, route)[0]


def statistics(batch: ChrfBatch, opts: Options, route: str | None = None):
    """``(stats, scores)``: per pair the statistics against its best reference, and that pair's chrF."""
    rows, best, scores = _routed(batch, opts, route)
    if len(rows) == batch.n_pairs:  # one reference each: every row is its pair's best
        return rows, scores
    return rows[best], scores


def _routed(batch: ChrfBatch, opts: Options, route: str | None):
    """``(rows, best, scores)``: :func:`pair_rows`, and per pair its best reference's row and chrF."""
    if _use_plain(batch, opts) if route is None else route == "plain":
        return plain_statistics(batch.texts, batch.hyps, batch.refs, opts)
    out = compiled_route(batch, opts)
    note_compiled(_warm_key(opts))
    return out


def compiled_route(batch: ChrfBatch, opts: Options):
    """The compiled route (:func:`vecscore.chrf.compiled.checked_statistics`), imported on its first use: it
    loads the kernels."""
    from vecscore.chrf.compiled import checked_statistics

    return checked_statistics(batch.texts, batch.hyps, batch.refs, opts)


def _warm_key(opts: Options) -> tuple:
    """The kind of call for :func:`vecscore.route.use_plain`'s ``warm`` (chrF and chrF++ use other kernels)."""
    return ("chrf", "words" if opts.word_order else "chars")


def _use_plain(batch: ChrfBatch, opts: Options) -> bool:
    """:func:`vecscore.route.use_plain`, except that once numba is loaded the kernels win from a few pairs on."""
    cost = _COST_WORDS if opts.word_order else _COST_CHARS
    if route_setting() != "auto" or not is_active():
        return use_plain(True, lambda: text_chars(batch.texts), cost, warm=_warm_key(opts))
    return text_chars(batch.texts) * cost <= _WARM_PLAIN_MAX
