"""ROUGE-N: hand-computed fractions, rouge-score parity on real data, twins."""
from __future__ import annotations

import json
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vecscore
from tests.conftest import data_file
from tests.corpora import max_abs_diff, realsumm, summeval
from tests.reference.rouge_n_py import rouge_n_multi
from vecscore import VecscoreError
from vecscore.rouge.multiref import MULTI_REF

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")


def _one(result, metric):
    s = result[metric]
    return float(s.precision[0]), float(s.recall[0]), float(s.fmeasure[0])


# --- worked examples, hand-computed (exact fractions) ------------------------------------


def test_pooled_worked_example():
    r = vecscore.rouge(
        ["the cat sat on the mat"],
        [["the cat is on the mat", "the bird sat on the bush"]],
        metrics=["rouge1", "rouge2"],
        tokenizer="whitespace",
        multi_ref="pooled",
    )
    assert _one(r, "rouge1")[1] == float(Fraction(9, 12))
    assert _one(r, "rouge2")[1] == float(Fraction(5, 10))


def test_character_level_chinese_examples():
    r = vecscore.rouge(["武汉市长江大桥"], ["武汉长江大桥"], metrics=["rouge1", "rouge2"], tokenizer="char")
    p1, r1, _ = _one(r, "rouge1")
    p2, r2, _ = _one(r, "rouge2")
    assert (r1, p1) == (1.0, float(Fraction(6, 7)))
    assert (r2, p2) == (float(Fraction(4, 5)), float(Fraction(4, 6)))
    r = vecscore.rouge(["爱国就要买华为手机"], ["华为与爱国无关"], metrics=["rouge1", "rouge2"], tokenizer="char")
    assert _one(r, "rouge1")[1] == float(Fraction(4, 7))
    assert _one(r, "rouge2")[1] == float(Fraction(2, 6))


def test_word_level_chinese_through_jieba_without_hmm_scores_zero():
    pytest.importorskip("jieba")
    r = vecscore.rouge(["武汉市长江大桥"], ["武汉长江大桥"], metrics=["rouge1", "rouge2"], tokenizer="jieba-nohmm")
    assert _one(r, "rouge1") == (0.0, 0.0, 0.0)
    assert _one(r, "rouge2") == (0.0, 0.0, 0.0)


def test_multi_reference_conventions_by_hand():
    # hyp 7 tokens; ref1 6 tokens with 4 unigram hits; ref2 12 tokens with 6 hits
    hyp = ["police killed the gunman in the bank"]
    refs = [["the gunman was killed by police", "police shot and killed the armed gunman inside the bank on monday"]]
    got = {c: _one(vecscore.rouge(hyp, refs, metrics=["rouge1"], multi_ref=c), "rouge1") for c in MULTI_REF}

    def f1(p, r):
        return 2 * p * r / (p + r)

    p1, r1 = 4 / 7, 4 / 6
    p2, r2 = 6 / 7, 6 / 12
    assert got["pooled"][:2] == pytest.approx((10 / 14, 10 / 18), abs=1e-15)
    assert got["best"] == pytest.approx((p2, r2, f1(p2, r2)), abs=1e-15)  # best F is ref 2
    assert got["best-recall"] == pytest.approx((p1, r1, f1(p1, r1)), abs=1e-15)  # best recall is ref 1
    mean = ((p1 + p2) / 2, (r1 + r2) / 2, (f1(p1, r1) + f1(p2, r2)) / 2)
    assert got["mean"] == pytest.approx(mean, abs=1e-15)
    assert got["jackknife"] == pytest.approx(mean, abs=1e-15)  # two refs: mean of single-reference bests
    assert got["pooled"][2] == pytest.approx(0.625, abs=1e-12)  # ROUGE-1.5.5 -f A prints 0.62500


def test_alpha_and_beta_weighting():
    hyp, ref = ["a b c d"], ["a b x y z w"]  # 2 hits: P = 1/2, R = 1/3
    p, r = 0.5, 1 / 3
    got = _one(vecscore.rouge(hyp, ref, metrics=["rouge1"], alpha=0.2), "rouge1")[2]
    assert got == pytest.approx(p * r / (0.8 * p + 0.2 * r), rel=1e-15)
    got = _one(vecscore.rouge(hyp, ref, metrics=["rouge1"], beta=2.0), "rouge1")[2]
    assert got == pytest.approx(5 * p * r / (4 * p + r), rel=1e-15)


# --- rouge-score parity on real data ------------------------------------------------------






TYPES = ["rouge1", "rouge2", "rouge3"]




@pytest.mark.parametrize("stem", [False, True])
def test_rouge_score_parity_realsumm(shared_data, stem):
    hyps, refs = realsumm(shared_data)
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=stem)
    theirs = [scorer.score(r, h) for h, r in zip(hyps, refs)]
    ours = vecscore.rouge(hyps, refs, metrics=TYPES, stemmer=stem)
    assert len(hyps) == 2500
    assert max_abs_diff(ours, theirs, TYPES) <= 1e-12


@pytest.mark.parametrize("stem", [False, True])
def test_rouge_score_parity_summeval_11_references(shared_data, stem):
    hyps, refs = summeval(shared_data)
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=stem)
    theirs = [scorer.score_multi(r, h) for h, r in zip(hyps, refs)]
    ours = vecscore.rouge(hyps, refs, metrics=TYPES, stemmer=stem, multi_ref="best")
    assert len(hyps) == 1600 and all(len(r) == 11 for r in refs)
    assert max_abs_diff(ours, theirs, TYPES) <= 1e-12


def test_rouge_score_unit_vectors(shared_data):
    path = data_file(shared_data, "rouge-score-unit-vectors", "rouge_score_test_vectors.json")
    cases = [c for c in json.loads(path.read_text())["score_cases"]
             if all(t.startswith("rouge") and t[5:].isdigit() for t in c["rouge_types"])]
    assert cases
    for c in cases:
        got = vecscore.rouge([c["prediction"]], [c["target"]], metrics=c["rouge_types"], stemmer=c["use_stemmer"])
        for k, exp in c["expected"].items():
            assert _one(got, k) == pytest.approx((exp["precision"], exp["recall"], exp["fmeasure"]), abs=1e-12), c


def test_rouge_score_tokenizer_edge_cases():
    # non-ASCII handling follows str.lower(): the Kelvin sign lowercases to ASCII "k"; "İ" to "i" + U+0307
    texts = ["Café naïve résumé", "\u212aelvin İstanbul", "state-of-the-art U.S. 3.5% e-mail", "Don't stop",
             "我爱北京", ""]
    scorer = rouge_scorer.RougeScorer(["rouge1"])
    for t in texts:
        theirs = scorer.score(t, t + " extra words")["rouge1"]
        ours = _one(vecscore.rouge([t + " extra words"], [t], metrics=["rouge1"]), "rouge1")
        assert ours == (theirs.precision, theirs.recall, theirs.fmeasure), t


# --- property-based: vectorized path vs the Counter twin ------------------------------------

TOKENS = st.sampled_from(["a", "b", "c", "the", "é", "武", "x1", "Z"])
TOKEN_LISTS = st.lists(TOKENS, max_size=12)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    st.lists(st.tuples(TOKEN_LISTS, st.lists(TOKEN_LISTS, min_size=1, max_size=4)), min_size=1, max_size=6),
    st.integers(1, 4),
    st.sampled_from(["best", "best-recall", "pooled", "mean", "jackknife"]),
)
def test_matches_counter_twin(pairs, n, convention):
    hyps = [h for h, _ in pairs]
    refs = [r for _, r in pairs]
    got = vecscore.rouge(hyps, refs, metrics=[f"rouge{n}"], multi_ref=convention)
    for i, (h, rs) in enumerate(pairs):
        exp = rouge_n_multi(h, rs, n, convention)
        s = got[f"rouge{n}"]
        assert (s.precision[i], s.recall[i], s.fmeasure[i]) == pytest.approx(exp, abs=1e-15)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.lists(st.integers(0, 5), max_size=10), st.lists(st.integers(0, 5), max_size=10)),
                min_size=1, max_size=5))
def test_integer_ids_match_token_strings(pairs):
    ids = vecscore.rouge([np.array(h, dtype=np.int64) for h, _ in pairs],
                         [np.array(r, dtype=np.int64) for _, r in pairs], metrics=["rouge2"])
    strs = vecscore.rouge([[str(t) for t in h] for h, _ in pairs], [[str(t) for t in r] for _, r in pairs],
                          metrics=["rouge2"])
    np.testing.assert_array_equal(ids["rouge2"].fmeasure, strs["rouge2"].fmeasure)


@pytest.mark.parametrize("offset", [0, 1 << 20, 1 << 40, (1 << 63) - 10])
def test_integer_ids_of_any_size_equal_rouge_score_on_their_string_form(offset):
    """Small ids (a vocabulary) are renumbered through a presence table, large ones (hashes) by sorting: both give
    rouge-score's numbers for the same tokens written as strings."""
    from rouge_score import rouge_scorer

    rng = np.random.default_rng(7)
    hyps = [rng.integers(0, 9, rng.integers(0, 30)) + offset for _ in range(40)]
    refs = [rng.integers(0, 9, rng.integers(1, 30)) + offset for _ in range(40)]
    got = vecscore.rouge(hyps, refs, metrics=["rouge1", "rouge2", "rougeL"])
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    for i, (h, r) in enumerate(zip(hyps, refs)):
        exp = scorer.score(" ".join(f"w{t}" for t in r.tolist()), " ".join(f"w{t}" for t in h.tolist()))
        for m in ("rouge1", "rouge2", "rougeL"):
            assert (got[m].precision[i], got[m].recall[i], got[m].fmeasure[i]) == tuple(exp[m]), (m, i)


def test_dense_ids_equal_numpy_unique():
    from vecscore.engine.batch import dense_ids

    rng = np.random.default_rng(3)
    for flat in (rng.integers(0, 50, 1000), rng.integers(0, 1 << 62, 1000), np.array([5, 5, 0, 2_000_000]),
                 np.zeros(0, np.int64)):
        uniq, inv = np.unique(flat, return_inverse=True)
        ids, n = dense_ids(flat.astype(np.int64))
        assert n == len(uniq) and np.array_equal(ids, inv.reshape(-1)) and ids.dtype == np.int64


def test_high_order_ngrams_with_large_vocabulary_use_exact_keys():
    # 9-grams over a vocabulary too large to bit-pack: keys are built by interning
    rng = np.random.default_rng(0)
    hyps = [rng.integers(0, 100_000, 40) for _ in range(20)]
    refs = [np.concatenate([h[:25], rng.integers(0, 100_000, 10)]) for h in hyps]
    got = vecscore.rouge(hyps, refs, metrics=["rouge9"])
    for i, (h, r) in enumerate(zip(hyps, refs)):
        exp = rouge_n_multi(h.tolist(), [r.tolist()], 9, "best")
        assert got["rouge9"].recall[i] == pytest.approx(exp[1], abs=1e-15)


# --- bad input -------------------------------------------------------------------------------


def test_length_mismatch_names_both_lengths():
    with pytest.raises(VecscoreError, match=r"2 hypotheses but 3 reference"):
        vecscore.rouge(["a", "b"], ["a", "b", "c"])


def test_none_row_is_named():
    with pytest.raises(VecscoreError, match=r"hyps\[1\]"):
        vecscore.rouge(["a", None, "c"], ["a", "b", "c"])
    with pytest.raises(VecscoreError, match=r"refs\[2\]"):
        vecscore.rouge(["a", "b", "c"], ["a", "b", 3])
    with pytest.raises(VecscoreError, match=r"refs\[0\]\[1\]"):
        vecscore.rouge(["a"], [["a", None]])


def test_empty_reference_list_is_an_error():
    with pytest.raises(VecscoreError, match=r"refs\[1\] is an empty list"):
        vecscore.rouge(["a", "b"], [["a"], []])


def test_empty_strings_follow_the_zero_policy():
    r = vecscore.rouge(["", "a b", ""], ["a b", "", ""], metrics=["rouge1"])
    for field in r["rouge1"]:
        assert field.dtype == np.float64
        np.testing.assert_array_equal(field, [0.0, 0.0, 0.0])


def test_unknown_metric_and_options_are_rejected_eagerly():
    with pytest.raises(VecscoreError, match="rougeN"):
        vecscore.rouge(["a"], ["a"], metrics=["rouge0"])
    with pytest.raises(VecscoreError, match="multi_ref"):
        vecscore.rouge(["a"], ["a"], multi_ref="max")
    with pytest.raises(VecscoreError, match="tokenizer"):
        vecscore.rouge(["a"], ["a"], tokenizer="spacy")


def test_non_empty_text_reduced_to_nothing_warns_once_with_the_fix():
    with pytest.warns(vecscore.EmptyTokenizationWarning, match=r"2 non-empty.*tokenizer='char'"):
        vecscore.rouge(["我爱北京", "ok"], ["我爱北京天安门", "ok"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vecscore.rouge(["", "ok"], ["a", "ok"])  # empty strings are not warned about


def test_streams_layout_equals_per_example_layout():
    hyps = ["a b c", "d e f"]
    per_example = vecscore.rouge(hyps, [["a b", "a c"], ["d e", "f"]], metrics=["rouge1"], multi_ref="pooled")
    streams = vecscore.rouge(hyps, [["a b", "d e"], ["a c", "f"]], metrics=["rouge1"], multi_ref="pooled",
                             refs_layout="streams")
    np.testing.assert_array_equal(per_example["rouge1"].fmeasure, streams["rouge1"].fmeasure)
    with pytest.raises(VecscoreError, match="stream 1 has 1 references but there are 2"):
        vecscore.rouge(hyps, [["a", "b"], ["a"]], refs_layout="streams")
