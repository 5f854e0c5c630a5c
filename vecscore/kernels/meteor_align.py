"""Numba kernels for METEOR 1.5's alignment: the compiled twin of :mod:`vecscore.meteor.align`.

Layout.  Texts are rows of word ids ``words[woff[t]:woff[t + 1]]``; a word id indexes the per-word
features: ``key`` (Java's ``String.hashCode`` of the word), ``stem_key`` (of its Snowball stem),
``function`` (on the function word list), ``syn[syn_ptr[w]:syn_ptr[w + 1]]`` (sorted synset numbers) and
``para`` (the word's id in the paraphrase table, -1 if absent).  The paraphrase table is a trie over those
ids: node ``v``'s children are ``child_word[child_ptr[v]:child_ptr[v + 1]]`` (sorted) with nodes
``child_node[...]``, the paraphrases it emits ``emit[emit_ptr[v]:emit_ptr[v + 1]]`` (in the table's
order), and paraphrase ``p``'s words ``para_words[para_ptr[p]:para_ptr[p + 1]]``; node 0 is the root.
``modules`` holds the module codes in the configured order (0 exact, 1 stem, 2 synonym, 3 paraphrase).
A pair ``k`` aligns hypothesis text ``hyp[k]`` (line 1) with reference text ``ref[k]`` (line 2) and
fills ``out[k]`` with the jar's 23 statistics.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange

__all__ = ["meteor_pair_stats"]


@jit
def _grow(a, n):
    b = np.empty(max(2 * len(a), n), a.dtype)
    b[:len(a)] = a
    return b


@jit
def _intersects(syn, syn_ptr, a, b):
    i, ie = syn_ptr[a], syn_ptr[a + 1]
    j, je = syn_ptr[b], syn_ptr[b + 1]
    while i < ie and j < je:
        x, y = syn[i], syn[j]
        if x == y:
            return True
        if x < y:
            i += 1
        else:
            j += 1
    return False


@jit
def _child(child_ptr, child_word, child_node, v, w):
    lo, hi = child_ptr[v], child_ptr[v + 1]
    while lo < hi:
        mid = (lo + hi) >> 1
        if child_word[mid] < w:
            lo = mid + 1
        else:
            hi = mid
    if lo < child_ptr[v + 1] and child_word[lo] == w:
        return child_node[lo]
    return -1


@jit
def _phrase_at(line, at, para_words, p0, p1):
    n = len(line)
    for k in range(p1 - p0):
        if at + k == n or line[at + k] != para_words[p0 + k]:
            return False
    return True


@jit
def _candidates(w1, w2, key, stem_key, syn, syn_ptr, para, modules, n_mods, child_ptr, child_word, child_node,
                emit_ptr, emit, para_ptr, para_words):
    """Candidate matches in the jar's order: arrays (start, length, match_start, match_length, module)."""
    n1, n2 = len(w1), len(w2)
    cap = max(16, 2 * n1 * n2)
    c = np.empty((5, cap), np.int64)
    nc = 0
    for mod in range(n_mods):
        code = modules[mod]
        if code == 3:
            t1 = np.empty(n1, np.int64)
            t2 = np.empty(n2, np.int64)
            for i in range(n1):
                t1[i] = para[w1[i]]
            for j in range(n2):
                t2[j] = para[w2[j]]
            for side in range(2):
                src = t2 if side == 0 else t1
                dst = t1 if side == 0 else t2
                for a in range(len(src)):
                    v = 0
                    for length in range(1, len(src) - a + 1):
                        if src[a + length - 1] < 0:
                            break
                        v = _child(child_ptr, child_word, child_node, v, src[a + length - 1])
                        if v < 0:
                            break
                        for e in range(emit_ptr[v], emit_ptr[v + 1]):
                            p = emit[e]
                            p0, p1 = para_ptr[p], para_ptr[p + 1]
                            for b in range(len(dst)):
                                if _phrase_at(dst, b, para_words, p0, p1):
                                    if nc == c.shape[1]:
                                        bigger = np.empty((5, 2 * nc), np.int64)
                                        bigger[:, :nc] = c
                                        c = bigger
                                    if side == 0:
                                        c[0, nc], c[1, nc], c[2, nc], c[3, nc] = a, length, b, p1 - p0
                                    else:
                                        c[0, nc], c[1, nc], c[2, nc], c[3, nc] = b, p1 - p0, a, length
                                    c[4, nc] = mod
                                    nc += 1
            continue
        for j in range(n2):
            for i in range(n1):
                x, y = w1[i], w2[j]
                if code == 0:
                    ok = key[x] == key[y]
                elif code == 1:
                    ok = stem_key[x] == stem_key[y] and key[x] != key[y]
                else:
                    ok = key[x] != key[y] and _intersects(syn, syn_ptr, x, y)
                if ok:
                    if nc == c.shape[1]:
                        bigger = np.empty((5, 2 * nc), np.int64)
                        bigger[:, :nc] = c
                        c = bigger
                    c[0, nc], c[1, nc], c[2, nc], c[3, nc], c[4, nc] = j, 1, i, 1, mod
                    nc += 1
    return c[:, :nc]


@jit
def _before(score, chunks, dist, a, b):
    """Whether path ``a`` ranks strictly before path ``b`` (more weighted matches, fewer chunks, less distance)."""
    if score[a] != score[b]:
        return score[a] > score[b]
    if chunks[a] != chunks[b]:
        return chunks[a] < chunks[b]
    return dist[a] < dist[b]


@jit
def _stable_order(score, chunks, dist, rows, n):
    """``rows[:n]`` in rank order, ties in list order (an insertion sort: the list is mostly in order already,
    as the paths that go on unchanged keep their order)."""
    order = rows[:n].copy()
    for i in range(1, n):
        x = order[i]
        j = i - 1
        while j >= 0 and _before(score, chunks, dist, x, order[j]):
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = x
    return order


@jit
def _bit(bits, row, k):
    return (bits[row, k >> 6] >> np.uint64(k & 63)) & np.uint64(1)


@jit
def _busy(u1, u2, row, c, m):
    for k in range(c[0, m], c[0, m] + c[1, m]):
        if _bit(u2, row, k):
            return True
    for k in range(c[2, m], c[2, m] + c[3, m]):
        if _bit(u1, row, k):
            return True
    return False


@jit
def _mark(u1, u2, row, c, m):
    for k in range(c[0, m], c[0, m] + c[1, m]):
        u2[row, k >> 6] |= np.uint64(1) << np.uint64(k & 63)
    for k in range(c[2, m], c[2, m] + c[3, m]):
        u1[row, k >> 6] |= np.uint64(1) << np.uint64(k & 63)


@jit
def _take(p, m, c, weight, s1, s2, chunks, idx, last):
    """Path ``p`` takes candidate ``m`` (the jar's running sums are integers: each is truncated)."""
    w = weight[c[4, m]]
    s1[p] = np.int64(s1[p] + c[3, m] * w)
    s2[p] = np.int64(s2[p] + c[1, m] * w)
    if last[p] != -1 and c[2, m] != last[p]:
        chunks[p] += 1
    idx[p] = c[0, m] + c[1, m]
    last[p] = c[2, m] + c[3, m]


@jit
def _search(c, pos_ptr, pos_cand, fixed, n1, n2, weight, beam, max_at):
    """The jar's beam search over the reference positions; returns the chosen candidate at each (-1: none).

    Paths live in rows of a pool (used words as bit sets, the running sums, chunks, position, end of the last
    match, distance); a path that goes on unchanged keeps its row, a branch takes a free row, and the chosen
    candidates are linked lists shared between paths."""
    w1 = max(1, (n1 + 63) >> 6)
    w2 = max(1, (n2 + 63) >> 6)
    cap = 2 * beam * (max_at + 1) + 2
    u1 = np.zeros((cap, w1), np.uint64)
    u2 = np.zeros((cap, w2), np.uint64)
    s1 = np.zeros(cap, np.int64)
    s2 = np.zeros(cap, np.int64)
    chunks = np.zeros(cap, np.int64)
    idx = np.zeros(cap, np.int64)
    last = np.full(cap, -1, np.int64)
    dist = np.zeros(cap, np.int64)
    hist = np.full(cap, -1, np.int64)
    score = np.zeros(cap, np.int64)
    node_m = np.empty(64, np.int64)
    node_prev = np.empty(64, np.int64)
    n_nodes = 0
    free = np.empty(cap, np.int64)
    n_free = 0
    for r in range(cap - 1, 0, -1):  # row 0 holds the start path
        free[n_free] = r
        n_free += 1
    for j in range(n2):
        if fixed[j] >= 0:
            _mark(u1, u2, 0, c, fixed[j])
    cur = np.zeros(cap, np.int64)
    nxt = np.zeros(cap, np.int64)
    n_cur = 1
    for current in range(n2 + 1):
        for q in range(n_cur):
            score[cur[q]] = s1[cur[q]] + s2[cur[q]]
        order = _stable_order(score, chunks, dist, cur, n_cur)
        for rank in range(beam, n_cur):  # beyond the beam: dropped
            free[n_free] = order[rank]
            n_free += 1
        nn = 0
        for rank in range(min(beam, n_cur)):
            p = order[rank]
            if current == n2:
                if last[p] != -1:
                    chunks[p] += 1
                nxt[nn] = p
                nn += 1
                continue
            if _bit(u2, p, current):
                if current < idx[p]:
                    nxt[nn] = p
                    nn += 1
                elif fixed[idx[p]] >= 0:
                    m = fixed[idx[p]]
                    _take(p, m, c, weight, s1, s2, chunks, idx, last)
                    dist[p] += abs(c[0, m] - c[2, m])
                    nxt[nn] = p
                    nn += 1
                else:  # pragma: no cover - the jar drops such a path; no input reaches it
                    free[n_free] = p
                    n_free += 1
                continue
            for q in range(pos_ptr[current], pos_ptr[current + 1]):
                m = pos_cand[q]
                if _busy(u1, u2, p, c, m):
                    continue
                n_free -= 1
                t = free[n_free]
                u1[t, :] = u1[p, :]
                u2[t, :] = u2[p, :]
                s1[t], s2[t], chunks[t], idx[t], last[t], dist[t] = s1[p], s2[p], chunks[p], idx[p], last[p], dist[p]
                _mark(u1, u2, t, c, m)
                if n_nodes == len(node_m):
                    node_m = _grow(node_m, n_nodes + 1)
                    node_prev = _grow(node_prev, n_nodes + 1)
                node_m[n_nodes] = m
                node_prev[n_nodes] = hist[p]
                hist[t] = n_nodes
                n_nodes += 1
                _take(t, m, c, weight, s1, s2, chunks, idx, last)
                dist[p] += abs(c[0, m] - c[2, m])  # the jar adds the distance to the parent path
                nxt[nn] = t
                nn += 1
            if last[p] != -1:
                chunks[p] += 1
                last[p] = -1
            idx[p] += 1
            nxt[nn] = p
            nn += 1
        if nn == 0:  # pragma: no cover - the jar's fallback; no input reaches it
            nxt[0] = order[0]
            nn = 1
        cur, nxt = nxt, cur
        n_cur = nn
    for q in range(n_cur):
        score[cur[q]] = s1[cur[q]] + s2[cur[q]]
    best = _stable_order(score, chunks, dist, cur, n_cur)[0]
    sel = fixed.copy()
    v = hist[best]
    while v >= 0:
        sel[c[0, node_m[v]]] = node_m[v]
        v = node_prev[v]
    return sel


@jit
def _align_stats(w1, w2, key, stem_key, function, syn, syn_ptr, para, modules, beam, child_ptr, child_word,
                 child_node, emit_ptr, emit, para_ptr, para_words, out):
    n1, n2 = len(w1), len(w2)
    n_mods = len(modules)
    same = n1 == n2
    if same:
        for i in range(n1):
            if key[w1[i]] != key[w2[i]]:
                same = False
                break
    c = _candidates(w1, w2, key, stem_key, syn, syn_ptr, para, modules, 1 if same else n_mods, child_ptr,
                    child_word, child_node, emit_ptr, emit, para_ptr, para_words)
    nc = c.shape[1]
    cov1 = np.zeros(n1, np.int64)
    cov2 = np.zeros(n2, np.int64)
    pos_n = np.zeros(n2 + 1, np.int64)
    for m in range(nc):
        pos_n[c[0, m] + 1] += 1
        for k in range(c[2, m], c[2, m] + c[3, m]):
            cov1[k] += 1
        for k in range(c[0, m], c[0, m] + c[1, m]):
            cov2[k] += 1
    pos_ptr = np.cumsum(pos_n)
    fill = pos_ptr[:-1].copy()
    pos_cand = np.empty(nc, np.int64)
    for m in range(nc):
        pos_cand[fill[c[0, m]]] = m
        fill[c[0, m]] += 1
    max_at = 0
    fixed = np.full(n2, -1, np.int64)
    for j in range(n2):
        max_at = max(max_at, pos_ptr[j + 1] - pos_ptr[j])
        if pos_ptr[j + 1] - pos_ptr[j] == 1:  # a lone candidate that overlaps nothing is fixed
            m = pos_cand[pos_ptr[j]]
            ok = True
            for k in range(c[0, m], c[0, m] + c[1, m]):
                if cov2[k] != 1:
                    ok = False
            for k in range(c[2, m], c[2, m] + c[3, m]):
                if cov1[k] != 1:
                    ok = False
            if ok:
                fixed[j] = m
    weight = np.empty(n_mods, np.float64)
    for mod in range(n_mods):
        weight[mod] = 1.0 if modules[mod] == 0 else 0.5
    sel = _search(c, pos_ptr, pos_cand, fixed, n1, n2, weight, beam, max_at)

    out[:] = 0.0
    out[0] = n1
    out[1] = n2
    for i in range(n1):
        if function[w1[i]]:
            out[2] += 1
    for j in range(n2):
        if function[w2[j]]:
            out[3] += 1
    n_chunks = 0
    last_end = -1
    j = 0
    while j < n2:
        m = sel[j]
        if m < 0:
            if last_end != -1:
                n_chunks += 1
                last_end = -1
            j += 1
            continue
        mod = c[4, m]
        for i in range(c[2, m], c[2, m] + c[3, m]):
            if function[w1[i]]:
                out[6 + 4 * mod] += 1
            else:
                out[4 + 4 * mod] += 1
        for k in range(c[0, m], c[0, m] + c[1, m]):
            if function[w2[k]]:
                out[7 + 4 * mod] += 1
            else:
                out[5 + 4 * mod] += 1
        out[21] += c[3, m]
        out[22] += c[1, m]
        if last_end != -1 and c[2, m] != last_end:
            n_chunks += 1
        j = c[0, m] + c[1, m]
        last_end = c[2, m] + c[3, m]
    if last_end != -1:
        n_chunks += 1
    out[20] = n_chunks


@jit(parallel=True)
def meteor_pair_stats(words, woff, hyp, ref, key, stem_key, function, syn, syn_ptr, para, modules, beam, child_ptr,
                      child_word, child_node, emit_ptr, emit, para_ptr, para_words):
    """The 23 statistics of every pair ``(hyp[k], ref[k])``, shape ``(n_pairs, 23)``."""
    n = len(hyp)
    out = np.zeros((n, 23), np.float64)
    for k in prange(n):
        h, r = hyp[k], ref[k]
        _align_stats(words[woff[h]:woff[h + 1]], words[woff[r]:woff[r + 1]], key, stem_key, function, syn, syn_ptr,
                     para, modules, beam, child_ptr, child_word, child_node, emit_ptr, emit, para_ptr, para_words,
                     out[k])
    return out
