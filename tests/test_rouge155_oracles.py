"""ROUGE-1.5.5 parity with the oracle-computed files in ../shared/data (per summary, exact at 5 decimals).

* realsumm-cnndm/computed_here_rouge155_per_pair.jsonl: 2,500 single-reference pairs,
  ROUGE-1..4, L, W-1.2, S4, SU4, with and without -m.
* summeval-bartscore/computed_here_rouge155_multiref.jsonl: 1,600 hypotheses x 11
  references, -f A and -f B, -m, ROUGE-1, 2, L, S4, SU4.
* rouge155-sample-test/expected-output: the release's nine standard commands on
  ROUGE-test.xml (SEE format, 4 models), plus DUC2002 (SPL) and the pyrouge DUC2004
  sample (3 models), every per-EVAL ``-d`` line; and the printed averages (bootstrap
  means), reproduced bit for bit by :func:`vecscore.rouge155.perl_average`.

The WordNet database: these files were produced with a database built by
``buildExeptionDB.pl`` in the file system's directory order, in which ``best`` and
``better`` (keys of both adj.exc and adv.exc) map to ``good``.  vecscore (and the test
harness) read the files in the order that reproduces REALSumm's *published* scores, which
maps both to ``well`` (see vecscore/text/perl_stemmer.py).  Fixture ``db_good`` switches
those two keys to ``good`` for these oracles; test_two_databases_differ_only_on_best_better
shows that without it exactly the pairs containing these words differ.
"""
from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import data_file
from vecscore.rouge.rouge155.api import (
    perl_average,
    rouge155,
    rouge155_args,
    script_metric_name,
)
from vecscore.text.perl_stemmer import stem as _stem

r155 = importlib.import_module("vecscore.rouge.rouge155.api")  # the module (vecscore.rouge155 is the function)

M_REALSUMM = ["rouge1", "rouge2", "rouge3", "rouge4", "rougeL", "rougeW-1.2", "rougeS4", "rougeSU4"]
M_SUMMEVAL = ["rouge1", "rouge2", "rougeL", "rougeS4", "rougeSU4"]
FIELDS = (("R", "recall"), ("P", "precision"), ("F", "fmeasure"))


@pytest.fixture
def db_good(monkeypatch):
    """Stem best/better -> good, as the database the oracle files were made with."""

    def stem(word):
        return "good" if word in ("best", "better") else _stem(word)

    monkeypatch.setattr(r155, "perl_stem", stem)


def _jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def _assert_exact(res, expected: list[dict], metrics, tag: str, rows=None):
    """Every R, P, F equal to the printed 5-decimal value (to 1e-9)."""
    for m in metrics:
        sm = script_metric_name(m)
        for key, attr in FIELDS:
            want = np.array([e[sm][key] for e in expected])
            got = getattr(res[m], attr)
            if rows is not None:
                got = got[rows]
            bad = np.flatnonzero(np.abs(want - got) > 1e-9)
            assert bad.size == 0, (f"{tag} {sm} {key}: {bad.size} pairs differ, "
                                   f"first {bad[0]}: {got[bad[0]]} vs {want[bad[0]]}")


@pytest.fixture(scope="module")
def realsumm(shared_data):
    rows = _jsonl(data_file(shared_data, "realsumm-cnndm", "realsumm_cnndm_100docs.jsonl"))
    exp = _jsonl(data_file(shared_data, "realsumm-cnndm", "computed_here_rouge155_per_pair.jsonl"))
    ix = {(r["set"], r["system"], r["doc_id"]): r for r in rows}
    rows = [ix[(e["set"], e["system"], e["doc_id"])] for e in exp]
    hyps = ["\n".join(r["summary_sentences"]) for r in rows]
    refs = [r["reference_sentences"] for r in rows]  # a list of sentences: one reference
    return hyps, [[r] for r in refs], exp


@pytest.mark.parametrize("stem", [False, True])
def test_realsumm_per_pair(realsumm, stem, db_good):
    hyps, refs, exp = realsumm
    key = "rouge155_stem" if stem else "rouge155_nostem"
    res = rouge155(hyps, refs, metrics=M_REALSUMM, stemmer=stem, round5=True)
    assert res.n_pairs == 2500
    _assert_exact(res, [e[key] for e in exp], M_REALSUMM, f"realsumm stem={stem}")
    # full precision (round5=False) stays within the script's rounding
    raw = rouge155(hyps, refs, metrics=M_REALSUMM, stemmer=stem)
    for m in M_REALSUMM:
        assert np.max(np.abs(raw[m].recall - res[m].recall)) <= 5e-6 + 1e-12
        assert np.max(np.abs(raw[m].precision - res[m].precision)) <= 5e-6 + 1e-12
        assert np.max(np.abs(raw[m].fmeasure - res[m].fmeasure)) <= 2e-5


def test_two_databases_differ_only_on_best_better(realsumm):
    hyps, refs, exp = realsumm
    res = rouge155(hyps, refs, metrics=["rouge1"], stemmer=True, round5=True)
    want = np.array([e["rouge155_stem"]["ROUGE-1"]["F"] for e in exp])
    differ = set(np.flatnonzero(np.abs(res["rouge1"].fmeasure - want) > 1e-9).tolist())
    words = {i for i in range(len(hyps)) if re.search(r"(?i)\b(best|better)\b", hyps[i] + "\n".join(refs[i][0]))}
    assert differ and differ <= words


@pytest.fixture(scope="module")
def summeval(shared_data):
    rows = _jsonl(data_file(shared_data, "summeval-bartscore", "summeval_16sys_11refs.jsonl"))
    exp = _jsonl(data_file(shared_data, "summeval-bartscore", "computed_here_rouge155_multiref.jsonl"))
    ix = {(r["doc_id"], r["system"]): r for r in rows}
    rows = [ix[(e["doc_id"], e["system"])] for e in exp]
    return [r["summary"] for r in rows], [r["references"] for r in rows], exp


@pytest.mark.parametrize("flag,multi_ref", [("A", "pooled"), ("B", "best-recall")])
def test_summeval_11_references(summeval, flag, multi_ref, db_good):
    hyps, refs, exp = summeval
    args = rouge155_args(["-c", "95", "-r", "1000", "-n", "2", "-2", "4", "-U", "-a", "-m", "-d", "-f", flag])
    assert args.kwargs["metrics"] == M_SUMMEVAL and args.kwargs["multi_ref"] == multi_ref
    res = rouge155(hyps, refs, **args.kwargs)
    assert all(len(r) == 11 for r in refs)
    _assert_exact(res, [e[f"rouge155_11refs_f{flag}"] for e in exp], M_SUMMEVAL, f"summeval -f {flag}")


# --------------------------------------------------------------------------------------
# rouge155-sample-test: the release's configs, read as the script reads them
# --------------------------------------------------------------------------------------

_SEE = (re.compile(r'^<a size="[0-9]+" name="[0-9]+">\[([0-9]+)\]</a>\s+<a href="#[0-9]+" id=[0-9]+>([^<]+)'),
        re.compile(r'^<a name="[0-9]+">\[([0-9]+)\]</a>\s+<a href="#[0-9]+" id=[0-9]+>([^<]+)'))


def _read_summary(path: Path, fmt: str) -> str:
    """The script's readText input lines, as one SPL text (lines joined with "\\n")."""
    raw = path.read_bytes().decode("latin-1")
    assert raw.isascii()
    if fmt == "SPL":
        return raw
    lines = []
    for line in raw.splitlines(keepends=True):
        m = _SEE[0].match(line) or _SEE[1].match(line)
        if m:
            # the script keeps the line's "\n" inside the text: one byte of whitespace
            lines.append(m.group(2).replace("\n", " "))
    return "\n".join(lines)


def _evals(config: Path):
    """[(eval_id, {peer_id: text}, [model texts])] of an XML config, in file order."""
    xml = config.read_text()
    out = []
    for ev in re.finditer(r'<EVAL ID="([^"]+)">(.*?)</EVAL>', xml, re.S):
        body = ev.group(2)
        peer_root = config.parent / re.search(r"<PEER-ROOT>\s*(\S+)\s*</PEER-ROOT>", body).group(1)
        model_root = config.parent / re.search(r"<MODEL-ROOT>\s*(\S+)\s*</MODEL-ROOT>", body).group(1)
        fmt = re.search(r'<INPUT-FORMAT TYPE="([^"]+)">', body).group(1)
        peers = {p: _read_summary(peer_root / f, fmt) for p, f in re.findall(r'<P ID="([^"]+)">\s*(\S+)\s*</P>', body)}
        models = [_read_summary(model_root / f, fmt) for _, f in re.findall(r'<M ID="([^"]+)">\s*(\S+)\s*</M>', body)]
        out.append((ev.group(1), peers, models))
    return out


_LINE = re.compile(r"^(\S+) (ROUGE-\S+) Eval (\S+)\.(\S+) R:(\S+) P:(\S+) F:(\S+)$")
_AVG = re.compile(r"^(\S+) (ROUGE-\S+) Average_([RPF]): (\S+) ")


def _parse_output(path: Path):
    per, avg = {}, {}
    for line in path.read_text().splitlines():
        m = _LINE.match(line)
        if m:
            peer, metric, ev = m.group(1), m.group(2), m.group(3)
            per.setdefault((peer, metric), {})[ev] = tuple(map(float, m.group(5, 6, 7)))
            continue
        m = _AVG.match(line)
        if m:
            avg.setdefault((m.group(1), m.group(2)), {})[m.group(3)] = float(m.group(4))
    return per, avg


# (output file stem, config, extra flags); all share -c 95 -2 -1 -U -r 1000 -n 4 -w 1.2 -a
RUNS = [
    ("ROUGE-test-c95-2-1-U-r1000-n4-w1.2-a", "sample-test/ROUGE-test.xml", []),
    ("ROUGE-test-c95-2-1-U-r1000-n4-w1.2-a-m", "sample-test/ROUGE-test.xml", ["-m"]),
    ("ROUGE-test-c95-2-1-U-r1000-n4-w1.2-a-m-s", "sample-test/ROUGE-test.xml", ["-m", "-s"]),
    ("ROUGE-test-c95-2-1-U-r1000-n4-w1.2-l10-a", "sample-test/ROUGE-test.xml", ["-l", "10"]),
    ("ROUGE-test-c95-2-1-U-r1000-n4-w1.2-l10-a-m", "sample-test/ROUGE-test.xml", ["-l", "10", "-m"]),
    ("ROUGE-test-c95-2-1-U-r1000-n4-w1.2-l10-a-m-s", "sample-test/ROUGE-test.xml", ["-l", "10", "-m", "-s"]),
    ("ROUGE-test-c95-2-1-U-r1000-n4-w1.2-b75-a", "sample-test/ROUGE-test.xml", ["-b", "75"]),
    ("ROUGE-test-c95-2-1-U-r1000-n4-w1.2-b75-a-m", "sample-test/ROUGE-test.xml", ["-b", "75", "-m"]),
    ("ROUGE-test-c95-2-1-U-r1000-n4-w1.2-b75-a-m-s", "sample-test/ROUGE-test.xml", ["-b", "75", "-m", "-s"]),
    ("DUC2002-spl-c95-2-1-U-r1000-n4-w1.2-a", "sample-test/DUC2002-ROUGE.in.26.spl.xml", []),
    ("DUC2002-spl-c95-2-1-U-r1000-n4-w1.2-a-m", "sample-test/DUC2002-ROUGE.in.26.spl.xml", ["-m"]),
    ("pyrouge-duc2004-plain-c95-2-1-U-r1000-n4-w1.2-a", "pyrouge-duc2004-plain/ROUGE-config.xml", []),
    ("pyrouge-duc2004-plain-c95-2-1-U-r1000-n4-w1.2-a-m", "pyrouge-duc2004-plain/ROUGE-config.xml", ["-m"]),
]


def _score_run(root: Path, config: str, extra: list[str]):
    """Per peer: (eval ids, RougeResult) as the script's -a run computes them."""
    args = rouge155_args(["-c", "95", "-2", "-1", "-U", "-r", "1000", "-n", "4", "-w", "1.2", "-a", *extra])
    evals = _evals(root / config)
    out = {}
    for peer in sorted({p for _, peers, _ in evals for p in peers}):
        rows = [(e, peers[peer], models) for e, peers, models in evals if peer in peers]
        res = rouge155([r[1] for r in rows], [r[2] for r in rows], **args.kwargs)
        out[peer] = ([r[0] for r in rows], res)
    return args, out


@pytest.mark.parametrize("stem,config,extra", RUNS, ids=[r[0] for r in RUNS])
def test_sample_test_expected_output(shared_data, stem, config, extra, db_good):
    root = data_file(shared_data, "rouge155-sample-test")
    args, scored = _score_run(root, config, extra)
    metrics = args.kwargs["metrics"]
    assert [script_metric_name(m) for m in metrics] == [
        "ROUGE-1", "ROUGE-2", "ROUGE-3", "ROUGE-4", "ROUGE-L", "ROUGE-W-1.2", "ROUGE-S*", "ROUGE-SU*"]
    per, avg_d = _parse_output(data_file(root, "expected-output", f"{stem}-d.out"))
    n_checked = 0
    for peer, (eval_ids, res) in scored.items():
        for m in metrics:
            sm = script_metric_name(m)
            want = per[(peer, sm)]
            assert sorted(want) == sorted(eval_ids)
            got = np.stack([res[m].recall, res[m].precision, res[m].fmeasure], axis=1)
            exp = np.array([want[e] for e in eval_ids])
            bad = np.flatnonzero(np.abs(got - exp).max(axis=1) > 1e-9)
            assert bad.size == 0, f"{peer} {sm} eval {eval_ids[bad[0]]}: {got[bad[0]]} vs {exp[bad[0]]}"
            n_checked += len(eval_ids)
    assert n_checked == sum(len(v) for v in per.values())
    # the printed averages: the mean of 1000 bootstrap-sample means (srand(i) per sample)
    outs = [f"{stem}-d.out"] + ([f"{stem}.out"] if (root / "expected-output" / f"{stem}.out").exists() else [])
    for name in outs:
        _, avg = _parse_output(root / "expected-output" / name)
        assert avg == avg_d or name.endswith("-d.out")
        for peer, (eval_ids, res) in scored.items():
            boot = perl_average(res, n_samples=args.resamples, eval_ids=eval_ids, peer_id=peer)
            exact = res.mean()
            for m in metrics:
                sm = script_metric_name(m)
                want = avg[(peer, sm)]
                got = boot[m]
                assert (got.recall, got.precision, got.fmeasure) == (want["R"], want["P"], want["F"]), (name, peer, sm)
                # the exact mean differs from the printed bootstrap mean by sampling noise only
                for k, v in (("R", exact[m].recall), ("P", exact[m].precision), ("F", exact[m].fmeasure)):
                    assert abs(v - want[k]) < 5e-3
