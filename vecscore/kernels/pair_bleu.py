"""BLEU statistics straight from bytes, one pair at a time.

The fast path of vecscore's sacreBLEU-compatible BLEU with the ``13a``,
``none`` or ``char`` tokenizers, on ASCII or UTF-8 bytes whose non-ASCII
whitespace has been written as spaces (:data:`vecscore.kernels.wide_text.UTF8`):
those tokenizers' rules look at ASCII characters only, and every other
character is an ordinary word character (``char``: one token per UTF-8
character).  ``zh`` (:data:`MODE_ZH`) is 13a's rules without its first step,
on bytes whose "Chinese" characters stand between spaces
(:data:`vecscore.kernels.wide_text.ZH`).  For every pair, in a
``prange`` loop whose threads claim chunks of pairs, with scratch that
:func:`pair_bleu_counts` sizes from the pairs' byte lengths and allocates
before the loop (nothing is allocated inside it, where a failed allocation
would be lost):

1. each text (trailing whitespace stripped, as sacreBLEU's ``rstrip()``) is
   split into token spans: for ``13a`` by :mod:`vecscore.kernels.spans_13a`
   (only a text with ``<``, ``\n`` or ``&`` is rewritten into scratch
   first), otherwise on whitespace;
2. every token gets an exact two-word key (:func:`vecscore.kernels.bleu_clip.span_key`): its bytes
   for tokens of up to 15 bytes, a hash for longer ones, whose equal keys
   are confirmed against the bytes (in the text, or in the pair's rewrite
   scratch, where each rewritten text keeps its own place);
3. the clipped matches of orders ``1..K``: where every text of the pair has
   at most 64 tokens (:func:`~vecscore.kernels.bleu_clip.clip_bits`), from one 64-bit word of matching
   positions per hypothesis token, found by comparing 32 or 64 keys at once;
   otherwise (:func:`~vecscore.kernels.bleu_clip.clip_orders`) tokens get pair-local ids through a hash
   table holding the hypothesis's tokens, each order numbers only the
   n-grams that can still match, and the hypothesis counts are clipped by
   each n-gram's maximum count over the references.

References scored again and again need not be tokenized each time: :func:`reference_keys` makes their
token keys once (:class:`RefKeys`, a cached scorer's), and :func:`pair_bleu_counts` given them copies a
reference's keys into the pair's scratch instead of step 1-2.

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

from dataclasses import dataclass

import numpy as np

from vecscore._jit import jit, prange
from vecscore.kernels.bleu_clip import FREE, SLOT, clip_bits, clip_orders, intern_keys, span_keys
from vecscore.kernels.ngrams import table_bits
from vecscore.kernels.pair_tables import (
    DENSE_IDS,
)
from vecscore.kernels.spans_13a import (
    rewrite,
    spans_13a,
    spans_whitespace,
    word_scratch,
)
from vecscore.kernels.swar import (
    borrow,
    claim,
    prefetch,
    text_at,
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

__all__ = ["pair_bleu_counts", "FAST_MODES", "MODE_ZH", "bleu_scratch", "scratch_bound", "SCRATCH_BOUNDS",
           "unpadded_edges", "RefKeys", "reference_keys"]

MODE_13A = 0
MODE_NONE = 1
MODE_CHAR = 2
#: ``13a``'s rules without its first step, on text whose "Chinese" characters stand between spaces
#: (:data:`vecscore.kernels.wide_text.ZH`): sacreBLEU's ``zh`` and vecscore's ``zh-fixed``
MODE_ZH = 3
#: tokenizer names of this kernel, by mode
FAST_MODES = {"13a": MODE_13A, "none": MODE_NONE, "char": MODE_CHAR, "zh": MODE_ZH, "zh-fixed": MODE_ZH}


def _regexp(mode) -> bool:
    """Whether ``mode`` runs 13a's punctuation rules (and needs their scratch)."""
    return mode == MODE_13A or mode == MODE_ZH



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


@jit
def unpadded_edges(addrs, lens):
    """Per text: whether its first or last non-whitespace byte is ``.`` or ``,``.

    ``13a`` runs its rules on the line padded with a space on each side; ``zh`` runs them on the line
    as it is, so the two can only split such a text differently (a ``.`` or ``,`` at an end has
    no neighbour there for R2/R3).  :data:`MODE_ZH` pads as 13a does: the caller scores the pairs
    of these texts another way."""
    out = np.zeros(len(addrs), np.bool_)
    for r in range(len(addrs)):
        text = text_at(addrs[r], lens[r])
        lo = 0
        hi = len(text)
        while lo < hi and _is_space(text[lo]):
            lo += 1
        while hi > lo and _is_space(text[hi - 1]):
            hi -= 1
        if hi > lo:
            out[r] = text[lo] == 46 or text[lo] == 44 or text[hi - 1] == 46 or text[hi - 1] == 44
    return out


_WORD_BITS = 64  # pairs whose texts have at most this many tokens take clip_bits
#: pairs ahead whose texts are prefetched (Python's strings lie scattered in memory)
_AHEAD = 4


@jit(inline=True)
def _prefetch_pair(addrs, lens, n_pairs, ref_ptr, p, cached):
    """Ask for the cache lines of pair ``p``'s texts (its hypothesis alone when the references' keys are
    ``cached``)."""
    for t in range(-1, 0 if cached else ref_ptr[p + 1] - ref_ptr[p]):
        row = p if t < 0 else n_pairs + ref_ptr[p] + t
        a = addrs[row]
        for q in range(a & ~63, a + lens[row], 64):
            prefetch(q)


#: distinct tokens of one byte (ASCII) and of two bytes (two ASCII characters, or one UTF-8
#: character from U+0080 to U+07FF): tokens never split a UTF-8 character
_ONE_BYTE = 128
_TWO_BYTES = 128 * 128 + 0x800 - 0x80
#: longest word (bytes) whose R2-R4 scratch every thread has; a text with a longer word that
#: R2-R4 must replay makes its pair run again with scratch for it (:func:`pair_bleu_counts`)
WORD_CAP = 4096
#: The most scratch one pair can take (scored alone, on one thread): bytes per byte of its text and
#: a fixed part, by tokenizer mode.  The worst case: a hypothesis of one-byte tokens (``a.b.c``)
#: at the size where the tables' power-of-two rounding is largest; natural text takes about a third
#: (tests/test_memory_limits.py checks both).  ``13a`` adds ``2 * 8 * word_scratch(L)`` bytes for
#: a word of ``L > WORD_CAP`` bytes holding two or more of ``.``, ``,`` and ``-`` (128 bytes per
#: byte of that word; natural text has none).
SCRATCH_BOUNDS = {MODE_13A: (219, 4 << 20), MODE_NONE: (194, 4 << 20), MODE_CHAR: (194, 4 << 20),
                  MODE_ZH: (219, 4 << 20)}


def scratch_bound(nbytes, mode):
    """:data:`SCRATCH_BOUNDS` for a pair of ``nbytes`` bytes of text: the most scratch it can take."""
    per_byte, fixed = SCRATCH_BOUNDS[mode]
    return per_byte * nbytes + fixed


def bleu_scratch(lens, ref_ptr, mode, max_order):
    """Scratch bytes of each pair scored alone (one thread), for its bounds of tokens and R2-R4
    words of up to :data:`WORD_CAP` bytes."""
    T, H, Dh, L, nr, _, _ = bleu_sizes(lens, ref_ptr)
    word = np.minimum(L, WORD_CAP) if _regexp(mode) else 0 * L
    return Slabs.per_worker_bytes(bleu_layout(T, Dh, H, L, word, nr, mode, max_order))


#: hypotheses of more than this many bytes first get tables for a token per 4 bytes; one with
#: more tokens runs again with tables for its count (:func:`pair_bleu_counts`)
BIG_HYP = 1 << 16


@jit(inline=True)
def _hyp_distinct(nbytes):
    """An upper bound on the distinct tokens of a hypothesis of ``nbytes`` bytes: at most one token
    per byte, at most ``_ONE_BYTE`` of one byte and ``_TWO_BYTES`` of two, and every other distinct token
    takes 3 bytes at its first occurrence (13a's tokens may touch: ``a.5`` is ``a`` and ``.5``)."""
    return min(nbytes + 1, _ONE_BYTE + _TWO_BYTES + nbytes // 3 + 1)


def pair_bleu_counts(addrs, lens, ref_ptr, mode, max_order, key_mask=-1, ref_keys=None):
    """Tokens per text and BLEU's clipped matches of every pair.

    ``addrs``/``lens``: the texts' bytes (ASCII or UTF-8, see the module docstring) by address
    (:mod:`vecscore.kernels.in_place`), hypotheses ``0..n_pairs-1`` then the
    references of pair ``p`` at rows ``n_pairs + ref_ptr[p] ..``.  Returns
    ``(lengths, correct)``: tokens per text and ``correct[p, n-1]`` for
    orders ``1..max_order``.  ``key_mask`` is ANDed into hashed token keys
    (all ones; tests force collisions).  ``ref_keys``: the references' tokens as
    :func:`reference_keys` gave them for the reference rows (with the same ``mode`` and
    ``key_mask``), which are then read from there and not tokenized again.

    Scratch is sized from the pairs' byte lengths (:func:`bleu_layout`) and
    allocated here, before the kernel runs; a pair whose scratch cannot be
    allocated raises :class:`vecscore.memory.PairMemoryError` naming it.
    """
    from vecscore.parallel import current_threads

    addrs = np.ascontiguousarray(addrs, np.int64)
    lens = np.ascontiguousarray(lens, np.int64)
    ref_ptr = np.ascontiguousarray(ref_ptr, np.int64)
    max_order = int(max_order)
    n_pairs = len(ref_ptr) - 1
    lengths = np.zeros(len(addrs), np.int64)
    correct = np.zeros((n_pairs, max_order), np.int64)
    if n_pairs == 0:
        return lengths, correct
    threads = current_threads()
    if ref_keys is None:
        cached = (False, _NO_KEYS, _NO_KEYS, _NO_KEYS, _NO_KEYS, _NO_KEYS)
    else:
        if ref_keys.mode != mode or ref_keys.key_mask != key_mask or len(ref_keys.key_off) != len(addrs) - n_pairs + 1:
            raise ValueError("ref_keys were made for other references, another mode or another key_mask")
        cached = (True, ref_keys.key_off, ref_keys.ka, ref_keys.kb, ref_keys.taddr, ref_keys.lengths)
    run = (addrs, lens, ref_ptr, mode, max_order, np.int64(key_mask), lengths, correct, cached)
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
        Dh = min(H, _ONE_BYTE + _TWO_BYTES + (H - 1) // 3 + 1)
        word = min(L, WORD_CAP) if _regexp(mode) else 0
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
    word = np.minimum(L, WORD_CAP) if _regexp(mode) else 0 * L
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


#: no cached reference keys (:func:`pair_bleu_counts` without ``ref_keys``)
_NO_KEYS = np.zeros(1, np.int64)


@dataclass(frozen=True, eq=False)
class RefKeys:
    """References tokenized once (:func:`reference_keys`), for :func:`pair_bleu_counts` to score any number of
    hypotheses against: reference ``q``'s tokens are ``key_off[q]:key_off[q + 1]``, with their two-word keys
    ``ka``/``kb``, the addresses of their bytes ``taddr`` and their lengths in bytes.  The addresses point into
    the references' rows (which the caller keeps alive as long as this) or into ``rewritten`` (the texts that
    13a's step 1 changed)."""

    key_off: np.ndarray
    ka: np.ndarray
    kb: np.ndarray
    taddr: np.ndarray
    lengths: np.ndarray
    rewritten: np.ndarray
    mode: int
    key_mask: int


def reference_keys(addrs, lens, mode, key_mask=-1) -> RefKeys | None:
    """The tokens of the texts ``addrs``/``lens`` (the reference rows, bytes as :func:`pair_bleu_counts` reads
    them) as :class:`RefKeys`, or ``None`` where a text has a word too long for R2-R4's scratch (rare: then
    the references are tokenized with each call, as without a cache).  Two passes: the first counts each
    text's tokens and rewritten bytes, the second writes the keys where they belong."""
    addrs = np.ascontiguousarray(addrs, np.int64)
    lens = np.ascontiguousarray(lens, np.int64)
    n = len(addrs)
    L = int(lens.max()) if n else 0
    is13a = _regexp(mode)
    word = min(L, WORD_CAP) if is13a else 0
    wa = np.empty(int(py_func_of(word_scratch)(word)) if is13a else 0, np.int64)
    wb = np.empty(len(wa), np.int64)
    ts = np.empty(L + 1, np.int64)
    te = np.empty(L + 1, np.int64)
    tsplit = np.empty(L + 2, np.int64)
    pad = np.zeros(64, np.uint8)
    counts = np.zeros((n, 2), np.int64)  # per text: tokens, rewritten bytes
    one = L + 1  # the first pass's slots: one text at a time
    first = [np.empty(one + _WORD_BITS, np.int64) for _ in range(5)]
    if not _reference_keys_run(addrs, lens, mode, np.int64(key_mask), False, counts, *first, wa, wb, ts, te, tsplit,
                               np.empty(L + 64, np.uint8), pad):
        return None
    del first
    offsets = np.zeros((n + 1, 2), np.int64)
    np.cumsum(counts, axis=0, out=offsets[1:])
    K = int(offsets[n, 0])
    starts, ends, ka, kb, taddr = (np.empty(K + 1, np.int64) for _ in range(5))
    rewritten = np.empty(int(offsets[n, 1]) + L + 64, np.uint8)
    _reference_keys_run(addrs, lens, mode, np.int64(key_mask), True, offsets, starts, ends, ka, kb, taddr, wa, wb,
                        ts, te, tsplit, rewritten, pad)
    return RefKeys(np.ascontiguousarray(offsets[:, 0]), ka, kb, taddr, ends - starts, rewritten, mode,
                   int(key_mask))


@jit
def _reference_keys_run(addrs, lens, mode, key_mask, fill, counts, starts, ends, ka, kb, taddr, wa, wb, ts, te,
                        tsplit, ra, pad):
    """:func:`reference_keys`'s passes.  Without ``fill``: each text's tokens and rewritten bytes into
    ``counts[q]``, one text at a time in the slots from 0.  With ``fill``, ``counts`` holds their running
    sums (``n + 1`` rows): text ``q``'s tokens go to the slots from ``counts[q, 0]``, its rewrite to
    ``ra[counts[q, 1]:]``.  Returns False if a text has a word R2-R4 could not replay in ``wa``/``wb``."""
    for q in range(len(addrs)):
        text = text_at(addrs[q], _rstrip(text_at(addrs[q], lens[q])))
        k0 = counts[q, 0] if fill else 0
        used0 = counts[q, 1] if fill else 0
        k, used, room = _text_keys(text, mode, key_mask, k0, starts, ends, ka, kb, taddr, wa, wb, ts, te, tsplit,
                                   ra, used0, pad)
        if room > 0:
            return False
        if not fill:
            counts[q, 0] = k - k0
            counts[q, 1] = used - used0
    return True


def _bleu_group(run, todo, workers, threads, layout, again, describe):
    """Run :func:`_pair_bleu_run` on the pairs ``todo`` with ``workers`` threads' slabs of ``layout``."""
    addrs, lens, ref_ptr, mode, max_order, key_mask, lengths, correct, cached = run
    bounds = group_bounds(len(todo), workers, threads, pair_bytes(lens, ref_ptr)[todo])
    slabs = allocate_slabs(layout, max(1, min(workers, len(bounds) - 1)), describe)
    a = slabs.arrays
    o = slabs.offsets
    taken = work_counter(slabs.workers)

    def run(w0, w1):  # the workers w0 .. w1 - 1, with their rows of the slabs
        _pair_bleu_run(addrs, lens, ref_ptr, mode, max_order, key_mask, todo, bounds, w1 - w0, a[np.int64][w0:w1],
                       o[np.int64], a[np.int32][w0:w1], o[np.int32], a[np.uint64][w0:w1], o[np.uint64],
                       a[np.uint8][w0:w1], o[np.uint8], lengths, correct, again, taken, *cached)

    in_threads(run, slabs.workers, _pair_bleu_run)


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
    Dh = np.minimum(H, _ONE_BYTE + _TWO_BYTES + hyp_b // 3 + 1)  # _hyp_distinct
    return T, H, Dh, longest, n_refs, hyp_b, ref_b


def bleu_layout(T, Dh, hcap, L, word, most_refs, mode, max_order):
    """The scratch of one thread for pairs of up to ``T`` tokens (and bytes), hypotheses of up to
    ``Dh`` distinct tokens and ``hcap - 1`` tokens, texts of up to ``L`` bytes, R2-R4 words of up
    to ``word`` bytes and ``most_refs`` references: ``{dtype: [(name, count)]}`` in the order
    :func:`_bleu_views` carves them.  Takes ints, or int arrays (one layout per pair)."""
    zero = 0 * T
    is13a = _regexp(mode)
    s_g = table_slots(hcap)
    distinct = np.minimum(Dh, hcap)
    return {
        np.int64: [("starts", T), ("ends", T), ("ka", T + _WORD_BITS), ("kb", T + _WORD_BITS), ("taddr", T),
                   ("slot_of", distinct + 1), ("first", distinct + 1), ("keys_of", hcap + 1), ("gkey", s_g),
                   ("gid_of", s_g), ("gstamp", s_g), ("tab", SLOT * table_slots(distinct)), ("toff", most_refs + 2),
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
        tab[j] = FREE if j % SLOT == 1 else 0
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
                   o64u, u8, o8, lengths, correct, again, taken, cached, key_off, cka, ckb, ctaddr, clen):
    """:func:`pair_bleu_counts` of the pairs ``todo`` on ``workers`` threads, which claim the chunks
    ``todo[bounds[c]:bounds[c + 1]]`` one at a time; each thread's scratch is carved from its rows
    of the slabs; nothing is allocated here."""
    # the caller holds every array for the whole call: no reference counting of the per-pair views
    addrs, lens, ref_ptr, todo, bounds, i64, o64 = borrow(addrs), borrow(lens), borrow(ref_ptr), borrow(todo), \
        borrow(bounds), borrow(i64), borrow(o64)
    i32, o32, u64, o64u, u8, o8 = borrow(i32), borrow(o32), borrow(u64), borrow(o64u), borrow(u8), borrow(o8)
    lengths, correct, again, taken = borrow(lengths), borrow(correct), borrow(again), borrow(taken)
    key_off, cka, ckb, ctaddr, clen = borrow(key_off), borrow(cka), borrow(ckb), borrow(ctaddr), borrow(clen)
    n_chunks = len(bounds) - 1
    for worker in prange(workers):  # each worker claims chunks until none is left
        scratch = _bleu_views(i64[worker], o64, i32[worker], o32, u64[worker], o64u, u8[worker], o8)
        _bleu_init(scratch)
        while True:
            c = claim(taken, worker, workers)
            if c >= n_chunks:
                break
            _chunk_counts(addrs, lens, ref_ptr, mode, max_order, key_mask, todo, bounds[c], bounds[c + 1], lengths,
                          correct, again, scratch, cached, key_off, cka, ckb, ctaddr, clen)


@jit(inline=True)
def _text_keys(text, mode, key_mask, k0, starts, ends, ka, kb, taddr, wa, wb, ts, te, tsplit, ra, used, pad):
    """Token spans and keys (:func:`~vecscore.kernels.bleu_clip.span_keys`) of one ``text``, trailing
    whitespace stripped, from slot ``k0``.  Returns ``(k, used, room)``: the next free slot; the bytes of ``ra``
    taken, from ``used`` on (a text that 13a's step 1 may change is rewritten there first, and its tokens'
    addresses point there; ``ra[used:]`` must hold ``len(text)`` bytes); and the longest word that R2-R4
    replay did not fit in ``wa``/``wb`` (0 if none; otherwise ``k == k0`` and the text's spans are not to
    be used)."""
    room = 0
    if mode == MODE_13A or mode == MODE_ZH:
        k = spans_13a(text, len(text), starts, ends, k0, wa, wb, mode == MODE_13A, ts, te, tsplit, pad)
        if k >= 0:
            span_keys(text, starts, ends, k0, k, key_mask, ka, kb, taddr)
        elif k == -1:  # step 1 of 13a may change this text: rewrite it into scratch first
            m = rewrite(text, ra[used:], pad)
            src = ra[used:used + m]
            used += m
            k = spans_13a(src, m, starts, ends, k0, wa, wb, False, ts, te, tsplit, pad)
            if k >= 0:
                span_keys(src, starts, ends, k0, k, key_mask, ka, kb, taddr)
        if k < 0:  # -3 - L: a word of L bytes that R2-R4 replay does not fit wa/wb
            room = -3 - k
            k = k0
    else:
        k = spans_whitespace(text, len(text), mode == MODE_CHAR, starts, ends, k0, pad)
        span_keys(text, starts, ends, k0, k, key_mask, ka, kb, taddr)
    return k, used, room


@jit(inline=True)
def _chunk_counts(addrs, lens, ref_ptr, mode, max_order, key_mask, todo, lo, hi, lengths, correct, again, scratch,
                  cached, key_off, cka, ckb, ctaddr, clen):
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
        _prefetch_pair(addrs, lens, n_pairs, ref_ptr, todo[i], cached)
    for i in range(lo, hi):
        p = todo[i]
        if i + _AHEAD < hi:
            _prefetch_pair(addrs, lens, n_pairs, ref_ptr, todo[i + _AHEAD], cached)
        q0 = ref_ptr[p]
        n_in = 1 + ref_ptr[p + 1] - q0
        k = 0
        used = 0  # bytes of ra taken by the pair's rewritten texts
        toff[0] = 0
        short = True
        room = 0  # the longest R2-R4 word that did not fit wa/wb
        for t in range(n_in):
            row = p if t == 0 else n_pairs + q0 + t - 1
            k0 = k
            if cached and t > 0:  # the reference's keys, as _text_keys gave them when they were cached
                c0 = key_off[q0 + t - 1]
                k = k0 + key_off[q0 + t] - c0
                for x in range(k0, k):
                    ka[x] = cka[c0 + x - k0]
                    kb[x] = ckb[c0 + x - k0]
                    taddr[x] = ctaddr[c0 + x - k0]
                    starts[x] = 0
                    ends[x] = clen[c0 + x - k0]
            else:
                text = text_at(addrs[row], _rstrip(text_at(addrs[row], lens[row])))
                k, used, wide = _text_keys(text, mode, key_mask, k0, starts, ends, ka, kb, taddr, wa, wb, ts, te,
                                           tsplit, ra, used, pad)
                room = max(room, wide)
            toff[t + 1] = k
            lengths[row] = k - k0
            short = short and k - k0 <= _WORD_BITS
        if room > 0 or (not short and toff[1] + 1 > len(keys_of) - 1):
            again[p, 0] = room
            again[p, 1] = toff[1] + 1 if toff[1] + 1 > len(keys_of) - 1 else 0
            continue
        if short and max_order == 4:  # the usual order, as a constant: the loops over orders unroll
            clip_bits(ka, kb, taddr, starts, ends, toff, n_in, 4, correct[p], h1, d1, best)
        elif short:
            clip_bits(ka, kb, taddr, starts, ends, toff, n_in, max_order, correct[p], h1, d1, best)
        else:
            # the token table holds the hypothesis's distinct tokens, the n-gram table its n-grams
            bits = table_bits(min(toff[1] + 1, _hyp_distinct(lens[p])))
            shift = 64 - bits
            mask = (1 << bits) - 1
            n_hyp_vocab = intern_keys(ka, kb, taddr, starts, ends, 0, toff[1], True, shift, mask, tab, slot_of,
                                       first, ids, 0)
            intern_keys(ka, kb, taddr, starts, ends, toff[1], k, False, shift, mask, tab, slot_of, first, ids,
                         n_hyp_vocab)
            for v in range(n_hyp_vocab):  # free the pair's slots
                tab[slot_of[v] + 1] = FREE
            gbits = table_bits(toff[1] + 1)
            clip_orders(ids, toff, n_in, n_hyp_vocab, max_order, p, correct[p], dense, keys_of, live, n_live,
                         64 - gbits, (1 << gbits) - 1, gkey, gid_of, gstamp, hcnt, rcnt, rmax)
