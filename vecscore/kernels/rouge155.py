"""Kernels specific to ROUGE-1.5.5.pl: LCS/WLCS with external clipping budgets, ordered sums, its bootstrap.

Clipping budgets from another stream
------------------------------------
The script's ROUGE-L and ROUGE-W (``computeLCSScore`` / ``computeWLCSScore``)
read every summary twice: ``readText_LCS`` gives the sentences that the LCS
runs on, ``readText`` + ``createNGram(.., 1)`` gives the unigram counts that
clip the hits (and the peer length).  The two agree except under ``-b``,
where ``readText_LCS`` forgets to add to its running size (see
:mod:`vecscore.text.perl_rouge`).  :func:`union_lcs_hits_budget_pairs` and
:func:`wlcs_perl_budget_pairs` are the drivers of
:func:`vecscore.kernels.lcs.union_lcs_hits_pairs` and
:func:`vecscore.kernels.wlcs.wlcs_perl_pairs` (same DP and walk back, the same
private ``_mark_lcs`` / ``_perl_mark`` routines) with the budgets taken from a
second ragged array ``(b_ids, b_off)`` indexed like the texts.

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
from vecscore.kernels.lcs import _mark_lcs
from vecscore.kernels.wlcs import _perl_mark, _weights

__all__ = [
    "union_lcs_hits_budget_pairs",
    "wlcs_perl_budget_pairs",
    "segment_sum_seq",
    "perl_bootstrap_means",
]


@jit(parallel=True)
def union_lcs_hits_budget_pairs(h_ids, h_sent, h_text, r_ids, r_sent, r_text, b_ids, b_off,
                                h_rows, r_rows, vocab_size, n_chunks):
    """Union-LCS hits (Perl ``lcs``) with budgets from rows ``h_rows[p]`` / ``r_rows[p]`` of ``(b_ids, b_off)``."""
    k = len(h_rows)
    out = np.zeros(k, np.int64)
    for c in prange(n_chunks):
        lo = c * k // n_chunks
        hi = (c + 1) * k // n_chunks
        bud_h = np.zeros(vocab_size, np.int64)
        bud_r = np.zeros(vocab_size, np.int64)
        table = np.empty(0, np.int32)
        mark = np.empty(0, np.uint8)
        for p in range(lo, hi):
            hs0 = h_text[h_rows[p]]
            hs1 = h_text[h_rows[p] + 1]
            rs0 = r_text[r_rows[p]]
            rs1 = r_text[r_rows[p] + 1]
            if h_sent[hs1] == h_sent[hs0] or r_sent[rs1] == r_sent[rs0]:
                continue
            bh0 = b_off[h_rows[p]]
            bh1 = b_off[h_rows[p] + 1]
            br0 = b_off[r_rows[p]]
            br1 = b_off[r_rows[p] + 1]
            for q in range(bh0, bh1):
                bud_h[b_ids[q]] += 1
            for q in range(br0, br1):
                bud_r[b_ids[q]] += 1
            maxh = 0
            for s in range(hs0, hs1):
                maxh = max(maxh, h_sent[s + 1] - h_sent[s])
            maxr = 0
            for s in range(rs0, rs1):
                maxr = max(maxr, r_sent[s + 1] - r_sent[s])
            need = (maxr + 1) * (maxh + 1)
            if len(table) < need:
                table = np.empty(need, np.int32)
            if len(mark) < maxr:
                mark = np.empty(maxr, np.uint8)
            hits = 0
            for s in range(rs0, rs1):
                ref = r_ids[r_sent[s]:r_sent[s + 1]]
                m = len(ref)
                if m == 0:
                    continue
                mark[:m] = 0
                for g in range(hs0, hs1):
                    hyp = h_ids[h_sent[g]:h_sent[g + 1]]
                    if len(hyp) > 0:
                        _mark_lcs(ref, hyp, table, mark)
                for j in range(m):
                    if mark[j]:
                        tok = ref[j]
                        if bud_h[tok] > 0 and bud_r[tok] > 0:
                            hits += 1
                            bud_h[tok] -= 1
                            bud_r[tok] -= 1
            out[p] = hits
            for q in range(bh0, bh1):
                bud_h[b_ids[q]] = 0
            for q in range(br0, br1):
                bud_r[b_ids[q]] = 0
    return out


@jit(parallel=True)
def wlcs_perl_budget_pairs(h_ids, h_sent, h_text, r_ids, r_sent, r_text, b_ids, b_off,
                           h_rows, r_rows, vocab_size, alpha, n_chunks):
    """Perl ``wlcs`` (``whit``, ``wbase``) with budgets from ``(b_ids, b_off)``; see :mod:`vecscore.kernels.wlcs`."""
    k = len(h_rows)
    whit = np.zeros(k, np.float64)
    wbase = np.zeros(k, np.float64)
    top = 1
    for s in range(len(r_sent) - 1):
        top = max(top, r_sent[s + 1] - r_sent[s] + 1)
    f = _weights(alpha, top)
    for c in prange(n_chunks):
        lo = c * k // n_chunks
        hi = (c + 1) * k // n_chunks
        bud_h = np.zeros(vocab_size, np.int64)
        bud_r = np.zeros(vocab_size, np.int64)
        moves = np.empty(0, np.int8)
        mark = np.empty(0, np.uint8)
        c0 = np.empty(0, np.float64)
        c1 = np.empty(0, np.float64)
        l0 = np.empty(0, np.int64)
        l1 = np.empty(0, np.int64)
        for p in range(lo, hi):
            hs0 = h_text[h_rows[p]]
            hs1 = h_text[h_rows[p] + 1]
            rs0 = r_text[r_rows[p]]
            rs1 = r_text[r_rows[p] + 1]
            base = 0.0
            for s in range(rs0, rs1):
                base += f[r_sent[s + 1] - r_sent[s]]
            wbase[p] = base
            if h_sent[hs1] == h_sent[hs0] or r_sent[rs1] == r_sent[rs0]:
                continue
            bh0 = b_off[h_rows[p]]
            bh1 = b_off[h_rows[p] + 1]
            br0 = b_off[r_rows[p]]
            br1 = b_off[r_rows[p] + 1]
            for q in range(bh0, bh1):
                bud_h[b_ids[q]] += 1
            for q in range(br0, br1):
                bud_r[b_ids[q]] += 1
            maxh = 0
            for s in range(hs0, hs1):
                maxh = max(maxh, h_sent[s + 1] - h_sent[s])
            maxr = 0
            for s in range(rs0, rs1):
                maxr = max(maxr, r_sent[s + 1] - r_sent[s])
            if len(moves) < maxr * maxh:
                moves = np.empty(maxr * maxh, np.int8)
            if len(mark) < maxr:
                mark = np.empty(maxr, np.uint8)
            if len(c0) < maxh + 1:
                c0 = np.empty(maxh + 1, np.float64)
                c1 = np.empty(maxh + 1, np.float64)
                l0 = np.empty(maxh + 1, np.int64)
                l1 = np.empty(maxh + 1, np.int64)
            hit = 0.0
            for s in range(rs0, rs1):
                ref = r_ids[r_sent[s]:r_sent[s + 1]]
                m = len(ref)
                if m == 0:
                    continue
                mark[:m] = 0
                for g in range(hs0, hs1):
                    hyp = h_ids[h_sent[g]:h_sent[g + 1]]
                    if len(hyp) > 0:
                        _perl_mark(ref, hyp, f, moves, c0, c1, l0, l1, mark)
                run = 0
                for j in range(m):
                    if mark[j]:
                        tok = ref[j]
                        if bud_h[tok] > 0 and bud_r[tok] > 0:
                            run += 1
                            if j + 1 < m and mark[j + 1] == 0:
                                hit += f[run]
                                run = 0
                            elif j + 1 == m:
                                hit += f[run]
                                run = 0
                            bud_h[tok] -= 1
                            bud_r[tok] -= 1
            whit[p] = hit
            for q in range(bh0, bh1):
                bud_h[b_ids[q]] = 0
            for q in range(br0, br1):
                bud_r[b_ids[q]] = 0
    return whit, wbase


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
