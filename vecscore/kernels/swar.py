"""Byte classes 8 bytes at a time (SWAR) and bit-mask helpers for the tokenizer kernels.

For a byte ``b < 0x80``, ``b`` lies in ``[lo, hi]`` exactly when the high bit
of ``(b + 0x80 - lo) & ~(b + 0x7F - hi)`` is set: neither sum carries out of
its byte, so one 64-bit addition tests 8 bytes.  :func:`range_adders` turns
ranges into the two added words, :func:`in_ranges` tests a word against
them, :func:`packed` gathers the 8 high bits into 8 consecutive bits (byte
``j`` -> bit ``j``), and :func:`ctz` counts trailing zero bits (to walk the
set bits of a mask).  Callers clear bytes ``>= 0x80`` first where they can
occur (``word & LOW7``, then drop them from the result).

:func:`range_bits` tests 64 bytes at once instead: it is a small piece of
LLVM vector IR (load 64 bytes, subtract, compare, bitcast the 64 one-bit
results to an integer), which LLVM lowers to a few vector instructions on
any target (one compare into a mask register with AVX-512).  :func:`block_64`
gives the address of 64 readable bytes for a block of a text: in place, or a
padded copy where the block might end past readable memory.
"""
from __future__ import annotations

import ctypes

import numpy as np

from vecscore import fast_path
from vecscore._jit import DISABLED, ir_helper, jit

__all__ = ["HIGH", "LOW7", "PAGE", "FAST", "range_adders", "in_ranges", "packed", "ctz", "block_64",
           "range_bits", "emit_bits", "low_bits", "popcount", "load_word", "prefetch", "pair_eq_bits", "claim",
           "work_counter", "text_at", "word_at", "words_at", "borrow"]

#: the smallest page size of the platforms CPython runs on; a read that stays within one
#: page holding a byte of the text cannot fault
PAGE = 4096

HIGH = np.uint64(0x8080808080808080)
LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_PACK = np.uint64(0x0102040810204080)


# ---------------------------------------------------------------------------
# Reading memory by address inside kernels


_voidptr = ir_helper("voidptr")
carray = ir_helper("carray", "numba")
_range_bits = ir_helper("range_bits")
_load_word = ir_helper("load_word")
_prefetch = ir_helper("prefetch")
_pair_eq_bits32 = ir_helper("pair_eq_bits32")
_pair_eq_bits64 = ir_helper("pair_eq_bits64")
_fetch_add = ir_helper("fetch_add")


def _borrow_py(arr):
    """:func:`borrow` without the JIT: the array itself."""
    return arr


#: ``x = borrow(x)`` at the top of a per-pair kernel: the array without reference counting
#: (:func:`vecscore.kernels.ir_helpers.borrow`); the array itself without the JIT
borrow = _borrow_py if DISABLED else ir_helper("borrow")


if DISABLED:  # plain Python (the tests' coverage runs): ctypes views

    def text_at(addr, n):
        """The ``n`` bytes at ``addr`` as a uint8 array (no copy)."""
        if n == 0:
            return np.zeros(0, np.uint8)
        return np.frombuffer((ctypes.c_uint8 * int(n)).from_address(int(addr)), np.uint8)

    def words_at(addr, n):
        return np.frombuffer((ctypes.c_int64 * int(n)).from_address(int(addr)), np.int64)

    def word_at(addr):
        """The 8 bytes at ``addr`` (any alignment) as a little-endian int64."""
        return np.int64(int.from_bytes(ctypes.string_at(int(addr), 8), "little", signed=True))

else:

    @jit
    def text_at(addr, n):
        """The ``n`` bytes at ``addr`` as a uint8 array (no copy)."""
        return carray(_voidptr(addr), n, np.uint8)

    @jit
    def words_at(addr, n):
        return carray(_voidptr(addr), n, np.int64)

    @jit
    def word_at(addr):
        """The 8 bytes at ``addr`` (any alignment) as a little-endian int64."""
        return carray(_voidptr(addr), 1, np.int64)[0]


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


@jit(inline=True)
def low_bits(count):
    """A mask of the lowest ``count`` bits (``0 <= count``; all 64 from 64 on)."""
    if count >= 64:
        return np.uint64(0xFFFFFFFFFFFFFFFF)
    return (np.uint64(1) << np.uint64(count)) - np.uint64(1)


@jit
def popcount(x):
    """Number of set bits of a uint64 (LLVM turns this into one instruction where there is one)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@jit(inline=True)
def emit_bits(bits, base, out, k):
    """Write ``base + j`` for every set bit ``j`` of ``bits``, lowest first, to ``out[k:]``; returns the next ``k``."""
    while bits != 0:
        out[k] = base + ctz(bits)
        k += 1
        bits &= bits - np.uint64(1)
    return k


@jit(inline=True)
def block_64(text, addr, base, pad):
    """Address of 64 readable bytes whose first ``min(64, len(text) - base)`` are those of ``text``
    (at address ``addr``) from ``base``; the others are arbitrary, so callers mask them off.

    In place where all 64 bytes belong to the text, or where they stay within
    the memory page of the byte at ``base`` (mapped, since the text is in it);
    otherwise a copy in ``pad`` (64 bytes).  ``base < len(text)``.
    """
    start = addr + base
    if base + 64 <= len(text) or (start & (PAGE - 1)) <= PAGE - 64:
        return start
    return _copied(text, base, pad)


@jit
def _copied(text, base, pad):
    for j in range(len(text) - base):
        pad[j] = text[base + j]
    return np.int64(pad.ctypes.data)


def _range_bits_py(addr, lo, hi):
    block = np.frombuffer(ctypes.string_at(int(addr), 64), np.uint8)
    bits = (block >= lo) & (block <= hi)
    return np.uint64(int(np.packbits(bits[::-1]).view(">u8")[0]))


def _load_word_py(addr):
    return np.uint64(int.from_bytes(ctypes.string_at(int(addr), 8), "little"))


def _pair_eq_bits_py(addr_a, addr_b, a, b, width):
    wa = np.frombuffer(ctypes.string_at(int(addr_a), 8 * width), np.int64)
    wb = np.frombuffer(ctypes.string_at(int(addr_b), 8 * width), np.int64)
    bits = (wa == a) & (wb == b)
    return np.uint64(sum(1 << j for j in np.flatnonzero(bits)))


# --------------------------------------------------------------------------------------
# Which helpers the kernels use: the IR helpers above (the fast path), their twins as plain
# numba loops (VECSCORE_FAST_PATH=0, see vecscore.fast_path), or plain Python (NUMBA_DISABLE_JIT)
# --------------------------------------------------------------------------------------

FAST = fast_path.enabled()


@jit
def range_bits_loop(addr, lo, hi):
    """:func:`range_bits` as a plain loop over the 64 bytes."""
    block = text_at(addr, 64)
    bits = np.uint64(0)
    for j in range(64):
        b = np.int64(block[j])
        if lo <= b and b <= hi:
            bits |= np.uint64(1) << np.uint64(j)
    return bits


@jit
def load_word_loop(addr):
    """:func:`load_word` as a plain load through :func:`word_at`."""
    return np.uint64(word_at(addr))


@jit
def pair_eq_bits_loop(addr_a, addr_b, a, b, count):
    """:func:`pair_eq_bits` as a plain loop over the ``count`` word pairs."""
    wa = words_at(addr_a, count)
    wb = words_at(addr_b, count)
    bits = np.uint64(0)
    for j in range(count):
        if wa[j] == a and wb[j] == b:
            bits |= np.uint64(1) << np.uint64(j)
    return bits


@jit
def range_bits_ir(addr, lo, hi):
    """Bit ``j`` set where the byte at ``addr + j`` lies in ``[lo, hi]``, for ``j`` in ``0..63``."""
    return _range_bits(addr, lo, hi)


@jit(inline=True)
def load_word_ir(addr):
    """The 8 bytes at ``addr`` (any alignment) as a little-endian uint64."""
    return _load_word(addr)


@jit(inline=True)
def pair_eq_bits_ir(addr_a, addr_b, a, b, count):
    """Bit ``j`` set where the int64 words at ``addr_a + 8 * j`` and ``addr_b + 8 * j`` equal
    ``a`` and ``b``, for ``j < count <= 64``; 32 or 64 words are read at both addresses
    (32 while ``count <= 32``), so that many must be readable."""
    if count <= 32:
        return _pair_eq_bits32(addr_a, addr_b, a, b) & low_bits(count)
    return _pair_eq_bits64(addr_a, addr_b, a, b) & low_bits(count)


@jit(inline=True)
def claim_atomic(counter, w, workers):
    """The next item of a work queue: ``counter[0]`` (int64), incremented atomically, so that
    the threads of a ``prange`` over workers take items as they become free (a thread slowed
    down, say by another process on its core, takes fewer) instead of a fixed share each."""
    return _fetch_add(counter.ctypes.data, 1)


@jit(inline=True)
def claim_strided(counter, w, workers):
    """:func:`claim_atomic` without atomics: worker ``w`` takes items ``w``, ``w + workers``, ...
    (its own count in ``counter[1 + w]``); the counter has ``1 + workers`` entries."""
    k = counter[1 + w]
    counter[1 + w] = k + 1
    return k * workers + w


@jit(inline=True)
def prefetch_none(addr):
    """No hint."""


if DISABLED:
    load_word = _load_word_py
    range_bits = _range_bits_py

    def prefetch(addr):
        """A hint (nothing to do without the JIT)."""

    def ctz(x):
        """Trailing zero bits of a nonzero ``x``."""
        x = int(x)
        return (x & -x).bit_length() - 1

    def pair_eq_bits(addr_a, addr_b, a, b, count):
        """See :func:`pair_eq_bits_ir`."""
        return _pair_eq_bits_py(addr_a, addr_b, a, b, 32 if count <= 32 else 64) & low_bits(count)

    claim = claim_strided
else:
    ctz = ir_helper("trailing_zeros", "numba.cpython.unsafe.numbers")

    if FAST:
        range_bits, load_word, pair_eq_bits, claim = range_bits_ir, load_word_ir, pair_eq_bits_ir, claim_atomic

        @jit(inline=True)
        def prefetch(addr):
            """Hint the CPU to load the cache line at ``addr`` (any address: a prefetch never faults)."""
            _prefetch(addr)
    else:
        range_bits, load_word, pair_eq_bits = range_bits_loop, load_word_loop, pair_eq_bits_loop
        claim, prefetch = claim_strided, prefetch_none


def work_counter(workers: int) -> np.ndarray:
    """The counter :func:`claim` takes, for ``workers`` threads (all zero)."""
    return np.zeros(1 + max(int(workers), 1), np.int64)
