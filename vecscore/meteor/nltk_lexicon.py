"""The stemmer and the WordNet synonyms of NLTK's METEOR, looked up once per unique word and cached.

NLTK's ``meteor_score`` stems every word still unmatched after the exact
stage and asks WordNet for the synonyms of every hypothesis word still
unmatched after the stem stage, for every pair and every reference again;
that is where its time goes.  Both are functions of the word alone, so
vecscore asks once per unique word and keeps the answer for later calls,
per stemmer object and per WordNet reader (a cache that lives as long as
the object does).  A custom stemmer must therefore give the same stem for
the same word every time, as NLTK's stemmers do.

WordNet is read through NLTK's own corpus reader (``nltk.corpus.wordnet``
by default, or any reader passed in), so the synonyms are NLTK's.  Nothing
is downloaded: when NLTK finds no WordNet, :class:`WordNetMissingError`
says how to provide it.
"""
from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from typing import Any

from vecscore.errors import MissingDependencyError, VecscoreError

__all__ = ["WordNetMissingError", "stem_function", "synonym_function", "wordnet_reader", "MISSING_WORDNET_HELP"]

MISSING_WORDNET_HELP = (
    "NLTK's METEOR needs the WordNet 3.0 corpus for NLTK ('corpora/wordnet' in a folder of nltk.data.path, "
    "e.g. ~/nltk_data or one named by the NLTK_DATA environment variable). Get it with nltk.download('wordnet'), "
    "or without a download from Debian's packages: apt-get install wordnet-base wordnet-sense-index, then "
    "python -m vecscore.meteor.wordnet_data ~/nltk_data (it copies /usr/share/wordnet into "
    "~/nltk_data/corpora/wordnet and writes the lexnames file that Debian does not ship)"
)


class WordNetMissingError(MissingDependencyError, LookupError):
    """NLTK found no WordNet corpus.  A ``LookupError`` too, as NLTK's own error for a missing corpus is."""


def _missing() -> WordNetMissingError:
    try:
        import nltk.data

        where = f" (NLTK looked in {', '.join(map(str, nltk.data.path))})"
    except ImportError:  # pragma: no cover - exercised without the extra
        where = ""
    return WordNetMissingError(MISSING_WORDNET_HELP + where)


def wordnet_reader(wordnet: Any = None) -> Any:
    """The WordNet reader to use, loaded: NLTK's ``nltk.corpus.wordnet`` for ``None``, else ``wordnet`` itself.

    A reader that NLTK loads lazily (``nltk.corpus.wordnet`` and other
    ``LazyCorpusLoader`` objects) is loaded here, so a missing corpus fails
    the call at its start with :class:`WordNetMissingError` (NLTK itself
    fails at the first pair that needs a synonym).
    """
    if wordnet is None:
        try:
            from nltk.corpus import wordnet as default
        except ImportError as exc:  # pragma: no cover - exercised without the extra
            raise MissingDependencyError("NLTK's METEOR needs NLTK: pip install 'vecscore[stem]'") from exc
        wordnet = default
    try:
        synsets = wordnet.synsets  # loads a lazily loaded reader
    except LookupError:
        raise _missing() from None
    except AttributeError:
        synsets = None
    if not callable(synsets):
        raise VecscoreError(f"wordnet must be a WordNet corpus reader (an object with synsets(word)), such as "
                            f"nltk.corpus.wordnet, not {type(wordnet).__name__}")
    return wordnet


#: per stemmer and per WordNet reader, the answers given so far (word -> stem, word -> synonyms)
_STEMS: weakref.WeakKeyDictionary[Any, dict[str, str]] = weakref.WeakKeyDictionary()
_SYNONYMS: weakref.WeakKeyDictionary[Any, dict[str, frozenset[str]]] = weakref.WeakKeyDictionary()
_DEFAULT: dict[str, Any] = {}


def _cache(caches: weakref.WeakKeyDictionary, owner: Any) -> dict:
    try:
        return caches.setdefault(owner, {})
    except TypeError:  # not weakly referable or not hashable: a cache for this call only
        return {}


def _default_stemmer() -> Any:
    stemmer = _DEFAULT.get("porter")
    if stemmer is None:
        try:
            from nltk.stem.porter import PorterStemmer
        except ImportError as exc:  # pragma: no cover - exercised without the extra
            raise MissingDependencyError("NLTK's METEOR needs NLTK: pip install 'vecscore[stem]'") from exc
        stemmer = _DEFAULT["porter"] = PorterStemmer()
    return stemmer


def stem_function(stemmer: Any = None) -> Callable[[Iterable[str]], list[str]]:
    """A function from words to their stems (one list), cached per word: ``None`` is NLTK's default
    ``PorterStemmer()`` (every word stemmed, whatever its length, as NLTK's METEOR does); an object with a
    ``stem(word)`` method (an NLTK ``StemmerI``) or a callable ``str -> str`` is used as it is."""
    owner = _default_stemmer() if stemmer is None else stemmer
    method = getattr(owner, "stem", None)
    stem = method if callable(method) else owner if callable(owner) else None
    if stem is None:
        raise VecscoreError(f"stemmer must be an NLTK stemmer (an object with stem(word)) or a callable str -> str, "
                            f"not {type(stemmer).__name__}")
    cache = _cache(_STEMS, owner)

    def stems(words: Iterable[str]) -> list[str]:
        words = list(words)
        new = [w for w in dict.fromkeys(words) if w not in cache]
        for w in new:
            s = stem(w)
            if not isinstance(s, str):
                raise VecscoreError(f"the stemmer returned {s!r:.40} ({type(s).__name__}) for {w!r:.40}; "
                                    "stems must be str")
            cache[w] = s
        return list(map(cache.__getitem__, words))

    return stems


def _lemma_names(reader: Any, word: str) -> frozenset[str]:
    """The synonyms NLTK's METEOR takes for ``word``: the names of the lemmas of all its synsets (every part of
    speech, through WordNet's morphology), less the names holding ``_`` (multi-word lemmas)."""
    return frozenset(name for synset in reader.synsets(word) for lemma in synset.lemmas()
                     if "_" not in (name := lemma.name()))


def synonym_function(reader: Any) -> Callable[[str], frozenset[str]]:
    """``word -> its synonyms`` (:func:`_lemma_names`) through ``reader``, cached per word for the reader's
    lifetime.  The word itself is not added (NLTK adds it; vecscore's stem stage has matched it already)."""
    cache = _cache(_SYNONYMS, reader)

    def synonyms(word: str) -> frozenset[str]:
        out = cache.get(word)
        if out is None:
            try:
                out = cache[word] = _lemma_names(reader, word)
            except LookupError:
                raise _missing() from None
        return out

    return synonyms
