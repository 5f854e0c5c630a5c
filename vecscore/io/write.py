"""Outputs of the ``vecscore`` command: atomic files, writers per format, the progress bar."""
from __future__ import annotations

import csv
import errno
import io
import json
import math
import os
import re
import socket
import stat
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from vecscore.errors import MissingDependencyError, VecscoreError

__all__ = ["OUTPUT_FORMATS", "output_format", "atomic_output", "make_writer", "progress_bar", "write_json",
           "OutputError", "remove_leftovers"]

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


class OutputError(VecscoreError):
    """An output could not be written (a full disk, a file-size limit, a device error).

    ``stdout``: the output was standard output (part of it may have been written already).
    """

    def __init__(self, message: str, stdout: bool = False) -> None:
        super().__init__(message)
        self.stdout = stdout


_WRITE_FIXES = {
    errno.ENOSPC: "free space on its file system, or write elsewhere",
    errno.EDQUOT: "free space within your disk quota, or write elsewhere",
    errno.EFBIG: "raise the file-size limit (ulimit -f), or write elsewhere",
}


def output_error(name: str, exc: OSError, stdout: bool = False) -> OutputError:
    """The one-line :class:`OutputError` of ``exc`` (an ``OSError``) while writing ``name``."""
    code = errno.errorcode.get(exc.errno or 0)
    reason = (exc.strerror or str(exc) or type(exc).__name__) + (f" ({code})" if code else "")
    fix = _WRITE_FIXES.get(exc.errno, "check the device and the path")
    left = "" if stdout else f"; {name} was not written (an existing file is left as it was)"
    return OutputError(f"cannot write {name}: {reason}; {fix}{left}".replace("\n", " "), stdout=stdout)


class _Guarded(io.BufferedIOBase):
    """A binary output stream whose write errors (``OSError``, except a broken pipe) are an
    :class:`OutputError` naming the output."""

    def __init__(self, raw, name: str, stdout: bool = False) -> None:
        super().__init__()
        self._raw, self._name, self._stdout = raw, name, stdout

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    def seekable(self) -> bool:
        return self._raw.seekable()

    def write(self, b) -> int:
        try:
            return self._raw.write(b)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise output_error(self._name, exc, self._stdout) from None

    def flush(self) -> None:
        if self.closed or self._raw.closed:
            return
        try:
            self._raw.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise output_error(self._name, exc, self._stdout) from None

    def tell(self) -> int:
        return self._raw.tell()

    def seek(self, pos: int, whence: int = 0) -> int:
        return self._raw.seek(pos, whence)

    def fileno(self) -> int:
        return self._raw.fileno()


#: the name of a temporary output while it is written, where an unnamed one (``O_TMPFILE``) is not available:
#: ``.<target>.vecscore-tmp.<host>.<pid>.<random>``; a later run removes those of this host whose process is gone
_LEFTOVER = re.compile(r"\..+\.vecscore-tmp\.(?P<host>[A-Za-z0-9_-]+)\.(?P<pid>\d+)\.[A-Za-z0-9_]+")
_USE_TMPFILE = hasattr(os, "O_TMPFILE") and sys.platform.startswith("linux")


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", socket.gethostname())[:64] or "host"


def _temp_prefix(target: Path) -> str:
    return f".{target.name}.vecscore-tmp.{_host()}.{os.getpid()}."


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process, or cannot tell: keep its file
        return True
    return True


def remove_leftovers(directory: Path) -> list[str]:
    """Remove the temporary outputs in ``directory`` that processes of this host left when they were killed
    (SIGKILL, a power cut), named as :data:`_LEFTOVER` with the id of a process that no longer exists; returns
    their names."""
    host, removed = _host(), []
    try:
        entries = [e.name for e in os.scandir(directory) if e.name.startswith(".") and ".vecscore-tmp." in e.name]
    except OSError:
        return removed
    for name in entries:
        m = _LEFTOVER.fullmatch(name)
        if m is None or m["host"] != host or _alive(int(m["pid"])):
            continue
        try:
            os.unlink(directory / name)
            removed.append(name)
        except OSError:
            pass
    return removed


def _open_unnamed(directory: Path):
    """A file with no name in ``directory`` (Linux ``O_TMPFILE``): nothing is left if the process dies; ``None``
    where the system or the file system does not support it."""
    if not _USE_TMPFILE:
        return None
    try:
        return os.open(directory, os.O_TMPFILE | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as exc:
        if exc.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
            return None
        raise


def _publish_unnamed(fd: int, target: Path) -> None:
    """Give the unnamed file ``fd`` the name ``target``, replacing a file of that name atomically."""
    source = f"/proc/self/fd/{fd}"
    # linkat(AT_SYMLINK_FOLLOW); os.link calls plain link(), which does not follow /proc's link, unless given a dir fd
    folder = os.open(target.parent if str(target.parent) else ".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        try:
            os.link(source, target.name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=True)
            return  # no file of that name yet: linked in place at once
        except FileExistsError:
            pass
        while True:  # linkat cannot replace a file: a temporary name (for an instant), then a rename over the target
            tmp = f"{_temp_prefix(target)}{os.urandom(6).hex()}"
            try:
                os.link(source, tmp, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=True)
                break
            except FileExistsError:
                continue
        try:
            os.replace(tmp, target.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=folder)
            except FileNotFoundError:
                pass
            raise
    finally:
        os.close(folder)


@contextmanager
def atomic_output(path: str):
    """A binary stream whose content appears at ``path`` only if the block completes.

    On Linux the data goes to a file with no name (``O_TMPFILE``) in the
    target's directory, which is flushed, synced and linked in as ``path`` at
    the end (over an existing file by a rename, atomic on POSIX); a process
    killed on the way (even by SIGKILL) leaves nothing.  Elsewhere, or on a
    file system without ``O_TMPFILE``, a hidden temporary file named with the
    host and the process id is renamed at the end, and each later run removes
    those of processes that no longer exist (:func:`remove_leftovers`).  On any
    exception, including KeyboardInterrupt, nothing appears and ``path`` is
    left as it was.  A write error (a full disk, a file-size limit) is an
    :class:`OutputError` naming the output.  ``-`` is standard output, and a
    ``path`` that is not a regular file (``/dev/null``, a FIFO) is written as
    it goes.  A symbolic link is followed: the file it points to is replaced.
    """
    if path == "-":
        out = _Guarded(sys.stdout.buffer, "standard output", stdout=True)
        yield out
        out.flush()
        return
    target = Path(path)
    if target.is_dir():
        raise VecscoreError(f"cannot write {path}: it is a directory; give a file name")
    try:
        mode = os.stat(target).st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):  # a device or a FIFO: nothing to replace
        yield from _direct_output(path)
        return
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    directory = target.parent if str(target.parent) else Path(".")
    remove_leftovers(directory)
    try:
        fd = _open_unnamed(directory)
        tmp = None
        if fd is None:
            fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(target), suffix="", dir=directory)
    except FileNotFoundError:
        raise VecscoreError(f"cannot write {path}: the directory {directory} does not exist; create it first") from None
    except OSError as exc:
        raise VecscoreError(f"cannot write {path}: {exc.strerror or exc}; check the directory's permissions") from None
    raw = os.fdopen(fd, "wb")
    try:
        f = _Guarded(raw, path)
        yield f
        f.flush()
        try:
            os.fsync(raw.fileno())
            if tmp is None:
                _publish_unnamed(raw.fileno(), target)
            else:
                os.chmod(tmp, 0o666 & ~_umask())
                os.replace(tmp, target)
        except OSError as exc:
            raise output_error(path, exc) from None
    except BaseException:
        _discard(raw)
        if tmp is not None:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        raise
    raw.close()  # flushed and synced: nothing left to fail


def _discard(raw) -> None:
    """Close an output that failed or is abandoned; what its buffer still holds is dropped (flushing it would
    fail again, or write what is being discarded)."""
    try:
        raw.close()
    except (OSError, ValueError):
        pass


def _direct_output(path: str):
    try:
        raw = open(path, "wb")
    except OSError as exc:
        raise VecscoreError(f"cannot write {path}: {exc.strerror or exc}; check the path and its permissions") from None
    try:
        f = _Guarded(raw, path)
        yield f
        f.flush()
    except BaseException:
        _discard(raw)
        raise
    try:
        raw.close()
    except OSError as exc:
        raise output_error(path, exc) from None


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
        except (ValueError, OSError):  # already detached, or the output is failing (it is discarded)
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
