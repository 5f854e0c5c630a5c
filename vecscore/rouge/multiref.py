"""Multi-reference conventions, from per-reference integer statistics.

Every ROUGE flavour reduces to three integers per (pair, reference):
``hits``, ``hyp_count`` (precision's denominator) and ``ref_count``
(recall's denominator).  Conventions (see docs/semantics.md):

``best``          rouge-score ``score_multi``: the reference with the highest F
                  (first on ties), chosen separately for every metric.
``best-recall``   ROUGE-1.5.5 ``-f B``: the reference with the highest recall
                  (first on ties).
``pooled``        ROUGE-1.5.5 ``-f A``: hits and reference counts summed over
                  references; precision's denominator is ``nrefs * hyp_count``.
``mean``          torchmetrics ``avg``: mean of the per-reference P, R and F.
``jackknife``     mean, over the M leave-one-out reference sets, of the
                  ``best`` score in the set (one reference: that reference).
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import loaded_or_plain
from vecscore.kernels.segments import segment_argmax, segment_argmax_excluding
from vecscore.rouge.options import MULTI_REF, check_multi_ref
from vecscore.rouge.results import Score
from vecscore.rouge.stats import RougeStats

__all__ = ["MULTI_REF", "check_multi_ref", "combine"]

def combine(hits, hyp_count, ref_count, ref_ptr, multi_ref="best", alpha=None, beta=None,
            exponent=None) -> tuple[Score, RougeStats | None]:
    """Per-pair scores, and the per-pair statistics they come from, of per-reference statistics.

    ``hits`` and ``ref_count`` have one entry per reference row, ``hyp_count``
    one per pair; the references of pair ``i`` are ``ref_ptr[i]:ref_ptr[i + 1]``.
    Statistics are integers, except ROUGE-W's weighted ones (floats, with
    ``exponent`` its alpha).  ``best``, ``best-recall`` and ``pooled`` give
    :class:`RougeStats` (the chosen reference's counts, or the pooled ones) and
    the scores computed from them; ``mean`` and ``jackknife`` give ``None``
    for the statistics, since no single set of counts gives those scores.
    """
    check_multi_ref(multi_ref)
    hits = np.asarray(hits)
    ref_count = np.asarray(ref_count)
    hyp_count = np.asarray(hyp_count)
    nrefs = np.diff(ref_ptr)
    if multi_ref == "pooled":
        stats = RougeStats(_segment_sum(hits, ref_ptr), nrefs * hyp_count, _segment_sum(ref_count, ref_ptr), exponent)
        return stats.scores(alpha, beta), stats
    if np.array_equal(nrefs, np.ones_like(nrefs)):
        stats = RougeStats(hits, hyp_count, ref_count, exponent)
        return stats.scores(alpha, beta), stats
    p, r, f = RougeStats(hits, np.repeat(hyp_count, nrefs), ref_count, exponent).scores(alpha, beta)
    if multi_ref in ("best", "best-recall"):
        idx = loaded_or_plain(segment_argmax)(f if multi_ref == "best" else r, ref_ptr)
        stats = RougeStats(hits[idx], hyp_count, ref_count[idx], exponent)
        return stats.scores(alpha, beta), stats
    if multi_ref == "mean":
        return Score(_segment_sum(p, ref_ptr) / nrefs, _segment_sum(r, ref_ptr) / nrefs,
                     _segment_sum(f, ref_ptr) / nrefs), None
    # jackknife: leaving out any reference but the best keeps the best; leaving
    # out the best leaves the second best.  Mean over the M sets.
    i1 = loaded_or_plain(segment_argmax)(f, ref_ptr)
    i2 = loaded_or_plain(segment_argmax_excluding)(f, ref_ptr, i1)
    single = nrefs == 1
    i2 = np.where(single, i1, i2)
    m = nrefs.astype(np.float64)

    def jk(x):
        return np.where(single, x[i1], ((m - 1) * x[i1] + x[i2]) / m)

    return Score(jk(p), jk(r), jk(f)), None


def _segment_sum(x: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """Sum of each segment ``x[ptr[i]:ptr[i + 1]]`` (all segments non-empty)."""
    if len(ptr) <= 1:
        return np.zeros(0, dtype=x.dtype)
    return np.add.reduceat(x, ptr[:-1])
