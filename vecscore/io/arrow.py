"""Engine-neutral scoring of Arrow tables: ``score_table(pa.Table) -> pa.Table``.

The same function serves the CLI (Parquet), Ray Data (``map_batches`` with
``batch_format="pyarrow"``), Dask (``map_partitions`` via pandas <-> Arrow)
and Spark (``mapInArrow``): it takes a table with a hypothesis column and
reference column(s) and returns it with score columns appended (and, with
``stats=True``, the per-pair sufficient statistics, from which corpus BLEU
and micro-averaged ROUGE of any union of tables follow by summation; see
:func:`corpus_from_table`).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vecscore.errors import MissingDependencyError, VecscoreError
from vecscore.io.stream import CorpusAccumulator, ScoreChunk, make_spec, score_batches

__all__ = ["score_table", "table_inputs", "corpus_from_table", "append_columns"]


def _pa():
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - depends on the environment
        raise MissingDependencyError("score_table needs pyarrow: pip install 'vecscore[parquet]'") from None
    return pa


def _first_null(column) -> int | None:
    import pyarrow.compute as pc

    if column.null_count == 0:
        return None
    return int(pc.index(pc.is_null(column), True).as_py())


def _is_string(t) -> bool:
    pa = _pa()
    return (pa.types.is_string(t) or pa.types.is_large_string(t)
            or getattr(pa.types, "is_string_view", lambda _: False)(t))


def _is_string_list(t) -> bool:
    pa = _pa()
    lists = pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)
    return lists and _is_string(t.value_type)


def table_inputs(table, hyp_column: str, ref_columns: Sequence[str], *, source: str = "table", start: int = 0):
    """``(hyps, refs)`` as Python lists from string / ``list<string>`` columns; nulls are errors naming the row."""
    import pyarrow.compute as pc

    pa = _pa()
    names = table.column_names
    ref_columns = [ref_columns] if isinstance(ref_columns, str) else list(ref_columns)
    if not ref_columns:
        raise VecscoreError("give at least one reference column")
    for c in [hyp_column, *ref_columns]:
        if c not in names:
            raise VecscoreError(f"{source}: no column {c!r} (columns: {', '.join(names)}); name the columns with "
                                "hyp_column/ref_columns (CLI: --hyp-column/--ref-column)")

    def where(i):
        return f"{source}, row {start + i + 1}"

    hyp = table.column(hyp_column)
    if not _is_string(hyp.type):
        raise VecscoreError(f"{source}: column {hyp_column!r} has type {hyp.type}, not string")
    bad = _first_null(hyp)
    if bad is not None:
        raise VecscoreError(f"{where(bad)}: {hyp_column!r} is null; give a string (\"\" for an empty text)")
    cols = []
    for c in ref_columns:
        col = table.column(c)
        if not (_is_string(col.type) or _is_string_list(col.type)):
            raise VecscoreError(f"{source}: column {c!r} has type {col.type}; "
                                "references must be string or list<string>")
        bad = _first_null(col)
        if bad is not None:
            raise VecscoreError(f"{where(bad)}: {c!r} is null; give a string (or a non-empty list of strings)")
        if _is_string_list(col.type):
            lengths = pc.list_value_length(col)
            empty = _first_null(pc.if_else(pc.equal(lengths, 0), pa.scalar(None, pa.int32()), lengths))
            if empty is not None:
                raise VecscoreError(f"{where(empty)}: {c!r} is an empty list; every row needs at least one reference")
            inner = pc.list_flatten(col)
            if inner.null_count:
                row = int(np.searchsorted(_list_offsets(col), _first_null(inner), side="right") - 1)
                raise VecscoreError(f"{where(row)}: {c!r} contains a null reference; give strings only")
        cols.append((col.to_pylist(), _is_string_list(col.type)))
    hyps = hyp.to_pylist()
    if len(cols) == 1:
        refs = cols[0][0]
    else:
        per_col = [vals if is_list else [[v] for v in vals] for vals, is_list in cols]
        refs = [sum(parts, []) for parts in zip(*per_col)]
    return hyps, refs


def _list_offsets(col) -> np.ndarray:
    lengths = np.asarray(col.combine_chunks().value_lengths() if hasattr(col, "combine_chunks")
                         else col.value_lengths())
    out = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(np.nan_to_num(lengths).astype(np.int64), out=out[1:])
    return out


def append_columns(table, chunk: ScoreChunk, *, stats: bool = False):
    """``table`` with ``chunk``'s score columns (and statistics) appended; name clashes are errors."""
    pa = _pa()
    new = dict(chunk.columns)
    if stats:
        new.update(chunk.stats)
    for name in new:
        if name in table.column_names:
            raise VecscoreError(f"the table already has a column {name!r}; drop or rename it before scoring")
    for name, values in new.items():
        table = table.append_column(name, pa.array(np.asarray(values)))
    return table


def score_table(
    table,
    *,
    hyp_column: str = "hyp",
    ref_columns: str | Sequence[str] = "ref",
    metrics: Sequence[str] = ("rouge1", "rouge2", "rougeL"),
    stats: bool = False,
    rouge_options: dict | None = None,
    bleu_options: dict | None = None,
    rouge155_options: dict | None = None,
    spec=None,
    workers=None,
    chunk_size: int | None = None,
):
    """Score every row of a ``pyarrow.Table``; return it with score columns appended.

    Parameters
    ----------
    table : pyarrow.Table (or RecordBatch)
    hyp_column : str
        A string column of hypotheses.
    ref_columns : str or sequence of str
        One ``string`` or ``list<string>`` column (several references per
        row), or several string columns (one reference each).
    metrics : sequence of str
        ROUGE names (``rouge1``, ``rougeL``, ``rougeLsum``, ``rougeW``, ...;
        with ``rouge155_options``: also ``rougeS4``, ``rougeSU4``, ...) and/or
        ``"bleu"`` (sentence BLEU, sacreBLEU's ``sentence_bleu`` semantics).
    stats : bool
        Append the per-pair sufficient statistics too (``<metric>_hits``,
        ``_p_den``, ``_r_den``; ``bleu_sys_len``, ``bleu_ref_len``,
        ``bleu_correct_k``, ``bleu_total_k``, ``bleu_nrefs``), int64.
    rouge_options, bleu_options, rouge155_options : dict, optional
        Keyword arguments of :func:`vecscore.rouge`, :func:`vecscore.bleu.corpus_bleu`
        or :func:`vecscore.rouge155.rouge155` (given: ROUGE is ROUGE-1.5.5).
    spec : optional
        A prepared spec from :mod:`vecscore.io.stream` (instead of ``metrics`` and options).
    workers : int, optional
        numba threads, restored afterwards.
    chunk_size : int, optional
        Score at most this many rows at a time (bounds the temporary memory);
        the result is identical for any value.

    Returns
    -------
    pyarrow.Table
        The input columns, then ``<metric>_precision``, ``_recall``,
        ``_fmeasure`` per ROUGE metric, ``bleu_score``, and the statistics.

    Examples
    --------
    >>> import pyarrow as pa
    >>> t = pa.table({"hyp": ["the cat sat"], "ref": ["the cat sat down"]})
    >>> score_table(t, metrics=["rouge1"]).column("rouge1_recall").to_pylist()
    [0.75]
    """
    pa = _pa()
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    if spec is None:
        spec = make_spec(metrics, rouge_options=rouge_options, bleu_options=bleu_options,
                         rouge155_options=rouge155_options)
    hyps, refs = table_inputs(table, hyp_column, ref_columns)
    size = max(len(hyps), 1) if chunk_size is None else int(chunk_size)
    if size < 1:
        raise VecscoreError(f"chunk_size must be a positive int, got {chunk_size!r}")
    batches = ((hyps[i : i + size], refs[i : i + size]) for i in range(0, len(hyps), size))
    chunks = list(score_batches(batches, spec, workers=workers, stats=stats))
    if not chunks:  # an empty table still gets its (empty) columns
        chunks = list(score_batches([([], [])], spec, stats=stats)) if len(hyps) == 0 else []
    merged = _concat(chunks)
    return append_columns(table, merged, stats=stats)


def _concat(chunks: list[ScoreChunk]) -> ScoreChunk:
    if len(chunks) == 1:
        return chunks[0]
    first = chunks[0]
    columns = {k: np.concatenate([c.columns[k] for c in chunks]) for k in first.columns}
    stats = {k: np.concatenate([c.stats[k] for c in chunks]) for k in first.stats}
    return ScoreChunk(first.start, sum(c.n for c in chunks), columns, stats, first.signature)


def corpus_from_table(table, spec) -> dict:
    """Corpus summary (exact means, micro ROUGE, corpus BLEU) of a table scored with ``stats=True``."""
    names = set(table.column_names)
    acc = CorpusAccumulator(spec)
    columns = {c: table.column(c).to_numpy() for c in score_columns(spec) if c in names}
    stats = {c: table.column(c).to_numpy() for c in names if is_stat_column(c, spec)}
    acc.add(ScoreChunk(0, table.num_rows, columns, stats, ""))
    return acc.summary()


def _metric_names(spec) -> list[str]:
    from vecscore.io.stream import BleuSpec, CombinedSpec

    if isinstance(spec, CombinedSpec):
        return [m for s in spec.specs for m in _metric_names(s)]
    if isinstance(spec, BleuSpec):
        return ["bleu"]
    return list(spec.metrics)


def score_columns(spec) -> list[str]:
    out = []
    for m in _metric_names(spec):
        out += ["bleu_score"] if m == "bleu" else [f"{m}_{f}" for f in ("precision", "recall", "fmeasure")]
    return out


def is_stat_column(column: str, spec) -> bool:
    for m in _metric_names(spec):
        if m == "bleu" and column.startswith("bleu_") and column != "bleu_score":
            return True
        if m != "bleu" and column in (f"{m}_hits", f"{m}_p_den", f"{m}_r_den"):
            return True
    return False
