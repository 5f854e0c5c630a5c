"""TER's text preprocessing, as sacreBLEU 2.6's ``TER`` does it (its "tercom" tokenizer).

A text becomes tokens in this order (each step only when its option is on):

1. trailing whitespace is removed (``str.rstrip``); an empty text has no tokens;
2. lowercasing with ``str.lower`` unless ``case_sensitive``;
3. ``normalized``: the Western normalization of tercom (line joins, four XML
   entities, punctuation split off, possessive ``'s``, period/comma split
   unless next to a digit, dash after a digit), then with ``asian_support``
   every CJK ideograph, stroke, radical, compatibility character and CJK or
   full-width punctuation mark becomes a token of its own;
4. ``no_punct``: ``. , ? : ; ! " ( )`` are deleted, and with
   ``asian_support`` also the CJK and full-width punctuation marks;
5. split on whitespace (``str.split``).

sacreBLEU 2.6 runs this whole pipeline on every *reference* twice: once when
it gathers the references (``Metric._cache_references``) and again in
``TER._extract_reference_info``, the second time on the first pass's tokens
joined by single spaces; a hypothesis is tokenized once.  With ``normalized``
the pipeline is not idempotent (``"it's,"`` -> ``"it's ,"`` -> ``"it 's ,"``;
``",.1"`` -> ``", .1"`` -> ``", . 1"``), so the references get tokens a single
pass would not give.  :class:`TerTokenizer` takes the number of passes
(``passes=2`` is sacreBLEU's reference tokenization); :func:`ter_tokenize` is
one pass.

The character classes below are tercom's as sacreBLEU writes them, including
their quirks: the Western punctuation class also holds the space and ``^``,
``_`` and the backtick; the "enclosed CJK" class runs from U+3200 to U+3F22;
and the kana rules (see :func:`_kana_runs`) can only act on a text that is
nothing but kana, which never happens after step 3 pads the text with spaces.
"""
from __future__ import annotations

import re
from functools import lru_cache

from vecscore.errors import VecscoreError

__all__ = ["ter_tokenize", "TerTokenizer"]

# Western punctuation (ASCII ranges 0x20-0x26, 0x28-0x2B, 0x2F, 0x3A-0x40, 0x5B-0x60, 0x7B-0x7E)
_WESTERN_PUNCT = re.compile("([\x20-\x26\x28-\x2b\x2f\x3a-\x40\x5b-\x60\x7b-\x7e])")
_POSSESSIVE_SPACE = re.compile("'s ")
_POSSESSIVE_END = re.compile("'s$")
_DOT_COMMA_AFTER = re.compile("([^0-9])([.,])")   # period/comma after a non-digit
_DOT_COMMA_BEFORE = re.compile("([.,])([^0-9])")  # period/comma before a non-digit
_DASH_AFTER_DIGIT = re.compile("([0-9])(-)")

_ASIAN_PUNCT = "\u3001\u3002\u3008-\u3011\u3014-\u301f\uff61-\uff65\u30fb"
_FULL_WIDTH_PUNCT = "\uff0e\uff0c\uff1f\uff1a\uff1b\uff01\uff02\uff08\uff09"
# sacreBLEU applies these one after the other; each only puts spaces around single characters
_ASIAN_SPLITS = [re.compile(f"([{cls}])") for cls in (
    "\u4e00-\u9fff\u3400-\u4dbf",          # CJK unified ideographs (+ extension A)
    "\u31c0-\u31ef\u2e80-\u2eff",          # strokes, radicals supplement
    "\u3300-\u33ff\uf900-\ufaff\ufe30-\ufe4f",  # compatibility, compatibility ideographs and forms
    "\u3200-\u3f22",                       # "enclosed CJK letters and months" (as written: to U+3F22)
)]
_KANA = ("\u3040-\u309f", "\u30a0-\u30ff", "\u31f0-\u31ff")  # hiragana, katakana, katakana extensions
_KANA_RUNS = [re.compile(f"\\A([{k}]+)(?=\n?\\Z)") for k in _KANA]
_ASIAN_PUNCT_RE = re.compile(f"([{_ASIAN_PUNCT}])")
_FULL_WIDTH_RE = re.compile(f"([{_FULL_WIDTH_PUNCT}])")
_DROP_PUNCT = re.compile('[.,?:;!"()]')
_DROP_ASIAN = re.compile(f"[{_ASIAN_PUNCT}{_FULL_WIDTH_PUNCT}]")


def _western(text: str) -> str:
    text = text.replace("\n-", "").replace("\n", " ")
    for entity, char in (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">")):
        text = text.replace(entity, char)  # in this order: "&amp;lt;" ends as "<"
    text = _WESTERN_PUNCT.sub(r" \1 ", " " + text + " ")
    text = _POSSESSIVE_SPACE.sub(" 's ", text)
    text = _POSSESSIVE_END.sub(" 's", text)
    text = _DOT_COMMA_AFTER.sub(r"\1 \2 ", text)
    text = _DOT_COMMA_BEFORE.sub(r" \1 \2", text)
    return _DASH_AFTER_DIGIT.sub(r"\1 \2 ", text)


def _kana_runs(text: str) -> str:
    """tercom's kana rule as sacreBLEU's regex behaves: a text made only of one kana block gets spaces around it."""
    for pattern in _KANA_RUNS:
        text = pattern.sub(r" \1 ", text)
    return text


def _asian(text: str) -> str:
    for pattern in _ASIAN_SPLITS:
        text = pattern.sub(r" \1 ", text)
    text = _kana_runs(text)
    text = _ASIAN_PUNCT_RE.sub(r" \1 ", text)
    return _FULL_WIDTH_RE.sub(r" \1 ", text)


def ter_tokenize(text: str, normalized: bool = False, no_punct: bool = False, asian_support: bool = False,
                 case_sensitive: bool = False) -> list[str]:
    """The tokens sacreBLEU's ``TER`` scores for ``text`` (see the module docstring)."""
    text = text.rstrip()
    if not text:
        return []
    if not case_sensitive:
        text = text.lower()
    if normalized:
        text = _western(text)
        if asian_support:
            text = _asian(text)
    if no_punct:
        text = _DROP_PUNCT.sub("", text)
        if asian_support:
            text = _DROP_ASIAN.sub("", text)
    return text.split()


@lru_cache(maxsize=1 << 16)
def _tokens(text: str, normalized: bool, no_punct: bool, asian_support: bool, case_sensitive: bool,
            passes: int = 1) -> tuple:
    # shared by all calls (references are often scored against many systems), like sacreBLEU's own cache
    if passes > 1:  # each pass reads the previous one's tokens joined by single spaces, as sacreBLEU's strings
        text = " ".join(_tokens(text, normalized, no_punct, asian_support, case_sensitive, passes - 1))
    return tuple(ter_tokenize(text, normalized, no_punct, asian_support, case_sensitive))


class TerTokenizer:
    """:func:`ter_tokenize` with fixed options, returning tuples; recent texts are remembered across calls.

    ``passes``: how many times the whole pipeline runs, each pass on the previous one's tokens joined by
    single spaces (sacreBLEU 2.6 tokenizes a hypothesis once and a reference twice; see the module docstring).
    """

    def __init__(self, normalized: bool = False, no_punct: bool = False, asian_support: bool = False,
                 case_sensitive: bool = False, passes: int = 1):
        if isinstance(passes, bool) or not isinstance(passes, int) or passes < 1:
            raise VecscoreError(f"passes must be an int >= 1, not {passes!r}")
        self.options = (bool(normalized), bool(no_punct), bool(asian_support), bool(case_sensitive))
        self.passes = passes

    def __call__(self, text: str) -> tuple:
        return _tokens(text, *self.options, self.passes)

    def signature(self) -> str:
        return "tercom"
