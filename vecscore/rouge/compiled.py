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
from vecscore.rouge.direct import direct_applicable, direct_stats

__all__ = ["compiled_stats", "metric_stats", "rouge_n_stats"]


def compiled_stats(hyps, refs, parsed, *, tokenizer, lowercase, transform, refs_layout, sentences, wlcs):
    """``(per_metric, ref_ptr)``: per metric ``(hits, hyp_count, ref_count, inverse)`` (see :func:`metric_stats`)."""
    if direct_applicable(hyps, parsed, tokenizer, transform):
        direct, ref_ptr = direct_stats(hyps, refs, parsed, refs_layout=refs_layout)
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
    """``(hits, hyp_count, ref_count, inverse)`` of one metric.

    ``hits`` and ``ref_count`` per reference row, ``hyp_count`` per pair;
    ``inverse`` is ``None`` or ROUGE-W's ``f^-1`` applied to the ratios.
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

    def inverse(x):
        return np.power(x, 1.0 / alpha)

    if wlcs == "textbook":
        w = wlcs_lin_pairs(t.ids, t.offsets, t.ids, t.offsets, owner, ref_rows, alpha=alpha)
        return w, f(hyp_len), f(ref_len), inverse
    so, ts = batch.sentences
    whit, wbase = wlcs_perl_pairs(t.ids, so, ts, t.ids, so, ts, owner, ref_rows, alpha=alpha, vocab_size=batch.n_vocab)
    return whit, f(hyp_len), f(wbase), inverse
