"""BLEU formulas from statistics vs sacrebleu 2.6 and nltk, on random and real token lists."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import data_file
from tests.reference.bleu_py import corpus_stats
from vecscore import VecscoreError
from vecscore.bleu import formulas as bf

sacrebleu = pytest.importorskip("sacrebleu")
nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")

SMOOTHS = ("exp", "floor", "add-k", "none")
WEIGHTS = [(0.25, 0.25, 0.25, 0.25), (0.5, 0.5), (1 / 3, 1 / 3, 1 / 3), (0.1, 0.2, 0.3, 0.2, 0.2), (1.0,)]


def _nltk_fn(method, sf=None):
    sf = sf or nltk_bleu.SmoothingFunction()
    return getattr(sf, method)


def _close(a, b, tol=1e-12):
    return abs(a - b) <= tol * max(1.0, abs(b))


# --- hand example -----------------------------------------------------------------------------


def test_hand_example_two_references_bleu2():
    hyp = "the cat sat on the mat".split()
    refs = ["the cat is on the mat".split(), "the bird sat on the bush".split()]
    stats = corpus_stats([hyp], [refs], 2)
    assert stats[2][:, 0].tolist() == [6, 4] and stats[3][:, 0].tolist() == [6, 5]
    s = bf.sacrebleu_corpus(*stats, smooth_method="none")
    assert s.bp == 1.0 and s.precisions.tolist() == [100.0, 80.0]
    assert s.score == 100 * math.exp((math.log(100.0) + math.log(80.0)) / 2) / 100
    assert abs(s.score / 100 - math.sqrt(4 / 5)) < 1e-15
    assert bf.nltk_corpus(*stats, weights=(0.5, 0.5)) == pytest.approx(math.sqrt(4 / 5), abs=1e-15)


# --- sacreBLEU --------------------------------------------------------------------------------

_tok = st.sampled_from("a b c d e f".split())
_sent = st.lists(_tok, min_size=0, max_size=9)


@st.composite
def _corpus(draw, max_pairs=6):
    n = draw(st.integers(1, max_pairs))
    nrefs = draw(st.integers(1, 3))
    hyps = [draw(_sent) for _ in range(n)]
    refs = [[draw(_sent) for _ in range(nrefs)] for _ in range(n)]
    return hyps, refs


def _streams(refs):
    return [[" ".join(r[j]) for r in refs] for j in range(len(refs[0]))]


@settings(max_examples=150, deadline=None)
@given(_corpus(), st.sampled_from(SMOOTHS), st.booleans(), st.integers(1, 5))
def test_sacrebleu_corpus_and_sentence_bit_identical(corpus, smooth, eff, order):
    hyps, refs = corpus
    metric = sacrebleu.BLEU(tokenize="none", smooth_method=smooth, effective_order=eff, max_ngram_order=order)
    stats = corpus_stats(hyps, refs, order)
    want = metric.corpus_score([" ".join(h) for h in hyps], _streams(refs))
    got = bf.sacrebleu_corpus(*stats, smooth_method=smooth, effective_order=eff)
    assert got.score == want.score and got.bp == want.bp
    assert got.precisions.tolist() == want.precisions
    assert (got.sys_len, got.ref_len) == (want.sys_len, want.ref_len)
    assert bf.format_sacrebleu(got.score, got.precisions, got.bp, got.sys_len, got.ref_len) == want.format()
    sent = bf.sacrebleu_sentence(*stats, smooth_method=smooth, effective_order=eff)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, h in enumerate(hyps):
            w = metric.sentence_score(" ".join(h), [" ".join(r) for r in refs[i]])
            assert sent.score[i] == w.score and sent.bp[i] == w.bp
            assert sent.precisions[:, i].tolist() == w.precisions


@settings(max_examples=60, deadline=None)
@given(_corpus(max_pairs=1), st.sampled_from([0.01, 0.5, 2]))
def test_sacrebleu_smooth_values_and_legacy_sentence_bleu(corpus, value):
    (hyp,), (refs,) = corpus
    stats = corpus_stats([hyp], [refs], 4)
    w = sacrebleu.sentence_bleu(" ".join(hyp), [" ".join(r) for r in refs], tokenize="none")
    assert bf.sacrebleu_sentence(*stats, effective_order=True).score[0] == w.score
    for smooth in ("floor", "add-k"):
        m = sacrebleu.BLEU(tokenize="none", smooth_method=smooth, smooth_value=value)
        want = m.corpus_score([" ".join(hyp)], _streams([refs]))
        assert bf.sacrebleu_corpus(*stats, smooth_method=smooth, smooth_value=value).score == want.score


def test_sacrebleu_edge_cases():
    # empty hypothesis, non-empty reference: bp 0, score 0
    s = bf.sacrebleu_corpus([0], [3], [[0]] * 4, [[0]] * 4)
    assert (s.score, s.bp) == (0.0, 0.0) and s.precisions.tolist() == [0.0] * 4
    # empty hypothesis and reference
    s = bf.sacrebleu_corpus([0], [0], [[0]] * 4, [[0]] * 4)
    assert (s.score, s.bp) == (0.0, 1.0)
    with pytest.raises(VecscoreError, match="smooth_method"):
        bf.sacrebleu_corpus([1], [1], [[1]], [[1]], smooth_method="lin")
    with pytest.raises(VecscoreError, match="orders 1..4"):
        bf.sacrebleu_corpus([1], [1], [[1]], [[1]], max_ngram_order=4)
    with pytest.raises(VecscoreError, match="shape"):
        bf.sacrebleu_sentence([1, 2], [1], [[1]], [[1]])


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"lowercase": True, "tokenize": "intl", "smooth_method": "floor", "effective_order": True},
        {"smooth_method": "add-k", "smooth_value": 2, "tokenize": "zh"},
        {"smooth_method": "none", "tokenize": "char"},
    ],
)
def test_signature_format(kwargs):
    metric = sacrebleu.BLEU(**kwargs)
    metric.corpus_score(["a b"], [["a b"], ["a c"]])
    ours = bf.sacrebleu_signature(nrefs=2, version=sacrebleu.__version__, **{k: v for k, v in kwargs.items()})
    assert ours == metric.get_signature().format()
    assert bf.sacrebleu_signature(nrefs=2, version=sacrebleu.__version__, short=True, **kwargs) == (
        metric.get_signature().format(short=True)
    )
    assert bf.sacrebleu_signature(nrefs="var").endswith("version:" + __import__("vecscore").__version__)


# --- NLTK -------------------------------------------------------------------------------------


def _nltk_compare(hyps, refs, weights, method, auto_reweigh=False, sentence=True, sf=None, **params):
    stats = corpus_stats(hyps, refs, max(5, max(len(w) for w in weights)))
    fn = _nltk_fn(method, sf)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = nltk_bleu.corpus_bleu(refs, hyps, weights, fn, auto_reweigh)
        except (AssertionError, IndexError):
            want = None
        if want is None:
            with pytest.raises(VecscoreError, match="method6"):
                bf.nltk_corpus(*stats, weights=weights, smoothing=method, auto_reweigh=auto_reweigh, **params)
        else:
            got = bf.nltk_corpus(*stats, weights=weights, smoothing=method, auto_reweigh=auto_reweigh, **params)
            want = want if isinstance(want, list) else [want] * len(weights)
            assert all(_close(g, w) for g, w in zip(np.atleast_1d(got), want)), (got, want)
        if not sentence:
            return
        got = bf.nltk_sentence(
            *stats, weights=weights, smoothing=method, auto_reweigh=auto_reweigh, on_error="nan", **params
        )
        got = np.atleast_2d(got)
        for i, (h, r) in enumerate(zip(hyps, refs)):
            try:
                w = nltk_bleu.sentence_bleu(r, h, weights, fn, auto_reweigh)
            except (AssertionError, IndexError):
                assert np.isnan(got[:, i]).all()
                continue
            w = w if isinstance(w, list) else [w]
            assert all(_close(g, x) for g, x in zip(got[:, i], w)), (i, got[:, i], w)


@settings(max_examples=120, deadline=None)
@given(_corpus(), st.sampled_from(bf.NLTK_METHODS), st.sampled_from(range(len(WEIGHTS))), st.booleans())
def test_nltk_random(corpus, method, wi, reweigh):
    hyps, refs = corpus
    _nltk_compare(hyps, refs, [WEIGHTS[wi], WEIGHTS[(wi + 1) % len(WEIGHTS)]], method, reweigh)
    _nltk_compare(hyps, refs, [WEIGHTS[wi]], method, reweigh, sentence=False)


@settings(max_examples=40, deadline=None)
@given(_corpus(), st.sampled_from(bf.NLTK_METHODS))
def test_nltk_single_weight_tuple_and_parameters(corpus, method):
    hyps, refs = corpus
    sf = nltk_bleu.SmoothingFunction(epsilon=0.3, alpha=2, k=3)
    stats = corpus_stats(hyps, refs, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = nltk_bleu.corpus_bleu(refs, hyps, smoothing_function=getattr(sf, method))
        except (AssertionError, IndexError):
            return
        got = bf.nltk_corpus(*stats, smoothing=method, epsilon=0.3, alpha=2, k=3)
    assert isinstance(got, float) and _close(got, want)


def test_nltk_method5_uses_last_pair_and_order_matters():
    hyps = ["the cat is on the mat today".split(), "a dog sat".split()]
    refs = [["the cat is on the mat".split()], ["a dog sat on it".split()]]
    for order in (hyps, hyps[::-1]):
        r = refs if order is hyps else refs[::-1]
        _nltk_compare(order, r, [(0.25,) * 4], "method5", sentence=False)


def test_nltk_method0_warns():
    stats = corpus_stats([["a", "b"]], [[["a", "c"]]], 4)
    with pytest.warns(UserWarning, match="no overlap"):
        v = bf.nltk_corpus(*stats)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = nltk_bleu.corpus_bleu([[["a", "c"]]], [["a", "b"]])
    assert v == pytest.approx(want, rel=1e-12)


# --- real data --------------------------------------------------------------------------------


def _tok_lines(path):
    return [line.split() for line in path.read_text(encoding="utf-8").split("\n")[:-1]] if path.read_text(
        encoding="utf-8"
    ).endswith("\n") else [line.split() for line in path.read_text(encoding="utf-8").split("\n")]


@pytest.fixture(scope="module")
def real_pairs(shared_data):
    ted = data_file(shared_data, "compare-mt-examples")
    wmt = data_file(shared_data, "nltk-wmt15-eval")
    return {
        "ted": (_tok_lines(ted / "ted.sys1.eng"), [[r] for r in _tok_lines(ted / "ted.ref.eng")]),
        "wmt15": (_tok_lines(wmt / "google.ru"), [[r] for r in _tok_lines(wmt / "ref.ru")]),
    }


@pytest.mark.parametrize("name", ["ted", "wmt15"])
def test_real_sacrebleu(real_pairs, name):
    hyps, refs = real_pairs[name]
    assert len(hyps) == len(refs)
    stats = corpus_stats(hyps, refs, 4)
    for smooth in SMOOTHS:
        metric = sacrebleu.BLEU(tokenize="none", smooth_method=smooth)
        want = metric.corpus_score([" ".join(h) for h in hyps], _streams(refs))
        got = bf.sacrebleu_corpus(*stats, smooth_method=smooth)
        assert got.score == want.score
        assert bf.format_sacrebleu(got.score, got.precisions, got.bp, got.sys_len, got.ref_len) == want.format()
    if name == "wmt15":
        assert bf.format_sacrebleu(got.score, got.precisions, got.bp, got.sys_len, got.ref_len).startswith(
            "BLEU = 23.17 53.8/29.6/17.6/10.3 (BP = 1.000 ratio = 1.074 hyp_len = 1989 ref_len = 1852)"
        )
    sent = bf.sacrebleu_sentence(*stats, effective_order=True)
    for i in range(0, len(hyps), 7):
        w = sacrebleu.sentence_bleu(" ".join(hyps[i]), [" ".join(refs[i][0])], tokenize="none")
        assert sent.score[i] == w.score


@pytest.mark.parametrize("name", ["ted", "wmt15"])
def test_real_nltk(real_pairs, name):
    hyps, refs = real_pairs[name]
    hyps, refs = hyps[:600], refs[:600]
    for method in bf.NLTK_METHODS:
        _nltk_compare(hyps, refs, [(0.25,) * 4, (0.5, 0.5), (1 / 3,) * 3], method, sentence=False)
        _nltk_compare(hyps[:150], refs[:150], [(0.25,) * 4], method)


def test_compare_mt_published_sentence_bleu(real_pairs):
    hyps, refs = real_pairs["ted"]
    stats = corpus_stats(hyps[:1], refs[:1], 4)
    assert bf.nltk_sentence(*stats, smoothing="method2")[0] * 100 == pytest.approx(32.44376694160122, abs=1e-10)


def test_mteval_cumulative_bleu_wmt15(real_pairs):
    hyps, refs = real_pairs["wmt15"]
    stats = corpus_stats(hyps, refs, 9)
    expected = [0.5415, 0.4012, 0.3044, 0.2318]
    for i, e in enumerate(expected, start=1):
        assert abs(bf.nltk_corpus(*stats, weights=(1 / i,) * i) - e) < 0.005


# --- builtin sum() as compiled code -------------------------------------------------------------


def _compiled_sum():
    import numba

    from vecscore import _jit
    from vecscore.kernels import pysum

    _jit.activate()  # the helpers become numba dispatchers
    sum_add, sum_result = pysum.sum_add, pysum.sum_result

    def compiled_sum(xs, neumaier):
        s = 0.0
        c = 0.0
        for x in xs:
            s, c = sum_add(s, c, x, neumaier)
        return sum_result(s, c, neumaier)

    return numba.njit(compiled_sum)


@pytest.mark.parametrize(
    "values", [[1e16, 1.0, -1e16], [0.1] * 10, [-0.0], [1e308, 1e308, -1e308], [3.5, -7.25, 1e-17]])
def test_compiled_sum_is_builtin_sum(values):
    """sacreBLEU sums log precisions with ``sum()``, which compensates from Python 3.12 on: the kernels'
    sum for this Python equals it bit for bit (on [1e16, 1, -1e16] the plain sum is 0.0, the compensated 1.0)."""
    compiled_sum = _compiled_sum()
    from vecscore.kernels.pysum import NEUMAIER

    got = compiled_sum(np.array(values), NEUMAIER)
    want = sum(values)
    assert got == want or (math.isnan(got) and math.isnan(want))
    assert math.copysign(1.0, got) == math.copysign(1.0, want)
    assert NEUMAIER == (sum([1e16, 1.0, -1e16]) == 1.0)
    assert compiled_sum(np.array([1e16, 1.0, -1e16]), True) == 1.0
    assert compiled_sum(np.array([1e16, 1.0, -1e16]), False) == 0.0
