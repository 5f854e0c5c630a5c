"""vecscore.coco against pycocoevalcap 1.2 (the oracle) and nlg-eval's published values.

Every expected value comes from pycocoevalcap's own scorers run on the same dictionaries, or from the
values nlg-eval's test suite asserts.  BLEU, ROUGE-L and CIDEr-D agree bit for bit (every sum runs in
pycocoevalcap's order) on both routes (``coco_route``: NumPy alone, and vecscore's kernels).
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tests.conftest import data_file, e2e_nlg
from vecscore.coco import Bleu, Cider, Rouge, cider_d, coco_bleu, coco_rouge_l
from vecscore.coco.evaluate import evaluate
from vecscore.errors import VecscoreError

oracle_bleu = pytest.importorskip("pycocoevalcap.bleu.bleu")
oracle_rouge = pytest.importorskip("pycocoevalcap.rouge.rouge")
oracle_cider = pytest.importorskip("pycocoevalcap.cider.cider")

TOL = 0.0  # bit for bit


def _oracle(gts: dict, res: dict) -> dict:
    out = {}
    out["bleu"] = oracle_bleu.Bleu(4).compute_score(gts, res, verbose=0)
    out["rouge"] = oracle_rouge.Rouge().compute_score(gts, res)
    out["cider"] = oracle_cider.Cider().compute_score(gts, res)
    return out


def _ours(gts: dict, res: dict) -> dict:
    return {"bleu": Bleu(4).compute_score(gts, res, verbose=0), "rouge": Rouge().compute_score(gts, res),
            "cider": Cider().compute_score(gts, res)}


def _assert_same(gts: dict, res: dict, exact: bool = False) -> None:
    want, got = _oracle(gts, res), _ours(gts, res)
    for metric in ("bleu", "rouge", "cider"):
        (w_corpus, w_items), (g_corpus, g_items) = want[metric], got[metric]
        tol = 0.0 if exact else TOL
        np.testing.assert_allclose(np.asarray(g_corpus, float), np.asarray(w_corpus, float), rtol=0, atol=tol,
                                   err_msg=metric)
        np.testing.assert_allclose(np.asarray(g_items, float), np.asarray(w_items, float), rtol=0, atol=tol,
                                   err_msg=metric)


def _e2e(shared_data):
    return e2e_nlg(shared_data)


@pytest.fixture(params=["plain", "compiled"])
def coco_route(request, monkeypatch):
    """Both routes of ROUGE-L and CIDEr-D (and BLEU): NumPy alone, and vecscore's kernels
    (``vecscore.coco.compiled``)."""
    from vecscore import route

    monkeypatch.setenv("VECSCORE_ROUTE", request.param)
    yield request.param
    route.reset()


@pytest.mark.parametrize("system", ["tgen", "sheff1"])
def test_e2e_systems_match_pycocoevalcap(shared_data, system, coco_route):
    """630 items, 1 to 45 references each (4,693 in all), cased text with punctuation: split as given."""
    refs, systems = _e2e(shared_data)
    gts = {i: r for i, r in enumerate(refs)}
    res = {i: [systems[system][i]] for i in range(len(refs))}
    _assert_same(gts, res, exact=True)


def test_e2e_lowercased_systems_concatenated(shared_data):
    """Four systems as one set of 2,520 lowercased items (BLEU and ROUGE-L, bit for bit)."""
    refs, systems = _e2e(shared_data)
    gts, res = {}, {}
    for s, outs in list(systems.items())[:4]:
        for i, r in enumerate(refs):
            gts[f"{s}/{i}"] = [x.lower() for x in r]
            res[f"{s}/{i}"] = [outs[i].lower()]
    want = oracle_bleu.Bleu(4).compute_score(gts, res, verbose=0)
    got = Bleu(4).compute_score(gts, res, verbose=0)
    assert got == want  # bit for bit, lists of Python floats
    want_r, got_r = oracle_rouge.Rouge().compute_score(gts, res), Rouge().compute_score(gts, res)
    assert float(got_r[0]) == float(want_r[0]) and np.array_equal(got_r[1], want_r[1])


def test_nlg_eval_published_values(shared_data):
    """nlg-eval's own test asserts (places=5) on its example files, and its single-example cases."""
    root = data_file(shared_data, "nlg-eval-examples")
    expected = json.loads((root / "expected_scores.json").read_text(encoding="utf-8"))
    hyps = (root / "hyp.txt").read_text(encoding="utf-8").splitlines()
    refs = list(zip(*((root / f).read_text(encoding="utf-8").splitlines() for f in ("ref1.txt", "ref2.txt"))))
    out = evaluate({i: list(r) for i, r in enumerate(refs)}, {i: [h] for i, h in enumerate(hyps)}, tokenize=False)
    for metric, value in expected["corpus_files"]["scores"].items():
        if metric != "METEOR":
            assert round(out.scores[metric] - value, 5) == 0, metric
    for case in expected["individual_cases"]:
        one = evaluate({0: case["refs"]}, {0: [case["hyp"]]}, tokenize=False)
        places = case.get("places", {})
        for metric, value in case["scores"].items():
            if metric != "METEOR":
                assert round(one.scores[metric] - value, places.get(metric, 5)) == 0, (case["hyp"], metric)


def test_aichallenger_chinese_words_and_characters(shared_data, coco_route):
    """Real multi-reference Chinese captions: the references word-segmented as published, the hypotheses not;
    and both as characters."""
    root = data_file(shared_data, "aichallenger2017-caption-zh")
    refs_json = json.loads((root / "id_to_words.json").read_text(encoding="utf-8"))
    hyps_json = json.loads((root / "id_to_test_caption.json").read_text(encoding="utf-8"))
    by_hash = {im["file_name"]: im["id"] for im in refs_json["images"]}
    gts: dict = {}
    for a in refs_json["annotations"]:
        gts.setdefault(a["image_id"], []).append(a["caption"])
    res = {by_hash[h["image_id"]]: [h["caption"]] for h in hyps_json}
    gts = {k: gts[k] for k in res}
    _assert_same(gts, res, exact=True)
    chars = {k: [" ".join(c.replace(" ", "")) for c in v] for k, v in gts.items()}
    res_chars = {k: [" ".join(c.replace(" ", "")) for c in v] for k, v in res.items()}
    _assert_same(chars, res_chars, exact=True)


ADVERSARIAL = [
    ("", ["", "a"]),  # empty hypothesis: split() gives no token, split(" ") one empty token
    ("a  b", ["a b", "a  b"]),  # two spaces: an empty token for ROUGE-L only
    ("a\tb\nc", ["a b c", "a\tb c"]),  # tabs and newlines split for BLEU and CIDEr, not for ROUGE-L
    ("a\u00a0b \u3000c", ["a b c"]),  # Unicode spaces: str.split() splits on them
    (" leading and trailing ", ["leading and trailing"]),
    ("the the the the the the the", ["the cat is on the mat", "there is a cat on the mat"]),
    ("w " * 20 + "x", ["w " * 18 + "y", "w x w"]),  # counts beyond the compiled CIDEr's table of squares
    ("x " * 70 + "y", ["x y " * 40, "y"]),  # a hypothesis of 71 tokens: the LCS leaves the 64-bit words
    ("a b c d", [" ".join(str(i) for i in range(200)) + " a b c d"]),  # a reference of 204 tokens
    ("one", ["one"]),
    ("café naïve résumé", ["Café naïve résumé", "café naive resume"]),
    ("😀 smile 😀", ["smile 😀", "😀 😀 smile"]),
    ("a b a b a b", ["b a b a", "a a b b", "a b"]),
]


def test_adversarial_strings(coco_route):
    gts = {i: refs for i, (_, refs) in enumerate(ADVERSARIAL)}
    res = {i: [h] for i, (h, _) in enumerate(ADVERSARIAL)}
    _assert_same(gts, res, exact=True)
    for i in range(len(ADVERSARIAL)):  # each alone too (CIDEr: one image, 0)
        _assert_same({0: gts[i]}, {0: res[i]}, exact=True)


def test_lone_surrogates(coco_route):
    """A lone surrogate is a character of a Python str to pycocoevalcap's split(): the values are its values on
    both routes (the compiled route, which reads UTF-8, hands such a call to NumPy)."""
    gts = {0: ["a \ud800 b c", "x y"], 1: ["d e \udfff"], 2: ["a b"]}
    res = {0: ["a \ud800 b"], 1: ["d \udfff"], 2: ["a"]}
    _assert_same(gts, res, exact=True)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_bleu_orders(shared_data, n):
    refs, systems = _e2e(shared_data)
    gts = {i: r for i, r in enumerate(refs[:200])}
    res = {i: [systems["zhang"][i]] for i in range(200)}
    assert Bleu(n).compute_score(gts, res, verbose=0) == oracle_bleu.Bleu(n).compute_score(gts, res, verbose=0)
    assert coco_bleu([r[0] for r in res.values()], list(gts.values()), n=n).scores == \
        oracle_bleu.Bleu(n).compute_score(gts, res, verbose=0)[0]


def test_orders_pycocoevalcap_fails_on_are_refused():
    """pycocoevalcap counts 1- to 4-grams whatever ``n`` is: Bleu(5) and Cider(3) raise IndexError there."""
    gts, res = {1: ["a b c d e f"], 2: ["a b c"]}, {1: ["a b c d e"], 2: ["a b"]}
    for ours, theirs in ((Bleu(5), oracle_bleu.Bleu(5)), (Cider(n=3), oracle_cider.Cider(n=3))):
        with pytest.raises(IndexError):
            theirs.compute_score(gts, res)
        with pytest.raises(VecscoreError, match="vecscore.coco"):
            ours.compute_score(gts, res)


@pytest.mark.parametrize(("n", "sigma"), [(4, 6.0), (4, 3.0), (5, 10.0), (6, 6.0)])
def test_cider_orders_and_sigma(shared_data, n, sigma, coco_route):
    """Cider(n > 4) averages over n orders of which only 1 to 4 are counted, as pycocoevalcap does."""
    refs, systems = _e2e(shared_data)
    gts = {i: r for i, r in enumerate(refs[:150])}
    res = {i: [systems["gong"][i]] for i in range(150)}
    want = oracle_cider.Cider(n=n, sigma=sigma).compute_score(gts, res)
    got = Cider(n=n, sigma=sigma).compute_score(gts, res)
    assert abs(got[0] - want[0]) <= TOL
    np.testing.assert_allclose(got[1], want[1], rtol=0, atol=TOL)


def test_cider_document_frequencies_from_another_corpus(shared_data, coco_route):
    """``df_refs``: pycocoevalcap's scorer with its document frequencies and ``log N`` taken from that corpus."""
    refs, systems = _e2e(shared_data)
    corpus = refs[:400]
    cider_scorer = pytest.importorskip("pycocoevalcap.cider.cider_scorer")
    scorer = cider_scorer.CiderScorer(n=4, sigma=6.0)
    for r in corpus:
        scorer += ("", r)
    scorer.compute_doc_freq()
    hyps, item_refs = systems["harv"][400:500], refs[400:500]
    # pycocoevalcap takes log N from the number of items it holds when it scores: pad them to the corpus' size
    # (the padding items' scores are dropped), keeping the document frequencies the corpus gave
    pad = len(corpus) - len(hyps)
    scorer.crefs = [cider_scorer.cook_refs(r) for r in item_refs] + [[]] * pad
    scorer.ctest = [cider_scorer.cook_test(h) for h in hyps] + [{}] * pad
    with np.errstate(invalid="ignore", divide="ignore"):
        want = np.array(scorer.compute_cider()[:len(hyps)])
    got = cider_d(hyps, item_refs, df_refs=corpus)
    np.testing.assert_allclose(got.per_item, want, rtol=0, atol=TOL)


def test_return_types_and_order_as_pycocoevalcap():
    gts = {"b": ["a cat sat", "the cat sat down"], "a": ["a dog ran", "dogs run"], 7: ["x y"]}
    res = {7: ["x"], "a": ["a dog runs"], "b": ["a cat sat down"]}
    score, scores = Bleu(4).compute_score(gts, res, verbose=0)
    want_score, want_scores = oracle_bleu.Bleu(4).compute_score(gts, res, verbose=0)
    assert type(score) is list and all(type(s) is float for s in score) and len(scores) == 4
    assert all(type(row) is list and len(row) == 3 for row in scores)
    assert (score, scores) == (want_score, want_scores)
    for ours, theirs in ((Rouge(), oracle_rouge.Rouge()), (Cider(), oracle_cider.Cider())):
        m, per = ours.compute_score(gts, res)
        wm, wper = theirs.compute_score(gts, res)
        assert isinstance(m, np.floating) and isinstance(per, np.ndarray) and per.shape == wper.shape
        assert abs(m - wm) <= TOL and np.allclose(per, wper, rtol=0, atol=TOL)
    assert [Bleu().method(), Rouge().method(), Cider().method()] == ["Bleu", "Rouge", "CIDEr"]
    assert Rouge().calc_score(["a cat sat"], ["a cat sat down", "the cat"]) == \
        oracle_rouge.Rouge().calc_score(["a cat sat"], ["a cat sat down", "the cat"])


def test_bleu_prints_what_pycocoevalcap_prints(capsys):
    gts, res = {1: ["a cat sat on the mat", "the cat sat"]}, {1: ["the cat sat on a mat"]}
    oracle_bleu.Bleu(4).compute_score(gts, res)
    want = capsys.readouterr().out
    Bleu(4).compute_score(gts, res)
    assert capsys.readouterr().out == want


@pytest.mark.parametrize(("gts", "res", "needle"), [
    ({1: ["a"]}, {2: ["a"]}, "same image ids"),
    ({1: ["a"]}, {1: ["a", "b"]}, "res[1] must be a list of exactly one caption"),
    ({1: []}, {1: ["a"]}, "gts[1] is empty"),
    ({1: ["a", 5]}, {1: ["a"]}, "gts[1][1] is int"),
    ({1: "a cat"}, {1: ["a"]}, "gts[1] must be a list"),
    ({"x": ["a"]}, {"x": [None]}, "res['x'] is NoneType"),
])
def test_bad_input_is_named_by_image(gts, res, needle):
    for scorer in (Bleu(4), Rouge(), Cider()):
        with pytest.raises(VecscoreError, match=None) as e:
            scorer.compute_score(gts, res)
        assert needle in str(e.value), str(e.value)


def test_empty_input_as_pycocoevalcap(coco_route):
    """No images: Bleu gives zeros and empty lists, Rouge NaN (NumPy's mean of nothing), Cider fails there and
    is refused here."""
    assert Bleu(4).compute_score({}, {}, verbose=0) == oracle_bleu.Bleu(4).compute_score({}, {}, verbose=0)
    with pytest.warns(RuntimeWarning):
        mean, per = Rouge().compute_score({}, {})
    assert math.isnan(mean) and per.shape == (0,)
    with pytest.raises(ValueError):
        oracle_cider.Cider().compute_score({}, {})
    with pytest.raises(VecscoreError, match="no images to score"):
        Cider().compute_score({}, {})


def test_functions_on_lists():
    hyps = ["a man rides a horse", "two dogs play in the snow"]
    refs = [["a man is riding a horse", "a person rides a horse"], ["dogs playing in snow", "two dogs in the snow"]]
    gts = {i: r for i, r in enumerate(refs)}
    res = {i: [h] for i, h in enumerate(hyps)}
    b = coco_bleu(hyps, refs)
    assert b.scores == oracle_bleu.Bleu(4).compute_score(gts, res, verbose=0)[0]
    assert math.isclose(coco_rouge_l(hyps, refs).score, oracle_rouge.Rouge().compute_score(gts, res)[0],
                        rel_tol=0, abs_tol=TOL)
    assert math.isclose(cider_d(hyps, refs).score, oracle_cider.Cider().compute_score(gts, res)[0],
                        rel_tol=0, abs_tol=TOL)
    with pytest.raises(VecscoreError, match="one list of references per hypothesis"):
        coco_bleu(hyps, refs[:1])
    with pytest.raises(VecscoreError, match="sigma"):
        cider_d(hyps, refs, sigma=0)
    with pytest.raises(VecscoreError, match="n"):
        coco_bleu(hyps, refs, n=0)


def test_bleu_statistics_are_the_same_on_both_routes(shared_data, monkeypatch):
    """Large calls take vecscore's compiled BLEU kernels once compiled (sacreBLEU's statistics with
    tokenize='none'); the NumPy route gives the same integers."""
    from vecscore.coco.bleu import bleu_stats
    from vecscore.coco.items import items

    refs, systems = _e2e(shared_data)
    hyps = systems["forge3"] + [h for h, _ in ADVERSARIAL]
    batch = items(hyps, refs + [r for _, r in ADVERSARIAL])
    got = {}
    for route in ("plain", "compiled"):
        monkeypatch.setenv("VECSCORE_ROUTE", route)
        got[route] = bleu_stats(batch, 4)
    for field in ("correct", "guess", "testlen", "reflen"):
        assert np.array_equal(getattr(got["plain"], field), getattr(got["compiled"], field)), field


def test_evaluate_is_coco_captions_pipeline(shared_data):
    """evaluate(gts, res) = pycocoevalcap's PTBTokenizer (the Java jar) then Bleu(4), Rouge, Cider, as
    COCOEvalCap.evaluate runs them (without METEOR and SPICE), on annotation dicts."""
    import shutil

    if shutil.which("java") is None:
        pytest.skip("java is not installed: pycocoevalcap's PTBTokenizer runs the CoreNLP jar")
    jar = pytest.importorskip("pycocoevalcap.tokenizer.ptbtokenizer")
    refs, systems = _e2e(shared_data)
    gts = {f"img{i}": [{"caption": c, "id": j} for j, c in enumerate(r)] for i, r in enumerate(refs[:300])}
    res = {f"img{i}": [{"caption": systems["tuda"][i]}] for i in range(300)}
    tok_g, tok_r = jar.PTBTokenizer().tokenize(gts), jar.PTBTokenizer().tokenize(res)
    want = dict(zip(("Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4"), oracle_bleu.Bleu(4).compute_score(tok_g, tok_r, 0)[0]))
    rouge_mean, rouge_items = oracle_rouge.Rouge().compute_score(tok_g, tok_r)
    cider_mean, cider_items = oracle_cider.Cider().compute_score(tok_g, tok_r)
    want.update(ROUGE_L=rouge_mean, CIDEr=cider_mean)
    out = evaluate(gts, res, meteor=False)
    assert list(out.scores) == list(want)
    for metric, value in want.items():
        assert abs(out.scores[metric] - value) <= TOL, metric
    assert list(out.per_image) == list(gts)
    assert [out.per_image[k]["ROUGE_L"] for k in gts] == rouge_items.tolist()
    np.testing.assert_allclose([out.per_image[k]["CIDEr"] for k in gts], cider_items, rtol=0, atol=TOL)


def test_rouge_l_on_long_texts_of_few_words(coco_route):
    """Hypotheses and references of 1 to 300 tokens from a 6-word vocabulary (long LCS, every word boundary of
    the 64-bit words crossed): every item's ROUGE-L as pycocoevalcap's DP table gives it."""
    rng = np.random.default_rng(11)
    words = ["a", "b", "c", "d", "", "e"]  # "" : two spaces in a row

    def text(k: int) -> str:
        return " ".join(words[i] for i in rng.integers(0, len(words), k))

    lengths = [1, 2, 63, 64, 65, 127, 128, 129, 200, 300]
    hyps = [text(k) for k in lengths for _ in range(2)]
    refs = [[text(int(rng.choice(lengths))) for _ in range(int(rng.integers(1, 4)))] for _ in hyps]
    gts, res = dict(enumerate(refs)), {i: [h] for i, h in enumerate(hyps)}
    want_mean, want = oracle_rouge.Rouge().compute_score(gts, res)
    got_mean, got = Rouge().compute_score(gts, res)
    assert got.tolist() == want.tolist() and got_mean == want_mean


def test_evaluate_with_meteor_is_coco_captions_pipeline(shared_data):
    """evaluate(gts, res) with METEOR = COCOEvalCap.evaluate's Bleu, METEOR, ROUGE_L, CIDEr: pycocoevalcap's
    PTBTokenizer (the Java jar), then its scorers on the tokenized dictionaries, Meteor running meteor-1.5.jar
    (-l en -norm) on them; 100 E2E items, annotation dicts."""
    from tests.meteor_jar import require_jar

    require_jar()  # java and pycocoevalcap's jar
    jar = pytest.importorskip("pycocoevalcap.tokenizer.ptbtokenizer")
    from pycocoevalcap.meteor.meteor import Meteor as JarMeteor

    refs, systems = _e2e(shared_data)
    gts = {f"img{i}": [{"caption": c, "id": j} for j, c in enumerate(r)] for i, r in enumerate(refs[:100])}
    res = {f"img{i}": [{"caption": systems["sheff2"][i]}] for i in range(100)}
    tok_g, tok_r = jar.PTBTokenizer().tokenize(gts), jar.PTBTokenizer().tokenize(res)
    scorer = JarMeteor()
    try:
        meteor_corpus, meteor_items = scorer.compute_score(tok_g, tok_r)
    finally:
        del scorer
    out = evaluate(gts, res)
    assert list(out.scores) == ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr"]
    assert abs(out.scores["METEOR"] - meteor_corpus) <= 1e-12
    assert out.scores["METEOR"] != pytest.approx(np.mean(meteor_items), abs=1e-6)  # summed statistics, not a mean
    np.testing.assert_allclose([out.per_image[k]["METEOR"] for k in gts], meteor_items, rtol=0, atol=1e-12)
    assert all(list(row) == list(out.scores) for row in out.per_image.values())
    want_bleu = oracle_bleu.Bleu(4).compute_score(tok_g, tok_r, 0)[0]
    assert [out.scores[f"Bleu_{k + 1}"] for k in range(4)] == want_bleu
    # meteor=False: as before, without METEOR; the other values unchanged
    without = evaluate(gts, res, meteor=False)
    assert "METEOR" not in without.scores and all("METEOR" not in r for r in without.per_image.values())
    assert without.scores == {m: v for m, v in out.scores.items() if m != "METEOR"}


def test_evaluate_meteor_published_by_nlg_eval(shared_data):
    """nlg-eval's published METEOR (it runs meteor-1.5.jar -l en -norm on the captions as given)."""
    root = data_file(shared_data, "nlg-eval-examples")
    expected = json.loads((root / "expected_scores.json").read_text(encoding="utf-8"))
    hyps = (root / "hyp.txt").read_text(encoding="utf-8").splitlines()
    refs = list(zip(*((root / f).read_text(encoding="utf-8").splitlines() for f in ("ref1.txt", "ref2.txt"))))
    out = evaluate({i: list(r) for i, r in enumerate(refs)}, {i: [h] for i, h in enumerate(hyps)}, tokenize=False,
                   meteor=True)
    assert round(out.scores["METEOR"] - expected["corpus_files"]["scores"]["METEOR"], 5) == 0
    for case in expected["individual_cases"]:
        one = evaluate({0: case["refs"]}, {0: [case["hyp"]]}, tokenize=False, meteor=True)
        places = case.get("places", {}).get("METEOR", 5)
        assert round(one.scores["METEOR"] - case["scores"]["METEOR"], places) == 0, case["hyp"]


def test_evaluate_without_meteor_data(monkeypatch):
    """pycocoevalcap not installed: meteor=None leaves METEOR out silently, meteor=True is the error that names the
    fix; a meteor= that is not None/True/False is refused."""
    import sys

    from vecscore.errors import MissingDependencyError

    monkeypatch.setitem(sys.modules, "pycocoevalcap", None)  # what importlib finds when it is not installed
    gts, res = {1: ["a dog runs on the grass"]}, {1: ["a dog runs"]}
    out = evaluate(gts, res, tokenize=False)
    assert list(out.scores) == ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "ROUGE_L", "CIDEr"]
    with pytest.raises(MissingDependencyError, match="pip install pycocoevalcap"):
        evaluate(gts, res, tokenize=False, meteor=True)
    with pytest.raises(VecscoreError, match="meteor must be None"):
        evaluate(gts, res, tokenize=False, meteor="yes")
