"""Kernels for one shared set of references scored against many hypotheses (BLEU's clipped counts).

The references are counted once into an *n-gram table*: every distinct
reference n-gram of orders ``1..K`` gets a global id (``gid``).  A unigram's
gid is its token id (``0..V-1``); an n-gram of order ``n >= 2`` is the pair
(gid of its first ``n - 1`` tokens, id of its last token), stored under the
int64 key ``prefix_gid * V + token`` in an open-addressing hash table, so
every order is one probe from the order below it.  ``max_count[gid]`` is the
n-gram's maximum count over the references: BLEU's clip.

A hypothesis is scored by walking its positions order by order: the gid of
the n-gram at position ``i`` is the lookup of ``(gid of the (n-1)-gram at i,
token i+n-1)``, and ``-1`` (absent from every reference) as soon as either
part is absent.  The gids present at an order are sorted, so equal n-grams
are adjacent, and each run of ``c`` equal gids adds ``min(c, max_count)``
matches.  Tokens of the hypotheses that no reference has are ``-1`` from the
start (:func:`lookup_tokens`).

Everything is exact: keys are exact integers, and a hypothesis token is
matched to a reference token by comparing its bytes.  Plain-Python twin:
``tests/reference/shared_ngrams_py.py``.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange

__all__ = ["build_table", "lookup_tokens", "shared_counts", "vocab_table"]

@jit(inline=True)
def _mix(x):
    """splitmix64's finalizer: a well-spread slot for an int64 key or a raw FNV hash."""
    z = np.uint64(x) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@jit
def vocab_table(vhash):
    """An open-addressing table of the vocabulary's token hashes (slot -> token id, -1 empty)."""
    cap = 16
    while cap < 2 * len(vhash):
        cap *= 2
    mask = np.uint64(cap - 1)
    table = np.full(cap, -1, np.int64)
    for v in range(len(vhash)):
        slot = np.int64(_mix(vhash[v]) & mask)
        while table[slot] != -1:
            slot = (slot + 1) & (cap - 1)
        table[slot] = v
    return table


@jit(parallel=True)
def lookup_tokens(buf, starts, ends, hashes, fold, table, vhash, vbuf, voff):
    """The reference token id of every (folded) token ``buf[starts[i]:ends[i]]``, or -1 where no reference has it.

    ``hashes``: the tokens' raw FNV hashes (:func:`vecscore.kernels.intern.hash_spans`); ``vbuf``/``voff``:
    the vocabulary's folded bytes; ``vhash``: their hashes.  A hash hit is confirmed byte by byte.
    """
    n = len(starts)
    out = np.empty(n, np.int64)
    mask = np.uint64(len(table) - 1)
    for i in prange(n):
        h = hashes[i]
        s = starts[i]
        e = ends[i]
        slot = np.int64(_mix(h) & mask)
        found = np.int64(-1)
        while True:
            v = table[slot]
            if v == -1:
                break
            if vhash[v] == h and voff[v + 1] - voff[v] == e - s:
                base = voff[v] - s
                q = s
                while q < e and vbuf[base + q] == fold[buf[q]]:
                    q += 1
                if q == e:
                    found = v
                    break
            slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
        out[i] = found
    return out


@jit(inline=True)
def _find(keys, vals, mask, key):
    slot = np.int64(_mix(key) & mask)
    while True:
        k = keys[slot]
        if k == key:
            return vals[slot]
        if k == -1:
            return np.int64(-1)
        slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)


@jit(inline=True)
def _clip_runs(gids, m, max_count, counts_out):
    """Sort ``gids[:m]`` and add ``min(run length, max_count)`` per run; with ``counts_out`` (len > 0) take the max."""
    part = gids[:m]
    part.sort()
    matched = np.int64(0)
    i = 0
    while i < m:
        g = part[i]
        j = i + 1
        while j < m and part[j] == g:
            j += 1
        c = np.int64(j - i)
        if len(counts_out):
            if c > counts_out[g]:
                counts_out[g] = c
        else:
            matched += min(c, np.int64(max_count[g]))
        i = j
    return matched


@jit
def build_table(ids, offsets, n_vocab, max_order):
    """The n-gram table of the reference token ids ``ids`` (row ``r`` = ``ids[offsets[r]:offsets[r+1]]``).

    Returns ``(keys, vals, max_count)``: the hash table (``keys[slot]`` an int64 key or -1, ``vals[slot]``
    its gid) and every gid's maximum count over the rows (int64, length = number of gids).
    """
    n_rows = len(offsets) - 1
    bound = np.int64(0)
    longest = np.int64(0)
    for r in range(n_rows):
        m = offsets[r + 1] - offsets[r]
        longest = max(longest, m)
        for n in range(2, max_order + 1):
            bound += max(m - n + 1, 0)
    cap = 16
    while cap < 2 * bound:
        cap *= 2
    mask = np.uint64(cap - 1)
    keys = np.full(cap, -1, np.int64)
    vals = np.full(cap, -1, np.int64)
    max_count = np.zeros(n_vocab + bound, np.int64)
    prev = np.empty(longest, np.int64)
    cur = np.empty(longest, np.int64)
    sort_buf = np.empty(longest, np.int64)
    n_gids = np.int64(n_vocab)
    none = np.zeros(0, np.int64)
    for r in range(n_rows):
        lo = offsets[r]
        m = offsets[r + 1] - lo
        for i in range(m):
            prev[i] = ids[lo + i]
            sort_buf[i] = prev[i]
        _clip_runs(sort_buf, m, none, max_count)
        for n in range(2, max_order + 1):
            k = m - n + 1
            if k <= 0:
                break
            for i in range(k):
                key = prev[i] * n_vocab + ids[lo + i + n - 1]
                slot = np.int64(_mix(key) & mask)
                while True:
                    kk = keys[slot]
                    if kk == key:
                        g = vals[slot]
                        break
                    if kk == -1:
                        keys[slot] = key
                        vals[slot] = n_gids
                        g = n_gids
                        n_gids += 1
                        break
                    slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
                cur[i] = g
                sort_buf[i] = g
            _clip_runs(sort_buf, k, none, max_count)
            for i in range(k):
                prev[i] = cur[i]
    return keys, vals, max_count[:n_gids].copy()


@jit(parallel=True)
def shared_counts(ids, offsets, keys, vals, max_count, n_vocab, max_order):
    """``correct`` (N, K): every hypothesis's n-gram matches clipped by the table's maximum counts.

    ``ids``: the hypotheses' reference token ids (-1: no reference has the token), rows by ``offsets``.
    """
    n = len(offsets) - 1
    correct = np.zeros((n, max_order), np.int64)
    mask = np.uint64(len(keys) - 1)
    for p in prange(n):
        lo = offsets[p]
        m = offsets[p + 1] - lo
        if m == 0:
            continue
        prev = np.empty(m, np.int64)
        gids = np.empty(m, np.int64)
        none = np.zeros(0, np.int64)
        k = 0
        for i in range(m):
            t = ids[lo + i]
            prev[i] = t
            if t >= 0:
                gids[k] = t
                k += 1
        if k == 0:
            continue
        correct[p, 0] = _clip_runs(gids, k, max_count, none)
        for n in range(2, max_order + 1):
            span = m - n + 1
            if span <= 0:
                break
            k = 0
            for i in range(span):
                g = np.int64(-1)
                a = prev[i]
                t = ids[lo + i + n - 1]
                if a >= 0 and t >= 0:
                    g = _find(keys, vals, mask, a * n_vocab + t)
                prev[i] = g
                if g >= 0:
                    gids[k] = g
                    k += 1
            if k == 0:
                break
            correct[p, n - 1] = _clip_runs(gids, k, max_count, none)
    return correct
