"""One BLEU pair's tokens as exact keys, and its clipped n-gram matches (kernels of
:mod:`vecscore.kernels.pair_bleu`, inlined into its pair loop, except those of the path for pairs of more
than 64 tokens, :func:`intern_keys` and :func:`clip_orders`: called once per such pair, they cost nothing
as calls, and inlined they doubled the pair kernel's compile memory, to 1.4 GB).

* :func:`span_key`, :func:`span_keys`: a token's two-word key, its bytes for
  tokens of up to 15 bytes, a hash for longer ones; :func:`same_token`
  confirms equal hashed keys against the bytes; :func:`intern_keys` numbers
  a text's tokens through an open-addressing table of keys.
* :func:`clip_bits`: the clipped matches of orders ``1..K`` of a pair whose
  texts have at most 64 tokens, from one 64-bit word of matching positions
  per hypothesis token (:func:`match_bits` compares 32 or 64 keys at once).
* :func:`clip_orders`: any pair: pair-local ids, each order numbering only
  the n-grams that can still match, hypothesis counts clipped by each
  n-gram's maximum count over the references.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit
from vecscore.kernels.pair_tables import (
    DENSE_IDS,
    FNV_OFFSET,
    FNV_PRIME,
    GOLDEN,
    hashed_key,
    number_key,
)
from vecscore.kernels.swar import PAGE, ctz, pair_eq_bits, popcount, text_at, word_at

__all__ = ["FREE", "LONG", "SLOT", "span_key", "span_keys", "same_token", "intern_keys", "match_bits", "clip_bits",
           "clip_orders"]

#: the second key word of a free table slot: no token's has these top bits (0, 8..15 or 0xFF)
FREE = np.int64(1 << 62)
LONG = np.int64(-1)  # the second key word of a hashed token (16 bytes or more)
SLOT = 4  # words per slot of the token table: the two key words, the id, and one unused


@jit(inline=True)
def span_key(src, addr, n, s, length, key_mask):
    """The two-word key of the token ``src[s:s + length]`` (``addr``: ``src``'s address, ``n``: its
    length), without a branch on the length below 16 bytes.

    Up to 7 bytes: its bytes and length packed, and 0.  From 8 to 15: its
    first 8 bytes, and the rest packed with the length.  Both are exact.
    Longer: a 63-bit hash of its 8-byte words (bit 63 set, ANDed with
    ``key_mask``) and ``LONG``.  Words are read in place where the 8 bytes
    lie in the text or in the page of its first byte.
    """
    if length >= 16:
        h = FNV_OFFSET ^ np.uint64(length)
        for q in range(s, s + length - 8, 8):
            h = (h ^ np.uint64(word_at(addr + q))) * FNV_PRIME
        h = (h ^ np.uint64(word_at(addr + s + length - 8))) * FNV_PRIME
        return hashed_key(h, key_mask), LONG
    if s + 8 <= n or ((addr + s) & (PAGE - 1)) <= PAGE - 8:  # 8 bytes in the text or in its page
        first = word_at(addr + s)
        last = word_at(addr + s + max(length - 8, 0))  # the first word again below 8 bytes
    else:  # fewer than 8 bytes, at the text's end
        first = np.int64(0)
        for q in range(length):
            first |= np.int64(src[s + q]) << (8 * q)
        last = first
    short = length < 8
    packed = (first & ((np.int64(1) << (8 * min(length, 7))) - 1)) | (np.int64(length) << 56)
    rest = ((last >> (8 * (16 - max(length, 8)) - 1)) >> 1) & ((np.int64(1) << 56) - 1)  # past the first 8 bytes
    a = packed if short else first
    b = np.int64(0) if short else rest | (np.int64(length) << 56)
    return a, b


@jit(inline=True)
def span_keys(src, starts, ends, k0, k1, key_mask, ka, kb, taddr):
    """:func:`span_key` of the tokens ``src[starts[x]:ends[x]]``, ``x`` in ``k0..k1``, into
    ``ka[x]``/``kb[x]``, and each token's address into ``taddr[x]``."""
    addr = src.ctypes.data
    n = len(src)
    for x in range(k0, k1):
        s = starts[x]
        ka[x], kb[x] = span_key(src, addr, n, s, ends[x] - s, key_mask)
        taddr[x] = addr + s


@jit(inline=True)
def same_token(taddr, starts, ends, x, y):
    """Whether tokens ``x`` and ``y`` (of :func:`span_keys`) have the same bytes."""
    length = ends[x] - starts[x]
    if ends[y] - starts[y] != length:
        return False
    one = text_at(taddr[x], length)
    other = text_at(taddr[y], length)
    for q in range(length):
        if one[q] != other[q]:
            return False
    return True


@jit
def intern_keys(ka, kb, taddr, starts, ends, k0, k1, insert, shift, mask, tab, slot_of, first, ids, n_vocab):
    """Ids of tokens ``k0..k1`` (keys from :func:`span_keys`) into ``ids[x]`` through the pair's
    table; returns ``n_vocab``.

    With ``insert`` (the hypothesis) a new token gets the next id; otherwise
    (a reference, whose tokens only count where the hypothesis has them) it
    gets ``n_vocab``, an id no hypothesis token has, and the table holds only
    the hypothesis's tokens.  A hit on a hashed key is confirmed against the
    bytes of the id's first occurrence (``first[v]``).  The table is
    open-addressed with ``SLOT`` words per slot (key words, id), a slot free
    while its second key word is ``FREE``; ``slot_of[v]`` is the slot of
    id ``v``, for the caller to free.
    """
    for x in range(k0, k1):
        a = ka[x]
        b = kb[x]
        slot = np.int64(((np.uint64(a) ^ (np.uint64(b) * FNV_PRIME)) * GOLDEN) >> np.uint64(shift))
        while True:
            e = slot * SLOT
            there = tab[e + 1]
            free = there == FREE
            if free | ((there == b) & (tab[e] == a)):
                if b != LONG or free or same_token(taddr, starts, ends, x, first[tab[e + 2]]):
                    break
            slot = (slot + 1) & mask
        v = n_vocab if free else tab[e + 2]
        if insert:
            tab[e] = a
            tab[e + 1] = b
            tab[e + 2] = v
            slot_of[n_vocab] = e
            first[n_vocab] = x
            n_vocab += free
        ids[x] = v
    return n_vocab


@jit(inline=True)
def match_bits(ka, kb, taddr, starts, ends, lo, count, i):
    """Bit ``j`` set where token ``lo + j`` (``j < count <= 64``) equals token ``i``: their keys
    are equal, and for hashed keys their bytes too."""
    a = ka[i]
    b = kb[i]
    bits = pair_eq_bits(ka.ctypes.data + 8 * lo, kb.ctypes.data + 8 * lo, a, b, count)
    if b == LONG:
        left = bits
        while left != 0:
            j = ctz(left)
            left &= left - np.uint64(1)
            if not same_token(taddr, starts, ends, i, lo + j):
                bits &= ~(np.uint64(1) << np.uint64(j))
    return bits


@jit(inline=True)
def clip_bits(ka, kb, taddr, starts, ends, toff, n_in, max_order, out, h1, d1, best):
    """BLEU's clipped matches of orders ``1..max_order`` of one pair into ``out``, for a pair
    whose texts (tokens ``toff[t]:toff[t + 1]``, the hypothesis first, keys from
    :func:`span_keys`) all have at most 64 tokens: one 64-bit word of positions per token.

    For a text ``T`` and the hypothesis ``H``, let ``m_i`` have bit ``j``
    set where ``T[j] == H[i]`` (compared 32 or 64 keys at once,
    :func:`vecscore.kernels.swar.pair_eq_bits`).  The n-gram of ``H`` at
    ``i`` occurs in ``T`` at ``j`` exactly when bit ``j`` of
    ``m_i & (m_{i+1} >> 1) & ... & (m_{i+n-1} >> (n-1))`` is set, so that
    word's popcount is the n-gram's count in ``T``.  With ``c(i, n)`` the
    largest such count over the references, and ``r(i, n)`` the number of
    positions before ``i`` in ``H`` holding the same n-gram (the same
    construction with ``T = H``, bits below ``i``), the clipped matches
    ``sum_g min(c_hyp(g), max_r c_r(g))`` are the number of positions with
    ``r(i, n) < c(i, n)``: each n-gram's first ``max_r c_r(g)``
    occurrences.  ``h1`` and ``d1`` hold ``64 + max_order`` words, zero past
    64; ``best`` ``64 * max_order``.
    """
    one = np.uint64(1)
    lh = toff[1]
    for i in range(lh):
        h1[i] = match_bits(ka, kb, taddr, starts, ends, 0, lh, i)
    for i in range(lh, lh + max_order):  # n-grams running past the end match nothing
        h1[i] = 0
        d1[i] = 0
    for n in range(max_order):
        out[n] = 0
    if n_in == 2:  # one reference: counts straight from its words
        for i in range(lh):
            d1[i] = match_bits(ka, kb, taddr, starts, ends, toff[1], toff[2] - toff[1], i)
        for i in range(lh):
            d = d1[i]
            h = h1[i]
            below = (one << np.uint64(i)) - one
            for n in range(max_order):
                if n > 0:
                    d &= d1[i + n] >> np.uint64(n)
                    h &= h1[i + n] >> np.uint64(n)
                out[n] += popcount(h & below) < popcount(d)
        return
    for x in range(lh * max_order):
        best[x] = 0
    for t in range(1, n_in):
        for i in range(lh):
            d1[i] = match_bits(ka, kb, taddr, starts, ends, toff[t], toff[t + 1] - toff[t], i)
        for i in range(lh):
            d = d1[i]
            x = i * max_order
            for n in range(max_order):
                if n > 0:
                    d &= d1[i + n] >> np.uint64(n)
                best[x + n] = max(best[x + n], popcount(d))
    for i in range(lh):
        h = h1[i]
        below = (one << np.uint64(i)) - one
        x = i * max_order
        for n in range(max_order):
            if n > 0:
                h &= h1[i + n] >> np.uint64(n)
            out[n] += popcount(h & below) < best[x + n]


@jit
def clip_orders(g, toff, n_in, n_hyp_vocab, max_order, p, out, dense, keys_of, live, n_live, shift, mask,
                 gkey, gid_of, gstamp, hcnt, rcnt, rmax):
    """BLEU's clipped matches of orders ``1..max_order`` of one pair into ``out``, from its token ids ``g``.

    ``g`` holds the ids of the pair's texts (the hypothesis at
    ``toff[0]:toff[1]``, reference ``t`` at ``toff[t]:toff[t + 1]``; the
    hypothesis's own tokens have the ids below ``n_hyp_vocab``).  It is
    rewritten in place, order by order, to the ids of the n-grams starting at
    each position, or -1 for an n-gram that cannot match: one the hypothesis
    lacks (in a reference) or that no reference has (in the hypothesis).
    ``live`` lists, per text, the positions whose n-gram can match
    (``n_live[t]`` of them from ``toff[t]``); only those are visited, and
    the loops over them have no data-dependent branch.

    An order-``n`` n-gram is the pair of the order-``(n - 1)`` n-grams at
    ``j`` and ``j + 1``: it can only match if both can.  Its id numbers the
    hypothesis's live pairs afresh, so ids stay below the hypothesis's length,
    and a square table of ``width**2`` entries (``dense``, all -1, restored on
    return; its last entry takes the stores of dead pairs) numbers them while
    that fits in ``DENSE_IDS``, a hash table stamped per pair and order
    (``gkey``/``gid_of``/``gstamp``) beyond.  Matches are
    ``sum_g min(c_hyp(g), max_r c_r(g))``; once an order has none, no higher
    order has any.  ``hcnt``, ``rcnt`` and ``rmax`` are all zero on entry and
    exit.
    """
    trash = DENSE_IDS
    for t in range(n_in):  # order 1: every hypothesis token, the reference tokens the hypothesis has
        m = toff[t]
        for j in range(toff[t], toff[t + 1]):
            keep = g[j] < n_hyp_vocab
            g[j] = g[j] if keep else -1
            live[m] = j
            m += keep
        n_live[t] = m - toff[t]
    width = n_hyp_vocab
    for n in range(1, max_order + 1):
        if n > 1:
            square = width * width <= DENSE_IDS
            stamp = p * (max_order + 1) + n
            fresh = 0
            for t in range(n_in):
                end = toff[t + 1] - n + 1  # order-n n-grams start before this
                m = toff[t]
                for x in range(toff[t], toff[t] + n_live[t]):
                    j = live[x]
                    b = g[j + 1] if j + 1 < toff[t + 1] else -1
                    ok = b >= 0 and j < end
                    v = -1
                    if square:
                        key = g[j] * width + b if ok else trash
                        v = dense[key]
                        if t == 0:
                            new = v < 0
                            v = fresh if new else v
                            dense[key] = v
                            keys_of[fresh] = key
                            fresh += new and ok
                    elif ok:
                        v = number_key((g[j] << 32) | b, t == 0, fresh, stamp, shift, mask, gkey, gid_of, gstamp)
                        fresh += v == fresh
                    ok = ok and v >= 0
                    g[j] = v if ok else -1
                    live[m] = j
                    m += ok
                n_live[t] = m - toff[t]
            if square:
                for v in range(fresh):
                    dense[keys_of[v]] = -1
                dense[trash] = -1
            width = fresh
        h0 = toff[0]
        for x in range(h0, h0 + n_live[0]):
            hcnt[g[live[x]]] += 1
        matched = 0
        for t in range(1, n_in):
            lo = toff[t]
            for x in range(lo, lo + n_live[t]):
                v = g[live[x]]
                c = rcnt[v] + 1
                rcnt[v] = c
                above = c > rmax[v]
                rmax[v] = c if above else rmax[v]
                matched += above and c <= hcnt[v]
            for x in range(lo, lo + n_live[t]):
                rcnt[g[live[x]]] = 0
        out[n - 1] = matched
        m = h0
        for x in range(h0, h0 + n_live[0]):  # hypothesis n-grams no reference has
            j = live[x]
            keep = rmax[g[j]] > 0
            g[j] = g[j] if keep else -1
            live[m] = j
            m += keep
        n_live[0] = m - h0
        for v in range(width):
            hcnt[v] = 0
            rmax[v] = 0
        if matched == 0:
            break
