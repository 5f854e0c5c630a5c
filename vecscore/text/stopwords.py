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

__all__ = ["smart_stopwords"]

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
