"""Where METEOR's English data comes from, and the on-disk cache of the tables built from it.

The data is read where it already is: the function words and the WordNet synonym files from inside
``meteor-1.5.jar``, the paraphrase table from ``paraphrase-en.gz`` beside it (``<jar folder>/data/``, where the
jar itself looks).  Both come with ``pip install pycocoevalcap``; a ``jar=`` or ``paraphrase_file=`` path names
other copies.  Nothing is downloaded.

Tables are built once into NumPy arrays and cached in one ``.npy`` file each, in the ``meteor`` sub-folder of
vecscore's cache folder (:func:`vecscore.cache_dir.base`: ``VECSCORE_CACHE_DIR`` when set, else the package's
own ``__pycache__/numba``, ``~/.cache/vecscore/numba`` or a temporary folder).  A file is named by its kind, the
format version and a digest of the source's real path; its header records the source's size and modification
time, and a file whose header does not match the source is built again.  Files are written under a temporary
name and renamed into place, so a reader never sees a partial file; processes that find no table wait for the
one that builds it (a lock file beside it) instead of each building their own.
Loading maps the file read-only (``np.load(mmap_mode="r")``): every process on a machine shares one copy of the
pages, and a fresh process loads a table in milliseconds.

Strings are looked up in arrays too (:class:`StringIndex`): the UTF-8 bytes of all keys in one buffer, and
buckets of key numbers by the CRC-32 (zlib's) of those bytes.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import tempfile
import zipfile
import zlib
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from vecscore import cache_dir
from vecscore.errors import MissingDependencyError, VecscoreError, warn

__all__ = ["FORMAT_VERSION", "find_jar", "find_paraphrase", "jar_member", "java_decode", "java_lines", "java_tokens",
           "function_words", "cache_folder", "cached_arrays", "build_string_index", "StringIndex"]

#: the layout of the cached tables; a new number builds every table again
FORMAT_VERSION = 1

_JAR = "meteor-1.5.jar"
_INSTALL = "pip install pycocoevalcap"
_ALIGN = 64  # every array of a cache file starts on a 64-byte boundary
_MAGIC = b"vecscore-meteor\0"
_PathLike = str | os.PathLike[str]


def _pycocoevalcap_meteor() -> Path | None:
    spec = importlib.util.find_spec("pycocoevalcap")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "meteor"


def find_jar(jar: _PathLike | None = None) -> Path:
    """``meteor-1.5.jar``: the path given, else pycocoevalcap's copy.

    Raises :class:`~vecscore.errors.VecscoreError` when the given path is not a file, and
    :class:`~vecscore.errors.MissingDependencyError` when no path is given and pycocoevalcap is not installed.
    """
    if jar is not None:
        path = Path(jar)
        if not path.is_file():
            raise VecscoreError(f"jar={str(jar)!r} is not a file: pass the path of {_JAR}, or leave jar unset to use "
                                f"pycocoevalcap's copy ({_INSTALL})")
        return path
    folder = _pycocoevalcap_meteor()
    if folder is None:
        raise MissingDependencyError(f"METEOR's word lists come from {_JAR}, which pycocoevalcap ships: "
                                     f"{_INSTALL}, or pass jar= the path of a copy")
    path = folder / _JAR
    if not path.is_file():
        raise VecscoreError(f"pycocoevalcap is installed but {path} is missing: reinstall it "
                            f"(pip install --force-reinstall pycocoevalcap) or pass jar= the path of a copy")
    return path


def find_paraphrase(paraphrase_file: _PathLike | None = None, *, jar: _PathLike | None = None) -> Path:
    """The paraphrase table: ``paraphrase_file``, else ``data/paraphrase-en.gz`` in the jar's folder (where the jar
    itself looks), the jar being ``jar`` or pycocoevalcap's copy."""
    if paraphrase_file is not None:
        path = Path(paraphrase_file)
        if not path.is_file():
            raise VecscoreError(f"paraphrase_file={str(paraphrase_file)!r} is not a file: pass the path of "
                                f"paraphrase-en.gz, or leave it unset to use pycocoevalcap's copy ({_INSTALL})")
        return path
    path = find_jar(jar).parent / "data" / "paraphrase-en.gz"
    if not path.is_file():
        raise VecscoreError(f"no paraphrase table at {path}: pass paraphrase_file= the path of paraphrase-en.gz "
                            f"(pycocoevalcap ships it: {_INSTALL})")
    return path


def jar_member(jar: Path, name: str) -> bytes:
    """The bytes of the file ``name`` inside the jar (a zip archive)."""
    try:
        with zipfile.ZipFile(jar) as z:
            return z.read(name)
    except KeyError:
        raise VecscoreError(f"{jar} has no {name}: is it meteor-1.5.jar?") from None
    except (OSError, zipfile.BadZipFile) as e:
        raise VecscoreError(f"cannot read {jar} as a jar: {e}") from None


_ENCODED_SURROGATE = re.compile(b"\xed[\xa0-\xbf][\x80-\xbf]?")


def java_decode(data: bytes) -> str:
    """UTF-8 ``data`` decoded as Java's decoder does: each malformed sequence becomes one U+FFFD, the same ones
    as Python's ``errors="replace"`` except an encoded surrogate (``ED A0``-``BF``, with its third byte when that
    is a continuation byte), which Java replaces by one U+FFFD and Python by one per byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return _ENCODED_SURROGATE.sub("\ufffd".encode(), data).decode("utf-8", "replace")


def java_lines(data: bytes) -> list[str]:
    """The lines Java's ``BufferedReader.readLine`` returns from UTF-8 ``data``: ended by ``\\n``, ``\\r`` or
    ``\\r\\n``, a last line without an ending included, malformed bytes replaced by U+FFFD (:func:`java_decode`)."""
    text = java_decode(data)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


_TOKEN_SEPARATORS = re.compile("[ \t\n\r\f]+")


def java_tokens(line: str) -> list[str]:
    """The tokens of Java's ``StringTokenizer(line)``: split at space, tab, newline, carriage return and form
    feed only (not at other whitespace)."""
    return [t for t in _TOKEN_SEPARATORS.split(line) if t]


def _stat_key(path: Path) -> tuple[str, int, int]:
    st = os.stat(path)
    return os.path.realpath(path), st.st_size, st.st_mtime_ns


@lru_cache(maxsize=8)
def _function_words(key: tuple[str, int, int]) -> frozenset[str]:
    return frozenset(java_lines(jar_member(Path(key[0]), "function/english.words")))


def function_words(jar: _PathLike | None = None) -> frozenset[str]:
    """METEOR's English function words (``function/english.words`` in the jar, one per line, read as UTF-8)."""
    return _function_words(_stat_key(find_jar(jar)))


def cache_folder() -> str | None:
    """The folder of the cached tables (``None``: no writable cache folder)."""
    root = cache_dir.base()
    return None if root is None else os.path.join(root, "meteor")


def cached_arrays(kind: str, sources: list[Path], build: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The arrays ``build()`` makes from ``sources``, loaded read-only from the cache when a file there was built
    from the same sources (real path, size, modification time) with this format; else built, written and
    loaded.  Without a writable cache folder the arrays are built in memory (with a warning)."""
    stats = [list(_stat_key(p)) for p in sources]
    header = {"kind": kind, "format": FORMAT_VERSION, "sources": stats}
    folder = cache_folder()
    digest = hashlib.sha256(json.dumps([kind, [s[0] for s in stats]]).encode()).hexdigest()[:16]
    path = None if folder is None else os.path.join(folder, f"{kind}-v{FORMAT_VERSION}-{digest}.npy")
    if path is not None and os.path.exists(path):
        arrays = _load(path, header)
        if arrays is not None:
            return arrays
    with _build_lock(path):
        if path is not None and os.path.exists(path):  # another process may have built it meanwhile
            arrays = _load(path, header)
            if arrays is not None:
                return arrays
        arrays = build()
        if path is not None and _write(path, header, arrays):
            loaded = _load(path, header)
            if loaded is not None:
                return loaded
    warn(f"METEOR's {kind} table could not be cached (no writable cache folder; set VECSCORE_CACHE_DIR): "
         "it is built again in every process", RuntimeWarning)
    for a in arrays.values():
        a.setflags(write=False)
    return arrays


@contextmanager
def _build_lock(path: str | None) -> Iterator[None]:
    """Hold an exclusive lock on ``<path>.lock`` while one process builds a table, so that the workers of a pool
    started with a cold cache build it once, not once each (each build takes seconds and gigabytes).  Without
    ``fcntl`` (Windows) or a writable folder, no lock: concurrent builders then write the same file in turn."""
    try:
        import fcntl
    except ImportError:
        fcntl = None  # type: ignore[assignment]
    handle = None
    if path is not None and fcntl is not None:
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            handle = open(path + ".lock", "a")
            fcntl.flock(handle, fcntl.LOCK_EX)
        except OSError:
            if handle is not None:
                handle.close()
            handle = None
    try:
        yield
    finally:
        if handle is not None:
            handle.close()  # closing the file releases the lock


def _write(path: str, header: dict, arrays: dict[str, np.ndarray]) -> bool:
    """Write ``arrays`` to ``path`` as one ``uint8`` ``.npy`` file: a header (magic, length, JSON naming each
    array's dtype, shape and offset) and the arrays, each 64-byte aligned; whole or not at all."""
    layout, offset = [], 0
    for name, a in arrays.items():
        layout.append([name, a.dtype.str, list(a.shape), offset])
        offset += -(-a.nbytes // _ALIGN) * _ALIGN
    text = json.dumps({**header, "arrays": layout}).encode()
    head_len = -(-(len(_MAGIC) + 8 + len(text)) // _ALIGN) * _ALIGN
    total = head_len + offset
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".vecscore-")
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as f:
            np.lib.format.write_array_header_1_0(f, {"descr": "|u1", "fortran_order": False, "shape": (total,)})
            f.write(_MAGIC + len(text).to_bytes(8, "little") + text)
            f.write(b"\0" * (head_len - len(_MAGIC) - 8 - len(text)))
            for a in arrays.values():
                f.write(np.ascontiguousarray(a).view(np.uint8).reshape(-1).data)
                f.write(b"\0" * (-a.nbytes % _ALIGN))
        os.chmod(tmp, 0o644)  # readable by every user of a shared cache folder, as a file written directly would be
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
    return True


def _load(path: str, header: dict) -> dict[str, np.ndarray] | None:
    """The arrays of the cache file at ``path``, views of one read-only memory map; ``None`` when the file does
    not hold ``header``'s table (other sources, another format) or cannot be read."""
    try:
        blob = np.load(path, mmap_mode="r")
        if blob.dtype != np.uint8 or blob.ndim != 1 or bytes(blob[:len(_MAGIC)]) != _MAGIC:
            return None
        n = int.from_bytes(bytes(blob[len(_MAGIC):len(_MAGIC) + 8]), "little")
        start = len(_MAGIC) + 8
        meta = json.loads(bytes(blob[start:start + n]))
        if any(meta.get(k) != v for k, v in header.items()):
            return None
        data = np.asarray(blob[-(-(start + n) // _ALIGN) * _ALIGN:])
        arrays = {}
        for name, dtype, shape, offset in meta["arrays"]:
            dt = np.dtype(dtype)
            size = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
            if offset + size > len(data):
                return None
            arrays[name] = data[offset:offset + size].view(dt).reshape(shape)
        return arrays
    except (OSError, ValueError, KeyError, TypeError):
        return None


def build_string_index(keys: list[bytes], prefix: str) -> dict[str, np.ndarray]:
    """The arrays of a :class:`StringIndex` over ``keys`` (distinct byte strings; key ``i`` is ``keys[i]``),
    named ``<prefix>bytes``, ``<prefix>ptr``, ``<prefix>bucket_ptr`` and ``<prefix>bucket_ids``."""
    lengths = np.fromiter(map(len, keys), np.int64, len(keys))
    ptr = np.zeros(len(keys) + 1, np.int64)
    np.cumsum(lengths, out=ptr[1:])
    n_buckets = 1 << max(len(keys) - 1, 1).bit_length()
    buckets = np.fromiter((zlib.crc32(k) for k in keys), np.int64, len(keys)) & (n_buckets - 1)
    bucket_ptr = np.zeros(n_buckets + 1, np.int64)
    np.cumsum(np.bincount(buckets, minlength=n_buckets), out=bucket_ptr[1:])
    return {prefix + "bytes": np.frombuffer(b"".join(keys), np.uint8), prefix + "ptr": ptr,
            prefix + "bucket_ptr": bucket_ptr,
            prefix + "bucket_ids": np.argsort(buckets, kind="stable").astype(np.int64)}


class StringIndex:
    """Key numbers of strings, from the arrays of :func:`build_string_index`: key ``i``'s UTF-8 bytes are
    ``bytes[ptr[i]:ptr[i + 1]]``; the keys whose bytes have CRC-32 ``h`` (zlib's) modulo the bucket count
    (a power of two) are ``bucket_ids[bucket_ptr[h]:bucket_ptr[h + 1]]``."""

    def __init__(self, arrays: dict[str, np.ndarray], prefix: str):
        self.bytes = arrays[prefix + "bytes"]
        self.ptr = arrays[prefix + "ptr"]
        self.bucket_ptr = arrays[prefix + "bucket_ptr"]
        self.bucket_ids = arrays[prefix + "bucket_ids"]
        self._view = self.bytes.data
        self._mask = len(self.bucket_ptr) - 2

    def __len__(self) -> int:
        return len(self.ptr) - 1

    def find(self, word: str) -> int:
        """The number of ``word``, ``-1`` if it is not a key."""
        b = word.encode("utf-8", "surrogatepass")
        h = zlib.crc32(b) & self._mask
        for k in range(int(self.bucket_ptr[h]), int(self.bucket_ptr[h + 1])):
            i = int(self.bucket_ids[k])
            lo, hi = int(self.ptr[i]), int(self.ptr[i + 1])
            if hi - lo == len(b) and self._view[lo:hi] == b:
                return i
        return -1

    def key(self, i: int) -> str:
        """The string of key number ``i``."""
        return bytes(self._view[int(self.ptr[i]):int(self.ptr[i + 1])]).decode("utf-8", "surrogatepass")
