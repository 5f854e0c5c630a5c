"""RougeStats (ROUGE's per-pair statistics) and the one meaning of ``stemmer``/``stopwords`` across the ROUGE APIs.

Expected values are fractions computed by hand or rouge-score's own numbers.
"""
from __future__ import annotations

import numpy as np
import pytest
from rouge_score import rouge_scorer

import vecscore
from vecscore import RougeStats
from vecscore.errors import VecscoreError
from vecscore.text.stopwords import smart_stopwords


def test_scores_and_micro_are_hand_fractions():
    st = RougeStats([3, 0, 2], [4, 0, 2], [6, 2, 4])
    p, r, f = st.scores()
    assert p.tolist() == [0.75, 0.0, 1.0] and r.tolist() == [0.5, 0.0, 0.5]
    assert f[0] == pytest.approx(2 * 0.75 * 0.5 / 1.25) and f[1] == 0.0
    micro = st.micro()
    assert (micro.precision, micro.recall) == (5 / 6, 5 / 12)
    assert micro.fmeasure == pytest.approx(2 * (5 / 6) * (5 / 12) / (5 / 6 + 5 / 12))
    assert st.total().hits.tolist() == [5]
    assert RougeStats.concat([st.take([0]), st.take([1, 2])]).hits.tolist() == [3, 0, 2]


def test_weighted_ratios_go_through_the_inverse():
    st = RougeStats([8.0], [16.0], [32.0], exponent=2.0)
    p, r, _ = st.scores()
    assert p[0] == pytest.approx(0.5 ** 0.5) and r[0] == pytest.approx(0.25 ** 0.5)


def test_result_stats_give_the_result_scores_with_several_references():
    hyps = ["the cat sat on the mat", "a dog barked at the moon"]
    refs = [["the cat is on the mat", "a cat sat on a mat"], ["the dog barked", "dogs bark at the moon loudly"]]
    for multi_ref in ("best", "best-recall", "pooled"):
        res = vecscore.rouge(hyps, refs, metrics=["rouge1", "rouge2", "rougeL"], multi_ref=multi_ref)
        for m in res:
            assert all(np.array_equal(a, b) for a, b in zip(res.stats[m].scores(), res[m])), (multi_ref, m)
    res = vecscore.rouge(hyps, refs, metrics=["rouge1"], multi_ref="best")
    scorer = rouge_scorer.RougeScorer(["rouge1"])
    want = [scorer.score_multi(r, h)["rouge1"] for h, r in zip(hyps, refs)]
    assert res["rouge1"].fmeasure.tolist() == [w.fmeasure for w in want]
    # mean and jackknife have no single set of counts
    assert "rouge1" not in vecscore.rouge(hyps, refs, metrics=["rouge1"], multi_ref="mean").stats


def test_stopwords_true_is_the_smart_list_in_both_apis():
    hyps, refs = ["the cat sat on the mat today"], ["a cat was sitting on a mat"]
    a = vecscore.rouge(hyps, refs, metrics=["rouge1"], stopwords=True)
    b = vecscore.rouge(hyps, refs, metrics=["rouge1"], stopwords=smart_stopwords())
    assert a["rouge1"].fmeasure.tolist() == b["rouge1"].fmeasure.tolist()
    assert "stop:smart" in a.signature and "stop:custom" in b.signature
    # the list holds "sat" (Saturday): cat, mat, today against cat, sitting, mat: 2 hits of 3 and of 3
    assert (a.stats["rouge1"].hits[0], a.stats["rouge1"].p_den[0], a.stats["rouge1"].r_den[0]) == (2, 3, 3)
    c = vecscore.rouge155(hyps, refs, metrics=["rouge1"], stopwords=True, round5=False)
    d = vecscore.rouge155(hyps, refs, metrics=["rouge1"], stopwords=smart_stopwords(), round5=False)
    assert c["rouge1"].recall.tolist() == d["rouge1"].recall.tolist() == [2 / 3]


def test_rouge155_takes_a_stopword_collection_and_stemmer():
    # hypothesis "the cats sat" minus {"the"}: cats, sat; reference "a cat sat": a, cat, sat -> stemmed cat matches
    res = vecscore.rouge155(["the cats sat"], ["a cat sat"], metrics=["rouge1"], stopwords=["the", "a"],
                            stemmer=True, round5=False)
    assert (res["rouge1"].precision[0], res["rouge1"].recall[0]) == (1.0, 1.0)
    assert "stop:custom" in res.signature and "stem:perl" in res.signature


@pytest.mark.parametrize("bad", ["the", 3, [1, 2]])
def test_bad_stopwords_are_refused(bad):
    with pytest.raises(VecscoreError, match="stopwords"):
        vecscore.rouge(["a b"], ["a b"], stopwords=bad)


@pytest.mark.parametrize("command", ["rouge", "rouge155"])
def test_cli_stopwords_without_file_is_the_smart_list(tmp_path, capsys, command):
    import json

    from vecscore.cli.main import main

    (tmp_path / "h.txt").write_text("the cat sat on the mat today\n")
    (tmp_path / "r.txt").write_text("a cat was sitting on a mat\n")
    (tmp_path / "sw.txt").write_text("today\ncat\n")
    base = [command, "--hyps", str(tmp_path / "h.txt"), "--refs", str(tmp_path / "r.txt"), "--metrics", "rouge1"]
    assert main([*base, "--stopwords"]) == 0
    smart = json.loads(capsys.readouterr().out)
    assert smart["rouge1"]["recall"] == pytest.approx(2 / 3) and "stop:smart" in smart["signature"]
    assert main([*base, "--stopwords", str(tmp_path / "sw.txt")]) == 0
    # without cat and today: the, sat, on, the, mat against a, was, sitting, on, a, mat
    custom = json.loads(capsys.readouterr().out)
    assert custom["rouge1"]["recall"] == pytest.approx(2 / 6) and "stop:custom" in custom["signature"]
