"""Seeded synthetic corpora for the benchmarks.

Summary-length pairs: about 50 tokens a side, words drawn from a Zipfian
distribution over a fixed vocabulary of made-up lowercase words, with
sentence punctuation; the reference shares part of the hypothesis so that
overlaps are realistic.
"""
from __future__ import annotations

import numpy as np


def _vocabulary(rng: np.random.Generator, size: int) -> np.ndarray:
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    lengths = rng.integers(2, 10, size)
    words = {"".join(rng.choice(letters, n)) for n in lengths}
    return np.array(sorted(words))


def summary_pairs(n_pairs: int, *, seed: int = 0, tokens: int = 50, vocab: int = 20_000, n_refs: int = 1):
    """``(hyps, refs)``: ``refs`` is a list of str, or of lists of ``n_refs`` str."""
    rng = np.random.default_rng(seed)
    words = _vocabulary(rng, vocab)
    ranks = np.minimum(rng.zipf(1.1, size=(n_pairs * (1 + n_refs), tokens)) - 1, len(words) - 1)
    toks = words[ranks]
    hyps, refs = [], []
    for i in range(n_pairs):
        h = toks[i * (1 + n_refs)]
        hyps.append(_text(h))
        rs = []
        for k in range(n_refs):
            r = toks[i * (1 + n_refs) + 1 + k].copy()
            keep = rng.random(tokens) < 0.5
            r[keep] = h[keep]
            rs.append(_text(r))
        refs.append(rs[0] if n_refs == 1 else rs)
    return hyps, refs


def _text(tokens) -> str:
    # sentences of about 17 words, first word capitalised, ending in " ."
    out = []
    for start in range(0, len(tokens), 17):
        sent = list(tokens[start : start + 17])
        sent[0] = sent[0].capitalize()
        out.append(" ".join(sent) + " .")
    return " ".join(out)
