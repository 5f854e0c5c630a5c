"""Python's builtin ``sum()`` of floats, as compiled code.

From Python 3.12 on, ``sum()`` of floats carries a Neumaier compensation term and adds it at the end
(when it is nonzero and finite); before 3.12 it adds plainly.  sacreBLEU sums its BLEU log precisions
with ``sum()``, so a kernel that reproduces those scores bit for bit sums the same way for the Python
that runs it: :data:`NEUMAIER` says which.
"""
from __future__ import annotations

import math
import sys

from vecscore._jit import jit

__all__ = ["NEUMAIER", "sum_add", "sum_result"]

NEUMAIER = sys.version_info >= (3, 12)  # builtin sum() compensates from 3.12 on


@jit(inline=True)
def sum_add(s, c, x, neumaier):
    """One step of ``sum()``: the running sum ``s`` and compensation ``c`` after adding ``x`` (start from
    ``s = c = 0.0``: ``sum()`` takes its first float as is, which this step does from zero too)."""
    if not neumaier:
        return s + x, c
    t = s + x
    if abs(s) >= abs(x):
        c += (s - t) + x
    else:
        c += (x - t) + s
    return t, c


@jit(inline=True)
def sum_result(s, c, neumaier):
    """The value ``sum()`` returns from the running sum ``s`` and compensation ``c``."""
    if neumaier and c != 0.0 and math.isfinite(c):
        return s + c
    return s
