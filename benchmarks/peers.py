"""vecscore against its peers, on the real corpora in ../shared/data and on synthetic text.

    python -m benchmarks.peers                       # every row (about 4 minutes on 2 cores, under 10 loaded)
    python -m benchmarks.peers --quick               # smaller inputs, fewer repeats (about 1.5 minutes)
    python -m benchmarks.peers --only realsumm,summeval --json results.json
    python -m benchmarks.peers --list

Peers: rouge-score, rouge-score-rs, rouge-rust (``import fast_rouge``), sacreBLEU, bleuscore, fast-bleu and
NLTK (``pip install -e '.[peers]'``).  Each row runs in a fresh Python process of its own
(``benchmarks/peers_rows.py``), so imports, caches and thread pools never leak from one row into the next.
Inside a row, every tool gets one untimed warm-up call (vecscore's numba kernels come from the on-disk cache
warm; imports and data loading are never timed), then the best of ``--repeat`` timed calls for vecscore and
the compiled peers, or of ``--peer-repeat`` calls for the pure-Python peers (sacreBLEU, rouge-score, NLTK),
which are timed on a stated subset (the ``n`` column) and compared as pairs per second.  The ratio column is
the first tool's pairs/s over the tool's own (> 1: the first tool, vecscore, is faster).  Every peer's
numbers are checked against the reference implementation on the subset ("check" column).  A peer that is
missing, lacks the feature or fails prints ``n/a (reason)``; a row that fails prints its error and the run
goes on.  Each row prints ``os.getloadavg()`` before and after it and the thread counts (numba for
vecscore; rayon for the Rust peers).
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.peers_rows import DEFAULT_DATA, ROWS  # noqa: E402

DISTRIBUTIONS = ["vecscore", "numba", "numpy", "sacrebleu", "rouge-score", "rouge-score-rs", "rouge-rust",
                 "bleuscore", "fast-bleu", "nltk", "mecab-python3", "ipadic"]


def versions() -> dict:
    out = {}
    for d in DISTRIBUTIONS:
        try:
            out[d] = metadata.version(d)
        except metadata.PackageNotFoundError:
            out[d] = "not installed"
    return out


def machine() -> dict:
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                                timeout=10).stdout.strip()
    except Exception:
        commit = "?"
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"date": _dt.datetime.now().astimezone().isoformat(timespec="seconds"), "cores": os.cpu_count(),
            "cpu": cpu, "python": platform.python_version(), "platform": platform.platform(), "commit": commit,
            "load_at_start": list(os.getloadavg())}


def run_child(name: str, args) -> dict:
    """One row in a fresh process; a crash or time-out becomes the row's error."""
    with tempfile.TemporaryDirectory(prefix="peers-") as tmp:
        out = Path(tmp) / f"{name}.json"
        cmd = [sys.executable, "-m", "benchmarks.peers_rows", name, "--out", str(out), "--repeat", str(args.repeat),
               "--peer-repeat", str(args.peer_repeat), "--data", str(args.data)]
        if args.quick:
            cmd.append("--quick")
        env = dict(os.environ)
        if args.threads:
            env["NUMBA_NUM_THREADS"] = str(args.threads)
            env["RAYON_NUM_THREADS"] = str(args.threads)
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            return {"row": name, "error": f"timed out after {args.timeout} s", "title": ROWS[name][1]}
        wall = time.perf_counter() - t0
        if proc.returncode != 0 or not out.exists():
            tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
            return {"row": name, "error": f"process exited {proc.returncode}: {tail[-300:]}", "title": ROWS[name][1]}
        result = json.loads(out.read_text(encoding="utf-8"))
        result["process_seconds"] = wall
        if args.verbose and proc.stderr.strip():
            print(proc.stderr, file=sys.stderr)
        return result


def _num(x: float) -> str:
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def _secs(x: float) -> str:
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def _load(v) -> str:
    return "/".join(f"{x:.2f}" for x in v) if v else "?"


def print_row(r: dict, file=sys.stdout) -> None:
    p = lambda s="": print(s, file=file)  # noqa: E731
    p(f"== {r['row']}: {r.get('title', '')}")
    if "threads" in r:
        th = r["threads"]
        p(f"   load (1/5/15 min) before {_load(r.get('load_before'))}, after {_load(r.get('load_after'))}; "
          f"numba threads {th.get('numba_threads')} ({th.get('numba_threading_layer')}), "
          f"rayon {th.get('RAYON_NUM_THREADS')}, cores {th.get('cpu_count')}; "
          f"row took {r.get('process_seconds', r.get('wall_seconds', 0)):.0f} s")
    for note in r.get("notes", []):
        p(f"   - {note}")
    if r.get("error"):
        p(f"   ROW {'SKIPPED' if r['error'].startswith('n/a') else 'FAILED'}: {r['error']}")
    if not r.get("tasks"):
        p()
        return
    p(f"   {'task':<44} {'tool':<34} {'n':>7} {'best s':>8} {'of':>2} {'pairs/s':>10} {'ratio':>7}  notes, check")
    for t in r["tasks"]:
        first = None
        for i, c in enumerate(t["cells"]):
            label = t["task"] if i == 0 else ""
            if "na" in c:
                p(f"   {label:<44} {c['tool']:<34} n/a ({c['na']})")
                continue
            if first is None:
                first = c
                ratio = "-"
            else:
                ratio = f"{first['rate'] / c['rate']:.2f}x" if c["rate"] else "?"
            extra = "; ".join(x for x in (c.get("note", ""), c.get("check", "")) if x)
            p(f"   {label:<44} {c['tool']:<34} {c['n']:>7,d} {_secs(c['seconds']):>8} {c['repeat']:>2} "
              f"{_num(c['rate']):>10} {ratio:>7}  {extra}")
    p()


def summary(results: list[dict], file=sys.stdout) -> None:
    """One line per task: vecscore (default route) against the fastest peer that did the task."""
    print("== summary: vecscore (default route) / fastest peer, pairs/s (> 1: vecscore ahead)", file=file)
    for r in results:
        for t in r.get("tasks", []):
            cells = [c for c in t["cells"] if "rate" in c]
            ours = next((c for c in cells if c["tool"] == "vecscore"),
                        next((c for c in cells if c["tool"].startswith("vecscore")), None))
            peers = [c for c in cells if not c["tool"].startswith("vecscore")]
            if "slowdown" in t:
                line = f"non-ASCII / ASCII-folded time {t['slowdown']:.2f}x"
            elif ours is None or not peers:
                continue
            else:
                best = max(peers, key=lambda c: c["rate"])
                line = (f"{ours['rate'] / best['rate']:>7.2f}x  {ours['tool']} {_num(ours['rate'])}/s vs "
                        f"{best['tool']} {_num(best['rate'])}/s")
                forced = next((c for c in cells if "compiled" in c["tool"]), None)
                if forced is not None:
                    line += f" (compiled route forced: {forced['rate'] / best['rate']:.2f}x)"
            print(f"   {r['row']:<12} {t['task']:<46} {line}", file=file)
    print(file=file)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", action="append", default=[], metavar="ROW[,ROW]",
                   help=f"rows to run (repeatable or comma-separated), of: {', '.join(ROWS)}")
    p.add_argument("--skip", action="append", default=[], metavar="ROW[,ROW]", help="rows to leave out")
    p.add_argument("--list", action="store_true", help="list the rows and exit")
    p.add_argument("--quick", action="store_true",
                   help="smaller inputs (5 systems instead of 20, smaller subsets), best of 3/1: about 1.5 minutes")
    p.add_argument("--repeat", type=int, default=None,
                   help="vecscore and the Rust/C++ peers: best of this many timed calls (default 5, --quick 3)")
    p.add_argument("--peer-repeat", type=int, default=None,
                   help="pure-Python peers on their subset: best of this many (default 2, --quick 1)")
    p.add_argument("--threads", type=int, default=None,
                   help="set NUMBA_NUM_THREADS and RAYON_NUM_THREADS for the rows (default: unset, all cores)")
    p.add_argument("--timeout", type=int, default=400, help="seconds one row may take before it is stopped")
    p.add_argument("--data", default=str(DEFAULT_DATA), help="the shared data folder (default: ../shared/data)")
    p.add_argument("--json", metavar="PATH", help="also write every figure, with machine, versions and load, here")
    p.add_argument("-v", "--verbose", action="store_true", help="show each row process's stderr")
    args = p.parse_args(argv)

    if args.list:
        for name, (_, what) in ROWS.items():
            print(f"{name:<13} {what}")
        return 0
    split = lambda xs: [y.strip() for x in xs for y in x.split(",") if y.strip()]  # noqa: E731
    only, skip = split(args.only), split(args.skip)
    unknown = [x for x in only + skip if x not in ROWS]
    if unknown:
        p.error(f"unknown row(s) {', '.join(unknown)}; choose from {', '.join(ROWS)}")
    names = [n for n in (only or list(ROWS)) if n not in skip]
    if args.repeat is None:
        args.repeat = 3 if args.quick else 5
    if args.peer_repeat is None:
        args.peer_repeat = 1 if args.quick else 2

    info = machine()
    vers = versions()
    print(f"vecscore vs peers -- {info['date']}, {info['cores']} cores ({info['cpu']}), Python {info['python']}, "
          f"commit {info['commit']}, load at start {_load(info['load_at_start'])}"
          f"{', --quick' if args.quick else ''}")
    print("versions: " + ", ".join(f"{k} {v}" for k, v in vers.items()))
    print("each row in a fresh process; warm calls only (imports, data loading and a warm-up call untimed); "
          "n = pairs timed (pure-Python peers on a subset); 'best s' = best of 'of' timed calls "
          f"(vecscore and Rust/C++ peers: {args.repeat}, 3 or 2 when a call takes over 1 or 4 s; pure-Python peers: "
          f"{args.peer_repeat}); ratio = first tool's pairs/s / this tool's\n")
    sys.stdout.flush()
    t0 = time.perf_counter()
    results = []
    for name in names:
        r = run_child(name, args)
        results.append(r)
        print_row(r)
        sys.stdout.flush()
    total = time.perf_counter() - t0
    summary(results)
    print(f"total {total:.0f} s, load at end {_load(os.getloadavg())}")
    if args.json:
        doc = {"machine": info, "versions": vers, "quick": args.quick, "repeat": args.repeat,
               "peer_repeat": args.peer_repeat, "threads_env": args.threads, "total_seconds": total,
               "load_at_end": list(os.getloadavg()), "rows": results}
        Path(args.json).write_text(json.dumps(doc, indent=1), encoding="utf-8")
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
