"""vecscore's exception and warning classes."""
from __future__ import annotations

__all__ = ["VecscoreError", "MissingDependencyError", "RowError", "EmptyTokenizationWarning", "UndefinedMetricWarning",
           "VecscoreWarning", "warn"]


class VecscoreError(ValueError):
    """Bad input or options.  The message names the row and the fix."""


class MissingDependencyError(VecscoreError, ImportError):
    """An optional package that the asked-for option needs is not installed; the message says what to install."""


class RowError(VecscoreError):
    """An error about one text of a call, known by its position among all texts (hypotheses, then references).

    The public functions catch it and say which of the user's rows it is
    (``hyps[3]``, ``refs[2][1]``): ``template`` holds ``{row}`` where the name goes.
    """

    def __init__(self, row: int, template: str):
        self.row = int(row)
        self.template = template
        super().__init__(template.format(row=f"text {self.row}"))


class VecscoreWarning(UserWarning):
    """Base class of vecscore's warnings."""


class EmptyTokenizationWarning(VecscoreWarning):
    """Non-empty texts that the tokenizer reduced to zero tokens."""


class UndefinedMetricWarning(VecscoreWarning):
    """A score whose denominator is zero was set by the documented policy."""


def warn(message: str, category: type[Warning] = VecscoreWarning) -> None:
    """``warnings.warn`` attributed to the caller's code: the first frame outside the vecscore package.

    The warning then names the user's file and line (and filters by module
    match it), however deep inside vecscore it was raised.
    """
    import os
    import sys
    import warnings
    from types import FrameType

    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame: FrameType | None = sys._getframe(1)
    level = 2  # level 1 would be this function
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
