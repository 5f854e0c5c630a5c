"""Score-matrix benchmark for rougeL and TER: vecscore's grids vs the anchors per cell, same process, same data.

Texts: WMT21 en-de system outputs (``../shared/data/wmt21-news-systems``), grouped by source sentence as MBR
decoding sees them (every system's output of source 0, then of source 1, ...), ``--texts`` of them.

* TER: ``vecscore.matrices.ter_cells`` fills the whole ``N x N`` grid (``prepare`` + ``grid``, warm: the kernel
  is compiled before timing); sacreBLEU's ``sentence_ter(hyp, [ref])`` is slow, so it is timed on a seeded
  random sample of ``--sacre-cells`` cells of the same grid, and the per-cell rates are compared.  The
  sampled cells must be equal (the benchmark stops otherwise).
* rougeL: the same with ``vecscore.matrices.lcs_cells`` and rouge-score's ``RougeScorer(["rougeL"]).score``
  (``--rouge-cells`` sampled cells), on ``--rouge-texts`` texts.

Every figure is printed with numba's thread count and ``os.getloadavg()`` (the machine is shared: load from
other processes slows both sides).

Run: ``python benchmarks/bench_matrices_lcs_ter.py [--texts 256] [--rouge-texts 1024]``.
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

import numpy as np

DATA = Path(os.environ.get("VECSCORE_DATA_DIR", Path(__file__).resolve().parents[1].parent / "shared" / "data"))


def _read(path: Path) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


def mbr_texts(count: int) -> list[str]:
    """``count`` en-de outputs, every system's output of one source sentence after another."""
    root = DATA / "wmt21-news-systems" / "en-de" / "system-outputs"
    systems = [_read(p) for p in sorted(root.glob("newstest2021.en-de.hyp.*.de"))]
    out = [s[k] for k in range(len(systems[0])) for s in systems]
    return out[:count]


def context() -> str:
    import numba

    load1, load5, _ = os.getloadavg()
    return f"[threads={numba.get_num_threads()} load={load1:.2f}/{load5:.2f}]"


def sample_cells(n: int, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, count), rng.integers(0, n, count)


def bench(name: str, cells_module, metric: str, texts: list[str], anchor, n_sample: int) -> float:
    """Time the full grid with vecscore and ``anchor(hyp, ref)`` on a sample of its cells; return the per-cell
    speed-up."""
    n = len(texts)
    rows = np.arange(n)
    cells_module.grid(cells_module.prepare(texts[:8], metric), rows[:8], rows[:8])  # compile / load the kernel
    t0 = time.perf_counter()
    prepared = cells_module.prepare(texts, metric)
    t1 = time.perf_counter()
    full = cells_module.grid(prepared, rows, rows)
    t2 = time.perf_counter()
    ours = t2 - t0
    ours_rate = n * n / ours
    print(f"{name}: vecscore {n} x {n} = {n * n:,} cells in {ours:.3f} s (prepare {t1 - t0:.3f} s, grid "
          f"{t2 - t1:.3f} s): {ours_rate:,.0f} cells/s {context()}", flush=True)
    ia, ib = sample_cells(n, n_sample, 7)
    t0 = time.perf_counter()
    expected = [anchor(texts[i], texts[j]) for i, j in zip(ia.tolist(), ib.tolist())]
    theirs = time.perf_counter() - t0
    got = full[ia, ib]
    bad = np.flatnonzero(np.abs(got - np.array(expected)) > 1e-9)
    if bad.size:
        k = int(bad[0])
        sys.exit(f"MISMATCH {name} cell ({ia[k]}, {ib[k]}): vecscore {got[k]!r} vs anchor {expected[k]!r}")
    anchor_rate = n_sample / theirs
    ratio = ours_rate / anchor_rate
    print(f"  anchor on {n_sample:,} sampled cells (all equal): {theirs:.2f} s ({anchor_rate:,.0f} cells/s); "
          f"vecscore/anchor per cell = {ratio:,.0f}x {context()}", flush=True)
    return ratio


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--texts", type=int, default=256, help="TER grid size N (N x N cells)")
    parser.add_argument("--sacre-cells", type=int, default=400)
    parser.add_argument("--rouge-texts", type=int, default=1024, help="rougeL grid size N")
    parser.add_argument("--rouge-cells", type=int, default=4000)
    args = parser.parse_args(argv)
    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    import sacrebleu
    from rouge_score import rouge_scorer

    from vecscore.matrices import lcs_cells, ter_cells

    ter = sacrebleu.metrics.TER()
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    ratios = {
        "ter": bench("TER", ter_cells, "ter", mbr_texts(args.texts),
                     lambda h, r: ter.sentence_score(h, [r]).score, args.sacre_cells),
        "rougeL": bench("rougeL", lcs_cells, "rougeL", mbr_texts(args.rouge_texts),
                        lambda h, r: scorer.score(target=r, prediction=h)["rougeL"].fmeasure, args.rouge_cells),
    }
    print("speed-up per cell: " + ", ".join(f"{k} {v:,.0f}x" for k, v in ratios.items()) + f" {context()}")


if __name__ == "__main__":
    main()
