"""METEOR 1.5's WordNet synonyms, as its synonym module sees them.

meteor-1.5.jar ships WordNet 3.0 as two files: ``synonym/english.synsets`` (pairs of lines: a word, then the
numbers of its synsets) and ``synonym/english.exceptions`` (pairs of lines: a base form, then the irregular
forms it is the base of).  A word's synsets, for matching, are the synsets of the word itself together with
those of its base form:

* a word listed as an irregular form has the synsets of all its base forms together;
* any other word is reduced by WordNet's suffix rules (``morph``): a word ending in ``ss`` or of at most two
  UTF-16 code units stays as it is; otherwise the first of the 20 noun, verb and adjective rules (in WordNet's
  order) whose suffix the word ends with and whose replacement is a listed word gives the base form; when none
  does, the base form is the empty string, which has no synsets.  (The jar also prepares to put back a ``ful``
  ending, but no rule's suffix ends in ``l``, so a word ending in ``ful`` gets no base form from the rules.)

Two words match as synonyms when their synset sets intersect and the words differ (by Java's
``String.hashCode``: :meth:`SynonymTable.are_synonyms`).  A word is looked up exactly as it is (no
lower-casing).  The jar reads the synsets file in the JVM's default charset and the exceptions as UTF-8; both
files in meteor-1.5.jar are plain ASCII, which every charset reads alike, so both are read here as UTF-8.  A
word listed twice keeps its last line, as the jar's table does.  WordNet's relations file is not used: the jar
does not load it.
"""
from __future__ import annotations

import os
import threading
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.meteor.normalize import java_hash
from vecscore.meteor.resources import (
    StringIndex,
    build_string_index,
    cached_arrays,
    find_jar,
    jar_member,
    java_lines,
    java_tokens,
)

__all__ = ["SynonymTable", "load_synonyms", "build_synonym_arrays", "java_hash", "SYNSETS", "EXCEPTIONS"]

#: the members of meteor-1.5.jar that hold the English synonyms
SYNSETS = "synonym/english.synsets"
EXCEPTIONS = "synonym/english.exceptions"

# WordNet 3.0's detachment rules, in its order: a word ending in the first string may have the base form that
# ends in the second instead (nouns, then verbs, then adjectives)
_RULES = (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
          ("ies", "y"),
          ("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", ""),
          ("er", ""), ("est", ""), ("er", "e"), ("est", "e"))


def _pairs(lines: list[str], name: str) -> list[tuple[str, str]]:
    if len(lines) % 2:
        raise VecscoreError(f"{name} ends with a line that has no partner line: the file is damaged")
    return list(zip(lines[0::2], lines[1::2]))


def _sorted_sets(sets: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    rows = [np.unique(np.array(s, np.int64)) for s in sets]
    ptr = np.zeros(len(rows) + 1, np.int64)
    np.cumsum([len(r) for r in rows], out=ptr[1:])
    values = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    if len(values) and (values.min() < np.iinfo(np.int32).min or values.max() > np.iinfo(np.int32).max):
        raise VecscoreError(f"{SYNSETS} has a synset number outside 32-bit integers: the file is damaged")
    return ptr, values


def build_synonym_arrays(exceptions: bytes, synsets: bytes) -> dict[str, np.ndarray]:
    """The arrays of a :class:`SynonymTable` from the bytes of the exceptions and synsets files."""
    table: dict[str, list[int]] = {}
    for word, numbers in _pairs(java_lines(synsets), SYNSETS):
        try:
            table[word] = [int(t) for t in java_tokens(numbers)]
        except ValueError:
            raise VecscoreError(f"{SYNSETS}: {numbers!r} (the synsets of {word!r}) is not a list of numbers") from None
    bases: dict[str, list[str]] = {}
    for base, forms in _pairs(java_lines(exceptions), EXCEPTIONS):
        for form in java_tokens(forms):
            bases.setdefault(form, []).append(base)
    words = list(table)
    arrays = build_string_index([w.encode("utf-8", "surrogatepass") for w in words], "word_")
    arrays["syn_ptr"], arrays["syn"] = _sorted_sets([table[w] for w in words])
    irregular = list(bases)
    arrays.update(build_string_index([f.encode("utf-8", "surrogatepass") for f in irregular], "form_"))
    arrays["form_syn_ptr"], arrays["form_syn"] = _sorted_sets([[n for b in bases[f] for n in table.get(b, ())]
                                                               for f in irregular])
    return arrays


def _java_length(word: str) -> int:
    """``String.length()`` in Java: UTF-16 code units."""
    return len(word) if word.isascii() else len(word.encode("utf-16-le", "surrogatepass")) // 2


class SynonymTable:
    """The synonym table, over read-only arrays (memory-mapped from the cache by :func:`load_synonyms`).

    ``word_*`` index the listed words (a :class:`~vecscore.meteor.resources.StringIndex`); word ``i``'s synsets
    are ``syn[syn_ptr[i]:syn_ptr[i + 1]]``, sorted.  ``form_*`` index the irregular forms; form ``i``'s base
    synsets (those of all its base forms) are ``form_syn[form_syn_ptr[i]:form_syn_ptr[i + 1]]``, sorted.

    Examples
    --------
    >>> table = load_synonyms()  # doctest: +SKIP
    >>> bool(table.synsets("car") & table.synsets("automobile"))  # doctest: +SKIP
    True
    """

    def __init__(self, arrays: dict[str, np.ndarray], source: Path | None = None):
        self.arrays = arrays
        self.source = source
        self.words = StringIndex(arrays, "word_")
        self.forms = StringIndex(arrays, "form_")
        self.syn_ptr, self.syn = arrays["syn_ptr"], arrays["syn"]
        self.form_syn_ptr, self.form_syn = arrays["form_syn_ptr"], arrays["form_syn"]
        self._lookup = lru_cache(maxsize=1 << 16)(self._compute)

    def __reduce__(self):
        if self.source is None:
            return SynonymTable, (self.arrays,)
        return load_synonyms, (str(self.source),)

    def own_synsets(self, word: str) -> np.ndarray:
        """The synsets listed for ``word`` itself (sorted; empty when it is not listed)."""
        i = self.words.find(word)
        return self.syn[self.syn_ptr[i]:self.syn_ptr[i + 1]] if i >= 0 else self.syn[:0]

    def base_form(self, word: str) -> str:
        """WordNet's regular base form of ``word`` as the jar finds it (``morph``): ``word`` itself when it ends
        in ``ss`` or has at most two UTF-16 code units, else the first rule's listed base form, else ``""``."""
        if word.endswith("ss") or _java_length(word) <= 2:
            return word
        tail = "ful" if word.endswith("ful") else ""  # the jar's unused "ful" ending: no rule fits such a word
        for suffix, ending in _RULES:
            if word.endswith(suffix):
                candidate = word[:len(word) - len(suffix)] + ending
                if self.words.find(candidate) >= 0:
                    return candidate + tail
        return ""

    def stem_synsets(self, word: str) -> np.ndarray:
        """The synsets of ``word``'s base forms: its irregular bases' when it is an irregular form, else those of
        :meth:`base_form` (sorted)."""
        i = self.forms.find(word)
        if i >= 0:
            return self.form_syn[self.form_syn_ptr[i]:self.form_syn_ptr[i + 1]]
        return self.own_synsets(self.base_form(word))

    def _compute(self, word: str) -> tuple[np.ndarray, frozenset[int]]:
        values = np.union1d(self.own_synsets(word), self.stem_synsets(word)).astype(np.int64)
        values.setflags(write=False)
        return values, frozenset(values.tolist())

    def synsets(self, word: str) -> frozenset[int]:
        """The synsets the synonym module gives ``word``: its own and its base forms' (cached per word)."""
        return self._lookup(word)[1]

    def synset_array(self, word: str) -> np.ndarray:
        """:meth:`synsets` as a sorted read-only ``int64`` array."""
        return self._lookup(word)[0]

    def synset_arrays(self, words: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(ptr, values)``: the synsets of ``words[k]`` are ``values[ptr[k]:ptr[k + 1]]`` (sorted; both
        ``int64``), one row per word, for kernels that take a text's words as numbers."""
        rows = [self.synset_array(w) for w in words]
        ptr = np.zeros(len(rows) + 1, np.int64)
        np.cumsum([len(r) for r in rows], out=ptr[1:])
        return ptr, np.concatenate(rows) if rows else np.zeros(0, np.int64)

    def are_synonyms(self, a: str, b: str) -> bool:
        """Whether the synonym module matches ``a`` with ``b``: words whose synsets intersect and whose Java
        ``String.hashCode`` differ (the jar tells words apart by that hash, so two different words with equal
        hashes never match)."""
        return java_hash(a) != java_hash(b) and not self.synsets(a).isdisjoint(self.synsets(b))


_loaded: dict[tuple, SynonymTable] = {}
_lock = threading.Lock()


def load_synonyms(jar: str | os.PathLike[str] | None = None) -> SynonymTable:
    """The synonym table of ``jar`` (default: pycocoevalcap's meteor-1.5.jar), built and cached on first use, then
    memory-mapped; one table per process and jar."""
    path = find_jar(jar)
    st = os.stat(path)
    key = (os.path.realpath(path), st.st_size, st.st_mtime_ns)
    with _lock:
        table = _loaded.get(key)
        if table is None:
            arrays = cached_arrays("synonyms", [path], lambda: build_synonym_arrays(
                jar_member(path, EXCEPTIONS), jar_member(path, SYNSETS)))
            table = _loaded[key] = SynonymTable(arrays, path)
    return table
