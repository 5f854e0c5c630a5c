"""The background compiler's process, ``python -m vecscore.background_job <group> <lock file> <parent pid>``,
started by :func:`vecscore.background.start`: at the lowest CPU priority it builds the group's kernel module
(:mod:`vecscore.aot_build`) into the cache's ``built`` folder, or where no module can be built, compiles the
group into numba's JIT cache (:func:`vecscore.warmup.warmup`); then it releases the group's lock.

It is a module of its own, above the metrics (it runs their warmup calls), so that :mod:`vecscore.background`,
which the routes ask whether kernels are ready, imports no metric."""
from __future__ import annotations

import os
import sys
import time

from vecscore.background import CHILD, release


def _build_module(group: str) -> bool:
    """Build ``group``'s kernel module (:mod:`vecscore.aot_build`, into the cache's ``built`` folder, where the
    next process finds it); ``False`` (and why, in the log) where modules are off or the build fails (no C
    compiler, no Python headers): the JIT's cache is filled instead."""
    from vecscore import aot_build, built

    if not built.enabled():
        return False
    try:
        aot_build.build([group], jobs=1, report=lambda line: print("vecscore:", line, flush=True))
    except Exception as exc:  # BuildError naming the failed group, with its log's end
        print(f"vecscore: {exc}", flush=True)
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    """The background compiler: ``python -m vecscore.background_job <group> <lock file> <parent pid>``."""
    args = sys.argv[1:] if argv is None else argv
    group, lock, parent = args[0], args[1], int(args[2])
    os.environ[CHILD] = "1"
    try:
        os.nice(19)
    except (AttributeError, OSError):  # pragma: no cover - platforms without nice
        pass
    status = 1
    try:
        start_time = time.perf_counter()
        if _build_module(group):
            how = "built the module of"
        else:
            from vecscore.warmup import warmup

            warmup([group])
            how = "compiled"
        print(f"vecscore: {how} {group} in {time.perf_counter() - start_time:.1f} s (pid {os.getpid()})",
              flush=True)
        status = 0
    except BaseException:  # the log file says why; the caller goes on with the plain route or compiles itself
        import traceback

        traceback.print_exc()
    finally:
        release(lock, [os.getpid(), parent])
    return status


if __name__ == "__main__":
    sys.exit(main())
