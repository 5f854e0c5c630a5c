"""Columns as rows: Arrow, polars, pandas and NumPy columns read into the input layer's Python rows.

:mod:`vecscore.inputs` reads every call's rows once; a column from a data
library reaches it through these two functions, which never import the
library (a column is recognised by its type's module):

* :func:`column_rows` gives a column's rows as a new list of exact ``str``
  (or of lists of them, for a list column): a ``pyarrow.Array`` or
  ``ChunkedArray`` of ``string``, ``large_string`` or ``string_view``; a
  polars ``Series`` (``String``, ``List(String)``); a pandas ``Series`` or
  array backed by Arrow (``ArrowDtype``, pandas' ``str``/``string[pyarrow]``
  dtype); a NumPy array of ``<U`` or ``object`` items.  The strings are
  decoded from the column's UTF-8 buffer in one C-level pass (Arrow's
  ``to_numpy``), not item by item.
* :func:`column_refs` gives a list column of references (``list``,
  ``large_list`` or ``fixed_size_list`` of strings; polars ``List(String)``)
  as ``(flat, ends)``: every reference, pair after pair, and where each
  pair's end: the form :class:`vecscore.inputs.Refs` keeps, taken from the
  column's own offsets, with no list built per row.

A null is refused, naming the user's row (``hyps[3]``, ``refs[2][1]``) and
the fix; so is a column of any other type (bytes, numbers, a whole table).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from vecscore.errors import VecscoreError

__all__ = ["column_rows", "column_refs", "column_slice"]

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


def _strings(arr: Any, what: str) -> list:
    """A string column's values as a list of ``str`` (one C-level decode)."""
    if arr.null_count:
        raise _null_error(what, _first_null(arr))
    if len(arr) == 0:
        return []
    return arr.to_numpy(zero_copy_only=False).tolist()


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


def _list_values(arr: Any, what: str) -> tuple[list, np.ndarray]:
    """``(flat, offsets)`` of a column of lists of strings; a null item is named ``what[i][j]``."""
    values, offsets = _list_parts(arr, what)
    if _type_name(values.type) not in _STRING_TYPES:
        raise VecscoreError(f"{what} is an Arrow column of lists of {values.type}; expected lists of strings")
    if values.null_count:
        k = _first_null(values)
        i = int(np.searchsorted(offsets, k, side="right") - 1)
        raise VecscoreError(f"{what}[{i}][{k - int(offsets[i])}] is null, not a str; {_FILL}")
    flat = values.to_numpy(zero_copy_only=False).tolist() if len(values) else []
    return flat, offsets


def column_rows(rows: Any, what: str) -> list | None:
    """A column's rows as a new list (``str``, or lists of ``str`` for a list column); ``None`` when ``rows`` is
    not a column of Arrow, polars, pandas (Arrow-backed) or NumPy (``<U`` or ``object``)."""
    if isinstance(rows, np.ndarray):
        if rows.dtype.kind in "UO":
            return rows.tolist()
        return None
    arr = _arrow(rows)
    if arr is None:
        return None
    kind = _type_name(arr.type)
    if kind in _STRING_TYPES:
        return _strings(arr, what)
    if kind in _LIST_TYPES:
        flat, offsets = _list_values(arr, what)
        bounds = offsets.tolist()
        return [flat[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    if kind == "null" and len(arr) == 0:
        return []
    if kind in ("binary", "large_binary", "binary_view"):
        raise VecscoreError(f"{what} is an Arrow column of {arr.type}; decode it to strings first, e.g. "
                            "pyarrow.compute.cast(column, pyarrow.string())")
    raise VecscoreError(f"{what} is an Arrow column of {arr.type}; expected strings (string, large_string or "
                        "string_view) or, for references, lists of strings")


def column_refs(refs: Any, what: str) -> tuple[list, np.ndarray] | None:
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
