"""Diversity of a set of texts: :func:`self_bleu` and :func:`self_score`.

Self-BLEU (Zhu et al. 2018, Texygen; fast-bleu's ``SelfBLEU``) scores each text as the hypothesis against
*all the other texts together* as its references, with NLTK's sentence BLEU (``method1`` smoothing): one
multi-reference BLEU per text, whose n-gram counts are clipped by the maximum count over the other texts and
whose reference length is the other texts' length closest to its own.  That is not the mean of the pairwise
single-reference BLEU cells; :func:`self_score` is that mean (for any metric of
:func:`vecscore.matrices.api.pairwise`).

:func:`self_bleu` counts every text's n-grams once, for all texts together; each text's clip is the largest
count among the *other* texts (the largest over all texts, or the second largest where the text itself is the
only one holding the largest), so its statistics equal those of ``SharedReferences(others)`` without building
one table per text.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from vecscore.bleu.stats import BleuStats
from vecscore.errors import VecscoreError
from vecscore.matrices.api import prepare_batch

__all__ = ["self_bleu", "self_score", "self_bleu_stats", "others_closest_lengths"]

_WEIGHTS = (0.25, 0.25, 0.25, 0.25)
_PLAIN_MAX_TEXTS = 2000  # fewer texts: the formulas run as plain Python (no numba to load)


def _gram_ids(ids: np.ndarray, starts: np.ndarray, ends: np.ndarray, max_order: int):
    """Per order ``n`` (1..max_order): the dense id of the n-gram starting at every token position (-1 where
    it would cross its text's end), and the number of distinct n-grams."""
    n_tok = len(ids)
    row_end = np.repeat(ends, ends - starts)  # each token's text end
    pos = np.arange(n_tok, dtype=np.int64)
    vocab = int(ids.max()) + 1 if n_tok else 1
    grams = ids.astype(np.int64)
    out = [(grams, vocab)]
    for n in range(2, max_order + 1):
        valid = pos + n - 1 < row_end
        prev, n_prev = out[-1]
        if n_prev * vocab >= 2**62:  # pragma: no cover - beyond any realistic input
            raise VecscoreError("too many distinct n-grams for self-BLEU's id space; give fewer texts")
        nxt = np.full(n_tok, -1, np.int64)
        if valid.any():
            key = prev[valid] * vocab + ids[pos[valid] + n - 1]
            uniq, inverse = np.unique(key, return_inverse=True)
            nxt[valid] = inverse.reshape(-1)
            out.append((nxt, len(uniq)))
        else:
            out.append((nxt, 1))
    return out


def others_closest_lengths(lens: np.ndarray) -> np.ndarray:
    """For every text, the length among the *other* texts closest to its own (ties to the shorter, as NLTK's
    ``closest_ref_length``); needs at least two texts."""
    values, counts = np.unique(lens, return_counts=True)
    k = np.searchsorted(values, lens)
    shared = counts[k] >= 2  # another text has the same length
    last = len(values) - 1
    lo = values[np.maximum(k - 1, 0)]
    hi = values[np.minimum(k + 1, last)]
    has_lo, has_hi = k > 0, k < last
    pick_lo = has_lo & (~has_hi | (lens - lo <= hi - lens))
    return np.where(shared, lens, np.where(pick_lo, lo, hi)).astype(np.int64)


def self_bleu_stats(ids: np.ndarray, offsets: np.ndarray, max_order: int) -> BleuStats:
    """BLEU statistics of every text (token ids ``ids``, rows by ``offsets``) against all the others as its
    references: clipped n-gram matches per order, lengths, and the closest other length."""
    n = len(offsets) - 1
    starts, ends = offsets[:-1], offsets[1:]
    lens = (ends - starts).astype(np.int64)
    text_of = np.repeat(np.arange(n, dtype=np.int64), lens)
    correct = np.zeros((n, max_order), np.int64)
    for order, (grams, n_grams) in enumerate(_gram_ids(ids, starts, ends, max_order)):
        ok = grams >= 0
        key = text_of[ok] * n_grams + grams[ok]
        pairs, counts = np.unique(key, return_counts=True)
        text, gram = pairs // n_grams, pairs % n_grams
        by = np.lexsort((-counts, gram))  # per n-gram, its counts from the largest down
        g_sorted, c_sorted = gram[by], counts[by]
        first = np.ones(len(by), bool)
        first[1:] = g_sorted[1:] != g_sorted[:-1]
        head = np.flatnonzero(first)
        top = np.zeros(n_grams, np.int64)
        top[g_sorted[head]] = c_sorted[head]
        runner = np.zeros(n_grams, np.int64)  # the second entry of each n-gram: equal to top on a tie
        nxt = head + 1
        has_two = nxt < len(by)
        has_two[has_two] = ~first[nxt[has_two]]
        runner[g_sorted[head[has_two]]] = c_sorted[nxt[has_two]]
        clip = np.where(counts == top[gram], runner[gram], top[gram])
        correct[:, order] = np.bincount(text, weights=np.minimum(counts, clip), minlength=n).astype(np.int64)
    total = np.maximum(lens[:, None] - np.arange(max_order, dtype=np.int64)[None, :], 0)
    ref_len = others_closest_lengths(lens)
    return BleuStats(lens, ref_len, correct, total, np.full(n, n - 1, np.int64))


def _weights(weights: Any, weights_dtype: str) -> tuple[list[tuple[float, ...]], bool]:
    if weights_dtype not in ("float64", "float32"):
        raise VecscoreError(f"weights_dtype must be 'float64' (NLTK's weights) or 'float32' (fast-bleu's, which "
                            f"stores them as C floats), not {weights_dtype!r}")
    one = not weights or not isinstance(weights[0], (Sequence, np.ndarray))
    arr = [weights] if one else list(weights)
    out = []
    for w in arr:
        t = tuple(float(x) for x in w)
        if not t:
            raise VecscoreError("weights is empty: give one weight per n-gram order, e.g. (0.25, 0.25, 0.25, 0.25)")
        out.append(tuple(float(np.float32(x)) for x in t) if weights_dtype == "float32" else t)
    return out, one


def _table_ids(shared) -> tuple[np.ndarray, np.ndarray]:
    """Every text's token ids (one id space) and row offsets, through the shared references' compiled table."""
    table = shared.bleu_table()
    return table.ref_ids, table.ref_off


def _plain_ids(shared) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_table_ids` in plain Python, for the few texts that do not pay for compiling kernels: the same ids
    up to numbering, which the statistics do not depend on (they compare ids for equality only)."""
    from vecscore.bleu.plain import tokenize_rows
    from vecscore.ter.stats import intern_tokens

    rows = shared.rows
    if shared.kind == "text":
        rows = tokenize_rows(rows, "text", shared.tokenize, shared.lowercase)
    return intern_tokens(rows)


def self_bleu(texts: Sequence[Any], *, weights: Sequence[float] | Sequence[Sequence[float]] = _WEIGHTS,
              smoothing: str | Callable[..., Any] | None = "method1", tokenize: str | None = None,
              lowercase: bool = False, weights_dtype: str = "float64") -> np.ndarray:
    """Self-BLEU of every text: NLTK's sentence BLEU (0..1) of ``texts[i]`` against all the other texts as its
    references.

    Parameters
    ----------
    texts : list of str, or list of token lists
        At least two texts.  Strings are tokenized with sacreBLEU's ``tokenize`` (``13a`` by default; ``none``
        splits on whitespace); token lists are used as they are (as NLTK and fast-bleu take them).
    weights : tuple of float, or a list of tuples
        NLTK's weights; their length is the largest n-gram order (``(1/3,) * 3`` for Self-BLEU-3).  A list of
        tuples gives one row of scores per tuple.
    smoothing : str
        NLTK's smoothing method (``method0`` ... ``method7``, ``None`` for ``method0``, or NLTK's
        ``SmoothingFunction(...).methodN`` with its parameters); ``method1`` (epsilon 0.1) is fast-bleu's and
        Texygen's.
    weights_dtype : str
        ``float64``: the weights as given (NLTK's numbers).  ``float32``: rounded to float32 first, as fast-bleu
        stores them, which changes the last digits for weights such as 1/3 (about 1e-8).

    Returns
    -------
    ndarray
        Shape ``(len(texts),)`` for one weight tuple, ``(n_weights, len(texts))`` for a list.  Entry ``i``
        equals ``nltk.translate.bleu_score.sentence_bleu(others, texts[i], weights,
        smoothing_function=SmoothingFunction().method1)`` with ``others`` every text but ``texts[i]`` (a
        duplicate of ``texts[i]`` elsewhere in the list stays among its references), and fast-bleu's
        ``SelfBLEU(texts, {key: weights}).get_score()[key][i]`` with ``weights_dtype="float32"``.  The
        corpus figure usually reported is the mean.
    """
    from vecscore.bleu.nltk import nltk_max_order, nltk_smoothing
    from vecscore.shared_refs import SharedReferences

    rows = list(texts) if not isinstance(texts, str) else None
    if rows is None:
        raise VecscoreError("texts is one str: pass a list of texts")
    if len(rows) < 2:
        raise VecscoreError(f"self-BLEU needs at least two texts (each is scored against the others); got "
                            f"{len(rows)}")
    try:
        shared = SharedReferences(rows, tokenize=tokenize, lowercase=lowercase)
        ids, off = _plain_ids(shared) if len(rows) <= _PLAIN_MAX_TEXTS else _table_ids(shared)
    except VecscoreError as exc:  # its messages call the rows references: here they are the texts
        message = str(exc).replace("references[", "texts[").replace("every reference", "every text")
        raise VecscoreError(message.replace("the references are", "the texts are")) from None
    wlist, one = _weights(weights, weights_dtype)
    method, epsilon, alpha, k = nltk_smoothing(smoothing, 0.1, 5, 5)
    order = nltk_max_order(wlist, method)
    stats = self_bleu_stats(ids, off, order)
    if len(rows) <= _PLAIN_MAX_TEXTS:
        from vecscore.bleu import plain_formulas as formulas
    else:
        from vecscore.bleu import formulas  # type: ignore[no-redef]
    scores = formulas.nltk_sentence(stats.sys_len, stats.ref_len, stats.correct.T, stats.total.T,
                                    weights=wlist[0] if one else wlist, smoothing=method, epsilon=epsilon,
                                    alpha=alpha, k=k)
    return np.asarray(scores, np.float64)


def self_score(texts: Sequence[str], *, metric: str = "chrf", block: int = 2048, **options: Any) -> np.ndarray:
    """Each text's mean score against every other text (the mean of its row of the :func:`pairwise` matrix
    of the texts against themselves, leaving out the diagonal): the text as the hypothesis, each other text as
    a single reference.  float64 of shape ``(len(texts),)``.

    For BLEU this is the mean of single-reference cells, not :func:`self_bleu` (one multi-reference BLEU per
    text).  Rows are computed ``block`` at a time, so memory stays at ``block x len(texts)`` cells.
    """
    if block < 1:
        raise VecscoreError(f"block must be at least 1, got {block}")
    prep = prepare_batch(metric, [texts], None, options, hyps_name="texts", single=True)
    rows = prep.rows_a[0]
    n = len(rows)
    if n < 2:
        raise VecscoreError(f"self_score needs at least two texts (each is scored against the others); got {n}")
    out = np.empty(n, np.float64)
    for start in range(0, n, block):
        part = rows[start:start + block]
        cells = np.asarray(prep.module.grid(prep.prepared, part, rows), np.float64)
        cells[np.arange(len(part)), np.arange(start, start + len(part))] = 0.0
        out[start:start + len(part)] = cells.sum(axis=1) / (n - 1)
    return out
