"""Plain-Python textbook twins of the LCS / union-LCS / WLCS kernels.

Readable, slow, no numba and no rouge_score import: these are what
``vecscore.kernels.lcs`` and ``vecscore.kernels.wlcs`` are tested against.
Tokens are any hashable values (the kernels see interned int ids).
"""
from __future__ import annotations

from collections import Counter


def lcs_table(ref, hyp):
    """Full ``(len(ref)+1) x (len(hyp)+1)`` LCS table, ``t[i][j] = LCS(ref[:i], hyp[:j])``."""
    t = [[0] * (len(hyp) + 1) for _ in range(len(ref) + 1)]
    for i in range(1, len(ref) + 1):
        for j in range(1, len(hyp) + 1):
            if ref[i - 1] == hyp[j - 1]:
                t[i][j] = t[i - 1][j - 1] + 1
            else:
                t[i][j] = max(t[i - 1][j], t[i][j - 1])
    return t


def lcs_length(a, b):
    """Length of the longest common subsequence (textbook O(len(a) * len(b)) DP)."""
    return lcs_table(a, b)[-1][-1]


def lcs_ref_positions(ref, hyp):
    """Positions of ``ref`` on one LCS, chosen by the rouge-score / ROUGE-1.5.5 walk.

    Walk back from the bottom-right corner: on equal tokens go diagonal (a hit);
    otherwise go left (drop a hyp token) only if that cell is strictly larger
    than the one above, else go up (drop a ref token).
    """
    t = lcs_table(ref, hyp)
    i, j = len(ref), len(hyp)
    hits = []
    while i > 0 and j > 0:
        if ref[i - 1] == hyp[j - 1]:
            hits.append(i - 1)
            i -= 1
            j -= 1
        elif t[i][j - 1] > t[i - 1][j]:
            j -= 1
        else:
            i -= 1
    return hits[::-1]


def union_lcs_hits(ref_sents, hyp_sents):
    """Summary-level union-LCS hits (rouge-score ``rougeLsum``, ROUGE-1.5.5 ROUGE-L).

    For each reference sentence, the union of its LCS positions against every
    hypothesis sentence; then, in reference-position order, a position counts
    only while the token's remaining count in the whole reference and in the
    whole hypothesis are both positive, and both are decremented.
    """
    budget_ref = Counter(tok for s in ref_sents for tok in s)
    budget_hyp = Counter(tok for s in hyp_sents for tok in s)
    hits = 0
    for ref in ref_sents:
        marked = set()
        for hyp in hyp_sents:
            marked.update(lcs_ref_positions(ref, hyp))
        for pos in sorted(marked):
            tok = ref[pos]
            if budget_ref[tok] > 0 and budget_hyp[tok] > 0:
                hits += 1
                budget_ref[tok] -= 1
                budget_hyp[tok] -= 1
    return hits


def _perl_wlcs_marks(ref, hyp, f):
    """Reference positions hit by ROUGE-1.5.5's ``wlcs_inner`` + ``markLCS``."""
    m, n = len(ref), len(hyp)
    c = [[0.0] * (n + 1) for _ in range(m + 1)]
    run = [[0] * (n + 1) for _ in range(m + 1)]
    move = [[""] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            if ref[i - 1] == hyp[j - 1]:
                k = run[i - 1][j - 1]
                # Perl: $c[i-1][j-1] + f(k+1) - f(k), evaluated left to right.
                c[i][j] = (c[i - 1][j - 1] + f(k + 1)) - f(k)
                run[i][j] = k + 1
                move[i][j] = "diag"
            elif c[i - 1][j] >= c[i][j - 1]:
                c[i][j] = c[i - 1][j]
                move[i][j] = "up"
            else:
                c[i][j] = c[i][j - 1]
                move[i][j] = "left"
    marks = set()
    i, j = m, n
    while i and j:
        if move[i][j] == "diag":
            i -= 1
            j -= 1
            marks.add(i)
        elif move[i][j] == "up":
            i -= 1
        else:
            j -= 1
    return marks


def wlcs_perl(ref_sents, hyp_sents, alpha=1.2):
    """ROUGE-1.5.5 ``wlcs``: returns ``(weighted_hits, base)``.

    ``base = sum f(len(r))`` over reference sentences; ``weighted_hits`` adds
    ``f(run)`` for runs of consecutive marked-and-unclipped reference positions,
    with the script's bookkeeping quirk: a marked position that fails the
    unigram clipping neither extends nor ends the current run, so a pending run
    carries over it (and is dropped if the sentence ends right after it).
    """
    def f(k):
        return float(k) ** alpha

    budget_ref = Counter(tok for s in ref_sents for tok in s)
    budget_hyp = Counter(tok for s in hyp_sents for tok in s)
    hit = 0.0
    base = 0.0
    for ref in ref_sents:
        marks = set()
        base += f(len(ref))
        if ref:
            for hyp in hyp_sents:
                marks |= _perl_wlcs_marks(ref, hyp, f)
        run = 0
        for j, tok in enumerate(ref):
            if j in marks and budget_ref[tok] > 0 and budget_hyp[tok] > 0:
                run += 1
                if j + 1 < len(ref) and (j + 1) not in marks:
                    hit += f(run)
                    run = 0
                elif j + 1 == len(ref):
                    hit += f(run)
                    run = 0
                budget_ref[tok] -= 1
                budget_hyp[tok] -= 1
    return hit, base


def wlcs_lin(a, b, alpha=1.2):
    """Lin (2004) weighted LCS value ``WLCS(a, b)`` with ``f(k) = k ** alpha``."""
    def f(k):
        return float(k) ** alpha

    m, n = len(a), len(b)
    c = [[0.0] * (n + 1) for _ in range(m + 1)]
    run = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            if a[i - 1] == b[j - 1]:
                k = run[i - 1][j - 1]
                c[i][j] = c[i - 1][j - 1] + f(k + 1) - f(k)
                run[i][j] = k + 1
            else:
                c[i][j] = max(c[i - 1][j], c[i][j - 1])
    return c[m][n]
