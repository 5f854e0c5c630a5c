"""coco-caption's evaluation in one call: PTB-tokenize, then Bleu_1-4, ROUGE_L and CIDEr (no METEOR, no SPICE)."""
from __future__ import annotations

from dataclasses import dataclass

from vecscore.coco import bleu as _bleu
from vecscore.coco import cider as _cider
from vecscore.coco import rouge_l as _rouge_l
from vecscore.coco.grams import grams
from vecscore.coco.scorers import from_dicts
from vecscore.errors import VecscoreError

__all__ = ["CocoEval", "evaluate", "METRICS"]

METRICS = ("Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "ROUGE_L", "CIDEr")


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


def evaluate(gts: dict, res: dict, *, tokenize: bool = True) -> CocoEval:
    """Score ``res`` (image id -> a list of one caption) against ``gts`` (image id -> its reference captions), as
    coco-caption's ``COCOEvalCap.evaluate`` does: captions as str or as annotation dicts, PTB-tokenized and
    lowercased (``tokenize=False``: already tokenized, split on spaces as given), in the order of ``gts``."""
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
    columns["ROUGE_L"] = _rouge_l.item_scores(batch)
    columns["CIDEr"] = _cider.item_scores(batch, table=table)
    scores = {f"Bleu_{k + 1}": s for k, s in enumerate(_bleu.corpus_scores(st))}
    scores["ROUGE_L"] = float(columns["ROUGE_L"].mean())
    scores["CIDEr"] = float(columns["CIDEr"].mean())
    lists = {m: col.tolist() for m, col in columns.items()}
    per_image = {k: {m: lists[m][i] for m in METRICS} for i, k in enumerate(ids)}
    return CocoEval(scores, per_image)
