"""Which route scores a call: the compiled kernels or the small-batch route.

The two routes compute the same integer statistics, and scores from them with
the same operations, so they give the same numbers bit for bit (the tests
check it on the real corpora and at the switch):

``compiled``
    numba kernels: hundreds of times faster than the official tools per pair,
    but the first call in a fresh environment compiles them (tens of seconds
    to minutes; cached on disk afterwards, see :mod:`vecscore.cache_dir`) and
    every process pays numba's import and cache loading (~0.5 s).
``plain``
    :mod:`vecscore.plain`: Python and NumPy, no numba at all: the first score
    in a fresh environment comes in well under a second.

``auto`` (the default) takes the plain route when a call's texts hold at most
:data:`PLAIN_MAX_CHARS` characters (hypotheses and references together) and
the plain route implements the options asked for; the compiled route
otherwise.  ``VECSCORE_ROUTE=plain`` or ``=compiled`` forces one (``plain``
still falls back to the kernels for options it does not implement).
"""
from __future__ import annotations

import os

from vecscore.errors import VecscoreError

__all__ = ["ROUTES", "PLAIN_MAX_CHARS", "route", "use_plain", "text_chars"]

ROUTES = ("auto", "plain", "compiled")

#: texts (hypotheses and references) up to this many characters in one call go the plain
#: route under ``auto``: about 2,000-4,000 sentence pairs, where the plain route still
#: finishes before the compiled route has loaded numba and its cached kernels
#: (``benchmarks/cold_start.py`` measures both sides)
PLAIN_MAX_CHARS = 400_000


def route() -> str:
    """The route setting: ``VECSCORE_ROUTE`` (``auto`` when unset)."""
    value = os.environ.get("VECSCORE_ROUTE", "auto").strip().lower() or "auto"
    if value not in ROUTES:
        raise VecscoreError(f"VECSCORE_ROUTE must be one of {', '.join(ROUTES)}, not {value!r}")
    return value


def text_chars(*groups) -> int:
    """Characters in every ``str`` of the given sequences (other items count 16 each)."""
    total = 0
    for rows in groups:
        for x in rows:
            total += len(x) if isinstance(x, str) else 16
    return total


def use_plain(supported: bool, size) -> bool:
    """Whether this call takes the plain route.

    ``supported``: the plain route implements the call's options.  ``size``:
    the call's text characters, or a zero-argument callable giving them (only
    called under ``auto``).
    """
    if not supported:
        return False
    r = route()
    if r != "auto":
        return r == "plain"
    n = size() if callable(size) else size
    return n <= PLAIN_MAX_CHARS
