"""TER (translation edit rate) equal to sacreBLEU 2.6's ``sacrebleu.metrics.TER``.

See :mod:`vecscore.ter.api` for the functions and :mod:`vecscore.kernels.ter`
for the algorithm's exact rules.
"""
from __future__ import annotations

from vecscore.ter.api import TER, TERScore, corpus_ter, sentence_ter, ter_signature, ter_statistics
from vecscore.ter.tokenize import TerTokenizer, ter_tokenize

__all__ = ["TER", "TERScore", "corpus_ter", "sentence_ter", "ter_signature", "ter_statistics", "TerTokenizer",
           "ter_tokenize"]
