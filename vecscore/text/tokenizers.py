"""Tokenizers by name, all returning :class:`~vecscore.text.spans.TokenSpans`.

Built-in names (``TOKENIZERS``):

``rouge-score``
    rouge-score 0.1.2's tokenizer: ``str.lower()``, every character outside
    ``[a-z0-9]`` is a separator.  ASCII texts are lowercased and split by a
    byte kernel; a text with non-ASCII characters is first lowercased by
    Python's ``str.lower()`` (which maps e.g. the Kelvin sign to ``k``), after
    which every remaining non-ASCII byte is a separator, exactly as
    rouge-score's regular expression treats it.
``whitespace``
    Python's ``str.split()``: runs of non-whitespace characters.
``char``
    every non-whitespace character is a token (character-level Chinese).
``cjk``
    Han, kana and hangul characters one per token, other runs of
    non-whitespace characters as words; decided by Unicode code point.
``jieba`` / ``jieba-nohmm``
    word-level Chinese through jieba (HMM on / off); whitespace tokens dropped.

``lowercase=True`` applies ``str.lower()`` first (``rouge-score`` always does).
Any callable ``str -> list[str]`` (or an object with a ``tokenize`` method, as
rouge-score accepts) is also a tokenizer; it runs in Python, once per text.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np

from vecscore.errors import MissingDependencyError, RowError, VecscoreError

if TYPE_CHECKING:  # pragma: no cover
    from vecscore.text.spans import TokenSpans

__all__ = ["TOKENIZERS", "tokenize", "spans_from_token_lists", "resolve_tokenizer", "is_kernel_tokenizer",
           "plain_tokenizer"]

TOKENIZERS = ("rouge-score", "whitespace", "char", "cjk", "jieba", "jieba-nohmm")

_ALNUM = np.zeros(256, np.uint8)  # [A-Za-z0-9]: case is folded when tokens are compared
_ALNUM[ord("a") : ord("z") + 1] = 1
_ALNUM[ord("A") : ord("Z") + 1] = 1
_ALNUM[ord("0") : ord("9") + 1] = 1
#: the bytes inside rouge-score tokens (compared after ASCII lowercasing)
ROUGE_SCORE_TABLE = _ALNUM
_MODES = ("whitespace", "char", "cjk")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def rouge_score_bytes(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(buf, offsets, table, fold)``: the texts as bytes for the rouge-score tokenizer.

    Its tokens are the runs of bytes with ``table[b] != 0`` compared after
    ``fold`` (ASCII lowercasing).  Non-ASCII texts are lowercased by Python's
    ``str.lower()`` first, as rouge-score does; their remaining non-ASCII
    bytes are separators.
    """
    from vecscore.kernels.intern import ASCII_LOWER
    from vecscore.text.spans import encode_nul_separated, encode_texts

    # NUL is a separator for this tokenizer
    enc = encode_nul_separated(texts)
    if enc is None:
        texts = [t if t.isascii() else t.lower() for t in texts]
        enc = encode_texts(texts)
    return enc[0], enc[1], _ALNUM, ASCII_LOWER


def _rouge_score_spans(texts: Sequence[str]) -> TokenSpans:
    from vecscore.kernels.tokenize import split_byte_runs
    from vecscore.text.spans import TokenSpans

    buf, offsets, table, fold = rouge_score_bytes(texts)
    starts, ends, tok_offsets = split_byte_runs(buf, offsets, table)
    return TokenSpans(buf, starts, ends, tok_offsets, fold)


def spans_from_token_lists(token_lists) -> TokenSpans:
    """Spans for already tokenized texts (lists of ``str``)."""
    from vecscore.text.spans import TokenSpans

    lens = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    tok_offsets = np.zeros(len(token_lists) + 1, np.int64)
    np.cumsum(lens, out=tok_offsets[1:])
    n_tokens = int(tok_offsets[-1])
    joined = "\0".join(chain.from_iterable(token_lists))
    if n_tokens and joined.count("\0") == n_tokens - 1:  # no token holds a NUL: one encode, spans from the NULs
        try:
            buf = np.frombuffer(joined.encode("utf-8"), dtype=np.uint8)
        except UnicodeEncodeError:
            buf = None
        if buf is not None:
            ends = np.append(np.flatnonzero(buf == 0), len(buf)).astype(np.int64)
            starts = np.empty(n_tokens, np.int64)
            starts[0] = 0
            starts[1:] = ends[:-1] + 1
            return TokenSpans(buf, starts, ends, tok_offsets)
    flat = [t.encode("utf-8") for toks in token_lists for t in toks]
    blen = np.fromiter(map(len, flat), dtype=np.int64, count=len(flat))
    ends = np.cumsum(blen)
    starts = ends - blen
    buf = np.frombuffer(b"".join(flat), dtype=np.uint8)
    return TokenSpans(buf, starts.astype(np.int64), ends.astype(np.int64), tok_offsets)


def _jieba(hmm: bool) -> Callable[[str], list[str]]:
    try:
        import jieba
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise MissingDependencyError("tokenizer 'jieba' needs the jieba package: pip install 'vecscore[zh]'") from exc
    jieba.setLogLevel(60)

    def cut(text: str) -> list[str]:
        return [w for w in jieba.lcut(text, HMM=hmm) if not w.isspace()]

    return cut


def resolve_tokenizer(tokenizer) -> Callable[[str], list[str]] | str:
    """Validate a tokenizer name or callable; return the name or a callable."""
    if isinstance(tokenizer, str):
        if tokenizer not in TOKENIZERS:
            raise VecscoreError(f"unknown tokenizer {tokenizer!r}; valid names: {', '.join(TOKENIZERS)}, or a callable")
        return tokenizer
    if hasattr(tokenizer, "tokenize") and callable(tokenizer.tokenize):
        return tokenizer.tokenize
    if callable(tokenizer):
        return tokenizer
    raise VecscoreError(f"tokenizer must be a name ({', '.join(TOKENIZERS)}) or a callable, "
                        f"not {type(tokenizer).__name__}")


def is_kernel_tokenizer(tokenizer) -> bool:
    """True for built-in tokenizers whose tokens are substrings of the text."""
    return isinstance(tokenizer, str) and (tokenizer == "rouge-score" or tokenizer in _MODES)


def _rouge_score_split(text: str) -> list[str]:
    return _NON_ALNUM.sub(" ", text.lower()).split()


def plain_tokenizer(tokenizer) -> Callable[[str], list[str]] | None:
    """The tokenizer as a plain ``str -> list[str]`` function (before ``lowercase``), for the small-batch route.

    ``None`` for the tokenizers that only the kernels implement (``char``, ``cjk``).
    """
    tok = resolve_tokenizer(tokenizer)
    if tok == "rouge-score":
        return _rouge_score_split
    if tok == "whitespace":
        return str.split
    if tok in ("jieba", "jieba-nohmm"):
        return _jieba(hmm=tok == "jieba")
    if isinstance(tok, str):
        return None
    return lambda text: list(tok(text))


def tokenize(texts: Sequence[str], tokenizer="rouge-score", *, lowercase: bool = False) -> TokenSpans:
    """Tokenize a batch of texts (already validated to be ``str``)."""
    tok = resolve_tokenizer(tokenizer)
    if tok == "rouge-score":
        return _rouge_score_spans(texts)
    if lowercase:
        texts = [t.lower() for t in texts]
    if isinstance(tok, str) and tok in _MODES:
        from vecscore.kernels import tokenize as kernels
        from vecscore.text.spans import TokenSpans, encode_texts

        mode = {"whitespace": kernels.MODE_WHITESPACE, "char": kernels.MODE_CHAR, "cjk": kernels.MODE_CJK}[tok]
        buf, offsets = encode_texts(texts)
        starts, ends, tok_offsets = kernels.split_codepoints(buf, offsets, mode)
        return TokenSpans(buf, starts, ends, tok_offsets)
    if tok in ("jieba", "jieba-nohmm"):
        tok = _jieba(hmm=tok == "jieba")
    lists = [list(tok(t)) for t in texts]
    for i, toks in enumerate(lists):
        bad = next((t for t in toks if not isinstance(t, str)), None)
        if bad is not None:
            raise RowError(i, f"the tokenizer returned a non-string token {bad!r} for {{row}}; "
                              "it must return list[str]")
    return spans_from_token_lists(lists)
