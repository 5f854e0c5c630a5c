"""meteor-1.5.jar as an oracle: find the jar that pycocoevalcap ships, compile small Java harnesses against it,
and run them (or the jar's own main classes) over many lines in one JVM.

Lines go in and come out as UTF-8, one per line, with the JVM's locale pinned to English (Java's
``toLowerCase`` and number formatting follow the default locale).
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

__all__ = ["find_jar", "java_available", "compile_harness", "run_lines", "JVM_ARGS"]

#: UTF-8 for stdin/stdout whatever the platform's default, English locale
JVM_ARGS = ("-Dfile.encoding=UTF-8", "-Dsun.stdout.encoding=UTF-8", "-Dsun.stderr.encoding=UTF-8",
            "-Duser.language=en", "-Duser.country=US", "-Xss16m")


def find_jar() -> Path | None:
    """pycocoevalcap's ``meteor/meteor-1.5.jar``, or None when pycocoevalcap or the jar is missing."""
    spec = importlib.util.find_spec("pycocoevalcap")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        jar = Path(folder) / "meteor" / "meteor-1.5.jar"
        if jar.is_file():
            return jar
    return None


def java_available() -> bool:
    """Whether ``java`` and ``javac`` are on the PATH."""
    return shutil.which("java") is not None and shutil.which("javac") is not None


def compile_harness(tmpdir: str | os.PathLike[str], name: str, source: str) -> str:
    """Compile the class ``name`` (its ``source`` text) against the jar into ``tmpdir``; returns the classpath
    (``tmpdir`` then the jar) to run it with."""
    jar = find_jar()
    if jar is None:
        raise RuntimeError("meteor-1.5.jar not found (pycocoevalcap is not installed)")
    folder = Path(tmpdir)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.java"
    path.write_text(source, encoding="utf-8")
    done = subprocess.run(["javac", "-nowarn", "-encoding", "UTF-8", "-cp", str(jar), "-d", str(folder), str(path)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"javac failed on {name}.java:\n{done.stderr}")
    return f"{folder}{os.pathsep}{jar}"


def run_lines(classpath: str, main: str, lines: Iterable[str], args: Sequence[str] = (),
              timeout: float = 600) -> list[str]:
    """Run ``java -cp classpath main args`` once with ``lines`` on stdin; returns its stdout lines (split on
    ``\\n`` only, so a U+2028 or U+0085 stays inside its line).  A line may not contain ``\\n`` or ``\\r``:
    Java's ``readLine`` would split it."""
    lines = list(lines)
    for i, line in enumerate(lines):
        if "\n" in line or "\r" in line:
            raise ValueError(f"line {i} contains a line break: {line[:60]!r}")
    data = "".join(line + "\n" for line in lines).encode("utf-8", "surrogatepass")
    done = subprocess.run(["java", *JVM_ARGS, "-cp", classpath, main, *args], input=data, capture_output=True,
                          timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"java {main} failed ({done.returncode}):\n{done.stderr.decode('utf-8', 'replace')}")
    out = done.stdout.decode("utf-8")
    if not out:
        return []
    if out.endswith("\n"):
        out = out[:-1]
    return out.split("\n")
