"""The captioning layout: one hypothesis per item and a list of one or more references per item."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

from vecscore.columns import JoinedRows, TextColumn, column_refs
from vecscore.errors import VecscoreError
from vecscore.inputs import as_rows

__all__ = ["Items", "items"]


@dataclass(frozen=True)
class Items:
    hyps: Sequence[str]  # a list of str, or a string column as it is (:class:`~vecscore.columns.TextColumn`)
    refs: Sequence[str]  # every item's references, item after item (a list, or a column)
    ref_ptr: np.ndarray  # int64: item i's references are refs[ref_ptr[i]:ref_ptr[i + 1]]

    def texts(self, *extra: Sequence[str]) -> Sequence[str]:
        """The hypotheses, the references, then ``extra``'s texts: a new list, or where one of them is a column,
        the parts one after another as they are (:class:`~vecscore.columns.JoinedRows`)."""
        parts = (self.hyps, self.refs, *extra)
        if any(isinstance(p, TextColumn) for p in parts):
            return JoinedRows(*parts)
        out = list(self.hyps)
        for p in parts[1:]:
            out += p  # C-level
        return out

    @property
    def n(self) -> int:
        return len(self.hyps)

    @property
    def owner(self) -> np.ndarray:
        """The item of each reference."""
        return np.repeat(np.arange(self.n, dtype=np.int64), np.diff(self.ref_ptr))


def _text(x, where: str) -> str:
    if type(x) is str:
        return x
    if isinstance(x, str):
        return str.__str__(x)  # a str subclass: its characters, not what its methods would make of them
    raise VecscoreError(f"{where} is {type(x).__name__} {x!r:.60}; expected a str (one caption)")


def items(hyps, refs) -> Items:
    """Check and flatten ``hyps`` (one str per item; ``None``: an empty one per item of ``refs``) and ``refs``
    (per item, a list of one or more str).  Columns of Arrow, polars and pandas are read as such (a list column's
    references by its offsets)."""
    if isinstance(hyps, str) or isinstance(refs, str):
        raise VecscoreError("hyps and refs must be sequences (one entry per item), not a single str")
    column = column_refs(refs, "refs")
    if column is None:
        refs = as_rows(refs, "refs")
        if isinstance(refs, TextColumn):
            raise VecscoreError("refs is a column of str; each item's references must be a list of str (a list "
                                "column, or e.g. [[r] for r in refs])")
        n_refs = len(refs)
    else:
        n_refs = len(column[1])
    hyps = [""] * n_refs if hyps is None else as_rows(hyps, "hyps")
    if len(hyps) != n_refs:
        raise VecscoreError(f"{len(hyps)} hypotheses but {n_refs} reference lists: give one list of references "
                            "per hypothesis (refs[i] holds item i's references)")
    hyps = _texts(hyps, lambda i: f"hyps[{i}]")
    if column is not None:
        flat, ends = column
        return _checked(hyps, flat, ends)
    types = set(map(type, refs))
    if types <= {list}:  # the usual layout, checked in C
        lists = refs
    elif types == {np.ndarray} and all(r.ndim == 1 for r in refs):  # pandas' read_parquet of a list column
        ends = np.cumsum(np.fromiter(map(len, refs), np.int64, count=len(refs)))
        return _checked(hyps, np.concatenate(refs).tolist(), ends)
    else:
        lists = [r if type(r) is list else _reference_list(r, i) for i, r in enumerate(refs)]
    ends = np.cumsum(np.fromiter(map(len, lists), dtype=np.int64, count=len(lists)))
    return _checked(hyps, list(chain.from_iterable(lists)), ends)


def _checked(hyps: Sequence[str], flat: Sequence, ends: np.ndarray) -> Items:
    """:class:`Items` of ``hyps`` and references ``flat`` (item ``i``'s end at ``ends[i]``), every item with a
    reference and every reference a str."""
    ptr = np.zeros(len(ends) + 1, dtype=np.int64)
    ptr[1:] = ends
    lengths = np.diff(ptr)
    if lengths.size and not lengths.all():
        raise VecscoreError(f"refs[{int(np.argmin(lengths))}] is empty: every item needs at least one reference")
    return Items(hyps, _texts(flat, _ref_name(ptr)), ptr)


def _reference_list(r, i: int) -> list:
    if isinstance(r, str):
        raise VecscoreError(f"refs[{i}] is a str; each item's references must be a list of str (e.g. [{r!r:.40}])")
    return list(r)


def _ref_name(ptr: np.ndarray):
    def name(k: int) -> str:
        i = int(np.searchsorted(ptr, k, side="right")) - 1
        return f"refs[{i}][{k - int(ptr[i])}]"
    return name


def _texts(texts, name) -> Sequence[str]:
    """``texts`` when every one is an exact ``str`` (one pass in C; a string column's rows are), else each
    checked (:func:`_text`)."""
    if isinstance(texts, TextColumn):
        return texts
    if set(map(type, texts)) <= {str}:
        return texts
    return [_text(x, name(k)) for k, x in enumerate(texts)]
