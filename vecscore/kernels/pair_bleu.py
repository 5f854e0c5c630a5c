"""BLEU statistics straight from ASCII bytes, one pair at a time.

The fast path of vecscore's sacreBLEU-compatible BLEU for pure-ASCII batches
with the ``13a``, ``none`` or ``char`` tokenizers.  For every pair, in a
``prange`` loop over chunks of pairs, with scratch sized by the chunk's
largest pair:

1. each text (trailing whitespace stripped, as sacreBLEU's ``rstrip()``) is
   split into token spans: for ``13a`` by :mod:`vecscore.kernels.spans_13a`
   (on ASCII, bytes are code points; only a text with ``<``, ``\n`` or ``&``
   is rewritten into scratch first), otherwise on whitespace;
2. tokens get pair-local dense ids (:func:`_intern_spans`): exact two-word
   keys for tokens of up to 15 bytes, hashed keys for longer ones, every hit
   of a hashed key confirmed against the bytes of the id's first occurrence
   (in the text, or in the pair's rewrite scratch, where each rewritten text
   keeps its own place);
3. the clipped matches of orders ``1..K`` (:func:`_clip_orders`): each order
   numbers only the n-grams that can still match, and the hypothesis counts
   are clipped by each n-gram's maximum count over the references.

The statistics equal those of the general route (tokenize the whole batch,
intern corpus-wide, :func:`vecscore.kernels.bleu_counts.clipped_counts`);
the tests compare both.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange
from vecscore.kernels.spans_13a import WORD_GROWTH, rewrite, spans_13a, spans_whitespace
from vecscore.kernels.ngrams import _chunks, _table_bits
from vecscore.kernels.pair_rouge import (
    _FNV_OFFSET, _FNV_PRIME, _GOLDEN, DENSE_IDS, _pair_bytes, hashed_key, number_key, pair_scratch,
)
from vecscore.kernels.swar import PAGE
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


#: ``tkey2`` of a free slot: no token's second key word has these top bits (0, 8..15 or 0xFF)
_FREE = np.int64(1 << 62)
_LONG = np.int64(-1)  # the second key word of a hashed token (16 bytes or more)


@jit(inline=True)
def _intern_spans(src, starts, ends, k0, k1, key_mask, shift, mask, tkey, tkey2, tid, slot_of, rep_start, rep_len,
                  ids, n_vocab):
    """Intern the tokens ``src[starts[x]:ends[x]]`` for ``x`` in ``k0..k1`` into the pair's table.

    Keys are two words.  A token of up to 7 bytes: its bytes and length
    packed, and 0.  Of 8 to 15 bytes: its first 8 bytes, and the rest packed
    with the length.  Both are exact, so a hit needs no comparison.  A
    longer token: a 63-bit hash of its 8-byte words (bit 63 set, ANDed with
    ``key_mask``) and ``_LONG``; a hit on it is confirmed by comparing bytes
    with the id's first occurrence, by address, so ``src`` must stay in
    place until the pair is done.  The table is open-addressed, a slot free
    while its ``tkey2`` is ``_FREE``; ``slot_of[v]`` is the slot of id ``v``,
    for the caller to free.  Local ids go to ``ids[x]``; returns ``n_vocab``.
    """
    addr = src.ctypes.data
    n = len(src)
    for x in range(k0, k1):
        s = starts[x]
        length = ends[x] - s
        if length < 8:
            if s + 8 <= n or ((addr + s) & (PAGE - 1)) <= PAGE - 8:  # 8 bytes in the text or in its page
                word = word_at(addr + s)
            else:
                word = np.int64(0)
                for q in range(length):
                    word |= np.int64(src[s + q]) << (8 * q)
            a = (word & ((np.int64(1) << (8 * length)) - 1)) | (np.int64(length) << 56)
            b = np.int64(0)
        elif length < 16:  # the last 8 bytes, shifted past the first 8
            a = word_at(addr + s)
            b = ((word_at(addr + s + length - 8) >> (8 * (16 - length) - 1)) >> 1) & ((np.int64(1) << 56) - 1)
            b |= np.int64(length) << 56
        else:
            h = _FNV_OFFSET ^ np.uint64(length)
            for q in range(s, s + length - 8, 8):
                h = (h ^ np.uint64(word_at(addr + q))) * _FNV_PRIME
            h = (h ^ np.uint64(word_at(addr + s + length - 8))) * _FNV_PRIME
            a = hashed_key(h, key_mask)
            b = _LONG
        slot = np.int64(((np.uint64(a) ^ (np.uint64(b) * _FNV_PRIME)) * _GOLDEN) >> np.uint64(shift))
        while True:
            there = tkey2[slot]
            if there == _FREE:
                tkey[slot] = a
                tkey2[slot] = b
                tid[slot] = n_vocab
                slot_of[n_vocab] = slot
                rep_start[n_vocab] = addr + s
                rep_len[n_vocab] = length
                ids[x] = n_vocab
                n_vocab += 1
                break
            if there == b and tkey[slot] == a:
                v = tid[slot]
                if b != _LONG or (rep_len[v] == length and _same_bytes(src, s, rep_start[v], length)):
                    ids[x] = v
                    break
            slot = (slot + 1) & mask
    return n_vocab


@jit
def _same_bytes(src, s, first, length):
    """Whether ``src[s:s + length]`` equals the ``length`` bytes at address ``first``."""
    other = text_at(first, length)
    for q in range(length):
        if src[s + q] != other[q]:
            return False
    return True


@jit(parallel=True)
def pair_bleu_counts(addrs, lens, ref_ptr, mode, max_order, key_mask=-1):
    """Tokens per text and BLEU's clipped matches of every pair.

    ``addrs``/``lens``: the texts' ASCII bytes by address
    (:mod:`vecscore.text.in_place`), hypotheses ``0..n_pairs-1`` then the
    references of pair ``p`` at rows ``n_pairs + ref_ptr[p] ..``.  Returns
    ``(lengths, correct)``: tokens per text and ``correct[p, n-1]`` for
    orders ``1..max_order``.  ``key_mask`` is ANDed into hashed token keys
    (all ones; tests force collisions).
    """
    n_pairs = len(ref_ptr) - 1
    n_texts = len(addrs)
    lengths = np.zeros(n_texts, np.int64)
    correct = np.zeros((n_pairs, max_order), np.int64)
    bounds = _chunks(n_pairs, max(1, min(256, n_pairs // 2048)))
    for c in prange(len(bounds) - 1):
        bound = 1
        longest = 1
        most_refs = 0
        for p in range(bounds[c], bounds[c + 1]):
            bound = max(bound, _pair_bytes(lens, n_pairs, ref_ptr, p) + 1)  # bounds tokens and bytes
            most_refs = max(most_refs, ref_ptr[p + 1] - ref_ptr[p])
            longest = max(longest, lens[p])
            for q in range(n_pairs + ref_ptr[p], n_pairs + ref_ptr[p + 1]):
                longest = max(longest, lens[q])
        tkey, tid, tstamp, gkey, gid_of, gstamp, rep_start, rep_len, ids, _, _, hcnt, rcnt = pair_scratch(bound)
        tkey2 = np.full(len(tkey), _FREE, np.int64)
        starts = np.empty(bound, np.int64)
        ends = np.empty(bound, np.int64)
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
        for p in range(bounds[c], bounds[c + 1]):
            q0 = ref_ptr[p]
            n_in = 1 + ref_ptr[p + 1] - q0
            bits = _table_bits(_pair_bytes(lens, n_pairs, ref_ptr, p) + 1)
            shift = 64 - bits
            mask = (1 << bits) - 1
            k = 0
            n_vocab = 0
            n_hyp_vocab = 0
            used = 0  # bytes of ra taken by the pair's rewritten texts
            toff[0] = 0
            for t in range(n_in):
                row = p if t == 0 else n_pairs + q0 + t - 1
                text = text_at(addrs[row], _rstrip(text_at(addrs[row], lens[row])))
                k0 = k
                if mode == MODE_13A:
                    k = spans_13a(text, len(text), starts, ends, k0, wa, wb, True, ts, te, tsplit, pad)
                    if k >= 0:
                        n_vocab = _intern_spans(text, starts, ends, k0, k, key_mask, shift, mask, tkey, tkey2, tid,
                                                tstamp, rep_start, rep_len, ids, n_vocab)
                    else:  # step 1 of 13a may change this text: rewrite it into the pair's scratch first
                        m = rewrite(text, ra[used:], pad)
                        src = ra[used:used + m]
                        used += m
                        k = spans_13a(src, m, starts, ends, k0, wa, wb, False, ts, te, tsplit, pad)
                        n_vocab = _intern_spans(src, starts, ends, k0, k, key_mask, shift, mask, tkey, tkey2, tid,
                                                tstamp, rep_start, rep_len, ids, n_vocab)
                else:
                    k = spans_whitespace(text, len(text), mode == MODE_CHAR, starts, ends, k)
                    n_vocab = _intern_spans(text, starts, ends, k0, k, key_mask, shift, mask, tkey, tkey2, tid,
                                            tstamp, rep_start, rep_len, ids, n_vocab)
                toff[t + 1] = k
                lengths[row] = k - toff[t]
                if t == 0:
                    n_hyp_vocab = n_vocab
            for v in range(n_vocab):  # free the pair's slots (tstamp[v]: the slot of id v)
                tkey2[tstamp[v]] = _FREE
            _clip_orders(ids, toff, n_in, n_hyp_vocab, max_order, p, correct[p], dense, keys_of, live, n_live,
                         shift, mask, gkey, gid_of, gstamp, hcnt, rcnt, rmax)
    return lengths, correct


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
