"""One place that decides how numba kernels are compiled, cached and loaded.

Kernels are plain Python functions decorated with :func:`jit`.  Decorating
costs nothing: numba is not imported until the first kernel is *called*
(:func:`activate`), so ``import vecscore`` and the small-batch route
(the ``plain`` module of each metric) never pay for numba's import or compilation.  On
activation every kernel becomes a numba dispatcher, compiled lazily on its
first call and cached on disk in the folder :mod:`vecscore.cache_dir` picks
(the package's own folder, else a per-user cache, else a temporary folder).
Setting ``NUMBA_DISABLE_JIT=1`` runs every kernel as plain Python, which the
test-suite uses for coverage of the kernel bodies.

Kernels written inside this package use ``prange`` from this module; until
activation it is ``range``, and activation rebinds it to ``numba.prange`` in
every module of the package (numba recognises a parallel loop by that object).
"""
from __future__ import annotations

import os
import sys
import threading
import types

from vecscore import cache_dir

# numba's OpenMP threads otherwise spin while waiting between parallel
# regions, which on a busy machine (other processes on the same cores) slows
# small kernels down by orders of magnitude.  Must be set before the OpenMP
# runtime starts; a value the user set is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

__all__ = ["jit", "prange", "activate", "is_active", "loaded_or_plain", "Kernel", "kernels", "serial_twin",
           "SERIAL_MAX"]


def _range(*args):
    """``range`` until numba is active; then every module's ``prange`` is ``numba.prange``."""
    return range(*args)


prange = _range


_lock = threading.RLock()
_registry: list[Kernel] = []
_numba = None


class Kernel:
    """A kernel that becomes a numba dispatcher on its first call.

    ``py_func`` is the plain Python function (numba's name for it); every other
    attribute (``signatures``, ``inspect_llvm``, ...) is the dispatcher's.
    """

    def __init__(self, fn, parallel: bool, inline: bool):
        self.py_func = fn
        self.parallel = parallel
        self.inline = inline
        self._dispatcher = None
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.__wrapped__ = fn

    @property
    def dispatcher(self):
        if self._dispatcher is None:
            activate()
        return self._dispatcher

    def __call__(self, *args, **kwargs):
        return self.dispatcher(*args, **kwargs)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.dispatcher, name)

    def __repr__(self) -> str:
        state = "compiled on demand" if self._dispatcher is not None else "not yet loaded"
        return f"<vecscore kernel {self.__module__}.{self.__qualname__} ({state})>"


def _njit(fn, parallel: bool, inline: bool):
    import numba

    return numba.njit(cache=cache_dir.enabled(), nogil=True, parallel=parallel,
                       inline="always" if inline else "never")(fn)


def jit(fn=None, *, parallel: bool = False, inline: bool = False):
    """Decorate ``fn`` as a lazily compiled, disk-cached numba kernel.

    ``inline``: numba inlines the function's body into its callers (for small
    helpers on hot paths that LLVM would otherwise leave as calls).
    """

    def wrap(f):
        with _lock:
            if _numba is not None:
                return _njit(f, parallel, inline)
            k = Kernel(f, parallel, inline)
            _registry.append(k)
            return k

    return wrap if fn is None else wrap(fn)


#: the most items a call of a parallel kernel's :func:`serial_twin` takes instead: waking the threads
#: costs about 0.1 ms a call (they wait passively), more than a few thousand cheap items take on one
SERIAL_MAX = 4096


def serial_twin(kernel):
    """The same kernel compiled for one thread (its ``prange`` runs as ``range``), for calls too small to
    pay for waking the threads.  Its own name (``<name>_serial``) keeps it apart in numba's cache."""
    fn = getattr(kernel, "py_func", kernel)  # a Kernel, a dispatcher, or (numba disabled) the function
    twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + "_serial", fn.__defaults__,
                              fn.__closure__)
    twin.__qualname__ = fn.__qualname__ + "_serial"
    twin.__module__ = fn.__module__
    twin.__doc__ = f"{fn.__qualname__} on one thread ({__name__}.serial_twin)."
    return jit(twin)


def is_active() -> bool:
    """Whether numba has been imported and the kernels turned into dispatchers."""
    return _numba is not None


def loaded_or_plain(kernel):
    """``kernel`` itself once numba is loaded, else its plain Python function.

    For the small helpers that both routes share (e.g. per-pair reductions):
    a call on the small-batch route then never loads numba, and a call after
    the compiled route has run uses the compiled kernel.
    """
    return kernel if _numba is not None else kernel.py_func


def kernels() -> list:
    """Every kernel of the package's imported modules (``Kernel`` or dispatcher), for ``vecscore warmup``."""
    return list(_registry)


def activate() -> None:
    """Import numba (with the cache folder chosen) and turn every kernel into a dispatcher.

    Kernels reach each other through module globals, so each module of the
    package that holds a :class:`Kernel` (or this module's ``prange``) gets the
    dispatcher (or ``numba.prange``) in its place.  Idempotent and thread-safe.
    """
    global _numba
    if _numba is not None:
        return
    with _lock:
        if _numba is not None:
            return
        cache_dir.configure()
        import numba

        for k in _registry:
            k._dispatcher = _njit(k.py_func, k.parallel, k.inline)
        for name, mod in list(sys.modules.items()):
            if mod is None or not (name == "vecscore" or name.startswith("vecscore.")):
                continue
            space = vars(mod)
            for key, value in list(space.items()):
                if isinstance(value, Kernel):
                    space[key] = value._dispatcher
                elif value is _range and key != "_range":
                    space[key] = numba.prange
        _numba = numba
