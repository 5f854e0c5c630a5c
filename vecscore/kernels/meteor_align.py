"""Numba kernels for METEOR 1.5's alignment: the compiled twin of :mod:`vecscore.meteor.align`.

Layout.  Texts are rows of a flat array of positions, text ``t`` at ``woff[t]:woff[t + 1]``, with one value per
position: ``words`` (the word's id, for its synsets ``syn[syn_ptr[w]:syn_ptr[w + 1]]``), ``key`` (the number of
its Java ``String.hashCode``), ``stem`` (of its Snowball stem's hash), ``function`` (on the function word list),
``para`` (its id in the paraphrase table, -1 if absent) and ``para_key`` (the number of that id).  Numbers are
dense within the call (``counts``: how many hash, stem, synset and paraphrase word numbers there are), so that
equal numbers mean a match and a table indexed by them is small.  Text ``t``'s paraphrase rows
(:func:`vecscore.kernels.meteor_texts.text_emits`): the trie nodes it reaches, ``visits[:, vptr[t]:vptr[t +
1]]`` (start, length, node number), node ``s``'s rows ``rows[:, rptr[s]:rptr[s + 1]]`` (paraphrase, first
word's number, size), ``rcount[t]`` rows in all; paraphrase ``p``'s words are ``para_words[para_ptr[p]:para_ptr[p
+ 1]]``.  ``modules`` holds the module codes in the configured order (0 exact, 1 stem, 2 synonym, 3
paraphrase).  A pair ``k`` aligns hypothesis text ``hyp[k]`` (line 1) with reference text ``ref[k]`` (line 2)
and fills ``out[k]`` with the jar's 23 statistics.

Candidates come in the jar's order: module by module, by reference position, then by hypothesis position
(for paraphrases as :mod:`vecscore.meteor.align` lists them), grouped by reference position.  The
hypothesis positions holding a number are found through tables of linked lists (``heads`` indexed by number,
``links`` by position), one per module, built once for consecutive pairs that share their hypothesis (a
hypothesis and its references are consecutive pairs).  Pairs are handled in blocks, each with its own scratch
arrays.  The beam search is :func:`vecscore.kernels.meteor_beam.beam_search`.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange
from vecscore.kernels.meteor_beam import beam_search, bits_size, work_size

__all__ = ["meteor_pair_stats"]

_BLOCK = 64  # pairs per block of the parallel loop: each block has its own scratch arrays


@jit
def _room(a, n):
    """``a``, or a larger array of its type when it holds fewer than ``n`` values (contents not kept)."""
    if len(a) >= n:
        return a
    return np.empty(max(n, 2 * len(a)), a.dtype)


@jit(inline=True)
def _put(c, nc, start, length, mstart, mlength, mod):
    """Candidate ``nc``: ``length`` reference words at ``start`` with ``mlength`` hypothesis words at ``mstart``
    (``c`` has room: :func:`_block` sizes it for the pair)."""
    c[0, nc] = start
    c[1, nc] = length
    c[2, nc] = mstart
    c[3, nc] = mlength
    c[4, nc] = mod


@jit
def _index(num, lo, n, head, link):
    """Link the positions ``0..n-1`` of the text at ``num[lo:]`` into per-number lists, ascending."""
    for i in range(n - 1, -1, -1):
        x = num[lo + i]
        if x >= 0:
            link[i] = head[x]
            head[x] = i


@jit
def _unindex(num, lo, n, head):
    for i in range(n):
        if num[lo + i] >= 0:
            head[num[lo + i]] = -1


@jit
def _index_hyp(h0, n1, words, key, stem, para_key, syn_ptr, syn, heads, hoff, links, epos):
    """Index a hypothesis for every module: its positions by hash number (table 0: ``heads[hoff[0]:hoff[1]]``,
    ``links[0]``), by stem number (1), by paraphrase word number (3), and its (synset, position) pairs by synset
    (2; positions in ``epos``)."""
    _index(key, h0, n1, heads[hoff[0]:hoff[1]], links[0])
    _index(stem, h0, n1, heads[hoff[1]:hoff[2]], links[1])
    _index(para_key, h0, n1, heads[hoff[3]:hoff[4]], links[3])
    head, link = heads[hoff[2]:hoff[3]], links[2]
    ne = 0
    for i in range(n1 - 1, -1, -1):
        w = words[h0 + i]
        for s in range(syn_ptr[w], syn_ptr[w + 1]):
            x = syn[s]
            epos[ne] = i
            link[ne] = head[x]
            head[x] = ne
            ne += 1


@jit
def _unindex_hyp(h0, n1, words, key, stem, para_key, syn_ptr, syn, heads, hoff):
    _unindex(key, h0, n1, heads[hoff[0]:hoff[1]])
    _unindex(stem, h0, n1, heads[hoff[1]:hoff[2]])
    _unindex(para_key, h0, n1, heads[hoff[3]:hoff[4]])
    for i in range(n1):
        w = words[h0 + i]
        for s in range(syn_ptr[w], syn_ptr[w + 1]):
            heads[hoff[2] + syn[s]] = -1


@jit
def _phrases(c, nc, mod, visits, v0, v1, rows, rptr, d0, n_dst, para, para_ptr, para_words, head, link, forward):
    """Paraphrase candidates: the rows of one text (the trie nodes it reaches, ``visits[:, v0:v1]``, and the rows
    (paraphrase, first, size) each emits), matched at every position of the other text (indexed in
    ``head``/``link``; its words ``para[d0:]``) where the paraphrase's words occur.  ``forward``: the rows are
    the reference's."""
    for q in range(v0, v1):
        a, length, s = visits[0, q], visits[1, q], visits[2, q]
        for e in range(rptr[s], rptr[s + 1]):
            b = head[rows[1, e]]
            size = rows[2, e]
            while b >= 0:
                if b + size <= n_dst:
                    p0 = para_ptr[rows[0, e]]
                    ok = True
                    for g in range(1, size):
                        if para[d0 + b + g] != para_words[p0 + g]:
                            ok = False
                            break
                    if ok:
                        if forward:
                            _put(c, nc, a, length, b, size, mod)
                        else:
                            _put(c, nc, b, size, a, length, mod)
                        nc += 1
                b = link[b]
    return nc


@jit
def _synonyms(c, nc, mod, h0, n1, r0, n2, words, key, syn_ptr, syn, head, link, epos, flag):
    """Synonym candidates: word pairs that share a synset and have different hashes.  Each reference word marks
    the hypothesis positions its synsets reach (the hypothesis's pairs linked per synset) in ``flag``, read in
    order and cleared."""
    for j in range(n2):
        w = words[r0 + j]
        lo, hi = n1, -1
        for s in range(syn_ptr[w], syn_ptr[w + 1]):
            e = head[syn[s]]
            while e >= 0:
                i = epos[e]
                flag[i] = 1
                lo = min(lo, i)
                hi = max(hi, i)
                e = link[e]
        for i in range(lo, hi + 1):
            if flag[i]:
                flag[i] = 0
                if key[h0 + i] != key[r0 + j]:
                    _put(c, nc, j, 1, i, 1, mod)
                    nc += 1
    return nc


@jit
def _candidates(c, h0, n1, r0, n2, h, r, words, key, stem, para, para_key, syn_ptr, syn, modules, n_mods, visits,
                vptr, rows, rptr, para_ptr, para_words, heads, hoff, links, epos, flag):
    """Every candidate of the pair in the jar's order, as the columns (start, length, match_start, match_length,
    module) of ``c[:, :nc]``; returns ``nc``.  The hypothesis is indexed (:func:`_index_hyp`); the reference is
    indexed by paraphrase word number in table 4 and unindexed again."""
    nc = 0
    for mod in range(n_mods):
        code = modules[mod]
        if code == 3:
            nc = _phrases(c, nc, mod, visits, vptr[r], vptr[r + 1], rows, rptr, h0, n1, para, para_ptr, para_words,
                          heads[hoff[3]:hoff[4]], links[3], True)
            _index(para_key, r0, n2, heads[hoff[4]:hoff[5]], links[4])
            nc = _phrases(c, nc, mod, visits, vptr[h], vptr[h + 1], rows, rptr, r0, n2, para, para_ptr, para_words,
                          heads[hoff[4]:hoff[5]], links[4], False)
            _unindex(para_key, r0, n2, heads[hoff[4]:hoff[5]])
        elif code == 2:
            nc = _synonyms(c, nc, mod, h0, n1, r0, n2, words, key, syn_ptr, syn, heads[hoff[2]:hoff[3]], links[2],
                           epos, flag)
        else:
            num = key if code == 0 else stem
            head, link = heads[hoff[code]:hoff[code + 1]], links[code]
            for j in range(n2):
                i = head[num[r0 + j]]
                while i >= 0:
                    if code == 0 or key[h0 + i] != key[r0 + j]:
                        _put(c, nc, j, 1, i, 1, mod)
                        nc += 1
                    i = link[i]
    return nc


@jit
def _stats(c, sel, h0, n1, r0, n2, function, out):
    """The jar's 23 statistics of the alignment ``sel`` (the chosen candidate at each reference position, -1
    for none) into ``out``."""
    out[:] = 0.0
    out[0] = n1
    out[1] = n2
    for i in range(n1):
        if function[h0 + i]:
            out[2] += 1
    for j in range(n2):
        if function[r0 + j]:
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
            out[(6 if function[h0 + i] else 4) + 4 * mod] += 1
        for k in range(c[0, m], c[0, m] + c[1, m]):
            out[(7 if function[r0 + k] else 5) + 4 * mod] += 1
        out[21] += c[3, m]
        out[22] += c[1, m]
        if last_end != -1 and c[2, m] != last_end:
            n_chunks += 1
        j = c[0, m] + c[1, m]
        last_end = c[2, m] + c[3, m]
    if last_end != -1:
        n_chunks += 1
    out[20] = n_chunks


@jit
def _block(lo, hi, hyp, ref, woff, modules, beam, words, key, stem, function, para, para_key, syn_ptr, syn, visits,
           vptr, rows, rptr, rcount, para_ptr, para_words, counts, out):
    """Pairs ``lo:hi``, with scratch arrays shared by the block's pairs."""
    n_mods = len(modules)
    exact = np.zeros(n_mods, np.bool_)
    for mod in range(n_mods):
        exact[mod] = modules[mod] == 0
    c = np.empty((5, 256), np.int64)
    # tables of lists by number: the hypothesis's by hash, stem, synset and paraphrase word, the reference's by
    # paraphrase word (its table is ``heads[hoff[t]:hoff[t + 1]]``)
    hoff = np.zeros(6, np.int64)
    for t in range(5):
        hoff[t + 1] = hoff[t] + counts[min(t, 3)]
    heads = np.full(hoff[5], -1, np.int64)
    links = np.empty((5, 256), np.int64)
    epos = np.empty(256, np.int64)
    indexed = -1  # the hypothesis indexed in heads, links, epos: consecutive pairs often share it
    flag = np.zeros(256, np.uint8)
    iw = np.empty(1024, np.int64)
    work = np.empty(4096, np.int64)
    bits = np.empty(256, np.uint64)
    for k in range(lo, hi):
        h, r = hyp[k], ref[k]
        h0, r0 = woff[h], woff[r]
        n1, n2 = woff[h + 1] - h0, woff[r + 1] - r0
        same = n1 == n2
        for i in range(n1 if same else 0):
            if key[h0 + i] != key[r0 + i]:
                same = False
                break
        if h != indexed:
            if indexed >= 0:
                _unindex_hyp(woff[indexed], woff[indexed + 1] - woff[indexed], words, key, stem, para_key, syn_ptr,
                             syn, heads, hoff)
            n_syn = 0
            for i in range(n1):
                n_syn += syn_ptr[words[h0 + i] + 1] - syn_ptr[words[h0 + i]]
            if links.shape[1] < max(n1, n_syn):
                links = np.empty((5, max(n1, n_syn, n2, 2 * links.shape[1])), np.int64)
            epos = _room(epos, n_syn)
            _index_hyp(h0, n1, words, key, stem, para_key, syn_ptr, syn, heads, hoff, links, epos)
            indexed = h
        if links.shape[1] < n2:  # the reference's links: a new table, whose rows 0..3 are the hypothesis's
            bigger = np.empty((5, max(n2, 2 * links.shape[1])), np.int64)
            bigger[:, :links.shape[1]] = links
            links = bigger
        if len(flag) < n1:
            flag = np.zeros(max(n1, 2 * len(flag)), np.uint8)
        # room for every candidate: each word pair once per word module, each paraphrase row at each position
        n_used = 1 if same else n_mods
        room = 0
        for mod in range(n_used):
            room += n1 * n2 if modules[mod] != 3 else rcount[r] * n1 + rcount[h] * n2
        if c.shape[1] < room:
            c = np.empty((5, max(room, 2 * c.shape[1])), np.int64)
        nc = _candidates(c, h0, n1, r0, n2, h, r, words, key, stem, para, para_key, syn_ptr, syn, modules,
                         n_used, visits, vptr, rows, rptr, para_ptr, para_words, heads, hoff, links, epos, flag)
        # candidates by reference position, coverage counts, fixed and chosen candidates
        iw = _room(iw, 5 * n2 + n1 + nc + 2)
        pos_ptr = iw[:n2 + 1]
        fill = iw[n2 + 1:2 * n2 + 2]
        cov1 = iw[2 * n2 + 2:2 * n2 + 2 + n1]
        cov2 = iw[2 * n2 + 2 + n1:3 * n2 + 2 + n1]
        fixed = iw[3 * n2 + 2 + n1:4 * n2 + 2 + n1]
        sel = iw[4 * n2 + 2 + n1:5 * n2 + 2 + n1]
        pos_cand = iw[5 * n2 + 2 + n1:5 * n2 + 2 + n1 + nc]
        pos_ptr[:] = 0
        cov1[:] = 0
        cov2[:] = 0
        for m in range(nc):
            pos_ptr[c[0, m] + 1] += 1
            for q in range(c[2, m], c[2, m] + c[3, m]):
                cov1[q] += 1
            for q in range(c[0, m], c[0, m] + c[1, m]):
                cov2[q] += 1
        for j in range(n2):
            pos_ptr[j + 1] += pos_ptr[j]
            fill[j] = pos_ptr[j]
        for m in range(nc):
            pos_cand[fill[c[0, m]]] = m
            fill[c[0, m]] += 1
        for j in range(n2):
            fixed[j] = -1
            if pos_ptr[j + 1] - pos_ptr[j] == 1:  # a lone candidate that overlaps nothing is fixed
                m = pos_cand[pos_ptr[j]]
                ok = True
                for q in range(c[0, m], c[0, m] + c[1, m]):
                    ok = ok and cov2[q] == 1
                for q in range(c[2, m], c[2, m] + c[3, m]):
                    ok = ok and cov1[q] == 1
                if ok:
                    fixed[j] = m
        work = _room(work, work_size(beam, nc, n1, n2))
        bits = _room(bits, bits_size(beam, nc, n1, n2))
        beam_search(c, nc, pos_ptr, pos_cand, fixed, n1, n2, exact, beam, sel, work, bits)
        _stats(c, sel, h0, n1, r0, n2, function, out[k])


@jit(parallel=True)
def meteor_pair_stats(woff, hyp, ref, modules, beam, words, key, stem, function, para, para_key, syn_ptr, syn,
                      visits, vptr, rows, rptr, rcount, para_ptr, para_words, counts):
    """The 23 statistics of every pair ``(hyp[k], ref[k])``, shape ``(n_pairs, 23)``."""
    n = len(hyp)
    out = np.zeros((n, 23), np.float64)
    n_blocks = (n + _BLOCK - 1) // _BLOCK
    for b in prange(n_blocks):
        _block(b * _BLOCK, min(n, (b + 1) * _BLOCK), hyp, ref, woff, modules, beam, words, key, stem, function, para,
               para_key, syn_ptr, syn, visits, vptr, rows, rptr, rcount, para_ptr, para_words, counts, out)
    return out
