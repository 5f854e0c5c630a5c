"""The front doors of score matrices (vecscore.matrices: pairwise, pairwise_batch, mbr, self_bleu, self_score,
similar_pairs) against the anchors, computed in the test: sacreBLEU's sentence_chrf / sentence_bleu /
sentence_ter and rouge-score per cell, mbrs's DecoderMBR with its MetricChrF / MetricBLEU, fast-bleu's SelfBLEU
and NLTK's sentence_bleu.  Texts are real MT outputs (WMT21 en-de, the 20 systems of one source sentence make
its candidates) and seeded random token lists."""
from __future__ import annotations

import logging
import random
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import data_file
from vecscore.errors import VecscoreError
from vecscore.matrices.api import pairwise, pairwise_batch
from vecscore.matrices.diversity import self_bleu, self_score
from vecscore.matrices.mbr import mbr
from vecscore.matrices.similar import PAIR_DTYPE, similar_pairs

sacrebleu = pytest.importorskip("sacrebleu")
rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
logging.getLogger("sacrebleu").setLevel(logging.ERROR)

EDGE = ["", "a", "Der schnelle braune Fuchs \u00fcber \U0001f600 den Hund.", "the the the the", "  spaced   out  "]


def _lines(path: Path) -> list[str]:
    out = path.read_text(encoding="utf-8").split("\n")
    return out[:-1] if out and out[-1] == "" else out


@pytest.fixture(scope="module")
def systems(shared_data) -> list[list[str]]:
    """Per WMT21 en-de system, its 1,002 output lines."""
    folder = data_file(shared_data, "wmt21-news-systems", "en-de", "system-outputs")
    files = sorted(folder.glob("newstest2021.en-de.hyp.*.de"))
    assert len(files) == 20
    return [_lines(f) for f in files]


def _candidates(systems, line: int) -> list[str]:
    return [s[line] for s in systems]


def oracle_cell(metric: str, hyp: str, ref: str, **options) -> float:
    if metric == "chrf":
        return sacrebleu.sentence_chrf(hyp, [ref], **options).score
    if metric == "chrf++":
        return sacrebleu.sentence_chrf(hyp, [ref], word_order=2, **options).score
    if metric == "bleu":
        return sacrebleu.sentence_bleu(hyp, [ref], **options).score
    if metric == "ter":
        return sacrebleu.sentence_ter(hyp, [ref], **options).score
    return rouge_scorer.RougeScorer([metric]).score(ref, hyp)[metric].fmeasure


def oracle_matrix(metric: str, hyps, refs, **options) -> np.ndarray:
    return np.array([[oracle_cell(metric, h, r, **options) for r in refs] for h in hyps], dtype=np.float64)


# --- pairwise ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("metric", ["chrf", "chrf++", "bleu", "ter", "rouge1", "rouge2", "rougeL"])
def test_pairwise_equals_the_anchor_per_cell(systems, metric):
    rng = random.Random(7)
    line = rng.randrange(1002)
    hyps = _candidates(systems, line)[:5] + EDGE[:2]
    refs = _candidates(systems, rng.randrange(1002))[:3] + _candidates(systems, line)[5:7] + EDGE[2:]
    got = pairwise(hyps, refs, metric=metric)
    assert got.dtype == np.float64 and got.shape == (len(hyps), len(refs))
    np.testing.assert_allclose(got, oracle_matrix(metric, hyps, refs), rtol=0, atol=1e-9)


def test_pairwise_against_themselves_and_options(systems):
    hyps = _candidates(systems, 11)[:6]
    own = pairwise(hyps, metric="bleu", tokenize="intl", lowercase=True)
    np.testing.assert_allclose(own, oracle_matrix("bleu", hyps, hyps, tokenize="intl", lowercase=True),
                               rtol=0, atol=1e-9)
    chrf = pairwise(hyps, hyps[:2], metric="chrf", word_order=2, beta=1)
    np.testing.assert_allclose(chrf, oracle_matrix("chrf", hyps, hyps[:2], word_order=2, beta=1), rtol=0, atol=1e-9)


def test_pairwise_batch_is_ragged_and_equals_the_anchor(systems):
    rng = random.Random(3)
    lines = rng.sample(range(1002), 3)
    hyps_batch = [_candidates(systems, k)[:n] for k, n in zip(lines, (4, 1, 6))]
    refs_batch = [_candidates(systems, k)[10:10 + n] for k, n in zip(lines, (2, 5, 3))]
    out = pairwise_batch(hyps_batch, refs_batch, metric="chrf")
    assert [m.shape for m in out] == [(4, 2), (1, 5), (6, 3)]
    for m, h, r in zip(out, hyps_batch, refs_batch):
        np.testing.assert_allclose(m, oracle_matrix("chrf", h, r), rtol=0, atol=1e-9)
    own = pairwise_batch(hyps_batch, metric="rouge1")
    assert [m.shape for m in own] == [(4, 4), (1, 1), (6, 6)]
    np.testing.assert_allclose(own[2], oracle_matrix("rouge1", hyps_batch[2], hyps_batch[2]), rtol=0, atol=1e-12)


def test_pairwise_refuses_bad_input():
    with pytest.raises(VecscoreError, match=r"unknown option 'word_orders'.*word_order=0"):
        pairwise(["a"], metric="chrf", word_orders=2)
    with pytest.raises(VecscoreError, match="metric must be one of"):
        pairwise(["a"], metric="meteor")
    with pytest.raises(VecscoreError, match=r"hyps\[1\] is NoneType, not str"):
        pairwise(["a", None])
    with pytest.raises(VecscoreError, match=r"refs\[0\] is int"):
        pairwise(["a"], [3])
    with pytest.raises(VecscoreError, match="hyps is empty"):
        pairwise([], ["a"])
    with pytest.raises(VecscoreError, match=r"hyps_batch\[1\]\[0\] is float"):
        pairwise_batch([["a"], [1.5]])
    with pytest.raises(VecscoreError, match=r"hyps_batch\[1\] is empty"):
        pairwise_batch([["a"], []])
    with pytest.raises(VecscoreError, match=r"hyps_batch has 2 sources but refs_batch has 1 \(source 1 has no "
                                            "references"):
        pairwise_batch([["a"], ["b"]], [["c"]])
    with pytest.raises(VecscoreError, match="hyps is one str"):
        pairwise("a b c")


# --- MBR --------------------------------------------------------------------------------------------------------

def _mbrs():
    """mbrs's MetricChrF, MetricBLEU and DecoderMBR (:mod:`benchmarks.mbrs_classes`), or a skip where mbrs and
    torch are not installed (CI: mbrs needs torch; test_mbr_is_the_mean_of_the_anchors_cells holds mbr to the
    anchors' cells there)."""
    pytest.importorskip("torch")
    pytest.importorskip("mbrs")
    from benchmarks.mbrs_classes import mbrs_classes

    return mbrs_classes()


@pytest.fixture(scope="module")
def mbrs_classes():
    return _mbrs()


def _same_choice(ours, theirs_idx: int) -> None:
    """mbrs's choice, or a candidate with exactly the same expected utility (mbrs picks among ties with torch's
    topk, whose order among equal values is unspecified; vecscore takes the first)."""
    assert ours.index == theirs_idx or ours.expected[ours.index] == ours.expected[theirs_idx]
    assert ours.index == int(np.argmax(ours.expected))


def test_mbr_chooses_as_mbrs(systems, mbrs_classes):
    metric_chrf, metric_bleu, decoder_mbr = mbrs_classes
    rng = random.Random(21)
    lines = rng.sample(range(1002), 2)
    batch = [_candidates(systems, k) for k in lines]
    for name, cls in (("chrf", metric_chrf), ("bleu", metric_bleu)):
        scorer = cls(cls.Config(num_workers=1))
        decoder = decoder_mbr(decoder_mbr.Config(), scorer)
        results = mbr(batch, metric=name)
        assert isinstance(results, list) and len(results) == 2
        for cands, ours in zip(batch, results):
            _same_choice(ours, decoder.decode(cands, cands, nbest=1).idx[0])
        expected = scorer.expected_scores(batch[0], batch[0]).numpy()
        np.testing.assert_allclose(results[0].expected, expected, rtol=2e-7, atol=0)  # mbrs: float32
        one = mbr(batch[1], metric=name)
        assert not isinstance(one, list)
        assert one.index == results[1].index and np.array_equal(one.expected, results[1].expected)
    # pseudo-references apart from the candidates
    cands, pseudo = batch[0][:8], batch[0][8:]
    scorer = metric_chrf(metric_chrf.Config(num_workers=1))
    ours = mbr(cands, pseudo, metric="chrf")
    _same_choice(ours, decoder_mbr(decoder_mbr.Config(), scorer).decode(cands, pseudo, nbest=1).idx[0])
    # reference aggregation: mbrs's expected_scores_reference_aggregation (float32 there)
    agg = mbr(cands, pseudo, metric="chrf", aggregate=True)
    np.testing.assert_allclose(agg.expected, scorer.expected_scores_reference_aggregation(cands, pseudo).numpy(),
                               rtol=2e-7, atol=0)


@pytest.mark.parametrize("metric", ["chrf", "bleu", "ter"])
def test_mbr_is_the_mean_of_the_anchors_cells(systems, metric):
    """Without mbrs (it needs torch): the expected utility is the mean of the anchor's cells over every
    pseudo-reference, the diagonal included (as mbrs scores the full matrix), and the choice its first best."""
    cands = _candidates(systems, 99)[:7] + [""]
    expected = oracle_matrix(metric, cands, cands).mean(axis=1)
    res = mbr(cands, metric=metric)
    np.testing.assert_allclose(res.expected, expected, rtol=0, atol=1e-9)
    pick = np.argmin if metric == "ter" else np.argmax
    assert res.index == int(pick(expected)) and res.higher_is_better is (metric != "ter")
    assert res.score == res.expected[res.index]
    pseudo = _candidates(systems, 100)[:5]
    res = mbr(cands, pseudo, metric=metric)
    np.testing.assert_allclose(res.expected, oracle_matrix(metric, cands, pseudo).mean(axis=1), rtol=0, atol=1e-9)


def test_mbr_refuses_bad_input():
    cands = ["a b", "c d"]
    with pytest.raises(VecscoreError, match="aggregate=True is for chrf and bleu"):
        mbr(cands, metric="ter", aggregate=True)
    with pytest.raises(VecscoreError, match=r"candidates\[1\] is empty"):
        mbr([["a"], []])
    with pytest.raises(VecscoreError, match="candidates is empty"):
        mbr([])


# --- self-BLEU and self-scores ----------------------------------------------------------------------------------

def _random_token_texts(seed: int, n: int) -> list[list[str]]:
    rng = random.Random(seed)
    vocab = [f"w{k}" for k in range(12)]
    texts = [[rng.choice(vocab) for _ in range(rng.randint(0, 14))] for _ in range(n)]
    texts += [list(texts[2]), list(texts[2]), ["only"], [], list(texts[5][:3])]  # duplicates, a unique, an empty
    return texts


def test_self_bleu_equals_fast_bleu():
    fast_bleu = pytest.importorskip("fast_bleu")
    texts = _random_token_texts(5, 120)
    weights = {"bleu2": (0.5, 0.5), "bleu3": (1 / 3,) * 3, "bleu4": (0.25,) * 4, "bleu5": (0.2,) * 5}
    theirs = fast_bleu.SelfBLEU(texts, weights).get_score()
    ours = self_bleu(texts, weights=list(weights.values()), weights_dtype="float32")
    assert ours.shape == (4, len(texts))
    for row, key in zip(ours, weights):
        np.testing.assert_allclose(row, theirs[key], rtol=0, atol=1e-9)
    one = self_bleu(texts, weights=weights["bleu4"], weights_dtype="float32")
    np.testing.assert_array_equal(one, ours[2])


@pytest.mark.parametrize("plain_max", [0, 10**6])
def test_self_bleu_equals_nltk_with_13a_on_both_routes(systems, monkeypatch, plain_max):
    """Texts tokenized by sacreBLEU's 13a (lowercased) through the compiled table (plain_max 0) and in plain
    Python (few texts: no kernel to compile), against NLTK on the same 13a tokens."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    from vecscore.matrices import diversity

    bleu = pytest.importorskip("nltk.translate.bleu_score")
    monkeypatch.setattr(diversity, "_PLAIN_MAX_TEXTS", plain_max)
    texts = _candidates(systems, 321) + _candidates(systems, 322)[:5] + [""]
    ours = self_bleu(texts, tokenize="13a", lowercase=True)
    tok = Tokenizer13a()
    tokens = [tok(t.lower().rstrip()).split() for t in texts]
    smooth = bleu.SmoothingFunction().method1
    for i in range(len(texts)):
        others = [t for j, t in enumerate(tokens) if j != i]
        assert abs(ours[i] - bleu.sentence_bleu(others, tokens[i], smoothing_function=smooth)) <= 1e-12, i


def test_self_bleu_equals_nltk_on_text(systems):
    bleu = pytest.importorskip("nltk.translate.bleu_score")
    texts = _candidates(systems, 250) + ["", _candidates(systems, 250)[4]]
    ours = self_bleu(texts, weights=(1 / 3,) * 3, tokenize="none")
    smooth = bleu.SmoothingFunction().method1
    for i in random.Random(2).sample(range(len(texts)), 8) + [len(texts) - 2, len(texts) - 1]:
        others = [t.split() for j, t in enumerate(texts) if j != i]
        expected = bleu.sentence_bleu(others, texts[i].split(), weights=(1 / 3,) * 3, smoothing_function=smooth)
        assert abs(ours[i] - expected) <= 1e-12
    with pytest.raises(VecscoreError, match="at least two texts"):
        self_bleu(["only one"])
    with pytest.raises(VecscoreError, match="weights_dtype"):
        self_bleu(texts, weights_dtype="float16")
    with pytest.raises(VecscoreError, match=r"texts\[1\] is NoneType, not str; every text must be a str"):
        self_bleu(["a", None])
    with pytest.raises(VecscoreError, match=r"texts\[1\] holds the token 1 \(int\)"):
        self_bleu([["a"], [1]])


def test_self_score_is_the_off_diagonal_mean(systems):
    texts = _candidates(systems, 640)[:9]
    matrix = oracle_matrix("chrf", texts, texts)
    expected = (matrix.sum(axis=1) - np.diag(matrix)) / (len(texts) - 1)
    np.testing.assert_allclose(self_score(texts, metric="chrf", block=4), expected, rtol=0, atol=1e-9)
    with pytest.raises(VecscoreError, match="at least two texts"):
        self_score(["a"])


# --- similar pairs ----------------------------------------------------------------------------------------------

def _brute(metric, texts, other, threshold, higher=True):
    m = oracle_matrix(metric, texts, texts if other is None else other)
    keep = m >= threshold if higher else m <= threshold
    if other is None:
        keep &= np.triu(np.ones_like(keep), k=1).astype(bool)
    ii, jj = np.nonzero(keep)
    return ii, jj, m[ii, jj]


@pytest.mark.parametrize("metric,threshold", [("rouge1", 0.45), ("rougeL", 0.4), ("ter", 60.0)])
def test_similar_pairs_equal_the_filtered_matrix(systems, metric, threshold):
    texts = _candidates(systems, 17)[:7] + _candidates(systems, 18)[:4] + [_candidates(systems, 17)[0], ""]
    higher = metric != "ter"
    got = similar_pairs(texts, metric=metric, threshold=threshold, block=3)
    assert got.dtype == PAIR_DTYPE
    ii, jj, ss = _brute(metric, texts, None, threshold, higher)
    assert len(ii) > 3
    np.testing.assert_array_equal(got["i"], ii)
    np.testing.assert_array_equal(got["j"], jj)
    np.testing.assert_allclose(got["score"], ss, rtol=0, atol=1e-9)
    other = _candidates(systems, 17)[7:12]
    got = similar_pairs(texts, other, metric=metric, threshold=threshold, block=2, progress=True)
    ii, jj, ss = _brute(metric, texts, other, threshold, higher)
    np.testing.assert_array_equal(got["i"], ii)
    np.testing.assert_array_equal(got["j"], jj)
    np.testing.assert_allclose(got["score"], ss, rtol=0, atol=1e-9)


def test_similar_pairs_refuses_thresholds_outside_the_range():
    for metric, bad in (("rouge1", 1.5), ("chrf", 101), ("bleu", -1), ("ter", -0.1), ("rouge2", "high")):
        with pytest.raises(VecscoreError, match="threshold"):
            similar_pairs(["a b", "a b"], metric=metric, threshold=bad)
    with pytest.raises(VecscoreError, match="block"):
        similar_pairs(["a b", "a b"], block=0)
    assert len(similar_pairs(["a b", "c d"], metric="rouge1", threshold=1.0)) == 0
    assert similar_pairs(["a b", "a b"], metric="chrf", threshold=100).tolist() == [(0, 1, 100.0)]
