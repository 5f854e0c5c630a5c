"""Numba kernels that split a UTF-8 buffer into token spans.

Every kernel takes the whole batch at once: ``buf`` (uint8) and ``offsets``
(int64, ``n + 1`` byte offsets of the texts) and works in two parallel passes:
count the tokens of each text, then fill the spans at their final positions.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange

# Code-point classes used by :func:`split_codepoints`.
SEP = 0  # separator (not part of any token)
WORD = 1  # part of a run that forms one token
SINGLE = 2  # a token of its own (one code point)

# split_codepoints modes
MODE_WHITESPACE = 0  # runs of non-whitespace code points
MODE_CHAR = 1  # every non-whitespace code point is a token
MODE_CJK = 2  # Han, kana and hangul one per token, other runs as words


_LOW = np.uint64(0x0101010101010101)
_HIGH = np.uint64(0x8080808080808080)


@jit
def _count_nul(seg):
    c = 0
    for i in range(len(seg)):
        c += seg[i] == 0
    return c


@jit
def _fill_nul(seg, base, out, k):
    """Write ``base + i + 1`` for every NUL ``seg[i]`` at ``out[k:]``.

    Eight bytes at a time: a word without a zero byte (the test
    ``(x - 0x01..) & ~x & 0x80..``) is skipped whole.  ``seg`` starts at
    ``base``, a multiple of 8 from the buffer's start.
    """
    n = len(seg)
    words = n // 8
    if words > 0 and seg.ctypes.data % 8 == 0:
        w = seg[: words * 8].view(np.uint64)
        for q in range(words):
            x = w[q]
            if ((x - _LOW) & ~x & _HIGH) != 0:
                for i in range(8 * q, 8 * q + 8):
                    if seg[i] == 0:
                        out[k] = base + i + 1
                        k += 1
    else:
        words = 0
    for i in range(8 * words, n):
        if seg[i] == 0:
            out[k] = base + i + 1
            k += 1


@jit(parallel=True)
def nul_offsets(buf, n_texts):
    """Offsets of ``n_texts`` NUL-joined texts: ``[0, one past each NUL, len(buf)]``.

    Returns an empty array when ``buf`` holds another number of NULs than
    ``n_texts - 1`` (a text contained a NUL itself).  Two parallel passes
    over segments of the buffer: count, then fill.  (The helpers loop from 0
    over slices: a loop from a variable start keeps numba's negative-index
    check on every access, which blocks LLVM's vectorizer.)
    """
    size = len(buf)
    n_seg = max(1, min(64, size >> 20))
    cut = np.empty(n_seg + 1, np.int64)  # segment bounds, multiples of 8 but the last
    for s in range(n_seg):
        cut[s] = (size * s // n_seg) & ~7
    cut[n_seg] = size
    counts = np.zeros(n_seg + 1, np.int64)
    for s in prange(n_seg):
        counts[s + 1] = _count_nul(buf[cut[s]:cut[s + 1]])
    for s in range(n_seg):
        counts[s + 1] += counts[s]
    if n_texts == 0 or counts[n_seg] != n_texts - 1:
        return np.zeros(1 if n_texts == 0 and size == 0 else 0, np.int64)
    out = np.empty(n_texts + 1, np.int64)
    out[0] = 0
    out[n_texts] = size
    for s in prange(n_seg):
        _fill_nul(buf[cut[s]:cut[s + 1]], cut[s], out, counts[s] + 1)
    return out


@jit
def _run_count(buf, lo, hi, table):
    n = 0
    inside = False
    for i in range(lo, hi):
        t = table[buf[i]] != 0
        if t and not inside:
            n += 1
        inside = t
    return n


@jit
def _run_fill(buf, lo, hi, table, starts, ends, k, kend):
    """Write the spans of the runs of ``buf[lo:hi]`` at ``starts[k:kend]``.

    Branch-light: the current span is written on every byte and the write
    position advances only at a run's end; it stops once the ``kend - k``
    runs are written, so it never touches a neighbour's slots (texts are
    filled in parallel).
    """
    inside = False
    cur = lo
    for i in range(lo, hi):
        if k == kend:
            return k
        t = table[buf[i]] != 0
        cur = i if (t and not inside) else cur
        starts[k] = cur
        ends[k] = i
        k += 1 if (inside and not t) else 0
        inside = t
    if inside:
        starts[k] = cur
        ends[k] = hi
        k += 1
    return k


@jit
def token_slots(counts):
    """``(starts, ends, offsets)`` for texts of ``counts`` tokens each: the ragged offsets, and two int64 arrays
    of the total length for the tokens' bounds."""
    offsets = np.zeros(len(counts) + 1, np.int64)
    offsets[1:] = np.cumsum(counts)
    return np.empty(offsets[-1], np.int64), np.empty(offsets[-1], np.int64), offsets


@jit(parallel=True)
def split_byte_runs(buf, offsets, table):
    """Tokens are maximal runs of bytes ``b`` with ``table[b] != 0``.

    Returns ``(starts, ends, tok_offsets)``.
    """
    n = len(offsets) - 1
    counts = np.empty(n, np.int64)
    for i in prange(n):
        counts[i] = _run_count(buf, offsets[i], offsets[i + 1], table)
    starts, ends, tok_offsets = token_slots(counts)
    for i in prange(n):
        _run_fill(buf, offsets[i], offsets[i + 1], table, starts, ends, tok_offsets[i], tok_offsets[i + 1])
    return starts, ends, tok_offsets


@jit
def decode_utf8(buf, i, hi):
    """Decode the code point starting at ``buf[i]``; return ``(cp, width)``.

    The buffer comes from ``str.encode('utf-8')``, so it is valid UTF-8.
    """
    b0 = np.int64(buf[i])
    if b0 < 0x80:
        return b0, 1
    if b0 < 0xE0:
        return ((b0 & 0x1F) << 6) | (np.int64(buf[i + 1]) & 0x3F), 2
    if b0 < 0xF0:
        return ((b0 & 0x0F) << 12) | ((np.int64(buf[i + 1]) & 0x3F) << 6) | (np.int64(buf[i + 2]) & 0x3F), 3
    return (
        ((b0 & 0x07) << 18)
        | ((np.int64(buf[i + 1]) & 0x3F) << 12)
        | ((np.int64(buf[i + 2]) & 0x3F) << 6)
        | (np.int64(buf[i + 3]) & 0x3F)
    ), 4


@jit
def is_python_whitespace(cp):
    """``chr(cp).isspace()`` for every code point (Python's ``str.split()`` set)."""
    if cp <= 0x20:
        return cp == 0x20 or (0x09 <= cp <= 0x0D) or (0x1C <= cp <= 0x1F)
    if cp < 0x85:
        return False
    return (
        cp == 0x85
        or cp == 0xA0
        or cp == 0x1680
        or (0x2000 <= cp <= 0x200A)
        or cp == 0x2028
        or cp == 0x2029
        or cp == 0x202F
        or cp == 0x205F
        or cp == 0x3000
    )


@jit
def is_cjk(cp):
    """Han ideographs, kana and hangul: scored one character per token."""
    return (
        (0x1100 <= cp <= 0x11FF)  # hangul jamo
        or (0x2E80 <= cp <= 0x2FDF)  # CJK and Kangxi radicals
        or (0x3005 <= cp <= 0x3007)  # iteration mark, closing mark, ideographic zero
        or (0x3021 <= cp <= 0x3029)  # Hangzhou numerals
        or (0x3038 <= cp <= 0x303B)
        or (0x3040 <= cp <= 0x30FF)  # hiragana, katakana
        or (0x3130 <= cp <= 0x318F)  # hangul compatibility jamo
        or (0x31F0 <= cp <= 0x31FF)  # katakana phonetic extensions
        or (0x3400 <= cp <= 0x4DBF)  # extension A
        or (0x4E00 <= cp <= 0x9FFF)  # unified ideographs
        or (0xA960 <= cp <= 0xA97F)  # hangul jamo extended A
        or (0xAC00 <= cp <= 0xD7FF)  # hangul syllables, jamo extended B
        or (0xF900 <= cp <= 0xFAFF)  # compatibility ideographs
        or (0xFF66 <= cp <= 0xFF9F)  # halfwidth katakana
        or (0xFFA0 <= cp <= 0xFFDC)  # halfwidth hangul
        or (0x20000 <= cp <= 0x323AF)  # extensions B-H, compatibility supplement
    )


@jit
def _cp_class(cp, mode):
    if is_python_whitespace(cp):
        return SEP
    if mode == MODE_CHAR:
        return SINGLE
    if mode == MODE_CJK and is_cjk(cp):
        return SINGLE
    return WORD


@jit
def _cp_scan(buf, lo, hi, mode, starts, ends, k, fill):
    """Count (``fill=False``) or write the tokens of ``buf[lo:hi]``."""
    n = 0
    inside = False
    i = lo
    while i < hi:
        cp, w = decode_utf8(buf, i, hi)
        c = _cp_class(cp, mode)
        if inside and c != WORD:
            if fill:
                ends[k + n - 1] = i
            inside = False
        if c == SINGLE:
            if fill:
                starts[k + n] = i
                ends[k + n] = i + w
            n += 1
        elif c == WORD and not inside:
            if fill:
                starts[k + n] = i
            n += 1
            inside = True
        i += w
    if inside and fill:
        ends[k + n - 1] = hi
    return n


@jit(parallel=True)
def split_codepoints(buf, offsets, mode):
    """Split on Python whitespace, with per-code-point single tokens by ``mode``.

    Returns ``(starts, ends, tok_offsets)``.
    """
    n = len(offsets) - 1
    counts = np.empty(n, np.int64)
    dummy = np.empty(0, np.int64)
    for i in prange(n):
        counts[i] = _cp_scan(buf, offsets[i], offsets[i + 1], mode, dummy, dummy, 0, False)
    starts, ends, tok_offsets = token_slots(counts)
    for i in prange(n):
        _cp_scan(buf, offsets[i], offsets[i + 1], mode, starts, ends, tok_offsets[i], True)
    return starts, ends, tok_offsets


@jit(parallel=True)
def sentence_flags(buf, starts, ends, tok_offsets, sep):
    """True for every token that starts a sentence.

    A text's first token starts one, and so does every token with a ``sep``
    byte (newline) between it and the previous token of the same text.
    """
    n = len(tok_offsets) - 1
    flags = np.zeros(len(starts), np.bool_)
    for i in prange(n):
        for j in range(tok_offsets[i], tok_offsets[i + 1]):
            if j == tok_offsets[i]:
                flags[j] = True
                continue
            for q in range(ends[j - 1], starts[j]):
                if buf[q] == sep:
                    flags[j] = True
                    break
    return flags
