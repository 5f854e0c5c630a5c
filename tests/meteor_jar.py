"""meteor-1.5.jar run as coco-caption runs it (``-stdio``): the oracle of the METEOR tests.

One JVM per call and option set: a ``SCORE ||| ref ||| ... ||| hyp`` line per item, whose answers (the 23
statistics) go back in one ``EVAL`` line per group of items (a system), answered by the per-item scores and
the group's corpus score.
"""
from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest

from tests.meteor_oracle import find_jar, java_available


def require_jar() -> Path:
    jar = find_jar()
    if jar is None or not java_available():
        if os.environ.get("VECSCORE_REQUIRE_DATA", "") not in ("", "0"):
            pytest.fail("meteor-1.5.jar (pip install pycocoevalcap) and java are required in CI")
        pytest.skip("needs java and meteor-1.5.jar (pip install pycocoevalcap)")
    return jar


def jar_stdio(groups: list[tuple[list[str], list[list[str]]]], args: list[str]
              ) -> list[tuple[list[list[float]], list[float], float]]:
    """Per group ``(hyps, refs)``: the jar's statistics rows, per-item scores and corpus score."""
    jar = require_jar()
    proc = subprocess.Popen(["java", "-Xmx2G", "-Duser.language=en", "-Duser.country=US", "-jar", str(jar), "-", "-",
                             "-stdio", *args], cwd=jar.parent, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    lines = "".join("SCORE ||| " + " ||| ".join(rs) + " ||| " + h + "\n" for hyps, refs in groups
                    for h, rs in zip(hyps, refs))
    n = sum(len(h) for h, _ in groups)

    def write() -> None:
        assert proc.stdin is not None
        proc.stdin.write(lines.encode("utf-8"))
        proc.stdin.flush()

    writer = threading.Thread(target=write)
    writer.start()
    stats = [proc.stdout.readline().decode("utf-8").strip() for _ in range(n)]
    writer.join()
    at = 0
    evals = []
    for hyps, _ in groups:
        evals.append("EVAL ||| " + " ||| ".join(stats[at:at + len(hyps)]) + "\n")
        at += len(hyps)
    proc.stdin.write("".join(evals).encode("utf-8"))
    proc.stdin.close()
    answers = [a for a in proc.stdout.read().decode("utf-8").split("\n") if a.strip()]
    err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    proc.wait()
    assert len(answers) == n + len(groups), (answers[-3:], stats[:3], err[-2000:])
    out = []
    at = 0
    k = 0
    for hyps, _ in groups:
        rows = [[float(x) for x in s.split()] for s in stats[at:at + len(hyps)]]
        values = [float(v) for v in answers[k:k + len(hyps) + 1]]
        out.append((rows, values[:-1], values[-1]))
        at += len(hyps)
        k += len(hyps) + 1
    return out
