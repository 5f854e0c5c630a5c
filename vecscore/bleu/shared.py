"""BLEU statistics against one shared set of references, counted once.

Self-BLEU, and filters that score every hypothesis against a benchmark's
references, compare many hypotheses with the *same* references.  Repeating
the references per pair would tokenize and count them once per hypothesis.
Here they are tokenized, interned and counted once
(:class:`SharedBleuTable`):

- every distinct reference n-gram of orders ``1..K`` gets an id, with its
  maximum count over the references (the clip); see
  :mod:`vecscore.kernels.shared_ngrams`;
- the reference lengths are sorted once, so a hypothesis's closest length
  (ties to the shorter) or the shortest is a binary search.

A hypothesis is then scored by looking its tokens up in the reference
vocabulary and its n-grams up in that table, in a numba kernel parallel over
hypotheses.  The result is an ordinary :class:`~vecscore.bleu.stats.BleuStats`
(``nrefs`` = the number of shared references on every row), equal to the
statistics of the same hypotheses with the references repeated per pair, so
every score (sacreBLEU's, NLTK's) comes from the usual formulas.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain

import numpy as np

from vecscore.bleu.stats import BleuStats, check_brevity_penalty
from vecscore.errors import VecscoreError
from vecscore.inputs import check_token_rows
from vecscore.kernels.intern import IDENTITY, hash_spans
from vecscore.kernels.shared_ngrams import build_table, lookup_tokens, shared_counts, vocab_table
from vecscore.kernels.tokenize import nul_offsets
from vecscore.parallel import current_threads
from vecscore.text.sacrebleu_tokenizers import tokenize as sacre_tokenize
from vecscore.text.spans import TokenSpans, ascii_view
from vecscore.text.tokenizers import spans_from_token_lists

__all__ = ["SharedBleuTable", "token_list_spans", "closest_lengths"]


def _encode(joined: str, what: str) -> np.ndarray:
    if joined.isascii():
        view = ascii_view(joined)
        return view if view is not None else np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    try:
        return np.frombuffer(joined.encode("utf-8"), dtype=np.uint8)
    except UnicodeEncodeError:
        raise VecscoreError(f"{what} contain a lone surrogate code point; clean or re-decode them") from None


def token_list_spans(rows, what: str = "hyps") -> TokenSpans:
    """:class:`TokenSpans` of token lists without a Python loop over tokens.

    The tokens are joined with NUL bytes in one C-level call and split again
    by a kernel; a token holding a NUL itself falls back to encoding every
    token (:func:`vecscore.text.tokenizers.spans_from_token_lists`).
    """
    if not set(map(type, rows)) <= {list, tuple}:
        check_token_rows(rows, what)
    lens = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    tok_offsets = np.zeros(len(rows) + 1, np.int64)
    np.cumsum(lens, out=tok_offsets[1:])
    n_tok = int(tok_offsets[-1])
    try:
        joined = "\x00".join(chain.from_iterable(rows))
    except TypeError:
        check_token_rows(rows, what)
        raise
    buf = _encode(joined, what)
    if n_tok == 0:
        return TokenSpans(buf, np.zeros(0, np.int64), np.zeros(0, np.int64), tok_offsets)
    off = nul_offsets(buf, n_tok)
    if len(off) != n_tok + 1:  # a token holds a NUL
        return spans_from_token_lists(rows)
    ends = off[1:] - 1
    ends[-1] = len(buf)
    return TokenSpans(buf, off[:-1].copy(), ends, tok_offsets)


def closest_lengths(sys_len: np.ndarray, sorted_lens: np.ndarray, brevity_penalty: str) -> np.ndarray:
    """Each hypothesis's reference length among ``sorted_lens`` (sorted, distinct): the closest (ties to the
    shorter, as sacreBLEU and NLTK) or the shortest."""
    if brevity_penalty == "shortest":
        return np.full(len(sys_len), sorted_lens[0], np.int64)
    last = len(sorted_lens) - 1
    j = np.searchsorted(sorted_lens, sys_len)
    hi = sorted_lens[np.minimum(j, last)]
    lo = sorted_lens[np.clip(j - 1, 0, last)]
    return np.where(np.abs(sys_len - lo) <= np.abs(hi - sys_len), lo, hi).astype(np.int64)


def _ids_rows(rows, what: str) -> tuple[np.ndarray, np.ndarray]:
    arrays = [np.asarray(r) for r in rows]
    for i, a in enumerate(arrays):
        if a.ndim != 1 or (a.size and a.dtype.kind not in "iu"):
            raise VecscoreError(f"{what}[{i}] is not a 1-d array of integer token ids (as the other rows)")
    off = np.zeros(len(arrays) + 1, np.int64)
    np.cumsum(np.fromiter(map(len, arrays), np.int64, count=len(arrays)), out=off[1:])
    ids = np.concatenate(arrays).astype(np.int64) if arrays else np.zeros(0, np.int64)
    if ids.size and ids.min() < 0:
        row = int(np.searchsorted(off, int(np.argmax(ids < 0)), side="right") - 1)
        raise VecscoreError(f"{what}[{row}] has a negative token id; token ids must be >= 0")
    return ids, off


@dataclass
class SharedBleuTable:
    """One set of references, tokenized, interned and counted once; :meth:`statistics` scores hypotheses.

    Build it with :meth:`from_rows`.  ``kind`` is the references' input kind (``"text"``, ``"tokens"``,
    ``"ids"``); hypotheses must be of the same kind.
    """

    kind: str
    tokenize: str
    lowercase: bool
    n_refs: int
    ref_ids: np.ndarray  # dense reference token ids 0..V-1
    ref_off: np.ndarray
    sorted_lens: np.ndarray  # the distinct reference lengths, ascending
    n_vocab: int
    vocab: tuple | None = None  # (vbuf, voff, vhash, table, fold) for text and token input
    id_values: np.ndarray | None = None  # for id input: the distinct reference ids, ascending
    _tables: dict = field(default_factory=dict, repr=False)

    @classmethod
    def from_rows(cls, refs: list, kind: str, tokenize: str, lowercase: bool) -> SharedBleuTable:
        """From validated, non-empty reference rows of one kind."""
        if kind == "ids":
            raw, off = _ids_rows(refs, "references")
            values, ids = np.unique(raw, return_inverse=True)
            return cls(kind, tokenize, lowercase, len(refs), ids.astype(np.int64).reshape(-1), off,
                       np.unique(np.diff(off)), len(values), id_values=values)
        spans = token_list_spans(refs, "references") if kind == "tokens" else \
            sacre_tokenize(refs, tokenize, lowercase=lowercase)
        from vecscore.engine.batch import intern

        ids, first = intern(spans)
        fold = IDENTITY if spans.fold is None else spans.fold
        lens = spans.ends[first] - spans.starts[first]
        voff = np.zeros(len(first) + 1, np.int64)
        np.cumsum(lens, out=voff[1:])
        gather = np.repeat(spans.starts[first] - voff[:-1], lens) + np.arange(int(voff[-1]), dtype=np.int64)
        vbuf = fold[spans.buf[gather]]
        vhash = hash_spans(vbuf, voff[:-1], voff[1:], IDENTITY)
        vocab = (vbuf, voff, vhash, vocab_table(vhash), fold)
        return cls(kind, tokenize, lowercase, len(refs), ids.astype(np.int64), spans.offsets,
                   np.unique(np.diff(spans.offsets)), len(first), vocab=vocab)

    def table(self, max_order: int):
        """The n-gram table of orders ``1..max_order`` (or a larger one already built)."""
        for k in sorted(self._tables):
            if k >= max_order:
                return self._tables[k]
        longest = int(np.diff(self.ref_off).max()) if self.n_refs else 0
        bound = self.n_vocab + max(longest, 1) * self.n_refs * max(max_order - 1, 0)
        if bound * max(self.n_vocab, 1) >= 2**62:
            raise VecscoreError("the shared references are too large for one n-gram table; split them")
        keys, vals, max_count = build_table(self.ref_ids, self.ref_off, self.n_vocab, int(max_order))
        self._tables = {max_order: (keys, vals, max_count)}
        return self._tables[max_order]

    def hyp_ids(self, hyps: list) -> tuple[np.ndarray, np.ndarray]:
        """Every hypothesis token's reference token id (-1 where no reference has it), and the row offsets."""
        if self.kind == "ids":
            raw, off = _ids_rows(hyps, "hyps")
            values = self.id_values
            assert values is not None
            j = np.minimum(np.searchsorted(values, raw), max(len(values) - 1, 0))
            hit = (values[j] == raw) if len(values) else np.zeros(len(raw), bool)
            return np.where(hit, j, -1).astype(np.int64), off
        spans = token_list_spans(hyps, "hyps") if self.kind == "tokens" else \
            sacre_tokenize(hyps, self.tokenize, lowercase=self.lowercase)
        vbuf, voff, vhash, table, fold = self.vocab  # type: ignore[misc]
        hashes = hash_spans(spans.buf, spans.starts, spans.ends, fold)
        ids = lookup_tokens(spans.buf, spans.starts, spans.ends, hashes, fold, table, vhash, vbuf, voff)
        return ids, spans.offsets

    def statistics(self, hyps: list, max_order: int, brevity_penalty: str = "closest") -> BleuStats:
        """:class:`BleuStats` of validated hypotheses (a list of this table's kind) against the references."""
        check_brevity_penalty(brevity_penalty)
        current_threads()  # loads numba (the kernels below)
        ids, off = self.hyp_ids(hyps)
        keys, vals, max_count = self.table(max_order)
        correct = shared_counts(ids, off, keys, vals, max_count, self.n_vocab, int(max_order))
        sys_len = np.diff(off).astype(np.int64)
        ref_len = closest_lengths(sys_len, self.sorted_lens, brevity_penalty)
        total = np.maximum(sys_len[:, None] - np.arange(max_order, dtype=np.int64)[None, :], 0)
        nrefs = np.full(len(sys_len), self.n_refs, np.int64)
        return BleuStats(sys_len, ref_len, correct, total, nrefs)
