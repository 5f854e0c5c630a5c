"""Interning kernels: map byte strings or int64 keys to dense ids.

Tokens are interned with open-addressing hash tables over arrays.  Equal keys
are confirmed by comparing the bytes themselves (kept in a compact copy of
the vocabulary, so the comparison stays in cache), so interning is exact: a
hash collision costs a probe, never a wrong id.  Ids are assigned in order of
first occurrence, so the result does not depend on hashing or on how the work
is split across threads.

``fold`` is a 256-byte table applied to every byte before hashing and
comparing (identity, or ASCII lowercasing for the rouge-score tokenizer).
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange
from vecscore.kernels.swar import (
    HIGH,
    LOW7,
    in_ranges,
    load_word,
    low_bits,
    range_adders,
)
from vecscore.memory import CHUNK_FAILED

FNV_OFFSET = np.uint64(14695981039346656037)
FNV_PRIME = np.uint64(1099511628211)

IDENTITY = np.arange(256, dtype=np.uint8)
ASCII_LOWER = IDENTITY.copy()
ASCII_LOWER[ord("A") : ord("Z") + 1] += 32


@jit(parallel=True)
def hash_spans(buf, starts, ends, fold):
    """Raw FNV-1a hash of every (folded) token (see :func:`finalize_hashes`)."""
    n = len(starts)
    out = np.empty(n, np.uint64)
    for i in prange(n):
        h = FNV_OFFSET
        for q in range(starts[i], ends[i]):
            h = (h ^ np.uint64(fold[buf[q]])) * FNV_PRIME
        out[i] = h
    return out


def intern_spans(buf, starts, ends, fold, n_chunks):
    """Dense ids for the (folded) byte strings ``buf[starts[i]:ends[i]]``.

    Tokens are first interned by their int64 key (:func:`token_keys`: exact
    for tokens of up to 7 bytes, a hash for longer ones), in parallel chunks;
    then every long token's bytes are compared, in parallel, with those of
    the first token of its id.  If two different tokens ever share a key, the
    batch is re-interned by :func:`intern_spans_exact`, which compares bytes
    on every lookup.  Either way the result is exact and ids follow the order
    of first occurrence.

    Returns ``(ids, first)``.
    """
    keys = token_keys(buf, starts, ends, fold)
    ids, first = intern_keys_chunked(keys, n_chunks)
    if spans_match_first(buf, starts, ends, fold, ids, first):
        return ids, first
    return intern_spans_exact(buf, starts, ends, hash_spans(buf, starts, ends, fold), fold, n_chunks)


@jit
def _mix64(x):
    z = np.uint64(x) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@jit
def _rehash(vh, n_vocab, cap):
    mask = np.uint64(cap - 1)
    table = np.full(cap, -1, np.int64)
    for v in range(n_vocab):
        slot = np.int64(vh[v] & mask)
        while table[slot] != -1:
            slot = (slot + 1) & (cap - 1)
        table[slot] = v
    return table


@jit
def _intern_run(buf, starts, ends, hashes, fold, tokens, k, ids_out, first_out, table, vh, vbuf, voff, n_vocab):
    """Intern ``tokens[k:]`` until done or until a table is full.

    Never reallocates (arrays reassigned inside a hot numba loop cost
    reference counting on every access): returns ``(k, n_vocab)`` where it
    stopped so the caller can grow the arrays and call again.
    """
    mask = len(table) - 1
    vcap = len(vh)
    bcap = len(vbuf)
    while k < len(tokens):
        t = tokens[k]
        s = starts[t]
        e = ends[t]
        h = hashes[t]
        slot = np.int64(h & np.uint64(mask))
        while True:
            v = table[slot]
            if v == -1:
                break
            if vh[v] == h and voff[v + 1] - voff[v] == e - s:
                base = voff[v] - s
                q = s
                while q < e and vbuf[base + q] == fold[buf[q]]:
                    q += 1
                if q == e:
                    break
            slot = (slot + 1) & mask
        if v == -1:
            v = n_vocab
            if 2 * (v + 1) > len(table) or v + 1 > vcap or voff[v] + (e - s) > bcap:
                return k, n_vocab
            base = voff[v] - s
            for q in range(s, e):
                vbuf[base + q] = fold[buf[q]]
            voff[v + 1] = voff[v] + (e - s)
            vh[v] = h
            first_out[v] = t
            table[slot] = v
            n_vocab += 1
        ids_out[k] = v
        k += 1
    return k, n_vocab


@jit
def _intern_subset(buf, starts, ends, hashes, fold, tokens, ids_out, first_out):
    """Intern ``tokens`` (token indices) in order; write local ids and first tokens.

    ``ids_out[k]`` gets the local id of ``tokens[k]``; ``first_out[v]`` the token
    index of local id ``v``'s first occurrence.  Returns the vocabulary size.
    """
    cap = 1 << 12
    table = np.full(cap, -1, np.int64)
    vh = np.empty(cap // 2, np.uint64)
    voff = np.zeros(cap // 2 + 1, np.int64)
    vbuf = np.empty(1 << 14, np.uint8)
    k = 0
    n_vocab = 0
    while True:
        k, n_vocab = _intern_run(buf, starts, ends, hashes, fold, tokens, k, ids_out, first_out, table, vh, vbuf, voff,
                                 n_vocab)
        if k == len(tokens):
            return n_vocab
        t = tokens[k]
        if 2 * (n_vocab + 1) > len(table):
            table = _rehash(vh, n_vocab, 2 * len(table))
        if n_vocab + 1 > len(vh):
            vh = np.concatenate((vh, np.empty(len(vh), np.uint64)))
            voff = np.concatenate((voff, np.zeros(len(voff) - 1, np.int64)))
        while voff[n_vocab] + (ends[t] - starts[t]) > len(vbuf):
            vbuf = np.concatenate((vbuf, np.empty(len(vbuf), np.uint8)))


@jit
def _chunk_bounds(n, n_chunks, min_size):
    """Bounds of at most ``n_chunks`` equal chunks of ``n`` items, each about ``min_size`` or more."""
    n_chunks = max(1, min(n_chunks, n // min_size + 1))
    bounds = np.empty(n_chunks + 1, np.int64)
    for c in range(n_chunks + 1):
        bounds[c] = (n * c) // n_chunks
    return bounds


@jit
def _chunk_representatives(first, bounds, nv):
    """The first occurrences of every chunk's local ids, in chunk order, and where each chunk's start.

    Interning these representatives in order gives the global ids in order of
    first occurrence (a chunk's new words all come after the earlier chunks').
    Returns ``(reps, moff)``: chunk ``c``'s local id ``v`` is ``reps[moff[c] + v]``.
    """
    n_chunks = len(nv)
    moff = np.zeros(n_chunks + 1, np.int64)
    for c in range(n_chunks):
        moff[c + 1] = moff[c] + nv[c]
    reps = np.empty(moff[n_chunks], np.int64)
    for c in range(n_chunks):
        reps[moff[c] : moff[c + 1]] = first[bounds[c] : bounds[c] + nv[c]]
    return reps, moff


@jit(parallel=True)
def _to_global_ids(ids, bounds, moff, gids):
    """Replace every chunk-local id by its global id (in place)."""
    for c in prange(len(bounds) - 1):
        for i in range(bounds[c], bounds[c + 1]):
            ids[i] = gids[moff[c] + ids[i]]


@jit(parallel=True)
def intern_spans_exact(buf, starts, ends, hashes, fold, n_chunks):
    """Dense ids for the (folded) byte strings ``buf[starts[i]:ends[i]]``.

    Compares bytes on every lookup; used when :func:`intern_spans` finds two
    different tokens with the same 64-bit key (practically never).

    The tokens are interned in ``n_chunks`` independent chunks in parallel,
    whose vocabularies are then merged in chunk order, which reproduces the
    global first-occurrence order.  Returns ``(ids, first)``: ``first[v]`` is
    the index of the first token with id ``v``.
    """
    n = len(starts)
    bounds = _chunk_bounds(n, n_chunks, 4096)
    n_chunks = len(bounds) - 1
    ids = np.empty(n, np.int64)
    first = np.empty(n, np.int64)
    nv = np.empty(n_chunks, np.int64)
    for c in prange(n_chunks):
        nv[c] = _intern_chunk(buf, starts, ends, hashes, fold, bounds[c], bounds[c + 1], ids, first)
    if (nv < 0).any():
        raise MemoryError(CHUNK_FAILED)
    if n_chunks == 1:
        return ids, first[: nv[0]].copy()
    reps, moff = _chunk_representatives(first, bounds, nv)
    gids = np.empty(len(reps), np.int64)
    gfirst = np.empty(len(reps), np.int64)
    g = _intern_subset(buf, starts, ends, hashes, fold, reps, gids, gfirst)
    _to_global_ids(ids, bounds, moff, gids)
    return ids, gfirst[:g].copy()


@jit
def _intern_chunk(buf, starts, ends, hashes, fold, lo, hi, ids, first):
    """:func:`_intern_subset` of the tokens ``lo..hi-1`` (a chunk of :func:`intern_spans_exact`); -1 if its
    scratch could not be allocated (an exception inside a parallel loop would be lost)."""
    try:
        return _intern_subset(buf, starts, ends, hashes, fold, np.arange(lo, hi), ids[lo:hi], first[lo:hi])
    except Exception:
        return -1


@jit
def _keys_run(keys, lo, hi, k, ids, first, tkey, tid, n_vocab):
    """Intern ``keys[k:hi]`` into the table ``(tkey, tid)`` until it is half full.

    Returns ``(k, n_vocab)`` where it stopped; ``first`` gets key indices.
    Arrays are never reassigned here (see :func:`_intern_run`).
    """
    mask = len(tid) - 1
    limit = len(tid) // 2
    while k < hi:
        key = keys[k]
        slot = np.int64(_mix64(key) & np.uint64(mask))
        while True:
            v = tid[slot]
            if v == -1 or tkey[slot] == key:
                break
            slot = (slot + 1) & mask
        if v == -1:
            if n_vocab + 1 > limit:
                return k, n_vocab
            v = n_vocab
            tkey[slot] = key
            tid[slot] = v
            first[lo + v] = k
            n_vocab += 1
        ids[k] = v
        k += 1
    return k, n_vocab


@jit
def _intern_keys_range(keys, lo, hi, ids, first):
    """Intern ``keys[lo:hi]``: local ids into ``ids[lo:hi]``, first indices into ``first[lo:]``."""
    cap = 1 << 12
    tkey = np.empty(cap, np.int64)
    tid = np.full(cap, -1, np.int64)
    k = lo
    n_vocab = 0
    while True:
        k, n_vocab = _keys_run(keys, lo, hi, k, ids, first, tkey, tid, n_vocab)
        if k == hi:
            return n_vocab
        cap = 2 * len(tid)
        tkey = np.empty(cap, np.int64)
        tid = np.full(cap, -1, np.int64)
        mask = cap - 1
        for v in range(n_vocab):
            key = keys[first[lo + v]]
            slot = np.int64(_mix64(key) & np.uint64(mask))
            while tid[slot] != -1:
                slot = (slot + 1) & mask
            tkey[slot] = key
            tid[slot] = v


@jit
def _intern_keys_chunk(keys, lo, hi, ids, first):
    """:func:`_intern_keys_range` (a chunk of :func:`intern_keys_chunked`); -1 if its table could not grow
    (an exception inside a parallel loop would be lost)."""
    try:
        return _intern_keys_range(keys, lo, hi, ids, first)
    except Exception:
        return -1


@jit
def intern_keys(keys):
    """Dense ids for int64 ``keys``, in order of first occurrence.

    Returns ``(ids, first)``: ``first[v]`` is the index of the first key with id ``v``.
    """
    n = len(keys)
    ids = np.empty(n, np.int64)
    first = np.empty(n, np.int64)
    nv = _intern_keys_range(keys, 0, n, ids, first)
    return ids, first[:nv].copy()


@jit(parallel=True)
def intern_keys_chunked(keys, n_chunks):
    """:func:`intern_keys` with the work split into chunks interned in parallel.

    Chunk vocabularies are merged in chunk order, which reproduces the global
    first-occurrence order, so the result equals :func:`intern_keys`'.
    """
    n = len(keys)
    bounds = _chunk_bounds(n, n_chunks, 65536)
    n_chunks = len(bounds) - 1
    ids = np.empty(n, np.int64)
    first = np.empty(n, np.int64)
    nv = np.empty(n_chunks, np.int64)
    for c in prange(n_chunks):
        nv[c] = _intern_keys_chunk(keys, bounds[c], bounds[c + 1], ids, first)
    if (nv < 0).any():
        raise MemoryError(CHUNK_FAILED)
    if n_chunks == 1:
        return ids, first[: nv[0]].copy()
    reps, moff = _chunk_representatives(first, bounds, nv)
    gids, gfirst = intern_keys(keys[reps])
    _to_global_ids(ids, bounds, moff, gids)
    return ids, reps[gfirst]


_SHORT = 7  # tokens of up to 7 bytes are packed into their key exactly


_UPPER = range_adders([(ord("A"), ord("Z"))])


@jit
def _fold_kind(fold):
    """0 for the identity table, 1 for ASCII lowercasing, 2 for any other."""
    same = True
    lower = True
    for b in range(256):
        low = b + 32 if 65 <= b <= 90 else b
        same = same and fold[b] == b
        lower = lower and fold[b] == low
    return 0 if same else (1 if lower else 2)


@jit(inline=True)
def _folded_word(w, kind):
    """``w``'s 8 bytes through the identity (``kind`` 0) or ASCII lowercasing (1)."""
    if kind == 0:
        return w
    upper = in_ranges(w & LOW7, _UPPER) & ~w & HIGH  # bytes in A-Z (a byte >= 0x80 never is)
    return w | (upper >> np.uint64(2))


@jit(inline=True)
def _word_at(buf, addr, q):
    """The 8 bytes of ``buf`` from ``q`` as a little-endian uint64 (zeros past the buffer's end)."""
    if q + 8 <= len(buf):
        return load_word(addr + q)
    w = np.uint64(0)
    for j in range(len(buf) - q):
        w |= np.uint64(buf[q + j]) << np.uint64(8 * j)
    return w


@jit(parallel=True)
def token_keys(buf, starts, ends, fold):
    """An int64 key per token: exact for short tokens, hashed for long ones.

    A token of at most 7 bytes is its folded bytes packed into the low 56
    bits with its length above them (bit 63 clear): equal keys mean equal
    tokens.  A longer token gets a 63-bit hash of its folded bytes with
    bit 63 set; equal keys there are confirmed by :func:`spans_match_first`.
    With the identity or ASCII-lowercasing ``fold``, tokens are read 8 bytes
    at a time (the hash then mixes words, not bytes); other tables take a
    byte loop.
    """
    n = len(starts)
    out = np.empty(n, np.int64)
    kind = _fold_kind(fold)
    addr = buf.ctypes.data
    for i in prange(n):
        s = starts[i]
        e = ends[i]
        if kind < 2:
            length = e - s
            if length <= _SHORT:
                w = _folded_word(_word_at(buf, addr, s), kind) & (
                    (np.uint64(1) << np.uint64(8 * length)) - np.uint64(1))
                out[i] = np.int64(w) | (np.int64(length) << 56)
            else:
                h = FNV_OFFSET
                q = s
                while q + 8 <= e:
                    h = (h ^ _folded_word(load_word(addr + q), kind)) * FNV_PRIME
                    q += 8
                tail = e - q  # 0 .. 7 bytes
                w = _folded_word(_word_at(buf, addr, q), kind) & ((np.uint64(1) << np.uint64(8 * tail)) - np.uint64(1))
                h = (h ^ w ^ np.uint64(length)) * FNV_PRIME
                out[i] = np.int64(_mix64(np.int64(h)) | np.uint64(1 << 63))
        elif e - s <= _SHORT:
            key = np.int64(e - s) << 56
            for q in range(s, e):
                key |= np.int64(fold[buf[q]]) << (8 * (q - s))
            out[i] = key
        else:
            h = FNV_OFFSET
            for q in range(s, e):
                h = (h ^ np.uint64(fold[buf[q]])) * FNV_PRIME
            out[i] = np.int64(_mix64(np.int64(h)) | np.uint64(1 << 63))
    return out


@jit(parallel=True)
def spans_match_first(buf, starts, ends, fold, ids, first):
    """True when every long token's folded bytes equal those of its id's first token."""
    n = len(ids)
    ok = np.ones(n, np.bool_)
    kind = _fold_kind(fold)
    addr = buf.ctypes.data
    for t in prange(n):
        s = starts[t]
        e = ends[t]
        if e - s <= _SHORT:
            continue  # short tokens have exact keys
        r = first[ids[t]]
        if r == t:
            continue
        rs = starts[r]
        if ends[r] - rs != e - s:
            ok[t] = False
            continue
        if kind < 2:  # 8 bytes at a time, the last word masked to the token's bytes
            for q in range(0, e - s, 8):
                keep = low_bits(8 * min(8, e - s - q))
                a = _folded_word(_word_at(buf, addr, s + q), kind) & keep
                b = _folded_word(_word_at(buf, addr, rs + q), kind) & keep
                if a != b:
                    ok[t] = False
                    break
        else:
            for q in range(e - s):
                if fold[buf[s + q]] != fold[buf[rs + q]]:
                    ok[t] = False
                    break
    return ok.all()
