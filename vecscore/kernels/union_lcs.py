"""Numba kernels for summary-level union LCS: rouge-score's ROUGE-Lsum and ROUGE-1.5.5's ROUGE-L.

Texts, sentences and pairs are laid out as in :mod:`vecscore.kernels.lcs_pairs`.

:func:`union_lcs_hits_pairs`
    Summary-level union-LCS hits, exactly rouge-score 0.1.2 ``rougeLsum``
    (``_summary_level_lcs``) and ROUGE-1.5.5.pl ROUGE-L (``lcs``/``lcs_inner``/
    ``markLCS``).  Both walk back the LCS table the same way (a match goes
    diagonal; otherwise go left only when ``t[i][j-1] > t[i-1][j]``, else up),
    so one mode serves both.  Caller: ``P = hits / n_hyp``, ``R = hits / n_ref``
    (token totals of the whole texts).  Memory: one int32 LCS table of
    ``(longest ref sentence + 1) x (longest hyp sentence + 1)`` per pair.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange
from vecscore.kernels.lcs_pairs import MAX_TABLE_CELLS, sentence_pairs
from vecscore.kernels.swar import popcount as _popcount
from vecscore.memory import CHUNK_FAILED

__all__ = ["union_lcs_hits_pairs", "mark_lcs", "marked_hits", "add_budget", "clear_budget", "reference_marks",
           "longest_sentence"]


# --------------------------------------------------------------------------------------
# Summary-level union LCS (rouge-score rougeLsum == ROUGE-1.5.5 ROUGE-L)
# --------------------------------------------------------------------------------------


@jit
def mark_lcs(r, h, t, mark):
    """Mark in ``mark`` the positions of ``r`` on the LCS of ``r`` and ``h``.

    ``t`` is a scratch of at least ``(len(r) + 1) * (len(h) + 1)`` int32 cells.
    The walk back is rouge-score's ``_backtrack_norec`` (== Perl ``markLCS``).
    """
    m = len(r)
    n = len(h)
    st = n + 1
    for j in range(n + 1):
        t[j] = 0
    for i in range(1, m + 1):
        row = i * st
        prev = row - st
        t[row] = 0
        ri = r[i - 1]
        for j in range(1, n + 1):
            if ri == h[j - 1]:
                t[row + j] = t[prev + j - 1] + 1
            else:
                up = t[prev + j]
                left = t[row + j - 1]
                t[row + j] = up if up >= left else left
    i = m
    j = n
    while i > 0 and j > 0:
        if r[i - 1] == h[j - 1]:
            i -= 1
            j -= 1
            mark[i] = 1
        elif t[i * st + j - 1] > t[(i - 1) * st + j]:
            j -= 1
        else:
            i -= 1


@jit(inline=True)
def _zeros_below(v, j):
    """Zero bits of ``v`` among its ``j`` lowest (``0 <= j <= 64``): the DP value ``t[i][j]`` of row ``v``."""
    if j == 0:
        return 0
    low = v if j == 64 else v & ((np.uint64(1) << np.uint64(j)) - np.uint64(1))
    return j - _popcount(low)


@jit(inline=True)
def _mark_lcs_bits(r, h, pm, rows, live, mark):
    """:func:`mark_lcs` for ``len(h) <= 64`` from Hyyro's bit-parallel rows.

    ``pm[x]`` holds the bits ``j`` with ``h[j] == x`` (set by the caller);
    row ``i``'s vector has a zero bit for every unit of LCS(r[:i], h[:j])
    below bit ``j``, so the DP value ``t[i][j]`` is the number of zero bits
    below ``j`` (:func:`_zeros_below`), and the same walk back as
    :func:`mark_lcs` runs on ``O(len(r))`` stored words instead of a
    ``len(r) x len(h)`` table.  A row whose token is not in ``h`` equals the
    row above, so the walk goes straight up through it: only the rows with a
    match (listed in ``live``) are visited.  ``rows`` and ``live`` need
    ``len(r) + 1`` words.
    """
    m = len(r)
    n = len(h)
    v = np.uint64(0xFFFFFFFFFFFFFFFF)
    rows[0] = v
    n_live = 0
    for i in range(m):
        u = v & pm[r[i]]
        v = (v + u) | (v & ~u)
        rows[i + 1] = v
        live[n_live] = i + 1
        n_live += pm[r[i]] != 0
    j = n
    for q in range(n_live - 1, -1, -1):
        i = live[q]
        ri = r[i - 1]
        while j > 0:
            if ri == h[j - 1]:
                j -= 1
                mark[i - 1] = 1
                break
            if _zeros_below(rows[i], j - 1) > _zeros_below(rows[i - 1], j):
                j -= 1
            else:
                break
        if j == 0:
            break


@jit
def add_budget(bud, b_ids, lo, hi, step):
    """Add ``step`` to ``bud[t]`` for every token ``t`` of ``b_ids[lo:hi]``."""
    for q in range(lo, hi):
        bud[b_ids[q]] += step


@jit
def clear_budget(bud, b_ids, lo, hi):
    """Zero ``bud`` again at the tokens of ``b_ids[lo:hi]`` (cheaper than a full reset)."""
    for q in range(lo, hi):
        bud[b_ids[q]] = 0


@jit(inline=True)
def marked_hits(mark, ids, base, n, bud_h, bud_r):
    """rouge-score's summary-level hits: the marked tokens ``ids[base + j]`` (``mark[j]``, ``j < n``), in
    the reference's order, each counted while its budget in both texts (``bud_h``, ``bud_r``) lasts."""
    hits = 0
    for j in range(n):
        if mark[j]:
            tok = ids[base + j]
            if bud_h[tok] > 0 and bud_r[tok] > 0:
                hits += 1
                bud_h[tok] -= 1
                bud_r[tok] -= 1
    return hits


@jit(inline=True)
def reference_marks(mark, r_sent, rs0, rs1):
    """A zeroed mark per token of the reference sentences ``rs0..rs1-1`` (``mark``, grown if too short),
    with the reference's first token index and length: ``(mark, r_base, r_len)``."""
    r_base = r_sent[rs0]
    r_len = r_sent[rs1] - r_base
    if len(mark) < r_len:
        mark = np.empty(r_len, np.uint8)
    mark[:r_len] = 0
    return mark, r_base, r_len


@jit
def longest_sentence(sent, s0, s1):
    """Length of the longest of the sentences ``s0..s1-1``."""
    longest = 0
    for s in range(s0, s1):
        longest = max(longest, sent[s + 1] - sent[s])
    return longest


@jit(parallel=True)
def _union_lcs_hits_pairs(h_ids, h_sent, h_text, r_ids, r_sent, r_text,
                          hb_ids, hb_off, rb_ids, rb_off, h_rows, r_rows, vocab_size, n_chunks):
    k = len(h_rows)
    out = np.zeros(k, np.int64)
    failed = np.zeros(n_chunks, np.bool_)
    for c in prange(n_chunks):
        failed[c] = not _union_chunk(h_ids, h_sent, h_text, r_ids, r_sent, r_text, hb_ids, hb_off, rb_ids, rb_off,
                                     h_rows, r_rows, vocab_size, n_chunks, c, out)
    if failed.any():
        raise MemoryError(CHUNK_FAILED)
    return out


@jit
def _union_chunk(h_ids, h_sent, h_text, r_ids, r_sent, r_text, hb_ids, hb_off, rb_ids, rb_off, h_rows, r_rows,
                 vocab_size, n_chunks, c, out):
    """The pairs of chunk ``c`` of :func:`_union_lcs_hits_pairs`; False if its scratch could not be allocated
    (an exception inside a parallel loop would be lost)."""
    try:
        _union_chunk_body(h_ids, h_sent, h_text, r_ids, r_sent, r_text, hb_ids, hb_off, rb_ids, rb_off, h_rows,
                          r_rows, vocab_size, n_chunks, c, out)
    except Exception:
        return False
    return True


@jit
def _union_chunk_body(h_ids, h_sent, h_text, r_ids, r_sent, r_text, hb_ids, hb_off, rb_ids, rb_off, h_rows, r_rows,
                 vocab_size, n_chunks, c, out):
    """The work of :func:`_union_chunk` (no ``try`` here: numba compiles a try block holding
    loops badly, so the caller wraps the call)."""
    k = len(h_rows)
    lo = c * k // n_chunks
    hi = (c + 1) * k // n_chunks
    bud_h = np.zeros(vocab_size, np.int64)
    bud_r = np.zeros(vocab_size, np.int64)
    pm = np.zeros(vocab_size, np.uint64)
    rows = np.empty(0, np.uint64)
    live = np.empty(0, np.int64)
    table = np.empty(0, np.int32)
    mark = np.empty(0, np.uint8)
    for p in range(lo, hi):
        hs0 = h_text[h_rows[p]]
        hs1 = h_text[h_rows[p] + 1]
        rs0 = r_text[r_rows[p]]
        rs1 = r_text[r_rows[p] + 1]
        if h_sent[hs1] == h_sent[hs0] or r_sent[rs1] == r_sent[rs0]:
            out[p] = 0
            continue
        h_lo = hb_off[h_rows[p]]
        h_hi = hb_off[h_rows[p] + 1]
        r_lo = rb_off[r_rows[p]]
        r_hi = rb_off[r_rows[p] + 1]
        add_budget(bud_h, hb_ids, h_lo, h_hi, 1)
        add_budget(bud_r, rb_ids, r_lo, r_hi, 1)
        maxh = longest_sentence(h_sent, hs0, hs1)
        maxr = longest_sentence(r_sent, rs0, rs1)
        if maxh > 64:
            need = (maxr + 1) * (maxh + 1)
            if len(table) < need:
                table = np.empty(need, np.int32)
        if len(rows) < maxr + 1:
            rows = np.empty(maxr + 1, np.uint64)
            live = np.empty(maxr + 1, np.int64)
        # marks over the whole reference: the union over hypothesis sentences is order-free
        mark, r_base, r_len = reference_marks(mark, r_sent, rs0, rs1)
        for g in range(hs0, hs1):
            hyp = h_ids[h_sent[g]:h_sent[g + 1]]
            n = len(hyp)
            if n == 0:
                continue
            if n <= 64:
                for j in range(n):
                    pm[hyp[j]] |= np.uint64(1) << np.uint64(j)
            for s in range(rs0, rs1):
                ref = r_ids[r_sent[s]:r_sent[s + 1]]
                if len(ref) == 0:
                    continue
                if n <= 64:
                    _mark_lcs_bits(ref, hyp, pm, rows, live, mark[r_sent[s] - r_base:])
                else:
                    mark_lcs(ref, hyp, table, mark[r_sent[s] - r_base:])
            if n <= 64:
                for j in range(n):
                    pm[hyp[j]] = np.uint64(0)
        out[p] = marked_hits(mark, r_ids, r_base, r_len, bud_h, bud_r)
        clear_budget(bud_h, hb_ids, h_lo, h_hi)
        clear_budget(bud_r, rb_ids, r_lo, r_hi)


def union_lcs_hits_pairs(hyp_ids, hyp_sent_offsets, hyp_text_sents,
                         ref_ids, ref_sent_offsets, ref_text_sents, hyp_rows, ref_rows, *,
                         vocab_size=None, n_chunks=None, hyp_budget=None, ref_budget=None):
    """Summary-level union-LCS hits per pair (rouge-score ``rougeLsum``, Perl ROUGE-L).

    Parameters
    ----------
    hyp_ids, hyp_sent_offsets, hyp_text_sents : array_like of int
        Hypothesis batch with sentences (layout in the module docstring).
    ref_ids, ref_sent_offsets, ref_text_sents : array_like of int
        Reference batch with sentences.
    hyp_rows, ref_rows : array_like of int
        The ``k`` pairs to score.
    vocab_size, n_chunks : int, optional
        As in :func:`lcs_length_pairs`.
    hyp_budget, ref_budget : (ids, offsets), optional
        Ragged arrays, indexed like the hypothesis / reference texts, whose
        token counts clip the hits (the unigram budgets).  Default: the
        texts' own tokens.  ROUGE-1.5.5 takes them from its ROUGE-N token
        stream, which differs from the sentences under ``-b``.

    Returns
    -------
    numpy.ndarray
        int64, shape ``(k,)``: clipped union-LCS hits.  With ``n`` and ``m`` the
        total token counts of the hypothesis and the reference text,
        ``P = hits / n``, ``R = hits / m`` (rouge-score returns 0 when either is 0;
        Perl ``-f A`` sums hits, ``m`` and ``n`` over references).

    Examples
    --------
    >>> import numpy as np
    >>> # reference "1 2 3 4 5"; hypothesis sentences "1 2 6 7 8" and "1 3 8 9 5"
    >>> r = union_lcs_hits_pairs([1, 2, 6, 7, 8, 1, 3, 8, 9, 5], [0, 5, 10], [0, 2],
    ...                          [1, 2, 3, 4, 5], [0, 5], [0, 1], [0], [0])
    >>> r.tolist()
    [4]
    """
    args = sentence_pairs((hyp_ids, hyp_sent_offsets, hyp_text_sents), (ref_ids, ref_sent_offsets, ref_text_sents),
                          hyp_rows, ref_rows, vocab_size, n_chunks, (hyp_budget, ref_budget), MAX_TABLE_CELLS)
    return _union_lcs_hits_pairs(*args) if args[-1] else np.zeros(0, np.int64)
