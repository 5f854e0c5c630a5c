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

from dataclasses import dataclass

import numpy as np

from vecscore._jit import loaded_or_plain
from vecscore.errors import VecscoreError
from vecscore.kernels.segments import segment_argmax, segment_argmax_excluding
from vecscore.rouge.fscore import f_measure, safe_ratio

__all__ = ["MULTI_REF", "PRF", "combine"]

MULTI_REF = ("best", "best-recall", "pooled", "mean", "jackknife")


@dataclass(frozen=True)
class PRF:
    """Per-pair precision, recall and F, and the statistics they came from.

    ``hits``, ``p_den`` and ``r_den`` are the integer statistics of the chosen
    reference (``best``, ``best-recall``) or pooled over references
    (``pooled``); for ``mean`` and ``jackknife`` they are ``None`` because no
    single set of counts gives those scores.
    """

    precision: np.ndarray
    recall: np.ndarray
    fmeasure: np.ndarray
    hits: np.ndarray | None = None
    p_den: np.ndarray | None = None
    r_den: np.ndarray | None = None


def check_multi_ref(multi_ref: str) -> None:
    if multi_ref not in MULTI_REF:
        raise VecscoreError(f"multi_ref must be one of {', '.join(MULTI_REF)}; got {multi_ref!r}")


def _ratio(num, den, transform):
    x = safe_ratio(num, den)
    return x if transform is None else transform(x)


def per_reference(hits, p_den, r_den, alpha=None, beta=None, transform=None):
    p = _ratio(hits, p_den, transform)
    r = _ratio(hits, r_den, transform)
    return p, r, f_measure(p, r, alpha, beta)


def combine(hits, hyp_count, ref_count, ref_ptr, multi_ref="best", alpha=None, beta=None, transform=None) -> PRF:
    """Reduce per-reference statistics to per-pair scores.

    ``hits`` and ``ref_count`` have one entry per reference row, ``hyp_count``
    one per pair; the references of pair ``i`` are ``ref_ptr[i]:ref_ptr[i + 1]``.
    Statistics are integers, except ROUGE-W's weighted ones (floats), whose
    ratios go through ``transform`` (``f^-1``) before F.
    """
    check_multi_ref(multi_ref)
    hits = np.asarray(hits)
    ref_count = np.asarray(ref_count)
    hyp_count = np.asarray(hyp_count)
    nrefs = np.diff(ref_ptr)
    hyp_per_ref = np.repeat(hyp_count, nrefs)
    if multi_ref == "pooled":
        sh = _segment_sum(hits, ref_ptr)
        sr = _segment_sum(ref_count, ref_ptr)
        sp = nrefs * hyp_count
        p, r = _ratio(sh, sp, transform), _ratio(sh, sr, transform)
        return PRF(p, r, f_measure(p, r, alpha, beta), sh, sp, sr)
    p, r, f = per_reference(hits, hyp_per_ref, ref_count, alpha, beta, transform)
    if np.array_equal(nrefs, np.ones_like(nrefs)):
        return PRF(p, r, f, hits, hyp_count, ref_count)
    if multi_ref in ("best", "best-recall"):
        idx = loaded_or_plain(segment_argmax)(f if multi_ref == "best" else r, ref_ptr)
        return PRF(p[idx], r[idx], f[idx], hits[idx], hyp_count, ref_count[idx])
    if multi_ref == "mean":
        return PRF(_segment_sum(p, ref_ptr) / nrefs, _segment_sum(r, ref_ptr) / nrefs, _segment_sum(f, ref_ptr) / nrefs)
    # jackknife: leaving out any reference but the best keeps the best; leaving
    # out the best leaves the second best.  Mean over the M sets.
    i1 = loaded_or_plain(segment_argmax)(f, ref_ptr)
    i2 = loaded_or_plain(segment_argmax_excluding)(f, ref_ptr, i1)
    single = nrefs == 1
    i2 = np.where(single, i1, i2)
    m = nrefs.astype(np.float64)

    def jk(x):
        return np.where(single, x[i1], ((m - 1) * x[i1] + x[i2]) / m)

    return PRF(jk(p), jk(r), jk(f))


def _segment_sum(x: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """Sum of each segment ``x[ptr[i]:ptr[i + 1]]`` (all segments non-empty)."""
    if len(ptr) <= 1:
        return np.zeros(0, dtype=x.dtype)
    return np.add.reduceat(x, ptr[:-1])
