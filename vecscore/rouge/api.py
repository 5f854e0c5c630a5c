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

import re
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from vecscore._version import __version__
from vecscore.columns import TextColumn
from vecscore.errors import VecscoreError, VecscoreWarning, warn
from vecscore.frames import row_index
from vecscore.inputs import read_pairs, rows_named, unicode_errors
from vecscore.parallel import accepts_workers
from vecscore.rouge.fscore import check_weighting
from vecscore.rouge.multiref import check_multi_ref, combine
from vecscore.rouge.plain import plain_stats, warm_key
from vecscore.rouge.results import RougeResult
from vecscore.route import note_compiled
from vecscore.text.sentences import SENTENCE_SPLITTERS
from vecscore.text.stemming import get_stemmer
from vecscore.text.stopwords import stopword_set, stopwords_label
from vecscore.text.tokenizers import resolve_tokenizer

__all__ = ["rouge", "parse_metric", "validate_metrics", "DEFAULT_METRICS"]

DEFAULT_METRICS = ("rouge1", "rouge2", "rougeL")
WLCS_MODES = ("rouge155", "textbook")
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
    hyps, _, refs = read_pairs(hyps, refs, refs_layout)  # read once: exact str rows, references with ref_ptr
    parsed = validate_metrics(metrics)
    check_multi_ref(multi_ref)
    check_weighting(alpha, beta)
    resolve_tokenizer(tokenizer)
    if wlcs not in WLCS_MODES:
        raise VecscoreError(f"wlcs must be one of {WLCS_MODES}, not {wlcs!r}")
    kinds = {k for k, _ in parsed}
    need_sentences = "Lsum" in kinds or ("W" in kinds and wlcs == "rouge155")
    if need_sentences:
        _check_splitter(hyps, refs, sentence_splitter, warn_no_lines="Lsum" in kinds)
    transform = make_transform(tokenizer, stemmer, stopwords)
    options = dict(tokenizer=tokenizer, lowercase=lowercase, transform=transform, refs_layout=refs_layout,
                   sentences=need_sentences, wlcs=wlcs, splitter=sentence_splitter if need_sentences else "newline")
    with rows_named(hyps, refs, refs_layout):
        found = plain_stats(hyps, refs, parsed, **options)
        if found is None:
            from vecscore.rouge.compiled import (
                compiled_stats,  # numba loads only on this route
            )

            with unicode_errors(hyps, refs):
                found = compiled_stats(hyps, refs, parsed, **options)
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
