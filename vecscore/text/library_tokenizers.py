"""sacreBLEU's tokenizers that run another library on each text: MeCab (:mod:`vecscore.text.mecab_tokenizers`)
and SentencePiece (:mod:`vecscore.text.spm_tokenizers`).

They are Python libraries, so each text is tokenized by one call (with a
cache of recent texts, as sacreBLEU); BLEU then counts the token lists as it
counts pre-split text.  Both of vecscore's BLEU routes take them.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from vecscore.text import mecab_tokenizers, spm_tokenizers
from vecscore.text.mecab_tokenizers import MECAB_TOKENIZERS
from vecscore.text.spm_tokenizers import SPM_TOKENIZERS

__all__ = ["LIBRARY_TOKENIZERS", "line_tokenizer", "signature_name", "token_lists"]

#: the names, as sacreBLEU 2.6 spells them
LIBRARY_TOKENIZERS = MECAB_TOKENIZERS + SPM_TOKENIZERS


def _module(name: str):
    return mecab_tokenizers if name in MECAB_TOKENIZERS else spm_tokenizers


def line_tokenizer(name: str) -> Callable[[str], list[str]]:
    """The tokens of one text (already lowercased and right-stripped as sacreBLEU's BLEU does)."""
    return _module(name).line_tokenizer(name)


def signature_name(name: str) -> str:
    """sacreBLEU's ``tok:`` value for ``name`` (``ja-mecab-0.996-IPA``, ``flores200`` ...)."""
    return _module(name).signature_name(name)


def token_lists(texts: Sequence[str], name: str, *, lowercase: bool = False) -> list[list[str]]:
    """Each text's tokens as sacreBLEU's BLEU finds them: ``tokenizer(text.rstrip())``, lowercased first if asked."""
    tok = line_tokenizer(name)
    if lowercase:
        return [tok(t.lower().rstrip()) for t in texts]
    return [tok(t.rstrip()) for t in texts]
