"""Numba kernel for word-length-weighted ROUGE-L: the weighted LCS.

Every token id ``t`` has an integer weight ``w[t]`` (its number of characters).

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
from vecscore.kernels.ngrams import chunk_ranges
from vecscore.memory import CHUNK_FAILED

__all__ = ["weighted_lcs_pairs"]


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
