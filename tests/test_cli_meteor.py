"""``vecscore meteor``: against meteor-1.5.jar run with the same options (the oracle, one JVM per option set), its
outputs and its errors in the user's terms."""
from __future__ import annotations

import io
import json
import shlex
import sys

import numpy as np
import pytest

from tests.conftest import e2e_nlg
from tests.meteor_jar import jar_stdio
from vecscore.cli.main import main
from vecscore.cli.meteor import STAT_COLUMNS

pytest.importorskip("pycocoevalcap")  # the jar's data

N_ITEMS = 100
TOL = 1e-12


def _run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def e2e(shared_data):
    refs, systems = e2e_nlg(shared_data)
    return refs[:N_ITEMS], systems["sheff1"][:N_ITEMS]


@pytest.fixture
def files(tmp_path, e2e):
    """Reference file k holds each item's k-th reference, an empty line where an item has fewer."""
    refs, hyps = e2e
    paths = []
    for k in range(max(len(r) for r in refs)):
        p = tmp_path / f"ref{k + 1}.txt"
        p.write_text("".join(f"{r[k] if k < len(r) else ''}\n" for r in refs), encoding="utf-8")
        paths.append(str(p))
    h = tmp_path / "hyp.txt"
    h.write_text("".join(f"{x}\n" for x in hyps), encoding="utf-8")
    return str(h), paths


def test_default_options_equal_the_jar(files, e2e, tmp_path, capsys):
    """Normalized by default (the jar with -norm): the corpus score (summed statistics), each line's score and its
    23 statistics, in text, JSON, JSON Lines, CSV and Parquet."""
    refs, hyps = e2e
    hyp, ref_paths = files
    ((jar_stats, jar_items, jar_corpus),) = jar_stdio([(hyps, refs)], ["-l", "en", "-norm"])
    code, text, _ = _run(["meteor", "--hyps", hyp, "-r", *ref_paths], capsys)
    assert code == 0
    lines = text.splitlines()
    assert lines[0].startswith("METEOR = ") and abs(float(lines[0].split(" = ")[1]) - jar_corpus) <= TOL
    assert lines[2] == "signature: meteor-1.5-wo-en-norm-0.85_0.2_0.6_0.75-ex_st_sy_pa-1.0_0.6_0.8_0.6"
    assert shlex.split(lines[3].split(": ", 1)[1])[-1] == "-norm"
    code, out, _ = _run(["meteor", "--hyps", hyp, "-r", *ref_paths, "--format", "json"], capsys)
    summary = json.loads(out)
    assert code == 0 and summary["name"] == "METEOR" and summary["n_items"] == N_ITEMS
    assert abs(summary["score"] - jar_corpus) <= TOL and summary["signature"] == lines[2].split(": ")[1]
    assert summary["jar_args"] == ["-l", "en", "-m", "exact stem synonym paraphrase", "-w", "1.0 0.6 0.8 0.6", "-p",
                                   "0.85 0.2 0.6 0.75", "-norm"]
    code, out, _ = _run(["meteor", "--hyps", hyp, "-r", *ref_paths, "--per-item", "--stats"], capsys)
    rows = [json.loads(r) for r in out.splitlines()]
    assert code == 0 and [r["pair"] for r in rows] == list(range(N_ITEMS))
    assert list(rows[0]) == ["pair", "meteor_score", *STAT_COLUMNS]
    np.testing.assert_allclose([r["meteor_score"] for r in rows], jar_items, rtol=0, atol=TOL)
    assert [[r[c] for c in STAT_COLUMNS] for r in rows] == [[int(x) for x in s] for s in jar_stats]
    csv_path = tmp_path / "rows.csv"
    assert main(["meteor", "--hyps", hyp, "-r", *ref_paths, "--per-item", "-o", str(csv_path)]) == 0
    body = csv_path.read_text(encoding="utf-8").splitlines()
    assert body[0] == "pair,meteor_score" and [float(x.split(",")[1]) for x in body[1:]] == [
        r["meteor_score"] for r in rows]
    pq = pytest.importorskip("pyarrow.parquet")
    pq_path, summary_path = tmp_path / "rows.parquet", tmp_path / "summary.json"
    assert main(["meteor", "--hyps", hyp, "-r", *ref_paths, "-o", str(pq_path), "--summary",
                 str(summary_path)]) == 0
    assert pq.read_table(pq_path).column("meteor_score").to_pylist() == [r["meteor_score"] for r in rows]
    assert json.loads(summary_path.read_text()) == summary


def test_the_jars_options_equal_the_jar(files, e2e, capsys):
    """-t, -m (one string or several values), -w, -x and --no-norm --lower against the jar given the same flags."""
    refs, hyps = e2e
    hyp, ref_paths = files
    ((_, jar_items, jar_corpus),) = jar_stdio([(hyps, refs)], ["-l", "en", "-t", "adq", "-m", "exact synonym", "-w",
                                                               "1.0 0.5", "-lower", "-x", "12"])
    base = ["meteor", "--hyps", hyp, "-r", *ref_paths, "-t", "adq", "-w", "1.0", "0.5", "--no-norm", "--lower",
            "-x", "12", "--format", "json"]
    code, out, _ = _run(base + ["-m", "exact", "synonym"], capsys)
    got = json.loads(out)
    assert code == 0 and abs(got["score"] - jar_corpus) <= TOL
    assert got["signature"] == "meteor-1.5-wo-en-lower-0.75_1.4_0.45_0.7-ex_sy-1.0_0.5"
    assert got["jar_args"][-3:] == ["-x", "12", "-lower"]
    assert _run(base + ["-m", "exact synonym"], capsys)[1] == out
    code, rows, _ = _run(base[:-2] + ["-m", "exact", "synonym", "--per-item"], capsys)
    np.testing.assert_allclose([json.loads(r)["meteor_score"] for r in rows.splitlines()], jar_items, rtol=0,
                               atol=TOL)


def test_lines_as_given_and_stdin(tmp_path, capsys, monkeypatch):
    """An empty or blank reference line is no reference; the hypotheses come from stdin with --hyps -; the same
    numbers as vecscore.meteor on the same texts."""
    from vecscore.meteor import meteor

    (tmp_path / "r1.txt").write_text("the cat sat on the mat\n   \nbirds fly south\n", encoding="utf-8")
    (tmp_path / "r2.txt").write_text("a cat is sitting on a mat\na dog barks\n\n", encoding="utf-8")
    hyps = ["The cat sat on a mat.", "dogs bark", "birds  fly"]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO("\n".join(hyps).encode("utf-8"))))
    code, out, _ = _run(["meteor", "--hyps", "-", "-r", str(tmp_path / "r1.txt"), str(tmp_path / "r2.txt"),
                         "--per-item", "--format", "tsv"], capsys)
    assert code == 0
    want = meteor(hyps, [["the cat sat on the mat", "a cat is sitting on a mat"], ["a dog barks"],
                         ["birds fly south"]])
    assert [float(line.split("\t")[1]) for line in out.splitlines()[1:]] == want.scores.tolist()


def test_errors_name_the_file_line_or_flag(tmp_path, capsys, monkeypatch):
    (tmp_path / "h.txt").write_text("a dog\na cat\nbirds\n")
    (tmp_path / "r1.txt").write_text("a dog runs\n\nbirds fly\n")
    (tmp_path / "short.txt").write_text("dog\n")
    h, r1, short = (str(tmp_path / n) for n in ("h.txt", "r1.txt", "short.txt"))
    (tmp_path / "r2.txt").write_text("dog\ncat\n\n")
    r2 = str(tmp_path / "r2.txt")
    out = str(tmp_path / "o.json")
    cases = [
        (["--hyps", h, "-r", r1], "line 2: no reference for this hypothesis"),
        (["--hyps", h, "-r", short], "short.txt has 1 lines but"),
        (["--hyps", h, "-r", str(tmp_path / "nope.txt")], "cannot read"),
        (["--hyps", h], "needs --hyps FILE and -r"),
        (["--hyps", h, "-r", r1, r2, "-m", "exact", "fuzzy"], "-m/--modules: modules='exact fuzzy'"),
        (["--hyps", h, "-r", r1, r2, "-p", "0.5", "0.5", "0.5"], "-p/--params: "),
        (["--hyps", h, "-r", r1, r2, "-w", "1", "x"], "-w/--weights: "),
        (["--hyps", h, "-r", r1, r2, "--lower"], "--lower goes with --no-norm"),
        (["--hyps", h, "-r", r1, r2, "--no-norm", "--no-punct"], "--no-punct goes with --norm"),
        (["--hyps", h, "-r", r1, r2, "--per-item", "--format", "json"], "--per-item writes one row per line"),
        (["--hyps", h, "-r", r1, r2, "--stats"], "--stats adds columns to per-item rows"),
        (["--hyps", h, "-r", r1, r2, "--jar", str(tmp_path / "no.jar")], "--jar '"),
        (["--hyps", h, "-r", r1, r2, "--paraphrase-file", str(tmp_path / "no.gz")], "--paraphrase-file '"),
    ]
    for flags, needle in cases:
        code, _, err = _run(["meteor", *flags, "-o", out], capsys)
        assert code == 2 and err.startswith("vecscore: error: ") and needle in err, (flags, err)
    code, _, err = _run(["meteor", "--hyps", h, "-r", r1, r2, "-t", "fast"], capsys)  # argparse's choices
    assert code == 2 and "invalid choice: 'fast'" in err
    monkeypatch.setitem(sys.modules, "pycocoevalcap", None)  # what importlib finds when it is not installed
    code, _, err = _run(["meteor", "--hyps", h, "-r", r1, r2, "-o", out], capsys)
    assert code == 2 and "pip install pycocoevalcap" in err and "--jar" in err and "jar=" not in err, err
    assert not (tmp_path / "o.json").exists()
