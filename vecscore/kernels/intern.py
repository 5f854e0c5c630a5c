"""Interning kernels: map byte strings or int64 keys to dense ids.

Both kernels are open-addressing hash tables over arrays, growing by doubling.
Equal keys are confirmed by comparing the bytes (or the keys) themselves, so
interning is exact: a hash collision costs a probe, never a wrong id.  Ids are
assigned in order of first occurrence, so results do not depend on hashing.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit

_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)


@jit
def _hash_bytes(buf, s, e):
    h = _FNV_OFFSET
    for i in range(s, e):
        h = (h ^ np.uint64(buf[i])) * _FNV_PRIME
    # final avalanche so that the low bits used for slots are well mixed
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    return h


@jit
def _mix64(x):
    z = np.uint64(x) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@jit
def _same_bytes(buf, s1, e1, s2, e2):
    if e1 - s1 != e2 - s2:
        return False
    for k in range(e1 - s1):
        if buf[s1 + k] != buf[s2 + k]:
            return False
    return True


@jit
def _grow(table, hashes, n_vocab):
    cap = len(table) * 2
    mask = np.uint64(cap - 1)
    new = np.full(cap, -1, np.int64)
    for v in range(n_vocab):
        slot = np.int64(hashes[v] & mask)
        while new[slot] != -1:
            slot = (slot + 1) & (cap - 1)
        new[slot] = v
    return new


@jit
def intern_spans(buf, starts, ends):
    """Dense ids for the byte strings ``buf[starts[i]:ends[i]]``.

    Returns ``(ids, first)``: ``ids[i]`` is the id of token ``i`` and
    ``first[v]`` the index of the first token with id ``v``.
    """
    n = len(starts)
    ids = np.empty(n, np.int64)
    cap = 1 << 12
    table = np.full(cap, -1, np.int64)
    hashes = np.empty(1 << 11, np.uint64)
    first = np.empty(1 << 11, np.int64)
    n_vocab = 0
    for i in range(n):
        s = starts[i]
        e = ends[i]
        h = _hash_bytes(buf, s, e)
        mask = len(table) - 1
        slot = np.int64(h & np.uint64(mask))
        while True:
            v = table[slot]
            if v == -1:
                break
            if hashes[v] == h and _same_bytes(buf, starts[first[v]], ends[first[v]], s, e):
                break
            slot = (slot + 1) & mask
        if v == -1:
            v = n_vocab
            if v == len(hashes):
                hashes = np.concatenate((hashes, np.empty(len(hashes), np.uint64)))
                first = np.concatenate((first, np.empty(len(first), np.int64)))
            hashes[v] = h
            first[v] = i
            table[slot] = v
            n_vocab += 1
            if 2 * n_vocab > len(table):
                table = _grow(table, hashes, n_vocab)
        ids[i] = v
    return ids, first[:n_vocab].copy()


@jit
def intern_keys(keys):
    """Dense ids for int64 ``keys``, in order of first occurrence.

    Returns ``(ids, first)`` as :func:`intern_spans` does.
    """
    n = len(keys)
    ids = np.empty(n, np.int64)
    table = np.full(1 << 12, -1, np.int64)
    hashes = np.empty(1 << 11, np.uint64)
    first = np.empty(1 << 11, np.int64)
    vkeys = np.empty(1 << 11, np.int64)
    n_vocab = 0
    for i in range(n):
        key = keys[i]
        h = _mix64(key)
        mask = len(table) - 1
        slot = np.int64(h & np.uint64(mask))
        while True:
            v = table[slot]
            if v == -1 or vkeys[v] == key:
                break
            slot = (slot + 1) & mask
        if v == -1:
            v = n_vocab
            if v == len(hashes):
                hashes = np.concatenate((hashes, np.empty(len(hashes), np.uint64)))
                first = np.concatenate((first, np.empty(len(first), np.int64)))
                vkeys = np.concatenate((vkeys, np.empty(len(vkeys), np.int64)))
            hashes[v] = h
            first[v] = i
            vkeys[v] = key
            table[slot] = v
            n_vocab += 1
            if 2 * n_vocab > len(table):
                table = _grow(table, hashes, n_vocab)
        ids[i] = v
    return ids, first[:n_vocab].copy()
