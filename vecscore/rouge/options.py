"""ROUGE's options: the metric names (``rouge1`` ... ``rougeN``, ``rougeL``, ``rougeLsum``, ``rougeW-<alpha>``), the
word transform of stemming and stopwords, and the signature that records them; shared by :func:`vecscore.rouge`,
the shared-reference scorer, ROUGE-W's weighted route, the paired tests and the command line."""
from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from vecscore._version import __version__
from vecscore.errors import VecscoreError
from vecscore.text.stemming import get_stemmer
from vecscore.text.stopwords import stopword_set, stopwords_label
from vecscore.text.tokenizers import resolve_tokenizer

__all__ = ["DEFAULT_METRICS", "MULTI_REF", "WLCS_MODES", "check_multi_ref", "check_options", "check_weighting",
           "parse_metric", "validate_metrics", "make_transform", "rouge_signature"]

DEFAULT_METRICS = ("rouge1", "rouge2", "rougeL")
WLCS_MODES = ("rouge155", "textbook")
#: ``multi_ref``: how a pair's references combine (:func:`vecscore.rouge.multiref.combine`)
MULTI_REF = ("best", "best-recall", "pooled", "mean", "jackknife")
_ROUGE_N = re.compile(r"rouge([1-9][0-9]*)$")
_ROUGE_W = re.compile(r"rougeW(?:-([0-9]+(?:\.[0-9]+)?))?$")
_VALID_TOKEN = re.compile(r"^[a-z0-9]+$")
_VALID = "rouge1, rouge2, ... (any rougeN, N >= 1), rougeL, rougeLsum, rougeW (alpha 1.2) or rougeW-<alpha>"


def parse_metric(name: str) -> tuple[str, float]:
    """``("n", N)``, ``("L", 0)``, ``("Lsum", 0)`` or ``("W", alpha)``; errors list what is valid."""
    if isinstance(name, str):
        if name in ("rougeL", "rougeLsum"):
            return name[5:], 0
        m = _ROUGE_N.match(name)
        if m:
            return "n", int(m.group(1))
        m = _ROUGE_W.match(name)
        if m:
            alpha = float(m.group(1) or 1.2)
            if alpha >= 1.0:
                return "W", alpha
    raise VecscoreError(f"unknown ROUGE metric {name!r}; valid: {_VALID}")


def validate_metrics(metrics: str | Sequence[str]) -> list:
    """Parse every metric name eagerly; the error lists the valid names."""
    if isinstance(metrics, str):
        metrics = [metrics]
    if len(metrics) == 0:
        raise VecscoreError("metrics is empty; name at least one, e.g. ['rouge1', 'rouge2']")
    return [parse_metric(m) for m in metrics]


def check_multi_ref(multi_ref: str) -> None:
    if multi_ref not in MULTI_REF:
        raise VecscoreError(f"multi_ref must be one of {', '.join(MULTI_REF)}; got {multi_ref!r}")


def check_weighting(alpha, beta) -> None:
    if alpha is not None and beta is not None:
        raise VecscoreError("give alpha or beta, not both")
    if alpha is not None and not (0.0 <= float(alpha) <= 1.0):
        raise VecscoreError(f"alpha must be in [0, 1], got {alpha}")
    if beta is not None and not float(beta) >= 0.0:
        raise VecscoreError(f"beta must be >= 0, got {beta}")


def check_options(metrics, multi_ref: str, alpha, beta, tokenizer, wlcs: str = "rouge155") -> list:
    """The parsed metrics (:func:`validate_metrics`), after checking a call's other options: ``multi_ref``,
    the F weighting, the tokenizer and ``wlcs``."""
    parsed = validate_metrics(metrics)
    check_multi_ref(multi_ref)
    check_weighting(alpha, beta)
    resolve_tokenizer(tokenizer)
    if wlcs not in WLCS_MODES:
        raise VecscoreError(f"wlcs must be one of {WLCS_MODES}, not {wlcs!r}")
    return parsed


def make_transform(tokenizer, stemmer, stopwords):
    stem = get_stemmer(stemmer)
    stop = stopword_set(stopwords)
    valid = tokenizer == "rouge-score"
    if stem is None and stop is None:
        return None

    def transform(word: str):
        if stop is not None and word in stop:
            return None
        if stem is not None:
            word = stem(word)
        if valid and not _VALID_TOKEN.match(word):
            return None
        return word

    return transform


def rouge_signature(metrics, tokenizer, lowercase, stemmer, stopwords, multi_ref, alpha, beta, nrefs) -> str:
    tok = tokenizer if isinstance(tokenizer, str) else "custom"
    stem = "no" if not stemmer else (stemmer if isinstance(stemmer, str) else "porter" if stemmer is True else "custom")
    weight = "f1" if alpha is None and beta is None else (f"alpha={alpha}" if alpha is not None else f"beta={beta}")
    nref = "0" if nrefs.size == 0 else (str(int(nrefs[0])) if np.all(nrefs == nrefs[0]) else "var")
    return (
        f"{'+'.join(metrics)}|tok:{tok}|lc:{'yes' if lowercase or tok == 'rouge-score' else 'no'}|stem:{stem}"
        f"|stop:{stopwords_label(stopwords)}|multi:{multi_ref}|f:{weight}|nrefs:{nref}|version:{__version__}"
    )
