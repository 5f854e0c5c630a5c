"""vecscore's exception and warning classes."""
from __future__ import annotations

__all__ = ["VecscoreError", "EmptyTokenizationWarning", "UndefinedMetricWarning", "VecscoreWarning"]


class VecscoreError(ValueError):
    """Bad input or options.  The message names the row and the fix."""


class VecscoreWarning(UserWarning):
    """Base class of vecscore's warnings."""


class EmptyTokenizationWarning(VecscoreWarning):
    """Non-empty texts that the tokenizer reduced to zero tokens."""


class UndefinedMetricWarning(VecscoreWarning):
    """A score whose denominator is zero was set by the documented policy."""
