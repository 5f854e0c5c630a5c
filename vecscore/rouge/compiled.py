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

__all__ = ["compiled_stats", "metric_stats", "rouge_n_stats"]


def compiled_stats(hyps, refs, parsed, *, tokenizer, lowercase, transform, refs_layout, sentences, wlcs):
    """``(per_metric, ref_ptr)``: per metric ``(hits, hyp_count, ref_count, exponent)`` (see :func:`metric_stats`)."""
    found = direct_stats(hyps, refs, parsed, tokenizer=tokenizer, transform=transform, refs_layout=refs_layout)
    if found is not None:
        direct, ref_ptr = found
        return [(*st, None) for st in direct], ref_ptr
    batch = build_batch(hyps, refs, tokenizer=tokenizer, lowercase=lowercase, transform=transform,
                        refs_layout=refs_layout, sentences=sentences)
    return [metric_stats(batch, kind, param, wlcs) for kind, param in parsed], batch.ref_ptr


def rouge_n_stats(batch: PairBatch, n: int):
    """Per reference row: clipped n-gram hits and reference n-gram count; per pair: hypothesis count."""
    c = ngram_counts(batch.texts, n, batch.n_vocab)
    hits = overlap(c, batch.owner, batch.ref_rows)
    return hits, c.totals[: batch.n_pairs], c.totals[batch.n_pairs :]


def metric_stats(batch: PairBatch, kind: str, param, wlcs: str = "rouge155"):
    """``(hits, hyp_count, ref_count, exponent)`` of one metric.

    ``hits`` and ``ref_count`` per reference row, ``hyp_count`` per pair;
    ``exponent`` is ``None``, or ROUGE-W's alpha: its statistics are weighted by ``f(k) = k ** alpha`` and
    its ratios go through ``f^-1`` (:class:`vecscore.rouge.stats.RougeStats`).
    """
    if kind == "n":
        return (*rouge_n_stats(batch, int(param)), None)
    t = batch.texts
    lengths = t.lengths
    hyp_len, ref_len = lengths[: batch.n_pairs], lengths[batch.n_pairs :]
    owner, ref_rows = batch.owner, batch.ref_rows
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
