"""Confidence intervals and paired significance tests, with sacreBLEU 2.6's numbers.

* :func:`confidence_interval` -- ``sacrebleu --confidence`` (``corpus_score(..., n_bootstrap=N)``):
  the score, the bootstrap mean and the half-width of the 95% interval.
* :func:`paired_bootstrap` -- ``sacrebleu --paired-bs``: per system the score, bootstrap mean ± 95% CI
  and the p-value of the difference to the baseline.
* :func:`paired_randomization` -- ``sacrebleu --paired-ar``: per system the score and p-value (and,
  with ``confidence_samples > 0``, a bootstrap mean ± CI as sacreBLEU's ``n_ar_confidence``).

Semantics (all as sacreBLEU):

* seeds: ``seed="env"`` reads ``SACREBLEU_SEED`` (unset: 12345; ``none``: OS entropy).  Each system's
  test starts a fresh ``default_rng(seed)``, so with a fixed seed every system (and the baseline's
  interval) is resampled with the same indices; with entropy each draw is independent.
* interval: sort the resample scores, ``lower = s[n // 40]``, ``upper = s[n - n // 40 - 1]``,
  ``ci = (upper - lower) / 2``; the mean is ``statistics.mean`` for :func:`confidence_interval`
  (``Score.estimate_ci``) but ``numpy.mean`` for the paired tests (``significance.estimate_ci``).
* bootstrap p-value: ``d = |sys - base|`` per resample, ``(#(d - mean(d) > |actual difference|) + 1)
  / (n + 1)``; AR p-value: ``(#(|A - B| > |actual difference|) + 1) / (n + 1)`` over the trials.
* a system is marked significant (``*``) unless ``p > 0.05``.

ROUGE metrics (:class:`~vecscore.significance.RougeMetric`, or names such as ``"rougeL"``) go through
the same tests with the same draws; their corpus score is rouge-score's, the mean of the per-pair F.

Memory: the draws are made a chunk of resamples (or a multiple of 32 AR trials) at a time, which
NumPy's ``Generator`` turns into the same stream as sacreBLEU's single call, so no
``n_samples x n_pairs`` matrix is built.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.significance import resample as rs
from vecscore.significance._metric import MetricAdapter, adapt, adapt_all
from vecscore.significance.estimate import (
    ConfidenceInterval,
    bootstrap_interval,
    bootstrap_sums,
    check_n,
    resampling_signature,
    rows_per_chunk,
)

__all__ = ["ConfidenceInterval", "SystemResult", "PairedResults", "confidence_interval", "paired_bootstrap",
           "paired_randomization", "resampling_signature", "SIGNIFICANCE_LEVEL"]

#: sacreBLEU marks a p-value with ``*`` unless it is above this
SIGNIFICANCE_LEVEL = 0.05


@dataclass
class SystemResult:
    """One system's row for one metric: sacreBLEU's ``significance.Result``."""

    score: float
    p_value: float | None = None
    mean: float | None = None
    ci: float | None = None

    @property
    def significant(self) -> bool:
        return self.p_value is not None and not self.p_value > SIGNIFICANCE_LEVEL

    @property
    def mark(self) -> str:
        return "*" if self.significant else ""

    def format(self, width: int = 2, multiline: bool = False) -> str:
        """sacreBLEU's table cell (uncoloured): ``"23.45 (23.41 ± 0.80) (p = 0.0010)*"``."""
        s = f"{self.score:.{width}f}"
        if self.mean is not None:
            s += f" ({self.mean:.{width}f} ± {self.ci:.{width}f})"
        if self.p_value is not None:
            s += ("\n" if multiline else " ") + f"(p = {self.p_value:.4f})" + self.mark
        return s

    def as_dict(self) -> dict:
        """sacreBLEU's JSON object for this cell (``Result.__dict__``), as Python floats."""
        def f(v):
            return None if v is None else float(v)

        return {"score": f(self.score), "p_value": f(self.p_value), "mean": f(self.mean), "ci": f(self.ci)}

    to_dict = as_dict


@dataclass
class PairedResults:
    """``systems``: names, baseline first; ``results[metric_name]``: one :class:`SystemResult` per system;
    ``test``: ``"bs"`` or ``"ar"``; ``n_samples``; ``seed`` (signature string)."""

    systems: list
    results: dict
    test: str
    n_samples: int
    seed: str
    confidence_samples: int = -1
    base_signatures: dict = field(repr=False, default_factory=dict)

    def signature(self, metric: str, short: bool = False) -> str:
        """``metric``'s signature with sacreBLEU's paired-test fields (``seed``, ``bs``/``ar``)."""
        base = self.base_signatures[metric][short]
        if self.test == "bs":
            return resampling_signature(base, bs=self.n_samples, seed=self.seed)
        conf = self.confidence_samples if self.confidence_samples > 0 else None
        return resampling_signature(base, bs=conf, ar=self.n_samples, seed=self.seed)

    def __getitem__(self, system: str) -> dict:
        i = self.systems.index(system)
        return {m: rows[i] for m, rows in self.results.items()}

    def to_dict(self) -> dict:
        """The test's settings, ``systems`` and, per metric, each system's :meth:`SystemResult.to_dict` and the
        signature: plain Python values (``json.dumps`` takes it)."""
        return {"test": self.test, "n_samples": int(self.n_samples), "seed": str(self.seed),
                "confidence_samples": int(self.confidence_samples), "systems": [str(s) for s in self.systems],
                "results": {m: [r.to_dict() for r in rows] for m, rows in self.results.items()},
                "signatures": {m: self.signature(m) for m in self.results if m in self.base_signatures}}

    def to_json(self) -> list:
        """sacreBLEU's ``--format json`` list for a paired test."""
        return [{"system": s, **{m: rows[i].as_dict() for m, rows in self.results.items()}}
                for i, s in enumerate(self.systems)]


# --- helpers -----------------------------------------------------------------------------------


def _estimate_ci_numpy(scores: np.ndarray):
    """sacreBLEU's ``significance.estimate_ci``: ``(numpy mean, half-width)``."""
    s = np.sort(scores)
    lo = len(s) // 40
    return s.mean(), 0.5 * (s[len(s) - lo - 1] - s[lo])


def _p_value(stats: np.ndarray, real_difference: float) -> float:
    return (np.sum(stats > real_difference).item() + 1) / (len(stats) + 1)


def _check_lengths(named, n_pairs: int) -> None:
    for name, hyps in named:
        if len(hyps) != n_pairs:
            raise VecscoreError(f"system {name!r} has {len(hyps)} hypotheses, the baseline {n_pairs}")


def _metrics(metrics) -> list[MetricAdapter]:
    if isinstance(metrics, (str, MetricAdapter)) or not isinstance(metrics, Sequence):
        metrics = [metrics]
    out = adapt_all(metrics)
    names = [a.name for a in out]
    if len(set(names)) != len(names):
        raise VecscoreError(f"two metrics share a name: {names}")
    return out


def _systems(systems) -> list[tuple[str, Any]]:
    if isinstance(systems, Mapping):
        return list(systems.items())
    return [(str(n), h) for n, h in systems]


def _rows_of(adapter: MetricAdapter, sums: list[np.ndarray]) -> list[np.ndarray]:
    """``adapter.rows`` of several blocks of summed statistics (in one call when the adapter allows it)."""
    if len(sums) == 1 or not adapter.batch_rows:
        return [adapter.rows(x) for x in sums]
    scores = adapter.rows(np.concatenate(sums))
    return np.split(scores, np.cumsum([len(x) for x in sums])[:-1])


def _randomized(items, n_pairs: int, n_trials: int, rng) -> list[np.ndarray]:
    """``|score(A) - score(B)|`` of sacreBLEU's AR pseudo-systems for every ``(adapter, baseline stats, system
    stats)`` of ``items``, all with the same masks (``rng.integers(2, size=(n_trials, n_pairs), dtype=bool)``).

    Drawn a multiple of 32 trials at a time: NumPy fills booleans from 32-bit words it does not carry from
    one call to the next, so chunks of a multiple of 32 values give the stream of one call.  Integer
    statistics whose sums stay below 2**24 (so any order of summing them is exact, even in float32) take
    one product for all items: ``A = masks @ (baseline - system) + sum(system)`` and
    ``B = sum(baseline) + sum(system) - A``.
    """
    exact = [rs.float32_exact(bl) and rs.float32_exact(sy) for _, bl, sy in items]
    cols = [0]
    for (_, bl, _), ok in zip(items, exact):
        cols.append(cols[-1] + (np.shape(bl)[1] if ok else 0))
    diff = np.column_stack([np.asarray(bl, np.float32) - np.asarray(sy, np.float32)
                            for (_, bl, sy), ok in zip(items, exact) if ok]) if any(exact) else None
    totals = [(np.asarray(bl, np.float64).sum(axis=0), np.asarray(sy, np.float64).sum(axis=0)) if ok else None
              for (_, bl, sy), ok in zip(items, exact)]
    a_sums: list = [[] for _ in items]
    b_sums: list = [[] for _ in items]
    step = rows_per_chunk(n_pairs, 32)
    for lo in range(0, n_trials, step):
        masks = rs.randomization_masks(n_pairs, min(step, n_trials - lo), rng)
        prod = (masks.view(np.uint8).astype(np.float32) @ diff).astype(np.float64) if diff is not None else None
        for j, (_, bl, sy) in enumerate(items):
            if exact[j]:
                bl_total, sy_total = totals[j]  # type: ignore[misc]
                a = prod[:, cols[j]:cols[j + 1]] + sy_total  # type: ignore[index]
                b = (bl_total + sy_total) - a
            else:
                a, b = rs.randomized_sums(bl, sy, masks)
            a_sums[j].append(a)
            b_sums[j].append(b)
    by_adapter: dict = {}
    for j, (ad, _, _) in enumerate(items):
        by_adapter.setdefault(id(ad), (ad, []))[1].append(j)
    out: list = [None] * len(items)
    for ad, js in by_adapter.values():
        blocks = [np.concatenate(a_sums[j]) for j in js] + [np.concatenate(b_sums[j]) for j in js]
        scores = _rows_of(ad, blocks)
        for i, j in enumerate(js):
            out[j] = np.abs(scores[i] - scores[len(js) + i])
    return out


def interval_from_stats(metric, stats: np.ndarray, n_bootstrap: int = 1000, seed="env",
                        signatures: tuple = ("", "")) -> ConfidenceInterval:
    """:func:`confidence_interval` from per-pair statistics already computed (``stats``: the adapter's layout,
    one row per pair, e.g. a CLI run's accumulated rows); ``signatures``: the metric's (long, short) signature."""
    return bootstrap_interval(adapt(metric), stats, n_bootstrap, seed, signatures)


# --- public API --------------------------------------------------------------------------------


def confidence_interval(metric, hyps, refs=None, n_bootstrap: int = 1000, seed="env") -> ConfidenceInterval:
    """``metric.corpus_score(hyps, refs, n_bootstrap=n_bootstrap)`` of sacreBLEU: the score, the bootstrap
    mean and 95% CI half-width (``sacrebleu --confidence --confidence-n N``).

    ``metric``: ``vecscore.BLEU(...)``, ``CHRF(...)``, ``TER(...)``, :class:`RougeMetric` or a name;
    ``refs``: sacreBLEU's reference streams, read as the metric reads references (its ``refs_layout``;
    ``None``: the metric's cached references).
    """
    a = adapt(metric)
    check_n(n_bootstrap, "n_bootstrap")
    from vecscore.inputs import as_rows

    hyps = as_rows(hyps, "hyps")
    stats = a.stats(hyps, _read_references([a], hyps, refs)[0])
    return interval_from_stats(a, stats, n_bootstrap, seed, (a.signature(False), a.signature(True)))


def _job_route(baseline_hyps, named, ref_texts) -> str:
    """``compiled`` when the whole test (every system's text, and the references) is beyond the plain
    route's budget, although each system alone may not be; else ``auto`` (each call decides)."""
    from vecscore.route import PLAIN_MAX_CHARS, text_chars

    groups = [baseline_hyps, *(h for _, h in named)]
    if ref_texts is not None:
        groups.append(ref_texts)
    return "compiled" if text_chars(*groups) * 2 > PLAIN_MAX_CHARS else "auto"


def _layout(metric) -> str:
    """The ``refs_layout`` that ``metric`` reads references with."""
    options = getattr(metric, "options", None)
    if isinstance(options, dict):  # a RougeMetric
        return options.get("refs_layout", "streams")
    return getattr(metric, "refs_layout", "auto")


def _read_references(adapters, baseline_hyps, refs) -> list:
    """Per adapter, the test's references read once (:func:`vecscore.references.read_refs`, one read per layout the
    metrics use): every system is scored against these, never against the user's lists again."""
    if refs is None:
        return [None] * len(adapters)
    from vecscore.inputs import input_kind
    from vecscore.references import read_refs

    kind = input_kind([next(iter(baseline_hyps), "")])
    reads: dict[str, Any] = {}
    out = []
    for a in adapters:
        layout = _layout(a.metric)
        if layout not in reads:
            reads[layout] = read_refs(refs, len(baseline_hyps), kind, layout)
        out.append(reads[layout])
    return out


def _prepare(adapters, baseline_hyps, named, refs):
    """Per metric ``(baseline stats, baseline score)``; per system and metric ``(stats, score)``."""
    from vecscore.route import preferred

    n_pairs = len(baseline_hyps)
    _check_lengths(named, n_pairs)
    per_adapter = _read_references(adapters, baseline_hyps, refs)
    ref_texts = per_adapter[0].flat if per_adapter and per_adapter[0] is not None else None
    with preferred(_job_route(baseline_hyps, named, ref_texts)):
        return _prepare_stats(adapters, baseline_hyps, named, per_adapter)


def _prepare_stats(adapters, baseline_hyps, named, per_adapter):
    systems = [baseline_hyps, *(h for _, h in named)]
    per_metric = []
    for a, refs in zip(adapters, per_adapter):
        stats = a.stats_of(systems, refs)
        per_metric.append([(st, a.corpus(st)) for st in stats])
    base = [rows[0] for rows in per_metric]
    return base, [[rows[i] for rows in per_metric] for i in range(1, len(systems))]


def _signatures(adapters) -> dict:
    return {a.name: (a.signature(False), a.signature(True)) for a in adapters}


def paired_bootstrap(metrics, baseline_hyps, systems, refs=None, n_samples: int = 1000, seed="env",
                     baseline_name: str = "baseline") -> PairedResults:
    """sacreBLEU's paired bootstrap resampling test (``--paired-bs --paired-bs-n n_samples``).

    ``metrics``: one metric (object or name) or a list -- BLEU, chrF, TER as sacreBLEU, ROUGE
    (``"rougeL"``, :class:`RougeMetric`) as the mean of the per-pair F; ``systems``: ``{name: hyps}`` (or
    pairs), compared each with ``baseline_hyps``.  Every system (baseline included) gets the bootstrap
    mean ± 95% CI; the others a p-value.  All systems are resampled a chunk of resamples at a time.
    """
    n = check_n(n_samples, "n_samples")
    adapters = _metrics(metrics)
    named = _systems(systems)
    seed_str, seed_val = rs.resolve_seed(seed)
    n_pairs = len(baseline_hyps)
    base, sys_stats = _prepare(adapters, baseline_hyps, named, refs)
    n_metrics = len(adapters)
    if seed_val is not None:
        # sacreBLEU starts a fresh default_rng(seed) for the baseline of every metric and for every system:
        # the same indices everywhere, so one pass over the draws serves them all
        items = [(a, st) for a, (st, _) in zip(adapters, base)]
        items += [(a, st) for row in sys_stats for a, (st, _) in zip(adapters, row)]
        sums = bootstrap_sums(items, n_pairs, n, np.random.default_rng(seed_val))
        per_metric = [_rows_of(a, sums[m::n_metrics]) for m, a in enumerate(adapters)]  # baseline, systems
        bl_scores = [scores[0] for scores in per_metric]
        sys_scores = [[(bl_scores[m], per_metric[m][i + 1]) for m in range(n_metrics)] for i in range(len(named))]
    else:  # fresh entropy for each baseline interval and for each system (its baseline rescored on its draw)
        bl_scores = [a.rows(bootstrap_sums([(a, st)], n_pairs, n, np.random.default_rng())[0])
                     for a, (st, _) in zip(adapters, base)]
        sys_scores = []
        for row in sys_stats:
            items = [pair for a, (bst, _), (sst, _) in zip(adapters, base, row) for pair in ((a, bst), (a, sst))]
            sums = bootstrap_sums(items, n_pairs, n, np.random.default_rng())
            sys_scores.append([(a.rows(sums[2 * m]), a.rows(sums[2 * m + 1])) for m, a in enumerate(adapters)])
    results: dict[str, list] = {}
    for m, a in enumerate(adapters):
        mean, ci = _estimate_ci_numpy(bl_scores[m])
        results[a.name] = [SystemResult(base[m][1], None, mean, ci)]
        for i, row in enumerate(sys_stats):
            bl, sy = sys_scores[i][m]
            s_mean, s_ci = _estimate_ci_numpy(sy)
            diffs = np.abs(sy - bl)
            p = _p_value(diffs - diffs.mean(), abs(base[m][1] - row[m][1]))
            results[a.name].append(SystemResult(row[m][1], p, s_mean, s_ci))
    return PairedResults([baseline_name] + [s for s, _ in named], results, "bs", n, seed_str, -1,
                         _signatures(adapters))


def paired_randomization(metrics, baseline_hyps, systems, refs=None, n_samples: int = 10000, seed="env",
                         confidence_samples: int = -1, baseline_name: str = "baseline") -> PairedResults:
    """sacreBLEU's paired approximate randomization test (``--paired-ar --paired-ar-n n_samples``).

    ``confidence_samples`` is sacreBLEU's ``n_ar_confidence``: -1 (the CLI's setting) computes no interval,
    0 means 1000, ``> 0`` adds a bootstrap mean ± CI per system (drawn after the AR masks on the same
    generator, as sacreBLEU does; the baseline's from a fresh generator).  Metrics as
    :func:`paired_bootstrap`.
    """
    n = check_n(n_samples, "n_samples")
    conf = 1000 if confidence_samples == 0 else int(confidence_samples)
    adapters = _metrics(metrics)
    named = _systems(systems)
    seed_str, seed_val = rs.resolve_seed(seed)
    n_pairs = len(baseline_hyps)
    base, sys_stats = _prepare(adapters, baseline_hyps, named, refs)

    def run(rows, rng):
        """AR diffs (then, with ``conf > 0``, bootstrap scores) of the systems ``rows`` on one generator."""
        items = [(a, bst, sst) for row in rows for a, (bst, _), (sst, _) in zip(adapters, base, row)]
        diffs = _randomized(items, n_pairs, n, rng)
        boot = None
        if conf > 0:
            sums = bootstrap_sums([(a, sst) for a, _, sst in items], n_pairs, conf, rng)
            k = len(adapters)
            per_metric = [_rows_of(a, sums[m::k]) for m, a in enumerate(adapters)]
            boot = [per_metric[j % k][j // k] for j in range(len(items))]
        return diffs, boot

    bl_ci: list = [(None, None)] * len(adapters)
    if conf > 0:  # sacreBLEU's _bootstrap_resample: a fresh generator per metric
        if seed_val is not None:
            sums = bootstrap_sums([(a, st) for a, (st, _) in zip(adapters, base)], n_pairs, conf,
                                   np.random.default_rng(seed_val))
            bl_ci = [_estimate_ci_numpy(a.rows(s)) for a, s in zip(adapters, sums)]
        else:
            bl_ci = [_estimate_ci_numpy(a.rows(bootstrap_sums([(a, st)], n_pairs, conf,
                                                               np.random.default_rng())[0]))
                     for a, (st, _) in zip(adapters, base)]
    per_system: list = []  # per system: per metric (diffs, bootstrap scores or None)
    k = len(adapters)
    if seed_val is not None:  # every system's task starts default_rng(seed): the same masks for all
        diffs, boot = run(sys_stats, np.random.default_rng(seed_val))
        for i in range(len(named)):
            per_system.append([(diffs[i * k + m], None if boot is None else boot[i * k + m]) for m in range(k)])
    else:
        for row in sys_stats:
            diffs, boot = run([row], np.random.default_rng())
            per_system.append([(diffs[m], None if boot is None else boot[m]) for m in range(k)])
    results: dict[str, list] = {}
    for m, a in enumerate(adapters):
        results[a.name] = [SystemResult(base[m][1], None, *bl_ci[m])]
        for i, row in enumerate(sys_stats):
            diff, boot = per_system[i][m]
            res = SystemResult(row[m][1], _p_value(diff, abs(base[m][1] - row[m][1])))
            if boot is not None:
                res.mean, res.ci = _estimate_ci_numpy(boot)
            results[a.name].append(res)
    return PairedResults([baseline_name] + [s for s, _ in named], results, "ar", n, seed_str, conf,
                         _signatures(adapters))
