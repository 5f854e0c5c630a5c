"""Where numba's compiled kernels are cached, for every kind of install.

numba caches next to the source files (``__pycache__`` in the package) or,
when that folder is read-only, in a per-user folder; with neither writable it
refuses to cache at all and raises at the first kernel.  vecscore decides the
folder itself, before numba is imported, in this order:

1. ``VECSCORE_CACHE_DIR``, then numba's own ``NUMBA_CACHE_DIR``, if set and writable;
2. the package's own folder, when it is writable (a user's virtual environment);
3. ``$XDG_CACHE_HOME/vecscore/numba`` (default ``~/.cache/vecscore/numba``): a
   system-wide or read-only install (a Docker image built as root and run as a user);
4. ``$TMPDIR/vecscore-numba-<uid>`` (default ``/tmp``): a read-only home as well;
5. no disk cache (kernels compile in every process), with one warning saying
   how to fix it.

A folder named but not writable is skipped with a warning, never an error.
numba writes each cache file under a temporary name and renames it into
place, so concurrent processes (cluster workers, ``pytest -n``) can share one
folder.  ``vecscore warmup`` fills it ahead of time.  Kernels built with the
fast path off (``VECSCORE_FAST_PATH=0``, :mod:`vecscore.fast_path`) go to a
``fast-path-off`` folder inside the chosen one (or the per-user one), and
kernels built with numba's bounds checking (``NUMBA_BOUNDSCHECK=1``) to a
``boundscheck`` folder: numba's cache keys do not record either, so without
their own folders a test run in one mode would load the kernels of the other
(slower ones in normal use, or ones that check nothing in a checking run).
"""
from __future__ import annotations

import os
import tempfile

from vecscore import fast_path
from vecscore.errors import warn

__all__ = ["configure", "chosen", "enabled", "writable"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_state: dict = {}


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


def _package_writable() -> bool:
    for root, dirs, files in os.walk(_PACKAGE):
        dirs[:] = [d for d in dirs if d not in ("__pycache__", "data")]
        if any(f.endswith(".py") for f in files) and not writable(os.path.join(root, "__pycache__")):
            return False
    return True


def _user_folder() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "vecscore", "numba")


def _choose() -> tuple[str, str | None]:
    """``(where, folder)``: ``where`` is a short name; ``folder`` ``None`` for in-tree or none."""
    for var in ("VECSCORE_CACHE_DIR", "NUMBA_CACHE_DIR"):
        folder = os.environ.get(var)
        if folder:
            if writable(folder):
                return var, folder
            warn(f"{var}={folder!r} is not a writable folder; vecscore caches its compiled kernels "
                          "elsewhere", RuntimeWarning)
    if _package_writable():
        return "package", None
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


def _variant() -> str | None:
    """The sub-folder of kernels built another way than the default (``None``: the default)."""
    parts = []
    if not fast_path.enabled():
        parts.append("fast-path-off")
    if os.environ.get("NUMBA_BOUNDSCHECK", "").strip() not in ("", "0"):
        parts.append("boundscheck")
    return "-".join(parts) or None


def configure() -> None:
    """Choose the folder once and tell numba (sets ``NUMBA_CACHE_DIR``); call before numba is imported."""
    if _state:
        return
    where, folder = _choose()
    variant = _variant()
    if variant is not None and where != "none":  # kernels built another way: a folder of their own
        folder = os.path.join(folder or _user_folder(), variant)
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


def chosen() -> tuple[str, str | None]:
    """``(where, folder)`` of the cache: e.g. ``("package", None)`` or ``("user", "/home/u/.cache/vecscore/numba")``."""
    configure()
    return _state["where"], _state["folder"]


def enabled() -> bool:
    """Whether kernels are cached on disk at all."""
    return chosen()[0] != "none"
