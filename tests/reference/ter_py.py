"""Plain-Python twin of :mod:`vecscore.kernels.ter`: the same algorithm written the straightforward way.

Every edit distance is computed from scratch as a full list-of-lists matrix
(no prefix reuse), the alignment is built from an explicit trace string, and
candidates are collected into a list before the best one is picked, so that
the kernel's incremental bookkeeping is checked against a direct statement
of the rules (see the kernel module's docstring for them).
"""
from __future__ import annotations

import math

BEAM = 25
MAX_SIZE = 10
MAX_DIST = 50
BUDGET = 1000
INF = float("inf")


def beam_distance(hyp: list, ref: list) -> tuple[int, str]:
    """(cost, trace) of the banded edit distance; trace letters: '=' match, 's' sub, 'h' hyp word, 'r' ref word."""
    n, m = len(hyp), len(ref)
    ratio = m / n if n else 1
    width = math.ceil(ratio / 2 + BEAM) if BEAM < ratio / 2 else BEAM
    cost = [[INF] * (m + 1) for _ in range(n + 1)]
    move = [["?"] * (m + 1) for _ in range(n + 1)]
    for j in range(m + 1):
        cost[0][j] = j
        move[0][j] = "r"
    for i in range(1, n + 1):
        diag = math.floor(i * ratio)
        lo = max(0, diag - width)
        hi = m + 1 if i == n else min(m + 1, diag + width)
        for j in range(lo, hi):
            if j == 0:
                cost[i][0] = cost[i - 1][0] + 1
                move[i][0] = "h"
                continue
            same = hyp[i - 1] == ref[j - 1]
            options = [
                (cost[i - 1][j - 1] + (0 if same else 1), "=" if same else "s"),
                (cost[i - 1][j] + 1, "h"),
                (cost[i][j - 1] + 1, "r"),
            ]
            for c, mv in options:  # the first of the cheapest, in this order
                if c < cost[i][j]:
                    cost[i][j], move[i][j] = c, mv
    trace = []
    i, j = n, m
    while i or j:
        mv = move[i][j]
        trace.append(mv)
        if mv in "=s":
            i, j = i - 1, j - 1
        elif mv == "h":
            i -= 1
        elif mv == "r":
            j -= 1
        else:
            raise AssertionError("trace reached a cell outside the band")
    return cost[n][m], "".join(reversed(trace))


def alignment(trace: str, n: int, m: int):
    """(align, hyp_err, ref_err): align[r] = hyp position of ref word r (-1 before the first)."""
    align, hyp_err, ref_err = [None] * m, [0] * n, [0] * m
    h = r = 0
    for mv in trace:
        if mv in "=s":
            align[r] = h
            hyp_err[h] = ref_err[r] = int(mv == "s")
            h, r = h + 1, r + 1
        elif mv == "h":
            hyp_err[h] = 1
            h += 1
        else:
            align[r] = h - 1
            ref_err[r] = 1
            r += 1
    return align, hyp_err, ref_err


def move_block(words: list, start: int, length: int, target: int) -> list:
    block = words[start:start + length]
    if target < start:
        return words[:target] + block + words[target:start] + words[start + length:]
    if target > start + length:
        return words[:start] + words[start + length:target] + block + words[target:]
    return words[:start] + words[start + length:target + length] + block + words[target + length:]


def matches(hyp: list, ref: list):
    """(start_h, start_r, length) in sacreBLEU's enumeration order."""
    out = []
    for sh in range(len(hyp)):
        for sr in range(len(ref)):
            if abs(sh - sr) > MAX_DIST:
                continue
            length = 0
            while (length < MAX_SIZE and sh + length < len(hyp) and sr + length < len(ref)
                   and hyp[sh + length] == ref[sr + length]):
                length += 1
                out.append((sh, sr, length))
    return out


def best_shift(hyp: list, ref: list, budget_used: int):
    """(gain, shifted, budget_used) of one greedy step; gain 0 and ``hyp`` when there is no candidate."""
    before, trace = beam_distance(hyp, ref)
    align, hyp_err, ref_err = alignment(trace, len(hyp), len(ref))
    tried = []  # (gain, length, start_h, target, shifted) in evaluation order
    for sh, sr, length in matches(hyp, ref):
        if not any(hyp_err[sh:sh + length]) or not any(ref_err[sr:sr + length]):
            continue
        if sh <= align[sr] < sh + length:
            continue
        last = None
        for off in range(-1, length):
            target = 0 if sr + off < 0 else align[sr + off] + 1
            if target == last:
                continue
            last = target
            shifted = move_block(hyp, sh, length, target)
            tried.append((before - beam_distance(shifted, ref)[0], length, sh, target, shifted))
            budget_used += 1
        if budget_used >= BUDGET:
            break
    if not tried:
        return 0, hyp, budget_used
    best = tried[0]
    for cand in tried[1:]:
        if (cand[0], cand[1], -cand[2], -cand[3]) > (best[0], best[1], -best[2], -best[3]):
            best = cand
    return best[0], best[4], budget_used


def ter_edits(hyp: list, ref: list, info: dict | None = None) -> int:
    """Number of edits (shifts + edit distance) of ``hyp`` against one reference.

    ``info`` (optional) receives ``shifts`` and ``budget_hit`` (the candidate budget ended the search).
    """
    if not ref:
        return len(hyp)
    shifts, used = 0, 0
    while True:
        gain, shifted, used = best_shift(hyp, ref, used)
        if used >= BUDGET or gain <= 0:
            break
        hyp = shifted
        shifts += 1
    if info is not None:
        info["shifts"] = shifts
        info["budget_hit"] = used >= BUDGET
    return shifts + beam_distance(hyp, ref)[0]


def ter_statistics(hyp: list, refs: list) -> tuple[int, float]:
    """(fewest edits over the references, average reference length) of one pair."""
    edits = min(ter_edits(hyp, r) for r in refs)
    return edits, sum(len(r) for r in refs) / len(refs)
