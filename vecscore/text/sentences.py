"""Sentences, for the summary-level metrics (ROUGE-Lsum, ROUGE-1.5.5's L and W).

vecscore follows rouge-score: a text's sentences are its lines (split on
``"\\n"``).  Lines without tokens do not change any score and are dropped.
For text without newlines, ``sentence_splitter="punct"`` inserts them with a
small deterministic rule that needs no model or download (NLTK's punkt,
which rouge-score's ``split_summaries=True`` uses, cannot be fetched
offline): a sentence ends after ``.``, ``!`` or ``?`` (optionally followed by
closing quotes or brackets) when spaces or tabs and then a non-space
character follow, except a lone ``.`` after a one-letter word, a word with a
``.`` in it or a common abbreviation ("Dr.", "etc.", "Jan."); and after every
``。``, ``！``, ``？`` unless a newline or the end follows.  For exact agreement
with a particular splitter, split beforehand and join with ``"\\n"``.

Large batches are split by a kernel (:mod:`vecscore.kernels.sentences`, one
text per thread) that gives the same texts as the regular expressions here.
"""
from __future__ import annotations

import re

import numpy as np

__all__ = ["SENTENCE_SPLITTERS", "split_punct_plain", "split_punct_compiled", "split_punct_utf8",
           "punct_keys", "sentence_layout"]

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


def split_punct_plain(text: str) -> str:
    """One text split by the ``punct`` rule (the regular expressions; the kernel's twin)."""
    return _CJK_END.sub("\\1\n", _LATIN_END.sub(_latin_break, text))


def punct_keys() -> np.ndarray:
    """The abbreviations of the ``punct`` splitter as the kernels take them
    (:func:`vecscore.kernels.sentences.abbreviation_keys`)."""
    global _KEYS
    if _KEYS is None:
        from vecscore.kernels.sentences import abbreviation_keys

        _KEYS = abbreviation_keys(_ABBREVIATIONS)
    return _KEYS


_KEYS: np.ndarray | None = None


def split_punct_compiled(texts: list[str]) -> list[str]:
    """The ``punct`` rule's breaks by the kernel (equal to :func:`split_punct_plain`; the route is chosen by
    :func:`vecscore.rouge.splitting.split_sentences`)."""
    found = split_punct_utf8(texts)
    if found is None:
        return [split_punct_plain(t) for t in texts]
    out, offsets, flagged = found
    split = out.tobytes().decode("utf-8").split("\0")
    for i in np.flatnonzero(flagged).tolist():
        split[i] = split_punct_plain(texts[i])
    return split


def split_punct_utf8(texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The kernel's ``punct`` split of ``texts`` as UTF-8: ``(buf, offsets, flagged)``, split text ``i`` the
    bytes ``buf[offsets[i]:offsets[i + 1] - 1]`` (a NUL after every text but the last, whose end is
    ``offsets[-1]``); the ``flagged`` texts are not split right there (their rule needs Unicode
    lowercasing: :func:`split_punct_plain` them).  ``None`` when a text holds a NUL or a lone
    surrogate (the kernel cannot take them)."""
    if not texts:
        return np.zeros(0, np.uint8), np.zeros(1, np.int64), np.zeros(0, np.bool_)
    from vecscore.kernels.sentences import split_punct
    from vecscore.kernels.swar import work_counter
    from vecscore.kernels.tokenize import nul_offsets
    from vecscore.parallel import current_threads

    try:
        buf = np.frombuffer("\0".join(texts).encode("utf-8"), np.uint8)
    except UnicodeEncodeError:  # a lone surrogate: the plain splitter, and the scorer names the row
        return None
    offsets = nul_offsets(buf, len(texts))
    if len(offsets) != len(texts) + 1:  # a text holds a NUL
        return None
    workers = current_threads()
    out, flagged = split_punct(buf, offsets, punct_keys(), workers, work_counter(workers))
    return out, nul_offsets(out, len(texts)), flagged


def sentence_layout(offsets: np.ndarray, sent_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sent_offsets, text_sents)`` from a sentence id per token.

    Tokens of one text with equal consecutive ``sent_ids`` form a sentence;
    the layout is the one of :mod:`vecscore.kernels.lcs`.
    """
    change = np.flatnonzero(np.diff(sent_ids) != 0) + 1 if len(sent_ids) > 1 else np.zeros(0, np.int64)
    sent_offsets = np.unique(np.concatenate([offsets, change.astype(np.int64)]))
    text_sents = np.searchsorted(sent_offsets, offsets).astype(np.int64)
    return sent_offsets.astype(np.int64), text_sents
