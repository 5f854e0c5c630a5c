"""The input layer: a call's rows read once, at its public entry, checked, with errors in the user's terms.

Every public function and method reads the user's hypotheses and references
here first, and no later layer (a route, a kernel's reader, a plain twin)
reads the user's objects again:

* :func:`read_rows` reads hypotheses (or a shared set of references) into a
  list that the call owns; every text is an exact ``str``: a ``str`` subclass
  (an ``Enum`` member with a ``str`` mixin, NumPy's ``str_``, a class that
  overrides ``__str__``, ``__len__``, ``lower``, ``split``, ``encode`` or
  ``__eq__``) becomes ``str.__str__(x)``, the exact ``str`` of its
  characters, so that no route calls the subclass's methods (rouge-score
  and sacreBLEU score the characters too).  A list of exact ``str`` is
  passed on as it is, after one C-level type check.
* :func:`vecscore.references.read_refs` reads the references into :class:`~vecscore.references.Refs`: every
  reference, pair after pair (``flat``), and ``ptr`` (pair ``i``'s are
  ``flat[ptr[i]:ptr[i + 1]]``).  Each list of references, and each stream,
  is read in one pass that gives its items and its length together, so a
  list that another thread changes during the call is seen whole, before or
  after the change, and can never pair a hypothesis with another pair's
  references.  The layout is decided here too, by one rule for every
  function and method.

Accepted inputs (decided by the type of the first hypothesis, never guessed per row):

* texts: ``hyps`` a sequence of ``str``; ``refs`` per example either a ``str``
  (one reference) or a list of ``str`` (several);
* pre-tokenized: ``hyps`` a sequence of lists of ``str`` tokens; ``refs`` per
  example a list of tokens (one reference) or a list of such lists;
* token ids: ``hyps`` a sequence of integer NumPy arrays (or lists of ints);
  ``refs`` per example an integer array or a list of them.

``refs_layout="streams"`` takes sacreBLEU's layout instead: ``refs[k][i]`` is
the k-th reference of pair ``i``; ``None`` marks a missing reference.

This module reads the rows; :mod:`vecscore.references` the references, and :mod:`vecscore.row_errors` names
the user's row in errors and refuses text that is not valid Unicode.  They import neither numba nor any
kernel: both the compiled route and the small-batch route (the ``plain`` module of each metric) start here.
"""
from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np

from vecscore.columns import TextColumn, column_rows
from vecscore.errors import VecscoreError

__all__ = ["as_rows", "read_rows", "all_exact_str", "exact_text", "exact_units", "input_kind", "check_units",
           "check_token_rows"]


def as_rows(rows: Any, what: str) -> Any:
    """The user's rows as one new list, read once: any iterable, by iteration (never by index); a string
    column of a data library as a :class:`vecscore.columns.TextColumn` (its own buffer, a sequence of ``str``).

    A pandas Series after filtering (an index without 0), a generator, a
    NumPy array or a custom sequence all give their items in iteration order.
    A ``Sequence`` whose ``len()`` disagrees with the items it yields is
    refused, as are a single string and objects that are not iterable.
    (The items are taken as they are: :func:`read_rows` makes texts exact.)
    """
    if isinstance(rows, (str, bytes)):
        raise VecscoreError(f"{what} must be a sequence of texts (e.g. a list of str), not a single string "
                            f"({type(rows).__name__}); wrap one text in a list: [text]")
    if isinstance(rows, dict):
        raise VecscoreError(f"{what} is a dict; pass a list of texts (e.g. list(d.values()))")
    column = column_rows(rows, what)
    if column is not None:
        return column
    try:
        items = list(rows)
    except TypeError:
        raise VecscoreError(f"{what} must be a sequence of texts (e.g. a list of str), not "
                            f"{type(rows).__name__}") from None
    if hasattr(rows, "__len__"):
        try:
            claimed = len(rows)
        except TypeError:
            claimed = len(items)
        if claimed != len(items):
            raise VecscoreError(f"{what} reports len() = {claimed} but yields {len(items)} items; pass a list "
                                f"(e.g. list({what}))")
    return items


# --- exact rows -----------------------------------------------------------------------------------


def exact_text(x: str) -> str:
    """``x`` as an exact ``str`` of its characters: ``x`` itself, or for a subclass ``str.__str__(x)``
    (a copy made by ``str`` itself: the subclass's ``__str__`` is not called)."""
    return x if type(x) is str else str.__str__(x)


UNIT_NAME = {"text": "a str", "tokens": "a list of str tokens", "ids": "a 1-d integer array"}


def _unit_error(what: str, x: Any, kind: str) -> VecscoreError:
    return VecscoreError(f"{what} is {x!r:.60}, not {UNIT_NAME[kind]}; every row must be {UNIT_NAME[kind]} "
                         "(replace missing values, e.g. with an empty string)")


def all_exact_str(rows) -> bool:
    """Whether every row (of a list, or any iterable) is exactly a ``str``: one C-level pass (the types listed and
    counted by identity, about twice as fast as a set of them).  A string column's rows are ``str`` already."""
    if isinstance(rows, TextColumn):
        return True
    types = list(map(type, rows))
    return types.count(str) == len(types)


_all_str = all_exact_str


def _all_token_lists(rows) -> bool:
    """Fast (C-level) check that every row is a list or tuple of exactly ``str``."""
    return set(map(type, rows)) <= {list, tuple} and _all_str(chain.from_iterable(rows))


def exact_tokens(x: Any) -> list | tuple | None:
    """A token list with every token an exact ``str`` (``x`` itself when it is one already), or ``None``
    when ``x`` is not a list of ``str``."""
    if not isinstance(x, (list, tuple)):
        return None
    if type(x) in (list, tuple) and _all_str(x):
        return x
    toks = list(x)
    for j, t in enumerate(toks):
        if type(t) is not str:
            if not isinstance(t, str):
                return None
            toks[j] = str.__str__(t)
    return toks


def check_token_rows(rows, what: str) -> None:
    """The first row that is not a list of ``str``, named in the error (``what``: "hyps" or "references")."""
    for i, row in enumerate(rows):
        if not isinstance(row, (list, tuple)):
            raise VecscoreError(f"{what}[{i}] is {type(row).__name__}, not a list of str tokens; every row must be "
                                "a list of str (as the other rows)")
        bad = next((t for t in row if not isinstance(t, str)), None)
        if bad is not None:
            raise VecscoreError(f"{what}[{i}] holds the token {bad!r:.40} ({type(bad).__name__}); tokens must be "
                                "str (convert them, e.g. [str(t) for t in tokens])")


def exact_units(rows: list, kind: str, what: str) -> list:
    """``rows`` (a list the call owns, changed in place) checked as rows of ``kind``, every text exact.

    An exact list passes after one C-level type check; otherwise each row is
    looked at once: a ``str`` subclass becomes :func:`exact_text` of it, a
    row that is not of ``kind`` is named in the error (``hyps[3]``).
    """
    if kind == "text":
        if _all_str(rows):
            return rows
        for i, x in enumerate(rows):
            if type(x) is not str:
                if not isinstance(x, str):
                    raise _unit_error(f"{what}[{i}]", x, kind)
                rows[i] = str.__str__(x)
        return rows
    if kind == "tokens":
        if _all_token_lists(rows):
            return rows
        for i, x in enumerate(rows):
            toks = exact_tokens(x)
            if toks is None:
                raise _unit_error(f"{what}[{i}]", x, kind)
            rows[i] = toks
        return rows
    check_units(rows, kind, what)
    return rows


def input_kind(hyps: Sequence[Any], what: str = "hyps") -> str:
    """``"text"``, ``"tokens"`` or ``"ids"``, from the first row."""
    if len(hyps) == 0:
        return "text"
    h = hyps[0]
    if isinstance(h, str):
        return "text"
    if isinstance(h, np.ndarray) and h.dtype.kind in "iu":
        return "ids"
    if isinstance(h, (list, tuple)):
        if any(isinstance(x, str) for x in h):
            return "tokens"
        if any(isinstance(x, (int, np.integer)) for x in h):
            return "ids"
        return "tokens"
    raise VecscoreError(
        f"{what}[0] is {type(h).__name__}; expected str (text), a list of str (tokens) or an integer array "
        "(token ids)"
    )


def read_rows(rows: Any, what: str = "hyps", kind: str | None = None) -> tuple[list, str]:
    """``(rows, kind)``: the user's rows read once (:func:`as_rows`) into a new list of exact rows
    (:func:`exact_units`); ``kind`` from the first row unless given."""
    rows = as_rows(rows, what)
    kind = input_kind(rows, what) if kind is None else kind
    return exact_units(rows, kind, what), kind


def _is_unit(x, kind: str) -> bool:
    if kind == "text":
        return isinstance(x, str)
    if kind == "tokens":
        return isinstance(x, (list, tuple)) and (_all_str(x) or all(isinstance(t, str) for t in x))
    if isinstance(x, np.ndarray):
        return x.ndim == 1 and (x.dtype.kind in "iu" or x.size == 0)
    return isinstance(x, (list, tuple)) and all(isinstance(t, (int, np.integer)) and not isinstance(t, bool) for t in x)


def exact_unit(x, kind: str):
    """``x`` as an exact row of ``kind``, or ``None`` when it is not one."""
    if kind == "text":
        return exact_text(x) if isinstance(x, str) else None
    if kind == "tokens":
        return exact_tokens(x)
    return x if _is_unit(x, kind) else None


def check_units(rows: Sequence[Any], kind: str, what: str) -> None:
    if (kind == "text" and _all_str(rows)) or (kind == "tokens" and _all_token_lists(rows)):
        return
    bad = next((i for i, x in enumerate(rows) if not _is_unit(x, kind)), None)
    if bad is not None:
        raise _unit_error(f"{what}[{bad}]", rows[bad], kind)
