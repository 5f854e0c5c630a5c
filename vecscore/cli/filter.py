"""Conditions of ``vecscore filter``: ``rougeL_fmeasure>=0.3``, ``bleu_score<50``, ..."""
from __future__ import annotations

import operator
import re
from dataclasses import dataclass

import numpy as np

from vecscore.errors import VecscoreError

__all__ = ["Condition", "parse_condition", "metrics_of", "apply_conditions"]

_OPS = {">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt, "==": operator.eq, "!=": operator.ne}
_COND = re.compile(
    r"^\s*([A-Za-z][\w.*-]*)\s*(>=|<=|==|!=|>|<)\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*$"
)
_ROUGE_COL = re.compile(r"^(rouge[\w.*-]+)_(precision|recall|fmeasure)$")
_FORMS = "<rouge metric>_precision|_recall|_fmeasure (e.g. rougeL_fmeasure) or bleu_score"


@dataclass(frozen=True)
class Condition:
    column: str
    op: str
    value: float

    def __call__(self, columns: dict) -> np.ndarray:
        return _OPS[self.op](np.asarray(columns[self.column]), self.value)

    def __str__(self) -> str:
        return f"{self.column}{self.op}{self.value:g}"


def parse_condition(text: str) -> Condition:
    """``COLUMN OP NUMBER`` with OP one of ``>= <= > < == !=``; errors say what is valid."""
    m = _COND.match(text)
    if not m:
        raise VecscoreError(
            f"cannot read the condition {text!r}; write COLUMN OP NUMBER with OP one of >= <= > < == != "
            f"and COLUMN {_FORMS}, e.g. 'rougeL_fmeasure>=0.3'"
        )
    column, op, value = m.groups()
    if column != "bleu_score" and not _ROUGE_COL.match(column):
        raise VecscoreError(f"unknown score column {column!r} in {text!r}; use {_FORMS}")
    return Condition(column, op, float(value))


def metrics_of(conditions) -> list[str]:
    """The metric names the conditions need, in order of first use (``"bleu"`` for ``bleu_score``)."""
    out: list[str] = []
    for c in conditions:
        name = "bleu" if c.column == "bleu_score" else _ROUGE_COL.match(c.column).group(1)
        if name not in out:
            out.append(name)
    return out


def apply_conditions(conditions, columns: dict, *, any_of: bool = False) -> np.ndarray:
    """Boolean mask of the rows that pass all conditions (``any_of``: at least one). NaN never passes."""
    masks = [c(columns) for c in conditions]
    return np.logical_or.reduce(masks) if any_of else np.logical_and.reduce(masks)
