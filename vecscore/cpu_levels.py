"""The CPU levels that built kernel modules are compiled for, and which of them this CPU can run.

A built module (:mod:`vecscore.built`) holds machine code for one named level of its architecture, never for
one CPU model, so that a module built on one machine runs on every machine of that level (a Docker image, a
cluster).  On x86-64 the levels are the psABI's (``x86-64``, ``x86-64-v2``, ``x86-64-v3``, ``x86-64-v4``), the
names LLVM takes as CPU names; a level is runnable where the CPU reports every flag the level requires (read
from ``/proc/cpuinfo``, without importing numba or LLVM), so a module is never loaded on a CPU that lacks its
instructions.  Other architectures have one level, ``generic``.  ``VECSCORE_CPU_LEVEL`` names the level to
build for and to load (for an image built on a newer CPU than the cluster's).
"""
from __future__ import annotations

import os
import platform

__all__ = ["LEVELS", "ENV", "runnable", "best", "arch"]

#: the setting that names the level to build and load
ENV = "VECSCORE_CPU_LEVEL"

_V2 = {"cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3"}
_V3 = _V2 | {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"}
_V4 = _V3 | {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}

#: per architecture, its levels from the most capable down, each with the ``/proc/cpuinfo`` flags it requires
LEVELS: dict[str, dict[str, frozenset]] = {
    "x86_64": {"x86-64-v4": frozenset(_V4), "x86-64-v3": frozenset(_V3), "x86-64-v2": frozenset(_V2),
               "x86-64": frozenset()},
}


def arch() -> str:
    """The machine's architecture as ``platform.machine()`` names it (``amd64`` counted as ``x86_64``)."""
    m = platform.machine().lower()
    return "x86_64" if m in ("x86_64", "amd64") else m


def _cpu_flags() -> frozenset | None:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return None


def runnable() -> list[str]:
    """The levels this CPU can run, most capable first (``["generic"]`` off x86-64; only ``x86-64`` where the
    flags cannot be read)."""
    levels = LEVELS.get(arch())
    if levels is None:
        return ["generic"]
    flags = _cpu_flags()
    if flags is None:
        return [name for name, need in levels.items() if not need]
    return [name for name, need in levels.items() if need <= flags]


def best() -> str:
    """The level to build for: ``VECSCORE_CPU_LEVEL`` if set (it must be one of :data:`LEVELS`' names or
    ``generic``), else the most capable level this CPU runs."""
    named = os.environ.get(ENV, "").strip()
    if named:
        return named
    return runnable()[0]
