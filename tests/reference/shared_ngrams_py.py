"""Plain-Python twin of :mod:`vecscore.kernels.shared_ngrams`: clipped matches against one shared set of references.

``max_counts(refs, max_order)``: every reference n-gram's maximum count over the references (the clip);
``shared_correct(hyps, refs, max_order)``: for every hypothesis and order, its n-gram counts clipped by
those maxima, summed.  Token ids ``< 0`` in a hypothesis match nothing (references hold none: the
kernel's "no reference has this token").
"""
from __future__ import annotations

from collections import Counter

import numpy as np


def ngrams(tokens, n):
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def max_counts(refs, max_order):
    best: Counter = Counter()
    for ref in refs:
        for n in range(1, max_order + 1):
            for g, c in ngrams(list(ref), n).items():
                best[g] = max(best[g], c)
    return best


def shared_correct(hyps, refs, max_order):
    best = max_counts(refs, max_order)
    out = np.zeros((len(hyps), max_order), np.int64)
    for p, hyp in enumerate(hyps):
        for n in range(1, max_order + 1):
            out[p, n - 1] = sum(min(c, best.get(g, 0)) for g, c in ngrams(list(hyp), n).items())
    return out


def vocab_lookup(tokens, vocab):
    """Each token's index in ``vocab`` (a list of distinct tokens), or -1."""
    index = {t: i for i, t in enumerate(vocab)}
    return np.array([index.get(t, -1) for t in tokens], np.int64)
