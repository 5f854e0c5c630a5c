"""Per-code-point flag tables for the sacreBLEU tokenizers.

One uint8 array of ``0x110000`` entries holds, for every code point, the bits
below.  It is built on first use (about 0.1 s) and kept in memory.

``FLAG_P``, ``FLAG_S``, ``FLAG_N``
    the code point matches ``\\p{P}``, ``\\p{S}``, ``\\p{N}`` of the ``regex``
    module, which is what sacreBLEU's ``intl`` tokenizer uses.  The classes
    are taken from ``regex`` itself when it is installed (it is a sacreBLEU
    dependency), because ``regex`` ships its own, usually newer, Unicode
    database than Python's ``unicodedata`` (e.g. regex 2026.5.9 knows 37
    punctuation, 876 symbol and 133 number code points that are unassigned in
    Python 3.11's Unicode 14.0).  Without ``regex`` the table falls back to
    ``unicodedata.category`` and differs from sacreBLEU exactly on those.
``FLAG_WS``
    Python's ``str.isspace()``: what ``str.split()`` and ``str.strip()`` use.
``FLAG_ZH``
    sacreBLEU 2.6's ``zh`` "Chinese character" test, as it behaves: two of
    its ranges are written with 5-hex-digit ``\\u`` escapes, which Python
    reads as a 4-digit escape plus a digit, and the comparison is between
    strings, so they act as U+2001..U+2A6D and U+2F81..U+2FA1 (sacrebleu#298).
``FLAG_ZH_FIXED``
    the intended ranges: the same list with those two rows as the full CJK
    Extension B (U+20000..U+2A6DF) and Compatibility Ideographs Supplement
    (U+2F800..U+2FA1F) blocks, plus the later extensions C..I, the full
    Extension A (U+3400..U+4DBF) and Unified Ideographs (U+4E00..U+9FFF)
    blocks, which have grown since the list was written.
"""
from __future__ import annotations

import threading

import numpy as np

__all__ = [
    "FLAG_P",
    "FLAG_S",
    "FLAG_N",
    "FLAG_WS",
    "FLAG_ZH",
    "FLAG_ZH_FIXED",
    "WHITESPACE",
    "ZH_RANGES",
    "ZH_FIXED_RANGES",
    "flag_table",
]

FLAG_P = 1
FLAG_S = 2
FLAG_N = 4
FLAG_WS = 8
FLAG_ZH = 16
FLAG_ZH_FIXED = 32

N_CODEPOINTS = 0x110000

# str.isspace(): bidirectional class WS, B or S, or general category Zs.
WHITESPACE = (
    tuple(range(0x09, 0x0E))
    + tuple(range(0x1C, 0x21))
    + (0x85, 0xA0, 0x1680)
    + tuple(range(0x2000, 0x200B))
    + (0x2028, 0x2029, 0x202F, 0x205F, 0x3000)
)

# Shared rows of sacreBLEU's Chinese ranges (inclusive code point bounds).
_ZH_COMMON = (
    (0x3400, 0x4DB5),  # CJK Unified Ideographs Extension A
    (0x4E00, 0x9FA5),  # CJK Unified Ideographs
    (0x9FA6, 0x9FBB),  # CJK Unified Ideographs (Unicode 4.1)
    (0xF900, 0xFA2D),  # CJK Compatibility Ideographs
    (0xFA30, 0xFA6A),
    (0xFA70, 0xFAD9),
    (0xFF00, 0xFFEF),  # half- and full-width forms
    (0x2E80, 0x2EFF),  # CJK Radicals Supplement
    (0x3000, 0x303F),  # CJK Symbols and Punctuation
    (0x31C0, 0x31EF),  # CJK Strokes
    (0x2F00, 0x2FDF),  # Kangxi Radicals
    (0x2FF0, 0x2FFF),  # Ideographic Description Characters
    (0x3100, 0x312F),  # Bopomofo
    (0x31A0, 0x31BF),  # Bopomofo Extended
    (0xFE10, 0xFE1F),  # Vertical Forms
    (0xFE30, 0xFE4F),  # CJK Compatibility Forms
    (0x2600, 0x26FF),  # Miscellaneous Symbols
    (0x2700, 0x27BF),  # Dingbats
    (0x3200, 0x32FF),  # Enclosed CJK Letters and Months
    (0x3300, 0x33FF),  # CJK Compatibility
)

# As sacreBLEU 2.6 behaves (the two malformed rows, sacrebleu#298).
ZH_RANGES = _ZH_COMMON + ((0x2001, 0x2A6D), (0x2F81, 0x2FA1))

# As intended, with whole blocks and the later CJK extensions.
ZH_FIXED_RANGES = _ZH_COMMON + (
    (0x3400, 0x4DBF),  # Extension A, whole block
    (0x4E00, 0x9FFF),  # Unified Ideographs, whole block
    (0x20000, 0x2A6DF),  # Extension B
    (0x2A700, 0x2B73F),  # Extension C
    (0x2B740, 0x2B81F),  # Extension D
    (0x2B820, 0x2CEAF),  # Extension E
    (0x2CEB0, 0x2EBEF),  # Extension F
    (0x2EBF0, 0x2EE5F),  # Extension I
    (0x2F800, 0x2FA1F),  # Compatibility Ideographs Supplement
    (0x30000, 0x3134F),  # Extension G
    (0x31350, 0x323AF),  # Extension H
)

_lock = threading.Lock()
_cache: dict[str, object] = {}


def _all_chars() -> str:
    """Every code point except the surrogates, as one string."""
    cps = np.arange(N_CODEPOINTS, dtype=np.uint32)
    cps = cps[(cps < 0xD800) | (cps > 0xDFFF)]
    return cps.tobytes().decode("utf-32-le")


def _codepoints(s: str) -> np.ndarray:
    return np.frombuffer(s.encode("utf-32-le"), dtype=np.uint32)


def _classes_from_regex(chars: str) -> dict[int, np.ndarray]:
    import regex

    out = {}
    for flag, cls in ((FLAG_P, "P"), (FLAG_S, "S"), (FLAG_N, "N")):
        out[flag] = _codepoints("".join(regex.findall(r"\p{%s}" % cls, chars)))
    return out


def _classes_from_unicodedata(chars: str) -> dict[int, np.ndarray]:
    import unicodedata

    major = np.frombuffer("".join(unicodedata.category(c)[0] for c in chars).encode("ascii"), np.uint8)
    cps = _codepoints(chars)
    return {flag: cps[major == ord(cls)] for flag, cls in ((FLAG_P, "P"), (FLAG_S, "S"), (FLAG_N, "N"))}


def _set_ranges(table: np.ndarray, ranges, flag: int) -> None:
    for lo, hi in ranges:
        table[lo : hi + 1] |= flag


def build_flag_table(source: str = "auto") -> tuple[np.ndarray, str]:
    """Build the flag table.

    Parameters
    ----------
    source : {"auto", "regex", "unicodedata"}
        Where the ``P``/``S``/``N`` classes come from; ``"auto"`` prefers the
        ``regex`` module and falls back to ``unicodedata``.

    Returns
    -------
    table : ndarray of uint8, shape (0x110000,)
    source : str
        The source actually used.
    """
    chars = _all_chars()
    if source == "auto":
        try:
            import regex  # noqa: F401

            source = "regex"
        except ImportError:  # pragma: no cover - regex comes with sacrebleu
            source = "unicodedata"
    classes = _classes_from_regex(chars) if source == "regex" else _classes_from_unicodedata(chars)
    table = np.zeros(N_CODEPOINTS, dtype=np.uint8)
    for flag, cps in classes.items():
        table[cps] |= flag
    table[list(WHITESPACE)] |= FLAG_WS
    _set_ranges(table, ZH_RANGES, FLAG_ZH)
    _set_ranges(table, ZH_FIXED_RANGES, FLAG_ZH_FIXED)
    return table, source


def flag_table() -> np.ndarray:
    """The process-wide flag table, built on first call."""
    table = _cache.get("table")
    if table is None:
        with _lock:
            if "table" not in _cache:
                _cache["table"], _cache["source"] = build_flag_table()
            table = _cache["table"]
    return table
