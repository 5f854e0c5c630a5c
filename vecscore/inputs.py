"""The input layer: what a batch of user input is, checked once, with errors in the user's terms.

Accepted inputs (decided by the type of the first hypothesis, never guessed per row):

* texts: ``hyps`` a sequence of ``str``; ``refs`` per example either a ``str``
  (one reference) or a list of ``str`` (several);
* pre-tokenized: ``hyps`` a sequence of lists of ``str`` tokens; ``refs`` per
  example a list of tokens (one reference) or a list of such lists;
* token ids: ``hyps`` a sequence of integer NumPy arrays (or lists of ints);
  ``refs`` per example an integer array or a list of them.

``refs_layout="streams"`` takes sacreBLEU's layout instead: ``refs[k][i]`` is
the k-th reference of pair ``i``; ``None`` marks a missing reference.

This module imports neither numba nor any kernel: both the compiled route and
the small-batch route (the ``plain`` module of each metric) start here.
"""
from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from itertools import chain
from typing import Any

import numpy as np

from vecscore.errors import EmptyTokenizationWarning, RowError, VecscoreError, warn

__all__ = ["REFS_LAYOUTS", "AUTO_LAYOUT", "check_layout", "resolve_layout", "as_rows", "input_kind", "check_units",
           "normalize_refs", "warn_empty_rows", "check_unicode", "user_row", "rows_named",
           "batch_rows", "unicode_errors", "plain_str"]

REFS_LAYOUTS = ("per-example", "streams")
#: ``refs_layout="auto"``: the one layout that fits the references' shape; both fitting with
#: different meanings is an error (see :func:`resolve_layout`)
AUTO_LAYOUT = "auto"


def check_layout(refs_layout: str, auto: bool = True) -> str:
    """``refs_layout`` itself, after checking it names a layout (``"auto"`` only when ``auto``)."""
    valid = (AUTO_LAYOUT, *REFS_LAYOUTS) if auto else REFS_LAYOUTS
    if refs_layout not in valid:
        raise VecscoreError(f"refs_layout must be one of {', '.join(map(repr, valid))}, not {refs_layout!r}")
    return refs_layout


def as_rows(rows: Any, what: str) -> list:
    """The user's rows as one list, read once: any iterable, by iteration (never by index).

    A pandas Series after filtering (an index without 0), a generator, a
    NumPy array or a custom sequence all give their items in iteration order.
    A ``Sequence`` whose ``len()`` disagrees with the items it yields is
    refused, as are a single string and objects that are not iterable.
    (``str`` subclasses are made plain where Python code would call their
    methods: :func:`plain_str`.)
    """
    if isinstance(rows, (str, bytes)):
        raise VecscoreError(f"{what} must be a sequence of texts (e.g. a list of str), not a single string "
                            f"({type(rows).__name__}); wrap one text in a list: [text]")
    if isinstance(rows, dict):
        raise VecscoreError(f"{what} is a dict; pass a list of texts (e.g. list(d.values()))")
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


def plain_str(items: list) -> list:
    """``items`` with every ``str`` subclass instance replaced by a plain ``str`` of the same characters.

    The kernels read a text's characters in place, so an overridden method
    (``lower``, ``split``) never changes a score there; the Python routes call
    this first so that it does not change one there either.
    """
    if set(map(type, items)) <= {str}:
        return items
    return [str.__getitem__(x, slice(None)) if isinstance(x, str) and type(x) is not str else x for x in items]


_SURROGATE = re.compile("[\ud800-\udfff]")


def check_unicode(rows: Sequence[Any], what: str) -> None:
    """Refuse text that is not valid Unicode: a lone surrogate (from bytes decoded with ``surrogateescape``
    or a broken JSON escape) cannot be encoded, and the official tools disagree on what it is.

    ``rows`` is a list whose items are texts, or (nested) lists of texts; the
    error names the user's item, e.g. ``refs[3][1]``.
    """
    try:
        if all(map(str.isascii, rows)):
            return
    except TypeError:  # not all str: walk the items
        pass
    for i, x in enumerate(rows):
        if isinstance(x, str):
            if not x.isascii():
                m = _SURROGATE.search(x)
                if m:
                    raise VecscoreError(
                        f"{what}[{i}] has a lone surrogate (U+{ord(m.group()):04X}) at character {m.start()}, which is "
                        "not valid Unicode text; decode the input with errors='replace' or remove the character"
                    )
        elif isinstance(x, (list, tuple)):
            check_unicode(x, f"{what}[{i}]")


def user_row(row: int, hyps: Sequence[Any], refs: Sequence[Any], refs_layout: str = "per-example") -> str:
    """The user's name of text ``row`` of a call (hypotheses first, then the flattened references)."""
    n_pairs = len(hyps)
    if row < n_pairs:
        return f"hyps[{row}]"
    try:
        _, ptr = normalize_refs(refs, n_pairs, input_kind(hyps), refs_layout)
    except VecscoreError:
        return f"reference {row - n_pairs} (counting all pairs' references)"
    k = row - n_pairs
    i = int(np.searchsorted(ptr, k, side="right") - 1)
    if refs_layout == "streams":
        return f"reference {k - int(ptr[i]) + 1} of pair {i}"
    single = ptr[i + 1] - ptr[i] == 1 and not isinstance(refs[i], (list, tuple))
    return f"refs[{i}]" if single else f"refs[{i}][{k - int(ptr[i])}]"


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
        if not isinstance(refs, (str, bytes)) and hasattr(refs, "__iter__"):
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


def batch_rows(hyps: Sequence[Any], refs: Sequence[Any],
               refs_layout: str = "per-example") -> tuple[str, list, np.ndarray]:
    """``(kind, rows, ref_ptr)`` of a checked batch: every text, hypotheses first, then the flattened references.

    The references of pair ``i`` are rows ``n + ref_ptr[i] .. n + ref_ptr[i + 1]``.
    """
    hyps = as_rows(hyps, "hyps")
    kind = input_kind(hyps)
    check_units(hyps, kind, "hyps")
    flat_refs, ref_ptr = normalize_refs(refs, len(hyps), kind, refs_layout)
    return kind, hyps + flat_refs, ref_ptr


def input_kind(hyps: Sequence[Any]) -> str:
    """``"text"``, ``"tokens"`` or ``"ids"``, from the first hypothesis."""
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
        f"hyps[0] is {type(h).__name__}; expected str (text), a list of str (tokens) or an integer array (token ids)"
    )


def _is_unit(x, kind: str) -> bool:
    if kind == "text":
        return isinstance(x, str)
    if kind == "tokens":
        return isinstance(x, (list, tuple)) and (_all_str(x) or all(isinstance(t, str) for t in x))
    if isinstance(x, np.ndarray):
        return x.ndim == 1 and (x.dtype.kind in "iu" or x.size == 0)
    return isinstance(x, (list, tuple)) and all(isinstance(t, (int, np.integer)) and not isinstance(t, bool) for t in x)


_UNIT_NAME = {"text": "a str", "tokens": "a list of str tokens", "ids": "a 1-d integer array"}


def _all_str(rows) -> bool:
    """Fast (C-level) check that every row is exactly a ``str``."""
    return set(map(type, rows)) <= {str}


def _all_token_lists(rows) -> bool:
    """Fast (C-level) check that every row is a list or tuple of exactly ``str``."""
    return set(map(type, rows)) <= {list, tuple} and _all_str(chain.from_iterable(rows))


def check_units(rows: Sequence[Any], kind: str, what: str) -> None:
    if (kind == "text" and _all_str(rows)) or (kind == "tokens" and _all_token_lists(rows)):
        return
    bad = next((i for i, x in enumerate(rows) if not _is_unit(x, kind)), None)
    if bad is not None:
        raise VecscoreError(
            f"{what}[{bad}] is {rows[bad]!r:.60}, not {_UNIT_NAME[kind]}; every row must be {_UNIT_NAME[kind]} "
            "(replace missing values, e.g. with an empty string)"
        )


def _sequence(x) -> bool:
    return not isinstance(x, (str, bytes)) and hasattr(x, "__iter__") and hasattr(x, "__len__")


def _could_be_streams(refs, n_pairs: int) -> bool:
    return len(refs) > 0 and all(_sequence(s) and len(s) == n_pairs for s in refs)


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    return a == b


def resolve_layout(refs: Any, n_pairs: int, refs_layout: str) -> str:
    """The layout of ``refs``: ``refs_layout`` itself, or under ``"auto"`` the one that fits.

    ``"auto"`` (sacreBLEU's function names use it) never guesses: sacreBLEU's
    streams (``refs[k][i]``, every stream one entry per hypothesis) and
    vecscore's per-example layout (``refs[i]``: one reference or a list) are
    told apart by shape, and when both fit with different meanings (as many
    streams as hypotheses, e.g. two hypotheses with two references each) the
    call is refused with the two ways to say which is meant.
    """
    if refs_layout != AUTO_LAYOUT:
        return refs_layout
    if isinstance(refs, (str, bytes)) or not hasattr(refs, "__iter__"):
        return "per-example"  # normalize_refs reports it
    refs = refs if isinstance(refs, list) else as_rows(refs, "refs")
    if not _could_be_streams(refs, n_pairs):
        return "per-example"
    if len(refs) != n_pairs:
        return "streams"
    square = [s if isinstance(s, (list, tuple)) else as_rows(s, "refs") for s in refs]
    if all(_same(square[k][i], square[i][k]) for k in range(n_pairs) for i in range(k)):
        return "streams"  # the two readings agree when the square is symmetric (e.g. one pair)
    raise VecscoreError(
        f"refs could be read two ways: {n_pairs} reference streams (sacreBLEU's layout, refs[k][i]) or, per "
        f"hypothesis, a list of {n_pairs} references (refs[i][k]); pass refs_layout='streams' or "
        "refs_layout='per-example'"
    )


def normalize_refs(refs: Any, n_pairs: int, kind: str,
                   refs_layout: str = "per-example") -> tuple[list, np.ndarray]:
    """Flatten references into ``(flat_refs, ref_ptr)``; errors name the row."""
    if refs_layout not in (*REFS_LAYOUTS, AUTO_LAYOUT):
        raise VecscoreError(f"refs_layout must be one of {(*REFS_LAYOUTS, AUTO_LAYOUT)}, not {refs_layout!r}")
    if isinstance(refs, (str, bytes)) or not hasattr(refs, "__iter__"):
        raise VecscoreError("refs must be a sequence with one entry per hypothesis (or streams with "
                            "refs_layout='streams')")
    refs = as_rows(refs, "refs")
    refs_layout = resolve_layout(refs, n_pairs, refs_layout)
    if refs_layout == "streams":
        for k, stream in enumerate(refs):
            if isinstance(stream, (str, bytes)) or not hasattr(stream, "__iter__"):
                raise VecscoreError(f"reference stream {k} is not a sequence of references")
            refs[k] = as_rows(stream, f"refs[{k}]")
    fast = _fast_flatten(refs, n_pairs, kind, refs_layout)
    if fast is not None:
        return fast
    if refs_layout == "streams":
        if len(refs) == 0:
            raise VecscoreError("refs_layout='streams' needs at least one reference stream")
        for k, stream in enumerate(refs):
            if len(stream) != n_pairs:
                raise VecscoreError(
                    f"reference stream {k} has {len(stream)} references but there are {n_pairs} hypotheses; "
                    "every stream needs one entry per hypothesis (None for a missing one)"
                )
        refs = [[s[i] for s in refs if s[i] is not None] for i in range(n_pairs)]
        missing = next((i for i, r in enumerate(refs) if not r), None)
        if missing is not None:
            raise VecscoreError(
                f"pair {missing} has no reference: it is None in every reference stream; "
                "every hypothesis needs at least one reference"
            )
    if len(refs) != n_pairs:
        raise VecscoreError(
            f"got {n_pairs} hypotheses but {len(refs)} reference entries; they must have the same length "
            "(for sacreBLEU-style reference streams pass refs_layout='streams')"
        )
    if kind == "text" and _all_str(refs):
        return list(refs), np.arange(n_pairs + 1, dtype=np.int64)
    if all(_is_unit(r, kind) for r in refs):
        return plain_str(list(refs)), np.arange(n_pairs + 1, dtype=np.int64)
    flat = []
    counts = np.empty(n_pairs, np.int64)
    for i, r in enumerate(refs):
        if _is_unit(r, kind) and not (kind != "text" and len(r) == 0):
            flat.append(r)
            counts[i] = 1
            continue
        if not isinstance(r, (list, tuple)):
            raise VecscoreError(f"refs[{i}] is {r!r:.60}; expected {_UNIT_NAME[kind]} or a list of them")
        if len(r) == 0:
            hint = " (write [[]] for one empty reference)" if kind != "text" else ""
            raise VecscoreError(f"refs[{i}] is an empty list of references; "
                                f"every pair needs at least one reference{hint}")
        bad = next((j for j, x in enumerate(r) if not _is_unit(x, kind)), None)
        if bad is not None:
            raise VecscoreError(f"refs[{i}][{bad}] is {r[bad]!r:.60}, not {_UNIT_NAME[kind]}")
        flat.extend(r)
        counts[i] = len(r)
    ptr = np.zeros(n_pairs + 1, np.int64)
    np.cumsum(counts, out=ptr[1:])
    return plain_str(flat), ptr


def _fast_flatten(refs, n_pairs: int, kind: str, refs_layout: str):
    """C-level flattening for the common all-text and all-token-list layouts; ``None`` means "take the checked path"."""
    if kind == "tokens" and refs_layout == "per-example":
        return _fast_flatten_tokens(refs, n_pairs)
    if kind != "text" or len(refs) == 0:
        return None
    if refs_layout == "streams":
        if not set(map(type, refs)) <= {list, tuple} or any(len(stream) != n_pairs for stream in refs):
            return None
        flat = list(refs[0]) if len(refs) == 1 else list(chain.from_iterable(zip(*refs)))  # one stream: a copy
        if not _all_str(flat):
            return None
        return flat, np.arange(0, len(refs) * n_pairs + 1, len(refs), dtype=np.int64)
    if len(refs) != n_pairs or not set(map(type, refs)) <= {list, tuple}:
        return None
    counts = np.fromiter(map(len, refs), dtype=np.int64, count=n_pairs)
    flat = list(chain.from_iterable(refs))
    if (counts == 0).any() or not _all_str(flat):
        return None
    ptr = np.zeros(n_pairs + 1, np.int64)
    np.cumsum(counts, out=ptr[1:])
    return flat, ptr


def _fast_flatten_tokens(refs, n_pairs: int):
    """Per-example token lists: every entry one reference (a list of ``str``) or every entry a list of them."""
    if len(refs) != n_pairs or n_pairs == 0 or not set(map(type, refs)) <= {list, tuple}:
        return None
    counts = np.fromiter(map(len, refs), dtype=np.int64, count=n_pairs)
    if (counts == 0).any():
        return None
    inner = set(map(type, chain.from_iterable(refs)))
    if inner <= {str}:  # one reference per pair
        return list(refs), np.arange(n_pairs + 1, dtype=np.int64)
    if not inner <= {list, tuple}:
        return None
    flat = list(chain.from_iterable(refs))
    if not _all_str(chain.from_iterable(flat)):
        return None
    ptr = np.zeros(n_pairs + 1, np.int64)
    np.cumsum(counts, out=ptr[1:])
    return flat, ptr


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
