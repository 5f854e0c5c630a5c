"""chrF's compiled route: every (pair, reference) counted and scored by one kernel on numba's threads.

The texts' code points are read where they lie (:func:`text_rows`: a compact
CPython ``str`` in place, :mod:`vecscore.kernels.in_place`; a string column's
ASCII rows from its own buffer; anything else encoded to UTF-32 here, every
text when in-place reading is off, ``VECSCORE_FAST_PATH=0``);
:func:`vecscore.kernels.chrf.pair_stats` counts the n-grams of each pair, scores
it against each of its references and keeps the best, with the float operations
of :func:`vecscore.chrf.formulas.best_rows`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vecscore.chrf.options import Options
from vecscore.columns import JoinedRows, TextColumn
from vecscore.errors import VecscoreError
from vecscore.kernels import chrf as k
from vecscore.kernels import chrf_text as kt
from vecscore.kernels.in_place import ASCII, str_rows
from vecscore.kernels.swar import work_counter
from vecscore.parallel import current_threads, in_threads
from vecscore.references import Refs
from vecscore.row_errors import unicode_errors

__all__ = ["CodePoints", "checked_statistics", "compiled_rows", "compiled_statistics", "text_rows"]

#: chunks of pairs the kernel's threads claim: per thread, and at least this many pairs each
_CHUNKS_PER_THREAD = 32
_MIN_CHUNK_PAIRS = 64


def checked_statistics(texts, hyps: list, refs: Refs, opts: Options):
    """:func:`compiled_statistics` of a batch read once; a lone surrogate is refused naming its row."""
    with unicode_errors(hyps, refs):
        return compiled_statistics(texts, len(hyps), refs.ptr, opts)


def compiled_rows(texts: list, n_pairs: int, ref_ptr: np.ndarray, opts: Options) -> np.ndarray:
    """The rows of :func:`vecscore.chrf.stats.pair_rows` on the compiled route."""
    return compiled_statistics(texts, n_pairs, ref_ptr, opts)[0]


def compiled_statistics(texts: list, n_pairs: int, ref_ptr: np.ndarray, opts: Options):
    """``(rows, best, scores)`` on the compiled route: every (pair, reference)'s statistics, and per pair
    the row of its best reference and that chrF (as :func:`vecscore.chrf.formulas.best_rows` gives them).

    The texts are read where they lie (:func:`text_rows`); the kernel
    (:func:`vecscore.kernels.chrf.pair_stats`) counts every pair, and scores it, on numba's threads.
    """
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


_TABLES: list = []


def _tables():
    if not _TABLES:
        _TABLES.extend((kt.whitespace_table(), kt.punctuation_table()))
    return _TABLES


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
