"""Adapters: a BLEU, chrF or TER metric object -> per-pair statistics in sacreBLEU's layout, the actual corpus
score, and the scores of many rows of summed statistics (:class:`MetricAdapter`).

Built from the metric object alone (its methods and options), so that the metrics' own
``corpus_score(..., n_bootstrap=N)`` can use them without this package importing the metrics.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from vecscore.bleu.stats import BleuStats
from vecscore.chrf.formulas import f_scores
from vecscore.significance import resample as rs
from vecscore.significance import scores as rows

__all__ = ["MetricAdapter", "bleu_matrix", "bleu_adapter", "chrf_adapter", "ter_adapter"]


@dataclass
class MetricAdapter:
    """``stats(hyps, refs)``: ``(N, S)`` per-pair statistics in sacreBLEU's layout (int64; float64 for TER);
    ``corpus(stats)``: the actual corpus score (a float, as sacreBLEU's ``Score.score``);
    ``rows(sums)``: the score of every row of summed statistics, in sacreBLEU's dtype for ``sums.dtype``;
    ``resampler(stats)``: ``f(idxs, counts)`` giving the summed statistics of a chunk of bootstrap resamples
    (sacreBLEU's float32 sums by default)."""

    name: str
    metric: Any
    stats: Callable[[Any, Any], np.ndarray]
    corpus: Callable[[np.ndarray], float]
    rows: Callable[[np.ndarray], np.ndarray]
    signature: Callable[..., str]
    resampler: Callable[[np.ndarray], Callable] = rs.float32_resampler
    #: ``rows`` of several systems' sums may be computed in one call (its dtype never depends on the rows;
    #: chrF's and TER's float32 results turn float64 for some rows, as sacreBLEU's, per system)
    batch_rows: bool = False
    #: ``stats_many([hyps, ...], refs)``: the statistics of several systems (default: one ``stats`` call each)
    stats_many: Callable[[list, Any], list] | None = None

    def stats_of(self, systems: list, refs) -> list[np.ndarray]:
        """The statistics of every system of ``systems`` (lists of hypotheses) against ``refs``."""
        if self.stats_many is not None:
            return self.stats_many(systems, refs)
        return [self.stats(h, refs) for h in systems]


def bleu_matrix(s, k: int) -> np.ndarray:
    """``(N, 2 + 2k)`` int64: BLEU's per-pair statistics (a ``BleuStats``) in sacreBLEU's layout
    ``[sys_len, ref_len, correct_1..k, total_1..k]``."""
    return np.column_stack([s.sys_len, s.ref_len, s.correct[:, :k], s.total[:, :k]]).astype(np.int64)


def bleu_adapter(metric) -> MetricAdapter:
    k = int(metric.max_ngram_order)

    def stats(hyps, refs):
        return bleu_matrix(metric.statistics(hyps, refs), k)

    def corpus(m):
        n = m.shape[0]
        bs = BleuStats.from_arrays(m[:, 0], m[:, 1], m[:, 2:2 + k], m[:, 2 + k:2 + 2 * k], np.ones(n, np.int64))
        return float(metric.score_stats(bs).score)

    def score_rows(sums):
        return rows.bleu_rows(sums, max_ngram_order=k, smooth_method=metric.smooth_method,
                              smooth_value=metric.smooth_value, effective_order=metric.effective_order)

    return MetricAdapter("BLEU", metric, stats, corpus, score_rows,
                         lambda short=False: str(metric.get_signature(short=short)), batch_rows=True)


def chrf_adapter(metric) -> MetricAdapter:
    def stats(hyps, refs):
        return np.asarray(metric.statistics(hyps, refs), dtype=np.int64)

    def corpus(m):
        return float(f_scores(m.sum(axis=0)[None, :], metric.beta, metric.eps_smoothing)[0])

    def score_rows(sums):
        return rows.chrf_rows(sums, beta=metric.beta, eps_smoothing=metric.eps_smoothing)

    name = f"chrF{metric.beta}" + "+" * metric.word_order
    return MetricAdapter(name, metric, stats, corpus, score_rows,
                         lambda short=False: str.__str__(metric.get_signature(short=short)))


def ter_adapter(metric, corpus_score: Callable) -> MetricAdapter:
    """``corpus_score(edits, ref_length, signature)``: TER's corpus score from per-pair statistics."""
    def stats(hyps, refs):
        edits, ref_length = metric.statistics(hyps, refs)
        return np.column_stack([np.asarray(edits, np.float64), np.asarray(ref_length, np.float64)])

    def corpus(m):
        return float(corpus_score(m[:, 0].astype(np.int64), m[:, 1], "").score)

    return MetricAdapter("TER", metric, stats, corpus, rows.ter_rows,
                         lambda short=False: str(metric.get_signature(short=short)))
