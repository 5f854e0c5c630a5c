"""The cells of n-gram score matrices: chrF, chrF++, sentence BLEU, ROUGE-1 and ROUGE-2.

:func:`prepare` tokenizes and counts every text once (:mod:`vecscore.matrices.ngram_features`); :func:`grid`
counts the clipped matches of every cell with :func:`vecscore.kernels.grid_ngrams.grid_matches` and turns
them into the anchor's score with vecscore's own formula code, so that cell ``[i, j]`` equals:

==========  ===========================================================================================
metric      the anchor (hypothesis ``texts[rows_a[i]]``, single reference ``texts[rows_b[j]]``)
==========  ===========================================================================================
``chrf``    ``sacrebleu.metrics.CHRF(**options).sentence_score(hyp, [ref]).score`` (word_order 0)
``chrf++``  the same with ``word_order=2`` by default
``bleu``    ``sacrebleu.metrics.BLEU(**options).sentence_score(hyp, [ref]).score`` with
            ``effective_order=True`` by default (``sacrebleu.sentence_bleu(hyp, [ref])``)
``rouge1``  ``rouge_scorer.RougeScorer(["rouge1"], use_stemmer=...).score(ref, hyp)["rouge1"].fmeasure``
``rouge2``  the same for ``rouge2``; option ``score`` picks ``"precision"`` or ``"recall"`` instead
==========  ===========================================================================================

:func:`aggregate` scores each hypothesis against a set of references at once, with the references' n-gram
statistics pooled (Vamvas & Sennrich 2024, "Linear-time minimum Bayes risk decoding with reference
aggregation"): for ``chrf`` the numbers of fastchrf's ``aggregate_chrf``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vecscore._jit import is_active
from vecscore.chrf.formulas import f_scores
from vecscore.chrf.options import Options as ChrfOptions
from vecscore.errors import VecscoreError
from vecscore.matrices.ngram_features import (
    NgramTable,
    Units,
    char_units,
    check_texts,
    chrf_word_units,
    ngram_table,
    plain_matches,
    reference_sums,
    text_entries,
    token_units,
)

__all__ = ["OPTIONS", "Prepared", "aggregate", "grid", "grid_both", "matches", "prepare", "warm"]

_CHRF = {"char_order": 6, "word_order": 0, "beta": 2, "lowercase": False, "whitespace": False,
         "eps_smoothing": False}
_ROUGE = {"use_stemmer": False, "score": "fmeasure"}

#: the metrics this module serves, with their options (the anchors' argument names) and defaults
OPTIONS: dict[str, dict[str, Any]] = {
    "chrf": dict(_CHRF),
    "chrf++": {**_CHRF, "word_order": 2},
    "bleu": {"lowercase": False, "tokenize": "13a", "smooth_method": "exp", "smooth_value": None,
             "max_ngram_order": 4, "effective_order": True},
    "rouge1": dict(_ROUGE),
    "rouge2": dict(_ROUGE),
}

_ROUGE_SCORES = ("fmeasure", "precision", "recall")
#: grids of at most this many cells are counted by the NumPy twin while numba is not loaded (no compile)
PLAIN_CELLS = 1024
#: the most cells whose scores are computed from their statistics at once (bounds the temporaries of a grid)
_FORMULA_CELLS = 1 << 16
#: the most bytes of per-worker scratch (one int32 per distinct n-gram) a grid call allocates beyond one worker
_SCRATCH_BYTES = 1 << 28


@dataclass(frozen=True, eq=False)
class Prepared:
    """Texts tokenized and counted once for one metric: ``table`` holds every text's n-grams."""

    metric: str
    options: dict
    table: NgramTable
    n_texts: int = field(default=0)
    #: zeroed scratch rows of earlier grid calls, reused (a call takes them out of the list while it runs)
    scratch: list = field(default_factory=list, repr=False, compare=False)

    def __repr__(self) -> str:
        return (f"Prepared({self.metric!r}, {self.n_texts} texts, {self.table.n_ids} distinct n-grams, "
                f"options={self.options})")


def _options(metric: str, given: dict) -> dict:
    if metric not in OPTIONS:
        raise VecscoreError(f"metric must be one of {', '.join(OPTIONS)}, not {metric!r}")
    unknown = sorted(set(given) - set(OPTIONS[metric]))
    if unknown:
        raise VecscoreError(f"unknown option(s) {', '.join(map(repr, unknown))} for metric {metric!r}; valid: "
                            f"{', '.join(OPTIONS[metric])}")
    opts = {**OPTIONS[metric], **given}
    if metric in ("chrf", "chrf++"):
        ChrfOptions(**opts)  # checks them
    elif metric == "bleu":
        _bleu_options(opts)
    else:
        if opts["score"] not in _ROUGE_SCORES:
            raise VecscoreError(f"score must be one of {', '.join(_ROUGE_SCORES)}, not {opts['score']!r}")
        if not isinstance(opts["use_stemmer"], (bool, np.bool_)):
            raise VecscoreError(f"use_stemmer must be True or False, not {opts['use_stemmer']!r}")
    return opts


def _bleu_options(opts: dict):
    from vecscore.bleu import formulas  # noqa: F401 - before options, which imports it from the package
    from vecscore.bleu.options import Options

    return Options(tokenize=opts["tokenize"], lowercase=bool(opts["lowercase"]), smooth_method=opts["smooth_method"],
                   smooth_value=opts["smooth_value"], max_ngram_order=opts["max_ngram_order"],
                   effective_order=bool(opts["effective_order"]))


def prepare(texts: list[str], metric: str, **options) -> Prepared:
    """Tokenize and count every text of ``texts`` once for ``metric`` (options: :data:`OPTIONS`)."""
    opts = _options(metric, options)
    texts = check_texts(texts)
    if metric in ("chrf", "chrf++"):
        lowered = [t.lower() for t in texts] if opts["lowercase"] else texts
        units = [char_units(lowered, bool(opts["whitespace"]))]
        orders = [int(opts["char_order"])]
        if opts["word_order"]:
            units.append(chrf_word_units(lowered))
            orders.append(int(opts["word_order"]))
        table = ngram_table(units, orders)
    elif metric == "bleu":
        from vecscore.bleu.plain import tokenize_rows

        bleu = _bleu_options(opts)
        tokens = tokenize_rows(texts, "text", bleu.tokenize, bleu.lowercase)
        table = ngram_table([token_units(tokens)], [int(bleu.max_ngram_order)])
    else:
        table = ngram_table([_rouge_units(texts, bool(opts["use_stemmer"]))], [int(metric[-1])],
                            min_order=int(metric[-1]))
    return Prepared(metric, opts, table, len(texts))


def _rouge_units(texts: list[str], use_stemmer: bool) -> Units:
    """rouge-score's tokens: lowercased, runs of non-``[a-z0-9]`` as separators, Porter stems of tokens
    longer than 3 characters when ``use_stemmer`` (once per distinct token)."""
    from vecscore.text.tokenizers import plain_tokenizer

    split = plain_tokenizer("rouge-score")
    assert split is not None
    tokens = [split(t) for t in texts]
    if not use_stemmer:
        return token_units(tokens)
    from vecscore.text.stemming import get_stemmer

    stem = get_stemmer(True)
    assert stem is not None

    def transform(word: str) -> str | None:
        out = stem(word)
        return out if out and out.isascii() and out.isalnum() and out == out.lower() else None

    return token_units(tokens, transform)


def _rows(prepared: Prepared, rows, what: str) -> np.ndarray:
    if not isinstance(prepared, Prepared):
        raise VecscoreError(f"prepared must come from vecscore.matrices.ngram_cells.prepare, not "
                            f"{type(prepared).__name__}")
    arr = np.asarray(rows)
    if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        raise VecscoreError(f"{what} must be a 1-d sequence of integer row numbers, got {arr.dtype} of shape "
                            f"{arr.shape}")
    arr = np.ascontiguousarray(arr, np.int64)
    bad = np.flatnonzero((arr < 0) | (arr >= prepared.n_texts))
    if bad.size:
        raise VecscoreError(f"{what}[{int(bad[0])}] = {int(arr[bad[0]])} is not a row of the {prepared.n_texts} "
                            f"prepared texts (valid: 0 .. {prepared.n_texts - 1})")
    return arr


def matches(prepared: Prepared, rows_a: np.ndarray, rows_b: np.ndarray, route: str | None = None) -> np.ndarray:
    """int32 ``(len(rows_a), len(rows_b), orders)``: the clipped n-gram matches of every cell.

    ``route``: ``"kernel"``, ``"plain"`` (the NumPy twin) or ``None`` (the twin for a small grid while numba
    is not loaded, else the kernel)."""
    table = prepared.table
    rows_a = np.ascontiguousarray(rows_a, np.int64)
    rows_b = np.ascontiguousarray(rows_b, np.int64)
    na, nb = len(rows_a), len(rows_b)
    if route is None:
        route = "plain" if not is_active() and na * nb <= PLAIN_CELLS else "kernel"
    if route not in ("plain", "kernel"):
        raise VecscoreError(f"route must be 'kernel', 'plain' or None, not {route!r}")
    if route == "plain":
        return plain_matches(table, rows_a, rows_b)
    from vecscore.kernels.grid_ngrams import grid_matches
    from vecscore.parallel import current_threads, in_threads

    out = np.zeros((na, nb, table.orders), np.int32)
    if na == 0 or nb == 0 or table.orders == 0:
        return out
    per_worker = 4 * max(table.n_ids, 1)
    workers = max(1, min(current_threads(), na, _SCRATCH_BYTES // per_worker))
    symmetric = na == nb and bool(np.array_equal(rows_a, rows_b))
    if symmetric:  # row i counts the cells i .. n - 1: equal areas of the triangle per worker
        bounds = (na - na * np.sqrt(1 - np.arange(workers + 1) / workers)).round().astype(np.int64)
    else:
        bounds = np.linspace(0, na, workers + 1).round().astype(np.int64)
    scratch = _take_scratch(prepared, workers)

    def run(w0: int, w1: int) -> None:
        grid_matches(table.start, table.ids, table.cnts, rows_a, rows_b, bounds[w0:w1 + 1], symmetric,
                     scratch[w0:w1], out)

    in_threads(run, workers, grid_matches)
    prepared.scratch.append(scratch)  # the kernel leaves it zeroed (not returned when the kernel raised)
    return out


def _take_scratch(prepared: Prepared, workers: int) -> np.ndarray:
    """``workers`` zeroed int32 rows of one per n-gram id: a pooled array if one is free and large enough."""
    try:
        pooled = prepared.scratch.pop()
    except IndexError:
        pooled = None
    if pooled is not None and len(pooled) >= workers:
        return pooled
    return np.zeros((workers, max(prepared.table.n_ids, 1)), np.int32)


def grid(prepared: Prepared, rows_a, rows_b) -> np.ndarray:
    """float64 ``(len(rows_a), len(rows_b))``: cell ``[i, j]`` the score of text ``rows_a[i]`` as the hypothesis
    against text ``rows_b[j]`` as its single reference (0..100 for chrF and BLEU, 0..1 for ROUGE)."""
    a = _rows(prepared, rows_a, "rows_a")
    b = _rows(prepared, rows_b, "rows_b")
    return _grid_scores(prepared, a, b, matches(prepared, a, b))


def grid_both(prepared: Prepared, rows_a, rows_b) -> tuple[np.ndarray, np.ndarray]:
    """``(grid(prepared, rows_a, rows_b), grid(prepared, rows_b, rows_a))`` from one count of the matches (they
    do not depend on which text is the hypothesis): both directions of a block of pairs for about the cost of
    one (near-duplicate search over all pairs)."""
    a = _rows(prepared, rows_a, "rows_a")
    b = _rows(prepared, rows_b, "rows_b")
    m = matches(prepared, a, b)
    return _grid_scores(prepared, a, b, m), _grid_scores(prepared, b, a, m.transpose(1, 0, 2))


def _grid_scores(prepared: Prepared, a: np.ndarray, b: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The scores of the cells ``a x b`` from their matches ``m``, a slice of rows at a time (the formulas'
    temporaries stay small)."""
    totals = prepared.table.totals
    out = np.empty((len(a), len(b)))
    step = max(1, _FORMULA_CELLS // max(len(b), 1))
    for lo in range(0, len(a), step):
        hi = min(lo + step, len(a))
        out[lo:hi] = _scores(prepared, totals[a[lo:hi]][:, None, :], totals[b][None, :, :], m[lo:hi], hi - lo,
                             len(b))
    return out


def _scores(prepared: Prepared, tot_a: np.ndarray, tot_b: np.ndarray, m: np.ndarray, na: int, nb: int) -> np.ndarray:
    """Scores of ``(na, nb)`` cells from per-order n-gram totals (broadcastable to ``(na, nb, orders)``) and
    clipped matches ``m``; BLEU's lengths are the order-1 totals."""
    opts = prepared.options
    metric = prepared.metric
    shape = (na, nb, prepared.table.orders)
    if na == 0 or nb == 0:
        return np.zeros((na, nb))
    if metric in ("chrf", "chrf++"):
        stats = np.empty((na, nb, 3 * shape[2]), np.int64)
        stats[..., 0::3] = np.where(tot_b > 0, tot_a, 0)
        stats[..., 1::3] = tot_b
        stats[..., 2::3] = m
        return f_scores(stats.reshape(na * nb, -1), opts["beta"], bool(opts["eps_smoothing"])).reshape(na, nb)
    if metric == "bleu":
        from vecscore.bleu import formulas as bf
        from vecscore.bleu import plain_formulas

        sys_len = np.broadcast_to(tot_a[..., 0], (na, nb)).reshape(-1)
        ref_len = np.broadcast_to(tot_b[..., 0], (na, nb)).reshape(-1)
        correct = np.ascontiguousarray(m.reshape(na * nb, -1).T, np.int64)
        total = np.ascontiguousarray(np.broadcast_to(tot_a, shape).reshape(na * nb, -1).T, np.int64)
        formula = bf.sacrebleu_sentence if is_active() else plain_formulas.sacrebleu_sentence
        out = formula(sys_len, ref_len, correct, total, smooth_method=opts["smooth_method"],
                      smooth_value=opts["smooth_value"], effective_order=bool(opts["effective_order"]),
                      max_ngram_order=shape[2])
        return np.asarray(out.score, np.float64).reshape(na, nb)
    from vecscore.rouge.fscore import f_measure, safe_ratio

    hits = m[..., 0]
    p = safe_ratio(hits, np.broadcast_to(tot_a[..., 0], (na, nb)))
    r = safe_ratio(hits, np.broadcast_to(tot_b[..., 0], (na, nb)))
    if opts["score"] == "precision":
        return p
    if opts["score"] == "recall":
        return r
    return f_measure(p, r)


def aggregate(prepared: Prepared, rows_a, rows_b) -> np.ndarray:
    """float64 ``(len(rows_a),)``: each text ``rows_a[i]`` scored against the texts ``rows_b`` pooled into one
    reference (the reference aggregation of Vamvas & Sennrich 2024).

    With ``m = len(rows_b)`` references, per order the statistics are those of the hypothesis counted ``m``
    times against the references' summed counts (the average reference, scaled by ``m`` to stay integer):
    matches ``sum_g min(m * count_hyp(g), sum_r count_r(g))``, hypothesis n-grams ``m * total_hyp``,
    reference n-grams ``sum_r total_r``; the metric's formula then applies as to one pair.

    * ``chrf``/``chrf++``: fastchrf's ``aggregate_chrf`` (which computes in float32; vecscore in float64);
    * ``bleu``: an approximation of the average of the pairwise BLEU scores: precisions and the length ratio
      are those of the averaged statistics (``sys_len = m * hyp length``, ``ref_len`` the summed reference
      lengths); smoothing applies to these scaled counts;
    * ``rouge1``/``rouge2``: precision and recall of the averaged statistics, and their F.
    """
    a = _rows(prepared, rows_a, "rows_a")
    b = _rows(prepared, rows_b, "rows_b")
    if len(b) == 0:
        raise VecscoreError("rows_b is empty: aggregate needs at least one reference row")
    table = prepared.table
    k = table.orders
    m = len(b)
    sums = reference_sums(table, b)
    entry, owner, order_of = text_entries(table, a)
    hits = np.minimum(m * table.cnts[entry].astype(np.int64), sums[table.ids[entry]])
    got = np.bincount(owner * k + order_of, weights=hits, minlength=len(a) * k).reshape(len(a), 1, k)
    tot_a = m * table.totals[a][:, None, :]
    tot_b = table.totals[b].sum(axis=0)[None, None, :]
    return _scores(prepared, tot_a, tot_b, got.astype(np.int64), len(a), 1)[:, 0]


_WARM_TEXTS = ["the cat sat on the mat.", "a cat is on the mat", "", "Der schnelle braune Fuchs \u00fcber \U0001f600"]


def warm() -> None:
    """Call every kernel specialization of the n-gram cells once on a few tiny texts (``vecscore warmup``): the
    grid kernel (symmetric and not) and the compiled formulas each metric's scores go through."""
    from vecscore._jit import activate

    activate()  # the compiled route even for grids this small
    rows = np.arange(len(_WARM_TEXTS), dtype=np.int64)
    for metric in OPTIONS:
        prepared = prepare(_WARM_TEXTS, metric)
        grid(prepared, rows, rows)
        grid(prepared, rows, rows[::-1])
        aggregate(prepared, rows, rows[1:])
