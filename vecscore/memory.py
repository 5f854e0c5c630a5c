"""Keep freed memory for reuse between large calls (Linux/glibc).

Every call allocates and frees large arrays (token spans, ids, counts).  With
glibc's defaults, freed memory goes back to the operating system and the next
call pays for fresh page faults: on a 100,000-pair ROUGE batch that is about
40% of the wall time.  :func:`tune_memory` raises glibc's top pad
(``mallopt(M_TOP_PAD)``) so the heap keeps that memory mapped for the next
call.  Resident memory may stay up to the pad above what the process needs.

The ``vecscore`` command calls it at start-up.  In Python it is opt-in,
because it changes an allocator setting of the whole process:

>>> import vecscore
>>> vecscore.tune_memory()        # doctest: +SKIP
True

``VECSCORE_NO_MALLOC_TUNING=1`` turns it off; ``VECSCORE_MALLOC_TOP_PAD``
sets the pad in bytes (default 512 MiB).
"""
from __future__ import annotations

import os
import sys

__all__ = ["tune_memory", "DEFAULT_TOP_PAD"]

DEFAULT_TOP_PAD = 512 << 20
_M_TOP_PAD = -2  # glibc's mallopt parameter number


def tune_memory(top_pad: int | None = None) -> bool:
    """Raise glibc's top pad to ``top_pad`` bytes; return whether it was applied.

    A no-op (``False``) off Linux, without glibc, or when the environment sets
    ``VECSCORE_NO_MALLOC_TUNING=1``.
    """
    if not sys.platform.startswith("linux") or os.environ.get("VECSCORE_NO_MALLOC_TUNING") == "1":
        return False
    if top_pad is None:
        top_pad = int(os.environ.get("VECSCORE_MALLOC_TOP_PAD", DEFAULT_TOP_PAD))
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.mallopt(_M_TOP_PAD, int(top_pad)))
    except (OSError, AttributeError, ValueError):  # not glibc: nothing to tune
        return False
