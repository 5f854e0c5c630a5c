"""Columns as rows: Arrow, polars, pandas and NumPy columns read into the input layer's rows.

:mod:`vecscore.inputs` reads every call's rows once; a column from a data
library reaches it through these functions, which never import the library
(a column is recognised by its type's module):

* :func:`column_rows` gives a string column's rows as a :class:`TextColumn`:
  a ``pyarrow.Array`` or ``ChunkedArray`` of ``string``, ``large_string`` or
  ``string_view``; a polars ``String`` Series; a pandas ``Series`` or array
  backed by Arrow (``ArrowDtype``, pandas' ``str``/``string[pyarrow]``
  dtype).  A :class:`TextColumn` keeps the column's own UTF-8 buffer and
  offsets (Arrow's layout, no copy of the text) for the per-pair kernels,
  which read the bytes where they lie
  (:func:`vecscore.engine.pair_rows.pair_rows`); every other reader sees a
  sequence of ``str``, decoded once, in one C-level pass, when first asked.
  A list column gives a list of lists of ``str``; a NumPy array of ``<U`` or
  ``object`` items a list.
* :func:`column_refs` gives a list column of references (``list``,
  ``large_list``, ``fixed_size_list`` or ``list_view`` of strings; polars
  ``List(String)``) as ``(flat, ends)``: every reference, pair after pair (a
  :class:`TextColumn` over the column's values), and where each pair's end:
  the form :class:`vecscore.references.Refs` keeps, taken from the column's own
  offsets, with no list built per row.

A null is refused, naming the user's row (``hyps[3]``, ``refs[2][1]``) and
the fix; so are bytes that are not UTF-8 and a column of any other type
(bytes, numbers, a whole table).
"""
from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from vecscore.errors import VecscoreError

__all__ = ["TextColumn", "JoinedRows", "interleaved", "column_rows", "column_refs", "column_slice"]

_STRING_TYPES = ("string", "large_string", "utf8", "large_utf8", "string_view")
_LIST_TYPES = ("list", "large_list", "fixed_size_list", "list_view", "large_list_view")
_FILL = ("fill the missing values first, e.g. pyarrow.compute.fill_null(column, '') or, in polars, "
         "column.fill_null('')")


def _module(x: Any) -> str:
    return type(x).__module__ or ""


def _arrow(x: Any) -> Any:
    """``x`` as a pyarrow Array or ChunkedArray, or ``None`` when it is not a column of a data library."""
    mod = _module(x)
    if mod.startswith("pyarrow"):
        if hasattr(x, "num_columns"):  # a Table or RecordBatch
            raise VecscoreError(f"got a whole {type(x).__name__}; pass one of its columns, e.g. table['hyp']")
        return x if hasattr(x, "type") and hasattr(x, "null_count") else None
    if mod.startswith("polars"):
        if hasattr(x, "columns"):
            raise VecscoreError("got a whole polars DataFrame; pass one of its columns, e.g. df['hyp']")
        return x.to_arrow() if hasattr(x, "to_arrow") else None
    if mod.startswith("pandas"):
        if hasattr(x, "columns"):
            raise VecscoreError("got a whole pandas DataFrame; pass one of its columns, e.g. df['hyp']")
        values = getattr(x, "array", x)
        if hasattr(values, "__arrow_array__") and "Arrow" in type(values).__name__:
            import pyarrow as pa

            return pa.chunked_array(values.__arrow_array__())
    return None


def _type_name(t: Any) -> str:
    """An Arrow type's id name (``string``, ``large_list``...), whatever its parameters."""
    name = str(t)
    return name.split("<", 1)[0].split("[", 1)[0]


def _null_error(what: str, row: int) -> VecscoreError:
    return VecscoreError(f"{what}[{row}] is null, not a str; {_FILL}")


def _first_null(arr: Any) -> int:
    return int(np.argmax(arr.is_null().to_numpy(zero_copy_only=False)))


class TextColumn(Sequence):
    """A string column's rows, kept as the column holds them: row ``i`` is the UTF-8 bytes
    ``data[offsets[i]:offsets[i + 1]]``.

    ``data`` and ``offsets`` (``int64``, ``len + 1``) are what the per-pair kernels read, without a copy of
    the text.  As a sequence it gives ``str``: one row is decoded when asked for by index; iterating or
    slicing decodes the whole column once (:meth:`decoded`, a C-level pass) and keeps the list.
    """

    __slots__ = ("data", "offsets", "arrow", "_decoded")

    def __init__(self, arrow: Any, data: np.ndarray, offsets: np.ndarray):
        self.arrow = arrow  # the pyarrow Array that owns ``data`` (kept alive with it)
        self.data = data
        self.offsets = offsets
        self._decoded: list | None = None

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i):  # type: ignore[override]
        if self._decoded is not None:
            return self._decoded[i]
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step != 1:
                return self.decoded()[i]
            part = self.arrow.slice(start, max(stop - start, 0))
            return part.to_numpy(zero_copy_only=False).tolist() if len(part) else []
        n = len(self)
        i = operator.index(i)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("TextColumn index out of range")
        return self.data[self.offsets[i]:self.offsets[i + 1]].tobytes().decode("utf-8")

    def __iter__(self) -> Iterator[str]:
        return iter(self.decoded())

    def __add__(self, other):  # list operations give lists, as for the list of the rows
        return self.decoded() + list(other)

    def __radd__(self, other):
        return list(other) + self.decoded()

    def __mul__(self, k):
        return self.decoded() * k

    def __eq__(self, other):  # equal to the list of the same rows
        return self.decoded() == (other.decoded() if isinstance(other, TextColumn) else other)

    __hash__ = None  # type: ignore[assignment]  # a sequence of rows, as a list

    def __reduce__(self):
        return list, (self.decoded(),)  # pickled (to a worker process) as the list of its rows

    def __repr__(self) -> str:
        return f"TextColumn({len(self)} rows, {self.nbytes()} bytes)"

    def nbytes(self) -> int:
        """Bytes of text in the rows (at least their characters)."""
        return int(self.offsets[-1] - self.offsets[0]) if len(self) else 0

    def count_endswith(self, suffix: str) -> int:
        """How many rows end in ``suffix``, compared as UTF-8 bytes (the same as comparing the characters)."""
        tail = np.frombuffer(suffix.encode("utf-8"), np.uint8)
        ends = self.offsets[1:][np.diff(self.offsets) >= len(tail)]
        hit = np.ones(len(ends), np.bool_)
        for j, byte in enumerate(tail):
            hit &= self.data[ends - len(tail) + j] == byte
        return int(hit.sum())

    def non_ascii_rows(self) -> np.ndarray:
        """The indices of the rows that hold a byte ``>= 0x80`` (one C-level pass by Arrow)."""
        import pyarrow.compute as pc

        return np.flatnonzero(~pc.string_is_ascii(self.arrow).to_numpy(zero_copy_only=False))

    def has_byte(self, byte: int) -> bool:
        """Whether a row holds the byte ``byte`` (an ASCII character's, e.g. ``10`` for a newline)."""
        return bool((self.data[self.offsets[0]:self.offsets[-1]] == byte).any())

    def joined(self, rows: np.ndarray) -> tuple[str, np.ndarray]:
        """The rows ``rows`` (indices) decoded together into one ``str``, with no ``str`` per row:
        ``(text, starts)``, row ``rows[k]`` being ``text[starts[k]:starts[k + 1]]``."""
        import pyarrow as pa
        import pyarrow.compute as pc

        part = self.arrow.take(pa.array(rows, pa.int64()))
        starts = np.zeros(len(rows) + 1, np.int64)
        np.cumsum(pc.utf8_length(part).to_numpy(zero_copy_only=False), out=starts[1:])
        data, offsets = _buffers(part)
        return str(data[offsets[0]:offsets[-1]], "utf-8"), starts

    def decoded(self) -> list:
        """The rows as a list of ``str`` (decoded once, then kept)."""
        if self._decoded is None:
            self._decoded = self.arrow.to_numpy(zero_copy_only=False).tolist() if len(self) else []
        return self._decoded


class JoinedRows(Sequence):
    """Sequences of rows one after another (hypotheses, then references), without copying them: a reader that
    knows a :class:`TextColumn` reads each part as it is (e.g. :func:`vecscore.chrf.compiled.text_rows`)."""

    __slots__ = ("parts",)

    def __init__(self, *parts: Sequence):
        self.parts = parts

    def __len__(self) -> int:
        return sum(map(len, self.parts))

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return list(self)[i]
        i = operator.index(i)
        if i < 0:
            i += len(self)
        for part in self.parts:
            if 0 <= i < len(part):
                return part[i]
            i -= len(part)
        raise IndexError("JoinedRows index out of range")

    def __iter__(self) -> Iterator:
        return (row for part in self.parts for row in part)


def interleaved(columns: Sequence[TextColumn]) -> TextColumn:
    """Columns of equal length read row after row across them (row ``i`` of each, then row ``i + 1``), as one
    column: their bytes copied by Arrow, nothing decoded (they were checked as UTF-8 when read)."""
    import pyarrow as pa

    k, n = len(columns), len(columns[0])
    joined = pa.concat_arrays([c.arrow.cast(pa.large_string()) for c in columns])
    arr = joined.take(pa.array(np.arange(k * n, dtype=np.int64).reshape(k, n).T.ravel()))
    return TextColumn(arr, *_buffers(arr))


def _text_column(arr: Any, what: str) -> TextColumn:
    """A string Array or ChunkedArray as a :class:`TextColumn` over its own buffers (one copy only where the
    column is in several chunks or is a ``string_view``, whose layout is not offsets)."""
    import pyarrow as pa

    if arr.null_count:
        raise _null_error(what, _first_null(arr))
    if hasattr(arr, "combine_chunks"):
        if arr.num_chunks == 1:
            arr = arr.chunk(0)
        else:  # large_string first: the chunks together may pass string's 2 GiB of offsets
            arr = arr.cast(pa.large_string()).combine_chunks() if arr.num_chunks else pa.array([], pa.string())
    if _type_name(arr.type) == "string_view":
        arr = arr.cast(pa.large_string())
    try:
        arr.validate(full=True)
    except pa.ArrowInvalid as e:
        raise VecscoreError(f"{what} holds text that is not valid UTF-8 ({e}); decode it with the right codec "
                            "first") from None
    return TextColumn(arr, *_buffers(arr))


def _buffers(arr: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(data, offsets)`` of a string or large_string Array: its UTF-8 buffer and its offsets as ``int64``."""
    _, off_buf, data_buf = arr.buffers()
    width = np.int64 if _type_name(arr.type) in ("large_string", "large_utf8") else np.int32
    if len(arr) == 0 or off_buf is None:
        return np.zeros(0, np.uint8), np.zeros(1, np.int64)
    offsets = np.frombuffer(off_buf, width)[arr.offset:arr.offset + len(arr) + 1].astype(np.int64)
    data = np.frombuffer(data_buf, np.uint8) if data_buf is not None and data_buf.size else np.zeros(0, np.uint8)
    return data, offsets


def _list_parts(arr: Any, what: str) -> tuple[Any, np.ndarray]:
    """``(values, offsets)`` of a list column: the values (Arrow, unsliced by offsets) and ``len + 1`` offsets
    starting at 0."""
    import pyarrow as pa

    if hasattr(arr, "combine_chunks"):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    kind = _type_name(arr.type)
    if kind in ("list_view", "large_list_view"):
        arr = arr.cast(pa.large_list(arr.type.value_type))
        kind = "large_list"
    if arr.null_count:
        raise _null_error(what, _first_null(arr))
    if len(arr) == 0:
        return arr.values.slice(0, 0), np.zeros(1, np.int64)
    if kind == "fixed_size_list":
        size = arr.type.list_size
        offsets = np.arange(len(arr) + 1, dtype=np.int64) * size
        values = arr.values.slice(arr.offset * size, len(arr) * size)
        return values, offsets
    offsets = np.asarray(arr.offsets, dtype=np.int64)
    values = arr.values.slice(int(offsets[0]), int(offsets[-1] - offsets[0]))
    return values, offsets - offsets[0]


def _list_values(arr: Any, what: str) -> tuple[TextColumn, np.ndarray]:
    """``(flat, offsets)`` of a column of lists of strings; a null item is named ``what[i][j]``."""
    values, offsets = _list_parts(arr, what)
    if _type_name(values.type) not in _STRING_TYPES:
        raise VecscoreError(f"{what} is an Arrow column of lists of {values.type}; expected lists of strings")
    if values.null_count:
        k = _first_null(values)
        i = int(np.searchsorted(offsets, k, side="right") - 1)
        raise VecscoreError(f"{what}[{i}][{k - int(offsets[i])}] is null, not a str; {_FILL}")
    return _text_column(values, what), offsets


def column_rows(rows: Any, what: str) -> Sequence | None:
    """A column's rows: a :class:`TextColumn` of a string column, a new list of lists of ``str`` of a list column,
    a new list of a NumPy array; ``None`` when ``rows`` is not a column of Arrow, polars, pandas (Arrow-backed)
    or NumPy (``<U`` or ``object``)."""
    if isinstance(rows, np.ndarray):
        if rows.dtype.kind in "UO":
            return rows.tolist()
        return None
    arr = _arrow(rows)
    if arr is None:
        return None
    kind = _type_name(arr.type)
    if kind in _STRING_TYPES:
        return _text_column(arr, what)
    if kind in _LIST_TYPES:
        flat, offsets = _list_values(arr, what)
        bounds = offsets.tolist()
        items = flat.decoded()
        return [items[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    if kind == "null" and len(arr) == 0:
        return []
    if kind in ("binary", "large_binary", "binary_view"):
        raise VecscoreError(f"{what} is an Arrow column of {arr.type}; decode it to strings first, e.g. "
                            "pyarrow.compute.cast(column, pyarrow.string())")
    raise VecscoreError(f"{what} is an Arrow column of {arr.type}; expected strings (string, large_string or "
                        "string_view) or, for references, lists of strings")


def column_refs(refs: Any, what: str) -> tuple[TextColumn, np.ndarray] | None:
    """``(flat, ends)`` of a list column of references (pair ``i``'s are ``flat[ends[i-1]:ends[i]]``), read from the
    column's offsets; ``None`` when ``refs`` is not an Arrow, polars or Arrow-backed pandas list column."""
    if isinstance(refs, np.ndarray):
        return None
    arr = _arrow(refs)
    if arr is None or _type_name(arr.type) not in _LIST_TYPES:
        return None
    flat, offsets = _list_values(arr, what)
    return flat, offsets[1:]


def column_slice(x: Any) -> Any:
    """``slice(start, stop)`` of a column of Arrow, polars or pandas (a column of the same type, no copy), or
    ``None`` when ``x`` is not such a column (the streaming API then iterates ``x``)."""
    mod = _module(x)
    if mod.startswith(("pyarrow", "polars")) and hasattr(x, "slice") and not hasattr(x, "num_columns") \
            and not hasattr(x, "columns"):
        return lambda start, stop: x.slice(start, stop - start)
    if mod.startswith("pandas") and hasattr(x, "iloc") and not hasattr(x, "columns"):
        return lambda start, stop: x.iloc[start:stop]
    return None
