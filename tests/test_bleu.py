"""vecscore.bleu: a hand-computed example, sacreBLEU's unit vectors, bad input, warnings,
statistics reuse, and property tests against the Counter-based twin."""
from __future__ import annotations

import json
import logging
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import data_file
from tests.reference.bleu_py import corpus_stats
from vecscore import VecscoreError
from vecscore.bleu.api import (
    BleuStats,
    TokenizedInputWarning,
    bleu_statistics,
    corpus_bleu,
    corpus_bleu_from_stats,
    sentence_bleu,
    sentence_bleu_from_stats,
)
from vecscore.bleu.compiled import batch_stats, sparse_counts
from vecscore.bleu.metric import BLEU
from vecscore.engine.batch import build_batch
from vecscore.text.sacrebleu_tokenizers import tokenize

sacrebleu = pytest.importorskip("sacrebleu")
logging.getLogger("sacrebleu").setLevel(logging.ERROR)

HYP = "the cat sat on the mat"
REFS = ["the cat is on the mat", "the bird sat on the bush"]


# --- a hand-computed example ---------------------------------------------------------------------


def test_hand_computed_bleu2():
    s = corpus_bleu([HYP], [REFS], tokenize="none", max_ngram_order=2, smooth_method="none")
    assert s.counts.tolist() == [6, 4] and s.totals.tolist() == [6, 5]  # P1 = 6/6, P2 = 4/5
    assert s.precisions.tolist() == [100.0, 80.0]
    assert s.bp == 1.0 and (s.sys_len, s.ref_len) == (6, 6)
    assert abs(s.score / 100 - math.sqrt(4 / 5)) < 1e-15
    sent = sentence_bleu([HYP], [REFS], tokenize="none", max_ngram_order=2, smooth_method="none")
    assert sent.score[0] == s.score
    assert s.stats.correct.tolist() == [[6, 4]] and s.stats.correct.dtype == np.int64
    for bp in ("closest", "shortest"):  # both references have 6 tokens
        assert corpus_bleu([HYP], [REFS], tokenize="none", max_ngram_order=2, smooth_method="none",
                           brevity_penalty=bp).score == s.score


# --- sacreBLEU's own unit vectors --------------------------------------------------------------


@pytest.fixture(scope="module")
def vectors(shared_data):
    return json.loads(data_file(shared_data, "sacrebleu-unit-vectors", "bleu_test_vectors.json").read_text())


def test_unit_corpus_cases(vectors):
    group = vectors["corpus_bleu_cases"]
    for case in group["cases"]:
        kw = case["kwargs"]
        got = corpus_bleu(case["hypotheses"], case["references"], refs_layout="streams", **kw)
        want = sacrebleu.corpus_bleu(case["hypotheses"], case["references"], **kw)
        assert abs(got.score - case["expected"]) <= group["tolerance"]
        assert got.score == want.score and got.format() == want.format()


def test_unit_raw_and_statistics_and_offset_cases(vectors):
    raw = dict(tokenize="none", smooth_method="floor", smooth_value=0.01, effective_order=True, force=True,
               refs_layout="streams")
    for case in vectors["raw_bleu_cases"]["cases"]:
        got = corpus_bleu(case["hypotheses"], case["references"], **raw)
        assert abs(got.score / 100 - case["expected"]) <= vectors["raw_bleu_cases"]["tolerance"]
    for case in vectors["statistics_cases"]["cases"]:
        got = corpus_bleu(case["hypotheses"], case["references"], **raw)
        assert got.counts.tolist() == case["expected"]["common"] and got.totals.tolist() == case["expected"]["total"]
    for case in vectors["offset_cases"]["cases"]:
        with_off = corpus_bleu(case["hypotheses"], case["references"], **{**raw, "smooth_value": 0.1})
        without = corpus_bleu(case["hypotheses"], case["references"], **{**raw, "smooth_value": 0.0})
        assert abs(with_off.score / 100 - case["expected_with_offset_0.1"]) <= 1e-8
        assert without.score == case["expected_without_offset"]


def test_unit_stats_cases(vectors):
    for case in vectors["compute_bleu_from_stats_cases"]["cases"]:
        stats = BleuStats.from_arrays([case["sys_len"]], [case["ref_len"]], [case["common"]], [case["total"]])
        assert abs(corpus_bleu_from_stats(stats).score / 100 - case["expected"]) <= 1e-8
    for case in vectors["degenerate_stats_cases"]["cases"]:
        stats = BleuStats.from_arrays([case["sys_len"]], [case["ref_len"]], [case["common"]], [case["total"]])
        got = corpus_bleu_from_stats(stats, smooth_method="floor", smooth_value=case["offset"])
        assert got.score / 100 == case["expected"]


def test_unit_max_ngram_order_cases(vectors):
    for case in vectors["max_ngram_order_cases"]["cases"]:
        bleu = BLEU(max_ngram_order=case["order"], references=case["references"])
        assert f"{bleu.corpus_score(case['hypotheses']).score:.2f}" == case["expected"]


@pytest.mark.parametrize("group", ["sentence_bleu_cases", "sentence_bleu_zero_cases"])
def test_unit_sentence_cases(vectors, group):
    g = vectors[group]
    for case in g["cases"]:
        kw = dict(lowercase=case["lowercase"], tokenize=case["tokenize"], smooth_method=case["smooth_method"],
                  smooth_value=case["smooth_value"], effective_order=True)
        bleu = BLEU(**kw)
        got = bleu.sentence_score(g["hypothesis"], [g["reference"]])
        assert abs(got.score - case["expected"]) <= g["tolerance"]
        want = sacrebleu.BLEU(**kw).sentence_score(g["hypothesis"], [g["reference"]])
        assert got.score == want.score and got.counts.tolist() == want.counts and got.format() == want.format()
        batch = sentence_bleu([g["hypothesis"]] * 3, [g["reference"]] * 3, **kw)
        assert batch.score.tolist() == [want.score] * 3


# --- semantics ---------------------------------------------------------------------------------


def test_sentence_bleu_vs_sentence_score_defaults():
    """sacreBLEU: sentence_bleu() has effective order on, BLEU().sentence_score off (anchors §4.8)."""
    assert sentence_bleu(["hello there"], ["hello there"]).score[0] == sacrebleu.sentence_bleu(
        "hello there", ["hello there"]).score
    assert round(sentence_bleu(["hello there"], ["hello there"]).score[0], 9) == 100
    assert BLEU().sentence_score("hello there", ["hello there"]).score == 0.0
    assert BLEU().sentence_scores(["hello there"], [["hello there"]]).score[0] == 0.0
    assert corpus_bleu(["hello there"], ["hello there"]).score == 0.0


def test_brevity_penalty_closest_vs_shortest():
    hyp = " ".join("abcdefghij")  # 10 tokens, references of 8 and 11 (anchors §4.9)
    refs = [" ".join("abcdefgh"), " ".join("abcdefghijk")]
    closest = corpus_bleu([hyp], [refs], tokenize="none")
    shortest = corpus_bleu([hyp], [refs], tokenize="none", brevity_penalty="shortest")
    assert closest.ref_len == 11 and round(closest.score, 2) == 90.48
    assert shortest.ref_len == 8 and round(shortest.score, 9) == 100.0
    assert "bp:shortest" in shortest.signature and "bp:" not in closest.signature
    tie = corpus_bleu([hyp], [[" ".join("abcdefghi"), " ".join("abcdefghijk")]], tokenize="none")
    assert tie.ref_len == 9 and round(tie.score, 9) == 100.0  # ties go to the shorter reference
    with pytest.raises(VecscoreError, match="brevity_penalty"):
        corpus_bleu([hyp], [refs], brevity_penalty="longest")


def test_streams_variable_references_and_signature():
    hyps = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
    streams = [["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
               ["The dog had bit the man.", None, "The man had bitten the dog."]]
    ours = corpus_bleu(hyps, streams, refs_layout="streams")
    theirs = sacrebleu.corpus_bleu(hyps, streams)
    assert ours.score == theirs.score and ours.stats.nrefs.tolist() == [2, 1, 2]
    sig = sacrebleu.BLEU().corpus_score(hyps, streams)
    assert ours.signature.startswith("nrefs:var|case:mixed|eff:no|tok:13a|smooth:exp|version:")
    # "" is an empty reference (length 0), as in sacreBLEU's code, not a missing one
    with_empty = [streams[0], ["The dog had bit the man.", "", "The man had bitten the dog."]]
    assert (corpus_bleu(hyps, with_empty, refs_layout="streams").ref_len
            == sacrebleu.corpus_bleu(hyps, with_empty).ref_len)
    assert sig.score == ours.score
    metric = BLEU(references=streams)
    assert metric.get_signature() == ours.signature and metric.corpus_score(hyps).score == ours.score
    assert metric.get_signature(short=True).startswith("#:var|c:mixed|e:no|tok:13a|s:exp|v:")


def test_options_signature_format_and_json():
    b = corpus_bleu(["a b c d e"], ["a b c d f"], lowercase=True, tokenize="intl", smooth_method="floor",
                    effective_order=True)
    want = sacrebleu.BLEU(lowercase=True, tokenize="intl", smooth_method="floor", effective_order=True)
    w = want.corpus_score(["a b c d e"], [["a b c d f"]])
    assert b.signature.rsplit("|", 1)[0] == str(want.get_signature()).rsplit("|", 1)[0]
    assert b.format() == w.format() and b.format(score_only=True) == w.format(score_only=True)
    assert b.format(signature=True).startswith("BLEU|nrefs:1|case:lc|eff:yes|tok:intl|smooth:floor[0.10]|")
    assert json.loads(b.format(is_json=True))["score"] == round(w.score, 2)
    addk = corpus_bleu(["a b c d e"], ["a b c d f"], smooth_method="add-k")
    w = sacrebleu.corpus_bleu(["a b c d e"], [["a b c d f"]], smooth_method="add-k")
    assert addk.counts.tolist() == w.counts and addk.totals.tolist() == w.totals  # k added, as sacreBLEU
    assert addk.stats.correct.tolist() == [[4, 3, 2, 1]]  # raw statistics untouched


def test_statistics_reuse_concat_take_and_sums():
    rng = np.random.default_rng(0)
    words = np.array("the a cat dog sat on mat bird , .".split())
    hyps = [" ".join(rng.choice(words, rng.integers(0, 12))) for _ in range(60)]
    refs = [[" ".join(rng.choice(words, rng.integers(1, 12))) for _ in range(2)] for _ in range(60)]
    full = corpus_bleu(hyps, refs)
    stats = bleu_statistics(hyps, refs)
    parts = BleuStats.concat([bleu_statistics(hyps[:25], refs[:25]), bleu_statistics(hyps[25:], refs[25:])])
    assert corpus_bleu_from_stats(parts).score == full.score
    assert np.array_equal(stats.to_sacrebleu(), parts.to_sacrebleu())
    idx = rng.integers(0, 60, 60)  # a bootstrap sample
    sample = corpus_bleu_from_stats(stats.take(idx))
    assert sample.score == corpus_bleu([hyps[i] for i in idx], [refs[i] for i in idx]).score
    summed = stats.sum()
    assert summed.correct.tolist() == [full.counts.tolist()] and corpus_bleu_from_stats(summed).score == full.score
    sb = sacrebleu.BLEU()
    their_stats = sb._extract_corpus_statistics(hyps, [list(r) for r in zip(*refs)])
    assert np.array_equal(stats.to_sacrebleu(), np.array(their_stats))
    assert np.array_equal(BleuStats.from_sacrebleu(their_stats).correct, stats.correct)
    sent = sentence_bleu_from_stats(stats)
    assert np.array_equal(sent.score, sentence_bleu(hyps, refs).score)
    assert BLEU().score_stats(stats).score == full.score
    with pytest.raises(VecscoreError, match="orders"):
        corpus_bleu_from_stats(stats, max_ngram_order=5)


def test_pretokenized_and_ids_input():
    toks = [HYP.split()]
    refs = [[r.split() for r in REFS]]
    a = corpus_bleu(toks, refs, tokenize="none", max_ngram_order=2, smooth_method="none")
    b = corpus_bleu([HYP], [REFS], tokenize="none", max_ngram_order=2, smooth_method="none")
    assert a.score == b.score
    with pytest.raises(VecscoreError, match="tokenize='none'"):
        corpus_bleu(toks, refs)
    ids = [np.array([0, 1, 2, 3, 0, 4])]
    rid = [[np.array([0, 1, 5, 3, 0, 4]), np.array([0, 6, 2, 3, 0, 7])]]
    c = corpus_bleu(ids, rid, tokenize="none", max_ngram_order=2, smooth_method="none")
    assert c.score == b.score
    cached = BLEU(tokenize="none", max_ngram_order=2, smooth_method="none", refs_layout="per-example", references=refs)
    assert cached.corpus_score(toks).score == b.score
    cached_ids = BLEU(tokenize="none", max_ngram_order=2, smooth_method="none", refs_layout="per-example",
                      references=rid)
    assert cached_ids.corpus_score(ids).score == b.score


def test_cached_references_many_systems_and_mismatch():
    refs = [["a b c d", "e f g h", "i j k"], ["a b c x", None, "i j k l"]]
    bleu = BLEU(references=refs)
    for hyps in (["a b c d", "e f g", "i j k l"], ["x y", "", "i j"], ["a b c x", "e f g h", "i j k"]):
        assert bleu.corpus_score(hyps).score == sacrebleu.BLEU(references=refs).corpus_score(hyps, None).score
        assert bleu.corpus_score(hyps).score == bleu.corpus_score(hyps, refs).score
    with pytest.raises(VecscoreError, match="2 hypotheses but the cached references have 3"):
        bleu.corpus_score(["a", "b"])
    with pytest.raises(VecscoreError, match="none cached"):
        BLEU().corpus_score(["a"])
    with pytest.raises(VecscoreError, match="number of references unknown"):
        BLEU().get_signature()


# --- bad input ---------------------------------------------------------------------------------


def test_bad_input_names_the_row():
    with pytest.raises(VecscoreError, match="2 hypotheses but 1 reference"):
        corpus_bleu(["a", "b"], ["a"])
    # a stream shorter than the hypotheses: sacreBLEU silently truncates, we raise
    assert sacrebleu.corpus_bleu(["a b", "c d"], [["a b"]]).sys_len == 2  # sacreBLEU dropped "c d"
    with pytest.raises(VecscoreError, match="reference stream 1 has 1 references but there are 2 hypotheses"):
        corpus_bleu(["a b", "c d"], [["a b", "c d"], ["a b"]], refs_layout="streams")
    with pytest.raises(VecscoreError, match="reference stream 0 has 1"):
        BLEU(references=[["a b"]]).corpus_score(["a b", "c d"], [["a b"]])
    with pytest.raises(VecscoreError, match=r"pair 1 has no reference"):  # None in every stream
        corpus_bleu(["a", "b"], [["a", None], ["a", None]], refs_layout="streams")
    with pytest.raises(VecscoreError, match=r"pair 1 has no reference"):
        BLEU(references=[["a", None], ["b", None]])
    with pytest.raises(VecscoreError, match=r"hyps\[1\]"):
        corpus_bleu(["a", None], ["a", "b"])
    with pytest.raises(VecscoreError, match=r"hyps\[2\]"):
        sentence_bleu(["a", "b", 3], ["a", "b", "c"])
    with pytest.raises(VecscoreError, match=r"refs\[1\]"):
        corpus_bleu(["a", "b"], ["a", 5])
    with pytest.raises(VecscoreError, match=r"refs\[0\]\[1\]"):
        corpus_bleu(["a"], [["a", None]])
    with pytest.raises(VecscoreError, match="empty list"):
        corpus_bleu(["a"], [[]])
    with pytest.raises(VecscoreError, match="single string"):
        corpus_bleu("a b", ["a b"])
    with pytest.raises(VecscoreError, match="refs_layout"):
        corpus_bleu(["a"], ["a"], refs_layout="stream")
    for bad in (dict(tokenize="13b"), dict(smooth_method="expo"), dict(max_ngram_order=0)):
        with pytest.raises(VecscoreError, match="valid|>= 1"):
            corpus_bleu(["a"], ["a"], **bad)


def test_tokenized_period_warning_counts_a_large_call_read_in_place():
    """More than 4,096 hypotheses on the kernels (a built module's, or numba's once it is loaded) are checked where
    they lie: the count in sacreBLEU's warning is Python's own endswith count, over ASCII, Latin-1, two- and
    four-byte texts and a str subclass."""
    from vecscore import built
    from vecscore._jit import activate
    from vecscore.kernels.in_place import ending_flags

    class Sub(str):
        pass

    if not built.has_kernel(ending_flags):
        activate()
    kinds = ["w .", "w", "é .", "é", "中 .", "中.", "😀 .", "😀", " .", ".", "", "Ā .", Sub("s ."), Sub("s")]
    hyps = [kinds[i % len(kinds)] if i % 3 else f"word {i} ." for i in range(5000)]
    want = sum(str.endswith(h, " .") for h in hyps)
    with pytest.warns(TokenizedInputWarning, match=f"^{want} hypotheses end in a tokenized period"):
        corpus_bleu(hyps, [hyps])


def test_tokenized_period_warning():
    hyps = [f"word {i} ." for i in range(100)]
    refs = [f"word {i} ." for i in range(100)]
    with pytest.warns(TokenizedInputWarning, match="100 hypotheses end in a tokenized period"):
        corpus_bleu(hyps, refs)
    with pytest.warns(TokenizedInputWarning):
        BLEU(references=[refs]).corpus_score(hyps)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        corpus_bleu(hyps, refs, force=True)
        corpus_bleu(hyps[:99], refs[:99])
        BLEU(force=True, references=[refs]).corpus_score(hyps)
        sentence_bleu(hyps, refs)  # sacreBLEU scores sentences one at a time: never 100 lines


def test_empty_corpus_and_empty_texts():
    assert corpus_bleu([], []).score == 0.0
    s = corpus_bleu(["", ""], [["a b", "c"], ["d"]])
    assert s.score == 0.0 and s.sys_len == 0 and s.ref_len == 2
    assert sentence_bleu([""], ["a"]).score.tolist() == [0.0]


# --- kernels vs the Counter-based twin ------------------------------------------------------


_tok = st.sampled_from("a b c d e f".split())
_sent = st.lists(_tok, min_size=0, max_size=12)


@st.composite
def _pairs(draw):
    n = draw(st.integers(1, 6))
    hyps = [draw(_sent) for _ in range(n)]
    refs = [[draw(_sent) for _ in range(draw(st.integers(1, 4)))] for _ in range(n)]
    return hyps, refs


@pytest.mark.internal_kernels
@settings(max_examples=200, deadline=None, derandomize=True)
@given(_pairs(), st.integers(1, 6), st.sampled_from(["closest", "shortest"]))
def test_statistics_match_counter_twin(pairs, order, bp):
    hyps, refs = pairs
    sys_len, ref_len, correct, total = corpus_stats(hyps, refs, order)
    if bp == "shortest":
        ref_len = np.array([min(len(r) for r in rs) for rs in refs], np.int64)
    batch = build_batch(hyps, refs, warn_empty=False)
    for mask in (np.uint64(2**64 - 1), np.uint64(0)):  # mask 0: every hash collides, ids decide
        s = batch_stats(batch, order, bp, hash_mask=mask)
        assert s.sys_len.tolist() == sys_len.tolist() and s.ref_len.tolist() == ref_len.tolist()
        assert np.array_equal(s.correct, correct.T) and np.array_equal(s.total, total.T)
    assert np.array_equal(sparse_counts(batch, order), correct.T)
    assert s.nrefs.tolist() == [len(r) for r in refs]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(_pairs(), st.sampled_from(["exp", "floor", "add-k", "none"]), st.booleans())
def test_scores_match_sacrebleu_with_variable_references(pairs, smooth, eff):
    hyps, refs = pairs
    width = max(len(r) for r in refs)
    streams = [[" ".join(r[k]) if k < len(r) else None for r in refs] for k in range(width)]
    texts = [" ".join(h) for h in hyps]
    ours = corpus_bleu(texts, streams, tokenize="none", smooth_method=smooth, effective_order=eff,
                       refs_layout="streams")
    theirs = sacrebleu.BLEU(tokenize="none", smooth_method=smooth, effective_order=eff).corpus_score(texts, streams)
    assert ours.score == theirs.score and ours.ref_len == theirs.ref_len
    sent = sentence_bleu(texts, [[" ".join(x) for x in r] for r in refs], tokenize="none", smooth_method=smooth,
                         effective_order=eff)
    m = sacrebleu.BLEU(tokenize="none", smooth_method=smooth, effective_order=eff)
    assert sent.score.tolist() == [m.sentence_score(t, [" ".join(x) for x in r]).score for t, r in zip(texts, refs)]


@pytest.mark.internal_kernels
def test_long_texts_and_big_vocabulary_match_sparse_route():
    rng = np.random.default_rng(1)
    vocab = np.array([f"w{i}" for i in range(70_000)])  # 17-bit ids: 4-grams do not pack into 64 bits
    hyps = [" ".join(vocab[rng.integers(0, 300 if i % 2 else 70_000, rng.integers(0, 400))]) for i in range(40)]
    refs = [[" ".join(vocab[rng.integers(0, 300, rng.integers(1, 400))]) for _ in range(3)] for _ in range(40)]
    batch = build_batch(hyps, refs, spans_fn=lambda rows: tokenize(rows, "none"), warn_empty=False)
    s = batch_stats(batch, 6)
    assert np.array_equal(s.correct, sparse_counts(batch, 6))
    assert s.correct[:, 1].sum() > 0
