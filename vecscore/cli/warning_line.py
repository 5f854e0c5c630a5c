"""vecscore's warnings on the command line: one line, ``vecscore: warning: <message>``, on stderr.

Python prints a warning as ``FILE:LINE: Category: message`` followed by the source line, which on the
command line names vecscore's launcher script (``.../bin/vecscore:8``) and ``sys.exit(main())``.
:func:`one_line_warnings` replaces :func:`warnings.showwarning` while a command runs (and puts the previous
one back after, so a ``main([...])`` called from Python leaves the process as it was). Lines go through
tqdm's ``write`` when tqdm is loaded, so that a progress bar is drawn again below the warning instead of
being cut by it. Warnings of other packages keep Python's format (they name the code that raised them).
"""
from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from vecscore.errors import VecscoreWarning

__all__ = ["one_line_warnings", "warning_line"]


def warning_line(message) -> str:
    """The one line printed for a vecscore warning: its message with line breaks made spaces."""
    return "vecscore: warning: " + " ".join(str(message).split("\n")).strip()


@contextmanager
def one_line_warnings() -> Iterator[None]:
    """Print vecscore's warnings as one ``vecscore: warning:`` line each while the block runs."""
    previous = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if not (isinstance(category, type) and issubclass(category, VecscoreWarning)):
            return previous(message, category, filename, lineno, file, line)
        _print(warning_line(message), sys.stderr if file is None else file)

    warnings.showwarning = show
    try:
        yield
    finally:
        if warnings.showwarning is show:
            warnings.showwarning = previous


def _print(text: str, stream) -> None:
    tqdm = sys.modules.get("tqdm")
    try:
        if tqdm is not None and getattr(tqdm, "tqdm", None) is not None:
            tqdm.tqdm.write(text, file=stream)
        else:
            stream.write(text + "\n")
            stream.flush()
    except (OSError, ValueError):  # stderr closed: as Python's own showwarning, say nothing
        pass
