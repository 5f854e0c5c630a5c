"""A batch of Python ``str`` read in place: no join, no encoding, no copy.

CPython keeps a pure-ASCII ``str`` ("compact ASCII") as one object: a fixed
header followed by its characters, one byte each.  So a batch of such strings
is already a set of byte buffers; the per-pair kernels read them where they
lie, through the addresses of the characters (:func:`text_at`).  Python's
own work per call is one ``tuple(rows)`` snapshot, which also keeps every
string alive while the kernels run without the GIL.

Nothing here is guessed.  The offsets of the fields that matter (a tuple's
item array; a ``str``'s type pointer, length and state bits, and where an
ASCII string's characters start) are found once per process by probing
strings built at run time, and then checked on a probe batch that mixes
ASCII, non-ASCII and non-``str`` rows.  If anything disagrees (another
Python implementation, another CPython layout), :func:`str_rows` returns
``None`` and callers encode the batch instead (:func:`from_buffer`), with the
same results.

Every row is classified by :func:`str_rows`: ``ASCII`` (read in place),
``NOT_STR`` (the caller's checked path names the row) or ``NON_ASCII`` (the
caller encodes those rows itself and points them at the bytes, see
:meth:`TextRows.patched`).

A non-ASCII ``str`` is kept by CPython as one object too ("compact"): a
longer header, then its code points at 1, 2 or 4 bytes each (its *kind*:
1 for Latin-1, 2 for the rest of the BMP, 4 beyond).  :func:`str_rows`
records such a row's kind in ``TextRows.width`` and points ``addrs``/``lens``
at its code points (``lens``: code points, not bytes), so that a kernel can
read or transcode it in place (:mod:`vecscore.kernels.wide_text`) instead of
Python encoding it; a non-ASCII row that is not compact has width 0 and is
encoded in Python.  The kind's bits and where a compact string's code
points start are probed and checked like the rest (if they cannot be
found, every non-ASCII row has width 0).
"""
from __future__ import annotations

import ctypes
import sys
from dataclasses import dataclass

import numpy as np

from vecscore._jit import SERIAL_MAX, jit, prange, serial_twin
from vecscore.kernels.swar import FAST, prefetch, text_at, word_at, words_at

__all__ = ["TextRows", "str_rows", "from_buffer", "text_at", "word_at", "code_point", "count_endings", "ASCII",
           "NOT_STR", "NON_ASCII"]

ASCII = 0
NOT_STR = 1
NON_ASCII = 2


@dataclass(frozen=True)
class TextRows:
    """Row ``i``'s bytes are the ``lens[i]`` bytes at address ``addrs[i]``; ``keep`` owns that memory.

    A ``NON_ASCII`` row with ``width[i]`` 1, 2 or 4 is a compact ``str`` of that kind: ``lens[i]``
    code points of ``width[i]`` bytes each at ``addrs[i]`` (``width`` ``None``: every width 0).
    """

    addrs: np.ndarray  # int64
    lens: np.ndarray  # int64
    kind: np.ndarray  # uint8: ASCII, NOT_STR or NON_ASCII
    keep: tuple
    width: np.ndarray | None = None  # uint8: 0, or the kind (1, 2, 4) of a compact non-ASCII str

    def widths(self) -> np.ndarray:
        """``width``, zeros where it is ``None``."""
        return np.zeros(len(self.addrs), np.uint8) if self.width is None else self.width

    def __len__(self) -> int:
        return len(self.addrs)

    def patched(self, rows: np.ndarray, blobs: list[bytes]) -> "TextRows":
        """A copy in which row ``rows[j]`` reads ``blobs[j]`` (kind ``ASCII`` from then on)."""
        if len(rows) == 0:
            return TextRows(self.addrs.copy(), self.lens.copy(), self.kind.copy(), self.keep, self.width)
        joined = np.frombuffer(b"".join(blobs) or b"\0", np.uint8)
        sizes = np.fromiter(map(len, blobs), np.int64, len(blobs))
        starts = np.zeros(len(blobs), np.int64)
        np.cumsum(sizes[:-1], out=starts[1:])
        return self.pointed(rows, joined.ctypes.data + starts, sizes, joined)

    def pointed(self, rows: np.ndarray, addrs: np.ndarray, lens: np.ndarray, owner) -> "TextRows":
        """A copy in which row ``rows[j]`` reads the ``lens[j]`` bytes at ``addrs[j]`` (kind ``ASCII``
        from then on), memory that ``owner`` keeps (``None``: memory ``keep`` holds already)."""
        a, n, kind, width = self.addrs.copy(), self.lens.copy(), self.kind.copy(), self.widths().copy()
        a[rows] = addrs
        n[rows] = lens
        kind[rows] = ASCII
        width[rows] = 0
        return TextRows(a, n, kind, self.keep + (() if owner is None else (owner,)), width)

    @staticmethod
    def concat(parts: list["TextRows"]) -> "TextRows":
        return TextRows(
            np.concatenate([p.addrs for p in parts]),
            np.concatenate([p.lens for p in parts]),
            np.concatenate([p.kind for p in parts]),
            tuple(k for p in parts for k in p.keep),
            None if all(p.width is None for p in parts) else np.concatenate([p.widths() for p in parts]),
        )


def from_buffer(buf: np.ndarray, offsets: np.ndarray, separator: bool = False) -> TextRows:
    """Rows over an encoded buffer: row ``i`` is ``buf[offsets[i]:offsets[i + 1]]``, less one
    trailing separator byte if ``separator`` (every row but the last, as NUL-joined texts have)."""
    buf = np.ascontiguousarray(buf, dtype=np.uint8)
    offsets = np.asarray(offsets, np.int64)
    base = buf.ctypes.data if len(buf) else 0
    lens = np.diff(offsets)
    if separator and len(lens) > 1:
        lens[:-1] -= 1
    return TextRows(base + offsets[:-1], lens, np.zeros(len(lens), np.uint8), (buf,))


#: objects ahead whose headers :func:`_classify` asks for (a batch's strings lie scattered in memory,
#: and one load after another waits on each cache miss: prefetching halves the scan)
_AHEAD = 16
_CHUNKS = 64


@jit(parallel=True)
def _classify(items, at, addrs, lens, kind, width, str_type, type_off, len_off, state_off, ascii_bit, required,
              data_off, kind_shift, wide_off):
    """Addresses, lengths, kinds and widths of the objects whose addresses are ``items``, into rows
    ``at..at + len(items)`` of ``addrs``/``lens``/``kind``/``width`` (every item of those rows is
    written).  A compact non-ASCII ``str`` (the ``required`` bits set) gets its CPython kind (1, 2
    or 4, bits ``kind_shift..kind_shift + 2`` of its state) as width, and the address and count of
    its code points (from ``wide_off``)."""
    n = len(items)
    for c in prange(_CHUNKS):
        lo = n * c // _CHUNKS
        hi = n * (c + 1) // _CHUNKS
        for i in range(lo, min(lo + _AHEAD, hi)):
            prefetch(items[i])
        for i in range(lo, hi):
            if i + _AHEAD < hi:
                prefetch(items[i + _AHEAD])
            obj = items[i]
            row = at + i
            addrs[row] = 0
            lens[row] = 0
            width[row] = 0
            if words_at(obj + type_off, 1)[0] != str_type:
                kind[row] = NOT_STR
                continue
            state = words_at(obj + state_off, 1)[0] & 0xFFFFFFFF
            if (state & ascii_bit) == 0 or (state & required) != required:
                kind[row] = NON_ASCII
                w = (state >> kind_shift) & 7 if kind_shift >= 0 else 0
                if (state & required) == required and (w == 1 or w == 2 or w == 4):
                    width[row] = w
                    addrs[row] = obj + wide_off
                    lens[row] = words_at(obj + len_off, 1)[0]
                continue
            kind[row] = ASCII
            addrs[row] = obj + data_off
            lens[row] = words_at(obj + len_off, 1)[0]


_classify_serial = serial_twin(_classify)


# ---------------------------------------------------------------------------
# The layout probe


@dataclass(frozen=True)
class _Layout:
    items_off: int  # a tuple's first item pointer
    type_off: int  # an object's type pointer
    len_off: int  # a str's length
    state_off: int  # a str's state bits (read as 32 bits)
    ascii_bit: int
    required: int  # state bits every probed str has (e.g. "compact")
    data_off: int  # a compact ASCII str's first character
    kind_shift: int  # the lowest bit of a str's kind (1, 2 or 4) in its state bits; -1: not found
    wide_off: int  # a compact non-ASCII str's first code point


def _words(obj, size: int) -> list[int]:
    raw = ctypes.string_at(id(obj), size)
    return [int.from_bytes(raw[o : o + 8], sys.byteorder, signed=True) for o in range(0, size - 7, 8)]


def _fresh(text: str) -> str:
    """A new (not interned, not cached) string equal to ``text``."""
    return "".join([text[:1], text[1:]]) if len(text) > 1 else "".join(["", text, "x"])[:-1]


def _find_layout() -> _Layout | None:
    if sys.implementation.name != "cpython" or sys.byteorder != "little" or ctypes.sizeof(ctypes.c_void_p) != 8:
        return None
    # a tuple's items: three consecutive pointers
    objs = (object(), object(), object())
    w = _words(objs, 96)
    items = [8 * i for i in range(len(w) - 2) if w[i : i + 3] == [id(o) for o in objs]]
    # compact ASCII strings: characters right after a fixed header
    asc = [_fresh(f"vecscore probe {i} " + "ab" * (7 * i + 3)) for i in range(24)]
    data = {sys.getsizeof(s) - len(s) - 1 for s in asc}
    if len(items) != 1 or len(data) != 1:
        return None
    data_off = data.pop()
    if not 16 <= data_off <= 256:
        return None
    heads = [_words(s, data_off) for s in asc]
    type_off = [8 * i for i in range(len(heads[0])) if all(h[i] == id(str) for h in heads)]
    len_off = [8 * i for i in range(len(heads[0])) if all(h[i] == len(s) for h, s in zip(heads, asc))]
    if len(type_off) != 1 or len(len_off) != 1:
        return None
    # the state bits: one bit set in every ASCII string and clear in every other
    wide = [_fresh(f"vecscore probe {i} " + c * (i + 2)) for i, c in enumerate("é\u0100\U0001f600" * 8)]
    for s in asc + wide:
        hash(s)
    best = []
    for off in range(0, data_off - 3, 4):
        a = [int.from_bytes(ctypes.string_at(id(s) + off, 4), "little") for s in asc]
        b = [int.from_bytes(ctypes.string_at(id(s) + off, 4), "little") for s in wide]
        and_a, or_b, and_all = -1, 0, -1
        for x in a:
            and_a &= x
        for x in b:
            or_b |= x
        for x in a + b:
            and_all &= x
        bits = and_a & ~or_b & 0xFFFFFFFF
        if bits and bits & (bits - 1) == 0:
            best.append((off, bits, and_all & 0xFFFFFFFF))
    if len(best) != 1 or best[0][0] % 8 != 0:  # the state word is read as the low half of an 8-byte word
        return None
    off, bit, required = best[0]
    # the kind: a 3-bit field that reads 1 in every ASCII string and 1, 2 or 4 in the others
    kinds = [1] * len(asc) + [_kind_of(s) for s in wide]
    states = [int.from_bytes(ctypes.string_at(id(s) + off, 4), "little") for s in asc + wide]
    shifts = [k for k in range(30) if all((st >> k) & 7 == want for st, want in zip(states, kinds))]
    # a compact non-ASCII str's code points: right after a fixed header (sys.getsizeof counts it and
    # the code points with their terminator; the probe strings have no cached UTF-8 copy)
    wide_off = {sys.getsizeof(s) - (len(s) + 1) * _kind_of(s) for s in wide}
    kind_shift, wide_at = -1, 0  # where that fails, non-ASCII rows are encoded (ASCII ones still read in place)
    if len(shifts) == 1 and len(wide_off) == 1 and data_off <= min(wide_off) <= 256:
        at = wide_off.pop()
        if all(ctypes.string_at(id(s) + at, len(s) * _kind_of(s)) == _code_units(s) for s in wide):
            kind_shift, wide_at = shifts[0], at
    return _Layout(items[0], type_off[0], len_off[0], off, bit, required, data_off, kind_shift, wide_at)


def _kind_of(s: str) -> int:
    """CPython's kind of a str: bytes per code point."""
    top = max(map(ord, s), default=0)
    return 1 if top < 0x100 else 2 if top < 0x10000 else 4


def _code_units(s: str) -> bytes:
    """The code points of ``s`` as CPython stores them (its kind's width, little-endian)."""
    k = _kind_of(s)
    return b"".join(ord(c).to_bytes(k, "little") for c in s)


def _check(layout: _Layout) -> bool:
    """Classify a probe batch with the kernel and compare with what Python says."""
    class Sub(str):
        pass

    rows = tuple(
        [_fresh("plain ascii"), "", "a", "interned", _fresh("caf\u00e9"), _fresh("\u0100x"), _fresh("\U0001f600y"),
         3, None, b"bytes", Sub("subclass"), _fresh("tab\tand\nnewline\x00nul")]
    )
    got = _scan((rows,), layout)
    width = got.widths()
    for i, r in enumerate(rows):
        want = NOT_STR if type(r) is not str else (ASCII if r.isascii() else NON_ASCII)
        if got.kind[i] != want:
            return False
        if want == ASCII and ctypes.string_at(int(got.addrs[i]), int(got.lens[i])) != r.encode("ascii"):
            return False
        if want == NON_ASCII and layout.kind_shift < 0 and width[i] != 0:
            return False
        if want == NON_ASCII and layout.kind_shift >= 0 and (
                width[i] != _kind_of(r) or got.lens[i] != len(r)
                or ctypes.string_at(int(got.addrs[i]), len(r) * _kind_of(r)) != _code_units(r)):
            return False
    return True


_LAYOUT: list = []


def _layout() -> _Layout | None:
    if not _LAYOUT:
        layout = None
        try:
            layout = _find_layout()
            if layout is not None and not _check(layout):
                layout = None
        except Exception:  # pragma: no cover - any surprise means "encode instead"
            layout = None
        _LAYOUT.append(layout)
    return _LAYOUT[0]


def _scan(snaps: tuple, layout: _Layout) -> TextRows:
    """The rows of the tuples ``snaps``, one after another, classified into one set of arrays."""
    total = sum(len(t) for t in snaps)
    addrs = np.empty(total, np.int64)
    lens = np.empty(total, np.int64)
    kind = np.empty(total, np.uint8)
    width = np.empty(total, np.uint8)
    at = 0
    for snap in snaps:
        n = len(snap)
        if n:
            items = np.frombuffer((ctypes.c_int64 * n).from_address(id(snap) + layout.items_off), np.int64)
            kernel = _classify if n > SERIAL_MAX else _classify_serial  # a few rows: one thread
            kernel(items, at, addrs, lens, kind, width, id(str), layout.type_off, layout.len_off, layout.state_off,
                   layout.ascii_bit, layout.required, layout.data_off, layout.kind_shift, layout.wide_off)
        at += n
    return TextRows(addrs, lens, kind, snaps, width)


def str_rows(*seqs) -> TextRows | None:
    """The rows of ``seqs`` (sequences, one after another) read in place, every row classified;
    ``None`` where this Python cannot be read in place (encode the texts then).

    ``keep`` holds one tuple snapshot per sequence (a tuple is its own).
    """
    layout = _layout() if FAST else None
    if layout is None:
        return None
    return _scan(tuple(rows if type(rows) is tuple else tuple(rows) for rows in seqs), layout)


@jit(inline=True)
def code_point(t, i, w):
    """Code point ``i`` of a row of ``w``-byte code units (1, 2 or 4, CPython's kinds) whose bytes are ``t``
    (little-endian)."""
    if w == 1:
        return np.int64(t[i])
    if w == 2:
        return np.int64(t[2 * i]) | (np.int64(t[2 * i + 1]) << 8)
    j = 4 * i
    return np.int64(t[j]) | (np.int64(t[j + 1]) << 8) | (np.int64(t[j + 2]) << 16) | (np.int64(t[j + 3]) << 24)


@jit
def ending_flags(addrs, lens, kind, width, last2, last1):
    """Per row: 1 if its text ends in the code points ``last2``, ``last1``, 0 if not, -1 if the row is
    not read in place here (not a ``str``, or a ``str`` whose code units it does not know)."""
    out = np.empty(len(addrs), np.int8)
    for i in range(len(addrs)):
        w = 1 if kind[i] == ASCII else np.int64(width[i]) if kind[i] == NON_ASCII else 0
        if w == 0:
            out[i] = -1
            continue
        n = lens[i]
        if n < 2:
            out[i] = 0
            continue
        units = text_at(addrs[i] + (n - 2) * w, 2 * w)
        out[i] = 1 if code_point(units, 0, w) == last2 and code_point(units, 1, w) == last1 else 0
    return out


def count_endings(texts, suffix: str) -> int | None:
    """How many of ``texts`` end in ``suffix`` (two characters), read where they lie (no call per
    text); ``None`` where this Python cannot be read in place.  ``str`` subclasses and other rows
    are asked ``endswith``."""
    rows = str_rows(texts)
    if rows is None:
        return None
    flags = ending_flags(rows.addrs, rows.lens, rows.kind, rows.widths(), ord(suffix[0]), ord(suffix[1]))
    other = np.flatnonzero(flags < 0)
    snap = rows.keep[0]
    return int((flags == 1).sum()) + sum(1 for i in other if str.endswith(snap[int(i)], suffix))
