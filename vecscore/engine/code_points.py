"""Every text of a batch as its code points where they lie, for kernels that read characters (chrF's).

:func:`text_rows` gives, per text, the address, the number of code points
and their width in bytes (1, 2 or 4): a compact CPython ``str`` is read in
place (:mod:`vecscore.kernels.in_place`), a string column's ASCII rows from
its own buffer, and anything else is encoded to UTF-32 here (every text when
in-place reading is off, ``VECSCORE_FAST_PATH=0``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vecscore.columns import JoinedRows, TextColumn
from vecscore.kernels.in_place import ASCII, str_rows

__all__ = ["CodePoints", "text_rows"]


@dataclass(frozen=True)
class CodePoints:
    """Row ``t``: ``lens[t]`` code points of ``widths[t]`` bytes (1, 2 or 4) at ``addrs[t]``; ``keep`` owns them."""

    addrs: np.ndarray  # int64
    lens: np.ndarray  # int64
    widths: np.ndarray  # int64
    keep: tuple


def text_rows(texts: list) -> CodePoints:
    """The code points of ``texts`` (plain ``str``) for the kernel: read in place where CPython keeps a
    compact ``str`` (:mod:`vecscore.kernels.in_place`), otherwise encoded to UTF-32 here (every text
    when in-place reading is off or unavailable, ``VECSCORE_FAST_PATH=0``)."""
    if isinstance(texts, (JoinedRows, TextColumn)):
        parts = [_column_points(p) if isinstance(p, TextColumn) else text_rows(p)
                 for p in (texts.parts if isinstance(texts, JoinedRows) else (texts,))]
        return CodePoints(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("addrs", "lens", "widths")),
                          tuple(k for p in parts for k in p.keep))
    rows = str_rows(texts)
    if rows is None:
        return _encoded(texts, np.arange(len(texts)), None)
    width = getattr(rows, "width", None)
    widths = np.zeros(len(texts), np.int64) if width is None else width.astype(np.int64)
    widths[rows.kind == ASCII] = 1
    todo = np.flatnonzero(widths == 0)  # not a compact str: encoded here
    if len(todo) == 0:
        return CodePoints(rows.addrs, rows.lens, widths, (rows,))
    return _encoded(texts, todo, CodePoints(rows.addrs, rows.lens, widths, (rows,)))


def _column_points(column: TextColumn) -> CodePoints:
    """A string column's code points, with no ``str`` made: its ASCII rows read from its own buffer (one byte
    each), the others decoded together into one ``str`` (C-level passes over those rows only) read in place."""
    n = len(column)
    addrs = column.data.ctypes.data + column.offsets[:-1]
    lens = np.diff(column.offsets)
    widths = np.ones(n, np.int64)
    if column.nbytes() == 0:
        return CodePoints(addrs, lens, widths, (column,))
    other = column.non_ascii_rows()
    if len(other) == 0:
        return CodePoints(addrs, lens, widths, (column,))
    text, starts = column.joined(other)
    joined = text_rows([text])  # one str for them all: read in place (or its UTF-32)
    addrs[other] = joined.addrs[0] + joined.widths[0] * starts[:-1]
    lens[other] = np.diff(starts)
    widths[other] = joined.widths[0]
    return CodePoints(addrs, lens, widths, (column, *joined.keep))


def _encoded(texts: list, todo: np.ndarray, base: CodePoints | None) -> CodePoints:
    """``base`` with the rows ``todo`` pointed at their UTF-32 encoding (``base`` ``None``: every row)."""
    if base is None:
        n = len(texts)
        base = CodePoints(np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64), ())
        picked = texts
    else:
        picked = [texts[i] for i in todo]
    lengths = np.fromiter(map(len, picked), np.int64, len(picked))
    starts = np.zeros(len(picked), np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    buf = np.frombuffer("".join(picked).encode("utf-32-le") or b"\0\0\0\0", np.uint32)
    addrs, lens, widths = base.addrs.copy(), base.lens.copy(), base.widths.copy()
    addrs[todo] = buf.ctypes.data + 4 * starts
    lens[todo] = lengths
    widths[todo] = 4
    return CodePoints(addrs, lens, widths, base.keep + (buf,))
