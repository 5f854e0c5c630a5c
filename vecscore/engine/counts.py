"""Sparse n-gram count matrices of a ragged batch.

``ngram_counts(ragged, n, n_vocab)`` returns :class:`NgramCounts`: the CSR
pieces of a count matrix with one row per text and one column per n-gram key
(``to_scipy()`` gives the ``scipy.sparse.csr_array``).  Keys are exact: n
token ids are bit-packed into an int64 when they fit, and otherwise built
order by order, interning the (n-1)-gram ids.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vecscore.kernels.intern import intern_keys_chunked
from vecscore.kernels.ngrams import (
    clipped_overlap,
    extend_ngrams,
    pack_ngrams,
    row_counts,
)
from vecscore.parallel import current_threads

__all__ = ["NgramCounts", "ngram_counts", "ngram_keys", "overlap"]


@dataclass(frozen=True)
class NgramCounts:
    indptr: np.ndarray
    indices: np.ndarray
    counts: np.ndarray
    totals: np.ndarray  # number of n-grams per row (the row sums)

    def to_scipy(self):
        """The counts as a ``scipy.sparse.csr_array`` (rows = texts)."""
        from scipy import sparse

        n_cols = int(self.indices.max()) + 1 if self.indices.size else 1
        m = sparse.csr_array((self.counts, self.indices, self.indptr), shape=(len(self.indptr) - 1, n_cols))
        m.sort_indices()  # canonical form: scipy's elementwise ops then merge rows
        return m


def ngram_keys(ragged, n: int, n_vocab: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact int64 keys of every n-gram, with per-row offsets."""
    if n < 1:
        raise ValueError("n must be >= 1")
    bits = max(1, int(n_vocab - 1).bit_length())
    if n * bits <= 63:
        return pack_ngrams(ragged.ids, ragged.offsets, n, bits)
    prev, prev_off = ragged.ids, ragged.offsets
    for order in range(2, n + 1):
        keys, off = extend_ngrams(prev, prev_off, ragged.ids, ragged.offsets, order)
        prev, prev_off = intern_keys_chunked(keys, current_threads())[0], off
    return prev, prev_off


def ngram_counts(ragged, n: int, n_vocab: int) -> NgramCounts:
    keys, off = ngram_keys(ragged, n, n_vocab)
    indptr, indices, counts = row_counts(keys, off)
    return NgramCounts(indptr, indices, counts, np.diff(off))


def overlap(c: NgramCounts, a_rows: np.ndarray, b_rows: np.ndarray) -> np.ndarray:
    """Clipped overlap ``sum(min(count_a, count_b))`` for each row pair."""
    return clipped_overlap(c.indptr, c.indices, c.counts, a_rows, b_rows)
