"""coco-caption's metrics: vecscore.coco vs pycocoevalcap 1.2, same process, same dictionaries.

Data (``../shared/data/e2e-nlg-challenge``: 630 inputs, 1-45 crowd-sourced references each, 21 systems):

* ``e2e``: each of the 21 systems as pycocoevalcap is run in practice (630 items, every reference);
* ``25k``: 25,000 items x 5 references: item ``i`` is system ``(i // 630) % 21``'s output for input
  ``i % 630`` against 5 of that input's references, rotated by ``i // 630`` (so items differ).

Texts are the E2E texts as they are (cased, with punctuation), split on whitespace by both sides, as the
scorers are used after any tokenizer.  ``--ptb`` also times the PTB tokenizer (:func:`bench_ptb`):
pycocoevalcap's Java round trip (``PTBTokenizer().tokenize``) against :class:`vecscore.coco.ptb.PTBTokenizer` on
the distinct E2E texts, one E2E system's two calls and the 25k set (``--sets ""`` times the tokenizer alone).

Every timing is the best of ``--repeat`` runs of vecscore (one run of pycocoevalcap, which is slow), wall
seconds, with ``os.getloadavg()``, on both of vecscore.coco's routes: ``plain`` (NumPy on one thread, no numba:
what a small call or a process without compiled kernels gets) and ``compiled`` (vecscore's kernels, loaded or
compiled by one untimed call first: what a large call gets once ``vecscore warmup --only bleu,coco`` or the
background compiler has run).  The numbers of both sides are compared (bit for bit); the benchmark stops if
they differ.

Run: ``python -m benchmarks.bench_coco [--sets e2e,25k] [--repeat 3] [--ptb]``.
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np

from benchmarks.bench_bleu import _best as timed

DATA = Path(os.environ.get("VECSCORE_DATA_DIR", Path(__file__).resolve().parents[1].parent / "shared" / "data"))


def e2e(data: Path = DATA) -> tuple[list[list[str]], dict[str, list[str]]]:
    """E2E NLG: per input its references, and per system its outputs."""
    root = data / "e2e-nlg-challenge"
    blocks = [[r for r in b.split("\n") if r.strip()]
              for b in (root / "test_references_multi.txt").read_text(encoding="utf-8").split("\n\n")]
    refs = [b for b in blocks if b]
    systems = {p.stem: p.read_text(encoding="utf-8").split("\n")[:len(refs)]
               for p in sorted((root / "systems").glob("*.txt"))}
    return refs, systems


def items_25k(refs, systems, n: int = 25_000, k: int = 5):
    names = sorted(systems)
    gts, res = {}, {}
    for i in range(n):
        inst, rep = i % len(refs), i // len(refs)
        block = refs[inst]
        gts[i] = [block[(rep + j) % len(block)] for j in range(k)]
        res[i] = [systems[names[rep % len(names)]][inst]]
    return gts, res


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load={one:.2f}/{five:.2f}"


def scorers():
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.rouge.rouge import Rouge

    import vecscore.coco as vc

    return [("Bleu", lambda g, r: Bleu(4).compute_score(g, r, verbose=0),
             lambda g, r: vc.Bleu(4).compute_score(g, r, verbose=0), 0.0),
            ("Rouge", lambda g, r: Rouge().compute_score(g, r), lambda g, r: vc.Rouge().compute_score(g, r), 0.0),
            ("Cider", lambda g, r: Cider().compute_score(g, r), lambda g, r: vc.Cider().compute_score(g, r), 0.0)]


def compare(name: str, gts: dict, res: dict, repeat: int, routes: tuple[str, ...] = ("plain", "compiled")) -> dict:
    """pycocoevalcap once, then vecscore on each route (``plain``: NumPy alone; ``compiled``: its kernels, after
    one untimed call that loads or compiles them), best of ``repeat``; ``{metric: (theirs, {route: ours})}``."""
    from vecscore import route

    out = {}
    for metric, theirs, ours, tol in scorers():
        t_them, want = timed(lambda: theirs(gts, res), 1)
        times = {}
        for way in routes:
            with route.preferred(way):
                if way == "compiled":
                    ours(gts, res)
                t_us, got = timed(lambda: ours(gts, res), repeat)
            for a, b in zip(want, got):
                diff = float(np.max(np.abs(np.asarray(a, float) - np.asarray(b, float))))
                if diff > tol:
                    raise SystemExit(f"{name} {metric} ({way}): vecscore differs from pycocoevalcap by {diff:g}")
            times[way] = t_us
        out[metric] = (t_them, times)
        figures = "  ".join(f"{way} {t:7.4f} s x{t_them / t:6.1f}" for way, t in times.items())
        print(f"{name:>10} {metric:>6}: pycocoevalcap {t_them:8.3f} s  vecscore {figures}  [{load()}]", flush=True)
    return out


def ptb_sets(data: Path = DATA) -> dict[str, dict]:
    """The PTB tokenizer's inputs, as pycocoevalcap gets them (``{id: [{"caption": ...}]}``): ``distinct`` the
    16,570 distinct E2E texts (all references and the 21 systems' outputs), one per id; ``refs`` and ``outputs`` the
    two calls coco-caption's evaluation makes for one E2E system (its 630 items' 4,693 references, its 630 outputs);
    ``25k`` the 25k set's 150,000 captions (5 references and 1 output per item; each text ~9 times)."""
    refs, systems = e2e(data)
    texts = list(dict.fromkeys([r for b in refs for r in b] + [t for v in systems.values() for t in v]))
    first = systems[sorted(systems)[0]]
    gts, res = items_25k(refs, systems)
    big = {k: [{"caption": c} for c in v] for k, v in gts.items()}
    big.update({f"h{k}": [{"caption": c} for c in v] for k, v in res.items()})
    return {"distinct": {i: [{"caption": t}] for i, t in enumerate(texts)},
            "refs": {i: [{"caption": r} for r in block] for i, block in enumerate(refs)},
            "outputs": {i: [{"caption": t}] for i, t in enumerate(first)},
            "25k": big}


def bench_ptb(repeat: int, names: tuple[str, ...] = ("distinct", "refs", "outputs", "25k")) -> None:
    """pycocoevalcap's Java round trip (``PTBTokenizer().tokenize``, JVM start included) against vecscore's PTB
    tokenizer on each of :func:`ptb_sets`: vecscore's first call in a fresh process (lexer rules compiled in the
    call), warm (rules compiled, every caption-level cache cleared before each call: new captions in a warm
    process) and repeated (the captions' lines cached), best of ``repeat``.  The tokens are checked against the
    jar's."""
    import subprocess
    import sys

    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer as Java

    from vecscore.coco import ptb

    sets = ptb_sets()
    for name in names:
        caps = sets[name]
        n = sum(len(v) for v in caps.values())
        t_java, want = timed(lambda: Java().tokenize(caps), 1)
        load_java = load()
        child = ("import time, json, sys; from benchmarks.bench_coco import ptb_sets; from vecscore.coco import ptb; "
                 f"caps = ptb_sets()[{name!r}]; t = time.perf_counter(); out = ptb.PTBTokenizer().tokenize(caps); "
                 "t = time.perf_counter() - t; json.dump([t, list(out.items())], sys.stdout)")
        proc = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True,
                              cwd=Path(__file__).resolve().parents[1])
        t_first, items = json.loads(proc.stdout)
        load_first = load()
        ptb.PTBTokenizer().tokenize(sets["distinct"])  # the rules of the lexer's route compiled

        def warm():
            ptb.clear_cache()
            return ptb.PTBTokenizer().tokenize(caps)

        t_warm, warmed = timed(warm, repeat)
        t_again, again = timed(lambda: ptb.PTBTokenizer().tokenize(caps), repeat)
        if warmed != want or again != want or items != [list(kv) for kv in want.items()]:
            raise SystemExit(f"PTB tokens differ from the jar's ({name})")
        print(f"{'PTB':>10} {name} ({n:,d} captions, {len(caps):,d} ids): jar {t_java:.3f} s [{load_java}]  "
              f"vecscore first call {t_first:.4f} s (x{t_java / t_first:.1f}) [{load_first}]  "
              f"warm {t_warm:.4f} s (x{t_java / t_warm:.1f})  repeated {t_again:.4f} s (x{t_java / t_again:.1f})  "
              f"[{load()}]", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default="e2e,25k", help="comma list of: e2e, 25k")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--systems", type=int, default=21, help="how many E2E systems in the e2e set")
    ap.add_argument("--ptb", action="store_true", help="also time the PTB tokenizer against the Java jar")
    args = ap.parse_args(argv)
    refs, systems = e2e()
    import numba

    print(f"vecscore.coco vs pycocoevalcap 1.2; plain = NumPy on 1 thread, compiled = vecscore's kernels on "
          f"{numba.get_num_threads()} threads; [{load()}]")
    sets = args.sets.split(",") if args.sets else []
    if "e2e" in sets:
        totals: dict = {}
        for name in sorted(systems)[: args.systems]:
            gts = {i: r for i, r in enumerate(refs)}
            res = {i: [systems[name][i]] for i in range(len(refs))}
            for m, (a, times) in compare(name, gts, res, args.repeat).items():
                sums = totals.setdefault(m, {"pycocoevalcap": 0.0})
                sums["pycocoevalcap"] += a
                for way, t in times.items():
                    sums[way] = sums.get(way, 0.0) + t
        for m, sums in totals.items():
            a = sums.pop("pycocoevalcap")
            figures = "  ".join(f"{way} {t:7.4f} s x{a / t:6.1f}" for way, t in sums.items())
            print(f"{'e2e total':>10} {m:>6}: pycocoevalcap {a:8.3f} s  vecscore {figures}")
    if "25k" in sets:
        gts, res = items_25k(refs, systems)
        compare("25k x 5", gts, res, args.repeat)
    if args.ptb:
        bench_ptb(args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
