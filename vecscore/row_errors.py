"""Errors in the user's terms: the user's name of a row (``hyps[3]``, ``refs[1][7]``) for an error raised deep in
a route, and the refusal of text that is not valid Unicode (a lone surrogate), naming its row."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any

import numpy as np

from vecscore.columns import TextColumn
from vecscore.errors import EmptyTokenizationWarning, RowError, VecscoreError, warn
from vecscore.inputs import input_kind
from vecscore.references import Refs, iterable, read_refs

__all__ = ["check_unicode", "user_row", "unicode_errors", "rows_named", "warn_empty_rows"]


_SURROGATE = re.compile("[\ud800-\udfff]")


def _surrogate(x: str, name: Callable[[], str]) -> None:
    if not x.isascii():
        m = _SURROGATE.search(x)
        if m:
            raise VecscoreError(
                f"{name()} has a lone surrogate (U+{ord(m.group()):04X}) at character {m.start()}, which is "
                "not valid Unicode text; decode the input with errors='replace' or remove the character"
            )


def check_unicode(rows: Any, what: str) -> None:
    """Refuse text that is not valid Unicode: a lone surrogate (from bytes decoded with ``surrogateescape``
    or a broken JSON escape) cannot be encoded, and the official tools disagree on what it is.

    ``rows`` is a list whose items are texts, or (nested) lists of texts, or
    :class:`Refs`; the error names the user's item, e.g. ``refs[3][1]``.
    """
    if isinstance(rows, TextColumn) or (isinstance(rows, Refs) and isinstance(rows.flat, TextColumn)):
        return  # valid UTF-8 (checked when the column was read) holds no surrogate
    if isinstance(rows, Refs):
        try:
            if all(map(str.isascii, rows.flat)):
                return
        except TypeError:  # token lists: walk them
            pass
        for k, x in enumerate(rows.flat):
            if isinstance(x, str):
                _surrogate(x, partial(rows.name, k))
            elif isinstance(x, (list, tuple)):
                check_unicode(x, rows.name(k))
        return
    try:
        if all(map(str.isascii, rows)):
            return
    except TypeError:  # not all str: walk the items
        pass
    for i, x in enumerate(rows):
        if isinstance(x, str):
            _surrogate(x, f"{what}[{i}]".format)
        elif isinstance(x, (list, tuple)):
            check_unicode(x, f"{what}[{i}]")


def user_row(row: int, hyps: Sequence[Any], refs: Any, refs_layout: str = "per-example") -> str:
    """The user's name of text ``row`` of a call (hypotheses first, then the flattened references)."""
    n_pairs = len(hyps)
    if row < n_pairs:
        return f"hyps[{row}]"
    if not isinstance(refs, Refs):
        try:
            refs = read_refs(refs, n_pairs, input_kind(hyps), refs_layout)
        except VecscoreError:
            return f"reference {row - n_pairs} (counting all pairs' references)"
    return refs.name(row - n_pairs)


@contextmanager
def unicode_errors(hyps: Any, refs: Any) -> Iterator[None]:
    """On the compiled route: an encoding failure becomes :func:`check_unicode`'s error naming the row.

    (The plain route checks up front; on a large batch that pass would cost
    a read of every string, so the kernels' own encoding finds the problem.)
    """
    try:
        yield
    except (UnicodeError, VecscoreError):
        check_unicode(hyps, "hyps")
        if isinstance(refs, Refs) or iterable(refs):
            check_unicode(refs, "refs")
        raise


@contextmanager
def rows_named(hyps: Any, refs: Any, refs_layout: str = "per-example") -> Iterator[None]:
    """Turn a :class:`~vecscore.errors.RowError` raised inside the block into the user's terms."""
    try:
        yield
    except RowError as exc:
        name = user_row(exc.row, hyps, refs, refs_layout)
        raise VecscoreError(exc.template.format(row=name)) from None


def warn_empty_rows(rows: Sequence[str], lengths: np.ndarray) -> None:
    """One warning for the non-blank texts that the tokenizer reduced to zero tokens (``lengths``: tokens per row)."""
    empty = np.flatnonzero(lengths == 0)
    if empty.size == 0:
        return
    lost = [int(i) for i in empty if rows[int(i)].strip()]
    if lost:
        warn(
            f"{len(lost)} non-empty text(s) were reduced to zero tokens by the tokenizer (first: text {lost[0]}, "
            f"{rows[lost[0]]!r:.40}); they score 0. For Chinese, Japanese or Korean text use tokenizer='char' or "
            "tokenizer='cjk' (or 'jieba' for Chinese words).",
            EmptyTokenizationWarning,
        )
