"""coco-caption's ROUGE-L (pycocoevalcap ``Rouge``), every (item, reference) at once in NumPy.

What it computes: tokens from ``str.split(" ")`` (so two spaces make an empty
token, and an empty caption is one empty token); the longest common
subsequence of the hypothesis with each reference; the largest precision
``lcs / len(hyp)`` and the largest recall ``lcs / len(ref)`` over the item's
references, taken separately (they may come from different references); and
``F = (1 + b^2) P R / (R + b^2 P)`` with ``b = 1.2`` (0 when ``P`` or ``R`` is
0).  The corpus value is the mean over the items.

The LCS lengths come from Hyyro's bit-parallel recurrence run on every row at
once: the hypothesis' tokens are the bits of a 64-bit word per (item,
reference) row (as many words as a longer hypothesis needs, the addition
carried from word to word), and one vectorized step per reference token
updates all rows that still have tokens.
"""
from __future__ import annotations

import numpy as np

from vecscore.coco import compiled
from vecscore.coco.grams import lookup, run_starts, sort_order, tokens
from vecscore.coco.items import Items

__all__ = ["BETA", "lcs_rows", "item_scores"]

BETA = 1.2
WORD = 64
_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)


def _popcount(x: np.ndarray) -> np.ndarray:
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return ((x * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.int64)


def lcs_rows(batch: Items) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(lcs, hyp_len, ref_len)``: per reference (item after item), its LCS with its item's hypothesis
    and the two token counts (``str.split(" ")`` tokens); by vecscore's kernels when
    :func:`~vecscore.coco.compiled.use_compiled`, else in NumPy (the same integers)."""
    if compiled.use_compiled(batch, compiled.ROUGE_KIND):
        got = compiled.lcs_rows(batch)
        if got is not None:  # None: a lone surrogate, which only this route's str.split reads
            return got
    n = batch.n
    toks = tokens(list(batch.texts()), sep=" ")
    hyp_len, ref_len = toks.lengths[:n], toks.lengths[n:]
    lcs = np.zeros(ref_len.size, dtype=np.int64)
    words = (hyp_len + WORD - 1) // WORD  # 64-bit words per hypothesis (split(" ") gives at least one token)
    row_words = words[batch.owner]
    for w in np.unique(row_words).tolist():  # rows whose hypotheses take as many words, together
        rows = np.flatnonzero(row_words == w)
        lcs[rows] = _lcs_words(toks, batch, np.flatnonzero(words == w), rows, int(w))
    return lcs, hyp_len, ref_len


def _lcs_words(toks, batch: Items, items: np.ndarray, rows: np.ndarray, w: int) -> np.ndarray:
    """The LCS of each reference row in ``rows`` with its hypothesis, the hypotheses (``items``) taking ``w``
    words: Hyyro's recurrence, the bit vector of a row in ``w`` uint64 words, the addition carried across them."""
    n, ids, starts = batch.n, toks.ids, toks.starts
    width = max(toks.n_vocab, 1)
    # the hypotheses' match masks: per distinct (item, token), bit j of word j // 64 where token j is that token
    hyp_len = starts[items + 1] - starts[items]
    item = np.repeat(items, hyp_len)
    pos = np.arange(item.size, dtype=np.int64) - np.repeat(np.cumsum(hyp_len) - hyp_len, hyp_len)
    key, order = sort_order(item * width + ids[starts[item] + pos])
    heads = run_starts(key)
    slot = np.zeros(key.size, dtype=np.int64)
    slot[heads[1:]] = 1
    slot = np.cumsum(slot) + 1  # 0 is "no such token in the hypothesis"
    masks = np.zeros((heads.size + 1, w), dtype=np.uint64)
    bit = np.left_shift(np.uint64(1), (pos[order] % WORD).astype(np.uint64))
    np.bitwise_or.at(masks, (slot, pos[order] // WORD), bit)
    # each reference token's mask slot
    owner = batch.owner[rows]
    ref_len = starts[n + rows + 1] - starts[n + rows]
    tok_row = np.repeat(np.arange(rows.size, dtype=np.int64), ref_len)
    first = np.repeat(np.cumsum(ref_len) - ref_len, ref_len)
    tok_ids = ids[np.repeat(starts[n + rows], ref_len) + np.arange(tok_row.size, dtype=np.int64) - first]
    tok_slot = lookup(key[heads], slot[heads], owner[tok_row] * width + tok_ids)
    # the recurrence, rows longest reference first so that step i runs on a prefix
    by_len = np.argsort(-ref_len, kind="stable")
    h = (starts[owner + 1] - starts[owner])[by_len]
    full = np.empty((rows.size, w), dtype=np.uint64)
    for j in range(w):
        bits = np.clip(h - WORD * j, 0, WORD)
        full[:, j] = np.where(bits >= WORD, _ONES, (np.uint64(1) << np.minimum(bits, WORD - 1).astype(np.uint64))
                              - np.uint64(1))
    v = full.copy()
    row_first = (np.cumsum(ref_len) - ref_len)[by_len]
    lengths_desc = ref_len[by_len]
    counts = np.searchsorted(-lengths_desc, -np.arange(int(lengths_desc.max(initial=0)), dtype=np.int64))
    for i, a in enumerate(counts.tolist()):  # a: the rows with more than i tokens
        va = v[:a]
        u = va & masks[tok_slot[row_first[:a] + i]]
        carry = np.zeros(a, dtype=np.uint64)
        for j in range(w):  # v + u, word by word with the carry; v - u borrows nowhere (u is inside v)
            t = va[:, j] + u[:, j]
            c = (t < va[:, j]).astype(np.uint64)
            total = t + carry
            carry = c | (total < t).astype(np.uint64)
            va[:, j] = (total | (va[:, j] - u[:, j])) & full[:a, j]
    out = np.empty(rows.size, dtype=np.int64)
    out[by_len] = h - _popcount(v).sum(axis=1)
    return out


def item_scores(batch: Items) -> np.ndarray:
    """Every item's ROUGE-L as coco-caption computes it."""
    lcs, hyp_len, ref_len = lcs_rows(batch)
    heads = batch.ref_ptr[:-1]
    best_lcs = np.maximum.reduceat(lcs, heads) if lcs.size else lcs
    prec = best_lcs / hyp_len.astype(np.float64)  # max(lcs / len) = max(lcs) / len
    rec = np.maximum.reduceat(lcs / ref_len.astype(np.float64), heads) if lcs.size else lcs.astype(np.float64)
    b2 = BETA ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        f = ((1 + b2) * prec * rec) / (rec + b2 * prec)
    return np.where((prec != 0) & (rec != 0), f, 0.0)
