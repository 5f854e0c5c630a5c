"""Token spans: the common output of every tokenizer.

A batch of ``n`` texts is encoded once into one UTF-8 byte buffer.  A tokenizer
returns :class:`TokenSpans`: for every token, the byte range ``buf[start:end]``
that spells it (the buffer may be a rewritten copy of the input, e.g. after
lowercasing), and ``offsets`` (length ``n + 1``) saying which tokens belong to
which text: the tokens of text ``i`` are ``offsets[i]:offsets[i + 1]``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["TokenSpans", "encode_texts"]


@dataclass(frozen=True)
class TokenSpans:
    buf: np.ndarray  # uint8, UTF-8 bytes
    starts: np.ndarray  # int64, byte start of each token
    ends: np.ndarray  # int64, byte end (exclusive) of each token
    offsets: np.ndarray  # int64, length n_texts + 1

    @property
    def n_texts(self) -> int:
        return len(self.offsets) - 1

    def token_strings(self, i: int) -> list[str]:
        """The tokens of text ``i`` as Python strings (for tests and debugging)."""
        b = self.buf.tobytes()
        lo, hi = self.offsets[i], self.offsets[i + 1]
        return [b[s:e].decode("utf-8") for s, e in zip(self.starts[lo:hi], self.ends[lo:hi])]


def encode_texts(texts) -> tuple[np.ndarray, np.ndarray]:
    """Encode a sequence of ``str`` into one UTF-8 buffer and byte offsets.

    Returns ``(buf, offsets)`` with ``buf`` a uint8 array and ``offsets`` an
    int64 array of length ``len(texts) + 1``.  The caller validates that every
    element is a ``str`` before calling.
    """
    encoded = [t.encode("utf-8") for t in texts]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    if encoded:
        np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
    buf = np.frombuffer(b"".join(encoded), dtype=np.uint8)
    return buf, offsets
