"""rouge-score's ROUGE-Lsum of one pair, on the pair-local token ids of :mod:`vecscore.kernels.pair_rouge`.

The per-pair kernel calls these after it has tokenized a pair, so that
ROUGE-N, ROUGE-L and ROUGE-Lsum all come from one tokenization of the texts.

Sentences are rouge-score's (``sentence_splitter="newline"``): the lines of
a text (``text.split("\\n")``), each tokenized alone.  A newline is a
separator for the byte tokenizers, so a text's sentences are its tokens
grouped by the newlines between them: :func:`text_sentences` finds them from
the tokens' byte offsets and the text's newline bytes (64 at a time), and
drops the lines without tokens (rouge-score's empty sentences add nothing).
With ``sentence_splitter="punct"``, an ASCII text's sentences also end where
that splitter's Latin rule puts a newline (after a word ending in ``[.!?]``
and closers, before the spaces that follow it; :mod:`vecscore.kernels.sentences`):
those breaks fall on separator bytes too, so the tokens are the same, and
:func:`text_sentences` finds them from the ``[.!?]`` bytes of the same blocks
(no split copy of the text; other texts are split before they reach the kernel).

:func:`lsum_hits` is :func:`vecscore.kernels.union_lcs.union_lcs_hits_pairs`
on one (hypothesis, reference) pair: for every reference sentence, the union
of the reference positions on its LCS with each hypothesis sentence (rouge-score's
``_union_lcs``, with its walk back through the LCS table, which decides the
positions chosen), counted in reference order while the token's count in both
whole texts stays positive (``_summary_level_lcs``).  A hypothesis sentence of
up to 64 tokens walks back over bit-parallel rows (``O(len(ref sentence))``
words); a longer one needs the int32 table of the two sentences, which must
fit the ``table`` scratch the caller sized (at most :data:`TABLE_CELLS`
cells).  A pair whose table does not fit gets ``-1``: its caller scores it on
the general route (:mod:`vecscore.kernels.union_lcs`, which allocates the
table it needs).

Scratch, all sized by the caller from the pair's byte lengths: token byte
offsets (one per token), sentence bounds (one per token and text), a count
and a bit-mask word per distinct token, two words per reference token plus
one mark, and the table.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit
from vecscore.kernels.sentences import word_keeps_going
from vecscore.kernels.swar import block_64, ctz, low_bits, popcount, range_bits, text_at
from vecscore.kernels.union_lcs import add_budget, clear_budget, mark_lcs

__all__ = ["text_sentences", "lsum_hits", "table_cells", "TABLE_CELLS"]

#: The largest LCS table (int32 cells) a thread keeps for hypothesis sentences of more than 64
#: tokens (1 MiB); a pair that needs more is scored on the general route.
TABLE_CELLS = 1 << 18

_NEWLINE = 10


@jit
def text_sentences(addr, n, tpos, k0, k1, sent, ns, pad, punct, keys):
    """Append the sentence ends of the text of ``n`` bytes at ``addr`` to ``sent[ns:]``; returns the new ``ns``.

    The text's tokens are ``k0..k1-1``, with their byte offsets in the text in
    ``tpos[k0:k1]``; ``sent[ns - 1]`` holds ``k0``, where its first sentence
    starts.  A sentence ends at every break that has tokens between it and
    the previous end; the last ends at ``k1``.  Breaks are the newlines, and
    with ``punct`` (an ASCII text) also the Latin ends of the ``punct``
    sentence splitter (:func:`_latin_end`; ``keys``: its abbreviations).  A
    text without tokens adds nothing.  ``pad``: 64 bytes for a block that
    would cross the end of the text.
    """
    if k1 == k0:
        return ns
    text = text_at(addr, n)
    tok = k0
    base = 0
    one = np.uint64(1)
    done = 0  # punct: the candidates before ``done`` are in a word already looked at
    while base < n:
        block = block_64(text, addr, base, pad)
        bits = range_bits(block, _NEWLINE, _NEWLINE)
        if punct:
            bits |= range_bits(block, 0x21, 0x21) | range_bits(block, 0x2E, 0x2E) | range_bits(block, 0x3F, 0x3F)
        bits &= low_bits(n - base)
        while bits != 0:
            b = base + ctz(bits)
            bits &= bits - one
            if text[b] != _NEWLINE:
                if b < done:
                    continue
                b, done = _latin_end(text, n, b, keys)
                if b < 0:
                    continue
            while tok < k1 and tpos[tok] < b:
                tok += 1
            if tok > sent[ns - 1]:
                sent[ns] = tok
                ns += 1
            if tok == k1:
                return ns
        base += 64
    sent[ns] = k1  # k1 > sent[ns - 1]: the loop above returns once every token is placed
    return ns + 1


@jit(inline=True)
def _ascii_space(c):
    """Whether the ASCII byte ``c`` is whitespace to Python's ``str.isspace()`` (and ``\\s``)."""
    return c == 0x20 or (0x09 <= c <= 0x0D) or (0x1C <= c <= 0x1F)


@jit
def _latin_end(text, n, b, keys):
    """For ``text[b]`` in ``[.!?]`` (ASCII text): ``(break, end)``, ``end`` the end of the
    whitespace-delimited word holding it, and ``break`` that end when the ``punct`` splitter's Latin
    rule (:mod:`vecscore.kernels.sentences`, pass 1) ends a sentence there, else -1.

    The rule: the word ends in ``[.!?]+`` and closing quotes or brackets, spaces or tabs
    follow, then a non-space character; a lone ``.`` after a one-letter word, a word with a
    ``.`` in it or an abbreviation (``keys``) is no end.  Those spaces become the newline,
    so the sentence ends at the word's end.
    """
    t1 = b + 1
    while t1 < n and not _ascii_space(text[t1]):
        t1 += 1
    t0 = b
    while t0 > 0 and not _ascii_space(text[t0 - 1]):
        t0 -= 1
    j = t1
    while j < n and (text[j] == 0x20 or text[j] == 0x09):
        j += 1
    if j == t1 or j >= n or _ascii_space(text[j]):
        return -1, t1
    e = t1
    while e > t0 and (text[e - 1] == 0x22 or text[e - 1] == 0x27 or text[e - 1] == 0x29 or text[e - 1] == 0x5D):
        e -= 1
    p_end = e
    while e > t0 and (text[e - 1] == 0x2E or text[e - 1] == 0x21 or text[e - 1] == 0x3F):
        e -= 1
    if e == p_end:
        return -1, t1
    if p_end - e == 1 and text[e] == 0x2E and word_keeps_going(text, t0, e, keys) != 0:
        return -1, t1
    return t1, t1


@jit(inline=True)
def _highest(x):
    """Index of the highest set bit of a nonzero uint64."""
    x |= x >> np.uint64(1)
    x |= x >> np.uint64(2)
    x |= x >> np.uint64(4)
    x |= x >> np.uint64(8)
    x |= x >> np.uint64(16)
    x |= x >> np.uint64(32)
    return popcount(x) - 1


@jit
def _mark_lcs_rows(ids, r0, r1, n, pm, rows, live, mark, m0):
    """Mark in ``mark[m0:]`` the positions of ``r = ids[r0:r1]`` on rouge-score's LCS of ``r`` and
    ``h``, the sentence of ``n <= 64`` tokens whose bits ``pm`` holds.

    the bit-parallel walk back of :mod:`vecscore.kernels.union_lcs`, with the walk back
    taking each row in a constant number of steps.  Row ``i``'s bit vector
    (Hyyro's) has a zero bit below bit ``j`` for every unit of the DP value
    ``t[i][j]``; only rows whose token is in ``h`` (``pm[x]``: the bits ``j`` with
    ``h[j] == x``) can leave the column, every other row goes straight up.
    (Offsets rather than slices: a slice costs reference counting.)
    In row ``i`` at column ``j`` the walk goes diagonally on a match
    (``r[i-1] == h[j-1]``); else left while ``t[i][j-1] > t[i-1][j]``; else up.
    With ``t[i][j] == t[i-1][j]`` it cannot go left.  With ``t[i][j] ==
    t[i-1][j] + 1`` it goes left through the columns where row ``i`` does not
    grow (set bits) until a match (diagonal) or a column where the row grows
    (up from there): the highest bit below ``j`` of ``pm[r[i-1]] | ~row``.
    ``rows`` and ``live`` need ``len(r) + 1`` words.
    """
    m = r1 - r0
    v = np.uint64(0xFFFFFFFFFFFFFFFF)
    rows[0] = v
    n_live = 0
    for i in range(m):
        x = pm[ids[r0 + i]]
        u = v & x
        v = (v + u) | (v & ~u)
        rows[i + 1] = v
        live[n_live] = i + 1
        n_live += x != 0
    j = n
    one = np.uint64(1)
    for q in range(n_live - 1, -1, -1):
        i = live[q]
        x = pm[ids[r0 + i - 1]]
        below = low_bits(j)
        if popcount(rows[i - 1] & below) == popcount(rows[i] & below):  # t[i][j] == t[i-1][j]
            if (x >> np.uint64(j - 1)) & one:
                mark[m0 + i - 1] = 1
                j -= 1
        else:
            stop = (x | ~rows[i]) & below
            if stop == 0:
                break  # left to column 0
            k = _highest(stop)
            if (x >> np.uint64(k)) & one:
                mark[m0 + i - 1] = 1
                j = k
            else:
                j = k + 1
        if j == 0:
            break


@jit
def lsum_hits(ids, sent, a0, a1, b0, b1, bud_h, pm, rows, live, table, mark):
    """Union-LCS hits of the hypothesis with sentence bounds ``sent[a0:a1]`` and the reference with
    sentence bounds ``sent[b0:b1]``, or -1.

    Sentence bounds index ``ids`` (with bounds ``hs = sent[a0:a1]``, sentence
    ``g`` is ``ids[hs[g]:hs[g + 1]]``; all nonempty, consecutive).  ``bud_h``
    (int32) and ``pm`` (uint64), indexed by token id, are zero on entry and on
    return, and so is ``mark`` (one per reference token); ``rows`` and
    ``live`` hold a reference sentence's length + 1 words.  -1 when a
    hypothesis sentence longer than 64 tokens needs a larger ``table`` than
    the one given (nothing is changed then).

    rouge-score counts a marked token while its count in both texts lasts;
    the reference's never runs out first (a token is marked at most once per
    position, so at most its count in the reference), so only the
    hypothesis's count is kept (:func:`_hypothesis_clipped`).
    """
    if a1 - a0 <= 1 or b1 - b0 <= 1:
        return 0
    maxh = 0
    for g in range(a0, a1 - 1):
        maxh = max(maxh, sent[g + 1] - sent[g])
    if maxh > 64:
        maxr = 0
        for s in range(b0, b1 - 1):
            maxr = max(maxr, sent[s + 1] - sent[s])
        if (maxr + 1) * (maxh + 1) > len(table):
            return -1
    h0 = sent[a0]
    h1 = sent[a1 - 1]
    r0 = sent[b0]
    r1 = sent[b1 - 1]
    add_budget(bud_h, ids, h0, h1, 1)
    one = np.uint64(1)
    # marks over the whole reference: the union over hypothesis sentences is order-free
    for g in range(a0, a1 - 1):
        g0 = sent[g]
        n = sent[g + 1] - g0
        if n <= 64:
            for j in range(n):
                pm[ids[g0 + j]] |= one << np.uint64(j)
            for s in range(b0, b1 - 1):
                _mark_lcs_rows(ids, sent[s], sent[s + 1], n, pm, rows, live, mark, sent[s] - r0)
            for j in range(n):
                pm[ids[g0 + j]] = np.uint64(0)
        else:
            for s in range(b0, b1 - 1):
                mark_lcs(ids[sent[s]:sent[s + 1]], ids[g0:g0 + n], table, mark[sent[s] - r0:])
    # hits in the reference's order, clipped by the token counts of both texts
    hits = _hypothesis_clipped(mark, ids, r0, r1 - r0, bud_h)
    clear_budget(bud_h, ids, h0, h1)
    return hits


@jit(inline=True)
def _hypothesis_clipped(mark, ids, base, n, bud_h):
    """:func:`vecscore.kernels.union_lcs.marked_hits` when the reference's budget is its own tokens (it
    never runs out first): the marked tokens ``ids[base + j]`` counted while ``bud_h`` lasts; the marks
    are zeroed again."""
    hits = 0
    for j in range(n):
        if mark[j]:
            mark[j] = 0
            tok = ids[base + j]
            if bud_h[tok] > 0:
                hits += 1
                bud_h[tok] -= 1
    return hits


def table_cells(H, Rb):
    """Table cells for pairs of up to ``H - 1`` hypothesis and ``Rb`` reference tokens (ints or arrays):
    none unless a hypothesis sentence can exceed 64 tokens, and at most :data:`TABLE_CELLS`."""
    H = np.asarray(H, np.int64)
    return np.where(H - 1 > 64, np.minimum(TABLE_CELLS, H * (np.asarray(Rb, np.int64) + 1)), 0)
