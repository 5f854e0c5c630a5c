"""The pair layout of the LCS kernels, and the checks that bring a caller's arrays into it.

A batch of texts is a ragged array: ``ids`` (int64 dense interned ids, ``>= 0``)
and ``offsets`` (int64, length ``n + 1``); text ``i`` is
``ids[offsets[i]:offsets[i + 1]]``.

Summary-level kernels also need sentences, as a ragged array of ragged arrays:

* ``sent_offsets`` (int64, length ``S + 1``, non-decreasing): sentence ``s`` is
  ``ids[sent_offsets[s]:sent_offsets[s + 1]]`` (empty sentences allowed);
* ``text_sents`` (int64, length ``n + 1``, non-decreasing): the sentences of
  text ``i`` are ``text_sents[i]:text_sents[i + 1]``.

So text ``i`` spans ``ids[sent_offsets[text_sents[i]]:sent_offsets[text_sents[i + 1]]]``
(``offsets[i] == sent_offsets[text_sents[i]]``); a text with no sentence is
empty.  Hypotheses and references may live in two different ragged arrays;
``hyp_rows`` / ``ref_rows`` (int64, same length ``k``) name the ``k`` pairs to
score, and every kernel returns one value per pair, computed in a ``prange``
loop over chunks of pairs (results do not depend on the chunking or the number
of threads).

:func:`token_pairs` checks a batch of whole texts (``ids``, ``offsets``) and
:func:`sentence_pairs` one with sentences and clipping budgets; each returns
the arrays as int64 in the order its kernels take them, the id bound and the
number of work chunks (0: nothing to score).  The checks are vectorized: no
per-token Python.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange
from vecscore.errors import VecscoreError

__all__ = ["token_pairs", "sentence_pairs", "check_table_size", "MAX_TABLE_CELLS"]

#: Largest int32 backtracking table (cells) of the union-LCS kernel (1 GiB).
MAX_TABLE_CELLS = 1 << 28


def as_int64(name, x):
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise VecscoreError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise VecscoreError(f"{name} must hold integers, got dtype {arr.dtype}")
    return np.ascontiguousarray(arr, dtype=np.int64)


@jit(parallel=True)
def id_range(ids):
    """``(ids.min(), ids.max())`` of a non-empty int64 array in one parallel pass."""
    n = len(ids)
    chunks = min(n, 64)
    lows = np.empty(chunks, np.int64)
    highs = np.empty(chunks, np.int64)
    for c in prange(chunks):
        lo = c * n // chunks
        low = ids[lo]
        high = ids[lo]
        for j in range(lo, (c + 1) * n // chunks):
            low = min(low, ids[j])
            high = max(high, ids[j])
        lows[c] = low
        highs[c] = high
    return lows.min(), highs.max()


def check_offsets(name, offsets, length):
    if len(offsets) == 0:
        raise VecscoreError(f"{name} must have length n + 1 >= 1, got an empty array")
    if offsets[0] != 0 or offsets[-1] != length:
        raise VecscoreError(
            f"{name} must start at 0 and end at {length} (the length of the array it indexes), "
            f"got {offsets[0]} .. {offsets[-1]}")
    bad = np.flatnonzero(np.diff(offsets) < 0)
    if bad.size:
        raise VecscoreError(f"{name} must be non-decreasing; it decreases after index {bad[0]}")


def _check_rows(name, rows, n):
    if rows.size and (rows.min() < 0 or rows.max() >= n):
        i = int(np.flatnonzero((rows < 0) | (rows >= n))[0])
        raise VecscoreError(f"{name}[{i}] = {rows[i]} is out of range for {n} texts")


def _prepare_pairs(hyp_ids, ref_ids, hyp_rows, ref_rows, n_hyp, n_ref, vocab_size, n_chunks):
    """Check the ids (``>= 0``, below ``vocab_size``: default ``max id + 1``; the kernels keep one
    ``vocab_size`` scratch per chunk, so ids must be dense) and the pair rows (in range for ``n_hyp`` and
    ``n_ref`` texts); ``(hyp_ids, ref_ids, hyp_rows, ref_rows, vocab_size, n_chunks)``, ``n_chunks`` by
    default ``min(pairs, 4 * threads)``."""
    from vecscore.parallel import current_threads

    hyp_ids = as_int64("hyp_ids", hyp_ids)
    ref_ids = as_int64("ref_ids", ref_ids)
    hyp_rows = as_int64("hyp_rows", hyp_rows)
    ref_rows = as_int64("ref_rows", ref_rows)
    if len(hyp_rows) != len(ref_rows):
        raise VecscoreError(
            f"hyp_rows and ref_rows must have the same length, got {len(hyp_rows)} and {len(ref_rows)}")
    _check_rows("hyp_rows", hyp_rows, n_hyp)
    _check_rows("ref_rows", ref_rows, n_ref)
    top = -1
    for name, ids in (("hyp_ids", hyp_ids), ("ref_ids", ref_ids)):
        same = ids.shape == hyp_ids.shape and ids.ctypes.data == hyp_ids.ctypes.data
        if ids.size and (name == "hyp_ids" or not same):
            low, high = id_range(ids)
            if low < 0:
                raise VecscoreError(f"{name} must be >= 0 (dense interned ids); "
                                    f"{name}[{int(np.argmin(ids))}] = {low}")
            top = max(top, int(high))
    if vocab_size is None:
        vocab_size = top + 1
    elif vocab_size <= top:
        raise VecscoreError(f"vocab_size={vocab_size} but the largest id is {top}; pass max id + 1")
    vocab_size = max(int(vocab_size), 1)
    k = len(hyp_rows)
    if n_chunks is None:
        n_chunks = 4 * current_threads()
    n_chunks = max(1, min(int(n_chunks), k)) if k else 0
    return hyp_ids, ref_ids, hyp_rows, ref_rows, vocab_size, n_chunks


def _check_sentences(side, ids, sent_offsets, text_sents):
    """Validate a sentence layout (see the module docstring); return int64 arrays."""
    sent = as_int64(f"{side}_sent_offsets", sent_offsets)
    text = as_int64(f"{side}_text_sents", text_sents)
    check_offsets(f"{side}_sent_offsets", sent, len(ids))
    check_offsets(f"{side}_text_sents", text, len(sent) - 1)
    return sent, text


def max_sentence_len(sent, text):
    """Longest sentence of each text (0 for a text without sentences), vectorized."""
    lens = np.diff(sent)
    out = np.zeros(len(text) - 1, np.int64)
    has = np.flatnonzero(np.diff(text) > 0)
    if has.size:
        out[has] = np.maximum.reduceat(lens, text[has])
    return out


def check_table_size(h_sent, h_text, r_sent, r_text, hyp_rows, ref_rows, limit=MAX_TABLE_CELLS):
    """Raise when a pair needs a backtracking table above ``limit`` cells."""
    cells = (max_sentence_len(r_sent, r_text)[ref_rows] + 1) * (max_sentence_len(h_sent, h_text)[hyp_rows] + 1)
    if cells.size and cells.max() > limit:
        p = int(np.argmax(cells))
        raise VecscoreError(
            f"pair {p} (hyp row {hyp_rows[p]}, ref row {ref_rows[p]}) needs a {int(cells[p])}-cell "
            f"LCS table (longest sentences multiplied), above the limit of {limit}; split the texts "
            "into sentences (summary-level ROUGE-L is meant for sentence-split text)")


def _budget_arrays(budget, ids, text_offsets, n_texts, vocab):
    """The clipping-budget ragged array: ``budget`` checked, or the texts themselves."""
    if budget is None:
        return ids, np.ascontiguousarray(text_offsets, dtype=np.int64)
    b_ids = as_int64("budget ids", budget[0])
    b_off = as_int64("budget offsets", budget[1])
    check_offsets("budget offsets", b_off, len(b_ids))
    if len(b_off) != n_texts + 1:
        raise VecscoreError(f"budget offsets have {len(b_off) - 1} rows, the texts {n_texts}")
    if b_ids.size:
        low, high = id_range(b_ids)
        if low < 0 or high >= vocab:
            raise VecscoreError(f"budget ids must lie in [0, {vocab})")
    return b_ids, b_off


def token_pairs(hyp_ids, hyp_offsets, ref_ids, ref_offsets, hyp_rows, ref_rows, vocab_size=None, n_chunks=None):
    """Check two batches of whole texts and their pairs: ``(hyp_ids, hyp_offsets, ref_ids, ref_offsets,
    hyp_rows, ref_rows, vocab_size, n_chunks)``, arrays as int64."""
    h_off = as_int64("hyp_offsets", hyp_offsets)
    r_off = as_int64("ref_offsets", ref_offsets)
    hyp_ids, ref_ids, hyp_rows, ref_rows, vocab, chunks = _prepare_pairs(
        hyp_ids, ref_ids, hyp_rows, ref_rows, len(h_off) - 1, len(r_off) - 1, vocab_size, n_chunks)
    check_offsets("hyp_offsets", h_off, len(hyp_ids))
    check_offsets("ref_offsets", r_off, len(ref_ids))
    return hyp_ids, h_off, ref_ids, r_off, hyp_rows, ref_rows, vocab, chunks


def sentence_pairs(hyp, ref, hyp_rows, ref_rows, vocab_size, n_chunks, budgets, table_limit):
    """Check two batches with sentences (``hyp`` and ``ref`` are ``(ids, sent_offsets, text_sents)``), their
    pairs and their clipping ``budgets`` (``(hyp_budget, ref_budget)``, each ``None`` or ``(ids, offsets)``);
    raise when a pair's sentences need a table above ``table_limit`` cells.  Returns ``(hyp_ids, h_sent,
    h_text, ref_ids, r_sent, r_text, hb_ids, hb_off, rb_ids, rb_off, hyp_rows, ref_rows, vocab_size,
    n_chunks)``, arrays as int64."""
    hyp_ids = as_int64("hyp_ids", hyp[0])
    ref_ids = as_int64("ref_ids", ref[0])
    h_sent, h_text = _check_sentences("hyp", hyp_ids, hyp[1], hyp[2])
    r_sent, r_text = _check_sentences("ref", ref_ids, ref[1], ref[2])
    hyp_ids, ref_ids, hyp_rows, ref_rows, vocab, chunks = _prepare_pairs(
        hyp_ids, ref_ids, hyp_rows, ref_rows, len(h_text) - 1, len(r_text) - 1, vocab_size, n_chunks)
    hb = rb = (np.zeros(0, np.int64), np.zeros(1, np.int64))
    if chunks:
        check_table_size(h_sent, h_text, r_sent, r_text, hyp_rows, ref_rows, table_limit)
        hb = _budget_arrays(budgets[0], hyp_ids, h_sent[h_text], len(h_text) - 1, vocab)
        rb = _budget_arrays(budgets[1], ref_ids, r_sent[r_text], len(r_text) - 1, vocab)
    return hyp_ids, h_sent, h_text, ref_ids, r_sent, r_text, *hb, *rb, hyp_rows, ref_rows, vocab, chunks
