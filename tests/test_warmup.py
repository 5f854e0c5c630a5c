"""``vecscore warmup``: every group runs through the compiled route without an error; the command builds kernel
modules by default and falls back to numba's cache for a group whose module cannot be built."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from vecscore import VecscoreError, aot_build
from vecscore import warmup as warmup_module
from vecscore.cli.main import main
from vecscore.warmup import GROUPS, warmup

ROOT = Path(__file__).resolve().parents[1]


def test_every_group_runs():
    seen = []
    seconds = warmup(report=seen.append)
    assert list(seconds) == list(GROUPS) == ["rouge", "bleu", "rouge155", "rouge-weighted", "chrf", "ter", "coco",
                                              "meteor", "matrices"]
    assert len(seen) == len(GROUPS)


def test_the_command_takes_groups_and_refuses_unknown_ones(capsys):
    assert main(["warmup", "--jit", "--only", "chrf", "ter"]) == 0
    with pytest.raises(VecscoreError, match="unknown warmup group"):
        warmup(["bleu", "nope"])


def test_the_command_builds_modules_by_default(monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(aot_build, "build", lambda groups, **kw: calls.append((groups, kw["jobs"])) or {"ter": 1.0})
    monkeypatch.setattr(warmup_module, "warmup", lambda *a, **k: pytest.fail("compiled into the JIT cache"))
    assert main(["warmup", "--only", "ter", "chrf", "--jobs", "1"]) == 0
    assert main(["warmup"]) == 0
    assert calls == [(["ter", "chrf"], 1), (None, 2)]
    assert "built in" in capsys.readouterr().err


def test_a_group_that_cannot_be_built_is_compiled_into_the_jit_cache(tmp_path):
    """No working C compiler (CC=false): the command says why in one line, fills numba's cache for the group
    instead, exits 0, and the cache then holds the group (its readiness marker)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VECSCORE_", "NUMBA_"))}
    env.update(CC="false", VECSCORE_BUILT_DIR=str(tmp_path / "built"), VECSCORE_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=str(ROOT))
    got = subprocess.run([sys.executable, "-m", "vecscore", "warmup", "--only", "ter"], capture_output=True,
                         text=True, env=env, timeout=1200)
    assert got.returncode == 0, got.stderr[-3000:]
    lines = got.stderr.splitlines()
    (why,) = [line for line in lines if "could not be built" in line]
    assert why.startswith("vecscore warmup: the module(s) of ter could not be built (RuntimeError: ")
    assert "compiler" in why  # numba's own words: no C compiler
    assert "Traceback" not in got.stderr
    assert lines[-1].startswith("vecscore warmup: done in")
    assert list((tmp_path / "cache").rglob("ready/ter"))
    assert not list((tmp_path / "built").rglob("*.so"))
