"""Token spans: the common output of every tokenizer.

A batch of ``n`` texts is encoded once into one UTF-8 byte buffer.  A tokenizer
returns :class:`TokenSpans`: for every token, the byte range ``buf[start:end]``
that spells it (the buffer may be a rewritten copy of the input), and
``offsets`` (length ``n + 1``) saying which tokens belong to which text: the
tokens of text ``i`` are ``offsets[i]:offsets[i + 1]``.  ``fold`` (optional,
a 256-entry uint8 table) maps every byte before tokens are compared, e.g.
ASCII lowercasing, so that a tokenizer need not write a lowered copy.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np

from vecscore.kernels.in_place import ASCII, str_rows
from vecscore.kernels.tokenize import nul_offsets

__all__ = ["TokenSpans", "encode_texts", "encode_nul_separated", "ascii_view"]


@dataclass(frozen=True)
class TokenSpans:
    buf: np.ndarray  # uint8, UTF-8 bytes
    starts: np.ndarray  # int64, byte start of each token
    ends: np.ndarray  # int64, byte end (exclusive) of each token
    offsets: np.ndarray  # int64, length n_texts + 1
    fold: np.ndarray | None = None  # uint8[256] byte map applied before comparing tokens

    @property
    def n_texts(self) -> int:
        return len(self.offsets) - 1

    def token_strings(self, i: int) -> list[str]:
        """The tokens of text ``i`` as Python strings (for tests and debugging)."""
        buf = self.buf if self.fold is None else self.fold[self.buf]
        b = buf.tobytes()
        lo, hi = self.offsets[i], self.offsets[i + 1]
        return [b[s:e].decode("utf-8") for s, e in zip(self.starts[lo:hi], self.ends[lo:hi])]


def encode_texts(texts) -> tuple[np.ndarray, np.ndarray]:
    """Encode a sequence of ``str`` into one UTF-8 buffer and byte offsets.

    Returns ``(buf, offsets)`` with ``buf`` a uint8 array and ``offsets`` an
    int64 array of length ``len(texts) + 1``: text ``i`` is exactly
    ``buf[offsets[i]:offsets[i + 1]]``.  The buffer is read-only (for ASCII
    texts, a view of their joined string where :func:`ascii_view` can make
    one).  The caller validates that every element is a ``str`` before calling.
    """
    n = len(texts)
    offsets = np.zeros(n + 1, dtype=np.int64)
    joined = "".join(texts)
    if joined.isascii():
        if n:
            np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=n), out=offsets[1:])
        view = ascii_view(joined)  # the joined string's own bytes where this Python allows it
        return (view if view is not None else np.frombuffer(joined.encode("ascii"), dtype=np.uint8)), offsets
    encoded = [t.encode("utf-8") for t in texts]
    if n:
        np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=n), out=offsets[1:])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets


def encode_nul_separated(texts) -> tuple[np.ndarray, np.ndarray] | None:
    """A faster encoding for tokenizers to which a NUL byte is a separator.

    The texts are joined with NUL bytes in one C-level call; text ``i``'s span
    ``buf[offsets[i]:offsets[i + 1]]`` is the text followed by one NUL (the
    last text has none).  On CPython the buffer is a read-only view of the
    joined ``str``'s own characters (no encoding copy).  Returns ``None``
    when the batch is not pure ASCII or a text contains a NUL itself; use
    :func:`encode_texts` then.
    """
    n = len(texts)
    joined = "\x00".join(texts)
    if not joined.isascii():
        return None
    buf = ascii_view(joined)
    if buf is None:
        buf = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    offsets = nul_offsets(buf, n)
    if len(offsets) != n + 1:
        return None
    return buf, offsets


def ascii_view(s: str) -> np.ndarray | None:
    """A read-only uint8 view of an ASCII ``str``'s characters, without copying.

    Where :mod:`vecscore.kernels.in_place` can read this Python's strings in
    place, the view is over the string's own bytes and holds a reference to
    it; ``None`` otherwise, and for non-ASCII strings (the caller encodes
    then).
    """
    rows = str_rows((s,)) if type(s) is str else None
    if rows is None or rows.kind[0] != ASCII:
        return None
    if not s:
        return np.zeros(0, np.uint8)
    raw = (ctypes.c_uint8 * len(s)).from_address(int(rows.addrs[0]))
    raw._owner = s  # the view keeps the string alive
    out = np.frombuffer(raw, dtype=np.uint8)
    out.flags.writeable = False
    return out
