"""What ``benchmarks/peers_rows.py`` records and reads: the result of each row (:class:`Row`, :class:`Task`:
timed cells, agreement checks, notes) and the real corpora it measures on.
"""
from __future__ import annotations

import glob
import json
import os
import sys
import time
import traceback
import unicodedata
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("VECSCORE_DATA_DIR", ROOT.parent / "shared" / "data"))

VEC = "vecscore"
VEC_COMPILED = "vecscore, VECSCORE_ROUTE=compiled"
SACRE = "sacreBLEU"
BLEUSCORE = "bleuscore"
FASTBLEU = "fast-bleu"
NLTK = "NLTK"
RS = "rouge-score"
RSRS = "rouge-score-rs"
RRUST = "rouge-rust"


class NotAvailable(Exception):
    """A tool cannot do this cell; the message becomes ``n/a (message)``."""


# --------------------------------------------------------------------------------------------- recording


class Row:
    """What one row measured: tasks (each a list of cells), notes and the row's conditions."""

    def __init__(self, name: str, cfg):
        self.name = name
        self.cfg = cfg
        self.title = ""
        self.tasks: list[dict] = []
        self.notes: list[str] = []

    def task(self, label: str, what: str = "") -> Task:
        t = Task(self, label, what)
        self.tasks.append(t.data)
        return t

    def note(self, text: str) -> None:
        self.notes.append(text)


class Task:
    def __init__(self, row: Row, label: str, what: str):
        self.row = row
        self.data = {"task": label, "what": what, "cells": []}

    def _cell(self, tool: str) -> dict:
        for c in self.data["cells"]:
            if c["tool"] == tool:
                return c
        c = {"tool": tool}
        self.data["cells"].append(c)
        return c

    def time(self, tool: str, n: int, fn, *, fast: bool = True, warmup=None, note: str = "", repeat: int | None = None,
             setup=None):
        """Time ``fn()`` (``n`` pairs): one warm-up call (``warmup()`` if given, else ``fn()``), then the best of
        the repeats, each after an untimed ``setup()`` if given.  Returns ``fn()``'s output, or None when the tool
        could not do it (recorded as n/a)."""
        cfg = self.row.cfg
        if repeat is None:
            repeat = cfg.repeat if fast else cfg.peer_repeat
        if setup is None and tool == SACRE:
            setup = clear_sacre_caches
        cell = self._cell(tool)
        try:
            (warmup or fn)()
            best, out, done = float("inf"), None, 0
            while done < max(1, repeat):
                if setup is not None:
                    setup()
                t0 = time.perf_counter()
                out = fn()
                dt = time.perf_counter() - t0
                best = min(best, dt)
                done += 1
                if done == 1 and repeat > 2:  # a slow call gets fewer repeats (the run must fit in minutes)
                    repeat = repeat if dt < 1.0 else min(repeat, 3) if dt < 4.0 else 2
        except NotAvailable as e:
            cell["na"] = str(e)
            return None
        except Exception as e:  # a peer failing must not end the row
            cell["na"] = f"failed: {type(e).__name__}: {str(e)[:120]}"
            traceback.print_exc()
            return None
        cell.update(n=n, seconds=best, rate=n / best if best > 0 else float("inf"), repeat=done)
        if note:
            cell["note"] = note
        return out

    def time_alternating(self, tools: list[str], n: int, fns: list, *, rounds: int) -> list | None:
        """Time several tools on the same ``n`` pairs for a ratio: one warm-up call each, then ``rounds`` rounds
        of one timed call per tool in turn, the best per tool (a slow spell of the machine falls on every tool
        alike, not on whichever ran first).  Returns the last outputs, or None if one failed (recorded as n/a)."""
        cells = [self._cell(tool) for tool in tools]
        best = [float("inf")] * len(fns)
        outs: list = [None] * len(fns)
        try:
            for fn in fns:
                fn()
            for _ in range(rounds):
                for j, fn in enumerate(fns):
                    t0 = time.perf_counter()
                    outs[j] = fn()
                    best[j] = min(best[j], time.perf_counter() - t0)
        except Exception as e:  # a failure must not end the row
            for cell in cells:
                cell["na"] = f"failed: {type(e).__name__}: {str(e)[:120]}"
            traceback.print_exc()
            return None
        for cell, b in zip(cells, best):
            cell.update(n=n, seconds=b, rate=n / b if b > 0 else float("inf"), repeat=rounds)
        return outs

    def na(self, tool: str, reason: str) -> None:
        self._cell(tool)["na"] = reason

    def check(self, tool: str, text: str) -> None:
        c = self._cell(tool)
        c["check"] = (c["check"] + "; " + text) if c.get("check") else text


def guarded_check(task: Task, tool: str, fn) -> None:
    """Record ``fn()`` (a string) as the cell's agreement check; a failure is recorded, not raised."""
    try:
        task.check(tool, fn())
    except Exception as e:
        task.check(tool, f"check failed: {type(e).__name__}: {str(e)[:80]}")


def diff_check(task: Task, tool: str, label: str, fn) -> None:
    """``label`` and the float ``fn()`` returns, as the cell's agreement check."""
    guarded_check(task, tool, lambda: f"{label} {fmt(fn())}")


def clear_sacre_caches() -> None:
    """Empty sacreBLEU's per-line tokenizer caches (``functools.lru_cache`` on each tokenizer's ``__call__``).

    Without this, the repeats after the first would find every hypothesis already tokenized by a cached
    scorer (``BLEU(references=...)`` keeps its tokenizer), which a user scoring new output never gets.
    """
    for name, mod in list(sys.modules.items()):
        if not name.startswith("sacrebleu.tokenizers") or mod is None:
            continue
        for obj in vars(mod).values():
            if isinstance(obj, type):
                for attr in vars(obj).values():
                    clear = getattr(attr, "cache_clear", None)
                    if callable(clear):
                        clear()


class compiled_route:
    """``VECSCORE_ROUTE=compiled`` for the calls inside (vecscore reads it on every call)."""

    def __enter__(self):
        self.old = os.environ.get("VECSCORE_ROUTE")
        os.environ["VECSCORE_ROUTE"] = "compiled"

    def __exit__(self, *exc):
        if self.old is None:
            os.environ.pop("VECSCORE_ROUTE", None)
        else:
            os.environ["VECSCORE_ROUTE"] = self.old


def forced(fn):
    """``fn`` run with vecscore's compiled route forced."""
    def run():
        with compiled_route():
            return fn()
    return run


def need(module: str, dist: str):
    """Import a peer; ``NotAvailable`` if it is not installed."""
    import importlib

    try:
        return importlib.import_module(module)
    except Exception as e:
        raise NotAvailable(f"{dist} not installed ({type(e).__name__})") from None


def peer(task: Task, tool: str, module: str, dist: str):
    """The peer's module, or None after recording ``n/a (not installed)``."""
    try:
        return need(module, dist)
    except NotAvailable as e:
        task.na(tool, str(e))
        return None


def fmt(x: float) -> str:
    return "0" if x == 0 else f"{x:.1e}"


# --------------------------------------------------------------------------------------------- data


def data_dir(cfg) -> Path:
    d = Path(cfg.data)
    if not d.is_dir():
        raise NotAvailable(f"data folder {d} not found")
    return d


def read_lines(path: Path) -> list[str]:
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n")


def wmt21(cfg, pair: str, ref: str = "A"):
    """``(systems, hyps per system, reference)`` for one WMT21 news pair (``en-de``, ``en-zh``, ``en-ja``)."""
    d = data_dir(cfg) / "wmt21-news-systems" / pair
    tgt = pair.split("-")[1]
    reference = read_lines(d / f"newstest2021.{pair}.ref.{ref}.{tgt}")
    files = sorted(glob.glob(str(d / "system-outputs" / f"newstest2021.{pair}.hyp.*.{tgt}")))
    if not files:
        raise NotAvailable(f"no system outputs in {d}")
    names = [Path(f).name[len(f"newstest2021.{pair}.hyp."):-len(tgt) - 1] for f in files]
    hyps = [read_lines(Path(f)) for f in files]
    for name, h in zip(names, hyps):
        if len(h) != len(reference):
            raise NotAvailable(f"{pair} {name}: {len(h)} lines vs {len(reference)} in the reference")
    return names, hyps, reference


def realsumm(cfg):
    path = data_dir(cfg) / "realsumm-cnndm" / "realsumm_cnndm_100docs.jsonl"
    rows = [json.loads(line) for line in path.open(encoding="utf-8")]
    return ["\n".join(r["summary_sentences"]) for r in rows], ["\n".join(r["reference_sentences"]) for r in rows]


def summeval(cfg):
    path = data_dir(cfg) / "summeval-bartscore" / "summeval_16sys_11refs.jsonl"
    rows = [json.loads(line) for line in path.open(encoding="utf-8")]
    return [r["summary"] for r in rows], [r["references"] for r in rows]


# typographic characters that have no NFKD decomposition to ASCII
_FOLD = str.maketrans({
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u00ab": '"', "\u00bb": '"', "\u2033": '"',
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2039": "'", "\u203a": "'", "\u2032": "'",
    "\u2013": "-", "\u2014": "-", "\u2012": "-", "\u2015": "-", "\u2212": "-", "\u2010": "-", "\u2011": "-",
    "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u2007": " ", "\u200b": "",
    "\u00df": "ss", "\u20ac": "EUR", "\u00a3": "GBP", "\u00b0": " deg", "\u2026": "...", "\u00b7": ".",
    "\u00e6": "ae", "\u00c6": "AE", "\u00f8": "o", "\u00d8": "O", "\u0142": "l", "\u0141": "L",
})


def ascii_fold(text: str) -> str:
    """A fixed mapping for typographic punctuation, then NFKD with every remaining non-ASCII character dropped."""
    text = unicodedata.normalize("NFKD", text.translate(_FOLD))
    return text.encode("ascii", "ignore").decode("ascii")


def rouge_arrays(results, types):
    """``{type: (P, R, F)}`` from a list of rouge-score-style dicts of Score tuples."""
    return {k: tuple(np.array([getattr(r[k], f) for r in results], dtype=np.float64)
                     for f in ("precision", "recall", "fmeasure")) for k in types}


def vec_arrays(res, types):
    return {k: (np.asarray(res[k].precision), np.asarray(res[k].recall), np.asarray(res[k].fmeasure)) for k in types}


def flat_arrays(res, types):
    """rouge-rust's ``score_batch_flat`` columns."""
    return {k: tuple(np.array(getattr(res, f"{k}_{f}"), dtype=np.float64) for f in ("precision", "recall", "fmeasure"))
            for k in types}


def max_diff(a: dict, b: dict, k: int | None = None) -> float:
    """Largest |difference| of P, R and F over the types both hold (first ``k`` pairs)."""
    worst = 0.0
    for t in a:
        for x, y in zip(a[t], b[t]):
            x, y = np.asarray(x)[:k], np.asarray(y)[:k]
            worst = max(worst, float(np.max(np.abs(x - y))) if len(x) else 0.0)
    return worst
