"""ROUGE's compiled route: per-(pair, reference) statistics from the numba kernels.

Texts are tokenized and interned once per call (:mod:`vecscore.engine.batch`), or,
for the default tokenizer on plain texts, read in place by one fused kernel
(:mod:`vecscore.rouge.direct`); n-gram overlaps come from sparse count
matrices (:mod:`vecscore.engine.counts`) and the LCS family from
:mod:`vecscore.kernels.lcs` and :mod:`vecscore.kernels.wlcs`.
:func:`vecscore.rouge` imports this module only when a call takes this route.
"""
from __future__ import annotations

import numpy as np

from vecscore.engine.batch import PairBatch, build_batch
from vecscore.engine.counts import ngram_counts, overlap
from vecscore.kernels.lcs import lcs_length_pairs
from vecscore.kernels.union_lcs import union_lcs_hits_pairs
from vecscore.kernels.wlcs import wlcs_lin_pairs, wlcs_perl_pairs
from vecscore.rouge.direct import direct_stats
from vecscore.rouge.splitting import split_texts

__all__ = ["compiled_stats", "metric_stats", "rouge_n_stats"]


def compiled_stats(hyps, input_kind, refs, parsed, *, tokenizer, lowercase, transform, sentences, wlcs,
                   splitter="newline"):
    """``(per_metric, ref_ptr)``: per metric ``(hits, hyp_count, ref_count, exponent)`` (see :func:`metric_stats`);
    ``splitter``: the sentence splitter to apply first."""
    found = direct_stats(hyps, input_kind, refs, parsed, tokenizer=tokenizer, transform=transform, splitter=splitter)
    if found is not None:
        direct, ref_ptr = found
        return [(*st, None) for st in direct], ref_ptr
    hyps, refs = split_texts(hyps, refs, splitter)
    batch = build_batch(hyps, refs, tokenizer=tokenizer, lowercase=lowercase, transform=transform,
                        sentences=sentences, kind=input_kind)
    return [metric_stats(batch, kind, param, wlcs) for kind, param in parsed], batch.ref_ptr


def rouge_n_stats(batch: PairBatch, n: int, pairs=None, n_hyps: int | None = None):
    """Per compared reference row: clipped n-gram hits and reference n-gram count; per hypothesis: its count.

    ``pairs``, ``n_hyps``: as :func:`metric_stats`.
    """
    owner, ref_rows = pairs if pairs is not None else (batch.owner, batch.ref_rows)
    c = ngram_counts(batch.texts, n, batch.n_vocab)
    hits = overlap(c, owner, ref_rows)
    return hits, c.totals[: batch.n_pairs if n_hyps is None else n_hyps], c.totals[ref_rows]


def metric_stats(batch: PairBatch, kind: str, param, wlcs: str = "rouge155", pairs=None, n_hyps: int | None = None):
    """``(hits, hyp_count, ref_count, exponent)`` of one metric.

    ``hits`` and ``ref_count`` per compared reference row, ``hyp_count`` per hypothesis;
    ``exponent`` is ``None``, or ROUGE-W's alpha: its statistics are weighted by ``f(k) = k ** alpha`` and
    its ratios go through ``f^-1`` (:class:`vecscore.rouge.stats.RougeStats`).  ``pairs``: the
    ``(hypothesis rows, reference rows)`` of the batch's texts to compare (default: every pair with its
    references); ``n_hyps``: the hypotheses are the batch's first ``n_hyps`` texts (default: its pairs).
    """
    if kind == "n":
        return (*rouge_n_stats(batch, int(param), pairs, n_hyps), None)
    t = batch.texts
    owner, ref_rows = pairs if pairs is not None else (batch.owner, batch.ref_rows)
    lengths = t.lengths
    hyp_len, ref_len = lengths[: batch.n_pairs if n_hyps is None else n_hyps], lengths[ref_rows]
    if kind == "L":
        hits = lcs_length_pairs(t.ids, t.offsets, t.ids, t.offsets, owner, ref_rows, vocab_size=batch.n_vocab)
        return hits, hyp_len, ref_len, None
    if kind == "Lsum":
        so, ts = batch.sentences
        hits = union_lcs_hits_pairs(t.ids, so, ts, t.ids, so, ts, owner, ref_rows, vocab_size=batch.n_vocab)
        return hits, hyp_len, ref_len, None
    alpha = float(param)

    def f(x):
        return np.power(np.asarray(x, np.float64), alpha)

    if wlcs == "textbook":
        w = wlcs_lin_pairs(t.ids, t.offsets, t.ids, t.offsets, owner, ref_rows, alpha=alpha)
        return w, f(hyp_len), f(ref_len), alpha
    so, ts = batch.sentences
    whit, wbase = wlcs_perl_pairs(t.ids, so, ts, t.ids, so, ts, owner, ref_rows, alpha=alpha, vocab_size=batch.n_vocab)
    return whit, f(hyp_len), f(wbase), alpha
