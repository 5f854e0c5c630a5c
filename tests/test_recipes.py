"""The Dask and Spark recipes of docs/recipes.md, run as written on this machine, checked against the oracles.

Each recipe runs verbatim in a fresh process (tests/recipe_runner.py) in a folder holding ``pairs/``, and is
killed and failed if it does not finish within its timeout.  Per-pair scores are compared with rouge-score and
sacreBLEU on the same rows; the Ray recipe's test is in tests/test_ray.py (it shares that module's cluster).
"""
from __future__ import annotations

import math
import shutil
import subprocess

import pytest

from tests.recipe_runner import check_rows, oracle, recipe, run_recipe, write_pairs

pytest.importorskip("pyarrow")
pytestmark = pytest.mark.filterwarnings("ignore")
ROUGE_COLUMNS = [f"{m}_{k}" for m in ("rouge1", "rougeL") for k in ("precision", "recall", "fmeasure")]


def _mean(values) -> float:
    return math.fsum(values) / len(values)


def test_dask_map_partitions_recipe(tmp_path):
    pytest.importorskip("dask.dataframe", reason="the Dask recipe needs dask[dataframe]")
    hyps, refs = write_pairs(tmp_path)
    got = run_recipe(recipe("Dask"), tmp_path, {"scored": "scored", "corpus": "corpus"}, timeout=120)
    want = oracle(hyps, refs)
    check_rows(got["scored"], want, ROUGE_COLUMNS)
    for m in ("rouge1", "rougeL"):
        for k in ("precision", "recall", "fmeasure"):
            assert got["corpus"][m][k] == pytest.approx(_mean(want[f"{m}_{k}"]), rel=0, abs=1e-12), (m, k)
    assert got["corpus"]["n_pairs"] == len(hyps)


def _java_ok() -> bool:
    java = shutil.which("java")
    if not java:
        return False
    try:
        return subprocess.run([java, "-version"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def test_spark_map_in_arrow_recipe(tmp_path):
    pytest.importorskip("pyspark", reason="the Spark recipe needs pyspark (and Java 17+)")
    if not _java_ok():
        pytest.skip("the Spark recipe needs a Java runtime (java -version failed)")
    hyps, refs = write_pairs(tmp_path, seed=10)
    # the JVM's quick start for a short job (the recipe itself unchanged): about half the test's time
    env = {"JAVA_TOOL_OPTIONS": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}
    got = run_recipe(recipe("Spark") + "\nspark.stop()\n", tmp_path, {"scored": "scored"}, timeout=240, env=env)
    want = oracle(hyps, refs)
    check_rows(got["scored"], want, ROUGE_COLUMNS)
    assert got["scored"].columns.tolist()[:3] == ["id", "hyp", "ref"]


def test_recipe_blocks_are_the_documented_ones():
    """The runner reads the one python block of each engine's section, the code users copy."""
    for heading, marker in (("Ray Data", "score_dataset("), ("Dask", "map_partitions("), ("Spark", "mapInArrow(")):
        code = recipe(heading)
        assert marker in code and '"pairs/"' in code, heading
