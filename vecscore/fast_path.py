"""The switch for vecscore's low-level fast path: ``VECSCORE_FAST_PATH``.

The compiled kernels read text in two ways that depend on details below Python:

* the **in-place string reader** (:mod:`vecscore.kernels.in_place`) reads the
  characters of CPython ``str`` objects where they lie, from offsets it probes
  once per process;
* **hand-written LLVM IR helpers** (:mod:`vecscore.kernels.swar`): 64-byte
  vector loads and compares, unaligned word loads, prefetch hints and an
  atomic counter that hands out work to threads.

Both are checked (the reader probes and falls back; the tests compare every
helper with a plain twin), but if a new Python, numba or LLVM ever disagrees
with them, ``VECSCORE_FAST_PATH=0`` (or ``off``/``false``/``no``) turns both
off for the process: texts are encoded into NumPy buffers first, and every IR
helper is replaced by its twin written as an ordinary numba loop (the work
counter by a fixed split of chunks between threads).  The numbers are the
same bit for bit; the per-pair kernels are slower.  Kernels compiled with the
switch off are cached in a folder of their own (:mod:`vecscore.cache_dir`), so
the two builds never mix.  Read once, when the kernels are first loaded.
"""
from __future__ import annotations

import os

__all__ = ["enabled", "ENV"]

#: the environment variable
ENV = "VECSCORE_FAST_PATH"
_OFF = ("0", "off", "false", "no")


def enabled() -> bool:
    """Whether the in-place reader and the IR helpers are on (``VECSCORE_FAST_PATH`` unset or not off)."""
    return os.environ.get(ENV, "1").strip().lower() not in _OFF
