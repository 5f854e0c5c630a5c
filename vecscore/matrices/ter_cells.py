"""Cells of sacreBLEU's TER: every text as the hypothesis against every text as the single reference.

Cell ``[i, j]`` of a grid is ``sacrebleu.sentence_ter(texts[rows_a[i]], [texts[rows_b[j]]], normalized=...,
no_punct=..., asian_support=..., case_sensitive=...).score`` (0-100 and above; lower is better).

:func:`prepare` tokenizes every text once as a hypothesis and once as a reference, as sacreBLEU 2.6 does
(:mod:`vecscore.ter.tokenize`: a reference runs the tokenizer twice, which differs from once only with
``normalized=True``; otherwise both token lists are the same array), and interns all tokens to int ids in one
id space.  :func:`grid` runs sacreBLEU's edit search of every cell with the kernel
:func:`vecscore.kernels.grid_ter.ter_grid_edits` (the per-pair kernel of :mod:`vecscore.kernels.ter` on
tokens read in place) and turns the edits into scores vectorized: ``100 * edits / len(reference)``, and
with an empty reference 100 if there is any edit, else 0.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.matrices.lcs_cells import grid_rows, read_texts
from vecscore.ter.options import Options
from vecscore.ter.stats import intern_tokens, scores_from_stats

__all__ = ["OPTIONS", "TerTexts", "prepare", "grid", "edits", "warm"]

#: the options of each metric, with sacreBLEU's ``TER`` defaults
OPTIONS = {"ter": {"normalized": False, "no_punct": False, "asian_support": False, "case_sensitive": False}}


@dataclass(frozen=True)
class TerTexts:
    """Texts tokenized and interned once: text ``t`` as a hypothesis is ``hyp_ids[hyp_ptr[t]:hyp_ptr[t + 1]]``,
    as a reference ``ref_ids[ref_ptr[t]:ref_ptr[t + 1]]`` (int64 ids in one id space)."""

    hyp_ids: np.ndarray
    hyp_ptr: np.ndarray
    ref_ids: np.ndarray
    ref_ptr: np.ndarray

    @property
    def n_texts(self) -> int:
        return len(self.hyp_ptr) - 1

    @property
    def ref_lengths(self) -> np.ndarray:
        return np.diff(self.ref_ptr)


def _check_options(metric: str, options: dict) -> Options:
    if metric != "ter":
        raise VecscoreError(f"{__name__} computes the metric 'ter', not {metric!r}")
    unknown = sorted(set(options) - set(OPTIONS["ter"]))
    if unknown:
        raise VecscoreError(f"unknown option(s) {', '.join(unknown)} for ter; valid: {', '.join(OPTIONS['ter'])}")
    for name, value in options.items():
        if not isinstance(value, (bool, np.bool_)):
            raise VecscoreError(f"{name} must be True or False, not {value!r}")
    return Options(**{**OPTIONS["ter"], **options})


def prepare(texts: Sequence[str], metric: str = "ter", **options) -> TerTexts:
    """Every text tokenized once as a hypothesis and once as a reference, as sacreBLEU's ``TER`` with these
    ``options`` (``normalized``, ``no_punct``, ``asian_support``, ``case_sensitive``), and interned."""
    opts = _check_options(metric, options)
    rows = read_texts(texts)
    n = len(rows)
    tok, ref_tok = opts.tokenizer(), opts.ref_tokenizer()
    hyp_tokens = [tok(t) for t in rows]
    if not opts.normalized:  # every step but the normalization gives the same tokens on a second pass
        ids, ptr = intern_tokens(hyp_tokens)
        return TerTexts(ids, ptr, ids, ptr)
    ids, ptr = intern_tokens(hyp_tokens + [ref_tok(t) for t in rows])
    ref_ptr = ptr[n:] - ptr[n]
    return TerTexts(ids[:ptr[n]], ptr[:n + 1].copy(), ids[ptr[n]:], np.ascontiguousarray(ref_ptr))


def _check_prepared(prepared) -> None:
    if not isinstance(prepared, TerTexts):
        raise VecscoreError(f"prepared must come from {__name__}.prepare, not {type(prepared).__name__}")


def edits(prepared: TerTexts, rows_a, rows_b) -> np.ndarray:
    """int64 ``(len(rows_a), len(rows_b))``: sacreBLEU's number of edits of every cell."""
    _check_prepared(prepared)
    return _edits(prepared, *grid_rows(prepared.n_texts, rows_a, rows_b))


def _edits(prepared: TerTexts, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`edits` of rows already checked (:func:`grid_rows`)."""
    from vecscore.kernels.grid_ter import ter_grid_edits
    from vecscore.parallel import current_threads

    if not a.size or not b.size:
        return np.zeros((a.size, b.size), np.int64)
    n_chunks = min(a.size, 8 * current_threads())
    out = ter_grid_edits(prepared.hyp_ids, prepared.hyp_ptr, prepared.ref_ids, prepared.ref_ptr, a, b, n_chunks)
    if (out < 0).any():  # unreachable: the band always connects; sacreBLEU raises there
        raise VecscoreError("TER's edit-distance trace left the beam (please report this input)")
    return out


def grid(prepared: TerTexts, rows_a, rows_b) -> np.ndarray:
    """float64 ``(len(rows_a), len(rows_b))``: cell ``[i, j]`` the sentence TER of text ``rows_a[i]`` against
    text ``rows_b[j]`` as its single reference."""
    _check_prepared(prepared)
    a, b = grid_rows(prepared.n_texts, rows_a, rows_b)
    return scores_from_stats(_edits(prepared, a, b), prepared.ref_lengths[b].astype(np.float64))


def warm() -> None:
    """Compile (or load) the grid kernel, with hypothesis and reference tokens shared and apart."""
    texts = ["the cat sat on the mat", "on the mat the cat sat.", "", "it's, a cat"]
    everyone = np.arange(len(texts))
    for normalized in (False, True):
        grid(prepare(texts, "ter", normalized=normalized), everyone, everyone)
