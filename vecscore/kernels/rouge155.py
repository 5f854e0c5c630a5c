"""Kernels specific to ROUGE-1.5.5.pl: ordered sums and its bootstrap.

(The script's ROUGE-L/W clipping budgets from its ROUGE-N token stream are the
``hyp_budget``/``ref_budget`` arguments of
:func:`vecscore.kernels.union_lcs.union_lcs_hits_pairs` and
:func:`vecscore.kernels.wlcs.wlcs_perl_pairs`.)

Ordered sums
------------
:func:`segment_sum_seq` adds each segment left to right, as the script's
``+=`` does (NumPy's reductions may sum pairwise, which can differ in the last
bit; ROUGE-W sums floats over references).

The script's bootstrap
----------------------
:func:`perl_bootstrap_means` reproduces ``bootstrapResampling``: sample ``s``
(``s = 0 .. n_samples - 1``) calls ``srand(s)`` and draws
``int(rand(N))`` ``N`` times.  Perl >= 5.20 implements ``rand`` with its own
``drand48``: ``x_0 = (seed << 16) + 0x330E``, ``x_{k+1} = (0x5DEECE66D x_k + 0xB)
mod 2**48``, ``rand(N) = N * x_{k+1} / 2**48``.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange

__all__ = [
    "segment_sum_seq",
    "perl_bootstrap_means",
]


@jit(parallel=True)
def segment_sum_seq(x, ptr):
    """``x[ptr[i]:ptr[i + 1]].sum()`` for each ``i``, added left to right (float64)."""
    n = len(ptr) - 1
    out = np.zeros(n, np.float64)
    for i in prange(n):
        s = 0.0
        for j in range(ptr[i], ptr[i + 1]):
            s += x[j]
        out[i] = s
    return out


_A = np.uint64(0x5DEECE66D)
_C = np.uint64(0xB)
_MASK48 = np.uint64((1 << 48) - 1)


@jit(parallel=True)
def perl_bootstrap_means(values, n_samples):
    """Perl's ``bootstrapResampling`` sums: ``out[s, c] = sum over N draws of values[idx, c]``.

    ``values`` is ``(N, C)`` float64 in the script's instance order (the
    per-summary keys sorted as strings); draws follow ``srand(s)`` then
    ``int(rand(N))``.  The caller divides (``-t 0``) or forms ratios (``-t 1``).
    """
    N = values.shape[0]
    C = values.shape[1]
    out = np.zeros((n_samples, C), np.float64)
    scale = 1.0 / 281474976710656.0  # 2**-48
    for s in prange(n_samples):
        x = (np.uint64(s) << np.uint64(16)) + np.uint64(0x330E)
        x = x & _MASK48
        for _ in range(N):
            x = (_A * x + _C) & _MASK48
            r = np.int64(np.float64(N) * (np.float64(x) * scale))
            for c in range(C):
                out[s, c] += values[r, c]
    return out
