"""BLEU with NLTK's semantics (``nltk.translate.bleu_score``), for whole batches.

``nltk_corpus_bleu`` and ``nltk_sentence_bleu`` take pre-tokenized input
(lists of ``str`` tokens) and return NLTK's 0..1 scores, within 1e-12 of
nltk 3.9+ for every ``SmoothingFunction`` method, weight tuple (or list of
them) and ``auto_reweigh``, reproducing NLTK's quirks (see
:mod:`vecscore.bleu.formulas`): method0 scores a zero order with
``sys.float_info.min`` (with a warning), methods 5-7 of ``corpus_bleu`` read
the 5-gram precision and length of the *last* pair of the corpus, and
method6 fails where NLTK raises.

Argument order is vecscore's, hypotheses first: NLTK's
``corpus_bleu(list_of_references, hypotheses)`` becomes
``nltk_corpus_bleu(hypotheses, list_of_references)``.  (Swapped arguments
fail loudly: references are one level deeper.)  Strings are refused unless
``tokenize=`` names a sacreBLEU tokenizer; NLTK itself would silently score
character n-grams.

Small batches of text or token lists take the plain route (no numba, same
numbers bit for bit; :mod:`vecscore.route`), others the compiled route.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from vecscore.bleu import formulas as bf
from vecscore.bleu import plain as plain_bleu
from vecscore.bleu import plain_formulas as plain_formulas
from vecscore.bleu.stats import check_brevity_penalty
from vecscore.errors import VecscoreError
from vecscore.inputs import as_rows, exact_units, input_kind
from vecscore.references import read_refs
from vecscore.row_errors import rows_named, unicode_errors

__all__ = ["nltk_corpus_bleu", "nltk_sentence_bleu", "NLTK_METHODS"]

NLTK_METHODS = bf.NLTK_METHODS
TOKENIZERS = plain_bleu.TOKENIZERS  # sacreBLEU's tokenizers, for text input
DEFAULT_WEIGHTS = (0.25, 0.25, 0.25, 0.25)


def nltk_smoothing(smoothing, epsilon, alpha, k):
    """``(name, epsilon, alpha, k)`` from a name, None, or an nltk ``SmoothingFunction().methodN``."""
    if smoothing is None:
        return "method0", epsilon, alpha, k
    if isinstance(smoothing, str):
        if smoothing not in NLTK_METHODS:
            raise VecscoreError(f"unknown smoothing {smoothing!r}; valid: None, {', '.join(NLTK_METHODS)}")
        return smoothing, epsilon, alpha, k
    owner = getattr(smoothing, "__self__", None)
    name = getattr(smoothing, "__name__", None)
    if owner is not None and name in NLTK_METHODS and all(hasattr(owner, a) for a in ("epsilon", "alpha", "k")):
        return name, owner.epsilon, owner.alpha, owner.k
    raise VecscoreError(
        f"smoothing must be None, a name ('method0' ... 'method7') or nltk's SmoothingFunction().methodN, "
        f"not {smoothing!r} (custom smoothing functions cannot run vectorized)"
    )


def nltk_max_order(weights, method: str) -> int:
    try:
        weights[0][0]
        many = list(weights)
    except (TypeError, IndexError):
        many = [weights]
    if not many or any(len(w) == 0 for w in many):
        raise VecscoreError("weights must be a non-empty tuple of floats, or a list of such tuples")
    k = max(len(w) for w in many)
    return max(k, 5) if method in ("method5", "method7") else k


def _stats(hyps, refs, weights, method, tokenize, lowercase, brevity_penalty, refs_layout):
    """``(stats, formulas)``: the statistics, and the formulas of the route that computed them."""
    check_brevity_penalty(brevity_penalty)
    hyps = as_rows(hyps, "hyps")
    if hyps and isinstance(hyps[0], (list, tuple)) and hyps[0] and isinstance(hyps[0][0], (list, tuple)):
        raise VecscoreError(
            "hyps[0] is a list of token lists, which is what NLTK's references look like: NLTK's corpus_bleu and "
            "sentence_bleu take the references first, vecscore's nltk_* functions take the hypotheses first: "
            "nltk_corpus_bleu(hypotheses, list_of_references)"
        )
    kind = input_kind(hyps)
    if kind == "text":
        if tokenize is None:
            raise VecscoreError(
                "NLTK's BLEU takes token lists; got strings. Pass token lists, or tokenize='none' (whitespace) "
                f"or another sacreBLEU tokenizer ({', '.join(TOKENIZERS)}). (nltk itself would silently score "
                "character n-grams.)"
            )
        if tokenize not in TOKENIZERS:
            raise VecscoreError(f"unknown tokenize {tokenize!r}; valid: {', '.join(TOKENIZERS)}")
    elif lowercase:
        raise VecscoreError("lowercase=True needs text input; lowercase the tokens yourself")
    hyps = exact_units(hyps, kind, "hyps")  # read once: every later step takes these rows and references
    refs = read_refs(refs, len(hyps), kind, refs_layout)
    options = dict(tokenize=tokenize, lowercase=lowercase, max_order=nltk_max_order(weights, method),
                   brevity_penalty=brevity_penalty)
    plain = plain_bleu.plain_inputs(hyps, refs, kind=kind, tokenize=tokenize)
    if plain is not None:
        return plain_bleu.bleu_stats(*plain, kind=kind, **options), plain_formulas
    with rows_named(hyps, refs, refs_layout), unicode_errors(hyps, refs):
        return _compiled_stats(hyps, refs, refs_layout=refs_layout, kind=kind, **options), bf


def _compiled_stats(hyps, refs, **options):
    """The compiled route (:mod:`vecscore.bleu.direct`, imported here: it loads numba)."""
    from vecscore.bleu.direct import general_stats

    return general_stats(hyps, refs, **options)


def nltk_corpus_bleu(
    hyps: Iterable[Any], refs: Iterable[Any], *,
    weights: Sequence[float] | Sequence[Sequence[float]] = DEFAULT_WEIGHTS,
    smoothing: str | Callable[..., Any] | None = None, epsilon: float = 0.1, alpha: float = 5, k: float = 5,
    auto_reweigh: bool = False, brevity_penalty: str = "closest", tokenize: str | None = None,
    lowercase: bool = False, refs_layout: str = "per-example", on_error: str = "raise",
) -> float | np.ndarray:
    """``nltk.translate.bleu_score.corpus_bleu(refs, hyps, ...)`` (0..1).

    Parameters
    ----------
    hyps : sequence of list of str
        Tokenized hypotheses (NLTK's ``hypotheses``).
    refs : sequence
        Per pair a list of tokenized references (NLTK's ``list_of_references``);
        ``refs_layout="streams"`` takes ``refs[k][i]`` instead.
    weights : tuple of float, or list of tuples
        A list returns an array with one score per weight tuple.
    smoothing : None, "method0" ... "method7", or nltk's ``SmoothingFunction().methodN``
        NLTK's ``smoothing_function``; a bound nltk method brings its own
        ``epsilon``, ``alpha`` and ``k``.
    epsilon, alpha, k : float
        ``SmoothingFunction(epsilon, alpha, k)``.
    auto_reweigh : bool
    brevity_penalty : {"closest", "shortest"}
        NLTK uses the closest reference length (ties to the shorter).
    tokenize : str, optional
        Needed only for string input: a sacreBLEU tokenizer name.
    on_error : {"raise", "nan"}
        Where NLTK's method6 raises (zero trigram precision).

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> hyp = "the cat sat on the mat".split()
    >>> refs = ["the cat is on the mat".split(), "the bird sat on the bush".split()]
    >>> round(nltk_corpus_bleu([hyp], [refs], weights=(0.5, 0.5)) ** 2, 12)
    0.8
    """
    method, epsilon, alpha, k = nltk_smoothing(smoothing, epsilon, alpha, k)
    s, formulas = _stats(hyps, refs, weights, method, tokenize, lowercase, brevity_penalty, refs_layout)
    return formulas.nltk_corpus(s.sys_len, s.ref_len, s.correct.T, s.total.T, weights=weights, smoothing=method,
                                epsilon=epsilon, alpha=alpha, k=k, auto_reweigh=auto_reweigh,
                                on_error=on_error)


def nltk_sentence_bleu(
    hyps: Iterable[Any], refs: Iterable[Any], *,
    weights: Sequence[float] | Sequence[Sequence[float]] = DEFAULT_WEIGHTS,
    smoothing: str | Callable[..., Any] | None = None, epsilon: float = 0.1, alpha: float = 5, k: float = 5,
    auto_reweigh: bool = False, brevity_penalty: str = "closest", tokenize: str | None = None,
    lowercase: bool = False, refs_layout: str = "per-example", on_error: str = "raise",
) -> np.ndarray:
    """``nltk.translate.bleu_score.sentence_bleu(refs[i], hyps[i], ...)`` for every pair (0..1).

    Parameters are those of :func:`nltk_corpus_bleu`.

    Returns
    -------
    ndarray
        Shape ``(N,)`` for one weight tuple, ``(n_weights, N)`` for a list.
    """
    method, epsilon, alpha, k = nltk_smoothing(smoothing, epsilon, alpha, k)
    s, formulas = _stats(hyps, refs, weights, method, tokenize, lowercase, brevity_penalty, refs_layout)
    return formulas.nltk_sentence(s.sys_len, s.ref_len, s.correct.T, s.total.T, weights=weights, smoothing=method,
                                  epsilon=epsilon, alpha=alpha, k=k, auto_reweigh=auto_reweigh,
                                  on_error=on_error)
