"""rouge-score's bootstrap confidence intervals (``BootstrapAggregator``), reproduced exactly.

rouge-score 0.1.2's ``scoring.BootstrapAggregator(confidence_interval, n_samples)`` turns the
per-pair ``Score`` (precision, recall, F) of each metric into ``AggregateScore(low, mid, high)``:

* the metrics are taken in the order their keys were first added (for ``RougeScorer`` output:
  the order of its ``rouge_types``), and all draws come from NumPy's *global legacy* generator
  (``np.random``, MT19937), one metric after the other;
* per metric, each of the ``n_samples`` resamples draws ``N`` pair indices with
  ``np.random.choice(np.arange(N), size=N)`` (which is ``randint(0, N, size=N)``) and takes
  ``np.mean`` over the pairs of the gathered ``(N, 3)`` block -- a sum in draw order, then a
  division by ``N``;
* ``low``, ``mid`` and ``high`` are ``np.percentile`` (linear interpolation) of the resample
  means at ``100 * d``, ``50`` and ``100 * (1 - d)`` with ``d = (1 - confidence) / 2``.  So
  ``mid`` is the *median* of the bootstrap means, not their mean (rouge-score's docstring says
  mean).

:func:`rouge_bootstrap` makes the same draws and the same sums in bulk and calls the same
percentile, so with the same per-pair scores (``vecscore.rouge`` gives rouge-score's bit for
bit) and the same generator state its numbers equal rouge-score's bit for bit.  Two routes
give the same numbers:

* the plain route (small inputs, ``VECSCORE_ROUTE=plain``, or a ``RandomState`` whose bit
  generator is not MT19937): ``RandomState.randint`` for a chunk of resamples at once, then
  ``np.mean`` over the pair axis of the gathered ``(k, N, 3)`` block;
* the compiled route: the generator state is read out of the ``RandomState`` and advanced by
  numba kernels (:func:`vecscore.kernels.rouge155.legacy_randint_fill`, the same masked
  rejection on the same MT19937 words) into a chunk of ``uint32`` indices, which
  :func:`vecscore.kernels.rouge155.ordered_sample_means` averages in draw order, while a
  helper thread draws the next chunk; the state is written back afterwards.

Memory is bounded by the chunk (about :data:`CHUNK_DRAWS` indices on the compiled route,
:data:`PLAIN_CHUNK_DRAWS` on the plain one, and at least one resample): no ``n_samples x N``
matrix is ever built.
"""
from __future__ import annotations

import numbers
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, NamedTuple, Union

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.rouge.results import Score
from vecscore.route import use_plain

__all__ = ["AggregateScore", "RougeIntervals", "rouge_bootstrap", "CHUNK_DRAWS", "PLAIN_CHUNK_DRAWS", "PLAIN_MAX_DRAWS"]

#: pair indices drawn per chunk (``uint32``: 8 MiB, two buffers on the compiled route); a chunk
#: holds ``max(1, CHUNK_DRAWS // N)`` resamples
CHUNK_DRAWS = 1 << 21

#: pair indices per chunk on the plain route (int64 indices and the gathered ``(k, N, 3)``
#: float64 block: 32 bytes per draw, 8 MiB)
PLAIN_CHUNK_DRAWS = 1 << 18

#: draws (pairs x resamples x metrics) up to which ``VECSCORE_ROUTE=auto`` stays on the plain
#: NumPy route (~25 ns per draw, so about a quarter of a second), rather than loading numba
PLAIN_MAX_DRAWS = 10_000_000

Seed = Union[int, np.integer, np.random.RandomState, None]


class AggregateScore(NamedTuple):
    """One metric's interval, with rouge-score's field names: ``low``, ``mid`` (the median of the
    bootstrap means) and ``high``, each a :class:`~vecscore.rouge.results.Score` of floats."""

    low: Score
    mid: Score
    high: Score

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """``{"low": {"precision": ..., "recall": ..., "fmeasure": ...}, "mid": ..., "high": ...}``, Python floats."""
        return {name: Score(*s).to_dict() for name, s in zip(self._fields, self)}


@dataclass(frozen=True)
class RougeIntervals(Mapping):
    """``intervals[metric]`` is an :class:`AggregateScore`; a mapping, as rouge-score's ``aggregate()`` dict.

    ``signature`` is the result's signature followed by the resampling fields
    (``|ci:rouge-score|bs:<n_samples>|conf:<confidence>|seed:<seed>``; ``seed:global`` when drawn
    from ``np.random``'s state, ``seed:state`` from a given ``RandomState``).
    """

    intervals: dict
    n_samples: int
    confidence: float
    seed: str
    signature: str = ""

    def __getitem__(self, key: str) -> AggregateScore:
        return self.intervals[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.intervals)

    def __len__(self) -> int:
        return len(self.intervals)

    def to_dict(self) -> dict[str, Any]:
        """The intervals (``{metric: AggregateScore.to_dict()}``) and the resampling settings, as plain Python
        values (``json.dumps`` takes it)."""
        return {"intervals": {k: AggregateScore(*v).to_dict() for k, v in self.intervals.items()},
                "n_samples": int(self.n_samples), "confidence": float(self.confidence), "seed": str(self.seed),
                "signature": self.signature}


def rouge_bootstrap(
    result: Mapping[str, Any],
    *,
    n_samples: int = 1000,
    confidence: float = 0.95,
    seed: Seed = None,
    metrics: Sequence[str] | None = None,
) -> RougeIntervals:
    """rouge-score's ``BootstrapAggregator`` intervals of per-pair ROUGE scores, bit for bit.

    Equal to ``BootstrapAggregator(confidence_interval=confidence, n_samples=n_samples)`` after
    ``add_scores`` of every pair's scores (in pair order, keys in ``metrics`` order) and
    ``aggregate()``, run from the same state of NumPy's legacy generator.

    Parameters
    ----------
    result : RougeResult or mapping of str to Score
        Per-pair scores, e.g. from :func:`vecscore.rouge`: ``result[metric].precision``,
        ``.recall`` and ``.fmeasure`` are arrays with one value per pair.
    n_samples : int
        Bootstrap resamples per metric (rouge-score's ``n_samples``), at least 1.
    confidence : float
        The interval's coverage, strictly between 0 and 1 (``0.95``: the 2.5th and 97.5th
        percentiles).
    seed : int, numpy.random.RandomState or None
        Where the draws come from.

        * ``None`` (default): NumPy's global legacy generator, exactly as rouge-score uses it.
          Its state is read, advanced by exactly the draws rouge-score makes, and written back,
          so later ``np.random`` calls continue as they would after ``aggregate()``
          (``np.random.seed(s)`` then this call equals ``np.random.seed(s)`` then rouge-score).
          Not safe while other threads draw from ``np.random``.
        * an int: a private ``np.random.RandomState(seed)``, which gives the draws of
          ``np.random.seed(seed)`` followed by rouge-score; the global state is not touched.
        * a ``RandomState``: drawn from and advanced in place; the global state is not touched.
    metrics : sequence of str, optional
        The metrics to resample, in the order rouge-score would meet them (it resamples one
        metric after the other from one generator, so the order changes every metric but the
        first).  Default: every metric of ``result``, in its order (``vecscore.rouge`` keeps
        the order of its ``metrics``, as ``RougeScorer`` keeps its ``rouge_types``).

    Returns
    -------
    RougeIntervals
        A mapping of metric to :class:`AggregateScore` (``low``, ``mid``, ``high``, each a
        ``Score(precision, recall, fmeasure)`` of Python floats).

    Raises
    ------
    VecscoreError
        ``n_samples`` not a positive integer, ``confidence`` not strictly between 0 and 1, a
        result without metrics or without pairs, an unknown metric, arrays of different lengths,
        a bad seed, or more than 2**32 pairs.

    Examples
    --------
    >>> import vecscore
    >>> from vecscore.significance import rouge_bootstrap
    >>> res = vecscore.rouge(["the cat sat", "a dog barked"], ["the cat sat down", "the dog barked"],
    ...                      metrics=["rouge1"])
    >>> ci = rouge_bootstrap(res, n_samples=200, seed=0)
    >>> ci["rouge1"].low.fmeasure <= ci["rouge1"].mid.fmeasure <= ci["rouge1"].high.fmeasure
    True
    """
    n_samples = _check_n_samples(n_samples)
    confidence = _check_confidence(confidence)
    names = _check_metrics(result, metrics)
    columns = [_score_columns(result, m) for m in names]
    n = len(columns[0][0])
    for m, cols in zip(names, columns):
        if len(cols[0]) != n:
            raise VecscoreError(f"metric {m!r} has {len(cols[0])} pairs but {names[0]!r} has {n}; "
                                "every metric of the result must score the same pairs")
    if n == 0:
        raise VecscoreError("rouge_bootstrap needs at least one scored pair; the result is empty")
    if n > 2 ** 32:
        raise VecscoreError(f"rouge_bootstrap resamples at most 2**32 pairs, not {n}")
    rs, write_back, seed_label = _generator(seed)

    draws = n * n_samples * len(names)
    if _mt19937_state(rs) is None or use_plain(True, lambda: 0 if draws <= PLAIN_MAX_DRAWS else float("inf")):
        means = _plain_means(columns, n_samples, rs)
    else:
        means = _compiled_means(columns, n_samples, rs)
    if write_back:
        np.random.set_state(rs.get_state())

    delta = (1 - confidence) / 2
    q = 100 * np.array([delta, 0.5, 1 - delta])
    out = {}
    for m, sample_means in zip(names, means):
        pct = np.percentile(sample_means, q, axis=0)  # (low/mid/high, P/R/F)
        low, mid, high = (Score(*(float(v) for v in pct[j])) for j in range(3))
        out[m] = AggregateScore(low, mid, high)
    base = getattr(result, "signature", "") or "+".join(names)
    signature = f"{base}|ci:rouge-score|bs:{n_samples}|conf:{confidence:g}|seed:{seed_label}"
    return RougeIntervals(out, n_samples, confidence, seed_label, signature)


# --------------------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------------------


def _check_n_samples(n_samples) -> int:
    if isinstance(n_samples, (bool, np.bool_)) or not isinstance(n_samples, numbers.Integral):
        raise VecscoreError(f"n_samples (bootstrap resamples) must be a positive integer, not {n_samples!r}")
    if n_samples < 1:
        raise VecscoreError(f"n_samples (bootstrap resamples) must be at least 1, not {n_samples}")
    return int(n_samples)


def _check_confidence(confidence) -> float:
    if isinstance(confidence, (bool, np.bool_)) or not isinstance(confidence, numbers.Real):
        raise VecscoreError(f"confidence must be a number strictly between 0 and 1 (e.g. 0.95), not {confidence!r}")
    c = float(confidence)
    if not 0.0 < c < 1.0:
        hint = f" (did you mean {c / 100:g}?)" if 1.0 < c < 100.0 else ""
        raise VecscoreError(f"confidence must be strictly between 0 and 1 (e.g. 0.95 for a 95% interval), "
                            f"not {confidence!r}{hint}")
    return c


def _check_metrics(result, metrics) -> list[str]:
    if not isinstance(result, Mapping):
        raise VecscoreError(f"rouge_bootstrap takes per-pair scores (a RougeResult from vecscore.rouge, or a "
                            f"mapping of metric to Score), not {type(result).__name__}")
    available = list(result)
    if metrics is None:
        names = available
    else:
        if isinstance(metrics, str):
            metrics = [metrics]
        names = list(metrics)
        unknown = [m for m in names if m not in result]
        if unknown:
            raise VecscoreError(f"metric(s) {unknown} not in the result, which has {available}")
        dup = sorted({m for m in names if names.count(m) > 1})
        if dup:
            raise VecscoreError(f"metric(s) {dup} given more than once")
    if not names:
        raise VecscoreError("rouge_bootstrap needs at least one metric; the result has none")
    return names


#: one metric's ``(precision, recall, fmeasure)``: 1-D float64 arrays
_Columns = tuple[np.ndarray, np.ndarray, np.ndarray]


def _score_columns(result, metric: str) -> _Columns:
    """``(precision, recall, fmeasure)`` of one metric as 1-D float64 arrays (no copy when they are)."""
    s = result[metric]
    try:
        cols = (np.asarray(s.precision, dtype=np.float64), np.asarray(s.recall, dtype=np.float64),
                np.asarray(s.fmeasure, dtype=np.float64))
    except AttributeError:
        raise VecscoreError(f"result[{metric!r}] has no precision/recall/fmeasure arrays") from None
    for f, c in zip(("precision", "recall", "fmeasure"), cols):
        if c.ndim != 1:
            raise VecscoreError(f"result[{metric!r}].{f} must be one value per pair (1-D), got shape {c.shape}")
    if not (len(cols[0]) == len(cols[1]) == len(cols[2])):
        raise VecscoreError(f"result[{metric!r}] has precision, recall and fmeasure of different lengths")
    return cols


def _score_matrix(cols: _Columns) -> np.ndarray:
    """``(N, 3)`` float64, C-ordered: rouge-score's ``np.vstack`` of the pairs' ``Score(precision, recall,
    fmeasure)``.  Built for one metric at a time."""
    return np.stack(cols, axis=1)


def _generator(seed) -> tuple[np.random.RandomState, bool, str]:
    """``(RandomState to draw from, whether to copy its state back into np.random, seed label)``."""
    if seed is None:
        rs = np.random.RandomState()
        rs.set_state(np.random.get_state())
        return rs, True, "global"
    if isinstance(seed, np.random.RandomState):
        return seed, False, "state"
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise VecscoreError(f"seed must be an int, a numpy.random.RandomState or None (NumPy's global legacy "
                            f"generator, as rouge-score), not {seed!r}")
    if not 0 <= int(seed) < 2 ** 32:
        raise VecscoreError(f"seed must be between 0 and 2**32 - 1 (np.random.seed's range), not {seed}")
    return np.random.RandomState(int(seed)), False, str(int(seed))


def _mt19937_state(rs: np.random.RandomState) -> dict | None:
    state = rs.get_state(legacy=False)
    return state if isinstance(state, dict) and state.get("bit_generator") == "MT19937" else None


# --------------------------------------------------------------------------------------
# the two routes
# --------------------------------------------------------------------------------------


def _chunk(n: int, draws: int) -> int:
    """Resamples per chunk: ``draws`` indices, at least one resample."""
    return max(1, draws // n)


def _plain_means(columns: list[_Columns], n_samples: int, rs: np.random.RandomState) -> list[np.ndarray]:
    """Resample means with NumPy: ``randint`` for ``k`` resamples at once, ``np.mean`` over the pair axis."""
    out = []
    for cols in columns:
        values = _score_matrix(cols)
        n, c = values.shape
        k = min(_chunk(n, PLAIN_CHUNK_DRAWS), n_samples)
        means = np.empty((n_samples, c), np.float64)
        for s0 in range(0, n_samples, k):
            kk = min(k, n_samples - s0)
            idx = rs.randint(0, n, size=(kk, n))
            means[s0:s0 + kk] = np.mean(values[idx], axis=1)
        out.append(means)
        del values
    return out


def _compiled_means(columns: list[_Columns], n_samples: int, rs: np.random.RandomState) -> list[np.ndarray]:
    """Resample means with the kernels; a helper thread draws chunk ``t + 1`` while chunk ``t`` is summed.

    Only one metric's ``(N, 3)`` matrix exists at a time, and two index buffers of ``k * N``.
    """
    from vecscore.kernels.rouge155 import (
        MT_N,
        legacy_randint_fill,
        mt19937_temper_block,
        ordered_sample_means,
    )

    state = _mt19937_state(rs)
    assert state is not None
    mt = np.array(state["state"]["key"], dtype=np.uint32)  # a copy: advanced in place
    buf = np.empty(MT_N, np.uint32)
    mt19937_temper_block(mt, buf)
    pos = [int(state["state"]["pos"])]
    n = len(columns[0][0])
    k = min(_chunk(n, CHUNK_DRAWS), n_samples)
    tasks = [(b, s0, min(k, n_samples - s0)) for b in range(len(columns)) for s0 in range(0, n_samples, k)]
    buffers = [np.empty(k * n, np.uint32) for _ in range(min(2, len(tasks)))]
    outs = [np.empty((n_samples, 3), np.float64) for _ in columns]

    def draw(t: int) -> None:
        # the only code that touches the generator (mt, buf, pos): draws run strictly in task order
        pos[0] = legacy_randint_fill(mt, buf, pos[0], n, buffers[t % 2], tasks[t][2] * n)

    current, values = -1, np.empty((0, 3))
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="vecscore-bootstrap") as pool:
        pending = pool.submit(draw, 0)
        for t, (b, s0, kk) in enumerate(tasks):
            if b != current:
                del values  # the previous metric's matrix goes before the next one is built
                current, values = b, _score_matrix(columns[b])
            pending.result()
            if t + 1 < len(tasks):
                pending = pool.submit(draw, t + 1)
            ordered_sample_means(values, buffers[t % 2], kk, outs[b], s0)
    state["state"] = {"key": mt, "pos": pos[0]}
    rs.set_state(state)
    return outs
