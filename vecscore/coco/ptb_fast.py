"""The bulk route of :mod:`vecscore.coco.ptb`: a batch of captions tokenized by a few C and NumPy passes over its text.

Most captions of the caption sets are words, numbers, hyphenated compounds, clitics (``it's``, ``isn't``), quotes
and sentence punctuation.  For such a caption the jar's output line is the caption lower-cased, with ``£`` made a
``#`` token, clitics split off (``it 's``, ``is n't``) and its punctuation tokens (``.``, ``,``, ``;``, ``:``, ``?``,
``!``, ``-``, ``--``, ``...``, the quotes' backtick and ``'``) removed.  :meth:`FastPath.lines` does that for a whole
batch at once on its Latin-1 bytes and reports which captions are outside the covered class; the caller lexes those
with the full lexer.

How: the captions are done in chunks of about 256k characters (their buffers stay in the processor's caches).  One
``bytes.translate`` gives each byte's class; the bytes that are neither letters nor spaces, and doubled bytes (two
spaces; the ``nn``/``tt``/``mm`` of ``cannot``, ``gonna``, ...) are the *spots* (about one byte in twenty), and every
rule below is checked with NumPy on the spots and their neighbours only (a word before a period is read as one
8-byte integer and looked up among the stems').  The output is the text with a few bytes marked (spaces to drop,
stand-alone hyphens, quotes, clitics), lower-cased and stripped of the marks and punctuation by one more
``translate``, given the few insertions (``# ``, `` '``, `` n't``) by ``bytes.replace`` and split into lines; lines
left with stray spaces (a dropped piece or two spaces at their start) are tidied one by one.

The covered class (a caption is *safe* when all of this holds; anything else sends it to the lexer):

* its characters are Latin-1 letters (the lexer's letters up to U+00FF), ASCII digits, spaces and
  ``. , ; : ? ! - ' £``;
* ``.``, ``,``, ``;``, ``:``, ``?`` and ``!`` are followed by a space, the end of the caption or one of them, but
  not ``.`` by ``, ; :`` nor ``?``/``!`` by ``?``/``!``, and ``. .`` does not occur (so numbers such as ``3.5``,
  ``1,000``, ``10:30``, ``.5``, smileys, ``?!`` tokens, ``word.,`` and ``. . .`` are not in the class);
* a ``.`` that follows a letter does not end a run of letters that is a single letter or one of the lexer's
  abbreviation stems (``etc.``, ``Mr.``, ``no.``: those tokens keep their period and may depend on the next
  caption);
* a ``-`` joins two letters or digits (``family-friendly``, ``20-25``: one token, whatever the rule), is a whole
  piece ``-`` or ``--``, or comes before a ``£`` after a letter, a digit or a space (``£20-£25``: a ``-`` token;
  not after ``pro`` or ``anti``, which make ``pro-`` and ``anti-`` tokens);
* a ``£`` starts a piece or follows such a hyphen, and is followed by a letter, a digit, a space, punctuation or
  the end;
* an apostrophe's piece (up to its final punctuation) is a clitic (two or more ASCII letters and ``'s``, ``'re``,
  ``'ll``, ``'m``, ``'ve`` or ``'d``, or ASCII letters ending with a letter other than ``n`` and ``n't``; not
  ``cont'd``, one token for the lexer), a clitic alone (``'re``, ``n't``: pre-tokenized text), a ``'`` alone, an
  opening quote before three letters or more whose first two are ASCII (not ``'em``, ``'til``, ``'cause``,
  ``'twas``, ``'tis``, which the lexer keeps), possibly closed after them, or a closing quote after two letters or
  more (not ``ol'``, ``Dunkin'``, ``somethin'``);
* no digit, space, digit (phone numbers and fractions span a space), and none of ``cannot``, ``gonna``, ``gotta``,
  ``lemme``, ``gimme``, ``wanna`` (which the lexer splits) occurs in it.

In that class every token lies inside one piece (text between spaces), no rule looks past a space, and no rule's
choice depends on letter case, so each safe caption's line depends on its text alone, and it is the same at the end
of the text unless it holds an apostrophe (``it'll`` at the very end is ``it `ll``).  ``tests/test_coco_ptb.py``
checks the route against the lexer (in context and at the end of the text) on random captions built from the class
and its edges, and against the jar.
"""
from __future__ import annotations

import re

import numpy as np

__all__ = ["FastPath"]

_LETTERS = bytes(range(0x41, 0x5B)) + bytes(range(0x61, 0x7B)) + b"\xaa\xb5\xba" + bytes(
    c for c in range(0xC0, 0x100) if c not in (0xD7, 0xF7))
_UPPER = bytes(range(0x41, 0x5B)) + bytes(c for c in range(0xC0, 0xDF) if c != 0xD7)
_LOWER = bytes.maketrans(_UPPER, bytes(c + 0x20 for c in _UPPER))
_DELETE = b".,;:?!\x00"  # the punctuation tokens' characters and the mark of other bytes to drop

# byte classes (spots are the bytes of class 2 and above)
_SP, _L, _D, _NL, _H, _DOT, _COM, _Q, _POUND, _APOS, _X = range(11)
_CLASS = bytearray([_X] * 256)
for _c in _LETTERS:
    _CLASS[_c] = _L
for _c in b"0123456789":
    _CLASS[_c] = _D
for _chars, _k in ((b" ", _SP), (b"\n", _NL), (b"-", _H), (b".", _DOT), (b",;:", _COM), (b"?!", _Q),
                   (b"\xa3", _POUND), (b"'", _APOS)):
    for _c in _chars:
        _CLASS[_c] = _k
_CLASSES = bytes(_CLASS)


def _bits(*classes: int) -> int:
    return sum(1 << c for c in classes)


_BIT = np.array([1 << c for c in range(16)], np.uint16)
_BLANK = _bits(_SP, _NL)
_ALNUM = _bits(_L, _D)
_PUNCT = _bits(_DOT, _COM, _Q)
_CHUNK = 1 << 18  # characters
_PAD = 8  # line breaks around the text: every spot has neighbours, and a stem is at most 7 letters
_LETTER = rb"[a-z\xaa\xb5\xba\xc0-\xd6\xd8-\xf6\xf8-\xff]"
# the pieces with apostrophes in the class (ASCII letters compared without case): a clitic (split off), or quotes
# (their tokens "`" and "'" are dropped): "'" alone, before a word of three letters or more whose first two are ASCII
# (the lexer's opening-quote rule looks at one) and that does not start like 'em, 'til, 'cause, 'twas, 'tis, or
# after a word of two letters or more other than ol', Dunkin', somethin'
_APOSTROPHES = re.compile(
    rb"(?P<clitic>(?!cont'd)[a-z]{2,}'(?:s|re|ll|m|ve|d)|[a-z]*[a-mo-z]n't)[.,;:?!]*"
    rb"|(?P<alone>'(?:s|re|ll|m|ve|d)|n't)[.,;:?!]*"
    rb"|(?P<quotes>'|'(?!em|til|cause|twas|tis)(?=[a-z]{2})(?!(?:dunkin|somethin)')" + _LETTER + rb"{3,}'?"
    rb"|(?!(?:ol|dunkin|somethin)')" + _LETTER + rb"{2,}')[.,;:?!]*", re.IGNORECASE)


def _word_keys(words: list[bytes], lengths: bool = False) -> np.ndarray:
    """Words of at most 7 bytes as sorted integers: byte ``j`` at bits ``8 j``, with the length at bit 56."""
    return np.array(sorted(int.from_bytes(w, "little") | (len(w) << 56 if lengths else 0) for w in words),
                    np.uint64)


def _member(keys: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Whether each key is in the sorted ``table``."""
    if not len(table):
        return np.zeros(len(keys), bool)
    return table[np.minimum(np.searchsorted(table, keys), len(table) - 1)] == keys


class FastPath:
    """The bulk route for the given abbreviation stems (lower case) and words that the lexer splits."""

    def __init__(self, stems: frozenset[str], split_words: frozenset[str]) -> None:
        encoded = [s.encode() for s in stems]
        assert all(len(s) < 8 and s.isalpha() and s.islower() for s in encoded)
        self._stems = _word_keys(encoded, lengths=True)
        words = sorted(w.encode() for w in split_words)
        # each split word has its doubled letter at its third character
        assert all(w[2] == w[3] and w[2:3] in b"ntm" and len(w) in (5, 6) for w in words)
        self._split5 = _word_keys([w for w in words if len(w) == 5])
        self._split6 = np.array(sorted(int.from_bytes(w, "little") for w in words if len(w) == 6), np.uint64)

    def lines(self, captions: list[str]) -> tuple[list[str], list[int]]:
        """Each caption's line (the captions hold no line break) as pycocoevalcap gives it, and the sorted indices
        of the captions outside the covered class (their lines are meaningless).  Every caption is taken as followed
        by more text.  The captions are done in chunks of about ``_CHUNK`` characters, which the processor's caches
        hold through the passes."""
        lines: list[str] = []
        risky: list[int] = []
        if not captions:
            return lines, risky
        chunks = sum(map(len, captions)) // _CHUNK + 1
        step = -(-len(captions) // chunks)
        for start in range(0, len(captions), step):
            more, bad = self._chunk(captions[start:start + step])
            lines += more
            risky += [start + i for i in bad]
        return lines, risky

    def _chunk(self, captions: list[str]) -> tuple[list[str], list[int]]:
        pad = [""] * _PAD
        # characters beyond Latin-1 become "&#...;", outside the class
        raw = "\n".join(pad + captions + pad).encode("latin-1", "xmlcharrefreplace")
        cls = np.frombuffer(raw.translate(_CLASSES), np.uint8)
        byte = np.frombuffer(raw, np.uint8)
        folded = byte | 0x20
        spot = cls > _L
        spot[:-1] |= folded[:-1] == folded[1:]  # doubled bytes: spaces, and the letters of cannot, gonna, ...
        spot[-3:] = False  # line breaks of the padding: their neighbours are not needed
        pos = np.flatnonzero(spot)
        kind = cls[pos]
        prev = _BIT[cls[pos - 1]]
        nxt = _BIT[cls[pos + 1]]
        nxt2 = _BIT[cls[pos + 2]]
        bit = _BIT[kind]

        risky = kind == _X
        punct = (bit & _PUNCT) != 0
        risky |= punct & ((nxt & _bits(_L, _D, _POUND, _APOS, _H, _X)) != 0)
        risky |= (kind == _DOT) & (nxt == 1 << _COM)
        risky |= (kind == _Q) & (nxt == 1 << _Q)
        risky |= (kind == _DOT) & (nxt == 1 << _SP) & (nxt2 == 1 << _DOT)
        risky |= (kind == _D) & (nxt == 1 << _SP) & (nxt2 == 1 << _D)
        # hyphens: inside a compound, a piece "-" / "--", or before a pound sign after a letter, a digit or a blank
        # ("20-£25", " -£25": a "-" token, then "#")
        hyphen = kind == _H
        prev2 = _BIT[cls[pos - 2]]
        lone = ((prev & _BLANK) != 0) & (((nxt & _BLANK) != 0) | ((nxt == 1 << _H) & ((nxt2 & _BLANK) != 0)))
        second = (prev == 1 << _H) & ((prev2 & _BLANK) != 0) & ((nxt & _BLANK) != 0)
        before_pound = (nxt == 1 << _POUND) & ((prev & (_ALNUM | _BLANK)) != 0)
        risky |= hyphen & ~(((prev & _ALNUM) != 0) & ((nxt & _ALNUM) != 0) | lone | second | before_pound)
        # pound signs: at a piece start or after such a hyphen; "#" then a space before a letter or a digit, else "#"
        pound = kind == _POUND
        risky |= pound & ~(((prev & _BLANK) != 0) | (prev == 1 << _H) & ((prev2 & (_ALNUM | _BLANK)) != 0))
        risky |= pound & ((nxt & _bits(_H, _APOS, _POUND, _X)) != 0)
        glued_pound = pound & ((nxt & _ALNUM) != 0)

        # the 8 bytes from each position as one integer (the first byte lowest), and the same of the classes
        words: np.ndarray = np.ndarray((len(raw) - 7,), "<u8", raw, strides=(1,))
        classes: np.ndarray = np.ndarray((len(raw) - 7,), "<u8", cls, strides=(1,))
        # a period after a run of letters that may make an abbreviation or an acronym: the run's length (up to 8)
        # and its letters (ASCII ones lower-cased) with the length on top, looked up among the stems'
        period = (kind == _DOT) & (prev == 1 << _L)
        at = pos[period] - 8
        others = classes[at] ^ np.uint64(0x0101010101010101)  # the letters' bytes are 0
        length = np.zeros(len(at), np.uint64)
        for k in range(1, 9):
            length += (others >> np.uint64(64 - 8 * k)) == 0
        key = (words[at] | np.uint64(0x2020202020202020)) >> (np.uint64(64) - (length << np.uint64(3)))
        abbreviation = (length == 1) | _member(key | (length << np.uint64(56)), self._stems)
        # cannot, gonna, ...: at their doubled letter (the third character)
        at = pos[(kind == _L) & ((folded[pos] == 0x6E) | (folded[pos] == 0x74) | (folded[pos] == 0x6D))] - 2
        key = words[at] | np.uint64(0x2020202020202020)
        split = _member(key & np.uint64((1 << 40) - 1), self._split5) | _member(key & np.uint64((1 << 48) - 1),
                                                                                 self._split6)

        spots = [pos[risky], pos[period][abbreviation], at[split]]
        # "pro-" and "anti-" before a pound sign are tokens
        at = pos[hyphen & before_pound & ((prev & _ALNUM) != 0)] - 8
        key = words[at] | np.uint64(0x2020202020202020)
        pro = ((key >> np.uint64(40)) == int.from_bytes(b"pro", "little")) | (
            (key >> np.uint64(32)) == int.from_bytes(b"anti", "little"))
        spots.append(at[pro] + 8)

        marked = bytearray(raw)
        mark = np.frombuffer(marked, np.uint8)
        # pieces that are all punctuation or hyphens: dropped with the space before them (at a line start, the
        # space after them is left for the tidying)
        starts = (punct | hyphen & ~before_pound) & ((prev & _BLANK) != 0)
        mark[pos[starts & (prev == 1 << _SP)] - 1] = 0
        mark[pos[hyphen & ~((prev & _ALNUM) != 0)]] = 0
        mark[pos[hyphen & before_pound & ((prev & _ALNUM) != 0)]] = ord(" ")
        mark[pos[pound & ~glued_pound]] = ord("#")
        # spaces: the first of two, the first and last of a line
        mark[pos[kind == _SP]] = 0
        mark[pos[(kind == _NL) & (nxt == 1 << _SP)] + 1] = 0
        mark[pos[(kind == _NL) & (prev == 1 << _SP)] - 1] = 0
        # lines left to tidy: two spaces at their start, a dropped piece at their start (after a space or not)
        untidy = [pos[(kind == _NL) & (nxt == 1 << _SP) & (nxt2 == 1 << _SP)] + 1,
                  pos[starts & ((prev == 1 << _NL) | (prev == 1 << _SP) & (prev2 == 1 << _NL))]]
        # clitics: "n't" marked "\x01\x02" (" n't" once replaced)
        quotes = []
        for i in pos[kind == _APOS].tolist():
            start = max(raw.rfind(b" ", 0, i), raw.rfind(b"\n", 0, i)) + 1
            stop = raw.find(b"\n", i)  # the padding ends with line breaks
            space = raw.find(b" ", i, stop)
            stop = stop if space < 0 else space
            m = _APOSTROPHES.fullmatch(raw, start, stop)
            if m is None:
                spots.append(np.array([i]))
            elif m.lastgroup == "quotes":
                quotes.append(i)
                if m.group("quotes") == b"'":  # a piece of "'" and punctuation: dropped with the space before it
                    if raw[start - 1] == 0x20:
                        marked[start - 1] = 0
                    if raw[start - 1] != 0x20 or raw[start - 2] == 0x0A:  # at the line's start
                        untidy.append(np.array([i]))
            elif m.lastgroup == "alone":  # a clitic token already ("you 're", "do n't"), kept as it is
                marked[i] = 2
            elif raw[i + 1] in b"tT" and raw[i - 1] in b"nN":
                marked[i - 1:i + 1] = b"\x01\x02"
        mark[quotes] = 0

        out = marked.translate(_LOWER, _DELETE)
        if b"\xa3" in out:
            out = out.replace(b"\xa3", b"# ")
        if b"'" in out:
            out = out.replace(b"'", b" '")
        if b"\x01" in out:
            out = out.replace(b"\x01", b" n")
        if b"\x02" in out:
            out = out.replace(b"\x02", b"'")
        lines = out.decode("latin-1").split("\n")
        breaks = pos[kind == _NL]
        for i in np.unique(np.searchsorted(breaks, np.concatenate(untidy))).tolist():
            lines[i] = " ".join(lines[i].split())
        bad = np.unique(np.searchsorted(breaks, np.concatenate(spots))) - _PAD
        return lines[_PAD:-_PAD], bad[(bad >= 0) & (bad < len(lines) - 2 * _PAD)].tolist()
