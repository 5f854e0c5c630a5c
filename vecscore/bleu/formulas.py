"""BLEU scores from integer sufficient statistics, as sacreBLEU and NLTK compute them.

Every function takes per-pair statistics (``N`` pairs, orders ``1..K``):

``sys_len`` : int64 (N,)
    hypothesis length in tokens.
``ref_len`` : int64 (N,)
    the *closest* reference length (ties go to the shorter reference).
``correct`` : int64 (K, N)
    clipped n-gram matches: each hypothesis n-gram count clipped by its
    maximum count over the pair's references, summed over n-grams.
``total`` : int64 (K, N)
    hypothesis n-grams, ``max(0, sys_len - n + 1)``.

sacreBLEU (``sacrebleu_corpus``, ``sacrebleu_sentence``) needs ``K >=
max_ngram_order``.  NLTK (``nltk_corpus``, ``nltk_sentence``) needs ``K >=``
the longest weight vector, and ``K >= 5`` for ``method5``/``method7``, which
read the 5-gram statistics of the *last* pair of the corpus (nltk passes the
loop's leftover ``references``/``hypothesis`` to the smoothing function);
``method6`` likewise reads the last pair's ``sys_len``.  For
``nltk_sentence`` every pair is its own corpus, so it reads its own row.

The float operations follow the oracles' order, and ``log``/``exp``/``fsum``
run in small kernels (NumPy's SIMD ``exp``/``log`` differ from libm in the
last bit), so sacreBLEU scores are bit-identical.  The kernels are a
:class:`Kernels` set: :data:`COMPILED` (numba) by default, or the same
functions' Python bodies (:mod:`vecscore.bleu.plain_formulas`, the
small-batch route), which give the same numbers bit for bit.  NLTK keeps exact
``Fraction`` values through ``method5``/``method6``; here they are float64, so
those two (and ``method7``) agree to ~1e-15 relative instead of bit-for-bit.
"""
from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from vecscore._jit import SERIAL_MAX, jit, prange, serial_twin
from vecscore._version import __version__
from vecscore.errors import UndefinedMetricWarning, VecscoreError, warn
from vecscore.kernels.pysum import NEUMAIER, sum_add, sum_result

__all__ = [
    "COMPILED",
    "Kernels",
    "SMOOTH_DEFAULTS",
    "NLTK_METHODS",
    "SacreBleuScores",
    "sacrebleu_corpus",
    "sacrebleu_sentence",
    "format_sacrebleu",
    "sacrebleu_signature",
    "nltk_corpus",
    "nltk_sentence",
]

SMOOTH_DEFAULTS = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}
NLTK_METHODS = tuple(f"method{i}" for i in range(8))


# --- kernels (libm exp/log, as Python's math module) ------------------------------------------


@jit(inline=True)
def _bp_sacre(sys_len, ref_len):
    """sacreBLEU's brevity penalty of one row."""
    if sys_len < ref_len:
        return math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    return 1.0


@jit(inline=True)
def _sacre_combine(prec, r, eff, bp, neumaier):
    """``bp * exp(sum(my_log(p) for p in prec[:eff, r]) / eff)``."""
    s = 0.0
    c = 0.0
    for i in range(eff):
        x = prec[i, r]
        if x == 0.0:
            return 0.0  # exp(-9999999999 / eff) underflows to 0
        s, c = sum_add(s, c, math.log(x), neumaier)
    s = sum_result(s, c, neumaier)
    return bp * math.exp(s / eff)


@jit
def _fsum(x, n):
    """``math.fsum(x[:n])`` (Shewchuk's exact partials, correctly rounded)."""
    partials = np.zeros(n + 1)
    m = 0
    for k in range(n):
        v = x[k]
        i = 0
        for j in range(m):
            y = partials[j]
            if abs(v) < abs(y):
                v, y = y, v
            hi = v + y
            lo = y - (hi - v)
            if lo != 0.0:
                partials[i] = lo
                i += 1
            v = hi
        partials[i] = v
        m = i + 1
    if m == 0:
        return 0.0
    m -= 1
    hi = partials[m]
    lo = 0.0
    while m > 0:
        v = hi
        m -= 1
        y = partials[m]
        hi = v + y
        yr = hi - v
        lo = y - yr
        if lo != 0.0:
            break
    if m > 0 and ((lo < 0.0 and partials[m - 1] < 0.0) or (lo > 0.0 and partials[m - 1] > 0.0)):
        y = lo * 2.0
        v = hi + y
        yr = v - hi
        if y == yr:
            hi = v
    return hi


@jit
def _nltk_combine(p, weights, wlen, reweigh, hyp_len, ref_len, alive):
    """``bp * exp(fsum(w * log(p) for w, p in zip(weight, p_n) if p > 0))``."""
    n_w = weights.shape[0]
    n_rows = p.shape[1]
    out = np.zeros((n_w, n_rows))
    terms = np.zeros(p.shape[0])
    for r in range(n_rows):
        if not alive[r]:
            continue
        h = hyp_len[r]
        if h > ref_len[r]:
            bp = 1.0
        else:
            bp = math.exp(1 - ref_len[r] / h)
        for j in range(n_w):
            n = 0
            use = wlen[j]
            if reweigh[j] and h < 4:
                use = h
            for i in range(use):
                if p[i, r] > 0:
                    w = 1 / h if reweigh[j] and h < 4 else weights[j, i]
                    terms[n] = w * math.log(p[i, r])
                    n += 1
            out[j, r] = bp * math.exp(_fsum(terms, n))
    return out


@jit
def _log_kernel(x):
    """libm's ``log`` of every element (``-inf`` for ``x <= 0``)."""
    out = np.empty_like(x)
    for i in range(x.size):
        out[i] = math.log(x[i]) if x[i] > 0 else -np.inf
    return out


_SMOOTH_CODES = {"exp": 0, "floor": 1, "add-k": 2, "none": 3}


@jit(inline=True)
def _sacre_precisions(correct, total, r, method, value, effective_order, prec):
    """Row ``r`` (column of ``correct``/``total``): its precisions into ``prec[:, r]``, as the float
    operations of ``BLEU.compute_bleu`` in its order; returns the effective order, 0 if nothing
    matched (sacreBLEU's early stop, #141: the score is 0)."""
    order = correct.shape[0]
    any_match = False
    for i in range(order):
        any_match = any_match or correct[i, r] != 0
    if not any_match:
        return 0
    eff = order
    zeros = 0
    for i in range(order):
        c = np.float64(correct[i, r])
        t = np.float64(total[i, r])
        if method == 2 and i > 0:
            c += value
            t += value
        if t == 0.0:
            break
        if effective_order:
            eff = i + 1
        if c == 0.0:
            zeros += 1
            if method == 0:
                prec[i, r] = 100.0 / (2.0 ** zeros * t)
            elif method == 1:
                prec[i, r] = 100.0 * value / t
        else:
            prec[i, r] = 100.0 * c / t
    return eff


@jit(parallel=True)
def _sacre_kernel(sys_len, ref_len, correct, total, method, value, effective_order, neumaier):
    """Per pair (column): BLEU, its precisions and brevity penalty."""
    order, n_rows = correct.shape
    prec = np.zeros((order, n_rows))
    bp = np.empty(n_rows)
    score = np.empty(n_rows)
    for r in prange(n_rows):
        bp[r] = _bp_sacre(sys_len[r], ref_len[r])
        eff = _sacre_precisions(correct, total, r, method, value, effective_order, prec)
        score[r] = _sacre_combine(prec, r, eff, bp[r], neumaier) if eff > 0 else 0.0
    return score, prec, bp


_sacre_serial = serial_twin(_sacre_kernel)


@dataclass(frozen=True)
class Kernels:
    """The loops that the formulas call; every set computes the same numbers bit for bit.

    ``sacre``: :func:`_sacre_kernel`'s signature, ``nltk_combine``:
    :func:`_nltk_combine`'s, ``log``: :func:`_log_kernel`'s.
    """

    sacre: Callable
    nltk_combine: Callable
    log: Callable


#: the numba kernels (compiled on first use)
COMPILED = Kernels(_sacre_kernel, _nltk_combine, _log_kernel)


# --- sacreBLEU ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SacreBleuScores:
    """BLEU as sacreBLEU's ``BLEUScore``: scalars for a corpus, arrays for sentences.

    ``counts``/``totals`` are the statistics as given (sacreBLEU's own
    ``counts``/``totals`` include the ``add-k`` increments of orders ``>= 2``).
    ``precisions`` has shape ``(max_ngram_order,)`` or ``(max_ngram_order, N)``.
    """

    score: np.ndarray | float
    precisions: np.ndarray
    bp: np.ndarray | float
    sys_len: np.ndarray | int
    ref_len: np.ndarray | int
    counts: np.ndarray
    totals: np.ndarray


def _as_stats(sys_len, ref_len, correct, total, k_min):
    sys_len = np.asarray(sys_len, dtype=np.int64).reshape(-1)
    ref_len = np.asarray(ref_len, dtype=np.int64).reshape(-1)
    correct = np.asarray(correct, dtype=np.int64)
    total = np.asarray(total, dtype=np.int64)
    if correct.ndim == 1:
        correct, total = correct[:, None], total[:, None]
    n = len(sys_len)
    if correct.shape != total.shape or correct.shape[1] != n or len(ref_len) != n:
        raise VecscoreError(
            f"statistics disagree in shape: sys_len {sys_len.shape}, ref_len {ref_len.shape}, "
            f"correct {correct.shape}, total {total.shape}; expected (N,), (N,), (K, N), (K, N)"
        )
    if correct.shape[0] < k_min:
        raise VecscoreError(f"need statistics for orders 1..{k_min}, got {correct.shape[0]}")
    return sys_len, ref_len, correct, total


def _row_sums(x: np.ndarray) -> np.ndarray:
    """``x.sum(axis=1, keepdims=True)``; a ``(K, N)`` view of ``(N, K)`` statistics (the kernels' layout) is
    copied first: summed in place, its rows are strided, several times slower than the copy."""
    return np.ascontiguousarray(x).sum(axis=1, keepdims=True)


def _check_smooth(method, value):
    if method not in SMOOTH_DEFAULTS:
        raise VecscoreError(f"unknown smooth_method {method!r}; valid: {', '.join(SMOOTH_DEFAULTS)}")
    return SMOOTH_DEFAULTS[method] if value is None else value


def _sacre_scores(sys_len, ref_len, correct, total, smooth_method, smooth_value, effective_order, max_ngram_order,
                  kernels):
    value = _check_smooth(smooth_method, smooth_value)
    sys_len, ref_len, correct, total = _as_stats(sys_len, ref_len, correct, total, 1)
    order = correct.shape[0] if max_ngram_order is None else int(max_ngram_order)
    if order < 1:
        raise VecscoreError(f"max_ngram_order must be >= 1, got {max_ngram_order}")
    _as_stats(sys_len, ref_len, correct, total, order)
    correct, total = correct[:order], total[:order]
    sacre = _sacre_serial if kernels is COMPILED and correct.shape[1] <= SERIAL_MAX else kernels.sacre
    score, prec, bp = sacre(sys_len, ref_len, correct, total, _SMOOTH_CODES[smooth_method],
                            float(value or 0.0), bool(effective_order), NEUMAIER)
    return score, prec, bp, sys_len, ref_len, correct, total


def sacrebleu_corpus(
    sys_len, ref_len, correct, total, *, smooth_method="exp", smooth_value=None, effective_order=False,
    max_ngram_order=None, kernels: Kernels = COMPILED,
) -> SacreBleuScores:
    """Corpus BLEU (0..100) as ``sacrebleu.BLEU(...).corpus_score``.

    Parameters
    ----------
    sys_len, ref_len : array_like of int, shape (N,)
    correct, total : array_like of int, shape (K, N)
        Per-pair statistics (see the module docstring); they are summed over
        pairs first.
    smooth_method : {"exp", "floor", "add-k", "none"}
    smooth_value : float, optional
        ``floor``'s epsilon (default 0.1) or ``add-k``'s k (default 1).
    effective_order : bool
        Average only over the orders before the first one without hypothesis
        n-grams (sacreBLEU checks totals, not matches).
    max_ngram_order : int, optional
        Defaults to ``K``.
    kernels : Kernels
        The loops to run: :data:`COMPILED`, or the plain ones of
        :mod:`vecscore.bleu.plain_formulas` (same numbers, no numba).

    Returns
    -------
    SacreBleuScores
        Scalars, and ``precisions`` of shape ``(max_ngram_order,)``.

    Examples
    --------
    >>> s = sacrebleu_corpus([6], [6], [[6], [4]], [[6], [5]], smooth_method="none")
    >>> round(s.score, 10) == round(100 * (4 / 5) ** 0.5, 10)
    True
    """
    sys_len, ref_len, correct, total = _as_stats(sys_len, ref_len, correct, total, 1)
    score, prec, bp, s, r, c, t = _sacre_scores(
        sys_len.sum(keepdims=True), ref_len.sum(keepdims=True), _row_sums(correct), _row_sums(total), smooth_method,
        smooth_value, effective_order, max_ngram_order, kernels,
    )
    return SacreBleuScores(float(score[0]), prec[:, 0], float(bp[0]), int(s[0]), int(r[0]), c[:, 0], t[:, 0])


def sacrebleu_sentence(
    sys_len, ref_len, correct, total, *, smooth_method="exp", smooth_value=None, effective_order=False,
    max_ngram_order=None, kernels: Kernels = COMPILED,
) -> SacreBleuScores:
    """One BLEU (0..100) per pair, as ``BLEU(...).sentence_score`` on each.

    Parameters are those of :func:`sacrebleu_corpus`, applied to every pair
    on its own.  Note the defaults of ``BLEU`` (``effective_order=False``);
    ``sacrebleu.sentence_bleu()`` uses ``effective_order=True``.

    Returns
    -------
    SacreBleuScores
        Arrays of shape ``(N,)``; ``precisions`` of shape ``(K, N)``.
    """
    score, prec, bp, s, r, c, t = _sacre_scores(
        sys_len, ref_len, correct, total, smooth_method, smooth_value, effective_order, max_ngram_order, kernels
    )
    return SacreBleuScores(score, prec, bp, s, r, c, t)


def format_sacrebleu(score, precisions, bp, sys_len, ref_len, *, signature="", width=2) -> str:
    """sacreBLEU's ``BLEUScore.format()`` line for one score.

    Examples
    --------
    >>> format_sacrebleu(29.06, [65.0, 35.3, 20.0, 10.0], 1.0, 20, 20)
    'BLEU = 29.06 65.0/35.3/20.0/10.0 (BP = 1.000 ratio = 1.000 hyp_len = 20 ref_len = 20)'
    """
    prec_str = "/".join(f"{p:.1f}" for p in np.asarray(precisions, dtype=np.float64).tolist())
    ratio = sys_len / ref_len if ref_len else 0
    name = f"BLEU|{signature}" if signature else "BLEU"
    return (
        f"{name} = {score:.{width}f} {prec_str} (BP = {bp:.3f} ratio = {ratio:.3f} "
        f"hyp_len = {int(sys_len):d} ref_len = {int(ref_len):d})"
    )


def sacrebleu_signature(
    *, nrefs, lowercase=False, tokenize="13a", smooth_method="exp", smooth_value=None, effective_order=False,
    version=None, n_bootstrap=None, seed=None, short=False,
) -> str:
    """A signature in sacreBLEU's format, with vecscore's version.

    ``nrefs`` is an int or ``"var"``.  ``version`` defaults to
    ``vecscore.__version__``.

    Examples
    --------
    >>> sacrebleu_signature(nrefs=1, version="0.1.0")
    'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:0.1.0'
    """
    default = SMOOTH_DEFAULTS[smooth_method] if smooth_method in SMOOTH_DEFAULTS else _check_smooth(smooth_method, 0)
    smooth = smooth_method
    if default is not None:
        smooth += f"[{(default if smooth_value is None else smooth_value):.2f}]"
    if version is None:
        version = __version__
    items = [("nrefs", "#", nrefs), ("bs", "bs", n_bootstrap), ("seed", "rs", seed)]
    items += [
        ("case", "c", "lc" if lowercase else "mixed"),
        ("eff", "e", "yes" if effective_order else "no"),
        ("tok", "tok", tokenize),
        ("smooth", "s", smooth),
        ("version", "v", version),
    ]
    return "|".join(f"{short_key if short else key}:{val}" for key, short_key, val in items if val is not None)


# --- NLTK ------------------------------------------------------------------------------------


def _weight_matrix(weights):
    """``(matrix, lengths, reweighable, single)`` from a tuple or a list of tuples."""
    try:
        weights[0][0]
        many = list(weights)
        single = False
    except (TypeError, IndexError):
        many = [weights]
        single = True
    lens = np.array([len(w) for w in many], np.int64)
    if (lens < 1).any():
        raise VecscoreError("every weight vector needs at least one weight")
    mat = np.zeros((len(many), lens.max()))
    for j, w in enumerate(many):
        mat[j, : len(w)] = np.asarray(w, dtype=np.float64)
    # nltk re-weighs only when the weight compares equal to the default *tuple*
    reweigh = np.array([w == (0.25, 0.25, 0.25, 0.25) if isinstance(w, tuple) else False for w in many])
    return mat, lens, reweigh, single


def _zero_runs(zero):
    """1, 2, ... along the orders at each zero entry (the ``incvnt`` counter)."""
    return np.cumsum(zero, axis=0)


def _smooth_nltk(method, num, den, hyp_len, last5, last_len, epsilon, alpha, k, log):
    """Smoothed precisions (W, R) as floats; ``num``/``den`` are the Fraction parts."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = num / den
        zero = num == 0
        if method in ("method0", None):
            return np.where(zero, sys.float_info.min, p)
        if method == "method1":
            return np.where(zero, (0 + epsilon) / den, p)
        if method == "method2":
            p[1:] = (num[1:] + 1) / (den[1:] + 1)
            return p
        if method == "method3":
            return np.where(zero, 1 / (2.0 ** _zero_runs(zero) * den), p)
        if method == "method4":
            return _method4(p, zero, den, hyp_len, k, log)
        if method == "method5":
            return _method5(p, last5)
        if method == "method6":
            return _method6(p, num, last_len, alpha)
        if method == "method7":
            return _method5(_method4(p, zero, den, hyp_len, k, log), last5)
    raise VecscoreError(f"unknown smoothing {method!r}; valid: {', '.join(NLTK_METHODS)}")


def _method4(p, zero, den, hyp_len, k, log):
    """NLTK's method4; ``log`` is a :class:`Kernels` ``log``."""
    hit = zero & (hyp_len > 1)
    inc = np.cumsum(hit, axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = 1 / (2.0**inc * k / log(np.ascontiguousarray(hyp_len, dtype=np.float64)))
        return np.where(hit, scale / den, p)


def _method5(p, last5):
    out = np.empty_like(p)
    prev = p[0] + 1
    for i in range(p.shape[0]):
        nxt = p[i + 1] if i + 1 < p.shape[0] else last5
        out[i] = (prev + p[i] + nxt) / 3
        prev = out[i]
    return out


def _method6(p, num, last_len, alpha):
    out = p.copy()
    for i in range(2, p.shape[0]):
        with np.errstate(divide="ignore", invalid="ignore"):
            pi0 = np.where(out[i - 2] == 0, 0.0, out[i - 1] ** 2 / out[i - 2])
        grams = np.maximum(last_len - i, 0)
        out[i] = (num[i] + alpha * pi0) / (grams + alpha)
    return out


def _method6_failures(p_num, method):
    if method != "method6":
        return np.zeros(p_num.shape[1], bool)
    if p_num.shape[0] < 3:
        return np.ones(p_num.shape[1], bool)  # nltk: IndexError on p_n[2]
    return p_num[2] == 0  # nltk: AssertionError


def _nltk_scores(num, den, hyp_len, ref_len, last5, last_len, weights, smoothing, epsilon, alpha, k,
                 auto_reweigh, on_error, kernels):
    mat, lens, reweigh, single = _weight_matrix(weights)
    reweigh &= bool(auto_reweigh)
    n_orders = mat.shape[1]
    num, den = num[:n_orders], den[:n_orders]
    alive = num[0] != 0  # nltk returns 0 when there is no unigram match
    bad = alive & _method6_failures(num, smoothing)
    if bad.any() and on_error == "raise":
        rows = np.nonzero(bad)[0][:5].tolist()
        raise VecscoreError(
            f"method6 needs a non-zero trigram precision and weights of length >= 3 (nltk raises); "
            f"failing rows {rows}; pass on_error='nan' to get NaN for them"
        )
    if smoothing in ("method0", None) and (num[:, alive] == 0).any():
        warn(
            "some n-gram orders have no overlap: nltk's method0 gives them sys.float_info.min, "
            "so BLEU is close to 0; consider a smoothing method",
            UndefinedMetricWarning,
        )
    p = _smooth_nltk(smoothing, num.astype(np.float64), den.astype(np.float64), hyp_len, last5, last_len,
                     epsilon, alpha, k, kernels.log)
    out = kernels.nltk_combine(np.ascontiguousarray(p), mat, lens, reweigh, hyp_len, ref_len, alive & ~bad)
    out[:, bad] = np.nan
    return out, single


def _nltk_inputs(sys_len, ref_len, correct, total, weights, smoothing):
    w_len = _weight_matrix(weights)[0].shape[1]
    need = max(w_len, 5) if smoothing in ("method5", "method7") else w_len
    return _as_stats(sys_len, ref_len, correct, total, need)


def nltk_corpus(
    sys_len, ref_len, correct, total, *, weights=(0.25, 0.25, 0.25, 0.25), smoothing="method0", epsilon=0.1,
    alpha=5, k=5, auto_reweigh=False, on_error="raise", kernels: Kernels = COMPILED,
):
    """``nltk.translate.bleu_score.corpus_bleu`` (0..1) from statistics.

    Parameters
    ----------
    sys_len, ref_len, correct, total : array_like
        Per-pair statistics in corpus order (see the module docstring); the
        last pair matters for ``method5``-``method7``, as in nltk.
    weights : tuple of float or list of tuples
        As nltk: a list of weight tuples returns one score per tuple.
    smoothing : {"method0", ..., "method7"} or None
        ``SmoothingFunction(epsilon, alpha, k).<method>``; None is method0.
    auto_reweigh : bool
        nltk's rule: if the corpus has fewer than 4 hypothesis tokens and the
        weight is exactly the tuple ``(0.25,) * 4``, use ``(1/L,) * L``.
    on_error : {"raise", "nan"}
        What to do where nltk's ``method6`` raises.
    kernels : Kernels
        As in :func:`sacrebleu_corpus`.

    Returns
    -------
    float or ndarray
        A float for one weight tuple, else an array with one score per tuple.
    """
    sys_len, ref_len, correct, total = _nltk_inputs(sys_len, ref_len, correct, total, weights, smoothing)
    den = np.maximum(total, 1)
    last5 = _last5(correct[:, -1:], den[:, -1:]) if correct.shape[0] >= 5 and len(sys_len) else None
    out, single = _nltk_scores(
        _row_sums(correct), _row_sums(den), sys_len.sum(keepdims=True),
        ref_len.sum(keepdims=True), last5, sys_len[-1:] if len(sys_len) else sys_len, weights, smoothing,
        epsilon, alpha, k, auto_reweigh, on_error, kernels,
    )
    return float(out[0, 0]) if single else out[:, 0]


def nltk_sentence(
    sys_len, ref_len, correct, total, *, weights=(0.25, 0.25, 0.25, 0.25), smoothing="method0", epsilon=0.1,
    alpha=5, k=5, auto_reweigh=False, on_error="raise", kernels: Kernels = COMPILED,
):
    """``nltk.translate.bleu_score.sentence_bleu`` (0..1) for every pair.

    Parameters are those of :func:`nltk_corpus`; each pair is scored alone.

    Returns
    -------
    ndarray
        Shape ``(N,)`` for one weight tuple, else ``(n_weights, N)``.
    """
    sys_len, ref_len, correct, total = _nltk_inputs(sys_len, ref_len, correct, total, weights, smoothing)
    den = np.maximum(total, 1)
    last5 = _last5(correct, den) if correct.shape[0] >= 5 else None
    out, single = _nltk_scores(correct, den, sys_len, ref_len, last5, sys_len, weights, smoothing, epsilon, alpha,
                               k, auto_reweigh, on_error, kernels)
    return out[0] if single else out


def _last5(correct, den):
    return correct[4].astype(np.float64) / den[4]
