"""``vecscore pairwise`` and ``vecscore mbr``: matrices and choices per source from JSON Lines, Parquet and text
files, against sacreBLEU's and rouge-score's per-cell scores computed here; bad rows named, no output left
behind."""
from __future__ import annotations

import json
import logging
import random
import re

import numpy as np
import pytest

from tests.conftest import data_file
from vecscore.cli.main import main

sacrebleu = pytest.importorskip("sacrebleu")
rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
logging.getLogger("sacrebleu").setLevel(logging.ERROR)


@pytest.fixture(scope="module")
def sources(shared_data) -> list[list[str]]:
    """Three WMT21 en-de source sentences, each with its first candidates among the 20 systems' outputs."""
    folder = data_file(shared_data, "wmt21-news-systems", "en-de", "system-outputs")
    systems = [f.read_text(encoding="utf-8").split("\n") for f in sorted(folder.glob("newstest2021.en-de.hyp.*.de"))]
    lines = random.Random(4).sample(range(1002), 3)
    return [[s[k] for s in systems][:n] for k, n in zip(lines, (5, 3, 6))]


def _chrf(hyps, refs, **kw) -> np.ndarray:
    return np.array([[sacrebleu.sentence_chrf(h, [r], **kw).score for r in refs] for h in hyps])


def _run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def _jsonl(path, rows) -> str:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def test_pairwise_from_jsonl(sources, tmp_path, capsys):
    refs = [s[::-1][:2] for s in sources]
    src = _jsonl(tmp_path / "in.jsonl", [{"id": k, "candidates": c, "refs": r} for k, (c, r) in
                                         enumerate(zip(sources, refs))])
    out = tmp_path / "out.jsonl"
    code, _, err = _run(["pairwise", "--input", src, "--refs-column", "refs", "--metric", "chrf", "--option",
                         "word_order=2", "-o", str(out)], capsys)
    assert code == 0, err
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["source"] for r in rows] == [0, 1, 2]
    for row, c, r in zip(rows, sources, refs):
        np.testing.assert_allclose(np.array(row["matrix"]), _chrf(c, r, word_order=2), rtol=0, atol=1e-9)


def test_pairwise_from_text_groups_to_stdout(sources, tmp_path, capsys):
    cands = [s[:3] for s in sources]
    hyp = tmp_path / "hyps.txt"
    hyp.write_text("".join(f"{t}\n" for c in cands for t in c), encoding="utf-8")
    code, text, err = _run(["pairwise", "--hyps", str(hyp), "--group-size", "3", "--metric", "rouge1"], capsys)
    assert code == 0, err
    rows = [json.loads(line) for line in text.splitlines()]
    assert len(rows) == 3
    scorer = rouge_scorer.RougeScorer(["rouge1"])
    for row, c in zip(rows, cands):
        expected = [[scorer.score(r, h)["rouge1"].fmeasure for r in c] for h in c]
        np.testing.assert_allclose(np.array(row["matrix"]), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_mbr_from_a_table(sources, tmp_path, capsys, fmt):
    if fmt == "parquet":
        pa = pytest.importorskip("pyarrow", exc_type=ImportError)  # a pyarrow built for another NumPy: skip
        pq = pytest.importorskip("pyarrow.parquet", exc_type=ImportError)
        path = tmp_path / "in.parquet"
        pq.write_table(pa.table({"cands": sources}), path)
    else:
        path = tmp_path / "in.jsonl"
        _jsonl(path, [{"cands": c} for c in sources])
    out = tmp_path / "mbr.jsonl"
    code, _, err = _run(["mbr", "--input", str(path), "--column", "cands", "-o", str(out)], capsys)
    assert code == 0, err
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    for row, c in zip(rows, sources):
        expected = _chrf(c, c).mean(axis=1)  # diagonal included, as mbrs
        np.testing.assert_allclose(row["expected"], expected, rtol=0, atol=1e-9)
        assert row["index"] == int(np.argmax(expected)) and row["text"] == c[row["index"]]
        assert row["score"] == row["expected"][row["index"]]


def test_mbr_ter_takes_the_lowest(sources, tmp_path, capsys):
    src = _jsonl(tmp_path / "in.jsonl", [{"candidates": sources[2]}])
    code, text, err = _run(["mbr", "--input", src, "--metric", "ter"], capsys)
    assert code == 0, err
    (row,) = [json.loads(line) for line in text.splitlines()]
    c = sources[2]
    expected = np.array([[sacrebleu.sentence_ter(h, [r]).score for r in c] for h in c]).mean(axis=1)
    np.testing.assert_allclose(row["expected"], expected, rtol=0, atol=1e-9)
    assert row["index"] == int(np.argmin(expected))


@pytest.mark.parametrize("rows,extra,message", [
    ([{"candidates": ["a"]}, {"candidates": "a b"}], [], r"in\.jsonl, line 2: column 'candidates' is a str"),
    ([{"candidates": ["a", 3]}], [], r"line 1: candidates\[1\] is int"),
    ([{"candidates": []}], [], r"line 1: column 'candidates' is an empty list"),
    ([{"cands": ["a"]}], [], r"line 1: no column 'candidates' \(columns: cands\)"),
    ([{"candidates": ["a"]}], ["--option", "beta"], r"--option 'beta': write NAME=VALUE"),
    ([{"candidates": ["a"]}], ["--option", "betta=1"], r"unknown option 'betta'"),
    ([{"candidates": ["a"]}], ["--metric", "ter", "--aggregate"], "aggregate=True is for chrf and bleu"),
])
def test_bad_input_is_named_and_leaves_no_output(tmp_path, capsys, rows, extra, message):
    src = _jsonl(tmp_path / "in.jsonl", rows)
    out = tmp_path / "out.jsonl"
    code, text, err = _run(["mbr", "--input", src, "-o", str(out), *extra], capsys)
    assert code == 2 and text == ""
    assert err.startswith("vecscore: error: ")
    assert re.search(message, err), err
    assert not out.exists()


def test_text_groups_must_divide_the_file(tmp_path, capsys):
    hyp = tmp_path / "h.txt"
    hyp.write_text("a\nb\nc\n", encoding="utf-8")
    code, _, err = _run(["pairwise", "--hyps", str(hyp), "--group-size", "2"], capsys)
    assert code == 2 and "not a multiple of 2" in err
    code, _, err = _run(["pairwise", "--hyps", str(hyp), "--input", str(hyp)], capsys)
    assert code == 2 and "either --input" in err


def test_runs_of_sources_give_the_same_rows_and_name_the_source_of_an_error(sources, tmp_path, capsys, monkeypatch):
    """Sources are scored in runs (a progress bar moves per run): one source per run gives the rows of one run
    for all; an error found inside a later run names that source, and no output file is left."""
    from vecscore.cli import pairwise as cli_pairwise

    src = _jsonl(tmp_path / "in.jsonl", [{"candidates": c} for c in sources])
    whole, per_source = tmp_path / "whole.jsonl", tmp_path / "runs.jsonl"
    assert _run(["mbr", "--input", src, "--metric", "chrf", "-o", str(whole)], capsys)[0] == 0
    monkeypatch.setattr(cli_pairwise, "CHUNK_CELLS", 1)
    assert _run(["mbr", "--input", src, "--metric", "chrf", "-o", str(per_source)], capsys)[0] == 0
    assert per_source.read_text(encoding="utf-8") == whole.read_text(encoding="utf-8")
    rows = [json.loads(line) for line in whole.read_text(encoding="utf-8").splitlines()]
    for row, cands in zip(rows, sources):
        expected = _chrf(cands, cands).mean(axis=1)
        np.testing.assert_allclose(row["expected"], expected, rtol=0, atol=1e-9)
        assert row["index"] == int(np.argmax(expected)) and row["text"] == cands[row["index"]]
    bad = tmp_path / "bad.jsonl"  # a lone surrogate, as JSON escapes it
    bad.write_text("".join(json.dumps({"candidates": c}) + "\n" for c in sources[:2] + [["ok", "\ud800"]]))
    out = tmp_path / "never.jsonl"
    code, _, err = _run(["pairwise", "--input", str(bad), "--metric", "chrf", "-o", str(out)], capsys)
    assert code == 2 and "source 3 (counted from 1" in err and not out.exists()
