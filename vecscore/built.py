"""Kernels built ahead of time: find the extension modules that fit this process and call them, without numba.

``vecscore warmup`` (:mod:`vecscore.aot_build`) compiles the kernels of each warmup group with numba's
ahead-of-time compiler into an extension module, beside a manifest (JSON) that lists the kernels it exports,
the argument types of each export, and what the module was built for.  A process that finds a module that
fits loads it (well under a millisecond) and calls its functions; numba and llvmlite are never imported.

Where modules are looked for, in this order: ``VECSCORE_BUILT_DIR`` if set, the package's own ``_built``
folder (modules shipped in a wheel or an image), and ``built`` in the kernel cache's base folder
(:func:`vecscore.cache_dir.base`, where ``vecscore warmup`` writes).  Under each, a module lives in
``<kernel key>/<python tag>-np<NumPy major>/<CPU level>/``, so a module is only ever found by a process whose
kernel sources (:func:`vecscore.cache_dir.kernel_key`: an edit or an upgrade), Python and NumPy major version
match, and whose CPU runs the module's level (:mod:`vecscore.cpu_levels`).  The manifest is checked again on
load (the same key, Python tag and level, a NumPy C API no newer than this NumPy's, the module file's
SHA-256), so a truncated, replaced or foreign module is never imported: its kernels take the JIT route, with
one warning per process naming the file.

A call whose argument types are not among a kernel's exports, a kernel no module holds, or a process with
``VECSCORE_BUILT=0``, ``NUMBA_DISABLE_JIT``, ``VECSCORE_FAST_PATH=0`` or ``NUMBA_BOUNDSCHECK`` takes the JIT
route (:mod:`vecscore._jit`) with the same numbers; :func:`misses` counts those calls (the tests assert that
no public call on supported input makes one).  Once numba is loaded in a process, every kernel runs through
it.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
import sysconfig
import threading

import numpy as np

from vecscore import cache_dir, cpu_levels, fast_path
from vecscore.errors import warn

__all__ = ["ENV", "DIR_ENV", "enabled", "entry", "type_key", "args_key", "abi_folder", "search_roots",
           "misses", "found_groups", "has_kernel", "has_group", "rescan", "reset", "MANIFEST_VERSION"]

#: ``0`` turns the built modules off (every kernel takes the JIT route)
ENV = "VECSCORE_BUILT"
#: a folder of built modules to look in first
DIR_ENV = "VECSCORE_BUILT_DIR"
#: the manifest format this loader reads
MANIFEST_VERSION = 1

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_lock = threading.Lock()
_state: dict = {}


def enabled() -> bool:
    """Whether this process may use built modules (not turned off, not a testing or plain-Python build)."""
    if os.environ.get(ENV, "1").strip().lower() in ("0", "off", "false", "no"):
        return False
    return not (cache_dir.jit_disabled() or not fast_path.enabled() or cache_dir.bounds_checked())


def numpy_major() -> int:
    return int(np.__version__.split(".")[0])


def numpy_c_api() -> int:
    try:
        from numpy._core._multiarray_umath import _get_ndarray_c_version
    except ImportError:  # NumPy 1
        from numpy.core._multiarray_umath import _get_ndarray_c_version  # type: ignore[no-redef]
    return int(_get_ndarray_c_version())


def abi_folder() -> str:
    """``<python cache tag>-np<NumPy major>``, e.g. ``cpython-311-np2``."""
    return f"{sys.implementation.cache_tag}-np{numpy_major()}"


def search_roots() -> list[str]:
    """The folders looked in, in order (see the module's text)."""
    roots = []
    named = os.environ.get(DIR_ENV)
    if named:
        roots.append(named)
    roots.append(os.path.join(_PACKAGE, "_built"))
    base = cache_dir.base()
    if base is not None:
        roots.append(os.path.join(base, "built"))
    return roots


# ---------------------------------------------------------------------------------------------------------
# Argument types, as numba types them, read without numba


def type_key(value) -> str | None:
    """A string that is the same for two values exactly when numba gives them the same type (for the kinds of
    value kernels take: NumPy arrays and scalars, Python ints, floats and bools, ``None``, tuples of these);
    ``None`` for anything else."""
    if isinstance(value, np.ndarray):
        flags = value.flags
        layout = "C" if flags.c_contiguous else "F" if flags.f_contiguous else "A"
        return (f"{value.dtype.str}:{value.ndim}{layout}{'' if flags.writeable else 'r'}"
                f"{'' if flags.aligned else 'u'}")
    if isinstance(value, (bool, np.bool_)):
        return "b1"
    if isinstance(value, np.generic):
        return value.dtype.str if value.dtype.kind in "iuf" else None
    if isinstance(value, int):
        return "<i8" if -(1 << 63) <= value < (1 << 63) else "<u8" if 0 <= value < (1 << 64) else None
    if isinstance(value, float):
        return "<f8"
    if value is None:
        return "none"
    if isinstance(value, tuple):
        keys = [type_key(v) for v in value]
        return None if None in keys else "(" + ",".join(keys) + ")"  # type: ignore[arg-type]
    return None


def args_key(args) -> str | None:
    keys = []
    for a in args:
        k = type_key(a)
        if k is None:
            return None
        keys.append(k)
    return "|".join(keys)


# ---------------------------------------------------------------------------------------------------------
# Finding and loading modules


def _manifest_ok(m: dict, level: str) -> str | None:
    """Why manifest ``m`` does not fit this process (``None`` when it does)."""
    if m.get("version") != MANIFEST_VERSION:
        return f"manifest version {m.get('version')}"
    if m.get("kernel_key") != cache_dir.kernel_key():
        return "built from other sources"
    if m.get("python") != sys.implementation.cache_tag or m.get("ext_suffix") != sysconfig.get_config_var("EXT_SUFFIX"):
        return f"built for {m.get('python')}"
    if m.get("numpy_major") != numpy_major() or int(m.get("numpy_c_api", 1 << 30)) > numpy_c_api():
        return f"built for NumPy {m.get('numpy')}"
    if m.get("level") != level:  # the folder's level, which _scan chose among those this CPU runs
        return f"built for the CPU level {m.get('level')}"
    return None


def _scan() -> dict:
    """kernel name -> [(argument key, group)], and group -> (module path, manifest), from the manifests of the
    first folder that fits, per group (the levels this CPU runs, most capable first)."""
    index: dict = {}
    groups: dict = {}
    if not enabled():
        return {"index": index, "groups": groups}
    levels = cpu_levels.runnable()
    named = os.environ.get(cpu_levels.ENV, "").strip()
    if named:
        levels = [named] if named in levels or named == "generic" else []
    for root in search_roots():
        for level in levels:
            folder = os.path.join(root, cache_dir.kernel_key(), abi_folder(), level)
            try:
                names = sorted(os.listdir(folder))
            except OSError:
                continue
            for name in names:
                if not name.endswith(".json"):
                    continue
                try:
                    with open(os.path.join(folder, name), encoding="utf-8") as f:
                        m = json.load(f)
                except (OSError, ValueError):
                    continue
                group = m.get("group")
                if group in groups or _manifest_ok(m, level) is not None:
                    continue
                groups[group] = (os.path.join(folder, m["module"]), m)
                for kernel, key, symbol in m["exports"]:
                    index.setdefault(kernel, []).append((key, group, symbol))
    return {"index": index, "groups": groups}


def _table() -> dict:
    table = _state.get("table")
    if table is None:
        with _lock:
            table = _state.get("table")
            if table is None:
                table = _state["table"] = _scan()
    return table


def _load(group: str):
    """The extension module of ``group`` (``None`` when it cannot be loaded: one warning, then the JIT)."""
    loaded = _state.setdefault("loaded", {})
    if group in loaded:
        return loaded[group]
    with _lock:
        if group in loaded:
            return loaded[group]
        path, m = _table()["groups"][group]
        module = None
        try:
            with open(path, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            if digest != m.get("sha256"):
                raise ImportError("the file's SHA-256 is not the manifest's (truncated or replaced)")
            spec = importlib.util.spec_from_file_location(m["init"], path)
            if spec is None or spec.loader is None:
                raise ImportError("not an extension module")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        except Exception as exc:  # ImportError, OSError: a damaged or foreign file
            module = None
            warn(f"vecscore: the built kernel module {path} could not be loaded ({exc}); its kernels are "
                 f"compiled by numba instead. `vecscore warmup --only {group}` builds it again", RuntimeWarning)
        loaded[group] = module
        return module


def entry(kernel, args):
    """The built function for ``kernel`` called with ``args`` (``None``: take the JIT route)."""
    table = _table()
    if not table["index"] and not table["groups"]:
        return None
    name = f"{kernel.__module__}.{kernel.__qualname__}"
    choices = table["index"].get(name)
    if choices is None:
        _miss(name, None)
        return None
    key = args_key(args)
    for k, group, symbol in choices:
        if k == key:
            module = _load(group)
            return None if module is None else getattr(module, symbol)
    _miss(name, key)
    return None


def _miss(name: str, key: str | None) -> None:
    _state.setdefault("misses", []).append((name, key))


def misses() -> list:
    """The ``(kernel, argument key)`` of every call in this process that found no built function."""
    return list(_state.get("misses", []))


def found_groups() -> set:
    """The groups whose modules fit this process (found, not yet necessarily loaded)."""
    return set(_table()["groups"])


def has_kernel(kernel) -> bool:
    """Whether a module that fits this process exports ``kernel`` (for some argument types)."""
    return f"{kernel.__module__}.{kernel.__qualname__}" in _table()["index"]


def has_group(group: str) -> bool:
    """Whether a module of the warmup group ``group`` fits this process."""
    return group in _table()["groups"]


def rescan() -> None:
    """Look for modules again at the next call (a background build may have finished); modules already loaded
    stay loaded."""
    with _lock:
        _state.pop("table", None)


def reset() -> None:
    """Forget what was found and loaded (after building, and for tests)."""
    with _lock:
        _state.clear()
