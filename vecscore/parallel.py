"""Thread count of the kernels, set for a block and always restored.

Every parallel kernel (``prange``) uses numba's thread pool; the kernels of a built module
(:mod:`vecscore.built`) run on Python threads that the caller starts (:func:`run_threads`), as many as
this setting says, so the same setting (``NUMBA_NUM_THREADS``, ``workers=``) governs both.  Results never
depend on the thread count: kernels parallelise over pairs (or rows), each pair's statistics are computed
by one thread, and nothing is reduced across threads in floating point.  The tests check this bit for bit
for 1 and 2 threads.

Thread safety: calls from several Python threads at once are safe on every
threading layer; the one guard is in :mod:`vecscore._jit` (every kernel call
from Python passes it, and on ``workqueue``, which aborts the process on
concurrent parallel regions, the calls take turns).
"""
from __future__ import annotations

import functools
import inspect
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from vecscore import built
from vecscore._jit import activate, is_active
from vecscore.errors import VecscoreError

__all__ = ["numba_threads", "max_threads", "resolve_workers", "accepts_workers", "current_threads", "run_threads",
           "in_threads"]

_local = threading.local()


def _default_threads() -> int:
    """numba's default pool size, worked out as numba does (the CPUs this process may run on)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def max_threads() -> int:
    """The size of numba's thread pool (``NUMBA_NUM_THREADS``, by default the CPU count)."""
    config = sys.modules.get("numba.core.config")
    if config is not None:
        return int(config.NUMBA_NUM_THREADS)
    try:
        return max(1, int(os.environ.get("NUMBA_NUM_THREADS", "") or _default_threads()))
    except ValueError:
        return _default_threads()


def resolve_workers(workers) -> int | None:
    """``None`` (leave numba's setting), a count in ``1..max_threads()``, or ``-1`` for all threads."""
    if workers is None:
        return None
    if isinstance(workers, bool) or not isinstance(workers, int):
        try:
            import numpy as np

            if isinstance(workers, np.integer):
                workers = int(workers)
            else:
                raise TypeError
        except TypeError:
            raise VecscoreError(f"workers must be an int (1..{max_threads()}, or -1 for all), "
                                f"got {workers!r}") from None
    top = max_threads()
    if workers == -1:
        return top
    if workers == 0:
        raise VecscoreError(f"workers=0 is not a thread count; use -1 for all {top} threads, or 1..{top}")
    if not 1 <= workers <= top:
        raise VecscoreError(
            f"workers must be between 1 and {top} (numba's NUMBA_NUM_THREADS on this machine), or -1 for all; "
            f"got {workers}"
        )
    return workers


def current_threads() -> int:
    """The thread count now (kernels split their work in that many parts): numba's once it is loaded, else
    the count this thread set for the built kernels (by default :func:`max_threads`); never loads numba."""
    if is_active():
        import numba

        return int(numba.get_num_threads())
    n = getattr(_local, "threads", None)
    return max_threads() if n is None else n


def run_threads(task: Callable[[int], None], count: int) -> None:
    """Run ``task(0) .. task(count - 1)`` at once on ``count`` threads (``task(0)`` on this one), for kernels
    of a built module that release the GIL; a thread that cannot be started (a memory or thread limit) leaves
    its part to this thread, so the call always ends with every part done.  The first exception is raised."""
    errors: list[BaseException] = []

    def guarded(i: int) -> None:
        try:
            task(i)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            errors.append(exc)

    started = []
    left = []
    for i in range(1, count):
        t = threading.Thread(target=guarded, args=(i,), daemon=True)
        try:
            t.start()
        except RuntimeError:  # "can't start new thread"
            left.append(i)
            continue
        started.append(t)
    guarded(0)
    for i in left:
        guarded(i)
    for t in started:
        t.join()
    if errors:
        raise errors[0]


def in_threads(run: Callable[[int, int], None], workers: int, kernel) -> None:
    """Run ``run(w0, w1)``, a call of the parallel ``kernel`` on its workers ``w0 .. w1 - 1`` (each worker's
    scratch a row of its slabs, the chunks handed out by its atomic work counter): once for all of them where
    numba runs the kernel (its ``prange`` spreads them over numba's threads), else, where a built module runs
    it on one thread, on ``workers`` Python threads of one worker each (the module releases the GIL)."""
    if workers > 1 and not is_active() and built.has_kernel(kernel):
        run_threads(lambda t: run(t, t + 1), workers)
    else:
        run(0, workers)


@contextmanager
def numba_threads(n) -> Iterator[int]:
    """Run a block with ``n`` numba threads; the previous count is restored, even on error.

    ``n`` is validated by :func:`resolve_workers` before anything changes
    (``None`` leaves the current setting alone).  The value yielded is the
    thread count in effect inside the block (``None`` while numba is not loaded and ``n`` is ``None``).

    Examples
    --------
    >>> import numba
    >>> before = numba.get_num_threads()
    >>> with numba_threads(1) as n:
    ...     n, numba.get_num_threads()
    (1, 1)
    >>> numba.get_num_threads() == before
    True
    """
    n = resolve_workers(n)
    if n is None and not is_active():  # nothing to set, and no kernel has run: keep numba unloaded
        yield getattr(_local, "threads", None)
        return
    if not is_active() and built.found_groups():  # the built kernels' count for this thread
        before = getattr(_local, "threads", None)
        _local.threads = n
        try:
            yield n
        finally:
            _local.threads = before
        return
    activate()
    import numba

    previous = numba.get_num_threads()
    if n is None:
        yield previous
        return
    numba.set_num_threads(n)
    try:
        yield n
    finally:
        numba.set_num_threads(previous)


def accepts_workers(fn):
    """Give ``fn`` a keyword-only ``workers=None`` option: numba threads for that call.

    ``workers`` is validated by :func:`resolve_workers`; the previous thread
    count is restored when the call returns or raises.
    """

    @functools.wraps(fn)
    def wrapper(*args, workers=None, **kwargs):
        with numba_threads(workers):
            return fn(*args, **kwargs)

    sig = inspect.signature(fn)
    if "workers" not in sig.parameters:  # shown by help() and inspect.signature, not only in the docstring
        params = list(sig.parameters.values())
        at = next((i for i, p in enumerate(params) if p.kind is inspect.Parameter.VAR_KEYWORD), len(params))
        params.insert(at, inspect.Parameter("workers", inspect.Parameter.KEYWORD_ONLY, default=None,
                                            annotation="int | None"))
        wrapper.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    wrapper.__doc__ = (fn.__doc__ or "") + (
        "\n\n    ``workers`` (keyword, optional): numba threads for this call, 1.. the pool size or -1 for all;"
        "\n    the previous setting is restored afterwards, even on error. Results never depend on it.\n"
    )
    return wrapper
