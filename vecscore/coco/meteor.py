"""pycocoevalcap's ``Meteor``: meteor-1.5.jar's numbers as coco-caption asks for them, without Java.

coco-caption runs ``java -jar meteor-1.5.jar - - -stdio -l en -norm`` and sends, per image, the line
``SCORE ||| ref 1 ||| ... ||| ref n ||| caption`` (the caption with ``|||`` removed and one pass of double
spaces made single), then one ``EVAL`` line with every image's statistics.  The jar splits each line at
``|||`` (so a ``|||`` inside a reference makes two references), trims the parts, normalizes and lowercases
them, scores the caption against each reference and keeps the best; ``EVAL`` answers with each image's
score and the score of the summed statistics.  :class:`Meteor` computes the same from the same lines.
"""
from __future__ import annotations

from vecscore.coco.scorers import same_ids
from vecscore.errors import VecscoreError

__all__ = ["Meteor", "score_lines"]


def score_lines(ids: list, hyps: list[str], refs: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    """What the jar reads from each image's ``SCORE`` line: ``(captions, references)`` after its split."""
    from vecscore.meteor.normalize import split_score_line

    out_h: list[str] = []
    out_r: list[list[str]] = []
    for k, h, rs in zip(ids, hyps, refs):
        for where, text in [("res", h)] + [("gts", r) for r in rs]:
            if "\n" in text or "\r" in text:
                raise VecscoreError(f"{where}[{k!r}] has a line break: coco-caption's Meteor sends each image as one "
                                    "line to the jar, which would read the rest as another command and stop "
                                    "answering; tokenize the captions first (PTBTokenizer) or remove line breaks")
        caption = h.replace("|||", "").replace("  ", " ")
        line = " ||| ".join(("SCORE", " ||| ".join(rs), caption))
        try:
            parsed_refs, parsed_hyp = split_score_line(line)
        except VecscoreError as e:
            raise VecscoreError(f"gts[{k!r}], res[{k!r}]: {e}") from None
        out_h.append(parsed_hyp)
        out_r.append(parsed_refs)
    return out_h, out_r


def _checked(gts: dict, res: dict) -> tuple[list, list[str], list[list[str]]]:
    """pycocoevalcap's checks, as errors in the user's terms: the same image ids, one caption per image, captions
    as strings."""
    ids = same_ids(gts, res)
    hyps: list[str] = []
    refs: list[list[str]] = []
    for k in ids:
        h, r = res[k], gts[k]
        if not isinstance(h, list) or len(h) != 1 or not isinstance(h[0], str):
            raise VecscoreError(f"res[{k!r}] must be a list of exactly one caption string, not {h!r:.80}")
        if not isinstance(r, list) or not all(isinstance(x, str) for x in r):
            raise VecscoreError(f"gts[{k!r}] must be a list of reference caption strings, not {r!r:.80}")
        hyps.append(h[0])
        refs.append(r)
    return ids, hyps, refs


class Meteor:
    """pycocoevalcap's ``Meteor``: ``compute_score(gts, res)`` returns ``(corpus score, [per-image scores])``.

    The jar's data (function words, synonyms, the paraphrase table) is read from the installed
    pycocoevalcap, or from ``jar`` and ``paraphrase_file``.
    """

    def __init__(self, jar: str | None = None, paraphrase_file: str | None = None):
        from vecscore.meteor.data import load_data
        from vecscore.meteor.options import resolve_options

        self._options = resolve_options("default", normalize=True)
        self._jar = jar
        self._paraphrase_file = paraphrase_file
        # missing data fails here, as the jar fails when it starts
        load_data(self._options.modules, jar=jar, paraphrase_file=paraphrase_file)

    def compute_score(self, gts: dict, res: dict):
        from vecscore.meteor.scoring import score_items

        ids, hyps, refs = _checked(gts, res)
        if not ids:
            raise VecscoreError("no images to score: gts and res are empty (the jar answers an EVAL line without "
                                "statistics with an error, and pycocoevalcap then fails)")
        hyps, refs = score_lines(ids, hyps, refs)
        result = score_items(hyps, refs, self._options, jar=self._jar, paraphrase_file=self._paraphrase_file)
        return result.score, result.scores.tolist()

    def method(self) -> str:
        return "METEOR"
