"""coco-caption's metrics (pycocoevalcap 1.2: ``Bleu_1`` .. ``Bleu_4``, ``METEOR``, ``ROUGE_L``, ``CIDEr``) in
vecscore's bootstrap intervals and paired tests (:func:`~vecscore.significance.confidence_interval`,
:func:`~vecscore.significance.paired_bootstrap`, :func:`~vecscore.significance.paired_randomization`).

What a resample's score is (an item drawn twice counts twice):

* ``Bleu_k``: coco-caption's corpus BLEU-k of the resample's summed per-item statistics (hypothesis length,
  closest reference length, clipped matches and n-gram counts of orders 1..k), by its formula; equal, bit for
  bit, to pycocoevalcap's ``Bleu(4)`` run on the drawn items.  The sums are exact (float64 products of integer
  counts).
* ``METEOR``: meteor-1.5.jar's corpus score (``-l en -norm``, as coco-caption runs it) of the drawn items'
  summed statistics, as its ``EVAL`` sums them (an item matched perfectly in one chunk adds no chunk); equal to
  pycocoevalcap's ``Meteor`` run on the drawn items.  Not the mean of the items' scores.
* ``ROUGE_L``: the mean of the drawn items' ROUGE-L (``np.mean`` in draw order: pycocoevalcap's ``Rouge`` on
  the drawn items).
* ``CIDEr``: the mean of the drawn items' CIDEr-D, each item's score computed once with the document
  frequencies of the whole reference set (as coco-caption scores the full set); resampling does not
  recompute the document frequencies.

The corpus score is coco-caption's (``COCOEvalCap.eval``'s value).  Per-item statistics (the adapter's
layout): ``Bleu_k`` int64 ``[testlen, reflen, correct_1..k, guess_1..k]``; ``METEOR`` float64, the jar's 23
statistics of the item's best reference with the chunk count the jar's sum takes from it (0 for a perfect
match; :func:`meteor_summands`); ``ROUGE_L`` and ``CIDEr`` float64 ``[score, 1]`` (so approximate
randomization sums them as it sums ROUGE's).

Importing it imports neither numba nor the compiled metrics.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from vecscore.coco.evaluate import METRICS
from vecscore.errors import VecscoreError
from vecscore.significance.adapters import MetricAdapter

__all__ = ["COCO_METRICS", "CocoMetric", "coco_metric_name", "coco_adapter", "coco_item_stats", "coco_batch",
           "tokenized", "per_item_scores", "meteor_summands", "meteor_rows", "meteor_corpus"]

#: coco-caption's metrics in ``COCOEvalCap``'s order (SPICE is not computed)
COCO_METRICS = METRICS
_BY_LOWER = {m.lower(): m for m in COCO_METRICS}


def coco_metric_name(name) -> str | None:
    """coco-caption's spelling of a metric name (``"cider"`` -> ``"CIDEr"``), or ``None`` when it is not one.

    ``METEOR`` counts only spelled so: ``"meteor"`` also names METEOR without coco-caption's PTB tokenization
    (:func:`vecscore.meteor`) and NLTK's, a different metric, so it is not taken for coco-caption's."""
    if not isinstance(name, str):
        return None
    found = _BY_LOWER.get(name.lower())
    return None if found == "METEOR" and name != "METEOR" else found


class CocoMetric:
    """One coco-caption metric for the bootstrap interval and the paired tests: ``"Bleu_1"`` .. ``"Bleu_4"``,
    ``"METEOR"``, ``"ROUGE_L"`` or ``"CIDEr"`` (CIDEr-D), as pycocoevalcap 1.2 computes it (METEOR reads
    meteor-1.5.jar's data from an installed pycocoevalcap).

    ``tokenize``: PTB-tokenize hypotheses and references first, as coco-caption's ``COCOEvalCap`` does
    (default); ``False``: the texts are already tokenized (split on whitespace as given, as nlg-eval scores).
    ``refs_layout``: ``"per-example"`` (default: ``refs[i]`` is item ``i``'s list of references, of any length)
    or ``"streams"`` (sacreBLEU's ``refs[k][i]``, ``None`` for a missing one).  ``lines``: the texts are lines
    of files, as the ``vecscore`` command reads them: surrounding whitespace is removed (nlg-eval's
    ``str.strip``) and an empty reference counts as no reference.

    Metrics made with the same options score a system once (one tokenization, one set of statistics).

    >>> CocoMetric("cider")
    CocoMetric('CIDEr')
    """

    def __init__(self, metric: str = "CIDEr", *, tokenize: bool = True, refs_layout: str = "per-example",
                 lines: bool = False):
        name = coco_metric_name(metric)
        if name is None:
            hint = " (coco-caption's is spelled 'METEOR')" if str(metric).lower() == "meteor" else ""
            raise VecscoreError(f"unknown coco-caption metric {metric!r}{hint}; valid: {', '.join(COCO_METRICS)}")
        if refs_layout not in ("per-example", "streams"):
            raise VecscoreError(f"refs_layout must be 'per-example' or 'streams', not {refs_layout!r}")
        self.metric = name
        self.options: dict[str, Any] = {"tokenize": bool(tokenize), "refs_layout": refs_layout, "lines": bool(lines)}

    def key(self) -> tuple:
        return tuple(sorted(self.options.items()))

    def __repr__(self) -> str:
        defaults = {"tokenize": True, "refs_layout": "per-example", "lines": False}
        opts = "".join(f", {k}={v!r}" for k, v in self.options.items() if defaults[k] != v)
        return f"CocoMetric({self.metric!r}{opts})"


def tokenized(texts: list[str]) -> list[str]:
    """``texts`` PTB-tokenized as coco-caption tokenizes them (one batch, in order)."""
    from vecscore.coco.ptb import ptb_tokenize

    return ptb_tokenize(list(texts))


def coco_batch(hyps: list[str], refs: list[list[str]], *, tokenize: bool = True):
    """The :class:`vecscore.coco.items.Items` coco-caption scores: hypotheses and per-item reference lists,
    PTB-tokenized when ``tokenize`` (references in one batch, item after item; hypotheses in another, as
    pycocoevalcap's two tokenizer runs)."""
    from vecscore.coco.items import items

    if tokenize:
        return items(tokenized(hyps), _regroup(tokenized([r for rs in refs for r in rs]), refs))
    return items(hyps, refs)


def meteor_summands(stats: np.ndarray) -> np.ndarray:
    """METEOR's per-item statistics (``(n, 23)``, the jar's layout) as the jar's corpus sum takes them: the chunk
    count (column 20) of an item matched perfectly in one chunk set to 0, so that any sum of rows (a resample, a
    randomization trial) is :func:`vecscore.meteor.stats.corpus_stats` of those items.

    An item's score is unchanged by it (a perfect match has no fragmentation penalty either way) whenever the
    parameter beta is positive, as coco-caption's (0.2).
    """
    s = np.array(stats, dtype=np.float64, ndmin=2)
    stages = s[:, 4:20].reshape(len(s), 4, 4)
    test_total = stages[:, :, 0].sum(axis=1) + stages[:, :, 2].sum(axis=1)
    ref_total = stages[:, :, 1].sum(axis=1) + stages[:, :, 3].sum(axis=1)
    perfect = (test_total == s[:, 0]) & (ref_total == s[:, 1]) & (s[:, 20] == 1)
    s[perfect, 20] = 0.0
    return s


def _meteor_params():
    from vecscore.meteor.options import resolve_options

    o = resolve_options("default", normalize=True)  # coco-caption's -l en -norm
    return o.weights, o.alpha, o.beta, o.gamma, o.delta


def meteor_rows(sums: np.ndarray) -> np.ndarray:
    """coco-caption's METEOR of every row of summed statistics (:func:`meteor_summands` rows, summed)."""
    from vecscore.meteor.stats import scores_from_stats

    return scores_from_stats(np.asarray(sums, np.float64).reshape(-1, 23), *_meteor_params())


def meteor_corpus(stats: np.ndarray) -> float:
    """coco-caption's corpus METEOR of per-item statistics (the jar's rows or :func:`meteor_summands` rows)."""
    from vecscore.meteor.stats import corpus_stats

    return float(meteor_rows(corpus_stats(np.asarray(stats, np.float64).reshape(-1, 23)))[0])


def coco_item_stats(batch, metrics, ids=None) -> dict[str, np.ndarray]:
    """Per metric of ``metrics``, every item's statistics in the adapter's layout (see the module's doc), from
    one :class:`~vecscore.coco.items.Items` (BLEU's statistics counted once for every ``Bleu_k``); ``ids``: the
    items' names in METEOR's messages (default: their positions)."""
    from vecscore.coco import bleu as _bleu
    from vecscore.coco import cider as _cider
    from vecscore.coco import rouge_l as _rouge_l
    from vecscore.coco.grams import grams

    out: dict[str, np.ndarray] = {}
    bleu_orders = [int(m[-1]) for m in metrics if m.startswith("Bleu_")]
    # BLEU and CIDEr split alike: tokens and n-gram tables once for both
    table = grams(batch.hyps + batch.refs, 4) if bleu_orders and "CIDEr" in metrics else None
    if bleu_orders:
        st = _bleu.bleu_stats(batch, max(bleu_orders), table)
        for k in bleu_orders:
            out[f"Bleu_{k}"] = np.column_stack([st.testlen, st.reflen, st.correct[:, :k], st.guess[:, :k]]).astype(
                np.int64)
    if "METEOR" in metrics:
        from vecscore.coco.evaluate import coco_meteor

        out["METEOR"] = meteor_summands(coco_meteor(batch, ids).stats)
    if "ROUGE_L" in metrics:
        f = _rouge_l.item_scores(batch)
        out["ROUGE_L"] = np.column_stack([f, np.ones_like(f)])
    if "CIDEr" in metrics:
        c = _cider.item_scores(batch, table=table)
        out["CIDEr"] = np.column_stack([c, np.ones_like(c)])
    return out


def per_item_scores(metric: str, stats: np.ndarray) -> np.ndarray:
    """Every item's score of ``metric`` from its statistics (coco-caption's per-image values, ``imgToEval``)."""
    if metric.startswith("Bleu_"):
        from vecscore.coco.bleu import item_scores

        k = int(metric[-1])
        return item_scores(_bleu_stats_of(stats, k))[:, k - 1]
    if metric == "METEOR":
        return meteor_rows(stats)
    return np.asarray(stats, dtype=np.float64)[:, 0].copy()


def _bleu_stats_of(rows: np.ndarray, k: int):
    from vecscore.coco.bleu import BleuStats

    m = np.asarray(rows)
    if m.dtype.kind == "f":
        if m.size and np.abs(m).max() >= 2.0 ** 53:  # pragma: no cover - 9e15 tokens
            raise VecscoreError("BLEU statistics too large to sum exactly in float64")
        m = np.rint(m).astype(np.int64)
    return BleuStats(m[:, 2:2 + k], m[:, 2 + k:2 + 2 * k], m[:, 0], m[:, 1])


def _mean_resampler(stats: np.ndarray):
    """A resample's row ``[mean of the drawn items' scores (np.mean, in draw order), 1]``."""
    values = np.ascontiguousarray(np.asarray(stats, dtype=np.float64)[:, 0])

    def resample(idxs, counts):
        means = np.mean(values[np.asarray(idxs, dtype=np.int64)], axis=1)
        return np.column_stack([means, np.ones_like(means)])

    return resample


class _CocoRuns:
    """One tokenization and one scoring of every (hyps, refs) for the coco metrics sharing these options."""

    def __init__(self, options: dict):
        self.options = options
        self.metrics: list[str] = []
        self._refs: tuple = (None, None)  # (the refs object, its per-item lists, tokenized when asked)
        self._last: tuple = (None, None, None)  # (hyps, refs, statistics per metric)

    def _references(self, refs, n: int) -> list[list[str]]:
        if self._refs[0] is refs:
            return self._refs[1]
        from vecscore.references import Refs, read_refs

        if not isinstance(refs, Refs):
            refs = read_refs(refs, n, "text", self.options["refs_layout"])
        if refs.kind != "text":
            raise VecscoreError("coco-caption's metrics score texts (str), not token lists or ids")
        flat, ptr = refs.flat, refs.ptr.tolist()
        lists = []
        for i in range(refs.n_pairs):
            rows = flat[ptr[i]:ptr[i + 1]]
            if self.options["lines"]:
                rows = [r.strip() for r in rows]
                rows = [r for r in rows if r]
                if not rows:
                    raise VecscoreError(f"item {i} (line {i + 1}) has no reference: every reference of it is empty; "
                                        "every item needs at least one")
            lists.append(rows)
        if self.options["tokenize"]:
            lists = _regroup(tokenized([r for rs in lists for r in rs]), lists)
        self._refs = (refs, lists)
        return lists

    def stats(self, metric: str, hyps, refs) -> np.ndarray:
        if refs is None:
            raise VecscoreError("coco-caption's metrics need the references (refs=...); they keep no reference cache")
        h, r, cached = self._last
        if h is not hyps or r is not refs:
            from vecscore.coco.items import items
            from vecscore.inputs import as_rows

            rows = as_rows(hyps, "hyps")
            lists = self._references(refs, len(rows))
            if self.options["lines"]:
                rows = [x.strip() if isinstance(x, str) else x for x in rows]
            if self.options["tokenize"]:
                items(rows, lists)  # the input errors in the user's terms before tokenizing
                rows = tokenized(rows)
            cached = coco_item_stats(items(rows, lists), self.metrics)
            self._last = (hyps, refs, cached)
        return cached[metric]


def _regroup(flat: list, like: list[list]) -> list[list]:
    out, at = [], 0
    for rows in like:
        out.append(flat[at:at + len(rows)])
        at += len(rows)
    return out


def _signature(metric: CocoMetric) -> str:
    from vecscore._version import __version__

    tok = "ptb" if metric.options["tokenize"] else "none"
    extra = {"CIDEr": "|df:refs|sigma:6", "METEOR": "|meteor:1.5-en-norm"}.get(metric.metric, "")
    return f"{metric.metric}|tok:{tok}{extra}|version:{__version__}"


def coco_adapter(metric: CocoMetric, runs: _CocoRuns | None = None) -> MetricAdapter:
    """The :class:`MetricAdapter` of a :class:`CocoMetric` (``runs``: shared with the metrics of the same options)."""
    if runs is None:
        runs = _CocoRuns(metric.options)
    name = metric.metric
    if name not in runs.metrics:
        runs.metrics.append(name)
    sig = _signature(metric)

    def stats(hyps, refs):
        return runs.stats(name, hyps, refs)

    def signature(short=False):
        return sig

    if name.startswith("Bleu_"):
        from vecscore.coco.bleu import corpus_scores, item_scores
        from vecscore.significance.resample import float64_resampler

        k = int(name[-1])

        def bleu_corpus(m):
            return float(corpus_scores(_bleu_stats_of(m, k))[k - 1])

        def bleu_rows(sums):  # each row's summed counts: the formula of the corpus score, row by row
            return item_scores(_bleu_stats_of(sums, k))[:, k - 1]

        return MetricAdapter(name, metric, stats, bleu_corpus, bleu_rows, signature, float64_resampler, True)

    if name == "METEOR":
        from vecscore.significance.resample import float64_resampler

        return MetricAdapter(name, metric, stats, meteor_corpus, meteor_rows, signature, float64_resampler, True)

    def mean_corpus(m):
        return float(np.mean(np.asarray(m, dtype=np.float64)[:, 0]))

    def mean_rows(sums):
        return np.asarray(sums[:, 0], np.float64) / np.asarray(sums[:, 1], np.float64)

    return MetricAdapter(name, metric, stats, mean_corpus, mean_rows, signature, _mean_resampler, True)


def runs_for(metric: CocoMetric, groups: dict) -> _CocoRuns:
    """The shared :class:`_CocoRuns` of ``metric``'s options in ``groups`` (made when missing)."""
    return groups.setdefault(("coco", metric.key()), _CocoRuns(metric.options))
