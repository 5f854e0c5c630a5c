"""NLTK's METEOR for a large batch on arrays: words interned once, the three stages for every pair at once.

The tokens of the whole batch are interned to integer ids; ``preprocess``,
the stemmer and WordNet are asked once per unique token, word or stem; then
the alignment (:mod:`vecscore.meteor.nltk_align`) and the score run on
arrays, in the same operations and order as NLTK (:func:`formula`).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import chain

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.meteor import nltk_align as align

__all__ = ["array_scores", "formula"]


def _intern(items: Iterable[str]) -> tuple[list[str], dict[str, int]]:
    vocab = list(dict.fromkeys(items))
    return vocab, dict(zip(vocab, range(len(vocab))))


def _ids(index: dict[str, int], items: list[str]) -> np.ndarray:
    return np.fromiter(map(index.__getitem__, items), np.int64, count=len(items))


def _word_ids(hyps: list, refs: list, preprocess: Callable[[str], str] | None,
              stems: Callable[[Iterable[str]], list[str]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str], int]:
    """``(h_word, r_word, stem_of_word, stem_vocab, n_words)``: every token's word id (its preprocessed form),
    hypotheses and references flat, and every word's stem id."""
    h_tok: list[str] = list(chain.from_iterable(hyps))
    r_tok: list[str] = list(chain.from_iterable(refs))
    raw, raw_index = _intern(chain(h_tok, r_tok))
    if preprocess is None:
        words = raw
        word_of_raw = np.arange(len(raw), dtype=np.int64)
    else:
        processed = list(map(preprocess, raw))
        bad = next((w for w in processed if not isinstance(w, str)), None)
        if bad is not None:
            raise VecscoreError(f"preprocess gave {bad!r:.40} ({type(bad).__name__}); it must give str")
        words, word_index = _intern(processed)
        word_of_raw = _ids(word_index, processed)
    stem_list = stems(words)
    stem_vocab, stem_index = _intern(stem_list)
    return (word_of_raw[_ids(raw_index, h_tok)], word_of_raw[_ids(raw_index, r_tok)],
            _ids(stem_index, stem_list), stem_vocab, len(words))


def array_scores(hyps: list, refs: list, owner: np.ndarray, h_len: np.ndarray, r_len: np.ndarray, alpha: float,
                 beta: float, gamma: float, preprocess: Callable[[str], str] | None,
                 stems: Callable[[Iterable[str]], list[str]],
                 synonyms: Callable[[str], frozenset[str]]) -> np.ndarray:
    """NLTK's ``single_meteor_score(refs[k], hyps[owner[k]])`` for every reference ``k``."""
    h_word, r_word, stem_of_word, stem_vocab, n_words = _word_ids(hyps, refs, preprocess, stems)
    # one entry per word of every (hypothesis, reference) pair; pair k is reference k.  Each stage matches some
    # of the entries the stages before left (h_id: an entry's index among all hypothesis entries)
    n = len(refs)
    h_start = np.cumsum(h_len) - h_len
    h_at, h_pos = align.ragged_index(h_start[owner], h_len[owner])
    all_pairs = np.repeat(np.arange(n, dtype=np.int64), h_len[owner])
    h_pair, h_id, h_key = all_pairs, np.arange(h_at.size, dtype=np.int64), h_word[h_at]
    r_pair = np.repeat(np.arange(n, dtype=np.int64), r_len)
    _, r_pos = align.ragged_index(np.zeros(n, np.int64), r_len)
    r_key = r_word
    r_of = np.full(h_at.size, -1, np.int64)  # per hypothesis entry: the reference position it matched

    def keep(hi: np.ndarray, ri: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Record the matches ``(hi, ri)``; the masks of the entries still unmatched."""
        r_of[h_id[hi]] = r_pos[ri]
        h_free = np.ones(h_pair.size, np.bool_)
        h_free[hi] = False
        r_free = np.ones(r_pair.size, np.bool_)
        r_free[ri] = False
        return h_free, r_free

    # 1. equal words
    h_free, r_free = keep(*align.match_equal(h_pair, h_key, r_pair, r_key, n_words))
    h_pair, h_pos, h_id, h_key = h_pair[h_free], h_pos[h_free], h_id[h_free], stem_of_word[h_key[h_free]]
    r_pair, r_pos, r_key = r_pair[r_free], r_pos[r_free], stem_of_word[r_key[r_free]]
    # 2. equal stems
    h_free, r_free = keep(*align.match_equal(h_pair, h_key, r_pair, r_key, len(stem_vocab)))
    h_pair, h_pos, h_id, h_key = h_pair[h_free], h_pos[h_free], h_id[h_free], h_key[h_free]
    r_pair, r_pos, r_key = r_pair[r_free], r_pos[r_free], r_key[r_free]
    # 3. WordNet synonyms of the hypothesis words' stems, among the reference words' stems
    syn_ptr, syn_keys = _synonym_table(h_pair, h_key, r_pair, r_key, n, stem_vocab, synonyms)
    keep(*align.match_synonyms(h_pair, h_pos, h_key, r_pair, r_pos, r_key, len(stem_vocab), syn_ptr, syn_keys))

    matches, chunks = align.count_chunks(all_pairs, r_of, n)
    return formula(matches, h_len[owner], r_len, chunks, alpha, beta, gamma)


def _synonym_table(h_pair: np.ndarray, h_key: np.ndarray, r_pair: np.ndarray, r_key: np.ndarray, n_pairs: int,
                   stem_vocab: list[str], synonyms: Callable[[str], frozenset[str]]) -> tuple[np.ndarray, np.ndarray]:
    """``(syn_ptr, syn_keys)`` over the stem ids: for each stem left in a hypothesis whose pair has a reference
    word left, the ids of its synonyms among the stems left in references (itself excluded: after the stem
    stage no pair has it left on both sides)."""
    n_keys = len(stem_vocab)
    lengths = np.zeros(n_keys, np.int64)
    has_ref = np.bincount(r_pair, minlength=n_pairs) > 0
    ref_stems = {stem_vocab[k]: k for k in np.unique(r_key).tolist()}
    table: list[list[int]] = []
    asking = np.unique(h_key[has_ref[h_pair]]).tolist() if ref_stems else []
    for k in asking:
        ids = [i for i in (ref_stems.get(s, k) for s in synonyms(stem_vocab[k])) if i != k]
        lengths[k] = len(ids)
        table.append(ids)
    syn_ptr = np.zeros(n_keys + 1, np.int64)
    np.cumsum(lengths, out=syn_ptr[1:])
    return syn_ptr, np.fromiter(chain.from_iterable(table), np.int64, count=int(syn_ptr[-1]))


def formula(matches: np.ndarray, h_len: np.ndarray, r_len: np.ndarray, chunks: np.ndarray, alpha: float,
            beta: float, gamma: float) -> np.ndarray:
    """NLTK's score from the statistics, operation by operation in NLTK's order (so bit for bit its floats):
    0.0 wherever NLTK divides by zero; ``(chunks / matches) ** beta`` by Python's own power, once per distinct
    value (NumPy's power may round differently)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        precision = matches / h_len
        recall = matches / r_len
        denominator = alpha * precision + (1 - alpha) * recall
        fmean = (precision * recall) / denominator
        frag = chunks / matches
    ok = (h_len != 0) & (r_len != 0) & (denominator != 0) & (matches != 0)
    out = np.zeros(matches.size, np.float64)
    if ok.any():
        values, inverse = np.unique(frag[ok], return_inverse=True)
        powers = np.array([f**beta for f in values.tolist()], np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            out[ok] = (1 - gamma * powers[inverse.reshape(-1)]) * fmean[ok]
    return out
