"""Resampling draws and resampled corpus statistics, as sacreBLEU 2.6 draws them.

sacreBLEU's bootstrap (``--confidence``, ``--paired-bs``) and approximate
randomization (``--paired-ar``) draw from ``numpy.random.default_rng(seed)``:

* bootstrap: ``rng.choice(N, size=(n_samples, N), replace=True)`` -- one row
  of pair indices per resample;
* randomization: ``rng.integers(2, size=(n_trials, N), dtype=bool)`` -- per
  trial and pair, whether the two systems' outputs are kept or swapped; with
  AR confidence estimation a bootstrap ``choice`` follows on the same
  generator.

The functions here make the same calls on the same generator, so the draws
are the same, and turn the per-pair statistics matrix ``(N, S)`` into the
corpus statistics of every resample at once: a count matrix (how often each
pair was drawn in each resample, ``np.bincount`` over offset indices) times
the statistics matrix.

sacreBLEU sums a resample's rows in float32 (``np.array(stats,
dtype='float32')[idxs].sum(0)``).  When every statistic is an integer and
no column can reach 2**24 (``N * max(column) <= 2**24``), every partial sum
is exactly representable in float32, so that sum equals the exact integer
sum the count matrix gives.  Otherwise (e.g. TER's *average* reference
length with several references, which is not an integer) the rows are
gathered and summed sequentially in float32 (``np.cumsum``), the order in
which NumPy reduces ``axis=0`` of a C-ordered array.
"""
from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

__all__ = [
    "DEFAULT_SEED",
    "resolve_seed",
    "bootstrap_indices",
    "randomization_masks",
    "resample_counts",
    "resampled_sums",
    "randomized_sums",
    "float32_exact",
    "Linear",
    "float32_resampler",
    "float64_resampler",
]

#: sacreBLEU's default seed (``SACREBLEU_SEED`` unset)
DEFAULT_SEED = 12345
_FLOAT32_INT_LIMIT = 2 ** 24
#: draws (count-matrix elements) per chunk of resamples: keeps memory bounded for big corpora
CHUNK_ELEMENTS = 1 << 22


def resolve_seed(seed="env") -> tuple[str, int | None]:
    """``(signature string, seed for default_rng)``.

    ``"env"`` (default) reads ``SACREBLEU_SEED`` as sacreBLEU does (unset:
    12345; ``"none"`` in any case: fresh OS entropy, i.e. ``None``).  An int
    is used as given; ``None`` or ``"none"`` draws fresh entropy.
    """
    if isinstance(seed, str):
        if seed == "env":
            seed = os.environ.get("SACREBLEU_SEED", str(DEFAULT_SEED))
        if seed.lower() == "none":
            return "none", None
        return str(int(seed)), int(seed)
    if seed is None:
        return "none", None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, None, 'none' or 'env', not {seed!r}")
    return str(int(seed)), int(seed)


def bootstrap_indices(n_pairs: int, n_samples: int, rng) -> np.ndarray:
    """``(n_samples, n_pairs)`` pair indices: the draw of sacreBLEU's bootstrap on ``rng``."""
    return rng.choice(n_pairs, size=(n_samples, n_pairs), replace=True)


def randomization_masks(n_pairs: int, n_trials: int, rng) -> np.ndarray:
    """``(n_trials, n_pairs)`` bool: sacreBLEU's AR selector (True: the trial's pseudo-system A takes the
    baseline's statistics of that pair, B the system's)."""
    return rng.integers(2, size=(n_trials, n_pairs), dtype=bool)


def resample_counts(idxs: np.ndarray, n_pairs: int) -> np.ndarray:
    """``(rows, n_pairs)`` int64: how often each pair occurs in each row of ``idxs``."""
    idxs = np.asarray(idxs, dtype=np.int64)
    rows = idxs.shape[0]
    offsets = idxs + (np.arange(rows, dtype=np.int64) * n_pairs)[:, None]
    return np.bincount(offsets.ravel(), minlength=rows * n_pairs).reshape(rows, n_pairs)


def float32_exact(stats: np.ndarray) -> bool:
    """True if summing any multiset of ``stats`` rows in float32 (any order) gives the exact sum."""
    stats = np.asarray(stats, dtype=np.float64)
    if stats.size == 0:
        return True
    if not np.array_equal(stats, np.round(stats)):
        return False
    col_max = np.abs(stats).max(axis=0)
    return bool((col_max * stats.shape[0] <= _FLOAT32_INT_LIMIT).all())


def _sequential(values: np.ndarray, idxs: np.ndarray) -> np.ndarray:
    """Row sums of ``values[idxs[k]]`` in ``values.dtype``, left to right, for every ``k``."""
    rows, n = idxs.shape
    out = np.empty((rows, values.shape[1]), values.dtype)
    step = max(1, CHUNK_ELEMENTS // max(1, n * values.shape[1]))
    for lo in range(0, rows, step):
        gathered = values[idxs[lo:lo + step]]  # (chunk, n, S)
        out[lo:lo + step] = np.cumsum(gathered, axis=1, dtype=values.dtype)[:, -1, :]
    return out


def resampled_sums(stats: np.ndarray, idxs: np.ndarray, *, float32: bool = True,
                   counts: np.ndarray | None = None) -> np.ndarray:
    """Corpus statistics of every resample: row ``k`` is ``stats[idxs[k]].sum(0)``.

    ``float32=True`` reproduces sacreBLEU's bootstrap (statistics cast to
    float32 and summed in float32; the result is float32); ``False`` gives
    float64 sums, equal to a left-to-right float64 loop (exact integers below
    2**53 via the count matrix, else a sequential ``cumsum``).  ``counts``:
    :func:`resample_counts` of ``idxs``, when already computed (it is the
    same for every system and metric drawn with the same indices).
    """
    stats = np.asarray(stats)
    if stats.ndim != 2:
        raise ValueError(f"stats must be 2-D (pairs, statistics), got shape {stats.shape}")
    idxs = np.asarray(idxs, dtype=np.int64)
    n = stats.shape[0]
    if idxs.ndim != 2 or idxs.shape[1] == 0:
        raise ValueError(f"idxs must be 2-D (resamples, draws), got shape {idxs.shape}")
    if float32:
        stats32 = stats.astype(np.float32)
        if not float32_exact(stats32) or not float32_exact(stats):
            return _sequential(stats32, idxs)
        values = stats32.astype(np.float64)
    else:
        values = stats.astype(np.float64)
        if not np.array_equal(values, np.round(values)) or np.abs(values).sum(axis=0).max() > 2.0 ** 53:
            return _sequential(values, idxs)  # rounding depends on the order: sum as a loop would
    out = np.empty((idxs.shape[0], stats.shape[1]), np.float64)
    if counts is not None:
        out[:] = counts @ values
        return out.astype(np.float32) if float32 else out
    step = max(1, CHUNK_ELEMENTS // max(1, n))
    for lo in range(0, idxs.shape[0], step):
        chunk = resample_counts(idxs[lo:lo + step], n)
        out[lo:lo + step] = chunk.astype(np.float64) @ values
    return out.astype(np.float32) if float32 else out


class Linear(NamedTuple):
    """A resampler whose chunk of sums is ``counts @ values`` (then cast to ``dtype``): resamplers of the same
    ``values.dtype`` are stacked into one matrix product per chunk of resamples."""

    values: np.ndarray
    dtype: type


def float32_resampler(stats: np.ndarray):
    """:func:`resampled_sums` of ``stats`` (sacreBLEU's float32 sums), with the choice of path made once:
    a :class:`Linear` (float32 products: every partial sum is an integer below 2**24, so exact) when
    :func:`float32_exact` holds, else ``f(idxs, counts)`` summing the gathered rows in float32 in order."""
    stats = np.asarray(stats)
    stats32 = stats.astype(np.float32)
    if float32_exact(stats32) and float32_exact(stats) and len(stats) <= _FLOAT32_INT_LIMIT:
        return Linear(np.ascontiguousarray(stats32), np.float32)
    from vecscore.route import route

    if route() == "plain":
        return lambda idxs, counts: _sequential(stats32, np.asarray(idxs, dtype=np.int64))
    from vecscore.kernels.significance import float32_resample_sums

    values = np.ascontiguousarray(stats32)

    def compiled(idxs, counts):
        out = np.empty((idxs.shape[0], values.shape[1]), np.float32)
        float32_resample_sums(values, np.ascontiguousarray(idxs, dtype=np.int64), out)
        return out

    return compiled


def float64_resampler(stats: np.ndarray):
    """``counts @ stats`` in float64 (a dot product per resample and column), as a :class:`Linear`."""
    return Linear(np.ascontiguousarray(stats, dtype=np.float64), np.float64)


def randomized_sums(bl_stats: np.ndarray, sys_stats: np.ndarray, masks: np.ndarray):
    """``(A, B)``: statistics of the AR pseudo-systems of every trial, as sacreBLEU builds them
    (``pos @ baseline + neg @ system`` and ``neg @ baseline + pos @ system``), in float64."""
    bl = np.asarray(bl_stats, dtype=np.float64)
    sy = np.asarray(sys_stats, dtype=np.float64)
    pos = np.asarray(masks, dtype=bool)
    neg = ~pos
    integral = float32_exact(bl) and float32_exact(sy)  # integers, tiny sums: any order is exact
    if integral:
        posf = pos.astype(np.float64)
        negf = neg.astype(np.float64)
        return posf @ bl + negf @ sy, negf @ bl + posf @ sy
    # the very expressions sacreBLEU evaluates (bool @ float64), so the same rounding
    return pos @ bl + neg @ sy, neg @ bl + pos @ sy
