"""Clipped n-gram and skip-bigram hits, and the per-pair reductions, in NumPy.

The same integers as :func:`vecscore.kernels.pair_ngrams.pair_ngram_hits_ids`
and :func:`vecscore.kernels.pair_skipgrams.pair_skip_bigram_hits` (units
defined in :mod:`vecscore.kernels.skipgrams`), computed for a whole batch at
once instead of pair by pair:

1. every unit (n-gram, skip-bigram, unigram) gets an exact integer key, and
   every occurrence the row (text) it occurs in;
2. ``numpy.unique`` of ``row * n_keys + key`` counts each unit per row;
3. each reference row's counts are looked up in its hypothesis's (sorted
   keys, ``searchsorted``) and ``sum min(c_hyp, c_ref)`` is summed per row.

Layout as the kernels: one ragged batch (``ids``/``offsets``), hypotheses
``0 .. n_pairs - 1`` first, then the references, those of pair ``p`` being
rows ``n_pairs + ref_ptr[p] .. n_pairs + ref_ptr[p + 1] - 1``.  Work is cut
into chunks of whole pairs with at most :data:`CHUNK_UNITS` units each.
"""
from __future__ import annotations

import numpy as np

__all__ = ["ngram_hits", "skip_bigram_hits", "segment_sum_seq", "segment_argmax", "CHUNK_UNITS"]

#: units (n-gram or skip-bigram occurrences) materialized at a time
CHUNK_UNITS = 1 << 22


def _positions(offsets: np.ndarray):
    """Per token of the batch: its row, and how many tokens its row has from it on (itself included)."""
    lens = np.diff(offsets)
    row = np.repeat(np.arange(len(lens), dtype=np.int64), lens)
    rest = offsets[1:][row] - np.arange(offsets[-1], dtype=np.int64)
    return row, rest


def _clipped(rows: np.ndarray, keys: np.ndarray, n_pairs: int, ref_ptr: np.ndarray) -> np.ndarray:
    """``sum over units of min(count in the reference, count in its hypothesis)`` per reference row.

    ``rows``/``keys``: the row and the unit key (``>= 0``) of every unit occurrence.
    """
    n_refs = int(ref_ptr[-1])
    if keys.size == 0 or n_refs == 0:
        return np.zeros(n_refs, np.int64)
    n_keys = int(keys.max()) + 1
    if n_keys * (n_pairs + n_refs) >= 1 << 62:
        keys = np.unique(keys, return_inverse=True)[1].reshape(-1).astype(np.int64)
        n_keys = int(keys.max()) + 1
    uniq, counts = np.unique(rows * n_keys + keys, return_counts=True)
    split = int(np.searchsorted(uniq, n_pairs * n_keys))
    hyp_keys, hyp_counts = uniq[:split], counts[:split]
    ref_keys, ref_counts = uniq[split:], counts[split:]
    if hyp_keys.size == 0 or ref_keys.size == 0:
        return np.zeros(n_refs, np.int64)
    ref = ref_keys // n_keys - n_pairs
    owner = np.repeat(np.arange(n_pairs, dtype=np.int64), np.diff(ref_ptr))
    want = owner[ref] * n_keys + ref_keys % n_keys
    at = np.minimum(np.searchsorted(hyp_keys, want), hyp_keys.size - 1)
    both = np.where(hyp_keys[at] == want, np.minimum(ref_counts, hyp_counts[at]), 0)
    return np.bincount(ref, weights=both, minlength=n_refs).astype(np.int64)


def _pair_chunks(offsets, n_pairs, ref_ptr, units_per_row):
    """Chunks ``(p0, p1)`` of whole pairs whose rows hold at most :data:`CHUNK_UNITS` units (a pair is
    never split)."""
    per_pair = units_per_row[:n_pairs].astype(np.int64).copy()
    ref_units = np.concatenate([[0], np.cumsum(units_per_row[n_pairs:], dtype=np.int64)])
    per_pair += ref_units[ref_ptr[1:]] - ref_units[ref_ptr[:-1]]
    p0 = 0
    total = 0
    for p, u in enumerate(per_pair.tolist()):
        if total and total + u > CHUNK_UNITS:
            yield p0, p
            p0, total = p, 0
        total += u
    if p0 < n_pairs or n_pairs == 0:
        yield p0, n_pairs


def _by_chunks(ids, offsets, n_pairs, ref_ptr, units_per_row, n_out, fn) -> np.ndarray:
    """``fn(ids, offsets, n_pairs, ref_ptr)`` (an ``(n_out, n_refs)`` array of hits) over chunks of pairs."""
    n_refs = int(ref_ptr[-1])
    if int(units_per_row.sum()) <= CHUNK_UNITS:
        return fn(ids, offsets, n_pairs, ref_ptr)
    out = np.zeros((n_out, n_refs), np.int64)
    for p0, p1 in _pair_chunks(offsets, n_pairs, ref_ptr, units_per_row):
        q0, q1 = int(ref_ptr[p0]), int(ref_ptr[p1])
        h0, h1 = int(offsets[p0]), int(offsets[p1])
        r0, r1 = int(offsets[n_pairs + q0]), int(offsets[n_pairs + q1])
        sub_ids = np.concatenate([ids[h0:h1], ids[r0:r1]])
        sub_off = np.concatenate([offsets[p0:p1 + 1] - h0, offsets[n_pairs + q0 + 1:n_pairs + q1 + 1] - r0 + (h1 - h0)])
        out[:, q0:q1] = fn(sub_ids, sub_off, p1 - p0, ref_ptr[p0:p1 + 1] - q0)
    return out


def ngram_hits(ids, offsets, n_pairs: int, ref_ptr, orders, drop_last: bool) -> np.ndarray:
    """Clipped n-gram hits per order (rows of the result) and reference row, as
    :func:`vecscore.kernels.pair_ngrams.pair_ngram_hits_ids`; with ``drop_last`` one more row: the
    unigrams of every text but its last token (the script's ROUGE-SU unigrams)."""
    ids = np.asarray(ids, np.int64)
    offsets = np.asarray(offsets, np.int64)
    ref_ptr = np.asarray(ref_ptr, np.int64)
    orders = [int(n) for n in orders]
    n_out = len(orders) + (1 if drop_last else 0)
    units = np.diff(offsets) * max(n_out, 1)

    def run(ids, offsets, n_pairs, ref_ptr):
        out = np.zeros((n_out, int(ref_ptr[-1])), np.int64)
        row, rest = _positions(offsets)
        n_vocab = int(ids.max()) + 1 if ids.size else 1
        gram = ids  # dense ids of the n-grams starting at each position (-1: none)
        for n in range(1, (max(orders) if orders else 0) + 1):
            if n > 1:
                at = np.flatnonzero(rest >= n)
                code = gram[at] * n_vocab + ids[at + n - 1]
                dense = np.unique(code, return_inverse=True)[1].reshape(-1)
                gram = np.full(len(ids), -1, np.int64)
                gram[at] = dense
            if n in orders:
                at = np.flatnonzero(rest >= n)
                out[orders.index(n)] = _clipped(row[at], gram[at], n_pairs, ref_ptr)
        if drop_last:
            at = np.flatnonzero(rest >= 2)
            out[-1] = _clipped(row[at], ids[at], n_pairs, ref_ptr)
        return out

    return _by_chunks(ids, offsets, n_pairs, ref_ptr, units, n_out, run)


def _skip_counts(rest: np.ndarray, gap: int) -> np.ndarray:
    """Skip-bigrams starting at each token: partners after it, at most ``gap`` tokens between."""
    after = rest - 1
    return after if gap < 0 else np.minimum(after, gap + 1)


def _on_other_side(ids, row, n_pairs, ref_ptr) -> np.ndarray:
    """Per token: whether its pair's other side has it (a hypothesis token: one of the pair's
    references; a reference token: the hypothesis).  A unit holding a token without it is no hit."""
    n_vocab = int(ids.max()) + 1
    owner = np.concatenate([np.arange(n_pairs, dtype=np.int64),
                            np.repeat(np.arange(n_pairs, dtype=np.int64), np.diff(ref_ptr))])
    key = owner[row] * n_vocab + ids
    hyp = row < n_pairs
    out = np.empty(len(ids), np.bool_)
    out[hyp] = np.isin(key[hyp], key[~hyp])
    out[~hyp] = np.isin(key[~hyp], key[hyp])
    return out


def skip_bigram_hits(ids, offsets, n_pairs: int, ref_ptr, gap: int) -> np.ndarray:
    """Clipped skip-bigram hits (no unigrams) per reference row, as
    :func:`vecscore.kernels.pair_skipgrams.pair_skip_bigram_hits` with ``UNI_NONE``.

    Only the skip-bigrams of tokens that the pair's other side has are formed (the gap still
    counts every token between them): the others cannot be hits.
    """
    ids = np.asarray(ids, np.int64)
    offsets = np.asarray(offsets, np.int64)
    ref_ptr = np.asarray(ref_ptr, np.int64)
    _, rest = _positions(offsets)
    starts = np.concatenate([[0], np.cumsum(_skip_counts(rest, gap))])
    units = starts[offsets[1:]] - starts[offsets[:-1]]  # before the filter: a bound for the chunks

    def run(ids, offsets, n_pairs, ref_ptr):
        if ids.size == 0:
            return np.zeros((1, int(ref_ptr[-1])), np.int64)
        row, _ = _positions(offsets)
        kept = np.flatnonzero(_on_other_side(ids, row, n_pairs, ref_ptr))
        last = offsets[1:][row[kept]] - 1  # the last token of each kept token's text
        reach = last if gap < 0 else np.minimum(kept + gap + 1, last)
        count = np.searchsorted(kept, reach, side="right") - np.arange(1, len(kept) + 1)
        a = np.repeat(np.arange(len(kept), dtype=np.int64), count)
        b = a + 1 + (np.arange(len(a), dtype=np.int64) - np.repeat(np.cumsum(count) - count, count))
        first, second = kept[a], kept[b]
        n_vocab = int(ids.max()) + 1
        return _clipped(row[first], ids[first] * n_vocab + ids[second], n_pairs, ref_ptr)[None]

    return _by_chunks(ids, offsets, n_pairs, ref_ptr, units, 1, run)[0]


def segment_sum_seq(x, ptr) -> np.ndarray:
    """``x[ptr[i]:ptr[i + 1]].sum()`` per ``i``, added left to right from ``0.0`` (as
    :func:`vecscore.kernels.rouge155.segment_sum_seq`)."""
    x = np.asarray(x, np.float64)
    ptr = np.asarray(ptr, np.int64)
    lens = np.diff(ptr)
    out = np.zeros(len(lens), np.float64)
    for k in range(int(lens.max()) if lens.size else 0):
        has = lens > k
        out[has] += x[ptr[:-1][has] + k]
    return out


def segment_argmax(values, ptr) -> np.ndarray:
    """Index of the first maximum of ``values[ptr[i]:ptr[i + 1]]`` per ``i`` (``-1`` if empty), as
    :func:`vecscore.kernels.segments.segment_argmax`."""
    values = np.asarray(values, np.float64)
    ptr = np.asarray(ptr, np.int64)
    lens = np.diff(ptr)
    best = np.where(lens > 0, ptr[:-1], -1)
    for k in range(1, int(lens.max()) if lens.size else 0):
        cand = ptr[:-1] + k
        better = lens > k
        better[better] = values[cand[better]] > values[best[better]]
        best[better] = cand[better]
    return best
