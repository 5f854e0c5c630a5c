"""chrF's text reading, step 1 of :mod:`vecscore.kernels.chrf`: a row of code points read once (:func:`load`) into
its characters for the character n-grams (whitespace removed unless asked to keep it), each character's
pair-local id (the hypothesis's distinct characters numbered ``1..V`` through a table indexed by code point; a
reference character the hypothesis lacks gets id 0), and, for chrF++, its word tokens (whitespace-separated words,
a leading or trailing ASCII punctuation mark split off a word longer than one character, the trailing one first)
as spans of those characters, with their FNV hashes; and the tables and sizes the kernels take."""

import numpy as np

from vecscore._jit import jit
from vecscore.kernels.in_place import code_point
from vecscore.kernels.ngrams import table_bits
from vecscore.kernels.swar import text_at

__all__ = ["AHEAD", "CODE_POINTS", "DENSE", "DENSE_DTYPE", "GOLD", "HYP_ROWS", "LOW32", "STAMP_MAX",
           "load", "table_size", "unsigned"]

GOLD = np.uint64(0x9E3779B97F4A7C15)
_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)
LOW32 = 0xFFFFFFFF
#: order ``n`` n-grams are numbered through a directly indexed table while their keys stay below this
DENSE = 1 << 15
#: the size of the code point -> character id table (every code point)
CODE_POINTS = 0x110000
#: pairs ahead whose first characters are asked for (the strings lie scattered in memory)
AHEAD = 4
#: the dtype of the directly indexed table (ids up to ``DENSE``, 0 for none)
DENSE_DTYPE = np.uint16
#: rows of the per-hypothesis scratch ``i64``
HYP_ROWS = 4
#: stamps restart (and the stamped tables are cleared) past this
STAMP_MAX = 1 << 30


def whitespace_table() -> np.ndarray:
    """``table[c] == 1`` for the code points ``str.split()`` splits on (all below U+3001); its last entry
    is 0, so that ``table[min(c, len(table) - 1)]`` classifies every code point ``c``."""
    table = np.zeros(0x3002, np.uint8)
    for c in range(0x3001):
        if chr(c).isspace():
            table[c] = 1
    return table


def punctuation_table() -> np.ndarray:
    """``table[c] == 1`` for ASCII punctuation (``string.punctuation``)."""
    table = np.zeros(128, np.uint8)
    for ch in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~":
        table[ord(ch)] = 1
    return table


def table_size(n: int) -> int:
    """The hash tables' slots for texts of up to ``n`` units: a power of two of at least ``2 * n`` (16 at least)."""
    return 1 << table_bits(n)


@jit(inline=True)
def unsigned(i):
    """``i`` (never negative) as an unsigned index: numba then skips the wraparound of negative indices."""
    return np.uint64(i)


@jit
def _word_hash(cb, s, e):
    """FNV-1a of the code points ``cb[s:e]``."""
    h = _FNV_OFFSET
    for q in range(s, e):
        h = (h ^ np.uint64(cb[unsigned(q)])) * _FNV_PRIME
    return h


@jit(inline=True)
def _tokens(cb, n_words, w_s, w_e, w_h, w_p, punct, tok_s, tok_e, tok_h, t):
    """The tokens of the words ``cb[w_s[i]:w_e[i]]`` (FNV hash ``w_h[i]``, without the last
    character ``w_p[i]``) into ``tok_s``/``tok_e``/``tok_h`` from ``t``: a word of more than one
    character loses a trailing ASCII punctuation mark, else a leading one, as a token of its own
    (sacreBLEU's ``CHRF._remove_punctuation``).  Returns the next ``t``."""
    for i in range(n_words):
        s = np.int64(w_s[unsigned(i)])
        e = np.int64(w_e[unsigned(i)])
        last = cb[unsigned(e - 1)]
        first = cb[unsigned(s)]
        if e - s > 1 and last < 128 and punct[unsigned(last)] != 0:
            tok_s[unsigned(t)] = s
            tok_e[unsigned(t)] = e - 1
            tok_h[unsigned(t)] = w_p[unsigned(i)]
            tok_s[unsigned(t + 1)] = e - 1
            tok_e[unsigned(t + 1)] = e
            tok_h[unsigned(t + 1)] = np.int64((_FNV_OFFSET ^ np.uint64(last)) * _FNV_PRIME)
            t += 2
        elif e - s > 1 and first < 128 and punct[unsigned(first)] != 0:
            tok_s[unsigned(t)] = s
            tok_e[unsigned(t)] = s + 1
            tok_h[unsigned(t)] = np.int64((_FNV_OFFSET ^ np.uint64(first)) * _FNV_PRIME)
            tok_s[unsigned(t + 1)] = s + 1
            tok_e[unsigned(t + 1)] = e
            tok_h[unsigned(t + 1)] = np.int64(_word_hash(cb, s + 1, e))
            t += 2
        else:
            tok_s[unsigned(t)] = s
            tok_e[unsigned(t)] = e
            tok_h[unsigned(t)] = w_h[unsigned(i)]
            t += 1
    return t


@jit(inline=True)
def _scan(b, n, w, keep, words, ids_mode, ws, cb, ids, k, w_s, w_e, w_h, w_p, ctab, stamp, nv):
    """The loop of :func:`load`, inlined with ``w`` and ``ids_mode`` constant (so that LLVM drops the
    branches on them from the loop).  Returns ``(k, nv, bad, n_e, h, hp, prev)``."""
    last_ws = len(ws) - 1
    bad = 0
    prev = np.int64(1)  # the previous character was whitespace (or there was none)
    n_s = 0
    n_e = 0
    h = _FNV_OFFSET
    hp = _FNV_OFFSET
    for q in range(n):
        c = code_point(b, q, w)
        sp = np.int64(ws[unsigned(min(c, last_ws))])
        bad |= np.int64((c >> 11) == 0x1B)  # U+D800..U+DFFF
        cb[unsigned(k)] = c
        if ids_mode == 1:
            v = ctab[unsigned(c)]
            new = (v >> 32) != stamp
            v = (stamp << 32) | (nv + 1) if new else v
            ctab[unsigned(c)] = v
            nv += new
            ids[unsigned(k)] = v & LOW32
        elif ids_mode == 2:
            v = ctab[unsigned(c)]
            ids[unsigned(k)] = v & LOW32 if (v >> 32) == stamp else 0
        if words:
            # a word starts here if this is not whitespace and the previous was; one ends here
            # if this is whitespace and the previous was not (written always, kept on the event)
            w_s[unsigned(n_s)] = k
            w_e[unsigned(n_e)] = k
            w_h[unsigned(n_e)] = np.int64(h)
            w_p[unsigned(n_e)] = np.int64(hp)
            n_s += prev & (sp ^ 1)
            n_e += sp & (prev ^ 1)
            hp = _FNV_OFFSET if sp else h
            h = _FNV_OFFSET if sp else (h ^ np.uint64(c)) * _FNV_PRIME
            prev = sp
        k += keep | (sp ^ 1)
    return k, nv, bad, n_e, h, hp, prev


@jit(inline=True)
def load(addr, n, w, keep_space, words, ids_mode, ws, punct, cb, ids, k, w_s, w_e, w_h, w_p, tok_s, tok_e, tok_h, t,
          ctab, stamp, nv):
    """Read one text (``n`` code points of width ``w`` at ``addr``) into the pair's arrays.

    Its characters go to ``cb[k:]`` (whitespace dropped unless
    ``keep_space``); with ``words``, its tokens to ``tok_s``/``tok_e`` from
    ``t`` (spans of ``cb``), with their FNV hashes in ``tok_h`` (``w_s``,
    ``w_e``, ``w_h``, ``w_p``: scratch for its words).  ``ids_mode``: 0 no
    character ids, 1 number the characters (the hypothesis: ``ctab[c]``
    gets ``stamp << 32 | id``, ids from 1, ``nv`` so far), 2 look them up (a
    reference: 0, the id of no hypothesis character, where absent).
    Whitespace that is dropped is still numbered (an id never counted).
    The loop has no branch on the data: words start and end where
    whitespace does, and their hashes are carried along.
    Returns ``(new k, new t, new nv, 1 if a lone surrogate was seen)``.
    """
    b = text_at(addr, n * w)
    keep = 1 if keep_space else 0
    if w == 1:
        k, nv, bad, n_e, h, hp, prev = _scan(b, n, 1, keep, words, ids_mode, ws, cb, ids, k, w_s, w_e, w_h, w_p,
                                             ctab, stamp, nv)
    elif w == 2:
        k, nv, bad, n_e, h, hp, prev = _scan(b, n, 2, keep, words, ids_mode, ws, cb, ids, k, w_s, w_e, w_h, w_p,
                                             ctab, stamp, nv)
    else:
        k, nv, bad, n_e, h, hp, prev = _scan(b, n, 4, keep, words, ids_mode, ws, cb, ids, k, w_s, w_e, w_h, w_p,
                                             ctab, stamp, nv)
    if words:
        if prev == 0:
            w_e[unsigned(n_e)] = k
            w_h[unsigned(n_e)] = np.int64(h)
            w_p[unsigned(n_e)] = np.int64(hp)
            n_e += 1
        t = _tokens(cb, n_e, w_s, w_e, w_h, w_p, punct, tok_s, tok_e, tok_h, t)
    return k, t, nv, bad


@jit
def text_units(addr, n, w, keep_space, words, ws, punct, cb, tok_s, tok_e, tok_h):
    """:func:`load` of one text, without ids: ``(characters, tokens, 1 if a lone surrogate)``, written
    to ``cb``/``tok_s``/``tok_e``/``tok_h`` (for the tests)."""
    ctab = np.zeros(1, np.int64)
    ids = np.zeros(1, np.int32)
    m = max(n, 1)
    w_s = np.empty(m + 1, np.int32)
    w_e = np.empty(m + 1, np.int32)
    w_h = np.empty(m + 1, np.int64)
    w_p = np.empty(m + 1, np.int64)
    k, t, _, bad = load(addr, n, w, keep_space, words, 0, ws, punct, cb, ids, 0, w_s, w_e, w_h, w_p, tok_s, tok_e,
                         tok_h, 0, ctab, 1, 0)
    return k, t, bad
