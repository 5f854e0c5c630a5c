"""vecscore against the anchors, same process, same data.

    python benchmarks/run.py rouge-n [--pairs 100000] [--oracle-pairs 5000]

Prints throughput (pairs per second) of vecscore and of the anchor, their
ratio, and the numba thread count.  Tokenization is always included: every
timed call starts from Python strings.  vecscore is timed after one warm-up
call (kernel compilation is a one-off cost, cached on disk), best of
``--repeat`` runs; an anchor timed on a subset of the same pairs gets the
best of ``--anchor-repeat`` runs, and so does the Perl script; corpus-level
sacreBLEU, which takes minutes, runs once.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vecscore  # noqa: E402
from benchmarks.corpus import summary_pairs  # noqa: E402
from benchmarks.report import best_time as _best_time  # noqa: E402
from benchmarks.report import report as _report  # noqa: E402


def _tuned_time(fn, repeat: int) -> float | None:
    """Best time of ``fn`` after :func:`vecscore.tune_memory` (what the CLI runs with)."""
    if not vecscore.tune_memory():
        return None
    fn()
    return _best_time(fn, repeat)


def bench_rouge_n(args) -> None:
    from rouge_score import rouge_scorer

    hyps, refs = summary_pairs(args.pairs, seed=0)
    types = ["rouge1", "rouge2"]
    vecscore.rouge(hyps[:1000], refs[:1000], metrics=types)  # compile / load the kernel cache
    t_ours = _best_time(lambda: vecscore.rouge(hyps, refs, metrics=types), args.repeat)
    k = min(args.oracle_pairs, args.pairs)
    scorer = rouge_scorer.RougeScorer(types)
    t_theirs = _best_time(lambda: [scorer.score(r, h) for h, r in zip(hyps[:k], refs[:k])], args.anchor_repeat)
    theirs = [scorer.score(r, h) for h, r in zip(hyps[:k], refs[:k])]
    ours = vecscore.rouge(hyps[:k], refs[:k], metrics=types)
    worst = max(abs(ours[m].fmeasure[i] - theirs[i][m].fmeasure) for m in types for i in range(k))
    print(f"[rouge-n] rouge1+rouge2, {args.pairs:,d} summary-length pairs (~50 tokens a side); "
          f"max |dF| vs rouge-score on the subset: {worst:.1e}")
    tuned = _tuned_time(lambda: vecscore.rouge(hyps, refs, metrics=types), args.repeat) if args.tune_memory else None
    _report("rouge-n", args.pairs, t_ours, "rouge-score", k, t_theirs, tuned)


def bench_rouge_l(args) -> None:
    from rouge_score import rouge_scorer

    hyps, refs = summary_pairs(args.pairs, seed=2)
    vecscore.rouge(hyps[:1000], refs[:1000], metrics=["rougeL"])
    t_ours = _best_time(lambda: vecscore.rouge(hyps, refs, metrics=["rougeL"]), args.repeat)
    k = min(args.oracle_pairs, args.pairs)
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    t_theirs = _best_time(lambda: [scorer.score(r, h) for h, r in zip(hyps[:k], refs[:k])], args.anchor_repeat)
    theirs = [scorer.score(r, h)["rougeL"].fmeasure for h, r in zip(hyps[:k], refs[:k])]
    worst = float(np.max(np.abs(vecscore.rouge(hyps[:k], refs[:k], metrics=["rougeL"])["rougeL"].fmeasure - theirs)))
    print(f"[rouge-l] rougeL, {args.pairs:,d} summary-length pairs; max |dF| vs rouge-score on the subset: {worst:.1e}")
    tuned = (_tuned_time(lambda: vecscore.rouge(hyps, refs, metrics=["rougeL"]), args.repeat)
             if args.tune_memory else None)
    _report("rouge-l", args.pairs, t_ours, "rouge-score", k, t_theirs, tuned)
    bench_lcs_kernel(args)


def bench_lcs_kernel(args) -> None:
    """The bare LCS kernel against rapidfuzz's LCSseq on the same integer arrays."""
    from rapidfuzz.distance import LCSseq
    from rapidfuzz.process import cpdist

    from vecscore.kernels.lcs import lcs_length_pairs

    rng = np.random.default_rng(3)
    n = args.pairs
    lens = rng.integers(40, 61, size=2 * n)
    ids = (np.minimum(rng.zipf(1.2, lens.sum()), 50_000) - 1).astype(np.int64)
    offsets = np.zeros(2 * n + 1, np.int64)
    np.cumsum(lens, out=offsets[1:])
    a = np.arange(n, dtype=np.int64)
    b = a + n
    lcs_length_pairs(ids, offsets, ids, offsets, a[:10], b[:10])
    t_ours = _best_time(lambda: lcs_length_pairs(ids, offsets, ids, offsets, a, b, vocab_size=50_000), args.repeat)
    seqs = [ids[offsets[i] : offsets[i + 1]].tolist() for i in range(2 * n)]
    t_theirs = _best_time(lambda: cpdist(seqs[:n], seqs[n:], scorer=LCSseq.similarity, workers=-1), 1)
    ours = lcs_length_pairs(ids, offsets, ids, offsets, a, b, vocab_size=50_000)
    theirs = cpdist(seqs[:n], seqs[n:], scorer=LCSseq.similarity, workers=-1)
    assert np.array_equal(ours, theirs)
    print(f"[lcs-kernel] LCS length of {n:,d} integer pairs (40-60 ids each), identical results; "
          "rapidfuzz cpdist with workers=-1")
    _report("lcs-kernel", n, t_ours, "rapidfuzz", n, t_theirs)


def bench_rouge155(args) -> None:
    from benchmarks.bench_rouge155 import bench_rouge155 as run

    run(args)


def bench_bleu(args) -> None:
    from benchmarks.bench_bleu import bench_bleu as run

    run(args)


def bench_e2e(args) -> None:
    from benchmarks.bench_e2e import bench_e2e as run

    run(args)


BENCHES = {"rouge-n": bench_rouge_n, "rouge-l": bench_rouge_l, "bleu": bench_bleu, "rouge155": bench_rouge155,
           "e2e": bench_e2e}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # no choices= here: argparse checks a list default against them as one value and refuses it
    p.add_argument("bench", nargs="*", help=f"which benchmarks, of {', '.join(BENCHES)} "
                                            "(default: all but e2e, which wants --pairs 1000000)")
    p.add_argument("--pairs", type=int, default=100_000)
    p.add_argument("--oracle-pairs", type=int, default=5_000)
    p.add_argument("--repeat", type=int, default=3, help="vecscore: best of this many timed runs")
    p.add_argument("--anchor-repeat", type=int, default=3,
                   help="anchors (rouge-score and sentence-level sacreBLEU on a subset, the Perl script): best of "
                        "this many runs (corpus-level sacreBLEU, minutes a run, runs once)")
    p.add_argument("--tune-memory", action="store_true",
                   help="after the default run, call vecscore.tune_memory() (as the CLI does) and time vecscore again")
    args = p.parse_args(argv)
    unknown = [b for b in args.bench if b not in BENCHES]
    if unknown:
        p.error(f"unknown benchmark(s) {', '.join(unknown)}; choose from {', '.join(BENCHES)}")
    for name in args.bench or [b for b in BENCHES if b != "e2e"]:
        BENCHES[name](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
