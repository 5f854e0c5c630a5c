"""rougeLsum with ``sentence_splitter="punct"`` on every route, against rouge-score on the texts split by
the regular expressions (:func:`vecscore.text.sentences.split_punct_plain`, the splitter's twin).

The per-pair route finds the splitter's breaks in ASCII texts inside its kernel
(:func:`vecscore.kernels.pair_lsum.text_sentences`) and splits the other texts first; the plain
and general compiled routes split every text first.  Expected values come from rouge-score.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vecscore
from vecscore.engine.pair_rows import pair_rows
from vecscore.kernels.intern import ASCII_LOWER
from vecscore.kernels.pair_rouge import pair_rouge_stats
from vecscore.kernels.wide_text import ROUGE_SCORE
from vecscore.references import read_pairs, read_texts
from vecscore.rouge.direct import direct_stats, lowered_utf8
from vecscore.rouge.options import parse_metric
from vecscore.text.sentences import punct_keys, split_punct_plain
from vecscore.text.tokenizers import ROUGE_SCORE_TABLE

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
_LSUM = rouge_scorer.RougeScorer(["rougeLsum"])
_LSUM_STEM = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True)

# every byte the rule looks at (ASCII whitespace of each kind, closers, openers), abbreviations,
# one-letter words, words with a "." inside, and a few non-ASCII characters (those texts are split first)
_ASCII = list("aZk1 .!?\t\n\"'()[]") + ["\x0b", "\x0c", "\r", "\x1c", "\x1f"]
_WORDS = ["Dr", "dr", "etc", "approx", "Mr", "e.g", "U.S", "I", "a", "word", "Zebra", "Jan", "sept", "x", "the",
          "cat", "supercalifragilistic", "abcdefgh", ". ", "! ", "? ", ".\" ", ".) ", "... ", " ", "  ", "\t"]
_WIDE = ["\u00a0", "\u2003", "“", "”", "’", "。", "é", "İ", "\u212a", "你"]
_ascii_text = st.lists(st.one_of(st.sampled_from(_ASCII), st.sampled_from(_WORDS)), max_size=40).map("".join)
_any_text = st.lists(st.one_of(st.sampled_from(_ASCII), st.sampled_from(_WORDS), st.sampled_from(_WIDE)),
                     max_size=40).map("".join)


def _want(hyp: str, ref: str, scorer=_LSUM):
    return scorer.score(split_punct_plain(ref), split_punct_plain(hyp))["rougeLsum"]


def _direct_lsum(hyps, refs):
    """(hits, hyp_count, ref_count) of rougeLsum on the per-pair route with the punct splitter."""
    found = direct_stats(*read_pairs(hyps, refs), [parse_metric("rougeLsum")], splitter="punct", warn_empty=False)
    assert found is not None
    (stats,), ref_ptr = found
    return stats, ref_ptr


def _assert_rouge_score(hyps, refs, stats, ref_ptr, scorer=_LSUM):
    hits, nh, nr = stats
    for p, rs in enumerate(refs):
        for j, r in enumerate(rs if isinstance(rs, list) else [rs]):
            q = int(ref_ptr[p]) + j
            want = _want(hyps[p], r, scorer)
            if nh[p] == 0 or nr[q] == 0:
                assert hits[q] == 0 and want.precision == want.recall == 0
            else:
                assert (hits[q] / nh[p], hits[q] / nr[q]) == (want.precision, want.recall), (hyps[p], r)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_any_text, st.lists(_any_text, min_size=1, max_size=3)), min_size=1, max_size=6),
       st.integers(0, 3))
def test_direct_route_equals_rouge_score(pairs, repeat):
    # repeating a hypothesis spans several 64-byte blocks: breaks across block edges
    hyps = [" ".join([h] * (1 + 3 * repeat)) for h, _ in pairs]
    refs = [rs for _, rs in pairs]
    stats, ref_ptr = _direct_lsum(hyps, refs)
    _assert_rouge_score(hyps, refs, stats, ref_ptr)


def _kernel_lsum(hyps, refs, punct, key_mask=-1):
    rows, ref_ptr, _ = pair_rows(*read_texts(list(hyps), list(refs), "per-example", "test"), lowered_utf8, ROUGE_SCORE)
    flags = np.full(len(rows), punct, np.bool_)
    out = pair_rouge_stats(rows.addrs, rows.lens, ROUGE_SCORE_TABLE, ASCII_LOWER, ref_ptr, np.array([1], np.int64),
                           False, key_mask, want_lsum=True, punct=flags, abbrev=punct_keys())
    return out[3]


def test_kernel_breaks_equal_the_regular_expressions_on_many_texts():
    # the kernel on unsplit ASCII texts = the kernel on the texts the regular expressions split
    rng = np.random.default_rng(11)
    pieces = np.array(_ASCII + _WORDS + ["Dr. ", "e.g. ", "a. ", "U.S. ", "etc. ", "x? ", "end.\" ", "(Jan. "],
                      dtype=object)
    hyps = ["".join(rng.choice(pieces, size=int(rng.integers(0, 150)))) for _ in range(400)]
    refs = ["".join(rng.choice(pieces, size=int(rng.integers(0, 150)))) for _ in range(400)]
    for mask in (-1, np.int64(-(1 << 63) | 3)):  # long tokens' keys colliding too
        got = _kernel_lsum(hyps, refs, True, mask)
        want = _kernel_lsum([split_punct_plain(t) for t in hyps], [split_punct_plain(t) for t in refs], False, mask)
        assert np.array_equal(got, want)
    stats, ref_ptr = _direct_lsum(hyps[:60], refs[:60])
    _assert_rouge_score(hyps[:60], refs[:60], stats, ref_ptr)


def test_breaks_by_hand():
    hyps = ["Dr. Smith met Mr. Jones on Jan. 30. Then etc. Done", "A. B. the U.S. army. Next one!  Yes? Fine",
            'He said "stop." Then left.', "what?! Really...\tyes", "end. \nnext.\x0b. x", "“Dr. Who.” Then São. Go",
            "a " * 70 + ". " + "b " * 5, "no breaks here"]
    refs = [["Then etc. Done. Dr. Smith met", "Jones"], ["the U.S. army. Next.", "B. Fine? Yes!"],
            ['"stop." Then', "He left."], ["yes. what"], ["next x. end"], ["Who. Then Go São"], ["a a a. b b"],
            ["no. breaks. here."]]
    stats, ref_ptr = _direct_lsum(hyps, refs)
    _assert_rouge_score(hyps, refs, stats, ref_ptr)


@pytest.mark.parametrize("extra", [
    [],
    ["\u0130stanbul. Next \u212a. one"],  # characters that lower to ASCII letters: lowered UTF-8 rows
    ["caf\u00e9\x00. Au lait. x"],  # a NUL: the splitting kernel cannot take the batch
])
def test_non_ascii_rows_split_first(extra):
    # a non-ASCII word before a lone "." (the kernel leaves those texts to the regular expressions),
    # curly quotes and Unicode spaces around the ends, CJK ends
    hyps = ["Caf\u00e9. Next one. D\u00e9j\u00e0 vu!", "\u201cStop.\u201d Then\u00a0left. Now", "好。天安门 Go. Now",
            "S\u00e3o. Paulo. x"] + extra
    refs = [["Next one. Caf\u00e9", "vu! D\u00e9j\u00e0"], ["Then left. Stop."], ["Go. 天安门 好"],
            ["Paulo x. S\u00e3o"]] + [["Next one. \u0130stanbul", "lait. Au caf\u00e9 x"]] * len(extra)
    stats, ref_ptr = _direct_lsum(hyps, refs)
    _assert_rouge_score(hyps, refs, stats, ref_ptr)


def test_long_lines_on_the_general_route_are_split_too():
    # a hypothesis line of 700 tokens against a long reference line needs a table larger than the kernel's:
    # that row is scored on the general route, on the split texts
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(12)]

    def line(k):
        return " ".join(rng.choice(words, k))

    hyps = [line(700) + ". " + line(30) + ". Dr. " + line(5), line(20) + "! " + line(3)]
    refs = [[line(600) + ". " + line(10)], [line(8) + "? " + line(9), line(4)]]
    stats, ref_ptr = _direct_lsum(hyps, refs)
    _assert_rouge_score(hyps, refs, stats, ref_ptr)


@pytest.mark.parametrize("route", ["plain", "compiled"])
@pytest.mark.parametrize("stem", [False, True])
def test_public_api_every_route(monkeypatch, route, stem):
    # stemming takes the general compiled route; multi-reference lists; non-ASCII and ASCII rows
    monkeypatch.setenv("VECSCORE_ROUTE", route)
    hyps = ["The cats sat. Dr. Jones ran!  Then etc. stopped", "Caf\u00e9 au lait. Tr\u00e8s bon. Yes", "x",
            "我爱北京。天安门很大！ ok. Go"]
    refs = [["Jones ran. The cat sat on it.", "stopped. then"], ["bon. Caf\u00e9 lait"], ["", "y. x"],
            ["天安门。 Go ok"]]
    r = vecscore.rouge(hyps, refs, metrics=["rouge1", "rougeLsum"], sentence_splitter="punct", stemmer=stem)
    scorer = _LSUM_STEM if stem else _LSUM
    for i, (h, rs) in enumerate(zip(hyps, refs)):
        want = max((_want(h, x, scorer) for x in rs), key=lambda s: s.fmeasure)
        assert r["rougeLsum"].fmeasure[i] == want.fmeasure


def test_newline_splitter_unchanged_and_kernel_flag_off():
    hyps = ["Dr. Smith. Then\nnext one. Go"]
    refs = ["next one. Go\nThen"]
    r = vecscore.rouge(hyps, refs, metrics=["rougeLsum"])
    want = _LSUM.score(refs[0], hyps[0])["rougeLsum"]
    assert r["rougeLsum"].fmeasure[0] == want.fmeasure
