"""Scores of many corpus-statistics rows at once, with sacreBLEU's float types.

sacreBLEU scores its bootstrap resamples from **float32** sums
(``_compute_score_from_stats`` on a float32 row), and NumPy 2's promotion
rules (a Python float or int next to a float32 scalar stays float32) make
part of each formula run in float32:

* BLEU: the n-gram precisions are float32 (``100. * correct / total``); the
  brevity penalty, ``log``, the sum and ``exp`` are float64 (Python floats),
  so the score is a Python float;
* chrF: precision, recall, F and the averages are all float32: the scores
  are float32;
* TER: ``edits / ref_length`` and ``100 *`` are float32.

Approximate randomization scores int64 (float64 for TER) rows, i.e. float64
throughout, as for the actual corpus score.

Every elementwise operation below is the one sacreBLEU performs, in its
order, in the same dtype (IEEE-754 rounds it the same way whether NumPy
applies it to a scalar or an array).  ``log``/``exp`` go through Python's
``math`` (libm), as in sacreBLEU, because NumPy's SIMD ``exp``/``log`` can
differ in the last bit; that is a loop over the resamples doing a handful of
scalar operations each, never per-pair work (compiled for many rows, with the
same C library calls: :mod:`vecscore.kernels.significance`).
"""
from __future__ import annotations

import math

import numpy as np

from vecscore import built

__all__ = ["bleu_rows", "chrf_rows", "ter_rows"]

_SMOOTH_DEFAULTS = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}
_EPS = 1e-16  # chrF's epsilon (a Python float in sacreBLEU)

#: rows from which BLEU's last step runs compiled (:mod:`vecscore.kernels.significance`) rather than as a
#: Python loop: below it, loading numba would cost more than the loop
KERNEL_MIN_ROWS = 5000


def bleu_rows(sums: np.ndarray, *, max_ngram_order: int = 4, smooth_method: str = "exp",
              smooth_value=None, effective_order: bool = False) -> np.ndarray:
    """BLEU of every row of ``sums`` (``[sys_len, ref_len, correct_1..K, total_1..K]``), float64.

    The dtype of ``sums`` (float32 for bootstrap, int64/float64 for AR) sets
    the precision dtype, as in sacreBLEU.
    """
    sums = np.asarray(sums)
    k = int(max_ngram_order)
    if smooth_value is None:
        smooth_value = _SMOOTH_DEFAULTS[smooth_method]
    pdt = np.float32 if sums.dtype == np.float32 else np.float64
    rows = sums.shape[0]
    sys_len = np.trunc(sums[:, 0].astype(np.float64))  # int(stats[0])
    ref_len = np.trunc(sums[:, 1].astype(np.float64))
    correct = sums[:, 2:2 + k].astype(pdt)
    total = sums[:, 2 + k:2 + 2 * k].astype(pdt)

    if rows >= KERNEL_MIN_ROWS and _libm_kernel():
        from vecscore.kernels.pysum import NEUMAIER
        from vecscore.kernels.significance import bleu_rows_scores

        out = np.zeros(rows)
        code = {"none": 0, "floor": 1, "add-k": 2, "exp": 3}[smooth_method]
        add = pdt(smooth_value) if smooth_method == "add-k" else pdt(0.0)
        floor = pdt(100.0 * smooth_value) if smooth_method == "floor" else pdt(0.0)
        bleu_rows_scores(sys_len, ref_len, np.ascontiguousarray(correct), np.ascontiguousarray(total), code, add,
                         floor, pdt(100.0), bool(effective_order), NEUMAIER, out)
        return out
    matched = (correct != 0).any(axis=1)  # sacreBLEU's early stop: nothing matched -> 0.0
    prec = np.zeros((rows, k), pdt)
    alive = np.ones(rows, bool)
    eff = np.full(rows, k, np.int64)
    zeros = np.zeros(rows, np.int64)  # exp smoothing: zero-match orders so far
    hundred = pdt(100.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for n in range(k):
            c = correct[:, n]
            t = total[:, n]
            if smooth_method == "add-k" and n > 0:
                c = c + pdt(smooth_value)  # correct[n-1] += smooth_value, in the row's dtype
                t = t + pdt(smooth_value)
            alive &= t != 0
            if effective_order:
                eff = np.where(alive, n + 1, eff)
            zero = alive & (c == 0)
            value = (hundred * c) / t
            if smooth_method == "exp":
                zeros = zeros + zero
                mteval = np.ldexp(1.0, zeros).astype(pdt)  # 2 ** zeros, exact in float32
                value = np.where(zero, hundred / (mteval * t), value)
            elif smooth_method == "floor":
                value = np.where(zero, pdt(100.0 * smooth_value) / t, value)
            else:
                value = np.where(zero, pdt(0.0), value)
            prec[:, n] = np.where(alive, value, pdt(0.0))

    score = np.zeros(rows)
    used = np.arange(k)[None, :] < eff[:, None]
    live = matched & ~((prec == 0) & used).any(axis=1)  # a zero precision gives exp(-huge) == 0.0
    short = sys_len < ref_len
    prec64 = prec.astype(np.float64)
    for r in np.flatnonzero(live).tolist():
        s = sys_len[r]
        bp = (math.exp(1 - ref_len[r] / s) if s > 0 else 0.0) if short[r] else 1.0
        e = int(eff[r])
        score[r] = bp * math.exp(sum([math.log(p) for p in prec64[r, :e].tolist()]) / e)
    return score


def _libm_kernel() -> bool:
    """Whether the compiled loop may run: not on the plain route, and not when numba would vectorize
    ``math.exp``/``math.log`` with SVML (whose last bits can differ from the C library's)."""
    from vecscore.route import route

    if route() == "plain":
        return False
    from vecscore._jit import is_active

    if not is_active() and built.found_groups():  # built modules never use SVML (vecscore.aot_build)
        return True
    import numba

    return not getattr(numba.config, "USING_SVML", False)


def _chrf_scalar(row, factor, order: int, eps_smoothing: bool):
    """sacreBLEU's ``CHRF._compute_f_score`` on one float32 row, operation for operation, on NumPy scalars
    (so NumPy's promotion picks each type exactly as it does there)."""
    eps = _EPS
    score = 0.0
    effective_order = 0
    avg_prec, avg_rec = 0.0, 0.0
    for i in range(order):
        n_hyp, n_ref, n_match = row[3 * i], row[3 * i + 1], row[3 * i + 2]
        prec = n_match / n_hyp if n_hyp > 0 else eps
        rec = n_match / n_ref if n_ref > 0 else eps
        denom = factor * prec + rec
        score += ((1 + factor) * prec * rec / denom) if denom > 0 else eps
        if n_hyp > 0 and n_ref > 0:
            avg_prec += prec
            avg_rec += rec
            effective_order += 1
    if eps_smoothing:
        return 100 * score / order
    if effective_order == 0:
        avg_prec = avg_rec = 0.0
    else:
        avg_prec /= effective_order
        avg_rec /= effective_order
    if avg_prec + avg_rec:
        score = (1 + factor) * avg_prec * avg_rec
        score /= ((factor * avg_prec) + avg_rec)
        return 100 * score
    return 0.0


def chrf_rows(sums: np.ndarray, *, beta=2, eps_smoothing: bool = False) -> np.ndarray:
    """chrF of every row of ``sums`` (``[hyp, ref, match]`` per order).

    float32 ``sums`` (bootstrap): float32 scores, as sacreBLEU's.  Other
    dtypes: float64 scores (vecscore's bit-exact chrF formulas).
    """
    sums = np.asarray(sums)
    if sums.dtype != np.float32:
        from vecscore.chrf.formulas import f_scores
        return f_scores(sums, beta, eps_smoothing)
    rows, width = sums.shape
    order = width // 3
    factor = beta ** 2
    h = sums[:, 0::3]
    r = sums[:, 1::3]
    m = sums[:, 2::3]
    # rows where an order has no hypothesis or reference n-grams mix Python floats (eps) with float32 in
    # sacreBLEU; they are rare (an empty side over a whole resample) and go through the scalar twin
    regular = np.asarray(((h > 0) & (r > 0)).all(axis=1))
    f32 = np.float32
    fac = f32(factor)
    one_fac = f32(1 + factor)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        prec = m / h
        rec = m / r
        score = np.zeros(rows, f32)
        avg_prec = np.zeros(rows, f32)
        avg_rec = np.zeros(rows, f32)
        for i in range(order):
            p, q = prec[:, i], rec[:, i]
            denom = fac * p + q
            term = one_fac * p * q / denom
            score = score + np.where(denom > 0, term, f32(_EPS))
            avg_prec = avg_prec + p
            avg_rec = avg_rec + q
        if eps_smoothing:
            out = f32(100) * score / f32(order)
        else:
            avg_prec = avg_prec / f32(order)
            avg_rec = avg_rec / f32(order)
            num = one_fac * avg_prec * avg_rec
            num = num / ((fac * avg_prec) + avg_rec)
            out = np.where((avg_prec + avg_rec) != 0, f32(100) * num, f32(0.0))
    out = out.astype(f32)
    if regular.all():
        return out
    values = [out[i] if regular[i] else _chrf_scalar(sums[i], factor, order, eps_smoothing) for i in range(rows)]
    return np.array(values)  # sacreBLEU's np.array over mixed float32/Python floats


def ter_rows(sums: np.ndarray) -> np.ndarray:
    """TER (percent) of every row of ``sums`` (``[edits, ref_length]``); float32 in, float32 out."""
    sums = np.asarray(sums)
    edits, ref = sums[:, 0], sums[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = edits / ref
    pos = ref > 0
    if sums.dtype == np.float32:
        out = np.float32(100) * rate
        if pos.all():
            return out.astype(np.float32)
        # sacreBLEU: 100 * 1.0 or 100 * 0.0 as Python floats, mixed into a float32 list -> float64 array
        return np.where(pos, out.astype(np.float64), np.where(edits > 0, 100.0, 0.0))
    return 100 * np.where(pos, rate, np.where(edits > 0, 1.0, 0.0))
