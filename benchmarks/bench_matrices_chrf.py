"""Score matrices for MBR decoding: chrF grids against fastchrf, sentence-BLEU grids against sacreBLEU.

Candidates: per source sentence of WMT21 en-de (``--sources``, default 100), its 23 translations (20 systems,
3 references) and seeded perturbations of them (a word dropped, two neighbours swapped, a word repeated) up to
``--cands`` candidates (default 256): realistic MBR candidate sets, every candidate close to the others.

* chrF: every candidate against every candidate of its source.  vecscore: per source
  ``ngram_cells.prepare(cands, "chrf")`` then ``grid(prepared, rows, rows)`` (preparation timed);
  fastchrf: ``pairwise_chrf(hyps_batch, refs_batch)`` on the same sets (all sources in one call, its
  own threads).  A seeded sample of cells is checked equal to ``sacrebleu.sentence_chrf`` (fastchrf's
  largest difference on it is printed beside vecscore's).
* BLEU: vecscore's grid over ``--bleu-sources`` sources against ``sacrebleu.sentence_bleu(h, [r])`` on a
  sample of ``--bleu-sample`` cells (timed per cell), which must be equal.

Warm timings (for vecscore one untimed run first: numba compiles on its first call), best of ``--repeat``; every figure
is printed with the load (``os.getloadavg()``) and the thread count.
Run: ``python benchmarks/bench_matrices_chrf.py [--sources 100] [--cands 256]``.
"""
from __future__ import annotations

import argparse
import logging
import os
import random
import time
from pathlib import Path

import numpy as np

DATA = Path(os.environ.get("VECSCORE_DATA_DIR", Path(__file__).resolve().parents[1].parent / "shared" / "data"))


def _lines(path) -> list[str]:
    return Path(path).read_text(encoding="utf-8").splitlines()


def _load() -> str:
    return "load " + "/".join(f"{x:.2f}" for x in os.getloadavg())


def _threads() -> int:
    from vecscore.parallel import current_threads

    return current_threads()


def _best(fn, repeat: int, warm: bool = True):
    if warm:
        fn()
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _report(label: str, cells: int, seconds: float, base: float | None = None) -> float:
    rate = cells / seconds
    ratio = f"  vecscore {rate / base:7.2f}x" if base else ""
    print(f"  {label:<44} {cells:>10,d} cells in {seconds:8.3f} s  {rate:>13,.0f} cells/s{ratio}  "
          f"[{_load()}, threads {_threads()}]")
    return rate


def _perturb(words: list[str], rng: random.Random) -> list[str]:
    w = list(words)
    if len(w) < 2:
        return w + w
    i = rng.randrange(len(w))
    kind = rng.randrange(3)
    if kind == 0:
        del w[i]
    elif kind == 1 and i + 1 < len(w):
        w[i], w[i + 1] = w[i + 1], w[i]
    else:
        w.insert(i, w[i])
    return w


def candidate_sets(n_sources: int, n_cands: int, seed: int = 0) -> list[list[str]]:
    root = DATA / "wmt21-news-systems" / "en-de"
    outputs = [_lines(f) for f in sorted((root / "system-outputs").iterdir())]
    outputs += [_lines(root / f"newstest2021.en-de.ref.{r}.de") for r in "ACD"]
    rng = random.Random(seed)
    sets = []
    for s in range(n_sources):
        base = [o[s] for o in outputs]
        cands = list(base)
        while len(cands) < n_cands:
            cands.append(" ".join(_perturb(rng.choice(cands).split(), rng)))
        sets.append(cands[:n_cands])
    return sets


def bench_chrf(sets: list[list[str]], repeat: int, sample: int) -> None:
    import sacrebleu

    from vecscore.matrices import ngram_cells

    n = len(sets[0])
    rows = np.arange(n)
    cells = len(sets) * n * n
    print(f"chrF: {len(sets)} sources x {n} x {n} candidates")

    def ours():
        return [ngram_cells.grid(ngram_cells.prepare(c, "chrf"), rows, rows) for c in sets]

    def prepare_only():
        return [ngram_cells.prepare(c, "chrf") for c in sets]

    t_ours, grids = _best(ours, repeat)
    t_prep, _ = _best(prepare_only, repeat)
    base = None
    try:
        import fastchrf
    except ImportError:
        print("  fastchrf not installed: skipped")
        fast = None
    else:
        t_fast, fast = _best(lambda: fastchrf.pairwise_chrf(sets, sets), repeat, warm=False)  # nothing to compile
        base = _report("fastchrf pairwise_chrf", cells, t_fast)
    _report("vecscore prepare + grid (per source)", cells, t_ours, base)
    print(f"    of which prepare: {t_prep:.3f} s  [{_load()}]")
    rng = np.random.default_rng(0)
    worst = worst_fast = 0.0
    for _ in range(sample):
        s, i, j = int(rng.integers(len(sets))), int(rng.integers(n)), int(rng.integers(n))
        want = sacrebleu.sentence_chrf(sets[s][i], [sets[s][j]]).score
        worst = max(worst, abs(grids[s][i, j] - want))
        if fast is not None:
            worst_fast = max(worst_fast, abs(fast[s][i][j] - want))
    print(f"  {sample} sampled cells vs sacrebleu.sentence_chrf: max |diff| vecscore {worst:.3g}"
          + (f", fastchrf {worst_fast:.3g}" if fast is not None else ""))
    if worst > 1e-9:
        raise SystemExit("vecscore's chrF grid differs from sacreBLEU")


def bench_bleu(sets: list[list[str]], repeat: int, sample: int) -> None:
    import sacrebleu

    from vecscore.matrices import ngram_cells

    n = len(sets[0])
    rows = np.arange(n)
    cells = len(sets) * n * n
    print(f"BLEU: {len(sets)} sources x {n} x {n} candidates")
    t_ours, grids = _best(lambda: [ngram_cells.grid(ngram_cells.prepare(c, "bleu"), rows, rows) for c in sets],
                          repeat)
    rng = np.random.default_rng(1)
    picks = [(int(rng.integers(len(sets))), int(rng.integers(n)), int(rng.integers(n))) for _ in range(sample)]
    t0 = time.perf_counter()
    want = [sacrebleu.sentence_bleu(sets[s][i], [sets[s][j]]).score for s, i, j in picks]
    t_sacre = time.perf_counter() - t0
    base = _report("sacrebleu.sentence_bleu (sample)", sample, t_sacre)
    _report("vecscore prepare + grid (per source)", cells, t_ours, base)
    worst = max(abs(grids[s][i, j] - w) for (s, i, j), w in zip(picks, want))
    print(f"  {sample} sampled cells vs sacrebleu.sentence_bleu: max |diff| {worst:.3g}")
    if worst > 1e-9:
        raise SystemExit("vecscore's BLEU grid differs from sacreBLEU")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sources", type=int, default=100)
    ap.add_argument("--cands", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--sample", type=int, default=2000, help="chrF cells checked against sacreBLEU")
    ap.add_argument("--bleu-sources", type=int, default=10)
    ap.add_argument("--bleu-sample", type=int, default=3000, help="cells scored by sacreBLEU")
    args = ap.parse_args(argv)
    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    sets = candidate_sets(max(args.sources, args.bleu_sources), args.cands)
    print(f"[{_load()}, threads {_threads()}]")
    bench_chrf(sets[:args.sources], args.repeat, args.sample)
    bench_bleu(sets[:args.bleu_sources], args.repeat, args.bleu_sample)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
