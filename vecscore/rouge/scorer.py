"""A drop-in for rouge-score's ``RougeScorer``, plus batch methods.

>>> from vecscore import RougeScorer
>>> scorer = RougeScorer(["rouge1", "rouge2"], use_stemmer=True)
>>> s = scorer.score("The quick brown fox", "the quick brown dog")   # target first, as rouge-score
>>> round(s["rouge1"].fmeasure, 4)
0.75

``score`` and ``score_multi`` keep rouge-score's argument order (target
first) and return ``{type: Score(precision, recall, fmeasure)}`` with Python
floats.  ``score_batch(targets, predictions)`` and
``score_multi_batch(targets_lists, predictions)`` score a whole batch in one
vectorized call and return a :class:`~vecscore.RougeResult` of arrays.

As in rouge-score, a custom ``tokenizer`` (an object with ``tokenize(text)``
or a callable) replaces the built-in one, and ``use_stemmer`` is then ignored.
``split_summaries=True`` needs NLTK's punkt model, which vecscore never
downloads; pass text with one sentence per line instead.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from contextlib import contextmanager
from typing import Any

from vecscore.errors import VecscoreError
from vecscore.inputs import as_rows
from vecscore.rouge.api import rouge
from vecscore.rouge.options import validate_metrics
from vecscore.rouge.results import RougeResult, Score

__all__ = ["RougeScorer"]


class RougeScorer:
    """rouge-score's ``RougeScorer(rouge_types, use_stemmer=False, split_summaries=False, tokenizer=None)``."""

    def __init__(self, rouge_types: Sequence[str], use_stemmer: bool = False, split_summaries: bool = False,
                 tokenizer: Any = None):  # an object with tokenize(text), or a callable str -> list[str]
        if isinstance(rouge_types, str):
            rouge_types = [rouge_types]
        bad = [t for t in rouge_types if not (isinstance(t, str) and _ROUGE_SCORE_TYPES.fullmatch(t))]
        if bad:  # refused here, when the scorer is built (rouge-score refuses them at the first score)
            raise VecscoreError(f"invalid rouge type(s) {', '.join(map(repr, bad))}: RougeScorer takes rouge-score's "
                                "types rouge1..rouge9, rougeL and rougeLsum (longer n-grams: vecscore.rouge(..., "
                                "metrics=['rouge10']))")
        validate_metrics(rouge_types)
        if split_summaries:
            raise VecscoreError(
                "split_summaries=True needs NLTK's punkt sentence model, which vecscore does not download; "
                "put one sentence per line (sentences separated by '\\n') instead"
            )
        self.rouge_types = list(rouge_types)
        self._options = {
            "metrics": self.rouge_types,
            "tokenizer": "rouge-score" if tokenizer is None else tokenizer,
            "stemmer": bool(use_stemmer) and tokenizer is None,
        }

    def score(self, target: str, prediction: str) -> dict[str, Score]:
        """Scores of one prediction against one target (rouge-score's order)."""
        with _named("prediction", "target"):
            return _first(rouge([prediction], [target], **self._options))

    def score_multi(self, targets: Sequence[str], prediction: str) -> dict[str, Score]:
        """Per type, the target with the highest F (first on ties), as rouge-score."""
        with _named("prediction", "targets"):
            return _first(rouge([prediction], [list(targets)], multi_ref="best", **self._options))

    def score_batch(self, targets: Sequence[str], predictions: Sequence[str]) -> RougeResult:
        """``score`` for every ``(targets[i], predictions[i])`` in one call."""
        with _named("predictions", "targets"):
            return rouge(predictions, targets, **self._options)

    def score_multi_batch(self, targets: Sequence[Sequence[str]], predictions: Sequence[str]) -> RougeResult:
        """``score_multi`` for every ``(targets[i], predictions[i])`` in one call."""
        with _named("predictions", "targets"):
            return rouge(predictions, [list(t) for t in as_rows(targets, "targets")], multi_ref="best", **self._options)


#: the types rouge-score's RougeScorer takes
_ROUGE_SCORE_TYPES = re.compile(r"rouge[1-9]|rougeL|rougeLsum")
_ROW = re.compile(r"\b(hyps|refs)(\[\d+\])?")


@contextmanager
def _named(hyps: str, refs: str):
    """Errors in rouge-score's words: ``hyps[3]`` becomes ``predictions[3]``, ``refs[0]`` ``target``."""
    try:
        yield
    except VecscoreError as exc:
        def name(m):
            word = hyps if m.group(1) == "hyps" else refs
            return word + (m.group(2) or "") if word.endswith("s") else word

        raise VecscoreError(_ROW.sub(name, str(exc))) from None


def _first(result: RougeResult) -> dict[str, Score]:
    return {k: Score(float(s.precision[0]), float(s.recall[0]), float(s.fmeasure[0])) for k, s in result.items()}
