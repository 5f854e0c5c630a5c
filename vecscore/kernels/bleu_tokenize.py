"""Numba kernels that reproduce sacreBLEU's tokenizers on code points.

sacreBLEU tokenizes by a chain of ``str.replace`` calls and regular-expression
substitutions whose patterns match one or two characters.  Each step is
emulated literally, as a left-to-right scan that either rewrites the match at
position ``i`` (and skips it) or copies one character, exactly as
``str.replace`` and ``re.sub`` proceed with non-overlapping matches.  The
result is then split on ``str.isspace()`` whitespace and written out as UTF-8.

Input: ``cps`` (uint32 code points of all texts), ``offsets`` (int64, ``n + 1``
code point offsets) and a per-code-point flag ``table`` (see
:mod:`vecscore.text.unicode_tables`).  Texts are independent and processed in
parallel chunks; a chunk writes its texts' tokens consecutively, starting at
the token slot ``offsets[lo]`` and byte ``byte_offsets[lo]`` of its first text
``lo`` (a text never has more tokens than code points, nor more UTF-8 bytes in
its tokens than in itself, because every step only deletes characters,
shortens entities or inserts spaces, so chunks never overlap).
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange
from vecscore.kernels.tokenize import token_slots
from vecscore.memory import CHUNK_FAILED

# Flag bits, kept equal to vecscore.text.unicode_tables.
FLAG_P = 1
FLAG_S = 2
FLAG_N = 4
FLAG_WS = 8
FLAG_ZH = 16
FLAG_ZH_FIXED = 32

MODE_13A = 0
MODE_INTL = 1
MODE_ZH = 2
MODE_ZH_FIXED = 3
MODE_CHAR = 4
MODE_NONE = 5

SPACE = 32
# Growth bound of any pipeline: a text of n code points never exceeds
# GROWTH * (n + 2) code points in between steps.
GROWTH = 8

# 13a's str.replace chain, as (pattern, replacement) code point arrays.
_SKIPPED = np.array([ord(c) for c in "<skipped>"], np.uint32)
_DASH_NL = np.array([ord("-"), ord("\n")], np.uint32)
_NL = np.array([ord("\n")], np.uint32)
_QUOT = np.array([ord(c) for c in "&quot;"], np.uint32)
_AMP = np.array([ord(c) for c in "&amp;"], np.uint32)
_LT = np.array([ord(c) for c in "&lt;"], np.uint32)
_GT = np.array([ord(c) for c in "&gt;"], np.uint32)
_EMPTY = np.zeros(0, np.uint32)
_SPACE1 = np.array([SPACE], np.uint32)
_QUOTE1 = np.array([ord('"')], np.uint32)
_AMP1 = np.array([ord("&")], np.uint32)
_LT1 = np.array([ord("<")], np.uint32)
_GT1 = np.array([ord(">")], np.uint32)


@jit
def _is_digit(c):
    return 48 <= c <= 57


@jit
def _is_13a_punct(c):
    # mteval-v13a's class [\{-\~\[-\` -\&\(-\+\:-\@\/]
    return (
        (32 <= c <= 38) or (40 <= c <= 43) or c == 47 or (58 <= c <= 64) or (91 <= c <= 96) or (123 <= c <= 126)
    )


@jit
def _replace(src, n, dst, pat, rep):
    """``str.replace(pat, rep)`` on ``src[:n]`` into ``dst``; returns the new length."""
    return replace_from(src, n, dst, 0, pat, rep)


@jit
def replace_from(src, n, dst, i, pat, rep):
    """``str.replace(pat, rep)`` on ``src[:n]`` into ``dst``, where ``pat`` does not occur before
    ``i`` and ``dst[:i]`` already holds ``src[:i]``; returns the new length.  ``dst`` may be
    ``src`` itself when ``rep`` is no longer than ``pat`` (every write lands on bytes already read).
    """
    k = len(pat)
    m = i
    while i < n:
        hit = src[i] == pat[0] and i + k <= n
        if hit:
            for j in range(1, k):
                if src[i + j] != pat[j]:
                    hit = False
                    break
        if hit:
            for j in range(len(rep)):
                dst[m] = rep[j]
                m += 1
            i += k
        else:
            dst[m] = src[i]
            m += 1
            i += 1
    return m


@jit
def _split_13a_punct(src, n, dst):
    """``([\\{-\\~\\[-\\` -\\&\\(-\\+\\:-\\@\\/])`` -> ``' \\1 '``."""
    m = 0
    for i in range(n):
        c = src[i]
        if _is_13a_punct(c):
            dst[m] = SPACE
            dst[m + 1] = c
            dst[m + 2] = SPACE
            m += 3
        else:
            dst[m] = c
            m += 1
    return m


#: 13a's rules on two characters ``c d``, each written with spaces: ``c ␣ d ␣``, or ``␣ c ␣ d`` for the second
_DOT_AFTER_NONDIGIT = 0  # ``([^0-9])([\.,])`` -> ``'\1 \2 '``
_DOT_BEFORE_NONDIGIT = 1  # ``([\.,])([^0-9])`` -> ``' \1 \2'``
_DASH_AFTER_DIGIT = 2  # ``([0-9])(-)`` -> ``'\1 \2 '``


@jit(inline=True)
def _pair_matches(c, d, rule):
    if rule == _DOT_AFTER_NONDIGIT:
        return not _is_digit(c) and (d == 46 or d == 44)
    if rule == _DOT_BEFORE_NONDIGIT:
        return (c == 46 or c == 44) and not _is_digit(d)
    return _is_digit(c) and d == 45


@jit
def _split_pairs(src, n, dst, rule):
    """One of 13a's two-character rules (``rule``) from ``src[:n]`` into ``dst``; returns the new length."""
    m = 0
    i = 0
    while i < n:
        c = src[i]
        if i + 1 < n and _pair_matches(c, src[i + 1], rule):
            first = rule == _DOT_BEFORE_NONDIGIT  # the space goes first
            dst[m] = SPACE if first else c
            dst[m + 1] = c if first else SPACE
            dst[m + 2] = SPACE if first else src[i + 1]
            dst[m + 3] = src[i + 1] if first else SPACE
            m += 4
            i += 2
        else:
            dst[m] = c
            m += 1
            i += 1
    return m


# Characters whose presence lets an optional 13a step fire (bit flags of _scan_13a).
_HAS_LT = 1  # '<': '<skipped>' removal
_HAS_NL = 2  # '\n': '-\n' and '\n' replacement
_HAS_AMP = 4  # '&': entity unescaping
_HAS_DOT = 8  # '.' or ',': the period/comma rules
_HAS_DASH = 16  # '-': the dash-after-digit rule


@jit
def _scan_13a(src, lo, hi):
    """One pass over ``src[lo:hi]``: which optional 13a steps can fire.

    The replacement steps only delete characters or turn ``&...;`` entities
    into ``"&<>``, so flags read from the input stay valid (conservative) for
    the later steps."""
    f = 0
    for i in range(lo, hi):
        c = src[i]
        if c == 60:
            f |= _HAS_LT
        elif c == 10:
            f |= _HAS_NL
        elif c == 38:
            f |= _HAS_AMP
        elif c == 46 or c == 44:
            f |= _HAS_DOT
        elif c == 45:
            f |= _HAS_DASH
    return f


@jit
def _re_13a(a, n, b, flags):
    """sacreBLEU's ``TokenizerRegexp`` substitutions on ``a[:n]``.

    ``b`` is scratch; returns ``(length, in_b)`` where ``in_b`` says which
    buffer holds the result.  Steps that cannot match (by ``flags``, see
    :func:`_scan_13a`) are skipped."""
    n = _split_13a_punct(a, n, b)
    in_b = True
    if flags & _HAS_DOT:
        n = _split_pairs(b, n, a, _DOT_AFTER_NONDIGIT)
        n = _split_pairs(a, n, b, _DOT_BEFORE_NONDIGIT)
    if flags & _HAS_DASH:
        n = _split_pairs(b, n, a, _DASH_AFTER_DIGIT)
        in_b = False
    return n, in_b


@jit
def _pipeline_13a(cps, lo, hi, a, b):
    """Tokenizer13a up to the final split; returns ``(length, in_b)``."""
    n = hi - lo
    flags = _scan_13a(cps, lo, hi)
    for i in range(n):
        a[i + 1] = cps[lo + i]
    # str.replace chain; a replacement can only fire if its first character occurs
    if flags & _HAS_LT:
        n = _replace(a[1:], n, b, _SKIPPED, _EMPTY)
        a[1 : n + 1] = b[:n]
    if flags & _HAS_NL:
        n = _replace(a[1:], n, b, _DASH_NL, _EMPTY)
        n = _replace(b, n, a[1:], _NL, _SPACE1)
    if flags & _HAS_AMP:
        n = _replace(a[1:], n, b, _QUOT, _QUOTE1)
        n = _replace(b, n, a[1:], _AMP, _AMP1)
        n = _replace(a[1:], n, b, _LT, _LT1)
        n = _replace(b, n, a[1:], _GT, _GT1)
    # f' {line} '
    a[0] = SPACE
    a[n + 1] = SPACE
    return _re_13a(a, n + 2, b, flags)


@jit
def _pipeline_intl(cps, lo, hi, a, b, table):
    """TokenizerV14International up to the final split; result in ``a``."""
    n = hi - lo
    # (\P{N})(\p{P}) -> '\1 \2 '
    m = 0
    i = 0
    while i < n:
        c = cps[lo + i]
        if i + 1 < n and (table[c] & FLAG_N) == 0 and (table[cps[lo + i + 1]] & FLAG_P) != 0:
            b[m] = c
            b[m + 1] = SPACE
            b[m + 2] = cps[lo + i + 1]
            b[m + 3] = SPACE
            m += 4
            i += 2
        else:
            b[m] = c
            m += 1
            i += 1
    # (\p{P})(\P{N}) -> ' \1 \2'
    n = m
    m = 0
    i = 0
    while i < n:
        c = b[i]
        if i + 1 < n and (table[c] & FLAG_P) != 0 and (table[b[i + 1]] & FLAG_N) == 0:
            a[m] = SPACE
            a[m + 1] = c
            a[m + 2] = SPACE
            a[m + 3] = b[i + 1]
            m += 4
            i += 2
        else:
            a[m] = c
            m += 1
            i += 1
    # (\p{S}) -> ' \1 '
    n = m
    m = 0
    for i in range(n):
        c = a[i]
        if (table[c] & FLAG_S) != 0:
            b[m] = SPACE
            b[m + 1] = c
            b[m + 2] = SPACE
            m += 3
        else:
            b[m] = c
            m += 1
    for i in range(m):
        a[i] = b[i]
    return m


@jit
def _pipeline_zh(cps, lo, hi, a, b, table, zh_flag):
    """TokenizerZh up to the final split; returns ``(length, in_b)``."""
    while lo < hi and (table[cps[lo]] & FLAG_WS) != 0:  # line.strip()
        lo += 1
    while hi > lo and (table[cps[hi - 1]] & FLAG_WS) != 0:
        hi -= 1
    m = 0
    for i in range(lo, hi):
        c = cps[i]
        if (table[c] & zh_flag) != 0:
            a[m] = SPACE
            a[m + 1] = c
            a[m + 2] = SPACE
            m += 3
        else:
            a[m] = c
            m += 1
    return _re_13a(a, m, b, _scan_13a(a, 0, m))


@jit
def _utf8_len(c):
    if c < 0x80:
        return 1
    if c < 0x800:
        return 2
    if c < 0x10000:
        return 3
    return 4


@jit
def put_utf8(out, p, c):
    """Write code point ``c`` as UTF-8 at ``out[p:]``; returns the next ``p``."""
    if c < 0x80:
        out[p] = c
        return p + 1
    if c < 0x800:
        out[p] = 0xC0 | (c >> 6)
        out[p + 1] = 0x80 | (c & 0x3F)
        return p + 2
    if c < 0x10000:
        out[p] = 0xE0 | (c >> 12)
        out[p + 1] = 0x80 | ((c >> 6) & 0x3F)
        out[p + 2] = 0x80 | (c & 0x3F)
        return p + 3
    out[p] = 0xF0 | (c >> 18)
    out[p + 1] = 0x80 | ((c >> 12) & 0x3F)
    out[p + 2] = 0x80 | ((c >> 6) & 0x3F)
    out[p + 3] = 0x80 | (c & 0x3F)
    return p + 4


@jit
def _emit(src, n, table, single, out, p, starts, ends, t):
    """Split ``src[:n]`` on whitespace (each character a token if ``single``),
    write the tokens' UTF-8 bytes at ``out[p:]`` and their spans at ``t``.
    Returns the number of tokens written and the next free byte."""
    t0 = t
    inside = False
    for i in range(n):
        c = src[i]
        if (table[c] & FLAG_WS) != 0:
            if inside:
                ends[t] = p
                t += 1
                inside = False
            continue
        if inside and single:
            ends[t] = p
            t += 1
            inside = False
        if not inside:
            starts[t] = p
            inside = True
        p = put_utf8(out, p, c)
    if inside:
        ends[t] = p
        t += 1
    return t - t0, p


@jit
def _tokenize_text(cps, lo, hi, table, mode, a, b, out, p, starts, ends, t):
    if mode == MODE_13A:
        n, in_b = _pipeline_13a(cps, lo, hi, a, b)
        return _emit(b if in_b else a, n, table, False, out, p, starts, ends, t)
    if mode == MODE_INTL:
        n = _pipeline_intl(cps, lo, hi, a, b, table)
        return _emit(a, n, table, False, out, p, starts, ends, t)
    if mode == MODE_ZH or mode == MODE_ZH_FIXED:
        flag = FLAG_ZH if mode == MODE_ZH else FLAG_ZH_FIXED
        n, in_b = _pipeline_zh(cps, lo, hi, a, b, table, flag)
        return _emit(b if in_b else a, n, table, False, out, p, starts, ends, t)
    return _emit(cps[lo:hi], hi - lo, table, mode == MODE_CHAR, out, p, starts, ends, t)


@jit(parallel=True)
def tokenize_codepoints(cps, offsets, byte_offsets, table, mode, chunk_bounds):
    """Tokenize every text; see the module docstring.

    Parameters
    ----------
    cps : uint32[:]
    offsets : int64[n + 1]
        Code point offsets of the texts.
    byte_offsets : int64[n + 1]
        UTF-8 byte offsets of the texts (where each text's bytes may go).
    table : uint8[0x110000]
    mode : int
        One of the ``MODE_*`` constants.
    chunk_bounds : int64[k + 1]
        Text indices that split the batch into ``k`` parallel chunks.

    Returns
    -------
    out : uint8[byte_offsets[-1]]
        Token bytes; text ``i``'s tokens lie inside its byte slot.
    starts, ends : int64[offsets[-1]]
        Token spans; text ``i``'s tokens occupy slots from ``offsets[i]``.
    counts : int64[n]
        Number of tokens of every text.
    first : int64[n + 1]
        Slot of the first token of every text (the last entry is unused).
    """
    n_texts = len(offsets) - 1
    out = np.zeros(byte_offsets[n_texts], np.uint8)
    starts = np.empty(offsets[n_texts], np.int64)
    ends = np.empty(offsets[n_texts], np.int64)
    counts = np.zeros(n_texts, np.int64)
    first = np.zeros(n_texts + 1, np.int64)
    failed = np.zeros(len(chunk_bounds) - 1, np.bool_)
    for k in prange(len(chunk_bounds) - 1):
        failed[k] = not _tokenize_chunk(cps, offsets, byte_offsets, table, mode, chunk_bounds, k, out, starts, ends,
                                        counts, first)
    if failed.any():
        raise MemoryError(CHUNK_FAILED)
    return out, starts, ends, counts, first


@jit
def _tokenize_chunk(cps, offsets, byte_offsets, table, mode, chunk_bounds, k, out, starts, ends, counts, first):
    """The texts of chunk ``k`` of :func:`tokenize_codepoints`; False if its scratch could not be allocated
    (an exception inside a parallel loop would be lost)."""
    try:
        _tokenize_chunk_body(cps, offsets, byte_offsets, table, mode, chunk_bounds, k, out, starts, ends, counts, first)
    except Exception:
        return False
    return True


@jit
def _tokenize_chunk_body(cps, offsets, byte_offsets, table, mode, chunk_bounds, k, out, starts, ends, counts, first):
    """The work of :func:`_tokenize_chunk` (no ``try`` here: numba compiles a try block holding
    loops badly, so the caller wraps the call)."""
    lo_t = chunk_bounds[k]
    hi_t = chunk_bounds[k + 1]
    longest = 0
    for i in range(lo_t, hi_t):
        longest = max(longest, offsets[i + 1] - offsets[i])
    size = GROWTH * (longest + 2) + 16
    a = np.empty(size, np.uint32)
    b = np.empty(size, np.uint32)
    # the chunk's tokens go consecutively from its first text's slots
    t = offsets[lo_t]
    p = byte_offsets[lo_t]
    for i in range(lo_t, hi_t):
        first[i] = t
        counts[i], p = _tokenize_text(cps, offsets[i], offsets[i + 1], table, mode, a, b, out, p, starts, ends, t)
        t += counts[i]


@jit
def utf8_offsets(cps, offsets):
    """UTF-8 byte offsets of texts given as code points."""
    n_texts = len(offsets) - 1
    res = np.zeros(n_texts + 1, np.int64)
    for i in range(n_texts):
        s = 0
        for j in range(offsets[i], offsets[i + 1]):
            s += _utf8_len(cps[j])
        res[i + 1] = res[i] + s
    return res


@jit(parallel=True)
def gather_token_rows(starts, ends, counts, slots):
    """Gather each text's tokens (written from slot ``slots[i]``) into consecutive rows.

    Returns ``(starts, ends, tok_offsets)``.
    """
    n = len(counts)
    out_s, out_e, tok_offsets = token_slots(counts)
    for i in prange(n):
        src = slots[i]
        dst = tok_offsets[i]
        for j in range(counts[i]):
            out_s[dst + j] = starts[src + j]
            out_e[dst + j] = ends[src + j]
    return out_s, out_e, tok_offsets
