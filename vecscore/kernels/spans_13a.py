"""sacreBLEU's ``13a`` tokenizer on ASCII bytes, as token spans, in one pass.

``Tokenizer13a`` does three things:

1. a ``str.replace`` chain (``<skipped>``, ``-\\n``, ``\\n``, four HTML
   entities).  It can only fire on a text holding ``<``, ``\\n`` or ``&``
   (:func:`needs_rewrite`); :func:`rewrite` applies it literally, into a copy;
2. ``f" {line} "`` and four substitutions, which only ever insert spaces:

   - R1 ``([\\{-\\~\\[-\\` -\\&\\(-\\+\\:-\\@\\/])`` -> ``" \\1 "``
   - R2 ``([^0-9])([\\.,])`` -> ``"\\1 \\2 "``
   - R3 ``([\\.,])([^0-9])`` -> ``" \\1 \\2"``
   - R4 ``([0-9])(-)`` -> ``"\\1 \\2 "``
3. a split on whitespace.

Because step 2 only inserts spaces, every token is a substring of the
(rewritten) text, so :func:`spans_13a` returns spans and copies nothing.

After R1 every one of its characters stands alone, and what remains are
*words*: maximal runs of characters that are neither whitespace nor R1's,
each with a space (or other whitespace) on both sides.  R2-R4 act on every
word independently: a whitespace character is a non-digit for R2 and R3
whether or not an earlier match consumed it, it is never the first character
of an R3 or R4 match, and never the second of an R2 or R4 match.  Inside a
word, R2 and R3 only insert spaces next to ``.`` or ``,`` and R4 next to a
``-``, so a word without those characters is one token; any other word runs
R2, R3 and R4 literally, with its bordering spaces (:func:`_split_word`).
The literal emulation of the whole pipeline on code points
(:mod:`vecscore.kernels.bleu_tokenize`) and sacreBLEU itself are the tests'
references.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit

__all__ = ["spans_13a", "spans_whitespace", "needs_rewrite", "rewrite", "WORD_GROWTH"]

# byte classes: whitespace (str.isspace), R1's characters, word characters, and the word
# characters that R2-R4 can split at
_WS = 0
_R1 = 1
_WORD = 2
_SPLIT = 3


def _classes() -> np.ndarray:
    cls = np.full(256, _WORD, np.uint8)
    for b in range(256):
        if chr(b).isspace() and b < 128:
            cls[b] = _WS
        elif 32 <= b <= 38 or 40 <= b <= 43 or b == 47 or 58 <= b <= 64 or 91 <= b <= 96 or 123 <= b <= 126:
            cls[b] = _R1
    for b in b".,-":
        cls[b] = _SPLIT
    return cls


_CLASS = _classes()
#: scratch per word byte needed by :func:`_split_word` (each of R2-R4 at most doubles the items)
WORD_GROWTH = 8

_SKIPPED = np.frombuffer(b"<skipped>", np.uint8)
_DASH_NL = np.frombuffer(b"-\n", np.uint8)
_NL = np.frombuffer(b"\n", np.uint8)
_QUOT = np.frombuffer(b"&quot;", np.uint8)
_AMP = np.frombuffer(b"&amp;", np.uint8)
_LT = np.frombuffer(b"&lt;", np.uint8)
_GT = np.frombuffer(b"&gt;", np.uint8)
_EMPTY = np.zeros(0, np.uint8)
_SPACE1 = np.frombuffer(b" ", np.uint8)
_QUOTE1 = np.frombuffer(b'"', np.uint8)
_AMP1 = np.frombuffer(b"&", np.uint8)
_LT1 = np.frombuffer(b"<", np.uint8)
_GT1 = np.frombuffer(b">", np.uint8)


@jit
def needs_rewrite(text):
    """Whether step 1 can change ``text``: it holds ``<``, ``\\n`` or ``&`` (one branch-free pass)."""
    hit = 0
    for i in range(len(text)):
        c = text[i]
        hit |= (c == 60) | (c == 10) | (c == 38)
    return hit != 0


@jit
def _replace(src, n, dst, pat, rep):
    """``str.replace(pat, rep)`` on ``src[:n]`` into ``dst``; returns the new length."""
    m = 0
    k = len(pat)
    i = 0
    while i < n:
        hit = i + k <= n
        if hit:
            for j in range(k):
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
def rewrite(text, a, b):
    """Step 1 on ``text`` (uint8); the result is ``a[:n]``, returns ``n`` (``a``, ``b``: scratch of ``len(text)``)."""
    n = _replace(text, len(text), a, _SKIPPED, _EMPTY)
    n = _replace(a, n, b, _DASH_NL, _EMPTY)
    n = _replace(b, n, a, _NL, _SPACE1)
    amp = False
    for i in range(n):
        amp = amp or a[i] == 38
    if amp:  # sacreBLEU unescapes only when the line holds '&'
        n = _replace(a, n, b, _QUOT, _QUOTE1)
        n = _replace(b, n, a, _AMP, _AMP1)
        n = _replace(a, n, b, _LT, _LT1)
        n = _replace(b, n, a, _GT, _GT1)
    return n


# Items of _split_word: an index into the text, or -1 for an inserted space.
@jit
def _is_digit(src, x):
    return x >= 0 and 48 <= src[x] <= 57


@jit
def _is_dot(src, x):
    return x >= 0 and (src[x] == 46 or src[x] == 44)


@jit
def _r2(src, a, m, b):
    """R2 ``([^0-9])([\\.,])`` -> ``"\\1 \\2 "`` on items ``a[:m]`` into ``b``."""
    out = 0
    i = 0
    while i < m:
        if i + 1 < m and not _is_digit(src, a[i]) and _is_dot(src, a[i + 1]):
            b[out] = a[i]
            b[out + 1] = -1
            b[out + 2] = a[i + 1]
            b[out + 3] = -1
            out += 4
            i += 2
        else:
            b[out] = a[i]
            out += 1
            i += 1
    return out


@jit
def _r3(src, a, m, b):
    """R3 ``([\\.,])([^0-9])`` -> ``" \\1 \\2"``."""
    out = 0
    i = 0
    while i < m:
        if i + 1 < m and _is_dot(src, a[i]) and not _is_digit(src, a[i + 1]):
            b[out] = -1
            b[out + 1] = a[i]
            b[out + 2] = -1
            b[out + 3] = a[i + 1]
            out += 4
            i += 2
        else:
            b[out] = a[i]
            out += 1
            i += 1
    return out


@jit
def _r4(src, a, m, b):
    """R4 ``([0-9])(-)`` -> ``"\\1 \\2 "``."""
    out = 0
    i = 0
    while i < m:
        if i + 1 < m and _is_digit(src, a[i]) and a[i + 1] >= 0 and src[a[i + 1]] == 45:
            b[out] = a[i]
            b[out + 1] = -1
            b[out + 2] = a[i + 1]
            b[out + 3] = -1
            out += 4
            i += 2
        else:
            b[out] = a[i]
            out += 1
            i += 1
    return out


@jit
def _split_word(src, s, e, starts, ends, k, a, b):
    """R2, R3 and R4 on the word ``src[s:e]`` with a space on each side; its tokens go to slots ``k..``."""
    m = 0
    a[0] = -1
    for i in range(s, e):
        m += 1
        a[m] = i
    a[m + 1] = -1
    m = _r2(src, a, m + 2, b)
    m = _r3(src, b, m, a)
    m = _r4(src, a, m, b)
    inside = False
    for j in range(m):
        x = b[j]
        if x < 0:
            if inside:
                k += 1
                inside = False
        else:
            if not inside:
                starts[k] = x
                inside = True
            ends[k] = x + 1
    if inside:
        k += 1
    return k


@jit
def spans_13a(src, n, starts, ends, k, a, b):
    """Steps 2 and 3 on ``src[:n]`` (ASCII, already through :func:`rewrite` where needed).

    Token spans go to ``starts``/``ends`` from slot ``k``; returns the next
    free slot.  ``a``, ``b``: int64 scratch of at least
    ``WORD_GROWTH * (longest word + 2)`` items.
    """
    i = 0
    while i < n:
        c = _CLASS[src[i]]
        if c == _WS:
            i += 1
            continue
        if c == _R1:
            starts[k] = i
            ends[k] = i + 1
            k += 1
            i += 1
            continue
        s = i
        split = 0
        while i < n:
            c = _CLASS[src[i]]
            if c < _WORD:
                break
            split |= c
            i += 1
        if split != _SPLIT:
            starts[k] = s
            ends[k] = i
            k += 1
        else:
            k = _split_word(src, s, i, starts, ends, k, a, b)
    return k


@jit
def spans_whitespace(src, n, single, starts, ends, k):
    """``str.split()`` on ASCII ``src[:n]`` (every non-space character a token if ``single``)."""
    i = 0
    while i < n:
        if _CLASS[src[i]] == _WS:
            i += 1
            continue
        s = i
        i += 1
        if not single:
            while i < n and _CLASS[src[i]] != _WS:
                i += 1
        starts[k] = s
        ends[k] = i
        k += 1
    return k
