"""One place that decides how numba kernels are compiled.

Kernels are plain Python functions decorated with :func:`jit`.  They compile
lazily on first call and are cached on disk (``cache=True``), so importing
vecscore stays cheap.  Setting ``NUMBA_DISABLE_JIT=1`` runs every kernel as
plain Python, which the test-suite uses for coverage of the kernel bodies.
"""
from __future__ import annotations

import os

# numba's OpenMP threads otherwise spin while waiting between parallel
# regions, which on a busy machine (other processes on the same cores) slows
# small kernels down by orders of magnitude.  Must be set before the OpenMP
# runtime starts; a value the user set is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from numba import njit, prange  # noqa: E402, F401  (prange re-exported for kernels)

__all__ = ["jit", "prange"]


def jit(fn=None, *, parallel: bool = False, inline: bool = False):
    """Decorate ``fn`` as a lazily compiled, disk-cached numba kernel.

    ``inline``: numba inlines the function's body into its callers (for small
    helpers on hot paths that LLVM would otherwise leave as calls).
    """

    def wrap(f):
        return njit(cache=True, nogil=True, parallel=parallel, inline="always" if inline else "never")(f)

    return wrap if fn is None else wrap(fn)
