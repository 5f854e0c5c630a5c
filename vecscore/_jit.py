"""One place that decides how numba kernels are compiled.

Kernels are plain Python functions decorated with :func:`jit`.  They compile
lazily on first call and are cached on disk (``cache=True``), so importing
vecscore stays cheap.  Setting ``NUMBA_DISABLE_JIT=1`` runs every kernel as
plain Python, which the test-suite uses for coverage of the kernel bodies.
"""
from __future__ import annotations

from numba import njit, prange  # noqa: F401  (prange re-exported for kernels)

__all__ = ["jit", "prange"]


def jit(fn=None, *, parallel: bool = False):
    """Decorate ``fn`` as a lazily compiled, disk-cached numba kernel."""

    def wrap(f):
        return njit(cache=True, nogil=True, parallel=parallel)(f)

    return wrap if fn is None else wrap(fn)
