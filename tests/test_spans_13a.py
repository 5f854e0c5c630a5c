"""sacreBLEU's 13a tokenizer as spans of the text (vecscore.kernels.spans_13a)
against sacreBLEU's own ``Tokenizer13a`` on adversarial ASCII strings."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vecscore.kernels.spans_13a import WORD_GROWTH, rewrite, spans_13a, spans_whitespace

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a  # noqa: E402

_13A = Tokenizer13a()


def _tokens(text: str) -> list[str]:
    src = np.frombuffer(text.encode("ascii"), np.uint8)
    starts, ends = np.empty(len(src) + 1, np.int64), np.empty(len(src) + 1, np.int64)
    wa, wb = (np.empty(WORD_GROWTH * (len(src) + 2) + 16, np.int64) for _ in range(2))
    ts, te, tsplit = (np.empty(len(src) + 2, np.int64) for _ in range(3))
    pad = np.empty(64, np.uint8)
    k = spans_13a(src, len(src), starts, ends, 0, wa, wb, True, ts, te, tsplit, pad)
    if k < 0:  # '<', '\n' or '&': step 1 first
        assert any(c in text for c in "<\n&")
        a = np.empty(len(src) + 1, np.uint8)
        src = a[: rewrite(src, a, pad)]
        k = spans_13a(src, len(src), starts, ends, 0, wa, wb, False, ts, te, tsplit, pad)
    else:
        assert not any(c in text for c in "<\n&")
    return [src[s:e].tobytes().decode("ascii") for s, e in zip(starts[:k], ends[:k])]


# every character class the rules tell apart: digits, '.', ',', '-', R1 punctuation, whitespace,
# letters, apostrophes, control characters, and the pieces of the replacement chain
_ALPHABET = "a1.,-9 \t\n$%()'\"&;<>x/\x00\x7f"
_PIECES = st.sampled_from(["&amp;", "&quot;", "&lt;", "&gt;", "<skipped>", "-\n", "&amp;amp;", "..", ".,", "9-9"])


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(st.lists(st.one_of(st.text(_ALPHABET, max_size=6), _PIECES), max_size=8).map("".join))
def test_spans_equal_sacrebleu_13a(text):
    assert _tokens(text) == _13A(text).split()


@pytest.mark.parametrize("text", ["", " ", "a", "a.", ".a", "a..b", "1.5", "1.5.", "1,000.", "5-6", "a-5", "-5-",
                                  "x.-1", "e.g.", "U.S.A.", "1.-2", "...", "a.b.c", "9.,9", "(a.)", "&amp;.5"])
def test_hand_picked_words(text):
    assert _tokens(text) == _13A(text).split()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(" \t\n\x0b\x0c\r\x1c\x1fab.", max_size=20), st.booleans())
def test_whitespace_and_char_spans_equal_str_split(text, single):
    assert _whitespace_spans(text.encode("ascii"), single) == ([c for c in text if not c.isspace()] if single
                                                              else text.split())


def _whitespace_spans(raw: bytes, single: bool, k0: int = 0, at_page_end: bool = False) -> list[str]:
    """:func:`spans_whitespace`'s tokens of ``raw`` written from slot ``k0`` (``at_page_end``: the text ends where
    a memory page ends, so that its last 64-byte block is copied into the pad)."""
    if at_page_end:
        big = np.zeros(3 * 4096 + len(raw), np.uint8)
        end = (-big.ctypes.data) % 4096 + 4096 + len(raw) // 4096 * 4096  # a page boundary past len(raw)
        big[end - len(raw):end] = np.frombuffer(raw, np.uint8)
        src = big[end - len(raw):end]
        assert not raw or (src.ctypes.data + len(raw)) % 4096 == 0
    else:
        src = np.frombuffer(raw, np.uint8)
    starts, ends = np.full(k0 + len(src) + 1, -7, np.int64), np.full(k0 + len(src) + 1, -7, np.int64)
    k = spans_whitespace(src, len(src), single, starts, ends, k0, np.empty(64, np.uint8))
    assert (starts[:k0] == -7).all() and (ends[:k0] == -7).all()
    return [src[s:e].tobytes().decode() for s, e in zip(starts[k0:k], ends[k0:k])]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(" \t\n\x0b\x0c\r\x1c\x1fabé日", max_size=300), st.integers(0, 3), st.booleans())
def test_whitespace_spans_across_blocks(text, k0, at_page_end):
    """Texts of up to 300 characters (several 64-byte blocks; tokens across their edges; UTF-8), written from a
    later slot, in place or ending at a page's end (the last block then read from the pad)."""
    assert _whitespace_spans(text.encode("utf-8"), False, k0, at_page_end) == text.split()


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.one_of(st.text(_ALPHABET, min_size=1, max_size=12), _PIECES,
                          st.sampled_from(["word", "abcdefghijkl", "1.5", "a.", "5-"])), min_size=10, max_size=80)
       .map(" ".join))
def test_long_texts_across_64_byte_blocks(text):
    # full blocks are read in place, tokens straddle block boundaries, the tail goes through the pad
    assert _tokens(text) == _13A(text).split()
    assert _tokens(text.replace(" ", "")) == _13A(text.replace(" ", "")).split()


_R1 = set(map(chr, [*range(33, 39), *range(40, 44), 47, *range(58, 65), *range(91, 97), *range(123, 127)]))


def _two_split_chars_in_a_word(text: str) -> bool:
    # words: what R1's characters and whitespace leave (R1: sacreBLEU's first regex, space aside)
    words = "".join(" " if c.isspace() or c in _R1 else c for c in text).split()
    return any(sum(w.count(c) for c in ".,-") >= 2 for w in words)


@settings(max_examples=600, deadline=None, derandomize=True)
@given(st.integers(0, 140), st.text("a1.,- ($", min_size=1, max_size=9), st.text("a1.,- ", max_size=4))
def test_mask_route_at_block_boundaries(lead, word, tail):
    # the mask route reads 64 bytes at a time: put every kind of word across a block boundary,
    # and check both its answer and its choice of route (-2: a word with two split characters)
    from vecscore.kernels.spans_13a import _spans_13a_masks

    text = "b" * (lead % 7) + " " * (lead - lead % 7) + word + tail
    assert _tokens(text) == _13A(text).split()
    src = np.frombuffer(text.encode("ascii"), np.uint8)
    starts, ends = np.empty(len(src) + 1, np.int64), np.empty(len(src) + 1, np.int64)
    got = _spans_13a_masks(src, len(src), starts, ends, 0, True, np.empty(64, np.uint8))
    assert (got == -2) == _two_split_chars_in_a_word(text)
    if got >= 0:
        assert [text[s:e] for s, e in zip(starts[:got], ends[:got])] == _13A(text).split()
