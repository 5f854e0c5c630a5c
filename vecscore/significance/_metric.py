"""Adapters: a vecscore metric object (or name) -> per-pair statistics in sacreBLEU's layout, the actual
corpus score, and the scores of many summed-statistics rows."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.significance import scores as rows

__all__ = ["MetricAdapter", "adapt"]


@dataclass
class MetricAdapter:
    """``stats(hyps, refs)``: ``(N, S)`` per-pair statistics in sacreBLEU's layout (int64; float64 for TER);
    ``corpus(stats)``: the actual corpus score (a float, as sacreBLEU's ``Score.score``);
    ``rows(sums)``: the score of every row of summed statistics, in sacreBLEU's dtype for ``sums.dtype``."""

    name: str
    metric: Any
    stats: Callable[[Any, Any], np.ndarray]
    corpus: Callable[[np.ndarray], float]
    rows: Callable[[np.ndarray], np.ndarray]
    signature: Callable[..., str]


def _bleu(metric) -> MetricAdapter:
    from vecscore.bleu.stats import BleuStats

    k = int(metric.max_ngram_order)

    def stats(hyps, refs):
        s = metric.statistics(hyps, refs)
        return np.column_stack([s.sys_len, s.ref_len, s.correct[:, :k], s.total[:, :k]]).astype(np.int64)

    def corpus(m):
        n = m.shape[0]
        bs = BleuStats.from_arrays(m[:, 0], m[:, 1], m[:, 2:2 + k], m[:, 2 + k:2 + 2 * k], np.ones(n, np.int64))
        return float(metric.score_stats(bs).score)

    def score_rows(sums):
        return rows.bleu_rows(sums, max_ngram_order=k, smooth_method=metric.smooth_method,
                              smooth_value=metric.smooth_value, effective_order=metric.effective_order)

    return MetricAdapter("BLEU", metric, stats, corpus, score_rows,
                         lambda short=False: str(metric.get_signature(short=short)))


def _chrf(metric) -> MetricAdapter:
    def stats(hyps, refs):
        return np.asarray(metric.statistics(hyps, refs), dtype=np.int64)

    def corpus(m):
        from vecscore.chrf.formulas import f_scores
        return float(f_scores(m.sum(axis=0)[None, :], metric.beta, metric.eps_smoothing)[0])

    def score_rows(sums):
        return rows.chrf_rows(sums, beta=metric.beta, eps_smoothing=metric.eps_smoothing)

    name = f"chrF{metric.beta}" + "+" * metric.word_order
    return MetricAdapter(name, metric, stats, corpus, score_rows,
                         lambda short=False: str.__str__(metric.get_signature(short=short)))


def _ter(metric) -> MetricAdapter:
    from vecscore.ter.api import corpus_score_from_stats

    def stats(hyps, refs):
        edits, ref_length = metric.statistics(hyps, refs)
        return np.column_stack([np.asarray(edits, np.float64), np.asarray(ref_length, np.float64)])

    def corpus(m):
        return float(corpus_score_from_stats(m[:, 0].astype(np.int64), m[:, 1], "").score)

    return MetricAdapter("TER", metric, stats, corpus, rows.ter_rows,
                         lambda short=False: str(metric.get_signature(short=short)))


def _sibling(metric, refs):
    """A metric with ``metric``'s options and ``refs`` cached (tokenized once for every system)."""
    from dataclasses import asdict

    from vecscore.bleu.api import BLEU
    from vecscore.chrf.api import CHRF
    from vecscore.ter.api import TER
    if isinstance(metric, BLEU):
        return BLEU(**asdict(metric._opts), references=refs, refs_layout=metric.refs_layout)
    if isinstance(metric, CHRF):
        return CHRF(metric.char_order, metric.word_order, metric.beta, metric.lowercase, metric.whitespace,
                    metric.eps_smoothing, references=refs, refs_layout=metric.refs_layout)
    return TER(metric.normalized, metric.no_punct, metric.asian_support, metric.case_sensitive, references=refs,
               refs_layout=metric.refs_layout)


def _caching(make, metric) -> MetricAdapter:
    """``make(metric)``, whose ``stats(hyps, refs)`` reuses one reference cache while ``refs`` is the same
    object (a test scores every system against the same references)."""
    state: dict[str, Any] = {"refs": None, "adapter": make(metric)}
    base = state["adapter"]

    def current():
        return state["adapter"]

    def stats(hyps, refs):
        if refs is None:
            return base.stats(hyps, None)
        if state["refs"] is not refs:
            state["refs"], state["adapter"] = refs, make(_sibling(metric, refs))
        return state["adapter"].stats(hyps, None)

    return MetricAdapter(base.name, metric, stats, base.corpus, base.rows,
                         lambda short=False: current().signature(short))


_NAMES = {"bleu": "BLEU", "chrf": "CHRF", "chrf++": "CHRF", "ter": "TER"}


def adapt(metric) -> MetricAdapter:
    """An adapter for ``metric``: ``vecscore.BLEU(...)``/``CHRF(...)``/``TER(...)``, or a name
    (``"bleu"``, ``"chrf"``, ``"chrf++"``, ``"ter"``: the default options)."""
    if isinstance(metric, MetricAdapter):
        return metric
    if isinstance(metric, str):
        key = metric.lower()
        if key not in _NAMES:
            raise VecscoreError(f"unknown metric {metric!r}; valid: {', '.join(_NAMES)}")
    from vecscore.bleu.api import BLEU
    from vecscore.chrf.api import CHRF
    from vecscore.ter.api import TER

    if isinstance(metric, str):
        cls = {"BLEU": BLEU, "CHRF": CHRF, "TER": TER}[_NAMES[metric.lower()]]
        metric = cls(word_order=2) if metric.lower() == "chrf++" else cls()
    if isinstance(metric, BLEU):
        return _caching(_bleu, metric)
    if isinstance(metric, CHRF):
        return _caching(_chrf, metric)
    if isinstance(metric, TER):
        return _caching(_ter, metric)
    raise VecscoreError(f"metric must be vecscore.BLEU/CHRF/TER or a name, not {type(metric).__name__}")
