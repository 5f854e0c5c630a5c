"""TER benchmark: vecscore vs sacreBLEU 2.6, same process, same data (WMT21 news systems).

For each language pair of ``../shared/data/wmt21-news-systems`` (en-de with 3
references, en-zh with 2, en-ja with 1), corpus TER of every system:

* vecscore: ``vecscore.ter.corpus_ter(hyps, streams, **options)`` on every
  segment of every system (tokenization included, warm: numba compiled
  before timing);
* sacreBLEU: ``sacrebleu.corpus_ter`` is slow (tens of segments per second),
  so it is timed on a **subsample**: the first ``--sacre-segments`` segments
  of the first ``--sacre-systems`` systems, and its rate (segments/s) is
  compared with vecscore's rate on the full data.  On that subsample both
  scores are printed and must agree (the benchmark stops otherwise).

Every figure is printed with numba's thread count and ``os.getloadavg()``
(the machine is shared: load from other processes slows both sides).

Run: ``python benchmarks/bench_ter.py [--sacre-segments 150] [--sacre-systems 2]``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

DATA = Path(os.environ.get("VECSCORE_DATA_DIR", Path(__file__).resolve().parents[1].parent / "shared" / "data"))
PAIRS = {"en-de": ("de", "ACD"), "en-zh": ("zh", "AB"), "en-ja": ("ja", "A")}
OPTION_SETS = {
    "en-de": [{}, {"normalized": True}],
    "en-zh": [{}, {"normalized": True, "asian_support": True}],
    "en-ja": [{}, {"normalized": True, "asian_support": True}],
}


def _read(path: Path) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


def load(pair: str):
    lang, letters = PAIRS[pair]
    root = DATA / "wmt21-news-systems" / pair
    streams = [_read(root / f"newstest2021.{pair}.ref.{x}.{lang}") for x in letters]
    systems = {p.name.split(".hyp.")[1].rsplit(".", 1)[0]: _read(p)
               for p in sorted((root / "system-outputs").glob(f"newstest2021.{pair}.hyp.*.{lang}"))}
    return systems, streams


def context() -> str:
    import numba

    load1, load5, _ = os.getloadavg()
    return f"[threads={numba.get_num_threads()} load={load1:.2f}/{load5:.2f}]"


def bench_pair(pair: str, options: dict, sacre_segments: int, sacre_systems: int) -> float:
    import sacrebleu

    from vecscore.ter import corpus_ter

    systems, streams = load(pair)
    names = list(systems)
    corpus_ter(systems[names[0]][:50], [s[:50] for s in streams], **options)  # compile / load the kernel
    n_segments = sum(len(h) for h in systems.values())
    t0 = time.perf_counter()
    for name in names:
        corpus_ter(systems[name], streams, **options)
    ours = time.perf_counter() - t0
    ours_rate = n_segments / ours
    label = f"{pair} {','.join(k for k in options) or 'default'} ({len(streams)} refs)"
    print(f"{label}: vecscore {len(names)} systems x {len(streams[0])} segments = {n_segments} in {ours:.3f} s "
          f"({ours_rate:,.0f} seg/s) {context()}", flush=True)
    n_sub = 0
    t_sacre = 0.0
    for name in names[:sacre_systems]:
        hyps = systems[name][:sacre_segments]
        sub = [s[:sacre_segments] for s in streams]
        t0 = time.perf_counter()
        expected = sacrebleu.corpus_ter(hyps, sub, **options)
        t_sacre += time.perf_counter() - t0
        n_sub += len(hyps)
        got = corpus_ter(hyps, sub, **options)
        if got.num_edits != expected.num_edits or abs(got.score - expected.score) > 1e-9:
            sys.exit(f"MISMATCH {pair} {name}: vecscore {got.score!r} vs sacreBLEU {expected.score!r}")
        print(f"  {name}: sacreBLEU {expected.score:.4f} == vecscore {got.score:.4f} on {len(hyps)} segments")
    sacre_rate = n_sub / t_sacre
    ratio = ours_rate / sacre_rate
    print(f"  sacreBLEU (subsample: first {sacre_segments} segments of {min(sacre_systems, len(names))} systems, "
          f"{n_sub} segments) {t_sacre:.2f} s ({sacre_rate:,.1f} seg/s); vecscore/sacreBLEU = {ratio:,.0f}x "
          f"{context()}", flush=True)
    return ratio


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sacre-segments", type=int, default=150)
    parser.add_argument("--sacre-systems", type=int, default=2)
    parser.add_argument("--pairs", nargs="*", default=list(PAIRS))
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    from vecscore.ter import corpus_ter

    corpus_ter(["a b"], [["a c"]])
    print(f"first call (imports numba, loads or compiles the kernel): {time.perf_counter() - t0:.2f} s {context()}")
    ratios = []
    for pair in args.pairs:
        for options in OPTION_SETS[pair]:
            ratios.append(bench_pair(pair, options, args.sacre_segments, args.sacre_systems))
    print(f"speed-up vecscore/sacreBLEU: min {min(ratios):,.0f}x, max {max(ratios):,.0f}x {context()}")


if __name__ == "__main__":
    main()
