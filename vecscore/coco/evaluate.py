"""coco-caption's evaluation in one call (pycocoevalcap 1.2's ``COCOEvalCap.evaluate``): PTB-tokenize, then
Bleu_1..4, METEOR, ROUGE_L and CIDEr, in its order and with its names (SPICE is not computed).

METEOR is meteor-1.5.jar's, as coco-caption runs it (``-l en -norm``, :class:`vecscore.coco.Meteor`, no Java):
per image from the same tokenized captions the other metrics score, and for the corpus from the summed
statistics of the images (not the mean of their scores).  Its data (function words, synonyms, paraphrases) is
read from an installed pycocoevalcap (``pip install pycocoevalcap``); ``meteor=None`` includes METEOR when that
data is found and leaves it out otherwise.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vecscore.coco import bleu as _bleu
from vecscore.coco import cider as _cider
from vecscore.coco import rouge_l as _rouge_l
from vecscore.coco.grams import grams
from vecscore.coco.scorers import from_dicts
from vecscore.errors import VecscoreError

__all__ = ["CocoEval", "evaluate", "METRICS", "meteor_data_error", "coco_meteor"]

#: coco-caption's metrics, in ``COCOEvalCap``'s order (without SPICE)
METRICS = ("Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr")


@dataclass(frozen=True)
class CocoEval:
    """``scores``: metric -> corpus value (coco-caption's ``COCOEvalCap.eval``); ``per_image``: image id ->
    metric -> that image's value (its ``imgToEval``, without the ``image_id`` entry)."""

    scores: dict
    per_image: dict

    def to_dict(self) -> dict:
        """``{"scores": {metric: float}, "per_image": {str(id): {metric: float}}}`` of Python values, image ids as
        the strings JSON writes for them (``json.dumps`` takes it)."""
        return {"scores": {m: float(v) for m, v in self.scores.items()},
                "per_image": {str(k): {m: float(v) for m, v in row.items()} for k, row in self.per_image.items()}}


def _captions(d: dict, name: str) -> dict:
    """``{id: [caption str, ...]}`` from ids to captions or to annotation dicts (``{"caption": ...}``)."""
    if not isinstance(d, dict):
        raise VecscoreError(f"{name} must be a dict: image id -> list of captions (str or {{'caption': str}})")
    out = {}
    for k, caps in d.items():
        if not isinstance(caps, list):
            raise VecscoreError(f"{name}[{k!r}] must be a list of captions, not {type(caps).__name__}")
        row = []
        for c in caps:
            if isinstance(c, dict):
                if "caption" not in c:
                    raise VecscoreError(f"{name}[{k!r}] has an annotation without a 'caption': {c!r:.80}")
                c = c["caption"]
            if not isinstance(c, str):
                raise VecscoreError(f"{name}[{k!r}] has a caption that is {type(c).__name__}, not str: {c!r:.60}")
            row.append(c)
        out[k] = row
    return out


def meteor_data_error() -> VecscoreError | None:
    """Why coco-caption's METEOR cannot be computed here (meteor-1.5.jar or its paraphrase table not found: the
    error that names the fix), or ``None`` when its data is found."""
    from vecscore.meteor import resources

    try:
        resources.find_paraphrase()  # looks for the jar first: the paraphrase table is in its folder
    except VecscoreError as e:
        return e
    return None


def coco_meteor(batch, ids=None):
    """coco-caption's METEOR of every item of ``batch`` (a :class:`~vecscore.coco.items.Items` of the captions as
    pycocoevalcap's ``Meteor`` receives them, i.e. tokenized when coco-caption tokenizes): the
    :class:`~vecscore.meteor.api.MeteorResult` of meteor-1.5.jar ``-l en -norm`` on the lines pycocoevalcap sends
    it.  ``ids``: the items' names in messages (image ids; default: their positions)."""
    from vecscore.coco.meteor import score_lines
    from vecscore.meteor.api import meteor

    ptr = np.asarray(batch.ref_ptr).tolist()
    refs = list(batch.refs)
    lists = [refs[ptr[i]:ptr[i + 1]] for i in range(batch.n)]
    hyps, lines = score_lines(list(range(batch.n)) if ids is None else list(ids), list(batch.hyps), lists)
    return meteor(hyps, lines, normalize=True)


def _with_meteor(meteor) -> bool:
    if meteor is None:
        return meteor_data_error() is None
    if meteor is True:
        error = meteor_data_error()
        if error is not None:
            raise error
        return True
    if meteor is False:
        return False
    raise VecscoreError(f"meteor must be None (when its data is found), True or False, not {meteor!r}")


def evaluate(gts: dict, res: dict, *, tokenize: bool = True, meteor: bool | None = None) -> CocoEval:
    """Score ``res`` (image id -> a list of one caption) against ``gts`` (image id -> its reference captions), as
    coco-caption's ``COCOEvalCap.evaluate`` does: captions as str or as annotation dicts, PTB-tokenized and
    lowercased (``tokenize=False``: already tokenized, split on spaces as given), in the order of ``gts``;
    Bleu_1..4, METEOR, ROUGE_L and CIDEr, in coco-caption's order.

    ``meteor``: ``None`` (default) computes METEOR when its data (pycocoevalcap's meteor-1.5.jar and paraphrase
    table) is found and leaves it out otherwise; ``True`` requires it (missing data is an error naming the fix);
    ``False`` leaves it out.  Like coco-caption, METEOR scores the tokenized captions; its corpus value comes from
    the images' summed statistics, as the jar's.
    """
    with_meteor = _with_meteor(meteor)
    gts, res = _captions(gts, "gts"), _captions(res, "res")
    if tokenize:
        from vecscore.coco.ptb import PTBTokenizer

        tok = PTBTokenizer()
        gts = tok.tokenize({k: [{"caption": c} for c in v] for k, v in gts.items()})
        res = tok.tokenize({k: [{"caption": c} for c in v] for k, v in res.items()})
    ids, batch = from_dicts(gts, res)
    table = grams(list(batch.texts()), 4)  # BLEU and CIDEr split alike: tokens and counts once
    st = _bleu.bleu_stats(batch, 4, table)
    columns = {f"Bleu_{k + 1}": col for k, col in enumerate(_bleu.item_scores(st).T)}
    scores = {f"Bleu_{k + 1}": s for k, s in enumerate(_bleu.corpus_scores(st))}
    if with_meteor:
        result = coco_meteor(batch, ids)
        columns["METEOR"] = result.scores
        scores["METEOR"] = result.score
    columns["ROUGE_L"] = _rouge_l.item_scores(batch)
    columns["CIDEr"] = _cider.item_scores(batch, table=table)
    scores["ROUGE_L"] = float(columns["ROUGE_L"].mean())
    scores["CIDEr"] = float(columns["CIDEr"].mean())
    names = [m for m in METRICS if m in columns]
    scores = {m: scores[m] for m in names}
    lists = {m: columns[m].tolist() for m in names}
    per_image = {k: {m: lists[m][i] for m in names} for i, k in enumerate(ids)}
    return CocoEval(scores, per_image)
