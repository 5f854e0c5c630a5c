"""chrF / chrF++ benchmark: vecscore vs sacreBLEU 2.6, same process, same data.

Run ``python benchmarks/bench_chrf.py [--pairs 100000] [--oracle-pairs 3000]
[--repeat 3] [--anchor-repeat 3]`` (or register ``BENCHES["chrf"] = bench_chrf``
in ``benchmarks/run.py``; it uses ``args.pairs``, ``args.oracle_pairs``,
``args.repeat`` and ``args.anchor_repeat``).

Data: real WMT21 en-de news segments from ``../shared/data`` (every system's
output, shuffled with a fixed seed, repeated up to ``--pairs``), each with
reference A of its segment (and C for the two-reference row).

* corpus chrF / chrF++: ``vecscore.chrf.corpus_chrf`` on all pairs vs
  ``sacrebleu.corpus_chrf`` on the first ``--oracle-pairs`` pairs, its time
  scaled to all pairs (sacreBLEU's cost is linear in the pairs: it is a loop
  over segments);
* sentence chrF per pair: one ``CHRF().sentence_scores`` call on all pairs vs
  ``sacrebleu.sentence_chrf`` per pair on the first ``--oracle-pairs``, scaled.

Two ratios are printed: wall time (vecscore with numba's threads), and CPU
time with one numba thread on both sides (``time.process_time``), which
other processes on a shared machine disturb much less.

Both sides start from Python strings.  vecscore is timed warm (kernels
compiled and loaded by an untimed call first), best of ``--repeat``;
sacreBLEU best of ``--anchor-repeat`` (wall and CPU time each their best).  Every
figure is printed with numba's thread count and ``os.getloadavg()`` (the
machine may be shared: a load above the core count slows the parallel side
more than the single-threaded one).  The subsample's statistics are checked
equal to sacreBLEU's before timing.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("VECSCORE_DATA_DIR", ROOT.parent / "shared" / "data")) / "wmt21-news-systems" / "en-de"


def _lines(path: Path) -> list[str]:
    out = path.read_text(encoding="utf-8").split("\n")
    return out[:-1] if out and out[-1] == "" else out


def wmt21_pairs(n_pairs: int, seed: int = 0):
    """``(hyps, ref_a, ref_c)``: ``n_pairs`` WMT21 en-de system segments with their references A and C."""
    ref_a = _lines(DATA / "newstest2021.en-de.ref.A.de")
    ref_c = _lines(DATA / "newstest2021.en-de.ref.C.de")
    pool = []
    for f in sorted((DATA / "system-outputs").iterdir()):
        pool += [(h, i) for i, h in enumerate(_lines(f))]
    rng = random.Random(seed)
    rng.shuffle(pool)
    picked = [pool[k % len(pool)] for k in range(n_pairs)]
    return [h for h, _ in picked], [ref_a[i] for _, i in picked], [ref_c[i] for _, i in picked]


def _load() -> str:
    return "load {:.2f}/{:.2f}/{:.2f}".format(*os.getloadavg())


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def _best_anchor(fn, repeat: int) -> tuple[float, float]:
    """Best wall and best CPU seconds of ``fn()`` over ``repeat`` runs (sacreBLEU: single-threaded)."""
    walls, cpus = [], []
    for _ in range(max(1, repeat)):
        t, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return min(walls), min(cpus)


def _cpu_one_thread(fn) -> float:
    """CPU seconds of ``fn()`` with one numba thread (less sensitive to other processes than wall time)."""
    from vecscore.parallel import numba_threads

    with numba_threads(1):
        t = time.process_time()
        fn()
        return time.process_time() - t


def bench_chrf(args) -> list[dict]:
    import numba
    import sacrebleu
    from sacrebleu.metrics import CHRF as SacreCHRF

    from vecscore.chrf import CHRF, corpus_chrf

    n, m = args.pairs, min(args.oracle_pairs, args.pairs)
    anchor_repeat = getattr(args, "anchor_repeat", 3)
    hyps, ref_a, ref_c = wmt21_pairs(n)
    rows = []
    print(f"data: {n:,} WMT21 en-de pairs (oracle subsample {m:,}); {sum(map(len, hyps)) / n:.0f} chars/hyp; "
          f"numba threads {numba.get_num_threads()} (cores {os.cpu_count()})")
    cases = [("corpus chrF, 1 ref", 0, [ref_a]), ("corpus chrF++, 1 ref", 2, [ref_a]),
             ("corpus chrF, 2 refs", 0, [ref_a, ref_c])]
    for name, word_order, streams in cases:
        sub = [s[:m] for s in streams]
        ours = CHRF(word_order=word_order)
        assert np.array_equal(ours.statistics(hyps[:m], sub),
                              np.array(SacreCHRF(word_order=word_order)._extract_corpus_statistics(hyps[:m], sub)))
        corpus_chrf(hyps[:2000], [s[:2000] for s in streams], word_order=word_order)  # warm up
        def run(streams=streams, word_order=word_order):
            return corpus_chrf(hyps, streams, word_order=word_order)

        t_ours = _best(run, args.repeat)
        load_ours = _load()
        cpu_ours = _cpu_one_thread(run)
        theirs = sacrebleu.corpus_chrf(hyps[:m], sub, word_order=word_order)
        t_theirs, cpu_theirs = _best_anchor(lambda sub=sub, word_order=word_order: sacrebleu.corpus_chrf(
            hyps[:m], sub, word_order=word_order), anchor_repeat)
        t_theirs, cpu_theirs = t_theirs * n / m, cpu_theirs * n / m
        load_theirs = _load()
        assert abs(theirs.score - corpus_chrf(hyps[:m], sub, word_order=word_order).score) <= 1e-9
        rows.append({"name": name, "ours": t_ours, "theirs": t_theirs, "cpu_ours": cpu_ours, "cpu_theirs": cpu_theirs})
        print(f"{name:24s} vecscore {t_ours:7.3f} s ({t_ours / n * 1e6:6.2f} us/pair; threads "
              f"{numba.get_num_threads()}, {load_ours}) | sacreBLEU {t_theirs:8.2f} s extrapolated from {m:,} "
              f"({t_theirs / n * 1e6:6.1f} us/pair; 1 thread, best of {anchor_repeat}, {load_theirs}) | "
              f"wall x{t_theirs / t_ours:.0f} | "
              f"1-thread CPU {cpu_ours:.3f} s vs {cpu_theirs:.1f} s: x{cpu_theirs / cpu_ours:.0f}")
    for name, word_order in (("sentence chrF, per pair", 0), ("sentence chrF++, per pair", 2)):
        metric = CHRF(word_order=word_order)
        metric.sentence_scores(hyps[:2000], [ref_a[:2000]])
        def run_sentences(metric=metric):
            return metric.sentence_scores(hyps, [ref_a])

        t_ours = _best(run_sentences, args.repeat)
        load_ours = _load()
        cpu_ours = _cpu_one_thread(run_sentences)
        def run_theirs(word_order=word_order):
            return [sacrebleu.sentence_chrf(h, [r], word_order=word_order).score for h, r in zip(hyps[:m], ref_a[:m])]

        theirs = run_theirs()
        t_theirs, cpu_theirs = _best_anchor(run_theirs, anchor_repeat)
        t_theirs, cpu_theirs = t_theirs * n / m, cpu_theirs * n / m
        load_theirs = _load()
        assert np.max(np.abs(metric.sentence_scores(hyps[:m], [ref_a[:m]]) - theirs)) <= 1e-9
        rows.append({"name": name, "ours": t_ours, "theirs": t_theirs, "cpu_ours": cpu_ours, "cpu_theirs": cpu_theirs})
        print(f"{name:24s} vecscore {t_ours:7.3f} s ({t_ours / n * 1e6:6.2f} us/pair; threads "
              f"{numba.get_num_threads()}, {load_ours}) | sacreBLEU {t_theirs:8.2f} s extrapolated from {m:,} "
              f"({t_theirs / n * 1e6:6.1f} us/pair; 1 thread, best of {anchor_repeat}, {load_theirs}) | "
              f"wall x{t_theirs / t_ours:.0f} | "
              f"1-thread CPU {cpu_ours:.3f} s vs {cpu_theirs:.1f} s: x{cpu_theirs / cpu_ours:.0f}")
    return rows


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pairs", type=int, default=100_000)
    p.add_argument("--oracle-pairs", type=int, default=3_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--anchor-repeat", type=int, default=3, help="sacreBLEU runs (best of)")
    bench_chrf(p.parse_args(argv))


if __name__ == "__main__":
    main()
