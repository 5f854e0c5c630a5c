"""BLEU statistics straight from ASCII bytes, one pair at a time.

The fast path of vecscore's sacreBLEU-compatible BLEU for pure-ASCII batches
with the ``13a``, ``none`` or ``char`` tokenizers.  For every pair, in a
``prange`` loop over chunks of pairs, with scratch sized by the chunk's
largest pair:

1. each text (trailing whitespace stripped, as sacreBLEU's ``rstrip()``) is
   split into token spans: for ``13a`` by :mod:`vecscore.kernels.spans_13a`
   (on ASCII, bytes are code points; only a text with ``<``, ``\n`` or ``&``
   is rewritten into scratch first), otherwise on whitespace;
2. every token gets an exact two-word key (:func:`_span_key`): its bytes
   for tokens of up to 15 bytes, a hash for longer ones, whose equal keys
   are confirmed against the bytes (in the text, or in the pair's rewrite
   scratch, where each rewritten text keeps its own place);
3. the clipped matches of orders ``1..K``: where every text of the pair has
   at most 64 tokens (:func:`_clip_bits`), from one 64-bit word of matching
   positions per hypothesis token, found by comparing 32 or 64 keys at once;
   otherwise (:func:`_clip_orders`) tokens get pair-local ids through a hash
   table holding the hypothesis's tokens, each order numbers only the
   n-grams that can still match, and the hypothesis counts are clipped by
   each n-gram's maximum count over the references.

The statistics equal those of the general route (tokenize the whole batch,
intern corpus-wide, :func:`vecscore.kernels.bleu_counts.clipped_counts`);
the tests compare both.
"""
from __future__ import annotations

import numba
import numpy as np

from vecscore._jit import jit, prange
from vecscore.kernels.ngrams import _chunks, _table_bits
from vecscore.kernels.pair_rouge import (
    _FNV_OFFSET,
    _FNV_PRIME,
    _GOLDEN,
    DENSE_IDS,
    _pair_bytes,
    hashed_key,
    number_key,
    pair_scratch,
)
from vecscore.kernels.spans_13a import WORD_GROWTH, rewrite, spans_13a, spans_whitespace
from vecscore.kernels.swar import PAGE, claim, ctz, pair_eq_bits, popcount, prefetch
from vecscore.text.in_place import text_at, word_at

__all__ = ["pair_bleu_counts", "FAST_MODES"]

MODE_13A = 0
MODE_NONE = 1
MODE_CHAR = 2
#: tokenizer names of this kernel, by mode
FAST_MODES = {"13a": MODE_13A, "none": MODE_NONE, "char": MODE_CHAR}



@jit
def _is_space(c):
    """``str.isspace()`` on an ASCII code."""
    return c == 32 or (9 <= c <= 13) or (28 <= c <= 31)


@jit
def _rstrip(text):
    """Length of ``text`` without trailing whitespace (sacreBLEU's ``rstrip()``)."""
    hi = len(text)
    while hi > 0 and _is_space(text[hi - 1]):
        hi -= 1
    return hi


#: the second key word of a free table slot: no token's has these top bits (0, 8..15 or 0xFF)
_FREE = np.int64(1 << 62)
_LONG = np.int64(-1)  # the second key word of a hashed token (16 bytes or more)
_SLOT = 4  # words per slot of the token table: the two key words, the id, and one unused


@jit(inline=True)
def _span_key(src, addr, n, s, length, key_mask):
    """The two-word key of the token ``src[s:s + length]`` (``addr``: ``src``'s address, ``n``: its
    length), without a branch on the length below 16 bytes.

    Up to 7 bytes: its bytes and length packed, and 0.  From 8 to 15: its
    first 8 bytes, and the rest packed with the length.  Both are exact.
    Longer: a 63-bit hash of its 8-byte words (bit 63 set, ANDed with
    ``key_mask``) and ``_LONG``.  Words are read in place where the 8 bytes
    lie in the text or in the page of its first byte.
    """
    if length >= 16:
        h = _FNV_OFFSET ^ np.uint64(length)
        for q in range(s, s + length - 8, 8):
            h = (h ^ np.uint64(word_at(addr + q))) * _FNV_PRIME
        h = (h ^ np.uint64(word_at(addr + s + length - 8))) * _FNV_PRIME
        return hashed_key(h, key_mask), _LONG
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
def _span_keys(src, starts, ends, k0, k1, key_mask, ka, kb, taddr):
    """:func:`_span_key` of the tokens ``src[starts[x]:ends[x]]``, ``x`` in ``k0..k1``, into
    ``ka[x]``/``kb[x]``, and each token's address into ``taddr[x]``."""
    addr = src.ctypes.data
    n = len(src)
    for x in range(k0, k1):
        s = starts[x]
        ka[x], kb[x] = _span_key(src, addr, n, s, ends[x] - s, key_mask)
        taddr[x] = addr + s


@jit(inline=True)
def _same_token(taddr, starts, ends, x, y):
    """Whether tokens ``x`` and ``y`` (of :func:`_span_keys`) have the same bytes."""
    length = ends[x] - starts[x]
    if ends[y] - starts[y] != length:
        return False
    one = text_at(taddr[x], length)
    other = text_at(taddr[y], length)
    for q in range(length):
        if one[q] != other[q]:
            return False
    return True


@jit(inline=True)
def _intern_keys(ka, kb, taddr, starts, ends, k0, k1, insert, shift, mask, tab, slot_of, first, ids, n_vocab):
    """Ids of tokens ``k0..k1`` (keys from :func:`_span_keys`) into ``ids[x]`` through the pair's
    table; returns ``n_vocab``.

    With ``insert`` (the hypothesis) a new token gets the next id; otherwise
    (a reference, whose tokens only count where the hypothesis has them) it
    gets ``n_vocab``, an id no hypothesis token has, and the table holds only
    the hypothesis's tokens.  A hit on a hashed key is confirmed against the
    bytes of the id's first occurrence (``first[v]``).  The table is
    open-addressed with ``_SLOT`` words per slot (key words, id), a slot free
    while its second key word is ``_FREE``; ``slot_of[v]`` is the slot of
    id ``v``, for the caller to free.
    """
    for x in range(k0, k1):
        a = ka[x]
        b = kb[x]
        slot = np.int64(((np.uint64(a) ^ (np.uint64(b) * _FNV_PRIME)) * _GOLDEN) >> np.uint64(shift))
        while True:
            e = slot * _SLOT
            there = tab[e + 1]
            free = there == _FREE
            if free | ((there == b) & (tab[e] == a)):
                if b != _LONG or free or _same_token(taddr, starts, ends, x, first[tab[e + 2]]):
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


_WORD_BITS = 64  # pairs whose texts have at most this many tokens take _clip_bits
#: pairs ahead whose texts are prefetched (Python's strings lie scattered in memory)
_AHEAD = 4


@jit(inline=True)
def _prefetch_pair(addrs, lens, n_pairs, ref_ptr, p):
    """Ask for the cache lines of pair ``p``'s texts."""
    for t in range(-1, ref_ptr[p + 1] - ref_ptr[p]):
        row = p if t < 0 else n_pairs + ref_ptr[p] + t
        a = addrs[row]
        for q in range(a & ~63, a + lens[row], 64):
            prefetch(q)


def pair_bleu_counts(addrs, lens, ref_ptr, mode, max_order, key_mask=-1):
    """Tokens per text and BLEU's clipped matches of every pair.

    ``addrs``/``lens``: the texts' ASCII bytes by address
    (:mod:`vecscore.text.in_place`), hypotheses ``0..n_pairs-1`` then the
    references of pair ``p`` at rows ``n_pairs + ref_ptr[p] ..``.  Returns
    ``(lengths, correct)``: tokens per text and ``correct[p, n-1]`` for
    orders ``1..max_order``.  ``key_mask`` is ANDed into hashed token keys
    (all ones; tests force collisions).
    """
    return _pair_bleu_counts(addrs, lens, ref_ptr, mode, max_order, key_mask, numba.get_num_threads())


@jit(parallel=True)
def _pair_bleu_counts(addrs, lens, ref_ptr, mode, max_order, key_mask, workers):
    """:func:`pair_bleu_counts` on ``workers`` threads, which claim chunks of pairs one at a time."""
    n_pairs = len(ref_ptr) - 1
    n_texts = len(addrs)
    lengths = np.zeros(n_texts, np.int64)
    correct = np.zeros((n_pairs, max_order), np.int64)
    bounds = _chunks(n_pairs, max(1, min(256, n_pairs // 2048)))
    n_chunks = len(bounds) - 1
    taken = np.zeros(1, np.int64)
    for worker in prange(max(1, min(workers, n_chunks))):  # each worker claims chunks until none is left
        while True:
            c = claim(taken)
            if c >= n_chunks:
                break
            _chunk_counts(addrs, lens, ref_ptr, mode, max_order, key_mask, bounds[c], bounds[c + 1], lengths, correct)
    return lengths, correct


@jit(inline=True)
def _chunk_counts(addrs, lens, ref_ptr, mode, max_order, key_mask, lo, hi, lengths, correct):
    """Tokens per text and clipped matches of pairs ``lo..hi`` into ``lengths``/``correct`` (see
    :func:`pair_bleu_counts`), with scratch sized by the largest of those pairs.  Inlined into the
    parallel loop: as a call of its own the kernel took half as long again."""
    n_pairs = len(ref_ptr) - 1
    bound = 1
    longest = 1
    most_refs = 0
    for p in range(lo, hi):
        bound = max(bound, _pair_bytes(lens, n_pairs, ref_ptr, p) + 1)  # bounds tokens and bytes
        most_refs = max(most_refs, ref_ptr[p + 1] - ref_ptr[p])
        longest = max(longest, lens[p])
        for q in range(n_pairs + ref_ptr[p], n_pairs + ref_ptr[p + 1]):
            longest = max(longest, lens[q])
    _, _, slot_of, gkey, gid_of, gstamp, first, _, ids, _, _, hcnt, rcnt = pair_scratch(bound)
    tab = np.zeros(_SLOT << _table_bits(bound), np.int64)
    tab[1::_SLOT] = _FREE
    starts = np.empty(bound, np.int64)
    ends = np.empty(bound, np.int64)
    ka = np.empty(bound + _WORD_BITS, np.int64)  # token keys, read 32 or 64 at a time
    kb = np.empty(bound + _WORD_BITS, np.int64)
    taddr = np.empty(bound, np.int64)
    rmax = np.zeros(max(bound, DENSE_IDS), np.int32)
    toff = np.empty(most_refs + 2, np.int64)
    ra = np.empty(bound, np.uint8)  # the pair's rewritten texts, side by side
    wa = np.empty(WORD_GROWTH * (longest + 2) + 16, np.int64)
    wb = np.empty(WORD_GROWTH * (longest + 2) + 16, np.int64)
    ts = np.empty(longest + 1, np.int64)
    te = np.empty(longest + 1, np.int64)
    tsplit = np.empty(longest + 2, np.int64)
    pad = np.empty(64, np.uint8)
    dense = np.full(DENSE_IDS + 1, -1, np.int64)
    keys_of = np.empty(bound + 1, np.int64)
    live = np.empty(bound, np.int64)
    n_live = np.empty(most_refs + 2, np.int64)
    h1 = np.zeros(_WORD_BITS + max_order, np.uint64)
    d1 = np.zeros(_WORD_BITS + max_order, np.uint64)
    best = np.zeros(_WORD_BITS * max_order, np.int64)
    for p in range(lo, min(lo + _AHEAD, hi)):
        _prefetch_pair(addrs, lens, n_pairs, ref_ptr, p)
    for p in range(lo, hi):
        if p + _AHEAD < hi:
            _prefetch_pair(addrs, lens, n_pairs, ref_ptr, p + _AHEAD)
        q0 = ref_ptr[p]
        n_in = 1 + ref_ptr[p + 1] - q0
        k = 0
        used = 0  # bytes of ra taken by the pair's rewritten texts
        toff[0] = 0
        short = True
        for t in range(n_in):
            row = p if t == 0 else n_pairs + q0 + t - 1
            text = text_at(addrs[row], _rstrip(text_at(addrs[row], lens[row])))
            k0 = k
            if mode == MODE_13A:
                k = spans_13a(text, len(text), starts, ends, k0, wa, wb, True, ts, te, tsplit, pad)
                if k >= 0:
                    _span_keys(text, starts, ends, k0, k, key_mask, ka, kb, taddr)
                else:  # step 1 of 13a may change this text: rewrite it into the pair's scratch first
                    m = rewrite(text, ra[used:], pad)
                    src = ra[used:used + m]
                    used += m
                    k = spans_13a(src, m, starts, ends, k0, wa, wb, False, ts, te, tsplit, pad)
                    _span_keys(src, starts, ends, k0, k, key_mask, ka, kb, taddr)
            else:
                k = spans_whitespace(text, len(text), mode == MODE_CHAR, starts, ends, k)
                _span_keys(text, starts, ends, k0, k, key_mask, ka, kb, taddr)
            toff[t + 1] = k
            lengths[row] = k - k0
            short = short and k - k0 <= _WORD_BITS
        if short and max_order == 4:  # the usual order, as a constant: the loops over orders unroll
            _clip_bits(ka, kb, taddr, starts, ends, toff, n_in, 4, correct[p], h1, d1, best)
        elif short:
            _clip_bits(ka, kb, taddr, starts, ends, toff, n_in, max_order, correct[p], h1, d1, best)
        else:
            bits = _table_bits(toff[1] + 1)  # the table holds the hypothesis's tokens, then its n-grams
            shift = 64 - bits
            mask = (1 << bits) - 1
            n_hyp_vocab = _intern_keys(ka, kb, taddr, starts, ends, 0, toff[1], True, shift, mask, tab, slot_of,
                                       first, ids, 0)
            _intern_keys(ka, kb, taddr, starts, ends, toff[1], k, False, shift, mask, tab, slot_of, first, ids,
                         n_hyp_vocab)
            for v in range(n_hyp_vocab):  # free the pair's slots
                tab[slot_of[v] + 1] = _FREE
            _clip_orders(ids, toff, n_in, n_hyp_vocab, max_order, p, correct[p], dense, keys_of, live, n_live,
                         shift, mask, gkey, gid_of, gstamp, hcnt, rcnt, rmax)


@jit(inline=True)
def _match_bits(ka, kb, taddr, starts, ends, lo, count, i):
    """Bit ``j`` set where token ``lo + j`` (``j < count <= 64``) equals token ``i``: their keys
    are equal, and for hashed keys their bytes too."""
    a = ka[i]
    b = kb[i]
    bits = pair_eq_bits(ka.ctypes.data + 8 * lo, kb.ctypes.data + 8 * lo, a, b, count)
    if b == _LONG:
        left = bits
        while left != 0:
            j = ctz(left)
            left &= left - np.uint64(1)
            if not _same_token(taddr, starts, ends, i, lo + j):
                bits &= ~(np.uint64(1) << np.uint64(j))
    return bits


@jit(inline=True)
def _clip_bits(ka, kb, taddr, starts, ends, toff, n_in, max_order, out, h1, d1, best):
    """BLEU's clipped matches of orders ``1..max_order`` of one pair into ``out``, for a pair
    whose texts (tokens ``toff[t]:toff[t + 1]``, the hypothesis first, keys from
    :func:`_span_keys`) all have at most 64 tokens: one 64-bit word of positions per token.

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
        h1[i] = _match_bits(ka, kb, taddr, starts, ends, 0, lh, i)
    for i in range(lh, lh + max_order):  # n-grams running past the end match nothing
        h1[i] = 0
        d1[i] = 0
    for n in range(max_order):
        out[n] = 0
    if n_in == 2:  # one reference: counts straight from its words
        for i in range(lh):
            d1[i] = _match_bits(ka, kb, taddr, starts, ends, toff[1], toff[2] - toff[1], i)
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
            d1[i] = _match_bits(ka, kb, taddr, starts, ends, toff[t], toff[t + 1] - toff[t], i)
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


@jit(inline=True)
def _clip_orders(g, toff, n_in, n_hyp_vocab, max_order, p, out, dense, keys_of, live, n_live, shift, mask,
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
