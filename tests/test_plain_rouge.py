"""The small-batch route of ``vecscore.rouge`` equals the compiled route bit for bit, and rouge-score.

Both routes are forced with ``VECSCORE_ROUTE`` on the same real corpora
(REALSumm's multi-sentence summaries, SummEval's 11 references, WMT21's German
translations, which are not ASCII) and every statistic and score is compared
with ``np.array_equal``; rouge-score itself is the oracle on a sample.
"""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from rouge_score import rouge_scorer

import vecscore
from tests.conftest import data_file, plain_budget
from tests.corpora import realsumm, summeval
from vecscore import route
from vecscore.rouge.plain import lcs_length, union_lcs_hits

METRICS = ["rouge1", "rouge2", "rouge4", "rougeL", "rougeLsum"]


def _both(monkeypatch, hyps, refs, **kw):
    out = []
    for r in ("plain", "compiled"):
        monkeypatch.setenv("VECSCORE_ROUTE", r)
        out.append(vecscore.rouge(hyps, refs, **kw))
    return out


def _assert_identical(a, b):
    assert list(a) == list(b)
    assert a.signature == b.signature
    for k in a:
        for field in ("precision", "recall", "fmeasure"):
            x, y = getattr(a[k], field), getattr(b[k], field)
            assert x.dtype == y.dtype and np.array_equal(x, y, equal_nan=True), (k, field)
    assert a.stats.keys() == b.stats.keys()
    for k, st in a.stats.items():
        for s in ("hits", "p_den", "r_den"):
            assert np.array_equal(getattr(st, s), getattr(b.stats[k], s)), (k, s)
        assert st.exponent == b.stats[k].exponent


def _wmt(root, n=None):
    base = data_file(root, "wmt21-news-systems", "en-de")
    hyps = (base / "system-outputs" / "newstest2021.en-de.hyp.Facebook-AI.de").read_text(encoding="utf-8").split("\n")
    refs = (base / "newstest2021.en-de.ref.A.de").read_text(encoding="utf-8").split("\n")
    k = min(len(hyps), len(refs)) - 1
    return hyps[: n or k], refs[: n or k]


@pytest.mark.parametrize("options", [
    {},
    {"stemmer": True},
    {"stopwords": ["the", "a", "of", "to"], "stemmer": True},
    {"tokenizer": "whitespace", "lowercase": True},
    {"tokenizer": "whitespace"},
    {"alpha": 0.3},
])
def test_realsumm_identical(shared_data, monkeypatch, options):
    hyps, refs = realsumm(shared_data)
    hyps, refs = hyps[:600], refs[:600]
    a, b = _both(monkeypatch, hyps, refs, metrics=METRICS, **options)
    _assert_identical(a, b)


@pytest.mark.parametrize("multi_ref", ["best", "best-recall", "pooled", "mean", "jackknife"])
def test_summeval_eleven_references_identical(shared_data, monkeypatch, multi_ref):
    hyps, refs = summeval(shared_data)
    hyps, refs = hyps[:120], refs[:120]
    a, b = _both(monkeypatch, hyps, refs, metrics=["rouge1", "rouge2", "rougeL", "rougeLsum"], multi_ref=multi_ref)
    _assert_identical(a, b)


def test_wmt_german_identical(shared_data, monkeypatch):
    hyps, refs = _wmt(shared_data)
    a, b = _both(monkeypatch, hyps, refs, metrics=METRICS, stemmer=True)
    _assert_identical(a, b)
    a, b = _both(monkeypatch, hyps, refs, metrics=METRICS, tokenizer="whitespace", sentence_splitter="punct")
    _assert_identical(a, b)


def test_token_lists_and_ids_identical(shared_data, monkeypatch):
    hyps, refs = _wmt(shared_data, 300)
    tok = [h.split() for h in hyps], [[r.split(), r.lower().split()] for r in refs]
    a, b = _both(monkeypatch, *tok, metrics=METRICS)
    _assert_identical(a, b)
    vocab: dict = {}
    ids = ([np.array([vocab.setdefault(t, len(vocab)) for t in h], np.int64) for h in tok[0]],
           [[np.array([vocab.setdefault(t, len(vocab)) for t in r], np.int64) for r in rs] for rs in tok[1]])
    a, b = _both(monkeypatch, *ids, metrics=METRICS)
    _assert_identical(a, b)


def test_equals_rouge_score(shared_data, monkeypatch):
    hyps, refs = realsumm(shared_data)
    hyps, refs = hyps[:150], refs[:150]
    monkeypatch.setenv("VECSCORE_ROUTE", "plain")
    ours = vecscore.rouge(hyps, refs, metrics=["rouge1", "rouge2", "rougeL", "rougeLsum"], stemmer=True)
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)
    for i, (h, r) in enumerate(zip(hyps, refs)):
        want = scorer.score(r, h)
        for k, s in want.items():
            assert (ours[k].precision[i], ours[k].recall[i], ours[k].fmeasure[i]) == tuple(s), (i, k)


def test_route_switches_at_the_threshold(shared_data, monkeypatch):
    hyps, refs = realsumm(shared_data)
    hyps, refs = hyps[:40], refs[:40]
    size = route.text_chars(hyps + refs)
    monkeypatch.delenv("VECSCORE_ROUTE", raising=False)
    seen = []
    from vecscore.rouge import plain

    real = plain._ngram_stats

    def spy(*a):
        seen.append(True)
        return real(*a)

    monkeypatch.setattr(plain, "_ngram_stats", spy)
    results = []
    size *= route.COST["rouge+lsum"]  # METRICS has rougeLsum
    for limit in (size, size - 1):  # at the limit: plain; one character over: compiled
        plain_budget(monkeypatch, limit)
        seen.clear()
        results.append(vecscore.rouge(hyps, refs, metrics=METRICS))
        assert bool(seen) == (limit == size)
    _assert_identical(*results)


def test_lcs_helpers_by_hand():
    assert lcs_length("abcbdab", "bdcaba") == 4
    assert lcs_length([], ["a"]) == 0
    # rouge-score's README example of summary-level LCS: two reference sentences, union hits 4 of 5
    ref = [["w1", "w2", "w3", "w4", "w5"]]
    hyp = [["w1", "w2", "w6", "w7", "w8"], ["w1", "w3", "w8", "w9", "w5"]]
    assert union_lcs_hits(hyp, ref) == 4


def test_plain_route_loads_no_numba():
    code = ("import sys, vecscore; r = vecscore.rouge(['the cat sat', 'a dog\\nbarked'], [['the cat', 'a cat sat'], "
            "'the dog barked'], metrics=['rouge1', 'rouge2', 'rougeL', 'rougeLsum'], stemmer=True, "
            "multi_ref='jackknife');"
            "print('numba' in sys.modules, round(float(r['rouge1'].fmeasure[0]), 6))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"VECSCORE_ROUTE": "auto", "PATH": "/usr/bin:/bin"})
    assert out.stdout.split() == ["False", "0.733333"]  # jackknife: mean of 0.8 (the cat) and 2/3 (a cat sat)


def test_calls_take_the_compiled_route_once_it_is_warm(monkeypatch):
    """After a call of a kind (metric kinds, tokenizer) ran on the compiled route, small calls of that kind take it
    too, with the same numbers; another kind still goes by size."""
    from vecscore.rouge import compiled

    monkeypatch.delenv("VECSCORE_ROUTE", raising=False)
    calls = []
    real = compiled.compiled_stats
    monkeypatch.setattr(compiled, "compiled_stats", lambda *a, **k: calls.append(1) or real(*a, **k))
    hyps, refs = ["the cat sat on the mat", "a dog"], ["the cat is on the mat", "a dog barked"]
    small = vecscore.rouge(hyps, refs, metrics=["rouge1", "rougeL"])
    assert calls == []
    plain_budget(monkeypatch, 10)
    vecscore.rouge(hyps * 10, refs * 10, metrics=["rouge1", "rougeL"])
    plain_budget(monkeypatch, 2_000_000)
    assert len(calls) == 1
    again = vecscore.rouge(hyps, refs, metrics=["rouge1", "rougeL"])
    assert len(calls) == 2
    for m in ("rouge1", "rougeL"):
        assert (again[m].fmeasure == small[m].fmeasure).all()
    vecscore.rouge(hyps, refs, metrics=["rougeLsum"])  # rouge2 would be warm: the rouge-N kernels are loaded
    assert len(calls) == 2


def test_a_warm_kind_is_routed_without_counting_its_characters(monkeypatch):
    """A warm kind of call takes the compiled route without the call's characters being counted (reading every
    string's length costs about a millisecond on a batch of 20,000 pairs); a kind not warm yet is still sized."""
    monkeypatch.delenv("VECSCORE_ROUTE", raising=False)

    def sizes():
        raise AssertionError("the size of a warm call was asked for")

    route.note_compiled(("rouge", "warm-kind"))
    assert route.use_plain(True, sizes, 1, ("rouge", "warm-kind")) is False
    asked = []
    assert route.use_plain(True, lambda: asked.append(1) or 10, 1, ("rouge", "cold-kind")) is True
    assert asked == [1]


def test_a_call_whose_kernels_another_kind_loaded_is_warm(monkeypatch):
    """rouge1/2/L after rouge1/2/L/Lsum ran on the compiled route: the same kernels, so the small call takes them;
    rougeLsum alone after rouge1/2/L did not load its kernels, and goes by size."""
    from vecscore.rouge import compiled

    monkeypatch.delenv("VECSCORE_ROUTE", raising=False)
    calls = []
    real = compiled.compiled_stats
    monkeypatch.setattr(compiled, "compiled_stats", lambda *a, **k: calls.append(1) or real(*a, **k))
    hyps, refs = ["the cat sat on the mat", "a dog"], ["the cat is on the mat", "a dog barked"]
    with route.preferred("compiled"):
        vecscore.rouge(hyps, refs, metrics=["rouge1", "rouge2", "rougeL"])
    assert len(calls) == 1
    small = vecscore.rouge(hyps, refs, metrics=["rouge1", "rougeL"])
    assert len(calls) == 2
    oracle = rouge_scorer.RougeScorer(["rouge1"])
    assert small["rouge1"].fmeasure.tolist() == [oracle.score(r, h)["rouge1"].fmeasure for h, r in zip(hyps, refs)]
    vecscore.rouge(hyps, refs, metrics=["rougeLsum"])
    assert len(calls) == 2


def test_many_small_calls_move_to_the_compiled_route_once_their_work_reaches_the_budget(monkeypatch):
    """A loop of small calls: each is under the plain route's budget, but once their work together reaches it the
    calls take the compiled route, with the same numbers (rouge-score's, computed by hand here)."""
    from vecscore.rouge import compiled

    monkeypatch.delenv("VECSCORE_ROUTE", raising=False)
    calls = []
    real = compiled.compiled_stats
    monkeypatch.setattr(compiled, "compiled_stats", lambda *a, **k: calls.append(1) or real(*a, **k))
    hyps, refs = ["the cat sat on the mat"], ["the cat is on the mat"]  # 43 characters, cost 1
    plain_budget(monkeypatch, 100)
    scores = [float(vecscore.rouge(hyps, refs, metrics=["rouge1"])["rouge1"].fmeasure[0]) for _ in range(4)]
    assert len(calls) == 2  # 43 + 43 <= 100 on the plain route; the third call would pass it
    assert scores == [5 / 6] * 4  # 5 of 6 unigrams match on each side
