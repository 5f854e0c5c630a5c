"""METEOR 1.5's alignment of a hypothesis (line 1) with one reference (line 2), as meteor-1.5.jar aligns.

Candidate matches are collected module by module (exact, stem, synonym, paraphrase, in the configured
order) and listed under the reference position where each starts; matches that are the only candidate
at their position and overlap nothing are fixed; a beam search over the reference positions, left to
right, picks the rest.  The search ranks partial alignments by matched words (exact matches count one
per word, every other module half a word per word, with the running total truncated to an integer after
each match, as the jar's integer fields do), then fewer chunks, then a smaller distance; ties keep their
order (a stable sort).  The jar's quirks that change numbers are kept:

* words are compared by Java's ``String.hashCode`` (two different words with the same hash match exactly);
* when a path branches on a candidate, the candidate's distance is added to the *parent* path, so later
  branches and the skip branch inherit it;
* a hypothesis identical to the reference (word for word, by hash) is aligned by the exact module alone.

This module is the plain reference implementation; :mod:`vecscore.meteor.kernel` runs the same search
compiled.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from vecscore.meteor.normalize import java_hash

__all__ = ["AlignCounts", "Match", "align"]

@dataclass(frozen=True)
class Match:
    start: int        # reference position
    length: int       # reference words
    match_start: int  # hypothesis position
    match_length: int  # hypothesis words
    module: int       # index of the module in the configured order


@dataclass
class AlignCounts:
    """What METEOR's statistics need from one alignment (per module index: content and function matches)."""

    test_len: int
    ref_len: int
    test_function: int
    ref_function: int
    test_content_matches: list[int]
    ref_content_matches: list[int]
    test_function_matches: list[int]
    ref_function_matches: list[int]
    chunks: int
    matches: list[Match | None]


class _Path:
    __slots__ = ("matches", "score1", "score2", "chunks", "idx", "last_end", "distance", "used1", "used2")

    def __init__(self, matches, used1, used2):
        self.matches = list(matches)
        self.score1 = 0
        self.score2 = 0
        self.chunks = 0
        self.idx = 0
        self.last_end = -1
        self.distance = 0
        self.used1 = list(used1)
        self.used2 = list(used2)

    def copy(self) -> _Path:
        p = _Path.__new__(_Path)
        p.matches = list(self.matches)
        p.score1, p.score2, p.chunks = self.score1, self.score2, self.chunks
        p.idx, p.last_end, p.distance = self.idx, self.last_end, self.distance
        p.used1 = list(self.used1)
        p.used2 = list(self.used2)
        return p

    def is_used(self, m: Match) -> bool:
        return any(self.used2[m.start:m.start + m.length]) or \
            any(self.used1[m.match_start:m.match_start + m.match_length])

    def set_used(self, m: Match) -> None:
        for k in range(m.start, m.start + m.length):
            self.used2[k] = True
        for k in range(m.match_start, m.match_start + m.match_length):
            self.used1[k] = True

    def sort_key(self) -> tuple[int, int, int]:
        return (-(self.score1 + self.score2), self.chunks, self.distance)


def _candidates(words1: Sequence[str], words2: Sequence[str], keys1: list[int], keys2: list[int],
                modules: Sequence[str], stem: Callable[[str], str] | None, synsets, paraphrase
                ) -> tuple[list[list[Match]], list[int], list[int]]:
    n1, n2 = len(words1), len(words2)
    matches: list[list[Match]] = [[] for _ in range(n2)]
    cov1 = [0] * n1
    cov2 = [0] * n2
    used_mods = 1 if keys1 == keys2 else len(modules)

    def add(m: Match) -> None:
        matches[m.start].append(m)
        for k in range(m.match_start, m.match_start + m.match_length):
            cov1[k] += 1
        for k in range(m.start, m.start + m.length):
            cov2[k] += 1

    for mod in range(used_mods):
        name = modules[mod]
        if name == "exact":
            for j in range(n2):
                for i in range(n1):
                    if keys1[i] == keys2[j]:
                        add(Match(j, 1, i, 1, mod))
        elif name == "stem":
            assert stem is not None
            s1 = [java_hash(stem(w)) for w in words1]
            s2 = [java_hash(stem(w)) for w in words2]
            for j in range(n2):
                for i in range(n1):
                    if s1[i] == s2[j] and keys1[i] != keys2[j]:
                        add(Match(j, 1, i, 1, mod))
        elif name == "synonym":
            y1 = [synsets(w) for w in words1]
            y2 = [synsets(w) for w in words2]
            for j in range(n2):
                for i in range(n1):
                    if keys1[i] != keys2[j] and not y1[i].isdisjoint(y2[j]):
                        add(Match(j, 1, i, 1, mod))
        elif name == "paraphrase":
            t1 = [int(x) for x in paraphrase.translate(list(words1))]
            t2 = [int(x) for x in paraphrase.translate(list(words2))]
            for j in range(n2):
                for length, pid in paraphrase.reference_paths(t2, j):
                    phrase = [int(x) for x in paraphrase.paraphrase(pid)]
                    for i in range(n1):
                        if i + len(phrase) <= n1 and t1[i:i + len(phrase)] == phrase:
                            add(Match(j, length, i, len(phrase), mod))
            for i in range(n1):
                for length, pid in paraphrase.reference_paths(t1, i):
                    phrase = [int(x) for x in paraphrase.paraphrase(pid)]
                    for j in range(n2):
                        if j + len(phrase) <= n2 and t2[j:j + len(phrase)] == phrase:
                            add(Match(j, len(phrase), i, length, mod))
        else:  # pragma: no cover - options are validated before
            raise ValueError(name)
    return matches, cov1, cov2


def _resolve(matches: list[list[Match]], start: _Path, weights: Sequence[float], beam: int) -> _Path:
    n2 = len(matches)
    next_paths = [start]
    for current in range(n2 + 1):
        paths = sorted(next_paths, key=_Path.sort_key)
        next_paths = []
        for path in paths[:beam]:
            if current == n2:
                if path.last_end != -1:
                    path.chunks += 1
                next_paths.append(path)
                continue
            if path.used2[current]:
                if current < path.idx:
                    next_paths.append(path)
                elif path.matches[path.idx] is not None:
                    m = path.matches[path.idx]
                    _extend(path, m, weights)
                    path.distance += abs(m.start - m.match_start)
                    next_paths.append(path)
                continue
            for m in matches[current]:
                if path.is_used(m):
                    continue
                new = path.copy()
                new.set_used(m)
                new.matches[current] = m
                _extend(new, m, weights)
                path.distance += abs(m.start - m.match_start)  # the jar adds it to the parent path
                next_paths.append(new)
            if path.last_end != -1:
                path.chunks += 1
                path.last_end = -1
            path.idx += 1
            next_paths.append(path)
        if not next_paths:
            next_paths.append(paths[0])
    next_paths.sort(key=_Path.sort_key)
    return next_paths[0]


def _extend(path: _Path, m: Match, weights: Sequence[float]) -> None:
    w = weights[m.module]
    path.score1 = int(path.score1 + m.match_length * w)
    path.score2 = int(path.score2 + m.length * w)
    if path.last_end != -1 and m.match_start != path.last_end:
        path.chunks += 1
    path.idx = m.start + m.length
    path.last_end = m.match_start + m.match_length


def _count_chunks(matches: list[Match | None]) -> int:
    chunks = 0
    idx = 0
    last_end = -1
    while idx < len(matches):
        m = matches[idx]
        if m is None:
            if last_end != -1:
                chunks += 1
                last_end = -1
            idx += 1
        else:
            if last_end != -1 and m.match_start != last_end:
                chunks += 1
            idx = m.start + m.length
            last_end = m.match_start + m.match_length
    return chunks + (last_end != -1)


def align(words1: Sequence[str], words2: Sequence[str], *, modules: Sequence[str], function_words,
          lower: Callable[[str], str], stem: Callable[[str], str] | None = None, synsets=None, paraphrase=None,
          beam_size: int = 40) -> AlignCounts:
    """Align hypothesis words ``words1`` with reference words ``words2`` as meteor-1.5.jar's Aligner does.

    ``function_words`` is the jar's function word list (tested on ``lower(word)``), ``stem`` the Snowball
    English stemmer, ``synsets(word)`` the synonym table's sets, ``paraphrase`` the paraphrase table.
    """
    keys1 = [java_hash(w) for w in words1]
    keys2 = [java_hash(w) for w in words2]
    cand, cov1, cov2 = _candidates(words1, words2, keys1, keys2, modules, stem, synsets, paraphrase)
    n1, n2 = len(words1), len(words2)
    start = _Path([None] * n2, [False] * n1, [False] * n2)
    for j in range(n2):
        if len(cand[j]) == 1:
            m = cand[j][0]
            if all(cov2[k] == 1 for k in range(m.start, m.start + m.length)) and \
                    all(cov1[k] == 1 for k in range(m.match_start, m.match_start + m.match_length)):
                start.matches[j] = m
                start.set_used(m)
    search_weights = [1.0 if name == "exact" else 0.5 for name in modules]
    best = _resolve(cand, start, search_weights, beam_size)
    fn1 = [lower(w) in function_words for w in words1]
    fn2 = [lower(w) in function_words for w in words2]
    k = len(modules)
    tc, rc, tf, rf = [0] * k, [0] * k, [0] * k, [0] * k
    for m in best.matches:
        if m is None:
            continue
        for i in range(m.match_start, m.match_start + m.match_length):
            if fn1[i]:
                tf[m.module] += 1
            else:
                tc[m.module] += 1
        for j in range(m.start, m.start + m.length):
            if fn2[j]:
                rf[m.module] += 1
            else:
                rc[m.module] += 1
    return AlignCounts(n1, n2, sum(fn1), sum(fn2), tc, rc, tf, rf, _count_chunks(best.matches), best.matches)
