"""Where numba's compiled kernels are cached, for every kind of install.

numba caches next to the source files (``__pycache__`` in the package) or,
when that folder is read-only, in a per-user folder; with neither writable it
refuses to cache at all and raises at the first kernel.  vecscore decides the
folder itself, before numba is imported, in this order:

1. ``VECSCORE_CACHE_DIR``, then numba's own ``NUMBA_CACHE_DIR``, if set and writable;
2. the package's own ``__pycache__/numba`` folder, when it is writable (a user's virtual environment);
3. ``$XDG_CACHE_HOME/vecscore/numba`` (default ``~/.cache/vecscore/numba``): a
   system-wide or read-only install (a Docker image built as root and run as a user);
4. ``$TMPDIR/vecscore-numba-<uid>`` (default ``/tmp``): a read-only home as well;
5. no disk cache (kernels compile in every process), with one warning saying
   how to fix it.

A folder named but not writable is skipped with a warning, never an error.
Inside the chosen folder, kernels go to a sub-folder named by vecscore's
version and a digest of every source file that compiled kernels are built
from (:data:`KERNEL_SOURCES`): numba checks only the file that defines a
kernel, not the files whose functions it inlines, so without the digest an
upgrade or a ``git pull`` on an editable install could load machine code
built from the old sources.  numba writes each cache file under a temporary
name and renames it into place, so concurrent processes (cluster workers,
``pytest -n``) can share one folder; a cache file that cannot be read
(truncated, emptied) is compiled again by :mod:`vecscore._jit`.
``vecscore warmup`` fills it ahead of time.  Kernels built with the fast path
off (``VECSCORE_FAST_PATH=0``, :mod:`vecscore.fast_path`) go to a
``fast-path-off`` folder inside the sources' sub-folder, and kernels built
with numba's bounds checking (``NUMBA_BOUNDSCHECK=1``) to a
``boundscheck`` folder: numba's cache keys do not record either, so without
their own folders a test run in one mode would load the kernels of the other
(slower ones in normal use, or ones that check nothing in a checking run).

A cache folder can travel (a Docker image layer, cluster workers, another
virtual environment): numba's own locators name each source file's folder
after the file's absolute directory, so a package installed at another path
would compile everything again; vecscore's kernels instead go to folders
named after their package inside vecscore (``vecscore.kernels``,
``vecscore.bleu``, ...: :func:`package_folder`, :func:`function_cache`),
while numba still checks each kernel's source file by content.  numba also
keys every compiled kernel by the CPU's name and features, so a cache built
on one CPU model does not load on another; what travels to other CPU models
are the built kernel modules, each for a named CPU level (:mod:`vecscore.built`).
"""
from __future__ import annotations

import hashlib
import os
import tempfile

from vecscore import fast_path
from vecscore._version import __version__
from vecscore.errors import warn

__all__ = ["configure", "chosen", "base", "enabled", "writable", "kernel_key", "jit_disabled", "bounds_checked",
           "KERNEL_SOURCES", "package_folder", "function_cache", "write_text"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_state: dict = {}

#: the package's files that compiled kernels are built from, relative to the package: every module that
#: defines a kernel and every package module such a module imports (its constants and kernels are frozen into
#: the machine code).  A folder name stands for all its ``.py`` files.  ``tests/test_cache_dir.py`` checks
#: that this covers every such module.
KERNEL_SOURCES = (
    "kernels/", "text/", "__init__.py", "_jit.py", "_version.py", "aot_build.py", "background.py", "built.py",
    "cache_dir.py", "cpu_levels.py", "errors.py", "fast_path.py", "warmup.py", "memory.py", "parallel.py", "route.py",
    "inputs.py", "references.py", "row_errors.py", "columns.py", "confidence.py", "bleu/__init__.py",
    "bleu/compiled.py", "bleu/formulas.py", "bleu/options.py", "bleu/plain.py", "bleu/plain_formulas.py",
    "bleu/stats.py", "chrf/__init__.py", "chrf/compiled.py", "chrf/formulas.py", "chrf/options.py", "chrf/plain.py",
    "chrf/stats.py", "engine/batch.py", "engine/counts.py", "rouge/fscore.py", "rouge/multiref.py", "rouge/options.py",
    "rouge/results.py", "rouge/stats.py",
    "significance/adapters.py", "significance/estimate.py", "significance/scores.py", "sacrebleu_protocol.py",
    "ter/api.py", "ter/options.py", "ter/stats.py", "ter/tokenize.py", "matrices/ngram_cells.py",
    "matrices/ngram_features.py",
)


def _source_files() -> list[str]:
    files = []
    for entry in KERNEL_SOURCES:
        path = os.path.join(_PACKAGE, entry)
        if entry.endswith("/"):
            files.extend(os.path.join(path, f) for f in sorted(os.listdir(path)) if f.endswith(".py"))
        else:
            files.append(path)
    return files


def kernel_key() -> str:
    """``v<version>-<digest>``: the cache sub-folder of kernels built from these exact sources."""
    if "key" not in _state:
        digest = hashlib.sha256(__version__.encode())
        for path in _source_files():
            digest.update(os.path.relpath(path, _PACKAGE).encode() + b"\0")
            try:
                with open(path, "rb") as f:
                    digest.update(f.read())
            except OSError:  # a file the install lacks: its absence is part of the key
                digest.update(b"\1missing")
            digest.update(b"\0")
        _state["key"] = f"v{__version__}-{digest.hexdigest()[:16]}"
    return _state["key"]


def writable(folder: str) -> bool:
    """Whether files can be created in ``folder`` (made if missing); tried, not guessed from mode bits."""
    try:
        os.makedirs(folder, exist_ok=True)
        fd, path = tempfile.mkstemp(dir=folder, prefix=".vecscore-probe-")
    except OSError:
        return False
    os.close(fd)
    try:
        os.unlink(path)
    except OSError:
        pass
    return True


def _package_folder() -> str:
    return os.path.join(_PACKAGE, "__pycache__", "numba")


def _package_writable() -> bool:
    return writable(_package_folder())


def _user_folder() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "vecscore", "numba")


def _choose() -> tuple[str, str | None]:
    """``(where, folder)``: ``where`` is a short name; ``folder`` ``None`` for none."""
    for var in ("VECSCORE_CACHE_DIR", "NUMBA_CACHE_DIR"):
        folder = os.environ.get(var)
        if folder:
            if writable(folder):
                return var, folder
            warn(f"{var}={folder!r} is not a writable folder; vecscore caches its compiled kernels "
                          "elsewhere", RuntimeWarning)
    if _package_writable():
        return "package", _package_folder()
    folder = _user_folder()
    if writable(folder):
        return "user", folder
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    folder = os.path.join(os.environ.get("TMPDIR") or tempfile.gettempdir(), f"vecscore-numba-{uid}")
    if writable(folder):
        return "temporary", folder
    warn("no writable folder for vecscore's compiled kernels (package folder, ~/.cache, temporary folder): "
                  "they are compiled again in every process. Set VECSCORE_CACHE_DIR to a writable folder and run "
                  "`vecscore warmup` once.", RuntimeWarning)
    return "none", None


def jit_disabled() -> bool:
    """Whether numba runs every kernel as plain Python (``NUMBA_DISABLE_JIT`` as numba reads it: an int, anything
    else counting as unset), known without importing numba."""
    try:
        return int(os.environ.get("NUMBA_DISABLE_JIT", "0") or 0) != 0
    except ValueError:
        return False


def bounds_checked() -> bool:
    """Whether numba checks every index (``NUMBA_BOUNDSCHECK`` set and not ``0``): a testing build."""
    return os.environ.get("NUMBA_BOUNDSCHECK", "").strip() not in ("", "0")


def _variant() -> str | None:
    """The sub-folder of kernels built another way than the default (``None``: the default)."""
    parts = []
    if not fast_path.enabled():
        parts.append("fast-path-off")
    if bounds_checked():
        parts.append("boundscheck")
    return "-".join(parts) or None


def write_text(path: str, text: str) -> bool:
    """Write ``text`` to ``path`` whole or not at all (a temporary file renamed into place), making its folder;
    ``False`` when the folder cannot be written."""
    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".vecscore-")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError:
        return False
    return True


def configure() -> None:
    """Choose the folder once and tell numba (sets ``NUMBA_CACHE_DIR``); call before numba is imported."""
    if "where" in _state:
        return
    where, folder = _choose()
    if folder is not None and where in ("VECSCORE_CACHE_DIR", "NUMBA_CACHE_DIR"):
        folder = _unkeyed(folder)
    root = folder
    _state["root"] = root
    if folder is not None:
        # these sources' own sub-folder; kernels built another way (variant) a folder of their own inside it
        folder = os.path.join(folder, kernel_key(), *filter(None, [_variant()]))
        if not writable(folder):
            where, folder = "none", None
    _state["where"], _state["folder"] = where, folder
    if folder is not None:
        os.environ["NUMBA_CACHE_DIR"] = folder
        try:  # numba already imported by someone else: its config was read at import
            import sys

            cfg = sys.modules.get("numba.core.config")
            if cfg is not None:
                cfg.CACHE_DIR = folder
        except Exception:  # pragma: no cover - numba internals
            pass


def _unkeyed(folder: str) -> str:
    """The base folder of ``folder`` when ``folder`` is already these sources' keyed sub-folder (optionally
    with a variant): a child process inherits the ``NUMBA_CACHE_DIR`` that :func:`configure` set in its
    parent (``multiprocessing``'s spawn workers, subprocesses), and must share the parent's kernels, not
    nest a new key inside them."""
    parts = os.path.normpath(folder).split(os.sep)
    key = kernel_key()
    for depth in (1, 2):  # <base>/<key> or <base>/<key>/<variant>
        if len(parts) > depth and parts[-depth] == key:
            return os.sep.join(parts[:-depth]) or os.sep
    return folder


def chosen() -> tuple[str, str | None]:
    """``(where, folder)`` of the cache: e.g. ``("user", "/home/u/.cache/vecscore/numba/v0.9.0-1a2b...")``;
    ``("none", None)`` when nothing is cached."""
    configure()
    return _state["where"], _state["folder"]


def base() -> str | None:
    """The chosen folder before the sources' key (``None`` when nothing is cached): built kernel modules go to
    its ``built`` sub-folder (:mod:`vecscore.built`)."""
    configure()
    return _state["root"]


def enabled() -> bool:
    """Whether kernels are cached on disk at all."""
    return chosen()[0] != "none"


def package_folder(py_file: str) -> str | None:
    """The cache sub-folder of the kernels of ``py_file``: its package's dotted name when the file is part of
    vecscore (``vecscore.kernels`` for ``.../vecscore/kernels/ngrams.py``), the same for every install path;
    ``None`` for any other file (numba's own locators take it)."""
    here = os.path.realpath(_PACKAGE)
    folder = os.path.dirname(os.path.realpath(py_file))
    if folder != here and not folder.startswith(here + os.sep):
        return None
    rel = os.path.relpath(folder, here)
    return ".".join(["vecscore", *([] if rel == os.curdir else rel.split(os.sep))])


def function_cache(py_func):
    """numba's cache of one kernel (a ``FunctionCache``), in :func:`package_folder` inside numba's cache folder
    instead of a folder named after the source file's absolute path; numba's source stamp (a digest of the
    file's content) and index keys (signature, CPU, bytecode) are unchanged.  Imports numba."""
    if "cache" not in _state:
        _state["cache"] = _cache_class()
    return _state["cache"](py_func)


def _cache_class():
    from numba.core import caching, config

    class PackageCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        """numba's ``UserProvidedCacheLocator`` with a folder named by the package, not the absolute path."""

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = os.path.join(config.CACHE_DIR, package_folder(py_file) or "")

        def get_cache_path(self):
            return self._cache_path

        @classmethod
        def from_function(cls, py_func, py_file):
            if not config.CACHE_DIR or package_folder(py_file) is None:
                return None
            return super().from_function(py_func, py_file)

    class PackageCacheImpl(caching.CompileResultCacheImpl):
        _locator_classes = [PackageCacheLocator, *caching.CompileResultCacheImpl._locator_classes]

    class PackageFunctionCache(caching.FunctionCache):
        _impl_class = PackageCacheImpl

    return PackageFunctionCache
