"""ROUGE bootstrap intervals: vecscore.significance.rouge_bootstrap vs rouge-score's BootstrapAggregator.

    python benchmarks/bench_significance_rouge.py [--pairs 100000] [--samples 1000]
        [--oracle-pairs 100000] [--rss-pairs 1000000] [--repeat 3]

ROUGE section (issue 19): ROUGE-1, ROUGE-2 and ROUGE-L intervals (low/mid/high of P, R, F, 1,000
resamples, 95%) of ``--pairs`` per-pair scores.  The scores are REALSumm's 2,500 CNN/DM pairs
(``../shared/data``; synthetic summaries if it is missing) scored by ``vecscore.rouge`` (equal to
rouge-score's bit for bit) and tiled to ``--pairs``; resampling time does not depend on the values.

* vecscore: ``rouge_bootstrap(result, n_samples, seed=0)`` after one warm-up call (kernel
  compilation is cached on disk), best of ``--repeat``.
* rouge-score: ``BootstrapAggregator(0.95, n_samples)`` holding the first ``--oracle-pairs`` pairs
  (filled with ``add_scores`` beforehand, not timed), ``np.random.seed(0)`` then ``aggregate()``,
  run once.  With fewer pairs than vecscore's its time is scaled linearly to ``--pairs`` and the
  line says *extrapolated*; in the same run vecscore's intervals of those pairs are compared with
  rouge-score's (bit for bit).
* peak RSS: a fresh process builds ``--rss-pairs`` pairs of scores and runs the bootstrap; its
  peak resident set size (``ru_maxrss``) is printed beside the RSS before the call and beside the
  size a dense ``n_samples x pairs`` float64 matrix would have.

Every figure is printed with ``os.getloadavg()`` and the thread counts.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vecscore  # noqa: E402
from vecscore.rouge.results import RougeResult, Score  # noqa: E402
from vecscore.significance import rouge_bootstrap  # noqa: E402

TYPES = ["rouge1", "rouge2", "rougeL"]
DATA = Path(os.environ.get("VECSCORE_DATA_DIR", Path(__file__).resolve().parents[2] / "shared" / "data"))


def _load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def _threads() -> str:
    import numba

    return (f"cores: {os.cpu_count()}, numba threads: {numba.get_num_threads()}; rouge_bootstrap runs 2 threads "
            f"(one draws the next chunk of indices while the caller's sums the current one), rouge-score 1")


def base_scores() -> tuple[RougeResult, str]:
    """Per-pair ROUGE-1/2/L of REALSumm (or synthetic pairs when ../shared/data is missing)."""
    path = DATA / "realsumm-cnndm" / "realsumm_cnndm_100docs.jsonl"
    if path.exists():
        rows = [json.loads(line) for line in path.open(encoding="utf-8")]
        hyps = ["\n".join(r["summary_sentences"]) for r in rows]
        refs = ["\n".join(r["reference_sentences"]) for r in rows]
        what = f"REALSumm ({len(rows):,} pairs)"
    else:
        from benchmarks.corpus import summary_pairs

        hyps, refs = summary_pairs(2500, seed=0)
        what = "synthetic summaries (2,500 pairs; ../shared/data not found)"
    return vecscore.rouge(hyps, refs, metrics=TYPES), what


def tiled(base: RougeResult, n: int) -> RougeResult:
    reps = -(-n // base.n_pairs)
    return RougeResult({m: Score(*(np.tile(np.asarray(getattr(base[m], f)), reps)[:n]
                                   for f in ("precision", "recall", "fmeasure"))) for m in base})


def _warm_up(res: RougeResult) -> None:
    """One small call on the compiled route (small calls take the NumPy route under ``auto``): numba
    imported and the kernels compiled or loaded from the disk cache."""
    old = os.environ.get("VECSCORE_ROUTE")
    os.environ["VECSCORE_ROUTE"] = "compiled"
    try:
        rouge_bootstrap(res, n_samples=2, seed=0)
    finally:
        if old is None:
            del os.environ["VECSCORE_ROUTE"]
        else:
            os.environ["VECSCORE_ROUTE"] = old


def _rss_now() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def rss_child(n_pairs: int, n_samples: int) -> None:
    """In a fresh process: RSS around the bootstrap of ``n_pairs`` pairs (printed as JSON): before the
    call, the highest value sampled every 2 ms during it, and the process's peak (``ru_maxrss``)."""
    import threading

    base, _ = base_scores()
    res = tiled(base, n_pairs)
    _warm_up(tiled(base, 1000))
    before_now, before_peak = _rss_now(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    during = [before_now]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.002):
            during[0] = max(during[0], _rss_now())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    t = time.perf_counter()
    rouge_bootstrap(res, n_samples=n_samples, seed=0)
    elapsed = time.perf_counter() - t
    done.set()
    sampler.join()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"before": before_now, "during": during[0], "peak_before": before_peak, "peak": peak,
                      "seconds": elapsed}))


def _oracle(base: RougeResult, n: int, n_samples: int):
    from rouge_score import scoring

    sub = tiled(base, n)
    cols = {m: np.stack([sub[m].precision, sub[m].recall, sub[m].fmeasure], axis=1).tolist() for m in TYPES}
    agg = scoring.BootstrapAggregator(confidence_interval=0.95, n_samples=n_samples)
    t = time.perf_counter()
    for i in range(n):
        agg.add_scores({m: scoring.Score(*cols[m][i]) for m in TYPES})
    t_add = time.perf_counter() - t
    np.random.seed(0)
    t = time.perf_counter()
    want = agg.aggregate()
    return sub, want, t_add, time.perf_counter() - t


def bench(args) -> None:
    base, what = base_scores()
    res = tiled(base, args.pairs)
    print(f"[rouge-ci] data: per-pair {'/'.join(TYPES)} of {what}, tiled to {args.pairs:,} pairs; "
          f"{args.samples:,} resamples, 95%")
    print(f"[rouge-ci] {_threads()}; load (1/5/15 min) {_load()}")

    _warm_up(res)
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        rouge_bootstrap(res, n_samples=args.samples, seed=0)
        times.append(time.perf_counter() - t)
        print(f"[rouge-ci]   run {len(times)}: {times[-1]:.3f} s   load {_load()}")
    ours = min(times)
    print(f"[rouge-ci] vecscore rouge_bootstrap : {args.pairs:>9,d} pairs x {args.samples:,} resamples x "
          f"{len(TYPES)} metrics in {ours:7.3f} s (best of {args.repeat})   load {_load()}")

    n_or = min(args.oracle_pairs, args.pairs)
    sub, want, t_add, t_or = _oracle(base, n_or, args.samples)
    got = rouge_bootstrap(sub, n_samples=args.samples, seed=0)
    same = all(tuple(tuple(map(float, s)) for s in got[m]) == tuple(tuple(map(float, s)) for s in want[m])
               for m in TYPES)
    print(f"[rouge-ci] rouge-score aggregate()  : {n_or:>9,d} pairs x {args.samples:,} resamples x "
          f"{len(TYPES)} metrics in {t_or:7.3f} s (one run; add_scores before it: {t_add:.2f} s)   load {_load()}")
    if n_or < args.pairs:
        t_full = t_or * args.pairs / n_or
        print(f"[rouge-ci] rouge-score EXTRAPOLATED  : {args.pairs:>9,d} pairs ~ {t_full:7.1f} s "
              f"(linear in pairs from {n_or:,})   load {_load()}")
    else:
        t_full = t_or
    print(f"[rouge-ci] ratio: {t_full / ours:,.1f}x; intervals equal to rouge-score's on the {n_or:,} pairs, "
          f"bit for bit: {same}   load {_load()}")
    if not same:
        raise SystemExit("vecscore's intervals differ from rouge-score's")

    if args.rss_pairs:
        proc = subprocess.run([sys.executable, __file__, "--rss-child", str(args.rss_pairs), "--samples",
                               str(args.samples)], capture_output=True, text=True, check=True)
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        mib = 2 ** 20
        dense = args.samples * args.rss_pairs * 8
        print(f"[rouge-ci] peak RSS, {args.rss_pairs:,} pairs x {args.samples:,} resamples x {len(TYPES)} metrics "
              f"(fresh process, {r['seconds']:.2f} s): highest RSS sampled during the call "
              f"{r['during'] / mib:,.0f} MiB, RSS just before it {r['before'] / mib:,.0f} MiB (the scores and "
              f"numba loaded; process peak before the call {r['peak_before'] / mib:,.0f} MiB, after "
              f"{r['peak'] / mib:,.0f} MiB); a dense {args.samples:,} x {args.rss_pairs:,} float64 matrix alone "
              f"would be {dense / mib:,.0f} MiB   load {_load()}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--oracle-pairs", type=int, default=100_000,
                    help="pairs given to rouge-score (its time is extrapolated to --pairs if fewer)")
    ap.add_argument("--rss-pairs", type=int, default=1_000_000, help="0 skips the peak-RSS run")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rss-child", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.rss_child:
        rss_child(args.rss_child, args.samples)
    else:
        bench(args)


if __name__ == "__main__":
    main()
