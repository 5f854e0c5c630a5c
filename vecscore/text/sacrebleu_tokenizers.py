"""sacreBLEU's tokenizers, token-identical and vectorized.

For every text the tokens are exactly those of sacreBLEU 2.6's BLEU
preprocessing, ``tokenizer(text.rstrip()).split()``, with ``text.lower()``
first when ``lowercase=True`` (``BLEU._preprocess_segment``).

Names (``TOKENIZERS``):

``13a`` (sacreBLEU's default)
    mteval-v13a: removes ``<skipped>`` and ``-\\n``, turns newlines into
    spaces, unescapes ``&quot;``, ``&amp;``, ``&lt;``, ``&gt;`` (in that
    order, one pass each, so ``&amp;lt;`` becomes ``<`` but ``&amp;quot;``
    becomes ``&quot;``), pads the line with a space on each side and splits
    off ASCII punctuation, with ``.`` and ``,`` kept inside numbers and ``-``
    split after a digit.
``intl``
    mteval-v14: splits off Unicode punctuation (``\\p{P}``) unless it is
    between a non-number and a number, and every symbol (``\\p{S}``).  The
    classes are those of the ``regex`` module (see
    :mod:`vecscore.text.unicode_tables`).
``zh``
    sacreBLEU's Chinese tokenizer *as it behaves*: ``line.strip()``, spaces
    around every "Chinese" character, then 13a's punctuation rules (without
    13a's unescaping, ``<skipped>`` removal or padding).  Its character ranges
    carry sacrebleu#298: CJK Extension B is not split, while U+2001..U+2A6D
    (general punctuation, arrows, mathematical operators, technical symbols
    ...) and U+2F81..U+2FA1 are.
``zh-fixed``
    the same tokenizer with the ranges as intended: Extension B and the
    Compatibility Ideographs Supplement whole, plus CJK extensions C..I and
    the full Extension A and Unified Ideographs blocks.  Not in sacreBLEU;
    use it only when sacreBLEU-compatibility is not required.
``char``
    every non-whitespace character is a token.
``none``
    ``str.split()``.

sacreBLEU's tokenizers that run another library on each text
(:data:`LIBRARY_TOKENIZERS`, :mod:`vecscore.text.library_tokenizers`) are
taken by :func:`tokenize` too: ``ja-mecab`` and ``ko-mecab`` (MeCab, extras
``[ja]`` and ``[ko]``), ``flores101``, ``flores200``, ``spBLEU-1K`` and
``spm`` (SentencePiece, from a model file on disk, never downloaded).

Whitespace is always Python's ``str.isspace()`` set (it includes ``\\x1c``..
``\\x1f``, ``\\x85``, ``\\u3000`` ...), as sacreBLEU ends with ``str.split()``.
Texts containing lone surrogates cannot be encoded and raise
:class:`~vecscore.errors.VecscoreError`.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.kernels.bleu_tokenize import (
    MODE_13A,
    MODE_CHAR,
    MODE_INTL,
    MODE_NONE,
    MODE_ZH,
    MODE_ZH_FIXED,
    gather_token_rows,
    tokenize_codepoints,
    utf8_offsets,
)
from vecscore.text.library_tokenizers import LIBRARY_TOKENIZERS, token_lists
from vecscore.text.spans import TokenSpans
from vecscore.text.unicode_tables import flag_table

__all__ = ["TOKENIZERS", "LIBRARY_TOKENIZERS", "tokenize"]

TOKENIZERS = ("13a", "intl", "zh", "zh-fixed", "char", "none")

_MODES = {
    "13a": MODE_13A,
    "intl": MODE_INTL,
    "zh": MODE_ZH,
    "zh-fixed": MODE_ZH_FIXED,
    "char": MODE_CHAR,
    "none": MODE_NONE,
}

# Texts per parallel chunk (enough work to amortize the scratch allocation).
_CHUNK = 2048


def _check_name(name: str) -> None:
    if name not in _MODES and name not in LIBRARY_TOKENIZERS:
        raise VecscoreError(f"unknown sacreBLEU tokenizer {name!r}; valid names: "
                            f"{', '.join(TOKENIZERS + LIBRARY_TOKENIZERS)}")


def _check_texts(texts) -> list[str]:
    if isinstance(texts, str) or not isinstance(texts, Sequence):
        raise VecscoreError("texts must be a sequence of str (a list of lines), not a single str or an iterator")
    if set(map(type, texts)) <= {str}:
        return list(texts)
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise VecscoreError(f"texts[{i}] is {type(t).__name__}, expected str")
    return list(texts)


def _to_codepoints(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(cps, offsets)``: all texts as uint32 code points and their offsets."""
    offsets = np.zeros(len(texts) + 1, np.int64)
    if texts:
        np.cumsum(np.fromiter(map(len, texts), np.int64, count=len(texts)), out=offsets[1:])
    try:
        raw = "".join(texts).encode("utf-32-le")
    except UnicodeEncodeError:
        bad = next(i for i, t in enumerate(texts) if not _encodable(t))
        raise VecscoreError(f"texts[{bad}] contains a lone surrogate code point; clean or re-decode it") from None
    return np.frombuffer(raw, np.uint32), offsets


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _chunk_bounds(n: int) -> np.ndarray:
    return np.unique(np.append(np.arange(0, n, _CHUNK, dtype=np.int64), n))


def tokenize(texts: Sequence[str], name: str = "13a", *, lowercase: bool = False) -> TokenSpans:
    """Tokenize texts exactly as sacreBLEU's BLEU does.

    Parameters
    ----------
    texts : sequence of str
        One segment per element.
    name : str, default "13a"
        One of :data:`TOKENIZERS` or :data:`LIBRARY_TOKENIZERS`.
    lowercase : bool, default False
        Apply ``str.lower()`` first (sacreBLEU's ``lowercase=True``).

    Returns
    -------
    TokenSpans
        Token ``j`` of text ``i`` equals
        ``sacrebleu_tokenizer(text.rstrip()).split()[j]``.

    Examples
    --------
    >>> spans = tokenize(["Hello, world!", "It costs $3.50 &amp; more."])
    >>> spans.token_strings(0), spans.token_strings(1)
    (['Hello', ',', 'world', '!'], ['It', 'costs', '$', '3.50', '&', 'more', '.'])
    """
    _check_name(name)
    texts = _check_texts(texts)
    if name in LIBRARY_TOKENIZERS:
        from vecscore.text.tokenizers import spans_from_token_lists

        for i, t in enumerate(texts):
            if not t.isascii() and not _encodable(t):
                raise VecscoreError(f"texts[{i}] contains a lone surrogate code point; clean or re-decode it")
        return spans_from_token_lists(token_lists(texts, name, lowercase=lowercase))
    if lowercase:
        texts = [t.lower() for t in texts]
    texts = [t.rstrip() for t in texts]
    cps, offsets = _to_codepoints(texts)
    byte_offsets = utf8_offsets(cps, offsets)
    out, starts, ends, counts, first = tokenize_codepoints(
        cps, offsets, byte_offsets, flag_table(), _MODES[name], _chunk_bounds(len(texts))
    )
    starts, ends, tok_offsets = gather_token_rows(starts, ends, counts, first)
    return TokenSpans(out, starts, ends, tok_offsets)
