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
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.significance import resample as rs
from vecscore.significance._metric import MetricAdapter, adapt

__all__ = ["ConfidenceInterval", "SystemResult", "PairedResults", "confidence_interval", "paired_bootstrap",
           "paired_randomization", "resampling_signature", "SIGNIFICANCE_LEVEL"]

#: sacreBLEU marks a p-value with ``*`` unless it is above this
SIGNIFICANCE_LEVEL = 0.05


def resampling_signature(signature: str, *, bs: int | None = None, ar: int | None = None,
                         seed: str | None = None) -> str:
    """``signature`` with sacreBLEU's resampling fields after ``nrefs`` (its order: ``bs``, ``ar``,
    ``seed``; short names ``bs``, ``ar``, ``rs``), e.g. ``nrefs:1|bs:1000|seed:12345|case:mixed|...``."""
    fields = signature.split("|")
    short = fields[0].startswith("#:")
    extra = [f"{k}:{v}" for k, v in (("bs", bs), ("ar", ar), ("rs" if short else "seed", seed)) if v is not None]
    at = 1 if fields[0].startswith(("nrefs:", "#:")) else 0
    return "|".join(fields[:at] + extra + fields[at:])


@dataclass
class ConfidenceInterval:
    """A single system's bootstrap estimate, as sacreBLEU's ``Score`` after ``estimate_ci``."""

    name: str
    score: float
    mean: float
    ci: float
    n_bootstrap: int
    seed: str
    scores: np.ndarray | None = field(repr=False, default=None)
    base_signature: tuple = field(repr=False, default=("", ""))

    def signature(self, short: bool = False) -> str:
        """The metric's signature with ``bs:N|seed:S``, as sacreBLEU prints it with ``--confidence``."""
        return resampling_signature(self.base_signature[short], bs=self.n_bootstrap, seed=self.seed)

    @property
    def low(self) -> float:
        return self.mean - self.ci

    @property
    def high(self) -> float:
        return self.mean + self.ci

    def format(self, width: int = 2) -> str:
        """``"23.45 (μ = 23.41 ± 0.80)"`` -- sacreBLEU's score text (no interval when ``mean <= 0``)."""
        sc = f"{self.score:.{width}f}"
        if self.mean > 0:
            sc += f" (μ = {self.mean:.{width}f} ± {self.ci:.{width}f})"
        return sc

    def json_fields(self, width: int = 2) -> dict:
        """The keys sacreBLEU's ``--confidence --format json`` adds (``confidence_mean``, ``confidence_var``,
        ``confidence``), plus ``score`` rounded the same way."""
        d: dict[str, Any] = {"score": float(f"{self.score:.{width}f}")}
        if self.mean > 0:
            m, c = f"{self.mean:.{width}f}", f"{self.ci:.{width}f}"
            d.update(confidence_mean=float(m), confidence_var=float(c), confidence=f"μ = {m} ± {c}")
        return d


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


def _estimate_ci_statistics(scores: np.ndarray):
    """sacreBLEU's ``Score.estimate_ci``: ``(statistics.mean, half-width)`` on the scores' scalar types."""
    raw = sorted(scores.tolist() if scores.dtype == np.float64 else list(scores))
    lo = len(raw) // 40
    return statistics.mean(raw), 0.5 * (raw[len(raw) - lo - 1] - raw[lo])


def _p_value(stats: np.ndarray, real_difference: float) -> float:
    return (np.sum(stats > real_difference).item() + 1) / (len(stats) + 1)


def _check_n(n: int, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise VecscoreError(f"{what} must be an int >= 1, got {n!r}")
    return int(n)


def _check_lengths(named, n_pairs: int) -> None:
    for name, hyps in named:
        if len(hyps) != n_pairs:
            raise VecscoreError(f"system {name!r} has {len(hyps)} hypotheses, the baseline {n_pairs}")


def _metrics(metrics) -> list[MetricAdapter]:
    if isinstance(metrics, (str, MetricAdapter)) or not isinstance(metrics, Sequence):
        metrics = [metrics]
    out = [adapt(m) for m in metrics]
    names = [a.name for a in out]
    if len(set(names)) != len(names):
        raise VecscoreError(f"two metrics share a name: {names}")
    return out


def _systems(systems) -> list[tuple[str, Any]]:
    if isinstance(systems, Mapping):
        return list(systems.items())
    return [(str(n), h) for n, h in systems]


class _Draws:
    """Bootstrap indices and their count matrix, drawn once and shared when the seed is fixed."""

    def __init__(self, n_pairs: int, n_samples: int, seed: int | None):
        self.n_pairs, self.n_samples, self.seed = n_pairs, n_samples, seed
        self._fixed = None

    def fresh(self):
        rng = np.random.default_rng(self.seed)
        idxs = rs.bootstrap_indices(self.n_pairs, self.n_samples, rng)
        return idxs, rs.resample_counts(idxs, self.n_pairs).astype(np.float64)

    def get(self):
        if self.seed is None:
            return self.fresh()
        if self._fixed is None:
            self._fixed = self.fresh()
        return self._fixed


def _bootstrap_scores(adapter: MetricAdapter, stats: np.ndarray, draw) -> np.ndarray:
    idxs, counts = draw
    return adapter.rows(rs.resampled_sums(stats, idxs, float32=True, counts=counts))


# --- public API --------------------------------------------------------------------------------


def confidence_interval(metric, hyps, refs=None, n_bootstrap: int = 1000, seed="env") -> ConfidenceInterval:
    """``metric.corpus_score(hyps, refs, n_bootstrap=n_bootstrap)`` of sacreBLEU: the score, the bootstrap
    mean and 95% CI half-width (``sacrebleu --confidence --confidence-n N``).

    ``metric``: ``vecscore.BLEU(...)``, ``CHRF(...)``, ``TER(...)`` or a name; ``refs``: sacreBLEU's
    reference streams (``None``: the metric's cached references).
    """
    a = adapt(metric)
    n = _check_n(n_bootstrap, "n_bootstrap")
    if n < 2:
        raise VecscoreError("n_bootstrap must be > 1 for a confidence interval (sacreBLEU skips it at 1)")
    stats = a.stats(hyps, refs)
    score = a.corpus(stats)
    seed_str, seed_val = rs.resolve_seed(seed)
    scores = _bootstrap_scores(a, stats, _Draws(len(stats), n, seed_val).fresh())
    mean, ci = _estimate_ci_statistics(scores)
    return ConfidenceInterval(a.name, score, mean, ci, n, seed_str, scores, (a.signature(False), a.signature(True)))


def paired_bootstrap(metrics, baseline_hyps, systems, refs=None, n_samples: int = 1000, seed="env",
                     baseline_name: str = "baseline") -> PairedResults:
    """sacreBLEU's paired bootstrap resampling test (``--paired-bs --paired-bs-n n_samples``).

    ``metrics``: one metric (object or name) or a list; ``systems``: ``{name: hyps}`` (or pairs), compared
    each with ``baseline_hyps``.  Every system (baseline included) gets the bootstrap mean ± 95% CI; the
    others a p-value.
    """
    n = _check_n(n_samples, "n_samples")
    adapters = _metrics(metrics)
    named = _systems(systems)
    seed_str, seed_val = rs.resolve_seed(seed)
    n_pairs = len(baseline_hyps)
    draws = _Draws(n_pairs, n, seed_val)
    _check_lengths(named, n_pairs)
    results: dict[str, list] = {}
    sigs: dict[str, tuple] = {}
    base = {}
    for a in adapters:  # sacreBLEU's PairedTest.__init__: the baseline's score and interval, per metric
        bl_stats = a.stats(baseline_hyps, refs)
        bl_score = a.corpus(bl_stats)
        bl_draw = draws.get()
        bl_scores = _bootstrap_scores(a, bl_stats, bl_draw)
        mean, ci = _estimate_ci_numpy(bl_scores)
        results[a.name] = [SystemResult(bl_score, None, mean, ci)]
        base[a.name] = (bl_stats, bl_score, bl_draw, bl_scores)
    for _, hyps in named:  # one task per system: one draw, shared by every metric
        draw = draws.get()
        for a in adapters:
            bl_stats, bl_score, bl_draw, bl_scores = base[a.name]
            sys_stats = a.stats(hyps, refs)
            sys_score = a.corpus(sys_stats)
            bl = bl_scores if draw is bl_draw else _bootstrap_scores(a, bl_stats, draw)
            sys_scores = _bootstrap_scores(a, sys_stats, draw)
            s_mean, s_ci = _estimate_ci_numpy(sys_scores)
            diffs = np.abs(sys_scores - bl)
            p = _p_value(diffs - diffs.mean(), abs(bl_score - sys_score))
            results[a.name].append(SystemResult(sys_score, p, s_mean, s_ci))
    for a in adapters:
        sigs[a.name] = (a.signature(False), a.signature(True))
    return PairedResults([baseline_name] + [s for s, _ in named], results, "bs", n, seed_str, -1, sigs)


def paired_randomization(metrics, baseline_hyps, systems, refs=None, n_samples: int = 10000, seed="env",
                         confidence_samples: int = -1, baseline_name: str = "baseline") -> PairedResults:
    """sacreBLEU's paired approximate randomization test (``--paired-ar --paired-ar-n n_samples``).

    ``confidence_samples`` is sacreBLEU's ``n_ar_confidence``: -1 (the CLI's setting) computes no interval,
    0 means 1000, ``> 0`` adds a bootstrap mean ± CI per system (drawn after the AR masks on the same
    generator, as sacreBLEU does; the baseline's from a fresh generator).
    """
    n = _check_n(n_samples, "n_samples")
    conf = 1000 if confidence_samples == 0 else int(confidence_samples)
    adapters = _metrics(metrics)
    named = _systems(systems)
    seed_str, seed_val = rs.resolve_seed(seed)
    n_pairs = len(baseline_hyps)

    fixed: dict[str, Any] = {}

    def draw_system():
        """(AR masks, bootstrap draw or None) from a fresh default_rng(seed), as each sacreBLEU task."""
        if seed_val is not None and "sys" in fixed:
            return fixed["sys"]
        rng = np.random.default_rng(seed_val)
        masks = rs.randomization_masks(n_pairs, n, rng)
        bs = None
        if conf > 0:
            idxs = rs.bootstrap_indices(n_pairs, conf, rng)
            bs = (idxs, rs.resample_counts(idxs, n_pairs).astype(np.float64))
        fixed["sys"] = (masks, bs)
        return masks, bs

    bl_draws = _Draws(n_pairs, conf, seed_val) if conf > 0 else None
    _check_lengths(named, n_pairs)
    results: dict[str, list] = {}
    sigs: dict[str, tuple] = {}
    base = {}
    for a in adapters:
        bl_stats = a.stats(baseline_hyps, refs)
        bl_score = a.corpus(bl_stats)
        mean = ci = None
        if bl_draws is not None:  # sacreBLEU's _bootstrap_resample: its own fresh generator, per metric
            mean, ci = _estimate_ci_numpy(_bootstrap_scores(a, bl_stats, bl_draws.get()))
        results[a.name] = [SystemResult(bl_score, None, mean, ci)]
        base[a.name] = (bl_stats, bl_score)
    for _, hyps in named:
        masks, bs = draw_system()
        for a in adapters:
            bl_stats, bl_score = base[a.name]
            sys_stats = a.stats(hyps, refs)
            sys_score = a.corpus(sys_stats)
            shuf_a, shuf_b = rs.randomized_sums(bl_stats, sys_stats, masks)
            diff = np.abs(a.rows(shuf_a) - a.rows(shuf_b))
            res = SystemResult(sys_score, _p_value(diff, abs(bl_score - sys_score)))
            if bs is not None:
                res.mean, res.ci = _estimate_ci_numpy(_bootstrap_scores(a, sys_stats, bs))
            results[a.name].append(res)
    for a in adapters:
        sigs[a.name] = (a.signature(False), a.signature(True))
    return PairedResults([baseline_name] + [s for s, _ in named], results, "ar", n, seed_str, conf, sigs)
