"""Byte classes 8 bytes at a time (SWAR) and bit-mask helpers for the tokenizer kernels.

For a byte ``b < 0x80``, ``b`` lies in ``[lo, hi]`` exactly when the high bit
of ``(b + 0x80 - lo) & ~(b + 0x7F - hi)`` is set: neither sum carries out of
its byte, so one 64-bit addition tests 8 bytes.  :func:`range_adders` turns
ranges into the two added words, :func:`in_ranges` tests a word against
them, :func:`packed` gathers the 8 high bits into 8 consecutive bits (byte
``j`` -> bit ``j``), and :func:`ctz` counts trailing zero bits (to walk the
set bits of a mask).  Callers clear bytes ``>= 0x80`` first where they can
occur (``word & LOW7``, then drop them from the result).
"""
from __future__ import annotations

import numba
import numpy as np

from vecscore._jit import jit

__all__ = ["HIGH", "LOW7", "range_adders", "in_ranges", "packed", "ctz", "block_at"]

HIGH = np.uint64(0x8080808080808080)
LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_PACK = np.uint64(0x0102040810204080)


def range_adders(ranges) -> np.ndarray:
    """``(k, 2)`` uint64: the words added to test byte ranges ``[(lo, hi), ...]`` (0 <= lo <= hi < 0x80)."""
    return np.array([[(0x80 - lo) * 0x0101010101010101, (0x7F - hi) * 0x0101010101010101] for lo, hi in ranges],
                    np.uint64)


@jit
def in_ranges(w, ranges):
    """High bit of every byte of ``w`` (each < 0x80) that lies in one of ``ranges``."""
    m = np.uint64(0)
    for r in range(ranges.shape[0]):
        m |= (w + ranges[r, 0]) & ~(w + ranges[r, 1])
    return m & HIGH


@jit
def packed(m):
    """The high bits of ``m``'s 8 bytes as 8 consecutive bits (byte ``j`` -> bit ``j``)."""
    return ((m >> np.uint64(7)) * _PACK) >> np.uint64(56)


@jit
def block_at(text, addr, base, pad, fill):
    """Address of the 64 bytes of ``text`` (at address ``addr``) from ``base``: in place where all
    64 exist, else ``pad`` (64 bytes) holding the rest of the text followed by ``fill`` bytes, so
    that nothing past the text is read."""
    n = len(text)
    if base + 64 <= n:
        return addr + base
    for j in range(64):
        pad[j] = fill
    for j in range(n - base):
        pad[j] = text[base + j]
    return pad.ctypes.data


if numba.config.DISABLE_JIT:

    def ctz(x):
        """Trailing zero bits of a nonzero ``x``."""
        x = int(x)
        return (x & -x).bit_length() - 1

else:
    from numba.cpython.unsafe.numbers import trailing_zeros as ctz  # noqa: F401
