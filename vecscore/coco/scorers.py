"""Drop-ins for pycocoevalcap's scorers: ``Bleu``, ``Rouge``, ``Cider``, with its calls and its return values.

``compute_score(gts, res)`` takes the dictionaries pycocoevalcap takes (image id to a list of tokenized
captions: one in ``res``, one or more in ``gts``, the same ids in both) and returns what it returns, in the
order of ``gts``' keys: ``Bleu`` a list of the corpus BLEU-1..n and a list of per-image lists; ``Rouge`` and
``Cider`` the mean and a NumPy array of per-image scores.
"""
from __future__ import annotations

import numpy as np

from vecscore.coco import bleu as _bleu
from vecscore.coco import cider as _cider
from vecscore.coco import rouge_l as _rouge_l
from vecscore.coco.items import Items, items
from vecscore.errors import VecscoreError

__all__ = ["Bleu", "Rouge", "Cider", "from_dicts", "same_ids"]


def same_ids(gts: dict, res: dict) -> list:
    """The image ids of pycocoevalcap's two dictionaries, which must be dicts with the same ids (in words)."""
    if not isinstance(gts, dict) or not isinstance(res, dict):
        raise VecscoreError("gts and res must be dicts: image id -> list of captions (res: exactly one per image)")
    if gts.keys() != res.keys():
        only_g = [k for k in gts if k not in res][:3]
        only_r = [k for k in res if k not in gts][:3]
        raise VecscoreError(f"gts and res must have the same image ids: in gts only {only_g}, in res only {only_r}")
    return list(gts)


def from_dicts(gts: dict, res: dict) -> tuple[list, Items]:
    """``(image ids, items)`` from pycocoevalcap's two dictionaries, checked as it checks them (in words)."""
    ids = same_ids(gts, res)
    got = list(map(res.__getitem__, ids))
    refs = list(map(gts.__getitem__, ids))
    # one pass in C when every entry is as it should be; otherwise find the first that is not
    if not (set(map(type, got)) <= {list} and set(map(len, got)) <= {1} and set(map(type, refs)) <= {list}):
        for k, h, r in zip(ids, got, refs):
            if not isinstance(h, list) or len(h) != 1:
                raise VecscoreError(f"res[{k!r}] must be a list of exactly one caption, not {h!r:.80}")
            if not isinstance(r, list):
                raise VecscoreError(f"gts[{k!r}] must be a list of reference captions, not {type(r).__name__}")
    hyps = [h[0] for h in got]
    try:
        return ids, items(hyps, refs)
    except VecscoreError as e:  # name the image, not the position
        raise VecscoreError(_by_image(str(e), ids)) from None


def _by_image(message: str, ids: list) -> str:
    import re

    def name(m):
        where, i, rest = m.group(1), int(m.group(2)), m.group(3) or ""
        return f"{'res' if where == 'hyps' else 'gts'}[{ids[i]!r}]{rest}"

    return re.sub(r"\b(hyps|refs)\[(\d+)\](\[\d+\])?", name, message)


#: pycocoevalcap counts n-grams of 1 to 4 tokens whatever its scorers' ``n`` (its ``cook_test`` and
#: ``cook_refs`` are called without it)
COUNTED = 4


class Bleu:
    """pycocoevalcap's ``Bleu(n)``: ``compute_score(gts, res)`` returns ``([BLEU-1..n], [[per image]...])``."""

    def __init__(self, n: int = 4):
        self._n = n

    def compute_score(self, gts: dict, res: dict, verbose: int = 1):
        if not isinstance(self._n, int) or not 1 <= self._n <= COUNTED:
            raise VecscoreError(f"pycocoevalcap's Bleu(n) works for n = 1 to 4 (it fails with an IndexError for "
                                f"n = {self._n!r}); for other orders use vecscore.coco.coco_bleu(hyps, refs, n=...)")
        _, batch = from_dicts(gts, res)
        st = _bleu.bleu_stats(batch, self._n)
        score = _bleu.corpus_scores(st)
        if verbose > 0:  # what pycocoevalcap prints
            totals = {"testlen": int(st.testlen.sum()), "reflen": int(st.reflen.sum()),
                      "guess": st.guess.sum(axis=0).tolist(), "correct": st.correct.sum(axis=0).tolist()}
            print(totals)
            print("ratio:", (totals["testlen"] + _bleu.TINY) / (totals["reflen"] + _bleu.SMALL))
        return score, _bleu.item_scores(st).T.tolist()

    def method(self) -> str:
        return "Bleu"


class Rouge:
    """pycocoevalcap's ``Rouge`` (ROUGE-L, ``beta = 1.2``)."""

    def __init__(self):
        self.beta = _rouge_l.BETA

    def calc_score(self, candidate: list, refs: list) -> float:
        """One image's ROUGE-L: ``candidate`` a list of one caption, ``refs`` a list of one or more."""
        if not isinstance(candidate, list) or len(candidate) != 1:
            raise VecscoreError(f"candidate must be a list of exactly one caption, not {candidate!r:.80}")
        return float(_rouge_l.item_scores(items(candidate, [refs]))[0])

    def compute_score(self, gts: dict, res: dict):
        _, batch = from_dicts(gts, res)
        scores = _rouge_l.item_scores(batch)
        return np.mean(scores), scores

    def method(self) -> str:
        return "Rouge"


class Cider:
    """pycocoevalcap's ``Cider`` (CIDEr-D: clipped weights, a Gaussian length penalty; document frequencies from
    the references scored)."""

    def __init__(self, test=None, refs=None, n: int = 4, sigma: float = _cider.SIGMA):
        self._n = n
        self._sigma = sigma

    def compute_score(self, gts: dict, res: dict):
        if not isinstance(self._n, int) or self._n < COUNTED:
            raise VecscoreError(f"pycocoevalcap's Cider(n) works for n >= 4 (it fails with an IndexError for "
                                f"n = {self._n!r}, and orders above 4 score 0); for other orders use "
                                "vecscore.coco.cider_d(hyps, refs, n=...)")
        _, batch = from_dicts(gts, res)
        if not batch.n:  # pycocoevalcap fails here too (max() of its empty document frequencies)
            raise VecscoreError("no images to score: gts and res are empty (CIDEr's document frequencies need at least "
                                "one image)")
        scores = _cider.item_scores(batch, self._n, _cider.check_sigma(self._sigma), counted=COUNTED)
        return np.mean(scores), scores

    def method(self) -> str:
        return "CIDEr"
