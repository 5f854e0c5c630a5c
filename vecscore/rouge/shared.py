"""ROUGE of many hypotheses against one shared set of references (:meth:`vecscore.SharedReferences.rouge`).

Every hypothesis is compared with every reference, so the statistics are
per (hypothesis, reference): ROUGE-N's clipped hits, LCS lengths, union-LCS
hits, ROUGE-W's weighted LCS.  The references are *not* repeated per pair:
a block of hypotheses and the references are tokenized and interned
together, once (:func:`vecscore.engine.batch.build_batch`: the texts are its
rows), and the kernels of the compiled route (:mod:`vecscore.kernels.lcs`,
:mod:`vecscore.kernels.union_lcs`, :mod:`vecscore.kernels.wlcs`, the n-gram
count matrices of :mod:`vecscore.engine.counts`) score (hypothesis row,
reference row) index pairs into that one batch.  The multi-reference
conventions (:mod:`vecscore.rouge.multiref`) then reduce each hypothesis's
per-reference statistics, so ``multi_ref="best"`` equals rouge-score's
``score_multi(references, hypothesis)``.

Hypotheses go in blocks of about :data:`BLOCK_PAIRS` (hypothesis, reference)
pairs, so memory is bounded by a block whatever the number of hypotheses.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from vecscore.engine.batch import build_batch
from vecscore.errors import VecscoreError
from vecscore.rouge.compiled import metric_stats
from vecscore.rouge.multiref import combine
from vecscore.rouge.options import check_options, make_transform, rouge_signature
from vecscore.rouge.results import RougeResult, Score
from vecscore.rouge.splitting import split_sentences
from vecscore.rouge.stats import RougeStats
from vecscore.text.sentences import SENTENCE_SPLITTERS

__all__ = ["BLOCK_PAIRS", "shared_rouge"]

#: (hypothesis, reference) pairs scored per block
BLOCK_PAIRS = 1 << 20

_EMPTY = {"text": "", "tokens": [[]], "ids": np.zeros(0, np.int64)}


def _block_stats(batch, n: int, n_refs: int, kind: str, param, wlcs: str):
    """``(hits, hyp_count, ref_count, exponent)`` per (hypothesis, reference), hypothesis-major: the batch's first
    ``n`` texts are the hypotheses, the next ``n_refs`` the references."""
    hyp_rows = np.repeat(np.arange(n, dtype=np.int64), n_refs)
    ref_rows = np.tile(np.arange(n, n + n_refs, dtype=np.int64), n)
    return metric_stats(batch, kind, param, wlcs, pairs=(hyp_rows, ref_rows), n_hyps=n)


def shared_rouge(
    hyps: list, refs: list, kind: str, *, metrics: Sequence[str], tokenizer: str | Callable[[str], list[str]],
    lowercase: bool, stemmer: bool | str | Callable[[str], str], stopwords: bool | Iterable[str] | None,
    multi_ref: str, alpha: float | None, beta: float | None, sentence_splitter: str, wlcs: str,
    block_pairs: int = BLOCK_PAIRS,
) -> RougeResult:
    """ROUGE of validated ``hyps`` against all of ``refs`` (both of input ``kind``).

    Options are :func:`vecscore.rouge`'s.
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    parsed = check_options(metrics, multi_ref, alpha, beta, tokenizer, wlcs)
    if sentence_splitter not in SENTENCE_SPLITTERS:
        raise VecscoreError(f"sentence_splitter must be one of {SENTENCE_SPLITTERS}, not {sentence_splitter!r}")
    kinds = {k for k, _ in parsed}
    sentences = "Lsum" in kinds or ("W" in kinds and wlcs == "rouge155")
    if sentences and kind == "text" and sentence_splitter != "newline":
        hyps, refs = list(split_sentences(hyps, sentence_splitter)), list(split_sentences(refs, sentence_splitter))
    transform = make_transform(tokenizer, stemmer, stopwords)
    n_refs = len(refs)
    step = max(1, block_pairs // n_refs)
    parts: list[list] = [[] for _ in parsed]
    for lo in range(0, len(hyps), step):
        block = hyps[lo:lo + step]
        n = len(block)
        texts = block + refs
        batch = build_batch(texts, [_EMPTY[kind]] * len(texts), tokenizer=tokenizer, lowercase=lowercase,
                            transform=transform, warn_empty=False, sentences=sentences)
        ref_ptr = np.arange(0, n * n_refs + 1, n_refs, dtype=np.int64)
        for j, (k, param) in enumerate(parsed):
            hits, hyp_count, ref_count, exponent = _block_stats(batch, n, n_refs, k, param, wlcs)
            parts[j].append(combine(hits, hyp_count, ref_count, ref_ptr, multi_ref, alpha, beta, exponent))
    scores, stats = {}, {}
    for name, got in zip(metrics, parts):
        if not got:  # no hypotheses
            empty = np.zeros(0, np.float64)
            scores[name] = Score(empty, empty, empty)
            if multi_ref in ("best", "best-recall", "pooled"):
                stats[name] = RougeStats(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))
            continue
        scores[name] = Score(*(np.concatenate([s[i] for s, _ in got]) for i in range(3)))
        if got[0][1] is not None:
            stats[name] = RougeStats.concat([st for _, st in got])
    sig = rouge_signature(list(metrics), tokenizer, lowercase, stemmer, stopwords, multi_ref, alpha, beta,
                     np.full(max(len(hyps), 1), n_refs, np.int64))
    return RougeResult(scores, stats, sig)
