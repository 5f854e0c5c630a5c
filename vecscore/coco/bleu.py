"""coco-caption's BLEU (pycocoevalcap ``Bleu``): statistics from NumPy arrays, scores by its formula.

What it computes, per item: tokens from ``str.split()``; for each order ``k``
the hypothesis' n-gram counts clipped by the largest count of that n-gram in
any one reference (``correct``), and ``max(0, len - k + 1)`` (``guess``); the
reference length closest to the hypothesis' (a tie goes to the shorter).  The
corpus BLEU-k sums the counts and the lengths over the items; each precision
is ``(correct + 1e-15) / (guess + 1e-9)``, the cumulative product of the
first ``k`` raised to ``1/k``; below a length ratio of one
(``(testlen + 1e-15) / (reflen + 1e-9)``) it is multiplied by
``exp(1 - 1/ratio)``.  Each item's BLEU-k is the same formula on its own
counts.  The tiny constants are not smoothing: an order without a match gives
BLEU about 1e-4 to 1e-6, not 0.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import repeat

import numpy as np

from vecscore.coco.grams import Grams, grams, lookup, max_by_key
from vecscore.coco.items import Items

__all__ = ["BleuStats", "bleu_stats", "corpus_scores", "item_scores", "TINY", "SMALL"]

TINY = 1e-15
SMALL = 1e-9


@dataclass(frozen=True)
class BleuStats:
    """Per item: ``correct`` and ``guess`` (``(n_items, n)``), ``testlen`` and the closest ``reflen``."""

    correct: np.ndarray
    guess: np.ndarray
    testlen: np.ndarray
    reflen: np.ndarray

    def take(self, rows: np.ndarray) -> BleuStats:
        return BleuStats(self.correct[rows], self.guess[rows], self.testlen[rows], self.reflen[rows])

    def to_dict(self) -> dict:
        """Every field as nested lists of Python numbers (``json.dumps`` takes it)."""
        return {f: getattr(self, f).tolist() for f in ("correct", "guess", "testlen", "reflen")}


#: coco-caption's BLEU statistics are sacreBLEU's with ``tokenize="none"`` (``str.split()`` tokens, counts
#: clipped by the largest count in one reference, the closest reference length with ties to the shorter): the
#: kind of call whose compiled kernels :func:`bleu_stats` uses once they are compiled
KIND = ("bleu", "text", "none")


def compiled_ready(batch: Items) -> bool:
    """Whether :func:`bleu_stats` takes vecscore's compiled BLEU kernels, decided as for coco's ROUGE-L and CIDEr-D
    (:func:`vecscore.route.use_plain`): ``VECSCORE_ROUTE``; under ``auto`` the kernels where built modules hold
    them or a call of this kind ran compiled in this process, else NumPy for a small call, and for a large one
    until the kernels are compiled in the cache folder (:mod:`vecscore.background`)."""
    from vecscore import route

    return not route.use_plain(True, lambda: route.text_chars(batch.hyps, batch.refs), route.COST["bleu"], warm=KIND)


def _compiled_stats(batch: Items, n: int) -> BleuStats | None:
    """The statistics from vecscore's per-pair BLEU kernel (the texts are checked ``str`` already); ``None``
    where a text cannot be encoded as UTF-8 (a lone surrogate), which only the NumPy route reads."""
    from vecscore import route
    from vecscore.bleu.direct import direct_stats
    from vecscore.errors import VecscoreError
    from vecscore.references import Refs

    refs = Refs(batch.refs, batch.ref_ptr)  # read already: the kernel's reader takes them as they are
    try:
        s = direct_stats(batch.hyps, refs, tokenize="none", lowercase=False, max_order=n, brevity_penalty="closest")
    except (UnicodeError, VecscoreError):
        return None
    if s is None:  # pragma: no cover - tokenize="none" is one of the kernel's modes
        return None
    route.note_compiled(KIND)
    return BleuStats(s.correct, s.total, s.sys_len, s.ref_len)


def bleu_stats(batch: Items, n: int = 4, table: Grams | None = None) -> BleuStats:
    """The counts coco-caption's BLEU sums, for every item (``table``: :func:`~vecscore.coco.grams.grams` of
    ``batch.hyps + batch.refs`` with at least ``n`` orders, when already computed).

    From vecscore's compiled BLEU kernels when :func:`compiled_ready`, else from the n-gram tables (NumPy);
    both give the same integers."""
    n_items = batch.n
    if n_items and compiled_ready(batch):
        got = _compiled_stats(batch, n)
        if got is not None:
            return got
    if table is None:
        table = grams(list(batch.texts()), n, keep=False)
    if table.n_texts != n_items + len(batch.refs) or table.n_orders < n:
        raise ValueError("the n-gram table is not that of hyps + refs with enough orders")
    lengths = table.toks.lengths
    owner = np.concatenate([np.arange(n_items, dtype=np.int64), batch.owner])  # the item of every text
    correct = np.zeros((n_items, n), dtype=np.int64)
    for k, c in enumerate(table.orders(n)):
        width = max(c.n_grams, 1)
        hyp_end = int(c.start[n_items])  # entries are sorted by text: the hypotheses' come first
        hyp_key = c.text[:hyp_end] * width + c.gram[:hyp_end]
        ref_key = owner[c.text[hyp_end:]] * width + c.gram[hyp_end:]
        keys, ref_max = max_by_key(ref_key, c.count[hyp_end:])  # the largest count in any one reference
        clipped = np.minimum(c.count[:hyp_end], lookup(keys, ref_max, hyp_key, presorted=True))
        correct[:, k] = np.bincount(c.text[:hyp_end], weights=clipped, minlength=n_items).astype(np.int64)
    testlen = lengths[:n_items]
    guess = np.maximum(testlen[:, None] - np.arange(n, dtype=np.int64)[None, :], 0)
    ref_len = lengths[n_items:]
    # the closest reference length, a tie to the shorter: the smallest (distance, length)
    span = int(ref_len.max()) + 1 if ref_len.size else 1
    key = np.abs(ref_len - testlen[batch.owner]) * span + ref_len
    reflen = np.minimum.reduceat(key, batch.ref_ptr[:-1]) % span if n_items else np.zeros(0, dtype=np.int64)
    return BleuStats(correct, guess, testlen, reflen)


def _powers(x: np.ndarray, e: float) -> np.ndarray:
    """``x ** e`` element by element with Python's ``pow`` (NumPy takes ``sqrt`` for ``e = 0.5``, which may
    differ from ``pow`` in the last bit)."""
    return np.fromiter(map(pow, x.tolist(), repeat(e)), dtype=np.float64, count=x.size)


def item_scores(st: BleuStats) -> np.ndarray:
    """``(n_items, n)``: every item's BLEU-1..n, as coco-caption computes them (its per-image lists)."""
    n_items, n = st.correct.shape
    out = np.empty((n_items, n), dtype=np.float64)
    product = np.ones(n_items, dtype=np.float64)
    for k in range(n):
        product = product * ((st.correct[:, k].astype(np.float64) + TINY) / (st.guess[:, k].astype(np.float64) + SMALL))
        out[:, k] = _powers(product, 1.0 / (k + 1))
    ratio = (st.testlen + TINY) / (st.reflen + SMALL)
    short = np.flatnonzero(ratio < 1)
    if short.size:
        penalty = np.fromiter(map(math.exp, (1 - 1 / ratio[short]).tolist()), dtype=np.float64, count=short.size)
        out[short] *= penalty[:, None]
    return out


def corpus_scores(st: BleuStats) -> list[float]:
    """Corpus BLEU-1..n from the summed statistics, as coco-caption computes them."""
    n = st.correct.shape[1]
    correct = st.correct.sum(axis=0).tolist()
    guess = st.guess.sum(axis=0).tolist()
    testlen, reflen = int(st.testlen.sum()), int(st.reflen.sum())
    scores = []
    bleu = 1.0
    for k in range(n):
        bleu *= float(correct[k] + TINY) / (guess[k] + SMALL)
        scores.append(bleu ** (1.0 / (k + 1)))
    ratio = (testlen + TINY) / (reflen + SMALL)
    if ratio < 1:
        scores = [s * math.exp(1 - 1 / ratio) for s in scores]
    return scores
