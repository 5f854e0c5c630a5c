"""Paired significance tests: vecscore against sacreBLEU 2.6, in process and on the command line.

    python benchmarks/bench_significance.py [--systems 20] [--bs 1000] [--ar 10000] [--repeat 3]
        [--no-cli] [--cli-runs 3] [--rss-pairs 1000000] [--rss-samples 1000]

Data: WMT21 en-de (``../shared/data/wmt21-news-systems/en-de``): the first ``--systems`` system outputs
in name order (20 x 1,002 segments), reference A.  BLEU with sacreBLEU's defaults.

* in process (imports and one warm-up excluded): ``sacrebleu.significance.PairedTest`` with a
  ``BLEU(references=...)`` (what ``sacrebleu -i ... --paired-bs`` runs), once; vecscore's
  ``paired_bootstrap`` / ``paired_randomization`` with ``BLEU()`` and the references, best of
  ``--repeat``.  The two results are compared (scores, means, intervals, p-values) and the line says
  whether they are equal.
* command line, end to end (process start, imports, reading the files, output): ``vecscore compare
  --refs REF --hyps SYS... --paired-bs|--paired-ar`` against ``sacrebleu REF -i SYS... -m bleu
  --paired-bs|--paired-ar``, timed by ``farm-bench --vs`` when it is installed (median of
  ``--cli-runs`` pairs, after a warm-up), else by this script (median of ``--cli-runs``).
* peak RSS: a fresh process resamples ``--rss-pairs`` pairs of BLEU statistics (synthetic,
  sentence-sized) ``--rss-samples`` times (``confidence_interval``'s path) and prints its RSS before,
  the highest RSS sampled during the call and its peak (``ru_maxrss``).

Every figure is printed with ``os.getloadavg()`` (1/5/15 min) and the thread counts.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vecscore  # noqa: E402  (first: it sets numba's OpenMP wait policy before numba starts threads)

DATA = Path(os.environ.get("VECSCORE_DATA_DIR", Path(__file__).resolve().parents[2] / "shared" / "data"))
WMT = DATA / "wmt21-news-systems" / "en-de"
MIB = 1 << 20


def _load() -> str:
    return "load " + "/".join(f"{x:.2f}" for x in os.getloadavg())


def _threads() -> str:
    import numba

    return (f"cores: {os.cpu_count()}, numba threads: {numba.get_num_threads()}, "
            f"OMP/BLAS threads: {os.environ.get('OMP_NUM_THREADS', 'default')}; sacreBLEU: 1 process")


def _read(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:1002]


def wmt21(n_systems: int):
    ref = WMT / "newstest2021.en-de.ref.A.de"
    paths = sorted((WMT / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))[:n_systems]
    if not paths:
        raise SystemExit(f"no WMT21 en-de system outputs under {WMT}")
    return ref, paths, [_read(ref)], {p.name.split(".")[3]: _read(p) for p in paths}


# --- in process ---------------------------------------------------------------------------------


def sacre_paired(test: str, n: int, refs, systems: dict):
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import PairedTest

    named = list(systems.items())
    t = time.perf_counter()
    _, res = PairedTest(named, {"bleu": BLEU(references=refs)}, references=None, test_type=test, n_samples=n)()
    return time.perf_counter() - t, res["BLEU"]


def ours_paired(test: str, n: int, refs, systems: dict):
    from vecscore.significance import paired_bootstrap, paired_randomization

    names = list(systems)
    fn = paired_bootstrap if test == "bs" else paired_randomization
    t = time.perf_counter()
    res = fn(vecscore.BLEU(), systems[names[0]], {s: systems[s] for s in names[1:]}, refs, n_samples=n)
    return time.perf_counter() - t, res.results["BLEU"]


def _same(theirs, ours) -> bool:
    return [(float(r.score), r.p_value, r.mean, r.ci) for r in theirs] == \
        [(float(r.score), r.p_value, r.mean, r.ci) for r in ours]


def in_process(args, refs, systems) -> None:
    small = {k: v[:50] for k, v in list(systems.items())[:3]}
    for test, n in (("bs", args.bs), ("ar", args.ar)):
        sacre_paired(test, 20, [r[:50] for r in refs], small)  # imports and first calls, untimed
        ours_paired(test, n, refs, systems)  # kernels loaded, caches warm
        ours = [ours_paired(test, n, refs, systems) for _ in range(args.repeat)]
        best, ours_res = min(ours, key=lambda x: x[0])
        load_ours = _load()
        sb_time, sb_res = sacre_paired(test, n, refs, systems)
        load_sb = _load()
        flag = "--paired-bs" if test == "bs" else "--paired-ar"
        print(f"[in-process] BLEU {flag} n={n}, {len(systems)} systems x {len(refs[0]):,} segments: "
              f"vecscore {best:.3f} s (best of {args.repeat}; runs {', '.join(f'{t:.3f}' for t, _ in ours)}; "
              f"{load_ours}), sacreBLEU {sb_time:.2f} s ({load_sb}): {sb_time / best:.0f}x; "
              f"results equal: {_same(sb_res, ours_res)}")


# --- command line --------------------------------------------------------------------------------


def _median_wall(cmd: list[str], runs: int) -> float:
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def command_line(args, ref: Path, paths: list[Path]) -> None:
    bindir = Path(sys.executable).parent
    hyps = [str(p) for p in paths]
    farm = shutil.which("farm-bench")
    for test, n in (("bs", args.bs), ("ar", args.ar)):
        flag = "--paired-bs" if test == "bs" else "--paired-ar"
        ours = [str(bindir / "vecscore"), "compare", "--refs", str(ref), "--hyps", *hyps, flag, f"{flag}-n", str(n)]
        theirs = [str(bindir / "sacrebleu"), str(ref), "-i", *hyps, "-m", "bleu", flag, f"{flag}-n", str(n)]
        if farm:
            proc = subprocess.run([farm, "-n", str(args.cli_runs), "--warmup", "1", "--timeout", "1800",
                                   "--vs", " ".join(theirs), "--", *ours], capture_output=True, text=True)
            print(f"[command line] BLEU {flag} n={n}, {len(paths)} systems ({_load()} after): farm-bench, "
                  f"A = vecscore compare, B = sacrebleu")
            print("    " + (proc.stdout + proc.stderr).strip().replace("\n", "\n    "))
        else:
            a, b = _median_wall(ours, args.cli_runs), _median_wall(theirs, max(1, args.cli_runs // 2))
            print(f"[command line] BLEU {flag} n={n}: vecscore compare {a:.2f} s, sacrebleu {b:.2f} s (median wall; "
                  f"{_load()}): {b / a:.0f}x")


# --- peak RSS --------------------------------------------------------------------------------------


def _rss_now() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def rss_child(n_pairs: int, n_samples: int) -> None:
    """In a fresh process: BLEU's bootstrap interval of ``n_pairs`` synthetic pairs; RSS as JSON."""
    from vecscore.significance import interval_from_stats

    rng = np.random.default_rng(0)
    total = rng.integers(5, 40, size=(n_pairs, 1))
    orders = np.maximum(total - np.arange(4)[None, :], 0)
    correct = (orders * rng.random((n_pairs, 4))).astype(np.int64)
    stats = np.column_stack([total[:, 0], total[:, 0] + rng.integers(-3, 4, n_pairs), correct, orders])
    interval_from_stats(vecscore.BLEU(), stats[:2000], 10, 0)  # kernels loaded
    before = _rss_now()
    during = [before]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.002):
            during[0] = max(during[0], _rss_now())

    threading.Thread(target=sample, daemon=True).start()
    t = time.perf_counter()
    ci = interval_from_stats(vecscore.BLEU(), stats, n_samples, 12345)
    elapsed = time.perf_counter() - t
    done.set()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"before": before, "during": during[0], "peak": peak, "seconds": elapsed,
                      "stats_bytes": stats.nbytes, "mean": ci.mean}))


def rss(args) -> None:
    proc = subprocess.run([sys.executable, __file__, "--rss-child", str(args.rss_pairs), "--rss-samples",
                           str(args.rss_samples)], capture_output=True, text=True, check=True)
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    dense = args.rss_samples * args.rss_pairs * 8
    print(f"[peak RSS] BLEU interval, {args.rss_pairs:,} pairs x {args.rss_samples:,} resamples: RSS "
          f"{r['before'] / MIB:,.0f} MiB before (statistics {r['stats_bytes'] / MIB:,.0f} MiB), at most "
          f"{r['during'] / MIB:,.0f} MiB during (process peak {r['peak'] / MIB:,.0f} MiB), {r['seconds']:.1f} s; "
          f"a dense {args.rss_samples:,} x {args.rss_pairs:,} float64 matrix alone would be {dense / 2**30:.1f} GiB "
          f"({_load()})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", type=int, default=20)
    ap.add_argument("--bs", type=int, default=1000, help="paired bootstrap resamples")
    ap.add_argument("--ar", type=int, default=10000, help="approximate randomization trials")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-in-process", action="store_true")
    ap.add_argument("--no-cli", action="store_true")
    ap.add_argument("--cli-runs", type=int, default=3)
    ap.add_argument("--rss-pairs", type=int, default=1_000_000, help="0 skips the peak-RSS run")
    ap.add_argument("--rss-samples", type=int, default=1000)
    ap.add_argument("--rss-child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.rss_child:
        rss_child(args.rss_child, args.rss_samples)
        return
    os.environ.pop("SACREBLEU_SEED", None)
    ref, paths, refs, systems = wmt21(args.systems)
    print(_threads())
    if not args.no_in_process:
        in_process(args, refs, systems)
    if not args.no_cli:
        command_line(args, ref, paths)
    if args.rss_pairs:
        rss(args)


if __name__ == "__main__":
    main()
