"""The names vecscore shares with sacreBLEU and rouge-score take the anchor's arguments and return what it
returns (expected values: sacreBLEU 2.6.0 and rouge-score 0.1.2 themselves).  The anchors' own suites run in
tests/test_anchor_suites.py."""
from __future__ import annotations

import json

import numpy as np
import pytest

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.significance import PairedTest  # noqa: E402

import vecscore  # noqa: E402
from vecscore.bleu.api import raw_corpus_bleu  # noqa: E402
from vecscore.errors import VecscoreError  # noqa: E402

HYPS = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
REFS = [["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
        ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."]]


def _bleu_fields(s):
    return (s.score, list(s.counts), list(s.totals), list(s.precisions), s.bp, s.sys_len, s.ref_len)


@pytest.mark.parametrize("smooth_value", [None, 0.01, 0.0])
def test_raw_corpus_bleu(smooth_value):
    ours = raw_corpus_bleu(HYPS, REFS, smooth_value)
    theirs = sacrebleu.raw_corpus_bleu(HYPS, REFS, smooth_value)
    assert _bleu_fields(ours) == _bleu_fields(theirs)


def test_positional_arguments_and_use_effective_order():
    args = ("floor", 0.2, True, True, "intl", True)  # smooth_method, smooth_value, force, lowercase, tokenize, eff
    assert _bleu_fields(vecscore.corpus_bleu(HYPS, REFS, *args)) == _bleu_fields(sacrebleu.corpus_bleu(HYPS, REFS,
                                                                                                       *args))
    one = ("add-k", 2, True, "none", False)  # smooth_method, smooth_value, lowercase, tokenize, use_effective_order
    ours = vecscore.sentence_bleu("a b c d e", ["a b c x e", "b c d"], *one)
    assert _bleu_fields(ours) == _bleu_fields(sacrebleu.sentence_bleu("a b c d e", ["a b c x e", "b c d"], *one))
    kw = dict(use_effective_order=True, smooth_method="none")
    assert vecscore.corpus_bleu(["a b"], [["a b"]], **kw).score == sacrebleu.corpus_bleu(["a b"], [["a b"]], **kw).score
    with pytest.raises(VecscoreError, match="use_effective_order"):
        vecscore.corpus_bleu(HYPS, REFS, use_effective_order=True, effective_order=False)


def test_bleu_class_positional_and_trg_lang():
    ours = vecscore.BLEU(True, True, "char", "floor", 0.3, 3, True)
    theirs = sacrebleu.BLEU(True, True, "char", "floor", 0.3, 3, True)
    assert _bleu_fields(ours.corpus_score(HYPS, REFS)) == _bleu_fields(theirs.corpus_score(HYPS, REFS))
    zh_refs = [["猫坐在垫子上", "今天天气很好"]]
    ours, theirs = vecscore.BLEU(trg_lang="zh"), sacrebleu.BLEU(trg_lang="zh")
    assert ours.corpus_score(["猫坐在垫子上。", "天气很好"], zh_refs).score == \
        theirs.corpus_score(["猫坐在垫子上。", "天气很好"], zh_refs).score
    assert ours.get_signature().format(short=True).split("|v:")[0] == \
        theirs.get_signature().format(short=True).split("|v:")[0]


def test_lists_and_to_dict():
    ours, theirs = vecscore.corpus_bleu(HYPS, REFS), sacrebleu.corpus_bleu(HYPS, REFS)
    assert type(ours.counts) is not np.ndarray and ours.counts == theirs.counts and ours.totals == theirs.totals
    d = json.loads(json.dumps(ours.to_dict()))
    assert d["counts"] == theirs.counts and d["precisions"] == theirs.precisions and d["score"] == theirs.score
    assert (d["bp"], d["sys_len"], d["ref_len"]) == (theirs.bp, theirs.sys_len, theirs.ref_len)
    chrf = json.loads(json.dumps(vecscore.corpus_chrf(HYPS, REFS, word_order=2).to_dict()))
    assert chrf["score"] == sacrebleu.corpus_chrf(HYPS, REFS, word_order=2).score and chrf["name"] == "chrF2++"
    ter = json.loads(json.dumps(vecscore.corpus_ter(HYPS, REFS).to_dict()))
    want = sacrebleu.corpus_ter(HYPS, REFS)
    assert (ter["score"], ter["num_edits"], ter["ref_length"]) == (want.score, want.num_edits, want.ref_length)
    per_pair = vecscore.sentence_bleu(HYPS, [list(r) for r in zip(*REFS)])[1]
    assert per_pair.counts == sacrebleu.sentence_bleu(HYPS[1], [REFS[0][1], REFS[1][1]]).counts
    assert json.dumps(per_pair.to_dict())


@pytest.mark.parametrize("smooth_method", ["exp", "floor", "add-k", "none"])
@pytest.mark.parametrize("effective_order", [False, True])
def test_compute_score_from_stats(smooth_method, effective_order):
    """Rows of int and float32 statistics (sacreBLEU's bootstrap sums), degenerate ones included."""
    ours = vecscore.BLEU(tokenize="none", smooth_method=smooth_method, effective_order=effective_order)
    theirs = sacrebleu.BLEU(tokenize="none", smooth_method=smooth_method, effective_order=effective_order)
    rng = np.random.default_rng(7)
    for i in range(150):
        total = np.sort(rng.integers(0, 30, 4))[::-1]
        correct = np.minimum(rng.integers(0, 30, 4), total) * (i % 7 != 0)
        row = np.concatenate([[total[0], rng.integers(0, 40)], correct, total])
        for r in (row.astype(np.int64), row.astype(np.float32) * np.float32(1.37)):
            assert _bleu_fields(ours._compute_score_from_stats(r))[0] == theirs._compute_score_from_stats(r).score
        args = (list(correct), list(total), int(row[0]), int(row[1]), smooth_method, None, effective_order)
        assert _bleu_fields(vecscore.BLEU.compute_bleu(*args)) == _bleu_fields(sacrebleu.BLEU.compute_bleu(*args))


def test_signature_update():
    ours, theirs = vecscore.BLEU(tokenize="none"), sacrebleu.BLEU(tokenize="none")
    ours.corpus_score(HYPS, REFS)
    theirs.corpus_score(HYPS, REFS)
    sigs = [m.get_signature() for m in (ours, theirs)]
    for sig in sigs:
        sig.update("seed", "12345")
        sig.update("bs", 1000)
        sig.update("ar", 500)
    for short in (False, True):
        a, b = (s.format(short=short).rsplit("|", 1)[0] for s in sigs)  # all but the version
        assert a == b
    assert str(sigs[0]) == sigs[0].format()


def test_sacrebleu_paired_test_drives_vecscore_metrics(monkeypatch):
    """sacreBLEU's own PairedTest with vecscore's BLEU, chrF and TER objects gives sacreBLEU's results."""
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    rng = np.random.default_rng(3)
    words = "the a cat dog sat ran on under mat rug house big small red".split()
    refs = [" ".join(rng.choice(words, rng.integers(3, 12))) for _ in range(40)]
    systems = [(f"sys{k}", [" ".join(rng.choice(words, rng.integers(2, 12))) for _ in refs]) for k in range(3)]
    results = []
    for lib in (vecscore, sacrebleu):
        metrics = {"BLEU": lib.BLEU(references=[refs]), "chrF": lib.CHRF(references=[refs]),
                   "TER": lib.TER(references=[refs])}
        for test_type, n in (("bs", 200), ("ar", 200)):
            sigs, scores = PairedTest(systems, metrics, references=None, test_type=test_type, n_samples=n)()
            results.append(({k: str(v).rsplit("|", 1)[0] for k, v in sigs.items()},
                            {k: [repr(r) for r in v] for k, v in scores.items()}))
    assert results[:2] == results[2:]


def test_rouge_scorer_types():
    from rouge_score import rouge_scorer

    from vecscore import RougeScorer

    for bad in ("rouge10", "rouge0", "rougen"):
        with pytest.raises(VecscoreError, match="rouge1..rouge9"):
            RougeScorer([bad])
        with pytest.raises(ValueError):  # rouge-score refuses them too, at the first score
            rouge_scorer.RougeScorer([bad]).score("a b", "a")
    want = rouge_scorer.RougeScorer(["rouge9", "rougeL"]).score("a b c d e f g h i j", "a b c d e f g h i")
    assert RougeScorer(["rouge9", "rougeL"]).score("a b c d e f g h i j", "a b c d e f g h i") == want


def test_sacrebleu_keyword_names():
    """sacreBLEU's keyword names for the data (hypotheses=, hypothesis=, references=) give sacreBLEU's numbers."""
    hyps = ["the cat sat on the mat", "a dog barked at the moon"]
    refs = [["the cat is on the mat", "a dog barks at the moon"]]
    pairs = (
        (vecscore.corpus_bleu, sacrebleu.corpus_bleu, dict(hypotheses=hyps, references=refs)),
        (raw_corpus_bleu, sacrebleu.raw_corpus_bleu, dict(hypotheses=hyps, references=refs)),
        (vecscore.sentence_bleu, sacrebleu.sentence_bleu, dict(hypothesis=hyps[0], references=[refs[0][0]])),
        (vecscore.BLEU().corpus_score, sacrebleu.BLEU().corpus_score, dict(hypotheses=hyps, references=refs)),
        (vecscore.corpus_chrf, sacrebleu.corpus_chrf, dict(hypotheses=hyps, references=refs)),
        (vecscore.corpus_ter, sacrebleu.corpus_ter, dict(hypotheses=hyps, references=refs)),
    )
    for ours, theirs, kwargs in pairs:
        assert ours(**kwargs).score == pytest.approx(theirs(**kwargs).score, abs=1e-12), ours
    with pytest.raises(VecscoreError, match="both hyps= and hypotheses="):
        vecscore.corpus_bleu(hyps=hyps, hypotheses=hyps, refs=refs)
