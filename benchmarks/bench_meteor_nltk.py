"""NLTK's METEOR: vecscore vs NLTK's ``meteor_score``, same process, same data (E2E NLG, multi-reference).

The first ``--systems`` systems of ``../shared/data/e2e-nlg-challenge`` (630 outputs each, 1-45 references per
output, 7.45 on average), words and punctuation split by ``\\w+|[^\\w\\s]``:

* NLTK 3.9+: ``nltk.translate.meteor_score.meteor_score(refs, hyp)`` pair by pair;
* vecscore: ``vecscore.meteor.nltk_meteor.nltk_meteor_score(hyps, refs)`` once for the batch, "cold" (its stem
  and synonym caches empty: the first call in the process) and "warm" (the same call again), on the route
  ``auto`` picks (``--route`` forces ``plain`` or ``compiled``, the array route).

WordNet is loaded before any timing (both read it through NLTK's reader, which takes several seconds to load).
Every per-pair score must be equal (the benchmark stops otherwise).  The machine load (``os.getloadavg()``) is
printed with the figures.

Run: ``python benchmarks/bench_meteor_nltk.py [--systems 8] [--route auto]``.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

DATA = Path(os.environ.get("VECSCORE_DATA_DIR", Path(__file__).resolve().parents[1].parent / "shared" / "data"))
WORD = re.compile(r"\w+|[^\w\s]")


def load(n_systems: int) -> tuple[list[list[str]], list[list[list[str]]]]:
    folder = DATA / "e2e-nlg-challenge"
    blocks = (folder / "test_references_multi.txt").read_text(encoding="utf-8").split("\n\n")
    refs = [[WORD.findall(r) for r in b.split("\n") if r.strip()] for b in blocks]
    refs = [r for r in refs if r]
    hyps: list[list[str]] = []
    all_refs: list[list[list[str]]] = []
    for path in sorted((folder / "systems").glob("*.txt"))[:n_systems]:
        hyps += [WORD.findall(x) for x in path.read_text(encoding="utf-8").split("\n")[:len(refs)]]
        all_refs += refs
    return hyps, all_refs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--systems", type=int, default=8)
    parser.add_argument("--route", choices=("auto", "plain", "compiled"), default="auto")
    args = parser.parse_args(argv)
    os.environ["VECSCORE_ROUTE"] = args.route
    import numpy as np
    from nltk.corpus import wordnet
    from nltk.translate.meteor_score import meteor_score

    from vecscore.meteor.nltk_meteor import nltk_meteor_score

    hyps, refs = load(args.systems)
    t = time.perf_counter()
    wordnet.ensure_loaded()
    print(f"{len(hyps)} pairs, {sum(map(len, refs))} references; WordNet loaded in {time.perf_counter() - t:.2f} s")
    t = time.perf_counter()
    ours = nltk_meteor_score(hyps, refs)
    cold = time.perf_counter() - t
    t = time.perf_counter()
    nltk_meteor_score(hyps, refs)
    warm = time.perf_counter() - t
    t = time.perf_counter()
    theirs = np.array([meteor_score(r, h) for h, r in zip(hyps, refs)])
    nltk_s = time.perf_counter() - t
    if not np.array_equal(ours, theirs):
        print(f"MISMATCH: max |diff| {np.max(np.abs(ours - theirs))}", file=sys.stderr)
        return 1
    load1, load5, _ = os.getloadavg()
    print(f"route={args.route} load={load1:.2f}/{load5:.2f}: NLTK {nltk_s:.2f} s; vecscore cold {cold:.2f} s "
          f"({nltk_s / cold:.0f}x), warm {warm:.2f} s ({nltk_s / warm:.0f}x); all {len(hyps)} scores equal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
