"""``sentence_splitter="punct"``: the kernel (vecscore.kernels.sentences) gives the regular expressions' texts.

The regular expressions (:func:`vecscore.text.sentences.split_punct_plain`) are the twin; the
breaks themselves are checked by hand below.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vecscore.rouge import splitting
from vecscore.text import sentences

# every character the rule looks at, some that look alike, and Unicode whitespace
ALPHABET = list("aZk1 .!?\t\n\"'()[]") + ["\u00a0", "\u2003", "\u3000", "\u0085", "“", "‘", "”", "’", "。", "！",
                                           "？", "」", "』", "）", "「", "é", "İ", "\u212a", "你", "😀", "\x00"]
WORDS = ["Dr", "dr", "etc", "approx", "Mr", "e.g", "U.S", "I", "a", "word", "Zebra", "Jan", "sept", "x"]


def _split(texts):
    """The kernel's split (forced: the size-based route would take the plain one for these)."""
    return sentences.split_punct_compiled(list(texts))


@pytest.mark.parametrize("text,want", [
    ("Hello world. Next one!  Yes? Fine", "Hello world.\nNext one!\nYes?\nFine"),
    ('He said "stop." Then left.', 'He said "stop."\nThen left.'),
    ("Dr. Smith met Mr. Jones on Jan. 30. Then etc. Done", "Dr. Smith met Mr. Jones on Jan. 30.\nThen etc. Done"),
    ("A. B. the U.S. army. Next", "A. B. the U.S. army.\nNext"),
    ("end. \nnext", "end. \nnext"),  # a newline already follows the spaces: nothing to add
    ("what?! Really...  yes", "what?!\nReally...\nyes"),
    ("我爱北京。天安门很大！你好", "我爱北京。\n天安门很大！\n你好"),
    ("他说：“好。”然后", "他说：“好。”\n然后"),
    ("好。」\n下", "好。\n」\n下"),  # the regular expression gives back the closer before a newline
    ("", ""),
])
def test_breaks_by_hand(text, want):
    assert sentences.split_punct_plain(text) == want
    assert _split([text, text]) == [want, want]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.one_of(st.sampled_from(ALPHABET), st.sampled_from(WORDS)), max_size=30)
                .map("".join), min_size=1, max_size=8))
def test_kernel_equals_regular_expressions(texts):
    assert _split(texts) == [sentences.split_punct_plain(t) for t in texts]


def test_large_batch_takes_the_kernel_and_agrees(monkeypatch):
    rng = np.random.default_rng(5)
    pieces = np.array(ALPHABET[:-1] + [w + " " for w in WORDS] + [". ", "! ", "。"], dtype=object)
    texts = ["".join(rng.choice(pieces, size=int(rng.integers(0, 60)))) for _ in range(3000)]
    calls = []
    real = sentences.split_punct_compiled
    monkeypatch.setattr(sentences, "split_punct_compiled", lambda t: calls.append(len(t)) or real(t))
    monkeypatch.setenv("VECSCORE_ROUTE", "compiled")
    assert splitting.split_sentences(texts, "punct") == [sentences.split_punct_plain(t) for t in texts]
    assert calls == [3000]


def test_texts_the_kernel_leaves_to_the_plain_splitter():
    # a NUL inside a text, a lone surrogate, a non-ASCII word before a lone "." (Unicode lowercasing)
    for texts in (["a. B\x00c. D", "x"], ["a. B", "\ud800. C"], ["\u212a. Next", "Caf\u00e9. Next", "ok. Go"]):
        assert _split(texts) == [sentences.split_punct_plain(t) for t in texts]


def test_chunks_claimed_by_any_number_of_workers_give_the_same_texts():
    # split_punct's workers claim chunks of 64 texts: every text once, whichever worker takes it
    from vecscore.kernels.sentences import split_punct
    from vecscore.kernels.swar import work_counter
    from vecscore.kernels.tokenize import nul_offsets

    rng = np.random.default_rng(9)
    pieces = np.array(ALPHABET[:-1] + [w + ". " for w in WORDS] + ["。", "Dr. ", "“Jan. "], dtype=object)
    texts = ["".join(rng.choice(pieces, size=int(rng.integers(0, 40)))) for _ in range(700)]
    buf = np.frombuffer("\0".join(texts).encode("utf-8"), np.uint8)
    offsets = nul_offsets(buf, len(texts))
    want = [sentences.split_punct_plain(t) for t in texts]
    for workers in (1, 2, 3, 8):
        out, flagged = split_punct(buf, offsets, sentences.punct_keys(), workers, work_counter(workers))
        got = out.tobytes().decode("utf-8").split("\0")
        assert [g for g, f in zip(got, flagged) if not f] == [w for w, f in zip(want, flagged) if not f]
