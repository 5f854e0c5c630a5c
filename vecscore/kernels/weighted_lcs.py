"""Numba kernels for word-length-weighted ROUGE: weighted n-gram overlap and weighted LCS.

Every token id ``t`` has an integer weight ``w[t]`` (its number of characters).

:func:`weighted_overlap_pairs`
    For keyed units (n-grams) with a weight per occurrence (the sum of its
    words' weights, equal for equal keys), ``sum_g W(g) min(c_a(g), c_b(g))``
    per row pair, computed as ``sum_g min(W c_a, W c_b)`` with one
    open-addressing table per pair (``O(len_a + len_b)``).
:func:`weighted_lcs_pairs`
    Maximum total weight of a common subsequence::

        C[i][j] = C[i-1][j-1] + w[a_i]               if a_i == b_j
                = max(C[i-1][j], C[i][j-1])          otherwise

    (two DP rows over the shorter sequence: ``O(len_a len_b)`` time,
    ``O(min(len_a, len_b))`` memory per pair).  With all weights 1 it is the
    LCS length.  Exact in int64.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange
from vecscore.kernels.ngrams import chunk_ranges, longest_row, table_bits, table_slot
from vecscore.memory import CHUNK_FAILED

__all__ = ["weighted_overlap_pairs", "weighted_lcs_pairs"]


@jit(parallel=True)
def weighted_overlap_pairs(keys, kw, off, a_rows, b_rows):
    """``sum_g W(g) * min(count_a(g), count_b(g))`` for each row pair; ``kw`` = weight of each key occurrence."""
    m = len(a_rows)
    out = np.zeros(m, np.int64)
    bounds = chunk_ranges(m, 64)
    failed = np.zeros(len(bounds) - 1, np.bool_)
    for c in prange(len(bounds) - 1):
        failed[c] = not _weighted_overlap_chunk(bounds, c, a_rows, b_rows, out, off, kw, keys)
    if failed.any():
        raise MemoryError(CHUNK_FAILED)
    return out


@jit
def _weighted_overlap_chunk(bounds, c, a_rows, b_rows, out, off, kw, keys):
    """The row pairs of chunk ``c`` of :func:`weighted_overlap_pairs`; False if its scratch could not be allocated
    (an exception inside a parallel loop would be lost)."""
    try:
        _weighted_overlap_chunk_body(bounds, c, a_rows, b_rows, out, off, kw, keys)
    except Exception:
        return False
    return True


@jit
def _weighted_overlap_chunk_body(bounds, c, a_rows, b_rows, out, off, kw, keys):
    """The work of :func:`_weighted_overlap_chunk` (no ``try`` here: numba compiles a try block holding
    loops badly, so the caller wraps the call)."""
    size = 1 << table_bits(longest_row(off, a_rows, bounds[c], bounds[c + 1]))
    tkey = np.empty(size, np.int64)
    ta = np.empty(size, np.int64)
    tb = np.empty(size, np.int64)
    for k in range(bounds[c], bounds[c + 1]):
        a = a_rows[k]
        b = b_rows[k]
        bits = table_bits(off[a + 1] - off[a])
        shift = 64 - bits
        mask = (1 << bits) - 1
        for j in range(1 << bits):
            ta[j] = -1
            tb[j] = 0
        for j in range(off[a], off[a + 1]):
            s = table_slot(keys[j], shift)
            while ta[s] != -1 and tkey[s] != keys[j]:
                s = (s + 1) & mask
            if ta[s] == -1:
                tkey[s] = keys[j]
                ta[s] = 0
            ta[s] += kw[j]
        for j in range(off[b], off[b + 1]):
            s = table_slot(keys[j], shift)
            while ta[s] != -1:
                if tkey[s] == keys[j]:
                    tb[s] += kw[j]
                    break
                s = (s + 1) & mask
        total = np.int64(0)
        for j in range(1 << bits):
            if ta[j] != -1:
                total += min(ta[j], tb[j])
        out[k] = total


@jit
def _wlcs_chars(x, y, w, prev, cur):
    """Weighted LCS of ``x`` (rows) and ``y`` (columns) with two DP rows of ``len(y) + 1``."""
    n = len(y)
    for j in range(n + 1):
        prev[j] = 0
        cur[j] = 0
    for i in range(len(x)):
        xi = x[i]
        for j in range(1, n + 1):
            if xi == y[j - 1]:
                cur[j] = prev[j - 1] + w[xi]
            else:
                cur[j] = prev[j] if prev[j] >= cur[j - 1] else cur[j - 1]
        prev, cur = cur, prev
    return prev[n]


@jit(parallel=True)
def weighted_lcs_pairs(ids, off, w, a_rows, b_rows):
    """Maximum weight of a common subsequence of rows ``a_rows[k]`` and ``b_rows[k]`` (int64)."""
    m = len(a_rows)
    out = np.zeros(m, np.int64)
    bounds = chunk_ranges(m, 64)
    failed = np.zeros(len(bounds) - 1, np.bool_)
    for c in prange(len(bounds) - 1):
        failed[c] = not _wlcs_chunk(bounds, c, ids, off, out, w, a_rows, b_rows)
    if failed.any():
        raise MemoryError(CHUNK_FAILED)
    return out



@jit
def _wlcs_chunk(bounds, c, ids, off, out, w, a_rows, b_rows):
    """The row pairs of chunk ``c`` of :func:`weighted_lcs_pairs`; False if its scratch could not be allocated
    (an exception inside a parallel loop would be lost)."""
    try:
        _wlcs_chunk_body(bounds, c, ids, off, out, w, a_rows, b_rows)
    except Exception:
        return False
    return True


@jit
def _wlcs_chunk_body(bounds, c, ids, off, out, w, a_rows, b_rows):
    """The work of :func:`_wlcs_chunk` (no ``try`` here: numba compiles a try block holding
    loops badly, so the caller wraps the call)."""
    longest = 1
    for k in range(bounds[c], bounds[c + 1]):
        la = off[a_rows[k] + 1] - off[a_rows[k]]
        lb = off[b_rows[k] + 1] - off[b_rows[k]]
        longest = max(longest, min(la, lb) + 1)
    r0 = np.zeros(longest, np.int64)
    r1 = np.zeros(longest, np.int64)
    for k in range(bounds[c], bounds[c + 1]):
        x = ids[off[a_rows[k]]:off[a_rows[k] + 1]]
        y = ids[off[b_rows[k]]:off[b_rows[k] + 1]]
        if len(x) < len(y):
            out[k] = _wlcs_chars(y, x, w, r0, r1)
        else:
            out[k] = _wlcs_chars(x, y, w, r0, r1)
