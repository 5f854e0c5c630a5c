"""vecscore against the anchors, same process, same data.

    python benchmarks/run.py rouge-n [--pairs 100000] [--oracle-pairs 5000]

Prints throughput (pairs per second) of vecscore and of the anchor, their
ratio, and the numba thread count.  Tokenization is always included: every
timed call starts from Python strings.  vecscore is timed after one warm-up
call (kernel compilation is a one-off cost, cached on disk), best of
``--repeat`` runs; the anchor is timed once on a subset of the same pairs.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vecscore  # noqa: E402
from benchmarks.corpus import summary_pairs  # noqa: E402


def _best_time(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _report(name: str, n_ours: int, t_ours: float, anchor: str, n_theirs: int, t_theirs: float) -> None:
    ours = n_ours / t_ours
    theirs = n_theirs / t_theirs
    print(f"[{name}] numba threads: {numba.get_num_threads()}")
    print(f"[{name}] vecscore : {n_ours:>9,d} pairs in {t_ours:8.3f} s = {ours:12,.0f} pairs/s")
    print(f"[{name}] {anchor:<9}: {n_theirs:>9,d} pairs in {t_theirs:8.3f} s = {theirs:12,.0f} pairs/s")
    print(f"[{name}] ratio    : {ours / theirs:,.1f}x")


def bench_rouge_n(args) -> None:
    from rouge_score import rouge_scorer

    hyps, refs = summary_pairs(args.pairs, seed=0)
    types = ["rouge1", "rouge2"]
    vecscore.rouge(hyps[:1000], refs[:1000], metrics=types)  # compile / load the kernel cache
    t_ours = _best_time(lambda: vecscore.rouge(hyps, refs, metrics=types), args.repeat)
    k = min(args.oracle_pairs, args.pairs)
    scorer = rouge_scorer.RougeScorer(types)
    t = time.perf_counter()
    theirs = [scorer.score(r, h) for h, r in zip(hyps[:k], refs[:k])]
    t_theirs = time.perf_counter() - t
    ours = vecscore.rouge(hyps[:k], refs[:k], metrics=types)
    worst = max(abs(ours[m].fmeasure[i] - theirs[i][m].fmeasure) for m in types for i in range(k))
    print(f"[rouge-n] rouge1+rouge2, {args.pairs:,d} summary-length pairs (~50 tokens a side); max |dF| vs rouge-score on the subset: {worst:.1e}")
    _report("rouge-n", args.pairs, t_ours, "rouge-score", k, t_theirs)


BENCHES = {"rouge-n": bench_rouge_n}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("bench", nargs="*", default=list(BENCHES), choices=list(BENCHES))
    p.add_argument("--pairs", type=int, default=100_000)
    p.add_argument("--oracle-pairs", type=int, default=5_000)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    for name in args.bench:
        BENCHES[name](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
