"""NLTK's METEOR pair by pair in plain Python: the route of small batches and of the drop-in functions.

The same alignment as :mod:`vecscore.meteor.nltk_align` (and as NLTK), word
by word: below a few thousand words a batch costs less this way than in the
array operations' fixed costs.  Stems and synonyms come from the same
per-word caches (:mod:`vecscore.meteor.nltk_lexicon`), and the score from
the same formula, written here with Python floats as NLTK writes it.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import chain

import numpy as np

from vecscore.errors import VecscoreError

__all__ = ["plain_scores", "pair_statistics", "pair_score"]


def plain_scores(hyps: list, refs: list, owner: np.ndarray, alpha: float, beta: float, gamma: float,
                 preprocess: Callable[[str], str] | None, stems: Callable[[Iterable[str]], list[str]],
                 synonyms: Callable[[str], frozenset[str]]) -> np.ndarray:
    """NLTK's ``single_meteor_score(refs[k], hyps[owner[k]])`` for every reference ``k``."""
    if preprocess is not None:
        raw = list(dict.fromkeys(chain(chain.from_iterable(hyps), chain.from_iterable(refs))))
        processed = list(map(preprocess, raw))
        bad = next((w for w in processed if not isinstance(w, str)), None)
        if bad is not None:
            raise VecscoreError(f"preprocess gave {bad!r:.40} ({type(bad).__name__}); it must give str")
        word = dict(zip(raw, processed))
        hyps = [list(map(word.__getitem__, h)) for h in hyps]
        refs = [list(map(word.__getitem__, r)) for r in refs]
    words = list(dict.fromkeys(chain(chain.from_iterable(hyps), chain.from_iterable(refs))))
    stem = dict(zip(words, stems(words)))
    out = np.empty(len(refs), np.float64)
    for k, (i, ref) in enumerate(zip(owner.tolist(), refs)):
        hyp = hyps[i]
        matches, chunks = pair_statistics(hyp, ref, stem, synonyms)
        out[k] = pair_score(matches, len(hyp), len(ref), chunks, alpha, beta, gamma)
    return out


def _match(h_left: list[tuple[int, str]], r_left: list[tuple[int, str]],
           r_of: list[int]) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """One stage of equal keys: from the last hypothesis word, each takes the last free reference word with its
    key.  Records matches in ``r_of``; returns the words left on both sides."""
    at: dict[str, list[int]] = {}
    for j, key in r_left:
        at.setdefault(key, []).append(j)
    taken = set()
    for i, key in reversed(h_left):
        free = at.get(key)
        if free:
            j = free.pop()
            r_of[i] = j
            taken.add(j)
    if not taken:
        return h_left, r_left
    return [x for x in h_left if r_of[x[0]] < 0], [x for x in r_left if x[0] not in taken]


def pair_statistics(hyp: Sequence[str], ref: Sequence[str], stem: dict[str, str],
                    synonyms: Callable[[str], frozenset[str]]) -> tuple[int, int]:
    """``(matches, chunks)`` of one pair of preprocessed word lists; ``stem`` maps every word to its stem."""
    r_of = [-1] * len(hyp)
    h_left, r_left = _match(list(enumerate(hyp)), list(enumerate(ref)), r_of)
    if h_left and r_left:
        h_left, r_left = _match([(i, stem[w]) for i, w in h_left], [(j, stem[w]) for j, w in r_left], r_of)
    if h_left and r_left:  # synonyms of the hypothesis word's stem among the reference words' stems
        at: dict[str, list[int]] = {}
        for j, key in r_left:
            at.setdefault(key, []).append(j)
        for i, key in reversed(h_left):
            best, best_key = -1, ""
            for s in synonyms(key):
                free = at.get(s)
                if free and free[-1] > best:
                    best, best_key = free[-1], s
            if best >= 0:
                at[best_key].pop()
                r_of[i] = best
    matches = chunks = 0
    previous = -2
    for j in r_of:
        if j >= 0:
            matches += 1
            if j != previous + 1:
                chunks += 1
        previous = j if j >= 0 else -2
    return matches, chunks


def pair_score(matches: int, h_len: int, r_len: int, chunks: int, alpha: float, beta: float,
               gamma: float) -> float:
    """NLTK's score of one pair from its statistics, in NLTK's operations and order (0.0 where it divides by
    zero)."""
    try:
        precision = float(matches) / h_len
        recall = float(matches) / r_len
        fmean = (precision * recall) / (alpha * precision + (1 - alpha) * recall)
        frag_frac = float(chunks) / matches
    except ZeroDivisionError:
        return 0.0
    penalty = gamma * frag_frac**beta
    return (1 - penalty) * fmean
