"""The public functions under random input: the oracle's number, or a VecscoreError/MemoryError, never a crash.

The fuzzer (:mod:`tests.fuzz_inputs`) runs in a child process, 100,000 seeded
cases on both routes; it prints every failure with its case number.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_public_functions_under_random_input():
    out = subprocess.run([sys.executable, "-m", "tests.fuzz_inputs", "--cases", "100000", "--seed", "20261124"],
                         cwd=ROOT, capture_output=True, text=True, timeout=1500)
    assert out.returncode == 0, (out.stdout[-4000:], out.stderr[-4000:])
    assert out.stdout.strip().endswith("100000 cases, 0 failures")
    counts = dict(part.split(": ") for part in out.stdout.strip().split("\n")[-2].split(", "))
    assert int(counts["compared with rouge-score"]) > 1000 and int(counts["compared with sacreBLEU"]) > 1000
