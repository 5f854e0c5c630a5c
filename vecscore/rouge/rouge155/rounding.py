"""Rounding as ROUGE-1.5.5 prints: Perl's ``sprintf("%7.5f")``."""
from __future__ import annotations

import numpy as np

__all__ = ["perl_round5"]


def perl_round5(x) -> np.ndarray:
    """Round to 5 decimals exactly as Perl's ``sprintf("%7.5f", x)`` then read back as a number.

    ``sprintf`` rounds the exact binary value (ties to even); ``np.round``
    rounds ``x * 1e5``, which can differ when that product lands on a tie.
    Values near a tie are formatted by Python (the same correctly rounded
    conversion); the rest are vectorized.

    Examples
    --------
    >>> perl_round5([0.015625, 2 / 3, 0.123455, 1.0]).tolist()
    [0.01562, 0.66667, 0.12345, 1.0]
    >>> float(perl_round5(0.203805))  # a scalar gets the same correction
    0.2038
    """
    scalar = np.ndim(x) == 0
    x = np.atleast_1d(np.asarray(x, dtype=np.float64))
    s = x * 1e5
    out = np.floor(s + 0.5) / 1e5
    near = np.flatnonzero(np.abs(s - np.floor(s) - 0.5) < 1e-6)
    if near.size:
        flat = out.reshape(-1)
        src = x.reshape(-1)
        for i in near.tolist():
            flat[i] = float("%.5f" % src[i])
    return out[0] if scalar else out
