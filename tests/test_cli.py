"""The vecscore command: output against rouge-score, errors, pipes."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vecscore.cli.main import main

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _lines(name):
    return (EXAMPLES / name).read_text(encoding="utf-8").splitlines()


def test_corpus_means_match_rouge_score(capsys):
    assert main(["rouge", "--hyps", str(EXAMPLES / "hyps.txt"), "--refs", str(EXAMPLES / "refs.txt"),
                 "--refs", str(EXAMPLES / "refs2.txt"), "--stem"]) == 0
    out = json.loads(capsys.readouterr().out)
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2"], use_stemmer=True)
    theirs = [scorer.score_multi([r1, r2], h)
              for h, r1, r2 in zip(_lines("hyps.txt"), _lines("refs.txt"), _lines("refs2.txt"))]
    for k in ("rouge1", "rouge2"):
        for field in ("precision", "recall", "fmeasure"):
            exp = sum(getattr(t[k], field) for t in theirs) / len(theirs)
            assert out[k][field] == pytest.approx(exp, abs=1e-12)
    assert out["n_pairs"] == 8 and "nrefs:2" in out["signature"]


def test_per_pair_lines_match_rouge_score(capsys):
    assert main(["rouge", "--hyps", str(EXAMPLES / "hyps.txt"), "--refs", str(EXAMPLES / "refs.txt"),
                 "--metrics", "rouge1", "--per-pair"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    scorer = rouge_scorer.RougeScorer(["rouge1"])
    assert [r["pair"] for r in rows] == list(range(8))
    for row, h, r in zip(rows, _lines("hyps.txt"), _lines("refs.txt")):
        assert row["rouge1_fmeasure"] == scorer.score(r, h)["rouge1"].fmeasure


def test_line_count_mismatch_names_files(tmp_path, capsys):
    hyps = tmp_path / "h.txt"
    refs = tmp_path / "r.txt"
    hyps.write_text("a\nb\nc\n")
    refs.write_text("a\nb\n")
    assert main(["rouge", "--hyps", str(hyps), "--refs", str(refs)]) == 2
    err = capsys.readouterr().err
    assert "r.txt has 2 lines" in err and "h.txt has 3" in err


def test_blank_lines_are_kept_and_final_newline_is_optional(tmp_path, capsys):
    hyps = tmp_path / "h.txt"
    refs = tmp_path / "r.txt"
    hyps.write_text("a b\n\nc")  # 3 segments, the middle one empty, no final newline
    refs.write_text("a b\nx\r\nc\n")
    assert main(["rouge", "--hyps", str(hyps), "--refs", str(refs), "--metrics", "rouge1", "--per-pair"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["rouge1_fmeasure"] for r in rows] == [1.0, 0.0, 1.0]


def test_invalid_utf8_names_the_line(tmp_path, capsys):
    hyps = tmp_path / "h.txt"
    hyps.write_bytes(b"ok\nbad \xff here\n")
    assert main(["rouge", "--hyps", str(hyps), "--refs", str(hyps)]) == 2
    assert "line 2" in capsys.readouterr().err


def test_pipe_to_head_ends_quietly(tmp_path):
    hyps = tmp_path / "h.txt"
    hyps.write_text("a b c\n" * 20000)
    cmd = f"{sys.executable} -m vecscore.cli rouge --hyps {hyps} --refs {hyps} --per-pair | head -n 1"
    proc = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=300)
    assert proc.stdout.count("\n") == 1
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr
