"""METEOR 1.5's sufficient statistics and the score computed from them, as meteor-1.5.jar computes it.

One row of statistics has the jar's 23 columns, in the order of its ``SCORE`` answer::

    test_len ref_len test_function ref_function
    (test_content ref_content test_function_matches ref_function_matches) x 4 modules
    chunks test_word_matches ref_word_matches

A corpus score sums the rows (a row that is a perfect match in one chunk adds no chunk) and scores
the sum; it is not the mean of the per-item scores.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["N_STATS", "stats_row", "scores_from_stats", "corpus_stats", "format_stats"]

N_STATS = 23
_STAGES = slice(4, 20)


def stats_row(counts) -> np.ndarray:
    """The 23 statistics of one :class:`~vecscore.meteor.align.AlignCounts`."""
    row = np.zeros(N_STATS, dtype=np.float64)
    row[0], row[1], row[2], row[3] = counts.test_len, counts.ref_len, counts.test_function, counts.ref_function
    for i in range(len(counts.test_content_matches)):
        row[4 + 4 * i] = counts.test_content_matches[i]
        row[5 + 4 * i] = counts.ref_content_matches[i]
        row[6 + 4 * i] = counts.test_function_matches[i]
        row[7 + 4 * i] = counts.ref_function_matches[i]
    row[20] = counts.chunks
    row[21] = sum(counts.test_content_matches) + sum(counts.test_function_matches)
    row[22] = sum(counts.ref_content_matches) + sum(counts.ref_function_matches)
    return row


def scores_from_stats(stats: np.ndarray, weights: Sequence[float], alpha: float, beta: float, gamma: float,
                      delta: float) -> np.ndarray:
    """METEOR of each row of ``stats`` (shape ``(n, 23)``), with the jar's operation order and its rules for
    zero denominators (NaN scores become 0, negative ones 0)."""
    s = np.atleast_2d(np.asarray(stats, dtype=np.float64))
    st = s[:, _STAGES].reshape(len(s), 4, 4)
    with np.errstate(divide="ignore", invalid="ignore"):
        test_wlen = (delta * (s[:, 0] - s[:, 2])) + ((1.0 - delta) * s[:, 2])
        ref_wlen = (delta * (s[:, 1] - s[:, 3])) + ((1.0 - delta) * s[:, 3])
        test_wm = np.zeros(len(s))
        ref_wm = np.zeros(len(s))
        for i, w in enumerate(weights):
            test_wm = test_wm + st[:, i, 0] * w * delta
        for i, w in enumerate(weights):
            ref_wm = ref_wm + st[:, i, 1] * w * delta
        for i, w in enumerate(weights):
            test_wm = test_wm + st[:, i, 2] * w * (1.0 - delta)
        for i, w in enumerate(weights):
            ref_wm = ref_wm + st[:, i, 3] * w * (1.0 - delta)
        precision = test_wm / test_wlen
        recall = ref_wm / ref_wlen
        fmean = 1.0 / (((1.0 - alpha) / precision) + (alpha / recall))
        test_total = st[:, :, 0].sum(axis=1) + st[:, :, 2].sum(axis=1)
        ref_total = st[:, :, 1].sum(axis=1) + st[:, :, 3].sum(axis=1)
        perfect = (test_total == s[:, 0]) & (ref_total == s[:, 1]) & (s[:, 20] == 1)
        frag = np.where(perfect, 0.0, s[:, 20] / ((s[:, 21] + s[:, 22]) / 2))
        penalty = gamma * np.power(frag, beta)
        score = fmean * (1.0 - penalty)
    score = np.where(np.isnan(score), 0.0, score)
    return np.maximum(score, 0.0)


def corpus_stats(stats: np.ndarray) -> np.ndarray:
    """The sum of the rows as the jar aggregates them: a row matched perfectly in one chunk adds no chunk."""
    s = np.atleast_2d(np.asarray(stats, dtype=np.float64))
    out = s.sum(axis=0)
    st = s[:, _STAGES].reshape(len(s), 4, 4)
    test_total = st[:, :, 0].sum(axis=1) + st[:, :, 2].sum(axis=1)
    ref_total = st[:, :, 1].sum(axis=1) + st[:, :, 3].sum(axis=1)
    perfect = (test_total == s[:, 0]) & (ref_total == s[:, 1]) & (s[:, 20] == 1)
    out[20] = s[~perfect, 20].sum()
    return out


def format_stats(row: np.ndarray) -> str:
    """One row as the jar prints it (``15.0 14.0 ...``)."""
    return " ".join(repr(float(x)) for x in row)
