"""From user input to ragged integer arrays.

A :class:`PairBatch` holds every text of a call (hypotheses first, then all
references) as one ragged array of dense token ids, so hypotheses and
references share one vocabulary, plus ``ref_ptr``: the references of pair
``i`` are reference rows ``ref_ptr[i]:ref_ptr[i + 1]``.

Accepted inputs (decided by the type of the hypotheses, never guessed per row):

* texts: ``hyps`` a sequence of ``str``; ``refs`` per example either a ``str``
  (one reference) or a list of ``str`` (several);
* pre-tokenized: ``hyps`` a sequence of lists of ``str`` tokens; ``refs`` per
  example a list of tokens (one reference) or a list of such lists (several;
  ``[]`` is an empty reference *list*, write ``[[]]`` for one empty reference);
* token ids: ``hyps`` a sequence of integer NumPy arrays (or lists of ints);
  ``refs`` per example an integer array or a list of them.

``refs_layout="streams"`` takes sacreBLEU's layout instead: ``refs[k][i]`` is
the k-th reference of pair ``i``; ``None`` marks a missing reference.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from vecscore.errors import RowError, VecscoreError
from vecscore.kernels.intern import IDENTITY, intern_spans
from vecscore.kernels.tokenize import sentence_flags
from vecscore.parallel import current_threads
from vecscore.references import Refs, batch_rows
from vecscore.row_errors import warn_empty_rows
from vecscore.text.sentences import sentence_layout
from vecscore.text.spans import TokenSpans
from vecscore.text.tokenizers import (
    is_kernel_tokenizer,
    spans_from_token_lists,
    tokenize,
)

__all__ = ["Ragged", "PairBatch", "build_batch", "intern", "transform_vocab", "vocab_strings", "apply_vocab_map",
           "dense_ids"]



@dataclass(frozen=True)
class Ragged:
    """A batch of integer sequences: row ``i`` is ``ids[offsets[i]:offsets[i + 1]]``."""

    ids: np.ndarray
    offsets: np.ndarray

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def row(self, i: int) -> np.ndarray:
        return self.ids[self.offsets[i] : self.offsets[i + 1]]


@dataclass(frozen=True)
class PairBatch:
    """Hypotheses (rows ``0..n_pairs-1``) and references (rows after them).

    ``sentences``, when requested, is ``(sent_offsets, text_sents)`` in the
    layout of :mod:`vecscore.kernels.lcs` (sentences = lines with tokens).
    """

    texts: Ragged
    n_pairs: int
    ref_ptr: np.ndarray
    n_vocab: int
    sentences: tuple | None = None

    @property
    def n_refs(self) -> int:
        return len(self.texts) - self.n_pairs

    @property
    def hyp_rows(self) -> np.ndarray:
        return np.arange(self.n_pairs, dtype=np.int64)

    @property
    def ref_rows(self) -> np.ndarray:
        return np.arange(self.n_pairs, len(self.texts), dtype=np.int64)

    @property
    def owner(self) -> np.ndarray:
        """The pair index of every reference row."""
        return np.repeat(np.arange(self.n_pairs, dtype=np.int64), np.diff(self.ref_ptr))

    @property
    def nrefs(self) -> np.ndarray:
        return np.diff(self.ref_ptr)


def intern(spans: TokenSpans) -> tuple[np.ndarray, np.ndarray]:
    """Dense token ids of ``spans`` and the first occurrence of each id."""
    fold = IDENTITY if spans.fold is None else spans.fold
    return intern_spans(spans.buf, spans.starts, spans.ends, fold, current_threads())


def vocab_strings(spans: TokenSpans, first: np.ndarray) -> list[str]:
    b = (spans.buf if spans.fold is None else spans.fold[spans.buf]).tobytes()
    s = spans.starts[first].tolist()
    e = spans.ends[first].tolist()
    return [b[x:y].decode("utf-8") for x, y in zip(s, e)]


def apply_vocab_map(ids: np.ndarray, offsets: np.ndarray, mapping: np.ndarray, sent_ids=None):
    """Map ids through ``mapping`` (``-1`` drops the token) and re-pack rows.

    Returns the new :class:`Ragged` and the kept tokens' sentence ids.
    """
    new = mapping[ids]
    keep = new >= 0
    if keep.all():
        return Ragged(new, offsets), sent_ids
    c = np.zeros(len(keep) + 1, np.int64)
    np.cumsum(keep, out=c[1:])
    return Ragged(new[keep], c[offsets]), (None if sent_ids is None else sent_ids[keep])


def transform_vocab(words: list[str], transform: Callable[[str], str | None]) -> tuple[np.ndarray, list[str]]:
    """Apply ``transform`` once per vocabulary word; ``None`` drops the word.

    Returns the id mapping (old id -> new id or -1) and the new vocabulary.
    """
    index: dict[str, int] = {}
    mapping = np.empty(len(words), np.int64)
    for v, w in enumerate(words):
        out = transform(w)
        mapping[v] = -1 if out is None else index.setdefault(out, len(index))
    return mapping, list(index)


def _ids_batch(rows) -> tuple[Ragged, int]:
    arrays = [np.asarray(r, dtype=np.int64) for r in rows]
    lens = np.fromiter(map(len, arrays), dtype=np.int64, count=len(arrays))
    offsets = np.zeros(len(arrays) + 1, np.int64)
    np.cumsum(lens, out=offsets[1:])
    flat = np.concatenate(arrays) if arrays else np.empty(0, np.int64)
    if flat.size and flat.min() < 0:
        row = int(np.searchsorted(offsets, int(np.argmax(flat < 0)), side="right") - 1)
        raise RowError(row, "{row} has a negative token id; token ids must be >= 0")
    dense, n_vocab = dense_ids(flat)
    return Ragged(dense, offsets), n_vocab


def dense_ids(flat: np.ndarray) -> tuple[np.ndarray, int]:
    """``(ids, n)``: ``flat``'s ids (>= 0) renumbered ``0..n-1`` in increasing order (as ``np.unique``'s inverse).

    Ids up to a few times the token count (a tokenizer's vocabulary) go through a presence table, in linear
    time; larger ones (hashes) are sorted.
    """
    if not flat.size:
        return flat.astype(np.int64), 0
    top = int(flat.max())
    if top < 4 * flat.size + (1 << 20):
        present = np.zeros(top + 1, np.bool_)
        present[flat] = True
        rank = np.cumsum(present, dtype=np.int64)
        return rank[flat] - 1, int(rank[-1])
    uniq, inv = np.unique(flat, return_inverse=True)
    return inv.astype(np.int64).reshape(-1), len(uniq)


def build_batch(
    hyps,
    refs,
    *,
    tokenizer="rouge-score",
    lowercase: bool = False,
    transform: Callable[[str], str | None] | None = None,
    refs_layout: str = "per-example",
    warn_empty: bool = True,
    spans_fn: Callable[[list[str]], TokenSpans] | None = None,
    sentences: bool = False,
    kind: str | None = None,
) -> PairBatch:
    """Validate, tokenize and intern a batch of pairs.

    ``transform`` is applied once per vocabulary word (stemming, stopwords,
    token filters); returning ``None`` removes the word.  ``spans_fn``, if
    given, replaces the tokenizer registry: it receives all texts
    (hypotheses, then references) and returns their :class:`TokenSpans`
    (e.g. the sacreBLEU or ROUGE-1.5.5 tokenizers).  ``sentences=True``
    also records each text's sentences (its lines; see
    :mod:`vecscore.text.sentences`).  ``kind``: the hypotheses' input kind where the front door has read them
    already (``refs`` then a :class:`Refs`), so that they are not read again.
    """
    if kind is not None and isinstance(refs, Refs):
        rows, ref_ptr = hyps + refs.flat, refs.ptr
    else:
        kind, rows, ref_ptr = batch_rows(hyps, refs, refs_layout)
    n = len(ref_ptr) - 1
    if kind == "ids":
        if transform is not None:
            raise VecscoreError("stemming and stopwords need text or string tokens, not token ids")
        ragged, n_vocab = _ids_batch(rows)
        layout = _one_sentence_per_text(ragged.offsets) if sentences else None
        return PairBatch(ragged, n, ref_ptr, n_vocab, layout)
    flags = None
    if kind != "text":
        spans = spans_from_token_lists(rows)
    elif spans_fn is not None:
        spans = spans_fn(rows)
    elif sentences and not is_kernel_tokenizer(tokenizer):
        spans, flags = _tokenize_by_line(rows, tokenizer, lowercase)
    else:
        spans = tokenize(rows, tokenizer, lowercase=lowercase)
    if sentences and flags is None:
        if kind == "text" and spans_fn is None:
            flags = sentence_flags(spans.buf, spans.starts, spans.ends, spans.offsets, 10)
        else:  # token lists carry no line breaks: one sentence per text
            flags = np.zeros(len(spans.starts), np.bool_)
            flags[spans.offsets[:-1][np.diff(spans.offsets) > 0]] = True
    sent_ids = None if flags is None else np.cumsum(flags) - 1
    ids, first = intern(spans)
    ragged = Ragged(ids, spans.offsets)
    n_vocab = len(first)
    if transform is not None:
        mapping, vocab = transform_vocab(vocab_strings(spans, first), transform)
        ragged, sent_ids = apply_vocab_map(ids, spans.offsets, mapping, sent_ids)
        n_vocab = len(vocab)
    layout = None if sent_ids is None else sentence_layout(ragged.offsets, sent_ids)
    if warn_empty and kind == "text":
        warn_empty_rows(rows, ragged.lengths)
    return PairBatch(ragged, n, ref_ptr, n_vocab, layout)


def _one_sentence_per_text(offsets: np.ndarray):
    """The sentence layout of texts without line breaks (token lists, token ids): one sentence each."""
    flags = np.zeros(int(offsets[-1]), np.bool_)
    flags[offsets[:-1][np.diff(offsets) > 0]] = True
    return sentence_layout(offsets, np.cumsum(flags) - 1)


def _tokenize_by_line(rows, tokenizer, lowercase):
    """Tokenize every line on its own (for tokenizers that run in Python)."""
    lines = [t.split("\n") for t in rows]
    counts = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
    line_ptr = np.zeros(len(lines) + 1, np.int64)
    np.cumsum(counts, out=line_ptr[1:])
    spans = tokenize([x for ls in lines for x in ls], tokenizer, lowercase=lowercase)
    flags = np.zeros(len(spans.starts), np.bool_)
    line_starts = spans.offsets[:-1]
    flags[line_starts[np.diff(spans.offsets) > 0]] = True
    return TokenSpans(spans.buf, spans.starts, spans.ends, spans.offsets[line_ptr], spans.fold), flags
