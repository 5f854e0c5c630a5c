"""METEOR 1.5's text preparation for English, as ``meteor-1.5.jar`` applies it to each line before aligning.

One line goes through, in order: the jar's normalizer (``-norm``: a Moses-style tokenizer with quote and dash
normalization, dots kept on nonbreaking prefixes, ``U.S.`` -> ``US``, and with ``-noPunct`` every character
outside the jar's letters and digits replaced by a space), then Java's ``String.toLowerCase``, then the
aligner's tokenization (split on ``" \\t\\n\\r\\f"``, Java's ``StringTokenizer``).  Everything follows Java's
semantics where they differ from Python's: the regular expressions' ``\\s`` and ``\\p{Digit}`` are ASCII only,
``trim`` strips every character up to U+0020, and only those five characters separate tokens (U+00A0 and
U+2028 stay inside a token unless the normalizer turned them into spaces).

``java_lower`` is Java 17's ``toLowerCase`` in a locale other than Turkish, Azeri and Lithuanian: Unicode 13's
case mappings (Python's newer tables lower a few letters that Java 17 leaves alone), and Java's rule for the
final sigma, which looks for cased letters within the word that ``java.text.BreakIterator`` finds around the
sigma (Python looks past case-ignorable characters only).  Characters added to Unicode after version 13 are
classified with Python's tables there, so a sigma next to one of them may differ from Java 17; newer JVMs
(Unicode 14 and later) also lowercase the few capitals that Java 17 leaves alone.

The nonbreaking prefixes are the jar's own list (``nonbreaking/english.prefixes``), read from the jar with
``load_prefixes``.
"""
from __future__ import annotations

import re
import unicodedata
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from os import PathLike

from vecscore.errors import VecscoreError

__all__ = ["Prefixes", "java_hash", "java_lower", "java_trim", "load_prefixes", "normalize_line", "prepare",
           "split_score_line", "tokenize"]

# --- character classes of the jar's normalizer (Latin-1, Latin Extended-A's caron letters, Cyrillic) ----------
_ALPHA = ("A-Za-z\u0160\u017d\u0161\u017e\u0178\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u017e"
          "\u0400-\u04ff\u0500-\u0527\ua640-\ua66e\ua67e-\ua697\u1d00-\u1d7f")
_ALNUM = "0-9" + _ALPHA
_JAVA_S = " \\t\\n\\x0b\\f\\r"  # Java's \s (ASCII whitespace)

_SEP_OTHER = re.compile(f"([^{_ALNUM}{_JAVA_S}.'`,\\-\u2018\u2019])")
_MULTI_DOT = re.compile(r"\.(\.+)")
_MULTI_DOT2 = re.compile(r"DOTMULTI\.([^.])")
_COMMA1 = re.compile(r"([^0-9]),([^0-9])")
_COMMA2 = re.compile(r"([0-9]),([^0-9])")
_COMMA3 = re.compile(r"([^0-9]),([0-9])")
_RM_DASH = re.compile(f"([{_ALNUM}.])-([{_ALNUM}])")
_CONT1 = re.compile(f"([^{_ALPHA}])'([^{_ALPHA}])")
_CONT2 = re.compile(f"([^{_ALPHA}0-9])'([{_ALPHA}])")
_CONT3 = re.compile(f"([{_ALPHA}])'([^{_ALPHA}])")
_CONT4 = re.compile(f"([{_ALPHA}])'([{_ALPHA}])")
_CONT5 = re.compile(r"([0-9])'(s)")
_HAS_ALPHA = re.compile(f"[{_ALPHA}]")
_PUNCT = re.compile(f"[^{_ALNUM}]")
_WHITE = re.compile("[ \u2000-\u200a\u202f\u205f\u3000\u00a0]+")
_TOKEN = re.compile("[^ \t\n\r\f]+")  # java.util.StringTokenizer's default delimiters
_TRIM = "".join(map(chr, range(0x21)))  # String.trim: every char <= U+0020
_LOWER_ASCII = frozenset("abcdefghijklmnopqrstuvwxyz")
_DIGITS = frozenset("0123456789")


@dataclass(frozen=True)
class Prefixes:
    """Nonbreaking prefixes: a word ``P.`` keeps its dot when ``P`` is in ``always``, or in ``numeric_only``
    and the next word starts with a digit (and, whatever the lists, when the next word starts with a-z)."""

    always: frozenset[str]
    numeric_only: frozenset[str]


def load_prefixes(jar_path: str | PathLike[str]) -> Prefixes:
    """The English nonbreaking prefixes of ``meteor-1.5.jar`` (its ``nonbreaking/english.prefixes``), read as
    the jar reads them: the first word of each line, ``#`` lines skipped, ``#NUMERIC_ONLY#`` as second word
    marks a numeric-only prefix, and a later line for the same prefix replaces an earlier one."""
    try:
        with zipfile.ZipFile(jar_path) as jar:
            text = jar.read("nonbreaking/english.prefixes").decode("utf-8")
    except (OSError, KeyError, zipfile.BadZipFile) as exc:
        raise VecscoreError(f"cannot read nonbreaking/english.prefixes from {jar_path!s}: {exc}") from exc
    kinds: dict[str, bool] = {}
    for line in text.splitlines():
        words = tokenize(line)
        if not words or words[0].startswith("#"):
            continue
        kinds[words[0]] = len(words) > 1 and words[1] == "#NUMERIC_ONLY#"
    return Prefixes(frozenset(p for p, num in kinds.items() if not num),
                    frozenset(p for p, num in kinds.items() if num))


@lru_cache(maxsize=1 << 20)
def java_hash(word: str) -> int:
    """Java's ``String.hashCode`` of ``word`` (over UTF-16 code units, wrapped to a signed 32-bit int): how the
    jar tells words apart."""
    h = 0
    data = word.encode("utf-16-le", "surrogatepass")
    for k in range(0, len(data), 2):
        h = (31 * h + (data[k] | (data[k + 1] << 8))) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def java_trim(s: str) -> str:
    """Java's ``String.trim``: strip every character up to U+0020 (control characters included) at both ends."""
    return s.strip(_TRIM)


def tokenize(s: str) -> list[str]:
    """Java's ``StringTokenizer`` with its default delimiters (space, tab, newline, carriage return, form feed)."""
    return _TOKEN.findall(s)


def _split_dots(words: list[str], prefixes: Prefixes) -> list[str]:
    """The normalizer's pass over words ending in a dot: ``U.S.`` -> ``US``, nonbreaking prefixes keep the dot,
    any other word gets its dot split off."""
    last = len(words) - 1
    out = words
    for i in [i for i, w in enumerate(words) if w[-1] == "." and len(w) > 1]:
        w = words[i]
        pre = w[:-1]
        nxt = words[i + 1][:1] if i < last else ""
        if "." in pre and _HAS_ALPHA.search(pre):
            w = w.replace(".", "")
        elif pre in prefixes.always or nxt in _LOWER_ASCII:
            continue
        elif pre in prefixes.numeric_only and nxt in _DIGITS:
            continue
        else:
            w = pre + " ."
        if out is words:
            out = words[:]
        out[i] = w
    return out


def normalize_line(line: str, *, keep_punct: bool, prefixes: Prefixes) -> str:
    """The jar's English normalizer (``Normalizer.normalizeLine``) on one line; the result is not lowercased."""
    s = " ".join(_SEP_OTHER.split(f" {line} "))  # each separated character gets a space on both sides
    if ".." in s:
        s = _MULTI_DOT.sub(r" DOTMULTI\1", s)
    while "DOTMULTI." in s:
        s = _MULTI_DOT2.sub(r"DOTDOTMULTI \1", s)
        s = s.replace("DOTMULTI.", "DOTDOTMULTI")
    if "," in s:
        s = _COMMA1.sub(r"\1 , \2", s)
        s = _COMMA2.sub(r"\1 , \2", s)
        s = _COMMA3.sub(r"\1 , \2", s)
    s = s.replace("`", "'").replace("\u2018", "'").replace("\u2019", "'")
    s = s.replace("\u201c", ' " ').replace("\u201d", ' " ').replace("''", ' " ')
    s = s.replace("\u2013", "-").replace("--", "-")
    if "-" in s:
        s = _RM_DASH.sub(r"\1 \2", s)
    if "'" in s:
        s = _CONT1.sub(r"\1 ' \2", s)
        s = _CONT2.sub(r"\1 ' \2", s)
        s = _CONT3.sub(r"\1 ' \2", s)
        s = _CONT4.sub(r"\1 '\2", s)
        s = _CONT5.sub(r"\1 '\2", s)
    words = tokenize(s)
    if "." in s:
        words = _split_dots(words, prefixes)
    s = " ".join(words) + " "
    while "DOTDOTMULTI" in s:
        s = s.replace("DOTDOTMULTI", "DOTMULTI.")
    s = s.replace("DOTMULTI", ".")
    if not keep_punct:
        s = _PUNCT.sub(" ", s)
    return java_trim(_WHITE.sub(" ", s))


def prepare(text: str, *, normalize: bool, keep_punct: bool, lowercase: bool, prefixes: Prefixes) -> list[str]:
    """The tokens the jar's aligner sees for one line of text.

    ``normalize`` runs the normalizer (``keep_punct=False`` also drops punctuation; it has no effect without
    ``normalize``), ``lowercase`` applies Java's lowercasing, and the result is split as the aligner splits it.
    The jar's modes: none (``normalize=False, lowercase=False``), ``-lower`` (``lowercase`` only), ``-norm``
    (``normalize, keep_punct, lowercase``), ``-norm -noPunct`` (``normalize, lowercase``, no ``keep_punct``).
    """
    if normalize:
        text = normalize_line(text, keep_punct=keep_punct, prefixes=prefixes)
    if lowercase:
        text = java_lower(text)
    return tokenize(text)


def split_score_line(line: str) -> tuple[list[str], str]:
    """The references and the hypothesis of a ``-stdio`` ``SCORE ||| ref1 ||| ... ||| hyp`` line, as the jar
    splits it: on every ``|||`` (so a ``|||`` inside a text makes one more field), with Java's ``String.split``
    dropping trailing empty fields, and each field trimmed.  A line with fewer than three fields is the jar's
    "specify hypothesis and at least one reference" error (``SCORE ||| ref |||`` is one: its empty hypothesis
    field is dropped, while ``SCORE ||| ref ||| `` scores an empty hypothesis)."""
    if not (line.startswith("SCORE") or line.startswith("score")):
        raise VecscoreError(f"not a SCORE line (the jar answers 'Error: specify SCORE or EVAL'): {line[:60]!r}")
    parts = line.split("|||")
    while len(parts) > 1 and parts[-1] == "":
        parts.pop()
    if len(parts) < 3:
        raise VecscoreError("a SCORE line needs a hypothesis and at least one reference (the jar answers "
                            f"'Error: specify hypothesis and at least one reference'): {line[:60]!r}")
    return [java_trim(p) for p in parts[1:-1]], java_trim(parts[-1])


# --- Java 17's String.toLowerCase -----------------------------------------------------------------------------

_SIGMA = "\u03a3"
# capital letters added after Unicode 13 (Java 17's tables), which Python lowercases and Java 17 leaves alone
_NEWER_CAPITALS = ("\u2c2f\ua7c0\ua7d0\ua7d6\ua7d8\U00010570-\U0001057a\U0001057c-\U0001058a\U0001058c-\U00010592"
                   "\U00010594\U00010595\u1c89\ua7cb\ua7cc\ua7da\ua7dc\U00010d50-\U00010d65")
_LOWER_SPECIAL = re.compile(f"[{_SIGMA}{_NEWER_CAPITALS}]")
_NEWER = re.compile(f"[{_NEWER_CAPITALS}]")


def java_lower(s: str) -> str:
    """Java 17's ``String.toLowerCase()`` (root-like locale): Unicode 13 mappings and Java's final-sigma rule."""
    if s.isascii():
        return s.lower()
    if _SIGMA not in s and _NEWER.search(s) is None:
        return s.lower()
    finals = _final_sigmas(s) if _SIGMA in s else ()
    out = []
    last = 0
    for m in _LOWER_SPECIAL.finditer(s):
        i = m.start()
        out.append(s[last:i].lower())
        ch = s[i]
        out.append(("\u03c2" if i in finals else "\u03c3") if ch == _SIGMA else ch)
        last = i + 1
    out.append(s[last:].lower())
    return "".join(out)


# Java decides a final sigma within the word (java.text.BreakIterator.getWordInstance) around it: it is final
# when that word has a cased letter before it and none after it.  The word rules, on one symbol per character
# (format characters are transparent; a segment is the longest match of any rule, at least one character):
_L, _D = "LE*", "DE*"
_WORD = f"(?:{_L})+(?:[PQM](?:{_L})+)*d?"
_NUM = f"(?:{_D})+(?:[PQc](?:{_D})+)*"
_TAIL = f"(?:{_NUM}{_WORD})*(?:{_NUM}O?)?"
_WORD_RULES = tuple(re.compile(p) for p in (
    f"(?:{_WORD})?{_TAIL}",  # letters and numbers, alternating
    f"[SP]{_TAIL}",  # a currency sign, # or . before a number
    "(?:[Wt]E*)*R?N?",  # white space, then a line end
    "[TC]*", "[HC]*", "K*",  # katakana, hiragana, kanji runs
    "[^EtRNX]E+",  # a base character and its marks
))
_OTHER_CASED = ((0x2B0, 0x2B8), (0x2C0, 0x2C1), (0x2E0, 0x2E4), (0x345, 0x345), (0x37A, 0x37A),
                (0x1D2C, 0x1D61), (0x2160, 0x217F), (0x24B6, 0x24E9))


@lru_cache(maxsize=4096)
def _word_symbol(ch: str) -> str:
    """The class of a character in Java's word-break rules ("" for the transparent format characters)."""
    o = ord(ch)
    cat = unicodedata.category(ch)
    if cat == "Cf" and o != 0xAD:  # the soft hyphen is a mid-word character
        return ""
    if cat in ("Mn", "Me"):
        return "E"
    if o in (0x964, 0x965):
        return "d"
    if o == 0x3005 or 0x4E00 <= o <= 0x9FA5 or 0xF900 <= o <= 0xFA2D:
        return "K"
    if 0x30A1 <= o <= 0x30FA or o in (0x30FD, 0x30FE):
        return "T"
    if 0x3041 <= o <= 0x3094 or o in (0x309D, 0x309E):
        return "H"
    if 0x3099 <= o <= 0x309C or o in (0x30FB, 0x30FC):
        return "C"
    if cat[0] == "L" or cat == "Mc":
        return "L"
    if cat[0] == "N":
        return "D"
    if ch == ".":
        return "P"  # inside words and numbers, and before numbers
    if ch in "\"'":
        return "Q"  # inside words and numbers
    if cat in ("Pd", "Pc") or o in (0xAD, 0x2027):
        return "M"  # inside words
    if ch == "," or o == 0x66B:
        return "c"  # inside numbers
    if o in (0x25, 0x26, 0xA2, 0x66A, 0x2030, 0x2031):
        return "O"  # after numbers
    if cat == "Sc" or ch == "#":
        return "S"  # before numbers
    if ch == "\t":
        return "t"
    if cat == "Zs":
        return "W"
    if ch == "\r":
        return "R"
    if ch in "\n\f\u2028\u2029":
        return "N"
    if cat in ("Cc", "Zl", "Zp"):
        return "X"
    return "B"


def _java_cased(ch: str) -> bool:
    if unicodedata.category(ch) in ("Lu", "Ll", "Lt"):
        return True
    o = ord(ch)
    return any(lo <= o <= hi for lo, hi in _OTHER_CASED)


def _final_sigmas(s: str) -> frozenset[int]:
    """Positions of the capital sigmas of ``s`` that Java lowercases to the final form."""
    symbols = []
    where = []  # position in s of each symbol
    for i, ch in enumerate(s):
        sym = _word_symbol(ch)
        if sym:
            symbols.append(sym)
            where.append(i)
    text = "".join(symbols)
    n = len(text)
    starts = []  # segment starts, as symbol indices
    k = 0
    while k < n:
        starts.append(k)
        end = k + 1
        for rule in _WORD_RULES:
            m = rule.match(text, k)
            if m is not None and m.end() > end:
                end = m.end()
        k = end
    bounds = [where[k] for k in starts[1:]] + [len(s)]  # a segment keeps the format characters that follow it
    cuts = set(bounds)
    # Java probes a position with following(position - 1): after a supplementary character that lands between
    # the halves of its surrogate pair, where the probe always reports a boundary
    cuts.update(i + 1 for i, ch in enumerate(s) if ch > "\uffff" and i > 0)
    finals = set()
    for i, ch in enumerate(s):
        if ch != _SIGMA:
            continue
        j = i
        while j > 0 and j not in cuts and not _java_cased(s[j - 1]):
            j -= 1
        if j == 0 or j in cuts:
            continue
        j = i + 1
        while j < len(s) and j not in cuts and not _java_cased(s[j]):
            j += 1
        if j == len(s) or j in cuts:
            finals.add(i)
    return frozenset(finals)
