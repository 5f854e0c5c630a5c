"""Near-duplicates: :func:`similar_pairs`, every pair of texts whose score passes a threshold.

The score matrix is never held whole: tiles of ``block x block`` cells are computed
(:mod:`vecscore.matrices.registry`'s ``grid``) and only the pairs that pass are kept, so memory is the
prepared texts, one tile and the pairs found.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.matrices.api import prepare_batch
from vecscore.matrices.registry import HIGHER_IS_BETTER, check_metric

__all__ = ["similar_pairs", "PAIR_DTYPE", "SCORE_RANGE"]

#: the structured dtype of :func:`similar_pairs`' result
PAIR_DTYPE = np.dtype([("i", np.int64), ("j", np.int64), ("score", np.float64)])

#: each metric's range of scores (a threshold outside it is an error); ``None``: no upper bound
SCORE_RANGE: dict[str, tuple[float, float | None]] = {
    "chrf": (0.0, 100.0), "chrf++": (0.0, 100.0), "bleu": (0.0, 100.0), "rouge1": (0.0, 1.0),
    "rouge2": (0.0, 1.0), "rougeL": (0.0, 1.0), "ter": (0.0, None),
}


def _check_threshold(metric: str, threshold: Any) -> float:
    lo, hi = SCORE_RANGE[metric]
    try:
        t = float(threshold)
    except (TypeError, ValueError):
        raise VecscoreError(f"threshold must be a number, not {threshold!r}") from None
    if not (t >= lo and (hi is None or t <= hi)):
        span = f">= {lo:g}" if hi is None else f"between {lo:g} and {hi:g}"
        units = {"ter": " (TER in sacreBLEU's units: 0 = identical)", "chrf": " (sacreBLEU's 0..100)",
                 "chrf++": " (sacreBLEU's 0..100)", "bleu": " (sacreBLEU's 0..100)"}.get(metric, " (rouge-score's "
                                                                                             "0..1)")
        raise VecscoreError(f"threshold={threshold!r} is outside the range of {metric}{units}: give a threshold "
                            f"{span}")
    return t


def _bar(total: int, progress: bool):
    if not progress:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc="similar pairs", unit="cell", unit_scale=True, leave=False)


def similar_pairs(texts: Sequence[str], other: Sequence[str] | None = None, *, metric: str = "rouge1",
                  threshold: float = 0.8, block: int = 2048, progress: bool = False, **options: Any) -> np.ndarray:
    """Every pair whose score passes ``threshold``: ``score >= threshold`` (for TER, an error rate: ``score <=
    threshold``).

    Parameters
    ----------
    texts : list of str
        Without ``other``: the pairs ``(i, j)`` of these texts with ``i < j`` (no text with itself), scored
        with ``texts[i]`` as the hypothesis and ``texts[j]`` as the reference.  With ``other``: every pair
        ``(i, j)`` of ``texts[i]`` (hypothesis) and ``other[j]`` (reference).
    metric : str
        As :func:`vecscore.matrices.api.pairwise` (``rouge1`` by default); ``**options`` are its options.
    threshold : float
        In the metric's units and range: 0..1 for ROUGE, 0..100 for chrF and BLEU, >= 0 for TER.
    block : int
        Tiles of ``block x block`` cells are computed at a time (about ``8 * block**2`` bytes each).
    progress : bool
        A tqdm progress bar on stderr (when tqdm is installed).

    Returns
    -------
    ndarray
        A structured array of dtype :data:`PAIR_DTYPE` (fields ``i``, ``j``, ``score``), sorted by ``(i, j)``;
        ``score`` equals ``pairwise(texts, other)[i, j]``.
    """
    check_metric(metric)
    t = _check_threshold(metric, threshold)
    if isinstance(block, bool) or not isinstance(block, (int, np.integer)) or block < 1:
        raise VecscoreError(f"block must be a whole number >= 1, not {block!r}")
    block = int(block)
    prep = prepare_batch(metric, [texts], None if other is None else [other], options, hyps_name="texts",
                         refs_name="other", single=True)
    rows_a, rows_b = prep.rows_a[0], prep.rows_b[0]
    n, m = len(rows_a), len(rows_b)
    higher = HIGHER_IS_BETTER[metric]
    upper = other is None
    total = n * (n - 1) // 2 if upper else n * m
    bar = _bar(total, progress)
    found = []
    try:
        for a0 in range(0, n, block):
            a1 = min(a0 + block, n)
            parts = []
            for b0 in range(a0 if upper else 0, m, block):
                b1 = min(b0 + block, m)
                cells = np.asarray(prep.module.grid(prep.prepared, rows_a[a0:a1], rows_b[b0:b1]), np.float64)
                hit = cells >= t if higher else cells <= t
                if upper and b0 == a0:  # the diagonal tile: keep j > i only
                    hit &= np.arange(b0, b1)[None, :] > np.arange(a0, a1)[:, None]
                ii, jj = np.nonzero(hit)
                if len(ii):
                    part = np.empty(len(ii), PAIR_DTYPE)
                    part["i"], part["j"], part["score"] = ii + a0, jj + b0, cells[ii, jj]
                    parts.append(part)
                if bar is not None:
                    done = (b1 - b0) * (a1 - a0)
                    if upper and b0 == a0:
                        done = (a1 - a0) * (a1 - a0 - 1) // 2 + (a1 - a0) * (b1 - a1)
                    bar.update(done)
            if parts:
                rows = np.concatenate(parts)
                found.append(rows[np.lexsort((rows["j"], rows["i"]))])
    finally:
        if bar is not None:
            bar.close()
    return np.concatenate(found) if found else np.empty(0, PAIR_DTYPE)
