"""BLEU's integer statistics per pair (:class:`~vecscore.bleu.stats.BleuStats`) on the compiled route.

Counting: :func:`~vecscore.kernels.bleu_counts.clipped_counts` is one fused numba kernel, parallel over
pairs, that hashes every order's n-grams of a pair into a small table
(keys are only compared *within* a pair, and every hash hit is confirmed by
comparing the token ids, so it is exact) and clips by the maximum count
over the pair's references.  It replaces, for BLEU, the generic route of
:mod:`vecscore.engine.counts` (a global sparse count matrix per order, then
:func:`~vecscore.kernels.ngrams.clipped_overlap_max_ref`), which needs
corpus-wide n-gram ids: past ``64 / bits(vocabulary)`` orders (4-grams of a
65,536-word vocabulary) those come from a serial interning pass per order
and dominate the run time.  :func:`sparse_counts` keeps the generic route as
a differential check for the tests.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import SERIAL_MAX, jit, prange, serial_twin
from vecscore.bleu.stats import BREVITY_PENALTIES, BleuStats, check_brevity_penalty
from vecscore.engine.batch import PairBatch
from vecscore.engine.counts import ngram_counts
from vecscore.errors import VecscoreError
from vecscore.kernels.bleu_counts import clipped_counts
from vecscore.kernels.ngrams import clipped_overlap_max_ref

__all__ = ["BREVITY_PENALTIES", "BleuStats", "batch_stats", "check_brevity_penalty", "clipped_counts", "sparse_counts"]

@jit(parallel=True)
def _lengths_kernel(hyp_len, ref_lens, ref_ptr, shortest, max_order):
    """Per pair: the reference length for the brevity penalty (the shortest, or the closest to the
    hypothesis's, ties to the shorter) and the hypothesis's n-grams of orders ``1..max_order``."""
    n = len(hyp_len)
    ref_len = np.zeros(n, np.int64)
    total = np.empty((n, max_order), np.int64)
    for p in prange(n):
        best = np.int64(-1)
        for q in range(ref_ptr[p], ref_ptr[p + 1]):
            r = ref_lens[q]
            if best < 0:
                best = r
            elif shortest:
                best = min(best, r)
            else:
                gap, best_gap = abs(r - hyp_len[p]), abs(best - hyp_len[p])
                if gap < best_gap or (gap == best_gap and r < best):
                    best = r
        ref_len[p] = max(best, 0)
        for k in range(max_order):
            total[p, k] = max(hyp_len[p] - k, 0)
    return ref_len, total


_lengths_serial = serial_twin(_lengths_kernel)

_FULL_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)


def sparse_counts(batch: PairBatch, max_order: int) -> np.ndarray:
    """``correct`` (N, K) by the generic sparse route (for differential tests)."""
    n = batch.n_pairs
    correct = np.zeros((n, max_order), np.int64)
    for order in range(1, max_order + 1):
        c = ngram_counts(batch.texts, order, batch.n_vocab)
        correct[:, order - 1] = clipped_overlap_max_ref(
            c.indptr, c.indices, c.counts, batch.hyp_rows, batch.ref_rows, batch.ref_ptr
        )
    return correct


def stats_from_ids(hyp_ids, hyp_off, ref_ids, ref_off, ref_ptr, max_order, brevity_penalty, *, hash_mask=_FULL_MASK):
    """:class:`BleuStats` from interned token ids (hypotheses and references apart)."""
    check_stats_args(ref_ptr, max_order, brevity_penalty)
    hyp_len = np.diff(hyp_off).astype(np.int64)
    ref_lens = np.diff(ref_off).astype(np.int64)
    if (hyp_len.size and int(hyp_len.max()) >= 2**31) or (ref_lens.size and int(ref_lens.max()) >= 2**31):
        raise VecscoreError("a text has 2**31 or more tokens")
    correct = clipped_counts(hyp_ids, hyp_off, ref_ids, ref_off, ref_ptr, int(max_order), np.uint64(hash_mask))
    return stats_from_counts(hyp_len, ref_lens, ref_ptr, correct, brevity_penalty)


def check_stats_args(ref_ptr, max_order, brevity_penalty) -> None:
    """Errors for a bad order, brevity penalty or a pair without references."""
    check_brevity_penalty(brevity_penalty)
    if int(max_order) < 1:
        raise VecscoreError(f"max_ngram_order must be >= 1, got {max_order}")
    nrefs = np.diff(ref_ptr)
    if len(nrefs) and (nrefs == 0).any():
        row = int(np.argmax(nrefs == 0))
        raise VecscoreError(f"pair {row} has no reference; every hypothesis needs at least one")


def stats_from_counts(hyp_len, ref_lens, ref_ptr, correct, brevity_penalty) -> BleuStats:
    """:class:`BleuStats` from token counts and clipped matches (``correct``: pairs x orders)."""
    hyp_len = np.asarray(hyp_len, np.int64)
    kernel = _lengths_kernel if len(hyp_len) > SERIAL_MAX else _lengths_serial
    ref_len, total = kernel(hyp_len, np.asarray(ref_lens, np.int64), np.asarray(ref_ptr, np.int64),
                            brevity_penalty == "shortest", correct.shape[1])
    return BleuStats(hyp_len, ref_len, correct, total, np.diff(ref_ptr).astype(np.int64))


def batch_stats(batch: PairBatch, max_order: int, brevity_penalty: str = "closest", **kw) -> BleuStats:
    """BLEU statistics of every pair of ``batch`` for orders ``1..max_order``."""
    off = batch.texts.offsets
    n = batch.n_pairs
    ids = batch.texts.ids.astype(np.int64, copy=False)
    return stats_from_ids(ids, off[: n + 1], ids, off[n:], batch.ref_ptr, max_order, brevity_penalty, **kw)
