"""coco-caption's ROUGE-L (pycocoevalcap ``Rouge``), every (item, reference) at once in NumPy.

What it computes: tokens from ``str.split(" ")`` (so two spaces make an empty
token, and an empty caption is one empty token); the longest common
subsequence of the hypothesis with each reference; the largest precision
``lcs / len(hyp)`` and the largest recall ``lcs / len(ref)`` over the item's
references, taken separately (they may come from different references); and
``F = (1 + b^2) P R / (R + b^2 P)`` with ``b = 1.2`` (0 when ``P`` or ``R`` is
0).  The corpus value is the mean over the items.

The LCS lengths come from Hyyro's bit-parallel recurrence run on every row at
once: the hypothesis' tokens are the bits of one 64-bit word per (item,
reference) row, and one vectorized step per reference token updates all rows
that still have tokens.  A hypothesis longer than 64 tokens takes Python's
unbounded integers for its rows (the same recurrence, one row at a time).
"""
from __future__ import annotations

import numpy as np

from vecscore.coco.grams import lookup, run_starts, sort_order, tokens
from vecscore.coco.items import Items
from vecscore.rouge.plain import lcs_length

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
    and the two token counts (``str.split(" ")`` tokens)."""
    n = batch.n
    toks = tokens(batch.hyps + batch.refs, sep=" ")
    lengths = toks.lengths
    owner = batch.owner
    hyp_len, ref_len = lengths[:n], lengths[n:]
    lcs = np.zeros(ref_len.size, dtype=np.int64)
    if not ref_len.size:
        return lcs, hyp_len, ref_len
    ids, starts = toks.ids, toks.starts
    # each hypothesis' match masks, one per distinct token: bit j set where the hypothesis' token j is it
    hyp_pos = np.arange(int(starts[n]), dtype=np.int64)
    hyp_item = np.repeat(np.arange(n, dtype=np.int64), hyp_len)
    short = hyp_len <= WORD
    keep = short[hyp_item]
    width = max(toks.n_vocab, 1)
    key = hyp_item[keep] * width + ids[hyp_pos[keep]]
    bit = np.left_shift(np.uint64(1), (hyp_pos[keep] - starts[hyp_item[keep]]).astype(np.uint64))
    key, order = sort_order(key)
    bit = bit[order]
    first = run_starts(key)
    keys = key[first]
    masks = np.bitwise_or.reduceat(bit, first) if key.size else bit
    # every reference token's mask in its item's hypothesis (0: no match)
    rows = np.flatnonzero(short[owner])
    ref_tok_row = np.repeat(np.arange(ref_len.size, dtype=np.int64), ref_len)
    ref_ids = ids[int(starts[n]):]
    tok_mask = lookup(keys, masks, owner[ref_tok_row] * width + ref_ids)
    # the recurrence, rows longest reference first so that step i runs on a prefix
    rows = rows[np.argsort(-ref_len[rows], kind="stable")]
    h = hyp_len[owner[rows]]
    full = np.where(h >= WORD, _ONES, (np.uint64(1) << np.minimum(h, WORD - 1).astype(np.uint64)) - np.uint64(1))
    v = full.copy()
    first_tok = (starts[n:-1] - starts[n])[rows]
    lengths_desc = ref_len[rows]
    counts = np.searchsorted(-lengths_desc, -np.arange(int(lengths_desc.max(initial=0)), dtype=np.int64))
    for i, a in enumerate(counts.tolist()):  # a: the rows with more than i tokens
        u = v[:a] & tok_mask[first_tok[:a] + i]
        v[:a] = ((v[:a] + u) | (v[:a] - u)) & full[:a]
    lcs[rows] = h - _popcount(v)
    for r in np.flatnonzero(~short[owner]).tolist():  # hypotheses of more than 64 tokens
        o = int(owner[r])
        hyp = ids[starts[o]:starts[o + 1]].tolist()
        ref = ids[starts[n + r]:starts[n + r + 1]].tolist()
        lcs[r] = lcs_length(ref, hyp)
    return lcs, hyp_len, ref_len


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
