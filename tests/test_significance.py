"""vecscore.significance against sacreBLEU 2.6 itself: --confidence, --paired-bs, --paired-ar.

Expected values are computed here by sacreBLEU (``corpus_score(..., n_bootstrap=N)``,
``significance.PairedTest``) with the same seed, on WMT21 en-de (two references, so TER's average
reference lengths are not integers and take the float32 sequential-sum path), a few systems and the
first segments.  Every comparison is exact (``==``: same floats, same dtypes), not approximate.
"""
from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import data_file

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import BLEU as SacreBLEU  # noqa: E402
from sacrebleu.metrics import CHRF as SacreCHRF  # noqa: E402
from sacrebleu.metrics import TER as SacreTER  # noqa: E402
from sacrebleu.significance import PairedTest, _bootstrap_resample  # noqa: E402

import vecscore  # noqa: E402
from vecscore.significance import confidence_interval, paired_bootstrap, paired_randomization  # noqa: E402
from vecscore.significance import resample as rs  # noqa: E402
from vecscore.significance import scores as rows  # noqa: E402

SYSTEMS = ("Facebook-AI", "Online-W", "UEdin")
N_SEGMENTS = {"bleu": 300, "chrf": 300, "ter": 150}  # sacreBLEU's TER is the slow part


@pytest.fixture(scope="module")
def wmt21(shared_data):
    root = shared_data / "wmt21-news-systems" / "en-de"

    def read(*parts):
        return data_file(root, *parts).read_text(encoding="utf-8").split("\n")[:300]

    refs = [read(f"newstest2021.en-de.ref.{r}.de") for r in "AC"]
    hyps = {s: read("system-outputs", f"newstest2021.en-de.hyp.{s}.de") for s in SYSTEMS}
    return refs, hyps


def _metrics(name):
    if name == "bleu":
        return SacreBLEU(), vecscore.BLEU()
    if name == "chrf":
        return SacreCHRF(), vecscore.CHRF()
    return SacreTER(), vecscore.TER()


def _cut(wmt21, name):
    n = N_SEGMENTS[name]
    refs, hyps = wmt21
    return [r[:n] for r in refs], {s: h[:n] for s, h in hyps.items()}


def _same(a, b):
    """Equal values and equal types (float32 stays float32, as in sacreBLEU)."""
    if a is None or b is None:
        return a is b
    return a == b and np.asarray(a).dtype == np.asarray(b).dtype


@pytest.mark.parametrize("name", ["bleu", "chrf", "ter"])
def test_confidence_interval_equals_sacrebleu(wmt21, name, monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    refs, hyps = _cut(wmt21, name)
    sb, vm = _metrics(name)
    h = hyps["UEdin"]
    expected = sb.corpus_score(h, refs, n_bootstrap=500)
    got = confidence_interval(vm, h, refs, n_bootstrap=500)
    assert got.score == expected.score
    assert _same(got.mean, expected._mean) and _same(got.ci, expected._ci)
    assert got.seed == sb.seed == "12345"
    # every resample's score, bit for bit and dtype for dtype
    _, bs = _bootstrap_resample(sb._extract_corpus_statistics(h, refs), sb, 500)
    want = np.array([x.score for x in bs])
    assert want.dtype == got.scores.dtype and np.array_equal(want, got.scores)
    assert got.format() == expected.format(score_only=True)
    for short in (False, True):  # bs/seed fields in sacreBLEU's place; the version field is the package's own
        assert _unversioned(got.signature(short)) == _unversioned(sb.get_signature().format(short))


def _unversioned(sig):
    return sig.rsplit("|", 1)[0]


def test_confidence_interval_one_reference_ter(wmt21, monkeypatch):
    """One reference: TER's reference lengths are integers and take the count-matrix path."""
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    refs, hyps = _cut(wmt21, "ter")
    expected = SacreTER().corpus_score(hyps["Online-W"], refs[:1], n_bootstrap=300)
    got = confidence_interval(vecscore.TER(), hyps["Online-W"], refs[:1], n_bootstrap=300)
    assert (got.score, got.mean, got.ci) == (expected.score, expected._mean, expected._ci)
    assert type(got.mean) is type(expected._mean)


def test_confidence_seed_from_environment(wmt21, monkeypatch):
    refs, hyps = _cut(wmt21, "bleu")
    monkeypatch.setenv("SACREBLEU_SEED", "7")
    expected = SacreBLEU().corpus_score(hyps["Online-W"], refs, n_bootstrap=200)
    got = confidence_interval("bleu", hyps["Online-W"], refs, n_bootstrap=200)
    assert (got.mean, got.ci, got.seed) == (expected._mean, expected._ci, "7")
    explicit = confidence_interval("bleu", hyps["Online-W"], refs, n_bootstrap=200, seed=7)
    assert (explicit.mean, explicit.ci) == (got.mean, got.ci)
    other = confidence_interval("bleu", hyps["Online-W"], refs, n_bootstrap=200, seed=8)
    assert other.mean != got.mean


def _sacre_paired(name, refs, hyps, test, n, **kw):
    sb, _ = _metrics(name)
    named = [(s, hyps[s]) for s in SYSTEMS]
    sigs, res = PairedTest(named, {name: sb}, refs, test_type=test, n_samples=n, **kw)()
    key = next(k for k in res if k != "System")
    return key, res[key], sigs[key]


def _check_rows(key, expected, got):
    assert list(got.results) == [key]
    assert got.systems == ["baseline", *SYSTEMS[1:]]
    for e, g in zip(expected, got.results[key], strict=True):
        assert g.score == e.score
        assert _same(g.p_value, e.p_value)
        assert _same(g.mean, e.mean) and _same(g.ci, e.ci)


@pytest.mark.parametrize("name", ["bleu", "chrf", "ter"])
def test_paired_bootstrap_equals_sacrebleu(wmt21, name, monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    refs, hyps = _cut(wmt21, name)
    key, expected, sig = _sacre_paired(name, refs, hyps, "bs", 500)
    _, vm = _metrics(name)
    got = paired_bootstrap(vm, hyps[SYSTEMS[0]], {s: hyps[s] for s in SYSTEMS[1:]}, refs, n_samples=500)
    _check_rows(key, expected, got)
    assert got.test == "bs" and got.seed == "12345"
    for short in (False, True):
        assert _unversioned(got.signature(key, short)) == _unversioned(sig.format(short))


@pytest.mark.parametrize("name", ["bleu", "chrf", "ter"])
def test_paired_randomization_equals_sacrebleu(wmt21, name, monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    refs, hyps = _cut(wmt21, name)
    conf = 200 if name == "chrf" else -1  # sacreBLEU's n_ar_confidence (the CLI leaves it at -1)
    key, expected, sig = _sacre_paired(name, refs, hyps, "ar", 2000, n_ar_confidence=conf)
    _, vm = _metrics(name)
    got = paired_randomization(vm, hyps[SYSTEMS[0]], {s: hyps[s] for s in SYSTEMS[1:]}, refs, n_samples=2000,
                               confidence_samples=conf)
    _check_rows(key, expected, got)
    if conf > 0:
        assert all(r.mean is not None for r in got.results[key])
    for short in (False, True):
        assert _unversioned(got.signature(key, short)) == _unversioned(sig.format(short))


def test_several_metrics_and_json(wmt21, monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    refs, hyps = _cut(wmt21, "bleu")
    named = [(s, hyps[s]) for s in SYSTEMS]
    _, res = PairedTest(named, {"bleu": SacreBLEU(), "chrf": SacreCHRF()}, refs, test_type="bs", n_samples=300)()
    got = paired_bootstrap(["bleu", "chrf"], hyps[SYSTEMS[0]], {s: hyps[s] for s in SYSTEMS[1:]}, refs,
                           n_samples=300)
    for key in ("BLEU", "chrF2"):
        for e, g in zip(res[key], got.results[key], strict=True):
            assert g.as_dict() == {k: None if v is None else float(v) for k, v in e.__dict__.items()}
            cell = f"{e.score:.2f} ({e.mean:.2f} ± {e.ci:.2f})"
            if e.p_value is not None:
                cell += f" (p = {e.p_value:.4f})" + ("" if e.p_value > 0.05 else "*")
            assert g.format() == cell
    js = got.to_json()
    assert [j["system"] for j in js] == got.systems and set(js[1]) == {"system", "BLEU", "chrF2"}


# --- the vectorized pieces against plain loops, on random statistics -----------------------------


def _loop_sums(stats, idxs):
    """sacreBLEU's own loop: float32 statistics, one resample at a time."""
    s32 = np.array(stats, dtype="float32")
    return np.array([s32[row].sum(0) for row in idxs])


@pytest.mark.parametrize("kind", ["int", "float", "big"])
def test_resampled_sums_equal_plain_loop(kind):
    rng = np.random.default_rng(0)
    n = 257
    if kind == "int":
        stats = rng.integers(0, 60, size=(n, 6))
    elif kind == "float":  # e.g. TER's average reference length over 3 references
        stats = np.column_stack([rng.integers(0, 30, n), rng.integers(1, 90, n) / 3])
    else:  # column sums beyond 2**24: float32 rounding depends on the order
        stats = rng.integers(0, 2 ** 20, size=(n, 3))
    assert rs.float32_exact(stats) == (kind == "int")
    idxs = rs.bootstrap_indices(n, 120, np.random.default_rng(5))
    got = rs.resampled_sums(stats, idxs)
    want = _loop_sums(stats, idxs)
    assert got.dtype == want.dtype == np.float32 and np.array_equal(got, want)
    counts = rs.resample_counts(idxs, n)
    assert counts.sum(axis=1).tolist() == [n] * 120
    assert np.array_equal(counts[3], np.bincount(idxs[3], minlength=n))
    exact = rs.resampled_sums(stats, idxs, float32=False)
    assert np.array_equal(exact, np.array([stats[r].sum(0) for r in idxs], dtype=np.float64))


def test_randomized_sums_equal_sacrebleu_expression():
    rng = np.random.default_rng(1)
    bl, sy = rng.integers(0, 50, size=(99, 4)), rng.integers(0, 50, size=(99, 4))
    masks = rs.randomization_masks(99, 64, np.random.default_rng(2))
    a, b = rs.randomized_sums(bl.tolist(), sy.tolist(), masks)
    assert np.array_equal(a, masks @ bl + ~masks @ sy) and np.array_equal(b, ~masks @ bl + masks @ sy)


@pytest.mark.parametrize("smooth", ["exp", "floor", "add-k", "none"])
@pytest.mark.parametrize("effective_order", [False, True])
def test_bleu_rows_equal_sacrebleu_formula(smooth, effective_order):
    rng = np.random.default_rng(3)
    rows_ = 400
    total = np.sort(rng.integers(0, 40, size=(rows_, 4)), axis=1)[:, ::-1]  # fewer n-grams for higher n
    correct = (total * rng.random((rows_, 4)) * rng.integers(0, 2, size=(rows_, 4))).astype(np.int64)
    correct[:20] = 0  # early stop rows
    sys_len = total[:, 0]
    ref_len = np.maximum(0, sys_len + rng.integers(-8, 8, rows_))
    sums = np.column_stack([sys_len, ref_len, correct, total])
    sb = SacreBLEU(smooth_method=smooth, effective_order=effective_order)
    vm = vecscore.BLEU(smooth_method=smooth, effective_order=effective_order)
    from vecscore.significance._metric import adapt
    a = adapt(vm)
    for dtype in (np.float32, np.int64):  # bootstrap rows, AR rows
        s = sums.astype(dtype)
        want = np.array([sb._compute_score_from_stats(row).score for row in s.copy()])
        got = a.rows(s)
        assert want.dtype == got.dtype and np.array_equal(want, got), (dtype, np.flatnonzero(want != got)[:5])


@pytest.mark.parametrize("eps_smoothing", [False, True])
def test_chrf_rows_equal_sacrebleu_formula(eps_smoothing):
    rng = np.random.default_rng(4)
    r = 300
    h = rng.integers(0, 500, size=(r, 6))
    ref = rng.integers(0, 500, size=(r, 6))
    m = (np.minimum(h, ref) * rng.random((r, 6))).astype(np.int64)
    m[::7, 2] = 0  # zero-match orders (F of that order: eps)
    sums = np.stack([h, ref, m], axis=2).reshape(r, 18)
    sb = SacreCHRF(eps_smoothing=eps_smoothing)
    regular = sums.copy()
    regular[:, 0::3] = np.maximum(regular[:, 0::3], 1)
    regular[:, 1::3] = np.maximum(regular[:, 1::3], 1)
    for case in (regular, sums):  # float32 throughout / some rows mixing sacreBLEU's Python-float eps
        for dtype in (np.float32, np.int64):
            s = case.astype(dtype)
            want = np.array([sb._compute_score_from_stats(row).score for row in s])
            got = rows.chrf_rows(s, beta=2, eps_smoothing=eps_smoothing)
            assert want.dtype == got.dtype and np.array_equal(want, got)


def test_ter_rows_equal_sacrebleu_formula():
    rng = np.random.default_rng(6)
    s = np.column_stack([rng.integers(0, 90, 200), rng.integers(1, 300, 200) / 3])
    for dtype in (np.float32, np.float64):
        x = s.astype(dtype)
        want = np.array([SacreTER()._compute_score_from_stats(row).score for row in x])
        got = rows.ter_rows(x)
        assert want.dtype == got.dtype and np.array_equal(want, got)


def test_marks_and_errors():
    from vecscore.errors import VecscoreError
    from vecscore.significance import SystemResult
    assert SystemResult(1.0, 0.05).mark == "*" and SystemResult(1.0, 0.0501).mark == ""
    assert SystemResult(1.0).mark == ""
    assert rs.resolve_seed("none") == ("none", None) and rs.resolve_seed(3) == ("3", 3)
    with pytest.raises(VecscoreError):
        confidence_interval("bleu", ["a"], [["a"]], n_bootstrap=1)
    with pytest.raises(VecscoreError):
        confidence_interval("meteor", ["a"], [["a"]])


def test_entropy_seed_runs_and_is_labelled(wmt21, monkeypatch):
    """SACREBLEU_SEED=none: fresh OS entropy for every draw (nothing to compare with sacreBLEU bit for bit)."""
    monkeypatch.setenv("SACREBLEU_SEED", "None")
    refs, hyps = _cut(wmt21, "bleu")
    systems = [(s, hyps[s]) for s in SYSTEMS[1:]]  # pairs work as well as a dict
    got = paired_bootstrap("bleu", hyps[SYSTEMS[0]], systems, refs, n_samples=100)
    assert got.seed == "none" and "seed:none" in got.signature("BLEU")
    for r in got.results["BLEU"][1:]:
        assert 0 < r.p_value <= 1 and r.ci > 0
    ar = paired_randomization("bleu", hyps[SYSTEMS[0]], systems, refs, n_samples=100, seed=None)
    assert ar.seed == "none" and all(r.mean is None for r in ar.results["BLEU"])


def test_several_metrics_randomization_with_confidence(wmt21, monkeypatch):
    """AR with n_ar_confidence: the system's bootstrap is drawn after the masks, the baseline's afresh."""
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    refs, hyps = _cut(wmt21, "bleu")
    named = [(s, hyps[s]) for s in SYSTEMS]
    _, res = PairedTest(named, {"bleu": SacreBLEU(), "chrf": SacreCHRF()}, refs, test_type="ar", n_samples=500,
                        n_ar_confidence=100)()
    got = paired_randomization([vecscore.BLEU(), vecscore.CHRF()], hyps[SYSTEMS[0]],
                               {s: hyps[s] for s in SYSTEMS[1:]}, refs, n_samples=500, confidence_samples=100)
    for key in ("BLEU", "chrF2"):
        assert [(r.score, r.p_value, r.mean, r.ci) for r in got.results[key]] == \
            [(r.score, r.p_value, r.mean, r.ci) for r in res[key]]
