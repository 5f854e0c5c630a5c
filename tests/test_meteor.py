"""METEOR 1.5 against meteor-1.5.jar: through pycocoevalcap's ``Meteor`` (coco-caption's configuration) on every
E2E NLG system and on adversarial captions, and through the jar's ``-stdio`` mode with each module set, task,
explicit parameters and normalization."""
from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import e2e_nlg
from tests.meteor_jar import jar_stdio, require_jar
from vecscore.errors import VecscoreError

TOL = 1e-12


@pytest.fixture(scope="module")
def e2e(shared_data):
    refs, systems = e2e_nlg(shared_data)
    return refs, systems


@pytest.fixture(scope="module")
def ptb_e2e(e2e):
    from vecscore.coco import PTBTokenizer

    refs, systems = e2e
    tok = PTBTokenizer()
    gts = tok.tokenize({i: [{"caption": r} for r in rs] for i, rs in enumerate(refs)})
    res = {s: tok.tokenize({i: [{"caption": h}] for i, h in enumerate(out)}) for s, out in systems.items()}
    return gts, res


@pytest.fixture(scope="module")
def jar_meteor():
    require_jar()
    from pycocoevalcap.meteor.meteor import Meteor

    scorer = Meteor()
    yield scorer
    del scorer


def _same(ours, theirs) -> None:
    assert abs(ours[0] - theirs[0]) <= TOL, (ours[0], theirs[0])
    assert len(ours[1]) == len(theirs[1])
    diff = np.abs(np.asarray(ours[1]) - np.asarray(theirs[1]))
    assert diff.max(initial=0.0) <= TOL, (int(diff.argmax()), diff.max())


def test_every_e2e_system_equals_pycocoevalcap(ptb_e2e, jar_meteor):
    """coco-caption's METEOR of all 21 E2E NLG systems (PTB-tokenized, 630 items, 1 to 45 references each)."""
    from vecscore.coco import Meteor

    gts, res = ptb_e2e
    ours = Meteor()
    for system in sorted(res):
        theirs = jar_meteor.compute_score(gts, res[system])
        got = ours.compute_score(gts, res[system])
        assert isinstance(got[0], float) and isinstance(got[1], list) and isinstance(got[1][0], float)
        _same(got, theirs)
    # the published METEOR of the TGen baseline (E2E NLG Challenge)
    assert round(ours.compute_score(gts, res["tgen"])[0], 4) == 0.4483


def test_nlg_eval_published_values(shared_data):
    """nlg-eval's own test asserts METEOR (its wrapper runs the jar as coco-caption does) on its example files and
    its single-example cases, French and Japanese included."""
    import json

    from tests.conftest import data_file
    from vecscore.coco import Meteor

    root = data_file(shared_data, "nlg-eval-examples")
    expected = json.loads((root / "expected_scores.json").read_text(encoding="utf-8"))
    hyps = (root / "hyp.txt").read_text(encoding="utf-8").splitlines()
    refs = list(zip(*((root / f).read_text(encoding="utf-8").splitlines() for f in ("ref1.txt", "ref2.txt"))))
    score, _ = Meteor().compute_score({i: list(r) for i, r in enumerate(refs)}, {i: [h] for i, h in enumerate(hyps)})
    assert round(score - expected["corpus_files"]["scores"]["METEOR"], 5) == 0
    for case in expected["individual_cases"]:
        places = case.get("places", {}).get("METEOR", 5)
        score, _ = Meteor().compute_score({0: case["refs"]}, {0: [case["hyp"]]})
        assert round(score - case["scores"]["METEOR"], places) == 0, case["hyp"]


ADVERSARIAL = [
    ("", ["a man riding a horse"]),
    ("a man riding a horse", [""]),
    ("", [""]),
    ("...", ["! ? ."]),
    ("a man ||| riding a horse", ["a man riding a horse"]),
    ("a man riding a horse", ["a man ||| riding", "a horse"]),
    ("a man  riding   a horse", ["a  man riding a horse"]),
    ("|||", ["|||"]),
    ("a\tman\triding", ["a man riding"]),
    ("Ein Mann reitet ein Pferd über die Wiese", ["ein mann reitet", "un homme à cheval"]),
    ("\u00e9l\u00e8ve caf\u00e9 na\u00efve \u03a3\u0399\u03a3\u03a5\u03a6\u039f\u03a3",
     ["eleve cafe naive \u03c3\u03b9\u03c3\u03c5\u03c6\u03bf\u03c2"]),
    ("\U0001f600 emoji \u4e2d\u6587 text", ["emoji text \u4e2d\u6587 \U0001f600"]),
    ("the the the the the", ["the cat the dog the mat the"]),
    ("U.S. Mr. Smith paid $1,000.50 for 3.5 kg (approx.) -- ok?", ["mr. smith paid 1,000.50 dollars in the u.s."]),
    ("It's a dog's life, isn't it?", ["it is a dog 's life , is n't it ?"]),
    ("quickly running dogs", ["fast run dog", "rapidly ran the hound"]),
    (" ".join(["word"] * 60), [" ".join(f"w{k % 17} the of" for k in range(70))]),
    ("a", [" ".join(["a"] * 200)]),
    (" ".join(f"tok{k}" for k in range(200)), [" ".join(f"tok{k}" for k in range(199, -1, -1))]),
]


def test_adversarial_captions_equal_pycocoevalcap(jar_meteor):
    from vecscore.coco import Meteor

    gts = {k: refs for k, (_, refs) in enumerate(ADVERSARIAL)}
    res = {k: [hyp] for k, (hyp, _) in enumerate(ADVERSARIAL)}
    _same(Meteor().compute_score(gts, res), jar_meteor.compute_score(gts, res))
    # and each alone (the corpus score is then that item's statistics)
    for k in range(len(ADVERSARIAL)):
        one_g, one_r = {k: gts[k]}, {k: res[k]}
        _same(Meteor().compute_score(one_g, one_r), jar_meteor.compute_score(one_g, one_r))


# (vecscore.meteor keyword arguments, the jar's flags)
CONFIGS = [
    ({"normalize": False}, []),
    ({"normalize": False, "lower": True}, ["-lower"]),
    ({"normalize": True}, ["-norm"]),
    ({"normalize": True, "no_punct": True}, ["-norm", "-noPunct"]),
    ({"normalize": False, "no_punct": True}, ["-noPunct"]),
    ({"modules": ["exact"]}, ["-norm", "-m", "exact"]),
    ({"modules": ["exact", "stem"]}, ["-norm", "-m", "exact stem"]),
    ({"modules": ["exact", "synonym"]}, ["-norm", "-m", "exact synonym"]),
    ({"modules": ["exact", "paraphrase"]}, ["-norm", "-m", "exact paraphrase"]),
    ({"modules": ["paraphrase", "synonym", "stem", "exact"]}, ["-norm", "-m", "paraphrase synonym stem exact"]),
    ({"task": "adq"}, ["-norm", "-t", "adq"]),
    ({"task": "hter"}, ["-norm", "-t", "hter"]),
    ({"task": "rank"}, ["-norm", "-t", "rank"]),
    ({"task": "li"}, ["-norm", "-t", "li"]),
    ({"params": [0.5, 1.0, 0.5, 0.5]}, ["-norm", "-p", "0.5 1.0 0.5 0.5"]),
    # -p makes the jar's task "custom", with adq's weights, whatever -t says
    ({"task": "hter", "params": [0.5, 1.0, 0.5, 0.5]}, ["-norm", "-t", "hter", "-p", "0.5 1.0 0.5 0.5"]),
    ({"params": "0.9 3.0 0.5 1.0", "weights": [1.0, 0.8]}, ["-norm", "-p", "0.9 3.0 0.5 1.0", "-w", "1.0 0.8"]),
    ({"weights": "1 1 1 1", "modules": "exact stem synonym"}, ["-norm", "-w", "1 1 1 1", "-m", "exact stem synonym"]),
    ({"task": "hter", "modules": ["exact", "synonym", "paraphrase"]}, ["-norm", "-t", "hter", "-m",
                                                                       "exact synonym paraphrase"]),
    ({"beam_size": 1}, ["-norm", "-x", "1"]),
    ({"beam_size": 3, "modules": ["exact", "stem"]}, ["-norm", "-x", "3", "-m", "exact stem"]),
]


@pytest.fixture(scope="module")
def jar_items(e2e):
    refs, systems = e2e
    # (a "|||" in a text is the stdio protocol's separator: the coco test covers it)
    plain = [(h, r) for h, r in ADVERSARIAL if "|||" not in h + "".join(r)]
    hyps = systems["slug"][:150] + systems["sheff1"][150:300] + [h for h, _ in plain]
    return hyps, refs[:300] + [r for _, r in plain]


@pytest.mark.parametrize("kwargs,flags", CONFIGS, ids=[" ".join(f) or "no-flags" for _, f in CONFIGS])
def test_options_equal_the_jar(jar_items, kwargs, flags):
    import vecscore

    hyps, refs = jar_items
    rows, item_scores, corpus = jar_stdio([(hyps, refs)], ["-l", "en", *flags])[0]
    got = vecscore.meteor(hyps, refs, **kwargs)
    np.testing.assert_array_equal(got.stats, np.array(rows))
    assert np.abs(got.scores - np.array(item_scores)).max() <= TOL
    assert abs(got.score - corpus) <= TOL


def test_signature_and_jar_args():
    from vecscore.meteor.options import resolve_options

    opts = resolve_options("default", modules=["exact", "synonym"], normalize=True)
    # -m resizes the task's weights by position: synonym takes the stem weight (0.6), as the jar does
    assert opts.weights == (1.0, 0.6)
    assert opts.jar_args() == ["-l", "en", "-m", "exact synonym", "-w", "1.0 0.6", "-p", "0.85 0.2 0.6 0.75", "-norm"]
    assert resolve_options("li").weights == (1.0, 0.5, 0.5, 0.5)
    assert resolve_options(normalize=False, no_punct=True).normalization == "none"


@pytest.mark.parametrize("kwargs,needle", [
    ({"task": "util"}, "unknown METEOR task"),
    ({"params": [0.85, 0.2, 0.6]}, "exactly 4 values"),
    ({"params": "a b c d"}, "expected numbers"),
    ({"modules": ["exact", "wordnet"]}, "METEOR's modules"),
    ({"modules": ["exact"] * 5}, "at most 4"),
    ({"weights": [1, 1, 1, 1, 1]}, "5 weights for 4 modules"),
    ({"beam_size": 0}, "positive integer"),
])
def test_bad_options_are_refused(kwargs, needle):
    import vecscore

    with pytest.raises(VecscoreError, match=needle):
        vecscore.meteor(["a"], ["a"], **kwargs)


@pytest.mark.parametrize("hyps,refs,needle", [
    ("a cat", ["a cat"], "list of hypothesis strings"),
    (["a", 1], ["a", "b"], r"hyps\[1\] is int"),
    (["a"], [["a", None]], r"refs\[0\]\[1\] is NoneType"),
    (["a"], [[]], r"refs\[0\] is empty"),
    (["a", "b"], ["a"], "1 rows for 2 hypotheses"),
])
def test_bad_inputs_are_refused(hyps, refs, needle):
    import vecscore

    with pytest.raises(VecscoreError, match=needle):
        vecscore.meteor(hyps, refs)


def test_coco_drop_in_refuses_what_the_jar_cannot_read():
    from vecscore.coco import Meteor

    with pytest.raises(VecscoreError, match=r"res\[1\] has a line break"):
        Meteor().compute_score({1: ["a b"]}, {1: ["a\nb"]})
    with pytest.raises(VecscoreError, match="same image ids"):
        Meteor().compute_score({1: ["a"]}, {2: ["a"]})
    with pytest.raises(VecscoreError, match=r"res\[1\] must be a list of exactly one"):
        Meteor().compute_score({1: ["a"]}, {1: ["a", "b"]})
    with pytest.raises(VecscoreError, match="no images"):
        Meteor().compute_score({}, {})


def test_missing_data_names_its_source(tmp_path):
    import vecscore

    with pytest.raises(VecscoreError, match="pycocoevalcap"):
        vecscore.meteor(["a"], ["a"], jar=tmp_path / "nothing.jar")
    require_jar()
    with pytest.raises(VecscoreError, match="paraphrase"):
        vecscore.meteor(["a"], ["a"], paraphrase_file=tmp_path / "nothing.gz")


def test_result_holds_best_reference_and_corpus_sum():
    import vecscore

    require_jar()
    r = vecscore.meteor(["the cat sat on the mat", "a dog"], [["a bird", "the cat sat on the mat"], "a dog barks"],
                        modules=["exact"])
    assert r.best_ref.tolist() == [1, 0]
    # a perfect match in one chunk: precision = recall = 1 and no fragmentation penalty
    assert r.scores[0] == 1.0
    assert float(r) == r.score
    assert r.signature.startswith("meteor-1.5-wo-en-norm-")
