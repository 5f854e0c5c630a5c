"""The path of one BLEU call, shared by the functions (:mod:`vecscore.bleu.api`) and the class
(:mod:`vecscore.bleu.metric`): the rows read once, their statistics on the route the call takes (the plain route,
or the compiled one, :mod:`vecscore.bleu.direct`, imported on first use by :func:`compiled`), and sacreBLEU's
corpus and sentence scores from them."""
from __future__ import annotations

from typing import Any

import numpy as np

from vecscore.bleu import formulas as bf
from vecscore.bleu import plain as plain_bleu
from vecscore.bleu import plain_formulas as plain_formulas
from vecscore.bleu.options import (
    Options,
    check_kind,
)
from vecscore.bleu.scores import BLEUScore, BLEUScores
from vecscore.bleu.stats import BleuStats
from vecscore.errors import VecscoreError
from vecscore.inputs import read_rows
from vecscore.references import Refs, check_layout, read_refs
from vecscore.route import note_compiled, use_plain
from vecscore.row_errors import rows_named, unicode_errors

__all__ = ["PER_PAIR_TOKENIZERS", "ROW_CHARS", "LANG_TOKENIZERS", "resolve_effective_order", "compiled",
           "read_call", "call_stats", "stats_formulas", "sacre_counts", "corpus_result", "sentence_result",
           "RowScore", "float_row_score", "check_stats"]

#: the tokenizers of the per-pair kernel (:mod:`vecscore.bleu.direct`; without lowercasing)
PER_PAIR_TOKENIZERS = ("13a", "none", "char", "zh", "zh-fixed")
#: a row of scores from statistics counts as this many characters for the route
#: (:func:`vecscore.route.use_plain`): the plain formulas cost about 4 us a row, 16 characters of rouge1
ROW_CHARS = 16


def resolve_effective_order(use_effective_order, effective_order, default: bool) -> bool:
    """``effective_order``, given under vecscore's name or sacreBLEU's function argument ``use_effective_order``."""
    if (use_effective_order is not None and effective_order is not None
            and bool(use_effective_order) != bool(effective_order)):
        raise VecscoreError(f"use_effective_order={use_effective_order!r} and effective_order={effective_order!r} "
                            "disagree; they are one option (sacreBLEU's and vecscore's name): pass one of them")
    value = use_effective_order if use_effective_order is not None else effective_order
    return default if value is None else bool(value)


#: sacreBLEU's default tokenizer per target language (``BLEU(trg_lang=...)``)
LANG_TOKENIZERS = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}


def compiled():
    """The compiled route, :mod:`vecscore.bleu.direct`, imported on its first use (it loads numba)."""
    from vecscore.bleu import direct as bleu_direct

    return bleu_direct


def read_call(hyps, refs, opts: Options, refs_layout: str) -> tuple[list, str, Refs]:
    """``(hyps, kind, refs)``: a call's rows read once (:func:`vecscore.references.read_pairs`), the kind checked."""
    hyps, kind = read_rows(hyps, "hyps")
    check_kind(kind, opts)
    return hyps, kind, read_refs(refs, len(hyps), kind, check_layout(refs_layout))


def call_stats(hyps: list, kind: str, refs: Refs, opts: Options):
    """``(stats, formulas)`` of rows read by :func:`read_call`: the statistics and the formulas of the route taken."""
    options: dict[str, Any] = dict(kind=kind, tokenize=opts.tokenize, lowercase=opts.lowercase)
    plain = plain_bleu.plain_inputs(hyps, refs, kind=kind, tokenize=opts.tokenize)
    if plain is not None:
        stats = plain_bleu.bleu_stats(*plain, max_order=opts.max_ngram_order,
                                      brevity_penalty=opts.brevity_penalty, **options)
        return stats, plain_formulas
    with rows_named(hyps, refs), unicode_errors(hyps, refs):
        stats = compiled().text_stats(hyps, refs, max_order=opts.max_ngram_order,
                                       brevity_penalty=opts.brevity_penalty, refs_layout=refs.layout, **options)
    note_compiled(plain_bleu.warm_key(kind, opts.tokenize))
    return stats, bf


def stats_formulas(rows: int):
    """The formulas that score ``rows`` rows of statistics given alone (not from text)."""
    return plain_formulas if use_plain(True, lambda: rows * ROW_CHARS) else bf


def sacre_counts(correct, total, opts: Options):
    """sacreBLEU's ``counts``/``totals``: ``add-k`` adds k to orders >= 2 when anything matched."""
    if opts.smooth_method != "add-k":
        return correct, total
    k = opts.smooth_k
    add = np.zeros(correct.shape, dtype=np.result_type(correct, np.asarray(k)))
    matched = (correct != 0).any(axis=-1)
    add[..., 1:] = np.where(matched[..., None], k, 0)
    return correct + add, total + add


def corpus_result(stats: BleuStats, opts: Options, formulas=None) -> BLEUScore:
    """``formulas``: :mod:`vecscore.bleu.formulas` or :mod:`vecscore.bleu.plain_formulas` (None: by size)."""
    formulas = formulas or stats_formulas(1)
    st = stats.truncate(opts.max_ngram_order) if stats.max_order != opts.max_ngram_order else stats
    s = formulas.sacrebleu_corpus(st.sys_len, st.ref_len, st.correct.T, st.total.T,
                                  smooth_method=opts.smooth_method, smooth_value=opts.smooth_value,
                                  effective_order=opts.effective_order)
    counts, totals = sacre_counts(s.counts, s.totals, opts)
    return BLEUScore(s.score, counts, totals, s.precisions, s.bp, s.sys_len, s.ref_len,
                     opts.signature(stats.nrefs_label()), stats)


def sentence_result(stats: BleuStats, opts: Options, formulas=None) -> BLEUScores:
    """As :func:`corpus_result`, one score per row."""
    formulas = formulas or stats_formulas(stats.n_pairs)
    st = stats.truncate(opts.max_ngram_order) if stats.max_order != opts.max_ngram_order else stats
    s = formulas.sacrebleu_sentence(st.sys_len, st.ref_len, st.correct.T, st.total.T,
                                    smooth_method=opts.smooth_method, smooth_value=opts.smooth_value,
                                    effective_order=opts.effective_order)
    counts, totals = sacre_counts(st.correct, st.total, opts)
    return BLEUScores(s.score, counts, totals, s.precisions.T, s.bp, s.sys_len, s.ref_len,
                      opts.signature(stats.nrefs_label()), stats)


class RowScore(BLEUScore):
    """The :class:`BLEUScore` of one row of statistics whose score is computed at once and whose other fields on
    first use (sacreBLEU's ``PairedTest`` reads only ``score``, of thousands of rows)."""

    def __init__(self, score: float, full):  # noqa: D107 - no dataclass __init__: the fields come from full()
        object.__setattr__(self, "score", score)
        object.__setattr__(self, "_full", full)

    def __getattr__(self, name: str):
        if name.startswith("__") or name == "_full" or "_full" not in self.__dict__:
            raise AttributeError(name)
        full = self.__dict__.pop("_full")()
        for key in BLEUScore.__dataclass_fields__:
            if key != "score":
                object.__setattr__(self, key, getattr(full, key))
        return getattr(self, name)


_ROW_KERNEL: list = []


def float_row_score(correct: np.ndarray, total: np.ndarray, sys_len, ref_len, opts: Options) -> float:
    """sacreBLEU's score of one row of float statistics (its float32 bootstrap sums) in their dtype: the plain
    Python twin of :func:`vecscore.kernels.significance.bleu_rows_scores` (one row: no numba, no NumPy
    passes over arrays of one element)."""
    if not _ROW_KERNEL:
        from vecscore.kernels.significance import bleu_rows_scores

        _ROW_KERNEL.append(plain_formulas.plain_function(bleu_rows_scores))
    from vecscore.kernels.pysum import NEUMAIER

    pdt = np.float32 if correct.dtype == np.float32 else np.float64
    code = {"none": 0, "floor": 1, "add-k": 2, "exp": 3}[opts.smooth_method]
    value = opts.smooth_k
    add = pdt(value) if opts.smooth_method == "add-k" else pdt(0.0)
    floor = pdt(100.0 * value) if opts.smooth_method == "floor" else pdt(0.0)
    out = np.zeros(1)
    _ROW_KERNEL[0](np.array([np.trunc(float(sys_len))]), np.array([np.trunc(float(ref_len))]),
                   correct.astype(pdt)[None, :], total.astype(pdt)[None, :], code, add, floor, pdt(100.0),
                   bool(opts.effective_order), NEUMAIER, out)
    return float(out[0])


def check_stats(stats, opts: Options) -> BleuStats:
    if not isinstance(stats, BleuStats):
        raise VecscoreError(f"expected BleuStats, got {type(stats).__name__}")
    if stats.max_order < opts.max_ngram_order:
        raise VecscoreError(
            f"statistics have orders 1..{stats.max_order}, max_ngram_order={opts.max_ngram_order} needs more"
        )
    return stats
