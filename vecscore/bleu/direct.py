"""BLEU statistics from text on the compiled route (numba kernels).

:mod:`vecscore.bleu.api` and :mod:`vecscore.bleu.nltk` import this module only
when a call takes the compiled route (:mod:`vecscore.route`): importing it
loads numba.

For a batch of ``str`` (read in place, see :mod:`vecscore.engine.pair_rows`;
non-ASCII rows as UTF-8, :data:`vecscore.kernels.wide_text.UTF8`), tokenized by
``13a``, ``none`` or ``char`` without lowercasing, every statistic compares
tokens within one pair, so no corpus-wide tokens or vocabulary are needed:
:func:`direct_stats` runs :func:`vecscore.kernels.pair_bleu.pair_bleu_counts`
over the bytes.  It
returns ``None`` where it does not apply, and :func:`text_stats` takes the
general route then (:func:`general_stats`: :func:`vecscore.engine.batch.build_batch`
with sacreBLEU's tokenizers, then :func:`vecscore.bleu.compiled.batch_stats`),
which gives the same statistics.  :class:`RefCache` holds references
tokenized and interned once, for :class:`vecscore.bleu.BLEU`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vecscore.bleu.compiled import (
    BleuStats,
    batch_stats,
    check_stats_args,
    stats_from_counts,
    stats_from_ids,
)
from vecscore.engine.batch import build_batch, intern
from vecscore.engine.pair_rows import pair_rows
from vecscore.errors import VecscoreError
from vecscore.kernels.pair_bleu import FAST_MODES, pair_bleu_counts
from vecscore.kernels.wide_text import UTF8, sacrebleu_utf8
from vecscore.text.sacrebleu_tokenizers import tokenize as sacre_tokenize
from vecscore.text.spans import TokenSpans
from vecscore.text.tokenizers import spans_from_token_lists

__all__ = ["direct_stats", "general_stats", "text_stats", "RefCache", "cache_references"]


def direct_stats(hyps, refs, *, tokenize: str, lowercase: bool, max_order: int, brevity_penalty: str,
                 refs_layout: str) -> BleuStats | None:
    """Statistics of validated text ``hyps`` (see :func:`vecscore.bleu.bleu_statistics`), or ``None``."""
    if tokenize not in FAST_MODES or lowercase:
        return None
    n = len(hyps)
    got = pair_rows(hyps, refs, refs_layout, sacrebleu_utf8, UTF8)
    if got is None:  # pragma: no cover - an encoder is given, so every str row is read
        return None
    rows, ref_ptr, _ = got
    check_stats_args(ref_ptr, max_order, brevity_penalty)
    lengths, correct = pair_bleu_counts(rows.addrs, rows.lens, ref_ptr, FAST_MODES[tokenize], int(max_order))
    return stats_from_counts(lengths[:n], lengths[n:], ref_ptr, correct, brevity_penalty)


def general_stats(hyps, refs, *, tokenize: str | None, lowercase: bool, max_order: int, brevity_penalty: str,
                  refs_layout: str) -> BleuStats:
    """Statistics of any input kind: texts through sacreBLEU's ``tokenize``, token lists and ids as they are."""
    batch = build_batch(hyps, refs, spans_fn=lambda rows: sacre_tokenize(rows, tokenize, lowercase=lowercase),
                        refs_layout=refs_layout, warn_empty=False)
    return batch_stats(batch, max_order, brevity_penalty)


def text_stats(hyps, refs, *, kind: str, tokenize: str, lowercase: bool, max_order: int, brevity_penalty: str,
               refs_layout: str) -> BleuStats:
    """:func:`direct_stats` where it applies, else :func:`general_stats`."""
    options = dict(tokenize=tokenize, lowercase=lowercase, max_order=max_order, brevity_penalty=brevity_penalty,
                   refs_layout=refs_layout)
    if kind == "text":
        stats = direct_stats(hyps, refs, **options)
        if stats is not None:
            return stats
    return general_stats(hyps, refs, **options)


def _spans(rows, kind: str, tokenize: str, lowercase: bool) -> TokenSpans:
    if kind == "tokens":
        return spans_from_token_lists(rows)
    return sacre_tokenize(rows, tokenize, lowercase=lowercase)


def _ids(rows, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Token-id rows as one array and offsets."""
    arrays = [np.asarray(r, dtype=np.int64) for r in rows]
    off = np.zeros(len(arrays) + 1, np.int64)
    np.cumsum([len(r) for r in arrays], out=off[1:])
    ids = np.concatenate(arrays) if arrays else np.zeros(0, np.int64)
    if ids.size and ids.min() < 0:
        raise VecscoreError(f"{what} token ids must be >= 0")
    return ids, off


@dataclass(frozen=True)
class RefCache:
    """References tokenized and interned once; :meth:`statistics` scores hypotheses against them."""

    kind: str
    tokenize: str
    lowercase: bool
    max_order: int
    ref_ids: np.ndarray
    ref_off: np.ndarray
    ref_ptr: np.ndarray
    vocab: TokenSpans | None  # the distinct reference tokens, in id order (text/tokens input)

    @property
    def n_pairs(self) -> int:
        return len(self.ref_ptr) - 1

    def statistics(self, hyps, brevity_penalty: str = "closest") -> BleuStats:
        """:class:`BleuStats` of validated ``hyps`` (one per pair, of this cache's kind)."""
        if self.kind == "ids":
            hyp_ids, hyp_off = _ids(hyps, "hypothesis")
        else:
            hs = _spans(list(hyps), self.kind, self.tokenize, self.lowercase)
            v = self.vocab
            shift = len(v.buf)
            joined = TokenSpans(np.concatenate([v.buf, hs.buf]), np.concatenate([v.starts, hs.starts + shift]),
                                np.concatenate([v.ends, hs.ends + shift]), hs.offsets)
            ids, _ = intern(joined)  # the vocabulary keeps ids 0..V-1 (first occurrence order)
            hyp_ids = ids[len(v.starts):]
            hyp_off = hs.offsets
        return stats_from_ids(hyp_ids, hyp_off, self.ref_ids, self.ref_off, self.ref_ptr, self.max_order,
                              brevity_penalty)


def cache_references(flat_refs, ref_ptr, *, kind: str, tokenize: str, lowercase: bool, max_order: int) -> RefCache:
    """A :class:`RefCache` of validated, flattened references (``ref_ptr``: :func:`vecscore.inputs.normalize_refs`)."""
    options = (kind, tokenize, lowercase, max_order)
    if kind == "ids":
        ids, off = _ids(flat_refs, "reference")
        return RefCache(*options, ids, off, ref_ptr, None)
    spans = _spans(flat_refs, kind, tokenize, lowercase)
    ids, first = intern(spans)
    lens = spans.ends[first] - spans.starts[first]
    vstarts = np.zeros(len(first), np.int64)
    np.cumsum(lens[:-1], out=vstarts[1:])
    gather = np.repeat(spans.starts[first] - vstarts, lens) + np.arange(int(lens.sum()), dtype=np.int64)
    vocab = TokenSpans(spans.buf[gather], vstarts, vstarts + lens, np.array([0, len(first)], np.int64))
    return RefCache(*options, ids, spans.offsets, ref_ptr, vocab)
