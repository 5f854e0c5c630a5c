"""NLTK parity (<= 1e-12) of vecscore.bleu.nltk, methods 0-7, corpus and sentence level."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from tests.conftest import data_file
from vecscore import VecscoreError
from vecscore.bleu.nltk import NLTK_METHODS, nltk_corpus_bleu, nltk_sentence_bleu

nb = pytest.importorskip("nltk.translate.bleu_score")
WEIGHTS = [(0.25, 0.25, 0.25, 0.25), (0.5, 0.5), (1 / 3, 1 / 3, 1 / 3), (0.1, 0.2, 0.3, 0.2, 0.2)]
TOL = 1e-12


def _tok_lines(path):
    return [line.split() for line in path.read_text(encoding="utf-8").split("\n")[:-1]]


def _nltk(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args, **kw)
        except (AssertionError, ZeroDivisionError, IndexError):
            return float("nan")


def _ours(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, on_error="nan", **kw)


def _close(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return bool(np.all((np.abs(a - b) <= TOL) | (np.isnan(a) & np.isnan(b))))


@pytest.fixture(scope="module")
def corpora(shared_data):
    ted = data_file(shared_data, "compare-mt-examples")
    wmt = data_file(shared_data, "nltk-wmt15-eval")
    ref = _tok_lines(data_file(ted, "ted.ref.eng"))
    out = {f"ted-{s}": (_tok_lines(data_file(ted, f"ted.{s}.eng")), [[r] for r in ref]) for s in ("sys1", "sys2")}
    out["wmt15"] = (_tok_lines(data_file(wmt, "google.ru")), [[r] for r in _tok_lines(data_file(wmt, "ref.ru"))])
    return out


@pytest.mark.parametrize("method", NLTK_METHODS)
@pytest.mark.parametrize("name", ["ted-sys1", "ted-sys2", "wmt15"])
def test_corpus_level_whole_corpora(corpora, name, method):
    hyps, refs = corpora[name]
    sf = nb.SmoothingFunction()
    fn = getattr(sf, method)
    want = _nltk(nb.corpus_bleu, refs, hyps, weights=WEIGHTS[:2], smoothing_function=fn)  # one call, a list
    got = _ours(nltk_corpus_bleu, hyps, refs, weights=WEIGHTS[:2], smoothing=fn)
    assert _close(got, want), (got, want)
    assert _close(_ours(nltk_corpus_bleu, hyps, refs, weights=WEIGHTS[2], smoothing=method),
                  _nltk(nb.corpus_bleu, refs, hyps, weights=WEIGHTS[2], smoothing_function=fn))


@pytest.mark.parametrize("method", NLTK_METHODS)
@pytest.mark.parametrize("name,n", [("ted-sys1", 300), ("ted-sys2", 300), ("wmt15", 100)])
def test_sentence_level(corpora, name, n, method):
    hyps, refs = corpora[name]
    hyps, refs = hyps[:n], refs[:n]
    fn = getattr(nb.SmoothingFunction(), method)
    got = _ours(nltk_sentence_bleu, hyps, refs, weights=WEIGHTS, smoothing=fn)
    assert got.shape == (len(WEIGHTS), n)
    want = [_nltk(nb.sentence_bleu, r, h, weights=WEIGHTS, smoothing_function=fn) for h, r in zip(hyps, refs)]
    want = [w if isinstance(w, list) else [w] * len(WEIGHTS) for w in want]  # nan: nltk raised
    assert _close(got, np.array(want, float).T)
    single = _ours(nltk_sentence_bleu, hyps, refs, weights=WEIGHTS[1], smoothing=fn)
    assert _close(single, [_nltk(nb.sentence_bleu, r, h, weights=WEIGHTS[1], smoothing_function=fn)
                           for h, r in zip(hyps, refs)])


def test_compare_mt_published_sentence_value(corpora):
    hyps, refs = corpora["ted-sys1"]
    got = nltk_sentence_bleu(hyps[:1], refs[:1], smoothing="method2")[0] * 100
    assert abs(got - 32.44376694160122) <= 1e-10  # compare-mt tests/test_scorers.py


def test_wmt15_cumulative_orders_vs_mteval(corpora):
    """NLTK's own test: weights (1/i,)*i, i = 1..9, within 0.005 of mteval-v13a's cumulative BLEU."""
    hyps, refs = corpora["wmt15"]
    weights = [(1 / i,) * i for i in range(1, 10)]
    mteval = [0.5415, 0.4012, 0.3044, 0.2318, 0.1744, 0.1303, 0.0955, 0.0681, 0.0481]
    for fn in (None, "method3"):
        got = _ours(nltk_corpus_bleu, hyps, refs, weights=weights, smoothing=fn)
        want = _nltk(nb.corpus_bleu, refs, hyps, weights=weights,
                     smoothing_function=getattr(nb.SmoothingFunction(), fn or "method0"))
        assert _close(got, want)
        assert np.all(np.abs(got[:4] - mteval[:4]) < 0.005)


def test_auto_reweigh_params_and_order_dependence():
    hyps = [["hello", "there"], ["a", "b", "c", "d", "e"]]
    refs = [[["hello", "there"]], [["a", "b", "c", "x", "e"]]]
    for reweigh in (False, True):
        for h, r in zip(hyps, refs):
            assert _close(nltk_sentence_bleu([h], [r], auto_reweigh=reweigh, smoothing="method1")[0],
                          nb.sentence_bleu(r, h, auto_reweigh=reweigh,
                                           smoothing_function=nb.SmoothingFunction().method1))
    sf = nb.SmoothingFunction(epsilon=0.3, alpha=2, k=3)
    for m in ("method1", "method4", "method5", "method6", "method7"):
        for order in (slice(None), slice(None, None, -1)):  # methods 5-7 depend on the last pair, as in nltk
            got = _ours(nltk_corpus_bleu, hyps[order], refs[order], smoothing=getattr(sf, m))
            assert _close(got, _nltk(nb.corpus_bleu, refs[order], hyps[order], smoothing_function=getattr(sf, m)))
            got = _ours(nltk_corpus_bleu, hyps[order], refs[order], smoothing=m, epsilon=0.3, alpha=2, k=3)
            assert _close(got, _nltk(nb.corpus_bleu, refs[order], hyps[order], smoothing_function=getattr(sf, m)))


def test_nltk_input_errors():
    with pytest.raises(VecscoreError, match="token lists"):
        nltk_corpus_bleu(["the cat"], [["the cat"]])
    assert nltk_corpus_bleu(["the cat"], [["the cat"]], tokenize="none", weights=(0.5, 0.5)) == pytest.approx(1.0)
    with pytest.raises(VecscoreError, match="smoothing"):
        nltk_corpus_bleu([["a"]], [[["a"]]], smoothing=lambda p, **kw: p)
    with pytest.raises(VecscoreError, match="hyps"):  # nltk's argument order: references first
        nltk_corpus_bleu([[["a"]]], [["a"]])
    with pytest.raises(VecscoreError, match="method6"):
        nltk_sentence_bleu([["a", "b"]], [[["a", "c"]]], smoothing="method6")
    with pytest.raises(VecscoreError, match="2 hypotheses but 1"):
        nltk_corpus_bleu([["a"], ["b"]], [[["a"]]])


@pytest.mark.parametrize("route", ["plain", "compiled"])
def test_token_lists_of_every_shape(monkeypatch, route):
    """Token lists read in one pass (tokens joined with NULs) or token by token (a token holding a NUL), and
    references given as one token list or a list of them per pair, mixed: NLTK's numbers on both routes."""
    monkeypatch.setenv("VECSCORE_ROUTE", route)
    hyps = [["the", "cat", "", "sat"], ["é", "a b", "x"], ["a\x00b", "c", "d", "e"], ["f", "g"], []]
    refs = [[["the", "cat", "", "sat", "down"]], ["é", "a b", "y"], [["a\x00b", "c", "d"], ["c", "d", "e"]],
            [["f", "g", "h"]], [["z"]]]
    nltk_refs = [r if isinstance(r[0], list) else [r] for r in refs]
    for lo, hi in ((0, 5), (0, 2), (3, 5)):  # with and without the NUL-holding token
        got = _ours(nltk_corpus_bleu, hyps[lo:hi], refs[lo:hi], weights=(0.5, 0.5))
        want = _nltk(nb.corpus_bleu, nltk_refs[lo:hi], hyps[lo:hi], weights=(0.5, 0.5))
        assert _close(got, want), (lo, hi)
        got = _ours(nltk_sentence_bleu, hyps[lo:hi], refs[lo:hi], weights=(0.5, 0.5))
        want = [_nltk(nb.sentence_bleu, r, h, weights=(0.5, 0.5)) for h, r in zip(hyps[lo:hi], nltk_refs[lo:hi])]
        assert _close(got, want), (lo, hi)
