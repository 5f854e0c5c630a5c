"""Score matrices (WMT21 en-de system outputs): self-BLEU, MBR and near-duplicate pairs against their peers.

* self-BLEU of ``--self-texts`` texts (whitespace tokens, BLEU-4, method1): ``vecscore.self_bleu(tokens,
  weights_dtype="float32")`` against fast-bleu's ``SelfBLEU(tokens).get_score()`` (the largest difference is
  printed);
* MBR with chrF and BLEU over ``--mbr-sources`` sources, the 20 systems' outputs of each the candidates (and the
  pseudo-references): ``vecscore.mbr(batch, metric=...)`` against mbrs's own ``MetricChrF`` / ``MetricBLEU``
  ``expected_scores`` (sacreBLEU per cell, ``num_workers`` processes), and mbrs's ``MetricChrF`` with
  ``fastchrf=True`` (Rust);
* ``similar_pairs`` of ``--similar-texts`` texts with rouge1 (``n (n - 1) / 2`` cells), against rouge-score's
  ``RougeScorer(["rouge1"]).score`` per cell measured on ``--rouge-cells`` sampled cells; the peak RSS of the
  process (``resource.getrusage``) is printed before and after (this section runs first, before torch loads).

Every figure is printed with ``os.getloadavg()`` and the thread counts (the machine may be shared).  Run:
``python benchmarks/bench_matrices.py [--only self mbr similar]``.
"""
from __future__ import annotations

import argparse
import glob
import os
import random
import resource
import time
from pathlib import Path

import numpy as np

DATA = Path(os.environ.get("VECSCORE_DATA_DIR", Path(__file__).resolve().parents[1].parent / "shared" / "data"))


def _lines(path) -> list[str]:
    return Path(path).read_text(encoding="utf-8").splitlines()


def _threads() -> str:
    try:
        import numba

        n = numba.get_num_threads()
    except ImportError:  # pragma: no cover - numba is a dependency
        n = 1
    return f"numba threads {n}, cpus {os.cpu_count()}"


def _load() -> str:
    return "load " + "/".join(f"{x:.2f}" for x in os.getloadavg())


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def _line(label: str, seconds: float, unit: str, n: int, base: float | None = None) -> None:
    ratio = f"  vecscore {base / seconds:8.1f}x faster" if base else ""
    print(f"  {label:<52} {seconds:9.3f} s  {n / seconds:>14,.0f} {unit}/s{ratio}  [{_load()}; {_threads()}]")


def _systems() -> list[list[str]]:
    root = DATA / "wmt21-news-systems" / "en-de" / "system-outputs"
    return [_lines(f) for f in sorted(glob.glob(str(root / "newstest2021.en-de.hyp.*.de")))]


def bench_self(systems, n_texts: int) -> None:
    import vecscore

    texts = [t.split() for s in systems for t in s][:n_texts]
    print(f"self-BLEU-4 of {len(texts):,d} texts (whitespace tokens, method1)")
    vecscore.self_bleu(texts[:3000])  # warm: the first large call loads the compiled formulas
    t_vs, ours = _timed(lambda: vecscore.self_bleu(texts, weights_dtype="float32"))
    try:
        from fast_bleu import SelfBLEU
    except ImportError:
        _line("vecscore self_bleu", t_vs, "texts", len(texts))
        print("  fast-bleu not installed")
        return
    t_fb, theirs = _timed(lambda: SelfBLEU(texts).get_score()[4])
    _line("fast-bleu SelfBLEU (build + get_score)", t_fb, "texts", len(texts))
    _line("vecscore self_bleu", t_vs, "texts", len(texts), t_fb)
    print(f"  largest |vecscore - fast-bleu| = {np.abs(ours - np.array(theirs)).max():.3g}")


def _mbrs():
    """mbrs's MetricChrF and MetricBLEU (:mod:`benchmarks.mbrs_classes`)."""
    from benchmarks.mbrs_classes import mbrs_classes

    return mbrs_classes()[:2]


def bench_mbr(systems, n_sources: int, workers: int) -> None:
    import vecscore

    lines = random.Random(0).sample(range(len(systems[0])), n_sources)
    batch = [[s[k] for s in systems] for k in lines]
    cells = sum(len(c) ** 2 for c in batch)
    print(f"MBR over {n_sources} sources x {len(systems)} candidates ({cells:,d} cells)")
    try:
        metric_chrf, metric_bleu = _mbrs()
    except ImportError as exc:
        metric_chrf = metric_bleu = None
        print(f"  mbrs not importable: {exc}")
    for name, cls in (("chrf", metric_chrf), ("bleu", metric_bleu)):
        vecscore.mbr(batch[:2], metric=name)  # warm
        t_vs, ours = _timed(lambda: vecscore.mbr(batch, metric=name))
        if cls is None:
            _line(f"vecscore mbr {name}", t_vs, "cells", cells)
            continue
        scorer = cls(cls.Config(num_workers=workers))
        t_m, theirs = _timed(lambda: [scorer.expected_scores(c, c).numpy() for c in batch])
        _line(f"mbrs {cls.__name__} expected_scores ({workers} workers)", t_m, "cells", cells)
        _line(f"vecscore mbr {name}", t_vs, "cells", cells, t_m)
        same = sum(r.expected[r.index] == r.expected[int(np.argmax(e))] for r, e in zip(ours, theirs))
        diff = max(float(np.abs(r.expected - e).max()) for r, e in zip(ours, theirs))
        print(f"  same choice (up to exact ties) {same}/{len(batch)}; largest |difference| {diff:.3g} (mbrs: float32)")
        if name == "chrf":
            fast = cls(cls.Config(num_workers=workers, fastchrf=True))
            t_f, _ = _timed(lambda: [fast.expected_scores(c, c) for c in batch])
            _line("mbrs MetricChrF(fastchrf=True) expected_scores", t_f, "cells", cells)
            _line("vecscore mbr chrf", t_vs, "cells", cells, t_f)


def bench_similar(systems, n_texts: int, rouge_cells: int, threshold: float, block: int) -> None:
    import vecscore

    texts = [t for s in systems for t in s][:n_texts]
    n = len(texts)
    cells = n * (n - 1) // 2
    print(f"similar_pairs rouge1 >= {threshold} of {n:,d} texts ({cells:,d} cells), block {block}; peak RSS so far "
          f"{_rss_mb():,.0f} MB")
    vecscore.similar_pairs(texts[:300], metric="rouge1", threshold=threshold)  # warm
    t_vs, pairs = _timed(lambda: vecscore.similar_pairs(texts, metric="rouge1", threshold=threshold, block=block))
    print(f"  {len(pairs):,d} pairs found; peak RSS {_rss_mb():,.0f} MB")
    try:
        from rouge_score import rouge_scorer
    except ImportError:
        _line("vecscore similar_pairs", t_vs, "cells", cells)
        return
    rng = random.Random(1)
    sample = [(rng.randrange(n), rng.randrange(n)) for _ in range(rouge_cells)]
    scorer = rouge_scorer.RougeScorer(["rouge1"])
    t_rs, _ = _timed(lambda: [scorer.score(texts[j], texts[i]) for i, j in sample])
    per_cell = t_rs / rouge_cells
    _line(f"rouge-score per cell ({rouge_cells:,d} sampled), projected", per_cell * cells, "cells", cells)
    _line("vecscore similar_pairs", t_vs, "cells", cells, per_cell * cells)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", choices=["self", "mbr", "similar"], default=["similar", "self", "mbr"])
    ap.add_argument("--self-texts", type=int, default=10_000)
    ap.add_argument("--mbr-sources", type=int, default=30)
    ap.add_argument("--mbrs-workers", type=int, default=2)
    ap.add_argument("--similar-texts", type=int, default=20_000)
    ap.add_argument("--rouge-cells", type=int, default=20_000)
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--block", type=int, default=2048)
    args = ap.parse_args(argv)
    systems = _systems()
    print(f"WMT21 en-de: {len(systems)} systems; {_load()}")
    if "similar" in args.only:  # first: its peak RSS is then its own
        bench_similar(systems, args.similar_texts, args.rouge_cells, args.threshold, args.block)
    if "self" in args.only:
        bench_self(systems, args.self_texts)
    if "mbr" in args.only:
        bench_mbr(systems, args.mbr_sources, args.mbrs_workers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
