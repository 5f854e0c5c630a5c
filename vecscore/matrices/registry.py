"""The metrics a score matrix can hold, and the cells module that computes each.

Every cells module has the same two functions:

* ``prepare(texts: list[str], metric: str, **options) -> prepared``: every text tokenized and counted once, in
  one id space (a hypothesis of row ``a`` and a reference of row ``b`` of the same prepared texts can be
  compared); ``prepared.n_texts`` is ``len(texts)``;
* ``grid(prepared, rows_a, rows_b) -> np.ndarray``: float64 of shape ``(len(rows_a), len(rows_b))``, cell
  ``[i, j]`` the metric's per-pair score of text ``rows_a[i]`` as the hypothesis against text ``rows_b[j]`` as
  its single reference, in the anchor's units (sacreBLEU's 0-100 for chrF, BLEU and TER; rouge-score's 0-1).

and ``OPTIONS``: ``{metric: {option: default}}`` for the metrics it serves (the anchor's argument names).
"""
from __future__ import annotations

import importlib
from types import ModuleType

from vecscore.errors import VecscoreError

__all__ = ["METRICS", "HIGHER_IS_BETTER", "cells_module", "check_metric"]

#: metric name -> the module of its cells
METRICS = {
    "chrf": "vecscore.matrices.ngram_cells",
    "chrf++": "vecscore.matrices.ngram_cells",
    "bleu": "vecscore.matrices.ngram_cells",
    "rouge1": "vecscore.matrices.ngram_cells",
    "rouge2": "vecscore.matrices.ngram_cells",
    "rougeL": "vecscore.matrices.lcs_cells",
    "ter": "vecscore.matrices.ter_cells",
}

#: TER is an error rate: lower is better (MBR and similar_pairs turn it around where they need a utility)
HIGHER_IS_BETTER = {name: name != "ter" for name in METRICS}


def check_metric(metric: str) -> str:
    if metric not in METRICS:
        raise VecscoreError(f"metric must be one of {', '.join(METRICS)}, not {metric!r}")
    return metric


def cells_module(metric: str) -> ModuleType:
    return importlib.import_module(METRICS[check_metric(metric)])
