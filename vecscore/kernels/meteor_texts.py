"""The paraphrase phrases each text starts, for METEOR 1.5's alignment kernel
(:mod:`vecscore.kernels.meteor_align`): found once per distinct text rather than once per (hypothesis,
reference) pair.

From each position ``a`` of a text, the text's paraphrase-table ids are followed down the table's trie of
reference phrases; every paraphrase ``p`` that a node reached after ``length`` words emits gives a row ``(a,
length, p, first, size)``, where ``size`` is the paraphrase's word count and ``first`` the call's number for its
first word (``dense[word]``); rows whose first word no text of the call has (so that they match nowhere) are
left out.  A text's rows are ordered by position, then length, then table order: the order in which the jar's
paraphrase matcher looks them up.  The rows are kept as the nodes each text reaches and the rows each node
emits, since many texts reach the same nodes.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange

__all__ = ["text_emits"]


@jit
def _child(child_ptr, child_word, child_node, v, w):
    """The trie node under node ``v`` by word ``w`` (-1 if none): a binary search of ``v``'s sorted edges."""
    lo, hi = child_ptr[v], child_ptr[v + 1]
    end = hi
    while lo < hi:
        mid = (lo + hi) >> 1
        if child_word[mid] < w:
            lo = mid + 1
        else:
            hi = mid
    if lo < end and child_word[lo] == w:
        return child_node[lo]
    return -1


@jit
def _visits(tid, lo, hi, root, child_ptr, child_word, child_node, out, at):
    """``(start, length, node)`` of every trie node the text ``tid[lo:hi]`` reaches, by start then length,
    written to ``out[:, at:]`` (when ``out`` has columns; else only counted); returns how many."""
    n = 0
    write = out.shape[1] > 0
    for a in range(lo, hi):
        if tid[a] < 0:
            continue
        v = root[tid[a]]
        b = a
        while v >= 0:
            if write:
                out[0, at + n] = a - lo
                out[1, at + n] = b - a + 1
                out[2, at + n] = v
            n += 1
            b += 1
            if b == hi or tid[b] < 0:
                break
            v = _child(child_ptr, child_word, child_node, v, tid[b])
    return n


@jit
def _node_rows(v, emit_ptr, emit, para_ptr, para_words, dense, out, at):
    """``(paraphrase, first, size)`` of each paraphrase node ``v`` emits whose first word the call has, in table
    order, written to ``out[:, at:]`` (when ``out`` has columns; else only counted); returns how many."""
    n = 0
    write = out.shape[1] > 0
    for e in range(emit_ptr[v], emit_ptr[v + 1]):
        p = emit[e]
        first = para_words[para_ptr[p]]
        if first < len(dense) and dense[first] >= 0:
            if write:
                out[0, at + n] = p
                out[1, at + n] = dense[first]
                out[2, at + n] = para_ptr[p + 1] - para_ptr[p]
            n += 1
    return n


@jit(parallel=True)
def text_emits(tid, woff, root, child_ptr, child_word, child_node, emit_ptr, emit, para_ptr, para_words, dense):
    """Every text's paraphrase rows, as ``(visits, vptr, rows, rptr, count)``: text ``t`` reaches the trie nodes
    ``visits[:, vptr[t]:vptr[t + 1]]`` (start, length, node number) by start then length, node number ``s``
    emits the rows ``rows[:, rptr[s]:rptr[s + 1]]`` (paraphrase, first, size) in table order, and text ``t``
    has ``count[t]`` rows in all.  ``root[x]``: the
    trie node under the root by paraphrase-table word ``x`` (-1 if none), for every ``x`` in ``tid``.  Each
    node is read once, however many texts reach it."""
    n_texts = len(woff) - 1
    none = np.zeros((3, 0), np.int64)
    count = np.zeros(n_texts + 1, np.int64)
    for t in prange(n_texts):
        count[t + 1] = _visits(tid, woff[t], woff[t + 1], root, child_ptr, child_word, child_node, none, 0)
    vptr = np.cumsum(count)
    visits = np.empty((3, vptr[-1]), np.int64)
    for t in prange(n_texts):
        _visits(tid, woff[t], woff[t + 1], root, child_ptr, child_word, child_node, visits, vptr[t])
    # the nodes reached, numbered in order of first visit
    number = np.full(len(emit_ptr) - 1, -1, np.int64)
    nodes = np.empty(visits.shape[1], np.int64)
    n_nodes = 0
    for q in range(visits.shape[1]):
        v = visits[2, q]
        if number[v] < 0:
            number[v] = n_nodes
            nodes[n_nodes] = v
            n_nodes += 1
        visits[2, q] = number[v]
    ncount = np.zeros(n_nodes + 1, np.int64)
    for s in prange(n_nodes):
        ncount[s + 1] = _node_rows(nodes[s], emit_ptr, emit, para_ptr, para_words, dense, none, 0)
    rptr = np.cumsum(ncount)
    rows = np.empty((3, rptr[-1]), np.int64)
    for s in prange(n_nodes):
        _node_rows(nodes[s], emit_ptr, emit, para_ptr, para_words, dense, rows, rptr[s])
    for t in prange(n_texts):  # each text's row count
        n = 0
        for q in range(vptr[t], vptr[t + 1]):
            n += ncount[visits[2, q] + 1]
        count[t + 1] = n
    return visits, vptr, rows, rptr, count[1:]
