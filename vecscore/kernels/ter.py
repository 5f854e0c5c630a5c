"""TER kernels: sacreBLEU 2.6's beam edit distance and greedy shift search on integer token ids.

One *job* is one (hypothesis, reference) pair of id sequences; its result is
the number of edits sacreBLEU's ``translation_edit_rate`` counts (shifts
plus the beam edit distance of the shifted hypothesis).  The semantics, all
of them observable in the numbers:

* edit distance: Levenshtein with unit costs, computed only inside a band
  around the pseudo-diagonal ``floor(i * m / n)`` of half-width 25 (widened
  to ``ceil(m / n / 2 + 25)`` for very unequal lengths); the last row is
  computed in full; cells outside the band are "infinite".  Ties between
  the three moves prefer the diagonal, then consuming a hypothesis word,
  then consuming a reference word (this decides the alignment, hence which
  shifts are tried);
* shifts: candidates are hypothesis/reference matches of 1..10 words starting
  at most 50 positions apart, enumerated by hypothesis start, then
  reference start, then length; a candidate is tried only if both sides
  have an error inside it and the alignment of its reference start is not
  inside it; each is tried at the positions after the alignment of the
  reference words ``start_r - 1 .. start_r + length - 1`` (skipping a
  position equal to the previous one); the best shift is the one with the
  largest gain, then the longest, then the earliest hypothesis start, then
  the earliest target; it is applied while its gain is positive;
* a budget of 1000 evaluated candidates over the whole search of one job:
  the candidate scan stops after the first candidate that reaches it, and
  the shift found by that scan is then *not* applied.

sacreBLEU's row cache only saves work: every row depends only on the
hypothesis prefix (the length, hence the band, is fixed for a job), so it
never changes a result.  Here, exactly equivalent shortcuts:

* the forward matrix of the current hypothesis is kept, and a candidate's
  rows are computed from its first differing word only up to the last
  moved word; past it the words are the current ones, so the candidate's
  cost is the least ``forward[e, j] + backward[e, j]`` over row ``e``, with
  ``backward`` the current hypothesis's cost-to-go through the same band
  (:func:`_backward`, recomputed once per applied shift);
* a candidate stops early when a row's lower bound shows that its cost
  exceeds that of the best candidate so far (it could not win, not even on a
  tie-break); it still counts against the budget.

Scratch memory is allocated before the parallel loop, one block per chunk of
consecutive jobs, sized from that chunk's largest job.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange

#: "infinite" cost of a cell outside the band; real costs stay far below it
INF = np.int32(1 << 30)
OP_NOP, OP_SUB, OP_DEL_HYP, OP_INS_REF, OP_UNDEF = 0, 1, 2, 3, 4

BEAM_WIDTH = 25
MAX_SHIFT_SIZE = 10
MAX_SHIFT_DIST = 50
MAX_SHIFT_CANDIDATES = 1000


@jit
def band(n, m, lo, hi):
    """Columns ``lo[i] .. hi[i] - 1`` of row ``i`` (1..n) that the beam computes; row 0 is full."""
    lo[0] = 0
    hi[0] = m + 1
    ratio = m / n if n > 0 else 1.0
    width = BEAM_WIDTH
    if BEAM_WIDTH < ratio / 2:
        width = int(np.ceil(ratio / 2 + BEAM_WIDTH))
    for i in range(1, n + 1):
        diag = int(np.floor(i * ratio))
        lo[i] = max(0, diag - width)
        hi[i] = min(m + 1, diag + width)
    if n > 0:
        hi[n] = m + 1


@jit(inline=True)
def _row_ops(w, ref, lo, hi, prev, cur, cur_op):
    """One row of the beam matrix with the move taken into each cell."""
    for j in range(lo, hi):
        if j == 0:
            cur[0] = prev[0] + 1
            cur_op[0] = OP_DEL_HYP
            continue
        best = INF
        op = OP_UNDEF
        c = prev[j - 1] + (0 if w == ref[j - 1] else 1)
        if c < best:
            best = c
            op = OP_NOP if w == ref[j - 1] else OP_SUB
        c = prev[j] + 1
        if c < best:
            best = c
            op = OP_DEL_HYP
        c = cur[j - 1] + 1
        if c < best:
            best = c
            op = OP_INS_REF
        cur[j] = best
        cur_op[j] = op


@jit(inline=True)
def _row_cost(w, ref, lo, hi, prev, cur, rest):
    """One row of the beam matrix, costs only; returns a lower bound of the final cost: the least
    ``cur[j] + |rest - (m - j)|`` (``rest`` hypothesis words are left, and every path's cost only grows)."""
    m = ref.shape[0]
    bound = INF
    for j in range(lo, hi):
        if j == 0:
            cur[0] = prev[0] + 1
        else:
            best = INF
            c = prev[j - 1] + (0 if w == ref[j - 1] else 1)
            if c < best:
                best = c
            c = prev[j] + 1
            if c < best:
                best = c
            c = cur[j - 1] + 1
            if c < best:
                best = c
            cur[j] = best
        v = cur[j] + abs(rest - (m - j))
        if v < bound:
            bound = v
    return bound


@jit(inline=True)
def _backward(cur, ref, lo, hi, back):
    """``back[i, j]``: the least cost from cell ``(i, j)`` to ``(n, m)`` through the band's cells (the moves of
    :func:`_row_ops` read forwards), for hypothesis ``cur``; cells outside the band are not written."""
    n = cur.shape[0]
    m = ref.shape[0]
    for i in range(n, -1, -1):
        a = lo[i]
        b = hi[i]
        for j in range(b - 1, a - 1, -1):
            if i == n and j == m:
                back[i, j] = 0
                continue
            best = INF
            if i < n:
                if j < m and lo[i + 1] <= j + 1 < hi[i + 1]:
                    c = back[i + 1, j + 1] + (0 if cur[i] == ref[j] else 1)
                    if c < best:
                        best = c
                if lo[i + 1] <= j < hi[i + 1]:
                    c = back[i + 1, j] + 1
                    if c < best:
                        best = c
            if j + 1 < b:
                c = back[i, j + 1] + 1
                if c < best:
                    best = c
            back[i, j] = best


@jit(inline=True)
def _copy(src, a, b, out, k):
    """``out[k:k + b - a] = src[a:b]``; returns the next write position."""
    for q in range(a, b):
        out[k] = src[q]
        k += 1
    return k


@jit(inline=True)
def _apply_shift(words, n, start, length, target, out):
    """``out`` = ``words`` with ``words[start:start + length]`` moved to position ``target``: sacreBLEU's three
    cases, the third (target inside or just after the block) with Python's clamping of slices."""
    if target < start:
        k = _copy(words, 0, target, out, 0)
        k = _copy(words, start, start + length, out, k)
        k = _copy(words, target, start, out, k)
        _copy(words, start + length, n, out, k)
    elif target > start + length:
        k = _copy(words, 0, start, out, 0)
        k = _copy(words, start + length, target, out, k)
        k = _copy(words, start, start + length, out, k)
        _copy(words, target, n, out, k)
    else:
        cut = min(n, length + target)
        k = _copy(words, 0, start, out, 0)
        k = _copy(words, start + length, cut, out, k)
        k = _copy(words, start, start + length, out, k)
        _copy(words, cut, n, out, k)


@jit
def ter_edits_one(hyp, ref, cost, ops, cand_cost, back, cur, cand, best_words, hyp_err, ref_err, align, lo, hi):
    """sacreBLEU's number of edits for one pair; scratch arrays of at least the pair's sizes.

    ``cost``/``ops``/``cand_cost``/``back`` are ``(n + 1, m + 1)`` matrices; the
    others are vectors (``lo``/``hi``: ``n + 1``).  Returns -1 if the trace
    ever reaches an undefined cell (sacreBLEU raises there; unreachable).
    """
    n = hyp.shape[0]
    m = ref.shape[0]
    if m == 0:
        return n
    if n == 0:
        return m
    band(n, m, lo, hi)
    for i in range(n + 1):
        for j in range(m + 1):
            cost[i, j] = INF
            cand_cost[i, j] = INF
            back[i, j] = INF
            ops[i, j] = OP_UNDEF
    for j in range(m + 1):
        cost[0, j] = j
        cand_cost[0, j] = j
        ops[0, j] = OP_INS_REF
    for q in range(n):
        cur[q] = hyp[q]
    first = 1  # first row of ``cost`` to (re)compute
    shifts = 0
    checked = 0
    while True:
        for i in range(first, n + 1):
            _row_ops(cur[i - 1], ref, lo[i], hi[i], cost[i - 1], cost[i], ops[i])
        pre = cost[n, m]
        _backward(cur[:n], ref, lo, hi, back)
        # trace back, read as rewriting the reference into the hypothesis
        for q in range(n):
            hyp_err[q] = 0
        i = n
        j = m
        while i > 0 or j > 0:
            op = ops[i, j]
            if op == OP_NOP or op == OP_SUB:
                e = 1 if op == OP_SUB else 0
                align[j - 1] = i - 1
                hyp_err[i - 1] = e
                ref_err[j - 1] = e
                i -= 1
                j -= 1
            elif op == OP_INS_REF:
                align[j - 1] = i - 1
                ref_err[j - 1] = 1
                j -= 1
            elif op == OP_DEL_HYP:
                hyp_err[i - 1] = 1
                i -= 1
            else:
                return -1
        # scan the shift candidates
        found = False
        b_gain = 0
        b_len = 0
        b_start = 0
        b_target = 0
        stop = False
        for sh in range(n):
            for sr in range(m):
                if abs(sr - sh) > MAX_SHIFT_DIST:
                    continue
                length = 0
                while length < MAX_SHIFT_SIZE and cur[sh + length] == ref[sr + length]:
                    length += 1
                    # --- candidate (sh, sr, length) ---
                    herr = 0
                    for q in range(sh, sh + length):
                        herr += hyp_err[q]
                    rerr = 0
                    for q in range(sr, sr + length):
                        rerr += ref_err[q]
                    a = align[sr]
                    if herr > 0 and rerr > 0 and not (sh <= a < sh + length):
                        prev_target = -1
                        for off in range(-1, length):
                            if sr + off == -1:
                                target = 0
                            else:
                                target = align[sr + off] + 1
                            if target == prev_target:
                                continue
                            prev_target = target
                            _apply_shift(cur, n, sh, length, target, cand)
                            p = 0
                            while p < n and cand[p] == cur[p]:
                                p += 1
                            # a candidate whose cost is known to exceed ``pre - b_gain`` cannot win (not even
                            # on a tie-break): its rows stop as soon as a row's lower bound says so
                            limit = pre - b_gain if found else INF
                            pruned = False
                            after = pre
                            if p < n:
                                # rows p+1 .. e differ (e: end of the moved words); past e the words are the
                                # current ones, whose remaining cost from every cell of row e is ``back[e]``
                                e = n
                                while cand[e - 1] == cur[e - 1]:
                                    e -= 1
                                bound = _row_cost(cand[p], ref, lo[p + 1], hi[p + 1], cost[p], cand_cost[p + 1],
                                                  n - p - 1)
                                pruned = bound > limit
                                r = p + 2
                                while r <= e and not pruned:
                                    bound = _row_cost(cand[r - 1], ref, lo[r], hi[r], cand_cost[r - 1], cand_cost[r],
                                                      n - r)
                                    pruned = bound > limit
                                    r += 1
                                after = np.int64(INF) * 2
                                for j in range(lo[e], hi[e]):
                                    v = np.int64(cand_cost[e, j]) + np.int64(back[e, j])
                                    if v < after:
                                        after = v
                            gain = pre - after
                            checked += 1
                            better = False
                            if pruned:
                                better = False
                            elif not found:
                                better = True
                            elif gain != b_gain:
                                better = gain > b_gain
                            elif length != b_len:
                                better = length > b_len
                            elif sh != b_start:
                                better = sh < b_start
                            else:
                                better = target < b_target
                            if better:
                                found = True
                                b_gain = gain
                                b_len = length
                                b_start = sh
                                b_target = target
                                for q in range(n):
                                    best_words[q] = cand[q]
                        if checked >= MAX_SHIFT_CANDIDATES:
                            stop = True
                            break
                    # --- end candidate ---
                    if sh + length == n or sr + length == m:
                        break
                if stop:
                    break
            if stop:
                break
        if checked >= MAX_SHIFT_CANDIDATES or not found or b_gain <= 0:
            return shifts + pre
        shifts += 1
        p = 0
        while p < n and best_words[p] == cur[p]:
            p += 1
        for q in range(n):
            cur[q] = best_words[q]
        first = p + 1


@jit(parallel=True)
def ter_edits(tokens, hyp_ptr, ref_ptr, job_hyp, job_ref, chunk_ptr, mat_off, vec_off, mat_size, vec_size):
    """Edits of every job ``k``: hypothesis row ``job_hyp[k]`` against reference row ``job_ref[k]``.

    Row ``r`` of the hypotheses is ``tokens[hyp_ptr[r]:hyp_ptr[r + 1]]`` (and
    likewise ``ref_ptr`` for references).  Jobs ``chunk_ptr[c] ..
    chunk_ptr[c + 1]`` run on one thread, with scratch at ``mat_off[c]``
    (matrices) and ``vec_off[c]`` (vectors) in buffers of ``mat_size`` and
    ``vec_size`` cells, all allocated here before the parallel loop.
    """
    n_jobs = job_hyp.shape[0]
    n_chunks = chunk_ptr.shape[0] - 1
    out = np.empty(n_jobs, np.int64)
    cost_buf = np.empty(mat_size, np.int32)
    cand_buf = np.empty(mat_size, np.int32)
    back_buf = np.empty(mat_size, np.int32)
    ops_buf = np.empty(mat_size, np.int8)
    ivec = np.empty(8 * vec_size, np.int64)
    for c in prange(n_chunks):
        mo = mat_off[c]
        cap = vec_off[c + 1] - vec_off[c]
        vo = 8 * vec_off[c]
        cur = ivec[vo:vo + cap]
        cand = ivec[vo + cap:vo + 2 * cap]
        best_words = ivec[vo + 2 * cap:vo + 3 * cap]
        hyp_err = ivec[vo + 3 * cap:vo + 4 * cap]
        ref_err = ivec[vo + 4 * cap:vo + 5 * cap]
        align = ivec[vo + 5 * cap:vo + 6 * cap]
        lo = ivec[vo + 6 * cap:vo + 7 * cap]
        hi = ivec[vo + 7 * cap:vo + 8 * cap]
        for k in range(chunk_ptr[c], chunk_ptr[c + 1]):
            h = tokens[hyp_ptr[job_hyp[k]]:hyp_ptr[job_hyp[k] + 1]]
            r = tokens[ref_ptr[job_ref[k]]:ref_ptr[job_ref[k] + 1]]
            n = h.shape[0]
            m = r.shape[0]
            size = (n + 1) * (m + 1)
            cost = cost_buf[mo:mo + size].reshape((n + 1, m + 1))
            cand_cost = cand_buf[mo:mo + size].reshape((n + 1, m + 1))
            ops = ops_buf[mo:mo + size].reshape((n + 1, m + 1))
            back = back_buf[mo:mo + size].reshape((n + 1, m + 1))
            out[k] = ter_edits_one(h, r, cost, ops, cand_cost, back, cur, cand, best_words, hyp_err, ref_err, align,
                                   lo, hi)
    return out


def plan_chunks(hyp_len, ref_len, n_chunks):
    """``(chunk_ptr, mat_off, vec_off, mat_size, vec_size)`` for :func:`ter_edits`: ``n_chunks`` runs of consecutive
    jobs (job ``k``: lengths ``hyp_len[k]``, ``ref_len[k]``), each with scratch for its largest job."""
    n_jobs = len(hyp_len)
    n_chunks = max(1, min(int(n_chunks), n_jobs))
    chunk_ptr = np.linspace(0, n_jobs, n_chunks + 1).round().astype(np.int64)
    cells = (np.asarray(hyp_len, np.int64) + 1) * (np.asarray(ref_len, np.int64) + 1)
    longest = np.maximum(hyp_len, ref_len).astype(np.int64) + 1
    mat = np.zeros(n_chunks + 1, np.int64)
    vec = np.zeros(n_chunks + 1, np.int64)
    for c in range(n_chunks):
        a, b = chunk_ptr[c], chunk_ptr[c + 1]
        mat[c + 1] = mat[c] + (cells[a:b].max() if b > a else 0)
        vec[c + 1] = vec[c] + (longest[a:b].max() if b > a else 0)
    return chunk_ptr, mat, vec, int(mat[-1]), int(vec[-1])


@jit
def sequential_sum(values):
    """``((0 + v0) + v1) + ...`` left to right in float64, as a Python loop adds (not NumPy's pairwise sum)."""
    total = 0.0
    for v in values:
        total += v
    return total
