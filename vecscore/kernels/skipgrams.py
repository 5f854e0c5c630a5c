"""Skip-bigram keys and clipped skip-bigram overlaps (ROUGE-S / ROUGE-SU).

Definitions (ROUGE-1.5.5.pl ``createSkipBigram``)
--------------------------------------------------
For a token sequence ``t_0 .. t_{L-1}`` the skip-bigrams with gap limit
``gap`` are the ordered pairs ``(t_i, t_j)``, ``i < j``, with at most ``gap``
tokens between them (``j - i - 1 <= gap``); ``gap < 0`` means no limit
(ROUGE-S*).  ROUGE-SU adds unigrams, selected by ``unigrams``:

* ``UNI_NONE`` (0): ROUGE-S, no unigrams;
* ``UNI_PERL`` (1): the script's ROUGE-SU: ``t_0 .. t_{L-2}``.  The unigrams
  are added inside the loop ``for($i=0;$i<$#m_tokens;$i++)``, so the last
  token's unigram is never counted (and a one-token text has no unit at all);
* ``UNI_ALL`` (2): corrected ROUGE-SU, every token's unigram.

Number of units of a row of length ``L`` (closed form, no enumeration), with
``k = min(gap + 1, L - 1)`` (``k = L - 1`` when ``gap < 0``)::

    skip-bigrams = k (k + 1) / 2 + k (L - 1 - k)        (= L (L - 1) / 2 for S*)
    unigrams     = 0 | max(L - 1, 0) | L

Keys
----
Dense token ids (``0 <= id < 2**31 - 1``) become int64 keys: a unigram is its
id, a skip-bigram ``(a, b)`` is ``((a + 1) << 31) | b``, so unigram and
bigram keys never collide (the script's keys ``"a"`` and ``"a b"`` do not
either).  The keys feed the same sparse machinery as n-grams:
:func:`vecscore.kernels.ngrams.row_counts` (per-row unique keys and counts)
and :func:`vecscore.kernels.ngrams.clipped_overlap` (``sum min(count_h,
count_r)``).

Memory bound
------------
ROUGE-S* has ``L (L - 1) / 2`` skip-bigrams per text, quadratic in the text
length, so keys are never materialized for a whole batch.
:func:`skip_bigram_overlap` walks the pairs in chunks: a chunk holds whole
pairs (the hypothesis and all its references) whose skip-bigrams total at
most ``max_keys`` (default 2**22), and only that chunk's keys and counts
exist at a time: about ``4 * 8 * max(max_keys, K_p)`` bytes (keys, two
scratch arrays and the per-row counts; 128 MiB by default), where ``K_p`` is
the number of skip-bigrams of the largest single pair (a pair is never
split).  A 3,000-token S* text has 4.5 million skip-bigrams (36 MB of keys).
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange
from vecscore.errors import VecscoreError
from vecscore.kernels.ngrams import clipped_overlap, row_counts

__all__ = [
    "UNI_NONE",
    "UNI_PERL",
    "UNI_ALL",
    "skip_bigram_totals",
    "skip_bigram_keys",
    "skip_bigram_overlap",
    "DEFAULT_MAX_KEYS",
]

UNI_NONE = 0
UNI_PERL = 1
UNI_ALL = 2
#: Skip-bigram keys materialized at a time by :func:`skip_bigram_overlap`.
DEFAULT_MAX_KEYS = 1 << 22
_MAX_ID = (1 << 31) - 1


def skip_bigram_totals(lengths, gap: int, unigrams: int = UNI_NONE) -> np.ndarray:
    """Number of units (skip-bigrams plus unigrams) per row, in closed form.

    Parameters
    ----------
    lengths : array_like of int
        Token counts of the rows.
    gap : int
        Largest number of tokens between the two words (``< 0``: no limit).
    unigrams : int
        ``UNI_NONE``, ``UNI_PERL`` or ``UNI_ALL`` (module docstring).

    Returns
    -------
    numpy.ndarray
        int64, one count per row.

    Examples
    --------
    >>> skip_bigram_totals([0, 1, 2, 5], 4).tolist(), skip_bigram_totals([5], 0).tolist()
    ([0, 0, 1, 10], [4])
    >>> skip_bigram_totals([1, 3], -1, UNI_PERL).tolist(), skip_bigram_totals([1, 3], -1, UNI_ALL).tolist()
    ([0, 5], [1, 6])
    """
    L = np.asarray(lengths, dtype=np.int64)
    last = np.maximum(L - 1, 0)
    k = last if gap < 0 else np.minimum(np.int64(gap) + 1, last)
    total = k * (k + 1) // 2 + k * (last - k)
    if unigrams == UNI_PERL:
        total = total + last
    elif unigrams == UNI_ALL:
        total = total + L
    return total


@jit(parallel=True)
def _keys(ids, offsets, rows, key_off, gap, unigrams):
    keys = np.empty(key_off[len(rows)], np.int64)
    for q in prange(len(rows)):
        r = rows[q]
        lo = offsets[r]
        hi = offsets[r + 1]
        k = key_off[q]
        for i in range(lo, hi):
            if unigrams == 2 or (unigrams == 1 and i + 1 < hi):
                keys[k] = ids[i]
                k += 1
            top = hi if gap < 0 else min(hi, i + gap + 2)
            a = (ids[i] + 1) << 31
            for j in range(i + 1, top):
                keys[k] = a | ids[j]
                k += 1
    return keys


def skip_bigram_keys(ids, offsets, rows, gap: int, unigrams: int = UNI_NONE):
    """Int64 keys of the skip-bigrams (and unigrams) of the selected rows.

    Parameters
    ----------
    ids, offsets : numpy.ndarray of int64
        Ragged batch of dense token ids (``0 <= id < 2**31 - 1``).
    rows : numpy.ndarray of int64
        Rows to enumerate, in output order.
    gap : int
        Gap limit (``< 0``: none).
    unigrams : int
        ``UNI_NONE``, ``UNI_PERL`` or ``UNI_ALL``.

    Returns
    -------
    keys, key_offsets : numpy.ndarray of int64
        The keys of ``rows[q]`` are ``keys[key_offsets[q]:key_offsets[q + 1]]``
        (per row, in the script's order: for each ``i``, the unigram, then
        the pairs ``(i, j)`` by increasing ``j``).

    Examples
    --------
    >>> import numpy as np
    >>> k, o = skip_bigram_keys(np.array([0, 1, 2]), np.array([0, 3]), np.array([0]), -1, UNI_PERL)
    >>> [(int(x) >> 31) - 1 if x >> 31 else int(x) for x in k], o.tolist()
    ([0, 0, 0, 1, 1], [0, 5])
    """
    ids = np.ascontiguousarray(ids, dtype=np.int64)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    if unigrams not in (UNI_NONE, UNI_PERL, UNI_ALL):
        raise VecscoreError(f"unigrams must be UNI_NONE (0), UNI_PERL (1) or UNI_ALL (2), got {unigrams!r}")
    if ids.size and (ids.min() < 0 or ids.max() >= _MAX_ID):
        raise VecscoreError(f"skip-bigram keys need dense token ids in [0, 2**31 - 1), got {ids.min()}..{ids.max()}")
    key_off = np.zeros(len(rows) + 1, np.int64)
    np.cumsum(skip_bigram_totals(np.diff(offsets)[rows], int(gap), unigrams), out=key_off[1:])
    return _keys(ids, offsets, rows, key_off, np.int64(gap), np.int64(unigrams)), key_off


def _chunk_bounds(weights: np.ndarray, budget: int) -> list[int]:
    """Greedy split of consecutive items into chunks of total weight <= budget (at least one item each)."""
    cs = np.concatenate([[0], np.cumsum(weights)])
    bounds = [0]
    n = len(weights)
    while bounds[-1] < n:
        lo = bounds[-1]
        hi = int(np.searchsorted(cs, cs[lo] + budget, side="right")) - 1
        bounds.append(max(hi, lo + 1))
    return bounds


def skip_bigram_overlap(ids, offsets, n_pairs: int, ref_ptr, gap: int, unigrams: int = UNI_NONE, *,
                        max_keys: int = DEFAULT_MAX_KEYS):
    """Clipped skip-bigram hits of every (hypothesis, reference) pair, in bounded memory.

    Parameters
    ----------
    ids, offsets : numpy.ndarray of int64
        Ragged batch: rows ``0 .. n_pairs - 1`` are the hypotheses, the rows
        after them the references (the :class:`vecscore.engine.batch.PairBatch` layout).
    n_pairs : int
        Number of hypotheses.
    ref_ptr : numpy.ndarray of int64
        The references of pair ``i`` are reference rows ``ref_ptr[i]:ref_ptr[i + 1]``.
    gap, unigrams : int
        As in :func:`skip_bigram_keys`.
    max_keys : int
        Keys materialized per chunk (module docstring, "Memory bound").

    Returns
    -------
    hits : numpy.ndarray of int64
        ``sum_g min(count_hyp(g), count_ref(g))``, one per reference row.
    hyp_total, ref_total : numpy.ndarray of int64
        Units per hypothesis and per reference (:func:`skip_bigram_totals`).

    Examples
    --------
    >>> import numpy as np
    >>> # "police killed the gunman" vs "police kill the gunman", S*: 3 of 6 skip-bigrams
    >>> ids = np.array([0, 1, 2, 3, 0, 4, 2, 3]); off = np.array([0, 4, 8])
    >>> h, nh, nr = skip_bigram_overlap(ids, off, 1, np.array([0, 1]), -1)
    >>> h.tolist(), nh.tolist(), nr.tolist()
    ([3], [6], [6])
    """
    ids = np.ascontiguousarray(ids, dtype=np.int64)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    ref_ptr = np.ascontiguousarray(ref_ptr, dtype=np.int64)
    lengths = np.diff(offsets)
    totals = skip_bigram_totals(lengths, int(gap), unigrams)
    hyp_total = totals[:n_pairs]
    ref_total = totals[n_pairs:]
    hits = np.zeros(len(ref_total), np.int64)
    if n_pairs == 0:
        return hits, hyp_total, ref_total
    nrefs = np.diff(ref_ptr)
    cs = np.zeros(len(ref_total) + 1, np.int64)
    np.cumsum(ref_total, out=cs[1:])
    ref_sum = cs[ref_ptr[1:]] - cs[ref_ptr[:-1]]
    bounds = _chunk_bounds(hyp_total + ref_sum, max(int(max_keys), 1))
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        r0, r1 = int(ref_ptr[lo]), int(ref_ptr[hi])
        if r1 == r0:
            continue
        rows = np.concatenate([np.arange(lo, hi, dtype=np.int64), n_pairs + np.arange(r0, r1, dtype=np.int64)])
        keys, key_off = skip_bigram_keys(ids, offsets, rows, gap, unigrams)
        indptr, idx, cnt = row_counts(keys, key_off)
        local_hyp = np.repeat(np.arange(hi - lo, dtype=np.int64), nrefs[lo:hi])
        local_ref = (hi - lo) + np.arange(r1 - r0, dtype=np.int64)
        hits[r0:r1] = clipped_overlap(indptr, idx, cnt, local_hyp, local_ref)
    return hits, hyp_total, ref_total
