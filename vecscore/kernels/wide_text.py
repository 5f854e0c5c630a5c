"""Non-ASCII ``str`` rows, read in place, as the bytes the per-pair kernels tokenize.

CPython keeps a non-ASCII ``str`` as its code points, 1, 2 or 4 bytes each
(:mod:`vecscore.kernels.in_place` finds them: ``TextRows.width``).  The
per-pair kernels read bytes; :func:`transcode_rows` turns the code points of
many rows into those bytes in one parallel kernel, with no Python per row,
in one of two ways:

``ROUGE_SCORE``
    what rouge-score's tokenizer sees: it lowercases with ``str.lower()`` and
    keeps runs of ``[a-z0-9]``, every other character a separator.  Only two
    non-ASCII characters lower to something holding ``[a-z0-9]``:
    ``U+0130`` (``İ`` lowers to ``i`` and a combining dot, so it becomes
    ``"i "``) and ``U+212A`` (KELVIN SIGN lowers to ``k``); every other
    non-ASCII code point becomes one space.  ASCII stays as it is (the
    kernels fold ``A-Z`` themselves).  A Latin-1 row (width 1) needs no
    copy: no character from ``U+0080`` to ``U+00FF`` lowers to ASCII, and the
    byte tokenizer takes its bytes ``>= 0x80`` as separators already.
``UTF8``
    UTF-8, with every non-ASCII whitespace character (``str.isspace()``:
    ``U+0085``, ``U+00A0``, ``U+1680``, ``U+2000``-``U+200A``, ``U+2028``,
    ``U+2029``, ``U+202F``, ``U+205F``, ``U+3000``) written as one space.
    sacreBLEU's tokenizers split on ``str.split()``'s whitespace and its
    ``13a`` rules look only at ASCII characters (a non-ASCII character is
    an ordinary word character, a non-digit), so on these bytes the ASCII
    byte kernels give sacreBLEU's tokens: whitespace of any kind only ever
    separates, and ``13a``'s rules treat a space and any other whitespace
    alike (both are non-digits and neither is ``.``, ``,`` or ``-``).  Equal
    tokens are equal bytes (UTF-8 is one-to-one).

``ZH`` and ``ZH_FIXED``
    ``UTF8``, with every character of sacreBLEU's ``zh`` ranges (or
    ``zh-fixed``'s) written between two spaces, as its ``zh`` tokenizer
    spaces them before its ``13a`` punctuation rules: on these bytes the
    per-pair kernel runs those rules without 13a's first step.  Which
    characters those are is the ``table`` the caller passes
    (:func:`vecscore.text.unicode_tables.flag_table`, its ``FLAG_ZH`` or
    ``FLAG_ZH_FIXED`` bit); no Latin-1 character is one.

A lone surrogate (U+D800..U+DFFF) is not valid Unicode, and vecscore
refuses it (naming the row): :func:`transcode_rows` reports the rows that
hold one.

The tests compare both with Python's own ``str.lower()``/``str.encode`` on
every code point, and the scores with the oracles.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import SERIAL_MAX, jit, prange, serial_twin
from vecscore.kernels.bleu_tokenize import FLAG_ZH, FLAG_ZH_FIXED, put_utf8
from vecscore.kernels.in_place import TextRows, code_point
from vecscore.kernels.ngrams import GOLDEN, table_bits
from vecscore.kernels.swar import ctz, text_at, word_at

__all__ = ["ROUGE_SCORE", "UTF8", "ZH", "ZH_FIXED", "transcode_rows", "rouge_score_bytes", "sacrebleu_utf8",
           "sacrebleu_zh_bytes", "WIDE_SPACES"]

ROUGE_SCORE = 0
UTF8 = 1
ZH = 2
ZH_FIXED = 3
#: the flag table bit of each ``zh`` mode (:mod:`vecscore.text.unicode_tables`)
_ZH_FLAG = {ZH: FLAG_ZH, ZH_FIXED: FLAG_ZH_FIXED}

#: the non-ASCII code points for which ``str.isspace()`` holds
WIDE_SPACES = (0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000)
_SPACE_MAP = {c: " " for c in WIDE_SPACES}

#: bytes out per code point, at most, by mode and width (index 1, 2, 4)
_BOUND = {ROUGE_SCORE: np.array([0, 1, 2, 0, 2], np.int64), UTF8: np.array([0, 2, 3, 0, 4], np.int64),
          ZH: np.array([0, 2, 5, 0, 6], np.int64), ZH_FIXED: np.array([0, 2, 5, 0, 6], np.int64)}

_CHUNKS = 64
_ASCII1 = np.uint64(0x8080808080808080)  # 8 code points of width 1
_ASCII2 = np.uint64(0xFF80FF80FF80FF80)  # 4 code points of width 2


def rouge_score_bytes(text: str) -> bytes:
    """:func:`transcode_rows`'s ``ROUGE_SCORE`` bytes of ``text``, in Python (a twin for the tests and
    for rows that cannot be read in place)."""
    out = []
    for c in text:
        o = ord(c)
        out.append(c if o < 0x80 else "i " if o == 0x130 else "k" if o == 0x212A else " ")
    return "".join(out).encode("ascii")


def sacrebleu_utf8(text: str) -> bytes:
    """:func:`transcode_rows`'s ``UTF8`` bytes of ``text``, in Python (rows that cannot be read in place);
    ``UnicodeEncodeError`` for a lone surrogate."""
    return text.translate(_SPACE_MAP).encode("utf-8")


def sacrebleu_zh_bytes(table: np.ndarray, mode: int):
    """:func:`transcode_rows`'s ``ZH``/``ZH_FIXED`` bytes of a text, in Python: a function of the text
    (rows that cannot be read in place); ``UnicodeEncodeError`` for a lone surrogate."""
    flag = _ZH_FLAG[mode]

    def encode(text: str) -> bytes:
        return "".join(f" {c} " if table[ord(c)] & flag and not c.isspace() else c
                       for c in text).translate(_SPACE_MAP).encode("utf-8")

    return encode


@jit(inline=True)
def _wide_space(c):
    """``chr(c).isspace()`` for a code point ``c >= 0x80``."""
    if c < 0x1680:
        return c == 0x85 or c == 0xA0
    return (c == 0x1680 or (0x2000 <= c and c <= 0x200A) or c == 0x2028 or c == 0x2029 or c == 0x202F
            or c == 0x205F or c == 0x3000)


@jit(inline=True)
def _put(out, p, c, mode, table, flag):
    """Write the bytes of the non-ASCII code point ``c`` at ``out[p:]``; returns the next ``p``."""
    if mode == ROUGE_SCORE:
        if c == 0x130:
            out[p] = 105  # "i", then a separator
            out[p + 1] = 32
            return p + 2
        out[p] = 107 if c == 0x212A else 32
        return p + 1
    if _wide_space(c):
        out[p] = 32
        return p + 1
    if flag != 0 and (table[c] & flag) != 0:  # zh: the character between two spaces
        out[p] = 32
        p = put_utf8(out, p + 1, c)
        out[p] = 32
        return p + 1
    return put_utf8(out, p, c)


@jit
def transcode_one(addr, n, w, out, mode, table, flag):
    """The bytes of the ``n`` code points of width ``w`` at ``addr`` into ``out`` (room for
    ``_BOUND[mode][w]`` bytes per code point; ``table``/``flag``: the ``zh`` modes' characters, ``flag``
    0 in the other modes); returns ``(how many, whether a lone surrogate
    occurs)``.  Code points are tested 8 (width 1) or 4 (width 2) at a time: the ASCII ones before
    the first other are copied at once."""
    t = text_at(addr, n * w)
    p = 0
    i = 0
    lone = False
    if w == 1:
        # all 8 bytes are written (room: p + 8 <= 2 * i + 8 <= 2 * n, or i + 8 <= n in ROUGE_SCORE,
        # where p <= i), then p moves past the ASCII ones
        while i + 8 <= n:
            word = np.uint64(word_at(addr + i))
            high = word & _ASCII1
            for j in range(8):
                out[p + j] = np.uint8((word >> np.uint64(8 * j)) & np.uint64(0xFF))
            k = 8 if high == 0 else np.int64(ctz(high)) >> 3
            p += k
            i += k
            if k < 8:
                c = np.int64(t[i])
                if mode == ROUGE_SCORE or c == 0x85 or c == 0xA0:
                    out[p] = 32
                    p += 1
                else:
                    out[p] = 0xC0 | (c >> 6)
                    out[p + 1] = 0x80 | (c & 0x3F)
                    p += 2
                i += 1
    elif w == 2:
        while i + 4 <= n:
            word = np.uint64(word_at(addr + 2 * i))
            high = word & _ASCII2
            for j in range(4):
                out[p + j] = np.uint8((word >> np.uint64(16 * j)) & np.uint64(0xFF))
            k = 4 if high == 0 else np.int64(ctz(high)) >> 4
            p += k
            i += k
            if k < 4:
                c = code_point(t, i, 2)
                lone = lone or (0xD800 <= c and c <= 0xDFFF)
                p = _put(out, p, c, mode, table, flag)
                i += 1
    while i < n:
        c = code_point(t, i, w)
        if c < 0x80:
            out[p] = c
            p += 1
        else:
            lone = lone or (0xD800 <= c and c <= 0xDFFF)
            p = _put(out, p, c, mode, table, flag)
        i += 1
    return p, lone


@jit(parallel=True)
def _transcode(addrs, lens, width, starts, buf, out_lens, lone, mode, table, flag):
    """:func:`transcode_one` of row ``r`` (``addrs[r]``, ``lens[r]``, ``width[r]``) into
    ``buf[starts[r]:]``, its length into ``out_lens[r]`` and whether it holds a lone surrogate into
    ``lone[r]``, rows in parallel."""
    n = len(addrs)
    for c in prange(_CHUNKS):
        for r in range(n * c // _CHUNKS, n * (c + 1) // _CHUNKS):
            out_lens[r], lone[r] = transcode_one(addrs[r], lens[r], width[r], buf[starts[r]:], mode, table, flag)


_transcode_serial = serial_twin(_transcode)


def transcode_rows(rows: TextRows, which: np.ndarray, mode: int,
                   table: np.ndarray | None = None) -> tuple[TextRows, np.ndarray]:
    """A copy of ``rows`` in which the rows ``which`` (compact non-ASCII ``str``: width 1, 2 or 4)
    read their bytes in ``mode`` (``ROUGE_SCORE``, ``UTF8``, or ``ZH``/``ZH_FIXED`` with the flag
    ``table``), and the rows (increasing) that hold a lone surrogate (U+D800..U+DFFF: not valid
    Unicode; its bytes are those of ``surrogatepass``).  In ``ROUGE_SCORE`` a row of width 1 reads
    its own bytes in place."""
    flag = _ZH_FLAG.get(mode, 0)
    if flag and table is None:
        raise ValueError("the zh modes need the flag table")
    table = np.zeros(1, np.uint8) if table is None else table
    which = np.asarray(which, np.int64)
    width = rows.widths()[which]
    if mode == ROUGE_SCORE:
        latin1 = which[width == 1]
        rows = rows.pointed(latin1, rows.addrs[latin1], rows.lens[latin1], None)
        which = which[width != 1]
        width = width[width != 1]
    if not len(which):
        return rows, np.zeros(0, np.int64)
    # one str in several rows (references repeated per system, refs * n_systems) is transcoded once: its rows
    # have one address, and read the same bytes
    first = _first_same(rows.addrs[which])
    own = first == np.arange(len(which))
    if own.all():
        own_rows, of = which, slice(None)
    else:
        own_rows, of = which[own], (np.cumsum(own) - 1)[first]  # each row's place among the distinct ones
        width = width[own]
    lens = rows.lens[own_rows]
    bound = lens * _BOUND[mode][width]
    starts = np.zeros(len(own_rows), np.int64)
    np.cumsum(bound[:-1], out=starts[1:])
    buf = np.empty(int(bound.sum()) + 8, np.uint8)
    out_lens = np.empty(len(own_rows), np.int64)
    lone = np.zeros(len(own_rows), np.bool_)
    kernel = _transcode if int(bound.sum()) > 16 * SERIAL_MAX else _transcode_serial  # a few rows: one thread
    kernel(rows.addrs[own_rows], lens, width.astype(np.int64), starts, buf, out_lens, lone, mode, table, flag)
    return rows.pointed(which, buf.ctypes.data + starts[of], out_lens[of], buf), np.sort(which[lone[of]])


@jit
def _first_same(addrs):
    """Per row, the first row with the same address (the row itself if no earlier one has it): the rows of one
    ``str``, which stays alive and in one place while its rows are read.  An open-addressing table of row
    numbers, hashed by address, with at least twice as many slots as rows."""
    n = len(addrs)
    out = np.empty(n, np.int64)
    bits = table_bits(n)
    mask = (1 << bits) - 1
    table = np.full(1 << bits, -1, np.int64)
    shift = np.uint64(64 - bits)
    for i in range(n):
        a = addrs[i]
        slot = np.int64((np.uint64(a) * GOLDEN) >> shift)
        while True:
            j = table[slot]
            if j < 0:
                table[slot] = i
                out[i] = i
                break
            if addrs[j] == a:
                out[i] = j
                break
            slot = (slot + 1) & mask
    return out

