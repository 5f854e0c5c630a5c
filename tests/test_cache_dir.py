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
