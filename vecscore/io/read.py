"""Reading inputs in chunks without losing, reordering or guessing anything.

Formats: plain text (one segment per line; one hypothesis file and one or
more reference files, aligned line by line), JSON Lines, CSV/TSV (a header
row; columns by name) and Parquet (columns by name; references as a
``list<string>`` column or several string columns).  ``-`` reads standard
input.  Every reader yields :class:`RowChunk` objects of at most
``chunk_size`` rows; every error names the file and the line (or row) and
says how to fix it.
"""
from __future__ import annotations

import csv
import io
import itertools
import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from vecscore.errors import MissingDependencyError, VecscoreError

__all__ = [
    "read_lines",
    "count_lines",
    "RowChunk",
    "INPUT_FORMATS",
    "detect_format",
    "iter_text",
    "iter_jsonl",
    "iter_csv",
    "iter_parquet",
    "iter_input",
    "prefetch",
]

INPUT_FORMATS = ("text", "jsonl", "csv", "tsv", "parquet")
_EXTENSIONS = {
    ".txt": "text", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl", ".csv": "csv", ".tsv": "tsv",
    ".parquet": "parquet", ".pq": "parquet",
}


def _name(path: str) -> str:
    return "<stdin>" if path == "-" else str(path)


def open_input(path: str, opener=None):
    """``opener()`` (default: ``path`` opened for reading bytes), a failure to open said in the user's terms: no such
    file, a directory, or the system's reason."""
    try:
        return opener() if opener is not None else open(path, "rb")
    except FileNotFoundError:
        raise VecscoreError(f"cannot read {path}: no such file") from None
    except IsADirectoryError:
        raise VecscoreError(f"cannot read {path}: it is a directory; give a file") from None
    except OSError as exc:
        raise VecscoreError(f"cannot read {path}: {exc.strerror or exc}; check the path and its permissions") from None


def _open_binary(path: str):
    if path == "-":
        return sys.stdin.buffer
    if Path(path).is_dir():
        raise VecscoreError(f"cannot read {path}: it is a directory; give a file")
    return open_input(path)


def _decode(raw: bytes, name: str, line: int, strip: bool = False) -> str:
    """A line as text: the line end (``\\n``, ``\\r\\n``) removed, or with ``strip`` every trailing whitespace
    character (``str.rstrip()``, as sacreBLEU's command line reads its files)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise VecscoreError(f"{name}, line {line}: not valid UTF-8 ({exc.reason}); convert the file to UTF-8") from None
    if line == 1 and text.startswith("\ufeff"):  # a byte-order mark is not part of the first segment
        text = text[1:]
    if strip:
        return text.rstrip()
    if text.endswith("\n"):
        text = text[:-1]
    if text.endswith("\r"):
        text = text[:-1]
    return text


def read_lines(path: str, *, strip: bool = False) -> list[str]:
    """One segment per line; ``-`` reads standard input.

    A final newline ends the last line (it does not add an empty segment);
    ``\\r\\n`` line ends are accepted.  Undecodable UTF-8 is an error naming
    the file and line.  ``strip``: trailing whitespace is removed from every
    line (``str.rstrip()``), as sacreBLEU's command line reads its files.
    """
    f = _open_binary(path)
    try:
        return [_decode(raw, _name(path), i + 1, strip) for i, raw in enumerate(f)]
    finally:
        if f is not sys.stdin.buffer:
            f.close()


def _mismatch(ref_path, n_ref, hyp_path, n_hyp) -> str:
    first = min(n_ref, n_hyp) + 1
    short = ref_path if n_ref < n_hyp else hyp_path
    return (
        f"{_name(ref_path)} has {n_ref} lines but {_name(hyp_path)} has {n_hyp} (line {first} is missing from "
        f"{_name(short)}); every file needs one segment per line, aligned with the hypotheses"
    )


def count_lines(path: str) -> int | None:
    """Segments in a regular file (as :func:`read_lines` counts them); ``None`` for stdin or a pipe."""
    if path == "-" or not Path(path).is_file():
        return None
    n, last = 0, b"\n"
    with open(path, "rb") as f:
        while block := f.read(1 << 24):
            n += block.count(b"\n")
            last = block[-1:]
    return n + (last != b"\n")


def detect_format(path: str, given: str | None = None) -> str:
    """The input format: ``given``, else from the file extension; stdin needs ``given`` unless text."""
    if given:
        if given not in INPUT_FORMATS:
            raise VecscoreError(f"unknown input format {given!r}; valid: {', '.join(INPUT_FORMATS)}")
        return given
    suffixes = [s.lower() for s in Path(path).suffixes]
    for s in reversed(suffixes):
        if s in _EXTENSIONS:
            return _EXTENSIONS[s]
    if path == "-":
        raise VecscoreError("reading --input from stdin: say its format with --input-format jsonl|csv|tsv|parquet")
    raise VecscoreError(
        f"cannot tell the format of {path} from its extension; pass --input-format {'|'.join(INPUT_FORMATS)}"
    )


@dataclass
class RowChunk:
    """Rows ``start .. start + len(hyps) - 1`` of an input.

    ``refs[i]`` is a ``str`` or a list of ``str``.  Pass-through columns are
    ``records`` (one dict per row) or ``table`` (a ``pyarrow.Table``).
    ``lines`` holds each row's line number in the file (``None``: rows are
    numbered, as in Parquet).
    """

    hyps: list
    refs: list
    start: int
    source: str
    lines: list | None = None
    records: list | None = None
    table: object = None
    meta: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.hyps)

    def where(self, i: int) -> str:
        """``"file, line N"`` (or ``"file, row N"``) of row ``i`` of this chunk."""
        if self.lines is not None:
            return f"{self.source}, line {self.lines[i]}"
        return f"{self.source}, row {self.start + i + 1}"


# --------------------------------------------------------------------------------------
# plain text
# --------------------------------------------------------------------------------------


def iter_text(hyp_path: str, ref_paths: Sequence[str], *, chunk_size: int,
              keep_text: bool = False, strip: bool = False) -> Iterator[RowChunk]:
    """Chunks of aligned lines; a line-count mismatch is an error before anything is scored.

    Regular files are counted first (cheap), so a mismatch stops the run
    before any output; for stdin the mismatch is found when a file ends.
    ``keep_text`` adds ``hyp`` and ``ref`` (or ``ref1``, ``ref2``, ...)
    pass-through records, as the filter writes them.  ``strip`` removes every
    line's trailing whitespace (:func:`read_lines`).
    """
    ref_paths = list(ref_paths)
    if not ref_paths:
        raise VecscoreError("give at least one reference file (--refs FILE, repeat it for several)")
    if sum(p == "-" for p in [hyp_path, *ref_paths]) > 1:
        raise VecscoreError("only one of --hyps/--refs can be '-' (stdin)")
    n_hyp = count_lines(hyp_path)
    for p in ref_paths:
        n_ref = count_lines(p)
        if n_hyp is not None and n_ref is not None and n_ref != n_hyp:
            raise VecscoreError(_mismatch(p, n_ref, hyp_path, n_hyp))
    files = [_open_binary(p) for p in [hyp_path, *ref_paths]]
    names = [_name(p) for p in [hyp_path, *ref_paths]]
    ref_keys = ["ref"] if len(ref_paths) == 1 else [f"ref{k + 1}" for k in range(len(ref_paths))]
    start = 0
    try:
        while True:
            blocks = [list(itertools.islice(f, chunk_size)) for f in files]
            lengths = {len(b) for b in blocks}
            if len(lengths) > 1:
                _text_mismatch(files, blocks, [hyp_path, *ref_paths], start)
            n = lengths.pop()
            if n == 0:
                return
            cols = [[_decode(raw, nm, start + i + 1, strip) for i, raw in enumerate(b)]
                    for b, nm in zip(blocks, names)]
            hyps = cols[0]
            refs = cols[1] if len(cols) == 2 else [list(r) for r in zip(*cols[1:])]
            records = None
            if keep_text:
                records = [dict(zip(["hyp", *ref_keys], row)) for row in zip(*cols)]
            yield RowChunk(hyps, refs, start, names[0], lines=range(start + 1, start + n + 1), records=records)
            start += n
    finally:
        for f in files:
            if f is not sys.stdin.buffer:
                f.close()


def _text_mismatch(files, blocks, paths, start):
    counts = [start + len(b) + (sum(1 for _ in f) if len(b) == max(map(len, blocks)) else 0)
              for f, b in zip(files, blocks)]
    for p, n in zip(paths[1:], counts[1:]):
        if n != counts[0]:
            raise VecscoreError(_mismatch(p, n, paths[0], counts[0]))


# --------------------------------------------------------------------------------------
# JSON Lines and CSV/TSV: one record per row
# --------------------------------------------------------------------------------------


def _text_value(value, column: str, where: str) -> str:
    if isinstance(value, str):
        return value
    what = "null" if value is None else f"{type(value).__name__} {value!r:.40}"
    raise VecscoreError(f"{where}: {column!r} is {what}, not a string; give a string (\"\" for an empty text)")


def _ref_value(values: list, ref_cols: Sequence[str], where: str):
    """A reference entry from one or more columns: ``str``, or a list of ``str``."""
    out = []
    for v, c in zip(values, ref_cols):
        if isinstance(v, (list, tuple)):
            if len(v) == 0:
                raise VecscoreError(f"{where}: {c!r} is an empty list; every row needs at least one reference")
            out.extend(_text_value(x, f"{c}[{j}]", where) for j, x in enumerate(v))
        else:
            out.append(_text_value(v, c, where))
    if len(ref_cols) == 1 and not isinstance(values[0], (list, tuple)):
        return out[0]
    return out


def _missing(where: str, column: str, available) -> VecscoreError:
    return VecscoreError(
        f"{where}: no column {column!r} (columns: {', '.join(map(str, available)) or 'none'}); "
        "name the columns with --hyp-column/--ref-column"
    )


def _records_chunks(rows, source, hyp_col, ref_cols, keep, chunk_size) -> Iterator[RowChunk]:
    """``rows`` yields ``(line, record)``; groups them into chunks."""
    start = 0
    while True:
        block = list(itertools.islice(rows, chunk_size))
        if not block:
            return
        hyps, refs, lines, records = [], [], [], ([] if keep is not None else None)
        for line, rec in block:
            where = f"{source}, line {line}"
            try:
                hyps.append(_text_value(rec[hyp_col], hyp_col, where))
                refs.append(_ref_value([rec[c] for c in ref_cols], ref_cols, where))
            except KeyError as exc:
                raise _missing(where, exc.args[0], rec.keys()) from None
            lines.append(line)
            if records is not None:
                records.append(rec if keep == "all" else {k: rec.get(k) for k in keep})
        yield RowChunk(hyps, refs, start, source, lines=lines, records=records)
        start += len(block)


def _jsonl_rows(f, source):
    for i, raw in enumerate(f):
        line = i + 1
        text = _decode(raw, source, line)
        if not text.strip():
            raise VecscoreError(f"{source}, line {line}: blank line; "
                                "JSON Lines needs one JSON object per line (remove it)")
        try:
            rec = json.loads(text)
        except json.JSONDecodeError as exc:
            raise VecscoreError(
                f"{source}, line {line}: not valid JSON ({exc.msg} at column {exc.colno}); fix or remove the row"
            ) from None
        if not isinstance(rec, dict):
            raise VecscoreError(f"{source}, line {line}: a JSON {type(rec).__name__}, not an object; write one "
                                "object per line, e.g. {\"hyp\": \"...\", \"ref\": \"...\"}")
        yield line, rec


def iter_jsonl(path: str, *, hyp_column: str, ref_columns: Sequence[str], keep=None,
               chunk_size: int) -> Iterator[RowChunk]:
    """JSON Lines: one object per line; ``keep`` is ``None``, ``"all"`` or a list of pass-through keys."""
    f = _open_binary(path)
    try:
        yield from _records_chunks(_jsonl_rows(f, _name(path)), _name(path), hyp_column, list(ref_columns), keep,
                                   chunk_size)
    finally:
        if f is not sys.stdin.buffer:
            f.close()


def _csv_rows(f, source, delimiter, required):
    reader = csv.reader(f, delimiter=delimiter, strict=True)
    line = 1
    try:
        header = next(reader, None)
        if header is None:
            raise VecscoreError(f"{source}: empty file; a {'TSV' if delimiter == chr(9) else 'CSV'} input needs a "
                                "header row naming the columns")
        for c in required:
            if c not in header:
                raise _missing(f"{source}, line 1", c, header)
        line = reader.line_num + 1
        for row in reader:
            if len(row) != len(header):
                raise VecscoreError(
                    f"{source}, line {line}: {len(row)} fields but the header has {len(header)}; quote fields that "
                    "contain the delimiter, quotes or newlines"
                )
            yield line, dict(zip(header, row))
            line = reader.line_num + 1
    except csv.Error as exc:
        raise VecscoreError(f"{source}, line {reader.line_num or line}: malformed row ({exc}); "
                            "fix its quoting") from None
    except UnicodeDecodeError as exc:
        raise VecscoreError(f"{source}, line {reader.line_num + 1}: not valid UTF-8 ({exc.reason}); convert the file "
                            "to UTF-8") from None


def iter_csv(path: str, *, hyp_column: str, ref_columns: Sequence[str], keep=None, chunk_size: int,
             delimiter: str = ",") -> Iterator[RowChunk]:
    """CSV or TSV with a header row; every row must have the header's number of fields."""
    source = _name(path)
    binary = _open_binary(path)
    f = io.TextIOWrapper(binary, encoding="utf-8-sig", newline="")  # a leading byte-order mark is dropped
    old_limit = csv.field_size_limit()
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # long documents are fine; the default is 128 KiB
    try:
        rows = _csv_rows(f, source, delimiter, [hyp_column, *ref_columns])
        yield from _records_chunks(rows, source, hyp_column, list(ref_columns), keep, chunk_size)
    finally:
        csv.field_size_limit(old_limit)
        if binary is not sys.stdin.buffer:
            f.close()
        else:
            f.detach()


# --------------------------------------------------------------------------------------
# Parquet
# --------------------------------------------------------------------------------------


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - depends on the environment
        raise MissingDependencyError("Parquet needs pyarrow: pip install 'vecscore[parquet]'") from None
    return pa, pq


def iter_parquet(path: str, *, hyp_column: str, ref_columns: Sequence[str], keep=None,
                 chunk_size: int) -> Iterator[RowChunk]:
    """Parquet, read one batch of ``chunk_size`` rows at a time (stdin is read whole: Parquet needs seeking)."""
    from vecscore.io.arrow import table_inputs

    pa, pq = _pyarrow()
    source = _name(path)
    try:
        if path == "-":
            pf = pq.ParquetFile(io.BytesIO(sys.stdin.buffer.read()))
        else:
            p = Path(path)
            if not p.is_file():
                raise VecscoreError(f"cannot read {path}: {'it is a directory' if p.is_dir() else 'no such file'}")
            pf = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        raise VecscoreError(f"cannot read {source} as Parquet ({exc}); check that it is a Parquet file") from None
    names = pf.schema_arrow.names
    for c in [hyp_column, *ref_columns]:
        if c not in names:
            raise _missing(source, c, names)
    keep_cols = names if keep == "all" else list(keep or [])
    for c in keep_cols:
        if c not in names:
            raise _missing(source, c, names)
    columns = list(dict.fromkeys([hyp_column, *ref_columns, *keep_cols]))
    start = 0
    try:
        for batch in pf.iter_batches(batch_size=chunk_size, columns=columns):
            table = pa.Table.from_batches([batch])
            hyps, refs = table_inputs(table, hyp_column, list(ref_columns), source=source, start=start)
            kept = table.select(keep_cols) if keep is not None else None
            yield RowChunk(hyps, refs, start, source, table=kept)
            start += table.num_rows
    except pa.ArrowException as exc:
        raise VecscoreError(f"{source}: cannot read rows after row {start} ({exc}); "
                            "the file may be truncated") from None


def iter_input(fmt: str, path: str, *, hyp_column: str, ref_columns: Sequence[str], keep=None,
               chunk_size: int) -> Iterator[RowChunk]:
    """Dispatch to the reader of ``fmt`` (a structured format: jsonl, csv, tsv, parquet)."""
    kw = dict(hyp_column=hyp_column, ref_columns=list(ref_columns), keep=keep, chunk_size=chunk_size)
    if fmt == "jsonl":
        return iter_jsonl(path, **kw)
    if fmt in ("csv", "tsv"):
        return iter_csv(path, delimiter="," if fmt == "csv" else "\t", **kw)
    if fmt == "parquet":
        return iter_parquet(path, **kw)
    raise VecscoreError(f"--input takes jsonl, csv, tsv or parquet, not {fmt!r}; plain text goes with --hyps/--refs")


_DONE = object()


def prefetch(chunks, depth: int = 1):
    """Read the next chunk(s) in a background thread while the current one is scored.

    Order is kept (one producer, a FIFO queue of ``depth`` chunks, so memory
    grows by at most ``depth`` chunks); an exception in the reader is raised
    here, at the position where it happened.  Closing the generator early
    (an error while scoring, ``| head``) stops the reader.
    """
    import queue
    import threading

    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def produce():
        try:
            for item in chunks:
                while not stop.is_set():
                    try:
                        q.put(("ok", item), timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            q.put(("done", _DONE))
        except BaseException as exc:  # re-raised in the consumer, in order
            q.put(("error", exc))
        finally:
            close = getattr(chunks, "close", None)
            if close is not None and stop.is_set():
                close()

    thread = threading.Thread(target=produce, name="vecscore-reader", daemon=True)
    thread.start()
    try:
        while True:
            kind, item = q.get()
            if kind == "done":
                return
            if kind == "error":
                raise item
            yield item
    finally:
        stop.set()
        while thread.is_alive():
            try:
                q.get(timeout=0.05)
            except queue.Empty:
                pass
        thread.join()
