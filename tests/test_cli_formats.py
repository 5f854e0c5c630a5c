"""vecscore command: every input and output format round-trips to the same numbers."""
from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vecscore import rouge
from vecscore.bleu.api import corpus_bleu, sentence_bleu
from vecscore.cli.main import main

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

pytestmark = pytest.mark.filterwarnings("ignore")
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
HYPS = (EXAMPLES / "hyps.txt").read_text(encoding="utf-8").splitlines()
REFS1 = (EXAMPLES / "refs.txt").read_text(encoding="utf-8").splitlines()
REFS2 = (EXAMPLES / "refs2.txt").read_text(encoding="utf-8").splitlines()
METRICS = ["rouge1", "rouge2", "rougeL"]


def _expected():
    r = rouge(HYPS, [list(x) for x in zip(REFS1, REFS2)], metrics=METRICS)
    return r.columns()


def _write_inputs(tmp_path: Path) -> dict[str, list[str]]:
    """The same 8 pairs (two references) in every input format, with an extra 'id' column."""
    rows = [{"id": f"doc{i}", "hyp": h, "ref": r1, "ref2": r2} for i, (h, r1, r2) in enumerate(zip(HYPS, REFS1, REFS2))]
    (tmp_path / "d.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (tmp_path / "dl.jsonl").write_text(
        "".join(json.dumps({"id": r["id"], "hyp": r["hyp"], "refs": [r["ref"], r["ref2"]]}) + "\n" for r in rows),
        encoding="utf-8",
    )
    for name, delim in (("d.csv", ","), ("d.tsv", "\t")):
        with open(tmp_path / name, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=["id", "hyp", "ref", "ref2"], delimiter=delim)
            w.writeheader()
            w.writerows(rows)
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "d.parquet")
    pq.write_table(pa.table({"id": [r["id"] for r in rows], "hyp": HYPS, "refs": [list(x) for x in zip(REFS1, REFS2)]}),
                   tmp_path / "dl.parquet")
    return {
        "text": ["--hyps", str(EXAMPLES / "hyps.txt"), "--refs", str(EXAMPLES / "refs.txt"),
                 "--refs", str(EXAMPLES / "refs2.txt")],
        "jsonl": ["--input", str(tmp_path / "d.jsonl"), "--ref-column", "ref", "--ref-column", "ref2"],
        "jsonl-list": ["--input", str(tmp_path / "dl.jsonl"), "--ref-column", "refs"],
        "csv": ["--input", str(tmp_path / "d.csv"), "--ref-column", "ref", "--ref-column", "ref2"],
        "tsv": ["--input", str(tmp_path / "d.tsv"), "--ref-column", "ref", "--ref-column", "ref2"],
        "parquet": ["--input", str(tmp_path / "d.parquet"), "--ref-column", "ref", "--ref-column", "ref2"],
        "parquet-list": ["--input", str(tmp_path / "dl.parquet"), "--ref-column", "refs"],
    }


def _read_rows(path: Path, fmt: str) -> list[dict]:
    if fmt == "jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    if fmt in ("csv", "tsv"):
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f, delimiter="," if fmt == "csv" else "\t"))
        return [{k: (float(v) if k.startswith("rouge") else int(v) if k == "pair" else v) for k, v in r.items()}
                for r in rows]
    return pq.read_table(path).to_pylist()


@pytest.mark.parametrize("out_fmt", ["jsonl", "csv", "tsv", "parquet"])
def test_every_input_format_and_output_format_round_trips(tmp_path, out_fmt):
    inputs = _write_inputs(tmp_path)
    expected = _expected()
    for name, args in inputs.items():
        out = tmp_path / f"out-{name}.{out_fmt}"
        keep = ["--keep", "hyp"] if name == "text" else ["--keep", "id"]
        assert main(["rouge", *args, "--metrics", *METRICS, "-o", str(out), "--chunk-size", "3", "--quiet",
                     *keep]) == 0, name
        rows = _read_rows(out, out_fmt)
        assert [r["pair"] for r in rows] == list(range(len(HYPS))), name
        if name == "text":
            assert [r["hyp"] for r in rows] == HYPS
        else:
            assert [r["id"] for r in rows] == [f"doc{i}" for i in range(len(HYPS))]
        for col, values in expected.items():
            assert [r[col] for r in rows] == values.tolist(), (name, col)  # floats survive every format exactly


@pytest.mark.parametrize("name", ["jsonl", "csv", "parquet-list"])
def test_json_summary_is_the_same_for_every_input(tmp_path, capsys, name):
    inputs = _write_inputs(tmp_path)
    assert main(["rouge", *inputs["text"], "--metrics", *METRICS]) == 0
    base = json.loads(capsys.readouterr().out)
    assert main(["rouge", *inputs[name], "--metrics", *METRICS, "--chunk-size", "2"]) == 0
    assert json.loads(capsys.readouterr().out) == base
    assert base["n_pairs"] == 8 and "nrefs:2" in base["signature"]


def test_stats_columns_and_summary_file(tmp_path):
    inputs = _write_inputs(tmp_path)
    out, summary = tmp_path / "s.parquet", tmp_path / "summary.json"
    assert main(["rouge", *inputs["parquet-list"], "--metrics", "rouge1", "--stats", "-o", str(out),
                 "--summary", str(summary)]) == 0
    t = pq.read_table(out)
    assert t.schema.field("rouge1_hits").type == pa.int64()
    s = json.loads(summary.read_text())
    hits = int(pc_sum(t, "rouge1_hits"))
    assert s["micro"]["rouge1"]["recall"] == hits / int(pc_sum(t, "rouge1_r_den"))


def pc_sum(t, col):
    return np.asarray(t.column(col)).sum()


def test_bleu_commands_match_the_library(tmp_path, capsys):
    inputs = _write_inputs(tmp_path)
    refs = [list(x) for x in zip(REFS1, REFS2)]
    assert main(["bleu", *inputs["jsonl-list"], "--chunk-size", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    direct = corpus_bleu(HYPS, refs)
    assert out["score"] == direct.score and out["counts"] == direct.counts.tolist()
    assert out["signature"] == direct.signature and out["n_pairs"] == 8
    assert main(["sentence-bleu", *inputs["text"], "--format", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["bleu_score"] for r in rows] == sentence_bleu(HYPS, refs).score.tolist()


def test_rouge155_command(tmp_path, capsys):
    from vecscore.rouge.rouge155.api import rouge155

    inputs = _write_inputs(tmp_path)
    refs = [list(x) for x in zip(REFS1, REFS2)]
    assert main(["rouge155", *inputs["csv"], "--script-options", "-n 2 -2 4 -u -m", "--per-pair",
                 "--chunk-size", "5"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    direct = rouge155(HYPS, refs, metrics=["rouge1", "rouge2", "rougeL", "rougeSU4"], stemmer=True, round5=True)
    assert [r["rougeSU4_fmeasure"] for r in rows] == direct["rougeSU4"].fmeasure.tolist()
    assert main(["rouge155", *inputs["text"], "--metrics", "rougeS*", "rougeW-1.2"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["name"] == "ROUGE-1.5.5" and "pooled" in summary and "rouge155" in summary["signature"]


def test_stdin_and_stdout(tmp_path):
    inputs = _write_inputs(tmp_path)
    data = (tmp_path / "d.jsonl").read_bytes()
    cmd = [sys.executable, "-m", "vecscore.cli", "rouge", "--input", "-", "--input-format", "jsonl",
           "--ref-column", "ref",
           "--metrics", "rouge1", "--format", "parquet", "-o", "-"]
    proc = subprocess.run(cmd, input=data, capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()
    t = pq.read_table(io.BytesIO(proc.stdout))
    assert t.column("rouge1_fmeasure").to_pylist() == rouge(HYPS, REFS1, metrics=["rouge1"])["rouge1"].fmeasure.tolist()
    hyps = (EXAMPLES / "hyps.txt").read_bytes()
    cmd = [sys.executable, "-m", "vecscore.cli", "rouge", "--hyps", "-", "--refs", str(EXAMPLES / "refs.txt"),
           "--metrics", "rouge1", "--format", "csv"]
    proc = subprocess.run(cmd, input=hyps, capture_output=True, timeout=300)
    assert (proc.returncode == 0
            and proc.stdout.decode().splitlines()[0] == "pair,rouge1_precision,rouge1_recall,rouge1_fmeasure")
    del inputs


def test_empty_input_gives_an_empty_summary(tmp_path, capsys):
    (tmp_path / "e.txt").write_text("")
    assert main(["rouge", "--hyps", str(tmp_path / "e.txt"), "--refs", str(tmp_path / "e.txt"),
                 "--metrics", "rouge1"]) == 0
    out = json.loads(capsys.readouterr().out)
    # the mean of zero pairs is undefined: null, not a score of 0
    assert out["n_pairs"] == 0 and out["rouge1"] == {"precision": None, "recall": None, "fmeasure": None}
