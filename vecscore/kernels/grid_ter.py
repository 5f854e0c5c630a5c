"""sacreBLEU's TER edits of every cell of a grid of texts: hypothesis ``rows_a[i]`` against reference
``rows_b[j]``.

Hypothesis and reference tokens are two ragged arrays of int ids in one id space (text ``t`` as a
hypothesis is ``hyp_ids[hyp_ptr[t]:hyp_ptr[t + 1]]``, as a reference ``ref_ids[ref_ptr[t]:ref_ptr[t + 1]]``;
they may be the same arrays).  A cell reads its two texts in place and runs the per-pair kernel
:func:`vecscore.kernels.ter.ter_edits_one`, so its number is exactly the pair kernel's.  The rows of the grid
are split into chunks run in parallel (``prange``); each chunk allocates its scratch once, sized by its
longest hypothesis and the grid's longest reference.  A chunk that cannot allocate its scratch makes the call
raise ``MemoryError`` (an exception inside the parallel loop would be lost).
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange
from vecscore.kernels.ter import ter_edits_one
from vecscore.memory import CHUNK_FAILED

__all__ = ["ter_grid_edits"]


@jit
def _ter_grid_chunk(hyp_ids, hyp_ptr, ref_ids, ref_ptr, rows_a, rows_b, max_ref, lo, hi, out):
    """Rows ``lo .. hi - 1`` of :func:`ter_grid_edits` on one thread; False if its scratch could not be
    allocated."""
    try:
        _ter_grid_rows(hyp_ids, hyp_ptr, ref_ids, ref_ptr, rows_a, rows_b, max_ref, lo, hi, out)
    except Exception:
        return False
    return True


@jit
def _ter_grid_rows(hyp_ids, hyp_ptr, ref_ids, ref_ptr, rows_a, rows_b, max_ref, lo, hi, out):
    """The work of :func:`_ter_grid_chunk` (numba compiles a ``try`` around loops badly: the caller wraps it)."""
    max_hyp = 0
    for i in range(lo, hi):
        t = rows_a[i]
        max_hyp = max(max_hyp, hyp_ptr[t + 1] - hyp_ptr[t])
    cells = (max_hyp + 1) * (max_ref + 1)
    cost_buf = np.empty(cells, np.int32)
    cand_buf = np.empty(cells, np.int32)
    back_buf = np.empty(cells, np.int32)
    ops_buf = np.empty(cells, np.int8)
    cap = max(max_hyp, max_ref) + 1
    vec = np.empty((8, cap), np.int64)
    for i in range(lo, hi):
        h = hyp_ids[hyp_ptr[rows_a[i]]:hyp_ptr[rows_a[i] + 1]]
        n = h.shape[0]
        for j in range(rows_b.shape[0]):
            r = ref_ids[ref_ptr[rows_b[j]]:ref_ptr[rows_b[j] + 1]]
            m = r.shape[0]
            size = (n + 1) * (m + 1)
            cost = cost_buf[:size].reshape((n + 1, m + 1))
            ops = ops_buf[:size].reshape((n + 1, m + 1))
            cand_cost = cand_buf[:size].reshape((n + 1, m + 1))
            back = back_buf[:size].reshape((n + 1, m + 1))
            out[i, j] = ter_edits_one(h, r, cost, ops, cand_cost, back, vec[0], vec[1], vec[2], vec[3], vec[4],
                                      vec[5], vec[6], vec[7])


@jit(parallel=True)
def ter_grid_edits(hyp_ids, hyp_ptr, ref_ids, ref_ptr, rows_a, rows_b, n_chunks):
    """int64 ``(len(rows_a), len(rows_b))``: sacreBLEU's number of edits of hypothesis ``rows_a[i]`` against
    reference ``rows_b[j]`` (-1 where the per-pair kernel reports an untraceable alignment, never seen).

    All arguments int64; ``n_chunks``: how many parts the rows are split into (results never depend on it).
    """
    na = rows_a.shape[0]
    out = np.empty((na, rows_b.shape[0]), np.int64)
    max_ref = 0
    for j in range(rows_b.shape[0]):
        t = rows_b[j]
        max_ref = max(max_ref, ref_ptr[t + 1] - ref_ptr[t])
    failed = np.zeros(n_chunks, np.bool_)
    for c in prange(n_chunks):
        lo = c * na // n_chunks
        hi = (c + 1) * na // n_chunks
        if hi > lo:
            failed[c] = not _ter_grid_chunk(hyp_ids, hyp_ptr, ref_ids, ref_ptr, rows_a, rows_b, max_ref, lo, hi, out)
    if failed.any():
        raise MemoryError(CHUNK_FAILED)
    return out
