"""Minimum Bayes risk (MBR) decoding: :func:`mbr` picks the candidate with the best expected utility.

The expected utility of candidate ``i`` is the plain mean of its row of the score matrix
(:func:`vecscore.matrices.api.pairwise`) against the pseudo-references, as mbrs's ``DecoderMBR`` computes it
(``Metric.expected_scores``: the mean over the references of ``pairwise_scores``, uniform weights).  When the
pseudo-references are the candidates themselves (the default), the mean includes each candidate's score against
itself, as mbrs's does: mbrs scores the full ``N x N`` matrix, diagonal and all.  The chosen candidate is the
first with the highest expected utility, or the lowest for TER (an error rate; mbrs's ``MetricTER`` has
``HIGHER_IS_BETTER = False`` and its decoder takes the minimum).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.matrices.api import prepare_batch
from vecscore.matrices.registry import HIGHER_IS_BETTER, check_metric

__all__ = ["mbr", "MBRResult", "AGGREGATE_METRICS"]

#: the metrics with a reference-aggregated utility (``aggregate=True``)
AGGREGATE_METRICS = ("chrf", "bleu")


@dataclass(frozen=True)
class MBRResult:
    """The MBR choice for one source.

    ``index``: the chosen candidate's position; ``expected``: every candidate's expected utility (float64, in
    the metric's units); ``metric``; ``higher_is_better``: whether ``index`` maximizes ``expected`` (False for
    TER, where it minimizes it).
    """

    index: int
    expected: np.ndarray
    metric: str
    higher_is_better: bool

    @property
    def score(self) -> float:
        """The chosen candidate's expected utility."""
        return float(self.expected[self.index])


def _rows(candidates: Any) -> tuple[list, bool]:
    """The candidates as a list, and whether they are a batch (a list of lists)."""
    if isinstance(candidates, str):
        raise VecscoreError("candidates is one str: pass a list of candidate texts (one source) or a list of "
                            "such lists (a batch)")
    try:
        rows = list(candidates)
    except TypeError:
        raise VecscoreError(f"candidates is {type(candidates).__name__}: pass a list of str") from None
    if not rows:
        raise VecscoreError("candidates is empty: give at least one candidate")
    return rows, not isinstance(rows[0], str) and isinstance(rows[0], (Sequence, np.ndarray))


def _choose(expected: np.ndarray, higher: bool) -> int:
    return int(np.argmax(expected) if higher else np.argmin(expected))


def mbr(candidates: Sequence[str] | Sequence[Sequence[str]], pseudo_refs: Any = None, *, metric: str = "chrf",
        aggregate: bool = False, **options: Any) -> MBRResult | list[MBRResult]:
    """The MBR choice among ``candidates`` for one source (a list of str) or for each source of a batch (a
    list of lists; then ``pseudo_refs``, if given, is a list of lists too).

    Parameters
    ----------
    candidates : list of str, or list of lists of str
        The candidates (hypotheses) of one source, or of each source.
    pseudo_refs : same shape as ``candidates``, optional
        The pseudo-references (samples); default: the candidates themselves.  With the default, each
        candidate's score against itself is part of its mean, as in mbrs.
    metric : str
        Any metric of :func:`vecscore.matrices.api.pairwise` (``chrf`` by default).
    aggregate : bool
        ``chrf`` and ``bleu`` only: score each candidate once against the aggregated pseudo-references
        (their n-gram statistics pooled, as mbrs's ``expected_scores_reference_aggregation`` / DeNero et al.
        2009) instead of taking the mean of the pairwise cells.  An approximation of MBR, not equal to it; the
        same quantity as the cells module's ``aggregate``.
    **options
        The metric's options (as :func:`vecscore.matrices.api.pairwise`).

    Returns
    -------
    MBRResult, or a list of them (a batch)
        With ``metric="chrf"`` (``"bleu"``) and the default options, ``index`` is mbrs's ``DecoderMBR(cfg,
        MetricChrF(...)).decode(candidates, pseudo_refs).idx[0]`` (``MetricBLEU``) and ``expected`` its
        expected scores (mbrs keeps them in float32; here they are float64).
    """
    check_metric(metric)
    if aggregate and metric not in AGGREGATE_METRICS:
        raise VecscoreError(f"aggregate=True is for {' and '.join(AGGREGATE_METRICS)} (whose statistics can be "
                            f"pooled over references), not {metric!r}; use aggregate=False")
    rows, batch = _rows(candidates)
    hyps: list[Any] = rows if batch else [rows]
    refs = None if pseudo_refs is None else list(pseudo_refs) if batch else [pseudo_refs]
    prep = prepare_batch(metric, hyps, refs, options, hyps_name="candidates", refs_name="pseudo_refs",
                         single=not batch)
    higher = HIGHER_IS_BETTER[metric]
    out = []
    for k in range(len(prep.rows_a)):
        if aggregate:
            expected = np.asarray(prep.module.aggregate(prep.prepared, prep.rows_a[k], prep.rows_b[k]), np.float64)
        else:
            expected = prep.grid(k).mean(axis=1)
        out.append(MBRResult(_choose(expected, higher), expected, metric, higher))
    return out if batch else out[0]
