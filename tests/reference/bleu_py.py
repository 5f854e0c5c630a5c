"""Plain-Python twin of the BLEU sufficient statistics (Counter-based, readable).

For one pair (hypothesis tokens, list of reference token lists) and orders
``1..max_order``:

- ``correct[n]``: hypothesis n-gram counts clipped by the n-gram's MAXIMUM count
  over the references, summed;
- ``total[n]``: number of hypothesis n-grams;
- ``ref_len``: the reference length closest to the hypothesis length, ties to
  the shorter one.
"""
from __future__ import annotations

from collections import Counter

import numpy as np


def ngram_counts(tokens, n):
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def closest_ref_len(hyp_len, ref_lens):
    return min(ref_lens, key=lambda r: (abs(r - hyp_len), r))


def pair_stats(hyp, refs, max_order):
    correct, total = [], []
    for n in range(1, max_order + 1):
        h = ngram_counts(hyp, n)
        best = Counter()
        for ref in refs:
            for g, c in ngram_counts(ref, n).items():
                best[g] = max(best[g], c)
        correct.append(sum(min(c, best[g]) for g, c in h.items()))
        total.append(sum(h.values()))
    return len(hyp), closest_ref_len(len(hyp), [len(r) for r in refs]), correct, total


def corpus_stats(hyps, refs_per_pair, max_order):
    """Arrays ``sys_len (N,)``, ``ref_len (N,)``, ``correct (K, N)``, ``total (K, N)``."""
    rows = [pair_stats(h, r, max_order) for h, r in zip(hyps, refs_per_pair)]
    sys_len = np.array([r[0] for r in rows], np.int64)
    ref_len = np.array([r[1] for r in rows], np.int64)
    correct = np.array([r[2] for r in rows], np.int64).reshape(len(rows), max_order).T
    total = np.array([r[3] for r in rows], np.int64).reshape(len(rows), max_order).T
    return sys_len, ref_len, correct, total
