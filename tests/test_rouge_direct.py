"""The fused per-pair ROUGE path (text -> statistics in one kernel) against the
corpus-vocabulary route and the plain-Python twins.

Expected values come from the ``Counter``/textbook-DP twins in
``tests/reference``, from the independent sparse-matrix route and, for
rougeLsum, from rouge-score itself; rouge-score parity of the public API on
real data lives in test_rouge_n / test_rouge_lcs.
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
from vecscore.kernels.pair_lsum import TABLE_CELLS
from vecscore.kernels.pair_rouge import pair_rouge_stats
from vecscore.kernels.tokenize import nul_offsets
from vecscore.kernels.wide_text import ROUGE_SCORE
from vecscore.references import read_pairs, read_texts
from vecscore.rouge.compiled import metric_stats
from vecscore.rouge.direct import direct_stats, lowered_utf8
from vecscore.rouge.options import parse_metric
from vecscore.text.spans import ascii_view
from vecscore.text.tokenizers import ROUGE_SCORE_TABLE

# tokens of up to 8 bytes (one key word), 9 to 16 (two words: equal first words, or equal second words), over 16
# (hashed keys), case, digits, punctuation, non-ASCII, NUL
_WORDS = ["a", "A", "bb", "the", "The", "cat", "x9", "Zz", "long-word", "abcdefgh", "ABCDEFGH", "abcdefgi",
          "abcdefghi", "abcdefghij", "bbcdefghij", "ABCDEFGHIJKLMNOP", "abcdefghijklmnoq", "abcdefghijklmnopq",
          "supercalifragilistic", "supercalifragilistiC", "Café", "naïve", "\u212a", "漢字", "\x00", ".", "!!", ""]
_text = st.lists(st.sampled_from(_WORDS), max_size=30).map(" ".join)
METRICS = ["rouge1", "rouge2", "rouge3", "rouge4", "rougeL"]
# bit 63 plus two low bits: every long token's key lands on one of four values, and every token's table slot on
# one of four (the block tokenizer)
_COLLIDE = np.int64(-(1 << 63) | 3)


def _twin_stats(hyp: str, ref: str):
    h, r = rouge_score_tokens(hyp), rouge_score_tokens(ref)
    out = {f"rouge{n}": rouge_n_counts(h, r, n) for n in (1, 2, 3, 4)}
    out["rougeL"] = (lcs_length(h, r), len(h), len(r))
    return out


def _kernel_stats(hyps, refs, key_mask=-1, orders=(1, 2, 3, 4), bytewise=False):
    """``pair_rouge_stats`` on single-reference pairs: {metric: (hits, hyp_count, ref_count) arrays}.
    ``bytewise``: the byte-at-a-time tokenizer instead of the 64-byte block one."""
    rows, ref_ptr, _ = pair_rows(*read_texts(list(hyps), list(refs), "per-example", "test"), lowered_utf8)
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
        direct, ref_ptr = direct_stats(*read_pairs(hyps, refs), parsed)
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
    assert direct_stats(*read_pairs(["a b"], ["a b"]), p) is not None
    assert direct_stats(*read_pairs(["a b"], ["a b"]), p, tokenizer="whitespace") is None
    assert direct_stats(*read_pairs(["a b"], ["a b"]), p, transform=lambda w: w) is None
    assert direct_stats(*read_pairs(["a b"], ["a b"]), [parse_metric("rougeLsum")]) is not None
    assert direct_stats(*read_pairs(["a b"], ["a b"]), [parse_metric("rougeW")]) is None
    assert direct_stats(*read_pairs([["a", "b"]], [["a", "b"]]), p) is None


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


# ---------------------------------------------------------------------------------------------
# rougeLsum on the per-pair kernel, against rouge-score
# ---------------------------------------------------------------------------------------------

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
_LSUM = rouge_scorer.RougeScorer(["rougeLsum"])
# line breaks of every kind rouge-score's split("\n") meets, and lines of punctuation only
_SEPS = [" ", " ", " ", "\n", "\r\n", "\n\n", " \n ", ". \n", "\n.!\n", "\r", "\u2028", "\x85"]
_lines = st.lists(st.tuples(st.sampled_from(_WORDS), st.sampled_from(_SEPS)), max_size=30).map(
    lambda xs: "".join(w + sep for w, sep in xs))
_lsum_text = st.tuples(st.sampled_from(["", "\n", "\n\n", ". \n"]), _lines).map("".join)


def _lsum_kernel(hyps, refs, key_mask=-1, bytewise=False):
    """``(lengths, lsum, ref_ptr)`` of ``pair_rouge_stats(want_lsum=True)``; ``refs``: a list of references per pair."""
    rows, ref_ptr, _ = pair_rows(*read_texts(list(hyps), list(refs), "per-example", "test"), lowered_utf8, ROUGE_SCORE)
    lengths, _, _, lsum = pair_rouge_stats(rows.addrs, rows.lens, ROUGE_SCORE_TABLE, ASCII_LOWER, ref_ptr,
                                           np.array([1, 2], np.int64), True, key_mask, bytewise, want_lsum=True)
    return lengths, lsum, ref_ptr


def _assert_lsum_is_rouge_scores(hyps, refs, lengths, lsum, ref_ptr):
    """Every (hypothesis, reference) row: hits / tokens are rouge-score's precision and recall."""
    n = len(hyps)
    for p, rs in enumerate(refs):
        for j, r in enumerate(rs):
            q = int(ref_ptr[p]) + j
            want = _LSUM.score(r, hyps[p])["rougeLsum"]
            hits, nh, nr = int(lsum[q]), int(lengths[p]), int(lengths[n + q])
            assert nh == len(rouge_score_tokens(hyps[p])) and nr == len(rouge_score_tokens(r))
            if nh == 0 or nr == 0:
                assert hits == 0 and want.precision == want.recall == 0
            else:
                assert (hits / nh, hits / nr) == (want.precision, want.recall), (hyps[p], r, hits)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_lsum_text, st.lists(_lsum_text, min_size=1, max_size=3)), min_size=1, max_size=6),
       st.booleans(), st.booleans(), st.integers(0, 3))
def test_lsum_kernel_equals_rouge_score(pairs, collide, bytewise, repeat):
    # repeating a hypothesis makes it span several 64-byte blocks (newlines across block edges)
    hyps = [" ".join([h] * (1 + 4 * repeat)) for h, _ in pairs]
    refs = [rs for _, rs in pairs]
    lengths, lsum, ref_ptr = _lsum_kernel(hyps, refs, _COLLIDE if collide else -1, bytewise)
    _assert_lsum_is_rouge_scores(hyps, refs, lengths, lsum, ref_ptr)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_lsum_text, st.lists(_lsum_text, min_size=1, max_size=3)), min_size=1, max_size=6))
def test_lsum_direct_route_equals_general_route(pairs):
    hyps = [h for h, _ in pairs]
    refs = [rs for _, rs in pairs]
    parsed = [parse_metric(m) for m in ["rouge1", "rouge2", "rougeL", "rougeLsum"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        direct, ref_ptr = direct_stats(*read_pairs(hyps, refs), parsed)
        batch = build_batch(hyps, refs, sentences=True)
    assert np.array_equal(ref_ptr, batch.ref_ptr)
    for (kind, param), got in zip(parsed, direct):
        want = metric_stats(batch, kind, param)[:3]
        for a, b in zip(got, want):
            assert np.array_equal(a, b), (kind, param)


def test_lsum_collisions_and_non_ascii_rows():
    # long tokens that share keys, a NUL, wide and Latin-1 rows, "İ" (lowers to "i" + a combining dot)
    hyps = ["abcdefghij abcdefghik\nabcdefghil x", "Caf\u00e9 au lait\r\n\u0130stanbul \u212a\n\n\u6f22\u5b57 b",
            "the cat\x00sat\non the mat", "\n\n...\n", ""]
    refs = [["abcdefghik abcdefghij\nzzzzzzzzzz abcdefghil"], ["\u0130 k\nau caf lait", "b\n\nistanbul"],
            ["on the mat\nthe cat sat", "sat\x00the"], ["a\nb"], ["\n"]]
    for mask, bytewise in itertools.product((-1, _COLLIDE, np.int64(-(1 << 63))), (False, True)):
        lengths, lsum, ref_ptr = _lsum_kernel(hyps, refs, mask, bytewise)
        _assert_lsum_is_rouge_scores(hyps, refs, lengths, lsum, ref_ptr)


def test_lsum_long_hypothesis_lines_use_the_table_or_the_general_route():
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(12)]

    def line(k):
        return " ".join(rng.choice(words, k))

    # a 100-token hypothesis line (the table) against short and long reference lines
    hyps = [line(100) + "\n" + line(20), line(30), line(700)]
    refs = [[line(70) + "\n" + line(10), line(5)], [line(90)], [line(600)]]
    lengths, lsum, ref_ptr = _lsum_kernel(hyps, refs)
    assert (701 * 601 > TABLE_CELLS) and lsum.tolist()[-1] == -1  # too large for the kernel's table
    assert (lsum[:-1] >= 0).all()
    _assert_lsum_is_rouge_scores(hyps[:2], refs[:2], lengths[[0, 1, 3, 4, 5]], lsum[:-1], ref_ptr[:3])
    r = vecscore.rouge(hyps, [rs[0] for rs in refs], metrics=["rougeLsum", "rougeL"])
    for i, (h, rs) in enumerate(zip(hyps, refs)):
        want = _LSUM.score(rs[0], h)["rougeLsum"]
        assert (r["rougeLsum"].precision[i], r["rougeLsum"].recall[i]) == (want.precision, want.recall)


def test_lsum_public_api_matches_rouge_score_multi_reference():
    hyps = ["the cat sat\non the mat", "\n\nA b c\r\nd e\n", "x"]
    refs = [["the mat\nthe cat sat on", "cat"], ["a b\n\nc d e"], ["", "\n"]]
    r = vecscore.rouge(hyps, refs, metrics=["rouge1", "rougeLsum"])
    for i, (h, rs) in enumerate(zip(hyps, refs)):
        want = rouge_scorer.RougeScorer(["rouge1", "rougeLsum"]).score_multi(rs, h)
        for m in ("rouge1", "rougeLsum"):
            assert r[m].fmeasure[i] == pytest.approx(want[m].fmeasure, abs=1e-15), (m, h, rs)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=64), st.lists(st.integers(0, 3), min_size=1, max_size=90))
def test_lsum_bit_rows_walk_back_marks_rouge_scores_positions(h, r):
    # few symbols: many ties, so many ways back through the table; rouge-score's walk picks one
    from vecscore.kernels.pair_lsum import _mark_lcs_rows

    want = rouge_scorer._backtrack_norec(rouge_scorer._lcs_table(r, h), r, h)  # positions in r
    pm = np.zeros(4, np.uint64)
    for j, x in enumerate(h):
        pm[x] |= np.uint64(1) << np.uint64(j)
    got = np.zeros(len(r), np.int32)
    _mark_lcs_rows(np.array(r, np.int64), 0, len(r), len(h), pm, np.zeros(len(r) + 1, np.uint64),
                   np.zeros(len(r) + 1, np.int64), got, 0)
    assert np.flatnonzero(got).tolist() == want


def test_lsum_scratch_stays_within_its_bound():
    from vecscore.kernels.pair_rouge import rouge_scratch, scratch_bound

    for nbytes in (10, 129, 300, 5_000, 500_000):
        for frac in (0.1, 0.5, 0.9):
            lens = np.array([int(nbytes * frac), nbytes - int(nbytes * frac)])
            for max_order, want_lcs in ((0, False), (1, False), (2, False), (2, True)):
                need = int(rouge_scratch(lens, np.array([0, 1]), 36, max_order, want_lcs, True)[0])
                assert need <= scratch_bound(nbytes, max_order, want_lcs, True), (nbytes, frac, need)


_RNG = ["Ab", "ab", "x9", "ABCDEFG", "abcdefg", "abcdefgh", "ABCDEFGHIJK", "abcdefghijk", "abcdefghijklmnopqrstu",
        "Q", "7", "abcdefghijklmnopqrstU"]


@pytest.mark.parametrize("end_pad", [0, 1, 3, 7, 8, 9])
def test_tokens_at_the_end_of_a_memory_page_equal_rouge_score(end_pad):
    # texts placed so that they end ``end_pad`` bytes before the end of a one-page mapping: a token's
    # 8-byte word there would cross the page, so it is read a byte at a time; equal tokens read both
    # ways (one in the middle of the page, one at its end) must get one id
    import mmap

    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    page = mmap.mmap(-1, mmap.PAGESIZE)
    buf = np.frombuffer(page, np.uint8)
    base = int(buf.ctypes.data)
    for n_words in range(1, 40):
        for rot in range(len(_RNG)):
            words = [_RNG[(rot + 5 * j) % len(_RNG)] for j in range(n_words)]
            hyp = " ".join(words).encode()
            ref = " ".join(reversed(words[: n_words // 2 + 1])).upper().encode() + b" " + words[-1].encode()
            start = mmap.PAGESIZE - end_pad - len(hyp)
            buf[:] = ord(" ")
            buf[:len(ref)] = np.frombuffer(ref, np.uint8)
            buf[start:start + len(hyp)] = np.frombuffer(hyp, np.uint8)
            addrs = np.array([base + start, base], np.int64)
            lens = np.array([len(hyp), len(ref)], np.int64)
            for bytewise in (False, True):
                lengths, hits, lcs = pair_rouge_stats(addrs, lens, ROUGE_SCORE_TABLE, ASCII_LOWER,
                                                      np.array([0, 1], np.int64), np.array([1, 2], np.int64), True,
                                                      -1, bytewise)
                want = scorer.score(ref.decode(), hyp.decode())
                nh, nr = int(lengths[0]), int(lengths[1])
                assert nh == n_words
                for name, got, dh, dr in (("rouge1", hits[0, 0], nh, nr), ("rouge2", hits[1, 0], nh - 1, nr - 1),
                                          ("rougeL", lcs[0], nh, nr)):
                    if dh > 0:
                        assert int(got) / dh == want[name].precision, (name, hyp, ref, bytewise)
                    if dr > 0:
                        assert int(got) / dr == want[name].recall, (name, hyp, ref, bytewise)
    del buf
    page.close()


@pytest.mark.parametrize("n_hyp_words", [0, 1, 5, 60, 200])
def test_reference_tokens_the_hypothesis_lacks_equal_rouge_score_multi(n_hyp_words, monkeypatch):
    # references are only looked up in the hypothesis's table: every token the hypothesis lacks
    # shares one id.  Many such tokens (long ones too), several references, a hypothesis small
    # enough for dense bigram ids (and one too large for them), and one that is empty
    rng = np.random.default_rng(n_hyp_words)
    vocab = [f"w{i}" for i in range(300)] + [f"longtoken{i:04d}" for i in range(50)] + ["The", "the", "THE"]
    types = ["rouge1", "rouge2", "rouge3", "rougeL"]
    scorer = rouge_scorer.RougeScorer(types)
    hyps, refs = [], []
    for _ in range(20):
        h = list(rng.choice(vocab, n_hyp_words))
        hyps.append(" ".join(h))
        rs = []
        for _ in range(int(rng.integers(1, 5))):
            r = list(rng.choice(vocab, int(rng.integers(0, 250))))
            for j in range(0, len(r), 3):  # a share of the hypothesis's tokens, in order
                if h:
                    r[j] = h[min(j, len(h) - 1)]
            rs.append(" ".join(r))
        refs.append(rs)
    parsed = [parse_metric(m) for m in types]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert direct_stats(*read_pairs(hyps, refs), parsed) is not None  # the fused kernel applies
        monkeypatch.setenv("VECSCORE_ROUTE", "compiled")
        got = vecscore.rouge(hyps, refs, metrics=types, multi_ref="best")
    for i, (h, rs) in enumerate(zip(hyps, refs)):
        want = scorer.score_multi(rs, h)
        for m in types:
            assert (got[m].precision[i], got[m].recall[i], got[m].fmeasure[i]) == pytest.approx(
                tuple(want[m]), abs=1e-15), (m, i)


def test_rouge_l_with_common_prefixes_and_suffixes_equals_rouge_score(monkeypatch):
    # the kernel takes a pair's common prefix and suffix off before the LCS: identical texts, an
    # empty one, one text a prefix of the other, repeated tokens, long texts (the long kernel on the
    # rest) and several references
    rng = np.random.default_rng(11)
    words = [f"t{i}" for i in range(40)] + ["The", "the", "abcdefghijk"]

    def text(n):
        return " ".join(rng.choice(words, n))

    long_p, long_s = text(150), text(120)
    hyps = ["a b c d", "a b c d", "", "a b c", "a a a a", "x y a a", long_p + " " + text(200) + " " + long_s,
            long_p + " " + long_s, "The cat sat on the mat", "b"]
    refs = [["a b c d"], ["a b c d e", "z a b c d"], ["a b"], ["a b c d e f"], ["a a"], ["a a y x", "a a"],
            [long_p + " " + text(90) + " " + long_s, long_p, long_p + " " + long_s], [long_s + " " + long_p],
            ["the CAT sat on THE mat .", "cat the"], [""]]
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    monkeypatch.setenv("VECSCORE_ROUTE", "compiled")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert direct_stats(*read_pairs(hyps, refs), [parse_metric("rougeL")]) is not None
        got = vecscore.rouge(hyps, refs, metrics=["rougeL"], multi_ref="best")["rougeL"]
    for i, (h, rs) in enumerate(zip(hyps, refs)):
        want = scorer.score_multi(rs, h)["rougeL"]
        assert (got.precision[i], got.recall[i], got.fmeasure[i]) == pytest.approx(tuple(want), abs=1e-15), i


def test_chunks_split_by_text_as_well_as_by_pairs():
    """A few long pairs are as many chunks (both threads work), short pairs CHUNK_PAIRS to a chunk; every pair is in
    exactly one chunk, in order."""
    from vecscore.memory import CHUNK_PAIRS, group_bounds

    rng = np.random.default_rng(0)
    for weights in (np.full(100, 70_000), rng.integers(1, 5_000, 3_000), np.array([10, 10**6, 5]), np.full(600, 100),
                    np.full(1, 3)):
        b = group_bounds(len(weights), 2, 2, weights)
        assert b[0] == 0 and b[-1] == len(weights) and (np.diff(b) > 0).all() and len(b) <= 257
    assert len(group_bounds(100, 2, 2, np.full(100, 70_000))) == 101
    assert len(group_bounds(600, 2, 2, np.full(600, 100))) == 600 // CHUNK_PAIRS + 1


def test_long_pairs_one_to_a_chunk_equal_rouge_score(monkeypatch):
    """Every pair its own chunk (a long pair's text is over CHUNK_BYTES): rouge-score's numbers, on both threads."""
    from rouge_score import rouge_scorer

    from vecscore import memory

    monkeypatch.setattr(memory, "CHUNK_BYTES", 1)
    monkeypatch.setenv("VECSCORE_ROUTE", "compiled")
    rng = np.random.default_rng(4)
    words = np.array([f"w{i}" for i in range(60)])
    hyps = [" ".join(words[rng.integers(0, 60, rng.integers(200, 400))]) for _ in range(6)]
    refs = [" ".join(words[rng.integers(0, 60, rng.integers(200, 400))]) for _ in range(6)]
    got = vecscore.rouge(hyps, refs, metrics=["rouge2", "rougeL"])
    scorer = rouge_scorer.RougeScorer(["rouge2", "rougeL"])
    for i, (h, r) in enumerate(zip(hyps, refs)):
        exp = scorer.score(r, h)
        for m in ("rouge2", "rougeL"):
            assert (got[m].precision[i], got[m].recall[i], got[m].fmeasure[i]) == tuple(exp[m]), (m, i)


def _multi_ref_kernel_hits(hyps, refs, orders, key_mask=-1):
    """``pair_rouge_stats`` hits (orders x reference rows) of pairs with several references each."""
    rows, ref_ptr, _ = pair_rows(*read_texts(list(hyps), list(refs), "per-example", "test"), lowered_utf8)
    lengths, hits, _ = pair_rouge_stats(rows.addrs, rows.lens, ROUGE_SCORE_TABLE, ASCII_LOWER, ref_ptr,
                                        np.array(orders, np.int64), False, key_mask)
    return hits, ref_ptr


@pytest.mark.parametrize("orders", [(1, 2), (2,), (1,), (1, 2, 3), (1, 3)])
@pytest.mark.parametrize("collide", [False, True])
def test_counts_fused_into_the_tokenizer_equal_the_counter_twin(orders, collide):
    # rouge1 and rouge2 are counted as the block tokenizer interns the ids; bigrams while the pair has at most 127
    # hypothesis types (ids below the stride).  Pairs below and above 128 types alternate in one call, so a pair's
    # counts must be cleared for the next whichever way it was counted; several references each, repeated tokens
    rng = np.random.default_rng(sum(orders) + 10 * collide)
    words = [f"w{i}" for i in range(400)] + ["Word", "word", "WORD", "abcdefghijklmnopq"]
    hyps, refs = [], []
    for i in range(40):
        n_types = [5, 120, 127, 128, 129, 300][i % 6]
        pool = rng.choice(len(words), n_types, replace=False)
        h = [words[j] for j in rng.choice(pool, n_types + int(rng.integers(0, 60)))]
        hyps.append(" ".join(h))
        rs = []
        for _ in range(int(rng.integers(1, 4))):
            r = [words[j] for j in rng.choice(len(words), int(rng.integers(0, 200)))]
            for j in range(0, len(r), 2):  # half of them the hypothesis's tokens, in order
                if h:
                    r[j] = h[min(j, len(h) - 1)]
            rs.append(" ".join(r))
        refs.append(rs)
    hits, ref_ptr = _multi_ref_kernel_hits(hyps, refs, orders, _COLLIDE if collide else -1)
    for i, (h, rs) in enumerate(zip(hyps, refs)):
        for q, r in enumerate(rs):
            for row, n in enumerate(orders):
                want = rouge_n_counts(rouge_score_tokens(h), rouge_score_tokens(r), n)[0]
                assert hits[row, ref_ptr[i] + q] == want, (n, i, q)


def test_a_pair_too_large_for_fused_unigram_counts_equals_the_counter_twin():
    # a hypothesis of 100,000 two-letter tokens takes the large-pair scratch, whose counts hold an id per
    # hypothesis token, not one per two bytes: its unigrams are counted after tokenizing, the small pairs around
    # it as they are tokenized
    rng = np.random.default_rng(3)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz0123456789"))
    big = " ".join(np.char.add(rng.choice(letters, 100_000), rng.choice(letters, 100_000)))
    small = ["a b c a b", "the cat the mat", ""]
    hyps = small + [big] + small
    refs = [[s, "a a b"] for s in small] + [[big[:50_001], "z y x"]] + [["b c", s] for s in small]
    hits, ref_ptr = _multi_ref_kernel_hits(hyps, refs, (1, 2))
    for i, (h, rs) in enumerate(zip(hyps, refs)):
        for q, r in enumerate(rs):
            for row, n in enumerate((1, 2)):
                want = rouge_n_counts(rouge_score_tokens(h), rouge_score_tokens(r), n)[0]
                assert hits[row, ref_ptr[i] + q] == want, (n, i, q)
