"""LCS length of every cell of a grid of texts: text ``rows_a[i]`` against text ``rows_b[j]``.

The texts are one ragged array of token ids (text ``t`` is ``ids[offsets[t]:offsets[t + 1]]``); a grid names
its rows and columns by text index, so a text's tokens are never copied per cell.  The rows of the grid are
split into chunks run in parallel (``prange``); each chunk allocates its scratch once (the scratch of long
texts only when a cell needs it, sized by the longest text of the chunk's rows).  A chunk that cannot allocate
its scratch makes the call raise ``MemoryError`` (an exception inside the parallel loop would be lost).

Per row, a text ``a`` of at most 64 tokens becomes the bit pattern of Hyyrö's bit-parallel recurrence once
(one match mask per distinct token) and every column's text is streamed through it: ``O(len(b))`` per cell.
A longer row text takes :func:`vecscore.kernels.lcs.lcs_trimmed_into` per cell (common prefix and suffix off,
then the shorter side as the pattern, over as many 64-bit words as it needs).
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange
from vecscore.kernels.lcs import lcs_long_words, lcs_trimmed_into
from vecscore.kernels.swar import popcount as _popcount
from vecscore.memory import CHUNK_FAILED

__all__ = ["lcs_grid"]

_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@jit
def _lcs_grid_chunk(ids, offsets, rows_a, rows_b, vocab_size, max_len, lo, hi, out):
    """Rows ``lo .. hi - 1`` of :func:`lcs_grid` on one thread; False if its scratch could not be allocated."""
    try:
        _lcs_grid_rows(ids, offsets, rows_a, rows_b, vocab_size, max_len, lo, hi, out)
    except Exception:
        return False
    return True


@jit
def _lcs_grid_rows(ids, offsets, rows_a, rows_b, vocab_size, max_len, lo, hi, out):
    """The work of :func:`_lcs_grid_chunk` (numba compiles a ``try`` around loops badly: the caller wraps it)."""
    mask = np.zeros(vocab_size, np.uint64)
    slot = np.empty(0, np.int64)
    items = np.empty(0, np.int64)
    words = np.empty(0, np.uint64)
    nb = rows_b.shape[0]
    for i in range(lo, hi):
        a = ids[offsets[rows_a[i]]:offsets[rows_a[i] + 1]]
        m = a.shape[0]
        if m == 0:
            for j in range(nb):
                out[i, j] = 0
        elif m <= 64:
            for q in range(m):
                mask[a[q]] |= np.uint64(1) << np.uint64(q)
            keep = _ALL if m == 64 else (np.uint64(1) << np.uint64(m)) - np.uint64(1)
            for j in range(nb):
                b = ids[offsets[rows_b[j]]:offsets[rows_b[j] + 1]]
                v = _ALL
                for q in range(b.shape[0]):
                    u = v & mask[b[q]]
                    v = (v + u) | (v & ~u)
                out[i, j] = m - _popcount(v & keep)
            for q in range(m):
                mask[a[q]] = np.uint64(0)
        else:
            if slot.shape[0] == 0:  # the first long row text of the chunk: the scratch of the multi-word path
                longest = 0
                for k in range(i, hi):
                    longest = max(longest, offsets[rows_a[k] + 1] - offsets[rows_a[k]])
                n_items, n_words = lcs_long_words(min(longest, max_len))
                slot = np.full(vocab_size, -1, np.int64)
                items = np.empty(n_items, np.int64)
                words = np.empty(n_words, np.uint64)
            for j in range(nb):
                b = ids[offsets[rows_b[j]]:offsets[rows_b[j] + 1]]
                out[i, j] = lcs_trimmed_into(a, b, mask, slot, items, words)


@jit(parallel=True)
def lcs_grid(ids, offsets, rows_a, rows_b, vocab_size, max_len, n_chunks):
    """int64 ``(len(rows_a), len(rows_b))``: the LCS length of text ``rows_a[i]`` and text ``rows_b[j]``.

    ``ids``/``offsets``: the texts (int64, ids ``0 .. vocab_size - 1``); ``rows_a``/``rows_b``: int64 text
    indices (any order, repeats allowed); ``max_len``: at least the length of every column text of the grid
    (with the row texts' lengths, it sizes the scratch of long texts: the shorter text of a cell is the bit
    pattern); ``n_chunks``: how many parts the rows are split into (results never depend on it).
    """
    na = rows_a.shape[0]
    out = np.empty((na, rows_b.shape[0]), np.int64)
    failed = np.zeros(n_chunks, np.bool_)
    for c in prange(n_chunks):
        lo = c * na // n_chunks
        hi = (c + 1) * na // n_chunks
        if hi > lo:
            failed[c] = not _lcs_grid_chunk(ids, offsets, rows_a, rows_b, vocab_size, max_len, lo, hi, out)
    if failed.any():
        raise MemoryError(CHUNK_FAILED)
    return out
