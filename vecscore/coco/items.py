"""The captioning layout: one hypothesis per item and a list of one or more references per item."""
from __future__ import annotations

from dataclasses import dataclass
from itertools import chain

import numpy as np

from vecscore.errors import VecscoreError

__all__ = ["Items", "items"]


@dataclass(frozen=True)
class Items:
    hyps: list[str]
    refs: list[str]  # every item's references, item after item
    ref_ptr: np.ndarray  # int64: item i's references are refs[ref_ptr[i]:ref_ptr[i + 1]]

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
    """Check and flatten ``hyps`` (one str per item) and ``refs`` (per item, a list of one or more str)."""
    if isinstance(hyps, str) or isinstance(refs, str):
        raise VecscoreError("hyps and refs must be sequences (one entry per item), not a single str")
    hyps = list(hyps)
    refs = list(refs)
    if len(hyps) != len(refs):
        raise VecscoreError(f"{len(hyps)} hypotheses but {len(refs)} reference lists: give one list of references "
                            "per hypothesis (refs[i] holds item i's references)")
    if set(map(type, refs)) <= {list}:  # the usual layout, checked in C
        lists = refs
    else:
        lists = [r if type(r) is list else _reference_list(r, i) for i, r in enumerate(refs)]
    lengths = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
    if lengths.size and not lengths.all():
        raise VecscoreError(f"refs[{int(np.argmin(lengths))}] is empty: every item needs at least one reference")
    ptr = np.zeros(len(refs) + 1, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    return Items(_texts(hyps, lambda i: f"hyps[{i}]"), _texts(list(chain.from_iterable(lists)), _ref_name(ptr)), ptr)


def _reference_list(r, i: int) -> list:
    if isinstance(r, str):
        raise VecscoreError(f"refs[{i}] is a str; each item's references must be a list of str (e.g. [{r!r:.40}])")
    return list(r)


def _ref_name(ptr: np.ndarray):
    def name(k: int) -> str:
        i = int(np.searchsorted(ptr, k, side="right")) - 1
        return f"refs[{i}][{k - int(ptr[i])}]"
    return name


def _texts(texts: list, name) -> list[str]:
    """``texts`` when every one is an exact ``str`` (one pass in C), else each checked (:func:`_text`)."""
    if set(map(type, texts)) <= {str}:
        return texts
    return [_text(x, name(k)) for k, x in enumerate(texts)]
