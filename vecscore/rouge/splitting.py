"""Applying the sentence splitter to a call's texts, on whichever route scores it.

:func:`vecscore.rouge` checks ``sentence_splitter`` and passes it down; a route
splits the texts it scores (the plain route its rows, the general compiled
route the call's texts), and the per-pair route (:mod:`vecscore.rouge.direct`)
finds the ``punct`` breaks of ASCII texts inside its kernel and splits only
the others.  ``newline`` changes nothing.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from vecscore import route
from vecscore.errors import VecscoreError
from vecscore.references import Refs
from vecscore.text import sentences
from vecscore.text.sentences import SENTENCE_SPLITTERS

__all__ = ["split_texts", "split_sentences"]


def split_sentences(texts: Sequence[str], splitter: str) -> list[str] | Sequence[str]:
    """Texts with their sentence breaks as ``"\\n"`` (``newline``: unchanged)."""
    if splitter == "newline":
        return texts
    if splitter != "punct":
        raise VecscoreError(f"sentence_splitter must be one of {SENTENCE_SPLITTERS}, not {splitter!r}")
    texts = list(texts)
    if route.use_plain(True, lambda: route.text_chars(texts)):
        return [sentences.split_punct_plain(t) for t in texts]
    return sentences.split_punct_compiled(texts)


def split_texts(hyps, refs, splitter: str, split: Callable | None = None):
    """``(hyps, refs)`` with ``splitter``'s breaks as newlines in every ``str`` (any references layout);
    ``split``: the function that splits a list of texts (default :func:`split_sentences`)."""
    if splitter == "newline" or len(hyps) == 0 or not isinstance(hyps[0], str):
        return hyps, refs
    if split is None:
        def split(texts):
            return split_sentences(texts, splitter)
    if isinstance(refs, Refs):  # read by vecscore.inputs: its texts in one list
        refs = refs.replaced(split(refs.flat)) if all(isinstance(r, str) for r in refs.flat) else refs
        hyps = split(list(hyps)) if all(isinstance(h, str) for h in hyps) else hyps
        return hyps, refs
    texts: list[str] = []
    _map_ref_texts(refs, texts.append)
    split_refs = iter(split(texts))
    refs = _map_ref_texts(refs, lambda t: next(split_refs))
    hyps = split(list(hyps)) if all(isinstance(h, str) for h in hyps) else hyps
    return hyps, refs


def _map_ref_texts(refs, fn):
    def one(r):
        if isinstance(r, str):
            return fn(r)
        if isinstance(r, (list, tuple)):
            return [one(x) for x in r]
        return r

    return [one(r) for r in refs]
