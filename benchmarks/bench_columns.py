"""Columns against lists: the same pairs read from one Parquet file as pyarrow columns, polars columns, pandas
columns and Python lists, each scored by vecscore in one process.

    python -m benchmarks.bench_columns [--pairs 1000000] [--refs 2] [--repeat 3]

The pairs are real: WMT17 en-de system outputs (16 systems, 3,004 segments each) as hypotheses, with the
newstest2017 reference and one other system's output as two references per pair, repeated up to ``--pairs``.
Each path times reading the file into its column type and scoring (ROUGE-1/ROUGE-L per pair, corpus BLEU with
two references); "lists" converts the Arrow table with ``to_pylist()``, as a user holding lists would.  Every path
must give the same numbers (the run stops otherwise).  Best of ``--repeat`` rounds (every path once per round),
after one untimed call on the whole set.
"""
from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

DATA = Path(os.environ.get("VECSCORE_DATA_DIR", Path(__file__).resolve().parents[2] / "shared" / "data"))


def _pairs(n_pairs: int):
    root = DATA / "wmt17-ende-sacrebleu"
    ref = (root / "newstest2017-ende-ref.de").read_text(encoding="utf-8").splitlines()
    systems = [p.read_text(encoding="utf-8").splitlines() for p in sorted((root / "systems").iterdir())]
    hyps, refs = [], []
    while len(hyps) < n_pairs:
        for k, out in enumerate(systems):
            other = systems[(k + 1) % len(systems)]
            hyps.extend(out)
            refs.extend([r, o] for r, o in zip(ref, other))
    return hyps[:n_pairs], refs[:n_pairs]


def _rouge_bleu(hyps, refs):
    import vecscore as vs

    r = vs.rouge(hyps, refs, metrics=("rouge1", "rougeL"))
    b = vs.corpus_bleu(hyps, refs, refs_layout="per-example")
    return r, b


def _chrf(hyps, refs):
    import vecscore as vs

    return vs.corpus_chrf(hyps, refs, refs_layout="per-example")


def _ter(hyps, refs):
    import vecscore as vs

    return vs.corpus_ter(hyps, refs, refs_layout="per-example")


def _coco(hyps, refs):
    from vecscore import coco

    return coco.coco_bleu(hyps, refs), coco.coco_rouge_l(hyps, refs)


#: what each job scores (``--jobs``); the first is the default
JOBS = {"rouge-bleu": _rouge_bleu, "chrf": _chrf, "ter": _ter, "coco": _coco}


def _plain(result):
    """A job's result as plain values, to check that every path gave the same numbers (outside the timing)."""
    if isinstance(result, tuple):
        return [_plain(x) for x in result]
    if hasattr(result, "counts"):  # BLEU: its score and statistics
        return [result.score, list(result.counts), list(result.totals)]
    if hasattr(result, "to_dict"):
        return result.to_dict()
    return result.score


def _readers(path: Path):
    import pyarrow.parquet as pq

    def arrow():
        t = pq.read_table(path)
        return t["hyp"], t["refs"]

    def lists():
        t = pq.read_table(path)
        return t["hyp"].to_pylist(), t["refs"].to_pylist()

    readers = {"pyarrow columns": arrow, "Python lists": lists}
    try:
        import polars as pl

        def polars():
            df = pl.read_parquet(path)
            return df["hyp"], df["refs"]

        readers["polars columns"] = polars
    except ImportError:
        pass
    try:
        import pandas as pd

        def pandas():
            df = pd.read_parquet(path)
            return df["hyp"], df["refs"]

        readers["pandas read_parquet"] = pandas
    except ImportError:
        pass
    return readers


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", default="rouge-bleu",
                    help=f"comma-separated, of {', '.join(JOBS)} (rouge-bleu: ROUGE-1/L per pair and corpus BLEU; "
                         "chrf: corpus chrF; ter: corpus TER; coco: coco-caption's BLEU and ROUGE-L)")
    args = ap.parse_args(argv)
    jobs = args.jobs.split(",")
    unknown = [j for j in jobs if j not in JOBS]
    if unknown:
        ap.error(f"unknown job {unknown[0]!r}; choose from {', '.join(JOBS)}")
    import pyarrow as pa
    import pyarrow.parquet as pq

    import vecscore  # noqa: F401  (imported before timing)
    from vecscore import parallel
    from vecscore.errors import EmptyTokenizationWarning

    warnings.simplefilter("ignore", EmptyTokenizationWarning)  # a few WMT outputs are punctuation only

    hyps, refs = _pairs(args.pairs)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pairs.parquet"
        pq.write_table(pa.table({"hyp": hyps, "refs": pa.array(refs, pa.list_(pa.string()))}), path)
        del hyps, refs
        size = path.stat().st_size / 1e6
        print(f"{args.pairs:,} pairs x 2 references, {size:.0f} MB Parquet; numba threads: "
              f"{parallel.current_threads()}")
        readers = _readers(path)
        for job in jobs:
            _run(JOBS[job], job, readers, args.repeat)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak RSS {peak:.0f} MB; identical scores on every path")


def _run(score, job: str, readers: dict, repeat: int) -> None:
    """One job's table: every reader's best read and score times over ``repeat`` rounds."""
    first = readers["pyarrow columns"]()
    score(*first)  # untimed: loads the kernels and grows the heap to its working size
    del first
    best = {name: [np.inf, np.inf] for name in readers}
    baseline = None
    loads = []
    for _ in range(repeat):  # rounds, each path once per round, so no path is favoured by its place
        for name, read in readers.items():
            t0 = time.perf_counter()
            h, r = read()
            t1 = time.perf_counter()
            result = score(h, r)
            t2 = time.perf_counter()
            del h, r
            best[name] = [min(best[name][0], t1 - t0), min(best[name][1], t2 - t1)]
            if baseline is None:
                baseline = _plain(result)
            elif _plain(result) != baseline:
                raise SystemExit(f"{job}, {name}: the scores differ from the pyarrow columns' scores")
            del result
        loads.append("/".join(f"{x:.2f}" for x in os.getloadavg()))
    rows = [(name, rd, sc, loads[-1]) for name, (rd, sc) in best.items()]
    lists = next(r for r in rows if r[0] == "Python lists")
    print(f"\n{job}\n| input | read | score | read + score | vs lists | load |\n|---|---|---|---|---|---|")
    for name, rd, sc, load in rows:
        total = rd + sc
        ratio = (lists[1] + lists[2]) / total
        print(f"| {name} | {rd:.2f} s | {sc:.2f} s | {total:.2f} s | {ratio:.2f}x | {load} |")


if __name__ == "__main__":
    main()
