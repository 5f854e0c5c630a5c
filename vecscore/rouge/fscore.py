"""Precision, recall and F from integer statistics; the zero-denominator policy.

Policy (rouge-score's): a precision or recall whose denominator is zero is
0.0, and F is 0.0 when precision + recall is 0.  Outputs are always float64.

F weighting:

* default: F1 computed as rouge-score does, ``2 * p * r / (p + r)``, in the
  same operation order, so results are bit-identical;
* ``alpha`` (ROUGE-1.5.5 ``-p``): ``F = p * r / ((1 - alpha) * p + alpha * r)``;
  alpha -> 1 weighs precision, alpha -> 0 recall;
* ``beta``: ``F = (1 + beta**2) * p * r / (beta**2 * p + r)``; equivalent to
  ``alpha = 1 / (1 + beta**2)``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["safe_ratio", "f_measure"]


def safe_ratio(num, den) -> np.ndarray:
    """``num / max(den, 1)`` as float64: 0.0 where the denominator is 0."""
    num = np.asarray(num, dtype=np.float64)
    den = np.maximum(np.asarray(den, dtype=np.float64), 1.0)
    return num / den


def f_measure(p: npt.ArrayLike, r: npt.ArrayLike, alpha=None, beta=None) -> np.ndarray:
    p = np.asarray(p, dtype=np.float64)
    r = np.asarray(r, dtype=np.float64)
    out = np.zeros(np.broadcast(p, r).shape, np.float64)
    if alpha is None and beta is None:
        den = p + r
        ok = den > 0
        np.divide(2 * p * r, den, out=out, where=ok)
        return out
    if beta is not None:
        b2 = float(beta) ** 2
        den = b2 * p + r
        ok = den > 0
        np.divide((1 + b2) * p * r, den, out=out, where=ok)
        return out
    a = float(alpha)
    den = (1 - a) * p + a * r
    ok = den > 0
    np.divide(p * r, den, out=out, where=ok)
    return out
