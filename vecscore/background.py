"""Compilation off the critical path: readiness markers and one background compiler per kernel group.

In a fresh environment the kernel cache (:mod:`vecscore.cache_dir`) is empty, and the first call that takes
the compiled route compiles its metric's kernels first: 30 s to 3 min of CPU.  Under ``auto``
(:func:`vecscore.route.use_plain`) a call whose kernels are not known to be compiled takes the plain route
while its estimated time there (characters times :data:`vecscore.route.COST` times :data:`SECONDS_PER_CHAR`) is
below the estimated compile time of what it would need (:data:`COMPILE_SECONDS`), and this module starts one
background process for that group, at the lowest CPU priority, detached from the caller.  It builds the group's
kernel module (``vecscore warmup --only <group>``'s work, :mod:`vecscore.aot_build`) into the cache's
``built`` folder, where later processes load it without numba; where no module can be built (no C compiler,
modules turned off) it compiles the group into the JIT's cache instead (``vecscore warmup --only <group>``).
Larger calls compile in the foreground as before.

Readiness is a file, so that a process can tell without importing numba:

``<cache folder>/ready/<group>``
    written when every kernel of a warmup group (:data:`vecscore.warmup.GROUPS`) has been compiled into the
    folder: by ``vecscore warmup`` and by the background compiler when it fills the JIT's cache (a built module
    is its own marker: :func:`module_ready`);
``<cache folder>/ready/kinds/<kind>``
    written when a call of one kind (``use_plain``'s ``warm``, e.g. ``("bleu", "text", "13a")``) has finished
    on the compiled route in some process (:func:`vecscore.route.note_compiled`).

The cache folder is keyed by the kernel sources' digest, so an edit or an upgrade starts with no markers.  A
positive answer is kept for the process; a negative one is looked at again at most every
:data:`RECHECK_SECONDS`, so a long-lived process takes the compiled route for large calls soon after the
background compiler has finished.

At most one background compiler per group and cache folder runs at a time, across processes: a lock file
``<cache folder>/compiling/<group>.lock`` created with ``O_CREAT | O_EXCL`` holds the compiler's process id; a
lock whose process is gone (or older than :data:`LOCK_MAX_AGE`) is taken over.  The compiler's output goes to
``<cache folder>/compiling/<group>.log``.  Nothing is started when ``VECSCORE_BACKGROUND_COMPILE=0``, from a
background compiler itself, when there is no cache folder (nothing would be kept), or when numba is not
installed.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable

from vecscore import cache_dir

__all__ = ["SETTING", "CHILD", "COMPILE_SECONDS", "SECONDS_PER_CHAR", "RECHECK_SECONDS", "LOCK_MAX_AGE", "GROUP_OF",
           "enabled", "groups_of", "missing_groups", "cold_budget", "ready", "kind_ready", "mark_ready", "mark_kinds",
           "can_start", "start", "acquire", "release", "lock_path", "reset", "module_ready"]

#: the setting that turns this off (``0``); on by default
SETTING = "VECSCORE_BACKGROUND_COMPILE"
#: set in the background compiler's environment: it never starts another
CHILD = "VECSCORE_BACKGROUND_CHILD"

#: CPU seconds a call in a fresh environment spends compiling the kernels of its warmup group that it needs (a
#: call compiles only its options' kernels, about a third to a half of its group's).  Measured on the 2-core
#: development machine under load: one rouge1/2/L call 44 s (the whole group, ``vecscore warmup --only rouge``,
#: 142 s), one ``corpus_bleu`` call (13a) 175 s, taken as 150; the whole groups ``rouge155`` 88 s, ``chrf`` 52 s,
#: ``rouge-weighted`` 26 s, ``ter`` 15 s, ``coco`` 51 s, taken at half.  An underestimate only sends a call to
#: the foreground compile earlier, as before this module existed.  chrF's plain route takes about twice what its
#: cost per character estimates (30,000 WMT21 en-de pairs: 25 s of CPU, estimated 11 s), so its figure is halved
#: again: the plain route then stops about where the foreground compile (~30 s in all) becomes the faster.
COMPILE_SECONDS = {
    "bleu": 150.0,
    "rouge": 45.0,
    "rouge155": 45.0,
    "rouge-weighted": 13.0,
    "chrf": 12.0,
    "ter": 7.0,
    "coco": 25.0,
    "meteor": 45.0,
    "matrices": 30.0,
}

#: seconds of plain-route work per character of cost 1 (:data:`vecscore.route.COST`): ``PLAIN_MAX_CHARS``
#: (2,000,000) is about half a second
SECONDS_PER_CHAR = 0.25e-6

#: a negative readiness answer is looked at again after this many seconds
RECHECK_SECONDS = 2.0

#: a lock older than this is stale whatever its process (a compile never takes an hour; a pid may be reused)
LOCK_MAX_AGE = 3600.0

#: the warmup group of a kind of call, by the kind's first element (``use_plain``'s ``warm``)
GROUP_OF = {"bleu": "bleu", "rouge": "rouge", "rouge155": "rouge155", "rouge-weighted": "rouge-weighted",
            "chrf": "chrf", "ter": "ter", "coco": "coco", "meteor": "meteor",
            "matrices": "matrices"}

_lock = threading.Lock()
_ready: dict[tuple, float | bool] = {}  # (folder, name) -> True, or when it was last found missing
_started: set[tuple] = set()  # (folder, group): compilers this process has started (or found running)
_children: list[subprocess.Popen] = []


def _on(value: str | None) -> bool:
    return (value or "").strip().lower() not in ("0", "false", "no", "off")


def enabled() -> bool:
    """Whether a call whose kernels are not compiled may take the plain route up to the compile time, and start a
    background compiler: ``VECSCORE_BACKGROUND_COMPILE`` (on unless ``0``), and never in a background compiler."""
    return _on(os.environ.get(SETTING, "1")) and not _on(os.environ.get(CHILD, "0"))


def _kinds(warm) -> frozenset:
    return warm if isinstance(warm, frozenset) else frozenset((warm,))


def _group(kind) -> str | None:
    first = kind[0] if isinstance(kind, tuple) and kind else kind
    return GROUP_OF.get(first) if isinstance(first, str) else None


def groups_of(warm) -> frozenset | None:
    """The warmup groups a call of kind ``warm`` (one kind or a ``frozenset``) needs; ``None`` when a kind has none."""
    groups = set()
    for kind in _kinds(warm):
        group = _group(kind)
        if group is None:
            return None
        groups.add(group)
    return frozenset(groups)


def _folder() -> str | None:
    return cache_dir.chosen()[1]


def _kind_name(kind) -> str:
    parts = kind if isinstance(kind, tuple) else (kind,)
    return re.sub(r"[^A-Za-z0-9_.+-]+", "_", "-".join(map(str, parts)))[:200]


def _marker(folder: str, group: str | None = None, kind=None) -> str:
    if kind is not None:
        return os.path.join(folder, "ready", "kinds", _kind_name(kind))
    return os.path.join(folder, "ready", str(group))


def _found(key: tuple, probe: Callable[[], bool]) -> bool:
    """``probe()``, asked again at most every :data:`RECHECK_SECONDS` while it answers no; a yes is kept."""
    now = time.monotonic()
    with _lock:
        seen = _ready.get(key)
    if seen is True:
        return True
    if seen is not None and now - float(seen) < RECHECK_SECONDS:
        return False
    found = probe()
    with _lock:
        _ready[key] = True if found else now
    return found


def _exists(folder: str, key: tuple, path: str) -> bool:
    return _found((folder, key), lambda: os.path.exists(path))


def ready(group: str, folder: str | None = None) -> bool:
    """Whether every kernel of warmup group ``group`` is compiled into the cache folder (its marker exists), or
    a built module holds them and this process can use it (:func:`module_ready`)."""
    folder = _folder() if folder is None else folder
    if folder is not None and _exists(folder, ("group", group), _marker(folder, group)):
        return True
    return module_ready(group)


def module_ready(group: str) -> bool:
    """Whether a built module of ``group`` (:mod:`vecscore.built`) fits this process and will be used: numba not
    loaded here (once it is, every kernel runs through it).  A missing module is looked for again at most every
    :data:`RECHECK_SECONDS`, so that a long-lived process finds the one its background build has written."""
    from vecscore import _jit, built

    if not built.enabled() or _jit.is_active():
        return False

    def look_again() -> bool:
        built.rescan()
        return built.has_group(group)

    return built.has_group(group) or _found(("built", group), look_again)


def kind_ready(kind, folder: str | None = None) -> bool:
    """Whether a call of kind ``kind`` has finished on the compiled route with this cache folder (in any process),
    or its whole group is compiled."""
    folder = _folder() if folder is None else folder
    if folder is None:
        return False
    group = _group(kind)
    if group is not None and ready(group, folder):
        return True
    return _exists(folder, ("kind", _kind_name(kind)), _marker(folder, kind=kind))


def missing_groups(warm) -> frozenset | None:
    """The groups of the kinds in ``warm`` that are not ready; ``None`` for a kind of call with no group."""
    groups = groups_of(warm)
    if groups is None:
        return None
    folder = _folder()
    return frozenset(g for k in _kinds(warm) if not kind_ready(k, folder) for g in (_group(k),) if g is not None)


def cold_budget(warm) -> tuple[float, frozenset]:
    """``(budget, groups)``: the plain-route work (characters of cost 1) a call of kind ``warm`` may take because
    its kernels are not compiled, the estimated compile time of ``groups`` over :data:`SECONDS_PER_CHAR`; ``0``
    when this is off, the kind has no group or everything it needs is compiled."""
    if warm is None or not enabled():
        return 0.0, frozenset()
    groups = missing_groups(warm)
    if not groups:
        return 0.0, frozenset()
    return sum(COMPILE_SECONDS.get(g, 0.0) for g in groups) / SECONDS_PER_CHAR, groups


def _compiles() -> bool:
    """Whether kernels here are really compiled and cached (not ``NUMBA_DISABLE_JIT``, a cache folder)."""
    if _on(os.environ.get("NUMBA_DISABLE_JIT", "0")):
        return False
    cfg = sys.modules.get("numba.core.config")
    return not getattr(cfg, "DISABLE_JIT", False)


def mark_ready(group: str) -> None:
    """Record that warmup group ``group`` is compiled in full into this process's cache folder."""
    folder = _folder()
    if folder is None or not _compiles():
        return
    if cache_dir.write_text(_marker(folder, group), f"compiled by process {os.getpid()} at {time.time():.0f}\n"):
        with _lock:
            _ready[(folder, ("group", group))] = True


def mark_kinds(warm) -> None:
    """Record that a call of kind ``warm`` (every kind of a ``frozenset``) finished on the compiled route."""
    kinds = [k for k in _kinds(warm) if _group(k) is not None]
    if not kinds or not _compiles() or "numba" not in sys.modules:  # no kernel ran in this process
        return
    folder = _folder()
    if folder is None:
        return
    for kind in kinds:
        path = _marker(folder, kind=kind)
        if os.path.exists(path) or cache_dir.write_text(path, f"{kind!r}\n"):
            with _lock:
                _ready[(folder, ("kind", _kind_name(kind)))] = True


# One compiler per group ------------------------------------------------------------------------------------------

def lock_path(folder: str, group: str) -> str:
    return os.path.join(folder, "compiling", f"{group}.lock")


def _holder(path: str) -> int | None:
    """The process id in lock file ``path`` (``None``: unreadable or empty)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    except OSError:
        return False
    try:  # a zombie has finished: its parent has not collected it yet
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _stale(path: str) -> bool:
    try:
        age = time.time() - os.stat(path).st_mtime
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if age > LOCK_MAX_AGE:
        return True
    pid = _holder(path)
    if pid is None:  # being written, or garbage: stale once it is old
        return age > 60
    return not _alive(pid)


def acquire(path: str) -> bool:
    """Create lock file ``path`` holding this process's id; a stale lock (its process gone) is taken over.
    ``False``: another live process holds it (or the folder cannot be written)."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    except OSError:
        return False
    for _ in range(3):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            if not _stale(path):
                return False
            _take_over(path)
            continue
        except OSError:
            return False
        try:
            os.write(fd, f"{os.getpid()}\n".encode())
        finally:
            os.close(fd)
        return True
    return False


def _take_over(path: str) -> None:
    """Remove a stale lock; of several processes doing so at once, one renames it away and the others find it gone.
    The renamed file is checked again: a live lock renamed by mistake (created in between) is put back."""
    aside = f"{path}.{os.getpid()}.stale"
    try:
        os.rename(path, aside)
    except OSError:
        return
    if not _stale(aside):
        try:
            os.link(aside, path)  # fails if yet another lock exists by now: then that one holds
        except OSError:
            pass
    try:
        os.unlink(aside)
    except OSError:
        pass


def _set_holder(path: str, pid: int) -> None:
    cache_dir.write_text(path, f"{pid}\n")


def release(path: str, pids: Iterable[int]) -> None:
    """Remove lock file ``path`` if one of ``pids`` holds it."""
    if _holder(path) in set(pids):
        try:
            os.unlink(path)
        except OSError:
            pass


def _numba_installed() -> bool:
    try:
        return importlib.util.find_spec("numba") is not None
    except (ImportError, ValueError):
        return False


def can_start() -> bool:
    """Whether this process may start a background compiler: on, not one itself, a cache folder, numba."""
    return enabled() and _folder() is not None and _numba_installed()


def _command(group: str, lock: str) -> list[str]:
    """The background compiler's command line."""
    return [sys.executable, "-m", "vecscore.background_job", group, lock, str(os.getpid())]


def _environment(folder: str) -> dict[str, str]:
    env = dict(os.environ)
    env[CHILD] = "1"
    env["VECSCORE_CACHE_DIR"] = folder  # the keyed folder: cache_dir.configure() in the child uses it as is
    env.pop("NUMBA_CACHE_DIR", None)
    return env


def start(groups: Iterable[str]) -> list[int]:
    """Start a background compiler for each of ``groups`` not already compiling (here or in another process);
    the process ids started."""
    if not can_start():
        return []
    folder = _folder()
    assert folder is not None
    pids = []
    for group in sorted(groups):
        with _lock:
            if (folder, group) in _started:
                continue
            _started.add((folder, group))
        if ready(group, folder):
            continue
        try:
            pid = _spawn(folder, group)
        except Exception:  # pragma: no cover - best effort: a failure here must never fail the scoring call
            pid = None
        if pid is not None:
            pids.append(pid)
    return pids


def _spawn(folder: str, group: str) -> int | None:
    path = lock_path(folder, group)
    if not acquire(path):
        return None  # another process is compiling it
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        log = open(os.path.join(folder, "compiling", f"{group}.log"), "ab")
    except OSError:
        log = None
    try:
        command = _command(group, path)
        nice = shutil.which("nice")
        if nice is not None:  # the lowest priority from the start (main() lowers it again where there is no nice)
            command = [nice, "-n", "19", *command]
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                stdout=log if log is not None else subprocess.DEVNULL, stderr=subprocess.STDOUT,
                                start_new_session=True, close_fds=True, cwd=package_parent,
                                env=_environment(folder))
    except OSError:
        release(path, [os.getpid()])
        return None
    finally:
        if log is not None:
            log.close()
    _set_holder(path, proc.pid)
    _children.append(proc)
    threading.Thread(target=proc.wait, name=f"vecscore-compile-{group}", daemon=True).start()  # no zombie
    return proc.pid


def reset() -> None:
    """Forget cached readiness answers and started compilers (for tests)."""
    with _lock:
        _ready.clear()
        _started.clear()
