"""Step 1 of :mod:`vecscore.kernels.pair_rouge`: a pair's texts tokenized and their tokens interned into
*pair-local* dense ids, in one pass over the bytes.

The hypothesis's tokens get ids ``0 .. nh - 1``; a reference token that is not one of them gets the one id ``nh``
(it can be part of no hit and no common subsequence), so the references only look the table up.  Keys are exact
for tokens of up to :data:`SHORT` bytes (their folded bytes packed with the length), and for rouge-score's tokens
of up to 16 bytes (two words, :func:`tokenize_intern_alnum`); a longer token's key is a 63-bit hash, and a key hit
is confirmed by comparing the folded bytes with the first occurrence of that id, so ids are exact: equal ids mean
equal tokens.  With rouge-score's tokenizer, unigram and bigram counts are updated as each token's id comes
(:func:`count_token`; bigram ``(a, b)`` at ``a * STRIDE + b`` while the hypothesis has fewer than
:data:`STRIDE` distinct tokens)."""

import numpy as np

from vecscore._jit import jit
from vecscore.kernels.pair_tables import (
    DENSE_IDS,
    FNV_OFFSET,
    FNV_PRIME,
    GOLDEN,
    hashed_key,
)
from vecscore.kernels.swar import (
    PAGE,
    block_64,
    ctz,
    load_word,
    low_bits,
    range_bits,
    text_at,
)

__all__ = ["SHORT", "STRIDE", "tokenize_intern", "tokenize_intern_alnum", "distinct_bound"]

SHORT = 7  # tokens of up to 7 bytes have exact keys

#: fused bigram counts (:func:`_fused_orders`): bigram ``(a, b)`` of ids below ``STRIDE`` is entry ``a * STRIDE + b``
#: of the ``DENSE_IDS`` counts
STRIDE = np.uint64(128)
assert STRIDE * STRIDE == DENSE_IDS


@jit(inline=True)
def token_key(word, h, length, key_mask):
    """A token's key from its (folded) bytes packed 8 to a word: ``word``, the last, partial one,
    and ``h``, the FNV hash of the full words before it.  Up to ``SHORT`` bytes the key is the
    bytes and the length, packed; past that, :func:`hashed_key` of the whole hash."""
    if length <= SHORT:
        return np.int64(word) | (np.int64(length) << 56)
    return hashed_key((h ^ word) * FNV_PRIME, key_mask)


@jit
def intern_token(key, x, length, fold, miss, shift, mask, tkey, tid, slot_of, rep_start, rep_len, n_vocab):
    """The pair-local id of the token of ``length`` bytes at address ``x`` with ``key``; returns
    ``(id, n_vocab)``.  With ``miss >= 0`` the table is only looked up: a token not in it gets
    ``miss`` and is not added.

    ``tkey`` is an open-addressing table in which 0 marks a free slot (keys
    are never 0); ``slot_of[v]`` records the slot of a new id ``v`` so that
    the caller can free the pair's slots afterwards.  A hit on a hashed key
    (negative) is confirmed by comparing the token's bytes, through ``fold``,
    with the id's first occurrence, at address ``rep_start[v]``.
    """
    slot = np.int64((np.uint64(key) * GOLDEN) >> np.uint64(shift))
    while True:
        there = tkey[slot]
        if there == 0:
            if miss >= 0:
                return miss, n_vocab
            tkey[slot] = key
            tid[slot] = n_vocab
            slot_of[n_vocab] = slot
            rep_start[n_vocab] = x
            rep_len[n_vocab] = length
            return n_vocab, n_vocab + 1
        if there == key:
            v = tid[slot]
            if key >= 0:
                return v, n_vocab
            if rep_len[v] == length:
                first = text_at(rep_start[v], length)
                this = text_at(x, length)
                same = True
                for q in range(length):
                    if fold[this[q]] != fold[first[q]]:
                        same = False
                        break
                if same:
                    return v, n_vocab
        slot = (slot + 1) & mask


@jit
def tokenize_intern(addr, n, cls, fold, key_mask, miss, shift, mask,
                     tkey, tid, tstamp, rep_start, rep_len, ids, k, n_vocab, tpos, keep_pos):
    """Tokenize the ``n`` bytes at ``addr``; intern each token into the pair's table.

    ``cls[b]`` is the folded byte ``b`` inside a token, 0 for a separator.
    Local ids go to ``ids[k:]``; returns ``(k, n_vocab)`` after the text.
    One pass over the bytes, indexed from 0 (a loop from a variable start
    keeps numba's negative-index check on every access).  A
    token of up to ``SHORT`` bytes has an exact key (its folded bytes and
    length, packed as it is read); a longer one a 63-bit hash (bit 63 set),
    and a key hit there is confirmed by comparing the bytes with the id's
    first occurrence (``rep_start``: its address).  ``key_mask`` is ANDed into
    every hashed key (all ones; the tests keep a few bits to force collisions
    through the comparison).  With ``miss >= 0`` the table is only looked up
    (:func:`intern_token`): tokens not in it get the id ``miss``.  If ``keep_pos``,
    ``tpos[k]`` gets token ``k``'s byte offset in its text.
    """
    text = text_at(addr, n)
    s = -1
    key = np.int64(0)
    i = 0
    while True:
        c = 0
        while i < n:
            c = cls[text[i]]
            if c != 0:
                break
            i += 1
        if i >= n:
            break
        # the folded bytes, packed 8 to a word as they are read; full words go into the hash
        s = i
        word = np.uint64(c)
        h = FNV_OFFSET
        j = 1
        i += 1
        while i < n:
            c = cls[text[i]]
            if c == 0:
                break
            if j == 8:
                h = (h ^ word) * FNV_PRIME
                word = np.uint64(0)
                j = 0
            word |= np.uint64(c) << np.uint64(8 * j)
            j += 1
            i += 1
        length = i - s
        key = token_key(word, h, length, key_mask)
        v, n_vocab = intern_token(key, addr + s, length, fold, miss, shift, mask, tkey, tid, tstamp, rep_start,
                             rep_len, n_vocab)
        ids[k] = v
        if keep_pos:
            tpos[k] = s
        k += 1
    return k, n_vocab


#: ASCII ``A-Z`` -> ``a-z`` on 8 bytes of ``[0-9A-Za-z]``: digits and lower-case letters already have bit 5
LOWER = np.uint64(0x2020202020202020)


@jit
def alnum_word(x, count):
    """The ``count`` (1 to 8) bytes at address ``x``, all in ``[0-9A-Za-z]``, lowercased and packed
    little-endian (the others zero).  One 8-byte load where it stays within the memory page of the
    byte at ``x`` (mapped: that byte is the text's); bytes one at a time otherwise."""
    if (x & (PAGE - 1)) <= PAGE - 8:
        w = load_word(x)
    else:
        b = text_at(x, count)
        w = np.uint64(0)
        for q in range(count):
            w |= np.uint64(b[q]) << np.uint64(8 * q)
    w |= LOWER
    if count < 8:
        w &= (np.uint64(1) << np.uint64(8 * count)) - np.uint64(1)
    return w


#: bit 63 of a key's second word: the key of a token of more than ``PAIR_KEY`` bytes (a hash and its length)
LONG = np.uint64(1) << np.uint64(63)

#: rouge-score's tokens of up to this many bytes have exact two-word keys in :func:`tokenize_intern_alnum`
PAIR_KEY = 16


@jit
def same_alnum(xa, xb, length):
    """Whether the ``length`` bytes at ``xa`` and ``xb``, all in ``[0-9A-Za-z]``, are equal ASCII-lowercased."""
    a = text_at(xa, length)
    b = text_at(xb, length)
    for q in range(length):
        if (a[q] | 32) != (b[q] | 32):
            return False
    return True


@jit
def probe_alnum(w0, w1, x, length, miss, slot, mask, tkey, tkey2, tid, slot_of, rep_start, n_vocab):
    """:func:`tokenize_intern_alnum`'s table lookup by probing from ``slot``, for a key whose own slot holds
    another key, or a long token's (``w1 & LONG``: equal keys are confirmed by comparing the bytes with the
    id's first occurrence, at ``rep_start``); returns ``(id, n_vocab)``, inserting the key unless ``miss >= 0``."""
    at = np.int64(slot)
    while True:
        there = np.uint64(tkey[at])
        if there == 0:
            break
        if there == w0 and np.uint64(tkey2[at]) == w1:
            v = tid[at]
            if (w1 & LONG) == 0 or same_alnum(rep_start[v], x, length):
                return v, n_vocab
        at = (at + 1) & mask
    if miss >= 0:
        return miss, n_vocab
    tkey[at] = np.int64(w0)
    tkey2[at] = np.int64(w1)
    tid[at] = n_vocab
    slot_of[n_vocab] = at
    rep_start[n_vocab] = x
    return n_vocab, n_vocab + 1


@jit(inline=True)
def count_token(x, hyp, hcnt, rcnt):
    """One n-gram, entry ``x`` of the counts: the hypothesis's into ``hcnt``; a reference's into ``rcnt``,
    returning 1 where it is a clipped hit (no more of it so far than the hypothesis holds), else 0."""
    if hyp:
        hcnt[x] += 1
        return 0
    c = rcnt[x] + 1
    rcnt[x] = c
    return 1 if c <= hcnt[x] else 0


@jit(inline=True)
def tokenize_intern_alnum(addr, n, key_mask, miss, shift, mask, tkey, tkey2, tid, slot_of, rep_start, ids, k,
                           n_vocab, pad, tpos, keep_pos, count1, count2, hcnt, rcnt, hcnt2, rcnt2):
    """:func:`tokenize_intern` for rouge-score's tokens (runs of ``[0-9A-Za-z]``, ASCII-lowercased), with
    keys of two words in the table's two key arrays (``tkey``, ``tkey2``).

    Token boundaries come from 64-bit masks of 64 bytes at a time
    (:func:`vecscore.kernels.swar.range_bits` on :func:`vecscore.kernels.swar.block_64`,
    bits past ``n`` cleared), and a token's key from its bytes read 8 at a
    time and lowercased as words (:func:`alnum_word`); each token is
    interned as soon as its end is known.  A token of up to ``PAIR_KEY``
    bytes is its own key: its first 8 bytes and the rest, zero-padded (token
    bytes are never 0 and below 0x80, so neither word is ambiguous and no key
    is ``(0, 0)``); a longer one has its FNV hash (ANDed with ``key_mask``, as
    the slot's hash is) and ``LONG | length``, and a hit on it is confirmed by
    comparing bytes (:func:`probe_alnum`).  Exact keys need no comparison, so
    the usual token, whose slot holds its key or nothing, is looked up and
    inserted without a data-dependent branch (an unpredictable branch per
    token, hit or miss, costs more than the rest of the lookup): ``tid`` of a
    free slot is -1, and the id is ``tid`` or the next one (``miss`` for the
    references, which only look up).  ``slot_of`` and ``rep_start`` are written
    at ``n_vocab`` whether the token is new or not, so they hold one entry more
    than the ids.  Ids (and ``tpos``) are the same as :func:`tokenize_intern`'s.

    With ``count1`` and ``count2``, the text's unigrams and bigrams are counted
    as its ids come (:func:`_fused_orders`): into ``hcnt`` / ``hcnt2`` for the
    hypothesis, and for a reference into ``rcnt`` / ``rcnt2``, returning its
    clipped hits ``(got1, got2)``; bigram ``(a, b)`` is entry ``a * STRIDE +
    b``, counted where both ids are below ``STRIDE``.  Returns ``(k, n_vocab,
    got1, got2)``.
    """
    text = text_at(addr, n)
    one = np.uint64(1)
    carry = np.uint64(0)
    pending = -1
    base = 0
    hyp = miss < 0
    slot_mask = np.uint64(key_mask)  # all ones, except in the tests (forced collisions of slots too)
    ushift = np.uint64(shift)
    got1 = 0
    got2 = 0
    prev = np.uint64(STRIDE)  # the previous token's id while it is below STRIDE (no bigram before the first)
    while True:
        a = np.uint64(0)  # a text of 64 * j bytes ends with a block of none, where its last token ends
        if base < n:
            block = block_64(text, addr, base, pad)
            a = range_bits(block, 97, 122) | range_bits(block, 65, 90) | range_bits(block, 48, 57)
            a &= low_bits(n - base)
        before = (a << one) | carry
        rises = a & ~before
        falls = ~a & before
        carry = a >> np.uint64(63)
        while True:
            if pending >= 0:
                if falls == 0:
                    break
                s = pending
                pending = -1
            else:
                if rises == 0:
                    break
                s = base + ctz(rises)
                rises &= rises - one
                if falls == 0:
                    pending = s
                    break
            e = base + ctz(falls)
            falls &= falls - one
            length = e - s
            x = addr + s
            if length <= PAIR_KEY:
                w0 = alnum_word(x, min(length, 8))
                w1 = alnum_word(x + 8, length - 8) if length > 8 else np.uint64(0)
                slot = (((w0 ^ (w1 * FNV_PRIME)) & slot_mask) * GOLDEN) >> ushift  # unsigned: no wraparound check
                there = np.uint64(tkey[slot])
                differ = (there ^ w0) | (np.uint64(tkey2[slot]) ^ w1)
                if min(differ, there) == 0:  # the slot holds this key (its id) or none (tid -1)
                    got = tid[slot]
                    if hyp:
                        v = got if got >= 0 else n_vocab
                        tkey[slot] = np.int64(w0)
                        tkey2[slot] = np.int64(w1)
                        tid[slot] = v
                        slot_of[n_vocab] = slot
                        rep_start[n_vocab] = x
                        n_vocab += np.int64(got < 0)
                    else:
                        v = got if got >= 0 else miss
                else:
                    v, n_vocab = probe_alnum(w0, w1, x, length, miss, slot, mask, tkey, tkey2, tid, slot_of,
                                              rep_start, n_vocab)
            else:  # the FNV hash, a word at a time
                h = FNV_OFFSET
                for j in range((length - 1) >> 3):  # full words, then the last
                    h = (h ^ alnum_word(x + 8 * j, 8)) * FNV_PRIME
                q = (length - 1) & -8
                h = (h ^ alnum_word(x + q, length - q)) * FNV_PRIME
                w0 = np.uint64(hashed_key(h, key_mask))
                w1 = np.uint64(length) | LONG
                slot = (((w0 ^ (w1 * FNV_PRIME)) & slot_mask) * GOLDEN) >> ushift  # unsigned: no wraparound check
                v, n_vocab = probe_alnum(w0, w1, x, length, miss, slot, mask, tkey, tkey2, tid, slot_of, rep_start,
                                          n_vocab)
            ids[k] = v
            uv = np.uint64(v)
            if count1:  # clipped unigram hits as the tokens come (the arrays hold every id here)
                got1 += count_token(uv, hyp, hcnt, rcnt)
            if count2:  # bigram (a, b) at a * STRIDE + b while both ids are below STRIDE
                if (prev | uv) < STRIDE:
                    got2 += count_token(prev * STRIDE + uv, hyp, hcnt2, rcnt2)
                prev = uv if uv < STRIDE else np.uint64(STRIDE)
            if keep_pos:
                tpos[k] = s
            k += 1
        if base + 64 > n:  # the block held the end: a token there has ended (bit n - base is clear)
            return k, n_vocab, got1, got2
        base += 64


@jit(inline=True)
def distinct_bound(nbytes, n_texts, k):
    """An upper bound on the distinct tokens of ``n_texts`` texts of ``nbytes`` bytes in all whose
    tokens are made of ``k`` distinct (folded) bytes: at most the tokens (a token and a separator
    take 2 bytes), at most ``k`` of one byte and ``k * k`` of two, and every other distinct token
    takes 3 bytes and a separator (or the end of its text) at its first occurrence."""
    units = nbytes + n_texts
    return min(units // 2 + 1, k + k * k + units // 4 + 1)
