"""Numba kernels for ROUGE-L (LCS length) and ROUGE-Lsum (summary-level union LCS).

The ragged layout of texts, sentences and pairs is :mod:`vecscore.kernels.lcs_pairs`'s.

Kernels
-------
:func:`lcs_length_pairs`
    LCS length of two whole token sequences (rouge-score ``rougeL``:
    ``P = lcs / n_hyp``, ``R = lcs / n_ref``).  Bit-parallel (Allison-Dix /
    Hyyro) over ``ceil(m / 64)`` 64-bit words, ``m`` = the shorter length,
    taken 8 words at a time with the carries between words found by
    carry-lookahead (no serial add-with-carry chain): ``O(n * ceil(m / 64))``
    time, ``O(m)`` memory per pair plus one match-mask table bounded to ~32 MB
    (every symbol of the shorter text gets a dense row while they fit 4 MB;
    past that, the symbols occurring at least a threshold number of times do,
    about 8 or however many keep the table within its bound, and rarer ones
    set their bits on the fly from sorted positions), plus an ``O(vocab_size)``
    scratch per chunk.

Summary-level union LCS (rougeLsum, ROUGE-1.5.5 ROUGE-L): :mod:`vecscore.kernels.union_lcs`.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import DISABLED, ir_helper, jit, prange
from vecscore.kernels.lcs_pairs import token_pairs
from vecscore.kernels.swar import FAST
from vecscore.kernels.swar import popcount as _popcount
from vecscore.memory import CHUNK_FAILED

__all__ = ["lcs_length_pairs"]

#: Words (uint64) of the dense match-mask table allowed per long pair (32 MB).
DENSE_BUDGET_WORDS = 1 << 22
#: Up to this many table words (4 MB), every symbol of the shorter text gets a dense row.
ALL_DENSE_WORDS = 1 << 19
#: Past :data:`ALL_DENSE_WORDS`, the table holds rows for at least the symbols occurring this
#: many times (within :data:`DENSE_BUDGET_WORDS`); rarer symbols set their row's bits on the fly.
DENSE_COUNT = 8

_ONE = np.uint64(1)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_BYTE = np.uint64(0xFF)


# --------------------------------------------------------------------------------------
# One row of the bit-parallel recurrence, 8 words (a group) at a time
#
# V' = (V + U) | (V & ~U) with U = V & M, over W words, is an addition with carries
# between words.  Rather than a serial carry chain (one dependent add-with-carry per
# word), each group of 8 words is added without carries, noting per word whether its
# sum overflowed (it generates a carry) or is all ones (it passes an incoming carry
# on); the carry into every word then comes from one integer addition over those bits
# (carry-lookahead: with g and p bits per word, ((g | p) + g) ^ p), and a second pass
# adds them; a row's second pass runs in the same loop as the next row's first.  Both
# are a few vector instructions per group: small pieces of LLVM IR on 8 x 64 bits
# (lowered to whatever vector instructions the CPU has), or, with the fast path off
# (VECSCORE_FAST_PATH=0) or without the JIT, their twins as plain loops.  State and
# match-mask rows live in one uint64 array, their groups 8 words apart, never overlapping.
# --------------------------------------------------------------------------------------


_group_gp = ir_helper("group_gp")
_group_add_gp = ir_helper("group_add_gp")


@jit(inline=True)
def group_gp_ir(X, vo, mo):
    """For words ``j < 8`` of ``V = X[vo:]`` and ``M = X[mo:]``, with ``s = V + (V & M)`` (no
    carries): bit ``j``, ``s`` overflowed; bit ``8 + j``, ``s`` is all ones."""
    base = np.int64(X.ctypes.data)
    return _group_gp(base + 8 * vo, base + 8 * mo)


@jit(inline=True)
def group_add_gp_ir(X, vo, mo, carries, no):
    """``V = (V + U + c) | (V & ~U)`` with ``U = V & M`` on words ``j < 8`` of ``V = X[vo:]`` and
    ``M = X[mo:]``, ``c`` bit ``j`` of ``carries``; then :func:`group_gp_ir` of the new ``V`` with
    ``X[no:]``."""
    base = np.int64(X.ctypes.data)
    return _group_add_gp(base + 8 * vo, base + 8 * mo, carries, base + 8 * no)


@jit(inline=True)
def group_gp_loop(X, vo, mo):
    """:func:`group_gp_ir` as a plain loop over the 8 words."""
    out = np.uint64(0)
    for j in range(8):
        v = X[vo + j]
        s = v + (v & X[mo + j])
        if s < v:
            out |= _ONE << np.uint64(j)
        if s == _ALL:
            out |= _ONE << np.uint64(8 + j)
    return out


@jit(inline=True)
def group_add_gp_loop(X, vo, mo, carries, no):
    """:func:`group_add_gp_ir` as a plain loop over the 8 words."""
    for j in range(8):
        v = X[vo + j]
        u = v & X[mo + j]
        X[vo + j] = (v + u + ((carries >> np.uint64(j)) & _ONE)) | (v & ~u)
    return group_gp_loop(X, vo, no)


if DISABLED or not FAST:
    group_gp, group_add_gp = group_gp_loop, group_add_gp_loop
else:
    group_gp, group_add_gp = group_gp_ir, group_add_gp_ir


@jit(inline=True)
def _carries(g, p, cin):
    """Carry-lookahead over 64 words' generate and propagate bits ``g`` and ``p`` with a carry
    ``cin`` into the first: ``(the carry into each word, the carry out of the last)``."""
    x = g | p
    t = x + g
    t2 = t + cin
    return t2 ^ p, np.uint64(t < x) | np.uint64(t2 < t)


@jit(inline=True)
def _rows(X, vo, po, carries, mo, groups, out):
    """Steps of the recurrence on the state ``V = X[vo:]`` (``8 * groups`` words): finish the
    pending row ``X[po:]`` (its carries in ``carries``, none if ``po < 0``), then the first pass
    of the row ``X[mo:]``, whose carries go to ``out``."""
    cin = np.uint64(0)
    for blk in range((groups + 7) >> 3):
        k0 = 8 * blk
        g = np.uint64(0)
        p = np.uint64(0)
        if po >= 0:
            c = carries[blk]
            for k in range(min(8, groups - k0)):
                o = 8 * (k0 + k)
                sh = np.uint64(8 * k)
                gp = group_add_gp(X, vo + o, po + o, c >> sh, mo + o)
                g |= (gp & _BYTE) << sh
                p |= (gp >> np.uint64(8)) << sh
        else:
            for k in range(min(8, groups - k0)):
                o = 8 * (k0 + k)
                sh = np.uint64(8 * k)
                gp = group_gp(X, vo + o, mo + o)
                g |= (gp & _BYTE) << sh
                p |= (gp >> np.uint64(8)) << sh
        out[blk], cin = _carries(g, p, cin)


# --------------------------------------------------------------------------------------
# LCS length of one pair
# --------------------------------------------------------------------------------------


@jit
def lcs_short(a, b, mask1):
    """LCS of ``a`` and ``b`` with ``len(b) <= 64``; ``mask1`` is an all-zero
    ``vocab_size`` uint64 scratch, left all-zero on return."""
    m = len(b)
    for j in range(m):
        mask1[b[j]] |= np.uint64(1) << np.uint64(j)
    V = np.uint64(0xFFFFFFFFFFFFFFFF)
    for i in range(len(a)):
        u = V & mask1[a[i]]
        V = (V + u) | (V & ~u)
    for j in range(m):
        mask1[b[j]] = np.uint64(0)
    if m == 64:
        low = V
    else:
        low = V & ((np.uint64(1) << np.uint64(m)) - np.uint64(1))
    return m - _popcount(low)


@jit
def lcs_long_words(m):
    """``(items, words)``: the int64 and uint64 scratch :func:`lcs_long_into` needs for a
    shorter text of up to ``m`` tokens: six arrays of ``m + 1`` items (ranks, counts, dense
    rows, bucket starts and fills, positions), and the dense match-mask table plus five rows
    (the state, two rows set on the fly, two of carries), each row ``ceil(m / 64)`` words
    rounded up to a whole group of 8.  The table holds every symbol's row while that fits
    :data:`ALL_DENSE_WORDS`, and rows for symbols occurring :data:`DENSE_COUNT` times or more
    within :data:`DENSE_BUDGET_WORDS`.  Its ``py_func`` takes int arrays too."""
    w = ((m + 63) // 64 + 7) // 8 * 8
    table = np.maximum(np.minimum(ALL_DENSE_WORDS, m * w), np.minimum(DENSE_BUDGET_WORDS, (m // DENSE_COUNT) * w))
    return 6 * (m + 1), table + 5 * w


@jit
def _lcs_long(a, b, slot):
    """LCS of ``a`` and ``b`` for any ``len(b)`` (:func:`lcs_long_into` with its scratch allocated here)."""
    items, words = lcs_long_words(len(b))
    return lcs_long_into(a, b, slot, np.empty(items, np.int64), np.empty(words, np.uint64))


@jit
def lcs_long_into(a, b, slot, items, words):
    """LCS of ``a`` and ``b`` for any ``len(b)``, bit-parallel over ``ceil(len(b) / 64)`` words.

    Each token of ``a`` that occurs in ``b`` takes one step of the recurrence over the
    words, 8 at a time (:func:`_rows`; other tokens leave the state unchanged).
    ``slot`` is an all ``-1`` int64 scratch of ``vocab_size`` entries mapping a
    symbol to its local rank in ``b``; it is restored to all ``-1`` on return.
    ``items`` (int64) and ``words`` (uint64) are scratch of at least the sizes
    :func:`lcs_long_words` gives for ``len(b)``; nothing is allocated here.
    """
    m = len(b)
    W = (m + 63) // 64
    R = ((m + 63) // 64 + 7) // 8 * 8  # words of a row, whole groups of 8
    groups = R // 8
    syms = items[0:m]
    cnt = items[m:2 * m]
    d = 0
    for j in range(m):
        s = b[j]
        r = slot[s]
        if r < 0:
            slot[s] = d
            syms[d] = s
            cnt[d] = 0
            r = d
            d += 1
        cnt[r] += 1
    # dense rows for every symbol if they fit the table, else for the frequent ones
    cap = max(lcs_long_words(m)[1] - 5 * R, 1)  # words of the table
    thresh = 0 if d * R <= cap else (m * R + cap - 1) // cap  # at most m / thresh rows then
    dense_row = items[2 * m:3 * m]
    nd = 0
    for r in range(d):
        if cnt[r] >= thresh:
            dense_row[r] = nd
            nd += 1
        else:
            dense_row[r] = -1
    table = words[0:nd * R]
    table[:] = 0
    start = items[3 * m:4 * m + 1]
    pos = items[5 * m + 1:6 * m + 1]
    if nd == d:
        for j in range(m):
            r = slot[b[j]]
            table[r * R + (j >> 6)] |= np.uint64(1) << np.uint64(j & 63)
    else:
        # counting sort of the positions of the sparse symbols by rank
        start[0] = 0
        for r in range(d):
            start[r + 1] = start[r] + (cnt[r] if dense_row[r] < 0 else 0)
        fill = items[4 * m + 1:5 * m + 1]
        for r in range(d):
            fill[r] = start[r]
        for j in range(m):
            r = slot[b[j]]
            dr = dense_row[r]
            if dr >= 0:
                table[dr * R + (j >> 6)] |= np.uint64(1) << np.uint64(j & 63)
            else:
                pos[fill[r]] = j
                fill[r] += 1
    # the state, two rows set on the fly, carries: words[vo:], past the table
    vo = nd * R
    words[vo:vo + R] = _ALL  # bits past m stay all ones: they only pass carries on
    spare = (vo + R, vo + 2 * R)
    words[vo + R:vo + 3 * R] = 0
    carries = words[vo + 3 * R:vo + 4 * R]
    nxt = words[vo + 4 * R:vo + 5 * R]
    # a row's second pass runs with the next row's first (_rows): po is the pending row, pr its rank
    po = -1
    pr = 0
    for i in range(len(a)):
        x = a[i]
        if x >= len(slot):
            continue
        r = slot[x]
        if r < 0:
            continue  # no match: V is unchanged
        dr = dense_row[r]
        if dr >= 0:
            mo = dr * R
        else:
            mo = spare[1] if po == spare[0] else spare[0]
            for q in range(start[r], start[r + 1]):
                j = pos[q]
                words[mo + (j >> 6)] |= np.uint64(1) << np.uint64(j & 63)
        _rows(words, vo, po, carries, mo, groups, nxt)
        carries, nxt = nxt, carries
        if po >= 0 and dense_row[pr] < 0:
            for q in range(start[pr], start[pr + 1]):
                words[po + (pos[q] >> 6)] = np.uint64(0)
        po = mo
        pr = r
    if po >= 0:  # the last row's second pass
        for k in range(groups):
            group_add_gp(words, vo + 8 * k, po + 8 * k, carries[k >> 3] >> np.uint64(8 * (k & 7)), po + 8 * k)
    V = words[vo:vo + R]
    for r in range(d):
        slot[syms[r]] = -1
    ones = 0
    for w in range(W - 1):
        ones += _popcount(V[w])
    tail = m - 64 * (W - 1)
    if tail == 64:
        ones += _popcount(V[W - 1])
    else:
        ones += _popcount(V[W - 1] & ((np.uint64(1) << np.uint64(tail)) - np.uint64(1)))
    return m - ones


@jit(inline=True)
def lcs_trimmed_into(a, b, mask1, slot, items, words):
    """LCS of ``a`` and ``b`` (any lengths) with their common prefix and suffix taken off first.

    Exact: a common first (or last) token is in some longest common
    subsequence, so ``LCS(p + x + s, p + y + s) = |p| + |s| + LCS(x, y)``;
    the prefix and suffix are matched without overlapping.  The rest runs
    :func:`lcs_short` (its shorter side of at most 64 tokens) or
    :func:`lcs_long_into`, with their scratch: ``mask1`` and ``slot`` (all
    zero and all ``-1``, restored), ``items`` and ``words`` of the sizes
    :func:`lcs_long_words` gives for ``min(len(a), len(b))``.
    """
    n = min(len(a), len(b))
    p = 0
    while p < n and a[p] == b[p]:
        p += 1
    s = 0
    la = len(a) - 1
    lb = len(b) - 1
    while s < n - p and a[la - s] == b[lb - s]:
        s += 1
    x = a[p:len(a) - s]
    y = b[p:len(b) - s]
    if len(x) < len(y):
        x, y = y, x  # y (the bit pattern) is the shorter one
    if len(y) == 0:
        return p + s
    if len(y) <= 64:
        return p + s + lcs_short(x, y, mask1)
    return p + s + lcs_long_into(x, y, slot, items, words)


@jit(parallel=True)
def _lcs_length_pairs(a_ids, a_off, b_ids, b_off, a_rows, b_rows, vocab_size, n_chunks):
    k = len(a_rows)
    out = np.zeros(k, np.int64)
    failed = np.zeros(n_chunks, np.bool_)
    for c in prange(n_chunks):
        failed[c] = not _lcs_chunk(a_ids, a_off, b_ids, b_off, a_rows, b_rows, vocab_size, n_chunks, c, out)
    if failed.any():
        raise MemoryError(CHUNK_FAILED)
    return out


@jit
def _lcs_chunk(a_ids, a_off, b_ids, b_off, a_rows, b_rows, vocab_size, n_chunks, c, out):
    """The pairs of chunk ``c`` of :func:`_lcs_length_pairs`; False if its scratch could not be allocated
    (an exception inside a parallel loop would be lost)."""
    try:
        _lcs_chunk_body(a_ids, a_off, b_ids, b_off, a_rows, b_rows, vocab_size, n_chunks, c, out)
    except Exception:
        return False
    return True


@jit
def _lcs_chunk_body(a_ids, a_off, b_ids, b_off, a_rows, b_rows, vocab_size, n_chunks, c, out):
    """The work of :func:`_lcs_chunk` (no ``try`` here: numba compiles a try block holding
    loops badly, so the caller wraps the call)."""
    k = len(a_rows)
    lo = c * k // n_chunks
    hi = (c + 1) * k // n_chunks
    mask1 = np.zeros(vocab_size, np.uint64)
    slot = np.empty(0, np.int64)
    for p in range(lo, hi):
        x = a_ids[a_off[a_rows[p]]:a_off[a_rows[p] + 1]]
        y = b_ids[b_off[b_rows[p]]:b_off[b_rows[p] + 1]]
        if len(x) < len(y):
            x, y = y, x  # y (the bit pattern) is the shorter one
        if len(y) == 0:
            out[p] = 0
        elif len(y) <= 64:
            out[p] = lcs_short(x, y, mask1)
        else:
            if len(slot) == 0:
                slot = np.full(vocab_size, -1, np.int64)
            out[p] = _lcs_long(x, y, slot)


def lcs_length_pairs(hyp_ids, hyp_offsets, ref_ids, ref_offsets, hyp_rows, ref_rows, *,
                     vocab_size=None, n_chunks=None):
    """LCS length of each (hypothesis, reference) pair of whole token sequences.

    Parameters
    ----------
    hyp_ids, hyp_offsets : array_like of int
        Ragged hypothesis batch: text ``i`` is ``hyp_ids[hyp_offsets[i]:hyp_offsets[i+1]]``.
    ref_ids, ref_offsets : array_like of int
        Ragged reference batch, same layout (may be the same arrays as the hypotheses).
    hyp_rows, ref_rows : array_like of int
        The ``k`` pairs to score.
    vocab_size : int, optional
        Exclusive upper bound of the ids; default ``max id + 1``.
    n_chunks : int, optional
        Work chunks for the parallel loop (results never depend on it).

    Returns
    -------
    numpy.ndarray
        int64, shape ``(k,)``: ``LCS(hyp, ref)``.  rouge-score ``rougeL`` is
        ``P = lcs / len(hyp)``, ``R = lcs / len(ref)``.

    Examples
    --------
    >>> import numpy as np
    >>> ids = np.array([1, 2, 3, 4, 2, 4, 3], np.int64)
    >>> off = np.array([0, 4, 7], np.int64)
    >>> lcs_length_pairs(ids, off, ids, off, [0], [1]).tolist()
    [2]
    """
    args = token_pairs(hyp_ids, hyp_offsets, ref_ids, ref_offsets, hyp_rows, ref_rows, vocab_size, n_chunks)
    return _lcs_length_pairs(*args) if args[-1] else np.zeros(0, np.int64)
