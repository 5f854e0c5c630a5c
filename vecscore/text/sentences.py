"""Sentences, for the summary-level metrics (ROUGE-Lsum, ROUGE-1.5.5's L and W).

vecscore follows rouge-score: a text's sentences are its lines (split on
``"\\n"``).  Lines without tokens do not change any score and are dropped.
For text without newlines, ``sentence_splitter="punct"`` inserts them with a
small deterministic rule that needs no model or download (NLTK's punkt,
which rouge-score's ``split_summaries=True`` uses, cannot be fetched
offline): a sentence ends after ``.``, ``!`` or ``?`` (optionally followed by
closing quotes or brackets) when whitespace and then an uppercase letter,
digit or opening quote follow, and after every ``。``, ``！``, ``？``.  It
does not know abbreviations ("Dr. Smith" splits); for exact agreement with
a particular splitter, split beforehand and join with ``"\\n"``.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from vecscore.errors import VecscoreError

__all__ = ["SENTENCE_SPLITTERS", "split_sentences", "sentence_layout"]

SENTENCE_SPLITTERS = ("newline", "punct")
_LATIN_END = re.compile(r"""(\S*?)([.!?]+["'”’)\]]*)[ \t]+(?=\S)""")
_CJK_END = re.compile(r"([。！？][”’」』）]*)(?!\n|$)")
_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof sr jr st mt vs etc e.g i.e inc ltd co corp no nos fig figs approx gen gov sen rep "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)


def _latin_break(m: re.Match) -> str:
    word, punct = m.group(1), m.group(2)
    if punct.startswith(".") and len(punct.rstrip("\"'”’)]")) == 1:
        w = word.lower().lstrip("\"'“‘([")
        if len(w) == 1 or "." in w or w in _ABBREVIATIONS:
            return m.group(0)
    return word + punct + "\n"


def split_sentences(texts: Sequence[str], splitter: str) -> list[str] | Sequence[str]:
    """Texts with their sentence breaks as ``"\\n"`` (``newline``: unchanged)."""
    if splitter == "newline":
        return texts
    if splitter == "punct":
        return [_CJK_END.sub("\\1\n", _LATIN_END.sub(_latin_break, t)) for t in texts]
    raise VecscoreError(f"sentence_splitter must be one of {SENTENCE_SPLITTERS}, not {splitter!r}")


def sentence_layout(offsets: np.ndarray, sent_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sent_offsets, text_sents)`` from a sentence id per token.

    Tokens of one text with equal consecutive ``sent_ids`` form a sentence;
    the layout is the one of :mod:`vecscore.kernels.lcs`.
    """
    change = np.flatnonzero(np.diff(sent_ids) != 0) + 1 if len(sent_ids) > 1 else np.zeros(0, np.int64)
    sent_offsets = np.unique(np.concatenate([offsets, change.astype(np.int64)]))
    text_sents = np.searchsorted(sent_offsets, offsets).astype(np.int64)
    return sent_offsets.astype(np.int64), text_sents
