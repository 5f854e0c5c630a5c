"""Stopword lists shipped with vecscore.

``smart_stopwords()`` is the SMART list that ROUGE-1.5.5.pl removes with its
``-s`` option (``data/smart_common_words.txt`` of the ROUGE-1.5.5 release; its
notice is in ``vecscore/data/rouge155/NOTICE.txt``).  The script loads one
entry per line with ``chomp`` and tests each *unstemmed* token for exact,
case-sensitive membership, before stemming.  Entries such as ``can't`` can never
match a ROUGE-1.5.5 token (tokens are ``[a-z0-9]+``); they are kept so that the
set is the file, unchanged.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import resources

from vecscore.errors import VecscoreError

__all__ = ["smart_stopwords", "stopword_set", "stopwords_label"]

_DATA = "vecscore.data"


@lru_cache(maxsize=None)
def smart_stopwords() -> frozenset[str]:
    """The SMART stopword list used by ROUGE-1.5.5's ``-s`` option.

    Returns
    -------
    frozenset of str
        The 596 distinct entries of ``smart_common_words.txt`` (598 lines:
        ``may`` and ``would`` appear twice), exactly as the Perl
        script reads them (one per line, trailing newline removed).

    Examples
    --------
    >>> sw = smart_stopwords()
    >>> "the" in sw, "gunman" in sw, len(sw)
    (True, False, 596)
    """
    text = (resources.files(_DATA) / "rouge155" / "smart_common_words.txt").read_text("ascii")
    return frozenset(line for line in text.split("\n") if line)


def stopword_set(stopwords) -> frozenset[str] | None:
    """The ``stopwords`` argument of :func:`vecscore.rouge` and :func:`vecscore.rouge155` as a set, or ``None``.

    ``True`` is the SMART list (:func:`smart_stopwords`, ROUGE-1.5.5's ``-s``);
    a collection of ``str`` is those words; ``None``, ``False`` or an empty
    collection is no stopwords.
    """
    if stopwords is None or stopwords is False:
        return None
    if stopwords is True:
        return smart_stopwords()
    if isinstance(stopwords, (str, bytes)):
        raise VecscoreError(f"stopwords must be True (the SMART list), a collection of words or None, not the single "
                            f"string {stopwords!r}; wrap one word in a list: [{stopwords!r}]")
    try:
        words = frozenset(stopwords)
    except TypeError:
        raise VecscoreError(f"stopwords must be True (the SMART list), a collection of words or None, not "
                            f"{type(stopwords).__name__}") from None
    bad = next((w for w in words if not isinstance(w, str)), None)
    if bad is not None:
        raise VecscoreError(f"stopwords must be strings; found {bad!r} ({type(bad).__name__})")
    return words or None


def stopwords_label(stopwords) -> str:
    """The signature's ``stop:`` field: ``smart``, ``custom`` or ``no``."""
    words = stopword_set(stopwords)
    return "no" if words is None else ("smart" if stopwords is True else "custom")
