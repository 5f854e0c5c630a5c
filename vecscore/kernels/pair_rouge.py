"""ROUGE-N and ROUGE-L statistics straight from bytes, one pair at a time.

The fast path of :func:`vecscore.rouge` for byte-run tokenizers (tokens are
maximal runs of bytes ``b`` with ``table[b] != 0``, compared after mapping
every byte through ``fold``) when no vocabulary transform is asked for.

Input: the texts' bytes by address, ``addrs`` and ``lens`` (int64, one per
text; :mod:`vecscore.text.in_place`): hypotheses are texts ``0..n_pairs-1``,
the references of pair ``p`` are texts ``n_pairs + ref_ptr[p] ..
n_pairs + ref_ptr[p + 1] - 1``.

For every pair, in a ``prange`` loop over chunks of pairs, with scratch sized
by the chunk's largest pair (memory is bounded by a pair, never the corpus):

1. the pair's texts are tokenized and their tokens interned into *pair-local*
   dense ids.  Keys are exact for tokens of up to 7 bytes (their folded bytes
   packed with the length); a longer token's key is a 63-bit hash, and a key
   hit is confirmed by comparing the folded bytes with the first occurrence
   of that id, so ids are exact: equal ids mean equal tokens;
2. n-grams get pair-local dense ids order by order (an order-``n`` n-gram is
   the pair (id of its first ``n - 1`` tokens, id of its last token), an exact
   integer key), and clipped overlaps ``sum_g min(c_hyp(g), c_ref(g))`` come
   from dense counts over those ids, one pass per text;
3. the LCS of the hypothesis and each reference runs the bit-parallel kernels
   of :mod:`vecscore.kernels.lcs` on the local ids.

These are the same integer statistics as the sparse count matrices and the
global interning of :mod:`vecscore.counts` produce (the tests compare both
routes, and both against a ``Counter`` twin); local ids are only ever
compared within their own pair, so nothing is shared between threads.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange
from vecscore.kernels.lcs import _lcs_long, _lcs_short
from vecscore.kernels.ngrams import _chunks, _table_bits
from vecscore.kernels.swar import LOW7, block_at, ctz, in_ranges, packed, range_adders
from vecscore.text.in_place import text_at, word_at

__all__ = ["pair_rouge_stats"]

_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_SHORT = 7  # tokens of up to 7 bytes have exact keys
#: n-gram ids below this are the n-gram's tokens as a number in base ``n_vocab``
#: (no table); past it, n-grams are numbered through a hash table.
DENSE_IDS = 1 << 14


@jit(inline=True)
def hashed_key(h, key_mask):
    """The key of a token of more than ``_SHORT`` bytes from its FNV hash ``h``: bit 63 set, ANDed with ``key_mask``."""
    return np.int64((h ^ (h >> np.uint64(29))) | np.uint64(1 << 63)) & key_mask


@jit(inline=True)
def _token_key(word, h, length, key_mask):
    """A token's key from its (folded) bytes packed 8 to a word: ``word``, the last, partial one,
    and ``h``, the FNV hash of the full words before it.  Up to ``_SHORT`` bytes the key is the
    bytes and the length, packed; past that, :func:`hashed_key` of the whole hash."""
    if length <= _SHORT:
        return np.int64(word) | (np.int64(length) << 56)
    return hashed_key((h ^ word) * _FNV_PRIME, key_mask)


@jit
def _pair_bytes(lens, n_pairs, ref_ptr, p):
    """Bytes in pair ``p``'s texts."""
    total = lens[p]
    for q in range(n_pairs + ref_ptr[p], n_pairs + ref_ptr[p + 1]):
        total += lens[q]
    return total


@jit
def _token_bound(lens, n_pairs, ref_ptr, p):
    """An upper bound on the tokens of pair ``p`` (a token and a separator take 2 bytes)."""
    n_texts = 1 + ref_ptr[p + 1] - ref_ptr[p]
    return (_pair_bytes(lens, n_pairs, ref_ptr, p) + n_texts) // 2 + 1


@jit
def _intern(key, text, addr, s, length, fold, shift, mask, tkey, tid, slot_of, rep_start, rep_len, n_vocab):
    """The pair-local id of the token ``text[s:s + length]`` with ``key``; returns ``(id, n_vocab)``.

    ``tkey`` is an open-addressing table in which 0 marks a free slot (keys
    are never 0); ``slot_of[v]`` records the slot of a new id ``v`` so that
    the caller can free the pair's slots afterwards.  A hit on a hashed key
    (negative) is confirmed by comparing the folded bytes with the id's
    first occurrence, at address ``rep_start[v]``.
    """
    slot = np.int64((np.uint64(key) * _GOLDEN) >> np.uint64(shift))
    while True:
        there = tkey[slot]
        if there == 0:
            tkey[slot] = key
            tid[slot] = n_vocab
            slot_of[n_vocab] = slot
            rep_start[n_vocab] = addr + s
            rep_len[n_vocab] = length
            return n_vocab, n_vocab + 1
        if there == key:
            v = tid[slot]
            if key >= 0:
                return v, n_vocab
            if rep_len[v] == length:
                first = text_at(rep_start[v], length)
                same = True
                for q in range(length):
                    if fold[text[s + q]] != fold[first[q]]:
                        same = False
                        break
                if same:
                    return v, n_vocab
        slot = (slot + 1) & mask


@jit
def _tokenize_intern(addr, n, cls, fold, key_mask, stamp, shift, mask,
                     tkey, tid, tstamp, rep_start, rep_len, ids, k, n_vocab):
    """Tokenize the ``n`` bytes at ``addr``; intern each token into the pair's table.

    ``cls[b]`` is the folded byte ``b`` inside a token, 0 for a separator.
    Local ids go to ``ids[k:]``; returns ``(k, n_vocab)`` after the text.
    One pass over the bytes, indexed from 0 (a loop from a variable start
    keeps numba's negative-index check on every access).  A
    token of up to ``_SHORT`` bytes has an exact key (its folded bytes and
    length, packed as it is read); a longer one a 63-bit hash (bit 63 set),
    and a key hit there is confirmed by comparing the bytes with the id's
    first occurrence (``rep_start``: its address).  ``key_mask`` is ANDed into
    every hashed key (all ones; the tests keep a few bits to force collisions
    through the comparison).
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
        h = _FNV_OFFSET
        j = 1
        i += 1
        while i < n:
            c = cls[text[i]]
            if c == 0:
                break
            if j == 8:
                h = (h ^ word) * _FNV_PRIME
                word = np.uint64(0)
                j = 0
            word |= np.uint64(c) << np.uint64(8 * j)
            j += 1
            i += 1
        length = i - s
        key = _token_key(word, h, length, key_mask)
        v, n_vocab = _intern(key, text, addr, s, length, fold, shift, mask, tkey, tid, tstamp, rep_start, rep_len,
                             n_vocab)
        ids[k] = v
        k += 1
    return k, n_vocab


# rouge-score's token bytes, tested 8 bytes at a time (vecscore.kernels.swar)
_ALNUM_RANGES = range_adders([(48, 57), (65, 90), (97, 122)])
_UPPER_RANGE = range_adders([(65, 90)])


@jit
def _lowered(w):
    """ASCII ``A-Z`` -> ``a-z`` on the 8 bytes of ``w`` (each < 0x80)."""
    return w | (in_ranges(w, _UPPER_RANGE) >> np.uint64(2))


@jit
def _alnum_bits(addr):
    """Bit ``j`` set where byte ``j`` of the 64 at ``addr`` is in ``[0-9A-Za-z]``."""
    out = np.uint64(0)
    for j in range(8):
        w = np.uint64(word_at(addr + 8 * j))
        m = in_ranges(w & LOW7, _ALNUM_RANGES) & ~w  # bytes >= 0x80 are separators
        out |= packed(m) << np.uint64(8 * j)
    return out


@jit
def _tokenize_intern_alnum(addr, n, fold, key_mask, shift, mask, tkey, tid, slot_of, rep_start, rep_len, ids, k,
                           n_vocab, pad):
    """:func:`_tokenize_intern` for rouge-score's tokens (runs of ``[0-9A-Za-z]``, ASCII-lowercased).

    Token boundaries come from 64-bit masks of 64 bytes at a time (full
    blocks read in place, the rest copied into ``pad`` after zero bytes, so
    nothing past ``n`` is read), and a short token's key from one 8-byte
    load lowercased as a word; each token is interned as soon as its end is
    known.  Keys are the same as :func:`_tokenize_intern`'s.
    """
    text = text_at(addr, n)
    one = np.uint64(1)
    carry = np.uint64(0)
    pending = -1
    base = 0
    while True:
        last = base + 64 > n
        a = _alnum_bits(block_at(text, addr, base, pad, 0))
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
            if length <= _SHORT and s + 8 <= n:
                w = np.uint64(word_at(addr + s)) & ((one << np.uint64(8 * length)) - one)
                key = np.int64(_lowered(w)) | (np.int64(length) << 56)
            elif length > _SHORT and s + ((length + 7) & -8) <= n:  # the hash, a word at a time
                h = _FNV_OFFSET
                for q in range(0, length, 8):
                    w = np.uint64(word_at(addr + s + q))
                    if length - q < 8:
                        w &= (one << np.uint64(8 * (length - q))) - one
                    h = (h ^ _lowered(w)) * _FNV_PRIME
                key = hashed_key(h, key_mask)
            else:
                word = np.uint64(0)
                h = _FNV_OFFSET
                for q in range(length):
                    if q > 0 and q % 8 == 0:
                        h = (h ^ word) * _FNV_PRIME
                        word = np.uint64(0)
                    word |= np.uint64(fold[text[s + q]]) << np.uint64(8 * (q % 8))
                key = _token_key(word, h, length, key_mask)
            v, n_vocab = _intern(key, text, addr, s, length, fold, shift, mask, tkey, tid, slot_of, rep_start, rep_len,
                                 n_vocab)
            ids[k] = v
            k += 1
        if last:
            return k, n_vocab
        base += 64


@jit(inline=True)
def number_key(key, insert, g, stamp, shift, mask, tkey, tid, tstamp):
    """The id of the exact key ``key >= 0`` in the table stamped ``stamp``: its id if present;
    if absent, ``g`` (recorded) when ``insert``, else -1.

    Entries whose ``tstamp`` is not ``stamp`` are free, so a table is reused
    across pairs and orders without clearing.
    """
    slot = np.int64((np.uint64(key) * _GOLDEN) >> np.uint64(shift))
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
    size = 1 << _table_bits(bound)
    counts = max(bound, DENSE_IDS)
    return (np.empty(size, np.int64), np.empty(size, np.int64), np.full(size, -1, np.int64),
            np.empty(size, np.int64), np.empty(size, np.int64), np.full(size, -1, np.int64),
            np.empty(bound, np.int64), np.empty(bound, np.int64),
            np.empty(bound, np.int64), np.empty(bound, np.int64), np.empty(bound, np.int64),
            np.zeros(counts, np.int32), np.zeros(counts, np.int32))


@jit(inline=True)
def _clipped_hits(gid, hcnt, rcnt):
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
    come from :func:`_clipped_hits`.  Count arrays are zero on entry and exit.
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
            hits[oi, q0 + t - 1] = _clipped_hits(cur[toff[t]:max(toff[t + 1] - n + 1, toff[t])], hcnt, rcnt)
        for j in range(len(hgrams)):
            hcnt[hgrams[j]] = 0
        oi += 1


@jit(parallel=True)
def pair_rouge_stats(addrs, lens, table, fold, ref_ptr, orders, want_lcs, key_mask=-1, bytewise=False):
    """Token counts, clipped n-gram hits and LCS lengths of every pair.

    ``orders`` (int64, increasing, >= 1) are the ROUGE-N orders to count.
    Returns ``(lengths, hits, lcs)``: tokens per text (``n_texts``), hits per
    order and reference row (``len(orders) x n_refs``), and the LCS length of
    each reference row with its hypothesis (zeros unless ``want_lcs``).
    ``key_mask``: see :func:`_tokenize_intern` (tests only).  rouge-score's
    table and fold take the block tokenizer (:func:`_tokenize_intern_alnum`)
    unless ``bytewise`` (tests compare both).
    """
    n_pairs = len(ref_ptr) - 1
    n_refs = ref_ptr[n_pairs]
    lengths = np.zeros(n_pairs + n_refs, np.int64)
    cls = np.zeros(256, np.uint8)  # the folded byte inside a token (never 0 there), 0 for a separator
    alnum = True  # rouge-score's tokens: [0-9A-Za-z], ASCII-lowercased (the block tokenizer)
    for b in range(256):
        if table[b] != 0:
            cls[b] = max(fold[b], 1)
        is_alnum = 48 <= b <= 57 or 65 <= b <= 90 or 97 <= b <= 122
        alnum = alnum and (table[b] != 0) == is_alnum and (not is_alnum or fold[b] == (b + 32 if 65 <= b <= 90 else b))
    n_orders = len(orders)
    max_order = orders[n_orders - 1] if n_orders > 0 else 0
    hits = np.zeros((n_orders, n_refs), np.int64)
    lcs = np.zeros(n_refs, np.int64)
    bounds = _chunks(n_pairs, max(1, min(256, n_pairs // 2048)))  # chunks of >= 2048 pairs amortize the scratch
    for c in prange(len(bounds) - 1):
        # scratch for the chunk's largest pair: at most one token per 2 bytes (+1 per text)
        bound = 1
        most_refs = 0
        for p in range(bounds[c], bounds[c + 1]):
            bound = max(bound, _token_bound(lens, n_pairs, ref_ptr, p))
            most_refs = max(most_refs, ref_ptr[p + 1] - ref_ptr[p])
        tkey, tid, tstamp, gkey, gid_of, gstamp, rep_start, rep_len, ids, cur, nxt, hcnt, rcnt = pair_scratch(bound)
        tkey[:] = 0
        hcnt2 = np.zeros(DENSE_IDS if max_order == 2 else 0, np.int32)
        rcnt2 = np.zeros(DENSE_IDS if max_order == 2 else 0, np.int32)
        toff = np.empty(most_refs + 2, np.int64)
        mask1 = np.zeros(bound, np.uint64)
        pad = np.empty(64, np.uint8)
        slot = np.full(bound, -1, np.int64)
        for p in range(bounds[c], bounds[c + 1]):
            q0 = ref_ptr[p]
            q1 = ref_ptr[p + 1]
            n_texts = 1 + q1 - q0
            bits = _table_bits(_token_bound(lens, n_pairs, ref_ptr, p))
            shift = 64 - bits
            mask = (1 << bits) - 1
            # 1. tokens -> pair-local ids (text 0 is the hypothesis)
            k = 0
            n_vocab = 0
            toff[0] = 0
            for t in range(n_texts):
                row = p if t == 0 else n_pairs + q0 + t - 1
                if alnum and not bytewise:
                    k, n_vocab = _tokenize_intern_alnum(addrs[row], lens[row], fold, key_mask, shift, mask, tkey,
                                                        tid, tstamp, rep_start, rep_len, ids, k, n_vocab, pad)
                else:
                    k, n_vocab = _tokenize_intern(addrs[row], lens[row], cls, fold, key_mask, p, shift, mask,
                                                  tkey, tid, tstamp, rep_start, rep_len, ids, k, n_vocab)
                toff[t + 1] = k
                lengths[row] = k - toff[t]
            for v in range(n_vocab):  # free the pair's slots (tstamp[v]: the slot of id v)
                tkey[tstamp[v]] = 0
            # 2. LCS of the hypothesis with each reference
            if want_lcs:
                hyp = ids[toff[0]:toff[1]]
                for t in range(1, n_texts):
                    ref = ids[toff[t]:toff[t + 1]]
                    x, y = (hyp, ref) if len(hyp) >= len(ref) else (ref, hyp)
                    if len(y) == 0:
                        lcs[q0 + t - 1] = 0
                    elif len(y) <= 64:
                        lcs[q0 + t - 1] = _lcs_short(x, y, mask1)
                    else:
                        lcs[q0 + t - 1] = _lcs_long(x, y, slot)
            # 3. clipped n-gram hits for the requested orders
            pair_ngram_hits(ids, toff, n_texts, n_vocab, orders, p, shift, mask, gkey, gid_of, gstamp, cur, nxt,
                            hcnt, rcnt, hcnt2, rcnt2, hits, q0)
    return lengths, hits, lcs
