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
maps both to ``well`` (see vecscore/text/perl_stemmer.py).  Fixture ``db_good`` (tests/conftest.py) switches
those two keys to ``good`` for these oracles; test_two_databases_differ_only_on_best_better
shows that without it exactly the pairs containing these words differ.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import data_file
from tests.rouge155_sample import RUNS, parse_output, score_run
from vecscore.rouge.rouge155.api import (
    perl_average,
    rouge155,
    rouge155_args,
    script_metric_name,
)

M_REALSUMM = ["rouge1", "rouge2", "rouge3", "rouge4", "rougeL", "rougeW-1.2", "rougeS4", "rougeSU4"]
M_SUMMEVAL = ["rouge1", "rouge2", "rougeL", "rougeS4", "rougeSU4"]
FIELDS = (("R", "recall"), ("P", "precision"), ("F", "fmeasure"))


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
@pytest.mark.parametrize("stem,config,extra", RUNS, ids=[r[0] for r in RUNS])
def test_sample_test_expected_output(shared_data, stem, config, extra, db_good):
    root = data_file(shared_data, "rouge155-sample-test")
    args, scored = score_run(root, config, extra)
    metrics = args.kwargs["metrics"]
    assert [script_metric_name(m) for m in metrics] == [
        "ROUGE-1", "ROUGE-2", "ROUGE-3", "ROUGE-4", "ROUGE-L", "ROUGE-W-1.2", "ROUGE-S*", "ROUGE-SU*"]
    per, avg_d = parse_output(data_file(root, "expected-output", f"{stem}-d.out"))
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
        _, avg = parse_output(root / "expected-output" / name)
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
