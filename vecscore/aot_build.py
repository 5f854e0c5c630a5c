"""Build the kernels ahead of time into extension modules (``vecscore warmup``), with numba's AOT compiler.

Each warmup group (:data:`vecscore.warmup.GROUPS`) becomes one extension module, built in two child processes:

1. **record**: the group's warmup calls run with ``NUMBA_DISABLE_JIT=1`` (the kernels as plain Python, in
   seconds), and every call that Python code makes of a kernel is recorded with its argument types
   (``numba.typeof``, and :func:`vecscore.built.type_key` for the loader).  What a module exports therefore
   follows from the calls the public API makes, never from a list kept by hand;
2. **compile**: numba compiles each recorded kernel for each recorded signature with ``numba.pycc`` into
   one module (wrappers that release the GIL), for the CPU level :func:`vecscore.cpu_levels.best` (numba's
   JIT, which compiles the kernels they call, is set to the same level), and writes the module's manifest.

Groups build in parallel (``jobs`` processes), so the peak memory is that of the largest groups at once.
The module and its manifest are written under temporary names and renamed into place, the manifest last:
a reader never sees a module without its manifest or a partly written file.  A group that fails to build
(no C compiler, no Python headers, a numba that cannot) is reported, and its kernels stay on the JIT route.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterable

__all__ = ["build", "folder_for"]

_DEFAULT_JOBS = 2


def folder_for(level: str, root: str | None = None) -> str:
    """The folder a module for ``level`` goes to (under ``root``, default the kernel cache's ``built``)."""
    from vecscore import built, cache_dir

    if root is None:
        root = os.environ.get(built.DIR_ENV) or None
    if root is None:
        base = cache_dir.base()
        if base is None:
            from vecscore.errors import VecscoreError

            raise VecscoreError("no writable folder for built kernel modules; set VECSCORE_CACHE_DIR (or "
                                "VECSCORE_BUILT_DIR to build into another folder)")
        root = os.path.join(base, "built")
    return os.path.join(root, cache_dir.kernel_key(), built.abi_folder(), level)


def _child_env(**extra) -> dict:
    env = dict(os.environ)
    for k in ("NUMBA_DISABLE_JIT", "NUMBA_BOUNDSCHECK", "VECSCORE_FAST_PATH"):
        env.pop(k, None)
    env["VECSCORE_BUILT"] = "0"
    env["VECSCORE_BACKGROUND_COMPILE"] = "0"
    env["VECSCORE_ROUTE"] = "compiled"
    env.update(extra)
    return env


def _level_env(level: str) -> dict:
    """numba's JIT set to ``level`` with the level's own features (the callees linked into the module), no SVML."""
    return {"NUMBA_CPU_NAME": level, "NUMBA_CPU_FEATURES": "", "NUMBA_DISABLE_INTEL_SVML": "1"}


def build(groups: Iterable[str] | None = None, jobs: int = _DEFAULT_JOBS, root: str | None = None,
          report: Callable[[str], None] | None = None) -> dict[str, float]:
    """Build the modules of ``groups`` (default: all); seconds per group.  Raises :class:`BuildError` naming the
    groups that failed (each one's log is in the message), after building the others."""
    from vecscore import built, cpu_levels
    from vecscore.errors import VecscoreError
    from vecscore.warmup import GROUPS

    names = list(GROUPS) if groups is None else list(groups)
    unknown = [g for g in names if g not in GROUPS]
    if unknown:
        raise VecscoreError(f"unknown warmup group(s) {', '.join(unknown)}; valid: {', '.join(GROUPS)}")
    level = cpu_levels.best()
    out = folder_for(level, root)
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="vecscore-build-")
    pending = list(names)
    running: dict = {}
    seconds: dict = {}
    failed: dict = {}
    while pending or running:
        while pending and len(running) < max(1, int(jobs)):
            g = pending.pop(0)
            log = open(os.path.join(work, f"{g}.log"), "w+b")
            cmd = [sys.executable, "-m", "vecscore.aot_build", g, out, level, work]
            running[g] = (subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=_child_env()), log,
                          time.perf_counter())
        time.sleep(0.05)
        for g, (proc, log, start) in list(running.items()):
            if proc.poll() is None:
                continue
            del running[g]
            log.seek(0)
            text = log.read().decode("utf-8", "replace")
            log.close()
            if proc.returncode != 0:
                failed[g] = text.strip()[-2000:]
                if report is not None:
                    report(f"{g}: failed (exit {proc.returncode})")
                continue
            seconds[g] = time.perf_counter() - start
            if report is not None:
                report(f"{g}: {seconds[g]:.1f} s")
    built.reset()
    shutil.rmtree(work, ignore_errors=True)  # the records, logs (their ends are in the error) and JIT scratch
    if failed:
        raise BuildError(failed)
    return seconds


class BuildError(Exception):
    """Some groups' modules could not be built (``groups``: each one's log, the end of it); their kernels take the
    JIT route.  :func:`reason` says why in one line."""

    def __init__(self, failed: dict[str, str]):
        self.groups = dict(failed)
        super().__init__("building the kernel module(s) of " + ", ".join(failed) + " failed; their kernels are "
                         "compiled by numba when first used instead.\n"
                         + "\n".join(f"--- {g}:\n{t}" for g, t in failed.items()))

    def reason(self) -> str:
        """The first failed group's error: the last line of its log that names an exception (``RuntimeError: ...``,
        e.g. numba's "without the compiler"), else its last line."""
        import re

        for text in self.groups.values():
            lines = [line.strip() for line in text.splitlines() if line.strip()]
            named = [line for line in lines if re.match(r"[A-Za-z_][\w.]*(Error|Exception|Exit)\b", line)]
            if named or lines:
                return (named or lines)[-1][:300]
        return "no log"


# ---------------------------------------------------------------------------------------------------------
# The child processes


def _record(group: str) -> dict:
    """``{kernel name: {argument key: numba argument types}}`` of the kernels the group's calls make from
    Python (run in a process with ``NUMBA_DISABLE_JIT=1``)."""
    import warnings

    import numba

    from vecscore import _jit, built
    from vecscore.warmup import GROUPS

    calls: dict = {}

    def record(kernel, args):
        key = built.args_key(args)
        if key is None:
            return
        for k in (kernel, kernel.twin_of):  # a parallel kernel and its serial twin: the size decides which
            if k is None:
                continue
            name = f"{k.__module__}.{k.__qualname__}"
            if key not in calls.setdefault(name, {}):
                calls[name][key] = tuple(numba.typeof(a) for a in args)

    with _jit.recording(record), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        GROUPS[group]()
    return calls


def _compile(group: str, calls: dict, out: str, level: str) -> None:
    """Compile ``calls`` (from :func:`_record`) into ``out``/``_vecscore_<group>`` with its manifest."""
    import importlib

    import numba
    import numpy as np
    from numba.pycc import CC
    from numba.pycc import compiler as pycc_compiler

    from vecscore import _jit, built, cache_dir

    modules = sorted({name.rsplit(".", 1)[0] for name in calls})
    for m in modules:  # imported before activation: their kernels are in the registry
        importlib.import_module(m)
    by_name = {f"{k.__module__}.{k.__qualname__}": k for k in _jit.kernels()}
    for k in _jit.kernels():  # one thread per call: a module needs no threading layer (callers run threads)
        k.parallel = False
    _jit.activate()

    class Flags(pycc_compiler.Flags):  # the wrappers release the GIL while a kernel runs
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.release_gil = True

    pycc_compiler.Flags = Flags
    init = "_vecscore_" + group.replace("-", "_")
    cc = CC(init, source_module=__name__)
    cc.target_cpu = "" if level == "generic" else level
    if os.name == "posix":  # numba's C runtime, linked into every module: -O1 without debug information builds
        cc._get_extra_cflags = lambda: ["-g0", "-O1"]  # in ~1.9 s a module instead of ~3.3 s (the kernels are LLVM's)
    work = tempfile.mkdtemp(prefix=f"vecscore-{init}-")
    cc.output_dir = work
    exports = []
    done: dict = {}  # (code, argument key) -> symbol: a kernel and its serial twin share one export
    for i, (name, sigs) in enumerate(sorted(calls.items())):
        kernel = by_name.get(name)
        if kernel is None:
            continue
        for j, (key, argtypes) in enumerate(sorted(sigs.items())):
            symbol = done.get((kernel.py_func.__code__, key))
            if symbol is None:
                symbol = done[kernel.py_func.__code__, key] = f"k{i}_{j}"
                cc.export(symbol, argtypes)(kernel.py_func)
            exports.append((name, key, symbol))
    cc.compile()
    so = os.path.join(work, cc._output_file)
    with open(so, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    manifest = {
        "version": built.MANIFEST_VERSION, "group": group, "module": init + sysconfig.get_config_var("EXT_SUFFIX"),
        "init": init, "kernel_key": cache_dir.kernel_key(), "python": sys.implementation.cache_tag,
        "ext_suffix": sysconfig.get_config_var("EXT_SUFFIX"), "numpy": np.__version__,
        "numpy_major": built.numpy_major(), "numpy_c_api": built.numpy_c_api(), "numba": numba.__version__,
        "level": level, "sha256": digest, "exports": exports,
    }
    os.makedirs(out, exist_ok=True)
    os.replace(so, os.path.join(out, manifest["module"]))
    shutil.rmtree(work, ignore_errors=True)
    fd, tmp = tempfile.mkstemp(dir=out, prefix=".manifest-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
    os.chmod(tmp, 0o644)
    os.replace(tmp, os.path.join(out, f"{init}.json"))


def _main(argv: list[str]) -> int:
    if argv[0] == "record":  # python -m vecscore.aot_build record GROUP FILE (NUMBA_DISABLE_JIT=1)
        with open(argv[2], "wb") as f:
            pickle.dump(_record(argv[1]), f)
        return 0
    group, out, level, work = argv  # python -m vecscore.aot_build GROUP OUT LEVEL WORKDIR
    rec = os.path.join(work, f"{group}.record")
    env = _child_env(NUMBA_DISABLE_JIT="1")
    subprocess.run([sys.executable, "-m", "vecscore.aot_build", "record", group, rec], env=env, check=True)
    with open(rec, "rb") as f:
        calls = pickle.load(f)
    os.environ.update(_level_env(level))  # before numba is imported: the JIT's callees for the same level
    # the serial callees' JIT cache: shared by the build's groups (many callees are common to several), never
    # with the user's cache (these are compiled for the module's level)
    os.environ["VECSCORE_CACHE_DIR"] = os.path.join(work, "jit")
    _compile(group, calls, out, level)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
