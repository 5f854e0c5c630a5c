"""chrF's F-score from integer statistics, vectorized, bit-identical to sacreBLEU 2.6.

A row of statistics holds, per order (character orders ``1..char_order``,
then word orders ``1..word_order``), ``[hypothesis n-grams, reference
n-grams, clipped matches]``.  Every operation below is the one sacreBLEU's
``CHRF._compute_f_score`` does on Python floats, in the same order, applied
elementwise in float64 (IEEE-754 rounds each the same way), so scores are
equal bit for bit, and so is the choice of the best reference, which
compares those scores.
"""
from __future__ import annotations

import numpy as np

__all__ = ["EPS", "best_rows", "f_scores"]

#: sacreBLEU's epsilon for an undefined precision, recall or F of one order
EPS = 1e-16


def f_scores(stats: np.ndarray, beta, eps_smoothing: bool) -> np.ndarray:
    """chrF (0..100) of every row of ``stats`` (``(rows, 3 * orders)`` integers)."""
    stats = np.asarray(stats)
    if stats.ndim == 1:
        stats = stats[None, :]
    rows, width = stats.shape
    order = width // 3
    factor = beta ** 2
    score = np.zeros(rows)
    avg_prec = np.zeros(rows)
    avg_rec = np.zeros(rows)
    effective = np.zeros(rows, np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(order):
            n_hyp = stats[:, 3 * i]
            n_ref = stats[:, 3 * i + 1]
            n_match = stats[:, 3 * i + 2]
            prec = np.where(n_hyp > 0, n_match / np.where(n_hyp > 0, n_hyp, 1), EPS)
            rec = np.where(n_ref > 0, n_match / np.where(n_ref > 0, n_ref, 1), EPS)
            denom = factor * prec + rec
            score += np.where(denom > 0, (1 + factor) * prec * rec / denom, EPS)
            both = (n_hyp > 0) & (n_ref > 0)
            avg_prec += np.where(both, prec, 0.0)
            avg_rec += np.where(both, rec, 0.0)
            effective += both
        if eps_smoothing:
            return 100 * score / order
        avg_prec = np.where(effective > 0, avg_prec / np.maximum(effective, 1), 0.0)
        avg_rec = np.where(effective > 0, avg_rec / np.maximum(effective, 1), 0.0)
        num = (1 + factor) * avg_prec * avg_rec
        den = factor * avg_prec + avg_rec
        return np.where(avg_prec + avg_rec != 0, 100 * (num / den), 0.0)


def best_rows(stats: np.ndarray, ref_ptr: np.ndarray, beta, eps_smoothing: bool):
    """``(rows, scores)``: per pair, the first of its references' rows with the highest chrF, and that chrF.

    Pair ``i``'s rows are ``ref_ptr[i] .. ref_ptr[i + 1]`` (at least one);
    sacreBLEU keeps the first reference whose score beats all earlier ones.
    """
    ref_ptr = np.asarray(ref_ptr, np.int64)
    n_pairs = len(ref_ptr) - 1
    f = f_scores(stats, beta, eps_smoothing) if len(stats) else np.zeros(0)
    if n_pairs == 0:
        return np.zeros(0, np.int64), np.zeros(0)
    if len(f) == n_pairs:  # one reference each
        return np.arange(n_pairs, dtype=np.int64), f
    starts = ref_ptr[:-1]
    top = np.maximum.reduceat(f, starts)
    owner = np.repeat(np.arange(n_pairs), np.diff(ref_ptr))
    index = np.where(f == top[owner], np.arange(len(f)), len(f))
    rows = np.minimum.reduceat(index, starts)
    return rows, f[rows]
