"""The Snowball English stemmer (Porter2) exactly as ``meteor-1.5.jar`` runs it for its stem module.

The jar carries an early Snowball ``english`` stemmer: the exception words of Porter2 (``skies`` -> ``sky``,
``dying`` -> ``die``, ``news``, ``inning``, ...) and only three prefixes with a fixed R1 (``gener``, ``commun``,
``arsen``).  It stems every word the aligner hands it, numbers and punctuation included, with Java's
semantics: case matters (only lowercase a-z take part; upper-case and non-ASCII letters are consonants), a
word shorter than three UTF-16 code units is left as it is, and positions count UTF-16 code units, so a
character outside the Basic Multilingual Plane counts as two consonants.
"""
from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["stem"]

_V = frozenset("aeiouy")
_V_WXY = frozenset("aeiouywxY")
_VALID_LI = frozenset("cdeghkmnrt")
_DOUBLES = ("bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt")
_R1_PREFIXES = ("gener", "commun", "arsen")

# whole words with a fixed stem (None: the word is its own stem), looked up before anything else
_EXCEPTION1: dict[str, str | None] = {
    "skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie", "idly": "idl",
    "gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli", "singly": "singl",
    "sky": None, "news": None, "howe": None, "atlas": None, "cosmos": None, "bias": None, "andes": None,
}
# whole words (after step 1a) that keep what step 1a left
_EXCEPTION2 = frozenset(("inning", "outing", "canning", "herring", "earring", "proceed", "exceed", "succeed"))

# step 2, 3 and 4: suffix -> replacement, "" deletes; a suffix is matched longest first
_STEP2 = {
    "tional": "tion", "enci": "ence", "anci": "ance", "abli": "able", "entli": "ent", "izer": "ize",
    "ization": "ize", "ational": "ate", "ation": "ate", "ator": "ate", "alism": "al", "aliti": "al",
    "alli": "al", "fulness": "ful", "ousli": "ous", "ousness": "ous", "iveness": "ive", "iviti": "ive",
    "biliti": "ble", "bli": "ble", "fulli": "ful", "lessli": "less",
    "ogi": "og",  # only after l
    "li": "",  # only after a valid li-ending
}
_STEP3 = {"tional": "tion", "ational": "ate", "alize": "al", "icate": "ic", "iciti": "ic", "ical": "ic",
          "ful": "", "ness": "", "ative": ""}  # ative: only in R2
_STEP4 = ("al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ism", "ate", "iti",
          "ous", "ive", "ize", "ion")  # ion: only after s or t


def _by_length(suffixes) -> tuple[str, ...]:
    return tuple(sorted(suffixes, key=len, reverse=True))


_STEP1B = ("eedly", "ingly", "edly", "eed", "ing", "ed")
_STEP2_ORDER = _by_length(_STEP2)
_STEP3_ORDER = _by_length(_STEP3)
_STEP4_ORDER = _by_length(_STEP4)
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _longest(word: str, suffixes: tuple[str, ...]) -> str | None:
    for suffix in suffixes:
        if word.endswith(suffix):
            return suffix
    return None


def _has_vowel(s: str) -> bool:
    return any(c in _V for c in s)


def _short_syllable(word: str, end: int) -> bool:
    """Porter2's short syllable ending at ``end``: consonant-vowel-consonant (last not w, x or Y), or
    vowel-consonant as the whole of ``word[:end]``."""
    if end >= 3:
        return word[end - 1] not in _V_WXY and word[end - 2] in _V and word[end - 3] not in _V
    return end == 2 and word[1] not in _V and word[0] in _V


def _regions(word: str) -> tuple[int, int]:
    """R1 and R2 as positions (the word's length where a region is empty)."""
    n = len(word)
    p1: int | None = None
    for prefix in _R1_PREFIXES:
        if word.startswith(prefix):
            p1 = len(prefix)
            break
    else:
        p1 = _past_vowel_consonant(word, 0)
    if p1 is None:
        return n, n
    p2 = _past_vowel_consonant(word, p1)
    return p1, n if p2 is None else p2


def _past_vowel_consonant(word: str, start: int) -> int | None:
    """The position after the first consonant that follows a vowel, from ``start`` on."""
    i = start
    n = len(word)
    while i < n and word[i] not in _V:
        i += 1
    if i >= n:
        return None
    i += 1
    while i < n and word[i] in _V:
        i += 1
    return i + 1 if i < n else None


def _step1a(w: str) -> str:
    if w.endswith("'s'"):
        w = w[:-3]
    elif w.endswith("'s"):
        w = w[:-2]
    elif w.endswith("'"):
        w = w[:-1]
    if w.endswith("sses"):
        return w[:-2]
    if w.endswith("ied") or w.endswith("ies"):
        return w[:-3] + ("i" if len(w) >= 5 else "ie")
    if w.endswith("us") or w.endswith("ss"):
        return w
    if w.endswith("s") and _has_vowel(w[:-2]):
        return w[:-1]
    return w


def _step1b(w: str, p1: int) -> str:
    suffix = _longest(w, _STEP1B)
    if suffix is None:
        return w
    start = len(w) - len(suffix)
    if suffix in ("eed", "eedly"):
        return w[:start] + "ee" if start >= p1 else w
    if not _has_vowel(w[:start]):
        return w
    w = w[:start]
    if w.endswith(("at", "bl", "iz")):
        return w + "e"
    if w.endswith(_DOUBLES):
        return w[:-1]
    if len(w) == p1 and _short_syllable(w, len(w)):
        return w + "e"
    return w


def _step1c(w: str) -> str:
    if len(w) >= 3 and w[-1] in "yY" and w[-2] not in _V:
        return w[:-1] + "i"
    return w


def _step2(w: str, p1: int) -> str:
    suffix = _longest(w, _STEP2_ORDER)
    if suffix is None:
        return w
    start = len(w) - len(suffix)
    if start < p1:
        return w
    if suffix == "ogi" and w[start - 1:start] != "l":
        return w
    if suffix == "li" and (start == 0 or w[start - 1] not in _VALID_LI):
        return w
    return w[:start] + _STEP2[suffix]


def _step3(w: str, p1: int, p2: int) -> str:
    suffix = _longest(w, _STEP3_ORDER)
    if suffix is None:
        return w
    start = len(w) - len(suffix)
    if start < p1 or (suffix == "ative" and start < p2):
        return w
    return w[:start] + _STEP3[suffix]


def _step4(w: str, p2: int) -> str:
    suffix = _longest(w, _STEP4_ORDER)
    if suffix is None:
        return w
    start = len(w) - len(suffix)
    if start < p2:
        return w
    if suffix == "ion" and (start == 0 or w[start - 1] not in "st"):
        return w
    return w[:start]


def _step5(w: str, p1: int, p2: int) -> str:
    start = len(w) - 1
    if w.endswith("e"):
        if start >= p2 or (start >= p1 and not _short_syllable(w, start)):
            return w[:start]
    elif w.endswith("l"):
        if start >= p2 and w[start - 1:start] == "l":
            return w[:start]
    return w


def _stem_units(word: str) -> str:
    """Stem a word given as UTF-16 code units (one Python character per unit)."""
    if word in _EXCEPTION1:
        fixed = _EXCEPTION1[word]
        return word if fixed is None else fixed
    if len(word) < 3:
        return word
    w = word[1:] if word[0] == "'" else word
    chars = list(w)
    y_found = False
    if chars and chars[0] == "y":
        chars[0] = "Y"
        y_found = True
    for i in range(len(chars) - 1):
        if chars[i] in _V and chars[i + 1] == "y":
            chars[i + 1] = "Y"
            y_found = True
    w = "".join(chars)
    p1, p2 = _regions(w)
    w = _step1a(w)
    if w not in _EXCEPTION2:
        w = _step1b(w, p1)
        w = _step1c(w)
        w = _step2(w, p1)
        w = _step3(w, p1, p2)
        w = _step4(w, p2)
        w = _step5(w, p1, p2)
    return w.replace("Y", "y") if y_found else w


@lru_cache(maxsize=1 << 20)
def stem(word: str) -> str:
    """The jar's Snowball English stem of ``word`` (case-sensitive: the aligner hands it lowercased words when
    the jar lowercases)."""
    if _ASTRAL.search(word) is None:
        return _stem_units(word)
    units = "".join(c if c <= "\uffff" else _surrogates(c) for c in word)
    return _stem_units(units).encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _surrogates(c: str) -> str:
    o = ord(c) - 0x10000
    return chr(0xD800 + (o >> 10)) + chr(0xDC00 + (o & 0x3FF))
