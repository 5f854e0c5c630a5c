"""A single system's bootstrap estimate, as sacreBLEU's ``corpus_score(..., n_bootstrap=N)`` computes it.

The part of :mod:`vecscore.significance` that the metrics' own ``corpus_score`` uses: it knows
metrics only through a :class:`~vecscore.significance.adapters.MetricAdapter` built from the metric
object, so it imports no metric module (the paired tests in :mod:`vecscore.significance.paired`
build adapters from names and options, and import the metrics).
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field, replace

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.significance import resample as rs
from vecscore.significance.adapters import MetricAdapter

__all__ = ["ConfidenceInterval", "bootstrap_interval", "bootstrap_sums", "check_n", "estimate_ci",
           "resampling_signature", "rows_per_chunk", "with_interval"]


def resampling_signature(signature: str, *, bs: int | None = None, ar: int | None = None,
                         seed: str | None = None) -> str:
    """``signature`` with sacreBLEU's resampling fields after ``nrefs`` (its order: ``bs``, ``ar``,
    ``seed``; short names ``bs``, ``ar``, ``rs``), e.g. ``nrefs:1|bs:1000|seed:12345|case:mixed|...``.
    Without an ``nrefs`` field (a ROUGE signature names the metric first) they go before ``version``."""
    fields = signature.split("|") if signature else []
    short = any(f.startswith("#:") for f in fields)
    extra = [f"{k}:{v}" for k, v in (("bs", bs), ("ar", ar), ("rs" if short else "seed", seed)) if v is not None]
    at = next((i + 1 for i, f in enumerate(fields) if f.startswith(("nrefs:", "#:"))), None)
    if at is None:
        at = next((i for i, f in enumerate(fields) if f.startswith(("version:", "v:"))), len(fields))
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

    def to_dict(self) -> dict:
        """``name``, ``score``, ``mean``, ``ci``, ``low``, ``high``, ``n_bootstrap``, ``seed`` and ``signature`` as
        plain Python values (``json.dumps`` takes it); the resample scores are left out."""
        return {"name": self.name, "score": float(self.score), "mean": float(self.mean), "ci": float(self.ci),
                "low": float(self.low), "high": float(self.high), "n_bootstrap": int(self.n_bootstrap),
                "seed": str(self.seed), "signature": self.signature()}


def estimate_ci(scores: np.ndarray):
    """sacreBLEU's ``Score.estimate_ci``: ``(statistics.mean, half-width)`` on the scores' scalar types."""
    raw = sorted(scores.tolist() if scores.dtype == np.float64 else list(scores))
    lo = len(raw) // 40
    return statistics.mean(raw), 0.5 * (raw[len(raw) - lo - 1] - raw[lo])


def check_n(n: int, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise VecscoreError(f"{what} must be an int >= 1, got {n!r}")
    return int(n)


def rows_per_chunk(n_pairs: int, multiple: int = 1) -> int:
    """Resamples (or trials) drawn at a time: about ``rs.CHUNK_ELEMENTS`` draws, a multiple of ``multiple``."""
    k = max(1, rs.CHUNK_ELEMENTS // max(1, n_pairs))
    return max(multiple, k - k % multiple)


def bootstrap_sums(items, n_pairs: int, n_samples: int, rng) -> list[np.ndarray]:
    """The summed statistics of ``n_samples`` bootstrap resamples for every ``(adapter, stats)`` of ``items``,
    all drawn with the same indices: sacreBLEU's ``rng.choice(n_pairs, size=(n_samples, n_pairs))``.

    The indices are drawn a chunk of resamples at a time (NumPy's ``Generator`` gives the same stream in
    pieces as in one call), so memory is bounded by the chunk, not by ``n_samples * n_pairs``.  Per
    chunk, one count matrix (how often each pair was drawn) times the statistics of every item at once
    (stacked by dtype: one matrix product).
    """
    resamplers = [a.resampler(stats) for a, stats in items]
    groups: dict = {}  # dtype -> (item indices, stacked values, column offsets)
    for j, r in enumerate(resamplers):
        if isinstance(r, rs.Linear):
            groups.setdefault(r.dtype, []).append(j)
    stacked = {}
    for dt, js in groups.items():
        offsets = np.cumsum([0] + [resamplers[j].values.shape[1] for j in js])
        stacked[dt] = (js, np.hstack([resamplers[j].values for j in js]).astype(dt), offsets)
    outs: list = [None] * len(items)
    for j, r in enumerate(resamplers):
        if isinstance(r, rs.Linear):
            outs[j] = np.empty((n_samples, r.values.shape[1]), r.dtype)
    step = rows_per_chunk(n_pairs)
    for lo in range(0, n_samples, step):
        k = min(step, n_samples - lo)
        idxs = rs.bootstrap_indices(n_pairs, k, rng)
        counts = rs.resample_counts(idxs, n_pairs)
        for dt, (js, values, offsets) in stacked.items():
            prod = counts.astype(dt) @ values
            for i, j in enumerate(js):
                outs[j][lo:lo + k] = prod[:, offsets[i]:offsets[i + 1]]
        for j, r in enumerate(resamplers):
            if not isinstance(r, rs.Linear):
                part = r(idxs, counts)
                if outs[j] is None:
                    outs[j] = np.empty((n_samples, part.shape[1]), part.dtype)
                outs[j][lo:lo + k] = part
    return outs


def bootstrap_interval(a: MetricAdapter, stats: np.ndarray, n_bootstrap: int = 1000, seed="env",
                        signatures: tuple = ("", "")) -> ConfidenceInterval:
    """sacreBLEU's bootstrap estimate (``Score.estimate_ci``) of the metric of adapter ``a`` from per-pair
    statistics ``stats`` (one row per pair); ``signatures``: the metric's (long, short) signature."""
    n = check_n(n_bootstrap, "n_bootstrap")
    if n < 2:
        raise VecscoreError("n_bootstrap must be > 1 for a confidence interval (sacreBLEU skips it at 1)")
    stats = np.asarray(stats)
    if stats.ndim != 2 or len(stats) == 0:
        raise VecscoreError(f"a confidence interval needs at least one scored pair (got statistics of shape "
                            f"{stats.shape})")
    score = a.corpus(stats)
    seed_str, seed_val = rs.resolve_seed(seed)
    (sums,) = bootstrap_sums([(a, stats)], len(stats), n, np.random.default_rng(seed_val))
    scores = a.rows(sums)
    mean, ci = estimate_ci(scores)
    return ConfidenceInterval(a.name, score, mean, ci, n, seed_str, scores, signatures)


def with_interval(metric, adapter: MetricAdapter, score, stats: np.ndarray, n_bootstrap: int):
    """``score`` (a BLEU, chrF or TER score of ``metric``) with sacreBLEU's bootstrap estimate of ``stats``
    (``_mean``, ``_ci``), as ``corpus_score(..., n_bootstrap=N)``; from then on ``metric``'s signature
    carries ``bs:N|seed:S``, as sacreBLEU's."""
    check_n(n_bootstrap, "n_bootstrap")
    ci = bootstrap_interval(adapter, stats, n_bootstrap, "env")
    metric._bootstrap = (ci.n_bootstrap, ci.seed)
    sig = str.__str__(metric.get_signature())
    if hasattr(score, "__dataclass_fields__"):
        return replace(score, _mean=ci.mean, _ci=ci.ci, signature=sig)
    score._mean, score._ci, score.signature = ci.mean, ci.ci, sig
    return score
