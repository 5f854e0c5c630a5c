"""vecscore.rouge155 against the real ROUGE-1.5.5.pl (tests/oracles/perl_rouge.py) and hand values.

Differential tests batch many EVALs into a few Perl runs (one process per flag set).
"""
from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

from vecscore.errors import EmptyTokenizationWarning, VecscoreError
from vecscore.rouge.rouge155.api import (
    perl_average,
    perl_round5,
    rouge155,
    rouge155_args,
    script_metric_name,
)

FULL = ["-n", "4", "-w", "1.2", "-2", "4", "-U"]


def _ours(hyps, refs, flags):
    args = rouge155_args(flags)
    return args.kwargs["metrics"], rouge155(hyps, refs, **args.kwargs)


def _assert_matches_perl(perl_rouge, tmp_path, hyps, refs, flags):
    """Every metric of ``flags``: per pair R, P, F equal to the script's printed values."""
    out = perl_rouge.score(hyps, refs, flags, workdir=tmp_path)
    metrics, res = _ours(hyps, refs, flags)
    assert sorted(out) == sorted(script_metric_name(m) for m in metrics)
    for m in metrics:
        want = np.array(out[script_metric_name(m)])  # (pairs, [R, P, F])
        got = np.stack([res[m].recall, res[m].precision, res[m].fmeasure], axis=1)
        bad = np.flatnonzero(np.abs(got - want).max(axis=1) > 1e-9)
        assert bad.size == 0, (
            f"{flags} {m} pair {bad[0]}: {got[bad[0]]} vs Perl {want[bad[0]]}\n"
            f"hyp={hyps[bad[0]]!r}\nrefs={refs[bad[0]]!r}")


# --------------------------------------------------------------------------------------
# adversarial generators
# --------------------------------------------------------------------------------------

_WORDS = ["the", "cat", "cats", "sat", "on", "mat", "a", "police", "killed", "kill", "gunman", "running", "ran",
          "mice", "mouse", "went", "goes", "state-of-the-art", "e-mail", "u.s.", "3.5%", "$100", "1999", "-", "--",
          "don't", "it's", "x", "y", "z", "and", "of", "Best", "better", "good", "CAT", "Mat."]


def _sentence(rng, lo=1, hi=12):
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(lo, hi)))


def _summary(rng):
    kind = rng.random()
    if kind < 0.1:  # repeated tokens
        return "\n".join(" ".join([rng.choice(["the", "a", "cat"])] * rng.randint(1, 8))
                         for _ in range(rng.randint(1, 3)))
    if kind < 0.2:  # one-token sentences, empty and blank lines
        return "\n".join(rng.choice(["cat", "", "  ", "the", "-", "mat .", "$"]) for _ in range(rng.randint(1, 6)))
    if kind < 0.25:  # long text
        return "\n".join(_sentence(rng, 20, 60) for _ in range(rng.randint(3, 8)))
    return "\n".join(_sentence(rng) for _ in range(rng.randint(1, 5)))


def _pairs(n, seed, max_refs=1, wlcs=True):
    rng = random.Random(seed)
    hyps = [_summary(rng) for _ in range(n)]
    refs = [[_summary(rng) for _ in range(rng.randint(1, max_refs))] for _ in range(n)]
    if wlcs:  # the script dies on a ROUGE-W reference without tokens (division by zero)
        refs = [["zebra " + r for r in rs] for rs in refs]
    return hyps, refs


FLAG_SETS = [
    FULL,
    ["-n", "2", "-w", "1.5", "-2", "-1", "-U", "-m", "-s"],
    ["-n", "2", "-w", "1.2", "-2", "0", "-u", "-l", "7", "-m"],
    ["-n", "2", "-w", "1.2", "-2", "9", "-U", "-b", "23"],
    ["-n", "3", "-w", "1.2", "-2", "2", "-U", "-f", "B", "-p", "0.3", "-m"],
    ["-n", "1", "-x", "-2", "-1", "-u", "-f", "A", "-p", "0.8", "-b", "40", "-s"],
]


@pytest.mark.parametrize("flags", FLAG_SETS, ids=[" ".join(f) for f in FLAG_SETS])
def test_matches_perl_on_adversarial_pairs(perl_rouge, tmp_path, flags):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyTokenizationWarning)
        hyps, refs = _pairs(120, seed=FLAG_SETS.index(flags), max_refs=4, wlcs="-w" in flags)
        _assert_matches_perl(perl_rouge, tmp_path, hyps, refs, flags)


def test_matches_perl_with_many_references(perl_rouge, tmp_path):
    hyps, refs = _pairs(25, seed=11, max_refs=1)
    rng = random.Random(5)
    refs = [[_summary(rng) + "\ncat" for _ in range(15)] for _ in hyps]
    for f in ("A", "B"):
        _assert_matches_perl(perl_rouge, tmp_path, hyps, refs, FULL + ["-m", "-f", f])


# --------------------------------------------------------------------------------------
# the quirks: compatible value (= Perl) and corrected value
# --------------------------------------------------------------------------------------


def test_quirk_su_last_token(perl_rouge, tmp_path):
    hyps, refs = ["a b c", "c b a"], [["x y c"], ["c y x"]]
    out = perl_rouge.score(hyps, refs, ["-2", "-1", "-u"], workdir=tmp_path)["ROUGE-SU*"]
    compat = rouge155(hyps, refs, metrics=["rougeSU*"], round5=True)["rougeSU*"]
    assert [o.fmeasure for o in out] == compat.fmeasure.tolist() == [0.0, 0.2]
    fixed = rouge155(hyps, refs, metrics=["rougeSU*"], su_compat=False, round5=False)["rougeSU*"]
    # 3 skip-bigrams + 3 unigrams a side; "c" matches in both, plus (c, ...) nothing else
    assert fixed.recall.tolist() == fixed.precision.tolist() == [1 / 6, 1 / 6]
    # a one-token text has no SU unit at all in the script
    one = rouge155(["cat"], ["cat"], metrics=["rougeSU4"], round5=True)
    assert one["rougeSU4"].fmeasure.tolist() == [0.0]
    assert rouge155(["cat"], ["cat"], metrics=["rougeSU4"], su_compat=False)["rougeSU4"].fmeasure.tolist() == [1.0]


def test_quirk_wlcs_double_f(perl_rouge, tmp_path):
    hyps = ["a b c d e", "a b c d e\nf g h i j"]
    refs = [[h] for h in hyps]
    out = perl_rouge.score(hyps, refs, ["-w", "1.2"], workdir=tmp_path)["ROUGE-W-1.2"]
    compat = rouge155(hyps, refs, metrics=["rougeW-1.2"], round5=True)["rougeW-1.2"]
    assert ([(o.recall, o.precision, o.fmeasure) for o in out]
            == list(zip(compat.recall, compat.precision, compat.fmeasure)))
    assert compat.recall.tolist() == [0.72478, 0.64571] and compat.precision.tolist() == [1.0, 0.8909]
    assert round(5 ** -0.2, 5) == 0.72478
    fixed = rouge155(hyps, refs, metrics=["rougeW"], wlcs_compat=False, round5=False)["rougeW"]
    assert fixed.recall.tolist() == [1.0, 1.0]
    # P is unchanged: runs cannot cross sentences, so 2 f(5) / f(10) < 1
    assert fixed.precision[1] == pytest.approx((2 * 5**1.2 / 10**1.2) ** (1 / 1.2))


def test_quirk_byte_limit_lcs(perl_rouge, tmp_path):
    text = "aaaa bbbb\ncccc dddd\neeee ffff"
    out = perl_rouge.score([text], [[text]], ["-n", "1", "-w", "1.2", "-b", "15"], workdir=tmp_path)
    compat = rouge155([text], [text], metrics=["rouge1", "rougeL", "rougeW"], byte_limit=15, round5=True)
    assert out["ROUGE-1"][0].fmeasure == compat["rouge1"].fmeasure[0] == 1.0
    assert (out["ROUGE-L"][0].recall, out["ROUGE-L"][0].precision, out["ROUGE-L"][0].fmeasure) == (0.5, 0.75, 0.6)
    assert (compat["rougeL"].recall[0], compat["rougeL"].precision[0], compat["rougeL"].fmeasure[0]) == (0.5, 0.75, 0.6)
    w = out["ROUGE-W-1.2"][0]
    assert (w.recall, w.precision, w.fmeasure) == (compat["rougeW"].recall[0], compat["rougeW"].precision[0],
                                                   compat["rougeW"].fmeasure[0])
    fixed = rouge155([text], [text], metrics=["rougeL"], byte_limit=15, byte_limit_compat=False)["rougeL"]
    assert (fixed.recall[0], fixed.precision[0]) == (1.0, 1.0)
    # with -l the two streams agree and the script gives 1.0
    assert rouge155([text], [text], metrics=["rougeL"], word_limit=3)["rougeL"].fmeasure.tolist() == [1.0]


# --------------------------------------------------------------------------------------
# anchors.md examples
# --------------------------------------------------------------------------------------


def test_anchor_multi_reference():
    hyp = ["police killed the gunman in the bank"]
    refs = [["the gunman was killed by police", "police shot and killed the armed gunman inside the bank on monday"]]
    a = rouge155(hyp, refs, metrics=["rouge1", "rouge2", "rougeL"], round5=True)
    assert (a["rouge1"].recall[0], a["rouge1"].precision[0], a["rouge1"].fmeasure[0]) == (0.55556, 0.71429, 0.625)
    assert a["rouge2"].fmeasure[0] == 0.21429 and a["rougeL"].fmeasure[0] == 0.5
    b = rouge155(hyp, refs, metrics=["rouge1", "rouge2", "rougeL"], multi_ref="best-recall", round5=True)
    assert (b["rouge1"].fmeasure[0] == 0.61539 and b["rouge2"].fmeasure[0] == 0.18182
            and b["rougeL"].fmeasure[0] == 0.63158)


def test_anchor_limits_stopwords_stemming():
    h, r = ["a b c d e x y z"], ["a b c d e f g h i j"]
    base = rouge155(h, r, metrics=["rouge1"])["rouge1"]
    assert (base.recall[0], base.precision[0]) == (0.5, 0.625)
    for kw in ({"word_limit": 5}, {"byte_limit": 9}):
        assert rouge155(h, r, metrics=["rouge1"], **kw)["rouge1"].fmeasure.tolist() == [1.0]
    h, r = ["the cats were running in the gardens"], ["a cat runs in a garden"]
    got = [rouge155(h, r, metrics=["rouge1"], round5=True, **kw)["rouge1"].fmeasure[0]
           for kw in ({}, {"stopwords": True}, {"stemmer": True}, {"stemmer": True, "stopwords": True})]
    assert got == [0.15385, 0.0, 0.61539, 1.0]
    # mice -> mouse but mouse -> mous: only "go" and "home" match
    assert rouge155(["the mice went home"], ["a mouse goes home"], metrics=["rouge1"],
                    stemmer=True)["rouge1"].fmeasure[0] == 0.5


def test_skip_bigram_anchor_and_alpha():
    h, r = ["police killed the gunman"], ["police kill the gunman"]
    res = rouge155(h, r, metrics=["rougeS*", "rougeSU*", "rougeS4", "rougeSU4"], round5=True)
    assert [res[m].fmeasure[0] for m in res] == [0.5, 0.55556, 0.5, 0.55556]
    res = rouge155(["a b c d"], ["a b"], metrics=["rouge1"], alpha=0.0, round5=False)["rouge1"]
    assert res.fmeasure[0] == res.recall[0] == 1.0
    res = rouge155(["a b c d"], ["a b"], metrics=["rouge1"], alpha=1.0, round5=False)["rouge1"]
    assert res.fmeasure[0] == res.precision[0] == 0.5


# --------------------------------------------------------------------------------------
# inputs, options, argv, averages
# --------------------------------------------------------------------------------------


def test_sentence_lists_and_reference_layout():
    a = rouge155([["the cat sat", "on the mat"]], [[["the cat", "sat on the mat"]]], metrics=["rougeL"])
    b = rouge155(["the cat sat\non the mat"], ["the cat\nsat on the mat"], metrics=["rougeL"])
    assert a["rougeL"].fmeasure.tolist() == b["rougeL"].fmeasure.tolist()
    # a list of str in refs is a list of references, not of sentences
    c = rouge155(["the cat sat\non the mat"], [["the cat", "sat on the mat"]], metrics=["rougeL"])
    assert c.stats["rougeL"].r_den.tolist() == [6]


def test_validation_errors():
    with pytest.raises(VecscoreError, match="rougeS4"):
        rouge155(["a"], ["a"], metrics=["rougeX"])
    with pytest.raises(VecscoreError, match="mutually exclusive"):
        rouge155(["a"], ["a"], word_limit=3, byte_limit=4)
    with pytest.raises(VecscoreError, match="pooled"):
        rouge155(["a"], ["a"], multi_ref="best")
    with pytest.raises(VecscoreError, match="same length"):
        rouge155(["a", "b"], ["a"])
    with pytest.raises(VecscoreError, match=r"refs\[0\] is an empty list"):
        rouge155(["a"], [[]])
    with pytest.raises(VecscoreError, match="newline"):
        rouge155([["a\nb"]], ["a"])
    with pytest.raises(VecscoreError, match=r"\[0, 1\]"):
        rouge155(["a"], ["a"], alpha=2)
    with pytest.warns(EmptyTokenizationWarning):
        rouge155(["武汉长江大桥"], ["武汉长江大桥"], metrics=["rouge1"])


def test_metric_names():
    assert [script_metric_name(m) for m in ("rouge3", "rougeW-1.5", "ROUGE-SU*", "rougeS9")] == [
        "ROUGE-3", "ROUGE-W-1.5", "ROUGE-SU*", "ROUGE-S9"]
    res = rouge155(["a b c"], ["a b c"], metrics=["ROUGE-SU4", "rougeW-2"])
    assert list(res) == ["ROUGE-SU4", "rougeW-2"]
    assert res.signature.startswith("ROUGE-SU4+ROUGE-W-2|rouge155|tok:perl")


def test_argv_mapping():
    a = rouge155_args("-n 2 -2 4 -u -m -s -l 100 -f B -p 0.3 -t 1 -r 10 -d -a -e /x".split())
    assert a.kwargs == {"metrics": ["rouge1", "rouge2", "rougeL", "rougeSU4"], "stemmer": True, "stopwords": True,
                        "word_limit": 100, "multi_ref": "best-recall", "alpha": 0.3, "round5": True}
    assert (a.average, a.resamples, a.per_eval, a.ignored) == (1, 10, True, ("-a", "-e"))
    assert rouge155_args(["-ms", "-x", "-2", "-1"]).kwargs["metrics"] == ["rougeS*"]
    assert rouge155_args(["-2", "3", "-U"]).kwargs["metrics"] == ["rougeL", "rougeS3", "rougeSU3"]
    assert rouge155_args(["-2", "-1", "-U", "-u"]).kwargs["metrics"] == ["rougeL", "rougeSU*"]
    assert rouge155_args(["-b75"]).kwargs["byte_limit"] == 75
    assert rouge155_args([]).kwargs["metrics"] == ["rougeL"]  # the script's default: ROUGE-L only
    for bad in (["-l", "3", "-b", "4"], ["-f", "C"], ["-p", "2"], ["-w", "0"], ["-3", "H"], ["-q"], ["config.xml"],
                ["-n"]):
        with pytest.raises(VecscoreError):
            rouge155_args(bad)


def test_perl_round5_ties():
    x = np.array([0.015625, 0.000015, 1 / 64 * 3, 0.123455, 0.5, 0.999995, 1.0])
    assert perl_round5(x).tolist() == [float("%.5f" % v) for v in x]


def test_averages_t0_t1_against_perl(perl_rouge, tmp_path):
    """Both -t modes: bit-identical bootstrap means; n_samples=0 gives the exact values."""
    hyps, refs = _pairs(13, seed=3, max_refs=2)
    flags = ["-n", "2", "-w", "1.2", "-2", "4", "-U"]
    args = rouge155_args(flags)
    res = rouge155(hyps, refs, **args.kwargs)
    for t in (0, 1):
        text = _perl_averages(perl_rouge, tmp_path / f"t{t}", hyps, refs, flags + ["-t", str(t), "-r", "50"])
        got = perl_average(res, t=t, n_samples=50)
        for m in args.kwargs["metrics"]:
            want = text[script_metric_name(m)]
            assert (got[m].recall, got[m].precision, got[m].fmeasure) == want, (t, m)
    exact = perl_average(res, t=1, n_samples=0)["rouge1"]
    st = res.stats["rouge1"]
    assert exact.recall == float(perl_round5(st.hits.sum() / st.r_den.sum()))


def _perl_averages(perl_rouge, workdir, hyps, refs, flags):
    """Run the script once on all pairs as one system and read its Average lines."""
    import re

    out = perl_rouge.run(hyps, refs, flags, workdir=workdir)
    vals = {}
    for metric, k, v in re.findall(r"^1 (ROUGE-\S+) Average_([RPF]): (\S+)", out, re.M):
        vals.setdefault(metric, {})[k] = float(v)
    return {m: (d["R"], d["P"], d["F"]) for m, d in vals.items()}
