"""coco-caption's METEOR: vecscore.coco.Meteor vs pycocoevalcap's Meteor (meteor-1.5.jar), same process, same
dictionaries.

Sets (``../shared/data/e2e-nlg-challenge``):

* ``e2e``: the TGen system's 630 outputs against every reference (1 to 45, 7.45 on average), PTB-tokenized as
  coco-caption does;
* ``25k``: 25,000 items x 5 references (:func:`benchmarks.bench_coco.items_25k`), texts split as given.

Per set and side: the first call including the scorer's construction (pycocoevalcap: the JVM's start and the
paraphrase table's load, which every process that uses it pays; vecscore: mapping the cached tables and, on the
compiled route, loading the kernels) and the best of ``--repeat`` later calls (pycocoevalcap: one; the jar's
scoring alone).  Wall seconds and ``os.getloadavg()``; vecscore runs on its default route (``VECSCORE_ROUTE``
unset) unless ``--route`` forces one, with numba's thread count (``NUMBA_NUM_THREADS``, else every core).  The
corpus scores of both sides must agree within 1e-12 and the per-item scores too, or the benchmark stops.

Run: ``python -m benchmarks.bench_meteor [--sets e2e,25k] [--repeat 3] [--route auto|plain|compiled]``.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from benchmarks.bench_coco import e2e, items_25k


def _load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def _sets(names: list[str]) -> dict:
    refs, systems = e2e()
    out = {}
    if "e2e" in names:
        from vecscore.coco import PTBTokenizer

        tok = PTBTokenizer()
        gts = tok.tokenize({i: [{"caption": r} for r in rs] for i, rs in enumerate(refs)})
        res = tok.tokenize({i: [{"caption": h}] for i, h in enumerate(systems["tgen"])})
        out["e2e"] = (gts, res)
    if "25k" in names:
        out["25k"] = items_25k(refs, systems)
    return out


def run(names: list[str], repeat: int) -> None:
    from pycocoevalcap.meteor.meteor import Meteor as JarMeteor

    from vecscore.coco import Meteor

    threads = os.environ.get("NUMBA_NUM_THREADS", str(os.cpu_count()))
    print(f"vecscore route: {os.environ.get('VECSCORE_ROUTE', 'auto')}, numba threads: {threads}")
    for name, (gts, res) in _sets(names).items():
        n_pairs = sum(len(v) for v in gts.values())
        t = time.perf_counter()
        jar = JarMeteor()
        theirs = jar.compute_score(gts, res)
        t_jar_first = time.perf_counter() - t
        t = time.perf_counter()
        jar.compute_score(gts, res)
        t_jar_next = time.perf_counter() - t
        jar = None  # stops the JVM
        t_first, ours = _timed(lambda: Meteor().compute_score(gts, res))
        diff = max(abs(ours[0] - theirs[0]), float(np.abs(np.subtract(ours[1], theirs[1])).max()))
        if diff > 1e-12:
            raise SystemExit(f"{name}: vecscore and pycocoevalcap differ by {diff:.2e}")
        scorer = Meteor()
        t_next = min(_timed(lambda: scorer.compute_score(gts, res))[0] for _ in range(repeat))
        print(f"{name}: {len(gts):,d} items, {n_pairs:,d} pairs, METEOR {ours[0]:.6f} (max |d| {diff:.1e})")
        print(f"  first call, construction included: pycocoevalcap {t_jar_first:.2f} s, vecscore {t_first:.3f} s "
              f"-> {t_jar_first / t_first:.1f}x   ({_load()})")
        print(f"  later call (scoring alone):        pycocoevalcap {t_jar_next:.2f} s, vecscore {t_next:.3f} s "
              f"-> {t_jar_next / t_next:.1f}x   ({_load()})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default="e2e,25k")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--route", choices=["auto", "plain", "compiled"])
    args = ap.parse_args()
    if args.route:
        os.environ["VECSCORE_ROUTE"] = args.route
    run([s for s in args.sets.split(",") if s], args.repeat)


if __name__ == "__main__":
    main()
