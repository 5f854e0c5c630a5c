"""Kernels of the ROUGE bootstraps: ROUGE-1.5.5.pl's ordered sums and bootstrap, and rouge-score's.

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

rouge-score's bootstrap
-----------------------
rouge-score's ``BootstrapAggregator`` draws each resample with NumPy's legacy
``np.random.choice(np.arange(N), size=N)``, i.e. ``RandomState.randint(0, N,
size=N)``: MT19937 32-bit outputs, each masked to the smallest all-ones
``mask >= N - 1`` and rejected while above ``N - 1`` (no output is consumed
when ``N == 1``).  :func:`mt19937_temper_block`, :func:`mt19937_refill` and
:func:`legacy_randint_fill` make exactly those draws from the generator state
``RandomState.get_state()`` returns (``key``, ``pos``), written from the
published MT19937 definition; :func:`ordered_sample_means` then averages each
resample as ``np.mean(values[idx], axis=0)`` does for a C-ordered ``(N, C)``
block: row after row, left to right, divided by ``N`` at the end.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange

__all__ = [
    "segment_sum_seq",
    "perl_bootstrap_means",
    "MT_N",
    "mt19937_temper_block",
    "mt19937_refill",
    "legacy_randint_fill",
    "ordered_sample_means",
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


# --------------------------------------------------------------------------------------
# rouge-score's bootstrap: NumPy's legacy RandomState.randint on MT19937
# --------------------------------------------------------------------------------------

#: MT19937's state length (32-bit words)
MT_N = 624
_MT_M = 397
_U32 = np.uint32


@jit(inline=True)
def _temper(y):
    """MT19937's output transform of one state word."""
    y ^= y >> _U32(11)
    y ^= (y << _U32(7)) & _U32(0x9D2C5680)
    y ^= (y << _U32(15)) & _U32(0xEFC60000)
    y ^= y >> _U32(18)
    return _U32(y)


@jit
def mt19937_temper_block(mt, buf):
    """``buf[i]``: the output word of state word ``mt[i]`` (for a state read in the middle of a block)."""
    for i in range(MT_N):
        buf[i] = _temper(mt[i])


@jit
def mt19937_refill(mt, buf):
    """Advance the state ``mt`` (``uint32[624]``) by one block in place, and put its 624 outputs in ``buf``."""
    upper = _U32(0x80000000)
    lower = _U32(0x7FFFFFFF)
    matrix_a = _U32(0x9908B0DF)
    for i in range(MT_N - _MT_M):
        y = (mt[i] & upper) | (mt[i + 1] & lower)
        mt[i] = mt[i + _MT_M] ^ (y >> _U32(1)) ^ ((y & _U32(1)) * matrix_a)
    for i in range(MT_N - _MT_M, MT_N - 1):
        y = (mt[i] & upper) | (mt[i + 1] & lower)
        mt[i] = mt[i + _MT_M - MT_N] ^ (y >> _U32(1)) ^ ((y & _U32(1)) * matrix_a)
    y = (mt[MT_N - 1] & upper) | (mt[0] & lower)
    mt[MT_N - 1] = mt[_MT_M - 1] ^ (y >> _U32(1)) ^ ((y & _U32(1)) * matrix_a)
    for i in range(MT_N):
        buf[i] = _temper(mt[i])


@jit
def legacy_randint_fill(mt, buf, pos, n, out, count):
    """``out[:count]``: the draws of ``RandomState.randint(0, n, size=count)`` (``1 <= n <= 2**32``).

    ``mt`` (state words), ``buf`` (their outputs, :func:`mt19937_temper_block`)
    and ``pos`` (the next output's index; 624: a block is due) are the
    generator; ``mt`` and ``buf`` advance in place and the new ``pos`` is
    returned.  Each draw takes output words masked by the smallest all-ones
    ``mask >= n - 1`` until one is at most ``n - 1``.  The words of a block are
    scanned without a branch per word: a word is always written at ``out[j]``
    and ``j`` moves on only if it is accepted; at most ``count - j`` words are
    scanned per pass, so no word past the last accepted one is consumed.
    """
    if n == 1:  # NumPy returns the lower bound without drawing
        for j in range(count):
            out[j] = 0
        return pos
    rng = _U32(n - 1)
    mask = rng
    mask |= mask >> _U32(1)
    mask |= mask >> _U32(2)
    mask |= mask >> _U32(4)
    mask |= mask >> _U32(8)
    mask |= mask >> _U32(16)
    j = 0
    p = pos
    while j < count:
        if p >= MT_N:
            mt19937_refill(mt, buf)
            p = 0
        m = min(MT_N - p, count - j)
        for q in range(p, p + m):
            y = buf[q] & mask
            out[j] = y
            j += np.int64(y <= rng)
        p += m
    return p


@jit
def ordered_sample_means(values, idx, n_resamples, out, row0):
    """``out[row0 + s, c] = (values[r_0, c] + values[r_1, c] + ... ) / N`` with ``r_i = idx[s * N + i]``.

    ``values`` is ``(N, C)`` float64; the sum runs in draw order, as NumPy
    reduces axis 0 of the gathered C-ordered ``(N, C)`` block, so the result
    equals ``np.mean(values[idx[s * N:(s + 1) * N]], axis=0)`` bit for bit.
    """
    N = values.shape[0]
    C = values.shape[1]
    if C == 3:  # P, R, F: three independent chains in registers
        for s in range(n_resamples):
            base = s * N
            r = idx[base]
            a0 = values[r, 0]
            a1 = values[r, 1]
            a2 = values[r, 2]
            for i in range(1, N):
                r = idx[base + i]
                a0 += values[r, 0]
                a1 += values[r, 1]
                a2 += values[r, 2]
            out[row0 + s, 0] = a0 / N
            out[row0 + s, 1] = a1 / N
            out[row0 + s, 2] = a2 / N
        return
    acc = np.empty(C, np.float64)
    for s in range(n_resamples):
        base = s * N
        r = idx[base]
        for c in range(C):
            acc[c] = values[r, c]
        for i in range(1, N):
            r = idx[base + i]
            for c in range(C):
                acc[c] += values[r, c]
        for c in range(C):
            out[row0 + s, c] = acc[c] / N
