"""The fused per-pair ROUGE path (text -> statistics in one kernel) against the
corpus-vocabulary route and the plain-Python twins.

Expected values come from the ``Counter``/textbook-DP twins in
``tests/reference`` and from the independent sparse-matrix route; rouge-score
parity of the public API on real data lives in test_rouge_n / test_rouge_lcs.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vecscore
from tests.reference.lcs_py import lcs_length
from tests.reference.rouge_n_py import rouge_n_counts
from tests.reference.tokenize_py import rouge_score_tokens
from vecscore import VecscoreError, fast_path
from vecscore.engine.batch import build_batch
from vecscore.engine.pair_rows import pair_rows
from vecscore.kernels.intern import ASCII_LOWER
from vecscore.kernels.pair_rouge import pair_rouge_stats
from vecscore.kernels.tokenize import nul_offsets
from vecscore.rouge.api import parse_metric
from vecscore.rouge.compiled import metric_stats
from vecscore.rouge.direct import direct_stats, lowered_utf8
from vecscore.text.spans import ascii_view
from vecscore.text.tokenizers import ROUGE_SCORE_TABLE

# long tokens (> 7 bytes, hashed keys), case, digits, punctuation, non-ASCII, NUL
_WORDS = ["a", "A", "bb", "the", "The", "cat", "x9", "Zz", "long-word", "abcdefgh", "ABCDEFGH", "abcdefgi",
          "supercalifragilistic", "supercalifragilistiC", "Café", "naïve", "\u212a", "漢字", "\x00", ".", "!!", ""]
_text = st.lists(st.sampled_from(_WORDS), max_size=30).map(" ".join)
METRICS = ["rouge1", "rouge2", "rouge3", "rouge4", "rougeL"]
# bit 63 plus two low bits: every long token's key lands on one of four values
_COLLIDE = np.int64(-(1 << 63) | 3)


def _twin_stats(hyp: str, ref: str):
    h, r = rouge_score_tokens(hyp), rouge_score_tokens(ref)
    out = {f"rouge{n}": rouge_n_counts(h, r, n) for n in (1, 2, 3, 4)}
    out["rougeL"] = (lcs_length(h, r), len(h), len(r))
    return out


def _kernel_stats(hyps, refs, key_mask=-1, orders=(1, 2, 3, 4), bytewise=False):
    """``pair_rouge_stats`` on single-reference pairs: {metric: (hits, hyp_count, ref_count) arrays}.
    ``bytewise``: the byte-at-a-time tokenizer instead of the 64-byte block one."""
    rows, ref_ptr, _ = pair_rows(list(hyps), list(refs), "per-example", lowered_utf8)
    lengths, hits, lcs = pair_rouge_stats(rows.addrs, rows.lens, ROUGE_SCORE_TABLE, ASCII_LOWER, ref_ptr,
                                          np.array(orders, np.int64), True, key_mask, bytewise)
    n = len(hyps)
    out = {f"rouge{k}": (hits[i], np.maximum(lengths[:n] - k + 1, 0), np.maximum(lengths[n:] - k + 1, 0))
           for i, k in enumerate(orders)}
    out["rougeL"] = (lcs, lengths[:n], lengths[n:])
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_text, _text), min_size=1, max_size=8), st.booleans(),
       st.sampled_from([(1, 2, 3, 4), (1, 2), (1,), (2,), (3,)]), st.booleans(), st.integers(0, 3))
def test_kernel_equals_counter_and_dp_twins(pairs, collide, orders, bytewise, repeat):
    # (1, 2), (1,) and (2,) take the one-pass unigram/bigram route, the others the order-by-order ids;
    # repeating a text makes it span several 64-byte blocks (tokens across block edges)
    pairs = [(" ".join([h] * (1 + 5 * repeat)), r) for h, r in pairs]
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    got = _kernel_stats(hyps, refs, _COLLIDE if collide else -1, orders, bytewise)
    for i, (h, r) in enumerate(pairs):
        want = _twin_stats(h, r)
        for m in [f"rouge{k}" for k in orders] + ["rougeL"]:
            assert tuple(int(a[i]) for a in got[m]) == want[m], (m, h, r)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_text, st.lists(_text, min_size=1, max_size=4)), min_size=1, max_size=6))
def test_direct_route_equals_corpus_vocabulary_route(pairs):
    hyps = [h for h, _ in pairs]
    refs = [rs for _, rs in pairs]
    parsed = [parse_metric(m) for m in METRICS]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        direct, ref_ptr = direct_stats(hyps, refs, parsed)
        batch = build_batch(hyps, refs)
    assert np.array_equal(ref_ptr, batch.ref_ptr)
    for (kind, param), got in zip(parsed, direct):
        want = metric_stats(batch, kind, param)[:3]
        for a, b in zip(got, want):
            assert np.array_equal(a, b), (kind, param)


def test_collisions_of_long_token_keys_never_merge_tokens():
    # every long token shares one of four keys; the byte comparison must keep them apart
    hyps = ["abcdefghij abcdefghik abcdefghil", "supercalifragilistic"]
    refs = ["abcdefghik abcdefghij zzzzzzzzzz", "supercalifragilisticexpialidocious"]
    for mask, bytewise in itertools.product((-1, _COLLIDE, np.int64(-(1 << 63))), (False, True)):
        got = _kernel_stats(hyps, refs, mask, bytewise=bytewise)
        assert got["rouge1"][0].tolist() == [2, 0]
        assert got["rouge2"][0].tolist() == [0, 0]
        assert got["rougeL"][0].tolist() == [1, 0]


def test_fast_path_is_taken_only_where_it_applies():
    p = [parse_metric("rouge1"), parse_metric("rougeL")]
    assert direct_stats(["a b"], ["a b"], p) is not None
    assert direct_stats(["a b"], ["a b"], p, tokenizer="whitespace") is None
    assert direct_stats(["a b"], ["a b"], p, transform=lambda w: w) is None
    assert direct_stats(["a b"], ["a b"], [parse_metric("rougeLsum")]) is None
    assert direct_stats([["a", "b"]], [["a", "b"]], p) is None


def test_texts_with_nul_or_non_ascii_take_the_encoding_fallback():
    hyps = ["the cat\x00sat", "CAFÉ au lait", "plain text"]
    refs = ["the cat sat", "café au lait", "plain"]
    r = vecscore.rouge(hyps, refs, metrics=["rouge1"])
    # rouge-score: NUL and non-ASCII letters are separators ("café" -> "caf")
    assert r["rouge1"].recall.tolist() == [1.0, 1.0, 1.0]
    assert r["rouge1"].precision.tolist() == [1.0, 1.0, 0.5]


def test_bad_rows_still_name_the_row_on_the_fast_path():
    with pytest.raises(VecscoreError, match=r"hyps\[1\]"):
        vecscore.rouge(["a", None], ["a", "b"], metrics=["rouge1"])
    with pytest.raises(VecscoreError, match=r"refs\[1\]"):
        vecscore.rouge(["a", "b"], ["a", []], metrics=["rouge1"])
    with pytest.raises(VecscoreError, match="2 hypotheses but 1"):
        vecscore.rouge(["a", "b"], ["a"], metrics=["rougeL"])


def test_empty_batch_and_empty_texts():
    r = vecscore.rouge([], [], metrics=["rouge1", "rougeL"])
    assert r["rouge1"].fmeasure.shape == (0,)
    r = vecscore.rouge(["", "a"], ["", ""], metrics=["rouge2", "rougeL"])
    assert r["rouge2"].fmeasure.tolist() == [0.0, 0.0]
    assert r["rougeL"].fmeasure.tolist() == [0.0, 0.0]


def test_ascii_view_is_the_strings_bytes():
    s = "hello\x00world " * 100
    v = ascii_view(s)
    if not fast_path.enabled():  # VECSCORE_FAST_PATH=0: no string is read in place; callers encode
        assert v is None and ascii_view("") is None
        return
    assert v is not None and v.tobytes() == s.encode("ascii")
    assert not v.flags.writeable
    assert ascii_view("café") is None
    assert ascii_view("").size == 0


def test_nul_offsets_find_texts_or_refuse():
    texts = ["ab", "", "c d", ""]
    buf = np.frombuffer("\x00".join(texts).encode(), np.uint8)
    assert nul_offsets(buf, 4).tolist() == [0, 3, 4, 8, 8]
    assert nul_offsets(buf, 3).size == 0  # one NUL too many: a text contained a NUL
    big = "\x00".join(["xy"] * 700_000)  # several parallel segments
    off = nul_offsets(np.frombuffer(big.encode(), np.uint8), 700_000)
    assert np.array_equal(off[:-1], np.arange(700_000) * 3)
    assert off[-1] == len(big)


def test_large_pair_vocabularies_take_the_hashed_ids():
    # more than 128 distinct tokens in a pair: bigram ids no longer fit the dense range
    rng = np.random.default_rng(7)
    words = [f"w{i}" for i in range(400)]
    hyps = [" ".join(rng.choice(words, 300)) for _ in range(3)]
    refs = [" ".join(rng.choice(words, 250)) for _ in range(3)]
    for orders in ((1, 2), (2,), (1, 2, 3)):
        got = _kernel_stats(hyps, refs, orders=orders)
        for i, (h, r) in enumerate(zip(hyps, refs)):
            want = _twin_stats(h, r)
            for k in orders:
                assert tuple(int(a[i]) for a in got[f"rouge{k}"]) == want[f"rouge{k}"]


def test_nul_offsets_word_at_a_time_at_any_alignment():
    rng = np.random.default_rng(0)
    raw = rng.choice(np.array([0, 97, 98], np.uint8), 3_000_009, p=[0.1, 0.45, 0.45])
    for shift in range(9):  # the buffer's start moves through every alignment
        b = raw[shift:]
        want = np.concatenate([[0], np.flatnonzero(b == 0) + 1, [len(b)]])
        assert np.array_equal(nul_offsets(b, len(want) - 1), want)
