"""Plain-Python twin of ROUGE-N and the multi-reference conventions.

Readable textbook code, no NumPy: the reference the vectorized path is tested
against.  Inputs are token lists.
"""
from __future__ import annotations

from collections import Counter


def ngrams(tokens, n):
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def rouge_n_counts(hyp, ref, n):
    """``(hits, hyp_count, ref_count)`` for one pair."""
    h, r = ngrams(hyp, n), ngrams(ref, n)
    hits = sum(min(c, h[g]) for g, c in r.items())
    return hits, sum(h.values()), sum(r.values())


def f1(p, r):
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def prf(hits, p_den, r_den):
    p = hits / max(p_den, 1)
    r = hits / max(r_den, 1)
    return p, r, f1(p, r)


def rouge_n_multi(hyp, refs, n, convention):
    stats = [rouge_n_counts(hyp, ref, n) for ref in refs]
    per = [prf(h, hc, rc) for h, hc, rc in stats]
    if convention == "best":
        return max(per, key=lambda s: s[2])  # max() keeps the first on ties
    if convention == "best-recall":
        return max(per, key=lambda s: s[1])
    if convention == "pooled":
        hits = sum(s[0] for s in stats)
        return prf(hits, len(refs) * stats[0][1], sum(s[2] for s in stats))
    if convention == "mean":
        return tuple(sum(s[k] for s in per) / len(per) for k in range(3))
    if convention == "jackknife":
        if len(refs) == 1:
            return per[0]
        bests = [max((per[j] for j in range(len(refs)) if j != i), key=lambda s: s[2]) for i in range(len(refs))]
        return tuple(sum(b[k] for b in bests) / len(bests) for k in range(3))
    raise ValueError(convention)
