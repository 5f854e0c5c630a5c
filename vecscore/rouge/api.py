"""ROUGE: orchestration from texts to per-pair scores.

``rouge(hyps, refs, ...)`` validates the options, computes integer statistics
per (pair, reference) on one of two routes (:mod:`vecscore.route`): the
compiled kernels (:mod:`vecscore.rouge.compiled`) or, for small batches, the
plain route (:mod:`vecscore.rouge.plain`), which gives the same statistics
without compiling anything; then reduces them with a multi-reference
convention (:mod:`vecscore.rouge.multiref`).  Argument order is hypotheses first, as in
sacreBLEU; note that rouge-score's ``score(target, prediction)`` is the
other way round (:class:`vecscore.RougeScorer` keeps that order).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from vecscore.columns import TextColumn
from vecscore.errors import VecscoreError, VecscoreWarning, warn
from vecscore.frames import row_index
from vecscore.parallel import accepts_workers
from vecscore.references import read_pairs
from vecscore.rouge.multiref import combine
from vecscore.rouge.options import (
    DEFAULT_METRICS,
    check_options,
    make_transform,
    parse_metric,
    rouge_signature,
    validate_metrics,
)
from vecscore.rouge.plain import plain_stats, warm_key
from vecscore.rouge.results import RougeResult
from vecscore.route import note_compiled
from vecscore.row_errors import rows_named, unicode_errors
from vecscore.text.sentences import SENTENCE_SPLITTERS

__all__ = ["rouge", "parse_metric", "validate_metrics", "DEFAULT_METRICS"]

@accepts_workers
def rouge(
    hyps: Sequence,
    refs: Sequence,
    *,
    metrics: Sequence[str] = DEFAULT_METRICS,
    tokenizer: str | Callable[[str], list[str]] = "rouge-score",
    lowercase: bool = False,
    stemmer: bool | str | Callable[[str], str] = False,
    stopwords: bool | Iterable[str] | None = None,
    multi_ref: str = "best",
    alpha: float | None = None,
    beta: float | None = None,
    refs_layout: str = "per-example",
    sentence_splitter: str = "newline",
    wlcs: str = "rouge155",
) -> RougeResult:
    """Score every (hypothesis, references) pair with ROUGE.

    Parameters
    ----------
    hyps : sequence of str (or token lists, or integer id arrays)
        The system outputs, one per pair.
    refs : sequence
        Per pair, one reference (``str``) or a list of references.  With
        ``refs_layout="streams"``, sacreBLEU's layout ``refs[k][i]``.
    metrics : sequence of str
        ``rouge1``, ``rouge2``, ... (any N >= 1); ``rougeL`` (LCS of the whole
        texts); ``rougeLsum`` (summary-level union LCS over sentences, as
        rouge-score and ROUGE-1.5.5's ROUGE-L); ``rougeW`` / ``rougeW-<alpha>``
        (weighted LCS, f(k) = k**alpha, alpha 1.2 by default).
    tokenizer : str or callable
        ``"rouge-score"`` (default), ``"whitespace"``, ``"char"``, ``"cjk"``,
        ``"jieba"``, ``"jieba-nohmm"``, or a callable ``str -> list[str]``.
    lowercase : bool
        Lowercase before tokenizing (``rouge-score`` always lowercases).
    stemmer : bool, "porter" or callable
        ``True``/``"porter"``: NLTK's Porter stemmer on tokens longer than 3
        characters, as rouge-score's ``use_stemmer=True``.
    stopwords : bool or iterable of str, optional
        Tokens to remove (compared with the tokens as the tokenizer gives
        them, before stemming); ``True`` is the SMART list of ROUGE-1.5.5's
        ``-s``.
    multi_ref : str
        ``best`` (rouge-score ``score_multi``, default), ``best-recall``,
        ``pooled``, ``mean`` or ``jackknife``; see :mod:`vecscore.rouge.multiref`.
    alpha, beta : float, optional
        F weighting (ROUGE-1.5.5 ``-p alpha``, or F-beta); default F1.
    sentence_splitter : str
        How ``rougeLsum`` and ``rougeW`` find sentences: ``"newline"``
        (rouge-score's rule, default) or ``"punct"`` (a deterministic rule
        for text without newlines; see :mod:`vecscore.text.sentences`).
    wlcs : str
        ROUGE-W flavour: ``"rouge155"`` (ROUGE-1.5.5: per-sentence WLCS at
        summary level, with the script's f applied twice in recall's
        denominator, so an identical 5-token text has recall 5**-0.2) or
        ``"textbook"`` (Lin 2004 over the whole texts; identical text = 1).

    Returns
    -------
    RougeResult
        ``result["rouge1"].fmeasure`` etc. are float64 arrays, one per pair;
        ``result.to_pandas()`` keeps the index of a pandas ``hyps`` Series.

    Examples
    --------
    >>> r = rouge(["the cat sat on the mat"], ["the cat is on the mat"], metrics=["rouge1"])
    >>> round(float(r["rouge1"].fmeasure[0]), 6)
    0.833333
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    index = row_index(hyps)  # the caller's row labels, before the rows are read
    hyps, input_kind, refs = read_pairs(hyps, refs, refs_layout)  # read once: exact str rows, references with ref_ptr
    parsed = check_options(metrics, multi_ref, alpha, beta, tokenizer, wlcs)
    kinds = {k for k, _ in parsed}
    need_sentences = "Lsum" in kinds or ("W" in kinds and wlcs == "rouge155")
    if need_sentences:
        _check_splitter(hyps, refs, sentence_splitter, warn_no_lines="Lsum" in kinds)
    transform = make_transform(tokenizer, stemmer, stopwords)
    options = dict(tokenizer=tokenizer, lowercase=lowercase, transform=transform, sentences=need_sentences, wlcs=wlcs,
                   splitter=sentence_splitter if need_sentences else "newline")
    with rows_named(hyps, refs, refs_layout):
        found = plain_stats(hyps, input_kind, refs, parsed, **options)
        if found is None:
            from vecscore.rouge.compiled import (
                compiled_stats,  # numba loads only on this route
            )

            with unicode_errors(hyps, refs):
                found = compiled_stats(hyps, input_kind, refs, parsed, **options)
            note_compiled(warm_key(parsed, tokenizer))
    per_metric, ref_ptr = found
    scores, stats = {}, {}
    for name, (hits, hyp_count, ref_count, exponent) in zip(metrics, per_metric):
        scores[name], st = combine(hits, hyp_count, ref_count, ref_ptr, multi_ref, alpha, beta, exponent)
        if st is not None:
            stats[name] = st
    sig = rouge_signature(list(metrics), tokenizer, lowercase, stemmer, stopwords, multi_ref, alpha, beta,
                          np.diff(ref_ptr))
    return RougeResult(scores, stats, sig, index)


def _check_splitter(hyps, refs, splitter, warn_no_lines):
    """Check the sentence splitter (the routes apply it); warn when rougeLsum would equal rougeL."""
    if splitter not in SENTENCE_SPLITTERS:
        raise VecscoreError(f"sentence_splitter must be one of {SENTENCE_SPLITTERS}, not {splitter!r}")
    if splitter != "newline" or len(hyps) == 0 or not isinstance(hyps[0], str):
        return
    if warn_no_lines and not _any_newline(hyps) and not _any_newline(refs.flat):
        warn(
            "rougeLsum was asked for but no hypothesis or reference contains a newline, so rougeLsum equals rougeL "
            "here: put one sentence per line, or pass sentence_splitter='punct'",
            VecscoreWarning,
        )


def _any_newline(texts) -> bool:
    """Whether a text holds a newline (a string column's buffer is searched as it is)."""
    if isinstance(texts, TextColumn):
        return texts.has_byte(10)
    return any("\n" in t for t in texts if isinstance(t, str))
