"""Numba kernels for ROUGE-W (weighted LCS), ROUGE-1.5.5.pl mode and Lin (2004) mode.

Layout: as in :mod:`vecscore.kernels.lcs` (ragged ``ids``/``offsets``; sentences
as ``sent_offsets``/``text_sents``; pairs as ``hyp_rows``/``ref_rows``).

Weighting function ``f(k) = k ** alpha`` (default ``alpha = 1.2``) and its
inverse ``f^-1(x) = x ** (1 / alpha)``; compute both with libm ``pow``
(``math.pow`` or numba ``**``) to stay bit-identical with Perl.

Perl mode (:func:`wlcs_perl_pairs`, ROUGE-1.5.5.pl ``-w alpha``)
------------------------------------------------------------------
For each reference sentence ``r`` (a "model" sentence in the script) and each
hypothesis ("peer") sentence ``h``, ``wlcs_inner`` fills Lin's DP::

    match:     c[i][j] = (c[i-1][j-1] + f(l+1)) - f(l),  l = run[i-1][j-1],  run[i][j] = l + 1
    otherwise: c[i][j] = c[i-1][j] if c[i-1][j] >= c[i][j-1] else c[i][j-1],  run[i][j] = 0

and ``markLCS`` walks the recorded moves back (diagonal marks a position of
``r``; ties went up).  The marked positions of ``r`` over all ``h`` are
united; walking ``r`` left to right, a marked position whose token still has
a positive count in both the reference's and the hypothesis' unigram budgets
extends the current run (both budgets are decremented), and the run is added
as ``f(run)`` when the next position is unmarked or the sentence ends.  Quirk
reproduced: a marked position that fails the clipping neither extends nor
ends the run, so the run continues over it (and a run pending when the
sentence ends on such a position is lost).  The kernel returns

* ``whit  = sum of f(run)`` over all runs (float64, Perl's ``$$hit``),
* ``wbase = sum_r f(|r|)`` (float64, Perl's ``$$base``).

``computeWLCSScore`` then applies ``f`` a second time to both denominators::

    R = f^-1( whit / f(wbase) )          # f applied twice on the reference side
    P = f^-1( whit / f(n_hyp) )          # n_hyp = all hypothesis tokens
    F = P * R / ((1 - a) * P + a * R)    # a = Perl's -p alpha (0.5), each rounded to 5 decimals first

With several references under ``-f A`` the script sums ``whit``, ``f(wbase)``
and ``f(n_hyp)`` over references before the two divisions; under ``-f B`` it
keeps the reference with the largest ``f^-1(whit / wbase)`` (single ``f``;
first one on ties).  Example: one identical 5-token sentence gives
``R = f^-1(5^1.2 / f(5^1.2)) = 5^(1 - 1.2) = 0.72478``, ``P = 1``.

Lin mode (:func:`wlcs_lin_pairs`, Lin 2004 section 3.3)
---------------------------------------------------------
The same DP over the two whole sequences; the value ``WLCS = c[m][n]`` is
returned (the tie-break does not change it)::

    R = f^-1( WLCS / f(m) ),  P = f^-1( WLCS / f(n) ),  m = |ref|, n = |hyp|

The kernel fills only the cells that can differ from the row above (the
rows with a match, from their first match or the row above's first drop
on; see :func:`_perl_mark`), and compares values as the integer bits of
non-negative float64, which gives the same values, ties and marks.

Memory: Perl mode needs an int8 move table of ``|r| x |h|`` per sentence pair
(one buffer of longest-ref-sentence x longest-hyp-sentence bytes per pair);
Lin mode needs ``O(min(m, n))`` per pair.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import DISABLED, ir_helper, jit, prange
from vecscore.errors import VecscoreError
from vecscore.kernels.lcs_pairs import MAX_TABLE_CELLS, sentence_pairs, token_pairs
from vecscore.kernels.union_lcs import add_budget, clear_budget, longest_sentence, reference_marks
from vecscore.memory import CHUNK_FAILED

__all__ = ["wlcs_perl_pairs", "wlcs_lin_pairs"]

_UP = np.int8(1)
_LEFT = np.int8(2)
_DIAG = np.int8(3)


@jit
def _weights(alpha, top):
    """``f(k) = k ** alpha`` for ``k = 0 .. top`` (libm pow, like Perl's ``**``)."""
    f = np.empty(top + 1, np.float64)
    for q in range(top + 1):
        f[q] = np.float64(q) ** alpha
    return f


def _as_float_py(bits):
    return float(np.int64(bits).view(np.float64))


def _as_bits_py(x):
    return int(np.float64(x).view(np.int64))


_bitcast_float = ir_helper("bitcast_float")
_bitcast_bits = ir_helper("bitcast_bits")


if DISABLED:
    _as_float, _as_bits = _as_float_py, _as_bits_py
else:

    @jit(inline=True)
    def _as_float(bits):
        """The float64 whose bits are ``bits``."""
        return _bitcast_float(bits)

    @jit(inline=True)
    def _as_bits(x):
        """The bits of the float64 ``x`` as an int64 (ordered like ``x`` for ``x >= 0``)."""
        return _bitcast_bits(x)


@jit(inline=True)
def _perl_row(r, h, f, moves, row, i, s):
    """Cells ``s .. n-1`` of DP row ``i`` in place in ``row`` (the bits of row ``i - 1`` before);
    returns the row's first drop (the first cell below its left neighbour, ``n`` if none).

    ``row`` holds the values' float64 bits as int64: the values are >= 0, so
    the bits order like the values and the up-or-left choice is an integer
    compare.  A match's run length is the number of equal tokens on the
    diagonal just before it (what Lin's run table holds).
    """
    n = len(h)
    ri = r[i]
    mv = moves[i * n:(i + 1) * n]
    drop = n
    left = row[s]
    diag = left
    for j in range(s, n):
        up = row[j + 1]
        if ri == h[j]:
            k = 0
            while k < i and k < j and r[i - 1 - k] == h[j - 1 - k]:
                k += 1
            new = _as_bits((_as_float(diag) + f[k + 1]) - f[k])
            if new < left and drop == n:
                drop = j
            mv[j] = _DIAG
        else:
            take_up = up >= left
            new = up if take_up else left
            mv[j] = _LEFT - np.int8(take_up)
        diag = up
        row[j + 1] = new
        left = new
    return drop


@jit(inline=True)
def _perl_mark(r, h, f, moves, row, first, seen, stamp, start, live, filled, mark):
    """Perl ``wlcs_inner`` + ``markLCS``: mark positions of ``r`` on its WLCS path with ``h``.

    ``seen[t] == stamp`` and ``first[t]`` (the first position of ``t`` in
    ``h``) are set by the caller for ``h``'s tokens.  Values, ties and marks
    are those of the full table, computed only where they can differ from
    the row above:

    * a cell that is not a match takes the larger of up and left, so a row
      is non-decreasing up to its first *drop* (a match below its left
      neighbour); cells left of both that drop in the row above and the
      row's first match copy the row above, with the move "up";
    * so a row without a match below a row without a drop is an exact copy,
      and only rows with a match, and the row after one that has a drop,
      are filled (cells ``start[i] ..``); the walk back visits the filled
      rows only.
    """
    m = len(r)
    n = len(h)
    n_live = 0
    for i in range(m):
        live[n_live] = i
        n_live += seen[r[i]] == stamp
    if n_live == 0:
        return
    row[: n + 1] = 0
    drop = n
    done = -1
    n_done = 0  # the filled rows, in order, go to filled[:n_done]; start[i]: row i's first filled cell
    for q in range(n_live + 1):
        i = live[q] if q < n_live else m
        if drop < n and done + 1 < i:
            # the row after one with a drop has no match: a running maximum, without drops
            filled[n_done] = done + 1
            n_done += 1
            start[done + 1] = drop
            drop = _perl_row(r, h, f, moves, row, done + 1, drop)
        if i == m:
            break
        s = min(drop, first[r[i]])
        filled[n_done] = i
        n_done += 1
        start[i] = s
        drop = _perl_row(r, h, f, moves, row, i, s)
        done = i
    # the walk back from (m, n), through the filled rows only (every other cell's move is "up"): in a
    # row, left to the nearest cell whose move is not "left" (a copied cell's is "up"), then up or
    # diagonally
    j = n
    for q in range(n_done - 1, -1, -1):
        i = filled[q]
        s = start[i]
        c = j - 1
        if c < s:
            continue
        mv = moves[i * n:(i + 1) * n]
        while c >= s and mv[c] == _LEFT:
            c -= 1
        if c >= s and mv[c] == _DIAG:
            mark[i] = 1
            j = c
            if j == 0:
                break
        else:
            j = c + 1


@jit(parallel=True)
def _wlcs_perl_pairs(h_ids, h_sent, h_text, r_ids, r_sent, r_text, hb_ids, hb_off, rb_ids, rb_off,
                     h_rows, r_rows, vocab_size, alpha, n_chunks):
    k = len(h_rows)
    whit = np.zeros(k, np.float64)
    wbase = np.zeros(k, np.float64)
    top = 1
    for s in range(len(r_sent) - 1):
        top = max(top, r_sent[s + 1] - r_sent[s] + 1)
    f = _weights(alpha, top)
    failed = np.zeros(n_chunks, np.bool_)
    for c in prange(n_chunks):
        failed[c] = not _wlcs_perl_chunk(n_chunks, vocab_size, c, k, h_text, r_text, wbase, hb_off, rb_off, hb_ids,
                                         rb_ids, h_sent, r_sent, whit, h_rows, r_rows, f, h_ids, r_ids)
    if failed.any():
        raise MemoryError(CHUNK_FAILED)
    return whit, wbase


@jit
def _wlcs_perl_chunk(n_chunks, vocab_size, c, k, h_text, r_text, wbase, hb_off, rb_off, hb_ids, rb_ids, h_sent, r_sent,
                     whit, h_rows, r_rows, f, h_ids, r_ids):
    """The pairs of chunk ``c`` of :func:`_wlcs_perl_pairs`; False if its scratch could not be allocated
    (an exception inside a parallel loop would be lost)."""
    try:
        _wlcs_perl_chunk_body(n_chunks, vocab_size, c, k, h_text, r_text, wbase, hb_off, rb_off, hb_ids, rb_ids,
                              h_sent, r_sent, whit, h_rows, r_rows, f, h_ids, r_ids)
    except Exception:
        return False
    return True


@jit
def _wlcs_perl_chunk_body(n_chunks, vocab_size, c, k, h_text, r_text, wbase, hb_off, rb_off, hb_ids, rb_ids,
                          h_sent, r_sent, whit, h_rows, r_rows, f, h_ids, r_ids):
    """The work of :func:`_wlcs_perl_chunk` (no ``try`` here: numba compiles a try block holding
    loops badly, so the caller wraps the call)."""
    lo = c * k // n_chunks
    hi = (c + 1) * k // n_chunks
    bud_h = np.zeros(vocab_size, np.int64)
    bud_r = np.zeros(vocab_size, np.int64)
    seen = np.zeros(vocab_size, np.int64)
    first = np.zeros(vocab_size, np.int64)
    stamp = 0
    moves = np.empty(0, np.int8)
    mark = np.empty(0, np.uint8)
    start = np.empty(0, np.int64)
    live = np.empty(0, np.int64)
    filled = np.empty(0, np.int64)
    row = np.empty(0, np.int64)
    for p in range(lo, hi):
        hs0 = h_text[h_rows[p]]
        hs1 = h_text[h_rows[p] + 1]
        rs0 = r_text[r_rows[p]]
        rs1 = r_text[r_rows[p] + 1]
        base = 0.0
        for s in range(rs0, rs1):
            base += f[r_sent[s + 1] - r_sent[s]]
        wbase[p] = base
        if h_sent[hs1] == h_sent[hs0] or r_sent[rs1] == r_sent[rs0]:
            continue
        h_lo = hb_off[h_rows[p]]
        h_hi = hb_off[h_rows[p] + 1]
        r_lo = rb_off[r_rows[p]]
        r_hi = rb_off[r_rows[p] + 1]
        add_budget(bud_h, hb_ids, h_lo, h_hi, 1)
        add_budget(bud_r, rb_ids, r_lo, r_hi, 1)
        maxh = longest_sentence(h_sent, hs0, hs1)
        maxr = longest_sentence(r_sent, rs0, rs1)
        if len(moves) < maxr * maxh:
            moves = np.empty(maxr * maxh, np.int8)
        if len(start) < maxr + 1:
            start = np.empty(maxr + 1, np.int64)
            live = np.empty(maxr + 1, np.int64)
            filled = np.empty(maxr + 1, np.int64)
        if len(row) < maxh + 1:
            row = np.empty(maxh + 1, np.int64)
        # marks over the whole reference: the union over hypothesis sentences is order-free
        mark, r_base, r_len = reference_marks(mark, r_sent, rs0, rs1)
        for g in range(hs0, hs1):
            hyp = h_ids[h_sent[g]:h_sent[g + 1]]
            if len(hyp) == 0:
                continue
            stamp += 1
            for j in range(len(hyp) - 1, -1, -1):
                seen[hyp[j]] = stamp
                first[hyp[j]] = j
            for s in range(rs0, rs1):
                ref = r_ids[r_sent[s]:r_sent[s + 1]]
                if len(ref) > 0:
                    _perl_mark(ref, hyp, f, moves, row, first, seen, stamp, start, live, filled,
                               mark[r_sent[s] - r_base:])
        hit = 0.0
        for s in range(rs0, rs1):
            ref = r_ids[r_sent[s]:r_sent[s + 1]]
            sm = mark[r_sent[s] - r_base:]
            m = len(ref)
            run = 0
            for j in range(m):
                if sm[j]:
                    tok = ref[j]
                    if bud_h[tok] > 0 and bud_r[tok] > 0:
                        run += 1
                        if j + 1 < m and sm[j + 1] == 0:
                            hit += f[run]
                            run = 0
                        elif j + 1 == m:
                            hit += f[run]
                            run = 0
                        bud_h[tok] -= 1
                        bud_r[tok] -= 1
        whit[p] = hit
        clear_budget(bud_h, hb_ids, h_lo, h_hi)
        clear_budget(bud_r, rb_ids, r_lo, r_hi)


@jit
def _wlcs_lin(a, b, f, c0, c1, l0, l1):
    """Lin's WLCS value of ``a`` (rows) and ``b`` (columns) with two DP rows."""
    n = len(b)
    for j in range(n + 1):
        c0[j] = 0.0
        l0[j] = 0
    c1[0] = 0.0
    l1[0] = 0
    prev_c, cur_c, prev_l, cur_l = c0, c1, l0, l1
    for i in range(len(a)):
        x = a[i]
        for j in range(1, n + 1):
            if x == b[j - 1]:
                k = prev_l[j - 1]
                cur_c[j] = (prev_c[j - 1] + f[k + 1]) - f[k]
                cur_l[j] = k + 1
            else:
                up = prev_c[j]
                left = cur_c[j - 1]
                cur_c[j] = up if up > left else left
                cur_l[j] = 0
        prev_c, cur_c = cur_c, prev_c
        prev_l, cur_l = cur_l, prev_l
    return prev_c[n]


@jit(parallel=True)
def _wlcs_lin_pairs(a_ids, a_off, b_ids, b_off, a_rows, b_rows, alpha, n_chunks):
    k = len(a_rows)
    out = np.zeros(k, np.float64)
    top = 1
    for p in range(k):
        la = a_off[a_rows[p] + 1] - a_off[a_rows[p]]
        lb = b_off[b_rows[p] + 1] - b_off[b_rows[p]]
        top = max(top, min(la, lb) + 1)
    f = _weights(alpha, top)
    failed = np.zeros(n_chunks, np.bool_)
    for c in prange(n_chunks):
        failed[c] = not _wlcs_lin_chunk(n_chunks, c, k, a_ids, b_ids, out, f, a_off, b_off, a_rows, b_rows)
    if failed.any():
        raise MemoryError(CHUNK_FAILED)
    return out


@jit
def _wlcs_lin_chunk(n_chunks, c, k, a_ids, b_ids, out, f, a_off, b_off, a_rows, b_rows):
    """The pairs of chunk ``c`` of :func:`_wlcs_lin_pairs`; False if its scratch could not be allocated
    (an exception inside a parallel loop would be lost)."""
    try:
        _wlcs_lin_chunk_body(n_chunks, c, k, a_ids, b_ids, out, f, a_off, b_off, a_rows, b_rows)
    except Exception:
        return False
    return True


@jit
def _wlcs_lin_chunk_body(n_chunks, c, k, a_ids, b_ids, out, f, a_off, b_off, a_rows, b_rows):
    """The work of :func:`_wlcs_lin_chunk` (no ``try`` here: numba compiles a try block holding
    loops badly, so the caller wraps the call)."""
    lo = c * k // n_chunks
    hi = (c + 1) * k // n_chunks
    c0 = np.empty(0, np.float64)
    c1 = np.empty(0, np.float64)
    l0 = np.empty(0, np.int64)
    l1 = np.empty(0, np.int64)
    for p in range(lo, hi):
        x = a_ids[a_off[a_rows[p]]:a_off[a_rows[p] + 1]]
        y = b_ids[b_off[b_rows[p]]:b_off[b_rows[p] + 1]]
        if len(x) < len(y):
            x, y = y, x
        if len(c0) < len(y) + 1:
            c0 = np.empty(len(y) + 1, np.float64)
            c1 = np.empty(len(y) + 1, np.float64)
            l0 = np.empty(len(y) + 1, np.int64)
            l1 = np.empty(len(y) + 1, np.int64)
        out[p] = _wlcs_lin(x, y, f, c0, c1, l0, l1)


def _check_alpha(alpha):
    alpha = float(alpha)
    if not alpha > 0 or not np.isfinite(alpha):
        raise VecscoreError(f"alpha must be a finite number > 0 (ROUGE-W uses f(k) = k**alpha), got {alpha}")
    return alpha


def wlcs_perl_pairs(hyp_ids, hyp_sent_offsets, hyp_text_sents,
                    ref_ids, ref_sent_offsets, ref_text_sents, hyp_rows, ref_rows, *,
                    alpha=1.2, vocab_size=None, n_chunks=None, hyp_budget=None, ref_budget=None):
    """ROUGE-1.5.5.pl ROUGE-W sufficient statistics per pair.

    Parameters
    ----------
    hyp_ids, hyp_sent_offsets, hyp_text_sents : array_like of int
        Hypothesis ("peer") batch with sentences (layout in :mod:`vecscore.kernels.lcs`).
    ref_ids, ref_sent_offsets, ref_text_sents : array_like of int
        Reference ("model") batch with sentences.
    hyp_rows, ref_rows : array_like of int
        The ``k`` pairs to score.
    alpha : float, default 1.2
        The weight exponent (``-w alpha``).
    vocab_size, n_chunks : int, optional
        As in :func:`vecscore.kernels.lcs.lcs_length_pairs`.
    hyp_budget, ref_budget : (ids, offsets), optional
        The clipping budgets, as in :func:`vecscore.kernels.union_lcs.union_lcs_hits_pairs`.

    Returns
    -------
    whit : numpy.ndarray
        float64, shape ``(k,)``: sum of ``f(run)`` over clipped hit runs.
    wbase : numpy.ndarray
        float64, shape ``(k,)``: ``sum over reference sentences of f(len)``.
        Perl: ``R = f^-1(whit / f(wbase))``, ``P = f^-1(whit / f(n_hyp))``.

    Examples
    --------
    >>> whit, wbase = wlcs_perl_pairs([1, 2, 3, 4, 5], [0, 5], [0, 1],
    ...                               [1, 2, 3, 4, 5], [0, 5], [0, 1], [0], [0])
    >>> import math
    >>> round(math.pow(whit[0] / math.pow(wbase[0], 1.2), 1 / 1.2), 5)
    0.72478
    """
    alpha = _check_alpha(alpha)
    # the int8 move table is 4x smaller than the int32 LCS table
    args = sentence_pairs((hyp_ids, hyp_sent_offsets, hyp_text_sents), (ref_ids, ref_sent_offsets, ref_text_sents),
                          hyp_rows, ref_rows, vocab_size, n_chunks, (hyp_budget, ref_budget), 4 * MAX_TABLE_CELLS)
    if not args[-1]:
        return np.zeros(0, np.float64), np.zeros(0, np.float64)
    return _wlcs_perl_pairs(*args[:-1], alpha, args[-1])


def wlcs_lin_pairs(hyp_ids, hyp_offsets, ref_ids, ref_offsets, hyp_rows, ref_rows, *,
                   alpha=1.2, n_chunks=None):
    """Lin (2004) weighted LCS value of each pair of whole token sequences.

    Parameters
    ----------
    hyp_ids, hyp_offsets, ref_ids, ref_offsets : array_like of int
        Ragged hypothesis and reference batches.
    hyp_rows, ref_rows : array_like of int
        The ``k`` pairs to score.
    alpha : float, default 1.2
        ``f(k) = k ** alpha``.
    n_chunks : int, optional
        Work chunks for the parallel loop (results never depend on it).

    Returns
    -------
    numpy.ndarray
        float64, shape ``(k,)``: ``WLCS``.  ``R = f^-1(WLCS / f(len(ref)))``,
        ``P = f^-1(WLCS / f(len(hyp)))``.

    Examples
    --------
    >>> wlcs_lin_pairs([1, 2, 3], [0, 3], [1, 2, 3], [0, 3], [0], [0], alpha=2.0).tolist()
    [9.0]
    """
    alpha = _check_alpha(alpha)
    h_ids, h_off, r_ids, r_off, h_rows, r_rows, _, chunks = token_pairs(
        hyp_ids, hyp_offsets, ref_ids, ref_offsets, hyp_rows, ref_rows, None, n_chunks)
    if chunks == 0:
        return np.zeros(0, np.float64)
    return _wlcs_lin_pairs(h_ids, h_off, r_ids, r_off, h_rows, r_rows, alpha, chunks)
