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

from vecscore.coco import compiled
from vecscore.coco.grams import Counts, Grams, grams, idf_classes, lookup, square_table, squares, unique_sorted
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
    n_scored = n_items + n_refs
    # the item whose references count for df, per text (-1: hypotheses)
    if df_corpus is None:
        df_owner = np.concatenate([np.full(n_items, -1, dtype=np.int64), batch.owner])
        n_docs = n_items
    else:
        df_owner = np.concatenate([np.full(n_scored, -1, dtype=np.int64), df_corpus.owner])
        n_docs = df_corpus.n
    log_n = float(np.log(float(n_docs)))
    per_order = np.zeros((n_refs, n), dtype=np.float64)
    got = None
    if compiled.use_compiled(batch, compiled.CIDER_KIND, extra):
        got = compiled.cider_values(batch.texts(extra), m, batch.ref_ptr, df_owner, log_n)
    if got is not None:
        lengths, per_order[:, :m] = got
    else:
        if table is None:
            table = grams(list(batch.texts(extra)), m, keep=False)
        if table.n_texts != n_items + n_refs + len(extra) or table.n_orders < m:
            raise ValueError("the n-gram table is not that of the texts scored with enough orders")
        lengths = table.toks.lengths
        for k, c in enumerate(table.orders(m)):
            per_order[:, k] = _values(c, n_items, n_scored, batch, df_owner, log_n, len(lengths))
    owner = batch.owner
    hyp_bigrams = np.maximum(lengths[:n_items] - 1, 0) if n >= 2 else np.zeros(n_items, dtype=np.int64)
    ref_bigrams = np.maximum(lengths[n_items:n_scored] - 1, 0) if n >= 2 else np.zeros(n_refs, dtype=np.int64)
    delta = hyp_bigrams[owner] - ref_bigrams
    if n_refs:  # the penalty of each distinct difference as pycocoevalcap takes it (Python floats)
        lo = int(delta.min())
        penalty = np.array([np.e ** (-(float(d) ** 2) / (2 * sigma ** 2)) for d in range(lo, int(delta.max()) + 1)],
                           dtype=np.float64)
        per_order *= penalty[delta - lo][:, None]
    summed = compiled.ref_sums(per_order, batch.ref_ptr) if got is not None else _ref_sums(per_order, batch.ref_ptr)
    return _item_means(summed) / np.diff(batch.ref_ptr) * 10.0


def _ref_sums(per_ref: np.ndarray, ref_ptr: np.ndarray) -> np.ndarray:
    """Per item: its references' rows added one after the other, as pycocoevalcap's ``score += sim(...)``
    (``np.add.reduceat`` may add in another order)."""
    summed = np.zeros((len(ref_ptr) - 1, per_ref.shape[1]), dtype=np.float64)
    nrefs = np.diff(ref_ptr)
    for j in range(int(nrefs.max(initial=0))):  # the j-th reference of every item that has one
        has = np.flatnonzero(nrefs > j)
        summed[has] += per_ref[ref_ptr[has] + j]
    return summed


def _item_means(summed: np.ndarray) -> np.ndarray:
    """``np.mean`` of every row with pycocoevalcap's roundings (a mean along an axis may add in another
    order)."""
    n = summed.shape[1]
    if n >= 8:  # np.mean's pairwise sum: row by row (orders of 8 and more are rare)
        return np.array([np.mean(row) for row in summed], dtype=np.float64)
    total = summed[:, 0].copy()  # np.mean of fewer than 8 values adds them one after the other
    for k in range(1, n):
        total += summed[:, k]
    return total / n


def _values(c: Counts, n_items: int, n_scored: int, batch: Items, df_owner: np.ndarray, log_n: float,
            n_texts: int) -> np.ndarray:
    """Per reference, one order's clipped TF-IDF product with its item's hypothesis over the two norms (NumPy),
    every sum in pycocoevalcap's order (``np.bincount`` adds in array order: the entries go by first
    occurrence)."""
    n_refs = n_scored - n_items
    width = max(c.n_grams, 1)
    # document frequency: distinct (item, n-gram) among the counted references
    docs = df_owner[c.text]
    counted = docs >= 0
    doc_keys = unique_sorted(docs[counted] * width + c.gram[counted])
    df = np.bincount(doc_keys % width, minlength=c.n_grams)
    idf, cls, values = idf_classes(df, log_n)
    weight = c.count * idf[c.gram]
    square = squares(c.count, cls[c.gram], weight, square_table(values))
    seq = c.by_first()
    norm = np.sqrt(np.bincount(c.text[seq], weights=square[seq], minlength=n_texts))
    hyp_end, ref_end = int(c.start[n_items]), int(c.start[n_scored])
    # every (hypothesis n-gram, reference of its item), the n-grams in order of first occurrence
    hyp = seq[seq < hyp_end]
    item = c.text[hyp]
    nrefs = np.diff(batch.ref_ptr)[item]
    rep = np.repeat(np.arange(hyp.size, dtype=np.int64), nrefs)
    ref = batch.ref_ptr[item][rep] + (np.arange(rep.size, dtype=np.int64) - np.repeat(np.cumsum(nrefs) - nrefs, nrefs))
    ref_keys = (c.text[hyp_end:ref_end] - n_items) * width + c.gram[hyp_end:ref_end]  # sorted
    ref_w = lookup(ref_keys, weight[hyp_end:ref_end], ref * width + c.gram[hyp][rep])
    hyp_w = weight[hyp][rep]
    val = np.bincount(ref, weights=np.minimum(hyp_w, ref_w) * ref_w, minlength=n_refs).astype(np.float64)
    norm_h, norm_r = norm[:n_items][batch.owner], norm[n_items:n_scored]
    both = (norm_h != 0) & (norm_r != 0)
    val[both] /= norm_h[both] * norm_r[both]
    return val


def check_sigma(sigma) -> float:
    """``sigma`` as a float, or an error saying what it must be."""
    try:
        value = float(sigma)
    except (TypeError, ValueError):
        value = float("nan")
    if isinstance(sigma, bool) or not math.isfinite(value) or value <= 0:
        raise VecscoreError(f"sigma (the length penalty's width) must be a positive number, not {sigma!r}")
    return value
