"""The averages ROUGE-1.5.5.pl prints (bootstrap means), reproduced bit for bit."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.rouge.results import RougeResult, Score
from vecscore.rouge.rouge155.plain_bootstrap import (
    perl_bootstrap_means as _plain_bootstrap,
)
from vecscore.rouge.rouge155.rounding import perl_round5
from vecscore.route import use_plain

__all__ = ["perl_average", "PLAIN_MAX_BOOTSTRAP_PAIRS"]

#: summaries up to which ``VECSCORE_ROUTE=auto`` draws the bootstrap samples in NumPy
#: (:mod:`vecscore.rouge.rouge155.plain_bootstrap`, about 20 ms per 1,000 summaries at 1,000 samples)
#: rather than with the compiled kernel (which compiles on its first call in a fresh environment)
PLAIN_MAX_BOOTSTRAP_PAIRS = 20_000


def _bootstrap(values: np.ndarray, n_samples: int) -> np.ndarray:
    """The script's bootstrap sums of ``values`` (``(N, C)``): NumPy for small ``N``, else the kernel."""
    n = values.shape[0]
    if use_plain(True, lambda: 0 if n <= PLAIN_MAX_BOOTSTRAP_PAIRS else float("inf")):
        return _plain_bootstrap(values, n_samples)
    from vecscore.kernels.rouge155 import perl_bootstrap_means

    return perl_bootstrap_means(values, n_samples)


def perl_average(
    result: RougeResult,
    *,
    t: int = 0,
    n_samples: int = 1000,
    alpha: float = 0.5,
    eval_ids: Sequence[str] | None = None,
    peer_id: str = "1",
) -> dict[str, Score]:
    """The script's ``Average_R/P/F`` for one system, bit for bit.

    Parameters
    ----------
    result : RougeResult
        Per-summary scores of one system from :func:`rouge155` (rounded to 5
        decimals here if they are not already, as the script averages its
        printed per-summary values).
    t : {0, 1}
        The script's ``-t``: 0 averages per-summary scores, 1 pools the counts
        (``result.stats``; ROUGE-W ratios are not passed through ``f^-1``).
    n_samples : int
        ``-r``: bootstrap samples.  The printed average is the mean of the
        sample means; ``0`` gives the exact mean (``t=0``, of the rounded
        per-summary values) or the exact pooled ratios (``t=1``).
    alpha : float
        ``-p``, for ``t=1``.
    eval_ids : sequence of str, optional
        The ``<EVAL ID>`` of each pair (default ``"1"``, ``"2"``, ...): the
        script orders summaries by the string ``"<eval id>.<peer id>"``, which
        decides which summary each bootstrap draw picks.
    peer_id : str
        The peer (system) ID, part of that string.

    Returns
    -------
    dict of str to Score
        Python floats, rounded to 5 decimals as printed.
    """
    n = result.n_pairs
    ids = [str(i + 1) for i in range(n)] if eval_ids is None else [str(x) for x in eval_ids]
    if len(ids) != n:
        raise VecscoreError(f"eval_ids has {len(ids)} entries for {n} pairs")
    order = np.array(sorted(range(n), key=lambda i: f"{ids[i]}.{peer_id}"), dtype=np.int64)
    if t not in (0, 1):
        raise VecscoreError("t must be 0 (average of per-summary scores) or 1 (pooled counts); -t 2 prints "
                            "the sums of result.stats")
    out = {}
    for name, s in result.scores.items():
        if t == 0:
            cols = np.stack([perl_round5(s.recall), perl_round5(s.precision), perl_round5(s.fmeasure)], axis=1)[order]
            if n_samples <= 0 or n == 0:
                vals = [float(perl_round5(np.cumsum(cols[:, c])[-1] / n)) if n else 0.0 for c in range(3)]
            else:
                sums = _bootstrap(np.ascontiguousarray(cols), int(n_samples)) / n
                vals = [_sorted_mean(sums[:, c]) for c in range(3)]
            r, p, f = vals
        else:
            st = result.stats[name]
            cols = np.stack([np.asarray(st["r_den"], np.float64), np.asarray(st["p_den"], np.float64),
                             np.asarray(st["hits"], np.float64)], axis=1)[order]
            if n_samples <= 0 or n == 0:
                tot = cols.sum(axis=0) if n else np.zeros(3)
                R, P = _pool(tot[2], tot[0]), _pool(tot[2], tot[1])
                r, p, f = (float(perl_round5(x)) for x in (R, P, _f(P, R, alpha)))
            else:
                sums = _bootstrap(np.ascontiguousarray(cols), int(n_samples))
                R = np.array([_pool(h, m) for m, h in zip(sums[:, 0], sums[:, 2])])
                P = np.array([_pool(h, q) for q, h in zip(sums[:, 1], sums[:, 2])])
                F = np.array([_f(pp, rr, alpha) for pp, rr in zip(P, R)])
                r, p, f = _sorted_mean(R), _sorted_mean(P), _sorted_mean(F)
        out[name] = Score(p, r, f)
    return out


def _pool(h, d):
    return h / d if d > 0 else 0.0


def _f(p, r, alpha):
    den = (1 - alpha) * p + alpha * r
    return (r * p) / den if den > 0 else 0.0


def _sorted_mean(x: np.ndarray) -> float:
    """The script's mean of the sorted samples (summed in order), rounded as printed."""
    x = np.sort(np.asarray(x, np.float64))
    if len(x) == 0:
        return 0.0
    return float(perl_round5(float(np.cumsum(x)[-1]) / len(x)))
