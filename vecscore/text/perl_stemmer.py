"""The stemmer of ROUGE-1.5.5.pl's ``-m`` option, in pure Python.

ROUGE-1.5.5 stems a token only when it is longer than 3 characters
(``createNGram``, ``tokenizeText``, ``tokenizeText_LCS``), with ``MorphStem``:

1. look the token up in the WordNet 2.0 exception database
   (``WordNet-2.0.exc.db``); if present, return the lemma **as is**: the lemma
   is *not* Porter-stemmed (so ``mice -> mouse`` but ``mouse -> mous``);
2. otherwise run the script's own Perl Porter stemmer (Martin Porter's
   "Release 1" Perl implementation, with Chin-Yew Lin's 2004 change to step 4:
   a word ending in ``-ement`` is tried against the suffix lists again).

:func:`stem` reproduces both, including the ``len > 3`` guard, and caches its
results: it is meant to be applied once per unique vocabulary token.  It
expects ROUGE-1.5.5 tokens (``[a-z0-9]+``); the Porter rules below are written
as the same regular expressions as the Perl code, so any string gives the
script's answer.

The exception table
-------------------
The database is a hash built by ``buildExeptionDB.pl`` from the four WordNet
files ``noun.exc``, ``verb.exc``, ``adj.exc``, ``adv.exc``: key = first field,
value = second field (the *first* lemma, e.g. ``comics -> comic_strip``), a later
line overwriting an earlier one.  The script reads the files in directory
order, which the file system decides, so the keys that occur in several files
depend on the machine that built the database.  Among keys that can be stemmed
(longer than 3 characters) these are ``best`` (adj ``good`` / adv ``well``),
``better`` (adj ``good`` / adv ``well``) and ``testes`` (noun ``testis`` / verb
``testes``).  vecscore reads them in alphabetical order, adj, adv, noun, verb
(later wins): ``best -> well``, ``better -> well``, ``testes -> testes``.  This
is the order of the database used for published scores: REALSumm's ROUGE-1.5.5
numbers (pyrouge, ``-m``) for CNN/DM document 44 (systems
``ptr_generator_out_pointer_gen_cov`` and ``refresh_out``, whose summaries say
"good" where the reference says "best") are reproduced only with
``best -> well``.  A database built with ``buildExeptionDB.pl`` on another
machine may differ (e.g. ``better -> good`` in anchors.md 4.7).  The test
oracle (``tests/oracles/perl_rouge.py``) builds its database in this order.
"""
from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

__all__ = ["stem", "porter_stem", "wordnet_exceptions", "EXCEPTION_FILE_ORDER"]

_DATA = "vecscore.data"
#: The order in which the WordNet exception files are read (a later entry wins).
EXCEPTION_FILE_ORDER = ("adj.exc", "adv.exc", "noun.exc", "verb.exc")


@lru_cache(maxsize=None)
def wordnet_exceptions() -> dict[str, str]:
    """The WordNet 2.0 exception table as ROUGE-1.5.5's database holds it.

    Returns
    -------
    dict of str to str
        Inflected form -> first lemma, 5,930 entries, built from the shipped
        ``adj.exc``, ``adv.exc``, ``noun.exc``, ``verb.exc`` in that order
        (a later line overwrites an earlier one, as ``buildExeptionDB.pl``
        does).  The returned dict is shared: do not modify it.

    Examples
    --------
    >>> exc = wordnet_exceptions()
    >>> exc["mice"], exc["went"], exc["better"], len(exc)
    ('mouse', 'go', 'well', 5930)
    """
    root = resources.files(_DATA) / "rouge155" / "WordNet-2.0-Exceptions"
    table: dict[str, str] = {}
    for name in EXCEPTION_FILE_ORDER:
        for line in (root / name).read_text("ascii").split("\n"):
            fields = line.split()  # Perl: split(/\s+/, $line) after chomp
            if fields:
                table[fields[0]] = fields[1] if len(fields) > 1 else ""
    return table


# --- the Perl Porter stemmer, rule for rule ----------------------------------
# Character classes exactly as in the Perl code's ``initialise``.
_c = "[^aeiou]"  # consonant
_v = "[aeiouy]"  # vowel
_C = _c + "[^aeiouy]*"  # consonant sequence
_V = _v + "[aeiou]*"  # vowel sequence
_MGR0 = re.compile(f"^({_C})?{_V}{_C}")  # [C]VC... is m>0
_MEQ1 = re.compile(f"^({_C})?{_V}{_C}({_V})?$")  # [C]VC[V] is m=1
_MGR1 = re.compile(f"^({_C})?{_V}{_C}{_V}{_C}")  # [C]VCVC... is m>1
_HAS_V = re.compile(f"^({_C})?{_v}")  # vowel in stem
_CVC = re.compile(f"^{_C}{_v}[^aeiouwxy]$")

_STEP1A_1 = re.compile("(ss|i)es$")
_STEP1A_2 = re.compile("([^s])s$")
_EED = re.compile("eed$")
_ED_ING = re.compile("(ed|ing)$")
_AT_BL_IZ = re.compile("(at|bl|iz)$")
_DOUBLE = re.compile(r"([^aeiouylsz])\1$")
_Y = re.compile("y$")
_STEP2 = re.compile(
    "(ational|tional|enci|anci|izer|bli|alli|entli|eli|ousli|ization|ation|ator|alism"
    "|iveness|fulness|ousness|aliti|iviti|biliti|logi)$"
)
_STEP2_MAP = {
    "ational": "ate", "tional": "tion", "enci": "ence", "anci": "ance", "izer": "ize",
    "bli": "ble", "alli": "al", "entli": "ent", "eli": "e", "ousli": "ous",
    "ization": "ize", "ation": "ate", "ator": "ate", "alism": "al", "iveness": "ive",
    "fulness": "ful", "ousness": "ous", "aliti": "al", "iviti": "ive", "biliti": "ble",
    "logi": "log",
}  # fmt: skip
_STEP3 = re.compile("(icate|ative|alize|iciti|ical|ful|ness)$")
_STEP3_MAP = {"icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic", "ful": "", "ness": ""}
_STEP4 = re.compile("(al|ance|ence|er|ic|able|ible|ant|ement|ou|ism|ate|iti|ous|ive|ize)$")
_MENT = re.compile("ment$")
_ENT = re.compile("ent$")
_SION = re.compile("(s|t)(ion)$")
_E = re.compile("e$")
_LL = re.compile("ll$")


def porter_stem(w: str) -> str:
    """ROUGE-1.5.5's own Porter stemmer (the Perl ``stem`` sub), uncached.

    Parameters
    ----------
    w : str
        A lowercase token.

    Returns
    -------
    str
        The stem.  Words shorter than 3 characters are returned unchanged.

    Notes
    -----
    Each step is the Perl regular expression, searched with the same
    leftmost semantics (``$``` of Perl is ``w[:m.start()]`` here).  The one
    departure from Porter (1980) is step 4, changed in the script on
    2004-02-14: the ``-ement``/``-ment``/``-ent`` rules are three separate
    tests, so a word can lose more than one suffix there.

    Examples
    --------
    >>> porter_stem("mouse"), porter_stem("dying"), porter_stem("generalizations")
    ('mous', 'dy', 'gener')
    """
    if len(w) < 3:
        return w
    firstch = w[0]
    if firstch == "y":  # initial y is a consonant: hide it from the vowel class
        w = "Y" + w[1:]

    # Step 1a
    m = _STEP1A_1.search(w)
    if m:
        w = w[: m.start()] + m.group(1)
    else:
        m = _STEP1A_2.search(w)
        if m:
            w = w[: m.start()] + m.group(1)
    # Step 1b
    m = _EED.search(w)
    if m:
        if _MGR0.search(w[: m.start()]):
            w = w[:-1]
    else:
        m = _ED_ING.search(w)
        if m:
            stem = w[: m.start()]
            if _HAS_V.search(stem):
                w = stem
                if _AT_BL_IZ.search(w):
                    w += "e"
                elif _DOUBLE.search(w):
                    w = w[:-1]
                elif _CVC.search(w):
                    w += "e"
    # Step 1c
    m = _Y.search(w)
    if m:
        stem = w[: m.start()]
        if _HAS_V.search(stem):
            w = stem + "i"
    # Step 2
    m = _STEP2.search(w)
    if m:
        stem = w[: m.start()]
        if _MGR0.search(stem):
            w = stem + _STEP2_MAP[m.group(1)]
    # Step 3
    m = _STEP3.search(w)
    if m:
        stem = w[: m.start()]
        if _MGR0.search(stem):
            w = stem + _STEP3_MAP[m.group(1)]
    # Step 4 (three separate tests since the script's 2004-02-14 change)
    m = _STEP4.search(w)
    if m:
        stem = w[: m.start()]
        if _MGR1.search(stem):
            w = stem
    m = _MENT.search(w)
    if m:
        stem = w[: m.start()]
        if _MGR1.search(stem):
            w = stem
    m = _ENT.search(w)
    if m:
        stem = w[: m.start()]
        if _MGR1.search(stem):
            w = stem
    else:
        m = _SION.search(w)
        if m:
            stem = w[: m.start()] + m.group(1)
            if _MGR1.search(stem):
                w = stem
    # Step 5
    m = _E.search(w)
    if m:
        stem = w[: m.start()]
        if _MGR1.search(stem) or (_MEQ1.search(stem) and not _CVC.search(stem)):
            w = stem
    if _LL.search(w) and _MGR1.search(w):
        w = w[:-1]

    if firstch == "y":
        w = "y" + w[1:]
    return w


_CACHE: dict[str, str] = {}


def stem(word: str) -> str:
    """Stem one token as ROUGE-1.5.5's ``-m`` option does.

    Parameters
    ----------
    word : str
        A ROUGE-1.5.5 token (lowercase ASCII letters and digits), after
        stopword removal.

    Returns
    -------
    str
        ``word`` itself if it has at most 3 characters; else its WordNet 2.0
        exception lemma if it has one (not stemmed further); else its Perl
        Porter stem.  Results are cached.

    Examples
    --------
    >>> [stem(w) for w in ("went", "mice", "mouse", "dying", "news", "cats", "the")]
    ['go', 'mouse', 'mous', 'die', 'new', 'cat', 'the']
    """
    out = _CACHE.get(word)
    if out is None:
        if len(word) <= 3:
            out = word
        else:
            # MorphStem lowercases (ASCII) before the lookup; tokens already are.
            key = word.translate(_ASCII_LOWER)
            lemma = wordnet_exceptions().get(key)
            out = lemma if lemma is not None else porter_stem(key)
        _CACHE[word] = out
    return out


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
