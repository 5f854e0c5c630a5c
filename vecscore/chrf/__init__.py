"""chrF and chrF++ (sacreBLEU 2.6's ``CHRF``), vectorized: see :mod:`vecscore.chrf.api`."""
from __future__ import annotations

from vecscore.chrf.api import (
    CHRF,
    CHRFScore,
    chrf_statistics,
    corpus_chrf,
    sentence_chrf,
)

__all__ = ["CHRF", "CHRFScore", "chrf_statistics", "corpus_chrf", "sentence_chrf"]
