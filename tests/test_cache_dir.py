"""Kernels work, and cache where they can, for a read-only install.

The subprocess test copies the package into a read-only folder and runs the
command line with the permission checks of an ordinary user (root's
``CAP_DAC_OVERRIDE`` dropped with ``setpriv``), a read-only ``HOME`` and a
read-only temporary folder: nothing can be cached, and the scores must still
be right, with a warning and no traceback.
"""
from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import vecscore
from vecscore import cache_dir

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = [str(ROOT / "examples" / f) for f in ("hyps.txt", "refs.txt")]


def _read_only_tree(tmp_path: Path) -> dict:
    site = tmp_path / "site"
    shutil.copytree(ROOT / "vecscore", site / "vecscore", ignore=shutil.ignore_patterns("__pycache__"))
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    for root, dirs, files in os.walk(tmp_path):
        for name in files:
            os.chmod(os.path.join(root, name), 0o444)
        os.chmod(root, 0o555)
    return {"PYTHONPATH": str(site), "HOME": str(home), "TMPDIR": str(tmp), "PATH": os.environ.get("PATH", "")}


def _unprivileged(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: cannot take away root's permission override")
    caps = "-dac_override,-dac_read_search,-fowner"
    return ["setpriv", f"--inh-caps={caps}", f"--bounding-set={caps}", "--", *cmd]


def test_read_only_install_scores_without_a_cache(tmp_path):
    env = _read_only_tree(tmp_path)
    env["VECSCORE_ROUTE"] = "compiled"  # the route that needs the cache
    probe = subprocess.run(_unprivileged(["touch", str(tmp_path / "site" / "vecscore" / "x")]), env=env,
                           capture_output=True)
    assert probe.returncode != 0, "the copied package must not be writable for this test to mean anything"
    cmd = [sys.executable, "-m", "vecscore.cli", "rouge", "--hyps", EXAMPLE[0], "--refs", EXAMPLE[1],
           "--metrics", "rouge1", "--tokenizer", "whitespace"]
    out = subprocess.run(_unprivileged(cmd), env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert "no writable folder for vecscore's compiled kernels" in out.stderr
    hyps = Path(EXAMPLE[0]).read_text(encoding="utf-8").splitlines()
    refs = Path(EXAMPLE[1]).read_text(encoding="utf-8").splitlines()
    want = vecscore.rouge(hyps, refs, metrics=["rouge1"], tokenizer="whitespace").mean()["rouge1"]
    got = json.loads(out.stdout)["rouge1"]
    assert (got["precision"], got["recall"], got["fmeasure"]) == tuple(float(x) for x in want)


def _choose_with(monkeypatch, **env):
    for var in ("VECSCORE_CACHE_DIR", "NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "HOME", "TMPDIR"):
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, str(value))
    return cache_dir._choose()


def test_fallback_order(monkeypatch, tmp_path):
    monkeypatch.setattr(cache_dir, "_package_writable", lambda: False)
    user = tmp_path / "xdg"
    assert _choose_with(monkeypatch, XDG_CACHE_HOME=user) == ("user", str(user / "vecscore" / "numba"))
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    where, folder = _choose_with(monkeypatch, XDG_CACHE_HOME=blocked, HOME=blocked, TMPDIR=tmp_path)
    assert where == "temporary" and folder.startswith(str(tmp_path))
    with pytest.warns(RuntimeWarning, match="not a writable folder"):
        assert _choose_with(monkeypatch, VECSCORE_CACHE_DIR=blocked / "x", XDG_CACHE_HOME=user)[0] == "user"
    assert _choose_with(monkeypatch, NUMBA_CACHE_DIR=tmp_path / "n") == ("NUMBA_CACHE_DIR", str(tmp_path / "n"))
    with pytest.warns(RuntimeWarning, match="no writable folder"):
        assert _choose_with(monkeypatch, XDG_CACHE_HOME=blocked, HOME=blocked, TMPDIR=blocked) == ("none", None)


def test_kernels_built_another_way_have_folders_of_their_own(monkeypatch):
    """numba's cache keys record neither the fast path nor bounds checking: each mode gets its own folder."""
    from vecscore import fast_path

    monkeypatch.delenv("NUMBA_BOUNDSCHECK", raising=False)
    monkeypatch.setattr(fast_path, "enabled", lambda: True)
    assert cache_dir._variant() is None
    monkeypatch.setenv("NUMBA_BOUNDSCHECK", "0")
    assert cache_dir._variant() is None
    monkeypatch.setenv("NUMBA_BOUNDSCHECK", "1")
    assert cache_dir._variant() == "boundscheck"
    monkeypatch.setattr(fast_path, "enabled", lambda: False)
    assert cache_dir._variant() == "fast-path-off-boundscheck"
    monkeypatch.delenv("NUMBA_BOUNDSCHECK")
    assert cache_dir._variant() == "fast-path-off"


_CHOSEN = "from vecscore import cache_dir; print(cache_dir.chosen()[1])"


def _child_folder(env: dict) -> str:
    proc = subprocess.run([sys.executable, "-c", _CHOSEN], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("base_var", ["VECSCORE_CACHE_DIR", "NUMBA_CACHE_DIR"])
def test_a_child_process_shares_its_parents_kernels(tmp_path, base_var):
    """A process configured by vecscore exports ``NUMBA_CACHE_DIR`` = its keyed folder; a child (spawn worker,
    subprocess) inherits it and must use that same folder, not nest the key again (an empty cache: every kernel
    compiled again in every child); a child built another way (variant) uses its variant folder beside it."""
    env = {k: v for k, v in os.environ.items() if k not in ("VECSCORE_CACHE_DIR", "NUMBA_CACHE_DIR",
                                                                "VECSCORE_FAST_PATH", "NUMBA_BOUNDSCHECK")}
    env[base_var] = str(tmp_path)
    parent = _child_folder(env)
    assert parent == os.path.join(str(tmp_path), cache_dir.kernel_key())
    inherited = {k: v for k, v in env.items() if k != base_var}
    inherited["NUMBA_CACHE_DIR"] = parent  # what the parent's configure() exported
    assert _child_folder(inherited) == parent
    variant = _child_folder({**inherited, "NUMBA_BOUNDSCHECK": "1"})
    assert variant == os.path.join(parent, "boundscheck")
    assert _child_folder({**env, "NUMBA_CACHE_DIR": variant}) == parent  # a variant parent, a default child


# The cache can never load machine code built from other sources ------------------------------------------------

def _imported_modules(path: Path) -> set[str]:
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "vecscore":
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "vecscore")
    return found


def _module_file(module: str) -> Path | None:
    base = ROOT / module.replace(".", "/")
    if (base / "__init__.py").exists():
        return base / "__init__.py"
    return base.with_suffix(".py") if base.with_suffix(".py").exists() else None


def test_the_cache_key_covers_every_source_of_compiled_code():
    """Every module that defines a kernel, and every package module such a module imports (its constants and
    kernels are compiled into the machine code), is part of the cache folder's digest."""
    package = ROOT / "vecscore"
    defining = [p for p in package.rglob("*.py") if "vecscore._jit" in _imported_modules(p)]
    assert len(defining) > 20
    needed = set(defining)
    for path in defining:
        needed.update(f for f in map(_module_file, _imported_modules(path)) if f is not None)
    covered = {Path(f) for f in cache_dir._source_files()}
    missing = sorted(str(p.relative_to(package)) for p in needed - covered)
    assert not missing, f"add these to cache_dir.KERNEL_SOURCES: {missing}"


KEY = """
import json
import pickle
from vecscore import cache_dir
print(json.dumps([cache_dir.kernel_key(), cache_dir.chosen()[1]]))
"""


def _key_of(site: Path, tmp_path: Path) -> list:
    env = {**os.environ, "PYTHONPATH": str(site), "VECSCORE_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("NUMBA_BOUNDSCHECK", None)
    env.pop("VECSCORE_FAST_PATH", None)
    out = subprocess.run([sys.executable, "-c", KEY], env=env, capture_output=True, text=True, timeout=120,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_an_edited_inlined_source_gets_a_cache_folder_of_its_own(tmp_path):
    """``pair_rouge`` inlines ``lcs.lcs_trimmed_into``; numba would check only pair_rouge.py.  An edit of lcs.py
    (a ``git pull`` on an editable install, an upgrade) moves every kernel to another folder."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "vecscore", site / "vecscore", ignore=shutil.ignore_patterns("__pycache__"))
    key, folder = _key_of(site, tmp_path)
    assert folder == str(tmp_path / "cache" / key)
    assert key.startswith(f"v{vecscore.__version__}-")
    cli = site / "vecscore" / "cli" / "main.py"  # no kernel is built from the command line's code
    cli.write_text(cli.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert _key_of(site, tmp_path)[0] == key
    lcs = site / "vecscore" / "kernels" / "lcs.py"
    lcs.write_text(lcs.read_text(encoding="utf-8").replace("    return", "    return  # edited", 1), encoding="utf-8")
    edited, edited_folder = _key_of(site, tmp_path)
    assert edited != key and edited_folder == str(tmp_path / "cache" / edited)


# A damaged cache file is compiled again, never an exception in every later process -----------------------------

SMALL_KERNEL = """
import numpy as np
from vecscore.kernels import ngrams
print(ngrams.ngram_offsets(np.array([0, 3, 5, 5], np.int64), 2).tolist())
"""


def _small_kernel(cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "VECSCORE_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-c", SMALL_KERNEL], env=env, capture_output=True, text=True, timeout=600,
                          cwd=ROOT)


@pytest.mark.parametrize("damage", ["truncated index", "empty index", "empty data", "garbage data"])
def test_a_damaged_cache_file_is_compiled_again(tmp_path, damage):
    want = "[0, 2, 3, 3]"  # rows of 3, 2 and 0 tokens hold 2, 1 and 0 bigrams
    first = _small_kernel(tmp_path)
    assert first.returncode == 0 and first.stdout.strip() == want, first.stderr
    suffix = ".nbi" if "index" in damage else ".nbc"
    files = [p for p in tmp_path.rglob(f"*ngram_offsets*{suffix}")]
    assert files, sorted(str(p) for p in tmp_path.rglob("*"))
    for path in files:
        data = path.read_bytes()
        path.write_bytes({"truncated index": data[: len(data) // 2], "empty index": b"", "empty data": b"",
                          "garbage data": b"\x80\x04not a pickle"}[damage])
    again = _small_kernel(tmp_path)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == want
    assert "Traceback" not in again.stderr
    assert again.stderr.count("damaged kernel cache file") == 1, again.stderr
    third = _small_kernel(tmp_path)  # the file was replaced: no warning any more
    assert third.returncode == 0 and third.stdout.strip() == want
    assert "damaged" not in third.stderr, third.stderr


@pytest.mark.parametrize("error, damaged", [
    (pickle.UnpicklingError("invalid load key"), True),
    (EOFError("Ran out of input"), True),
    (MemoryError(), False),
    (ImportError("cmath.so: failed to map segment from shared object"), False),
])
def test_only_a_damaged_file_is_removed(tmp_path, error, damaged, monkeypatch):
    """A file that this process cannot load for want of memory (``ulimit -v``) is kept for the next process."""
    from types import SimpleNamespace

    from vecscore import _jit

    index = tmp_path / "k.nbi"
    index.write_bytes(b"index")
    cache = SimpleNamespace(_cache_file=SimpleNamespace(_index_path=str(index)))

    def load(sig, target_context):
        raise error

    monkeypatch.setattr(_jit, "_warned_cache", [])
    loader = _jit._cache_loader(cache, load, test_only_a_damaged_file_is_removed)
    if damaged:
        with pytest.warns(RuntimeWarning, match="damaged kernel cache file"):
            assert loader(None, None) is None
        assert not index.exists()
    else:
        with pytest.raises(type(error)):
            loader(None, None)
        assert index.read_bytes() == b"index"
