"""ROUGE confidence intervals against their oracles, bit for bit.

* :func:`vecscore.significance.rouge_bootstrap` against rouge-score 0.1.2's
  ``scoring.BootstrapAggregator``, run here on the same per-pair scores after the same
  ``np.random.seed``: a hand case and REALSumm (2,500 CNN/DM pairs, ../shared/data), both
  routes (NumPy and the kernels), several chunk sizes, confidences and metric orders; the
  global generator's state afterwards; the kernels' draws against ``RandomState.randint``.
* :func:`vecscore.significance.perl_intervals` against the 95% intervals ROUGE-1.5.5.pl prints:
  the stored outputs of the release's sample test (rouge155-sample-test/expected-output, made by
  the script as its SOURCE.md says), and the script run here (when Perl is available) with
  other ``-c``, ``-r`` and ``-t``.
"""
from __future__ import annotations

import importlib
import random
import re
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from rouge_score import rouge_scorer, scoring

import vecscore
import vecscore.significance.rouge_intervals as ri
from tests.conftest import data_file
from tests.corpora import realsumm
from tests.rouge155_sample import RUNS, score_run
from vecscore.errors import VecscoreError
from vecscore.rouge.results import RougeResult, Score
from vecscore.rouge.rouge155.api import rouge155, rouge155_args, script_metric_name
from vecscore.significance import perl_intervals, rouge_bootstrap

r155 = importlib.import_module("vecscore.rouge.rouge155.api")

TYPES = ["rouge1", "rouge2", "rougeL"]


# --------------------------------------------------------------------------------------
# rouge-score's BootstrapAggregator
# --------------------------------------------------------------------------------------


def _aggregate(per_pair: list[dict], order, n_samples: int, confidence: float, seed: int):
    """rouge-score's aggregate() of the per-pair scores (keys added in ``order``) after np.random.seed(seed);
    also the global generator's state afterwards."""
    agg = scoring.BootstrapAggregator(confidence_interval=confidence, n_samples=n_samples)
    for s in per_pair:
        agg.add_scores({k: s[k] for k in order})
    np.random.seed(seed)
    out = agg.aggregate()
    return out, np.random.get_state()


def _as_tuples(intervals, order):
    return {m: tuple(tuple(float(v) for v in score) for score in intervals[m]) for m in order}


def _same_state(a, b) -> bool:
    return a[0] == b[0] and np.array_equal(a[1], b[1]) and a[2:] == b[2:]


@pytest.fixture(scope="module")
def realsumm_scores(shared_data):
    hyps, refs = realsumm(shared_data)
    ours = vecscore.rouge(hyps, refs, metrics=TYPES)
    scorer = rouge_scorer.RougeScorer(TYPES)
    theirs = [scorer.score(r, h) for h, r in zip(hyps, refs)]
    # the premise: the same per-pair scores, bit for bit
    for m in TYPES:
        for f in ("precision", "recall", "fmeasure"):
            assert np.array_equal(getattr(ours[m], f), [getattr(t[m], f) for t in theirs]), (m, f)
    return ours, theirs


@pytest.mark.parametrize("route", ["plain", "compiled"])
def test_hand_case(route, monkeypatch):
    """The example of BootstrapAggregator's docstring plus two pairs, several seeds and confidences."""
    monkeypatch.setenv("VECSCORE_ROUTE", route)
    targets = ["one two three", "one two five six", "the cat sat on the mat", "a b c d"]
    preds = ["one two", "seven eight", "the cat sat", "a b c d"]
    scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"])
    theirs = [scorer.score(t, p) for t, p in zip(targets, preds)]
    ours = vecscore.rouge(preds, targets, metrics=["rouge1", "rougeL"])
    for seed, n_samples, conf in [(0, 1000, 0.95), (1, 7, 0.5), (2 ** 32 - 1, 100, 0.999)]:
        want, state = _aggregate(theirs, ["rouge1", "rougeL"], n_samples, conf, seed)
        got = rouge_bootstrap(ours, n_samples=n_samples, confidence=conf, seed=seed)
        assert _as_tuples(got, ["rouge1", "rougeL"]) == _as_tuples(want, ["rouge1", "rougeL"]), (seed, conf)
        # seed=None: np.random's own state, consumed exactly as rouge-score consumes it
        np.random.seed(seed)
        again = rouge_bootstrap(ours, n_samples=n_samples, confidence=conf)
        assert _same_state(np.random.get_state(), state)
        assert _as_tuples(again, ["rouge1", "rougeL"]) == _as_tuples(want, ["rouge1", "rougeL"])
    # not a symmetric interval around a mean: low < mid < high on this case, mid is the median
    iv = rouge_bootstrap(ours, seed=0)["rouge1"]
    assert iv.low.fmeasure < iv.mid.fmeasure < iv.high.fmeasure


@pytest.mark.parametrize("route", ["plain", "compiled"])
def test_realsumm_equals_bootstrap_aggregator(realsumm_scores, route, monkeypatch):
    monkeypatch.setenv("VECSCORE_ROUTE", route)
    ours, theirs = realsumm_scores
    want, state = _aggregate(theirs, TYPES, 1000, 0.95, 42)
    got = rouge_bootstrap(ours, n_samples=1000, confidence=0.95, seed=42)
    assert list(got) == TYPES
    assert _as_tuples(got, TYPES) == _as_tuples(want, TYPES)
    assert got.signature.endswith("|ci:rouge-score|bs:1000|conf:0.95|seed:42")
    # the global generator: advanced as by aggregate(), and untouched with an int seed
    np.random.seed(42)
    rouge_bootstrap(ours, n_samples=1000)
    assert _same_state(np.random.get_state(), state)
    np.random.seed(7)
    before = np.random.get_state()
    rouge_bootstrap(ours, n_samples=20, seed=42)
    assert _same_state(np.random.get_state(), before)


@pytest.mark.parametrize("route,chunk", [("plain", 4000), ("compiled", 4000), ("compiled", 2500 * 3 + 1),
                                         ("compiled", 1)])
def test_realsumm_chunks_orders_confidences(realsumm_scores, route, chunk, monkeypatch):
    """Chunks of 1, 2 or 3 resamples, another key order (rouge-score draws metric after metric, so
    the order matters), other confidences; a RandomState passed in is advanced as rouge-score's."""
    monkeypatch.setenv("VECSCORE_ROUTE", route)
    monkeypatch.setattr(ri, "CHUNK_DRAWS", chunk)
    monkeypatch.setattr(ri, "PLAIN_CHUNK_DRAWS", chunk)
    ours, theirs = realsumm_scores
    order = ["rougeL", "rouge1"]
    for n_samples, conf, seed in [(101, 0.9, 3), (10, 0.5, 11)]:
        want, state = _aggregate(theirs, order, n_samples, conf, seed)
        rs = np.random.RandomState(seed)
        got = rouge_bootstrap(ours, n_samples=n_samples, confidence=conf, seed=rs, metrics=order)
        assert list(got) == order
        assert _as_tuples(got, order) == _as_tuples(want, order), (n_samples, conf)
        assert _same_state(rs.get_state(), state)
    # and the default order differs from this one
    default = rouge_bootstrap(ours, n_samples=10, confidence=0.5, seed=11)
    assert default["rougeL"] != got["rougeL"]


def test_routes_and_samples_on_many_pairs(monkeypatch):
    """Beyond the corpora: 30,000 pairs (a block of 624 outputs is crossed mid-resample), both routes."""
    rng = np.random.default_rng(5)
    n = 30_000
    res = RougeResult({m: Score(rng.random(n), rng.random(n), rng.random(n)) for m in ("a", "b")})
    per_pair = [{m: scoring.Score(res[m].precision[i], res[m].recall[i], res[m].fmeasure[i]) for m in ("a", "b")}
                for i in range(n)]
    want, _ = _aggregate(per_pair, ["a", "b"], 30, 0.95, 9)
    for route in ("plain", "compiled"):
        monkeypatch.setenv("VECSCORE_ROUTE", route)
        assert _as_tuples(rouge_bootstrap(res, n_samples=30, seed=9), ["a", "b"]) == _as_tuples(want, ["a", "b"])


def test_kernels_draw_as_numpy():
    """legacy_randint_fill == RandomState.randint (same values, same state after), from any position;
    ordered_sample_means == np.mean over axis 0 of the gathered block."""
    from vecscore.kernels.rouge155 import MT_N, legacy_randint_fill, mt19937_temper_block, ordered_sample_means

    for n in (1, 2, 3, 7, 100, 2 ** 16, 2 ** 16 + 1, 100_003, 2 ** 31, 2 ** 31 + 1, 2 ** 32 - 1, 2 ** 32):
        for skip, count in ((0, 1), (5, 700), (623, 2000), (1000, 5)):
            rs = np.random.RandomState(n % 1000 + skip)
            rs.randint(0, 2 ** 32, size=skip, dtype=np.uint32)  # start mid-block
            st = rs.get_state()
            mt = st[1].copy()
            buf = np.empty(MT_N, np.uint32)
            mt19937_temper_block(mt, buf)
            out = np.empty(count, np.uint32)
            pos = legacy_randint_fill(mt, buf, st[2], n, out, count)
            want = rs.randint(0, n, size=count)
            assert np.array_equal(out.astype(np.int64), want), (n, skip, count)
            after = rs.get_state()
            assert np.array_equal(mt, after[1]) and pos == after[2], (n, skip)
    rng = np.random.default_rng(0)
    for cols in (3, 2):
        values = rng.random((1000, cols))
        idx = rng.integers(0, 1000, size=4 * 1000).astype(np.uint32)
        out = np.full((6, cols), np.nan)
        ordered_sample_means(values, idx, 4, out, 1)
        want = np.stack([np.mean(values[idx[s * 1000:(s + 1) * 1000]], axis=0) for s in range(4)])
        assert np.array_equal(out[1:5], want)
        assert np.isnan(out[0]).all() and np.isnan(out[5]).all()


@pytest.mark.parametrize("route", ["plain", "compiled"])
def test_memory_is_bounded_by_the_chunk(route, monkeypatch):
    """100,000 pairs x 200 resamples: a dense resample matrix would be 160 MB of float64 (and the
    gathered (200, N, 3) block 480 MB); the traced peak stays near the chunk buffers."""
    monkeypatch.setenv("VECSCORE_ROUTE", route)
    rng = np.random.default_rng(1)
    n = 100_000
    res = RougeResult({"rouge1": Score(rng.random(n), rng.random(n), rng.random(n))})
    rouge_bootstrap(res, n_samples=2, seed=0)  # compile / warm outside the trace
    tracemalloc.start()
    try:
        rouge_bootstrap(res, n_samples=200, seed=0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    dense = 200 * n * 8
    assert peak < dense / 4, f"peak {peak / 2 ** 20:.1f} MiB"


def test_errors():
    res = vecscore.rouge(["a b c"], ["a b d"], metrics=["rouge1"])
    for bad in (0, -5, 1.5, True, "100"):
        with pytest.raises(VecscoreError, match="n_samples"):
            rouge_bootstrap(res, n_samples=bad)
    for bad in (0, 1, 0.0, 1.0, -0.1, 95, float("nan"), "0.95"):
        with pytest.raises(VecscoreError, match="confidence"):
            rouge_bootstrap(res, confidence=bad)
    with pytest.raises(VecscoreError, match="did you mean 0.95"):
        rouge_bootstrap(res, confidence=95)
    with pytest.raises(VecscoreError, match="empty"):
        rouge_bootstrap(vecscore.rouge([], [], metrics=["rouge1"]))
    with pytest.raises(VecscoreError, match="at least one metric"):
        rouge_bootstrap(RougeResult({}))
    with pytest.raises(VecscoreError, match=r"\['rougeL'\] not in the result"):
        rouge_bootstrap(res, metrics=["rougeL"])
    for bad in (-1, 2 ** 32, 1.5, np.random.default_rng(0)):
        with pytest.raises(VecscoreError, match="seed"):
            rouge_bootstrap(res, seed=bad)
    with pytest.raises(VecscoreError, match="same pairs"):
        rouge_bootstrap({"a": Score(np.zeros(2), np.zeros(2), np.zeros(2)),
                         "b": Score(np.zeros(3), np.zeros(3), np.zeros(3))})
    with pytest.raises(VecscoreError, match="RougeResult"):
        rouge_bootstrap([1, 2, 3])  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------
# ROUGE-1.5.5.pl's printed intervals
# --------------------------------------------------------------------------------------

_CI = re.compile(r"^(\S+) (ROUGE-\S+) Average_([RPF]): (\S+) \((\S+)%-conf\.int\. (\S+) - (\S+)\)$", re.M)
_FIELD = {"R": "recall", "P": "precision", "F": "fmeasure"}


def _printed(text: str) -> dict:
    """{(peer, metric): {"recall": (average, low, high), ...}} from the script's output."""
    out: dict = {}
    for peer, metric, k, avg, _c, lo, hi in _CI.findall(text):
        out.setdefault((peer, metric), {})[_FIELD[k]] = (float(avg), float(lo), float(hi))
    return out


def _ours(iv) -> dict:
    return {f: (getattr(iv.average, f), getattr(iv.low, f), getattr(iv.high, f)) for f in _FIELD.values()}


@pytest.mark.usefixtures("db_good")
@pytest.mark.parametrize("stem,config,extra", RUNS, ids=[r[0] for r in RUNS])
def test_sample_test_printed_intervals(shared_data, stem, config, extra):
    """Every ``Average_X: v (95%-conf.int. lo - hi)`` line of the script's stored outputs (-c 95 -r 1000),
    scored as tests/test_rouge155_oracles.py scores them (its runs, its config reader and its
    ``db_good`` stemming database)."""
    root = data_file(shared_data, "rouge155-sample-test")
    args, scored = score_run(root, config, extra)
    want = _printed(data_file(root, "expected-output", f"{stem}-d.out").read_text())
    n = 0
    for peer, (eval_ids, res) in scored.items():
        got = perl_intervals(res, n_samples=args.resamples, c=95, eval_ids=eval_ids, peer_id=peer)
        for m in args.kwargs["metrics"]:
            assert _ours(got[m]) == want[(peer, script_metric_name(m))], (stem, peer, m)
            n += 1
    assert n == len(want) and n >= 8


_WORDS = ["the", "cat", "sat", "on", "mat", "a", "police", "killed", "gunman", "ran", "dog", "x", "y", "and"]


def _pairs(n: int, seed: int):
    rng = random.Random(seed)

    def text():
        return "\n".join(" ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 9)))
                         for _ in range(rng.randint(1, 3)))

    return [text() for _ in range(n)], [["zebra " + text() for _ in range(rng.randint(1, 2))] for _ in range(n)]


def _run_perl(perl_rouge, workdir: Path, hyps, refs, flags) -> dict:
    """The script on the pairs as one system (peer "1", EVAL IDs 1..N); its printed intervals."""
    out = perl_rouge.run(hyps, refs, flags, workdir=workdir)
    return _printed(out)


# (-c, -r, -t): the interpolation ratio is 0 at -c 95 -r 1000 but not at -r 50 or 37; -c 100 reads
# past the last sample (Perl's undef); -r 1 interpolates with a negative ratio
PERL_CASES = [("95", "1000", "0"), ("90", "50", "0"), ("99", "37", "1"), ("100", "20", "0"), ("0", "11", "1"),
              ("80", "1", "0"), ("97.5", "203", "1")]


@pytest.mark.parametrize("c,r,t", PERL_CASES, ids=[f"c{c}-r{r}-t{t}" for c, r, t in PERL_CASES])
def test_intervals_against_the_script(perl_rouge, tmp_path, c, r, t):
    hyps, refs = _pairs(23, seed=int(r))
    flags = ["-n", "2", "-w", "1.2", "-2", "4", "-U", "-c", c, "-r", r, "-t", t]
    want = _run_perl(perl_rouge, tmp_path / "run", hyps, refs, flags)
    args = rouge155_args(flags)
    res = rouge155(hyps, refs, **args.kwargs)
    got = perl_intervals(res, t=int(t), n_samples=int(r), c=float(c))
    assert len(want) == len(args.kwargs["metrics"]) == 6
    for m in args.kwargs["metrics"]:
        assert _ours(got[m]) == want[("1", script_metric_name(m))], (m, c, r, t)
    # the averages are perl_average's
    avg = r155.perl_average(res, t=int(t), n_samples=int(r))
    assert all(got[m].average == avg[m] for m in got)


def test_rounding_next_to_a_tie():
    """sprintf("%7.5f") of a mean on a decimal tie: (0.10003 + 0.10004) / 2 is 0.10003499999999999... in
    binary, which C's (and so Perl's) printf rounds down, although times 1e5 it is 10003.5."""
    x = np.array([0.10003, 0.10004])
    res = RougeResult({"rouge1": Score(x, x, x)})
    want = float("%.5f" % ((0.10003 + 0.10004) / 2))
    assert want == 0.10003
    assert r155.perl_average(res, n_samples=0)["rouge1"] == Score(want, want, want)


def test_perl_intervals_routes_and_errors(monkeypatch):
    hyps, refs = _pairs(40, seed=1)
    res = rouge155(hyps, refs, metrics=["rouge1", "rougeL"])
    monkeypatch.setenv("VECSCORE_ROUTE", "plain")
    plain = perl_intervals(res, n_samples=300, c=90)
    monkeypatch.setenv("VECSCORE_ROUTE", "compiled")
    assert perl_intervals(res, n_samples=300, c=90) == plain
    iv = plain["rouge1"]
    assert iv.low.recall <= iv.average.recall <= iv.high.recall and iv.low.recall < iv.high.recall
    for bad in (0, -1, 2.5, True):
        with pytest.raises(VecscoreError, match="n_samples"):
            perl_intervals(res, n_samples=bad)
    for bad in (-1, 100.5, "95"):
        with pytest.raises(VecscoreError, match="-c"):
            perl_intervals(res, c=bad)
    with pytest.raises(VecscoreError, match="t must be"):
        perl_intervals(res, t=2)
    with pytest.raises(VecscoreError, match="empty"):
        perl_intervals(rouge155([], [], metrics=["rouge1"]))
