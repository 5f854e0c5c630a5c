"""Plain-Python twins of the built-in tokenizers."""
from __future__ import annotations

import re


def rouge_score_tokens(text: str) -> list[str]:
    """rouge-score 0.1.2's tokenizer without stemming, written out."""
    text = re.sub(r"[^a-z0-9]+", " ", text.lower())
    return [t for t in re.split(r"\s+", text) if re.match(r"^[a-z0-9]+$", t)]


def whitespace_tokens(text: str) -> list[str]:
    return text.split()


def char_tokens(text: str) -> list[str]:
    return [c for c in text if not c.isspace()]


def _is_cjk(c: str) -> bool:
    cp = ord(c)
    ranges = [
        (0x1100, 0x11FF), (0x2E80, 0x2FDF), (0x3005, 0x3007), (0x3021, 0x3029), (0x3038, 0x303B),
        (0x3040, 0x30FF), (0x3130, 0x318F), (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF),
        (0xA960, 0xA97F), (0xAC00, 0xD7FF), (0xF900, 0xFAFF), (0xFF66, 0xFF9F), (0xFFA0, 0xFFDC),
        (0x20000, 0x323AF),
    ]  # fmt: skip
    return any(lo <= cp <= hi for lo, hi in ranges)


def cjk_tokens(text: str) -> list[str]:
    out = []
    for word in text.split():
        run = ""
        for c in word:
            if _is_cjk(c):
                if run:
                    out.append(run)
                    run = ""
                out.append(c)
            else:
                run += c
        if run:
            out.append(run)
    return out


def intern_first_occurrence(tokens: list[str]) -> list[int]:
    index: dict[str, int] = {}
    return [index.setdefault(t, len(index)) for t in tokens]
