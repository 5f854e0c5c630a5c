"""Word-length-weighted ROUGE: hand-computed values and the plain-Python twin."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.reference.skipgrams_py import weighted_lcs, weighted_ngram
from vecscore import rouge
from vecscore.errors import VecscoreError
from vecscore.rouge.weighted import rouge_weighted

jieba = pytest.importorskip("jieba")


def _stats(r, m):
    return int(r.stats[m].hits[0]), int(r.stats[m].p_den[0]), int(r.stats[m].r_den[0])


@pytest.mark.parametrize("tok,hmm", [("jieba", True), ("jieba-nohmm", False)])
def test_wuhan_bridge_with_jieba(tok, hmm):
    """jieba segments 武汉市长江大桥 as 武汉市/长江大桥 and 武汉长江大桥 as one word, HMM on or off.

    No word is shared, so by hand: hits 0 for ROUGE-1/2/L; weights 3 + 4 = 7 (hypothesis)
    and 6 (reference) for ROUGE-1 and L; ROUGE-2: one hypothesis bigram of 7 characters,
    no reference bigram.
    """
    assert jieba.lcut("武汉市长江大桥", HMM=hmm) == ["武汉市", "长江大桥"]
    assert jieba.lcut("武汉长江大桥", HMM=hmm) == ["武汉长江大桥"]
    r = rouge_weighted(["武汉市长江大桥"], ["武汉长江大桥"], tokenizer=tok, metrics=["rouge1", "rouge2", "rougeL"])
    assert _stats(r, "rouge1") == (0, 7, 6) and _stats(r, "rougeL") == (0, 7, 6) and _stats(r, "rouge2") == (0, 7, 0)
    assert r["rouge1"].fmeasure[0] == r["rougeL"].fmeasure[0] == 0.0
    # a matched word counts its characters: the whole bridge is one 6-character match
    same = rouge_weighted(["武汉长江大桥"], ["武汉长江大桥"], tokenizer=tok, metrics=["rouge1"])
    plain = rouge(["武汉长江大桥"], ["武汉长江大桥"], tokenizer=tok, metrics=["rouge1"])
    assert _stats(same, "rouge1") == (6, 6, 6) and plain.stats["rouge1"].hits.tolist() == [1]


def test_wuhan_bridge_finer_segmentation_by_hand():
    """Segmentations 武汉/市/长江大桥 vs 武汉/长江大桥 (pre-tokenized).

    ROUGE-1: hits 2 + 4 = 6, P = 6/7, R = 6/6, F = 12/13 (word level: P 2/3, R 1).
    ROUGE-2: hypothesis bigrams 武汉+市 (3), 市+长江大桥 (5); reference 武汉+长江大桥 (6): hits 0.
    ROUGE-L: common subsequence 武汉, 长江大桥 = 6 characters: P 6/7, R 1.
    """
    r = rouge_weighted([["武汉", "市", "长江大桥"]], [["武汉", "长江大桥"]], metrics=["rouge1", "rouge2", "rougeL"])
    assert _stats(r, "rouge1") == (6, 7, 6) and _stats(r, "rouge2") == (0, 8, 6) and _stats(r, "rougeL") == (6, 7, 6)
    for m in ("rouge1", "rougeL"):
        assert r[m].precision[0] == float(Fraction(6, 7)) and r[m].recall[0] == 1.0
        assert r[m].fmeasure[0] == pytest.approx(float(Fraction(12, 13)), abs=1e-15)
    w = rouge([["武汉", "市", "长江大桥"]], [["武汉", "长江大桥"]], metrics=["rouge1"])
    assert w["rouge1"].precision[0] == pytest.approx(2 / 3)


def test_character_tokens_equal_plain_rouge():
    h, r = ["武汉市长江大桥"], ["武汉长江大桥"]
    a = rouge_weighted(h, r, tokenizer="char", metrics=["rouge1", "rouge2"])
    b = rouge(h, r, tokenizer="char", metrics=["rouge1", "rouge2"])
    assert np.allclose(a["rouge1"].fmeasure, b["rouge1"].fmeasure)
    assert _stats(a, "rouge2") == (8, 12, 10)  # 4 shared character bigrams of 2 characters


words = st.lists(st.sampled_from(["a", "bb", "ccc", "武汉", "长江大桥", "市"]), max_size=12)


@settings(max_examples=100, deadline=None)
@given(h=words, r=words, n=st.integers(1, 3))
def test_matches_twin(h, r, n):
    res = rouge_weighted([h], [r], metrics=[f"rouge{n}", "rougeL"], tokenizer="whitespace")
    assert _stats(res, f"rouge{n}") == weighted_ngram(h, r, n)
    assert int(res.stats["rougeL"].hits[0]) == weighted_lcs(h, r)


def test_multi_reference_and_errors():
    r = rouge_weighted([["ab", "c"]], [[["ab"], ["c"]]], metrics=["rouge1"], multi_ref="pooled")
    assert _stats(r, "rouge1") == (3, 6, 3)
    with pytest.raises(VecscoreError, match="rougeL"):
        rouge_weighted(["a"], ["a"], metrics=["rougeW"])
    with pytest.raises(VecscoreError, match="token ids"):
        rouge_weighted([np.array([1, 2])], [np.array([1])])
