"""sacreBLEU's ``13a`` tokenizer on bytes, as token spans, in one pass.

On ASCII bytes, or UTF-8 whose non-ASCII whitespace has been written as
spaces (:mod:`vecscore.kernels.wide_text`): every rule below looks at ASCII
characters only, and a byte ``>= 0x80`` is a word character (a non-digit).

``Tokenizer13a`` does three things:

1. a ``str.replace`` chain (``<skipped>``, ``-\\n``, ``\\n``, four HTML
   entities).  It can only fire on a text holding ``<``, ``\\n`` or ``&``
   (:func:`spans_13a` tells); :func:`rewrite` applies it literally, into a copy;
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
from vecscore.kernels.bleu_tokenize import replace_from
from vecscore.kernels.swar import block_64, ctz, emit_bits, low_bits, range_bits

__all__ = ["spans_13a", "spans_whitespace", "rewrite", "WORD_GROWTH", "word_scratch"]

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
def _first(src, n, c, pad):
    """Index of the first byte ``c`` in ``src[:n]``, or ``n``."""
    addr = src.ctypes.data
    base = 0
    while base < n:
        hits = range_bits(block_64(src, addr, base, pad), c, c) & low_bits(n - base)
        if hits != 0:
            return base + ctz(hits)
        base += 64
    return n


@jit
def rewrite(text, a, pad):
    """Step 1 on ``text`` (uint8); the result is ``a[:n]``, returns ``n`` (``a``: scratch of
    ``len(text)``, ``pad``: 64 bytes).

    Every replacement of the chain shortens or keeps the text, so each runs in
    place, from the first occurrence of its pattern's first byte on.
    """
    n = len(text)
    if _first(text, n, 60, pad) == n and _first(text, n, 10, pad) == n:
        return _unescape(text, a, pad)
    for i in range(n):
        a[i] = text[i]
    lt = _first(a, n, 60, pad)
    if lt < n:
        n = replace_from(a, n, a, lt, _SKIPPED, _EMPTY)
    nl = _first(a, n, 10, pad)
    if nl > 0 and nl < n:
        nl -= 1  # '-\n' starts one byte earlier
    if nl < n:
        n = replace_from(a, n, a, nl, _DASH_NL, _EMPTY)
        n = replace_from(a, n, a, nl, _NL, _SPACE1)
    amp = _first(a, n, 38, pad)
    if amp < n:  # sacreBLEU unescapes only when the line holds '&'
        n = replace_from(a, n, a, amp, _QUOT, _QUOTE1)
        n = replace_from(a, n, a, amp, _AMP, _AMP1)
        n = replace_from(a, n, a, amp, _LT, _LT1)
        n = replace_from(a, n, a, amp, _GT, _GT1)
    return n


@jit(inline=True)
def _starts_with(text, j, pat):
    """Whether ``text[j:]`` starts with ``pat``."""
    if j + len(pat) > len(text):
        return False
    for q in range(len(pat)):
        if text[j + q] != pat[q]:
            return False
    return True


_AMP_TAIL = np.frombuffer(b"amp;", np.uint8)
_QUOT_TAIL = np.frombuffer(b"quot;", np.uint8)
_LT_TAIL = np.frombuffer(b"lt;", np.uint8)
_GT_TAIL = np.frombuffer(b"gt;", np.uint8)


@jit
def _unescape(text, a, pad):
    """Step 1 on a text without ``<`` and ``\n``: only the entity chain can act (``&quot;``,
    then ``&amp;``, then ``&lt;``, then ``&gt;``, each a ``str.replace`` of the previous
    result); the result goes to ``a``, returns its length.

    The four passes in one, from each ``&`` that no earlier replacement
    consumed: ``&quot;`` gives ``"``; ``&amp;`` gives ``&``, which the later
    passes see followed by the original text, so ``&amp;lt;`` and
    ``&amp;gt;`` give ``<`` and ``>``; ``&lt;`` and ``&gt;`` give ``<``
    and ``>``.  No replacement produces text that an earlier pass would
    match (``&amp;quot;`` stays ``&quot;``), and none of the results
    (``"``, ``<``, ``>``, a lone ``&``) can start a later pass's match
    except the ``&`` of ``&amp;``.
    """
    n = len(text)
    m = 0
    i = 0
    while i < n:
        j = i + _first(text[i:], n - i, 38, pad)
        for q in range(i, j):
            a[m] = text[q]
            m += 1
        if j == n:
            break
        c = 38
        i = j + 1
        if _starts_with(text, i, _QUOT_TAIL):
            c = 34
            i += 5
        else:
            if _starts_with(text, i, _AMP_TAIL):  # its '&' meets the text after it in the later passes
                i += 4
            if _starts_with(text, i, _LT_TAIL):
                c = 60
                i += 3
            elif _starts_with(text, i, _GT_TAIL):
                c = 62
                i += 3
        a[m] = c
        m += 1
    return m


# Items of _split_word: an index into the text, or -1 for an inserted space.
@jit
def _is_digit(src, x):
    return x >= 0 and 48 <= src[x] <= 57


@jit
def _is_dot(src, x):
    return x >= 0 and (src[x] == 46 or src[x] == 44)


_R2 = 2  # ([^0-9])([\.,]) -> "\1 \2 "
_R3 = 3  # ([\.,])([^0-9]) -> " \1 \2"
_R4 = 4  # ([0-9])(-) -> "\1 \2 "


@jit
def _substitute(src, a, m, b, rule):
    """One of R2-R4 on items ``a[:m]`` into ``b``; returns the new count.

    Like ``re.sub``: left to right, a match consumes both of its items, so
    the next match starts after it.
    """
    out = 0
    i = 0
    while i < m:
        hit = False
        if i + 1 < m:
            x = a[i]
            y = a[i + 1]
            if rule == _R2:
                hit = not _is_digit(src, x) and _is_dot(src, y)
            elif rule == _R3:
                hit = _is_dot(src, x) and not _is_digit(src, y)
            else:
                hit = _is_digit(src, x) and y >= 0 and src[y] == 45
        if not hit:
            b[out] = a[i]
            out += 1
            i += 1
            continue
        if rule == _R3:
            b[out] = -1
            b[out + 1] = a[i]
            b[out + 2] = -1
            b[out + 3] = a[i + 1]
        else:
            b[out] = a[i]
            b[out + 1] = -1
            b[out + 2] = a[i + 1]
            b[out + 3] = -1
        out += 4
        i += 2
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
    m = _substitute(src, a, m + 2, b, _R2)
    m = _substitute(src, b, m, a, _R3)
    m = _substitute(src, a, m, b, _R4)
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
def _masks_13a(addr, valid):
    """Bit masks of the 64 bytes at ``addr``, bytes past ``valid`` taken as spaces: whitespace,
    R1's characters, step 1's trigger characters, ``.``/``,``/``-``, ``-`` and digits."""
    keep = low_bits(valid)
    ws = range_bits(addr, 9, 13) | range_bits(addr, 28, 32) | ~keep
    r1 = (range_bits(addr, 33, 38) | range_bits(addr, 40, 43) | range_bits(addr, 47, 47) | range_bits(addr, 58, 64)
          | range_bits(addr, 91, 96) | range_bits(addr, 123, 126)) & keep
    trig = (range_bits(addr, 10, 10) | range_bits(addr, 38, 38) | range_bits(addr, 60, 60)) & keep
    split = range_bits(addr, 44, 46) & keep
    dash = range_bits(addr, 45, 45) & keep
    digit = range_bits(addr, 48, 57) & keep
    return ws, r1, trig, split, dash, digit


@jit
def _candidates(src, n, ts, te, tsplit, pad, check):
    """Words and R1 characters of ``src[:n]`` as spans ``ts``/``te``, 64 bytes at a time.

    A word starts where a word byte follows a non-word byte and ends where a
    non-word byte follows a word byte; an R1 character is a span of its own.
    ``tsplit`` gets the offsets of every ``.``, ``,`` and ``-``, then ``n``.
    Blocks come from :func:`_masks_13a`, bytes past ``n`` taken as spaces
    (``pad``: 64 bytes of scratch).  Returns the number of spans, or -1 if
    ``check`` and a trigger character occurs.
    """
    addr = src.ctypes.data
    ks = 0
    ke = 0
    kp = 0
    carry_word = np.uint64(0)
    carry_r1 = np.uint64(0)
    base = 0
    one = np.uint64(1)
    while True:
        last = base + 64 > n
        block = block_64(src, addr, base, pad) if base < n else np.int64(pad.ctypes.data)  # past the end: spaces
        ws, r1, trig, split, _, _ = _masks_13a(block, n - base)
        if check and trig != 0:
            return -1
        word = ~(ws | r1)
        before = (word << one) | carry_word
        starts = (word & ~before) | r1
        ends = (~word & before) | (r1 << one) | carry_r1
        carry_word = word >> np.uint64(63)
        carry_r1 = r1 >> np.uint64(63)
        ks = emit_bits(starts, base, ts, ks)
        ke = emit_bits(ends, base, te, ke)
        kp = emit_bits(split, base, tsplit, kp)
        if last:
            tsplit[kp] = n
            return ks
        base += 64


@jit
def _digit_at(src, i, s, e):
    return s <= i < e and 48 <= src[i] <= 57


@jit
def _split_once(src, s, e, j):
    """Whether R2-R4 split the word ``src[s:e]`` whose only ``.``, ``,`` or ``-`` is at ``j``.

    A ``-`` is split off after a digit (R4) and stays otherwise.  A ``.`` or
    ``,`` is split off unless digits stand on both sides of it: after a
    non-digit (or the word's start) R2 takes it, before a non-digit (or the
    word's end) R3 does.
    """
    if src[j] == 45:
        return _digit_at(src, j - 1, s, e)
    return not (_digit_at(src, j - 1, s, e) and _digit_at(src, j + 1, s, e))


@jit(inline=True)
def _spans_13a_masks(src, n, starts, ends, k, check, pad):
    """Steps 2 and 3 on ``src[:n]`` from bit masks alone, 64 bytes at a time.

    Where a word holds at most one ``.``, ``,`` or ``-``, R2-R4 reduce to a
    rule on that character's neighbours (:func:`_split_once`): a ``.`` or
    ``,`` stands alone unless digits are on both sides, a ``-`` stands alone
    after a digit.  Such characters become separate tokens like R1's.  A
    word with two or more of them (found by a carry chain: adding the split
    mask to the word mask carries from one split character through the rest
    of its word, so a second one in the same word receives a carry) makes
    this return -2, and the text takes :func:`_spans_13a_words`.  Returns
    the next free slot, -1 as :func:`spans_13a`, or -2.
    """
    if n == 0:
        return k
    addr = src.ctypes.data
    one = np.uint64(1)
    top = np.uint64(63)
    ks = k
    ke = k
    carry_word = np.uint64(0)
    carry_r1 = np.uint64(0)
    carry_digit = np.uint64(0)
    carry_split = np.uint64(0)
    base = 0
    while base < n:
        ws, r1, trig, split, dash, digit = _masks_13a(block_64(src, addr, base, pad), n - base)
        if check and trig != 0:
            return -1
        word = ~(ws | r1)
        chain = word + split
        chained = chain + carry_split
        if split & chained != 0:
            return -2
        carry_split = np.uint64(chain < word or chained < chain)
        after_digit = (digit << one) | carry_digit
        before_digit = digit >> one
        if base + 64 < n and 48 <= src[base + 64] <= 57:
            before_digit |= one << top
        alone = ((split & ~dash) & ~(after_digit & before_digit)) | (dash & after_digit)
        r1 |= alone
        word &= ~alone
        before = (word << one) | carry_word
        first = (word & ~before) | r1
        last = (~word & before) | (r1 << one) | carry_r1
        carry_word = word >> top
        carry_r1 = r1 >> top
        carry_digit = digit >> top
        ks = emit_bits(first, base, starts, ks)
        ke = emit_bits(last, base, ends, ke)
        base += 64
    if carry_word | carry_r1:  # a token ends at the end of the text
        ends[ke] = n
        ke += 1
    return ks


@jit(inline=True)
def spans_13a(src, n, starts, ends, k, a, b, check, ts, te, tsplit, pad):
    """Steps 2 and 3 on ``src[:n]`` (ASCII or UTF-8, through :func:`rewrite` where needed).

    Token spans go to ``starts``/``ends`` from slot ``k``; returns the next
    free slot, or -1 if ``check`` is set and the text holds ``<``, ``\\n`` or
    ``&`` (step 1 may change it: :func:`rewrite` it, then call again without
    ``check``), or ``-3 - L`` when a word of ``L`` bytes that R2-R4 must
    replay does not fit ``a`` and ``b`` (call again with
    :func:`word_scratch` of ``L`` items).  Scratch: ``a``, ``b`` (int64),
    ``ts``, ``te``, ``tsplit`` (int64) of ``n + 2``, ``pad`` (uint8) of 64.
    """
    got = _spans_13a_masks(src, n, starts, ends, k, check, pad)
    if got != -2:
        return got
    return _spans_13a_words(src, n, starts, ends, k, a, b, check, ts, te, tsplit, pad)


@jit(inline=True)
def word_scratch(longest):
    """Items of ``a`` and ``b`` that :func:`spans_13a` needs for words of up to ``longest`` bytes."""
    return WORD_GROWTH * (longest + 2) + 16


@jit
def _spans_13a_words(src, n, starts, ends, k, a, b, check, ts, te, tsplit, pad):
    """:func:`spans_13a` (same arguments and result) for a text with a word holding two or more
    of ``.``, ``,`` and ``-``: words and R1's characters from :func:`_candidates`, then R2-R4
    replayed on each word that needs them (:func:`_split_word`).

    When such a word is too long for ``a`` and ``b`` (:func:`word_scratch`), returns
    ``-3 - L``, ``L`` the longest such word of the text, and its spans are not to be used.
    """
    m = _candidates(src[:n], n, ts, te, tsplit, pad, check)
    if m < 0:
        return -1
    too_long = 0  # the longest word R2-R4 must replay that does not fit a and b
    room = min(len(a), len(b))
    p = 0  # the next '.', ',' or '-' at or after the current span
    for x in range(m):
        s = ts[x]
        e = te[x]
        while tsplit[p] < s:
            p += 1
        if tsplit[p] >= e:  # none inside
            starts[k] = s
            ends[k] = e
            k += 1
            continue
        j = tsplit[p]
        if tsplit[p + 1] < e:
            if word_scratch(e - s) > room:
                too_long = max(too_long, e - s)
            else:
                k = _split_word(src, s, e, starts, ends, k, a, b)
        elif not _split_once(src, s, e, j):
            starts[k] = s
            ends[k] = e
            k += 1
        else:  # the word before it, the character, the word after it
            if j > s:
                starts[k] = s
                ends[k] = j
                k += 1
            starts[k] = j
            ends[k] = j + 1
            k += 1
            if j + 1 < e:
                starts[k] = j + 1
                ends[k] = e
                k += 1
    return k if too_long == 0 else -3 - too_long


@jit
def spans_whitespace(src, n, single, starts, ends, k, pad):
    """``str.split()`` on ``src[:n]``, ASCII or UTF-8 without non-ASCII whitespace (every
    non-space character a token if ``single``: a UTF-8 character with its continuation bytes).
    Words are found 64 bytes at a time: the block's whitespace as the bits of one word, the
    tokens' starts and ends walked bit by bit (``pad``: 64 bytes of scratch for a block that
    :func:`~vecscore.kernels.swar.block_64` copies)."""
    if single:
        i = 0
        while i < n:
            if _CLASS[src[i]] == _WS:
                i += 1
                continue
            s = i
            i += 1
            while i < n and (src[i] & 0xC0) == 0x80:
                i += 1
            starts[k] = s
            ends[k] = i
            k += 1
        return k
    text = src[:n]
    addr = text.ctypes.data
    one = np.uint64(1)
    prev = one  # the byte before the block is whitespace (the text's start counts as such)
    e = k
    for base in range(0, n, 64):
        a = block_64(text, addr, base, pad)
        ws = range_bits(a, 9, 13) | range_bits(a, 28, 32)  # str.isspace() below 0x80
        if base + 64 > n:
            ws |= ~low_bits(n - base)
        before = (ws << one) | prev
        k = emit_bits(~ws & before, base, starts, k)
        e = emit_bits(ws & ~before, base, ends, e)
        prev = ws >> np.uint64(63)
    if e < k:  # the last token runs to the end of the text
        ends[e] = n
    return k
