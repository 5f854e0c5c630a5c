"""The clipped n-gram matches of every cell of a grid of text pairs (score matrices).

Layout (an n-gram table): every text's n-grams are interned once into one id space, and text ``t``'s distinct
n-grams of order ``k`` are the entries ``start[t, k] .. start[t, k + 1]`` of ``ids`` (the n-gram id) and
``cnts`` (how often the text holds it); ``start[t, orders] == start[t + 1, 0]``.

:func:`grid_matches` fills ``out[i, j, k] = sum_g min(count_a(g), count_b(g))`` over the order-``k`` n-grams
``g`` of ``a = rows_a[i]`` and ``b = rows_b[j]``.  Each worker takes a contiguous chunk of ``rows_a``: it
scatters the counts of ``a`` into its dense scratch row (indexed by n-gram id), streams the entries of every
``b``, and clears the scatter again, so the scratch is all zeros between texts and calls.
"""
from __future__ import annotations

from vecscore._jit import jit, prange

__all__ = ["grid_matches"]


@jit
def _chunk_matches(start, ids, cnts, rows_a, rows_b, lo, hi, symmetric, scratch, out):
    """The rows ``lo .. hi - 1`` of ``rows_a`` against every text of ``rows_b``, with one scratch row;
    ``symmetric`` (``rows_a`` and ``rows_b`` the same rows): only the cells ``j >= i``, copied to ``[j, i]``."""
    orders = start.shape[1] - 1
    nb = len(rows_b)
    for i in range(lo, hi):
        a = rows_a[i]
        for e in range(start[a, 0], start[a, orders]):
            scratch[ids[e]] = cnts[e]
        for j in range(i if symmetric else 0, nb):
            b = rows_b[j]
            for k in range(orders):
                s = 0
                for e in range(start[b, k], start[b, k + 1]):
                    s += min(scratch[ids[e]], cnts[e])
                out[i, j, k] = s
                if symmetric:
                    out[j, i, k] = s
        for e in range(start[a, 0], start[a, orders]):
            scratch[ids[e]] = 0


@jit(parallel=True)
def grid_matches(start, ids, cnts, rows_a, rows_b, bounds, symmetric, scratch, out):
    """``out[i, j, k]``: the clipped matches of order ``k`` between texts ``rows_a[i]`` and ``rows_b[j]``.

    ``bounds``: int64 chunk bounds over ``rows_a`` (``len(scratch) + 1`` of them); ``symmetric``: whether
    ``rows_a`` and ``rows_b`` are the same rows (the matches of ``[i, j]`` and ``[j, i]`` are equal, so each
    is counted once); ``scratch``: int32 ``(chunks, n_ids)``, all zeros (and left so); ``out``: int32
    ``(len(rows_a), len(rows_b), orders)``.
    """
    for c in prange(len(bounds) - 1):
        _chunk_matches(start, ids, cnts, rows_a, rows_b, bounds[c], bounds[c + 1], symmetric, scratch[c], out)
