"""Reading and writing segment files without losing or reordering anything."""
from __future__ import annotations

import sys
from pathlib import Path

from vecscore.errors import VecscoreError

__all__ = ["read_lines", "read_aligned"]


def read_lines(path: str) -> list[str]:
    """One segment per line; ``-`` reads standard input.

    A final newline ends the last line (it does not add an empty segment);
    ``\\r\\n`` line ends are accepted.  Undecodable UTF-8 is an error naming
    the file and line.
    """
    if path == "-":
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        p = Path(path)
        if not p.is_file():
            raise VecscoreError(f"cannot read {path}: no such file")
        data = p.read_bytes()
        name = path
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise VecscoreError(f"{name}, line {line}: not valid UTF-8 ({exc.reason}); convert the file to UTF-8") from None
    if text == "":
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def read_aligned(hyp_path: str, ref_paths: list[str]) -> tuple[list[str], list[list[str]] | list[str]]:
    """Hypotheses and one or more reference files, checked to align line by line."""
    hyps = read_lines(hyp_path)
    ref_files = [read_lines(p) for p in ref_paths]
    for p, refs in zip(ref_paths, ref_files):
        if len(refs) != len(hyps):
            raise VecscoreError(
                f"{p} has {len(refs)} lines but {hyp_path} has {len(hyps)}; every file needs one segment per line, "
                "aligned with the hypotheses"
            )
    if len(ref_files) == 1:
        return hyps, ref_files[0]
    return hyps, [list(r) for r in zip(*ref_files)]
