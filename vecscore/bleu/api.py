"""BLEU with sacreBLEU's semantics: corpus and sentence scores for whole batches.

Text goes through sacreBLEU's tokenizers once and int64 statistics are
computed per pair (:class:`~vecscore.bleu.stats.BleuStats`); corpus BLEU is
computed from their sums and sentence BLEU from each row
(:mod:`vecscore.bleu.formulas`), bit-identical to sacreBLEU 2.6.  Argument
order is hypotheses first, as sacreBLEU's ``corpus_score(hyps, refs)``.

Two routes give the same numbers bit for bit (:mod:`vecscore.route`): small
batches go the plain route (:mod:`vecscore.bleu.plain` and
:mod:`vecscore.bleu.plain_formulas`, no numba), others the compiled route
(:mod:`vecscore.bleu.direct`, imported on first use: :mod:`vecscore.bleu.scoring`).

Reference layouts (never guessed):

``refs_layout="auto"`` (the default of the functions and of :class:`BLEU`)
    sacreBLEU's streams when the references have their shape, else
    per-example; when both fit with different meanings (as many streams as
    hypotheses) the call is refused and names the two options
    (:func:`vecscore.references.read_refs`).  So ``corpus_bleu(h, [r1, r2])`` and
    ``BLEU().corpus_score(h, [r1, r2])`` give sacreBLEU's number or refuse,
    never another number.
``refs_layout="per-example"``
    ``refs[i]`` is pair ``i``'s reference (a ``str``) or list of references.
``refs_layout="streams"`` (sacreBLEU's)
    ``refs[k][i]`` is the k-th reference of pair ``i``; ``None`` marks a
    missing one (``""`` is an *empty reference*, of length 0, as in
    sacreBLEU's code).  Every stream must have one entry per hypothesis:
    sacreBLEU silently truncates to the shortest, vecscore raises.

sacreBLEU's class ``BLEU`` is :class:`vecscore.bleu.metric.BLEU`.  Which sacreBLEU call each function equals:

=====================================  ==============================================================
vecscore                               sacreBLEU 2.6
=====================================  ==============================================================
``corpus_bleu(h, r)``                  ``sacrebleu.corpus_bleu(h, r)`` = ``BLEU().corpus_score(h, r)``
``sentence_bleu(h, r)`` (per pair)     ``sacrebleu.sentence_bleu(h_i, r_i)``: exp smoothing,
                                       **effective order on**
``BLEU(**kw).sentence_scores(h, r)``   ``BLEU(**kw).sentence_score(h_i, r_i)`` per pair: the
                                       class's defaults, **effective order off**
=====================================  ==============================================================
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from vecscore.bleu import plain_formulas as plain_formulas
from vecscore.bleu.options import (
    SMOOTH_METHODS,
    TOKENIZERS,
    Options,
    TokenizedInputWarning,
    warn_cjk,
    warn_tokenized,
)
from vecscore.bleu.scores import BLEUScore, BLEUScores
from vecscore.bleu.scoring import (
    call_stats,
    check_stats,
    corpus_result,
    read_call,
    resolve_effective_order,
    sentence_result,
)
from vecscore.bleu.stats import BREVITY_PENALTIES, BleuStats
from vecscore.errors import VecscoreError
from vecscore.frames import row_index
from vecscore.inputs import as_rows
from vecscore.parallel import accepts_workers
from vecscore.sacrebleu_protocol import sacrebleu_keywords

__all__ = [
    "BLEUScore",
    "BLEUScores",
    "TokenizedInputWarning",
    "corpus_bleu",
    "raw_corpus_bleu",
    "sentence_bleu",
    "bleu_statistics",
    "corpus_bleu_from_stats",
    "sentence_bleu_from_stats",
    "BREVITY_PENALTIES",
    "SMOOTH_METHODS",
    "TOKENIZERS",
]

# --- functions -------------------------------------------------------------------------------


def bleu_statistics(hyps: Iterable[Any], refs: Iterable[Any], *, tokenize: str = "13a", lowercase: bool = False,
                    max_ngram_order: int = 4, brevity_penalty: str = "closest",
                    refs_layout: str = "auto") -> BleuStats:
    """Per-pair int64 BLEU statistics (see :mod:`vecscore.bleu.compiled`).

    Corpus BLEU of any subset (bootstrap samples, chunks of a stream, shards of
    a distributed job) is ``corpus_bleu_from_stats(stats.take(idx))``.
    """
    opts = Options(tokenize=tokenize, lowercase=lowercase, max_ngram_order=max_ngram_order,
                    brevity_penalty=brevity_penalty)
    return call_stats(*read_call(hyps, refs, opts, refs_layout), opts)[0]


@sacrebleu_keywords(hypotheses="hyps", references="refs")
@accepts_workers
def corpus_bleu(
    hyps: Iterable[Any], refs: Iterable[Any], smooth_method: str = "exp", smooth_value: float | None = None,
    force: bool = False, lowercase: bool = False, tokenize: str = "13a", use_effective_order: bool | None = None, *,
    max_ngram_order: int = 4, effective_order: bool | None = None, brevity_penalty: str = "closest",
    refs_layout: str = "auto",
) -> BLEUScore:
    """Corpus BLEU (0..100), as ``sacrebleu.corpus_bleu``.

    The arguments up to ``use_effective_order`` are sacreBLEU's, in its
    order; the others are keyword-only.

    Parameters
    ----------
    hyps : sequence of str
        System outputs, one per pair (or token lists / id arrays with
        ``tokenize="none"``).
    refs : sequence
        sacreBLEU's streams ``refs[k][i]`` (``None`` for a missing reference),
        or per pair a ``str`` or a list of ``str``; see ``refs_layout``.
    tokenize : {"13a", "intl", "zh", "zh-fixed", "char", "none"}
        sacreBLEU's tokenizers, token-identical (``zh`` keeps sacrebleu#298's
        character ranges; ``zh-fixed`` is the corrected variant).
    lowercase : bool
    smooth_method : {"exp", "floor", "add-k", "none"}
    smooth_value : float, optional
        ``floor``'s epsilon (0.1) or ``add-k``'s k (1).
    force : bool
        Silence the :class:`TokenizedInputWarning` (100 or more hypotheses
        ending in " .").
    use_effective_order, effective_order : bool
        One option under sacreBLEU's name and vecscore's (default False).
    max_ngram_order : int
    brevity_penalty : {"closest", "shortest"}
        Reference length of each pair: the closest to the hypothesis length
        (ties to the shorter; sacreBLEU, NLTK) or the shortest (HF ``bleu``).
    refs_layout : {"auto", "per-example", "streams"}
        ``auto`` (default): the layout the references' shape fits; refused
        when both fit with different meanings (then name one).

    Returns
    -------
    BLEUScore
        ``score``, ``counts``, ``totals``, ``precisions``, ``bp``,
        ``sys_len``, ``ref_len``, ``signature``, and the per-pair ``stats``.

    Examples
    --------
    >>> s = corpus_bleu(["the cat sat on the mat"], [["the cat is on the mat", "the bird sat on the bush"]],
    ...                 tokenize="none", max_ngram_order=2, smooth_method="none")
    >>> s.counts.tolist(), s.totals.tolist(), s.bp, round(s.score, 10) == round(100 * 0.8 ** 0.5, 10)
    ([6, 4], [6, 5], 1.0, True)
    """
    opts = Options(tokenize, lowercase, smooth_method, smooth_value, max_ngram_order,
                   resolve_effective_order(use_effective_order, effective_order, False), brevity_penalty, force)
    hyps, kind, read = read_call(hyps, refs, opts, refs_layout)
    stats, formulas = call_stats(hyps, kind, read, opts)
    warn_tokenized(hyps, kind, opts)
    warn_cjk(hyps, kind, opts)
    return corpus_result(stats, opts, formulas)


@sacrebleu_keywords(hypothesis="hyps", references="refs")
@accepts_workers
def sentence_bleu(
    hyps: str | Iterable[Any], refs: Iterable[Any], smooth_method: str = "exp", smooth_value: float | None = None,
    lowercase: bool = False, tokenize: str = "13a", use_effective_order: bool | None = None, *,
    max_ngram_order: int = 4, effective_order: bool | None = None, brevity_penalty: str = "closest",
    refs_layout: str = "auto",
) -> BLEUScores | BLEUScore:
    """Sentence BLEU (0..100) of every pair in one call, or of one hypothesis as sacreBLEU.

    Pair ``i``'s score equals ``sacrebleu.sentence_bleu(hyps[i], refs_i)``
    (the legacy function: exp smoothing, **effective order on**).  For
    ``BLEU().sentence_score``'s defaults (effective order off) use
    ``BLEU().sentence_scores`` or ``effective_order=False``.  Parameters are
    those of :func:`corpus_bleu` (the positional ones in sacreBLEU's
    ``sentence_bleu`` order, without ``force``).  sacreBLEU's own form, one
    hypothesis ``str`` and a list of its references, returns one
    :class:`BLEUScore`.

    Returns
    -------
    BLEUScores
        ``score`` has shape ``(N,)``; a :class:`BLEUScore` for a single ``str`` hypothesis.

    Examples
    --------
    >>> sentence_bleu(["hello there", "hello there"], ["hello there", "hi"]).score.round(6).tolist()
    [100.0, 0.0]
    >>> round(sentence_bleu("hello there general kenobi", ["hello there general kenobi", "hi"]).score, 6)
    100.0
    """
    opts = Options(tokenize, lowercase, smooth_method, smooth_value, max_ngram_order,
                   resolve_effective_order(use_effective_order, effective_order, True), brevity_penalty, True)
    if isinstance(hyps, str):  # sacreBLEU's sentence_bleu(hypothesis, references)
        if isinstance(refs, (str, bytes)) or not hasattr(refs, "__iter__"):
            raise VecscoreError("with one hypothesis (a str), refs must be the list of its references "
                                "(sacreBLEU's sentence_bleu(hypothesis, [ref1, ref2, ...])), not a single string")
        stats, formulas = call_stats(*read_call([hyps], [as_rows(refs, "refs")], opts, "per-example"), opts)
        return sentence_result(stats, opts, formulas)[0]
    index = row_index(hyps)  # the caller's row labels (a pandas Series' index), for to_pandas()
    hyps, kind, read = read_call(hyps, refs, opts, refs_layout)
    stats, formulas = call_stats(hyps, kind, read, opts)
    warn_cjk(hyps, kind, opts)
    return replace(sentence_result(stats, opts, formulas), index=index)


@sacrebleu_keywords(hypotheses="hyps", references="refs")
def raw_corpus_bleu(hyps: Iterable[Any], refs: Iterable[Any], smooth_value: float | None = None) -> BLEUScore:
    """sacreBLEU's ``raw_corpus_bleu``: corpus BLEU of text tokenized already (``tokenize="none"``), ``floor``
    smoothing (``smooth_value``, default 0.1), effective order, no tokenized-input warning.

    >>> round(raw_corpus_bleu(["this is a fest"], [["this is a test"]], .01).score / 100, 12)
    0.22360679775
    """
    return corpus_bleu(hyps, refs, "floor", smooth_value, True, False, "none", True)


def corpus_bleu_from_stats(stats: BleuStats, **options: Any) -> BLEUScore:
    """Corpus BLEU from (e.g. concatenated or resampled) statistics.

    ``options`` are :func:`corpus_bleu`'s scoring options (``smooth_method``,
    ``smooth_value``, ``effective_order``, ``max_ngram_order`` <= the
    statistics' order, and ``tokenize``/``lowercase``/``brevity_penalty``
    for the signature only).
    """
    options.setdefault("max_ngram_order", stats.max_order)
    opts = Options(**options)
    return corpus_result(check_stats(stats, opts), opts)


def sentence_bleu_from_stats(stats: BleuStats, **options: Any) -> BLEUScores:
    """Sentence BLEU of every row of ``stats`` (options as :func:`sentence_bleu`)."""
    options.setdefault("max_ngram_order", stats.max_order)
    options.setdefault("effective_order", True)
    opts = Options(**options)
    return sentence_result(check_stats(stats, opts), opts)
