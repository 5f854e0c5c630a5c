"""Ray Data integration: distributed scoring equals local scoring, bit for bit; the docs' recipe runs as written.

One Ray cluster of 2 CPUs per module (loopback); the recipe of docs/recipes.md joins it from a fresh process
(``RAY_ADDRESS``), as it would join a user's cluster, and its scores are checked against rouge-score and sacreBLEU.
"""
from __future__ import annotations

import os
import shutil
import tempfile

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="Ray Data is optional (pip install 'vecscore[ray]')")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")

from tests.recipe_runner import check_rows, oracle, recipe, run_recipe, write_pairs  # noqa: E402
from vecscore.errors import VecscoreError  # noqa: E402
from vecscore.integrations.ray import corpus_score, score_dataset  # noqa: E402
from vecscore.io.arrow import score_table  # noqa: E402
from vecscore.io.stream import make_spec, score_corpus  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")
METRICS = ["rouge1", "rouge2", "rougeL", "rougeLsum", "bleu"]
WORDS = "the a cat dog sat on mat rug and with big small red . , ran home".split()


@pytest.fixture(scope="module")
def ray_local():
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"  # never attempt telemetry upload
    tmp = tempfile.mkdtemp(prefix="rv", dir="/tmp")  # SHORT: AF_UNIX socket paths must stay under 107 bytes
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _temp_dir=tmp,
             configure_logging=False, ignore_reinit_error=True)
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    yield ray
    ray.shutdown()
    shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="module")
def pairs_table():
    rng = np.random.default_rng(11)

    def text():
        return "\n".join(" ".join(rng.choice(WORDS, size=rng.integers(0, 15))) for _ in range(rng.integers(1, 3)))

    n = 1200
    refs = [[text() for _ in range(rng.integers(1, 4))] for _ in range(n)]
    return pa.table({"id": np.arange(n), "hyp": [text() for _ in range(n)], "refs": refs})


def test_distributed_equals_local(ray_local, tmp_path, pairs_table):
    for i, start in enumerate(range(0, pairs_table.num_rows, 300)):
        pq.write_table(pairs_table.slice(start, 300), tmp_path / f"part-{i:02d}.parquet")
    ds = ray.data.read_parquet(str(tmp_path))
    scored = score_dataset(ds, ref_columns="refs", metrics=METRICS, stats=True, batch_size=257, num_actors=2,
                           num_cpus_per_actor=0.5).materialize()
    out = scored.to_pandas().sort_values("id").reset_index(drop=True)
    local = score_table(pairs_table, ref_columns="refs", metrics=METRICS, stats=True).to_pandas()
    assert list(out.columns) == list(local.columns)
    for c in local.columns:
        if c in ("hyp", "refs"):
            continue
        a, b = out[c].to_numpy(), local[c].to_numpy()
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), c

    spec = make_spec(METRICS)
    dist = corpus_score(scored, spec=spec, batch_size=333)
    ref = score_corpus(pairs_table["hyp"].to_pylist(), pairs_table["refs"].to_pylist(), spec, chunk_size=1000)
    dist.pop("signature"), ref.pop("signature")
    assert dist == ref  # exact means, micro ROUGE and corpus BLEU from summed int64 statistics
    assert ref["BLEU"]["counts"][0] == int(local["bleu_correct_1"].sum())


def test_recipe_as_written(ray_local, tmp_path):
    """docs/recipes.md's Ray block, verbatim, on this 2-CPU cluster: it finishes, and its numbers are the oracles'."""
    hyps, refs = write_pairs(tmp_path, seed=12)
    env = {"RAY_ADDRESS": ray.get_runtime_context().gcs_address}  # the recipe's ray.init() joins the test cluster
    code = recipe("Ray Data", {"pairs/": tmp_path / "pairs", "kept/": tmp_path / "kept"})
    got = run_recipe(code, tmp_path, {"scored": "scored.to_pandas()"}, timeout=240, env=env)
    want = oracle(hyps, refs)
    columns = [f"{m}_{k}" for m in ("rouge1", "rougeL") for k in ("precision", "recall", "fmeasure")]
    check_rows(got["scored"], want, [*columns, "bleu_score"])
    kept = pd.read_parquet(tmp_path / "kept")
    assert sorted(kept["id"]) == [i for i, f in enumerate(want["rougeL_fmeasure"]) if f >= 0.3]
    printed = got["stdout"]  # the recipe prints corpus_score's summary; corpus BLEU as sacreBLEU's
    score = float(printed.split("'BLEU': {'name': 'BLEU', 'score': ", 1)[1].split(",", 1)[0])
    assert score == pytest.approx(want["corpus_bleu"], rel=0, abs=1e-9)


@pytest.mark.parametrize(("num_actors", "cpus_per_actor"), [(4, 1), (2, 1), ((3, 4), 0.5), (1, 2)])
def test_pool_larger_than_the_cluster_is_refused(ray_local, num_actors, cpus_per_actor):
    """Ray would start what fits and wait for ever; vecscore says what the 2-CPU cluster can hold instead."""
    ds = ray.data.range(4)
    with pytest.raises(VecscoreError, match=r"Ray cluster has 2 .*wait for ever"):
        score_dataset(ds, num_actors=num_actors, num_cpus_per_actor=cpus_per_actor)


@pytest.mark.parametrize(("num_actors", "cpus_per_actor"), [(0, 0.5), ((2, 1), 0.5), ("2", 0.5), (1, -1)])
def test_bad_pool_arguments(ray_local, num_actors, cpus_per_actor):
    with pytest.raises(VecscoreError, match="num_actors|num_cpus_per_actor"):
        score_dataset(ray.data.range(4), num_actors=num_actors, num_cpus_per_actor=cpus_per_actor)
