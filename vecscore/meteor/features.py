"""The arrays METEOR's alignment kernel reads: the call's texts as rows of word ids, each distinct word's
features (its Java hash, its stem's hash, whether it is a function word, its synsets, its id in the paraphrase
table), computed once per distinct word, and per text the indexes the kernel's candidate search uses
(:mod:`vecscore.kernels.meteor_texts`), built once per distinct text."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

from vecscore.meteor.normalize import java_hash

__all__ = ["WordRows", "word_rows", "TextArrays", "text_arrays"]


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


def word_rows(texts: Sequence[list[str]], *, function_words, lower: Callable[[str], str],
              stem: Callable[[str], str] | None = None,
              synsets: Callable[[str], Iterable[int]] | None = None,
              translate: Callable[[list[str]], np.ndarray] | None = None) -> WordRows:
    flat = list(chain.from_iterable(texts))
    ids = dict.fromkeys(flat)
    vocab = list(ids)
    for v, w in enumerate(vocab):
        ids[w] = v
    words = np.fromiter(map(ids.__getitem__, flat), np.int64, len(flat))
    woff = np.zeros(len(texts) + 1, np.int64)
    np.cumsum([len(t) for t in texts], out=woff[1:])
    key = np.fromiter(map(java_hash, vocab), np.int64, len(vocab))
    stem_key = key if stem is None else np.fromiter((java_hash(stem(w)) for w in vocab), np.int64, len(vocab))
    function = np.fromiter((lower(w) in function_words for w in vocab), np.bool_, len(vocab))
    syn_ptr = np.zeros(len(vocab) + 1, np.int64)
    syn = np.zeros(0, np.int64)
    if synsets is not None:
        sets = [sorted(synsets(w)) for w in vocab]
        np.cumsum([len(s) for s in sets], out=syn_ptr[1:])
        syn = np.fromiter(chain.from_iterable(sets), np.int64, int(syn_ptr[-1]))
    para = np.full(len(vocab), -1, np.int64) if translate is None else \
        np.asarray(translate(vocab), dtype=np.int64)
    return WordRows(words, woff, key, stem_key, function, syn, syn_ptr, para, vocab)


def _dense(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Each value's number among the distinct values (0, 1, ...), and how many there are."""
    if len(values) == 0:
        return np.zeros(0, np.int64), 0
    distinct, inverse = np.unique(values, return_inverse=True)
    return inverse.astype(np.int64).reshape(-1), len(distinct)


@dataclass(frozen=True)
class TextArrays:
    """What :func:`vecscore.kernels.meteor_align.meteor_pair_stats` reads after the pairs, the modules and the
    beam: per position (text after text, offsets ``woff``) the word and its features, each numbered densely
    within the call, so that equal numbers mean a match; per distinct word its synsets; per text the
    paraphrase phrases it starts (:func:`vecscore.kernels.meteor_texts.text_emits`)."""

    woff: np.ndarray        # int64 offsets, len(texts) + 1
    words: np.ndarray       # int64 word id at each position (distinct strings)
    key: np.ndarray         # int64 number of the word's Java hash (equal hashes, equal numbers)
    stem: np.ndarray        # int64 number of its stem's hash
    function: np.ndarray    # bool: a function word
    para: np.ndarray        # int64 paraphrase-table id, -1 if absent
    para_key: np.ndarray    # int64 number of that id among the call's (-1 if absent)
    syn_ptr: np.ndarray     # int64 per word id: offsets of its synsets, n_words + 1
    syn: np.ndarray         # int64 their numbers among the call's synsets, sorted per word
    visits: np.ndarray      # int64 (3, n): the paraphrase trie nodes each text reaches (start, length, node)
    visit_ptr: np.ndarray   # int64 offsets of each text's visits, len(texts) + 1
    rows: np.ndarray        # int64 (3, n): each node's paraphrases (paraphrase, first word's number, size)
    row_ptr: np.ndarray     # int64 offsets of each node's rows
    row_count: np.ndarray   # int64 each text's paraphrase rows in all
    para_ptr: np.ndarray    # int64 the paraphrase table's phrases: offsets
    para_words: np.ndarray  # int64 and words
    counts: np.ndarray      # int64 how many numbers key, stem, syn and para_key take

    def kernel_args(self) -> tuple:
        return (self.words, self.key, self.stem, self.function, self.para, self.para_key, self.syn_ptr, self.syn,
                self.visits, self.visit_ptr, self.rows, self.row_ptr, self.row_count, self.para_ptr, self.para_words,
                self.counts)


def text_arrays(texts: Sequence[list[str]], *, function_words, lower: Callable[[str], str],
                stem: Callable[[str], str] | None = None, synsets: Callable[[str], Iterable[int]] | None = None,
                paraphrase=None) -> TextArrays:
    """The kernel's arrays for ``texts`` (token lists): ``stem``, ``synsets`` and ``paraphrase`` (the
    :class:`~vecscore.meteor.paraphrase.ParaphraseTable`) are given for the modules that use them."""
    rows = word_rows(texts, function_words=function_words, lower=lower, stem=stem, synsets=synsets,
                     translate=None if paraphrase is None else paraphrase.translate)
    words, woff = rows.words, rows.woff
    key, n_key = _dense(rows.key)
    stem_key, n_stem = _dense(rows.stem_key)
    syn, n_syn = _dense(rows.syn)  # sorted per word still: numbering keeps the order
    para = rows.para[words]
    present = np.unique(rows.para[rows.para >= 0])
    dense = np.full(int(present[-1]) + 1 if len(present) else 0, -1, np.int64)
    dense[present] = np.arange(len(present))
    para_key = np.where(para >= 0, dense[np.maximum(para, 0)] if len(dense) else -1, -1)
    if paraphrase is None:  # read-only, as the table's memory-mapped arrays are: one type for the kernel
        para_ptr, para_words = np.zeros(1, np.int64), np.zeros(0, np.int64)
        para_ptr.flags.writeable = para_words.flags.writeable = False
        none = np.zeros((3, 0), np.int64)
        emits = (none, np.zeros(len(woff), np.int64), none, np.zeros(1, np.int64), np.zeros(len(woff) - 1, np.int64))
    else:
        from vecscore.kernels.meteor_texts import text_emits

        para_ptr, para_words = paraphrase.para_ptr, paraphrase.para_words
        child_ptr, child_word, child_node = paraphrase.child_ptr, paraphrase.child_word, paraphrase.child_node
        root = np.full(len(dense), -1, np.int64)  # the root's child by each word of the call
        edges = child_word[child_ptr[0]:child_ptr[1]]
        at = np.minimum(np.searchsorted(edges, present), max(len(edges) - 1, 0))
        hit = edges[at] == present if len(edges) else np.zeros(len(present), np.bool_)
        root[present[hit]] = child_node[child_ptr[0] + at[hit]]
        emits = text_emits(para, woff, root, child_ptr, child_word, child_node, paraphrase.emit_ptr,
                           paraphrase.emit, para_ptr, para_words, dense)
    return TextArrays(woff, words, key[words], stem_key[words], rows.function[words], para, para_key, rows.syn_ptr,
                      syn, *emits, para_ptr, para_words, np.array([n_key, n_stem, n_syn, len(present)], np.int64))
