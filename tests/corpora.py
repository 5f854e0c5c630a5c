"""Loaders for the real corpora in ../shared/data, and comparison helpers."""
from __future__ import annotations

import json

import numpy as np

from tests.conftest import data_file


def realsumm(root):
    """REALSumm's 2,500 (summary, reference) pairs, sentences joined with newlines."""
    path = data_file(root, "realsumm-cnndm", "realsumm_cnndm_100docs.jsonl")
    rows = [json.loads(line) for line in path.open(encoding="utf-8")]
    return ["\n".join(r["summary_sentences"]) for r in rows], ["\n".join(r["reference_sentences"]) for r in rows]


def summeval(root):
    """SummEval's 1,600 summaries, each with its 11 references."""
    path = data_file(root, "summeval-bartscore", "summeval_16sys_11refs.jsonl")
    rows = [json.loads(line) for line in path.open(encoding="utf-8")]
    return [r["summary"] for r in rows], [r["references"] for r in rows]


def max_abs_diff(ours, theirs, types) -> float:
    """Largest |difference| of P, R and F between a RougeResult and rouge-score's per-pair dicts."""
    worst = 0.0
    for k in types:
        for field in ("precision", "recall", "fmeasure"):
            a = getattr(ours[k], field)
            b = np.array([getattr(t[k], field) for t in theirs])
            worst = max(worst, float(np.max(np.abs(a - b))))
    return worst
