"""The word alignment of NLTK's METEOR for many (hypothesis, reference) pairs at once, in NumPy.

NLTK aligns each pair in three stages, each on the words the stages before
left unmatched: equal words (after ``preprocess``), equal Porter stems, and
WordNet synonyms of the hypothesis word's *stem* among the reference words'
stems.  In each stage it walks the hypothesis from its last word to its
first, and each word takes the *last* still unmatched reference word that
fits.  The matches, ordered by hypothesis position, then form chunks: runs
of matches adjacent in both sentences.

For a stage of equal keys (words, stems) that walk has a closed form: the
t-th last hypothesis occurrence of a key takes the t-th last reference
occurrence of the same key, if there is one.  :func:`match_equal` computes
it for every pair at once by sorting.  The synonym stage cannot be written
so (each word has its own set of synonyms, and the sets overlap), so
:func:`match_synonyms` finds the candidate (hypothesis word, reference word)
links by array operations and walks only those in Python: usually a small
fraction of the words.

Every function takes flat arrays of entries (one per word of a pair): the
pair (``*_pair``), the word's position in its sentence (``*_pos``) and its
key (an integer id of a word or a stem), entries in pair order and, within a
pair, in word order.
"""
from __future__ import annotations

import numpy as np

__all__ = ["ragged_index", "match_equal", "match_synonyms", "count_chunks"]


def ragged_index(starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(index, pos)``: for every segment ``k``, ``starts[k] .. starts[k] + lengths[k]`` concatenated, and each
    entry's position within its segment."""
    lengths = np.asarray(lengths, np.int64)
    total = int(lengths.sum())
    first = np.cumsum(lengths) - lengths  # where each segment begins in the output
    pos = np.arange(total, dtype=np.int64) - np.repeat(first, lengths)
    return np.repeat(np.asarray(starts, np.int64), lengths) + pos, pos


def _grouped_from_last(code: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(order, sorted_code, rank, first)``: the entries grouped by ``code`` (ascending), the last entry first
    within a group; their codes in that order; each one's rank in its group; where each group begins."""
    n = code.size
    order = (n - 1) - np.argsort(code[::-1], kind="stable")
    sorted_code = code[order]
    new = np.ones(n, np.bool_)
    new[1:] = sorted_code[1:] != sorted_code[:-1]
    first = np.flatnonzero(new)
    rank = np.arange(n, dtype=np.int64) - np.repeat(first, np.diff(np.append(first, n)))
    return order, sorted_code, rank, first


def _codes(pair: np.ndarray, key: np.ndarray, n_keys: int) -> np.ndarray:
    return pair.astype(np.int64) * np.int64(max(n_keys, 1)) + key


def match_equal(h_pair: np.ndarray, h_key: np.ndarray, r_pair: np.ndarray, r_key: np.ndarray,
                n_keys: int) -> tuple[np.ndarray, np.ndarray]:
    """``(h, r)``: the matched entries of a stage of equal keys, as indices of hypothesis and reference
    entries (``h[k]`` matched ``r[k]``).  Keys are ``0 .. n_keys - 1``."""
    h_order, h_code, h_rank, _ = _grouped_from_last(_codes(h_pair, h_key, n_keys))
    r_order, r_code, _, r_first = _grouped_from_last(_codes(r_pair, r_key, n_keys))
    if h_order.size == 0 or r_order.size == 0:
        empty = np.zeros(0, np.int64)
        return empty, empty
    r_groups = r_code[r_first]
    r_counts = np.diff(np.append(r_first, r_order.size))
    g = np.minimum(np.searchsorted(r_groups, h_code), r_groups.size - 1)
    hit = (r_groups[g] == h_code) & (h_rank < r_counts[g])
    return h_order[hit], r_order[r_first[g[hit]] + h_rank[hit]]


def match_synonyms(h_pair: np.ndarray, h_pos: np.ndarray, h_key: np.ndarray, r_pair: np.ndarray,
                   r_pos: np.ndarray, r_key: np.ndarray, n_keys: int, syn_ptr: np.ndarray,
                   syn_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(h, r)``: the matches of the synonym stage.  The synonyms of key ``k`` are
    ``syn_keys[syn_ptr[k]:syn_ptr[k + 1]]`` (``syn_ptr`` has ``n_keys + 1`` entries).

    Walking each pair's hypothesis from its last word, a word takes the last
    still unmatched reference word whose key is one of its synonyms.
    """
    empty = np.zeros(0, np.int64)
    n_syn = syn_ptr[h_key + 1] - syn_ptr[h_key]
    if h_key.size == 0 or r_key.size == 0 or not n_syn.any():
        return empty, empty
    # every (hypothesis entry, synonym) ...
    at, _ = ragged_index(syn_ptr[h_key], n_syn)
    h_of = np.repeat(np.arange(h_key.size, dtype=np.int64), n_syn)
    wanted = _codes(h_pair[h_of], syn_keys[at], n_keys)
    # ... joined with the reference entries of its pair that have that key
    r_code = _codes(r_pair, r_key, n_keys)
    r_order = np.argsort(r_code, kind="stable")
    r_code = r_code[r_order]
    lo = np.searchsorted(r_code, wanted, "left")
    n_refs = np.searchsorted(r_code, wanted, "right") - lo
    if not n_refs.any():
        return empty, empty
    r_at, _ = ragged_index(lo, n_refs)
    cand_h = np.repeat(h_of, n_refs)
    cand_r = r_order[r_at]
    # the walk: per pair, hypothesis positions from the last, each taking its last free candidate
    walk = np.lexsort((-r_pos[cand_r], -h_pos[cand_h], h_pair[cand_h]))
    taken: set[int] = set()
    out_h: list[int] = []
    out_r: list[int] = []
    done = -1
    for eh, er in zip(cand_h[walk].tolist(), cand_r[walk].tolist()):
        if eh == done or er in taken:
            continue
        taken.add(er)
        done = eh
        out_h.append(eh)
        out_r.append(er)
    return np.array(out_h, np.int64), np.array(out_r, np.int64)


def count_chunks(pair: np.ndarray, r_of: np.ndarray, n_pairs: int) -> tuple[np.ndarray, np.ndarray]:
    """``(matches, chunks)`` per pair, from every hypothesis entry's matched reference position (``r_of``, -1
    for none; entries in pair order and word order): how many matches a pair has, and into how many runs they
    fall in hypothesis order (a match continues the run of the one before when both its positions are one
    more; NLTK's ``_count_chunks``, which gives 1 for a pair without matches where this gives 0)."""
    matched = r_of >= 0
    continues = np.zeros(r_of.size, np.bool_)
    continues[1:] = matched[:-1] & (pair[1:] == pair[:-1]) & (r_of[1:] == r_of[:-1] + 1)
    matches = np.bincount(pair[matched], minlength=n_pairs).astype(np.int64)
    chunks = np.bincount(pair[matched & ~continues], minlength=n_pairs).astype(np.int64)
    return matches, chunks
