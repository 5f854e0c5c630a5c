"""Exact, order-independent sums of float64 values.

A float64 ``x`` times ``2**1127`` is an integer, so the exact sum of many
values is one Python integer: each value is split (``numpy.frexp``) into an
integer mantissa and an exponent, the mantissas' 27- and 26-bit halves are
summed per exponent with ``numpy.bincount`` (float64 sums of integers below
2**53, exact for up to 2**25 values a call) and folded into the integer.
The mean is that integer divided by ``n * 2**1127`` with Python's correctly
rounded integer division: the exact mean rounded once, whatever the order,
chunking or sharding of the values.
"""
from __future__ import annotations

import numpy as np

__all__ = ["ExactSum", "exact_mean"]

_SCALE_BITS = 1127  # x * 2**1127 is an integer for every finite float64
_SLICE = 1 << 25  # bincount of integers < 2**27 stays exact in float64 up to 2**26 values


class ExactSum:
    """The exact sum of float64 values, mergeable, independent of order and grouping.

    Examples
    --------
    >>> s = ExactSum(); s.add([0.1] * 10); s.add([1e100, -1e100])
    >>> s.value() == 1.0, s.mean(10) == 0.1
    (True, True)
    """

    __slots__ = ("_int", "_special", "count")

    def __init__(self) -> None:
        self._int = 0  # the sum of the finite values times 2**_SCALE_BITS
        self._special: float | None = None  # sum of NaN/inf values (IEEE; order-independent)
        self.count = 0

    def add(self, values) -> None:
        x = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
        self.count += len(x)
        if len(x) == 0:
            return
        finite = np.isfinite(x)
        if not finite.all():
            bad = float(np.sum(x[~finite]))
            self._special = bad if self._special is None else self._special + bad
            x = x[finite]
        for start in range(0, len(x), _SLICE):
            self._int += _exact_int_sum(x[start : start + _SLICE])

    def merge(self, other: ExactSum) -> None:
        self._int += other._int
        self.count += other.count
        if other._special is not None:
            self._special = other._special if self._special is None else self._special + other._special

    def value(self) -> float:
        """The exact sum, rounded once to float64."""
        return self._finish(1)

    def mean(self, n: int | None = None) -> float:
        """The exact sum divided by ``n`` (default: the number of values added), rounded once; NaN for none."""
        n = self.count if n is None else n
        return float("nan") if n == 0 else self._finish(n)

    def _finish(self, n: int) -> float:
        try:
            v = self._int / (n << _SCALE_BITS)
        except OverflowError:
            v = float("inf") if self._int > 0 else float("-inf")
        return v if self._special is None else v + self._special


def _exact_int_sum(x: np.ndarray) -> int:
    mant, exp = np.frexp(x)
    m = (mant * 9007199254740992.0).astype(np.int64)  # 2**53: an exact integer mantissa
    idx = exp.astype(np.int64) + (_SCALE_BITS - 53)  # x * 2**1127 = m << idx, idx >= 1
    hi = np.bincount(idx, weights=(m >> 26).astype(np.float64))
    lo = np.bincount(idx, weights=(m & 0x3FFFFFF).astype(np.float64))
    total = 0
    for k in np.flatnonzero((hi != 0) | (lo != 0)).tolist():
        total += ((int(hi[k]) << 26) + int(lo[k])) << k
    return total


def exact_mean(values) -> float:
    """The exact mean of ``values`` rounded once to float64 (NaN when empty: a mean of nothing is undefined)."""
    s = ExactSum()
    s.add(values)
    return s.mean()
