"""chrF / chrF++ kernels: integer match statistics of every (hypothesis, reference) pair.

Texts arrive as rows of code points read where they lie
(:mod:`vecscore.kernels.in_place`): row ``t`` is ``lens[t]`` code points of
``widths[t]`` bytes each (1, 2 or 4: CPython's kinds, or UTF-32 for text
encoded in Python) at address ``addrs[t]``, hypotheses first, then every
pair's references (pair ``i``'s are rows ``n_pairs + ref_ptr[i] .. n_pairs + ref_ptr[i + 1]``).
Lowercasing, when asked for, was done in Python.  The kernels read exactly
those ``lens[t] * widths[t]`` bytes of a row, never past them; the caller
keeps the strings (or the encoded buffer) alive for the call
(:func:`vecscore.chrf.compiled.text_rows`; ``VECSCORE_FAST_PATH=0`` encodes
every text instead of reading strings in place).

:func:`pair_stats` runs over the pairs in a ``prange`` loop whose threads
claim chunks of pairs (:func:`vecscore.kernels.swar.claim`); per pair, with
one thread's scratch:

1. :func:`vecscore.kernels.chrf_text.load` reads each text once: its characters for the character
   n-grams (whitespace removed unless asked to keep it), each character's
   pair-local id (the hypothesis's distinct characters are numbered
   ``1..V`` through a table indexed by code point; a reference character
   the hypothesis lacks gets id 0: no n-gram holding it can match), and, for
   chrF++, its word tokens (whitespace-separated words, a leading or
   trailing ASCII punctuation mark split off a word longer than one
   character, the trailing one first), as spans of those characters;
2. for chrF++, word tokens get pair-local ids the same way, through a hash
   table of their FNV hashes (computed while reading), equal hashes
   confirmed by comparing code points;
3. :func:`_orders` counts orders ``1..K`` exactly.  An order-``n`` n-gram at
   position ``p`` is the pair (id of the ``(n-1)``-gram at ``p``, id of the
   unit at ``p + n - 1``), numbered afresh (from 1) at each order from the
   hypothesis's n-grams: through a directly indexed uint16 table while the key
   ``id * (V + 1) + unit`` stays within :data:`DENSE` (zero between orders:
   the hypothesis's keys are cleared after each), else through a hash
   table of exact keys.  Only n-grams whose prefix occurs in both the hypothesis and
   a reference are extended to the next order (no other can match).  Per
   order the statistics are ``[hypothesis n-grams, reference n-grams,
   clipped matches]``; the hypothesis count is 0 when the reference has no
   n-gram of that order (sacreBLEU's rule).  The loops have no branch on
   whether an n-gram was found: a reference n-gram the hypothesis lacks
   has id 0, whose hypothesis count is 0 (no select, which LLVM may turn
   into a mispredicted branch);
4. :func:`f_score` scores every reference's row as sacreBLEU does, and the
   first reference with the highest chrF is the pair's best.

Indices that cannot be negative are made unsigned (:func:`vecscore.kernels.chrf_text.unsigned`), so that
numba drops its wraparound of negative indices in the inner loops.  The
code point and hash tables are stamped (an entry is live only while it holds
the current stamp), so they are not cleared between pairs or orders; the
small per-id arrays are cleared for the ids in use.  A lone surrogate
(not valid Unicode: the caller refuses it, naming the row) sets ``bad[0]``.

Every kernel is plain Python first (``NUMBA_DISABLE_JIT=1`` or ``.py_func``);
its plain twin is :mod:`vecscore.chrf.plain` (``Counter``s), which the tests
compare it with.  Nothing here imports vecscore above :mod:`vecscore.kernels`.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange
from vecscore.kernels.chrf_text import (
    AHEAD,
    GOLD,
    LOW32,
    STAMP_MAX,
    load,
    unsigned,
)
from vecscore.kernels.ngrams import table_bits
from vecscore.kernels.swar import borrow, claim, prefetch

__all__ = ["pair_stats", "f_score"]


@jit(inline=True)
def _word_id(cb, s, e, h64, insert, g, stamp, shift, mask, hkey, hval, hhash):
    """The pair-local id of the token ``cb[s:e]`` whose FNV hash is ``h64``: numbered from ``g`` if new
    and ``insert`` (the hypothesis), -1 if new otherwise.  Returns ``(id, new g)``."""
    umask = np.uint64(mask)
    slot = (h64 * GOLD) >> shift
    hs = np.int64(h64)
    while True:
        v = hval[slot]
        if (v >> 32) != stamp:
            if not insert:
                return -1, g
            hval[slot] = (stamp << 32) | g
            hkey[slot] = np.int64(s) | (np.int64(e) << 32)
            hhash[slot] = hs
            return g, g + 1
        if hhash[slot] == hs:
            o = hkey[slot]
            os_ = o & LOW32
            oe = o >> 32
            if oe - os_ == e - s:
                same = True
                for q in range(e - s):
                    if cb[unsigned(os_ + q)] != cb[unsigned(s + q)]:
                        same = False
                        break
                if same:
                    return v & LOW32, g
        slot = (slot + np.uint64(1)) & umask


@jit(inline=True)
def _hashed_id(key, insert, g, stamp, shift, mask, hkey, hval):
    """The 1-based id of an n-gram's exact key through the hash table: numbered ``g + 1`` if new and
    ``insert`` (the hypothesis), 0 if new otherwise (no hypothesis n-gram).  Returns ``(id, new g)``."""
    umask = np.uint64(mask)
    slot = (np.uint64(key) * GOLD) >> shift
    while True:
        v = hval[slot]
        if (v >> 32) != stamp:
            if not insert:
                return 0, g
            hval[slot] = (stamp << 32) | (g + 1)
            hkey[slot] = key
            return g + 1, g + 1
        if hkey[slot] == key:
            return v & LOW32, g
        slot = (slot + np.uint64(1)) & umask


@jit(inline=True)
def _ref_order(ids, s, npos_j, end, n, width, pos, pid, hcnt, use, seen, dense, dense_ok, g, stamp, shift, mask,
               hkey, hval):
    """One reference's order-``n`` n-grams at its kept positions ``pos[s:s + npos_j]``: clipped matches
    against the hypothesis's counts ``hcnt`` (``use``: this reference's uses, zero), ``seen`` marked,
    and the positions whose n-gram the hypothesis has kept.  Returns ``(matches, kept)``.  No branch on
    the data: an n-gram the hypothesis lacks has id 0 and is dropped.  Looking up and clipping are two
    loops, so that no read-modify-write waits on a table lookup for its address."""
    k = s
    m = 0
    for q in range(s, s + npos_j):
        p = pos[unsigned(q)]
        if p + n > end:
            break  # positions ascend: every later one is past the end too
        key = pid[unsigned(q)] * width + ids[np.uint64(p + n - 1)]
        if dense_ok:
            x = np.int64(dense[np.uint64(key)])
        else:
            x, _ = _hashed_id(key, False, g, stamp, shift, mask, hkey, hval)
        pos[unsigned(k)] = p
        pid[unsigned(k)] = x
        k += x != 0
    # clipped apart, over the kept n-grams only (the others have count 0): no update here waits on the
    # table's loads for its address
    for q in range(s, k):
        x = pid[unsigned(q)]
        u = use[unsigned(x)]
        hit = np.int64(u < hcnt[unsigned(x)])
        use[unsigned(x)] = u + hit
        m += hit
        seen[unsigned(x)] = 1
    return m, k - s


@jit
def _orders(ids, ustart, ulen, n_texts, nv, max_order, pos, pid, npos, hcnt, use, seen, hkeys, dense, hkey, hval,
            bits, stamp, out, row0, col0):
    """Statistics of orders ``1..max_order`` of one pair's unit ids; returns the last stamp used.

    Text ``j`` (0: the hypothesis, then the references) has the unit ids
    ``ids[ustart[j]:ustart[j] + ulen[j]]``: the hypothesis's are ``1..nv``,
    a reference's are those or 0 (a unit the hypothesis lacks).
    Reference ``j`` writes row ``row0 + j - 1`` of ``out``, columns
    ``col0 + 3 * (n - 1) + (0, 1, 2)`` for order ``n``.

    Each text keeps the list of its positions whose n-gram is shared
    (``pos``, with that n-gram's id in ``pid``, from ``ustart[j]``,
    ``npos[j]`` of them); only those are extended to the next order.
    Per id of the current order (1-based; 0 stands for every n-gram the
    hypothesis lacks, with count 0, so that the loops need no branch on
    whether an n-gram was found): ``hcnt`` the hypothesis's count, ``use``
    the current reference's clipped uses, ``seen`` 1 once a reference has
    it.  ``dense`` (zero outside this call) numbers an order's n-grams by
    their key while the keys stay small, and is cleared again through the
    hypothesis's keys (``hkeys``); larger keys go through the stamped hash
    table ``hkey``/``hval``.
    """
    hs = ustart[0]
    hl = ulen[0]
    for n in range(1, max_order + 1):
        col = col0 + 3 * (n - 1)
        n_hyp = max(hl - n + 1, 0)
        for j in range(1, n_texts):
            n_ref = max(ulen[j] - n + 1, 0)
            out[row0 + j - 1, col] = n_hyp if n_ref > 0 else 0
            out[row0 + j - 1, col + 1] = n_ref
    if max_order == 0:
        return stamp
    # order 1: the ids themselves
    for c in range(nv + 1):
        hcnt[c] = 0
        seen[c] = 0
    for q in range(hs, hs + hl):
        hcnt[unsigned(ids[unsigned(q)])] += 1
    for j in range(1, n_texts):
        for c in range(nv + 1):
            use[c] = 0
        s = ustart[j]
        k = s
        m = 0
        for q in range(s, s + ulen[j]):
            c = ids[unsigned(q)]
            u = use[unsigned(c)]
            hit = np.int64(u < hcnt[unsigned(c)])
            use[unsigned(c)] = u + hit
            m += hit
            seen[unsigned(c)] = 1
            pos[unsigned(k)] = q  # branch-free compaction: written always, kept if shared
            pid[unsigned(k)] = c
            k += c != 0
        npos[j] = k - s
        out[row0 + j - 1, col0 + 2] = m
    k = hs
    for q in range(hs, hs + hl):
        c = ids[unsigned(q)]
        pos[unsigned(k)] = q
        pid[unsigned(k)] = c
        k += seen[unsigned(c)]
    npos[0] = k - hs
    width = np.int64(nv + 1)  # unit ids are below this
    g_prev = np.int64(nv)  # ids of the previous order's n-grams are at most this
    mask = (1 << bits) - 1
    shift = np.uint64(64 - bits)
    for n in range(2, max_order + 1):
        if npos[0] == 0:
            break  # nothing shared: no match at this order or any above
        col = col0 + 3 * (n - 1)
        stamp += 1
        dense_ok = (g_prev + 1) * width <= len(dense)  # keys are below this
        # the hypothesis's n-grams that can still be shared, numbered from 1
        end = hs + hl
        for x in range(npos[0] + 1):  # the ids to come are at most the positions
            hcnt[x] = 0
            seen[x] = 0
        g = 0
        k = hs
        if dense_ok:
            for q in range(hs, hs + npos[0]):
                p = pos[unsigned(q)]
                if p + n > end:
                    break
                key = pid[unsigned(q)] * width + ids[np.uint64(p + n - 1)]
                hkeys[unsigned(k - hs)] = key
                v = np.int64(dense[np.uint64(key)])
                new = np.int64(v == 0)
                g += new
                x = v | (g & -new)  # v is 0 when new
                dense[np.uint64(key)] = x
                pos[unsigned(k)] = p
                pid[unsigned(k)] = x
                k += 1
            for q in range(hs, k):  # counted apart: no update whose address waits on the table's loads
                hcnt[unsigned(pid[unsigned(q)])] += 1
        else:
            for q in range(hs, hs + npos[0]):
                p = pos[unsigned(q)]
                if p + n > end:
                    break
                key = pid[unsigned(q)] * width + ids[np.uint64(p + n - 1)]
                x, g = _hashed_id(key, True, g, stamp, shift, mask, hkey, hval)
                hcnt[np.uint64(x)] += 1
                pos[unsigned(k)] = p
                pid[unsigned(k)] = x
                k += 1
        n_h = k - hs
        # every reference's: look up, clip, keep the shared positions
        for j in range(1, n_texts):
            s = ustart[j]
            m = 0
            kept = 0
            if n_h > 0:
                for x in range(g + 1):
                    use[x] = 0
                m, kept = _ref_order(ids, s, npos[j], s + ulen[j], n, width, pos, pid, hcnt, use, seen, dense,
                                     dense_ok, g, stamp, shift, mask, hkey, hval)
            npos[j] = kept
            out[row0 + j - 1, col + 2] = m
        # keep the hypothesis's shared positions (and clear its keys from ``dense``)
        k = hs
        if dense_ok:
            for q in range(hs, hs + n_h):
                dense[np.uint64(hkeys[unsigned(q - hs)])] = 0
                x = pid[unsigned(q)]
                pos[unsigned(k)] = pos[unsigned(q)]
                pid[unsigned(k)] = x
                k += seen[np.uint64(x)]
        else:
            for q in range(hs, hs + n_h):
                x = pid[unsigned(q)]
                pos[unsigned(k)] = pos[unsigned(q)]
                pid[unsigned(k)] = x
                k += seen[np.uint64(x)]
        npos[0] = k - hs
        g_prev = g
    return stamp


@jit
def _pair(i, addrs, lens, widths, n_pairs, ref_ptr, char_order, word_order, keep_space, ws, punct, out, cb, ids, pos,
          pid, tok_s, tok_e, wid, w_h, w_p, tok_h, hcnt, use, seen, hkeys, ctab, dense, hkey, hval, hhash, cstart, clen,
          tstart, tlen, npos, stamp):
    """The statistics of pair ``i`` into its rows of ``out``; returns ``(last stamp used, 1 if a lone surrogate)``."""
    n_texts = ref_ptr[i + 1] - ref_ptr[i] + 1
    row0 = ref_ptr[i]
    words = word_order > 0
    stamp += 1
    k = 0
    t = 0
    nv = 0
    bad = 0
    for j in range(n_texts):
        r = i if j == 0 else n_pairs + row0 + j - 1
        cstart[j] = k
        tstart[j] = t
        # pos/pid are free until the orders: the words' bounds go there
        if char_order == 0:
            k, t, nv, b = load(addrs[r], lens[r], widths[r], keep_space, words, 0, ws, punct, cb, ids, k, pos, pid,
                                w_h, w_p, tok_s, tok_e, tok_h, t, ctab, stamp, nv)
        elif j == 0:
            k, t, nv, b = load(addrs[r], lens[r], widths[r], keep_space, words, 1, ws, punct, cb, ids, k, pos, pid,
                                w_h, w_p, tok_s, tok_e, tok_h, t, ctab, stamp, nv)
        else:
            k, t, nv, b = load(addrs[r], lens[r], widths[r], keep_space, words, 2, ws, punct, cb, ids, k, pos, pid,
                                w_h, w_p, tok_s, tok_e, tok_h, t, ctab, stamp, nv)
        bad |= b
        clen[j] = k - cstart[j]
        tlen[j] = t - tstart[j]
    if char_order > 0:
        stamp = _orders(ids, cstart, clen, n_texts, nv, char_order, pos, pid, npos, hcnt, use, seen, hkeys, dense,
                        hkey, hval, table_bits(clen[0]), stamp, out, row0, 0)
    if words:
        stamp += 1
        bits = table_bits(tlen[0])
        mask = (1 << bits) - 1
        shift = np.uint64(64 - bits)
        g = 0
        for j in range(n_texts):
            insert = j == 0
            for q in range(tstart[j], tstart[j] + tlen[j]):
                x, g = _word_id(cb, tok_s[q], tok_e[q], np.uint64(tok_h[q]), insert, g, stamp, shift, mask, hkey, hval,
                                hhash)
                wid[q] = x + 1  # 1-based; 0: a word the hypothesis lacks
        stamp = _orders(wid, tstart, tlen, n_texts, g, word_order, pos, pid, npos, hcnt, use, seen, hkeys, dense,
                        hkey, hval, bits, stamp, out, row0, 3 * char_order)
    return stamp, bad


@jit
def f_score(out, row, order, factor, eps_smoothing):
    """sacreBLEU's ``CHRF._compute_f_score`` of ``out[row]`` (``order`` orders), the same float operations
    in the same order (so the same bits; ``factor`` is ``beta ** 2`` as Python computes it)."""
    eps = 1e-16
    score = 0.0
    effective = 0
    avg_prec = 0.0
    avg_rec = 0.0
    for i in range(order):
        n_hyp = out[row, 3 * i]
        n_ref = out[row, 3 * i + 1]
        n_match = out[row, 3 * i + 2]
        prec = n_match / n_hyp if n_hyp > 0 else eps
        rec = n_match / n_ref if n_ref > 0 else eps
        denom = factor * prec + rec
        score += ((1 + factor) * prec * rec / denom) if denom > 0 else eps
        if n_hyp > 0 and n_ref > 0:
            avg_prec += prec
            avg_rec += rec
            effective += 1
    if eps_smoothing:
        return 100 * score / order
    if effective == 0:
        avg_prec = 0.0
        avg_rec = 0.0
    else:
        avg_prec /= effective
        avg_rec /= effective
    if avg_prec + avg_rec != 0:
        f = (1 + factor) * avg_prec * avg_rec
        f /= (factor * avg_prec) + avg_rec
        return 100 * f
    return 0.0


@jit
def _reset(ctab, dense, hval):
    """Clear the stamped tables (before the stamps restart from 0)."""
    ctab[:] = 0
    dense[:] = 0
    hval[:] = 0


@jit(parallel=True)
def pair_stats(addrs, lens, widths, n_pairs, ref_ptr, char_order, word_order, keep_space, ws, punct, bounds, taken,
               workers, factor, eps_smoothing, out, best, scores, bad, i32, w32, i64, u64, ctab, dense, hkey, hval,
               hhash, small):
    """int64 statistics into ``out`` ``(n_refs_total, 3 * (char_order + word_order))``: one row per (pair, reference).

    ``bounds``: pair boundaries of the chunks the ``workers`` threads claim
    (``taken``: :func:`vecscore.kernels.swar.work_counter`).  Scratch, one
    row per worker: ``i32`` ``(workers, 4, U)`` int32 for ``U`` at least
    the code points of any pair plus one; for chrF++ ``w32`` ``(workers, 3, U)`` int32 and ``u64``
    ``(workers, 3, U)`` int64 (else ``U`` may be 1 there); ``i64`` ``(workers, HYP_ROWS, H)`` for
    ``H`` at least the longest hypothesis plus one; ``ctab``
    ``(workers, CODE_POINTS)``; ``dense`` ``(workers, DENSE + 1)`` of :data:`DENSE_DTYPE`;
    ``hkey``/``hval``/``hhash`` ``(workers, table_size(H))``; ``small``
    ``(workers, 5, most references + 2)`` (int64 but ``dense``; ``dense`` and the stamped tables zero).
    ``best[i]``/``scores[i]``: the row of pair ``i``'s best reference (the first with the highest chrF,
    as sacreBLEU picks it) and that chrF (:func:`f_score`, with ``factor`` and ``eps_smoothing``).
    ``bad[0]`` becomes 1 if a text holds a lone surrogate.
    """
    # the caller holds every array for the whole call: no reference counting of the per-pair views
    addrs, lens, widths, ref_ptr, ws, punct, bounds, taken = borrow(addrs), borrow(lens), borrow(widths), \
        borrow(ref_ptr), borrow(ws), borrow(punct), borrow(bounds), borrow(taken)
    out, best, scores, bad, i32, w32, i64, u64 = borrow(out), borrow(best), borrow(scores), borrow(bad), \
        borrow(i32), borrow(w32), borrow(i64), borrow(u64)
    ctab, dense, hkey, hval, hhash, small = borrow(ctab), borrow(dense), borrow(hkey), borrow(hval), borrow(hhash), \
        borrow(small)
    n_chunks = len(bounds) - 1
    for worker in prange(workers):  # each worker claims chunks until none is left
        cb = i32[worker, 0]
        ids = i32[worker, 1]
        pos = i32[worker, 2]
        pid = i32[worker, 3]
        tok_s = w32[worker, 0]
        tok_e = w32[worker, 1]
        wid = w32[worker, 2]
        w_h = u64[worker, 0]
        w_p = u64[worker, 1]
        tok_h = u64[worker, 2]
        hcnt = i64[worker, 0]
        use = i64[worker, 1]
        seen = i64[worker, 2]
        hkeys = i64[worker, 3]
        wc = ctab[worker]
        wd = dense[worker]
        wk = hkey[worker]
        wv = hval[worker]
        wh = hhash[worker]
        cstart = small[worker, 0]
        clen = small[worker, 1]
        tstart = small[worker, 2]
        tlen = small[worker, 3]
        npos = small[worker, 4]
        stamp = 0
        while True:
            c = claim(taken, worker, workers)
            if c >= n_chunks:
                break
            lo = bounds[c]
            hi = bounds[c + 1]
            for i in range(lo, hi):
                if i + AHEAD < hi:
                    a = i + AHEAD
                    prefetch(addrs[a])
                    for r in range(ref_ptr[a], ref_ptr[a + 1]):
                        prefetch(addrs[n_pairs + r])
                if stamp > STAMP_MAX:
                    _reset(wc, wd, wv)
                    stamp = 0
                stamp, b = _pair(i, addrs, lens, widths, n_pairs, ref_ptr, char_order, word_order, keep_space, ws,
                                 punct, out, cb, ids, pos, pid, tok_s, tok_e, wid, w_h, w_p, tok_h, hcnt, use, seen,
                                 hkeys, wc, wd, wk, wv, wh, cstart, clen, tstart, tlen, npos, stamp)
                if b:
                    bad[0] = 1
                top = -1.0
                for r in range(ref_ptr[i], ref_ptr[i + 1]):
                    f = f_score(out, r, char_order + word_order, factor, eps_smoothing)
                    if f > top:
                        top = f
                        best[i] = r
                scores[i] = top
