"""CIDEr-D as coco-caption computes it (pycocoevalcap ``Cider``), on sparse n-gram tables in NumPy.

What it computes, for n-gram orders ``k = 1..4`` (tokens from ``str.split()``):

- document frequency ``df(g)``: the number of items among whose references the
  n-gram ``g`` occurs (the references being scored, or those of a corpus you
  pass); ``N``: the number of those items;
- each text's vector: ``count(g) * (log N - log max(1, df(g)))``, one vector per
  order (an n-gram that no reference has counts with ``df = 0``, like ``df = 1``);
- per (item, reference) and order: the hypothesis' weights clipped at the
  reference's, ``sum_g min(h_g, r_g) * r_g``, divided by the two vectors' norms
  (when neither is 0), times ``exp(-d^2 / (2 sigma^2))`` where ``d`` is the
  difference of the two texts' *bigram* counts and ``sigma = 6``;
- an item's CIDEr-D: those summed over its references, averaged over the orders,
  divided by its number of references, times 10; the corpus value is the mean
  over items.  With one item ``log N = 0``: every weight, and the score, is 0.
"""
from __future__ import annotations

import math

import numpy as np

from vecscore.coco.grams import Grams, grams, lookup, unique_sorted
from vecscore.coco.items import Items
from vecscore.errors import VecscoreError

__all__ = ["SIGMA", "item_scores", "check_sigma"]

SIGMA = 6.0


def item_scores(batch: Items, n: int = 4, sigma: float = SIGMA, df_corpus: Items | None = None,
                counted: int | None = None, table: Grams | None = None) -> np.ndarray:
    """Every item's CIDEr-D (``df_corpus``: the items whose references give the document frequencies; default
    ``batch`` itself).  ``counted``: count n-grams of at most that many tokens, the higher orders scoring 0 in
    the average over ``n`` orders (pycocoevalcap's ``Cider(n > 4)``).  ``table``: :func:`~vecscore.coco.grams.grams`
    of ``batch.hyps + batch.refs (+ df_corpus.refs)`` with enough orders, when already computed."""
    n_items, n_refs = batch.n, len(batch.refs)
    extra = [] if df_corpus is None else df_corpus.refs
    m = n if counted is None else min(n, counted)
    if table is None:
        table = grams(batch.hyps + batch.refs + extra, m, keep=False)
    if table.n_texts != n_items + n_refs + len(extra) or table.n_orders < m:
        raise ValueError("the n-gram table is not that of the texts scored with enough orders")
    lengths = table.toks.lengths
    n_scored = n_items + n_refs
    # the item whose references count for df, per text (-1: hypotheses)
    if df_corpus is None:
        df_owner = np.concatenate([np.full(n_items, -1, dtype=np.int64), batch.owner])
        n_docs = n_items
    else:
        df_owner = np.concatenate([np.full(n_scored, -1, dtype=np.int64), df_corpus.owner])
        n_docs = df_corpus.n
    log_n = float(np.log(float(n_docs)))
    owner = batch.owner
    hyp_bigrams = np.maximum(lengths[:n_items] - 1, 0) if n >= 2 else np.zeros(n_items, dtype=np.int64)
    ref_bigrams = np.maximum(lengths[n_items:n_scored] - 1, 0) if n >= 2 else np.zeros(n_refs, dtype=np.int64)
    delta = (hyp_bigrams[owner] - ref_bigrams).astype(np.float64)
    gauss = {d: np.e ** (-(d ** 2) / (2 * sigma ** 2)) for d in np.unique(delta).tolist()}
    penalty = np.array([gauss[d] for d in delta.tolist()], dtype=np.float64)
    per_order = np.zeros((n_refs, n), dtype=np.float64)
    for k, c in enumerate(table.orders(m)):
        width = max(c.n_grams, 1)
        # document frequency: distinct (item, n-gram) among the counted references
        docs = df_owner[c.text]
        counted = docs >= 0
        doc_keys = unique_sorted(docs[counted] * width + c.gram[counted])
        df = np.bincount(doc_keys % width, minlength=c.n_grams)
        weight = c.count * (log_n - np.log(np.maximum(1.0, df[c.gram].astype(np.float64))))
        norm = np.sqrt(np.bincount(c.text, weights=weight * weight, minlength=len(lengths)))
        hyp_end, ref_end = int(c.start[n_items]), int(c.start[n_scored])
        hyp_keys = c.text[:hyp_end] * width + c.gram[:hyp_end]
        ref_w = weight[hyp_end:ref_end]
        ref_text = c.text[hyp_end:ref_end] - n_items  # the reference's index among batch.refs
        hyp_w = lookup(hyp_keys, weight[:hyp_end], owner[ref_text] * width + c.gram[hyp_end:ref_end])
        val = np.bincount(ref_text, weights=np.minimum(hyp_w, ref_w) * ref_w, minlength=n_refs).astype(np.float64)
        norm_h, norm_r = norm[:n_items][owner], norm[n_items:n_scored]
        both = (norm_h != 0) & (norm_r != 0)
        val[both] /= norm_h[both] * norm_r[both]
        per_order[:, k] = val * penalty
    summed = np.add.reduceat(per_order, batch.ref_ptr[:-1], axis=0) if n_refs else np.zeros((n_items, n))
    scores = summed.mean(axis=1) / np.diff(batch.ref_ptr) * 10.0
    return scores


def check_sigma(sigma) -> float:
    """``sigma`` as a float, or an error saying what it must be."""
    try:
        value = float(sigma)
    except (TypeError, ValueError):
        value = float("nan")
    if isinstance(sigma, bool) or not math.isfinite(value) or value <= 0:
        raise VecscoreError(f"sigma (the length penalty's width) must be a positive number, not {sigma!r}")
    return value
