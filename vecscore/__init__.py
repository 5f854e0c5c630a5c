"""vecscore: BLEU and ROUGE for millions of pairs, identical to the official tools.

Most public names load on first use (PEP 562), so ``import vecscore`` is
cheap; numba itself loads only when a call takes the compiled route
(:mod:`vecscore.route`).  ``rouge`` and ``rouge155`` are imported here: they
share their names with their modules, and a lazily set function would be
replaced by the module as soon as anything imported the module.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from vecscore._version import __version__
from vecscore.rouge import rouge
from vecscore.rouge155 import perl_average, rouge155, rouge155_args

_EXPORTS = {
    "RougeScorer": "vecscore.rouge_scorer",
    "BLEU": "vecscore.bleu",
    "BLEUScore": "vecscore.bleu",
    "corpus_bleu": "vecscore.bleu",
    "sentence_bleu": "vecscore.bleu",
    "bleu_statistics": "vecscore.bleu",
    "corpus_bleu_from_stats": "vecscore.bleu",
    "sentence_bleu_from_stats": "vecscore.bleu",
    "BleuStats": "vecscore.stats",
    "nltk_corpus_bleu": "vecscore.bleu_nltk",
    "nltk_sentence_bleu": "vecscore.bleu_nltk",
    "rouge_weighted": "vecscore.rouge_weighted",
    "tune_memory": "vecscore.memory",
    "RougeResult": "vecscore.results",
    "Score": "vecscore.results",
    "VecscoreError": "vecscore.errors",
    "EmptyTokenizationWarning": "vecscore.errors",
    "UndefinedMetricWarning": "vecscore.errors",
}

__all__ = ["__version__", "rouge", "rouge155", "rouge155_args", "perl_average", *_EXPORTS]


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
    from vecscore.bleu import (
        BLEU,
        BLEUScore,
        bleu_statistics,
        corpus_bleu,
        corpus_bleu_from_stats,
        sentence_bleu,
        sentence_bleu_from_stats,
    )
    from vecscore.bleu_nltk import nltk_corpus_bleu, nltk_sentence_bleu
    from vecscore.errors import (
        EmptyTokenizationWarning,
        UndefinedMetricWarning,
        VecscoreError,
    )
    from vecscore.memory import tune_memory
    from vecscore.results import RougeResult, Score
    from vecscore.rouge_scorer import RougeScorer
    from vecscore.rouge_weighted import rouge_weighted
    from vecscore.stats import BleuStats
