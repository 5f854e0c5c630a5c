"""chrF / chrF++ kernels: integer match statistics of every (hypothesis, reference) pair.

Texts arrive as one array of Unicode code points (already lowercased when
asked for) with per-text offsets; hypotheses come first, then every pair's
references (pair ``i``'s are texts ``n_pairs + ref_ptr[i] .. n_pairs + ref_ptr[i + 1]``).

:func:`prepare` gives, per text, its characters for the character n-grams
(whitespace removed unless asked to keep it) and its word tokens for chrF++
(whitespace-separated words, a leading or trailing ASCII punctuation mark
split off a word longer than one character, the trailing one first).

:func:`pair_stats` counts n-grams *per pair*, exactly, order by order
(:func:`_orders`): order 1 in arrays indexed by the unit (code point or word
id), order 2 in arrays indexed by the pair of the hypothesis's unit ids when
it has few distinct units, other orders in a small open-addressing table
whose key is the pair ``(slot of the (n-1)-gram prefix, last unit)`` packed
in 63 bits.  Keys are exact and the table compares whole keys, so a hash
collision costs a probe, never a wrong count; word tokens are interned by
comparing their code points.  Only n-grams whose prefix occurs in both the
hypothesis and a reference are extended to the next order (no other can
match).  Per order the statistics are ``[hypothesis n-grams, reference
n-grams, clipped matches]``; the hypothesis count is 0 when the reference
has no n-gram of that order (sacreBLEU's rule).

Every kernel is plain Python first (``NUMBA_DISABLE_JIT=1`` or ``.py_func``);
its plain twin is :mod:`vecscore.chrf.plain` (``Counter``s), which the tests
compare it with.  Nothing here imports vecscore beyond :mod:`vecscore._jit`.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange

_GOLD = np.uint64(0x9E3779B97F4A7C15)
_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)
_EMPTY = -1
#: order 2 is counted in directly indexed arrays when the hypothesis has at most this many distinct units
_DIRECT_IDS = 64


def whitespace_table() -> np.ndarray:
    """``table[c] == 1`` for the code points ``str.split()`` splits on (all below U+3001)."""
    table = np.zeros(0x3001, np.uint8)
    for c in range(0x3001):
        if chr(c).isspace():
            table[c] = 1
    return table


def punctuation_table() -> np.ndarray:
    """``table[c] == 1`` for ASCII punctuation (``string.punctuation``)."""
    table = np.zeros(128, np.uint8)
    for ch in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~":
        table[ord(ch)] = 1
    return table


@jit(parallel=True)
def prepare(cps, offs, ws, punct, keep_space, words, chars, clen, tok_s, tok_e, ntok):
    """Fill ``chars``/``clen`` (characters of every text at ``offs[t]``) and, if ``words``, the tokens.

    Token ``k`` of text ``t`` is ``cps[tok_s[offs[t] + k]:tok_e[offs[t] + k]]``.
    """
    n_ws = len(ws)
    for t in prange(len(offs) - 1):
        a = offs[t]
        b = offs[t + 1]
        m = a
        for p in range(a, b):
            c = cps[p]
            if keep_space or not (c < n_ws and ws[c] != 0):
                chars[m] = c
                m += 1
        clen[t] = m - a
        if not words:
            continue
        k = a
        p = a
        while p < b:
            c = cps[p]
            if c < n_ws and ws[c] != 0:
                p += 1
                continue
            s = p
            while p < b and not (cps[p] < n_ws and ws[cps[p]] != 0):
                p += 1
            last = cps[p - 1]
            first = cps[s]
            if p - s == 1:
                tok_s[k] = s
                tok_e[k] = p
                k += 1
            elif last < 128 and punct[last] != 0:
                tok_s[k] = s
                tok_e[k] = p - 1
                tok_s[k + 1] = p - 1
                tok_e[k + 1] = p
                k += 2
            elif first < 128 and punct[first] != 0:
                tok_s[k] = s
                tok_e[k] = s + 1
                tok_s[k + 1] = s + 1
                tok_e[k + 1] = p
                k += 2
            else:
                tok_s[k] = s
                tok_e[k] = p
                k += 1
        ntok[t] = k - a


@jit
def _bits_for(n):
    """log2 of a power-of-two table size of at least ``2 * n`` (at least 16 slots)."""
    bits = 4
    while (1 << bits) < 2 * n:
        bits += 1
    return bits


@jit(inline=True)
def _use(v, j, limit):
    """A table's clipped-use cell ``v`` (``reference << 32 | uses``) after one more occurrence in reference ``j``.

    Returns ``(new cell, 1 if that occurrence matched else 0)``; uses count
    from 0 again for each reference, and a cell is non-zero once any
    reference has seen the n-gram.
    """
    if (v >> 32) != j:
        v = j << 32
    if (v & 0xFFFFFFFF) < limit:
        return v + 1, 1
    return v, 0


@jit
def _orders(units, ustart, lens, loff, n_texts, max_order, bits, gen, tab, d_cnt, d_use, d_id, b_cnt, b_use,
            pos, slots, npos, out, row0, col0):
    """Statistics of orders ``1..max_order`` of the n-grams of one pair's texts; returns the table's generation.

    Text ``j`` (0: the hypothesis, then the references) has the units
    ``units[ustart[j]:ustart[j] + lens[j]]`` (code points, or word ids);
    reference ``j`` writes row ``row0 + j - 1`` of ``out``, columns
    ``col0 + 3 * (n - 1) + (0, 1, 2)`` for order ``n``.

    Only *shared* n-grams can match, and an n-gram can only be shared if its
    (n-1)-gram prefix is: each text keeps the list of its positions whose
    n-gram is shared (``pos``/``slots`` from ``loff[j]``, ``npos[j]`` of
    them), and only those are extended to the next order.  Order 1 counts
    units directly (``d_cnt``/``d_use``, indexed by unit, zero again on
    return) and numbers the hypothesis's distinct units (``d_id``); order 2
    is indexed directly by the two ids (``b_cnt``/``b_use``) when there are
    at most ``_DIRECT_IDS`` of them; other orders use the table ``tab``, one row per slot:
    ``[key, generation, hypothesis count, clipped-use cell]``.  A row is
    live only while it holds the current generation, so the table is never
    emptied.
    """
    mask = (1 << bits) - 1
    shift = np.uint64(64 - bits)
    n_ids = 0
    for n in range(1, max_order + 1):
        col = col0 + 3 * (n - 1)
        n_hyp = max(lens[0] - n + 1, 0)
        for j in range(1, n_texts):
            n_ref = max(lens[j] - n + 1, 0)
            out[row0 + j - 1, col] = n_hyp if n_ref > 0 else 0
            out[row0 + j - 1, col + 1] = n_ref
        a = loff[0]
        if n == 1:
            u = ustart[0]
            for q in range(lens[0]):
                c = units[u + q]
                if d_cnt[c] == 0:
                    d_id[c] = n_ids
                    n_ids += 1
                d_cnt[c] += 1
            for j in range(1, n_texts):
                aj = loff[j]
                u = ustart[j]
                k = 0
                m = 0
                for q in range(lens[j]):
                    c = units[u + q]
                    limit = d_cnt[c]
                    if limit > 0:
                        v, hit = _use(d_use[c], j, limit)
                        d_use[c] = v
                        m += hit
                        pos[aj + k] = u + q
                        slots[aj + k] = c
                        k += 1
                npos[j] = k
                out[row0 + j - 1, col + 2] = m
            u = ustart[0]
            k = 0
            for q in range(lens[0]):
                c = units[u + q]
                pos[a + k] = u + q  # branch-free compaction: written always, kept if shared
                slots[a + k] = c
                k += d_use[c] != 0
            npos[0] = k
            continue
        if n == 2 and n_ids <= _DIRECT_IDS:
            # bigrams of the hypothesis's units: directly indexed by their two unit ids
            end = ustart[0] + lens[0]
            k = 0
            for q in range(a, a + npos[0]):
                p = pos[q]
                if p + 2 > end:
                    break
                b = d_id[units[p]] * n_ids + d_id[units[p + 1]]
                b_cnt[b] += 1
                pos[a + k] = p
                slots[a + k] = b
                k += 1
            n_h = k
            for j in range(1, n_texts):
                aj = loff[j]
                end = ustart[j] + lens[j]
                k = 0
                m = 0
                for q in range(aj, aj + npos[j]):
                    p = pos[q]
                    if p + 2 > end:
                        break
                    c2 = units[p + 1]
                    if d_cnt[c2] == 0:
                        continue
                    b = d_id[units[p]] * n_ids + d_id[c2]
                    limit = b_cnt[b]
                    if limit > 0:
                        v, hit = _use(b_use[b], j, limit)
                        b_use[b] = v
                        m += hit
                        pos[aj + k] = p
                        slots[aj + k] = b
                        k += 1
                npos[j] = k
                out[row0 + j - 1, col + 2] = m
            k = 0
            for q in range(a, a + n_h):
                b = slots[q]
                keep = b_use[b] != 0
                pos[a + k] = pos[q]
                slots[a + k] = b
                k += keep
                if not keep:
                    b_cnt[b] = 0  # not in any reference: dropped (and emptied) now
            for q in range(a, a + k):
                b = slots[q]
                b_cnt[b] = 0
                b_use[b] = 0
            npos[0] = k
            continue
        gen += 1
        # the hypothesis's n-grams (those that can still be shared) into the table
        end = ustart[0] + lens[0]
        k = 0
        for q in range(a, a + npos[0]):
            p = pos[q]
            if p + n > end:
                break
            key = (slots[q] << 32) | units[p + n - 1]
            h = np.int64((np.uint64(key) * _GOLD) >> shift)
            while True:
                if tab[h, 1] != gen:
                    tab[h, 0] = key
                    tab[h, 1] = gen
                    tab[h, 2] = 1
                    tab[h, 3] = 0
                    break
                if tab[h, 0] == key:
                    tab[h, 2] += 1
                    break
                h = (h + 1) & mask
            pos[a + k] = p
            slots[a + k] = h
            k += 1
        n_h = k
        # every reference's n-grams: look up, clip, keep the shared positions
        for j in range(1, n_texts):
            aj = loff[j]
            end = ustart[j] + lens[j]
            k = 0
            m = 0
            if n_h > 0:
                for q in range(aj, aj + npos[j]):
                    p = pos[q]
                    if p + n > end:
                        break
                    key = (slots[q] << 32) | units[p + n - 1]
                    h = np.int64((np.uint64(key) * _GOLD) >> shift)
                    while tab[h, 1] == gen:
                        if tab[h, 0] == key:
                            v, hit = _use(tab[h, 3], j, tab[h, 2])
                            tab[h, 3] = v
                            m += hit
                            pos[aj + k] = p
                            slots[aj + k] = h
                            k += 1
                            break
                        h = (h + 1) & mask
            npos[j] = k
            out[row0 + j - 1, col + 2] = m
        # keep the hypothesis's shared positions
        k = 0
        for q in range(a, a + n_h):
            h = slots[q]
            pos[a + k] = pos[q]
            slots[a + k] = h
            k += tab[h, 3] != 0
        npos[0] = k
    u = ustart[0]
    for q in range(lens[0] if max_order > 0 else 0):
        c = units[u + q]
        d_cnt[c] = 0
        d_use[c] = 0
    return gen


@jit
def _word_hash(cps, s, e):
    h = _FNV_OFFSET
    for q in range(s, e):
        h = (h ^ np.uint64(cps[q])) * _FNV_PRIME
    return h


@jit
def _intern_words(cps, tok_s, tok_e, first, count, wkeys, whash, wgen, gen, bits, base, at):
    """Word ids (slots of the word table) of tokens ``first .. first + count`` into ``base[at:]``.

    A slot holds a token index (``wkeys``) and its hash, and is live while
    ``wgen`` holds ``gen``; equal tokens are found by comparing code points.
    """
    mask = (1 << bits) - 1
    shift = np.uint64(64 - bits)
    for k in range(first, first + count):
        s = tok_s[k]
        e = tok_e[k]
        h64 = _word_hash(cps, s, e)
        h = np.int64((h64 * _GOLD) >> shift)
        while True:
            if wgen[h] != gen:
                wgen[h] = gen
                wkeys[h] = k
                whash[h] = h64
                break
            o = wkeys[h]
            if whash[h] == h64:
                os_ = tok_s[o]
                oe = tok_e[o]
                if oe - os_ == e - s:
                    same = True
                    for q in range(e - s):
                        if cps[os_ + q] != cps[s + q]:
                            same = False
                            break
                    if same:
                        break
            h = (h + 1) & mask
        base[at + k - first] = h


@jit(parallel=True)
def pair_stats(chars, clen, cps, tok_s, tok_e, ntok, offs, n_pairs, ref_ptr, char_order, word_order, chunks,
               alphabet):
    """int64 statistics ``(n_refs_total, 3 * (char_order + word_order))``: one row per (pair, reference).

    ``chars``/``clen``/``tok_s``/``tok_e``/``ntok``: :func:`prepare`'s output;
    ``chunks``: pair boundaries of the parallel work items; ``alphabet``:
    one more than the largest code point.
    """
    n_rows = ref_ptr[n_pairs]
    width = 3 * (char_order + word_order)
    out = np.zeros((n_rows, width), np.int64)
    for c in prange(len(chunks) - 1):
        p0 = chunks[c]
        p1 = chunks[c + 1]
        max_units = 1
        max_texts = 1
        for i in range(p0, p1):
            u = clen[i]
            w = ntok[i]
            for r in range(ref_ptr[i], ref_ptr[i + 1]):
                u += clen[n_pairs + r]
                w += ntok[n_pairs + r]
            max_units = max(max_units, u, w)
            max_texts = max(max_texts, ref_ptr[i + 1] - ref_ptr[i] + 1)
        size = 1 << _bits_for(max_units)
        base = np.empty(max_units, np.int64)
        pos = np.empty(max_units, np.int64)
        slots = np.empty(max_units, np.int64)
        tab = np.zeros((size, 4), np.int64)
        c_cnt = np.zeros(alphabet, np.int64)
        c_use = np.zeros(alphabet, np.int64)
        c_id = np.zeros(alphabet, np.int64)
        w_cnt = np.zeros(size, np.int64)
        w_use = np.zeros(size, np.int64)
        w_id = np.zeros(size, np.int64)
        b_cnt = np.zeros(_DIRECT_IDS * _DIRECT_IDS, np.int64)
        b_use = np.zeros(_DIRECT_IDS * _DIRECT_IDS, np.int64)
        wkeys = np.empty(size, np.int64)
        whash = np.empty(size, np.uint64)
        wgen = np.zeros(size, np.int64)
        gen = 0
        loff = np.empty(max_texts + 1, np.int64)
        ustart = np.empty(max_texts, np.int64)
        lens = np.empty(max_texts, np.int64)
        npos = np.empty(max_texts, np.int64)
        for i in range(p0, p1):
            n_texts = ref_ptr[i + 1] - ref_ptr[i] + 1
            row0 = ref_ptr[i]
            at = 0
            for j in range(n_texts):
                t = i if j == 0 else n_pairs + ref_ptr[i] + j - 1
                loff[j] = at
                ustart[j] = offs[t]
                lens[j] = clen[t]
                at += clen[t]
            gen = _orders(chars, ustart, lens, loff, n_texts, char_order, _bits_for(lens[0]), gen, tab, c_cnt, c_use,
                          c_id, b_cnt, b_use, pos, slots, npos, out, row0, 0)
            if word_order == 0:
                continue
            at = 0
            for j in range(n_texts):
                t = i if j == 0 else n_pairs + ref_ptr[i] + j - 1
                loff[j] = at
                ustart[j] = at
                lens[j] = ntok[t]
                at += ntok[t]
            bits = _bits_for(at)
            gen += 1
            for j in range(n_texts):
                t = i if j == 0 else n_pairs + ref_ptr[i] + j - 1
                _intern_words(cps, tok_s, tok_e, offs[t], ntok[t], wkeys, whash, wgen, gen, bits, base, loff[j])
            gen = _orders(base, ustart, lens, loff, n_texts, word_order, _bits_for(lens[0]), gen, tab, w_cnt, w_use,
                          w_id, b_cnt, b_use, pos, slots, npos, out, row0, 3 * char_order)
    return out
