"""The hash tables every per-pair kernel shares: token and n-gram keys numbered pair-locally,
n-gram ids order by order, and clipped hits.

Used by the ROUGE (:mod:`vecscore.kernels.pair_rouge`), BLEU (:mod:`vecscore.kernels.pair_bleu`),
pre-interned n-gram (:mod:`vecscore.kernels.pair_ngrams`) and skip-gram
(:mod:`vecscore.kernels.pair_skipgrams`) kernels.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit
from vecscore.kernels.ngrams import table_bits

__all__ = ["FNV_OFFSET", "FNV_PRIME", "GOLDEN", "DENSE_IDS", "hashed_key", "number_key", "number_keys", "next_order",
           "pair_scratch", "clipped_hits", "pair_ngram_hits"]

FNV_OFFSET = np.uint64(14695981039346656037)
FNV_PRIME = np.uint64(1099511628211)
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
#: n-gram ids below this are the n-gram's tokens as a number in base ``n_vocab``
#: (no table); past it, n-grams are numbered through a hash table.
DENSE_IDS = 1 << 14


@jit(inline=True)
def hashed_key(h, key_mask):
    """The key of a token of more than 7 bytes from its FNV hash ``h``: bit 63 set, ANDed with ``key_mask``."""
    return np.int64((h ^ (h >> np.uint64(29))) | np.uint64(1 << 63)) & key_mask


@jit(inline=True)
def number_key(key, insert, g, stamp, shift, mask, tkey, tid, tstamp):
    """The id of the exact key ``key >= 0`` in the table stamped ``stamp``: its id if present;
    if absent, ``g`` (recorded) when ``insert``, else -1.

    Entries whose ``tstamp`` is not ``stamp`` are free, so a table is reused
    across pairs and orders without clearing.
    """
    slot = np.int64((np.uint64(key) * GOLDEN) >> np.uint64(shift))
    while True:
        if tstamp[slot] != stamp:
            if not insert:
                return -1
            tstamp[slot] = stamp
            tkey[slot] = key
            tid[slot] = g
            return g
        if tkey[slot] == key:
            return tid[slot]
        slot = (slot + 1) & mask


@jit
def number_keys(keys, insert, g, stamp, shift, mask, tkey, tid, tstamp):
    """Replace exact int64 ``keys`` (>= 0; -1 passes through) by dense ids through a stamped table.

    The hypothesis's keys (``insert``) are numbered from ``g`` on; another
    text's keys only look them up, -1 when absent (they cannot be a hit)
    (:func:`number_key`).  Returns the new ``g``.
    """
    for j in range(len(keys)):
        key = keys[j]
        if key >= 0:
            v = number_key(key, insert, g, stamp, shift, mask, tkey, tid, tstamp)
            keys[j] = v
            g += v == g
    return g


@jit
def _gram_keys(cur, ids, nxt, n, n_vocab):
    """Exact keys of one text's order-``n`` n-grams: ``cur[j] * n_vocab + ids[j + n - 1]``.

    ``cur[j]`` is the id of the ``(n-1)``-gram at ``j`` (-1: absent from the
    hypothesis, and so is the n-gram) and token ids are below ``n_vocab``.
    """
    for j in range(len(cur) - n + 1):
        prefix = cur[j]
        nxt[j] = prefix * n_vocab + ids[j + n - 1] if prefix >= 0 else -1


@jit
def next_order(cur, nxt, ids, toff, n_texts, n, n_vocab, width, stamp, shift, mask, gkey, gid_of, gstamp):
    """Ids of the order-``n`` n-grams of a pair's texts (text 0: the hypothesis) into ``nxt``.

    ``cur`` holds the order ``n - 1`` ids, all below ``width``.  While
    ``width * n_vocab <= DENSE_IDS`` an n-gram's key is its id; past that,
    keys are numbered through the table (:func:`number_keys`).  Returns the
    bound on the new ids.
    """
    dense = width * n_vocab <= DENSE_IDS
    g = 0
    for t in range(n_texts):
        lo = toff[t]
        hi = toff[t + 1]
        _gram_keys(cur[lo:hi], ids[lo:hi], nxt[lo:hi], n, n_vocab)
        if not dense:
            g = number_keys(nxt[lo:max(hi - n + 1, lo)], t == 0, g, stamp, shift, mask, gkey, gid_of, gstamp)
    return width * n_vocab if dense else g


@jit
def pair_scratch(bound):
    """Scratch for pairs of up to ``bound`` tokens: the token and n-gram tables (all slots
    free), first-occurrence records, token and n-gram id rows, and the count arrays (all zero)."""
    size = 1 << table_bits(bound)
    counts = max(bound, DENSE_IDS)
    return (np.empty(size, np.int64), np.empty(size, np.int64), np.full(size, -1, np.int64),
            np.empty(size, np.int64), np.empty(size, np.int64), np.full(size, -1, np.int64),
            np.empty(bound, np.int64), np.empty(bound, np.int64),
            np.empty(bound, np.int64), np.empty(bound, np.int64), np.empty(bound, np.int64),
            np.zeros(counts, np.int32), np.zeros(counts, np.int32))


@jit(inline=True)
def clipped_hits(gid, hcnt, rcnt):
    """``sum_g min(c_hyp(g), c_ref(g))`` over the reference's n-gram ids ``gid`` (-1: absent from the hypothesis).

    ``hcnt`` must hold the hypothesis counts; ``rcnt`` is all zero on entry and exit.
    """
    hits = 0
    for j in range(len(gid)):
        x = gid[j]
        if x >= 0:
            rcnt[x] += 1
            hits += rcnt[x] <= hcnt[x]
    for j in range(len(gid)):
        x = gid[j]
        if x >= 0:
            rcnt[x] = 0
    return hits


@jit
def _uni_bi_hits(ids, toff, n_texts, n_vocab, want1, want2, hcnt, rcnt, hcnt2, rcnt2, hits, q0):
    """rouge1 and/or rouge2 hits of one pair in one pass per text (bigram id ``a * n_vocab + b``).

    ``hits[0]`` gets the first requested order, ``hits[1]`` rouge2 when both
    are asked for.  Count arrays are all zero on entry and exit.
    """
    h0 = toff[0]
    h1 = toff[1]
    for j in range(h0, h1):
        a = ids[j]
        hcnt[a] += 1
        if want2 and j + 1 < h1:
            hcnt2[a * n_vocab + ids[j + 1]] += 1
    row2 = 1 if want1 else 0
    for t in range(1, n_texts):
        r0 = toff[t]
        r1 = toff[t + 1]
        got1 = 0
        got2 = 0
        for j in range(r0, r1):
            a = ids[j]
            rcnt[a] += 1
            got1 += rcnt[a] <= hcnt[a]
            if want2 and j + 1 < r1:
                x = a * n_vocab + ids[j + 1]
                rcnt2[x] += 1
                got2 += rcnt2[x] <= hcnt2[x]
        for j in range(r0, r1):
            rcnt[ids[j]] = 0
            if want2 and j + 1 < r1:
                rcnt2[ids[j] * n_vocab + ids[j + 1]] = 0
        if want1:
            hits[0, q0 + t - 1] = got1
        if want2:
            hits[row2, q0 + t - 1] = got2
    for j in range(h0, h1):
        hcnt[ids[j]] = 0
        if want2 and j + 1 < h1:
            hcnt2[ids[j] * n_vocab + ids[j + 1]] = 0


# not inline=True: inlined into the per-pair ROUGE kernel, a call with no orders indexed orders[-1] under
# NUMBA_BOUNDSCHECK=1 (its early return did not hold), for about 2% of the kernel's time
@jit
def pair_ngram_hits(ids, toff, n_texts, n_vocab, orders, stamp, shift, mask, gkey, gid_of, gstamp, cur, nxt,
                    hcnt, rcnt, hcnt2, rcnt2, hits, q0):
    """Clipped hits of one pair's texts for every order in ``orders`` (increasing, >= 1).

    ``ids[toff[t]:toff[t + 1]]`` are text ``t``'s pair-local token ids below
    ``n_vocab`` (text 0: the hypothesis); ``hits[i, q0 + t - 1]`` gets order
    ``orders[i]`` of reference ``t``.  rouge1/rouge2 with a small vocabulary
    take one pass per text (:func:`_uni_bi_hits`; bigrams need ``hcnt2``,
    ``rcnt2`` of ``DENSE_IDS``); otherwise n-grams get ids order by order
    (:func:`next_order`, ``stamp`` unique per pair and order) and the hits
    come from :func:`clipped_hits`.  Count arrays are zero on entry and exit.
    """
    n_orders = len(orders)
    if n_orders == 0:
        return
    max_order = orders[n_orders - 1]
    if max_order <= 2 and n_vocab * n_vocab <= DENSE_IDS and (max_order == 1 or len(hcnt2) >= DENSE_IDS):
        _uni_bi_hits(ids, toff, n_texts, n_vocab, orders[0] == 1, max_order == 2, hcnt, rcnt, hcnt2, rcnt2, hits, q0)
        return
    for j in range(toff[n_texts]):
        cur[j] = ids[j]
    oi = 0
    width = n_vocab  # the ids of the current order are below width
    for n in range(1, max_order + 1):
        if n > 1:
            width = next_order(cur, nxt, ids, toff, n_texts, n, n_vocab, width, stamp * (max_order + 1) + n,
                               shift, mask, gkey, gid_of, gstamp)
            cur, nxt = nxt, cur
        if orders[oi] != n:
            continue
        hgrams = cur[toff[0]:max(toff[1] - n + 1, toff[0])]
        for j in range(len(hgrams)):
            hcnt[hgrams[j]] += 1
        for t in range(1, n_texts):
            hits[oi, q0 + t - 1] = clipped_hits(cur[toff[t]:max(toff[t + 1] - n + 1, toff[t])], hcnt, rcnt)
        for j in range(len(hgrams)):
            hcnt[hgrams[j]] = 0
        oi += 1
