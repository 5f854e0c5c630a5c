"""The plain route of BLEU (no numba) against the compiled route, bit for bit, and against sacreBLEU.

Every comparison is exact: ``np.array_equal`` on statistics and score
arrays, ``==`` on float scores.  Data: the WMT21 news systems (en-zh: zh
tokenizer, 2 references; en-de: 13a, 3; en-ja: char, 1; see SOURCE.md).
"""
from __future__ import annotations

import logging
import os
import subprocess
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import data_file, plain_budget
from vecscore import VecscoreError, _jit, route
from vecscore.bleu import api as bleu_api
from vecscore.bleu import formulas as bf
from vecscore.bleu import nltk as bleu_nltk
from vecscore.bleu import plain as plain_bleu
from vecscore.bleu import scoring
from vecscore.bleu.api import (
    bleu_statistics,
    corpus_bleu,
    corpus_bleu_from_stats,
    sentence_bleu,
    sentence_bleu_from_stats,
)
from vecscore.bleu.metric import BLEU
from vecscore.bleu.nltk import NLTK_METHODS, nltk_corpus_bleu, nltk_sentence_bleu
from vecscore.bleu.plain_formulas import KERNELS, plain_function
from vecscore.text import sacrebleu_tokenizers

sacrebleu = pytest.importorskip("sacrebleu")
logging.getLogger("sacrebleu").setLevel(logging.ERROR)

WMT21 = {"en-zh": ("zh", "zh", "AB"), "en-de": ("13a", "de", "ACD"), "en-ja": ("char", "ja", "A")}
STATS_FIELDS = ("sys_len", "ref_len", "correct", "total", "nrefs")
SCORE_FIELDS = ("score", "counts", "totals", "precisions", "bp", "sys_len", "ref_len", "signature")
N_PAIRS = 400  # pairs per language pair in the option matrices (the whole test set where it says so)


def _lines(path: Path) -> list[str]:
    out = path.read_text(encoding="utf-8").split("\n")
    return out[:-1] if out and out[-1] == "" else out


@pytest.fixture(scope="module")
def wmt21(shared_data):
    """pair -> (hypotheses of one system, per-example reference lists, reference streams)."""
    root = data_file(shared_data, "wmt21-news-systems")
    out = {}
    for pair, (_, lang, names) in WMT21.items():
        system = sorted(data_file(root, pair, "system-outputs").iterdir())[0]
        streams = [_lines(data_file(root, pair, f"newstest2021.{pair}.ref.{r}.{lang}")) for r in names]
        out[pair] = (_lines(system), [list(r) for r in zip(*streams)], streams)
    return out


def _refuse(*_args, **_kw):
    raise AssertionError("the compiled route ran under VECSCORE_ROUTE=plain")


def run(name, fn, *args, **kw):
    """``fn(*args, **kw)`` under ``VECSCORE_ROUTE=name``; under ``plain``, the compiled route fails."""
    with pytest.MonkeyPatch.context() as m:
        m.setenv("VECSCORE_ROUTE", name)
        if name == "plain":
            m.setattr(scoring, "compiled", _refuse)
            m.setattr(bleu_nltk, "_compiled_stats", _refuse)
        return fn(*args, **kw)


def _same_stats(a, b) -> bool:
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in STATS_FIELDS)


def _same_scores(a, b) -> bool:
    """Every field equal; float scalars with ``==``, arrays with ``np.array_equal``."""
    for f in SCORE_FIELDS:
        x, y = getattr(a, f), getattr(b, f)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if not np.array_equal(x, y):
                return False
        elif not (x == y and type(x) is type(y)):
            return False
    return (a.stats is None and b.stats is None) or _same_stats(a.stats, b.stats)


def _both(fn, *args, **kw):
    """``fn``'s results on the plain route and on the compiled route."""
    return run("plain", fn, *args, **kw), run("compiled", fn, *args, **kw)


# --- statistics ---------------------------------------------------------------------------------


def test_tokenizer_names_are_the_compiled_ones():
    assert plain_bleu.TOKENIZERS == sacrebleu_tokenizers.TOKENIZERS
    assert bleu_api.TOKENIZERS == plain_bleu.TOKENIZERS + sacrebleu_tokenizers.LIBRARY_TOKENIZERS


@pytest.mark.parametrize("lowercase", [False, True])
@pytest.mark.parametrize("tokenize", plain_bleu.TOKENIZERS)
@pytest.mark.parametrize("pair", list(WMT21))
def test_statistics_every_tokenizer(wmt21, pair, tokenize, lowercase):
    hyps, refs, _ = wmt21[pair]
    plain, compiled = _both(bleu_statistics, hyps[:N_PAIRS], refs[:N_PAIRS], tokenize=tokenize,
                            lowercase=lowercase)
    assert _same_stats(plain, compiled)
    assert plain.sys_len.sum() > 0


@pytest.mark.parametrize("pair", list(WMT21))
def test_statistics_whole_test_set_one_and_all_references(wmt21, pair):
    hyps, refs, streams = wmt21[pair]
    tok = WMT21[pair][0]
    for refs_k in ([r[0] for r in refs], refs):
        plain, compiled = _both(bleu_statistics, hyps, refs_k, tokenize=tok)
        assert _same_stats(plain, compiled)
    plain, compiled = _both(bleu_statistics, hyps, streams, tokenize=tok, refs_layout="streams")
    assert _same_stats(plain, compiled)


@pytest.mark.parametrize("brevity_penalty", ["closest", "shortest"])
def test_statistics_orders_and_brevity_rule(wmt21, brevity_penalty):
    hyps, refs, _ = wmt21["en-de"]
    for order in (1, 2, 6):
        plain, compiled = _both(bleu_statistics, hyps[:N_PAIRS], refs[:N_PAIRS],
                                max_ngram_order=order, brevity_penalty=brevity_penalty)
        assert _same_stats(plain, compiled) and plain.max_order == order


def test_pretokenized_input(wmt21):
    hyps, refs, _ = wmt21["en-de"]
    tok_hyps = [h.split() for h in hyps[:N_PAIRS]]
    tok_refs = [[r.split() for r in rs] for rs in refs[:N_PAIRS]]
    plain, compiled = _both(corpus_bleu, tok_hyps, tok_refs, tokenize="none")
    assert _same_scores(plain, compiled)
    assert _same_scores(plain, corpus_bleu(hyps[:N_PAIRS], refs[:N_PAIRS], tokenize="none"))


# pieces that exercise every tokenizer's rules: 13a's punctuation, numbers, entities, <skipped>, newlines;
# Unicode punctuation, symbols and numbers (intl); CJK and sacrebleu#298's ranges (zh); case folding
_PIECES = ["the", "The", "cat.", "a,b", "3.5", "3,5", "10-4", "x-y", "-", "...", "&amp;", "&amp;lt;", "&quot;",
           "<skipped>", "-\n", "\n", "\t", "'s", "(ok)", "$5", "U.S.", "1.", ".5", "a.,b", "5-", "«ok»", "¿qué?",
           "—", "€3", "²", "٣.٤", "3…", "中国", "人。", "（注）", "日本語", "한국어", "\u2002", "\u3000", "→",
           "\U00020001", "\U0002f801", "İSTANBUL", "ǅ", "ß", "ΣΑΣ", "x\u0301"]
_text = st.lists(st.sampled_from(_PIECES), max_size=14).map(" ".join)
_batch = st.lists(st.tuples(_text, st.lists(_text, min_size=1, max_size=3)), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(_batch, st.sampled_from(plain_bleu.TOKENIZERS), st.booleans())
def test_statistics_random_texts(batch, tokenize, lowercase):
    hyps, refs = [h for h, _ in batch], [r for _, r in batch]
    plain, compiled = _both(bleu_statistics, hyps, refs, tokenize=tokenize, lowercase=lowercase,
                            refs_layout="per-example")
    assert _same_stats(plain, compiled)


# --- scores -------------------------------------------------------------------------------------

SMOOTHINGS = [("exp", None), ("floor", None), ("floor", 0.3), ("add-k", None), ("add-k", 2), ("none", None)]


@pytest.mark.parametrize("pair", list(WMT21))
def test_corpus_and_sentence_bleu(wmt21, pair):
    hyps, refs, _ = wmt21[pair]
    tok = WMT21[pair][0]
    for fn in (corpus_bleu, sentence_bleu):
        plain, compiled = _both(fn, hyps, refs, tokenize=tok)
        assert _same_scores(plain, compiled)
    plain, compiled = _both(corpus_bleu, hyps[:N_PAIRS], [r[0] for r in refs[:N_PAIRS]], tokenize=tok,
                            lowercase=True, smooth_method="floor", effective_order=True)
    assert _same_scores(plain, compiled)


@pytest.mark.parametrize("pair", list(WMT21))
def test_every_smoothing_and_effective_order(wmt21, pair):
    hyps, refs, _ = wmt21[pair]
    stats = bleu_statistics(hyps[:N_PAIRS], refs[:N_PAIRS], tokenize=WMT21[pair][0])
    for method, value in SMOOTHINGS:
        for eff in (False, True):
            options = dict(smooth_method=method, smooth_value=value, effective_order=eff)
            assert _same_scores(*_both(corpus_bleu_from_stats, stats, **options))
            assert _same_scores(*_both(sentence_bleu_from_stats, stats, **options))
    short = stats.truncate(2)  # orders 1..2 of 4: corpus BLEU-2
    assert _same_scores(*_both(corpus_bleu_from_stats, short, max_ngram_order=2))


def test_bleu_class_cached_references(wmt21):
    hyps, _, streams = wmt21["en-zh"]

    def scores():
        metric = BLEU(tokenize="zh", references=streams)
        return (metric, metric.corpus_score(hyps), metric.sentence_scores(hyps),
                metric.sentence_score(hyps[3], [s[3] for s in streams]))

    (plain_metric, *plain), (compiled_metric, *compiled) = _both(scores)
    assert isinstance(plain_metric._cache, plain_bleu.RefTable)
    assert not isinstance(compiled_metric._cache, plain_bleu.RefTable)
    assert all(_same_scores(a, b) for a, b in zip(plain, compiled))
    assert plain_metric.get_signature() == compiled_metric.get_signature()


def test_sacrebleu_oracle(wmt21):
    """The plain route equals sacreBLEU itself: the same statistics, the same float scores."""
    for pair, (hyps, refs, streams) in wmt21.items():
        tok = WMT21[pair][0]
        ours = run("plain", corpus_bleu, hyps[:250], refs[:250], tokenize=tok)
        theirs = sacrebleu.corpus_bleu(hyps[:250], [s[:250] for s in streams], tokenize=tok)
        assert ours.score == theirs.score and ours.counts.tolist() == theirs.counts, pair
        assert (ours.sys_len, ours.ref_len) == (theirs.sys_len, theirs.ref_len)
        sent = run("plain", sentence_bleu, hyps[:60], refs[:60], tokenize=tok)
        assert sent.score.tolist() == [sacrebleu.sentence_bleu(h, r, tokenize=tok).score
                                       for h, r in zip(hyps[:60], refs[:60])], pair
    hyps, refs, streams = wmt21["en-de"]
    for tok in ("intl", "13a"):
        ours = run("plain", corpus_bleu, hyps[:250], [r[0] for r in refs[:250]], tokenize=tok, lowercase=True)
        theirs = sacrebleu.corpus_bleu(hyps[:250], [streams[0][:250]], tokenize=tok, lowercase=True)
        assert ours.score == theirs.score, tok


def test_plain_kernels_stay_plain_once_numba_is_loaded():
    """Plain kernels built after the compiled route has run (kernels now numba dispatchers) call no dispatcher."""
    run("compiled", corpus_bleu, ["a b c d"], ["a b c d"])
    assert _jit.is_active()
    fresh = plain_function(bf._sacre_kernel)
    space = fresh.__globals__
    assert space["prange"] is range
    assert all(type(space[n]) is types.FunctionType for n in ("_bp_sacre", "_sacre_precisions", "_sacre_combine"))
    correct, total = np.array([[4, 3], [2, 0], [1, 0]]), np.array([[5, 3], [4, 2], [3, 1]])
    for method in range(4):
        args = (np.array([5, 3]), np.array([6, 3]), correct, total, method, 0.1, True, False)
        assert all(np.array_equal(a, b) for a, b in zip(fresh(*args), KERNELS.sacre(*args)))
        assert all(np.array_equal(a, b) for a, b in zip(fresh(*args), bf.COMPILED.sacre(*args)))


# --- NLTK ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", NLTK_METHODS)
def test_nltk_every_smoothing(wmt21, method):
    hyps, refs, _ = wmt21["en-de"]
    tok_hyps = [h.split() for h in hyps[:N_PAIRS]]
    tok_refs = [[r.split() for r in rs] for rs in refs[:N_PAIRS]]
    weights = [(0.25, 0.25, 0.25, 0.25), (0.5, 0.5), (0.1, 0.2, 0.3, 0.2, 0.2)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fn in (nltk_corpus_bleu, nltk_sentence_bleu):
            for w in (weights[0], weights):
                plain, compiled = _both(fn, tok_hyps, tok_refs, weights=w, smoothing=method,
                                        on_error="nan")
                assert np.array_equal(plain, compiled, equal_nan=True), (fn.__name__, w)
                assert type(plain) is type(compiled)
            short = [h[:3] for h in tok_hyps[:50]]  # auto_reweigh acts on hypotheses shorter than 4 tokens
            plain, compiled = _both(fn, short, tok_refs[:50], smoothing=method, auto_reweigh=True,
                                    on_error="nan")
            assert np.array_equal(plain, compiled, equal_nan=True)


def test_nltk_text_input(wmt21):
    hyps, refs, _ = wmt21["en-zh"]
    for fn in (nltk_corpus_bleu, nltk_sentence_bleu):
        plain, compiled = _both(fn, hyps[:N_PAIRS], refs[:N_PAIRS], tokenize="zh", smoothing="method3")
        assert np.array_equal(plain, compiled)


# --- the switch between the routes ----------------------------------------------------------------


def _spy(monkeypatch, module, name):
    calls = []
    real = getattr(module, name)

    def spy(*args, **kw):
        calls.append(name)
        return real(*args, **kw)

    monkeypatch.setattr(module, name, spy)
    return calls


def test_route_switches_at_plain_max_chars(wmt21, monkeypatch):
    hyps, refs, _ = wmt21["en-de"]
    hyps, refs = hyps[:40], refs[:40]
    flat = [r for rs in refs for r in rs]
    size = sum(map(len, hyps)) + sum(map(len, flat))
    assert plain_bleu.text_size("text", hyps, flat) == route.text_chars(hyps, flat) == size
    monkeypatch.setenv("VECSCORE_ROUTE", "auto")
    compiled_calls = _spy(monkeypatch, scoring, "compiled")
    results = {}
    cost = route.COST["bleu"]
    for limit, expect_compiled in ((size * cost, 0), (size * cost - 1, 1), (sum(map(len, hyps)) * cost - 1, 1)):
        plain_budget(monkeypatch, limit)
        before = len(compiled_calls)
        first = corpus_bleu(hyps, refs)
        plain_budget(monkeypatch, limit)  # the second call by its own size too
        results[limit] = (first, sentence_bleu(hyps, refs, smooth_method="add-k"))
        assert len(compiled_calls) - before == 2 * expect_compiled, limit
    (a, b), (c, d), (e, f) = results.values()
    assert _same_scores(a, c) and _same_scores(b, d) and _same_scores(a, e) and _same_scores(b, f)

    nltk_calls = _spy(monkeypatch, bleu_nltk, "_compiled_stats")
    tok_hyps, tok_refs = [h.split() for h in hyps], [[r.split() for r in rs] for rs in refs]
    tokens = sum(len(t) for h in tok_hyps for t in h) + sum(len(t) for rs in tok_refs for r in rs for t in r)
    scores = []
    for limit in (tokens * cost, tokens * cost - 1):
        plain_budget(monkeypatch, limit)
        scores.append(nltk_sentence_bleu(tok_hyps, tok_refs, smoothing="method7"))
    assert nltk_calls == ["_compiled_stats"] and np.array_equal(*scores)


def test_stats_only_scoring_switches_at_plain_max_chars(wmt21, monkeypatch):
    hyps, refs, _ = wmt21["en-ja"]
    stats = bleu_statistics(hyps, refs, tokenize="char")
    monkeypatch.setenv("VECSCORE_ROUTE", "auto")
    rows = stats.n_pairs * scoring.ROW_CHARS
    out = []
    for limit in (rows, rows - 1):
        plain_budget(monkeypatch, limit)
        assert (scoring.stats_formulas(stats.n_pairs) is scoring.plain_formulas) == (limit == rows)
        out.append(sentence_bleu_from_stats(stats, smooth_method="floor"))
    assert _same_scores(*out)


def test_unsupported_options_take_the_compiled_route():
    ids_h = [np.array([1, 2, 3, 4]), np.array([5, 6])]
    ids_r = [np.array([1, 2, 3, 5]), np.array([5, 6, 7])]
    a = run("compiled", corpus_bleu, ids_h, ids_r, tokenize="none")
    with pytest.MonkeyPatch.context() as m:
        m.setenv("VECSCORE_ROUTE", "plain")
        assert _same_scores(corpus_bleu(ids_h, ids_r, tokenize="none"), a)  # token ids: compiled even so
    assert not plain_bleu.supports("ids", "none") and not plain_bleu.supports("text", "no-such-tokenizer")


# --- edges and errors -----------------------------------------------------------------------------


@pytest.mark.parametrize("hyps,refs", [
    ([], []),
    ([""], [""]),
    (["", "a b"], [["", "a"], [" "]]),
    (["a a a a"], [["a a", "a a a a a", "a a a"]]),  # closest reference length: ties to the shorter
])
def test_edge_batches(hyps, refs):
    for fn in (corpus_bleu, sentence_bleu):
        assert _same_scores(*_both(fn, hyps, refs))
    for bp in ("closest", "shortest"):
        assert _same_stats(*_both(bleu_statistics, hyps, refs, brevity_penalty=bp))


@pytest.mark.parametrize("hyps,refs,kw", [
    (["a b", "c"], ["a b"], {}),
    (["a b", None], ["a", "b"], {}),
    (["a b"], [[]], {}),
    (["a b"], [[None]], {}),
    (["a \ud800 b"], ["a b"], {}),
    (["a b"], ["a \udfff"], {"tokenize": "zh"}),
    ([["a", "b"]], [[["a"]]], {"tokenize": "13a"}),
    (["a"], [[None], [None]], {"refs_layout": "streams"}),
])
def test_errors_name_the_same_row(hyps, refs, kw):
    messages = []
    for name in ("plain", "compiled"):
        with pytest.raises(VecscoreError) as err:
            run(name, corpus_bleu, hyps, refs, **kw)
        messages.append(str(err.value))
    assert messages[0] == messages[1]


def test_plain_route_never_imports_numba(tmp_path):
    """Importing the BLEU modules and scoring a small batch leaves numba unloaded."""
    code = """
import sys
import vecscore.bleu, vecscore.bleu.nltk
from vecscore import BLEU, corpus_bleu, nltk_corpus_bleu, nltk_sentence_bleu, sentence_bleu
assert "numba" not in sys.modules
h, r = ["the cat sat on the mat ."] * 3, [["the cat is on the mat .", "a cat sat on a mat"]] * 3
for tok in ("13a", "intl", "zh", "zh-fixed", "char", "none"):
    corpus_bleu(h, r, tokenize=tok, lowercase=True, force=True), sentence_bleu(h, r, tokenize=tok)
BLEU(references=[[x[0] for x in r]]).corpus_score(h)
nltk_corpus_bleu([x.split() for x in h], [[y.split() for y in x] for x in r], smoothing="method4")
nltk_sentence_bleu(h, r, tokenize="13a", smoothing="method7")
assert "numba" not in sys.modules, "numba was imported"
"""
    env = {**os.environ, "VECSCORE_ROUTE": "auto", "NUMBA_CACHE_DIR": str(tmp_path)}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=Path(__file__).parents[1])


def test_calls_take_the_compiled_route_once_it_is_warm(monkeypatch):
    """Scoring systems one by one: after one call of a kind ran on the compiled route, small calls of that kind
    take it too (its kernels are loaded), with the same numbers; other kinds still go by size."""
    monkeypatch.delenv("VECSCORE_ROUTE", raising=False)
    calls = []
    real = scoring.compiled
    monkeypatch.setattr(scoring, "compiled", lambda: calls.append(1) or real())
    hyps, refs = ["the cat sat on the mat", "a dog"], ["the cat is on the mat", "a dog barked"]
    small = corpus_bleu(hyps, refs)
    assert calls == []  # cold: by size, the plain route
    plain_budget(monkeypatch, 10)
    corpus_bleu(hyps * 10, refs * 10)  # too big for the plain route now: compiled, and warm from then on
    plain_budget(monkeypatch, 2_000_000)
    assert len(calls) == 1
    again = corpus_bleu(hyps, refs)
    assert len(calls) == 2 and again.score == small.score and again.counts == small.counts
    corpus_bleu(hyps, refs, tokenize="intl")  # another tokenizer is not warm
    assert len(calls) == 2


def test_many_small_calls_move_to_the_compiled_route_once_their_work_reaches_the_budget(monkeypatch):
    """A loop of small calls, each under the plain route's budget: once their work together reaches it, they take
    the compiled route, with sacreBLEU's numbers throughout."""
    monkeypatch.delenv("VECSCORE_ROUTE", raising=False)
    calls = _spy(monkeypatch, scoring, "compiled")
    hyps, refs = ["the cat sat on the mat"], [["the cat is on the mat"]]  # 43 characters, cost 2: 86
    plain_budget(monkeypatch, 200)
    scores = [corpus_bleu(hyps, refs).score for _ in range(4)]
    assert len(calls) == 2  # 86 + 86 <= 200 on the plain route; the third call would pass it
    assert scores == [sacrebleu.corpus_bleu(hyps, list(zip(*refs))).score] * 4


def test_cached_references_switch_to_the_per_pair_kernel(monkeypatch):
    """BLEU(references=...) scores its first calls against the cache and, once its calls have scored more text than
    the plain route's budget, with the per-pair kernel over the stored references: sacreBLEU's numbers either way."""
    monkeypatch.delenv("VECSCORE_ROUTE", raising=False)
    calls = []
    real = scoring.compiled
    monkeypatch.setattr(scoring, "compiled", lambda: calls.append(1) or real())
    hyps = ["the cat sat on the mat", "a dog barked", "¡olé! x"]
    streams = [["the cat is on the mat", "a dog barked loudly", "olé x"], ["a cat sat", None, "x"]]
    oracle = sacrebleu.BLEU()
    want = oracle.corpus_score(hyps, streams)
    scorer = BLEU(references=streams)
    plain_budget(monkeypatch, 150)
    first = scorer.corpus_score(hyps)
    assert calls == []  # within the budget: the cache
    later = [scorer.corpus_score(hyps) for _ in range(2)]
    assert calls  # past it: the per-pair kernel
    for s in [first] + later:
        assert (s.score, list(s.counts), list(s.totals), s.sys_len, s.ref_len) == \
               (want.score, list(want.counts), list(want.totals), want.sys_len, want.ref_len)
    assert scorer.get_signature().split("|version")[0] == str(oracle.get_signature()).split("|version")[0]


def test_cached_single_references_are_read_once(monkeypatch):
    """With one reference per segment, the per-pair kernel reads the cached references as prepared on the first
    call (non-ASCII ones transcoded once); every later call gives sacreBLEU's numbers, and a bad hypothesis is
    still named."""
    monkeypatch.setenv("VECSCORE_ROUTE", "compiled")
    refs = ["the cat — is on the mat", "日本語の テキスト です", "naïve café x", "", "a b c d e f"]
    oracle = sacrebleu.BLEU(references=[refs])
    scorer = BLEU(references=[refs])
    for hyps in (["the cat sat on the mat", "日本語 の テキスト", "naive café x", "z", "a b c d e f"],
                 ["cat — mat", "テキスト です", "café", "", "f e d c b a"]):
        for _ in range(2):
            got, want = scorer.corpus_score(hyps), oracle.corpus_score(hyps, None)
            assert (got.score, list(got.counts), list(got.totals), got.sys_len, got.ref_len) == \
                   (want.score, list(want.counts), list(want.totals), want.sys_len, want.ref_len)
            sent = scorer.sentence_scores(hyps)
            want_sent = [sacrebleu.BLEU().sentence_score(h, [r]).score for h, r in zip(hyps, refs)]
            assert np.max(np.abs(np.asarray(sent.score) - want_sent)) <= 1e-9
    assert scorer._ready  # the references were prepared once and reused
    with pytest.raises(VecscoreError, match=r"hyps\[2\]"):
        scorer.corpus_score(["a", "b", "bad \ud800", "c", "d"])
    with pytest.raises(VecscoreError, match=r"hyps\[1\]"):
        scorer.corpus_score(["a", 3, "c", "d", "e"])
    with pytest.raises(VecscoreError, match="5"):
        scorer.corpus_score(["a", "b"])
