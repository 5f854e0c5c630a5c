"""``sentence_splitter="punct"`` as a kernel: the same breaks as :func:`vecscore.text.sentences.split_punct_plain`.

The texts arrive as one UTF-8 buffer, NUL between texts, and every text is
split on its own thread (``prange``).  Two passes per text, as the two regular
expressions of the plain splitter:

1. Latin ends.  A whitespace-delimited token whose tail is ``[.!?]+`` and then
   closing quotes or brackets, followed by spaces or tabs and then a
   non-space character, ends a sentence: the spaces become one ``"\\n"``.
   A lone ``.`` after a one-letter word, a word containing ``.`` or a known
   abbreviation does not.
2. CJK ends.  ``。``, ``！``, ``？`` and the closers after them get a ``"\\n"``
   unless a newline or the end of the text follows.

A text whose abbreviation check would need Unicode lowercasing (a non-ASCII
word before a lone ``.``) is flagged; the caller splits it with the plain
splitter, so the result is the plain splitter's for every text.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange
from vecscore.kernels.swar import claim
from vecscore.kernels.tokenize import decode_utf8, is_python_whitespace

__all__ = ["abbreviation_keys", "split_punct", "word_keeps_going"]


def abbreviation_keys(words) -> np.ndarray:
    """Sorted int64 keys of ASCII words of at most 7 bytes (the bytes, little-endian, then the length)."""
    keys = []
    for w in words:
        b = w.encode("ascii")
        if len(b) <= 7:
            keys.append(int.from_bytes(b, "little") | (len(b) << 56))
    return np.array(sorted(keys), dtype=np.int64)


@jit
def word_keeps_going(buf, lo, hi, keys):
    """For a lone ``.`` after ``buf[lo:hi]``: 0 = a sentence break, 1 = no break, 2 = needs Unicode (flag)."""
    for i in range(lo, hi):
        if buf[i] == 0x2E:  # "." in the word
            return 1
    for i in range(lo, hi):
        if buf[i] >= 0x80:
            return 2
    while lo < hi and (buf[lo] == 0x22 or buf[lo] == 0x27 or buf[lo] == 0x28 or buf[lo] == 0x5B):
        lo += 1  # opening quotes and brackets
    n = hi - lo
    if n == 1:
        return 1
    if n == 0 or n > 7:
        return 0
    key = np.int64(n) << 56
    for i in range(n):
        c = np.int64(buf[lo + i])
        if 0x41 <= c <= 0x5A:
            c += 32
        key |= c << (8 * i)
    j = np.searchsorted(keys, key)
    return 1 if j < len(keys) and keys[j] == key else 0


@jit(inline=True)
def _space_width(buf, i, hi):
    """``(is whitespace, width)`` of the character at ``buf[i]``; ASCII without decoding."""
    b = buf[i]
    if b < 0x80:
        return b == 0x20 or (0x09 <= b <= 0x0D) or (0x1C <= b <= 0x1F), 1
    cp, width = decode_utf8(buf, i, hi)
    return is_python_whitespace(cp), width


@jit
def _latin_closer_width(buf, lo, e):
    """Width of the closing quote or bracket ending at ``buf[e - 1]`` (0: none)."""
    c = buf[e - 1]
    if c == 0x22 or c == 0x27 or c == 0x29 or c == 0x5D:
        return 1
    if e - 3 >= lo and buf[e - 3] == 0xE2 and buf[e - 2] == 0x80 and (c == 0x9D or c == 0x99):
        return 3  # ” ’
    return 0


@jit
def _latin_pass(buf, lo, hi, out, keys):
    """Pass 1 of one text into ``out[lo:]``; returns ``(length written, flagged)``."""
    w = lo
    i = lo
    while i < hi:
        space, width = _space_width(buf, i, hi)
        if space:
            for k in range(width):
                out[w + k] = buf[i + k]
            w += width
            i += width
            continue
        t0 = i
        while i < hi:
            space, width = _space_width(buf, i, hi)
            if space:
                break
            i += width
        t1 = i
        j = t1
        while j < hi and (buf[j] == 0x20 or buf[j] == 0x09):
            j += 1
        brk = False
        if t1 < j < hi and not _space_width(buf, j, hi)[0]:
            e = t1
            while e > t0:
                cw = _latin_closer_width(buf, t0, e)
                if cw == 0:
                    break
                e -= cw
            p_end = e
            while e > t0 and (buf[e - 1] == 0x2E or buf[e - 1] == 0x21 or buf[e - 1] == 0x3F):
                e -= 1
            if e < p_end:
                if p_end - e == 1 and buf[e] == 0x2E:
                    verdict = word_keeps_going(buf, t0, e, keys)
                    if verdict == 2:
                        return w - lo, True
                    brk = verdict == 0
                else:
                    brk = True
        for k in range(t0, t1):
            out[w] = buf[k]
            w += 1
        if brk:
            out[w] = 0x0A
            w += 1
            i = j
    return w - lo, False


@jit
def _cjk_end(buf, k, end):
    if k + 3 > end:
        return False
    a, b, c = buf[k], buf[k + 1], buf[k + 2]
    return (a == 0xE3 and b == 0x80 and c == 0x82) or (a == 0xEF and b == 0xBC and (c == 0x81 or c == 0x9F))


@jit
def _cjk_closer(buf, k, end):
    if k + 3 > end:
        return False
    a, b, c = buf[k], buf[k + 1], buf[k + 2]
    return ((a == 0xE2 and b == 0x80 and (c == 0x9D or c == 0x99))  # ” ’
            or (a == 0xE3 and b == 0x80 and (c == 0x8D or c == 0x8F))  # 」 』
            or (a == 0xEF and b == 0xBC and c == 0x89))  # ）


@jit
def _cjk_pass(src, lo, end, out, start):
    """Pass 2 of one text, ``src[lo:end]`` into ``out[start:]``; returns the length written."""
    w = start
    k = lo
    while k < end:
        if not _cjk_end(src, k, end):
            out[w] = src[k]
            w += 1
            k += 1
            continue
        for t in range(3):
            out[w + t] = src[k + t]
        w += 3
        k += 3
        m = k
        while _cjk_closer(src, m, end):
            m += 3
        if m < end and src[m] != 0x0A:
            cut = m
        elif m > k:
            cut = m - 3  # the regex gives back one closer: the next character is then that closer
        else:
            continue
        for t in range(k, cut):
            out[w] = src[t]
            w += 1
        out[w] = 0x0A
        w += 1
        k = cut
    return w - start


#: texts per claimed chunk of :func:`split_punct`
_CHUNK = 64


@jit
def _split_chunk(buf, offsets, keys, tmp, wide, caps, lengths, flagged, lo, hi):
    """Split texts ``lo..hi-1`` of :func:`split_punct` (pass 1 into ``tmp``, pass 2 into ``wide``)."""
    n = len(offsets) - 1
    for r in range(lo, hi):
        a = offsets[r]
        b = offsets[r + 1] - 1 if r + 1 < n else offsets[r + 1]  # without the NUL
        length, flag = _latin_pass(buf, a, b, tmp, keys)
        if flag:
            flagged[r] = True
            continue
        lengths[r] = _cjk_pass(tmp, a, a + length, wide, caps[r])


@jit(parallel=True)
def split_punct(buf, offsets, keys, workers, taken):
    """Split every text of ``buf`` (texts at ``offsets``, NULs between them).

    Returns ``(joined, flagged)``: the split texts as one UTF-8 buffer with NUL
    between texts, and a flag per text that the plain splitter must redo.
    ``workers`` threads claim chunks of :data:`_CHUNK` texts as they become free
    (:func:`vecscore.kernels.swar.claim` on ``taken``, :func:`vecscore.kernels.swar.work_counter`),
    so a thread slowed down by another process takes fewer.
    """
    n = len(offsets) - 1
    tmp = np.empty(len(buf), np.uint8)
    caps = np.empty(n + 1, np.int64)
    caps[0] = 0
    for r in range(n):
        size = offsets[r + 1] - offsets[r]
        caps[r + 1] = caps[r] + size + size // 3 + 1
    wide = np.empty(caps[n], np.uint8)
    lengths = np.zeros(n, np.int64)
    flagged = np.zeros(n, np.bool_)
    n_chunks = (n + _CHUNK - 1) // _CHUNK
    for w in prange(workers):
        while True:
            ch = claim(taken, w, workers)
            if ch >= n_chunks:
                break
            _split_chunk(buf, offsets, keys, tmp, wide, caps, lengths, flagged, ch * _CHUNK,
                         min(n, (ch + 1) * _CHUNK))
    starts = np.empty(n + 1, np.int64)
    starts[0] = 0
    for r in range(n):
        starts[r + 1] = starts[r] + lengths[r] + (1 if r + 1 < n else 0)
    joined = np.empty(starts[n], np.uint8)
    for r in prange(n):
        s = starts[r]
        c = caps[r]
        for t in range(lengths[r]):
            joined[s + t] = wide[c + t]
        if r + 1 < n:
            joined[s + lengths[r]] = 0
    return joined, flagged
