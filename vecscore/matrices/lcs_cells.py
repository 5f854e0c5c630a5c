"""Cells of rouge-score's ``rougeL``: every text as the prediction against every text as the target.

Cell ``[i, j]`` of a grid is
``rouge_scorer.RougeScorer(["rougeL"], use_stemmer=use_stemmer).score(target=texts[rows_b[j]],
prediction=texts[rows_a[i]])["rougeL"]`` (its ``fmeasure``, or ``precision`` / ``recall`` with ``score=``):
``P = lcs / len(prediction)``, ``R = lcs / len(target)``, ``F = 2 * P * R / (P + R)``, all 0.0 when either
text has no token.

:func:`prepare` tokenizes every text once as rouge-score does (lowercase, every character outside
``[a-z0-9]`` a separator; with ``use_stemmer`` NLTK's Porter stemmer on tokens longer than 3 characters,
once per distinct token) and interns the tokens to int ids; :func:`grid` computes the LCS length of every
cell with the kernel :func:`vecscore.kernels.grid_lcs.lcs_grid` and the scores vectorized from it.
:func:`plain_grid` is the same grid in plain Python (the reference the kernel is tested against).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vecscore.engine.batch import apply_vocab_map, intern, transform_vocab, vocab_strings
from vecscore.errors import VecscoreError
from vecscore.rouge.options import make_transform
from vecscore.row_errors import check_unicode
from vecscore.text.tokenizers import tokenize

__all__ = ["OPTIONS", "LcsTexts", "prepare", "grid", "lcs_lengths", "plain_grid", "warm", "read_texts", "grid_rows"]

#: the options of each metric, with rouge-score's defaults
OPTIONS = {"rougeL": {"score": "fmeasure", "use_stemmer": False}}
SCORES = ("fmeasure", "precision", "recall")


@dataclass(frozen=True)
class LcsTexts:
    """Texts tokenized and interned once: text ``t`` is ``ids[offsets[t]:offsets[t + 1]]`` (int64 ids
    ``0 .. n_vocab - 1``); ``score`` is the reported field."""

    ids: np.ndarray
    offsets: np.ndarray
    n_vocab: int
    score: str = "fmeasure"
    use_stemmer: bool = False

    @property
    def n_texts(self) -> int:
        return len(self.offsets) - 1

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)


def read_texts(texts) -> list[str]:
    """``texts`` as a list of ``str`` (valid Unicode); an item of another type is an error naming it."""
    if isinstance(texts, (str, bytes)):
        raise VecscoreError("texts must be a list of str, not a single string; wrap one text in a list")
    try:
        rows = list(texts)
    except TypeError:
        raise VecscoreError(f"texts must be a list of str, not {type(texts).__name__}") from None
    bad = next((k for k, t in enumerate(rows) if not isinstance(t, str)), None)
    if bad is not None:
        raise VecscoreError(f"texts[{bad}] is {type(rows[bad]).__name__} ({rows[bad]!r:.60}), not a str; "
                            f"pass every text as a str")
    check_unicode(rows, "texts")
    return rows


def grid_rows(n_texts: int, rows_a, rows_b) -> tuple[np.ndarray, np.ndarray]:
    """``rows_a`` and ``rows_b`` as int64 arrays of text indices ``0 .. n_texts - 1`` (checked)."""
    out = []
    for name, rows in (("rows_a", rows_a), ("rows_b", rows_b)):
        arr = np.asarray(rows)
        if arr.ndim != 1:
            raise VecscoreError(f"{name} must be a one-dimensional sequence of text indices, got shape {arr.shape}")
        if arr.size and not (np.issubdtype(arr.dtype, np.integer) and not np.issubdtype(arr.dtype, np.bool_)):
            raise VecscoreError(f"{name} must hold integer text indices, got dtype {arr.dtype}")
        arr = np.array(arr, np.int64)  # a writeable copy: the kernels' one argument type, whatever was passed
        bad = np.flatnonzero((arr < 0) | (arr >= n_texts))
        if bad.size:
            raise VecscoreError(f"{name}[{int(bad[0])}] is {int(arr[bad[0]])}, not a text index: the prepared texts "
                                f"are 0 .. {n_texts - 1}")
        out.append(arr)
    return out[0], out[1]


def _check_options(metric: str, options: dict) -> tuple[str, bool]:
    if metric != "rougeL":
        raise VecscoreError(f"{__name__} computes the metric 'rougeL', not {metric!r}")
    unknown = sorted(set(options) - set(OPTIONS["rougeL"]))
    if unknown:
        raise VecscoreError(f"unknown option(s) {', '.join(unknown)} for rougeL; valid: "
                            f"{', '.join(OPTIONS['rougeL'])}")
    score = options.get("score", "fmeasure")
    if score not in SCORES:
        raise VecscoreError(f"score must be one of {', '.join(SCORES)} for rougeL, not {score!r}")
    use_stemmer = options.get("use_stemmer", False)
    if not isinstance(use_stemmer, (bool, np.bool_)):
        raise VecscoreError(f"use_stemmer must be True or False, not {use_stemmer!r}")
    return score, bool(use_stemmer)


def prepare(texts: Sequence[str], metric: str = "rougeL", **options) -> LcsTexts:
    """Every text tokenized as rouge-score does and interned once (see the module docstring).

    ``options``: ``score`` (``"fmeasure"``, ``"precision"`` or ``"recall"``) and ``use_stemmer``.
    """
    score, use_stemmer = _check_options(metric, options)
    rows = read_texts(texts)
    spans = tokenize(rows, "rouge-score")
    ids, first = intern(spans)
    offsets = np.ascontiguousarray(spans.offsets, np.int64)
    n_vocab = len(first)
    transform = make_transform("rouge-score", "porter" if use_stemmer else None, None)
    if transform is not None and n_vocab:
        mapping, vocab = transform_vocab(vocab_strings(spans, first), transform)
        ragged, _ = apply_vocab_map(ids, offsets, mapping)
        ids, offsets, n_vocab = ragged.ids, ragged.offsets, len(vocab)
    return LcsTexts(np.ascontiguousarray(ids, np.int64), np.ascontiguousarray(offsets, np.int64), n_vocab,
                    score, use_stemmer)


def _check_prepared(prepared) -> None:
    if not isinstance(prepared, LcsTexts):
        raise VecscoreError(f"prepared must come from {__name__}.prepare, not {type(prepared).__name__}")


def lcs_lengths(prepared: LcsTexts, rows_a, rows_b) -> np.ndarray:
    """int64 ``(len(rows_a), len(rows_b))``: the LCS length of the token sequences of every cell."""
    _check_prepared(prepared)
    return _lcs_lengths(prepared, *grid_rows(prepared.n_texts, rows_a, rows_b))


def _lcs_lengths(prepared: LcsTexts, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`lcs_lengths` of rows already checked (:func:`grid_rows`)."""
    from vecscore.kernels.grid_lcs import lcs_grid
    from vecscore.parallel import current_threads

    if not a.size or not b.size:
        return np.zeros((a.size, b.size), np.int64)
    max_len = int(prepared.lengths[b].max())
    n_chunks = min(a.size, 4 * current_threads())
    return lcs_grid(prepared.ids, prepared.offsets, a, b, prepared.n_vocab, max_len, n_chunks)


def scores(lcs: np.ndarray, pred_len: np.ndarray, target_len: np.ndarray, score: str) -> np.ndarray:
    """rouge-score's ``rougeL`` field ``score`` from LCS lengths (rows: predictions, columns: targets): 0 where
    either text has no tokens, as rouge-score gives."""
    from vecscore.rouge.fscore import f_measure, safe_ratio

    precision = safe_ratio(lcs, pred_len[:, None])
    recall = safe_ratio(lcs, target_len[None, :])
    if score == "precision":
        return precision
    if score == "recall":
        return recall
    return f_measure(precision, recall)


def grid(prepared: LcsTexts, rows_a, rows_b) -> np.ndarray:
    """float64 ``(len(rows_a), len(rows_b))``: cell ``[i, j]`` the ``rougeL`` score of text ``rows_a[i]`` as
    the prediction against text ``rows_b[j]`` as the target."""
    _check_prepared(prepared)
    a, b = grid_rows(prepared.n_texts, rows_a, rows_b)
    lengths = prepared.lengths
    return scores(_lcs_lengths(prepared, a, b), lengths[a], lengths[b], prepared.score)


def _lcs_plain(x: list, y: list) -> int:
    """LCS length by the textbook dynamic programme, one row at a time."""
    prev = [0] * (len(y) + 1)
    for t in x:
        cur = [0]
        for k, u in enumerate(y):
            cur.append(prev[k] + 1 if t == u else max(prev[k + 1], cur[k]))
        prev = cur
    return prev[-1]


def plain_grid(prepared: LcsTexts, rows_a, rows_b) -> np.ndarray:
    """:func:`grid` in plain Python: each cell's LCS by the dynamic programme (for tests and tiny grids)."""
    _check_prepared(prepared)
    a, b = grid_rows(prepared.n_texts, rows_a, rows_b)
    toks = [prepared.ids[prepared.offsets[t]:prepared.offsets[t + 1]].tolist() for t in range(prepared.n_texts)]
    lcs = np.array([[_lcs_plain(toks[i], toks[j]) for j in b.tolist()] for i in a.tolist()], np.int64)
    lengths = prepared.lengths
    return scores(lcs.reshape(a.size, b.size), lengths[a], lengths[b], prepared.score)


def warm() -> None:
    """Compile (or load) the grid kernel: short row texts (one 64-bit pattern) and long ones (several words)."""
    long = " ".join(f"w{k % 90}" for k in range(150))
    texts = ["the cat sat on the mat", "a cat on a mat", "", long, long[::-1]]
    prepared = prepare(texts, "rougeL")
    grid(prepared, np.arange(len(texts)), np.arange(len(texts)))
