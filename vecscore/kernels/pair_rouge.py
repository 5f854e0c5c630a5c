"""ROUGE-N, ROUGE-L and ROUGE-Lsum statistics straight from bytes, one pair at a time.

The fast path of :func:`vecscore.rouge` for byte-run tokenizers (tokens are
maximal runs of bytes ``b`` with ``table[b] != 0``, compared after mapping
every byte through ``fold``) when no vocabulary transform is asked for.

Input: the texts' bytes by address, ``addrs`` and ``lens`` (int64, one per
text; :mod:`vecscore.kernels.in_place`): hypotheses are texts ``0..n_pairs-1``,
the references of pair ``p`` are texts ``n_pairs + ref_ptr[p] ..
n_pairs + ref_ptr[p + 1] - 1``.

For every pair, in a ``prange`` loop whose threads claim chunks of pairs, with
scratch that :func:`pair_rouge_stats` sizes from the pairs' byte lengths and
allocates before the loop (nothing is allocated inside it, where a failed
allocation would be lost):

1. the pair's texts are tokenized and their tokens interned into *pair-local*
   dense ids (:mod:`vecscore.kernels.pair_tokens`): the hypothesis's tokens get ids ``0 .. nh - 1``; a reference
   token that is not one of them gets the one id ``nh`` (it can be part of no
   hit and no common subsequence), so the references only look the table up.
   Keys are exact for tokens of up to 7 bytes (their folded bytes packed with
   the length), and for rouge-score's tokens of up to 16 bytes (two words,
   :func:`tokenize_intern_alnum`); a longer token's key is a 63-bit hash, and
   a key hit is confirmed by comparing the folded bytes with the first
   occurrence of that id, so ids are exact: equal ids mean equal tokens;
2. n-grams get pair-local dense ids order by order (an order-``n`` n-gram is
   the pair (id of its first ``n - 1`` tokens, id of its last token), an exact
   integer key), and clipped overlaps ``sum_g min(c_hyp(g), c_ref(g))`` come
   from dense counts over those ids, one pass per text; with rouge-score's
   tokenizer, ROUGE-1 and ROUGE-2 (when it is the largest order asked for)
   are counted in step 1 itself, as each token's id comes (bigram ``(a, b)``
   at ``a * 128 + b`` while the hypothesis has fewer than 128 distinct
   tokens), so that their count updates overlap the tokenizing;
3. the LCS of the hypothesis and each reference runs the bit-parallel kernels
   of :mod:`vecscore.kernels.lcs` on the local ids, their common prefix and
   suffix taken off first (:func:`vecscore.kernels.lcs.lcs_trimmed_into`);
4. for ROUGE-Lsum, the texts' sentences (their lines) come from the tokens'
   byte offsets, kept in step 1, and the newlines between them, and
   rouge-score's summary-level union LCS runs on the local ids
   (:mod:`vecscore.kernels.pair_lsum`).

These are the same integer statistics as the sparse count matrices and the
global interning of :mod:`vecscore.engine.counts` produce (the tests compare both
routes, and both against a ``Counter`` twin); local ids are only ever
compared within their own pair, so nothing is shared between threads.

Memory: a pair's scratch is bounded by its bytes of text (tokens, distinct
tokens and hypothesis tokens are bounded by them, :func:`rouge_sizes`), at
most :data:`SCRATCH_BOUNDS` bytes per byte (36 for ROUGE-1, 94 with any
ROUGE-N, N >= 2, 53 and 98 with ROUGE-L, plus 32 MB for its match-mask table;
ROUGE-Lsum adds :data:`LSUM_SCRATCH`: 27 bytes per byte and 2 MB for the LCS
table of hypothesis sentences longer than 64 tokens).  Pairs whose scratch
fits :data:`vecscore.memory.PARALLEL_SCRATCH` run on every thread, each thread
with scratch for the largest of them; larger pairs run on as few threads as
keep their scratch within that budget per thread, and first get the scratch of
steps 2 and 3 for half their bound of tokens: a pair with more tokens (known
once it is tokenized) runs again with scratch for its counts.  A pair whose
scratch cannot be allocated raises :class:`vecscore.memory.PairMemoryError` (a
``MemoryError`` and a ``VecscoreError``) naming it, with the memory it needs.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange
from vecscore.kernels.lcs import lcs_long_words, lcs_trimmed_into
from vecscore.kernels.ngrams import table_bits
from vecscore.kernels.pair_lsum import lsum_hits, table_cells, text_sentences
from vecscore.kernels.pair_tables import (
    DENSE_IDS,
    pair_ngram_hits,
)
from vecscore.kernels.pair_tokens import STRIDE, distinct_bound, tokenize_intern, tokenize_intern_alnum
from vecscore.kernels.swar import (
    borrow,
    claim,
    work_counter,
)
from vecscore.memory import (
    PARALLEL_SCRATCH,
    Slabs,
    allocate_slabs,
    group_bounds,
    groups,
    largest_pair_message,
    pair_bytes,
    py_func_of,
    segment_sums,
    table_slots,
)
from vecscore.parallel import in_threads

__all__ = ["pair_rouge_stats", "rouge_scratch", "scratch_bound", "SCRATCH_BOUNDS"]

@jit
def _rouge_init(tkey, tid, gstamp, hcnt, rcnt, hcnt2, rcnt2, mask1, slot):
    """The initial state of one thread's scratch: every table slot free, the count arrays zero.
    (A function of its own: array assignments in the parallel loop's body became parallel loops
    of their own, some of which never ran.)"""
    for j in range(len(tkey)):
        tkey[j] = 0
        tid[j] = -1
    for j in range(len(gstamp)):
        gstamp[j] = -1
    for j in range(len(hcnt)):
        hcnt[j] = 0
        rcnt[j] = 0
    for j in range(len(hcnt2)):
        hcnt2[j] = 0
        rcnt2[j] = 0
    for j in range(len(mask1)):
        mask1[j] = 0
        slot[j] = -1


@jit
def _lsum_init(bud_h, mark, pm):
    """The ROUGE-Lsum counts and masks zero (see :func:`_rouge_init`)."""
    for j in range(len(bud_h)):
        bud_h[j] = 0
    for j in range(len(pm)):
        pm[j] = 0
    for j in range(len(mark)):
        mark[j] = 0


@jit(inline=True)
def _fused_orders(orders, block):
    """Whether the block tokenizer counts ROUGE-1 (``orders`` starts with 1) and ROUGE-2 (``orders`` ends with 2:
    the bigram counts then have ``DENSE_IDS`` entries, :func:`rouge_layout`) as it interns the tokens."""
    n = len(orders)
    return block and n > 0 and orders[0] == 1, block and n > 0 and orders[n - 1] == 2


@jit
def _clear_bigrams(ids, counts):
    """Zero the fused bigram counts (:func:`tokenize_intern_alnum`) of the text whose ids are ``ids``."""
    for j in range(len(ids) - 1):
        a = np.uint64(ids[j])
        b = np.uint64(ids[j + 1])
        if (a | b) < STRIDE:
            counts[a * STRIDE + b] = 0


@jit(parallel=True)
def _pair_rouge_run(addrs, lens, cls, fold, ref_ptr, orders, want_lcs, want_lsum, key_mask, block, k_sym, todo,
                    bounds, workers, i64, o64, i32, o32, u64, o64u, u8, lengths, hits, lcs, lsum, caps, again, taken,
                    punct, abbrev):
    """:func:`pair_rouge_stats` of the pairs ``todo`` on ``workers`` threads, which claim the chunks
    ``todo[bounds[c]:bounds[c + 1]]`` one at a time.  Each thread's scratch is carved from its
    row of the slabs ``i64``, ``i32``, ``u64`` and ``u8`` at the offsets ``o64``, ``o32`` and
    ``o64u`` (:func:`rouge_layout`); nothing is allocated here.  ``punct[row]``: ROUGE-Lsum finds the
    ``punct`` splitter's sentence ends in that (ASCII) text too (``abbrev``: its abbreviation keys)."""
    # the caller holds every array for the whole call: no reference counting of the per-pair views
    addrs, lens, cls, fold, ref_ptr, orders = borrow(addrs), borrow(lens), borrow(cls), borrow(fold), \
        borrow(ref_ptr), borrow(orders)
    todo, bounds, i64, o64, i32, o32 = borrow(todo), borrow(bounds), borrow(i64), borrow(o64), borrow(i32), \
        borrow(o32)
    u64, o64u, u8, lengths, hits, lcs = borrow(u64), borrow(o64u), borrow(u8), borrow(lengths), borrow(hits), \
        borrow(lcs)
    lsum, caps, again, taken, punct, abbrev = borrow(lsum), borrow(caps), borrow(again), borrow(taken), \
        borrow(punct), borrow(abbrev)
    n_chunks = len(bounds) - 1
    n_orders = len(orders)
    max_order = orders[n_orders - 1] if n_orders > 0 else 0
    fuse1, fuse2 = _fused_orders(orders, block)
    for w in prange(workers):
        a = i64[w]
        b = i32[w]
        c = u64[w]
        pad = u8[w][:64]
        tkey = a[o64[0]:o64[1]]
        tid = a[o64[1]:o64[2]]
        slot_of = a[o64[2]:o64[3]]
        rep_start = a[o64[3]:o64[4]]
        rep_len = a[o64[4]:o64[5]]
        ids = a[o64[5]:o64[6]]
        cur = a[o64[6]:o64[7]]
        nxt = a[o64[7]:o64[8]]
        gkey = a[o64[8]:o64[9]]
        gid_of = a[o64[9]:o64[10]]
        gstamp = a[o64[10]:o64[11]]
        toff = a[o64[11]:o64[12]]
        slot = a[o64[12]:o64[13]]
        items = a[o64[13]:o64[14]]
        tpos = a[o64[14]:o64[15]]  # ROUGE-Lsum (vecscore.kernels.pair_lsum)
        sent = a[o64[15]:o64[16]]
        soff = a[o64[16]:o64[17]]
        live = a[o64[17]:o64[18]]
        tkey2 = a[o64[18]:o64[19]]  # the block tokenizer's second key word
        hcnt = b[o32[0]:o32[1]]
        rcnt = b[o32[1]:o32[2]]
        hcnt2 = b[o32[2]:o32[3]]
        rcnt2 = b[o32[3]:o32[4]]
        bud_h = b[o32[4]:o32[5]]
        table = b[o32[5]:o32[6]]
        mark = b[o32[6]:o32[7]]
        mask1 = c[o64u[0]:o64u[1]]
        words = c[o64u[1]:o64u[2]]
        pm = c[o64u[2]:o64u[3]]
        rows = c[o64u[3]:o64u[4]]
        if max_order <= 1:
            cur = ids  # order 1 reads the token ids in place
        _rouge_init(tkey, tid, gstamp, hcnt, rcnt, hcnt2, rcnt2, mask1, slot)
        _lsum_init(bud_h, mark, pm)
        while True:
            ch = claim(taken, w, workers)
            if ch >= n_chunks:
                break
            for i in range(bounds[ch], bounds[ch + 1]):
                p = todo[i]
                n_pairs = len(ref_ptr) - 1
                q0 = ref_ptr[p]
                q1 = ref_ptr[p + 1]
                n_texts = 1 + q1 - q0
                bits = table_bits(distinct_bound(lens[p], 1, k_sym))  # the table holds the hypothesis's tokens
                shift = 64 - bits
                mask = (1 << bits) - 1
                # 1. tokens -> pair-local ids (text 0 is the hypothesis): the hypothesis's tokens are
                # numbered 0 .. nh - 1; a reference token that is not one of them can match nothing (no
                # n-gram holding it is a hit, it is in no common subsequence), so the references only
                # look the table up and every such token gets the one id nh
                k = 0
                n_vocab = 0
                nh = 0
                toff[0] = 0
                # unigrams and bigrams are counted as the ids come where the counts hold every id the pair can
                # give (at most its hypothesis's tokens, and the references' one id for the others)
                count1 = fuse1 and (lens[p] + 1) // 2 + 2 <= len(hcnt)
                count2 = fuse2
                for t in range(n_texts):
                    row = p if t == 0 else n_pairs + q0 + t - 1
                    miss = -1 if t == 0 else nh
                    if block:
                        k, n_vocab, got1, got2 = tokenize_intern_alnum(
                            addrs[row], lens[row], key_mask, miss, shift, mask, tkey, tkey2, tid, slot_of, rep_start,
                            ids, k, n_vocab, pad, tpos, want_lsum, count1, count2, hcnt, rcnt, hcnt2, rcnt2)
                    else:
                        k, n_vocab = tokenize_intern(addrs[row], lens[row], cls, fold, key_mask, miss, shift, mask,
                                                      tkey, tid, slot_of, rep_start, rep_len, ids, k, n_vocab, tpos,
                                                      want_lsum)
                        got1 = got2 = 0
                    if t == 0:
                        nh = n_vocab
                        n_vocab = nh + 1
                        if count2 and np.uint64(nh) >= STRIDE:  # ids past the stride: counted in step 3
                            _clear_bigrams(ids[:k], hcnt2)
                            count2 = False
                    else:
                        if count1:
                            hits[0, q0 + t - 1] = got1
                            for x in range(nh + 1):
                                rcnt[np.uint64(x)] = 0
                        if count2:
                            hits[n_orders - 1, q0 + t - 1] = got2
                            _clear_bigrams(ids[toff[t]:k], rcnt2)
                    toff[t + 1] = k
                    lengths[row] = k - toff[t]
                if count1:
                    for x in range(nh):
                        hcnt[np.uint64(x)] = 0
                if count2:
                    _clear_bigrams(ids[:toff[1]], hcnt2)
                for v in range(nh):  # free the pair's slots (slot_of[v]: the slot of id v)
                    tkey[slot_of[v]] = 0
                    tid[slot_of[v]] = -1
                if k > caps[0] or toff[1] + 1 > caps[1] or n_vocab > caps[2]:
                    again[p, 0] = k
                    again[p, 1] = toff[1] + 1
                    again[p, 2] = n_vocab
                    continue
                # 2. LCS of the hypothesis with each reference
                if want_lcs:
                    hyp = ids[toff[0]:toff[1]]
                    for t in range(1, n_texts):
                        lcs[q0 + t - 1] = lcs_trimmed_into(hyp, ids[toff[t]:toff[t + 1]], mask1, slot, items, words)
                # 2b. summary-level union LCS over the texts' lines (-1: the table does not fit)
                if want_lsum:
                    ns = 0
                    for t in range(n_texts):
                        row = p if t == 0 else n_pairs + q0 + t - 1
                        soff[t] = ns
                        sent[ns] = toff[t]
                        ns = text_sentences(addrs[row], lens[row], tpos, toff[t], toff[t + 1], sent, ns + 1, pad,
                                            punct[row] != 0, abbrev)
                    soff[n_texts] = ns
                    for t in range(1, n_texts):
                        lsum[q0 + t - 1] = lsum_hits(ids, sent, soff[0], soff[1], soff[t], soff[t + 1], bud_h, pm,
                                                     rows, live, table, mark)
                # 3. clipped n-gram hits of the orders not counted in step 1 (the n-gram table holds hypothesis
                # n-grams; its stamps stay unique per pair and order: an order 2 counted here is always the
                # largest of the orders passed)
                o_lo = 1 if count1 else 0
                o_hi = n_orders - 1 if count2 else n_orders
                if o_hi > o_lo:
                    gbits = table_bits(toff[1] + 1)
                    pair_ngram_hits(ids, toff, n_texts, n_vocab, orders[o_lo:o_hi], p, 64 - gbits, (1 << gbits) - 1,
                                    gkey, gid_of, gstamp, cur, nxt, hcnt, rcnt, hcnt2, rcnt2, hits[o_lo:o_hi], q0)


def token_classes(table, fold):
    """``(cls, block, k)``: ``cls[b]``, the folded byte ``b`` inside a token (never 0 there), 0 for a
    separator; whether ``table``/``fold`` are rouge-score's (tokens ``[0-9A-Za-z]``,
    ASCII-lowercased: the block tokenizer applies); and how many distinct bytes tokens are made
    of (as their keys tell them apart)."""
    table = np.asarray(table)
    fold = np.asarray(fold, np.uint8)
    inside = table != 0
    cls = np.where(inside, np.maximum(fold, 1), 0).astype(np.uint8)
    b = np.arange(256)
    alnum = ((48 <= b) & (b <= 57)) | ((65 <= b) & (b <= 90)) | ((97 <= b) & (b <= 122))
    lowered = np.where((65 <= b) & (b <= 90), b + 32, b)
    block = bool(np.all(inside == alnum) and np.all(fold[alnum] == lowered[alnum]))
    k = len(set(zip(cls[inside].tolist(), fold[inside].tolist())))
    return cls, block, k


def rouge_layout(T, D, Tb, Hb, Vb, Rb, most_refs, max_order, want_lcs, want_lsum=False, H=None):
    """The scratch of one thread: ``{dtype: [(name, count)]}`` in the order :func:`_pair_rouge_run`
    carves it.  Step 1 (tokens and their ids) holds pairs of up to ``T`` tokens and ``D`` distinct
    ones; steps 2 and 3 (LCS, n-grams) pairs of up to ``Tb`` tokens, ``Hb - 1`` hypothesis
    tokens, ``Vb`` distinct tokens and ``Rb`` tokens in a reference; ROUGE-Lsum's table is sized
    for ``H - 1`` hypothesis tokens (default ``Hb - 1``).  Takes ints, or int arrays (one layout
    per pair, for :meth:`Slabs.per_worker_bytes`)."""
    zero = 0 * T
    lsum = bool(want_lsum)
    cells = table_cells(Hb if H is None else H, Rb) if lsum else zero
    order2 = max_order >= 2
    s_g = table_slots(Hb) if order2 else zero
    counts = np.maximum(np.maximum(Vb, Hb if order2 else zero), DENSE_IDS) if max_order >= 1 else zero
    items, words = py_func_of(lcs_long_words)(np.minimum(Hb, Rb)) if want_lcs else (zero, zero)
    lcs_ids = Vb if want_lcs else zero
    dense2 = DENSE_IDS if max_order == 2 else 0
    return {
        np.int64: [("tkey", table_slots(D)), ("tid", table_slots(D)), ("slot_of", D + 1), ("rep_start", D + 1),
                   ("rep_len", D), ("ids", T), ("cur", Tb if order2 else zero), ("nxt", Tb if order2 else zero),
                   ("gkey", s_g), ("gid_of", s_g), ("gstamp", s_g), ("toff", most_refs + 2), ("slot", lcs_ids),
                   ("lcs_items", items), ("tpos", T if lsum else zero),
                   ("sent", T + most_refs + 2 if lsum else zero), ("soff", most_refs + 2 if lsum else zero),
                   ("live", Rb + 1 if lsum else zero), ("tkey2", table_slots(D))],
        np.int32: [("hcnt", counts), ("rcnt", counts), ("hcnt2", dense2 + zero), ("rcnt2", dense2 + zero),
                   ("bud_h", Vb if lsum else zero), ("table", cells),
                   ("mark", Rb if lsum else zero)],
        np.uint64: [("mask1", lcs_ids), ("lcs_words", words), ("pm", Vb if lsum else zero),
                    ("rows", Rb + 1 if lsum else zero)],
        np.uint8: [("pad", 64 + zero)],
    }


def rouge_sizes(lens, ref_ptr, k):
    """Per pair, bounds from the texts' byte lengths, for tokens made of ``k`` distinct bytes:
    ``(T, D, H, Rb, n_refs, hyp_bytes, ref_bytes)``: tokens, distinct tokens, hypothesis tokens + 1,
    tokens of the references."""
    n_pairs = len(ref_ptr) - 1
    hyp_b = np.asarray(lens[:n_pairs], np.int64)
    ref_b = segment_sums(np.asarray(lens[n_pairs:], np.int64), ref_ptr)
    n_refs = np.diff(ref_ptr)
    units = hyp_b + ref_b + 1 + n_refs
    T = units // 2 + 1  # a token and a separator (or the end of its text) take 2 bytes
    D = np.minimum(T, k + k * k + units // 4 + 1)  # distinct_bound
    H = (hyp_b + 1) // 2 + 1
    Rb = (ref_b + n_refs) // 2 + 1
    return T, D, H, Rb, n_refs, hyp_b, ref_b


#: The most scratch one pair can take (scored alone, on one thread): bytes per byte of its text and
#: a fixed part, by the metrics asked for (``(max_order >= 2, want_lcs)``, ROUGE-1 alone is
#: ``(False, False)``).  The worst case: a hypothesis of one-byte tokens, or of as many distinct
#: tokens as fit, at the size where the tables' power-of-two rounding is largest.  Pairs of
#: synthetic 5,000-token texts get about 26 bytes per byte with ROUGE-1, 50 with ROUGE-2
#: (tests/test_memory_limits.py checks the bound, computed and measured).
SCRATCH_BOUNDS = {(False, False): (36, 1 << 20), (True, False): (94, 1 << 20), (False, True): (53, 34 << 20),
                  (True, True): (98, 34 << 20)}


#: What ROUGE-Lsum adds to :data:`SCRATCH_BOUNDS` (bytes per byte, fixed part: its table).
LSUM_SCRATCH = (27, 2 << 20)


def scratch_bound(nbytes, max_order, want_lcs, want_lsum=False):
    """:data:`SCRATCH_BOUNDS` (and :data:`LSUM_SCRATCH`) for a pair of ``nbytes`` bytes of text: the
    most scratch it can take."""
    per_byte, fixed = SCRATCH_BOUNDS[(max_order >= 2, bool(want_lcs))]
    if want_lsum:
        per_byte, fixed = per_byte + LSUM_SCRATCH[0], fixed + LSUM_SCRATCH[1]
    return per_byte * nbytes + fixed


#: pairs of up to this many tokens (bound) get the scratch of steps 2 and 3 for their bounds; a
#: larger pair first gets it for half its bound of tokens (natural text has fewer: a token and a
#: space take 6 bytes or so) and distinct tokens up to a sixteenth of its bytes, and runs again with
#: its counts if it has more (:func:`pair_rouge_stats`)
BIG_TOKENS = 1 << 16


def rouge_scratch(lens, ref_ptr, k, max_order, want_lcs, want_lsum=False):
    """Scratch bytes of each pair scored alone (one thread), for its bounds of tokens."""
    T, D, H, Rb, nr, _, _ = rouge_sizes(lens, ref_ptr, k)
    return Slabs.per_worker_bytes(rouge_layout(T, D, T, H, D, Rb, nr, max_order, want_lcs, want_lsum))


def pair_rouge_stats(addrs, lens, table, fold, ref_ptr, orders, want_lcs, key_mask=-1, bytewise=False,
                     want_lsum=False, punct=None, abbrev=None):
    """Token counts, clipped n-gram hits and LCS lengths of every pair.

    ``orders`` (int64, increasing, >= 1) are the ROUGE-N orders to count.
    Returns ``(lengths, hits, lcs)``: tokens per text (``n_texts``), hits per
    order and reference row (``len(orders) x n_refs``), and the LCS length of
    each reference row with its hypothesis (zeros unless ``want_lcs``); with
    ``want_lsum``, ``(lengths, hits, lcs, lsum)``: also rouge-score's
    ROUGE-Lsum hits of each reference row (:mod:`vecscore.kernels.pair_lsum`),
    -1 for the rows whose hypothesis has a sentence of more than 64 tokens
    and whose LCS table would exceed :data:`vecscore.kernels.pair_lsum.TABLE_CELLS`
    (the caller scores those on the general route).  ``punct`` (bool per text, optional): ROUGE-Lsum's
    sentences of those texts, which must be ASCII, are the ``punct`` splitter's, ``abbrev`` its
    abbreviation keys (:func:`vecscore.kernels.pair_lsum.text_sentences`).
    ``key_mask``: see :func:`tokenize_intern` (tests only).  rouge-score's
    table and fold take the block tokenizer (:func:`tokenize_intern_alnum`)
    unless ``bytewise`` (tests compare both).

    Scratch is sized from the pairs' byte lengths (:func:`rouge_layout`) and
    allocated here, before the kernel runs; a pair whose scratch cannot be
    allocated raises :class:`vecscore.memory.PairMemoryError` naming it.
    """
    from vecscore.parallel import current_threads

    addrs = np.ascontiguousarray(addrs, np.int64)
    lens = np.ascontiguousarray(lens, np.int64)
    ref_ptr = np.ascontiguousarray(ref_ptr, np.int64)
    orders = np.ascontiguousarray(orders, np.int64)
    n_pairs = len(ref_ptr) - 1
    n_refs = int(ref_ptr[n_pairs])
    n_orders = len(orders)
    max_order = int(orders[-1]) if n_orders else 0
    want_lcs = bool(want_lcs)
    want_lsum = bool(want_lsum)
    lengths = np.zeros(n_pairs + n_refs, np.int64)
    hits = np.zeros((n_orders, n_refs), np.int64)
    lcs = np.zeros(n_refs, np.int64)
    lsum = np.zeros(n_refs, np.int64)
    out = (lengths, hits, lcs, lsum) if want_lsum else (lengths, hits, lcs)
    if n_pairs == 0:
        return out
    cls, block, k = token_classes(table, fold)
    block = block and not bytewise
    threads = current_threads()
    punct = np.zeros(len(lens), np.uint8) if punct is None else np.ascontiguousarray(punct, np.uint8)
    abbrev = np.zeros(0, np.int64) if abbrev is None else np.ascontiguousarray(abbrev, np.int64)
    run = (addrs, lens, cls, fold, ref_ptr, orders, want_lcs, want_lsum, np.int64(key_mask), block, k, lengths, hits,
           lcs, lsum, punct, abbrev)
    kinds = (orders, want_lcs, want_lsum)
    # the usual batch: no large pair, and scratch for the bounds of the largest fits every thread
    nr = np.diff(ref_ptr)
    hyp_b = lens[:n_pairs]
    ref_units = (lens[n_pairs:] if n_refs == n_pairs and (nr == 1).all() else
                 segment_sums(lens[n_pairs:], ref_ptr)) + nr  # bytes of the references, and their ends
    units = int((hyp_b + ref_units).max()) + 1
    T = units // 2 + 1  # the sizes of rouge_sizes, of the largest pair
    if T <= BIG_TOKENS:
        D = min(T, k + k * k + units // 4 + 1)
        H = (int(hyp_b.max()) + 1) // 2 + 1
        layout = rouge_layout(T, D, T, H, D, int(ref_units.max()) // 2 + 1, int(nr.max()), max_order, want_lcs,
                              want_lsum)
        if Slabs.per_worker_bytes(layout) <= PARALLEL_SCRATCH:
            again = np.zeros((n_pairs, 3), np.int64)
            _rouge_group(run, np.arange(n_pairs, dtype=np.int64), threads, threads, layout, (T, H, D), again,
                         lambda nbytes: _rouge_message(lens, ref_ptr, kinds, None, nbytes))
            return out  # nothing to run again: the scratch holds every pair's bounds
    T, D, H, Rb, nr, hyp_b, ref_b = rouge_sizes(lens, ref_ptr, k)
    big = T > BIG_TOKENS
    Tb = np.where(big, T // 2 + 1, T)
    Hb = np.where(big, H // 2 + 1, H)
    Vb = np.where(big, np.minimum(D, T // 8 + 1), D)
    pending = np.arange(n_pairs, dtype=np.int64)
    while len(pending):
        again = np.zeros((n_pairs, 3), np.int64)  # per pair: tokens, hypothesis tokens + 1, distinct tokens
        need = Slabs.per_worker_bytes(rouge_layout(T[pending], D[pending], Tb[pending], Hb[pending], Vb[pending],
                                                   Rb[pending], nr[pending], max_order, want_lcs, want_lsum,
                                                   H[pending]))
        for sub, workers in groups(need, threads):
            todo = pending[sub]
            caps = (Tb[todo].max(), Hb[todo].max(), Vb[todo].max())
            layout = rouge_layout(T[todo].max(), D[todo].max(), *caps, Rb[todo].max(), nr[todo].max(), max_order,
                                  want_lcs, want_lsum, H[todo].max())
            _rouge_group(run, todo, workers, threads, layout, caps, again,
                         lambda nbytes, todo=todo: _rouge_message(lens, ref_ptr, kinds, todo, nbytes))
        pending = np.flatnonzero(again.any(axis=1)).astype(np.int64)
        Tb[pending] = np.maximum(Tb[pending], again[pending, 0])
        Hb[pending] = np.maximum(Hb[pending], again[pending, 1])
        Vb[pending] = np.maximum(Vb[pending], again[pending, 2])
    return out


def _rouge_group(run, todo, workers, threads, layout, caps, again, describe):
    """Run :func:`_pair_rouge_run` on the pairs ``todo`` with ``workers`` threads' slabs of ``layout``,
    whose steps 2 and 3 hold ``caps`` (tokens, hypothesis tokens + 1, distinct tokens)."""
    addrs, lens, cls, fold, ref_ptr, orders, want_lcs, want_lsum, key_mask, block, k, lengths, hits, lcs, lsum, punct, \
        abbrev = run
    max_order = int(orders[-1]) if len(orders) else 0
    unused = np.int64(1) << 62  # caps of scratch the metrics asked for do not use
    caps = np.array([caps[0] if max_order >= 2 else unused,  # rougeN for N >= 2: n-gram ids per token
                     caps[1] if max_order >= 2 or want_lcs else unused,  # n-gram table, LCS
                     caps[2] if max_order >= 1 or want_lcs or want_lsum else unused], np.int64)  # per distinct token
    bounds = group_bounds(len(todo), workers, threads, pair_bytes(lens, ref_ptr)[todo])
    slabs = allocate_slabs(layout, max(1, min(workers, len(bounds) - 1)), describe)
    a = slabs.arrays
    o = slabs.offsets
    taken = work_counter(slabs.workers)

    def run(w0, w1):  # the workers w0 .. w1 - 1, with their rows of the slabs
        _pair_rouge_run(addrs, lens, cls, fold, ref_ptr, orders, want_lcs, want_lsum, key_mask, block, k, todo,
                        bounds, w1 - w0, a[np.int64][w0:w1], o[np.int64], a[np.int32][w0:w1], o[np.int32],
                        a[np.uint64][w0:w1], o[np.uint64], a[np.uint8][w0:w1], lengths, hits, lcs, lsum, caps, again,
                        taken, punct, abbrev)

    in_threads(run, slabs.workers, _pair_rouge_run)


def _rouge_message(lens, ref_ptr, what, todo, nbytes):
    """The :class:`vecscore.memory.PairMemoryError` message for the largest pair of ``todo`` (all if ``None``);
    ``what``: ``(orders, want_lcs, want_lsum)``."""
    orders, want_lcs, want_lsum = what
    kinds = ", ".join([f"ROUGE-{int(n)}" for n in orders] + (["ROUGE-L"] if want_lcs else [])
                      + (["ROUGE-Lsum"] if want_lsum else []))
    return largest_pair_message("vecscore.rouge", kinds, lens, ref_ptr, todo, nbytes)
