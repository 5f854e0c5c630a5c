"""METEOR as NLTK computes it (``nltk.translate.meteor_score``, NLTK 3.9+), for whole batches.

NLTK's METEOR is not Meteor 1.5 (meteor-1.5.jar, :mod:`vecscore.meteor.api`):
it aligns words greedily in three stages (equal words after lowercasing,
equal Porter stems, WordNet synonyms), with no paraphrase table, no function
words and no parameters per language.  For each (hypothesis, reference) pair
with ``m`` matched words, hypothesis length ``h`` and reference length ``r``::

    P = m / h,  R = m / r,  Fmean = P R / (alpha P + (1 - alpha) R)
    score = (1 - gamma (chunks / m) ** beta) * Fmean

(0.0 when ``h``, ``r`` or ``m`` is 0, or the denominator is 0, as NLTK returns
for a division by zero), and with several references the best of their
scores.  The numbers here are NLTK's bit for bit, computed in the same order
(see :mod:`vecscore.meteor.nltk_align` for the alignment, with NLTK's quirk
that the synonym stage looks up the *stem* of the hypothesis word).

Three entry points:

* :func:`nltk_meteor_score` scores a batch, hypotheses first as everywhere in
  vecscore: ``hyps`` a list of token lists, ``refs`` per hypothesis one token
  list or a list of them.  As a vecscore extension, rows may also be texts
  (``str``), which are split on whitespace (``str.split()``).
* :func:`meteor_score` and :func:`single_meteor_score` are drop-in
  replacements for NLTK's functions, with NLTK's signature and argument
  order (references first), its refusal of ``str`` input (an error that is a
  ``TypeError``, as NLTK raises, and a :class:`~vecscore.errors.VecscoreError`)
  and its return value, a Python ``float``.

Stems and synonyms are looked up once per unique word and cached across
calls (:mod:`vecscore.meteor.nltk_lexicon`); WordNet is read through NLTK's
corpus reader and never downloaded.  Small calls are scored pair by pair in
Python (:mod:`vecscore.meteor.nltk_plain`), larger ones on arrays
(:mod:`vecscore.meteor.nltk_arrays`, about 20-40 times NLTK's speed on the
E2E NLG outputs, ``benchmarks/bench_meteor_nltk.py``); both give the same
numbers.
"""
from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.meteor.nltk_arrays import array_scores
from vecscore.meteor.nltk_lexicon import stem_function, synonym_function, wordnet_reader
from vecscore.meteor.nltk_plain import plain_scores
from vecscore.references import read_pairs
from vecscore.route import route

__all__ = ["nltk_meteor_score", "meteor_score", "single_meteor_score", "NotTokenizedError"]


class NotTokenizedError(VecscoreError, TypeError):
    """A ``str`` (or another non-token-list) where NLTK's METEOR wants pre-tokenized input.  A ``TypeError``,
    as NLTK raises for it, and a :class:`~vecscore.errors.VecscoreError`."""


def nltk_meteor_score(hyps: Any, refs: Any, *, alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5,
                      preprocess: Callable[[str], str] = str.lower, stemmer: Any = None,
                      wordnet: Any = None) -> np.ndarray:
    """NLTK's ``meteor_score`` of every hypothesis against its references, as a float64 array.

    Parameters
    ----------
    hyps : sequence of token lists (lists of ``str``), or of texts
        The hypotheses.  Texts (``str``) are split on whitespace with
        ``str.split()`` (a vecscore extension: NLTK itself refuses ``str``).
    refs : sequence, one entry per hypothesis
        Each entry one reference or a non-empty list of references, of the
        same kind as ``hyps`` (token lists, or texts).  A pair scores the
        best of its references (NLTK's ``max``; NaN scores, possible only
        with NaN or infinite parameters, are ordered as Python's ``max``
        orders them).
    alpha, beta, gamma : float
        NLTK's parameters (real numbers, used as Python floats).
    preprocess : callable ``str -> str``
        Applied to every token before matching (NLTK's ``preprocess``),
        once per unique token.
    stemmer : NLTK stemmer or callable, optional
        ``None``: NLTK's default ``PorterStemmer()``.  Called once per unique
        word, so it must give the same stem for the same word every time.
    wordnet : WordNet corpus reader, optional
        ``None``: ``nltk.corpus.wordnet``.  A missing corpus raises
        :class:`~vecscore.meteor.nltk_lexicon.WordNetMissingError`, which says
        how to provide it (nothing is downloaded).

    Returns
    -------
    numpy.ndarray
        One score per hypothesis, in ``[0, 1]`` for NLTK's defaults, equal to
        ``nltk.translate.meteor_score.meteor_score(refs[i], hyps[i])``.

    Examples
    --------
    >>> nltk_meteor_score([["the", "cat", "sat", "on", "the", "mat"]],
    ...                   [[["a", "cat", "was", "sitting", "on", "the", "mat"]]])  # doctest: +SKIP
    array([0.70144928])
    >>> nltk_meteor_score(["the cat sat on the mat"], ["a cat sat on a mat"])  # doctest: +SKIP
    array([0.625])
    """
    params = _params(alpha, beta, gamma)
    rows, kind, refs_read = read_pairs(hyps, refs)
    if kind == "ids":
        raise VecscoreError("NLTK's METEOR compares words: pass token lists (lists of str) or texts, not token ids")
    ref_rows = list(refs_read.flat)
    if kind == "text":
        rows = [x.split() for x in rows]
        ref_rows = [x.split() for x in ref_rows]
    if not callable(preprocess):
        raise VecscoreError(f"preprocess must be a callable str -> str (NLTK's default: str.lower), not {preprocess!r}")
    ptr = refs_read.ptr
    owner = np.repeat(np.arange(len(rows), dtype=np.int64), np.diff(ptr))
    scores = reference_scores(rows, ref_rows, owner, *params, preprocess=preprocess, stemmer=stemmer,
                              wordnet=wordnet)
    return _best(scores, ptr)


def _params(alpha: Any, beta: Any, gamma: Any) -> tuple[float, float, float]:
    out = []
    for name, x in (("alpha", alpha), ("beta", beta), ("gamma", gamma)):
        if not isinstance(x, numbers.Real):
            raise VecscoreError(f"{name} must be a real number, not {x!r:.40}")
        out.append(float(x))
    return out[0], out[1], out[2]


def _best(scores: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """Per pair, the best score of its references as Python's ``max`` picks it: the first, replaced by each
    later one that is greater."""
    nrefs = np.diff(ptr)
    if nrefs.size == 0:
        return np.zeros(0, np.float64)
    best = scores[ptr[:-1]].copy()
    for k in range(1, int(nrefs.max())):
        sel = np.flatnonzero(nrefs > k)
        cand = scores[ptr[sel] + k]
        better = cand > best[sel]
        best[sel[better]] = cand[better]
    return best


# --- the drop-in functions ------------------------------------------------------------------------------


def _words(tokens: Any, what: str, preprocess: Callable[[str], str]) -> list[str]:
    """NLTK's reading of one sentence: a ``str`` refused, every token passed through ``preprocess``."""
    if isinstance(tokens, str):
        raise NotTokenizedError(f'"{what}" expects pre-tokenized {what} (Iterable[str]), not a str: {tokens!r:.80}; '
                                f"split it first (e.g. {what}.split()), or score texts with nltk_meteor_score, "
                                "which splits them on whitespace")
    try:
        tokens = iter(tokens)
    except TypeError:
        raise NotTokenizedError(f'"{what}" expects pre-tokenized {what} (Iterable[str]), not '
                                f"{type(tokens).__name__}") from None
    words = list(map(preprocess, tokens))
    bad = next((w for w in words if not isinstance(w, str)), None)
    if bad is not None:
        raise NotTokenizedError(f"preprocess gave {bad!r:.40} ({type(bad).__name__}) for a token of the {what}; "
                                "it must give str")
    return words


def single_meteor_score(reference: Iterable[str], hypothesis: Iterable[str],
                        preprocess: Callable[[str], str] = str.lower, stemmer: Any = None, wordnet: Any = None,
                        alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5) -> float:
    """NLTK's ``single_meteor_score(reference, hypothesis, ...)``: same signature, order and result.

    ``stemmer=None`` and ``wordnet=None`` stand for NLTK's defaults
    (``PorterStemmer()``, ``nltk.corpus.wordnet``).  A ``str`` reference or
    hypothesis raises :class:`NotTokenizedError` (a ``TypeError``), as NLTK
    raises ``TypeError``.

    Examples
    --------
    >>> single_meteor_score(["this", "is", "a", "cat"], ["non", "matching", "hypothesis"])  # doctest: +SKIP
    0.0
    """
    return meteor_score([reference], hypothesis, preprocess, stemmer, wordnet, alpha, beta, gamma)


def meteor_score(references: Iterable[Iterable[str]], hypothesis: Iterable[str],
                 preprocess: Callable[[str], str] = str.lower, stemmer: Any = None, wordnet: Any = None,
                 alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5) -> float:
    """NLTK's ``meteor_score(references, hypothesis, ...)``: same signature, order and result.

    The best score over the references.  ``stemmer=None`` and
    ``wordnet=None`` stand for NLTK's defaults (``PorterStemmer()``,
    ``nltk.corpus.wordnet``).  As in NLTK: a ``str`` reference or hypothesis
    raises a ``TypeError`` (here :class:`NotTokenizedError`); no references
    raise a ``ValueError`` (here a :class:`~vecscore.errors.VecscoreError`);
    and a hypothesis given as a one-shot iterator (a generator) is used up by
    the first reference, so the others score it as empty (0.0).

    Examples
    --------
    >>> meteor_score([["this", "is", "a", "cat"]], ["this", "is", "a", "cat"])  # doctest: +SKIP
    0.9921875
    """
    params = _params(alpha, beta, gamma)
    if isinstance(references, str):
        raise NotTokenizedError(f'"references" expects a list of pre-tokenized references, not a str: '
                                f"{references!r:.80}")
    refs = list(references)
    if not refs:
        raise VecscoreError("references is empty: METEOR needs at least one reference (NLTK's max() raises "
                            "ValueError here too)")
    one_shot = not isinstance(hypothesis, str) and hasattr(hypothesis, "__next__") and iter(hypothesis) is hypothesis
    hyp = _words(hypothesis, "hypothesis", preprocess)
    ref_words = [_words(r, "reference", preprocess) for r in refs]
    if one_shot:  # NLTK reads it for the first reference; the others find it empty
        hyps, owner = [hyp, []], np.minimum(np.arange(len(refs), dtype=np.int64), 1)
    else:
        hyps, owner = [hyp], np.zeros(len(refs), np.int64)
    scores = reference_scores(hyps, ref_words, owner, *params, preprocess=None, stemmer=stemmer, wordnet=wordnet)
    return max(scores.tolist())


# --- the scores ------------------------------------------------------------------------------------------


#: under ``VECSCORE_ROUTE=auto``, calls with at most this many words (hypothesis words counted once per reference)
#: take the plain route (:mod:`vecscore.meteor.nltk_plain`), larger ones the array route
PLAIN_MAX_WORDS = 2_000


def reference_scores(hyps: list, refs: list, owner: np.ndarray, alpha: float, beta: float, gamma: float, *,
                     preprocess: Callable[[str], str] | None, stemmer: Any = None,
                     wordnet: Any = None) -> np.ndarray:
    """NLTK's ``single_meteor_score(refs[k], hyps[owner[k]])`` for every reference ``k`` (token lists of
    ``str``; ``preprocess=None``: the tokens are preprocessed already), on the route that suits the size
    (``VECSCORE_ROUTE=plain`` or ``compiled`` forces the plain or the array route; both give the same
    numbers)."""
    lexicon = stem_function(stemmer), synonym_function(wordnet_reader(wordnet))
    h_len = np.fromiter(map(len, hyps), np.int64, count=len(hyps))
    r_len = np.fromiter(map(len, refs), np.int64, count=len(refs))
    setting = route()
    work = int(h_len[owner].sum() + r_len.sum())
    if setting == "plain" or (setting == "auto" and work <= PLAIN_MAX_WORDS):
        return plain_scores(hyps, refs, owner, alpha, beta, gamma, preprocess, *lexicon)
    return array_scores(hyps, refs, owner, h_len, r_len, alpha, beta, gamma, preprocess, *lexicon)
