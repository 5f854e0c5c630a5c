"""Bootstrap intervals and paired tests of coco-caption's metrics (vecscore.significance.CocoMetric).

Expected values come from pycocoevalcap (the oracle) run on explicitly resampled item sets: BLEU is its corpus
BLEU of the drawn items (bit for bit), ROUGE-L the mean of its per-item scores on the drawn items (bit for bit),
CIDEr-D the mean of its per-item scores on the whole set (document frequencies fixed), drawn the same way.
"""
from __future__ import annotations

import statistics
import subprocess
import sys

import numpy as np
import pytest

from tests.conftest import e2e_nlg
from vecscore.errors import VecscoreError
from vecscore.significance import CocoMetric, confidence_interval, paired_bootstrap, paired_randomization
from vecscore.significance import resample as rs
from vecscore.significance._metric import adapt
from vecscore.significance.coco import COCO_METRICS, coco_batch, coco_item_stats

oracle_bleu = pytest.importorskip("pycocoevalcap.bleu.bleu")
oracle_rouge = pytest.importorskip("pycocoevalcap.rouge.rouge")
oracle_cider = pytest.importorskip("pycocoevalcap.cider.cider")

N_ITEMS = 80
N_BOOT = 20


@pytest.fixture(scope="module")
def e2e(shared_data):
    refs, systems = e2e_nlg(shared_data)
    return refs[:N_ITEMS], {name: systems[name][:N_ITEMS] for name in ("tgen", "sheff1")}


def _draws(n_items: int, n: int, seed: int) -> np.ndarray:
    """sacreBLEU's bootstrap draw, which vecscore's machinery makes: ``default_rng(seed).choice(N, (n, N))``."""
    return np.random.default_rng(seed).choice(n_items, size=(n, n_items), replace=True)


def _sacrebleu_estimate(scores):
    """sacreBLEU's ``estimate_ci``: statistics.mean and half of the spread of the 2.5% / 97.5% order statistics."""
    s = sorted(scores)
    lo = len(s) // 40
    return statistics.mean(s), 0.5 * (s[len(s) - lo - 1] - s[lo])


def _resampled_dicts(hyps, refs, idx):
    return {j: list(refs[i]) for j, i in enumerate(idx.tolist())}, {j: [hyps[i]] for j, i in enumerate(idx.tolist())}


def test_identity_resample_gives_the_point_estimate(e2e):
    refs, systems = e2e
    hyps = systems["tgen"]
    stats = coco_item_stats(coco_batch(hyps, refs, tokenize=False), list(COCO_METRICS))
    for m in COCO_METRICS:
        a = adapt(CocoMetric(m, tokenize=False))
        r = a.resampler(stats[m])
        identity = np.arange(N_ITEMS)[None, :]
        counts = rs.resample_counts(identity, N_ITEMS)
        sums = counts.astype(r.dtype) @ r.values if isinstance(r, rs.Linear) else r(identity, counts)
        assert a.rows(sums)[0] == a.corpus(stats[m]), m
    # the point estimates are pycocoevalcap's corpus values
    gts, res = {i: r for i, r in enumerate(refs)}, {i: [h] for i, h in enumerate(hyps)}
    bleu, _ = oracle_bleu.Bleu(4).compute_score(gts, res, verbose=0)
    for k in range(4):
        assert adapt(CocoMetric(f"Bleu_{k + 1}")).corpus(stats[f"Bleu_{k + 1}"]) == bleu[k]
    assert adapt(CocoMetric("ROUGE_L")).corpus(stats["ROUGE_L"]) == oracle_rouge.Rouge().compute_score(gts, res)[0]
    assert adapt(CocoMetric("CIDEr")).corpus(stats["CIDEr"]) == pytest.approx(
        oracle_cider.Cider().compute_score(gts, res)[0], abs=1e-12)


def test_bleu_interval_equals_pycocoevalcap_on_resampled_items(e2e):
    refs, systems = e2e
    hyps = systems["sheff1"]
    draws = _draws(N_ITEMS, N_BOOT, 2024)
    oracle = [oracle_bleu.Bleu(4).compute_score(*_resampled_dicts(hyps, refs, idx), verbose=0)[0] for idx in draws]
    for k in range(4):
        ci = confidence_interval(CocoMetric(f"Bleu_{k + 1}", tokenize=False), hyps, refs, n_bootstrap=N_BOOT,
                                 seed=2024)
        want = [o[k] for o in oracle]
        assert ci.scores.tolist() == want  # bit for bit, resample by resample
        mean, half = _sacrebleu_estimate(want)
        assert (ci.mean, ci.ci) == (mean, half)
        assert ci.signature() == f"Bleu_{k + 1}|tok:none|bs:{N_BOOT}|seed:2024|" + ci.signature().rsplit("|", 1)[1]


def test_bleu_resamples_are_sums_of_item_stats(e2e):
    """The same resample scores from BleuStats.take on the drawn rows (the per-item counts, summed)."""
    from vecscore.coco import bleu as _bleu
    from vecscore.coco.items import items

    refs, systems = e2e
    hyps = systems["tgen"]
    st = _bleu.bleu_stats(items(hyps, refs), 4)
    draws = _draws(N_ITEMS, 10, 5)
    ci = confidence_interval(CocoMetric("Bleu_4", tokenize=False), hyps, refs, n_bootstrap=10, seed=5)
    assert ci.scores.tolist() == [_bleu.corpus_scores(st.take(idx))[3] for idx in draws]


def test_rouge_l_and_cider_intervals_equal_the_oracle_per_item_scores(e2e):
    refs, systems = e2e
    hyps = systems["tgen"]
    draws = _draws(N_ITEMS, N_BOOT, 99)
    # ROUGE-L: pycocoevalcap on each explicitly resampled set (its np.mean over the drawn items)
    want = [oracle_rouge.Rouge().compute_score(*_resampled_dicts(hyps, refs, idx))[0] for idx in draws]
    ci = confidence_interval(CocoMetric("ROUGE_L", tokenize=False), hyps, refs, n_bootstrap=N_BOOT, seed=99)
    assert ci.scores.tolist() == [float(w) for w in want]
    assert (ci.mean, ci.ci) == _sacrebleu_estimate([float(w) for w in want])
    # CIDEr-D: document frequencies of the whole reference set, per-item scores resampled
    gts, res = {i: r for i, r in enumerate(refs)}, {i: [h] for i, h in enumerate(hyps)}
    per_item = oracle_cider.Cider().compute_score(gts, res)[1]
    want = [float(np.mean(per_item[idx])) for idx in draws]
    ci = confidence_interval(CocoMetric("CIDEr", tokenize=False), hyps, refs, n_bootstrap=N_BOOT, seed=99)
    np.testing.assert_allclose(ci.scores, want, rtol=0, atol=1e-12)
    mean, half = _sacrebleu_estimate(want)
    assert ci.mean == pytest.approx(mean, abs=1e-12) and ci.ci == pytest.approx(half, abs=1e-12)


def test_seeded_intervals_are_reproducible(e2e, monkeypatch):
    refs, systems = e2e
    hyps = systems["tgen"]
    for m in ("Bleu_4", "ROUGE_L", "CIDEr"):
        a = confidence_interval(CocoMetric(m, tokenize=False), hyps, refs, n_bootstrap=50, seed=7)
        b = confidence_interval(CocoMetric(m, tokenize=False), hyps, refs, n_bootstrap=50, seed=7)
        c = confidence_interval(CocoMetric(m, tokenize=False), hyps, refs, n_bootstrap=50, seed=8)
        assert a.scores.tolist() == b.scores.tolist() and (a.mean, a.ci) == (b.mean, b.ci)
        assert a.scores.tolist() != c.scores.tolist()
    monkeypatch.setenv("SACREBLEU_SEED", "7")  # the default seed is sacreBLEU's
    d = confidence_interval(CocoMetric("CIDEr", tokenize=False), hyps, refs, n_bootstrap=50)
    assert d.scores.tolist() == a.scores.tolist() and d.seed == "7"


def test_paired_bootstrap_and_randomization(e2e):
    refs, systems = e2e
    base, other = systems["tgen"], systems["sheff1"]
    metrics = [CocoMetric(m, tokenize=False) for m in ("Bleu_4", "ROUGE_L", "CIDEr")]
    res = paired_bootstrap(metrics, base, {"sheff1": other}, refs, n_samples=N_BOOT, seed=11)
    assert list(res.results) == ["Bleu_4", "ROUGE_L", "CIDEr"]
    draws = _draws(N_ITEMS, N_BOOT, 11)
    gts = {i: x for i, x in enumerate(refs)}
    for row, hyps in enumerate((base, other)):  # the scores: pycocoevalcap's corpus BLEU-4
        assert res.results["Bleu_4"][row].score == oracle_bleu.Bleu(4).compute_score(
            gts, {i: [h] for i, h in enumerate(hyps)}, verbose=0)[0][3]
    # the baseline's bootstrap estimate: pycocoevalcap on each resampled item set, the paired tests' formula
    # (numpy mean of the sorted scores, half the spread of the 2.5% / 97.5% order statistics)
    want = [oracle_bleu.Bleu(4).compute_score(*_resampled_dicts(base, refs, idx), verbose=0)[0][3] for idx in draws]
    s = np.sort(want)
    assert res.results["Bleu_4"][0].mean == s.mean()
    assert res.results["Bleu_4"][0].ci == 0.5 * (s[N_BOOT - N_BOOT // 40 - 1] - s[N_BOOT // 40])
    p = res.results["CIDEr"][1].p_value
    assert 0 < p <= 1 and res["sheff1"]["ROUGE_L"].p_value is not None
    assert res.signature("CIDEr").startswith("CIDEr|tok:none|df:refs|sigma:6|bs:20|seed:11")
    ar = paired_randomization([metrics[0], metrics[2]], base, {"sheff1": other}, refs, n_samples=64, seed=3)
    assert ar.results["Bleu_4"][1].score == res.results["Bleu_4"][1].score
    assert 0 < ar.results["CIDEr"][1].p_value <= 1
    # a system against itself: no trial differs more than the actual difference (0), so sacreBLEU's formula
    # gives (0 + 1) / (n + 1)
    same = paired_randomization([CocoMetric("CIDEr", tokenize=False)], base, {"copy": list(base)}, refs,
                                n_samples=32, seed=3)
    assert same.results["CIDEr"][1].p_value == 1 / 33


def test_names_options_and_errors(e2e):
    refs, systems = e2e
    hyps = systems["tgen"][:10]
    assert repr(CocoMetric("cider", tokenize=False)) == "CocoMetric('CIDEr', tokenize=False)"
    a = confidence_interval("Bleu_4", hyps, refs[:10], n_bootstrap=5, seed=1)  # a name: tokenized as coco does
    assert a.signature().startswith("Bleu_4|tok:ptb|")
    with pytest.raises(VecscoreError, match="unknown coco-caption metric"):
        CocoMetric("SPICE")
    with pytest.raises(VecscoreError, match="Bleu_1 .. Bleu_4, METEOR, ROUGE_L, CIDEr"):
        adapt("SPICE")
    with pytest.raises(VecscoreError, match="at least one reference"):
        confidence_interval(CocoMetric("CIDEr", tokenize=False), hyps[:2], [["a b"], []], n_bootstrap=5)
    # streams with a missing reference (None), and the command line's lines (an empty reference: none)
    streams = [[r[0] for r in refs[:10]], [r[1] if len(r) > 1 else None for r in refs[:10]]]
    s = confidence_interval(CocoMetric("Bleu_4", tokenize=False, refs_layout="streams"), hyps, streams,
                            n_bootstrap=5, seed=1)
    lines = [streams[0], [x or "" for x in streams[1]]]
    t = confidence_interval(CocoMetric("Bleu_4", tokenize=False, refs_layout="streams", lines=True), hyps, lines,
                            n_bootstrap=5, seed=1)
    assert s.score == t.score and s.scores.tolist() == t.scores.tolist()


def test_no_numba_on_this_path():
    code = ("import sys\n"
            "from vecscore.significance import CocoMetric, confidence_interval, paired_bootstrap\n"
            "h = ['a man rides a horse', 'two dogs play', 'a cat']\n"
            "r = [['a man is riding a horse', 'a person rides a horse'], ['dogs play'], ['a cat sleeps', 'cat']]\n"
            "for m in ('Bleu_4', 'ROUGE_L', 'CIDEr'):\n"
            "    confidence_interval(CocoMetric(m, tokenize=False), h, r, n_bootstrap=20)\n"
            "paired_bootstrap(['Bleu_4', 'CIDEr'], h, {'o': ['a horse', 'dogs', 'cat']}, r, n_samples=20)\n"
            "print('numba' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# --- METEOR: the corpus score of the drawn items' summed statistics ------------------------------------------------


def test_meteor_summands_sum_as_the_jar_sums(e2e):
    """Any resample's summed rows are vecscore.meteor.stats.corpus_stats of the drawn items (the jar's EVAL sum: an
    item matched perfectly in one chunk adds no chunk), and its score the corpus score of those items."""
    from vecscore.meteor import meteor
    from vecscore.meteor.stats import corpus_stats
    from vecscore.significance.coco import meteor_corpus, meteor_rows, meteor_summands

    refs, systems = e2e
    hyps = list(systems["tgen"][:40])
    hyps[:5] = [refs[i][0] for i in range(5)]  # perfect matches, one chunk each
    result = meteor(hyps, refs[:40], normalize=True)
    assert (result.scores[:5] == 1.0).all() and (result.stats[:5, 20] == 1).all()
    summands = meteor_summands(result.stats)
    assert (summands[:5, 20] == 0).all() and np.array_equal(summands[5:], result.stats[5:])
    np.testing.assert_array_equal(meteor_rows(summands), result.scores)  # an item's score is unchanged
    assert meteor_corpus(summands) == meteor_corpus(result.stats) == result.score
    draws = _draws(40, 30, 3)
    counts = rs.resample_counts(draws, 40)
    sums = counts.astype(np.float64) @ summands
    for k, idx in enumerate(draws):
        np.testing.assert_array_equal(sums[k], corpus_stats(result.stats[idx]))
    ci = confidence_interval(CocoMetric("METEOR", tokenize=False), hyps, refs[:40], n_bootstrap=30, seed=3)
    assert ci.score == result.score
    assert ci.scores.tolist() == [meteor(
        [hyps[i] for i in idx], [refs[i] for i in idx], normalize=True).score for idx in draws]


def test_meteor_interval_equals_pycocoevalcap_on_resampled_items(e2e):
    """The point estimate is pycocoevalcap's Meteor on all items; every resample's score is its Meteor on the drawn
    items (one EVAL per resample, in one JVM); a seed gives the same interval every time."""
    from tests.meteor_jar import require_jar

    require_jar()
    from pycocoevalcap.meteor.meteor import Meteor as JarMeteor

    refs, systems = e2e
    n, n_boot = 30, 12  # the jar takes about 0.3 s per resample of 30 E2E items (1 to 45 references each)
    refs, hyps = refs[:n], systems["sheff1"][:n]
    draws = _draws(n, n_boot, 77)
    jar = JarMeteor()
    try:
        corpus, items = jar.compute_score({i: r for i, r in enumerate(refs)}, {i: [h] for i, h in enumerate(hyps)})
        want = [jar.compute_score(*_resampled_dicts(hyps, refs, idx))[0] for idx in draws]
    finally:
        del jar
    metric = CocoMetric("METEOR", tokenize=False)
    ci = confidence_interval(metric, hyps, refs, n_bootstrap=n_boot, seed=77)
    assert abs(ci.score - corpus) <= 1e-12
    np.testing.assert_allclose(ci.scores, want, rtol=0, atol=1e-12)
    mean, half = _sacrebleu_estimate(want)
    assert abs(ci.mean - mean) <= 1e-12 and abs(ci.ci - half) <= 1e-12
    again = confidence_interval(metric, hyps, refs, n_bootstrap=n_boot, seed=77)
    assert again.scores.tolist() == ci.scores.tolist() and (again.mean, again.ci) == (ci.mean, ci.ci)
    assert ci.signature().startswith(f"METEOR|tok:none|meteor:1.5-en-norm|bs:{n_boot}|seed:77|")
    # per item: the jar's values, from the same statistics
    from vecscore.significance.coco import per_item_scores

    stats = coco_item_stats(coco_batch(hyps, refs, tokenize=False), ["METEOR"])["METEOR"]
    np.testing.assert_allclose(per_item_scores("METEOR", stats), items, rtol=0, atol=1e-12)


def test_meteor_paired_tests(e2e):
    refs, systems = e2e
    base, other = systems["tgen"], systems["sheff1"]
    metric = CocoMetric("METEOR", tokenize=False)
    res = paired_bootstrap([metric, CocoMetric("Bleu_4", tokenize=False)], base, {"sheff1": other}, refs,
                           n_samples=N_BOOT, seed=11)
    single = confidence_interval(metric, other, refs, n_bootstrap=N_BOOT, seed=11)
    assert res.results["METEOR"][1].score == single.score
    assert 0 < res.results["METEOR"][1].p_value <= 1
    same = paired_randomization([metric], base, {"copy": list(base)}, refs, n_samples=32, seed=3)
    assert same.results["METEOR"][1].p_value == 1 / 33
    # "meteor" also names vecscore.meteor (no PTB tokenization) and NLTK's: only "METEOR" is coco-caption's
    with pytest.raises(VecscoreError, match="spelled 'METEOR'"):
        CocoMetric("meteor")
    ar = paired_randomization([metric], base, {"sheff1": other}, refs, n_samples=64, seed=3)
    assert ar.results["METEOR"][1].score == single.score and 0 < ar.results["METEOR"][1].p_value <= 1
