"""NLTK parity of vecscore.meteor.nltk_meteor: NLTK's own meteor_score / single_meteor_score are the oracle.

Every comparison asserts equal floats (bit for bit; the contract is <= 1e-12), on both routes (plain and
arrays), on real corpora (E2E NLG multi-reference outputs, headlines, TED, WMT15 Russian, nlg-eval captions)
and on adversarial and seeded random inputs.  The tests that need WordNet skip when NLTK finds no WordNet corpus
(and fail instead under VECSCORE_REQUIRE_DATA=1, as CI sets, which builds the corpus from Debian's packages with
``python -m vecscore.meteor.wordnet_data``).
"""
from __future__ import annotations

import os
import random
import re

import numpy as np
import pytest

from tests.conftest import data_file, e2e_nlg
from vecscore.errors import MissingDependencyError, VecscoreError
from vecscore.meteor import wordnet_data
from vecscore.meteor.nltk_lexicon import WordNetMissingError
from vecscore.meteor.nltk_meteor import NotTokenizedError, meteor_score, nltk_meteor_score, single_meteor_score

nm = pytest.importorskip("nltk.translate.meteor_score")

ROUTES = ("plain", "compiled")  # VECSCORE_ROUTE: the plain route and the array route
_WORD = re.compile(r"\w+|[^\w\s]")


def _require() -> bool:
    return os.environ.get("VECSCORE_REQUIRE_DATA", "") not in ("", "0")


@pytest.fixture(scope="session")
def wordnet():
    """NLTK's WordNet reader, loaded; skips (fails under VECSCORE_REQUIRE_DATA) when the corpus is missing."""
    from nltk.corpus import wordnet as wn

    try:
        wn.ensure_loaded()
    except LookupError:
        msg = ("NLTK's WordNet corpus is not installed (apt-get install wordnet-base wordnet-sense-index, then "
               "python -m vecscore.meteor.wordnet_data \"$NLTK_DATA\"; docs/development.md)")
        if _require():
            pytest.fail(msg + " and VECSCORE_REQUIRE_DATA is set")
        pytest.skip(msg)
    return wn


@pytest.fixture(params=ROUTES)
def route(request, monkeypatch):
    monkeypatch.setenv("VECSCORE_ROUTE", request.param)
    return request.param


def _theirs(hyps, refs, **kw):
    return np.array([nm.meteor_score(r, h, **kw) for h, r in zip(hyps, refs)], np.float64)


def _assert_same(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    bad = np.flatnonzero(~same)
    assert bad.size == 0, f"{bad.size} of {got.size} differ, first at {bad[:5]}: {got[bad[:5]]} vs {want[bad[:5]]}"


# --- real corpora ---------------------------------------------------------------------------------------


def _lines(path):
    return path.read_text(encoding="utf-8").split("\n")


@pytest.fixture(scope="module")
def corpora(shared_data):
    """name -> (hyps, refs) as token lists; refs a list of references per hypothesis."""
    refs, systems = e2e_nlg(shared_data)
    out = {}
    for name in ("tgen", "slug", "tuda"):  # 3 x 630 pairs, 1-45 references each, punctuation split off
        out[f"e2e-{name}"] = ([_WORD.findall(h) for h in systems[name]], [[_WORD.findall(r) for r in rs]
                                                                          for rs in refs])
    for name in ("zhang",):  # whitespace tokens: "restaurant." stays one token
        out[f"e2e-{name}-split"] = ([h.split() for h in systems[name]], [[r.split() for r in rs] for rs in refs])
    cmt = data_file(shared_data, "compare-mt-examples")
    out["headlines"] = ([x.split() for x in _lines(cmt / "sum.sys1.eng")[:2000]],
                        [[x.split()] for x in _lines(cmt / "sum.ref.eng")[:2000]])
    out["ted"] = ([x.split() for x in _lines(cmt / "ted.sys2.eng")[:1000]],
                  [[x.split()] for x in _lines(cmt / "ted.ref.eng")[:1000]])
    wmt = data_file(shared_data, "nltk-wmt15-eval")
    out["wmt15-ru"] = ([x.split() for x in _lines(wmt / "google.ru")[:100]],
                       [[x.split()] for x in _lines(wmt / "ref.ru")[:100]])
    nlg = data_file(shared_data, "nlg-eval-examples")
    hyps = [x.split() for x in _lines(nlg / "hyp.txt") if x]
    refs = [[a.split(), b.split()] for a, b in zip(_lines(nlg / "ref1.txt"), _lines(nlg / "ref2.txt"))]
    out["nlg-eval"] = (hyps, refs[:len(hyps)])
    return out


@pytest.fixture(scope="module")
def nltk_scores(corpora, wordnet):
    return {name: _theirs(h, r) for name, (h, r) in corpora.items()}


def test_corpora_equal_nltk(corpora, nltk_scores, route):
    for name, (hyps, refs) in corpora.items():
        got = nltk_meteor_score(hyps, refs)
        _assert_same(got, nltk_scores[name])
        assert np.max(np.abs(got - nltk_scores[name])) <= 1e-12
    assert sum(len(h) for h, _ in corpora.values()) == 5622  # pairs


def test_drop_ins_equal_nltk(corpora, wordnet):
    hyps, refs = corpora["e2e-tgen"]
    for h, rs in list(zip(hyps, refs))[:200]:
        assert meteor_score(rs, h) == nm.meteor_score(rs, h)
        assert single_meteor_score(rs[-1], h) == nm.single_meteor_score(rs[-1], h)
    for h, rs in list(zip(*corpora["wmt15-ru"]))[:30]:
        assert meteor_score(rs, h) == nm.meteor_score(rs, h)


def test_text_rows_are_split_on_whitespace(corpora, wordnet, route):
    hyps, refs = corpora["headlines"]
    texts = [" ".join(h) for h in hyps[:300]]
    ref_texts = ["  ".join(r[0]) + "\n" for r in refs[:300]]  # any whitespace
    _assert_same(nltk_meteor_score(texts, ref_texts), _theirs(hyps[:300], refs[:300]))


# --- adversarial and random inputs ----------------------------------------------------------------------

ADVERSARIAL = [
    ([], [["a", "b"]]),
    (["a"], [[]]),
    ([], [[]]),
    (["the", "cat"], [[], ["the", "cat"]]),
    (["the", "cat"], [["the", "cat"], []]),
    ("the the the cat the".split(), ["the cat the the".split()]),
    ("run runs running ran run".split(), ["running run runs".split(), "ran ran".split()]),
    ("The CAT Sat ON the Mat".split(), ["the cat SAT on THE mat".split()]),
    ("Straße café naïve ÉCOLE İstanbul ΟΔΟΣ Σ".split(), ["strasse Café naive école i̇stanbul οδος σ".split()]),
    ([".", ",", "!", "?", "'s", "--", "..."], [[",", ".", "?", "!", "'s"]]),
    ("break run cut set take make get go".split(),
     ["interrupt operate trim place bring create acquire travel".split()]),
    ("set set set run run".split(), ["place run put set lay".split()]),
    (["quickly"], [["fast"]]),  # NLTK looks up the synonyms of the stem "quickli": none
    (["quick"], [["fast"]]),
    (["1", "2", "10"], [["one", "two", "ten"]]),
    ("big large great huge big".split(), ["large big huge great large big".split()]),
    (["", " ", "_", "a_b", "dog_house", "\t", "ﬁ", "İ"], [["", "a_b", "dog", "i̇", "fi", " "]]),
    (["dog"] * 60, [["dog"] * 40 + ["cat"] * 30]),
    ("a b c d e f g h".split(), ["h g f e d c b a".split()]),
    ("the cat sat on the mat".split(), ["the cat sat on the mat".split()] * 3),
    (["automobile", "car", "auto"], [["car", "machine", "automobile", "motorcar"]]),
]


def test_adversarial_inputs(wordnet, route):
    hyps = [h for h, _ in ADVERSARIAL]
    refs = [r for _, r in ADVERSARIAL]
    want = _theirs(hyps, refs)
    _assert_same(nltk_meteor_score(hyps, refs), want)
    for (h, rs), w in zip(ADVERSARIAL, want):
        assert meteor_score(rs, h) == w
        assert meteor_score([tuple(r) for r in rs], tuple(h)) == w
        assert single_meteor_score(rs[0], h) == nm.single_meteor_score(rs[0], h)


VOCAB = ("run runs running ran runner quick quickly fast rapid speedy big large great huge small little tiny dog "
         "dogs cat cats car automobile auto machine motorcar happy glad felicitous the a of and begin start "
         "commence get acquire obtain buy purchase house home houses The Big CAR Run , .").split()


def _random_pairs(n, seed):
    rng = random.Random(seed)
    def sentence():
        return [rng.choice(VOCAB) for _ in range(rng.choice([0, 1, 2, 3, 5, 8, 12, 15]))]
    return [sentence() for _ in range(n)], [[sentence() for _ in range(rng.randint(1, 4))] for _ in range(n)]


def test_random_pairs(wordnet, route):
    hyps, refs = _random_pairs(1500, seed=7)
    _assert_same(nltk_meteor_score(hyps, refs), _theirs(hyps, refs))


@pytest.mark.parametrize("alpha,beta,gamma", [(0.9, 3.0, 0.5), (0.5, 1.0, 0.0), (1.0, 2.0, 1.0), (0.0, 3.0, 0.5),
                                              (0.85, 0.2, 0.6), (1, 3, 1), (1.5, 3.0, 0.5), (0.9, 0.0, 0.5)])
def test_parameters(wordnet, route, alpha, beta, gamma):
    hyps, refs = _random_pairs(300, seed=11)
    kw = dict(alpha=alpha, beta=beta, gamma=gamma)
    _assert_same(nltk_meteor_score(hyps, refs, **kw), _theirs(hyps, refs, **kw))


def test_preprocess_and_stemmers(wordnet, route):
    from nltk.stem import LancasterStemmer, SnowballStemmer

    hyps, refs = _random_pairs(300, seed=5)
    ident = str  # case-sensitive matching
    _assert_same(nltk_meteor_score(hyps, refs, preprocess=ident), _theirs(hyps, refs, preprocess=ident))
    for stemmer in (SnowballStemmer("english"), LancasterStemmer()):
        _assert_same(nltk_meteor_score(hyps, refs, stemmer=stemmer), _theirs(hyps, refs, stemmer=stemmer))
        h, rs = hyps[3], refs[3]
        assert meteor_score(rs, h, stemmer=stemmer) == nm.meteor_score(rs, h, stemmer=stemmer)

    class FirstFour:  # NLTK wants an object with stem(); vecscore also takes the function itself
        @staticmethod
        def stem(word):
            return word[:4]

    _assert_same(nltk_meteor_score(hyps, refs, stemmer=FirstFour.stem), _theirs(hyps, refs, stemmer=FirstFour()))


def test_one_shot_hypothesis_is_used_up_by_the_first_reference(wordnet):
    h = "the cat sat on the mat".split()
    refs = [["a", "dog"], h, h]
    want = nm.meteor_score(refs, iter(h))
    assert want == 0.0  # NLTK: the 2nd and 3rd references see an empty hypothesis
    assert meteor_score(refs, iter(h)) == want
    assert meteor_score(refs, (w for w in h)) == want
    assert meteor_score(iter(refs), h) == nm.meteor_score(iter(refs), h) > 0.9


def test_docstring_values(wordnet):
    assert nltk_meteor_score([["the", "cat", "sat", "on", "the", "mat"]],
                             [[["a", "cat", "was", "sitting", "on", "the", "mat"]]]).tolist() == [0.7014492753623188]
    assert nltk_meteor_score(["the cat sat on the mat"], ["a cat sat on a mat"]).tolist() == [0.625]
    assert single_meteor_score(["this", "is", "a", "cat"], ["non", "matching", "hypothesis"]) == 0.0
    assert meteor_score([["this", "is", "a", "cat"]], ["this", "is", "a", "cat"]) == 0.9921875


def test_batch_shapes(wordnet):
    h = ["a", "cat"]
    assert nltk_meteor_score([], []).shape == (0,)
    one = nltk_meteor_score([h], [["a", "cat"]])  # one reference per pair, given as a token list
    assert one.tolist() == nltk_meteor_score([h], [[["a", "cat"]]]).tolist() == [nm.meteor_score([h], h)]
    assert nltk_meteor_score([h, h], [[h], [["x"], h]]).tolist() == [one[0], one[0]]


# --- errors ---------------------------------------------------------------------------------------------


def test_strings_are_refused_as_nltk_refuses_them(wordnet):
    for call in (lambda: meteor_score([["a"]], "a b"), lambda: single_meteor_score("a b", ["a"]),
                 lambda: single_meteor_score(["a"], "a b"), lambda: meteor_score("a b", ["a"])):
        with pytest.raises(NotTokenizedError, match="pre-tokenized") as info:
            call()
        assert isinstance(info.value, TypeError) and isinstance(info.value, VecscoreError)
    with pytest.raises(TypeError):
        nm.meteor_score([["a"]], "a b")
    with pytest.raises(ValueError):
        nm.meteor_score([], ["a"])
    with pytest.raises(VecscoreError, match="references is empty"):
        meteor_score([], ["a"])


def test_bad_arguments(wordnet):
    with pytest.raises(VecscoreError, match="token ids"):
        nltk_meteor_score([np.array([1, 2])], [np.array([1, 2])])
    with pytest.raises(VecscoreError):
        nltk_meteor_score([["a"], ["b"]], [[["a"]]])
    with pytest.raises(VecscoreError, match="alpha"):
        nltk_meteor_score([["a"]], [["a"]], alpha="0.9")
    with pytest.raises(VecscoreError, match="stemmer"):
        nltk_meteor_score([["a"]], [["a"]], stemmer=42)
    with pytest.raises(VecscoreError, match="wordnet"):
        nltk_meteor_score([["a"]], [["a"]], wordnet=42)
    with pytest.raises(VecscoreError, match="preprocess"):
        nltk_meteor_score([["a"]], [["a"]], preprocess=len)
    with pytest.raises(NotTokenizedError, match="preprocess"):
        meteor_score([["a"]], ["a"], preprocess=len)


def test_missing_wordnet_says_how_to_provide_it():
    from nltk.corpus.reader import WordNetCorpusReader
    from nltk.corpus.util import LazyCorpusLoader

    absent = LazyCorpusLoader("vecscore_no_such_wordnet", WordNetCorpusReader, None)
    with pytest.raises(WordNetMissingError) as info:
        nltk_meteor_score([["a"]], [["b"]], wordnet=absent)
    assert isinstance(info.value, LookupError) and isinstance(info.value, MissingDependencyError)
    for part in ("wordnet-base", "wordnet-sense-index", "python -m vecscore.meteor.wordnet_data", "NLTK_DATA"):
        assert part in str(info.value)


# --- the WordNet folder from Debian's packages ----------------------------------------------------------


def test_lexnames_file():
    lines = wordnet_data.lexnames_text().splitlines()
    assert len(lines) == 45
    for i, line in enumerate(lines):  # as NLTK's reader parses it
        index, name, category = line.split()
        assert int(index) == i and category == {"noun": "1", "verb": "2", "adj": "3", "adv": "4"}[name[:4].rstrip(".")]
    assert lines[0] == "00\tadj.all\t3" and lines[3] == "03\tnoun.Tops\t1" and lines[44] == "44\tadj.ppl\t3"


def test_lexnames_match_the_installed_corpus(wordnet):
    from pathlib import Path

    installed = Path(str(wordnet.root)) / "lexnames"
    if not installed.is_file():
        pytest.skip(f"the WordNet corpus at {wordnet.root} is not a folder with a lexnames file")
    assert [x.split() for x in installed.read_text().splitlines()] == \
        [x.split() for x in wordnet_data.lexnames_text().splitlines()]


def test_build_copies_the_files_and_names_the_missing_package(tmp_path, capsys):
    source = tmp_path / "share"
    source.mkdir()
    for name in wordnet_data.FILES:
        (source / name).write_text(f"contents of {name}\n")
    target = wordnet_data.build(tmp_path / "nltk_data", source)
    assert target == tmp_path / "nltk_data" / "corpora" / "wordnet"
    assert sorted(p.name for p in target.iterdir()) == sorted([*wordnet_data.FILES, "lexnames"])
    assert all(not (target / name).is_symlink() and (target / name).read_text() == f"contents of {name}\n"
               for name in wordnet_data.FILES)
    (source / "index.sense").unlink()
    with pytest.raises(MissingDependencyError, match="wordnet-sense-index") as info:
        wordnet_data.build(tmp_path / "again", source)
    assert "wordnet-base" not in str(info.value)
    assert wordnet_data.main([str(tmp_path / "again"), "--source", str(source)]) == 1
    assert "wordnet-sense-index" in capsys.readouterr().err
    (source / "index.sense").write_text("x\n")
    assert wordnet_data.main([str(tmp_path / "again"), "--source", str(source)]) == 0
    assert (tmp_path / "again" / "corpora" / "wordnet" / "lexnames").is_file()
