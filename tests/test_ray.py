"""Ray Data integration: distributed scoring equals local scoring, bit for bit (Ray on loopback)."""
from __future__ import annotations

import os
import shutil
import tempfile

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="Ray Data is optional (pip install 'vecscore[ray]')")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

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

    n = 3000
    refs = [[text() for _ in range(rng.integers(1, 4))] for _ in range(n)]
    return pa.table({"id": np.arange(n), "hyp": [text() for _ in range(n)], "refs": refs})


def test_distributed_equals_local(ray_local, tmp_path, pairs_table):
    for i, start in enumerate(range(0, pairs_table.num_rows, 700)):
        pq.write_table(pairs_table.slice(start, 700), tmp_path / f"part-{i:02d}.parquet")
    ds = ray.data.read_parquet(str(tmp_path))
    scored = score_dataset(ds, ref_columns="refs", metrics=METRICS, stats=True, batch_size=257, num_actors=2,
                           num_cpus_per_actor=0.5)
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
