"""ROUGE-1.5.5.pl's ROUGE-L (union LCS) and ROUGE-W (the script's WLCS), in Python.

The same statistics as :func:`vecscore.kernels.union_lcs.union_lcs_hits_pairs` and
:func:`vecscore.kernels.wlcs.wlcs_perl_pairs` (whose module docstrings
describe the script's algorithms and quirks) for the script's layout: one
batch of texts split into lines (``ids``, ``line_offsets``, ``text_lines``),
hypotheses ``0 .. n_pairs - 1`` first, then the references, those of pair
``p`` being texts ``n_pairs + ref_ptr[p] ..``.  One value per reference row.

ROUGE-L: for every (reference line, hypothesis line) the positions of the
reference line on the LCS the script's walk back finds are marked; the LCS
table is never built: Hyyro's bit-parallel rows (Python integers of
``len(hyp line)`` bits) give its values, ``t[i][j]`` = the zero bits of row
``i`` below bit ``j``, and the walk visits only the rows whose token occurs in
the hypothesis line (any other row equals the one above).

ROUGE-W: the script's DP in floats, then its walk back over the moves.  A
cell is computed only where it can differ from the row above: at a match, at
a drop of the row above (a match below its left neighbour), and along the
cells that go left after one; every other cell copies the row above with the
move "up", and a row without a match below a row without a drop is a copy.
The float operations are the kernel's, in the same order.  Its cost grows
with ``len(ref line) * len(hyp line)`` per line pair; see
:func:`vecscore.rouge.rouge155.plain.plain_route_fits` for the bound under ``auto``.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

__all__ = ["union_lcs_hits", "wlcs_stats"]

_UP, _LEFT, _DIAG = 1, 2, 3


def _texts(ids, line_offsets, text_lines, budget):
    """Per text: its lines (lists of ids) and its clipping-budget tokens (a list of ids)."""
    toks = np.asarray(ids, np.int64).tolist()
    off = np.asarray(line_offsets, np.int64).tolist()
    tl = np.asarray(text_lines, np.int64).tolist()
    lines = [[toks[off[s]:off[s + 1]] for s in range(tl[i], tl[i + 1])] for i in range(len(tl) - 1)]
    if budget is None:
        budgets = [toks[off[tl[i]]:off[tl[i + 1]]] for i in range(len(tl) - 1)]
    else:
        b_ids = np.asarray(budget[0], np.int64).tolist()
        b_off = np.asarray(budget[1], np.int64).tolist()
        budgets = [b_ids[b_off[i]:b_off[i + 1]] for i in range(len(b_off) - 1)]
    return lines, budgets


def _hyp_masks(h: list) -> dict:
    """Token -> the bits of its positions in ``h``."""
    pm: dict = {}
    for j, x in enumerate(h):
        pm[x] = pm.get(x, 0) | (1 << j)
    return pm


def _mark_lcs(r: list, h: list, pm: dict, full: int, mark: bytearray, base: int) -> None:
    """Mark ``mark[base + i]`` for the positions ``i`` of ``r`` on the script's LCS of ``r`` and ``h``
    (``markLCS``: a match goes diagonal; otherwise left only when ``t[i][j-1] > t[i-1][j]``, else up).

    ``pm``/``full``: :func:`_hyp_masks` of ``h`` and ``2**len(h) - 1``.  Keeps the rows whose token
    occurs in ``h`` as the complements of Hyyro's vectors (``t[i][j]`` = their set bits below ``j``).
    """
    v = full
    live = []  # (i, zeros of row i - 1, zeros of row i) for the rows whose token occurs in h
    for i, x in enumerate(r, 1):
        b = pm.get(x)
        if b is not None:
            u = v & b
            before = v
            v = ((v + u) | (v - u)) & full
            live.append((i, full ^ before, full ^ v))
    j = len(h)
    for i, above, row in reversed(live):
        ri = r[i - 1]
        while j > 0:
            if ri == h[j - 1]:
                j -= 1
                mark[base + i - 1] = 1
                break
            # left when t[i][j - 1] > t[i - 1][j]
            if (row & ((1 << (j - 1)) - 1)).bit_count() > (above & ((1 << j) - 1)).bit_count():
                j -= 1
            else:
                break
        if j == 0:
            break


def union_lcs_hits(ids, line_offsets, text_lines, n_pairs: int, ref_ptr, budget=None) -> np.ndarray:
    """Summary-level union-LCS hits of every reference row with its hypothesis, clipped by both texts'
    unigram budgets (``budget``: ``(ids, offsets)`` per text, default the text's line tokens)."""
    lines, budgets = _texts(ids, line_offsets, text_lines, budget)
    ref_ptr = np.asarray(ref_ptr, np.int64).tolist()
    out = np.zeros(ref_ptr[-1] if ref_ptr else 0, np.int64)
    for p in range(n_pairs):
        hyp = [(h, _hyp_masks(h), (1 << len(h)) - 1) for h in lines[p] if h]
        if not hyp:
            continue
        hyp_budget = Counter(budgets[p])
        for q in range(ref_ptr[p], ref_ptr[p + 1]):
            ref_lines = lines[n_pairs + q]
            ref = [x for r in ref_lines for x in r]
            if not ref:
                continue
            mark = bytearray(len(ref))
            for h, pm, full in hyp:
                base = 0
                for r in ref_lines:
                    if r:
                        _mark_lcs(r, h, pm, full, mark, base)
                    base += len(r)
            # walking the reference in order, a marked token counts while both budgets have it left:
            # the first min(budgets) marked occurrences of each token
            marked = Counter(x for x, on in zip(ref, mark) if on)
            ref_budget = Counter(budgets[n_pairs + q])
            out[q] = sum(min(c, hyp_budget[x], ref_budget[x]) for x, c in marked.items())
    return out


def _wlcs_mark(r: list, h: list, where: dict, f: list, mark: bytearray, base: int) -> None:
    """The script's ``wlcs_inner`` + ``markLCS``: mark ``mark[base + i]`` for the positions ``i`` of
    ``r`` on its WLCS path with ``h`` (``where``: a token's positions in ``h``, increasing).

    A match takes the diagonal ``c + f(k + 1) - f(k)`` (``k`` the run of matches before it); any
    other cell the larger of up and left, up on ties.  A cell that is not a match copies the row
    above (move "up") unless its left neighbour is larger, which can only start at a match of its
    row or at a *drop* of the row above (a match below its left neighbour).  So a row is
    computed from event to event: at a match, at a drop above, and along the cells that go left
    after one; between events it is a copy of the row above.
    """
    n = len(h)
    above = [0.0] * (n + 1)  # the row above: above[j + 1] is its cell at column j
    above_runs: dict = {}  # column -> run length, at the row above's matches
    drops: list = []  # the row above's drop columns, increasing
    moves: list = []  # per row: its moves (None: every move "up")
    for ri in r:
        cols = where.get(ri, ())
        if not cols and not drops:  # no event: a copy of the row above
            moves.append(None)
            above_runs = {}
            continue
        row = above[:]
        mv = bytearray(b"\x01") * n
        runs = {}
        new_drops = []
        n_cols, n_drops = len(cols), len(drops)
        ci = di = 0
        j = min(cols[0] if cols else n, drops[0] if drops else n)
        left = above[j]
        while j < n:
            if ci < n_cols and cols[ci] == j:
                k = above_runs.get(j - 1, 0)
                value = (above[j] + f[k + 1]) - f[k]
                runs[j] = k + 1
                mv[j] = _DIAG
                if value < left:
                    new_drops.append(j)
                left = row[j + 1] = value
                ci += 1
                j += 1
            elif above[j + 1] >= left:
                # this cell and the next ones copy the row above, up to the next event
                while di < n_drops and drops[di] <= j:
                    di += 1
                j = min(cols[ci] if ci < n_cols else n, drops[di] if di < n_drops else n)
                left = above[j]
            else:
                mv[j] = _LEFT
                row[j + 1] = left
                j += 1
        above, above_runs, drops = row, runs, new_drops
        moves.append(mv)
    i, j = len(r), n
    while i > 0 and j > 0:
        mv = moves[i - 1]
        move = _UP if mv is None else mv[j - 1]
        if move == _DIAG:
            i -= 1
            j -= 1
            mark[base + i] = 1
        elif move == _UP:
            i -= 1
        else:
            j -= 1


def _weights(alpha: float, top: int) -> list:
    """``f(k) = k ** alpha`` for ``k = 0 .. top`` (C ``pow``, as the kernels and Perl's ``**``)."""
    return [float(q) ** alpha for q in range(top + 1)]


def wlcs_stats(ids, line_offsets, text_lines, n_pairs: int, ref_ptr, alpha: float, budget=None):
    """The script's ROUGE-W statistics of every reference row with its hypothesis: ``(whit, wbase)``,
    float64 (``sum f(run)`` over the clipped runs; ``sum f(len)`` over the reference lines)."""
    lines, budgets = _texts(ids, line_offsets, text_lines, budget)
    ref_ptr = np.asarray(ref_ptr, np.int64).tolist()
    n_refs = ref_ptr[-1] if ref_ptr else 0
    whit = np.zeros(n_refs, np.float64)
    wbase = np.zeros(n_refs, np.float64)
    f = _weights(float(alpha), max((len(x) for ls in lines for x in ls), default=0) + 1)
    for p in range(n_pairs):
        hyp = []
        for h in lines[p]:
            if h:
                where: dict = {}
                for j, x in enumerate(h):
                    where.setdefault(x, []).append(j)
                hyp.append((h, where))
        hyp_budget = Counter(budgets[p])
        for q in range(ref_ptr[p], ref_ptr[p + 1]):
            ref_lines = lines[n_pairs + q]
            base = 0.0
            for r in ref_lines:
                base += f[len(r)]
            wbase[q] = base
            n_ref = sum(map(len, ref_lines))
            if not hyp or n_ref == 0:
                continue
            mark = bytearray(n_ref)
            for h, where in hyp:
                at = 0
                for r in ref_lines:
                    if r:
                        _wlcs_mark(r, h, where, f, mark, at)
                    at += len(r)
            whit[q] = _weighted_hits(ref_lines, mark, hyp_budget.copy(), Counter(budgets[n_pairs + q]), f)
    return whit, wbase


def _weighted_hits(ref_lines, mark, bud_h, bud_r, f) -> float:
    """``sum f(run)`` over the reference lines' marked runs, clipped by both budgets.

    The script's quirk: a marked token whose budget is spent neither extends nor ends the run, so the
    run goes on over it (and a run pending when the line ends on one is lost).
    """
    hit = 0.0
    at = 0
    for r in ref_lines:
        m = len(r)
        run = 0
        for j in range(m):
            if mark[at + j]:
                tok = r[j]
                if bud_h[tok] > 0 and bud_r[tok] > 0:
                    run += 1
                    if (j + 1 < m and mark[at + j + 1] == 0) or j + 1 == m:
                        hit += f[run]
                        run = 0
                    bud_h[tok] -= 1
                    bud_r[tok] -= 1
        at += m
    return hit
