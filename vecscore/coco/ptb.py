"""Pure-Python PTB tokenizer compatible with pycocoevalcap's ``PTBTokenizer`` (no Java, no temporary files).

pycocoevalcap 1.2 joins all captions with ``"\\n"`` (after replacing ``"\\n"`` inside a caption by a space), runs
Stanford CoreNLP 3.4.1's ``edu.stanford.nlp.process.PTBTokenizer -preserveLines -lowerCase`` over that text, splits
the output at ``"\\n"``, pairs the lines with the captions by position (``zip``), and from each line removes the
tokens of its ``PUNCTUATIONS`` list after ``rstrip().split(' ')``.  This module reproduces that whole pipeline.

Implemented (the lexer's default options of that release: PTB3 escaping, LaTeX quotes, no slash/asterisk
escaping, no americanization, assimilation splitting, untokenizable characters deleted):

* longest-match lexing over the lexer's token rules, the trailing context counting towards the match length
  and the earlier rule winning a tie: words with internal ``.``/``!``/``?``, numbers (``1,000.50``, ``10:30``,
  signed), dates, fractions (``1/2``, ``2 1/2`` joined by a no-break space, vulgar fractions rewritten),
  hyphenated and apostrophe words (``o'clock``, ``d'oeuvre``, ``y'all``), clitic splitting (``do n't``,
  ``it 's``, ``we 're``), ``cannot``/``gonna``/``gotta``/``lemme``/``gimme``/``wanna``/``'twas``/``'tis``
  splitting, URLs, e-mail addresses, Twitter names and hashtags, SGML tags, phone numbers, abbreviations and
  acronyms with PTB sentence-final period doubling (``etc.`` before an upper-case word or at the end of the
  text gives ``etc. .``; which depends on the *next* caption, as with the jar), smileys, currency
  normalisation (``£`` -> ``#``, ``€`` -> ``$``, ``¢`` -> ``cents``), brackets (``-lrb-``, ``-rsb-``, ... which
  survive pycocoevalcap's upper-case punctuation filter), quotes (``\\u201c``/``"`` -> ````` ``''``), dashes
  (``--``, ``—`` -> ``--``), ellipses, HTML entities (``&amp;``, ``&quot;``, ...), soft hyphens;
* the lexer's character classes as measured from the jar (Java's Unicode 6.2 letters, digits and upper-case
  letters of the Basic Multilingual Plane); characters outside the BMP (emoji) are deleted unless inside a URL
  or e-mail token, like the jar's UTF-16 lexer;
* the wrapper: newline characters other than ``\\n`` inside a caption (``\\r``, ``\\x0b``, ``\\x0c``,
  ``\\x85``, ``\\u2028``, ``\\u2029``) end a line in the jar's output, so the following captions receive the
  next caption's tokens exactly as pycocoevalcap pairs them (``\\r`` just before the caption separator merges
  with it); an empty caption gives ``""``.

Speed: the distinct captions of a call that are not cached yet are done together.  Those of the bulk route's class
(:mod:`vecscore.coco.ptb_fast`: Latin-1 words, digits, hyphen compounds, clitics, quotes, ``£`` and sentence
punctuation; 99.4% of the distinct E2E references, 99.98% of the system outputs, all of nlg-eval's examples) are
done by a few ``bytes.translate`` and NumPy passes over their text, with no lexer; the others are cut at spaces and
each distinct piece is looked up once (pure-letter, digit and ``word.`` pieces skip the lexer; the others are lexed
alone and cached), the fragments are joined and cut into lines by C string methods.  Each caption's line is cached.
Captions whose line may depend on what follows them (a final abbreviation) or where a token may span a space (SGML
tags, phone numbers, ``2 1/2``, ``. . .``, other white space) are lexed in place.  The lexer tries at each position
only the rules that can start with its character, compiles a rule when a text first needs it (the abbreviations'
rules only before a possible abbreviation) and uses rules with Latin-1 character classes while the text in reach has
no wider character.  ``benchmarks/bench_coco.py --ptb`` (2 cores, load ~2): the 16,570 distinct E2E captions
~0.04 s with the rules compiled and no caption cached (~0.13 s on a process's first call, which compiles the rules
the few captions outside the class need), against ~1.3 s for the jar; the 150,000 captions of its 25k set ~0.11 s
(~0.27 s first call) against ~7 s.

Measured agreement with the jar (``tests/test_coco_ptb.py``): all 4,693 E2E NLG references, all 21 x 630 E2E
system outputs, nlg-eval's 6 example lines and AI Challenger's 18 Chinese captions agree, as do the test's 326
adversarial strings and 42,000 random mixtures of them (7 seeds).  Known differences, none of them in those real
sets: Java lower-cases a Greek capital sigma that ends a word but is followed by more of the token (``ΣΟΣ-ish``)
as ``σ``, Python's ``str.lower`` as ``ς`` (1 of the 42,000 mixtures); rules whose main part and trailing context
both have variable length are split where the rules make it unambiguous (JFlex 1.4 has known quirks there);
if a token swallows the caption separator (an SGML attribute value holding the ``\n``), ``ptb_tokenize`` still
returns one string per caption, padding with ``""`` where pycocoevalcap's ``zip`` would drop the last captions.
"""
from __future__ import annotations

import gc
import re
from bisect import bisect_right
from itertools import accumulate, chain, compress, filterfalse, repeat
from operator import contains, is_, itemgetter

import regex

from vecscore.coco.ptb_fast import FastPath
from vecscore.coco.ptb_lexer import ABBREV_STEMS, PUNCT, PUNCTUATIONS, lex

__all__ = ["PTBTokenizer", "ptb_tokenize", "clear_cache", "PUNCTUATIONS"]


# ---- the wrapper: captions, pieces and caches ----
_OTHER_NEWLINES = "\r\x0b\x0c\x85\u2028\u2029"  # line breaks for the lexer besides "\\n"
# a caption is lexed as a whole when a token could span a space (SGML tags, phone numbers, "2 1/2", ". . .")
# or when it holds other white space (which the lexer or pycocoevalcap's rstrip treat specially)
_WHOLE = regex.compile(r"[^\S \t]|<|[\d)] \d|\. \.")
_SEPARATORS = regex.compile(r"[ \t]")
_PLAIN = regex.compile(r"([A-Za-z]+|[0-9]+)([,;:?!.]?)")
# a piece ending with something whose tokenization looks past the following space (sentence-final abbreviations
# and acronyms: ABBREV1, ACRONYM, ABBREV3, "co."); a conservative test: such a token starts at the piece's start or
# after a character that cannot end a token glued to it, and is letters with periods or hyphens in these shapes
_L = r"[A-Za-z\u0130\u0131\u017f\u212a]"
_RISKY_TAIL = regex.compile(rf"(?:^|(?<=[^\w.&;'`\u2019\u0092\u00ad\-]))(?:{_L}+|{_L}(?:\.{_L})+|{_L}+\.[dD]|"
                            rf"{_L}+-{_L}(?:\.{_L})+|{_L}\.{_L}\.-{_L}(?:\.{_L})+)\.$")
# _WHOLE's tests within a piece cut at spaces only (tabs make the caption whole), and digits beyond ASCII at
# its ends (the test across a space is made on the ASCII digits only)
_WHOLE_PIECE = regex.compile(r"[^\S ]|<|^(?![0-9])\d|(?![0-9])\d$")
_CLASSES = bytes(c if c in b" \n.)" else 0x30 if 0x30 <= c <= 0x39 else 0x78 for c in range(256))
_HAZARD = "\x00"  # the fragment of a piece that may depend on what follows it (the lexer deletes "\x00")
_SPLIT_WORDS = frozenset({"cannot", "gonna", "gotta", "lemme", "gimme", "wanna"})
_WINDOW = 64
_CACHE_LIMIT = 1 << 20
_FAST = FastPath(frozenset(ABBREV_STEMS), _SPLIT_WORDS)

_piece_cache: dict[str, str] = {}
_window_cache: dict[tuple[str, str], str] = {}
_caption_cache: dict[str, str] = {}  # captions that are not the last one and whose line needs no context


def _abbreviation(word: str) -> bool:
    """Whether the ASCII letters ``word`` and a period may make an abbreviation or an acronym (a superset)."""
    return len(word) == 1 or word.lower() in ABBREV_STEMS


def _fragment(tokens: list[str | None]) -> str:
    return " ".join(w for w in (t.lower() for t in tokens if t is not None) if w not in PUNCT)


def _store(cache: dict, key, value) -> None:  # type: ignore[type-arg]
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = value


def _piece(doc: str, start: int, end: int) -> tuple[str | None, bool]:
    """The output fragment of the space-free piece doc[start:end] (None when a token runs past it) and whether
    it depends only on the piece's text."""
    text = doc[start:end]
    cached = _piece_cache.get(text)
    if cached is not None and end < len(doc):
        return cached, True
    plain = _PLAIN.fullmatch(text)
    if plain is not None and end < len(doc):
        word, punct = plain.groups()
        if word.lower() not in _SPLIT_WORDS and (
                punct != "." or word.isdigit() or not _abbreviation(word)):
            frag = word.lower()
            _store(_piece_cache, text, frag)
            return frag, True
    if text.endswith(".") and end < len(doc) and _RISKY_TAIL.search(text) is not None:
        window = doc[end:end + _WINDOW]
        # the key must hold what the lexer may look at: up to a dozen characters after the following blanks
        keyable = "<" not in window and (len(window) < _WINDOW or len(window.lstrip()) >= 16)
        if keyable:
            hit = _window_cache.get((text, window))
            if hit is not None:
                return hit, False
        tokens: list[str | None] = []
        if lex(doc, start, end, tokens) != end:
            return None, False
        frag = _fragment(tokens)
        if keyable:
            _store(_window_cache, (text, window), frag)
        return frag, False
    tokens = []
    if lex(doc, start, end, tokens) != end:
        return None, False
    frag = _fragment(tokens)
    if end < len(doc):
        _store(_piece_cache, text, frag)
    return frag, end < len(doc)


def _line(tokens: list[str | None]) -> str:
    line = " ".join(t.lower() for t in tokens if t is not None)
    return " ".join(w for w in line.rstrip().split(" ") if w not in PUNCT)


def _caption(doc: str, start: int, end: int) -> tuple[str | None, bool]:
    """The output line of the caption doc[start:end] (None when its tokens do not stay inside it) and whether
    it depends on the caption's text alone (and on whether it ends the text)."""
    caption = doc[start:end]
    if _WHOLE.search(caption) is None:
        frags = []
        context_free = True
        pos = start
        get = _piece_cache.get
        for piece in (caption.split(" ") if "\t" not in caption else _SEPARATORS.split(caption)):
            if piece:
                frag = get(piece)
                if frag is not None and pos + len(piece) < len(doc):
                    context_free = True
                else:
                    frag, context_free = _piece(doc, pos, pos + len(piece))
                    if frag is None:
                        break
                if frag:
                    frags.append(frag)
            pos += len(piece) + 1
        else:
            return " ".join(frags), context_free
    tokens: list[str | None] = []
    if lex(doc, start, end, tokens) != end or None in tokens:
        return None, False
    return _line(tokens), False


def _document_lines(doc: str) -> list[str]:
    """The jar's lines for the whole text, as pycocoevalcap splits and filters them (the slow, general route)."""
    tokens: list[str | None] = []
    lex(doc, 0, len(doc), tokens)
    out: list[str] = []
    line: list[str] = []
    for t in tokens:
        if t is None:
            out.append(" ".join(line))
            line = []
        else:
            line.append(t.lower())
    out.append(" ".join(line))
    lines = "\n".join(out).split("\n")
    return [" ".join(w for w in ln.rstrip().split(" ") if w not in PUNCT) for ln in lines]


def _piece_alone(text: str) -> str:
    """The output fragment of the space-free piece ``text`` followed by a space or a line break and more text, as
    :func:`_piece` finds it, or ``_HAZARD`` when it may depend on that text or a token may run past the piece."""
    plain = _PLAIN.fullmatch(text)
    if plain is not None:
        word, punct = plain.groups()
        if word.lower() not in _SPLIT_WORDS and (
                punct != "." or word.isdigit() or not _abbreviation(word)):
            return word.lower()
    if text.endswith(".") and _RISKY_TAIL.search(text) is not None:
        return _HAZARD
    if _WHOLE_PIECE.search(text) is not None:
        return _HAZARD
    tokens: list[str | None] = []
    if lex(text + " ", 0, len(text), tokens) != len(text):
        return _HAZARD
    return _fragment(tokens)


def _distinct_lines(captions: list[str]) -> list[str | None] | None:
    """The lines of distinct captions free of "\\n" where they depend on the caption alone (as long as it is not
    the last of its batch), None where they may not; None if a caption holds another line break (then the whole text
    is lexed as one).

    The captions of the bulk route's class (:mod:`vecscore.coco.ptb_fast`) are done by a few passes over the whole
    text, the others by :func:`_piece_lines` (other line breaks are outside the class)."""
    lines: list[str | None]
    lines, risky = _FAST.lines(captions)  # type: ignore[assignment]
    if risky:
        others = [captions[i] for i in risky]
        text = "\n".join(others)
        if any(c in text for c in _OTHER_NEWLINES):
            return None
        for i, line in zip(risky, _piece_lines(others, text)):
            lines[i] = line
    return lines


def _piece_lines(captions: list[str], text: str) -> list[str | None]:
    """:func:`_distinct_lines` by pieces: their pieces are the text cut at spaces; each distinct piece is looked up
    once (:func:`_piece_alone`), and the fragments are joined and cut into lines by C string methods."""
    parts = text.replace("\n", " \n ").split(" ")
    get = _piece_cache.get
    table = {"": "", "\n": "\n"}
    for piece in set(parts).difference(table):
        frag = get(piece)
        if frag is None:
            frag = _piece_alone(piece)
            if frag is not _HAZARD:
                _store(_piece_cache, piece, frag)
        table[piece] = frag + " " if frag else frag
    out = "".join(map(table.__getitem__, parts)).replace(" \n", "\n")
    lines: list[str | None] = out[:-1].split("\n") if out.endswith(" ") else out.split("\n")  # type: ignore
    if _HAZARD in out:
        lines = [None if line is None or _HAZARD in line else line for line in lines]
    # tokens that may span a space (_WHOLE's "[\\d)] \\d" and "\\. \\."; _piece_alone refuses pieces with other
    # digits at an end): found in the UTF-8 text with each ASCII digit written "0" and other characters "x"
    classes = text.encode().translate(_CLASSES)
    hits = [i for pattern in (b"0 0", b") 0", b". .") for i in _find_all(classes, pattern)]
    if hits:
        breaks = [m.start() for m in re.finditer(b"\n", classes)]
        for i in hits:
            lines[bisect_right(breaks, i)] = None
    return lines


def _find_all(text: bytes, pattern: bytes) -> list[int]:
    out = []
    i = text.find(pattern)
    while i >= 0:
        out.append(i)
        i = text.find(pattern, i + 1)
    return out


def _tokenize_lines(captions: list[str]) -> list[str]:
    """pycocoevalcap's output lines for the captions: one per caption, except where the jar's line breaks differ
    from the captions (then as many as the jar gives)."""
    if not captions:
        return []
    if gc.isenabled():  # the call makes many objects and no cycles: the collector would only rescan the heap
        gc.disable()
        try:
            return _tokenize_lines(captions)
        finally:
            gc.enable()
    cache = _caption_cache
    missing = list(filterfalse(cache.__contains__, dict.fromkeys(captions)) if cache else dict.fromkeys(captions))
    if any(map(contains, missing, repeat("\n"))):  # pycocoevalcap replaces "\n" inside a caption by a space
        captions = [c.replace("\n", " ") for c in captions]
        missing = list(filterfalse(cache.__contains__, dict.fromkeys(captions)))
    found: list[str | None] | None = None
    if missing:
        found = _distinct_lines(missing)
        if found is None:  # other line breaks
            return _document_lines("\n".join(captions))
        if len(cache) + len(missing) > _CACHE_LIMIT:
            cache.clear()
        cache.update(zip(missing, found))  # type: ignore[arg-type]  # the None lines are taken out below
        if None in found:
            for c in compress(missing, map(is_, found, repeat(None))):
                del cache[c]
    # all the captions distinct and new: their lines are those found
    lines = found if found is not None and len(missing) == len(captions) else list(map(cache.get, captions))
    last = len(captions) - 1
    # the last caption ends the text: never taken from the cache; the bulk route's lines hold at the end too, but
    # for clitics ("it'll" at the very end is "it `ll")
    final, outside = _FAST.lines(captions[last:])
    lines[last] = None if outside or "'" in captions[last] else final[0]
    for i in list(compress(range(len(lines)), map(is_, lines, repeat(None)))):
        # captions whose line may depend on what follows them: lexed in place
        line = cache.get(captions[i]) if i < last else None  # a repeat within this call
        if line is None:
            doc = _context(captions, i)
            line, context_free = _caption(doc, 0, len(captions[i]))
            if line is None:
                return _document_lines("\n".join(captions))
            if context_free and i < last:
                _store(cache, captions[i], line)
        lines[i] = line
    return lines  # type: ignore[return-value]


def _context(captions: list[str], i: int) -> str:
    """The text from caption ``i`` to as far as the lexer looks from it: the end of the next line that is not blank
    (all the text if an SGML tag may start on the way)."""
    k = i + 1
    while k < len(captions) and (not captions[k] or captions[k].isspace()):
        k += 1
    doc = "\n".join(captions[i:k + 1])
    return "\n".join(captions[i:]) if "<" in doc else doc


def clear_cache() -> None:
    """Forget every piece and caption tokenized so far (each cache holds at most ``2**20`` entries)."""
    for cache in (_piece_cache, _window_cache, _caption_cache):
        cache.clear()


def ptb_tokenize(texts: list[str]) -> list[str]:
    """Each caption as pycocoevalcap's ``PTBTokenizer`` returns it: the jar's lower-cased tokens joined by single
    spaces without pycocoevalcap's punctuation tokens.  The texts are tokenized as one batch, like the jar sees
    them (a caption's last abbreviation depends on the next caption's first letter)."""
    lines = _tokenize_lines(list(texts))
    if len(lines) < len(texts):
        lines = lines + [""] * (len(texts) - len(lines))
    return lines[:len(texts)]


class PTBTokenizer:
    """Drop-in for ``pycocoevalcap.tokenizer.ptbtokenizer.PTBTokenizer`` without Java."""

    def tokenize(self, captions_for_image: dict) -> dict:  # type: ignore[type-arg]
        groups = captions_for_image.values()
        enabled = gc.isenabled()
        gc.disable()  # as in _tokenize_lines
        try:
            return self._tokenize(captions_for_image, groups)
        finally:
            if enabled:
                gc.enable()

    @staticmethod
    def _tokenize(captions_for_image: dict, groups) -> dict:  # type: ignore[no-untyped-def,type-arg]
        lines = _tokenize_lines(list(map(itemgetter("caption"), chain.from_iterable(groups))))
        if len(lines) == len(captions_for_image) and all(map((1).__eq__, map(len, groups))):
            return dict(zip(captions_for_image, map(list, zip(lines))))  # one caption per image
        sizes = list(map(len, groups))
        if len(lines) >= sum(sizes):
            ends = list(accumulate(sizes))
            return dict(compress(zip(captions_for_image, map(lines.__getitem__, map(slice, [0, *ends], ends))), sizes))
        # pycocoevalcap pairs captions and lines with zip: the last images get fewer lines or none
        result: dict = {}  # type: ignore[type-arg]
        image_id = [k for k, v in captions_for_image.items() for _ in range(len(v))]
        for k, line in zip(image_id, lines):
            result.setdefault(k, []).append(line)
        return result
