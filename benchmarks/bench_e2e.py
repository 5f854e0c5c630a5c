"""End to end: a Parquet file of summary-length pairs scored through the ``vecscore`` command.

    python benchmarks/run.py e2e [--pairs 1000000]      (once registered in run.py)
    python benchmarks/bench_e2e.py [--pairs 1000000] [--chunk-size N] [--workers N]

The pairs come from :func:`benchmarks.corpus.summary_pairs` (about 50 tokens
a side) and are cached as ``/tmp/vecscore-e2e-<pairs>.parquet`` (generating a
million pairs takes a while).  The timed run is a subprocess

    vecscore rouge --input pairs.parquet --metrics rouge1 rouge2 rougeL
                   -o scores.parquet --summary summary.json --quiet

(per-pair scores written to Parquet, plus the corpus summary), after a
warm-up run on 1,000 pairs that loads the numba cache.  Reported: wall time,
peak RSS of the child (``getrusage(RUSAGE_CHILDREN)``), the numba thread
count, and the targets on a 2-core machine (20 s, 2 GB).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGET_WALL_S = 20.0
TARGET_RSS_GB = 2.0
METRICS = ("rouge1", "rouge2", "rougeL")


def pairs_parquet(n_pairs: int, *, seed: int = 0, cache_dir: str = "/tmp") -> Path:
    """A Parquet file with columns ``id``, ``hyp``, ``ref``; cached between runs."""
    path = Path(cache_dir) / f"vecscore-e2e-{n_pairs}-s{seed}.parquet"
    if path.exists():
        return path
    import pyarrow as pa
    import pyarrow.parquet as pq

    from benchmarks.corpus import summary_pairs

    t = time.perf_counter()
    tmp = path.with_suffix(".tmp")
    with pq.ParquetWriter(tmp, pa.schema([("id", pa.int64()), ("hyp", pa.string()), ("ref", pa.string())])) as w:
        step = 200_000
        for start in range(0, n_pairs, step):
            k = min(step, n_pairs - start)
            hyps, refs = summary_pairs(k, seed=seed * 1_000_003 + start)
            w.write_table(pa.table({"id": pa.array(range(start, start + k), pa.int64()), "hyp": hyps, "ref": refs}))
    os.replace(tmp, path)
    print(f"[e2e] generated {n_pairs:,d} pairs in {time.perf_counter() - t:.1f} s -> {path}")
    return path


def _run_cli(args: list[str]) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall seconds and peak RSS (GB) of one ``vecscore`` subprocess."""
    cmd = [sys.executable, "-m", "vecscore.cli", *args]
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if proc.returncode != 0:
        raise RuntimeError(f"vecscore failed ({proc.returncode}): {proc.stderr}")
    if peak_kb <= before:  # ru_maxrss is the max over all children so far: a smaller child is hidden
        print("[e2e] note: an earlier child had a larger peak RSS; the figure is an upper bound")
    return wall, peak_kb / 1024**2, proc


def bench_e2e(args) -> None:
    import numba

    n = int(getattr(args, "pairs", 1_000_000) or 1_000_000)
    chunk = getattr(args, "chunk_size", None)
    workers = getattr(args, "workers", None)
    data = pairs_parquet(n)
    small = pairs_parquet(1000)
    extra = (["--chunk-size", str(chunk)] if chunk else []) + (["--workers", str(workers)] if workers else [])
    with tempfile.TemporaryDirectory(prefix="vecscore-e2e-") as tmp:
        warm = ["rouge", "--input", str(small), "--metrics", *METRICS, "-o", f"{tmp}/warm.parquet", "--quiet"]
        _run_cli(warm)  # load (or build) the numba cache: a one-off cost, not part of the figure
        out, summary = f"{tmp}/scores.parquet", f"{tmp}/summary.json"
        cmd = ["rouge", "--input", str(data), "--metrics", *METRICS, "-o", out, "--summary", summary, "--quiet", *extra]
        wall, rss_gb, _ = _run_cli(cmd)
        size_mb = os.path.getsize(out) / 1024**2
        corpus = json.loads(Path(summary).read_text())
    threads = workers or numba.config.NUMBA_NUM_THREADS
    print(f"[e2e] vecscore rouge --input <{n:,d} pairs, {data.stat().st_size / 1024**2:.0f} MB Parquet> "
          f"--metrics {' '.join(METRICS)} -o scores.parquet ({size_mb:.0f} MB) --summary summary.json")
    print(f"[e2e] numba threads: {threads}; chunk size: {chunk or 'default'}")
    print(f"[e2e] wall time : {wall:7.2f} s   (target <= {TARGET_WALL_S:.0f} s) = {n / wall:,.0f} pairs/s")
    print(f"[e2e] peak RSS  : {rss_gb:7.2f} GB  (target <= {TARGET_RSS_GB:.0f} GB)")
    print(f"[e2e] corpus rougeL F (mean): {corpus['rougeL']['fmeasure']:.6f}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pairs", type=int, default=1_000_000)
    p.add_argument("--chunk-size", type=int)
    p.add_argument("--workers", type=int)
    bench_e2e(p.parse_args(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
