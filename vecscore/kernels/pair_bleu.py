"""BLEU statistics straight from ASCII bytes, one pair at a time.

The fast path of vecscore's sacreBLEU-compatible BLEU for pure-ASCII batches
with the ``13a``, ``none`` or ``char`` tokenizers.  For every pair, in a
``prange`` loop whose threads claim chunks of pairs, with scratch that
:func:`pair_bleu_counts` sizes from the pairs' byte lengths and allocates
before the loop (nothing is allocated inside it, where a failed allocation
would be lost):

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

Memory: a pair's scratch is bounded by its bytes of text (at most a token per
byte), at most :data:`SCRATCH_BOUNDS` bytes per byte (219 for ``13a``, 194
for ``none`` and ``char``, for a hypothesis of one-byte tokens; natural text
takes about a third).  Pairs whose scratch fits
:data:`vecscore.memory.PARALLEL_SCRATCH` run on every thread; larger ones on
fewer threads, with hypothesis tables first for a token per 4 bytes of the
hypothesis, and R2-R4 scratch for words of up to :data:`WORD_CAP` bytes: a
pair that needs more (known once it is tokenized) runs again with what it
needs.  A pair whose scratch cannot be allocated raises
:class:`vecscore.memory.PairMemoryError` naming it, with the memory it needs.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange
from vecscore.kernels.ngrams import table_bits
from vecscore.kernels.pair_tables import (
    DENSE_IDS,
    FNV_OFFSET,
    FNV_PRIME,
    GOLDEN,
    hashed_key,
    number_key,
)
from vecscore.kernels.spans_13a import (
    rewrite,
    spans_13a,
    spans_whitespace,
    word_scratch,
)
from vecscore.kernels.swar import (
    PAGE,
    claim,
    ctz,
    pair_eq_bits,
    popcount,
    prefetch,
    text_at,
    word_at,
    work_counter,
)
from vecscore.memory import (
    PARALLEL_SCRATCH,
    Slabs,
    allocate_slabs,
    group_bounds,
    groups,
    largest_pair_message,
    py_func_of,
    segment_sums,
    table_slots,
)

__all__ = ["pair_bleu_counts", "FAST_MODES", "bleu_scratch", "scratch_bound", "SCRATCH_BOUNDS"]

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
        h = FNV_OFFSET ^ np.uint64(length)
        for q in range(s, s + length - 8, 8):
            h = (h ^ np.uint64(word_at(addr + q))) * FNV_PRIME
        h = (h ^ np.uint64(word_at(addr + s + length - 8))) * FNV_PRIME
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
        slot = np.int64(((np.uint64(a) ^ (np.uint64(b) * FNV_PRIME)) * GOLDEN) >> np.uint64(shift))
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


#: distinct bytes tokens are made of (the fast path reads pure-ASCII texts)
_K = 128
#: longest word (bytes) whose R2-R4 scratch every thread has; a text with a longer word that
#: R2-R4 must replay makes its pair run again with scratch for it (:func:`pair_bleu_counts`)
WORD_CAP = 4096
#: The most scratch one pair can take (scored alone, on one thread): bytes per byte of its text and
#: a fixed part, by tokenizer mode.  The worst case: a hypothesis of one-byte tokens (``a.b.c``)
#: at the size where the tables' power-of-two rounding is largest; natural text takes about a third
#: (tests/test_memory_limits.py checks both).  ``13a`` adds ``2 * 8 * word_scratch(L)`` bytes for
#: a word of ``L > WORD_CAP`` bytes holding two or more of ``.``, ``,`` and ``-`` (128 bytes per
#: byte of that word; natural text has none).
SCRATCH_BOUNDS = {MODE_13A: (219, 4 << 20), MODE_NONE: (194, 4 << 20), MODE_CHAR: (194, 4 << 20)}


def scratch_bound(nbytes, mode):
    """:data:`SCRATCH_BOUNDS` for a pair of ``nbytes`` bytes of text: the most scratch it can take."""
    per_byte, fixed = SCRATCH_BOUNDS[mode]
    return per_byte * nbytes + fixed


def bleu_scratch(lens, ref_ptr, mode, max_order):
    """Scratch bytes of each pair scored alone (one thread), for its bounds of tokens and R2-R4
    words of up to :data:`WORD_CAP` bytes."""
    T, H, Dh, L, nr, _, _ = bleu_sizes(lens, ref_ptr)
    word = np.minimum(L, WORD_CAP) if mode == MODE_13A else 0 * L
    return Slabs.per_worker_bytes(bleu_layout(T, Dh, H, L, word, nr, mode, max_order))


#: hypotheses of more than this many bytes first get tables for a token per 4 bytes; one with
#: more tokens runs again with tables for its count (:func:`pair_bleu_counts`)
BIG_HYP = 1 << 16


@jit(inline=True)
def _hyp_distinct(nbytes):
    """An upper bound on the distinct tokens of a hypothesis of ``nbytes`` bytes: at most one token
    per byte, at most ``_K`` of one byte and ``_K * _K`` of two, and every other distinct token
    takes 3 bytes at its first occurrence (13a's tokens may touch: ``a.5`` is ``a`` and ``.5``)."""
    return min(nbytes + 1, _K + _K * _K + nbytes // 3 + 1)


def pair_bleu_counts(addrs, lens, ref_ptr, mode, max_order, key_mask=-1):
    """Tokens per text and BLEU's clipped matches of every pair.

    ``addrs``/``lens``: the texts' ASCII bytes by address
    (:mod:`vecscore.kernels.in_place`), hypotheses ``0..n_pairs-1`` then the
    references of pair ``p`` at rows ``n_pairs + ref_ptr[p] ..``.  Returns
    ``(lengths, correct)``: tokens per text and ``correct[p, n-1]`` for
    orders ``1..max_order``.  ``key_mask`` is ANDed into hashed token keys
    (all ones; tests force collisions).

    Scratch is sized from the pairs' byte lengths (:func:`bleu_layout`) and
    allocated here, before the kernel runs; a pair whose scratch cannot be
    allocated raises :class:`vecscore.memory.PairMemoryError` naming it.
    """
    import numba

    addrs = np.ascontiguousarray(addrs, np.int64)
    lens = np.ascontiguousarray(lens, np.int64)
    ref_ptr = np.ascontiguousarray(ref_ptr, np.int64)
    max_order = int(max_order)
    n_pairs = len(ref_ptr) - 1
    lengths = np.zeros(len(addrs), np.int64)
    correct = np.zeros((n_pairs, max_order), np.int64)
    if n_pairs == 0:
        return lengths, correct
    threads = numba.get_num_threads()
    run = (addrs, lens, ref_ptr, mode, max_order, np.int64(key_mask), lengths, correct)
    # the usual batch: no large hypothesis, and scratch for the bounds of the largest pair fits every
    # thread (only a word for R2-R4 longer than WORD_CAP makes a pair run again)
    n_refs = int(ref_ptr[n_pairs])
    nr = np.diff(ref_ptr)
    hyp_b = lens[:n_pairs]
    ref_b = lens[n_pairs:] if n_refs == n_pairs and (nr == 1).all() else segment_sums(lens[n_pairs:], ref_ptr)
    T = int((hyp_b + ref_b).max()) + 1  # the sizes of bleu_sizes, of the largest pair
    H = int(hyp_b.max()) + 1
    L = int(lens.max())
    pending = np.arange(n_pairs, dtype=np.int64)
    again = np.zeros((n_pairs, 2), np.int64)  # per pair: the R2-R4 word, the hypothesis tokens + 1
    if H <= BIG_HYP:
        Dh = min(H, _K + _K * _K + (H - 1) // 3 + 1)
        word = min(L, WORD_CAP) if mode == MODE_13A else 0
        layout = bleu_layout(T, Dh, H, L, word, int(nr.max()), mode, max_order)
        if Slabs.per_worker_bytes(layout) <= PARALLEL_SCRATCH:
            _bleu_group(run, pending, threads, threads, layout, again,
                        lambda nbytes: _bleu_message(lens, ref_ptr, None, nbytes))
            pending = np.flatnonzero(again.any(axis=1)).astype(np.int64)
            if not len(pending):
                return lengths, correct
    T, H, Dh, L, nr, hyp_b, ref_b = bleu_sizes(lens, ref_ptr)
    # R2-R4 scratch for words of up to WORD_CAP bytes, and hypothesis tables for hypotheses of up to
    # a token per 4 bytes where that is smaller than a token per byte by more than BIG_HYP tokens;
    # a pair that needs more runs again with exactly what it needs (the kernel reports it)
    word = np.minimum(L, WORD_CAP) if mode == MODE_13A else 0 * L
    hcap = H.copy() if mode == MODE_CHAR else np.where(H > BIG_HYP, H // 4 + 1, H)
    word[pending] = np.maximum(word[pending], again[pending, 0])  # pairs of the first run that run again
    hcap[pending] = np.maximum(hcap[pending], again[pending, 1])
    while len(pending):
        again = np.zeros((n_pairs, 2), np.int64)
        need = Slabs.per_worker_bytes(bleu_layout(T[pending], Dh[pending], hcap[pending], L[pending], word[pending],
                                                  nr[pending], mode, max_order))
        for sub, workers in groups(need, threads):
            todo = pending[sub]
            layout = bleu_layout(T[todo].max(), Dh[todo].max(), hcap[todo].max(), L[todo].max(), word[todo].max(),
                                 nr[todo].max(), mode, max_order)
            _bleu_group(run, todo, workers, threads, layout, again,
                        lambda nbytes, todo=todo: _bleu_message(lens, ref_ptr, todo, nbytes))
        pending = np.flatnonzero(again.any(axis=1)).astype(np.int64)
        word[pending] = np.maximum(word[pending], again[pending, 0])
        hcap[pending] = np.maximum(hcap[pending], again[pending, 1])
    return lengths, correct


def _bleu_group(run, todo, workers, threads, layout, again, describe):
    """Run :func:`_pair_bleu_run` on the pairs ``todo`` with ``workers`` threads' slabs of ``layout``."""
    addrs, lens, ref_ptr, mode, max_order, key_mask, lengths, correct = run
    bounds = group_bounds(len(todo), workers, threads)
    slabs = allocate_slabs(layout, max(1, min(workers, len(bounds) - 1)), describe)
    a = slabs.arrays
    o = slabs.offsets
    _pair_bleu_run(addrs, lens, ref_ptr, mode, max_order, key_mask, todo, bounds, slabs.workers, a[np.int64],
                   o[np.int64], a[np.int32], o[np.int32], a[np.uint64], o[np.uint64], a[np.uint8], o[np.uint8],
                   lengths, correct, again, work_counter(slabs.workers))


def _bleu_message(lens, ref_ptr, todo, nbytes):
    """The :class:`vecscore.memory.PairMemoryError` message for the largest pair of ``todo`` (all if ``None``)."""
    return largest_pair_message("vecscore BLEU", "", lens, ref_ptr, todo, nbytes)


def bleu_sizes(lens, ref_ptr):
    """Per pair: ``(T, H, Dh, L, n_refs, hyp_bytes, ref_bytes)``, the bounds :func:`bleu_layout` takes
    from the texts' byte lengths: tokens (and bytes) of the pair, tokens and distinct tokens of the
    hypothesis, the longest text."""
    n_pairs = len(ref_ptr) - 1
    hyp_b = np.asarray(lens[:n_pairs], np.int64)
    flat = np.asarray(lens[n_pairs:], np.int64)
    ref_b = segment_sums(flat, ref_ptr)
    n_refs = np.diff(ref_ptr)
    longest = hyp_b.copy()
    has = np.flatnonzero(n_refs > 0)
    if len(has):
        longest[has] = np.maximum(longest[has], np.maximum.reduceat(flat, ref_ptr[has]))
    T = hyp_b + ref_b + 1
    H = hyp_b + 1
    Dh = np.minimum(H, _K + _K * _K + hyp_b // 3 + 1)  # _hyp_distinct
    return T, H, Dh, longest, n_refs, hyp_b, ref_b


def bleu_layout(T, Dh, hcap, L, word, most_refs, mode, max_order):
    """The scratch of one thread for pairs of up to ``T`` tokens (and bytes), hypotheses of up to
    ``Dh`` distinct tokens and ``hcap - 1`` tokens, texts of up to ``L`` bytes, R2-R4 words of up
    to ``word`` bytes and ``most_refs`` references: ``{dtype: [(name, count)]}`` in the order
    :func:`_bleu_views` carves them.  Takes ints, or int arrays (one layout per pair)."""
    zero = 0 * T
    is13a = mode == MODE_13A
    s_g = table_slots(hcap)
    distinct = np.minimum(Dh, hcap)
    return {
        np.int64: [("starts", T), ("ends", T), ("ka", T + _WORD_BITS), ("kb", T + _WORD_BITS), ("taddr", T),
                   ("slot_of", distinct + 1), ("first", distinct + 1), ("keys_of", hcap + 1), ("gkey", s_g),
                   ("gid_of", s_g), ("gstamp", s_g), ("tab", _SLOT * table_slots(distinct)), ("toff", most_refs + 2),
                   ("n_live", most_refs + 2), ("dense", DENSE_IDS + 1 + zero), ("best", _WORD_BITS * max_order + zero),
                   ("wa", py_func_of(word_scratch)(word) if is13a else zero),
                   ("wb", py_func_of(word_scratch)(word) if is13a else zero),
                   ("ts", L + 1 if is13a else zero), ("te", L + 1 if is13a else zero),
                   ("tsplit", L + 2 if is13a else zero)],
        np.int32: [("hcnt", hcap + 1), ("rcnt", hcap + 1), ("rmax", hcap + 1)],
        np.uint64: [("h1", _WORD_BITS + max_order + zero), ("d1", _WORD_BITS + max_order + zero)],
        np.uint8: [("ra", T if is13a else zero), ("pad", 64 + zero)],
    }


@jit(inline=True)
def _bleu_views(a, o, b, o32, c, o64u, d, o8):
    """One thread's scratch, carved from its rows of the slabs (:func:`bleu_layout`'s order)."""
    return (a[o[0]:o[1]], a[o[1]:o[2]], a[o[2]:o[3]], a[o[3]:o[4]], a[o[4]:o[5]], a[o[5]:o[6]], a[o[6]:o[7]],
            a[o[7]:o[8]], a[o[8]:o[9]], a[o[9]:o[10]], a[o[10]:o[11]], a[o[11]:o[12]], a[o[12]:o[13]],
            a[o[13]:o[14]], a[o[14]:o[15]], a[o[15]:o[16]], a[o[16]:o[17]], a[o[17]:o[18]], a[o[18]:o[19]],
            a[o[19]:o[20]], a[o[20]:o[21]], b[o32[0]:o32[1]], b[o32[1]:o32[2]], b[o32[2]:o32[3]],
            c[o64u[0]:o64u[1]], c[o64u[1]:o64u[2]], d[o8[0]:o8[1]], d[o8[1]:o8[2]])


@jit
def _bleu_init(scratch):
    """The initial state of one thread's scratch: every table slot free, the count arrays zero.
    (A function of its own: array assignments in the parallel loop's body became parallel loops
    of their own, some of which never ran.)"""
    (_, _, _, _, _, _, _, _, _, _, gstamp, tab, _, _, dense, best, _, _, _, _, _, hcnt, rcnt, rmax, h1, d1, _,
     _) = scratch
    for j in range(len(gstamp)):
        gstamp[j] = -1
    for j in range(len(tab)):
        tab[j] = _FREE if j % _SLOT == 1 else 0
    for j in range(len(dense)):
        dense[j] = -1
    for j in range(len(best)):
        best[j] = 0
    for j in range(len(hcnt)):
        hcnt[j] = 0
        rcnt[j] = 0
        rmax[j] = 0
    for j in range(len(h1)):
        h1[j] = 0
        d1[j] = 0


@jit(parallel=True)
def _pair_bleu_run(addrs, lens, ref_ptr, mode, max_order, key_mask, todo, bounds, workers, i64, o64, i32, o32, u64,
                   o64u, u8, o8, lengths, correct, again, taken):
    """:func:`pair_bleu_counts` of the pairs ``todo`` on ``workers`` threads, which claim the chunks
    ``todo[bounds[c]:bounds[c + 1]]`` one at a time; each thread's scratch is carved from its rows
    of the slabs; nothing is allocated here."""
    n_chunks = len(bounds) - 1
    for worker in prange(workers):  # each worker claims chunks until none is left
        scratch = _bleu_views(i64[worker], o64, i32[worker], o32, u64[worker], o64u, u8[worker], o8)
        _bleu_init(scratch)
        while True:
            c = claim(taken, worker, workers)
            if c >= n_chunks:
                break
            _chunk_counts(addrs, lens, ref_ptr, mode, max_order, key_mask, todo, bounds[c], bounds[c + 1], lengths,
                          correct, again, scratch)


@jit(inline=True)
def _chunk_counts(addrs, lens, ref_ptr, mode, max_order, key_mask, todo, lo, hi, lengths, correct, again, scratch):
    """Tokens per text and clipped matches of the pairs ``todo[lo:hi]`` into ``lengths``/``correct``
    (see :func:`pair_bleu_counts`), with one thread's ``scratch`` (:func:`_bleu_views`).  A pair
    that does not fit the scratch is left out, with what it needs in ``again[p]``: the longest
    word R2-R4 replay, where that word does not fit, and its hypothesis's tokens + 1, where the
    hypothesis tables are too small.  Inlined into the parallel loop: as a call of its own the kernel took half as
    long again."""
    (starts, ends, ka, kb, taddr, slot_of, first, keys_of, gkey, gid_of, gstamp, tab, toff, n_live, dense, best, wa,
     wb, ts, te, tsplit, hcnt, rcnt, rmax, h1, d1, ra, pad) = scratch
    ids = ka  # a token's key is read before its id is written, and never again
    live = kb
    n_pairs = len(ref_ptr) - 1
    for i in range(lo, min(lo + _AHEAD, hi)):
        _prefetch_pair(addrs, lens, n_pairs, ref_ptr, todo[i])
    for i in range(lo, hi):
        p = todo[i]
        if i + _AHEAD < hi:
            _prefetch_pair(addrs, lens, n_pairs, ref_ptr, todo[i + _AHEAD])
        q0 = ref_ptr[p]
        n_in = 1 + ref_ptr[p + 1] - q0
        k = 0
        used = 0  # bytes of ra taken by the pair's rewritten texts
        toff[0] = 0
        short = True
        room = 0  # the longest R2-R4 word that did not fit wa/wb
        for t in range(n_in):
            row = p if t == 0 else n_pairs + q0 + t - 1
            text = text_at(addrs[row], _rstrip(text_at(addrs[row], lens[row])))
            k0 = k
            if mode == MODE_13A:
                k = spans_13a(text, len(text), starts, ends, k0, wa, wb, True, ts, te, tsplit, pad)
                if k >= 0:
                    _span_keys(text, starts, ends, k0, k, key_mask, ka, kb, taddr)
                elif k == -1:  # step 1 of 13a may change this text: rewrite it into the pair's scratch first
                    m = rewrite(text, ra[used:], pad)
                    src = ra[used:used + m]
                    used += m
                    k = spans_13a(src, m, starts, ends, k0, wa, wb, False, ts, te, tsplit, pad)
                    if k >= 0:
                        _span_keys(src, starts, ends, k0, k, key_mask, ka, kb, taddr)
                if k < 0:  # -3 - L: a word of L bytes that R2-R4 replay does not fit wa/wb
                    room = max(room, -3 - k)
                    k = k0
            else:
                k = spans_whitespace(text, len(text), mode == MODE_CHAR, starts, ends, k)
                _span_keys(text, starts, ends, k0, k, key_mask, ka, kb, taddr)
            toff[t + 1] = k
            lengths[row] = k - k0
            short = short and k - k0 <= _WORD_BITS
        if room > 0 or (not short and toff[1] + 1 > len(keys_of) - 1):
            again[p, 0] = room
            again[p, 1] = toff[1] + 1 if toff[1] + 1 > len(keys_of) - 1 else 0
            continue
        if short and max_order == 4:  # the usual order, as a constant: the loops over orders unroll
            _clip_bits(ka, kb, taddr, starts, ends, toff, n_in, 4, correct[p], h1, d1, best)
        elif short:
            _clip_bits(ka, kb, taddr, starts, ends, toff, n_in, max_order, correct[p], h1, d1, best)
        else:
            # the token table holds the hypothesis's distinct tokens, the n-gram table its n-grams
            bits = table_bits(min(toff[1] + 1, _hyp_distinct(lens[p])))
            shift = 64 - bits
            mask = (1 << bits) - 1
            n_hyp_vocab = _intern_keys(ka, kb, taddr, starts, ends, 0, toff[1], True, shift, mask, tab, slot_of,
                                       first, ids, 0)
            _intern_keys(ka, kb, taddr, starts, ends, toff[1], k, False, shift, mask, tab, slot_of, first, ids,
                         n_hyp_vocab)
            for v in range(n_hyp_vocab):  # free the pair's slots
                tab[slot_of[v] + 1] = _FREE
            gbits = table_bits(toff[1] + 1)
            _clip_orders(ids, toff, n_in, n_hyp_vocab, max_order, p, correct[p], dense, keys_of, live, n_live,
                         64 - gbits, (1 << gbits) - 1, gkey, gid_of, gstamp, hcnt, rcnt, rmax)


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
