"""Score matrices: :func:`pairwise` (one set of texts) and :func:`pairwise_batch` (one set per source).

Cell ``[i, j]`` is the metric's per-pair score of ``hyps[i]`` as the hypothesis against ``refs[j]`` as its
single reference, in the anchor's units: sacreBLEU's ``sentence_chrf`` / ``sentence_bleu`` / ``sentence_ter``
(0..100), rouge-score's ``RougeScorer([metric]).score(ref, hyp)`` F-measure (0..1; the cells module's ``score``
option picks precision or recall where it has one).  Every text is tokenized and counted once
(:mod:`vecscore.matrices.registry`), however many cells it appears in.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.matrices.registry import cells_module, check_metric

__all__ = ["pairwise", "pairwise_batch", "check_options", "check_texts", "PreparedBatch", "prepare_batch"]


def check_options(metric: str, options: dict) -> dict:
    """``options`` if every one is an option of ``metric`` (its cells module's ``OPTIONS``), else an error
    listing the valid ones."""
    valid = cells_module(check_metric(metric)).OPTIONS[metric]
    bad = [name for name in options if name not in valid]
    if bad:
        listed = ", ".join(f"{k}={v!r}" for k, v in valid.items()) or "none"
        raise VecscoreError(f"unknown option{'s' if len(bad) > 1 else ''} {', '.join(map(repr, bad))} for metric "
                            f"{metric!r}; valid (with their defaults): {listed}")
    return dict(options)


def check_texts(texts: Any, what: str) -> list[str]:
    """``texts`` as a list of ``str``, or an error naming the first row that is not one (``what[i]``)."""
    if isinstance(texts, str):
        raise VecscoreError(f"{what} is one str: pass a list of texts, e.g. [{texts[:20]!r}, ...]")
    try:
        rows = list(texts)
    except TypeError:
        raise VecscoreError(f"{what} is {type(texts).__name__}: pass a list of str") from None
    for i, t in enumerate(rows):
        if type(t) is not str:
            if isinstance(t, str):
                rows[i] = str.__str__(t)
                continue
            raise VecscoreError(f"{what}[{i}] is {type(t).__name__}, not str; every text must be a str (replace "
                                "missing values, e.g. with an empty string)")
    return rows


@dataclass(frozen=True)
class PreparedBatch:
    """Texts of every source prepared once in one id space, and each source's rows in it."""

    module: ModuleType
    prepared: Any
    rows_a: list[np.ndarray]  # per source: its hypotheses' rows
    rows_b: list[np.ndarray]  # per source: its references' rows (the hypotheses' own when no references)

    def grid(self, k: int) -> np.ndarray:
        return np.asarray(self.module.grid(self.prepared, self.rows_a[k], self.rows_b[k]), dtype=np.float64)


def _as_batch(batch: Any, what: str) -> list:
    if isinstance(batch, str) or not hasattr(batch, "__iter__"):
        raise VecscoreError(f"{what} must be a list with one list of texts per source")
    return list(batch)


def prepare_batch(metric: str, hyps_batch: Any, refs_batch: Any = None, options: dict | None = None,
                  *, hyps_name: str = "hyps_batch", refs_name: str = "refs_batch",
                  single: bool = False) -> PreparedBatch:
    """Validate a batch (one list of candidates per source, optionally one list of references per source) and
    prepare all its texts at once.  ``single``: the batch wraps one source, whose texts messages call
    ``hyps_name[i]`` (not ``hyps_name[0][i]``)."""
    module = cells_module(check_metric(metric))
    opts = check_options(metric, options or {})
    hyps = _as_batch(hyps_batch, hyps_name)
    refs = None if refs_batch is None else _as_batch(refs_batch, refs_name)
    if refs is not None and len(refs) != len(hyps):
        first = min(len(refs), len(hyps))
        raise VecscoreError(f"{hyps_name} has {len(hyps):,d} sources but {refs_name} has {len(refs):,d} (source "
                            f"{first} has no {'references' if len(refs) < len(hyps) else 'candidates'}); give one "
                            "list per source in both")
    texts: list[str] = []
    rows_a, rows_b = [], []

    def append(row: Any, name: str, one: str, each: str) -> np.ndarray:
        """The rows of ``row``'s texts, checked and appended to ``texts``."""
        got = check_texts(row, name)
        if not got:
            raise VecscoreError(f"{name} is empty: " + (f"give at least one {one}" if single else
                                                        f"every source needs at least one {each}"))
        start = len(texts)
        texts.extend(got)
        return np.arange(start, len(texts), dtype=np.int64)

    for k, row in enumerate(hyps):
        rows_a.append(append(row, hyps_name if single else f"{hyps_name}[{k}]", "text", "candidate"))
        if refs is None:
            rows_b.append(rows_a[-1])
        else:
            rows_b.append(append(refs[k], refs_name if single else f"{refs_name}[{k}]", "reference", "reference"))
    prepared = module.prepare(texts, metric, **opts) if texts else None
    return PreparedBatch(module, prepared, rows_a, rows_b)


def pairwise(hyps: Sequence[str], refs: Sequence[str] | None = None, *, metric: str = "chrf",
             **options: Any) -> np.ndarray:
    """Every hypothesis against every reference: a float64 matrix of shape ``(len(hyps), len(refs))``.

    Parameters
    ----------
    hyps, refs : list of str
        ``refs=None``: the hypotheses against themselves (an ``N x N`` matrix whose diagonal is each text
        against itself).
    metric : str
        ``chrf``, ``chrf++``, ``bleu``, ``rouge1``, ``rouge2``, ``rougeL`` or ``ter``
        (:data:`vecscore.matrices.registry.METRICS`).
    **options
        The metric's options, named as its anchor names them (the cells module's ``OPTIONS``); an unknown one
        is an error listing the valid ones.

    Returns
    -------
    ndarray
        ``out[i, j]`` equals the anchor's per-pair score of ``hyps[i]`` against the single reference
        ``refs[j]``: ``sacrebleu.sentence_chrf(h, [r]).score`` (chrF, chrF++), ``sacrebleu.sentence_bleu(h,
        [r]).score``, ``sacrebleu.sentence_ter(h, [r]).score``, rouge-score's ``RougeScorer([metric])
        .score(r, h)[metric].fmeasure``.
    """
    batch = prepare_batch(metric, [hyps], None if refs is None else [refs], options, hyps_name="hyps",
                          refs_name="refs", single=True)
    return batch.grid(0)


def pairwise_batch(hyps_batch: Sequence[Sequence[str]], refs_batch: Sequence[Sequence[str]] | None = None, *,
                   metric: str = "chrf", **options: Any) -> list[np.ndarray]:
    """:func:`pairwise` for many sources at once: ``out[k]`` is ``pairwise(hyps_batch[k], refs_batch[k])``.

    The sources may have different numbers of candidates and references (a ragged batch).  All texts are
    tokenized and counted in one pass, then one grid is computed per source.
    """
    batch = prepare_batch(metric, hyps_batch, refs_batch, options)
    return [batch.grid(k) for k in range(len(batch.rows_a))]
