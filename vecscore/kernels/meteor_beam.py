"""METEOR 1.5's beam search over one pair's candidates, as meteor-1.5.jar's Aligner runs it (the plain
twin is :func:`vecscore.meteor.align._resolve`).

Candidates are the columns (start, length, match_start, match_length, module) of ``c``, grouped by
reference position: those starting at reference position ``j`` are ``pos_cand[pos_ptr[j]:pos_ptr[j + 1]]``
in the jar's order; ``fixed[j]`` is the candidate fixed at ``j`` before the search (-1: none).

The search walks the reference positions.  At each position every kept path either goes on unchanged (its
word there is used), or branches on each candidate there that overlaps none of its words and then skips
the position.  The jar's quirks are kept: running sums are integers (a search weight of 0.5 for the modules
other than exact truncates each addition: ``s + n * 0.5`` becomes ``s + n // 2``), a branch's distance is
added to the *parent* path (so its later branches and its skip inherit it), and paths are ranked by a
stable sort on (more weighted matches, fewer chunks, less distance), ties in the order the paths were made.

Paths live in rows of a pool: rank key, weighted matches, chunks, next reference position, end of the last
match on line 1, distance, the head of its list of chosen candidates (lists shared between paths), and the
used words of both lines as bit sets.  A step ranks the paths as it makes them: each goes into a ranked list
of at most ``beam`` (after every earlier path it does not rank before, which is the stable sort's order),
or is dropped when it ranks after all of a full list, whose last path then drops out.  A branch takes a free
row only when it gets in; a path going on keeps its row; dropped rows are free again at once.  The pool
needs ``2 * beam + 1`` rows: the step's old paths and its new ones.

The rank key packs (matches, chunks, distance) into one integer when the pair's bounds allow it (always,
short of texts of thousands of words with millions of candidates); else it packs (matches, chunks) and the
distance breaks ties.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit

__all__ = ["beam_search", "work_size", "bits_size"]

# a row of the pool: rank key (larger ranks first), weighted matches, chunks, next reference position, end of
# the last match on line 1 (-1: none), distance, head of its chosen-candidate list (-1: empty), the step that
# made it (a branch's list node is its own until a later step)
_KEY, _SC, _CH, _IDX, _LAST, _DIST, _HIST, _BORN = 0, 1, 2, 3, 4, 5, 6, 7
_NF = 8
# per candidate: word of its line-1 span in a bit set (-1: the span crosses words), word of its line-2 span,
# weighted matches it adds, its line-1 start and end, its distance, its line-2 end
_CW1, _CW2, _CINC, _CSTART, _CEND, _CDIST, _CREND = 0, 1, 2, 3, 4, 5, 6
_NC = 8
#: the largest rank key packed with the distance (above it, the distance breaks ties on its own); a test sets it
#: to 0 (plain Python kernels) to run the other way
_PACK_LIMIT = 2.0 ** 62


@jit
def work_size(beam, nc, n1, n2):
    """The ``int64`` scratch :func:`beam_search` needs."""
    return (2 * beam + 1) * (_NF + 1) + 3 * (beam + 1) + 3 * (beam * (min(nc, n2) + 1) + 1) + nc * _NC


@jit
def bits_size(beam, nc, n1, n2):
    """The ``uint64`` scratch :func:`beam_search` needs."""
    return (2 * beam + 1) * (((n1 + 63) >> 6) + ((n2 + 63) >> 6)) + 2 * nc + 1


@jit(inline=True)
def _bit(k):
    """The bit of word ``k`` within its 64-bit word of a bit set."""
    return np.uint64(1) << np.uint64(k & 63)


@jit(inline=True)
def _rank_key(sc, ch, dist, span_ch, span_d, packed):
    """A path's rank as one integer, larger ranking first: more weighted matches, then fewer chunks, then (when
    ``packed``) a smaller distance."""
    return (sc * span_ch + span_ch - 1 - ch) * span_d + (span_d - 1 - dist if packed else 0)


@jit(inline=True)
def _take_fixed(st, pb, ct, m, sc, ch, last, dist, span_ch, span_d, packed):
    """The path in row ``pb`` reaches fixed match ``m`` and takes it (its sums, chunks, distance, position, key)."""
    t = m * _NC
    sc += ct[t + _CINC]
    ch += 1 if last != -1 and ct[t + _CSTART] != last else 0
    dist += ct[t + _CDIST]
    st[pb + _SC], st[pb + _CH], st[pb + _LAST], st[pb + _DIST] = sc, ch, ct[t + _CEND], dist
    st[pb + _IDX] = ct[t + _CREND]
    st[pb + _KEY] = _rank_key(sc, ch, dist, span_ch, span_d, packed)


@jit(inline=True)
def _place(okey, order, st, k, beam, key, dist, packed):
    """Where a path ranked ``key`` (and ``dist``, when the key does not hold the distance) goes in the ranked
    list of the step's paths so far (rows ``order[:k]``, keys ``okey[:k]``): after every path it does not rank
    before; -1 when the list is full and it ranks before none."""
    if k > 0 and not (key > okey[k - 1] or (not packed and key == okey[k - 1] and
                                            dist < st[order[k - 1] * _NF + _DIST])):
        return k if k < beam else -1
    if packed:  # after every key that is not smaller: a count with no branch (the keys are in order)
        at = 0
        for i in range(k):
            at += np.int64(okey[i] >= key)
        return at
    base = 0  # the place is in base..base + length - 1 (at most k - 1: it ranks before the last)
    length = k
    while length > 1:
        half = length >> 1
        i = base + half - 1
        before = key > okey[i] or (key == okey[i] and dist < st[order[i] * _NF + _DIST])
        base += half * (1 - np.int64(before))
        length -= half
    return base


@jit
def _candidate_table(c, nc, exact, w1, ct, cmask):
    """Per candidate what the search reads (``ct``) and its spans as masked words of the bit sets (``cmask``);
    returns the sum of the candidates' distances."""
    dsum = 0
    for m in range(nc):
        t = m * _NC
        a, b = c[2, m], c[2, m] + c[3, m] - 1
        g, h = c[0, m], c[0, m] + c[1, m] - 1
        one = (a >> 6) == (b >> 6) and (g >> 6) == (h >> 6)
        ct[t + _CW1] = a >> 6 if one else -1
        ct[t + _CW2] = w1 + (g >> 6)
        m1 = np.uint64(0)
        m2 = np.uint64(0)
        for q in range(a, b + 1):
            m1 |= _bit(q)
        for q in range(g, h + 1):
            m2 |= _bit(q)
        cmask[2 * m] = m1
        cmask[2 * m + 1] = m2
        ct[t + _CINC] = (c[3, m] + c[1, m]) if exact[c[4, m]] else (c[3, m] >> 1) + (c[1, m] >> 1)
        ct[t + _CSTART] = c[2, m]
        ct[t + _CEND] = c[2, m] + c[3, m]
        ct[t + _CDIST] = abs(c[0, m] - c[2, m])
        ct[t + _CREND] = c[0, m] + c[1, m]
        dsum += ct[t + _CDIST]
    return dsum


@jit
def beam_search(c, nc, pos_ptr, pos_cand, fixed, n1, n2, exact, beam, sel, work, bits):
    """The jar's beam search; fills ``sel`` with the chosen candidate at each reference position (-1: none).
    ``exact[module]``: whether the module has search weight 1 (else 0.5).  ``work`` and ``bits`` are scratch of
    at least :func:`work_size` and :func:`bits_size` values."""
    cap = 2 * beam + 1
    w1 = (n1 + 63) >> 6
    nw = w1 + ((n2 + 63) >> 6)
    o = 0
    st = work[o:o + cap * _NF]
    o += cap * _NF
    free = work[o:o + cap]
    o += cap
    live = work[o:o + beam + 1]
    o += beam + 1
    order = work[o:o + beam + 1]
    o += beam + 1
    okey = work[o:o + beam + 1]
    o += beam + 1
    # list nodes in use: each step's branches that outlive it (at most ``beam``, at most once per reference
    # position with candidates) and the current step's (at most ``beam``: a branch that drops out in its own
    # step gives its node back)
    n_nodes_cap = beam * (min(nc, n2) + 1) + 1
    node_m = work[o:o + n_nodes_cap]
    node_prev = work[o + n_nodes_cap:o + 2 * n_nodes_cap]
    node_free = work[o + 2 * n_nodes_cap:o + 3 * n_nodes_cap]
    o += 3 * n_nodes_cap
    ct = work[o:o + nc * _NC]
    cmask = bits[cap * nw:cap * nw + 2 * nc]
    dsum = _candidate_table(c, nc, exact, w1, ct, cmask)
    # rank key: matches first (more), then chunks (fewer), then distance (less); chunks <= 2 * n2, matches <=
    # n1 + n2, distance <= the sum of all candidates' distances
    span_ch = 2 * n2 + 2
    span_d = dsum + 1
    packed = (n1 + n2 + 1.0) * span_ch * span_d < _PACK_LIMIT
    if not packed:
        span_d = 1
    fixed_grow = 0
    for j in range(n2):
        if fixed[j] >= 0:
            fixed_grow = max(fixed_grow, ct[fixed[j] * _NC + _CINC])

    for f in range(_NF):  # row 0: the start path, with the fixed candidates' words used
        st[f] = 0
    st[_KEY] = (span_ch - 1) * span_d + span_d - 1
    st[_LAST] = -1
    st[_HIST] = -1
    st[_BORN] = -1
    for f in range(nw):
        bits[f] = 0
    for j in range(n2):
        m = fixed[j]
        if m >= 0:
            for q in range(c[0, m], c[0, m] + c[1, m]):
                bits[w1 + (q >> 6)] |= _bit(q)
            for q in range(c[2, m], c[2, m] + c[3, m]):
                bits[q >> 6] |= _bit(q)
    n_free = 0
    for r in range(cap - 1, 0, -1):
        free[n_free] = r
        n_free += 1
    order[0], okey[0] = 0, st[_KEY]
    k = 1
    n_nodes = 0
    n_node_free = 0
    for current in range(n2):
        cw = w1 + (current >> 6)
        cb = _bit(current)
        if fixed[current] >= 0 or pos_ptr[current] == pos_ptr[current + 1]:
            # no path branches here (a fixed match's words are used on every path): each goes on in its row,
            # and the list is sorted again (stably, by insertion: it is in order or nearly)
            n_live = k
            k = 0
            for r in range(n_live):
                p = order[r]
                pb = p * _NF
                sc, ch, last, dist = st[pb + _SC], st[pb + _CH], st[pb + _LAST], st[pb + _DIST]
                if bits[p * nw + cw] & cb:
                    idx = st[pb + _IDX]
                    if current >= idx:
                        m = fixed[idx]
                        if m < 0:  # pragma: no cover - the jar drops such a path; no input reaches it
                            free[n_free] = p
                            n_free += 1
                            continue
                        _take_fixed(st, pb, ct, m, sc, ch, last, dist, span_ch, span_d, packed)
                else:  # it skips the position
                    ended = np.int64(last != -1)
                    st[pb + _CH] = ch + ended
                    st[pb + _LAST] = -1
                    st[pb + _IDX] += 1
                    st[pb + _KEY] -= ended * span_d
                order[k], okey[k] = p, st[pb + _KEY]
                k += 1
            if k == 0:  # pragma: no cover - the jar's fallback (its best path goes on); no input reaches it
                for q in range(n_free):
                    if free[q] == order[0]:
                        free[q] = free[n_free - 1]
                        n_free -= 1
                        break
                k = 1
                okey[0] = st[order[0] * _NF + _KEY]
            for r in range(1, k):
                x, key = order[r], okey[r]
                dist = st[x * _NF + _DIST]
                i = r - 1
                while i >= 0 and (key > okey[i] or (not packed and key == okey[i] and
                                                    dist < st[order[i] * _NF + _DIST])):
                    order[i + 1], okey[i + 1] = order[i], okey[i]
                    i -= 1
                order[i + 1], okey[i + 1] = x, key
            continue
        for r in range(k):
            live[r] = order[r]
        n_live = k
        k = 0
        # no path makes a key above its own plus the most a match adds (chunks and distance only grow): once
        # that is no better than the last of a full list, neither this path nor any after it gets in
        grow = fixed_grow
        for q in range(pos_ptr[current], pos_ptr[current + 1]):
            grow = max(grow, ct[pos_cand[q] * _NC + _CINC])
        grow *= span_ch * span_d
        for r in range(n_live):
            p = live[r]
            pb = p * _NF
            pw = p * nw
            if k == beam:
                bound = st[pb + _KEY] + grow
                if bound < okey[k - 1] or (packed and bound == okey[k - 1]):
                    for q in range(r, n_live):
                        free[n_free] = live[q]
                        n_free += 1
                    break
            sc, ch, last, dist = st[pb + _SC], st[pb + _CH], st[pb + _LAST], st[pb + _DIST]
            if bits[pw + cw] & cb:  # its word here is used: it goes on, taking a fixed match that starts here
                idx = st[pb + _IDX]
                if current >= idx:
                    m = fixed[idx]
                    if m < 0:  # pragma: no cover - the jar drops such a path; no input reaches it
                        free[n_free] = p
                        n_free += 1
                        continue
                    _take_fixed(st, pb, ct, m, sc, ch, last, dist, span_ch, span_d, packed)
            else:
                for q in range(pos_ptr[current], pos_ptr[current + 1]):  # a branch for each free candidate
                    m = pos_cand[q]
                    t = m * _NC
                    if ct[t + _CW1] >= 0:
                        if (bits[pw + ct[t + _CW1]] & cmask[2 * m]) | (bits[pw + ct[t + _CW2]] & cmask[2 * m + 1]):
                            continue
                    else:
                        busy = False
                        for g in range(c[0, m], c[0, m] + c[1, m]):
                            busy = busy or (bits[pw + w1 + (g >> 6)] & _bit(g)) != 0
                        for g in range(c[2, m], c[2, m] + c[3, m]):
                            busy = busy or (bits[pw + (g >> 6)] & _bit(g)) != 0
                        if busy:
                            continue
                    bsc = sc + ct[t + _CINC]
                    bch = ch + (1 if last != -1 and ct[t + _CSTART] != last else 0)
                    key = _rank_key(bsc, bch, dist, span_ch, span_d, packed)
                    bdist = dist
                    dist += ct[t + _CDIST]  # the jar adds the distance to the parent path
                    at = _place(okey, order, st, k, beam, key, bdist, packed)
                    if at < 0:
                        continue
                    if k == beam:
                        k -= 1
                        free[n_free] = order[k]
                        n_free += 1
                        if st[order[k] * _NF + _BORN] == current:
                            node_free[n_node_free] = st[order[k] * _NF + _HIST]
                            n_node_free += 1
                    n_free -= 1
                    row = free[n_free]
                    tb, tw = row * _NF, row * nw
                    for f in range(nw):
                        bits[tw + f] = bits[pw + f]
                    if ct[t + _CW1] >= 0:
                        bits[tw + ct[t + _CW1]] |= cmask[2 * m]
                        bits[tw + ct[t + _CW2]] |= cmask[2 * m + 1]
                    else:
                        for g in range(c[0, m], c[0, m] + c[1, m]):
                            bits[tw + w1 + (g >> 6)] |= _bit(g)
                        for g in range(c[2, m], c[2, m] + c[3, m]):
                            bits[tw + (g >> 6)] |= _bit(g)
                    st[tb + _KEY], st[tb + _SC], st[tb + _CH] = key, bsc, bch
                    st[tb + _IDX], st[tb + _LAST], st[tb + _DIST] = ct[t + _CREND], ct[t + _CEND], bdist
                    if n_node_free > 0:
                        n_node_free -= 1
                        node = node_free[n_node_free]
                    else:
                        node = n_nodes
                        n_nodes += 1
                    node_m[node] = m
                    node_prev[node] = st[pb + _HIST]
                    st[tb + _HIST] = node
                    st[tb + _BORN] = current
                    for i in range(k, at, -1):
                        order[i], okey[i] = order[i - 1], okey[i - 1]
                    order[at], okey[at] = row, key
                    k += 1
                # then the path skips the position
                ch += 1 if last != -1 else 0
                st[pb + _CH], st[pb + _LAST], st[pb + _DIST] = ch, -1, dist
                st[pb + _IDX] += 1
                st[pb + _KEY] = _rank_key(sc, ch, dist, span_ch, span_d, packed)
            key = st[pb + _KEY]
            at = _place(okey, order, st, k, beam, key, st[pb + _DIST], packed)
            if at < 0:
                free[n_free] = p
                n_free += 1
                continue
            if k == beam:
                k -= 1
                free[n_free] = order[k]
                n_free += 1
                if st[order[k] * _NF + _BORN] == current:
                    node_free[n_node_free] = st[order[k] * _NF + _HIST]
                    n_node_free += 1
            for i in range(k, at, -1):
                order[i], okey[i] = order[i - 1], okey[i - 1]
            order[at], okey[at] = p, key
            k += 1
        if k == 0:  # pragma: no cover - the jar's fallback (its best path goes on); no input reaches it
            for q in range(n_free):
                if free[q] == live[0]:
                    free[q] = free[n_free - 1]
                    n_free -= 1
                    break
            order[0] = live[0]
            okey[0] = st[live[0] * _NF + _KEY]
            k = 1
    # the jar ends each path's last chunk, ranks again and takes the first
    best = order[0]
    bsc = bch = bd = 0
    for r in range(k):
        b = order[r] * _NF
        sc, ch, d = st[b + _SC], st[b + _CH] + (1 if st[b + _LAST] != -1 else 0), st[b + _DIST]
        if r == 0 or sc > bsc or (sc == bsc and (ch < bch or (ch == bch and d < bd))):
            best, bsc, bch, bd = order[r], sc, ch, d
    for j in range(n2):
        sel[j] = fixed[j]
    v = st[best * _NF + _HIST]
    while v >= 0:
        sel[c[0, node_m[v]]] = node_m[v]
        v = node_prev[v]
