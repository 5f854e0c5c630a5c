"""``vecscore.meteor``: METEOR 1.5 as meteor-1.5.jar computes it, without Java."""
from __future__ import annotations

from collections.abc import Sequence

from vecscore.errors import VecscoreError
from vecscore.meteor.options import resolve_options
from vecscore.meteor.result import MeteorResult

__all__ = ["MeteorResult", "meteor"]


def _ref_lists(hyps: Sequence[str], refs) -> list[list[str]]:
    if isinstance(refs, str) or not isinstance(refs, Sequence):
        raise VecscoreError("refs: expected one reference or a list of references per hypothesis, e.g. "
                            "refs=[['a ref', 'another'], 'one ref']")
    if len(refs) != len(hyps):
        raise VecscoreError(f"refs has {len(refs)} rows for {len(hyps)} hypotheses; give one row per hypothesis")
    out = []
    for row, r in enumerate(refs):
        items = [r] if isinstance(r, str) else list(r)
        if not items:
            raise VecscoreError(f"refs[{row}] is empty: METEOR needs at least one reference per hypothesis")
        for k, x in enumerate(items):
            if not isinstance(x, str):
                raise VecscoreError(f"refs[{row}][{k}] is {type(x).__name__}, expected str")
        out.append(items)
    return out


def meteor(hyps: Sequence[str], refs, *, task: str = "default", modules=None, weights=None, params=None,
           normalize: bool = True, lower: bool = False, no_punct: bool = False, beam_size: int = 40,
           jar: str | None = None, paraphrase_file: str | None = None) -> MeteorResult:
    """METEOR 1.5 of each hypothesis against its references, and of the corpus, as meteor-1.5.jar gives them.

    Hypotheses first; ``refs`` holds one reference or a list of references per hypothesis (the item's
    score is that of its best reference, as the jar picks it).  The options are the jar's: ``task``
    (``default`` = ``rank``, ``adq``, ``hter``, ``li``; ``-t``), ``modules`` (``-m``, e.g.
    ``["exact", "stem"]``), ``weights`` (``-w``), ``params`` (``-p``: alpha beta gamma delta),
    ``normalize`` (``-norm``; on by default, as coco-caption runs the jar), ``no_punct`` (``-noPunct``),
    ``lower`` (``-lower``, without ``-norm``), ``beam_size`` (``-x``).  The jar's resources are read from an
    installed pycocoevalcap or from ``jar`` and ``paraphrase_file``, and cached on disk
    (:mod:`vecscore.meteor.resources`).
    """
    from vecscore.meteor.scoring import score_items

    if isinstance(hyps, str) or not isinstance(hyps, Sequence):
        raise VecscoreError("hyps: expected a list of hypothesis strings")
    for row, h in enumerate(hyps):
        if not isinstance(h, str):
            raise VecscoreError(f"hyps[{row}] is {type(h).__name__}, expected str")
    options = resolve_options(task, modules=modules, weights=weights, params=params, normalize=normalize,
                              lower=lower, no_punct=no_punct, beam_size=beam_size)
    ref_lists = _ref_lists(hyps, refs)
    return score_items(list(hyps), ref_lists, options, jar=jar, paraphrase_file=paraphrase_file)
