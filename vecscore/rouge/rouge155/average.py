"""The averages ROUGE-1.5.5.pl prints (bootstrap means) and their confidence intervals, bit for bit.

For each metric the script (``computeAverages``) draws ``-r`` bootstrap samples (sample ``i``
after ``srand(i)``, :mod:`vecscore.kernels.rouge155`), each giving R, P and F (``-t 0``: the
means of the per-summary values; ``-t 1``: ratios of the pooled counts).  Per column it sorts
the samples (numerically, ascending) and prints

* ``Average``: their sum, added in sorted order, divided by their number;
* the ``-c`` interval: with ``R`` samples, ``delta = R * ((100 - c) / 2.0) / 100.0``,
  ``ua = int(R - delta - 1)``, ``la = int(delta)`` and ``ratio = R - delta - 1 - ua``,
  ``low = s[la] + (s[la + 1] - s[la]) * ratio`` and ``high = s[ua] + (s[ua + 1] - s[ua]) *
  ratio`` (the script interpolates both bounds with the upper bound's ratio; an index past
  the last sample reads Perl's ``undef``, i.e. 0).  With ``R = 1000`` and ``c = 95``:
  ``low = s[25]``, ``high = s[974]`` (0-based).

every value through ``sprintf("%7.5f")``.  :func:`perl_average` returns the averages,
:func:`perl_intervals` the averages with both bounds.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.rouge.results import RougeResult, Score
from vecscore.rouge.rouge155.plain_bootstrap import (
    perl_bootstrap_means as _plain_bootstrap,
)
from vecscore.rouge.rouge155.rounding import perl_round5
from vecscore.route import use_plain

__all__ = ["perl_average", "perl_intervals", "pooled_score", "PerlInterval", "PLAIN_MAX_BOOTSTRAP_PAIRS"]

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


class PerlInterval(NamedTuple):
    """One metric's printed ``Average_R/P/F`` and ``-c`` interval bounds, each a
    :class:`~vecscore.rouge.results.Score` (``precision``, ``recall``, ``fmeasure``) of floats
    rounded to 5 decimals as printed: the line ``Average_R: <average.recall>
    (95%-conf.int. <low.recall> - <high.recall>)``."""

    average: Score
    low: Score
    high: Score

    def to_dict(self) -> dict:
        """``{"average": {...}, "low": {...}, "high": {...}}``, each ``Score.to_dict()`` (Python floats)."""
        return {name: Score(*s).to_dict() for name, s in zip(self._fields, self)}


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

    See Also
    --------
    perl_intervals : the same averages with the printed confidence intervals.
    """
    n, order = _instances(result, eval_ids, peer_id)
    _check_t(t)
    out = {}
    for name in result.scores:
        if n_samples <= 0 or n == 0:
            out[name] = _exact(result, name, t, alpha, order, n)
        else:
            r, p, f = _resampled(result, name, t, int(n_samples), alpha, order, n)
            out[name] = Score(_sorted_mean(p), _sorted_mean(r), _sorted_mean(f))
    return out


def perl_intervals(
    result: RougeResult,
    *,
    t: int = 0,
    n_samples: int = 1000,
    c: float = 95,
    alpha: float = 0.5,
    eval_ids: Sequence[str] | None = None,
    peer_id: str = "1",
) -> dict[str, PerlInterval]:
    """The script's ``Average_R/P/F`` lines with their confidence intervals, bit for bit.

    ``perl_intervals(res)["rouge1"]`` holds the numbers of the lines ``1 ROUGE-1 Average_R:
    0.41234 (95%-conf.int. 0.38000 - 0.44000)`` (and ``_P``, ``_F``) that ``ROUGE-1.5.5.pl -c 95
    -r 1000`` prints for the system (see the module docstring for the interval's rule).

    Parameters
    ----------
    result : RougeResult
        Per-summary scores of one system from :func:`rouge155` (rounded to 5 decimals here if
        they are not already).
    t : {0, 1}
        The script's ``-t`` (0: per-summary averages; 1: pooled counts).  ``-t 2`` prints no
        interval.
    n_samples : int
        ``-r``: bootstrap samples, at least 1 (with ``-r 0`` the script dies dividing by zero).
    c : float
        ``-c``: the interval's coverage in percent, 0 to 100 (default 95).
    alpha : float
        ``-p``, for ``t=1``.
    eval_ids : sequence of str, optional
        The ``<EVAL ID>`` of each pair (default ``"1"``, ``"2"``, ...), which decides the order
        the bootstrap draws from (see :func:`perl_average`).
    peer_id : str
        The peer (system) ID.

    Returns
    -------
    dict of str to PerlInterval
        Per metric ``average``, ``low`` and ``high``, each a ``Score`` of Python floats rounded
        to 5 decimals as printed; ``average`` equals :func:`perl_average`'s.

    Raises
    ------
    VecscoreError
        ``n_samples`` not a positive integer, ``c`` outside 0..100, ``t`` not 0 or 1, an empty
        result, or ``eval_ids`` of the wrong length.

    Examples
    --------
    >>> from vecscore import rouge155
    >>> res = rouge155(["the cat sat on the mat", "a dog barked"], [["the cat sat"], ["the dog barked loudly"]],
    ...                metrics=["rouge1"])
    >>> iv = perl_intervals(res, n_samples=100)["rouge1"]
    >>> iv.low.recall <= iv.average.recall <= iv.high.recall
    True
    """
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
        raise VecscoreError(f"n_samples (the script's -r, bootstrap samples) must be a positive integer, "
                            f"not {n_samples!r}")
    if isinstance(c, bool) or not isinstance(c, (int, float, np.integer, np.floating)) or not 0 <= c <= 100:
        raise VecscoreError(f"c (the script's -c) must be a confidence level in percent between 0 and 100 "
                            f"(e.g. 95), not {c!r}")
    n, order = _instances(result, eval_ids, peer_id)
    _check_t(t)
    if n == 0 or not result.scores:
        raise VecscoreError("perl_intervals needs at least one scored summary; the result is empty")
    out = {}
    for name in result.scores:
        r, p, f = _resampled(result, name, t, int(n_samples), alpha, order, n)
        bounds = [_perl_bounds(x, c) for x in (p, r, f)]
        out[name] = PerlInterval(
            average=Score(_sorted_mean(p), _sorted_mean(r), _sorted_mean(f)),
            low=Score(*(b[0] for b in bounds)),
            high=Score(*(b[1] for b in bounds)),
        )
    return out


def _instances(result: RougeResult, eval_ids, peer_id) -> tuple[int, np.ndarray]:
    """``(N, order)``: the script's instance order, the keys ``"<eval id>.<peer id>"`` sorted as strings."""
    n = result.n_pairs
    ids = [str(i + 1) for i in range(n)] if eval_ids is None else [str(x) for x in eval_ids]
    if len(ids) != n:
        raise VecscoreError(f"eval_ids has {len(ids)} entries for {n} pairs")
    return n, np.array(sorted(range(n), key=lambda i: f"{ids[i]}.{peer_id}"), dtype=np.int64)


def _check_t(t) -> None:
    if t not in (0, 1):
        raise VecscoreError("t must be 0 (average of per-summary scores) or 1 (pooled counts); -t 2 prints "
                            "the sums of result.stats")


def _exact(result: RougeResult, name: str, t: int, alpha: float, order: np.ndarray, n: int) -> Score:
    """``n_samples=0``: the exact mean (``t=0``) or pooled ratios (``t=1``), rounded as printed."""
    if t == 0:
        s = result.scores[name]
        cols = np.stack([perl_round5(s.recall), perl_round5(s.precision), perl_round5(s.fmeasure)], axis=1)[order]
        r, p, f = [_round5(np.cumsum(cols[:, c])[-1] / n) if n else 0.0 for c in range(3)]
        return Score(p, r, f)
    st = result.stats[name]
    cols = np.stack([np.asarray(st.r_den, np.float64), np.asarray(st.p_den, np.float64),
                     np.asarray(st.hits, np.float64)], axis=1)[order]
    tot = cols.sum(axis=0) if n else np.zeros(3)
    return pooled_score(tot[2], tot[1], tot[0], alpha)


def pooled_score(hits: float, p_den: float, r_den: float, alpha: float = 0.5) -> Score:
    """The script's ``-t 1`` average without resampling, from summed statistics (rounded as printed)."""
    R, P = _pool(hits, r_den), _pool(hits, p_den)
    r, p, f = (_round5(x) for x in (R, P, _f(P, R, alpha)))
    return Score(p, r, f)


def _resampled(result: RougeResult, name: str, t: int, n_samples: int, alpha: float, order: np.ndarray,
               n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The script's ``n_samples`` bootstrap samples of one metric: arrays R, P, F (unsorted, sample order)."""
    if t == 0:
        s = result.scores[name]
        cols = np.stack([perl_round5(s.recall), perl_round5(s.precision), perl_round5(s.fmeasure)], axis=1)[order]
        sums = _bootstrap(np.ascontiguousarray(cols), n_samples) / n
        return sums[:, 0], sums[:, 1], sums[:, 2]
    st = result.stats[name]
    cols = np.stack([np.asarray(st.r_den, np.float64), np.asarray(st.p_den, np.float64),
                     np.asarray(st.hits, np.float64)], axis=1)[order]
    sums = _bootstrap(np.ascontiguousarray(cols), n_samples)
    R = np.array([_pool(h, m) for m, h in zip(sums[:, 0], sums[:, 2])], dtype=np.float64)
    P = np.array([_pool(h, q) for q, h in zip(sums[:, 1], sums[:, 2])], dtype=np.float64)
    F = np.array([_f(pp, rr, alpha) for pp, rr in zip(P, R)], dtype=np.float64)
    return R, P, F


def _round5(x) -> float:
    """``sprintf("%7.5f", x)`` of one number, read back."""
    return float(perl_round5(x))


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
    return _round5(float(np.cumsum(x)[-1]) / len(x))


def _perl_bounds(x: np.ndarray, c: float) -> tuple[float, float]:
    """The script's ``-c`` interval of the samples ``x``: ``(low, high)`` rounded as printed."""
    s = np.sort(np.asarray(x, np.float64))
    k = len(s)

    def at(i: int) -> float:  # past the last sample Perl reads undef, which is 0 as a number
        return float(s[i]) if i < k else 0.0

    delta = k * ((100 - c) / 2.0) / 100.0
    ua = int(k - delta - 1)  # Perl's int() truncates toward 0; k - delta - 1 >= -0.5, so ua >= 0
    la = int(delta)
    ratio = k - delta - 1 - ua
    low = at(la) + (at(la + 1) - at(la)) * ratio
    high = at(ua) + (at(ua + 1) - at(ua)) * ratio
    return _round5(low), _round5(high)
