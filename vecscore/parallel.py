"""Thread count of the numba kernels, set for a block and always restored.

Every parallel kernel (``prange``) uses numba's thread pool.  Results never
depend on the thread count: kernels parallelise over pairs (or rows), each
pair's statistics are computed by one thread, and nothing is reduced across
threads in floating point.  The tests check this bit for bit for 1 and 2
threads.

Thread safety: calls from several Python threads at once are safe on every
threading layer; the one guard is in :mod:`vecscore._jit` (every kernel call
from Python passes it, and on ``workqueue``, which aborts the process on
concurrent parallel regions, the calls take turns).
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Iterator
from contextlib import contextmanager

from vecscore._jit import activate, is_active
from vecscore.errors import VecscoreError

__all__ = ["numba_threads", "max_threads", "resolve_workers", "accepts_workers", "current_threads"]


def max_threads() -> int:
    """The size of numba's thread pool (``NUMBA_NUM_THREADS``, by default the CPU count)."""
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)


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
    """numba's thread count now (kernels split their work in that many parts); loads numba."""
    activate()
    import numba

    return int(numba.get_num_threads())


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
        yield None
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
