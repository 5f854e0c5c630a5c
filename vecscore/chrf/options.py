"""chrF's options as sacreBLEU's ``CHRF`` names them, checked, and its signature."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vecscore._version import __version__
from vecscore.errors import VecscoreError

__all__ = ["Options"]


@dataclass(frozen=True)
class Options:
    """sacreBLEU's ``CHRF`` options, checked."""

    char_order: int = 6
    word_order: int = 0
    beta: float = 2
    lowercase: bool = False
    whitespace: bool = False
    eps_smoothing: bool = False

    def __post_init__(self):
        for name in ("char_order", "word_order"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
                raise VecscoreError(f"{name} must be an int >= 0, got {v!r}")
        if self.char_order + self.word_order < 1:
            raise VecscoreError("char_order + word_order must be at least 1 (chrF needs some n-gram order)")
        if isinstance(self.beta, bool) or not isinstance(self.beta, (int, float, np.integer, np.floating)):
            raise VecscoreError(f"beta must be a number, got {self.beta!r}")

    @property
    def order(self) -> int:
        return int(self.char_order) + int(self.word_order)

    @property
    def width(self) -> int:
        """Columns of a statistics row: ``3 * (char_order + word_order)``."""
        return 3 * self.order

    def signature(self, nrefs, short: bool = False) -> str:
        """sacreBLEU's ``CHRFSignature`` format (``nrefs`` an int or ``"var"``), with vecscore's version."""
        items = [("nrefs", "#", nrefs), ("case", "c", "lc" if self.lowercase else "mixed"),
                 ("eff", "e", "no" if self.eps_smoothing else "yes"), ("nc", "nc", self.char_order),
                 ("nw", "nw", self.word_order), ("space", "s", "yes" if self.whitespace else "no"),
                 ("version", "v", __version__)]
        return "|".join(f"{abbr if short else key}:{value}" for key, abbr, value in items)
