"""Numba kernels for n-gram keys, per-row sparse counts and clipped overlaps.

Layout: a batch of token sequences is a ragged array ``ids`` (int64 dense ids)
with ``offsets`` (int64, n + 1).  The n-grams of row ``i`` get int64 keys; a
row's counts are stored as CSR pieces ``(indptr, indices, counts)`` with the
indices (n-gram keys) unique within each row, in order of first occurrence:
the CSR layout of a scipy.sparse count matrix (rows = texts, columns =
n-gram keys) with unsorted indices.  Counting and clipped overlaps use small
open-addressing tables per row, O(length) with no sorting.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange
from vecscore.memory import CHUNK_FAILED


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


GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@jit
def table_slot(key, shift):
    return np.int64((np.uint64(key) * GOLDEN) >> np.uint64(shift))


@jit
def table_bits(n):
    """log2 of a power-of-two hash table size of at least ``2 * n`` slots (at least 16)."""
    bits = 4
    while (1 << bits) < 2 * n:
        bits += 1
    return bits


@jit
def chunk_ranges(n_items, n_chunks):
    n_chunks = max(1, min(n_chunks, n_items))
    bounds = np.empty(n_chunks + 1, np.int64)
    for c in range(n_chunks + 1):
        bounds[c] = (n_items * c) // n_chunks
    return bounds


@jit
def longest_row(ptr, rows, lo, hi):
    """The largest ``ptr[r + 1] - ptr[r]`` over ``r = rows[lo:hi]`` (sizes a chunk's scratch table)."""
    longest = 0
    for k in range(lo, hi):
        longest = max(longest, ptr[rows[k] + 1] - ptr[rows[k]])
    return longest


@jit
def _count_row(keys, lo, hi, tkey, tpos, out_idx, out_cnt):
    """Unique keys of ``keys[lo:hi]`` (first-occurrence order) with counts.

    Writes them to ``out_idx[lo:]``/``out_cnt[lo:]``; returns how many.
    """
    bits = table_bits(hi - lo)
    shift = 64 - bits
    mask = (1 << bits) - 1
    for j in range(1 << bits):
        tpos[j] = -1
    u = 0
    for j in range(lo, hi):
        key = keys[j]
        s = table_slot(key, shift)
        while tpos[s] != -1 and tkey[s] != key:
            s = (s + 1) & mask
        if tpos[s] == -1:
            tkey[s] = key
            tpos[s] = lo + u
            out_idx[lo + u] = key
            out_cnt[lo + u] = 1
            u += 1
        else:
            out_cnt[tpos[s]] += 1
    return u


@jit(parallel=True)
def row_counts(keys, offsets):
    """Per-row unique keys with their counts, as CSR pieces.

    Returns ``(indptr, indices, counts)``.  Within a row, keys appear in order
    of first occurrence (unique, not sorted): a valid CSR matrix with
    unsorted indices.  Counting uses a small open-addressing table per row.
    """
    rows = len(offsets) - 1
    tmp_idx = np.empty(len(keys), np.int64)
    tmp_cnt = np.empty(len(keys), np.int64)
    nuniq = np.zeros(rows, np.int64)
    bounds = chunk_ranges(rows, 64)
    failed = np.zeros(len(bounds) - 1, np.bool_)
    for c in prange(len(bounds) - 1):
        failed[c] = not _count_chunk(keys, offsets, bounds, c, nuniq, tmp_idx, tmp_cnt)
    if failed.any():
        raise MemoryError(CHUNK_FAILED)
    indptr = np.zeros(rows + 1, np.int64)
    for i in range(rows):
        indptr[i + 1] = indptr[i] + nuniq[i]
    indices = np.empty(indptr[rows], np.int64)
    counts = np.empty(indptr[rows], np.int64)
    for i in prange(rows):
        lo = offsets[i]
        k = indptr[i]
        for j in range(nuniq[i]):
            indices[k + j] = tmp_idx[lo + j]
            counts[k + j] = tmp_cnt[lo + j]
    return indptr, indices, counts


@jit
def _count_chunk(keys, offsets, bounds, c, nuniq, tmp_idx, tmp_cnt):
    """The rows of chunk ``c`` of :func:`row_counts`; False if its scratch could not be allocated
    (an exception inside a parallel loop would be lost)."""
    try:
        _count_chunk_body(keys, offsets, bounds, c, nuniq, tmp_idx, tmp_cnt)
    except Exception:
        return False
    return True


@jit
def _count_chunk_body(keys, offsets, bounds, c, nuniq, tmp_idx, tmp_cnt):
    """The work of :func:`_count_chunk` (no ``try`` here: numba compiles a try block holding
    loops badly, so the caller wraps the call)."""
    longest = 0
    for i in range(bounds[c], bounds[c + 1]):
        longest = max(longest, offsets[i + 1] - offsets[i])
    size = 1 << table_bits(longest)
    tkey = np.empty(size, np.int64)
    tpos = np.empty(size, np.int64)
    for i in range(bounds[c], bounds[c + 1]):
        nuniq[i] = _count_row(keys, offsets[i], offsets[i + 1], tkey, tpos, tmp_idx, tmp_cnt)


@jit
def _row_min_sum(ptr, idx, cnt, a, b, tkey, tval):
    """``sum_g min(count_a(g), count_b(g))`` with a table of row ``a``'s keys."""
    alo = ptr[a]
    ahi = ptr[a + 1]
    bits = table_bits(ahi - alo)
    shift = 64 - bits
    mask = (1 << bits) - 1
    for j in range(1 << bits):
        tval[j] = -1
    for j in range(alo, ahi):
        s = table_slot(idx[j], shift)
        while tval[s] != -1:
            s = (s + 1) & mask
        tkey[s] = idx[j]
        tval[s] = cnt[j]
    total = np.int64(0)
    for j in range(ptr[b], ptr[b + 1]):
        key = idx[j]
        s = table_slot(key, shift)
        while tval[s] != -1:
            if tkey[s] == key:
                total += min(tval[s], cnt[j])
                break
            s = (s + 1) & mask
    return total


@jit(parallel=True)
def clipped_overlap(ptr, idx, cnt, a_rows, b_rows):
    """``sum_g min(count_a(g), count_b(g))`` for the row pairs ``(a_rows[k], b_rows[k])``.

    Rows need not have sorted indices (keys must be unique within a row).
    """
    m = len(a_rows)
    hits = np.empty(m, np.int64)
    bounds = chunk_ranges(m, 64)
    failed = np.zeros(len(bounds) - 1, np.bool_)
    for c in prange(len(bounds) - 1):
        failed[c] = not _overlap_chunk(ptr, idx, cnt, a_rows, b_rows, bounds, c, hits)
    if failed.any():
        raise MemoryError(CHUNK_FAILED)
    return hits


@jit
def _overlap_chunk(ptr, idx, cnt, a_rows, b_rows, bounds, c, hits):
    """The row pairs of chunk ``c`` of :func:`clipped_overlap`; False if its scratch could not be allocated
    (an exception inside a parallel loop would be lost)."""
    try:
        _overlap_chunk_body(ptr, idx, cnt, a_rows, b_rows, bounds, c, hits)
    except Exception:
        return False
    return True


@jit
def _overlap_chunk_body(ptr, idx, cnt, a_rows, b_rows, bounds, c, hits):
    """The work of :func:`_overlap_chunk` (no ``try`` here: numba compiles a try block holding
    loops badly, so the caller wraps the call)."""
    size = 1 << table_bits(longest_row(ptr, a_rows, bounds[c], bounds[c + 1]))
    tkey = np.empty(size, np.int64)
    tval = np.empty(size, np.int64)
    for k in range(bounds[c], bounds[c + 1]):
        hits[k] = _row_min_sum(ptr, idx, cnt, a_rows[k], b_rows[k], tkey, tval)


@jit(parallel=True)
def clipped_overlap_max_ref(ptr, idx, cnt, hyp_rows, ref_rows, ref_ptr):
    """BLEU's clipping: ``sum_g min(count_hyp(g), max_r count_r(g))`` per pair.

    Pair ``p`` is hypothesis row ``hyp_rows[p]`` with reference rows
    ``ref_rows[ref_ptr[p]:ref_ptr[p + 1]]``.
    """
    n = len(hyp_rows)
    out = np.empty(n, np.int64)
    bounds = chunk_ranges(n, 64)
    failed = np.zeros(len(bounds) - 1, np.bool_)
    for c in prange(len(bounds) - 1):
        failed[c] = not _overlap_max_ref_chunk(ptr, idx, cnt, hyp_rows, ref_rows, ref_ptr, bounds, c, out)
    if failed.any():
        raise MemoryError(CHUNK_FAILED)
    return out



@jit
def _overlap_max_ref_chunk(ptr, idx, cnt, hyp_rows, ref_rows, ref_ptr, bounds, c, out):
    """The pairs of chunk ``c`` of :func:`clipped_overlap_max_ref`; False if its scratch could not be allocated
    (an exception inside a parallel loop would be lost)."""
    try:
        _overlap_max_ref_chunk_body(ptr, idx, cnt, hyp_rows, ref_rows, ref_ptr, bounds, c, out)
    except Exception:
        return False
    return True


@jit
def _overlap_max_ref_chunk_body(ptr, idx, cnt, hyp_rows, ref_rows, ref_ptr, bounds, c, out):
    """The work of :func:`_overlap_max_ref_chunk` (no ``try`` here: numba compiles a try block holding
    loops badly, so the caller wraps the call)."""
    size = 1 << table_bits(longest_row(ptr, hyp_rows, bounds[c], bounds[c + 1]))
    tkey = np.empty(size, np.int64)
    tval = np.empty(size, np.int64)
    tmax = np.empty(size, np.int64)
    for p in range(bounds[c], bounds[c + 1]):
        h = hyp_rows[p]
        bits = table_bits(ptr[h + 1] - ptr[h])
        shift = 64 - bits
        mask = (1 << bits) - 1
        for j in range(1 << bits):
            tval[j] = -1
            tmax[j] = 0
        for j in range(ptr[h], ptr[h + 1]):
            s = table_slot(idx[j], shift)
            while tval[s] != -1:
                s = (s + 1) & mask
            tkey[s] = idx[j]
            tval[s] = cnt[j]
        for q in range(ref_ptr[p], ref_ptr[p + 1]):
            r = ref_rows[q]
            for j in range(ptr[r], ptr[r + 1]):
                key = idx[j]
                s = table_slot(key, shift)
                while tval[s] != -1:
                    if tkey[s] == key:
                        if cnt[j] > tmax[s]:
                            tmax[s] = cnt[j]
                        break
                    s = (s + 1) & mask
        total = np.int64(0)
        for j in range(1 << bits):
            if tval[j] != -1:
                total += min(tval[j], tmax[j])
        out[p] = total
