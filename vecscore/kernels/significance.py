"""Kernels of the significance tests: BLEU of many summed-statistics rows (resamples, AR trials).

sacreBLEU computes a resample's BLEU with Python's ``math.exp``/``math.log`` (the C library's); NumPy's
SIMD ``exp``/``log`` can differ from them in the last bit, so many rows go through this loop, whose
``math.exp``/``math.log`` numba compiles to calls of the same C library functions (unless numba
vectorizes them with Intel's SVML: the caller then keeps NumPy and a Python loop,
:func:`vecscore.significance.scores.bleu_rows`, which is also this kernel's plain twin in the tests).
"""
from __future__ import annotations

import math

import numpy as np

from vecscore._jit import jit, prange
from vecscore.kernels.pysum import sum_add, sum_result

__all__ = ["bleu_rows_scores", "float32_resample_sums"]


@jit
def bleu_rows_scores(sys_len, ref_len, correct, total, smooth, smooth_add, floor_value, hundred, effective_order,
                     neumaier, out):
    """sacreBLEU's ``BLEU._compute_score_from_stats`` for every row: ``correct``/``total`` ``(rows, k)`` in the
    precision dtype (float32 for bootstrap sums, float64 otherwise), ``sys_len``/``ref_len`` float64 (truncated
    to integers), ``smooth`` 0 ``none``, 1 ``floor``, 2 ``add-k``, 3 ``exp``; ``smooth_add`` (add-k's value),
    ``floor_value`` (``100 * floor``) and ``hundred`` in the precision dtype; ``neumaier``: sum the log
    precisions as builtin ``sum()`` does on this Python (:data:`vecscore.kernels.pysum.NEUMAIER`).  Each
    operation is sacreBLEU's, in its dtype and order; ``out`` (float64) gets the scores."""
    rows, k = correct.shape
    prec = np.empty(k, dtype=np.float64)
    for r in range(rows):
        matched = False
        for n in range(k):
            if correct[r, n] != 0:
                matched = True
        out[r] = 0.0
        if not matched:
            continue
        alive = True
        eff = k
        zeros = 0
        mteval = hundred / hundred  # 1 in the precision dtype
        for n in range(k):
            c = correct[r, n]
            t = total[r, n]
            if smooth == 2 and n > 0:
                c = c + smooth_add
                t = t + smooth_add
            alive = alive and t != 0
            if effective_order and alive:
                eff = n + 1
            if not alive:
                prec[n] = 0.0
                continue
            if c == 0:
                if smooth == 3:
                    zeros += 1
                    mteval = mteval + mteval
                    prec[n] = hundred / (mteval * t)
                elif smooth == 1:
                    prec[n] = floor_value / t
                else:
                    prec[n] = 0.0
            else:
                prec[n] = (hundred * c) / t
        live = True
        for n in range(eff):
            if prec[n] == 0.0:
                live = False
        if not live:
            continue
        s = sys_len[r]
        if s < ref_len[r]:
            bp = math.exp(1 - ref_len[r] / s) if s > 0 else 0.0
        else:
            bp = 1.0
        acc = 0.0
        comp = 0.0
        for n in range(eff):
            acc, comp = sum_add(acc, comp, math.log(prec[n]), neumaier)
        out[r] = bp * math.exp(sum_result(acc, comp, neumaier) / eff)


@jit(parallel=True)
def float32_resample_sums(values, idxs, out):
    """``out[r] = values[idxs[r]].sum(0)`` in float32, row after row in draw order (sacreBLEU's float32 sum
    of a resample, whose rounding depends on that order once a column's partial sums pass 2**24)."""
    rows, n = idxs.shape
    width = values.shape[1]
    for r in prange(rows):
        acc = np.zeros(width, dtype=np.float32)
        for i in range(n):
            row = idxs[r, i]
            for c in range(width):
                acc[c] += values[row, c]
        for c in range(width):
            out[r, c] = acc[c]
