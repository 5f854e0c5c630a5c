"""ROUGE's statistics per pair, and the scores computed from them (the counterpart of :class:`vecscore.BleuStats`).

Every ROUGE score in vecscore is a function of three numbers per pair, after
the multi-reference convention has chosen (``best``, ``best-recall``) or pooled
(``pooled``) the references:

``hits``
    the overlap: clipped n-gram matches, LCS length, union-LCS hits, skip-bigram
    matches, or ROUGE-W's weighted LCS ``f(k)`` sum;
``p_den``
    precision's denominator (the hypothesis side);
``r_den``
    recall's denominator (the reference side).

``precision = hits / p_den`` and ``recall = hits / r_den`` (0 where the
denominator is 0), then F (:mod:`vecscore.rouge.fscore`).  ROUGE-W in
:func:`vecscore.rouge` takes each ratio through ``f^-1`` (``x ** (1 / exponent)``).

Per-pair scores, corpus scores pooled from the counts (:meth:`RougeStats.micro`),
the streaming summaries and the Arrow and Ray paths all start from this type.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vecscore.rouge.fscore import f_measure, safe_ratio
from vecscore.rouge.results import Score

__all__ = ["RougeStats"]


@dataclass(frozen=True)
class RougeStats:
    """One ROUGE metric's statistics, one entry per pair.

    Parameters
    ----------
    hits, p_den, r_den : array_like
        Integers, except ROUGE-W's weighted statistics (float64).
    exponent : float, optional
        ROUGE-W's ``alpha`` in :func:`vecscore.rouge`: precision and recall are
        ``(hits / den) ** (1 / exponent)``.  ``None`` for every other metric (and
        for ROUGE-1.5.5's ROUGE-W, whose pooled ratios the script leaves as they are).

    Examples
    --------
    >>> st = RougeStats([3, 0], [4, 0], [6, 2])
    >>> st.scores().recall.tolist()
    [0.5, 0.0]
    >>> st.micro().precision
    0.75
    """

    hits: np.ndarray
    p_den: np.ndarray
    r_den: np.ndarray
    exponent: float | None = None

    def __post_init__(self) -> None:
        for name in ("hits", "p_den", "r_den"):
            object.__setattr__(self, name, np.asarray(getattr(self, name)))

    def __len__(self) -> int:
        return len(self.hits)

    def ratios(self) -> tuple[np.ndarray, np.ndarray]:
        """Precision and recall, float64, one per entry."""
        p, r = safe_ratio(self.hits, self.p_den), safe_ratio(self.hits, self.r_den)
        if self.exponent is not None:
            p, r = np.power(p, 1.0 / self.exponent), np.power(r, 1.0 / self.exponent)
        return p, r

    def scores(self, alpha: float | None = None, beta: float | None = None) -> Score:
        """Per-pair precision, recall and F (F1 unless ``alpha`` or ``beta``; see :mod:`vecscore.rouge.fscore`)."""
        p, r = self.ratios()
        return Score(p, r, f_measure(p, r, alpha, beta))

    def total(self) -> RougeStats:
        """The statistics summed over the pairs (one entry)."""
        hits, p_den, r_den = (np.array([np.sum(a)]) for a in (self.hits, self.p_den, self.r_den))
        return RougeStats(hits, p_den, r_den, self.exponent)

    def micro(self, alpha: float | None = None, beta: float | None = None) -> Score:
        """Corpus scores from the pooled counts, ``sum(hits) / sum(den)``, as Python floats."""
        hits = np.sum(self.hits)
        p, r = float(safe_ratio(hits, np.sum(self.p_den))), float(safe_ratio(hits, np.sum(self.r_den)))
        if self.exponent is not None:
            p, r = p ** (1 / self.exponent), r ** (1 / self.exponent)
        return Score(p, r, float(f_measure(p, r, alpha, beta)))

    def to_dict(self) -> dict:
        """``hits``, ``p_den``, ``r_den`` as lists of Python numbers and ``exponent`` (``json.dumps`` takes it)."""
        return {"hits": self.hits.tolist(), "p_den": self.p_den.tolist(), "r_den": self.r_den.tolist(),
                "exponent": None if self.exponent is None else float(self.exponent)}

    def take(self, index: np.ndarray) -> RougeStats:
        """The entries at ``index`` (e.g. the pairs of one bootstrap resample)."""
        return RougeStats(self.hits[index], self.p_den[index], self.r_den[index], self.exponent)

    @classmethod
    def concat(cls, parts: Sequence[RougeStats]) -> RougeStats:
        """The pairs of several batches of the same metric, in order."""
        if not parts:
            raise ValueError("concat needs at least one RougeStats")
        exponents = {p.exponent for p in parts}
        if len(exponents) != 1:
            raise ValueError("RougeStats of different metrics (ROUGE-W exponents differ) cannot be joined")
        hits, p_den, r_den = (np.concatenate([getattr(p, k) for p in parts]) for k in ("hits", "p_den", "r_den"))
        return cls(hits, p_den, r_den, parts[0].exponent)
