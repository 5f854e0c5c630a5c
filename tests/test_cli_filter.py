"""vecscore filter: kept rows against scores computed independently (rouge-score, sacreBLEU)."""
from __future__ import annotations

import json

import pytest

from vecscore.cli.filter import parse_condition
from vecscore.cli.main import main
from vecscore.errors import VecscoreError

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
pytestmark = pytest.mark.filterwarnings("ignore")

WORDS = "the a cat dog sat on mat rug and with big small red ran home quickly".split()


def _rows(n=300, seed=3):
    import numpy as np

    rng = np.random.default_rng(seed)

    def text():
        return " ".join(rng.choice(WORDS, size=rng.integers(1, 14)))

    return [{"id": i, "hyp": text(), "ref": text(), "note": {"k": i}} for i in range(n)]


def _write(tmp_path, rows):
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize("chunk", ["7", "1000"])
def test_filter_rouge_against_rouge_score(tmp_path, chunk):
    rows = _write(tmp_path, _rows())
    out = tmp_path / "kept.jsonl"
    argv = ["filter", "--input", str(rows), "--where", "rougeL_fmeasure>=0.3", "--where", "rouge2_recall<0.5",
            "--stem", "-o", str(out), "--chunk-size", chunk, "--quiet"]
    assert main(argv) == 0
    kept = [json.loads(line) for line in out.read_text().splitlines()]
    scorer = rouge_scorer.RougeScorer(["rouge2", "rougeL"], use_stemmer=True)
    expected = []
    for r in _rows():
        s = scorer.score(r["ref"], r["hyp"])
        if s["rougeL"].fmeasure >= 0.3 and s["rouge2"].recall < 0.5:
            expected.append((r["id"], s["rougeL"].fmeasure, s["rouge2"].recall))
    assert 0 < len(expected) < 300
    assert [(k["id"], k["rougeL_fmeasure"], k["rouge2_recall"]) for k in kept] == expected  # order kept, bit-identical
    assert kept[0]["note"] == {"k": kept[0]["id"]} and kept[0]["pair"] == kept[0]["id"]  # input columns passed through


def test_filter_any_and_bleu_against_sacrebleu(tmp_path):
    sacrebleu = pytest.importorskip("sacrebleu")
    rows = _write(tmp_path, _rows(120, seed=4))
    out = tmp_path / "kept.csv"
    argv = ["filter", "--input", str(rows), "--where", "bleu_score>8", "--where", "rouge1_precision==1", "--any",
            "--keep", "id", "-o", str(out), "--quiet"]
    assert main(argv) == 0
    import csv

    kept = list(csv.DictReader(out.open()))
    scorer = rouge_scorer.RougeScorer(["rouge1"])
    expected = [r["id"] for r in _rows(120, seed=4)
                if sacrebleu.sentence_bleu(r["hyp"], [r["ref"]]).score > 8
                or scorer.score(r["ref"], r["hyp"])["rouge1"].precision == 1]
    assert len(expected) > 3 and [int(k["id"]) for k in kept] == expected
    assert list(kept[0]) == ["pair", "id", "rouge1_precision", "rouge1_recall", "rouge1_fmeasure", "bleu_score"]


def test_filter_summary_and_parquet(tmp_path, capsys):
    pq = pytest.importorskip("pyarrow.parquet")
    rows = _write(tmp_path, _rows(50))
    out = tmp_path / "kept.parquet"
    assert main(["filter", "--input", str(rows), "--where", "rouge1_fmeasure>0.99", "-o", str(out), "--summary", "-",
                 "--keep", "id"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    table = pq.read_table(out)
    assert summary["kept"] == table.num_rows and summary["n_pairs"] == 50
    assert f"kept {table.num_rows:,d} of 50 rows" in captured.err
    assert all(f >= 0.99 for f in table.column("rouge1_fmeasure").to_pylist())


def test_filter_needs_row_output_and_valid_conditions(tmp_path, capsys):
    rows = _write(tmp_path, _rows(5))
    assert main(["filter", "--input", str(rows), "--where", "rouge1_fmeasure>0", "--format", "json"]) == 2
    assert main(["filter", "--input", str(rows), "--where", "rougeSU4_fmeasure>0"]) == 2
    assert "--rouge155" in capsys.readouterr().err
    for bad in ("rougeL_fmeasure=>0.3", "rougeL_f1>=0.3", "rougeL_fmeasure>=high"):
        with pytest.raises(VecscoreError):
            parse_condition(bad)
    assert str(parse_condition(" rougeL_fmeasure >= 3e-1 ")) == "rougeL_fmeasure>=0.3"
