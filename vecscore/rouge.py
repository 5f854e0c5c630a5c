"""ROUGE: orchestration from texts to per-pair scores.

``rouge(hyps, refs, ...)`` tokenizes and interns the whole batch once, builds
sparse n-gram count matrices, computes integer statistics per
(pair, reference), and reduces them with a multi-reference convention
(:mod:`vecscore.multiref`).  Argument order is hypotheses first, as in
sacreBLEU; note that rouge-score's ``score(target, prediction)`` is the
other way round (:class:`vecscore.RougeScorer` keeps that order).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from vecscore._version import __version__
from vecscore.batch import PairBatch, build_batch
from vecscore.counts import ngram_counts, overlap
from vecscore.errors import VecscoreError
from vecscore.fscore import check_weighting
from vecscore.multiref import check_multi_ref, combine
from vecscore.results import RougeResult, Score
from vecscore.text.stemming import get_stemmer
from vecscore.text.tokenizers import resolve_tokenizer

__all__ = ["rouge", "parse_metric", "DEFAULT_METRICS"]

DEFAULT_METRICS = ("rouge1", "rouge2")
_ROUGE_N = re.compile(r"rouge([1-9][0-9]*)$")
_VALID_TOKEN = re.compile(r"^[a-z0-9]+$")


def parse_metric(name: str) -> tuple[str, int]:
    """``("n", N)`` for ``rougeN``; errors list what is valid."""
    if isinstance(name, str):
        m = _ROUGE_N.match(name)
        if m:
            return "n", int(m.group(1))
    raise VecscoreError(f"unknown ROUGE metric {name!r}; valid: rouge1, rouge2, ... (any rougeN with N >= 1)")


def validate_metrics(metrics) -> list:
    """Parse every metric name eagerly; the error lists the valid names."""
    if isinstance(metrics, str):
        metrics = [metrics]
    if len(metrics) == 0:
        raise VecscoreError("metrics is empty; name at least one, e.g. ['rouge1', 'rouge2']")
    return [parse_metric(m) for m in metrics]


def _make_transform(tokenizer, stemmer, stopwords):
    stem = get_stemmer(stemmer)
    stop = frozenset(stopwords) if stopwords else None
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


def _signature(metrics, tokenizer, lowercase, stemmer, stopwords, multi_ref, alpha, beta, nrefs) -> str:
    tok = tokenizer if isinstance(tokenizer, str) else "custom"
    stem = "no" if not stemmer else (stemmer if isinstance(stemmer, str) else "porter" if stemmer is True else "custom")
    weight = "f1" if alpha is None and beta is None else (f"alpha={alpha}" if alpha is not None else f"beta={beta}")
    nref = "0" if nrefs.size == 0 else (str(int(nrefs[0])) if np.all(nrefs == nrefs[0]) else "var")
    return (
        f"{'+'.join(metrics)}|tok:{tok}|lc:{'yes' if lowercase or tok == 'rouge-score' else 'no'}|stem:{stem}"
        f"|stop:{'yes' if stopwords else 'no'}|multi:{multi_ref}|f:{weight}|nrefs:{nref}|version:{__version__}"
    )


def rouge(
    hyps: Sequence,
    refs: Sequence,
    *,
    metrics: Sequence[str] = DEFAULT_METRICS,
    tokenizer="rouge-score",
    lowercase: bool = False,
    stemmer=False,
    stopwords=None,
    multi_ref: str = "best",
    alpha: float | None = None,
    beta: float | None = None,
    refs_layout: str = "per-example",
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
        ``rouge1``, ``rouge2``, ... (any N >= 1).
    tokenizer : str or callable
        ``"rouge-score"`` (default), ``"whitespace"``, ``"char"``, ``"cjk"``,
        ``"jieba"``, ``"jieba-nohmm"``, or a callable ``str -> list[str]``.
    lowercase : bool
        Lowercase before tokenizing (``rouge-score`` always lowercases).
    stemmer : bool, "porter" or callable
        ``True``/``"porter"``: NLTK's Porter stemmer on tokens longer than 3
        characters, as rouge-score's ``use_stemmer=True``.
    stopwords : iterable of str, optional
        Tokens to remove (compared before stemming).
    multi_ref : str
        ``best`` (rouge-score ``score_multi``, default), ``best-recall``,
        ``pooled``, ``mean`` or ``jackknife``; see :mod:`vecscore.multiref`.
    alpha, beta : float, optional
        F weighting (ROUGE-1.5.5 ``-p alpha``, or F-beta); default F1.

    Returns
    -------
    RougeResult
        ``result["rouge1"].fmeasure`` etc. are float64 arrays, one per pair.

    Examples
    --------
    >>> r = rouge(["the cat sat on the mat"], ["the cat is on the mat"], metrics=["rouge1"])
    >>> round(float(r["rouge1"].fmeasure[0]), 6)
    0.833333
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    parsed = validate_metrics(metrics)
    check_multi_ref(multi_ref)
    check_weighting(alpha, beta)
    resolve_tokenizer(tokenizer)
    transform = _make_transform(tokenizer, stemmer, stopwords)
    batch = build_batch(hyps, refs, tokenizer=tokenizer, lowercase=lowercase, transform=transform, refs_layout=refs_layout)
    scores, stats = {}, {}
    for name, (kind, n) in zip(metrics, parsed):
        hits, hyp_count, ref_count = rouge_n_stats(batch, n)
        prf = combine(hits, hyp_count, ref_count, batch.ref_ptr, multi_ref, alpha, beta)
        scores[name] = Score(prf.precision, prf.recall, prf.fmeasure)
        stats[name] = {"hits": prf.hits, "p_den": prf.p_den, "r_den": prf.r_den}
    sig = _signature(list(metrics), tokenizer, lowercase, stemmer, stopwords, multi_ref, alpha, beta, batch.nrefs)
    return RougeResult(scores, stats, sig)


def rouge_n_stats(batch: PairBatch, n: int):
    """Per reference row: clipped n-gram hits and reference n-gram count; per pair: hypothesis count."""
    c = ngram_counts(batch.texts, n, batch.n_vocab)
    hits = overlap(c, batch.owner, batch.ref_rows)
    return hits, c.totals[: batch.n_pairs], c.totals[batch.n_pairs :]
