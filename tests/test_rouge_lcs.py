"""ROUGE-L, ROUGE-Lsum and ROUGE-W through the public API.

Oracles: rouge-score 0.1.2 (rougeL, rougeLsum, score_multi), ROUGE-1.5.5.pl
(its summary-level ROUGE-L and ROUGE-W-1.2: the per-pair files computed with
the script in ../shared/data, and the script itself run on generated pairs),
and hand-computed values.
"""
from __future__ import annotations

import json
import warnings
from fractions import Fraction

import numpy as np
import pytest

import vecscore
from tests.conftest import data_file
from tests.corpora import max_abs_diff, realsumm, summeval
from vecscore.errors import VecscoreWarning

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
TYPES = ["rougeL", "rougeLsum"]






@pytest.mark.parametrize("stem", [False, True])
def test_rouge_score_parity_realsumm(shared_data, stem):
    hyps, refs = realsumm(shared_data)
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=stem)
    theirs = [scorer.score(r, h) for h, r in zip(hyps, refs)]
    ours = vecscore.rouge(hyps, refs, metrics=TYPES, stemmer=stem)
    assert max_abs_diff(ours, theirs, TYPES) <= 1e-12


def test_rouge_score_parity_summeval_11_references(shared_data):
    hyps, refs = summeval(shared_data)
    scorer = rouge_scorer.RougeScorer(TYPES)
    theirs = [scorer.score_multi(r, h) for h, r in zip(hyps, refs)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VecscoreWarning)  # SummEval texts have no newlines
        ours = vecscore.rouge(hyps, refs, metrics=TYPES, multi_ref="best")
    assert max_abs_diff(ours, theirs, TYPES) <= 1e-12


def test_rouge_score_unit_vectors_all_cases(shared_data):
    path = data_file(shared_data, "rouge-score-unit-vectors", "rouge_score_test_vectors.json")
    cases = json.loads(path.read_text())["score_cases"]
    assert any("rougeLsum" in c["rouge_types"] for c in cases)
    for c in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", VecscoreWarning)
            got = vecscore.rouge([c["prediction"]], [c["target"]], metrics=c["rouge_types"], stemmer=c["use_stemmer"])
        for k, exp in c["expected"].items():
            s = got[k]
            assert (s.precision[0], s.recall[0], s.fmeasure[0]) == pytest.approx(
                (exp["precision"], exp["recall"], exp["fmeasure"]), abs=1e-12), c


def test_rouge155_parity_realsumm_l_and_w(shared_data):
    """ROUGE-1.5.5's ROUGE-L and ROUGE-W-1.2 (no stemming) on all 2,500 pairs.

    On this ASCII text the rouge-score tokenizer yields the script's tokens, so
    rougeLsum and rougeW (wlcs="rouge155") reproduce the script; it rounds R
    and P to 5 decimals and computes F from the rounded values.
    """
    hyps, refs = realsumm(shared_data)
    pairs = data_file(shared_data, "realsumm-cnndm", "realsumm_cnndm_100docs.jsonl")
    keys = [(r["set"], r["system"], r["doc_id"]) for r in map(json.loads, pairs.open(encoding="utf-8"))]
    path = data_file(shared_data, "realsumm-cnndm", "computed_here_rouge155_per_pair.jsonl")
    by_key = {(r["set"], r["system"], r["doc_id"]): r["rouge155_nostem"]
              for r in map(json.loads, path.open(encoding="utf-8"))}
    perl = [by_key[k] for k in keys]  # the file lists the pairs in another order
    ours = vecscore.rouge(hyps, refs, metrics=["rougeLsum", "rougeW-1.2"], wlcs="rouge155")
    for ours_key, perl_key in [("rougeLsum", "ROUGE-L"), ("rougeW-1.2", "ROUGE-W-1.2")]:
        s = ours[ours_key]
        for field, letter in [("recall", "R"), ("precision", "P"), ("fmeasure", "F")]:
            exp = np.array([p[perl_key][letter] for p in perl])
            diff = np.abs(getattr(s, field) - exp)
            assert diff.max() <= 1e-5 + 1e-9, (ours_key, field, int(diff.argmax()))


def _generated_pairs(seed, n):
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(12)]

    def text():
        sents = []
        for _ in range(rng.integers(1, 5)):
            sents.append(" ".join(rng.choice(vocab, rng.integers(1, 12))))
        return "\n".join(sents)

    return [text() for _ in range(n)], [text() for _ in range(n)]


def test_rouge155_script_on_generated_multi_sentence_pairs(perl_rouge, tmp_path):
    hyps, refs = _generated_pairs(7, 150)
    out = perl_rouge.score(hyps, [[r] for r in refs], ["-n", "1", "-w", "1.2"], workdir=tmp_path)
    ours = vecscore.rouge(hyps, refs, metrics=["rougeLsum", "rougeW-1.2"], wlcs="rouge155")
    for ours_key, perl_key in [("rougeLsum", "ROUGE-L"), ("rougeW-1.2", "ROUGE-W-1.2")]:
        exp = out[perl_key]
        s = ours[ours_key]
        np.testing.assert_allclose(s.recall, [e.recall for e in exp], atol=1e-5 + 1e-9)
        np.testing.assert_allclose(s.precision, [e.precision for e in exp], atol=1e-5 + 1e-9)
        # the script computes F from R and P already rounded to 5 decimals
        r5, p5 = np.round(s.recall, 5), np.round(s.precision, 5)
        f5 = np.divide(r5 * p5, 0.5 * p5 + 0.5 * r5, out=np.zeros_like(r5), where=(p5 + r5) > 0)
        np.testing.assert_allclose(f5, [e.fmeasure for e in exp], atol=1e-5 + 1e-9)


def test_hand_computed_chinese_examples():
    # union LCS, character level: 10 hits over 14 reference and 21 hypothesis characters
    r = vecscore.rouge(["矿泉水含有丰富的矿物质元素\n纯净水不含矿物质"], ["矿泉水和纯净水的所含物质不同"],
                       metrics=["rougeLsum"], tokenizer="char")
    assert (r["rougeLsum"].recall[0], r["rougeLsum"].precision[0]) == (float(Fraction(10, 14)), float(Fraction(10, 21)))
    # the documents claim the LCS below is 自然语言处理 (6); it is 自然语言处理好难啊 (9)
    r = vecscore.rouge(["我很喜欢自然语言处理，可是好难啊"], ["自然语言处理好难啊，所以我不喜欢"],
                       metrics=["rougeL"], tokenizer="char")
    assert r.stats["rougeL"].hits[0] == 9
    assert r["rougeL"].recall[0] == float(Fraction(9, 16))


def test_rouge_w_quirk_and_textbook_mode():
    same = ["a b c d e"]
    w = vecscore.rouge(same, same, metrics=["rougeW"], wlcs="rouge155")["rougeW"]
    assert w.recall[0] == pytest.approx(5 ** (1 - 1.2), abs=1e-15)  # f applied twice: 0.72478
    assert w.precision[0] == 1.0
    t = vecscore.rouge(same, same, metrics=["rougeW"], wlcs="textbook")["rougeW"]
    assert (t.precision[0], t.recall[0], t.fmeasure[0]) == pytest.approx((1.0, 1.0, 1.0), abs=1e-15)
    # textbook: hyp "a b x c d" vs ref "a b c d": runs "a b" and "c d": WLCS = 2 f(2) = 2 * 2**1.2
    t = vecscore.rouge(["a b x c d"], ["a b c d"], metrics=["rougeW"], wlcs="textbook")["rougeW"]
    wl = 2 * 2**1.2
    assert t.recall[0] == pytest.approx((wl / 4**1.2) ** (1 / 1.2), rel=1e-14)
    assert t.precision[0] == pytest.approx((wl / 5**1.2) ** (1 / 1.2), rel=1e-14)


def test_rougelsum_without_newlines_warns_and_punct_splitter_splits():
    hyp = ["it was a happy cat. the cat sat on the mat."]
    ref = ["the cat sat on the mat. it was happy."]
    with pytest.warns(VecscoreWarning, match="rougeLsum equals rougeL"):
        r = vecscore.rouge(hyp, ref, metrics=["rougeL", "rougeLsum"])
    assert r["rougeLsum"].fmeasure[0] == r["rougeL"].fmeasure[0] == pytest.approx(0.6, abs=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = vecscore.rouge(hyp, ref, metrics=["rougeLsum"], sentence_splitter="punct")
    assert r["rougeLsum"].fmeasure[0] == pytest.approx(0.9, abs=1e-12)  # one sentence per line: 0.9


def test_lsum_with_python_tokenizer_and_stopwords_keeps_sentences():
    hyp = ["the cat sat\non the mat"]
    ref = ["on the mat\nthe cat sat"]
    scorer = rouge_scorer.RougeScorer(["rougeLsum"])
    exp = scorer.score(ref[0], hyp[0])["rougeLsum"].fmeasure
    assert vecscore.rouge(hyp, ref, metrics=["rougeLsum"], tokenizer=str.split)["rougeLsum"].fmeasure[0] == exp
    # a removed stopword starting a sentence does not merge two sentences
    got = vecscore.rouge(["x the cat\nthe dog y"], ["the dog y\nx the cat"], metrics=["rougeLsum"], stopwords={"the"})
    assert got["rougeLsum"].fmeasure[0] == 1.0


def test_rougescorer_drop_in_handles_l_types():
    ours = vecscore.RougeScorer(["rougeL", "rougeLsum"], use_stemmer=True)
    theirs = rouge_scorer.RougeScorer(["rougeL", "rougeLsum"], use_stemmer=True)
    t, p = "The cats sat.\nOn mats they sat", "cats sitting on the mat\nthey sat"
    assert ours.score(t, p) == theirs.score(t, p)
    assert ours.score_multi([t, "they sat"], p) == theirs.score_multi([t, "they sat"], p)
