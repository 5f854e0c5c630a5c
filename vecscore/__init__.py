"""vecscore: BLEU and ROUGE for millions of pairs, identical to the official tools.

Most public names load on first use (PEP 562), so ``import vecscore`` is
cheap; numba itself loads only when a call takes the compiled route
(:mod:`vecscore.route`).  ``rouge``, ``rouge155`` and ``meteor`` are imported here: they
share their names with their modules, and a lazily set function would be
replaced by the module as soon as anything imported the module.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from vecscore._version import __version__
from vecscore.meteor.api import meteor
from vecscore.rouge.api import rouge
from vecscore.rouge.rouge155.api import perl_average, rouge155, rouge155_args

_EXPORTS = {
    "RougeScorer": "vecscore.rouge.scorer",
    "BLEU": "vecscore.bleu.metric",
    "BLEUScore": "vecscore.bleu.api",
    "corpus_bleu": "vecscore.bleu.api",
    "sentence_bleu": "vecscore.bleu.api",
    "bleu_statistics": "vecscore.bleu.api",
    "corpus_bleu_from_stats": "vecscore.bleu.api",
    "sentence_bleu_from_stats": "vecscore.bleu.api",
    "BleuStats": "vecscore.bleu.stats",
    "CHRF": "vecscore.chrf.api",
    "CHRFScore": "vecscore.chrf.api",
    "corpus_chrf": "vecscore.chrf.api",
    "sentence_chrf": "vecscore.chrf.api",
    "chrf_statistics": "vecscore.chrf.api",
    "TER": "vecscore.ter.api",
    "TERScore": "vecscore.ter.api",
    "corpus_ter": "vecscore.ter.api",
    "sentence_ter": "vecscore.ter.api",
    "ter_statistics": "vecscore.ter.api",
    "confidence_interval": "vecscore.significance.paired",
    "paired_bootstrap": "vecscore.significance.paired",
    "paired_randomization": "vecscore.significance.paired",
    "nltk_corpus_bleu": "vecscore.bleu.nltk",
    "nltk_sentence_bleu": "vecscore.bleu.nltk",
    "rouge_weighted": "vecscore.rouge.weighted",
    "MeteorResult": "vecscore.meteor.result",
    "nltk_meteor_score": "vecscore.meteor.nltk_meteor",
    "SharedReferences": "vecscore.shared_refs",
    "tune_memory": "vecscore.memory",
    "RougeResult": "vecscore.rouge.results",
    "RougeStats": "vecscore.rouge.stats",
    "Score": "vecscore.rouge.results",
    "VecscoreError": "vecscore.errors",
    "EmptyTokenizationWarning": "vecscore.errors",
    "UndefinedMetricWarning": "vecscore.errors",
    "pairwise": "vecscore.matrices.api",
    "pairwise_batch": "vecscore.matrices.api",
    "mbr": "vecscore.matrices.mbr",
    "self_bleu": "vecscore.matrices.diversity",
    "self_score": "vecscore.matrices.diversity",
    "similar_pairs": "vecscore.matrices.similar",
}

__all__ = ["__version__", "rouge", "rouge155", "rouge155_args", "perl_average", "RougeScorer", "BLEU", "BLEUScore",
           "corpus_bleu", "sentence_bleu", "bleu_statistics", "corpus_bleu_from_stats", "sentence_bleu_from_stats",
           "BleuStats", "RougeStats", "CHRF", "CHRFScore", "corpus_chrf", "sentence_chrf", "chrf_statistics", "TER",
           "TERScore", "corpus_ter", "sentence_ter", "ter_statistics", "nltk_corpus_bleu", "nltk_sentence_bleu",
           "rouge_weighted", "tune_memory", "RougeResult", "Score", "VecscoreError", "EmptyTokenizationWarning",
           "UndefinedMetricWarning", "confidence_interval", "paired_bootstrap", "paired_randomization",
           "SharedReferences", "meteor", "MeteorResult", "nltk_meteor_score", "pairwise", "pairwise_batch", "mbr",
           "self_bleu", "self_score", "similar_pairs"]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'vecscore' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from vecscore.bleu.api import (
        BLEUScore,
        bleu_statistics,
        corpus_bleu,
        corpus_bleu_from_stats,
        sentence_bleu,
        sentence_bleu_from_stats,
    )
    from vecscore.bleu.metric import BLEU
    from vecscore.bleu.nltk import nltk_corpus_bleu, nltk_sentence_bleu
    from vecscore.bleu.stats import BleuStats
    from vecscore.chrf.api import CHRF, CHRFScore, chrf_statistics, corpus_chrf, sentence_chrf
    from vecscore.errors import (
        EmptyTokenizationWarning,
        UndefinedMetricWarning,
        VecscoreError,
    )
    from vecscore.matrices.api import pairwise, pairwise_batch
    from vecscore.matrices.diversity import self_bleu, self_score
    from vecscore.matrices.mbr import mbr
    from vecscore.matrices.similar import similar_pairs
    from vecscore.memory import tune_memory
    from vecscore.meteor.nltk_meteor import nltk_meteor_score
    from vecscore.meteor.result import MeteorResult
    from vecscore.rouge.results import RougeResult, Score
    from vecscore.rouge.scorer import RougeScorer
    from vecscore.rouge.stats import RougeStats
    from vecscore.rouge.weighted import rouge_weighted
    from vecscore.shared_refs import SharedReferences
    from vecscore.significance.paired import confidence_interval, paired_bootstrap, paired_randomization
    from vecscore.ter.api import TER, TERScore, corpus_ter, sentence_ter, ter_statistics
