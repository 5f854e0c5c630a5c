"""Reading a batch of ``str`` in place (vecscore.kernels.in_place, vecscore.engine.pair_rows).

Expected bytes come from Python's own ``str.encode``; expected scores from
the corpus-vocabulary route and from rouge-score's tokenizer rules.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vecscore
from vecscore import VecscoreError
from vecscore.engine.batch import build_batch
from vecscore.engine.pair_rows import pair_rows
from vecscore.kernels.in_place import (
    ASCII,
    NON_ASCII,
    NOT_STR,
    TextRows,
    from_buffer,
    str_rows,
    text_at,
    word_at,
)
from vecscore.references import read_pairs, read_texts
from vecscore.rouge.compiled import metric_stats
from vecscore.rouge.direct import direct_stats, lowered_utf8
from vecscore.rouge.options import parse_metric

pytestmark = pytest.mark.skipif(str_rows([]) is None, reason="this Python's str cannot be read in place")


class Sub(str):
    pass


def _bytes(rows: TextRows, i: int) -> bytes:
    return bytes(text_at(int(rows.addrs[i]), int(rows.lens[i])))


def test_rows_are_classified_and_ascii_rows_read_exactly():
    rows = ["plain", "", "x", "with\x00nul and\ttab", "café", "\u0100", "\U0001f600", None, 7, b"b", Sub("sub"),
            "".join(["long " * 1000])]
    got = str_rows(rows)
    want = [ASCII, ASCII, ASCII, ASCII, NON_ASCII, NON_ASCII, NON_ASCII, NOT_STR, NOT_STR, NOT_STR, NOT_STR, ASCII]
    assert got.kind.tolist() == want
    for i, r in enumerate(rows):
        if want[i] == ASCII:
            assert _bytes(got, i) == r.encode("ascii")
    assert str_rows(tuple(rows)).kind.tolist() == want  # a tuple is its own snapshot


def test_several_sequences_are_read_one_after_another():
    a = ["one", "caf\u00e9", None]
    b = ("", "two words", 3)
    got = str_rows(a, b)
    assert got.kind.tolist() == [ASCII, NON_ASCII, NOT_STR, ASCII, ASCII, NOT_STR]
    assert [_bytes(got, i) for i in (0, 3, 4)] == [b"one", b"", b"two words"]
    assert got.keep[0] == tuple(a) and got.keep[1] is b  # one snapshot per sequence; a tuple is its own
    assert str_rows().kind.tolist() == [] and str_rows([], b).kind.tolist() == got.kind.tolist()[3:]


def test_word_at_reads_any_alignment():
    s = "abcdefghijklmnop"
    got = str_rows([s])
    for k in range(8):
        assert int(word_at(int(got.addrs[0]) + k)) == int.from_bytes(s[k : k + 8].encode(), "little", signed=True)


def test_patched_rows_and_buffers():
    got = str_rows(["abc", "café", "de"])
    fixed = got.patched(np.array([1]), ["CAFÉ".encode("utf-8")])
    assert fixed.kind.tolist() == [ASCII] * 3
    assert [_bytes(fixed, i) for i in range(3)] == [b"abc", "CAFÉ".encode("utf-8"), b"de"]
    assert got.kind.tolist() == [ASCII, NON_ASCII, ASCII]  # the original is unchanged
    buf = np.frombuffer(b"ab\x00\x00cde", np.uint8)
    nul = from_buffer(buf, np.array([0, 3, 4, 7]), separator=True)
    assert [_bytes(nul, i) for i in range(3)] == [b"ab", b"", b"cde"]
    both = TextRows.concat([fixed, nul])
    assert [_bytes(both, i) for i in range(6)] == [b"abc", "CAFÉ".encode("utf-8"), b"de", b"ab", b"", b"cde"]


def test_pair_rows_flattens_references_and_keeps_order():
    read = read_texts(["h0", "h1"], [["r00", "r01"], "r10"], "per-example", "test")
    rows, ref_ptr, texts = pair_rows(*read, lowered_utf8)
    assert ref_ptr.tolist() == [0, 2, 3]
    assert [_bytes(rows, i) for i in range(len(rows))] == [b"h0", b"h1", b"r00", b"r01", b"r10"]
    assert [texts[i] for i in range(len(texts))] == ["h0", "h1", "r00", "r01", "r10"]
    rows, ref_ptr, _ = pair_rows(*read_texts(["h0", "h1"], [["a", None], ["b", "c"]], "streams", "test"), lowered_utf8)
    assert ref_ptr.tolist() == [0, 2, 3] and [_bytes(rows, i) for i in range(2, 5)] == [b"a", b"b", b"c"]
    # no encoder: not for this route
    assert pair_rows(*read_texts(["h", "é"], ["r", "r"], "per-example", "test"), None) is None


_WORDS = ["a", "Cat", "CAT", "x9", "naïve", "ÉTÉ", "\u212a", "\x00", "abcdefghij", ".", ""]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from(_WORDS), max_size=12).map(" ".join),
                          st.lists(st.lists(st.sampled_from(_WORDS), max_size=12).map(" ".join), min_size=1,
                                   max_size=3)), min_size=1, max_size=6),
       st.booleans())
def test_mixed_batches_score_as_the_corpus_route(pairs, subclass):
    # ASCII rows in place, non-ASCII and str-subclass rows encoded, NULs inside texts: one result
    hyps = [Sub(h) if subclass else h for h, _ in pairs]
    refs = [rs for _, rs in pairs]
    parsed = [parse_metric(m) for m in ("rouge1", "rouge2", "rougeL")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        direct, ref_ptr = direct_stats(*read_pairs(hyps, refs), parsed)
        batch = build_batch([str(h) for h in hyps], refs)
    assert np.array_equal(ref_ptr, batch.ref_ptr)
    for (kind, param), got in zip(parsed, direct):
        for a, b in zip(got, metric_stats(batch, kind, param)[:3]):
            assert np.array_equal(a, b), (kind, param)


def test_rows_that_are_not_text_are_named():
    with pytest.raises(VecscoreError, match=r"hyps\[2\]"):
        vecscore.rouge(["a", "b", 3], ["a", "b", "c"], metrics=["rouge1"])
    with pytest.raises(VecscoreError, match=r"refs\[0\]\[1\]"):
        vecscore.rouge(["a"], [["a", None]], metrics=["rouge1"])


def test_nul_inside_a_text_is_a_separator_for_rouge_score():
    r = vecscore.rouge(["the cat\x00sat"], ["the cat sat"], metrics=["rouge2"])
    assert r["rouge2"].fmeasure.tolist() == [1.0]
