"""The arrays METEOR's alignment kernel reads: the call's texts as rows of word ids, and each distinct
word's features (its Java hash, its stem's hash, whether it is a function word, its synsets, its id in
the paraphrase table), computed once per distinct word."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from vecscore.meteor.align import java_hash

__all__ = ["WordRows", "word_rows", "EMPTY_TRIE"]


@dataclass(frozen=True)
class WordRows:
    words: np.ndarray      # int64 word ids, text after text
    woff: np.ndarray       # int64 offsets, len(texts) + 1
    key: np.ndarray        # int64 Java hash of each distinct word
    stem_key: np.ndarray   # int64 Java hash of its stem (its own hash without a stemmer)
    function: np.ndarray   # bool
    syn: np.ndarray        # int64 synset numbers, sorted per word
    syn_ptr: np.ndarray    # int64 offsets, n_words + 1
    para: np.ndarray       # int64 paraphrase-table id, -1 if absent
    vocab: list[str]


#: A paraphrase trie with no entries (root only), for calls without the paraphrase module.
EMPTY_TRIE = (np.zeros(2, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(2, np.int64),
              np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros(0, np.int64))


def word_rows(texts: Sequence[list[str]], *, function_words, lower: Callable[[str], str],
              stem: Callable[[str], str] | None = None,
              synsets: Callable[[str], Iterable[int]] | None = None,
              translate: Callable[[list[str]], np.ndarray] | None = None) -> WordRows:
    ids: dict[str, int] = {}
    flat: list[int] = []
    woff = np.zeros(len(texts) + 1, np.int64)
    for t, toks in enumerate(texts):
        for w in toks:
            v = ids.get(w)
            if v is None:
                v = ids[w] = len(ids)
            flat.append(v)
        woff[t + 1] = len(flat)
    vocab = list(ids)
    key = np.fromiter((java_hash(w) for w in vocab), np.int64, len(vocab))
    stem_key = key if stem is None else np.fromiter((java_hash(stem(w)) for w in vocab), np.int64, len(vocab))
    function = np.fromiter((lower(w) in function_words for w in vocab), np.bool_, len(vocab))
    syn_ptr = np.zeros(len(vocab) + 1, np.int64)
    syn = np.zeros(0, np.int64)
    if synsets is not None:
        sets = [sorted(synsets(w)) for w in vocab]
        syn_ptr[1:] = np.cumsum([len(s) for s in sets])
        syn = np.fromiter((x for s in sets for x in s), np.int64, int(syn_ptr[-1]))
    para = np.full(len(vocab), -1, np.int64) if translate is None else \
        np.asarray(translate(vocab), dtype=np.int64)
    return WordRows(np.asarray(flat, np.int64), woff, key, stem_key, function, syn, syn_ptr, para, vocab)
