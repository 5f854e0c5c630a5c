"""coco-caption's metrics as vecscore functions: a list of hypotheses and, per item, a list of references."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vecscore.coco import bleu as _bleu
from vecscore.coco import cider as _cider
from vecscore.coco import rouge_l as _rouge_l
from vecscore.coco.items import items
from vecscore.errors import VecscoreError
from vecscore.frames import arrow_table, pandas_frame, polars_frame, row_index

__all__ = ["CocoScore", "CocoBleu", "coco_bleu", "coco_rouge_l", "cider_d"]


class _PerItem:
    """Tables of the per-item scores; ``index`` holds the row labels of a pandas ``hyps`` Series (else ``None``)."""

    index: Any

    def columns(self) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def to_pandas(self, *, index: Any = None):
        """A DataFrame with one row per item; its index is ``index`` if given (one label per item), else the index
        of the pandas ``Series`` the hypotheses came from, else a ``RangeIndex``."""
        cols = self.columns()
        n = len(next(iter(cols.values())))
        return pandas_frame(cols, n, index=index, kept=self.index)

    def to_arrow(self):
        """A ``pyarrow.Table``, one row per item in input order (needs pyarrow)."""
        return arrow_table(self.columns())

    def to_polars(self):
        """A ``polars.DataFrame``, one row per item in input order (needs polars)."""
        return polars_frame(self.columns())


@dataclass(frozen=True)
class CocoScore(_PerItem):
    """A corpus ``score`` (the mean of ``per_item``) and every item's score; ``name`` is coco-caption's
    (``ROUGE_L``, ``CIDEr``), the column of :meth:`to_pandas`."""

    score: float
    per_item: np.ndarray
    name: str = "score"
    index: Any = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict:
        """``{"score": float, "per_item": [float, ...]}`` (``json.dumps`` takes it)."""
        return {"score": float(self.score), "per_item": self.per_item.tolist()}

    def columns(self) -> dict[str, np.ndarray]:
        return {self.name: self.per_item}


@dataclass(frozen=True)
class CocoBleu(_PerItem):
    """coco-caption's BLEU: ``scores[k - 1]`` is the corpus BLEU-k, ``per_item[:, k - 1]`` each item's;
    ``stats`` holds the counts they come from."""

    scores: list[float]
    per_item: np.ndarray
    stats: _bleu.BleuStats
    index: Any = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict:
        """coco-caption's keys ``Bleu_1``.. (corpus scores) and ``per_item``: per item, its ``[Bleu_1, ..]``;
        Python floats (``json.dumps`` takes it)."""
        return {**{f"Bleu_{k + 1}": float(s) for k, s in enumerate(self.scores)}, "per_item": self.per_item.tolist()}

    def columns(self) -> dict[str, np.ndarray]:
        """``Bleu_1``, ``Bleu_2``, ...: each item's score."""
        return {f"Bleu_{k + 1}": self.per_item[:, k] for k in range(self.per_item.shape[1])}


def _order(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise VecscoreError(f"n (the largest n-gram order) must be a positive int, not {n!r}")
    return int(n)


def coco_bleu(hyps, refs, n: int = 4) -> CocoBleu:
    """coco-caption's BLEU-1..n (pycocoevalcap ``Bleu(n)``) of ``hyps`` against ``refs`` (per item, a list of
    references); texts are split on whitespace as given (tokenize them first, e.g. :func:`ptb_tokenize`).

    >>> r = coco_bleu(["a man rides a horse"], [["a man is riding a horse", "a person rides a horse"]])
    >>> [round(s, 6) for s in r.scores]
    [1.0, 0.866025, 0.629961, 0.000106]
    """
    index = row_index(hyps)
    st = _bleu.bleu_stats(items(hyps, refs), _order(n))
    return CocoBleu(_bleu.corpus_scores(st), _bleu.item_scores(st), st, index)


def coco_rouge_l(hyps, refs) -> CocoScore:
    """coco-caption's ROUGE-L (pycocoevalcap ``Rouge``): LCS on ``split(" ")`` tokens, the largest precision and
    the largest recall over an item's references, ``beta = 1.2``; the mean over items.

    >>> r = coco_rouge_l(["a man rides a horse"], [["a man is riding a horse", "a person rides a horse"]])
    >>> round(float(r.score), 6)
    0.8
    """
    index = row_index(hyps)
    per_item = _rouge_l.item_scores(items(hyps, refs))
    return CocoScore(float(np.mean(per_item)) if per_item.size else float("nan"), per_item, "ROUGE_L", index)


def cider_d(hyps, refs, *, df_refs=None, n: int = 4, sigma: float = _cider.SIGMA) -> CocoScore:
    """CIDEr-D as coco-caption computes it (pycocoevalcap ``Cider``), ``x 10``; the mean over items.

    Document frequencies come from ``refs`` (coco-caption's rule: the references of the set being scored), or
    from ``df_refs``, the references (per item, a list) of a corpus you choose; with one item and no
    ``df_refs`` every score is 0.
    """
    index = row_index(hyps)
    batch = items(hyps, refs)
    corpus = None if df_refs is None else items(None, df_refs)
    per_item = _cider.item_scores(batch, _order(n), _cider.check_sigma(sigma), corpus)
    return CocoScore(float(np.mean(per_item)) if per_item.size else float("nan"), per_item, "CIDEr", index)
