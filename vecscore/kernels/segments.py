"""Small kernels over segments (the references of each pair)."""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange


@jit(parallel=True)
def segment_argmax(values, ptr):
    """Index of the first maximum of ``values[ptr[i]:ptr[i + 1]]`` for each ``i``.

    Ties go to the first (as ``numpy.argmax``); empty segments give ``-1``.
    """
    n = len(ptr) - 1
    out = np.empty(n, np.int64)
    for i in prange(n):
        best = -1
        for j in range(ptr[i], ptr[i + 1]):
            if best == -1 or values[j] > values[best]:
                best = j
        out[i] = best
    return out


@jit(parallel=True)
def segment_argmax_excluding(values, ptr, exclude):
    """As :func:`segment_argmax`, skipping index ``exclude[i]`` in segment ``i``."""
    n = len(ptr) - 1
    out = np.empty(n, np.int64)
    for i in prange(n):
        best = -1
        for j in range(ptr[i], ptr[i + 1]):
            if j == exclude[i]:
                continue
            if best == -1 or values[j] > values[best]:
                best = j
        out[i] = best
    return out
