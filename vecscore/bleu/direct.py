"""BLEU statistics from text on the compiled route (numba kernels).

:mod:`vecscore.bleu.api` and :mod:`vecscore.bleu.nltk` import this module only
when a call takes the compiled route (:mod:`vecscore.route`): importing it
loads numba.

For a batch of ``str`` (read in place, see :mod:`vecscore.engine.pair_rows`;
non-ASCII rows as UTF-8, :data:`vecscore.kernels.wide_text.UTF8`), tokenized by
``13a``, ``none``, ``char``, ``zh`` or ``zh-fixed`` without lowercasing, every
statistic compares tokens within one pair, so no corpus-wide tokens or
vocabulary are needed: :func:`direct_stats` runs
:func:`vecscore.kernels.pair_bleu.pair_bleu_counts` over the bytes (for ``zh``,
with its "Chinese" characters spaced as they are transcoded,
:data:`vecscore.kernels.wide_text.ZH`; the rare pairs whose texts begin or end
with ``.`` or ``,``, where ``zh``'s unpadded rules may differ, are scored again
on the general route).  It
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
from vecscore.engine.pair_rows import ReadyRows, pair_rows, ready_rows
from vecscore.errors import VecscoreError
from vecscore.kernels.pair_bleu import FAST_MODES, MODE_ZH, RefKeys, pair_bleu_counts, reference_keys, unpadded_edges
from vecscore.kernels.wide_text import UTF8, ZH, ZH_FIXED, sacrebleu_utf8, sacrebleu_zh_bytes
from vecscore.references import Refs
from vecscore.text.sacrebleu_tokenizers import tokenize as sacre_tokenize
from vecscore.text.spans import TokenSpans
from vecscore.text.tokenizers import spans_from_token_lists
from vecscore.text.unicode_tables import flag_table

__all__ = ["direct_stats", "general_stats", "text_stats", "RefCache", "cache_references", "ready_references",
           "ReadyReferences"]


def direct_stats(hyps, refs: "Refs | ReadyReferences", *, tokenize: str, lowercase: bool, max_order: int,
                 brevity_penalty: str) -> BleuStats | None:
    """Statistics of text ``hyps`` and ``refs`` as the front door read them (see
    :func:`vecscore.bleu.bleu_statistics`), or ``None``."""
    if tokenize not in FAST_MODES or lowercase:
        return None
    keys = None
    if isinstance(refs, ReadyReferences):
        keys = refs.keys
        refs = refs.rows
    n = len(hyps)
    got = pair_rows(hyps, refs, *_reading(tokenize))
    if got is None:  # pragma: no cover - an encoder is given, so every str row is read
        return None
    rows, ref_ptr, texts = got
    check_stats_args(ref_ptr, max_order, brevity_penalty)
    lengths, correct = pair_bleu_counts(rows.addrs, rows.lens, ref_ptr, FAST_MODES[tokenize], int(max_order),
                                        ref_keys=keys)
    stats = stats_from_counts(lengths[:n], lengths[n:], ref_ptr, correct, brevity_penalty)
    if FAST_MODES[tokenize] == MODE_ZH:
        stats = _unpadded(stats, rows, ref_ptr, texts, tokenize, max_order, brevity_penalty)
    return stats


#: the tokenizers whose text is transcoded with their "Chinese" characters spaced
_ZH_MODES = {"zh": ZH, "zh-fixed": ZH_FIXED}


def _reading(tokenize: str) -> tuple:
    """``(encode, transcode, lone_surrogate, table)`` of :func:`vecscore.engine.pair_rows.pair_rows` for
    ``tokenize``'s per-pair kernel."""
    mode = _ZH_MODES.get(tokenize)
    if mode is None:
        return sacrebleu_utf8, UTF8, None, None
    table = flag_table()
    return sacrebleu_zh_bytes(table, mode), mode, None, table


def _unpadded(stats: BleuStats, rows, ref_ptr, texts, tokenize: str, max_order: int,
              brevity_penalty: str) -> BleuStats:
    """``stats`` with the pairs of texts that ``zh`` and the kernel's padded rules may split differently
    (:func:`vecscore.kernels.pair_bleu.unpadded_edges`: a ``.`` or ``,`` at an end of the text, rare)
    scored again on the general route."""
    n = len(ref_ptr) - 1
    edges = np.flatnonzero(unpadded_edges(rows.addrs, rows.lens))
    if not len(edges):
        return stats
    pairs = np.unique(np.where(edges < n, edges, np.searchsorted(ref_ptr, edges - n, side="right") - 1))
    starts, stops = ref_ptr[pairs].tolist(), ref_ptr[pairs + 1].tolist()
    sub = general_stats([texts[int(p)] for p in pairs], [[texts[n + q] for q in range(a, b)] for a, b in
                                                         zip(starts, stops)],
                        tokenize=tokenize, lowercase=False, max_order=max_order, brevity_penalty=brevity_penalty,
                        refs_layout="per-example")
    fields = [np.array(getattr(stats, f)) for f in ("sys_len", "ref_len", "correct", "total", "nrefs")]
    for mine, theirs in zip(fields, (sub.sys_len, sub.ref_len, sub.correct, sub.total, sub.nrefs)):
        mine[pairs] = theirs
    return BleuStats(*fields)


@dataclass(frozen=True, eq=False)
class ReadyReferences:
    """References read once into the per-pair kernel's bytes (``rows``) and tokenized once (``keys``, ``None``
    where :func:`vecscore.kernels.pair_bleu.reference_keys` declines): see :func:`ready_references`."""

    rows: ReadyRows
    keys: RefKeys | None


def ready_references(refs: list, tokenize: str) -> ReadyReferences | None:
    """References (one ``str`` per pair) read and tokenized once for :func:`direct_stats` with ``tokenize``,
    which takes the result as ``refs``: a cached scorer's later calls read and tokenize only their hypotheses
    (``None``: pass the texts instead)."""
    encode, transcode, _, table = _reading(tokenize)
    rows = ready_rows(refs, encode, transcode, table)
    if rows is None:
        return None
    return ReadyReferences(rows, reference_keys(rows.rows.addrs, rows.rows.lens, FAST_MODES[tokenize]))


def general_stats(hyps, refs, *, tokenize: str | None, lowercase: bool, max_order: int, brevity_penalty: str,
                  refs_layout: str, kind: str | None = None) -> BleuStats:
    """Statistics of any input kind: texts through sacreBLEU's ``tokenize``, token lists and ids as they are
    (``kind``: as :func:`vecscore.engine.batch.build_batch`)."""
    batch = build_batch(hyps, refs, spans_fn=lambda rows: sacre_tokenize(rows, tokenize, lowercase=lowercase),
                        refs_layout=refs_layout, warn_empty=False, kind=kind)
    return batch_stats(batch, max_order, brevity_penalty)


def text_stats(hyps, refs, *, kind: str, tokenize: str, lowercase: bool, max_order: int, brevity_penalty: str,
               refs_layout: str) -> BleuStats:
    """:func:`direct_stats` where it applies, else :func:`general_stats`."""
    options = dict(tokenize=tokenize, lowercase=lowercase, max_order=max_order, brevity_penalty=brevity_penalty)
    if kind == "text":
        stats = direct_stats(hyps, refs, **options)
        if stats is not None:
            return stats
    return general_stats(hyps, refs, refs_layout=refs_layout, kind=kind, **options)


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
    """A :class:`RefCache` of validated, flattened references (``flat_refs`` and ``ref_ptr`` of a
    :class:`vecscore.references.Refs`)."""
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
