"""ROUGE-1.5.5.pl's bootstrap sums (``bootstrapResampling``) in NumPy.

The same numbers as :func:`vecscore.kernels.rouge155.perl_bootstrap_means`
(whose module docstring gives the script's ``srand``/``rand``, Perl's
``drand48``): the ``n_samples`` generators advance together, one draw of
every sample per step, so each sample's sums are added in draw order as the
kernel adds them.
"""
from __future__ import annotations

import numpy as np

__all__ = ["perl_bootstrap_means"]

_A = np.uint64(0x5DEECE66D)
_C = np.uint64(0xB)
_MASK48 = np.uint64((1 << 48) - 1)


def perl_bootstrap_means(values, n_samples: int) -> np.ndarray:
    """``out[s, c]``: the sum of ``values[idx, c]`` over the ``N`` draws ``idx = int(rand(N))`` after
    ``srand(s)``, for ``s = 0 .. n_samples - 1`` (``values``: ``(N, C)`` float64)."""
    values = np.asarray(values, np.float64)
    n = values.shape[0]
    out = np.zeros((n_samples, values.shape[1]), np.float64)
    x = ((np.arange(n_samples, dtype=np.uint64) << np.uint64(16)) + np.uint64(0x330E)) & _MASK48
    scale = 1.0 / 281474976710656.0  # 2**-48
    for _ in range(n):
        x = (_A * x + _C) & _MASK48  # uint64 arithmetic wraps modulo 2**64, a multiple of 2**48
        idx = (np.float64(n) * (x.astype(np.float64) * scale)).astype(np.int64)
        out += values[idx]
    return out
