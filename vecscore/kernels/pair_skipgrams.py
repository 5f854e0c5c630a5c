"""Clipped skip-bigram hits (ROUGE-S / ROUGE-SU) one pair at a time.

The same statistics as :func:`vecscore.kernels.skipgrams.skip_bigram_overlap`
(whose module docstring defines the units, the gap and the unigram modes),
without materializing a chunk's keys and sparse counts: for every pair, in a
``prange`` loop over chunks of pairs,

1. the hypothesis's tokens get pair-local dense ids ``0 .. V-2``, and every
   reference token it lacks the one id ``V-1`` (a unit holding it has
   hypothesis count 0 whatever its other token);
2. a unit gets an exact integer key: ``a * V + b`` for the skip-bigram
   ``(a, b)``, ``V * V + a`` for the unigram ``a``; while ``V * (V + 1)`` is
   at most ``DENSE_UNITS`` the key itself indexes dense count arrays,
   otherwise the hypothesis's units are numbered through a hash table (a
   reference unit absent from it cannot be a hit);
3. ``sum_g min(c_hyp(g), c_ref(g))`` comes from one pass over each
   reference's units against the hypothesis counts.

Memory: scratch for the largest text of a chunk (its units) and one
``n_vocab`` id map per chunk; a pair is never split.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange
from vecscore.kernels.ngrams import chunk_ranges, table_bits
from vecscore.kernels.pair_tables import clipped_hits, number_keys
from vecscore.memory import CHUNK_FAILED

__all__ = ["pair_skip_bigram_hits", "DENSE_UNITS"]

#: Largest dense unit-key range (``V * (V + 1)``, pair-local vocabulary ``V``).
DENSE_UNITS = 1 << 16


@jit(inline=True)
def _units(lid, gap, unigrams, n_vocab_local, out):
    """Keys of the units of one text (local ids ``lid``) in ``out``; returns how many."""
    k = 0
    n = len(lid)
    base = n_vocab_local * n_vocab_local
    for i in range(n):
        a = lid[i]
        if unigrams == 2 or (unigrams == 1 and i + 1 < n):
            out[k] = base + a
            k += 1
        top = n if gap < 0 else min(n, i + gap + 2)
        row = a * n_vocab_local
        for j in range(i + 1, top):
            out[k] = row + lid[j]
            k += 1
    return k


@jit(inline=True)
def _text_units(ids, lo, hi, loc, absent, lid, gap, unigrams, n_vocab_local, out, dense, insert,
                stamp, shift, mask, tkey, tid, tstamp):
    """Unit ids of the text ``ids[lo:hi]`` in ``out`` (pair-local ids through ``loc``, ``absent`` where
    ``loc`` has none); returns how many.

    Dense keys are the ids; otherwise they are numbered through the pair's
    table (:func:`vecscore.kernels.pair_tables.number_keys`: the hypothesis
    inserts, a reference looks up, -1 when absent).
    """
    for j in range(hi - lo):
        x = loc[ids[lo + j]]
        lid[j] = x if x >= 0 else absent
    n = _units(lid[:hi - lo], gap, unigrams, n_vocab_local, out)
    if not dense:
        number_keys(out[:n], insert, 0, stamp, shift, mask, tkey, tid, tstamp)
    return n


@jit(parallel=True)
def pair_skip_bigram_hits(ids, offsets, n_pairs, ref_ptr, n_vocab, gap, unigrams, unit_totals):
    """Clipped skip-bigram (and unigram) hits of every reference row with its hypothesis.

    ``ids``/``offsets``: the ragged batch (hypotheses ``0..n_pairs-1``, then
    the references, ``ref_ptr`` as in :class:`vecscore.engine.batch.PairBatch`),
    dense ids below ``n_vocab``.  ``unit_totals``: units per row
    (:func:`vecscore.kernels.skipgrams.skip_bigram_totals`), which size the
    scratch.  Returns int64 hits, one per reference row.
    """
    n_refs = ref_ptr[n_pairs]
    hits = np.zeros(n_refs, np.int64)
    bounds = chunk_ranges(n_pairs, max(1, min(256, n_pairs // 256)))
    failed = np.zeros(len(bounds) - 1, np.bool_)
    for c in prange(len(bounds) - 1):
        failed[c] = not _skip_hits_chunk(bounds, c, n_vocab, n_pairs, ids, gap, unigrams, unit_totals, ref_ptr, offsets,
                                         hits)
    if failed.any():
        raise MemoryError(CHUNK_FAILED)
    return hits



@jit
def _skip_hits_chunk(bounds, c, n_vocab, n_pairs, ids, gap, unigrams, unit_totals, ref_ptr, offsets, hits):
    """The pairs of chunk ``c`` of :func:`pair_skip_bigram_hits`; False if its scratch could not be allocated
    (an exception inside a parallel loop would be lost)."""
    try:
        _skip_hits_chunk_body(bounds, c, n_vocab, n_pairs, ids, gap, unigrams, unit_totals, ref_ptr, offsets, hits)
    except Exception:
        return False
    return True


@jit
def _skip_hits_chunk_body(bounds, c, n_vocab, n_pairs, ids, gap, unigrams, unit_totals, ref_ptr, offsets, hits):
    """The work of :func:`_skip_hits_chunk` (no ``try`` here: numba compiles a try block holding
    loops badly, so the caller wraps the call)."""
    most_units = 1
    most_hyp_units = 1
    most_tokens = 1
    for p in range(bounds[c], bounds[c + 1]):
        most_hyp_units = max(most_hyp_units, unit_totals[p])
        most_tokens = max(most_tokens, offsets[p + 1] - offsets[p])
        for q in range(n_pairs + ref_ptr[p], n_pairs + ref_ptr[p + 1]):
            most_units = max(most_units, unit_totals[q])
            most_tokens = max(most_tokens, offsets[q + 1] - offsets[q])
    most_units = max(most_units, most_hyp_units)
    loc = np.full(max(n_vocab, 1), -1, np.int64)
    lid = np.empty(most_tokens, np.int64)
    hyp_units = np.empty(most_hyp_units, np.int64)
    ref_units = np.empty(most_units, np.int64)
    size = 1 << table_bits(most_hyp_units)
    tkey = np.empty(size, np.int64)
    tid = np.empty(size, np.int64)
    tstamp = np.full(size, -1, np.int64)
    hcnt = np.zeros(max(DENSE_UNITS, most_hyp_units), np.int32)
    rcnt = np.zeros(max(DENSE_UNITS, most_hyp_units), np.int32)
    for p in range(bounds[c], bounds[c + 1]):
        r0 = n_pairs + ref_ptr[p]
        r1 = n_pairs + ref_ptr[p + 1]
        # 1. pair-local ids: the hypothesis's tokens 0 .. v-1, in order of first occurrence
        v = 0
        for j in range(offsets[p], offsets[p + 1]):
            if loc[ids[j]] < 0:
                loc[ids[j]] = v
                v += 1
        absent = v  # every reference token the hypothesis lacks: no unit holding it can be a hit
        v += 1
        dense = v * (v + 1) <= DENSE_UNITS
        bits = table_bits(unit_totals[p])
        shift = 64 - bits
        mask = (1 << bits) - 1
        # 2. the hypothesis's units and counts
        nh = _text_units(ids, offsets[p], offsets[p + 1], loc, absent, lid, gap, unigrams, v, hyp_units, dense,
                         True, p, shift, mask, tkey, tid, tstamp)
        hu = hyp_units[:nh]
        for j in range(nh):
            hcnt[hu[j]] += 1
        # 3. each reference against them
        for row in range(r0, r1):
            nr = _text_units(ids, offsets[row], offsets[row + 1], loc, absent, lid, gap, unigrams, v, ref_units,
                             dense, False, p, shift, mask, tkey, tid, tstamp)
            hits[row - n_pairs] = clipped_hits(ref_units[:nr], hcnt, rcnt)
        for j in range(nh):
            hcnt[hu[j]] = 0
        for j in range(offsets[p], offsets[p + 1]):
            loc[ids[j]] = -1
