"""What a METEOR call returns."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vecscore.meteor.options import MeteorOptions

__all__ = ["MeteorResult"]


@dataclass(frozen=True)
class MeteorResult:
    """Scores of one call: per item (its best reference) and for the corpus (from the summed statistics).

    ``stats`` holds the jar's 23 statistics per item (of the reference that scored best), ``best_ref`` the
    index of that reference (the first of equal scores).
    """

    scores: np.ndarray
    score: float
    stats: np.ndarray
    best_ref: np.ndarray
    options: MeteorOptions = field(repr=False)

    @property
    def signature(self) -> str:
        return self.options.signature

    def __float__(self) -> float:
        return self.score
