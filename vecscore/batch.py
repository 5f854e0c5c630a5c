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

import warnings
from collections.abc import Callable, Sequence
from itertools import chain
from dataclasses import dataclass

import numpy as np

from vecscore.errors import EmptyTokenizationWarning, VecscoreError
import numba

from vecscore.kernels.intern import IDENTITY, intern_spans
from vecscore.kernels.tokenize import sentence_flags
from vecscore.text.sentences import sentence_layout
from vecscore.text.spans import TokenSpans
from vecscore.text.tokenizers import is_kernel_tokenizer, spans_from_token_lists, tokenize

__all__ = ["Ragged", "PairBatch", "build_batch", "normalize_refs", "input_kind"]

REFS_LAYOUTS = ("per-example", "streams")


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


def input_kind(hyps) -> str:
    """``"text"``, ``"tokens"`` or ``"ids"``, from the first hypothesis."""
    if len(hyps) == 0:
        return "text"
    h = hyps[0]
    if isinstance(h, str):
        return "text"
    if isinstance(h, np.ndarray) and h.dtype.kind in "iu":
        return "ids"
    if isinstance(h, (list, tuple)):
        if any(isinstance(x, str) for x in h):
            return "tokens"
        if any(isinstance(x, (int, np.integer)) for x in h):
            return "ids"
        return "tokens"
    raise VecscoreError(
        f"hyps[0] is {type(h).__name__}; expected str (text), a list of str (tokens) or an integer array (token ids)"
    )


def _is_unit(x, kind: str) -> bool:
    if kind == "text":
        return isinstance(x, str)
    if kind == "tokens":
        return isinstance(x, (list, tuple)) and all(isinstance(t, str) for t in x)
    if isinstance(x, np.ndarray):
        return x.ndim == 1 and (x.dtype.kind in "iu" or x.size == 0)
    return isinstance(x, (list, tuple)) and all(isinstance(t, (int, np.integer)) and not isinstance(t, bool) for t in x)


_UNIT_NAME = {"text": "a str", "tokens": "a list of str tokens", "ids": "a 1-d integer array"}


def _all_str(rows) -> bool:
    """Fast (C-level) check that every row is exactly a ``str``."""
    return set(map(type, rows)) <= {str}


def _check_units(rows, kind: str, what: str) -> None:
    if kind == "text" and _all_str(rows):
        return
    bad = next((i for i, x in enumerate(rows) if not _is_unit(x, kind)), None)
    if bad is not None:
        raise VecscoreError(
            f"{what}[{bad}] is {rows[bad]!r:.60}, not {_UNIT_NAME[kind]}; every row must be {_UNIT_NAME[kind]} "
            "(replace missing values, e.g. with an empty string)"
        )


def normalize_refs(refs, n_pairs: int, kind: str, refs_layout: str = "per-example"):
    """Flatten references into ``(flat_refs, ref_ptr)``; errors name the row."""
    if refs_layout not in REFS_LAYOUTS:
        raise VecscoreError(f"refs_layout must be one of {REFS_LAYOUTS}, not {refs_layout!r}")
    if isinstance(refs, (str, bytes)) or not hasattr(refs, "__len__"):
        raise VecscoreError("refs must be a sequence with one entry per hypothesis (or streams with refs_layout='streams')")
    fast = _fast_flatten(refs, n_pairs, kind, refs_layout)
    if fast is not None:
        return fast
    if refs_layout == "streams":
        if len(refs) == 0:
            raise VecscoreError("refs_layout='streams' needs at least one reference stream")
        for k, stream in enumerate(refs):
            if isinstance(stream, (str, bytes)) or not hasattr(stream, "__len__"):
                raise VecscoreError(f"reference stream {k} is not a sequence of references")
            if len(stream) != n_pairs:
                raise VecscoreError(
                    f"reference stream {k} has {len(stream)} references but there are {n_pairs} hypotheses; "
                    "every stream needs one entry per hypothesis (None for a missing one)"
                )
        refs = [[s[i] for s in refs if s[i] is not None] for i in range(n_pairs)]
        missing = next((i for i, r in enumerate(refs) if not r), None)
        if missing is not None:
            raise VecscoreError(
                f"pair {missing} has no reference: it is None in every reference stream; "
                "every hypothesis needs at least one reference"
            )
    if len(refs) != n_pairs:
        raise VecscoreError(
            f"got {n_pairs} hypotheses but {len(refs)} reference entries; they must have the same length "
            "(for sacreBLEU-style reference streams pass refs_layout='streams')"
        )
    if (kind == "text" and _all_str(refs)) or all(_is_unit(r, kind) for r in refs):
        return list(refs), np.arange(n_pairs + 1, dtype=np.int64)
    flat = []
    counts = np.empty(n_pairs, np.int64)
    for i, r in enumerate(refs):
        if _is_unit(r, kind) and not (kind != "text" and len(r) == 0):
            flat.append(r)
            counts[i] = 1
            continue
        if not isinstance(r, (list, tuple)):
            raise VecscoreError(f"refs[{i}] is {r!r:.60}; expected {_UNIT_NAME[kind]} or a list of them")
        if len(r) == 0:
            hint = " (write [[]] for one empty reference)" if kind != "text" else ""
            raise VecscoreError(f"refs[{i}] is an empty list of references; every pair needs at least one reference{hint}")
        bad = next((j for j, x in enumerate(r) if not _is_unit(x, kind)), None)
        if bad is not None:
            raise VecscoreError(f"refs[{i}][{bad}] is {r[bad]!r:.60}, not {_UNIT_NAME[kind]}")
        flat.extend(r)
        counts[i] = len(r)
    ptr = np.zeros(n_pairs + 1, np.int64)
    np.cumsum(counts, out=ptr[1:])
    return flat, ptr


def intern(spans: TokenSpans) -> tuple[np.ndarray, np.ndarray]:
    """Dense token ids of ``spans`` and the first occurrence of each id."""
    fold = IDENTITY if spans.fold is None else spans.fold
    return intern_spans(spans.buf, spans.starts, spans.ends, fold, numba.get_num_threads())


def _fast_flatten(refs, n_pairs: int, kind: str, refs_layout: str):
    """C-level flattening for the common all-text layouts; ``None`` means "take the checked path"."""
    if kind != "text" or len(refs) == 0:
        return None
    if refs_layout == "streams":
        if not set(map(type, refs)) <= {list, tuple} or any(len(stream) != n_pairs for stream in refs):
            return None
        flat = list(chain.from_iterable(zip(*refs)))
        if not _all_str(flat):
            return None
        return flat, np.arange(0, len(refs) * n_pairs + 1, len(refs), dtype=np.int64)
    if len(refs) != n_pairs or not set(map(type, refs)) <= {list, tuple}:
        return None
    counts = np.fromiter(map(len, refs), dtype=np.int64, count=n_pairs)
    flat = list(chain.from_iterable(refs))
    if (counts == 0).any() or not _all_str(flat):
        return None
    ptr = np.zeros(n_pairs + 1, np.int64)
    np.cumsum(counts, out=ptr[1:])
    return flat, ptr


def _vocab_strings(spans: TokenSpans, first: np.ndarray) -> list[str]:
    b = (spans.buf if spans.fold is None else spans.fold[spans.buf]).tobytes()
    s = spans.starts[first].tolist()
    e = spans.ends[first].tolist()
    return [b[x:y].decode("utf-8") for x, y in zip(s, e)]


def _apply_vocab_map(ids: np.ndarray, offsets: np.ndarray, mapping: np.ndarray, sent_ids=None):
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
        raise VecscoreError(f"text {row} has a negative token id; token ids must be >= 0")
    uniq, inv = np.unique(flat, return_inverse=True)
    return Ragged(inv.astype(np.int64).reshape(-1), offsets), len(uniq)


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
) -> PairBatch:
    """Validate, tokenize and intern a batch of pairs.

    ``transform`` is applied once per vocabulary word (stemming, stopwords,
    token filters); returning ``None`` removes the word.  ``spans_fn``, if
    given, replaces the tokenizer registry: it receives all texts
    (hypotheses, then references) and returns their :class:`TokenSpans`
    (e.g. the sacreBLEU or ROUGE-1.5.5 tokenizers).  ``sentences=True``
    also records each text's sentences (its lines; see
    :mod:`vecscore.text.sentences`).
    """
    if isinstance(hyps, (str, bytes)) or not hasattr(hyps, "__len__"):
        raise VecscoreError("hyps must be a sequence of texts (a list of str), not a single string")
    n = len(hyps)
    kind = input_kind(hyps)
    _check_units(hyps, kind, "hyps")
    flat_refs, ref_ptr = normalize_refs(refs, n, kind, refs_layout)
    rows = list(hyps) + flat_refs
    if kind == "ids":
        if transform is not None:
            raise VecscoreError("stemming and stopwords need text or string tokens, not token ids")
        ragged, n_vocab = _ids_batch(rows)
        return PairBatch(ragged, n, ref_ptr, n_vocab)
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
        mapping, vocab = transform_vocab(_vocab_strings(spans, first), transform)
        ragged, sent_ids = _apply_vocab_map(ids, spans.offsets, mapping, sent_ids)
        n_vocab = len(vocab)
    layout = None if sent_ids is None else sentence_layout(ragged.offsets, sent_ids)
    if warn_empty and kind == "text":
        warn_empty_rows(rows, ragged.lengths)
    return PairBatch(ragged, n, ref_ptr, n_vocab, layout)


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


def warn_empty_rows(rows: Sequence[str], lengths: np.ndarray, stacklevel: int = 3) -> None:
    """One warning for the non-blank texts that the tokenizer reduced to zero tokens (``lengths``: tokens per row)."""
    empty = np.flatnonzero(lengths == 0)
    if empty.size == 0:
        return
    lost = [int(i) for i in empty if rows[i].strip()]
    if lost:
        warnings.warn(
            f"{len(lost)} non-empty text(s) were reduced to zero tokens by the tokenizer (first: text {lost[0]}, "
            f"{rows[lost[0]]!r:.40}); they score 0. For Chinese, Japanese or Korean text use tokenizer='char' or "
            "tokenizer='cjk' (or 'jieba' for Chinese words).",
            EmptyTokenizationWarning,
            stacklevel=stacklevel,
        )
