"""BLEU's clipped n-gram matches for all orders in one fused kernel.

For each pair, every order's n-grams are hashed into a small per-pair table
(keys are compared only within a pair, and every hash hit is confirmed by
comparing the token ids, so counts are exact) and clipped by the n-gram's
maximum count over the pair's references.  See :mod:`vecscore.bleu.compiled`.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange
from vecscore.kernels.ngrams import chunk_ranges, table_bits
from vecscore.memory import CHUNK_FAILED

__all__ = ["clipped_counts"]

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
FNV_PRIME = np.uint64(1099511628211)


@jit
def _same(a, i, b, j, n):
    for t in range(n):
        if a[i + t] != b[j + t]:
            return False
    return True


@jit(parallel=True)
def clipped_counts(hyp_ids, hyp_off, ref_ids, ref_off, ref_ptr, max_order, hash_mask):
    """BLEU's clipped matches ``correct[p, n-1]`` for every pair and order.

    Pair ``p`` is hypothesis ``hyp_ids[hyp_off[p]:hyp_off[p + 1]]`` with
    reference rows ``ref_ptr[p]:ref_ptr[p + 1]`` of ``ref_off``/``ref_ids``
    (their tokens contiguous).  For each order, the hypothesis n-grams go
    into an open-addressing table keyed by a rolling hash of their ids;
    reference n-grams are looked up, each hit confirmed by comparing ids, and
    the per-reference count (reset lazily with a stamp) raises the n-gram's
    maximum.  ``hash_mask`` is ANDed into every hash (all ones; tests pass 0
    to force every n-gram through the exact comparison).
    """
    n_pairs = len(hyp_off) - 1
    out = np.zeros((n_pairs, max_order), np.int64)
    bounds = chunk_ranges(n_pairs, 64)
    failed = np.zeros(len(bounds) - 1, np.bool_)
    for c in prange(len(bounds) - 1):
        failed[c] = not _clipped_chunk(hyp_ids, hyp_off, ref_ids, ref_off, ref_ptr, max_order, hash_mask, bounds, c,
                                       out)
    if failed.any():
        raise MemoryError(CHUNK_FAILED)
    return out


@jit
def _clipped_chunk(hyp_ids, hyp_off, ref_ids, ref_off, ref_ptr, max_order, hash_mask, bounds, c, out):
    """The pairs of chunk ``c`` of :func:`clipped_counts`; False if its scratch could not be allocated
    (an exception inside a parallel loop would be lost)."""
    try:
        _clipped_chunk_body(hyp_ids, hyp_off, ref_ids, ref_off, ref_ptr, max_order, hash_mask, bounds, c, out)
    except Exception:
        return False
    return True


@jit
def _clipped_chunk_body(hyp_ids, hyp_off, ref_ids, ref_off, ref_ptr, max_order, hash_mask, bounds, c, out):
    """The work of :func:`_clipped_chunk` (no ``try`` here: numba compiles a try block holding
    loops badly, so the caller wraps the call)."""
    longest = 1
    longest_refs = 1
    for p in range(bounds[c], bounds[c + 1]):
        longest = max(longest, hyp_off[p + 1] - hyp_off[p])
        longest_refs = max(longest_refs, ref_off[ref_ptr[p + 1]] - ref_off[ref_ptr[p]])
    size = 1 << table_bits(longest)
    tpos = np.empty(size, np.int64)
    thash = np.empty(size, np.uint64)
    hcnt = np.empty(size, np.int64)
    rcnt = np.empty(size, np.int64)
    rmax = np.empty(size, np.int64)
    stamp = np.empty(size, np.int64)
    hh = np.empty(longest, np.uint64)
    rh = np.empty(longest_refs, np.uint64)
    for p in range(bounds[c], bounds[c + 1]):
        hlo = hyp_off[p]
        length = hyp_off[p + 1] - hlo
        base = ref_off[ref_ptr[p]]
        for j in range(length):
            hh[j] = 0
        for j in range(ref_off[ref_ptr[p + 1]] - base):
            rh[j] = 0
        for n in range(1, max_order + 1):
            m = length - n + 1
            if m <= 0:
                break
            bits = table_bits(m)
            shift = np.uint64(64 - bits)
            mask = (1 << bits) - 1
            for s in range(1 << bits):
                tpos[s] = -1
            for j in range(m):
                h = (hh[j] ^ np.uint64(hyp_ids[hlo + j + n - 1] + 1)) * FNV_PRIME
                hh[j] = h
                h &= hash_mask
                s = np.int64((h * GOLDEN) >> shift)
                while True:
                    if tpos[s] == -1:
                        tpos[s] = hlo + j
                        thash[s] = h
                        hcnt[s] = 1
                        rmax[s] = 0
                        stamp[s] = -1
                        break
                    if thash[s] == h and _same(hyp_ids, tpos[s], hyp_ids, hlo + j, n):
                        hcnt[s] += 1
                        break
                    s = (s + 1) & mask
            for q in range(ref_ptr[p], ref_ptr[p + 1]):
                rlo = ref_off[q]
                for j in range(ref_off[q + 1] - rlo - n + 1):
                    k = rlo - base + j
                    h = (rh[k] ^ np.uint64(ref_ids[rlo + j + n - 1] + 1)) * FNV_PRIME
                    rh[k] = h
                    h &= hash_mask
                    s = np.int64((h * GOLDEN) >> shift)
                    while tpos[s] != -1:
                        if thash[s] == h and _same(hyp_ids, tpos[s], ref_ids, rlo + j, n):
                            if stamp[s] != q:
                                stamp[s] = q
                                rcnt[s] = 0
                            rcnt[s] += 1
                            if rcnt[s] > rmax[s]:
                                rmax[s] = rcnt[s]
                            break
                        s = (s + 1) & mask
            total = np.int64(0)
            for s in range(1 << bits):
                if tpos[s] != -1:
                    total += min(hcnt[s], rmax[s])
            out[p, n - 1] = total


