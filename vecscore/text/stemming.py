"""Stemmers, applied once per unique vocabulary token (never per occurrence).

``porter``: NLTK's ``PorterStemmer()`` in its default NLTK_EXTENSIONS mode, on
tokens longer than 3 characters only; this is what rouge-score's
``use_stemmer=True`` does.  Stems are cached across calls.
"""
from __future__ import annotations

from collections.abc import Callable

from vecscore.errors import MissingDependencyError, VecscoreError

__all__ = ["STEMMERS", "get_stemmer"]

STEMMERS = ("porter",)
_CACHE: dict[str, dict[str, str]] = {}


def _porter() -> Callable[[str], str]:
    try:
        from nltk.stem import porter
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise MissingDependencyError("stemmer 'porter' needs NLTK: pip install 'vecscore[stem]'") from exc
    stemmer = porter.PorterStemmer()
    cache = _CACHE.setdefault("porter", {})

    def stem(word: str) -> str:
        out = cache.get(word)
        if out is None:
            out = stemmer.stem(word) if len(word) > 3 else word
            cache[word] = out
        return out

    return stem


def get_stemmer(stemmer) -> Callable[[str], str] | None:
    """``None``/``False`` → no stemming; ``True`` or ``"porter"`` → Porter; or a callable."""
    if stemmer is None or stemmer is False:
        return None
    if stemmer is True or stemmer == "porter":
        return _porter()
    if callable(stemmer):
        return stemmer
    raise VecscoreError(f"unknown stemmer {stemmer!r}; valid: {', '.join(STEMMERS)}, True/False, "
                        "or a callable str -> str")
