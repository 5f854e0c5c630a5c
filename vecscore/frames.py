"""Per-row results as tables: the user's row labels, pandas, Arrow and polars.

A result with one row per pair remembers the index of the pandas ``Series``
its hypotheses came from (:func:`row_index`), so that
``df.join(result.to_pandas())`` lines the scores up with the rows they belong
to, also after a filter such as ``df = df[df.n > 0]``.  Inputs without an
index (lists, NumPy arrays, polars Series, Arrow arrays) give a ``RangeIndex``.

pandas, pyarrow and polars are imported only when a table is asked for.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from vecscore.errors import VecscoreError

__all__ = ["row_index", "plain", "pandas_frame", "arrow_table", "polars_frame"]


def row_index(hyps: Any) -> Any:
    """The row labels of ``hyps`` when it is a pandas ``Series`` (its ``index``), else ``None``.

    Called before the rows are read, so the labels are the ones the caller holds.

    >>> row_index(["a", "b"]) is None
    True
    """
    module = type(hyps).__module__ or ""
    if module.startswith("pandas") and type(hyps).__name__ == "Series":
        return hyps.index
    return None


def plain(value: Any) -> Any:
    """``value`` with NumPy arrays and scalars (also inside dicts, lists and tuples) as Python lists and numbers,
    so that ``json.dumps`` takes it.

    >>> plain({"a": np.arange(2), "b": (np.float64(0.5), None)})
    {'a': [0, 1], 'b': [0.5, None]}
    """
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def _labels(index: Any, n_rows: int, kept: Any) -> Any:
    """The index a frame of ``n_rows`` rows gets: ``index`` if given (checked), else ``kept``, else a RangeIndex."""
    import pandas as pd

    if index is None:
        return pd.RangeIndex(n_rows) if kept is None else kept
    if isinstance(index, str) or not hasattr(index, "__len__"):
        raise VecscoreError(f"index must be a sequence of row labels (one per pair) or a pandas Index, not "
                            f"{type(index).__name__}")
    if len(index) != n_rows:
        raise VecscoreError(f"index has {len(index)} labels but the result has {n_rows} rows (one per hypothesis); "
                            "pass one label per row, e.g. index=df.index of the rows you scored")
    return index if isinstance(index, pd.Index) else pd.Index(index)


def pandas_frame(columns: Mapping[str, Any], n_rows: int, *, index: Any = None, kept: Any = None) -> Any:
    """A DataFrame of ``columns`` whose index is ``index`` (checked), else ``kept`` (the input's), else a RangeIndex."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - depends on the environment
        raise VecscoreError("to_pandas() needs pandas: pip install pandas") from None
    return pd.DataFrame(dict(columns), index=_labels(index, n_rows, kept))


def arrow_table(columns: Mapping[str, Any]) -> Any:
    """A ``pyarrow.Table`` of ``columns`` (Arrow tables have no index: rows are in the input's order)."""
    try:
        import pyarrow as pa
    except ImportError:
        raise VecscoreError("to_arrow() needs pyarrow: pip install pyarrow (or vecscore[parquet])") from None
    return pa.table({k: np.asarray(v) for k, v in columns.items()})


def polars_frame(columns: Mapping[str, Any]) -> Any:
    """A ``polars.DataFrame`` of ``columns`` (polars has no index: rows are in the input's order)."""
    try:
        import polars as pl
    except ImportError:
        raise VecscoreError("to_polars() needs polars: pip install polars") from None
    return pl.DataFrame({k: np.asarray(v) for k, v in columns.items()})
