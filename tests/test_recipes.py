"""The Dask and Spark recipes of docs/recipes.md, run as written (local clusters, loopback only)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")

from vecscore.io.arrow import score_table  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")
DOC = Path(__file__).resolve().parents[1] / "docs" / "recipes.md"
WORDS = "the a cat dog sat on mat rug and with big small red ran home".split()


def _recipe(name: str) -> str:
    """The python code block under the heading that contains ``name``."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split(f"## {name}", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def _pairs(n=400, seed=9):
    rng = np.random.default_rng(seed)
    text = lambda: " ".join(rng.choice(WORDS, size=rng.integers(1, 14)))  # noqa: E731
    return pa.table({"id": np.arange(n), "hyp": [text() for _ in range(n)], "ref": [text() for _ in range(n)]})


def _check(result_df, table):
    local = score_table(table, metrics=["rouge1", "rougeL"], stats=True).to_pandas()
    got = result_df.sort_values("id").reset_index(drop=True)
    for c in ("rouge1_fmeasure", "rougeL_precision", "rougeL_hits"):
        assert got[c].to_numpy().tobytes() == local[c].to_numpy().tobytes(), c


def test_dask_map_partitions_recipe(tmp_path):
    pytest.importorskip("dask.dataframe", reason="the Dask recipe needs dask[dataframe]")
    table = _pairs()
    table.to_pandas().to_parquet(tmp_path / "pairs.parquet")
    scope = {"PATH": str(tmp_path / "pairs.parquet")}
    exec(_recipe("Dask"), scope)  # noqa: S102 - the documented recipe, verbatim
    _check(scope["scored"], table)
    assert scope["corpus"]["rouge1"]["fmeasure"] == pytest.approx(scope["scored"]["rouge1_fmeasure"].mean(), abs=1e-12)


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
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    table = _pairs(300)
    table.to_pandas().to_parquet(tmp_path / "pairs.parquet")
    scope = {"PATH": str(tmp_path / "pairs.parquet")}
    exec(_recipe("Spark"), scope)  # noqa: S102
    try:
        _check(scope["scored"], table)
    finally:
        scope["spark"].stop()
