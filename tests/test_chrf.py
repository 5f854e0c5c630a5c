"""chrF / chrF++ (vecscore.chrf) against sacreBLEU 2.6's ``CHRF``, computed in the test.

Every expected value comes from sacreBLEU itself (its per-segment statistics
``_extract_corpus_statistics``, its ``corpus_score`` / ``sentence_score``) or
from the published WMT21 table; statistics must be identical and scores
within 1e-9 (in practice equal).  Both routes are checked: the compiled
kernels and the plain ``Counter`` route, and the kernels against their plain
twins on random text.
"""
from __future__ import annotations

import csv
import inspect
import logging
import random
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import data_file
from vecscore.chrf import CHRF, chrf_statistics, corpus_chrf, sentence_chrf
from vecscore.chrf import stats as chrf_stats
from vecscore.errors import VecscoreError

sacrebleu = pytest.importorskip("sacrebleu")
SacreCHRF = sacrebleu.metrics.CHRF

logging.getLogger("sacrebleu").setLevel(logging.ERROR)

WMT21 = {"en-de": ("de", ("A", "C", "D")), "en-zh": ("zh", ("A", "B")), "en-ja": ("ja", ("A",))}
TOL = 1e-9


def _lines(path: Path) -> list[str]:
    out = path.read_text(encoding="utf-8").split("\n")
    return out[:-1] if out and out[-1] == "" else out


@pytest.fixture(scope="module")
def wmt21(shared_data):
    return data_file(shared_data, "wmt21-news-systems")


def _systems(root: Path, pair: str) -> dict[str, list[str]]:
    lang = WMT21[pair][0]
    return {f.name.split(".hyp.", 1)[1][: -len(lang) - 1]: _lines(f)
            for f in sorted((root / pair / "system-outputs").iterdir())}


def _refs(root: Path, pair: str, names) -> list[list[str]]:
    lang = WMT21[pair][0]
    return [_lines(data_file(root, pair, f"newstest2021.{pair}.ref.{r}.{lang}")) for r in names]


def _sacre_stats(metric: SacreCHRF, hyps, streams) -> np.ndarray:
    return np.array(metric._extract_corpus_statistics(hyps, streams), dtype=np.int64)


def _check(kwargs: dict, hyps, streams, route: str | None = None, sentence: bool = True):
    """vecscore vs sacreBLEU on one corpus: statistics equal, corpus and sentence scores within 1e-9."""
    theirs = SacreCHRF(**kwargs)
    expected = _sacre_stats(theirs, hyps, streams)
    expected_corpus = theirs.corpus_score(hyps, streams).score
    ours = CHRF(**kwargs)
    opts = chrf_stats.Options(**kwargs)
    batch = chrf_stats.read_batch(hyps, streams, "streams", opts.lowercase)
    got, scores = chrf_stats.statistics(batch, opts, route=route)
    assert got.shape == expected.shape
    bad = np.flatnonzero((got != expected).any(axis=1))
    assert bad.size == 0, (kwargs, route, int(bad[0]), got[bad[0]].tolist(), expected[bad[0]].tolist())
    if route is None:
        assert np.array_equal(ours.statistics(hyps, streams), expected)
        assert abs(ours.corpus_score(hyps, streams).score - expected_corpus) <= TOL
    assert abs(ours.score_stats(got).score - expected_corpus) <= TOL
    if sentence:
        sent = np.array([theirs._compute_score_from_stats(list(map(int, row))).score for row in expected])
        assert np.max(np.abs(scores - sent), initial=0.0) <= TOL


# --- real data ----------------------------------------------------------------------------------


@pytest.mark.parametrize("word_order", [0, 2], ids=["chrF", "chrF++"])
@pytest.mark.parametrize("pair", list(WMT21))
def test_wmt21_multi_reference_vs_sacrebleu(wmt21, pair, word_order):
    """One system per pair and metric (two per pair), all references together (sacreBLEU's best-reference
    rule), the full test sets."""
    refs = _refs(wmt21, pair, WMT21[pair][1])
    systems = _systems(wmt21, pair)
    name = sorted(systems)[word_order + 1]
    _check({"word_order": word_order}, systems[name], refs)


def test_wmt21_published_chrf_all_systems(wmt21):
    """Every en-de / en-zh / en-ja system's published chrF (single and all references), to 1e-9."""
    published = {}
    with open(data_file(wmt21, "automatic-scores.tsv"), encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["pair"] in WMT21 and row["metric"].startswith("chrf-"):
                published[(row["pair"], row["system"], row["metric"])] = float(row["score"])
    checked = 0
    for pair, (_, names) in WMT21.items():
        systems = _systems(wmt21, pair)
        sets = [(r,) for r in names] + ([names] if len(names) > 1 else [])
        for ref_names in sets:
            chrf = CHRF(references=_refs(wmt21, pair, ref_names))
            metric = "chrf-all" if len(ref_names) > 1 else f"chrf-{ref_names[0]}"
            for system, hyps in systems.items():
                if (pair, system, metric) in published:
                    assert abs(chrf.corpus_score(hyps).score - published[(pair, system, metric)]) <= TOL
                    checked += 1
    assert checked == 182  # every chrF value of these three pairs in the table


OPTION_SETS = [
    {"lowercase": True},
    {"whitespace": True},
    {"eps_smoothing": True},
    {"word_order": 2, "eps_smoothing": True},
    {"word_order": 2, "lowercase": True, "whitespace": True},
    {"char_order": 1},
    {"char_order": 4, "word_order": 1},
    {"char_order": 0, "word_order": 3},
    {"char_order": 8, "word_order": 3},
    {"beta": 1},
    {"beta": 3, "word_order": 2},
    {"beta": 0.5, "eps_smoothing": True},
    {"beta": 0},
]


@pytest.mark.parametrize("kwargs", OPTION_SETS, ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()))
def test_wmt21_options_vs_sacrebleu(wmt21, kwargs):
    """sacreBLEU's documented options on 400 en-de and 150 en-zh segments, several references."""
    rng = random.Random(7)
    for pair, n in (("en-de", 400), ("en-zh", 150)):
        refs = _refs(wmt21, pair, WMT21[pair][1])
        systems = _systems(wmt21, pair)
        idx = sorted(rng.sample(range(len(refs[0])), n))
        name = sorted(systems)[len(systems) // 2]
        hyps = [systems[name][i] for i in idx]
        _check(kwargs, hyps, [[r[i] for i in idx] for r in refs])


@pytest.mark.parametrize("word_order", [0, 2])
def test_wmt21_plain_route_vs_sacrebleu(wmt21, word_order):
    """The small-batch route on real text: 200 en-de and 200 en-ja segments."""
    for pair in ("en-de", "en-ja"):
        refs = _refs(wmt21, pair, WMT21[pair][1])
        hyps = next(iter(_systems(wmt21, pair).values()))
        _check({"word_order": word_order}, hyps[:200], [r[:200] for r in refs], route="plain")
        _check({"word_order": word_order}, hyps[:200], [r[:200] for r in refs], route="compiled")


def test_wmt21_sentence_score_per_pair(wmt21):
    """CHRF.sentence_score / sentence_chrf equal sacreBLEU's, as objects, on 30 en-zh pairs with 2 references."""
    refs = _refs(wmt21, "en-zh", ("A", "B"))
    hyps = next(iter(_systems(wmt21, "en-zh").values()))
    for kwargs in ({}, {"word_order": 2}):
        ours, theirs = CHRF(**kwargs), SacreCHRF(**kwargs)
        for i in range(0, 300, 10):
            r = [refs[0][i], refs[1][i]]
            a, b = ours.sentence_score(hyps[i], r), theirs.sentence_score(hyps[i], r)
            assert abs(a.score - b.score) <= TOL and str(a) == str(b)
            legacy = sacrebleu.sentence_chrf(hyps[i], r, word_order=kwargs.get("word_order", 0))
            assert abs(sentence_chrf(hyps[i], r, **kwargs).score - legacy.score) <= TOL
    assert ours.get_signature().startswith("nrefs:2|")


# --- adversarial text ---------------------------------------------------------------------------

ODD = [
    "", " ", "   \t\n ", "a", ".", "!!!", "a.", ".a", "(hi)", "hi!)", "...wait...", "'quoted'", "-", "--",
    "e\u0301l\u00e8ve", "\u00e9l\u00e8ve", "\U0001f600 \U0001f600\U0001f44d",
    "\U0001f468\u200d\U0001f469\u200d\U0001f467",
    "日本語のテキスト。", "中文，标点！", "한국어 텍스트", "İstanbul ISTANBUL ǅ ß ﬁ", "a\u00a0b\u2009c\u3000d\u200be",
    "x\x1cy\x1dz\x85w", "The cat sat on the mat.", "the cat sat on the mat .", "a a a a a a a a",
    "aaaaaaaaaa", "ab" * 40, "Mr. Smith, Jr. (b. 1950) said: \"no!\"", "\u0627\u0644\u0639\u0631\u0628\u064a\u0629 .",
]


@pytest.mark.parametrize("kwargs", [{}, {"word_order": 2}, {"whitespace": True, "word_order": 2},
                                    {"lowercase": True, "word_order": 1, "eps_smoothing": True},
                                    {"char_order": 2, "word_order": 2, "beta": 1}],
                         ids=["chrF", "chrF++", "space", "lc-eps", "small"])
@pytest.mark.parametrize("route", ["plain", "compiled"])
def test_adversarial_strings(kwargs, route):
    """Every odd string against every other (and sets of three references), statistics and scores."""
    hyps = [h for h in ODD for _ in ODD]
    refs = [r for _ in ODD for r in ODD]
    _check(kwargs, hyps, [refs], route=route)
    rng = random.Random(3)
    streams = [[rng.choice(ODD) for _ in hyps] for _ in range(3)]
    _check(kwargs, hyps, streams, route=route)


class _Odd(str):
    """A str subclass whose methods lie: neither route may call them."""

    def lower(self):
        return "LIE"

    def split(self, *args, **kwargs):
        return ["LIE"]

    def __iter__(self):
        return iter("LIE")


@pytest.mark.parametrize("route", ["plain", "compiled"])
def test_str_subclasses_score_as_their_characters(route):
    hyps = ["The cat sat.", "caf\u00e9 \u201cau lait\u201d", "\U0001f600 ok"]
    refs = ["the cat sat on it", "Caf\u00e9 au lait!", "\U0001f600 okay"]
    for kwargs in ({"word_order": 2}, {"lowercase": True, "word_order": 2}):
        opts = chrf_stats.Options(**kwargs)
        batch = chrf_stats.read_batch([_Odd(h) for h in hyps], [[_Odd(r) for r in refs]], "streams", opts.lowercase)
        got, _ = chrf_stats.statistics(batch, opts, route=route)
        assert np.array_equal(got, _sacre_stats(SacreCHRF(**kwargs), hyps, [refs]))


def test_variable_references_with_none():
    """None in a stream is a missing reference (sacreBLEU's rule); nrefs becomes 'var'."""
    hyps = ["the cat sat", "a dog", "hello world!"]
    streams = [["the cat sat on", "a cat", "hello world"], [None, "the dog", None], ["cats", None, "hello, world!"]]
    for kwargs in ({}, {"word_order": 2}):
        _check(kwargs, hyps, streams)
        theirs = SacreCHRF(**kwargs)
        theirs.corpus_score(hyps, streams)
        ours = CHRF(**kwargs)
        ours.corpus_score(hyps, streams)
        assert ours.get_signature() == theirs.get_signature().format().replace(
            f"version:{sacrebleu.__version__}", "version:0.1.0")


# --- kernels against their plain twins ----------------------------------------------------------

# --- API ----------------------------------------------------------------------------------------


def test_signatures_of_functions_match_sacrebleu():
    for ours, theirs in ((corpus_chrf, sacrebleu.corpus_chrf), (sentence_chrf, sacrebleu.sentence_chrf)):
        a = [(p.name, p.default) for p in inspect.signature(ours).parameters.values()
             if p.kind is not p.KEYWORD_ONLY]
        b = [(p.name, p.default) for p in inspect.signature(theirs).parameters.values()]
        assert a == b
    a = inspect.signature(CHRF).parameters
    b = inspect.signature(SacreCHRF).parameters
    assert [(n, p.default) for n, p in b.items()] == [(n, a[n].default) for n in b]


@pytest.mark.parametrize("kwargs", [{}, {"word_order": 2, "lowercase": True},
                                    {"whitespace": True, "eps_smoothing": True, "char_order": 4, "beta": 1}])
def test_format_and_signature_like_sacrebleu(kwargs):
    hyps, refs = ["The cat sat on the mat."], [["The cat is on the mat."], ["A cat sat on a mat"]]
    ours, theirs = CHRF(**kwargs), SacreCHRF(**kwargs)
    a, b = ours.corpus_score(hyps, refs), theirs.corpus_score(hyps, refs)
    sig_theirs = theirs.get_signature()
    version = f"version:{sacrebleu.__version__}"
    assert ours.get_signature() == sig_theirs.format().replace(version, "version:0.1.0")
    short = sig_theirs.format(short=True).replace(f"v:{sacrebleu.__version__}", "v:0.1.0")
    assert ours.get_signature(short=True) == short
    assert ours.get_signature().format(short=True) == short  # sacreBLEU's Signature.format(short=...)
    assert ours.get_signature().format() == str(ours.get_signature()) == ours.get_signature()
    assert str(a) == str(b) and a.name == b.name
    assert (a.char_order, a.word_order, a.beta) == (b.char_order, b.word_order, b.beta)
    sig = ours.get_signature()
    assert a.format(signature=sig) == b.format(signature=sig)
    assert a.format(width=4, score_only=True) == b.format(width=4, score_only=True)
    assert a.format(signature=sig, is_json=True) == b.format(signature=sig, is_json=True)


def test_corpus_chrf_layouts_and_legacy_function():
    hyps = ["the cat sat on the mat", "hello there", "good morning"]
    r1 = ["the cat is on the mat", "hello there!", "morning"]
    r2 = ["a cat sat on the mat", "hi there", "good morning!"]
    for kwargs in ({}, {"word_order": 2, "beta": 1, "remove_whitespace": False, "eps_smoothing": True}):
        expected = sacrebleu.corpus_chrf(hyps, [r1, r2], **kwargs).score
        assert abs(corpus_chrf(hyps, [r1, r2], **kwargs).score - expected) <= TOL
        per_example = [[a, b] for a, b in zip(r1, r2)]
        assert abs(corpus_chrf(hyps, per_example, **kwargs).score - expected) <= TOL
        assert abs(corpus_chrf(hyps, per_example, refs_layout="per-example", **kwargs).score - expected) <= TOL
    assert corpus_chrf(hyps, [r1]).score == sacrebleu.corpus_chrf(hyps, [r1]).score


def test_sentence_scores_and_cached_references():
    hyps = ["the cat sat on the mat", "hello there", "good morning", ""]
    streams = [["the cat is on the mat", "hello there!", "morning", "x"], ["a cat", "hi", "good morning!", ""]]
    ours, theirs = CHRF(word_order=2), SacreCHRF(word_order=2)
    got = ours.sentence_scores(hyps, streams)
    expected = [theirs.sentence_score(h, [s[i] for s in streams]).score for i, h in enumerate(hyps)]
    assert isinstance(got, np.ndarray) and np.max(np.abs(got - expected)) <= TOL
    cached = CHRF(word_order=2, references=streams)
    sacre_cached = SacreCHRF(word_order=2, references=streams)
    assert abs(cached.corpus_score(hyps).score - sacre_cached.corpus_score(hyps, None).score) <= TOL
    assert np.array_equal(chrf_statistics(hyps, streams, word_order=2), _sacre_stats(theirs, hyps, streams))


def test_errors_name_the_row():
    with pytest.raises(VecscoreError, match=r"hyps\[2\]"):
        corpus_chrf(["a", "b", None], [["a", "b", "c"]])
    with pytest.raises(VecscoreError, match="reference stream 0 has 2"):
        corpus_chrf(["a", "b", "c"], [["a", "b"]], refs_layout="streams")
    with pytest.raises(VecscoreError, match=r"hyps\[1\].*surrogate"):
        CHRF().corpus_score(["a", "b\ud800"], [["a", "b"]])
    with pytest.raises(VecscoreError, match=r"hyps\[1\].*surrogate"):
        chrf_stats.pair_rows(chrf_stats.read_batch(["a", "b\ud800"], [["a", "b"]], "streams", False),
                             chrf_stats.Options(), route="compiled")
    with pytest.raises(VecscoreError, match="sentence_scores"):
        sentence_chrf(["a", "b"], ["a", "b"])
    with pytest.raises(VecscoreError, match="refs_layout"):
        corpus_chrf(["a", "b"], [["a", "b"], ["c", "d"]])
    with pytest.raises(VecscoreError, match="char_order"):
        CHRF(char_order=-1)
    with pytest.raises(VecscoreError, match="number of references unknown"):
        CHRF().get_signature()
    with pytest.raises(VecscoreError, match="no reference"):
        CHRF().sentence_score("a", [None])
