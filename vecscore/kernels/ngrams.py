"""Numba kernels for n-gram keys, per-row sparse counts and clipped overlaps.

Layout: a batch of token sequences is a ragged array ``ids`` (int64 dense ids)
with ``offsets`` (int64, n + 1).  The n-grams of row ``i`` get int64 keys; a
row's counts are stored as CSR pieces ``(indptr, indices, counts)`` with the
indices (n-gram keys) sorted and unique within each row, which is exactly the
canonical CSR layout of a scipy.sparse count matrix (rows = texts, columns =
n-gram keys).
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange


@jit(parallel=True)
def ngram_offsets(offsets, n):
    """Offsets of the n-gram arrays: row ``i`` has ``max(len_i - n + 1, 0)``."""
    rows = len(offsets) - 1
    out = np.zeros(rows + 1, np.int64)
    for i in range(rows):
        L = offsets[i + 1] - offsets[i] - n + 1
        out[i + 1] = out[i] + (L if L > 0 else 0)
    return out


@jit(parallel=True)
def pack_ngrams(ids, offsets, n, bits):
    """Exact int64 keys for n-grams by bit packing (requires ``n * bits <= 63``)."""
    goff = ngram_offsets(offsets, n)
    rows = len(offsets) - 1
    keys = np.empty(goff[rows], np.int64)
    for i in prange(rows):
        lo = offsets[i]
        k = goff[i]
        for j in range(goff[i + 1] - goff[i]):
            key = np.int64(0)
            for t in range(n):
                key = (key << bits) | ids[lo + j + t]
            keys[k + j] = key
    return keys, goff


@jit(parallel=True)
def extend_ngrams(prev_ids, prev_offsets, ids, offsets, n):
    """Keys for order-``n`` n-grams from dense ids of the order ``n - 1`` ones.

    ``key = prev_id << 32 | last_token``, exact while both are below 2**31.
    """
    goff = ngram_offsets(offsets, n)
    rows = len(offsets) - 1
    keys = np.empty(goff[rows], np.int64)
    for i in prange(rows):
        lo = offsets[i]
        p = prev_offsets[i]
        k = goff[i]
        for j in range(goff[i + 1] - goff[i]):
            keys[k + j] = (prev_ids[p + j] << 32) | ids[lo + j + n - 1]
    return keys, goff


@jit(parallel=True)
def row_counts(keys, offsets):
    """Sort each row's keys and run-length encode them into CSR pieces.

    Returns ``(indptr, indices, counts)``.
    """
    rows = len(offsets) - 1
    s = keys.copy()
    nuniq = np.zeros(rows, np.int64)
    for i in prange(rows):
        lo = offsets[i]
        hi = offsets[i + 1]
        if hi - lo > 1:
            s[lo:hi].sort()
        u = 0
        for j in range(lo, hi):
            if j == lo or s[j] != s[j - 1]:
                u += 1
        nuniq[i] = u
    indptr = np.zeros(rows + 1, np.int64)
    for i in range(rows):
        indptr[i + 1] = indptr[i] + nuniq[i]
    indices = np.empty(indptr[rows], np.int64)
    counts = np.empty(indptr[rows], np.int64)
    for i in prange(rows):
        k = indptr[i] - 1
        lo = offsets[i]
        for j in range(lo, offsets[i + 1]):
            if j == lo or s[j] != s[j - 1]:
                k += 1
                indices[k] = s[j]
                counts[k] = 1
            else:
                counts[k] += 1
    return indptr, indices, counts


@jit
def _min_merge(a_idx, a_cnt, alo, ahi, b_idx, b_cnt, blo, bhi):
    i = alo
    j = blo
    total = np.int64(0)
    while i < ahi and j < bhi:
        x = a_idx[i]
        y = b_idx[j]
        if x == y:
            total += min(a_cnt[i], b_cnt[j])
            i += 1
            j += 1
        elif x < y:
            i += 1
        else:
            j += 1
    return total


@jit(parallel=True)
def clipped_overlap(ptr, idx, cnt, a_rows, b_rows):
    """``sum_g min(count_a(g), count_b(g))`` for the row pairs ``(a_rows[k], b_rows[k])``."""
    m = len(a_rows)
    hits = np.empty(m, np.int64)
    for k in prange(m):
        a = a_rows[k]
        b = b_rows[k]
        hits[k] = _min_merge(idx, cnt, ptr[a], ptr[a + 1], idx, cnt, ptr[b], ptr[b + 1])
    return hits


@jit(parallel=True)
def clipped_overlap_max_ref(ptr, idx, cnt, hyp_rows, ref_rows, ref_ptr):
    """BLEU's clipping: ``sum_g min(count_hyp(g), max_r count_r(g))`` per pair.

    Pair ``p`` is hypothesis row ``hyp_rows[p]`` with reference rows
    ``ref_rows[ref_ptr[p]:ref_ptr[p + 1]]``.
    """
    n = len(hyp_rows)
    out = np.empty(n, np.int64)
    for p in prange(n):
        k = ref_ptr[p + 1] - ref_ptr[p]
        pos = np.empty(k, np.int64)
        for q in range(k):
            pos[q] = ptr[ref_rows[ref_ptr[p] + q]]
        total = np.int64(0)
        h = hyp_rows[p]
        for i in range(ptr[h], ptr[h + 1]):
            g = idx[i]
            best = np.int64(0)
            for q in range(k):
                end = ptr[ref_rows[ref_ptr[p] + q] + 1]
                j = pos[q]
                while j < end and idx[j] < g:
                    j += 1
                pos[q] = j
                if j < end and idx[j] == g and cnt[j] > best:
                    best = cnt[j]
            total += min(cnt[i], best)
        out[p] = total
    return out
