"""One place that decides how numba kernels are compiled, cached and loaded.

Kernels are plain Python functions decorated with :func:`jit`.  Decorating
costs nothing: numba is not imported until the first kernel is *called*
(:func:`activate`), so ``import vecscore`` and the small-batch route
(the ``plain`` module of each metric) never pay for numba's import or compilation.  On
activation every kernel becomes a numba dispatcher, compiled lazily on its
first call and cached on disk in the folder :mod:`vecscore.cache_dir` picks
(the package's own folder, else a per-user cache, else a temporary folder),
in sub-folders named by the package (``vecscore.kernels``), not by the
install's absolute path, so that a cache folder can be copied to another
install (:func:`vecscore.cache_dir.function_cache`).
Setting ``NUMBA_DISABLE_JIT=1`` runs every kernel as plain Python, which the
test-suite uses for coverage of the kernel bodies.

Kernels written inside this package use ``prange`` from this module; until
activation it is ``range``, and activation rebinds it to ``numba.prange`` in
every module of the package (numba recognises a parallel loop by that object).

Activation also settles how the kernels run under threads and processes
(docs/guarantees.md, "Threads and processes"):

* the threading layer: unless the user chose one (``NUMBA_THREADING_LAYER``),
  numba's ``tbb`` when it is installed, else its ``workqueue``, and GNU OpenMP
  only when neither loads: OpenMP kills any child forked after a parallel
  region has run (``multiprocessing``'s default on Linux, data loaders);
* one guard for every kernel call from Python (:class:`_Guarded`): on a layer
  that cannot take parallel regions from several threads at once
  (``workqueue``), calls from several Python threads take turns;
* the worker threads are started at activation, after checking that they can
  be created (a memory or process limit is a :class:`VecscoreError` naming
  the fix, not a hang inside the layer);
* a cache file that cannot be read (truncated, emptied) is compiled again,
  with one warning, instead of raising in every later process.
"""
from __future__ import annotations

import os
import sys
import threading
import types
from contextlib import contextmanager

from vecscore import built, cache_dir
from vecscore.errors import VecscoreError, warn

# numba's OpenMP threads otherwise spin while waiting between parallel
# regions, which on a busy machine (other processes on the same cores) slows
# small kernels down by orders of magnitude.  Must be set before the OpenMP
# runtime starts; a value the user set is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

__all__ = ["jit", "prange", "activate", "is_active", "loaded_or_plain", "Kernel", "kernels", "serial_twin",
           "SERIAL_MAX", "threading_layer", "LAYER_PREFERENCE", "DISABLED", "ir_helper", "Lazy"]


#: whether numba runs every kernel as plain Python (``NUMBA_DISABLE_JIT=1``), known without importing numba
DISABLED = cache_dir.jit_disabled()


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
        self.twin_of: Kernel | None = None  # the serial twin of a parallel kernel, and the reverse
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
        if _recorder is not None:
            return _recorded_call(self, args, kwargs)
        if self._dispatcher is None:
            if kwargs:  # a built function takes its arguments by position
                args, kwargs = self.positional(args, kwargs), {}
            fn = built.entry(self, args)  # the built module's function for these argument types, if any
            if fn is not None:
                return fn(*args)
        return self.dispatcher(*args, **kwargs)

    def positional(self, args: tuple, kwargs: dict) -> tuple:
        """``args`` and ``kwargs`` as the positional arguments of the same call (defaults filled in, so that every
        argument after a keyword one has its position)."""
        import inspect

        bound = inspect.signature(self.py_func).bind(*args, **kwargs)
        bound.apply_defaults()
        return bound.args

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.dispatcher, name)

    def __repr__(self) -> str:
        state = "compiled on demand" if self._dispatcher is not None else "not yet loaded"
        return f"<vecscore kernel {self.__module__}.{self.__qualname__} ({state})>"


def _njit(fn, parallel: bool, inline: bool):
    import numba

    # a bounds-checked build (a testing build) calls its helpers instead of inlining them: the same code, compiled
    # in about a third of the time and memory (sentence BLEU's kernel: ~60 s instead of ~170 s), slower to run
    inline = inline and not cache_dir.bounds_checked()
    disp = numba.njit(nogil=True, parallel=parallel, inline="always" if inline else "never")(fn)
    if not isinstance(disp, _dispatcher_class()):  # NUMBA_DISABLE_JIT: the plain function
        return disp
    disp.__class__ = _Guarded
    if cache_dir.enabled():  # numba's cache=True, in a folder named by the package (the cache can be copied)
        disp._cache = cache_dir.function_cache(fn)
    cache = getattr(disp, "_cache", None)
    if cache is not None and hasattr(cache, "_cache_file"):
        cache.load_overload = _cache_loader(cache, cache.load_overload, fn)
    return disp


def _dispatcher_class():
    from numba.core.registry import CPUDispatcher

    return CPUDispatcher


def _cache_loader(cache, load, fn):
    """``cache.load_overload`` that treats an unreadable cache file as missing: the kernel compiles again
    and numba's save replaces the file (one warning per process)."""

    def load_overload(sig, target_context):
        try:
            return load(sig, target_context)
        except Exception as exc:  # a truncated, emptied or foreign file: pickle, EOF, LLVM errors
            if _out_of_resources(exc):  # the file is fine; this process cannot load it (a memory limit)
                raise
            files = cache._cache_file
            for path in (files._index_path,):
                try:
                    os.unlink(path)
                except OSError:
                    pass
            if not _warned_cache:
                _warned_cache.append(True)
                warn(f"vecscore: a damaged kernel cache file ({files._index_path}: {type(exc).__name__}) was "
                     f"removed; {fn.__qualname__} and any other damaged kernel compile again", RuntimeWarning)
            return None

    return load_overload


_warned_cache: list[bool] = []


def _out_of_resources(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) says the process ran out of memory or address space, rather than
    that a file is damaged: a library that cannot be mapped under ``ulimit -v`` while unpickling a kernel."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, MemoryError):
            return True
        text = str(exc).lower()
        if "failed to map segment" in text or "cannot allocate memory" in text:
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


class _CallGuard:
    """Whether kernel calls from several Python threads must take turns (``lock`` is ``None`` when not)."""

    lock: threading.RLock | None = None


_guard = _CallGuard()


def _new_guard_lock() -> None:
    """After a fork: the child's guard lock is a new one (a lock held by a parent thread would never be
    released in the child)."""
    if _guard.lock is not None:
        _guard.lock = threading.RLock()


def _guarded_call(disp, *args, **kwargs):
    lock = _guard.lock
    if lock is None:
        return _dispatch(disp, *args, **kwargs)
    with lock:
        return _dispatch(disp, *args, **kwargs)


# ``_Guarded`` (the dispatcher class) and ``_dispatch`` (numba's own call of a dispatcher) are made at
# activation: numba is not imported before.


def _make_guarded() -> None:
    global _Guarded, _dispatch
    CPUDispatcher = _dispatcher_class()

    class _Guarded(CPUDispatcher):  # type: ignore[no-redef,valid-type,misc]
        """numba's dispatcher, entered through the process's one call guard (:data:`_guard`)."""

        __call__ = _guarded_call

    _Guarded.__module__ = __name__
    _dispatch = CPUDispatcher.__call__


def __getattr__(name):
    """``_Guarded`` for pickle in a process that has not activated yet (a kernel sent to a worker)."""
    if name == "_Guarded":
        activate()
        return globals()["_Guarded"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Lazy:
    """A module global that stands for ``<module>.<name>`` of a module that imports numba (the IR helpers of
    :mod:`vecscore.kernels.ir_helpers`, ``numba.carray``): :func:`activate` puts the real object in its place,
    so that importing a kernel module never imports numba."""

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def resolve(self):
        import importlib

        return getattr(importlib.import_module(self.module), self.name)

    def __call__(self, *args, **kwargs):  # only before activation, from plain Python: never in a kernel
        activate()
        return self.resolve()(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<vecscore lazy {self.module}.{self.name}>"


def ir_helper(name: str, module: str = "vecscore.kernels.ir_helpers"):
    """``module.name`` once numba is loaded; until then a :class:`Lazy` that activation replaces."""
    if _numba is not None:
        return Lazy(module, name).resolve()
    return Lazy(module, name)


def jit(fn=None, *, parallel: bool = False, inline: bool = False):
    """Decorate ``fn`` as a lazily compiled, disk-cached numba kernel.

    ``inline``: numba inlines the function's body into its callers (for small
    helpers on hot paths that LLVM would otherwise leave as calls).
    """

    def wrap(f):
        with _lock:
            if _numba is not None and _recorder is None:
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
    made = jit(twin)
    if isinstance(made, Kernel) and isinstance(kernel, Kernel):  # one body: a build exports both for one call
        made.twin_of, kernel.twin_of = kernel, made
    return made


def is_active() -> bool:
    """Whether numba has been imported and the kernels turned into dispatchers."""
    return _numba is not None


def loaded_or_plain(kernel):
    """``kernel`` itself once numba is loaded, else its built function where a built module has one for the
    call's argument types (:mod:`vecscore.built`), else its plain Python function.

    For the small helpers that both routes share (e.g. per-pair reductions):
    a call on the small-batch route then never loads numba, and a call after
    the compiled route has run uses the compiled kernel.
    """
    if _numba is not None:
        return kernel

    def call(*args):
        fn = built.entry(kernel, args)
        return (kernel.py_func if fn is None else fn)(*args)

    return call


_recorder = None
_depth = threading.local()


def _recorded_call(kernel, args, kwargs):
    """A call while :func:`recording`: the call from Python (not from another kernel) is reported, then the
    kernel runs as plain Python."""
    depth = getattr(_depth, "n", 0)
    if depth == 0 and _recorder is not None:
        _recorder(kernel, kernel.positional(args, kwargs) if kwargs else args)
    _depth.n = depth + 1
    try:
        return kernel.py_func(*args, **kwargs)
    finally:
        _depth.n = depth


@contextmanager
def recording(callback):
    """Within the block, every call of a kernel from Python is reported as ``callback(kernel, args)`` and the
    kernel runs as plain Python (for :mod:`vecscore.aot_build`, in a process with ``NUMBA_DISABLE_JIT=1``, so
    that nothing is compiled)."""
    global _recorder
    if not DISABLED:
        raise RuntimeError("recording kernel calls needs NUMBA_DISABLE_JIT=1")
    _recorder = callback
    try:
        activate()
        yield
    finally:
        _recorder = None


def kernels() -> list:
    """Every kernel of the package's imported modules (``Kernel`` or dispatcher), for ``vecscore warmup``."""
    return list(_registry)


#: numba's threading layers in vecscore's order of preference when the user chose none: ``tbb`` (fork-safe
#: and concurrent), ``workqueue`` (fork-safe; calls from several threads take turns), GNU OpenMP last (a child
#: forked after it ran is killed)
LAYER_PREFERENCE = ["tbb", "workqueue", "omp"]
#: the layers that accept parallel regions from several Python threads at once
CONCURRENT_LAYERS = ("tbb", "omp")


def _user_chose_layer(numba) -> bool:
    return bool(os.environ.get("NUMBA_THREADING_LAYER")) or str(numba.config.THREADING_LAYER).lower() != "default"


def _check_threads_can_start(count: int) -> None:
    """Start and stop ``count`` threads as the layer is about to: a limit that forbids them is an error here,
    where the layers themselves would hang (``workqueue``) or exit the process (GNU OpenMP)."""
    release = threading.Event()
    started = []
    try:
        for _ in range(count):
            t = threading.Thread(target=release.wait, daemon=True)
            t.start()
            started.append(t)
    except RuntimeError as exc:
        raise VecscoreError(
            f"vecscore could not start {count} worker threads for its compiled kernels (started {len(started)}: "
            f"{exc}); the process's memory (ulimit -v) or thread (ulimit -u) limit is too tight. Raise the limit, "
            f"or set NUMBA_NUM_THREADS to a smaller count (e.g. NUMBA_NUM_THREADS=1)") from None
    finally:
        release.set()
        for t in started:
            t.join()


def _preload_tbb() -> None:
    """Load the ``tbb`` package's library where pip put it (``<prefix>/lib``, which a virtual environment's
    loader does not search), so that numba's ``tbb`` layer finds it by name."""
    import ctypes

    for prefix in dict.fromkeys((sys.prefix, sys.base_prefix)):
        path = os.path.join(prefix, "lib", "libtbb.so.12")
        if os.path.exists(path):
            try:
                ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
            except OSError:
                continue
            return


def _launch(numba) -> str:
    """Choose the threading layer (unless the user did), start its threads, and return its name."""
    from numba.np.ufunc import parallel as ufunc_parallel

    if numba.config.DISABLE_JIT:  # plain Python kernels: no threads
        return "none"
    if sys.platform.startswith("linux") and not ufunc_parallel._is_initialized:
        _preload_tbb()
    if not _user_chose_layer(numba):
        numba.config.THREADING_LAYER_PRIORITY = list(LAYER_PREFERENCE)
    if not ufunc_parallel._is_initialized:
        _check_threads_can_start(int(numba.config.NUMBA_NUM_THREADS))
    ufunc_parallel._launch_threads()
    return numba.threading_layer()


def _before_fork() -> None:
    if _layer and _layer[0] == "omp":
        warn("vecscore: this process ran parallel kernels on numba's GNU OpenMP threading layer, which kills a "
             "child forked after it (\"Terminating: fork() called from a process already using GNU OpenMP\"); "
             "start workers with multiprocessing's 'spawn' or 'forkserver' method, or leave NUMBA_THREADING_LAYER "
             "unset so that vecscore picks a fork-safe layer", RuntimeWarning)


_layer: list[str] = []


def threading_layer() -> str | None:
    """The threading layer the kernels run on (``None`` before the first compiled call)."""
    return _layer[0] if _layer else None


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

        if not _layer:
            layer = _launch(numba)
            _layer.append(layer)
            if layer not in CONCURRENT_LAYERS:
                _guard.lock = threading.RLock()
            if hasattr(os, "register_at_fork"):
                os.register_at_fork(before=_before_fork, after_in_child=_new_guard_lock)
        _make_guarded()
        for k in _registry:
            k._dispatcher = _njit(k.py_func, k.parallel, k.inline)
        for name, mod in list(sys.modules.items()):
            if mod is None or not (name == "vecscore" or name.startswith("vecscore.")):
                continue
            space = vars(mod)
            for key, value in list(space.items()):
                if isinstance(value, Kernel) and _recorder is not None:  # calls keep passing the Kernel
                    continue
                if isinstance(value, Kernel):
                    space[key] = value._dispatcher
                elif isinstance(value, Lazy):
                    space[key] = value.resolve()
                elif value is _range and key != "_range":
                    space[key] = numba.prange
        _numba = numba
