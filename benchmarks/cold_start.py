"""The first score: whole commands in fresh processes, cold (empty kernel cache) and warm.

    python -m benchmarks.cold_start [--repeat 3] [--large]

Every row runs a command as a new process and reports its wall time and CPU
time (user + system, children included): first with an empty numba cache
folder (``NUMBA_CACHE_DIR`` pointing at a new temporary folder), then again
with the folder that run filled ("warm"); the median of ``--repeat`` warm
runs.  The official tools' command lines run on the same input beside them.

Inputs: the 8-pair example shipped in ``examples/`` and 2,000 real segments
(two WMT21 en-de systems against reference A, from ``../shared/data``).
``--large`` adds 20,040 pairs, above the small-batch route's limit, where the
cold run compiles kernels (minutes on two cores; ``vecscore warmup`` pays
this once ahead of time).
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("VECSCORE_DATA_DIR", ROOT.parent / "shared" / "data"))
PY = sys.executable
R155 = "-n 2 -w 1.2 -2 4 -U"
TEN = ("import vecscore; h = ['the cat sat on the mat number %d' % i for i in range(10)]; "
       "r = ['a cat was sitting on the mat number %d' % i for i in range(10)]; ")


def _run(cmd: list[str], env: dict) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"failed ({out.returncode}): {' '.join(cmd)}\n{out.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _load() -> str:
    return "load %.2f" % os.getloadavg()[0]


def _row(name: str, cmd: list[str], repeat: int, cold: bool) -> None:
    cache = tempfile.mkdtemp(prefix="vecscore-cold-")
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    env.pop("VECSCORE_CACHE_DIR", None)
    try:
        parts = []
        if cold:
            w, c = _run(cmd, env)
            parts.append(f"cold {w:7.2f} s wall {c:7.2f} s cpu")
        else:
            parts.append(" " * 36)
        warm = [_run(cmd, env) for _ in range(repeat)]
        w = statistics.median(x[0] for x in warm)
        c = statistics.median(x[1] for x in warm)
        parts.append(f"warm {w:6.2f} s wall {c:6.2f} s cpu")
        print(f"{name:<44} {' | '.join(parts)}   ({_load()})", flush=True)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def _wmt(folder: Path, n: int) -> tuple[Path, Path] | None:
    base = DATA / "wmt21-news-systems" / "en-de"
    if not base.is_dir():
        return None
    systems = sorted((base / "system-outputs").iterdir())[:2]
    ref = (base / "newstest2021.en-de.ref.A.de").read_text(encoding="utf-8").splitlines()
    hyps, refs = [], []
    while len(hyps) < n:
        for s in systems:
            hyps += s.read_text(encoding="utf-8").splitlines()
            refs += ref
    h, r = folder / f"wmt{n}.hyp", folder / f"wmt{n}.ref"
    h.write_text("\n".join(hyps[:n]) + "\n", encoding="utf-8")
    r.write_text("\n".join(refs[:n]) + "\n", encoding="utf-8")
    return h, r


def _commands(h: str, refs: list[str], label: str) -> list[tuple[str, list[str], bool]]:
    vs = [PY, "-m", "vecscore.cli"]
    io = ["--hyps", h, *sum((["--refs", r] for r in refs), [])]
    rouge_out = str(Path(tempfile.gettempdir()) / "rouge_score_out.csv")
    return [
        (f"vecscore rouge rouge1/2/L [{label}]", [*vs, "rouge", *io, "--metrics", "rouge1", "rouge2", "rougeL"], True),
        (f"  rouge-score CLI [{label}, 1st ref]", [PY, "-m", "rouge_score.rouge", f"--target_filepattern={refs[0]}",
                                                  f"--prediction_filepattern={h}", f"--output_filename={rouge_out}"],
         False),
        (f"vecscore bleu [{label}]", [*vs, "bleu", *io], True),
        (f"vecscore sentence-bleu [{label}]", [*vs, "sentence-bleu", *io, "--per-pair"], True),
        (f"  sacrebleu -b [{label}]", [PY, "-m", "sacrebleu", *refs, "-i", h, "-b"], False),
        (f"  sacrebleu --sentence-level [{label}]", [PY, "-m", "sacrebleu", *refs, "-i", h, "-b", "--sentence-level"],
         False),
        (f"vecscore rouge155 {R155} [{label}]", [*vs, "rouge155", *io, "--script-options", R155], True),
    ]


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeat", type=int, default=3, help="warm runs per row (median)")
    p.add_argument("--large", action="store_true", help="also 20,040 pairs (compiles kernels cold: minutes)")
    args = p.parse_args(argv)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, {_load()}; each row a fresh process; "
          "'cold': empty numba cache folder")
    rows = [
        ("python -c 'import vecscore'", [PY, "-c", "import vecscore"], True),
        ("  python -c 'import sacrebleu'", [PY, "-c", "import sacrebleu"], False),
        ("  python -c 'import rouge_score.rouge_scorer'", [PY, "-c", "from rouge_score import rouge_scorer"], False),
        ("vecscore.rouge on 10 pairs (Python)", [PY, "-c", TEN + "vecscore.rouge(h, r)"], True),
        ("vecscore.sentence_bleu on 10 pairs (Python)", [PY, "-c", TEN + "vecscore.sentence_bleu(h, r)"], True),
    ]
    ex = ROOT / "examples"
    rows += _commands(str(ex / "hyps.txt"), [str(ex / "refs.txt"), str(ex / "refs2.txt")], "example, 8 pairs")
    with tempfile.TemporaryDirectory() as tmp:
        sizes = [2000] + ([20040] if args.large else [])
        for n in sizes:
            files = _wmt(Path(tmp), n)
            if files is None:
                print(f"(no {DATA}/wmt21-news-systems: real-segment rows skipped)")
                break
            rows += _commands(str(files[0]), [str(files[1])], f"WMT21 en-de, {n:,d} pairs")
        for name, cmd, cold in rows:
            _row(name, cmd, args.repeat, cold)


if __name__ == "__main__":
    main()
