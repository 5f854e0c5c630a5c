"""Clipped n-gram hits one pair at a time, from corpus token ids.

The same statistics as :func:`vecscore.engine.counts.ngram_counts` followed by
:func:`vecscore.engine.counts.overlap` (sparse count matrices over the whole batch),
for batches that are already interned (ROUGE-1.5.5's tokenizer, stemming and
stopwords run first): for every pair, in a ``prange`` loop over chunks of
pairs, the hypothesis's tokens get pair-local dense ids ``0 .. V-1`` (through
one ``n_vocab`` map per chunk) and every reference token the hypothesis lacks
the one id ``V`` (no n-gram holding it can be a hit), and :func:`vecscore.kernels.pair_tables.pair_ngram_hits`
counts them.  Nothing of corpus size is allocated besides the output.

``drop_last`` adds one more row of hits: unigrams without every text's last
token, which is how ROUGE-1.5.5 counts the unigrams of ROUGE-SU (see
:mod:`vecscore.kernels.skipgrams`), from the same pair-local ids.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange
from vecscore.kernels.ngrams import chunk_ranges, table_bits
from vecscore.kernels.pair_tables import (
    DENSE_IDS,
    clipped_hits,
    pair_ngram_hits,
    pair_scratch,
)
from vecscore.memory import CHUNK_FAILED

__all__ = ["pair_ngram_hits_ids"]


@jit(parallel=True)
def pair_ngram_hits_ids(ids, offsets, n_pairs, ref_ptr, n_vocab, orders, drop_last):
    """Hits per order (``len(orders) x n_refs``, int64) of every reference row with its hypothesis,
    plus the drop-last unigram row if ``drop_last``.

    ``ids``/``offsets``: the ragged batch (hypotheses ``0..n_pairs-1``, then
    the references; ``ref_ptr`` as in :class:`vecscore.engine.batch.PairBatch`),
    ids below ``n_vocab``.  ``orders``: increasing, >= 1 (may be empty).
    """
    n_refs = ref_ptr[n_pairs]
    n_orders = len(orders)
    hits = np.zeros((n_orders + (1 if drop_last else 0), n_refs), np.int64)
    bounds = chunk_ranges(n_pairs, max(1, min(256, n_pairs // 256)))
    failed = np.zeros(len(bounds) - 1, np.bool_)
    for c in prange(len(bounds) - 1):
        failed[c] = not _ngram_hits_chunk(drop_last, bounds, c, n_vocab, ref_ptr, orders, hits, offsets, n_pairs, ids,
                                          n_orders)
    if failed.any():
        raise MemoryError(CHUNK_FAILED)
    return hits



@jit
def _ngram_hits_chunk(drop_last, bounds, c, n_vocab, ref_ptr, orders, hits, offsets, n_pairs, ids, n_orders):
    """The pairs of chunk ``c`` of :func:`pair_ngram_hits_ids`; False if its scratch could not be allocated
    (an exception inside a parallel loop would be lost)."""
    try:
        _ngram_hits_chunk_body(drop_last, bounds, c, n_vocab, ref_ptr, orders, hits, offsets, n_pairs, ids, n_orders)
    except Exception:
        return False
    return True


@jit
def _ngram_hits_chunk_body(drop_last, bounds, c, n_vocab, ref_ptr, orders, hits, offsets, n_pairs, ids, n_orders):
    """The work of :func:`_ngram_hits_chunk` (no ``try`` here: numba compiles a try block holding
    loops badly, so the caller wraps the call)."""
    bound = 1
    most_refs = 0
    for p in range(bounds[c], bounds[c + 1]):
        most_refs = max(most_refs, ref_ptr[p + 1] - ref_ptr[p])
        total = offsets[p + 1] - offsets[p]
        for q in range(n_pairs + ref_ptr[p], n_pairs + ref_ptr[p + 1]):
            total += offsets[q + 1] - offsets[q]
        bound = max(bound, total + 1)
    _, _, _, gkey, gid_of, gstamp, _, _, lid, cur, nxt, hcnt, rcnt = pair_scratch(bound)
    hcnt2 = np.zeros(DENSE_IDS, np.int32)
    rcnt2 = np.zeros(DENSE_IDS, np.int32)
    loc = np.full(max(n_vocab, 1), -1, np.int64)
    toff = np.empty(most_refs + 2, np.int64)
    for p in range(bounds[c], bounds[c + 1]):
        q0 = ref_ptr[p]
        n_texts = 1 + ref_ptr[p + 1] - q0
        # the hypothesis's tokens get ids 0 .. v-1; a reference token it lacks gets v (it and
        # every n-gram holding it have hypothesis count 0, so one id serves them all)
        k = 0
        v = 0
        toff[0] = 0
        for j in range(offsets[p], offsets[p + 1]):
            g = ids[j]
            if loc[g] < 0:
                loc[g] = v
                v += 1
            lid[k] = loc[g]
            k += 1
        toff[1] = k
        for t in range(1, n_texts):
            row = n_pairs + q0 + t - 1
            for j in range(offsets[row], offsets[row + 1]):
                x = loc[ids[j]]
                lid[k] = x if x >= 0 else v
                k += 1
            toff[t + 1] = k
        bits = table_bits(k + 1)
        pair_ngram_hits(lid, toff, n_texts, v + 1, orders, p, 64 - bits, (1 << bits) - 1, gkey, gid_of, gstamp,
                        cur, nxt, hcnt, rcnt, hcnt2, rcnt2, hits, q0)
        if drop_last:
            hu = lid[toff[0]:max(toff[1] - 1, toff[0])]
            for j in range(len(hu)):
                hcnt[hu[j]] += 1
            for t in range(1, n_texts):
                hits[n_orders, q0 + t - 1] = clipped_hits(lid[toff[t]:max(toff[t + 1] - 1, toff[t])], hcnt, rcnt)
            for j in range(len(hu)):
                hcnt[hu[j]] = 0
        for j in range(offsets[p], offsets[p + 1]):
            loc[ids[j]] = -1
