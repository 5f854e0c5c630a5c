"""Adapters: a vecscore metric object (or name) -> per-pair statistics in sacreBLEU's layout, the actual
corpus score, and the scores of many summed-statistics rows.

ROUGE (:class:`RougeMetric`, or a name such as ``"rougeL"``) is scored as rouge-score scores a corpus: the
mean of the per-pair F.  Its per-pair "statistics" are ``[F, 1.0]`` (float64), so a row of summed
statistics is ``[sum of F, number of pairs]`` and its score the mean F of that resample or trial."""
from __future__ import annotations

from typing import Any

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.significance import resample as rs
from vecscore.significance.adapters import MetricAdapter, bleu_adapter, bleu_matrix, chrf_adapter, ter_adapter

__all__ = ["MetricAdapter", "RougeMetric", "adapt", "bleu_matrix"]


#: systems x segments up to which a test scores all its systems in one call, the references repeated for
#: each system (one batch for the kernels beats a call per system, even though the references are then
#: tokenized again for every system); larger tests score one system at a time
BATCH_MAX_PAIRS = 200_000


def _repeated(refs, k: int, layout: str):
    """``refs`` for ``k`` concatenated systems: every stream repeated (or, per example, the list)."""
    from vecscore.references import Refs

    if isinstance(refs, Refs):  # read once by the test (vecscore.significance.paired)
        return refs.repeated(k)
    if layout == "streams":
        return [list(stream) * k for stream in refs]
    return list(refs) * k


def _concatenated(systems: list) -> list:
    return [h for hyps in systems for h in hyps]


def _split(stats: np.ndarray, k: int, n: int) -> list[np.ndarray]:
    return [stats[i * n:(i + 1) * n] for i in range(k)]


def _ter(metric) -> MetricAdapter:
    from vecscore.ter.api import corpus_score_from_stats

    return ter_adapter(metric, corpus_score_from_stats)


def _sibling(metric, refs):
    """A metric with ``metric``'s options and ``refs`` cached (tokenized once for every system)."""
    from dataclasses import asdict

    from vecscore.bleu.metric import BLEU
    from vecscore.chrf.api import CHRF
    from vecscore.ter.api import TER
    if isinstance(metric, BLEU):
        return BLEU(**asdict(metric._opts), references=refs, refs_layout=metric.refs_layout)
    if isinstance(metric, CHRF):
        return CHRF(metric.char_order, metric.word_order, metric.beta, metric.lowercase, metric.whitespace,
                    metric.eps_smoothing, references=refs, refs_layout=metric.refs_layout)
    return TER(metric.normalized, metric.no_punct, metric.asian_support, metric.case_sensitive, references=refs,
               refs_layout=metric.refs_layout, reference_normalization=metric.reference_normalization)


def _options_only(metric):
    """A metric with ``metric``'s options and no cached references."""
    from dataclasses import asdict

    from vecscore.bleu.metric import BLEU
    from vecscore.chrf.api import CHRF

    if isinstance(metric, BLEU):
        return BLEU(**asdict(metric._opts), refs_layout=metric.refs_layout)
    assert isinstance(metric, CHRF)
    return CHRF(metric.char_order, metric.word_order, metric.beta, metric.lowercase, metric.whitespace,
                metric.eps_smoothing, refs_layout=metric.refs_layout)


def _caching(make, metric) -> MetricAdapter:
    """``make(metric)``, whose ``stats(hyps, refs)`` reuses one reference cache while ``refs`` is the same
    object (a test scores every system against the same references).  BLEU and chrF score several systems
    in one call (:data:`BATCH_MAX_PAIRS`)."""
    from vecscore.ter.api import TER

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

    def stats_many(systems, refs):
        k, n = len(systems), len(systems[0]) if systems else 0
        if refs is None or k < 2 or k * n > BATCH_MAX_PAIRS or isinstance(metric, TER):
            return [stats(h, refs) for h in systems]  # TER: its Python tokenizer would run k times per reference
        one = make(_options_only(metric))
        try:
            batch = one.stats(_concatenated(systems), _repeated(refs, k, metric.refs_layout))
        except VecscoreError:  # bad input: the error of one system's call names the user's rows
            return [stats(h, refs) for h in systems]
        state["refs"], state["adapter"] = None, one  # the signature (nrefs) of this batch
        return _split(batch, k, n)

    return MetricAdapter(base.name, metric, stats, base.corpus, base.rows,
                         lambda short=False: current().signature(short), base.resampler, base.batch_rows,
                         stats_many)


#: the keyword arguments of :func:`vecscore.rouge` a :class:`RougeMetric` takes
ROUGE_OPTIONS = ("tokenizer", "lowercase", "stemmer", "stopwords", "multi_ref", "alpha", "beta", "refs_layout",
                 "sentence_splitter", "wlcs")


class RougeMetric:
    """One ROUGE metric for :func:`~vecscore.significance.paired_bootstrap` and the other tests: its name
    (``"rouge1"``, ``"rougeL"``, ``"rougeLsum"``, ...) and :func:`vecscore.rouge`'s options.

    The corpus score is rouge-score's: the mean of the per-pair F (0..1, not a percentage).  References
    are sacreBLEU's streams (``refs[k][i]``) unless ``refs_layout="per-example"``.  Metrics made with the
    same options score a system in one :func:`vecscore.rouge` call.

    >>> RougeMetric("rougeL", stemmer=True)
    RougeMetric('rougeL', stemmer=True)
    """

    def __init__(self, metric: str = "rougeL", **options: Any):
        from vecscore.rouge.options import validate_metrics

        if not isinstance(metric, str):
            raise VecscoreError(f"RougeMetric takes one metric name (e.g. 'rougeL'), not {metric!r}")
        validate_metrics([metric])
        bad = sorted(set(options) - set(ROUGE_OPTIONS))
        if bad:
            raise VecscoreError(f"unknown ROUGE option(s) {bad}; valid: {', '.join(ROUGE_OPTIONS)}")
        options.setdefault("refs_layout", "streams")
        self.metric = metric
        self.options = options

    def key(self) -> tuple:
        return tuple(sorted((k, repr(v)) for k, v in self.options.items()))

    def __repr__(self) -> str:
        opts = "".join(f", {k}={v!r}" for k, v in self.options.items() if (k, v) != ("refs_layout", "streams"))
        return f"RougeMetric({self.metric!r}{opts})"


class _RougeRuns:
    """One :func:`vecscore.rouge` call per (hyps, refs) for every ROUGE metric sharing these options."""

    def __init__(self, options: dict):
        self.options = options
        self.metrics: list[str] = []
        self._last: tuple = (None, None, None)
        self._batch: tuple = (None, None, None)
        self.signature = ""

    def columns(self, metric: str, systems: list, refs) -> list[np.ndarray]:
        """``metric``'s per-pair F of every system, from one :func:`vecscore.rouge` call (references repeated)."""
        k, n = len(systems), len(systems[0]) if systems else 0
        if refs is None or k < 2 or k * n > BATCH_MAX_PAIRS:
            return [self.column(metric, h, refs) for h in systems]
        key = (tuple(id(h) for h in systems), id(refs))
        if self._batch[0] != key:
            from vecscore.rouge.api import rouge

            try:
                result = rouge(_concatenated(systems), _repeated(refs, k, self.options.get("refs_layout", "streams")),
                               metrics=self.metrics, **self.options)
            except VecscoreError:  # bad input: the error of one system's call names the user's rows
                return [self.column(metric, h, refs) for h in systems]
            self._batch = (key, (systems, refs), result)  # the inputs kept alive while their ids are the key
            self.signature = result.signature
        f = np.asarray(self._batch[2][metric].fmeasure, dtype=np.float64)
        return _split(f, k, n)

    def column(self, metric: str, hyps, refs) -> np.ndarray:
        from vecscore.rouge.api import rouge

        if refs is None:
            raise VecscoreError("ROUGE metrics need the references (refs=...); they keep no reference cache")
        h, r, result = self._last
        if h is not hyps or r is not refs:
            result = rouge(hyps, refs, metrics=self.metrics, **self.options)
            self._last = (hyps, refs, result)
            self.signature = result.signature
        return np.asarray(result[metric].fmeasure, dtype=np.float64)


def _rouge(metric: RougeMetric, runs: _RougeRuns) -> MetricAdapter:
    from vecscore.exactsum import exact_mean

    runs.metrics.append(metric.metric)

    def stats(hyps, refs):
        f = runs.column(metric.metric, hyps, refs)
        return np.column_stack([f, np.ones_like(f)])

    def corpus(m):
        return float(exact_mean(m[:, 0]))

    def score_rows(sums):
        return np.asarray(sums[:, 0], np.float64) / np.asarray(sums[:, 1], np.float64)

    def signature(short=False):
        sig = runs.signature.split("|", 1)
        return metric.metric + ("|" + sig[1] if len(sig) > 1 else "")

    def stats_many(systems, refs):
        return [np.column_stack([f, np.ones_like(f)]) for f in runs.columns(metric.metric, systems, refs)]

    return MetricAdapter(metric.metric, metric, stats, corpus, score_rows, signature, rs.float64_resampler, True,
                         stats_many)


def adapt_all(metrics) -> list[MetricAdapter]:
    """Adapters for several metrics; ROUGE metrics with the same options share one scoring run per system."""
    from vecscore.significance.coco import CocoMetric, coco_adapter, coco_metric_name, runs_for

    runs: dict[tuple, Any] = {}
    out = []
    for m in metrics:
        if isinstance(m, str) and m.lower() not in _NAMES:
            m = CocoMetric(m) if coco_metric_name(m) else RougeMetric(m)
        if isinstance(m, CocoMetric):
            out.append(coco_adapter(m, runs_for(m, runs)))
        elif isinstance(m, RougeMetric):
            group = runs.setdefault(m.key(), _RougeRuns(m.options))
            out.append(_rouge(m, group))
        else:
            out.append(adapt(m))
    return out


_NAMES = {"bleu": "BLEU", "chrf": "CHRF", "chrf++": "CHRF", "ter": "TER"}


def adapt(metric) -> MetricAdapter:
    """An adapter for ``metric``: ``vecscore.BLEU(...)``/``CHRF(...)``/``TER(...)``, a :class:`RougeMetric`, a
    :class:`~vecscore.significance.coco.CocoMetric`, or a name (``"bleu"``, ``"chrf"``, ``"chrf++"``, ``"ter"``,
    ``"rouge1"``, ``"rougeL"``, ..., coco-caption's ``"Bleu_4"``, ``"METEOR"``, ``"ROUGE_L"``, ``"CIDEr"``: the
    default options)."""
    from vecscore.significance.coco import CocoMetric, coco_metric_name

    if isinstance(metric, MetricAdapter):
        return metric
    if isinstance(metric, str):
        key = metric.lower()
        if key not in _NAMES:
            if metric.startswith("rouge") or coco_metric_name(metric):
                return adapt_all([metric])[0]
            raise VecscoreError(f"unknown metric {metric!r}; valid: {', '.join(_NAMES)}, a ROUGE metric "
                                "(rouge1, rouge2, rougeL, rougeLsum, ...) or a coco-caption metric (Bleu_1 .. "
                                "Bleu_4, METEOR, ROUGE_L, CIDEr)")
    if isinstance(metric, (RougeMetric, CocoMetric)):
        return adapt_all([metric])[0]
    from vecscore.bleu.metric import BLEU
    from vecscore.chrf.api import CHRF
    from vecscore.ter.api import TER

    if isinstance(metric, str):
        cls = {"BLEU": BLEU, "CHRF": CHRF, "TER": TER}[_NAMES[metric.lower()]]
        metric = cls(word_order=2) if metric.lower() == "chrf++" else cls()
    if isinstance(metric, BLEU):
        return _caching(bleu_adapter, metric)
    if isinstance(metric, CHRF):
        return _caching(chrf_adapter, metric)
    if isinstance(metric, TER):
        return _caching(_ter, metric)
    raise VecscoreError(f"metric must be vecscore.BLEU/CHRF/TER, a RougeMetric, a CocoMetric or a name, not "
                        f"{type(metric).__name__}")
