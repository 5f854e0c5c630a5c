"""Outputs of the ``vecscore`` command: atomic files, writers per format, the progress bar."""
from __future__ import annotations

import csv
import io
import json
import math
import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from vecscore.errors import MissingDependencyError, VecscoreError

__all__ = ["OUTPUT_FORMATS", "output_format", "atomic_output", "make_writer", "progress_bar", "write_json"]

OUTPUT_FORMATS = ("json", "jsonl", "csv", "tsv", "parquet")
_OUT_EXT = {".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".tsv": "tsv",
            ".parquet": "parquet", ".pq": "parquet"}


def output_format(path: str, given: str | None, default: str) -> str:
    """``given``, else the extension of ``path``, else ``default``."""
    if given:
        return given
    if path != "-":
        ext = Path(path).suffix.lower()
        if ext in _OUT_EXT:
            return _OUT_EXT[ext]
    return default


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextmanager
def atomic_output(path: str):
    """A binary stream whose content appears at ``path`` only if the block completes.

    The data goes to a temporary file in the target's directory, which is
    flushed, synced and renamed over ``path`` at the end (``os.replace`` is
    atomic on POSIX); on any exception, including KeyboardInterrupt, the
    temporary file is removed and ``path`` is left as it was.  ``-`` is
    standard output (written as it goes).
    """
    if path == "-":
        out = sys.stdout.buffer
        yield out
        out.flush()
        return
    target = Path(path)
    if target.is_dir():
        raise VecscoreError(f"cannot write {path}: it is a directory; give a file name")
    directory = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except FileNotFoundError:
        raise VecscoreError(f"cannot write {path}: the directory {directory} does not exist; create it first") from None
    except OSError as exc:
        raise VecscoreError(f"cannot write {path}: {exc.strerror or exc}; check the directory's permissions") from None
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def json_safe(obj):
    """``obj`` with every NaN or infinity replaced by ``None`` (JSON has no such numbers; ``null`` is undefined)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    return obj


def write_json(path: str, obj) -> None:
    """One JSON document (indented), atomically; undefined values (a mean of zero pairs) are ``null``."""
    with atomic_output(path) as f:
        f.write((json.dumps(json_safe(obj), indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8"))


def write_text(path: str, text: str) -> None:
    """Text (UTF-8), atomically."""
    with atomic_output(path) as f:
        f.write(text.encode("utf-8"))


# --------------------------------------------------------------------------------------
# per-row writers
# --------------------------------------------------------------------------------------


def _row_columns(rows, chunk, stats: bool):
    cols = dict(chunk.columns)
    if stats:
        cols.update(chunk.stats)
    return cols


def _records(rows) -> list[dict] | None:
    if rows.records is not None:
        return rows.records
    if rows.table is not None:
        return rows.table.to_pylist()
    return None


def _index(rows, mask):
    idx = np.arange(len(rows)) if mask is None else np.flatnonzero(mask)
    return idx


class JsonlWriter:
    """One JSON object per row: ``pair``, pass-through columns, scores (floats round-trip exactly)."""

    def __init__(self, stream, stats: bool) -> None:
        self.f, self.stats = stream, stats

    def write(self, rows, chunk, mask=None) -> None:
        cols = _row_columns(rows, chunk, self.stats)
        names = list(cols)
        values = [cols[n].tolist() for n in names]
        recs = _records(rows)
        lines = []
        dumps = json.dumps
        for i in _index(rows, mask).tolist():
            row = {"pair": rows.start + i}
            if recs is not None:
                row.update(recs[i])
            for n, v in zip(names, values):
                row[n] = v[i]
            lines.append(dumps(row, ensure_ascii=False))
        if lines:
            self.f.write(("\n".join(lines) + "\n").encode("utf-8"))

    def close(self) -> None:
        pass

    def abort(self) -> None:
        pass


class CsvWriter:
    """CSV/TSV with a header; lists and objects in pass-through columns are written as JSON."""

    def __init__(self, stream, stats: bool, delimiter: str = ",") -> None:
        self.text = io.TextIOWrapper(stream, encoding="utf-8", newline="", write_through=True)
        self.w = csv.writer(self.text, delimiter=delimiter, lineterminator="\n")
        self.stats, self.header = stats, None

    def write(self, rows, chunk, mask=None) -> None:
        cols = _row_columns(rows, chunk, self.stats)
        names = list(cols)
        values = [cols[n].tolist() for n in names]
        recs = _records(rows)
        keys = [] if recs is None or not recs else list(recs[0])
        if self.header is None:
            self.header = ["pair", *keys, *names]
            self.w.writerow(self.header)
        for i in _index(rows, mask).tolist():
            extra = []
            if recs is not None:
                rec = recs[i]
                if list(rec) != keys:
                    raise VecscoreError(
                        f"{rows.where(i)}: the row has columns {list(rec)}, the first row {keys}; CSV needs the same "
                        "columns in every row (choose them with --keep, or write JSON Lines)"
                    )
                extra = [v if isinstance(v, str) or v is None else json.dumps(v, ensure_ascii=False)
                         for v in rec.values()]
            self.w.writerow([rows.start + i, *extra,
                             *(repr(v[i]) if isinstance(v[i], float) else v[i] for v in values)])

    def close(self) -> None:
        self.text.flush()
        self.text.detach()

    def abort(self) -> None:
        try:
            self.text.detach()
        except ValueError:  # already detached
            pass


class ParquetWriter:
    """Parquet (snappy), one row group per chunk, through :func:`vecscore.io.arrow.append_columns`."""

    def __init__(self, stream, stats: bool) -> None:
        import pyarrow as pa

        self.pa, self.stream, self.stats, self.writer, self.schema = pa, stream, stats, None, None

    def write(self, rows, chunk, mask=None) -> None:
        from vecscore.io.arrow import append_columns

        pa = self.pa
        pair = pa.array(np.arange(rows.start, rows.start + len(rows), dtype=np.int64))
        if rows.table is not None:
            base = rows.table
        elif rows.records is not None:
            base = pa.Table.from_pylist(rows.records)
        else:
            base = pa.table({})
        if base.num_columns == 0:
            base = pa.table({"pair": pair})
        else:
            if "pair" in base.column_names:
                raise VecscoreError(f"{rows.source}: the input has a column 'pair', which the output uses for the row "
                                    "index; rename it or leave it out with --keep")
            base = base.add_column(0, "pair", pair)
        table = append_columns(base, chunk, stats=self.stats)
        if mask is not None:
            table = table.filter(pa.array(mask))
        self._write(table, rows)

    def _write(self, table, rows) -> None:
        import pyarrow.parquet as pq

        if self.writer is None:
            self.schema = table.schema
            self.writer = pq.ParquetWriter(self.stream, self.schema, compression="snappy")
        elif not table.schema.equals(self.schema):
            try:
                table = table.cast(self.schema)
            except (self.pa.ArrowInvalid, self.pa.ArrowNotImplementedError, ValueError) as exc:
                raise VecscoreError(
                    f"{rows.source}, rows from {rows.start + 1}: the column types changed ({exc}); give every row the "
                    "same types, or write JSON Lines"
                ) from None
        self.writer.write_table(table)

    def abort(self) -> None:
        """Release the Arrow writer before the (discarded) temporary file is closed."""
        if self.writer is not None:
            try:
                self.writer.close()
            except Exception:  # the output is being discarded anyway
                pass
            self.writer = None
        self.closed = True

    def close(self) -> None:
        if self.writer is None:  # no rows at all: an empty file with just the row index
            import pyarrow.parquet as pq

            pq.write_table(self.pa.table({"pair": self.pa.array([], self.pa.int64())}), self.stream)
        else:
            self.writer.close()


def make_writer(fmt: str, stream, *, stats: bool = False):
    if fmt == "jsonl":
        return JsonlWriter(stream, stats)
    if fmt in ("csv", "tsv"):
        return CsvWriter(stream, stats, "," if fmt == "csv" else "\t")
    if fmt == "parquet":
        try:
            return ParquetWriter(stream, stats)
        except ImportError:
            raise MissingDependencyError("Parquet output needs pyarrow: pip install 'vecscore[parquet]'") from None
    raise VecscoreError(f"no per-row writer for {fmt!r}; valid: jsonl, csv, tsv, parquet")


# --------------------------------------------------------------------------------------
# progress
# --------------------------------------------------------------------------------------


class _NoBar:
    disable = True

    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass

    def abort(self) -> None:
        pass


def progress_bar(total: int | None, *, quiet: bool, desc: str = "scoring", stream=None):
    """A tqdm bar on stderr, updated once per chunk; off with ``quiet``, off when stderr is not a terminal,
    and off when tqdm is not installed."""
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    if quiet or not (isatty and isatty()):
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:
        return _NoBar()
    return tqdm(total=total, desc=desc, unit="pair", unit_scale=True, file=stream, dynamic_ncols=True, leave=False)
