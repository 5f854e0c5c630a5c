"""vecscore command: errors name file and line; atomic outputs; pipes; the progress bar."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import pytest

from vecscore.cli.main import main
from vecscore.errors import VecscoreError
from vecscore.io import write as cli_io
from vecscore.io.read import prefetch
from vecscore.io.write import atomic_output, progress_bar

pytestmark = pytest.mark.filterwarnings("ignore")


def _run(argv, capsys):
    code = main(argv)
    return code, capsys.readouterr().err


def test_mismatch_is_found_before_any_output(tmp_path, capsys):
    (tmp_path / "h.txt").write_text("a\nb\nc\n")
    (tmp_path / "r.txt").write_text("a\nb\n")
    out = tmp_path / "o.jsonl"
    code, err = _run(["rouge", "--hyps", str(tmp_path / "h.txt"), "--refs", str(tmp_path / "r.txt"), "-o", str(out)],
                     capsys)
    assert code == 2 and "r.txt has 2 lines but" in err and "h.txt has 3" in err and "line 3 is missing" in err
    assert not out.exists() and list(tmp_path.iterdir()) == sorted(tmp_path.iterdir())  # no temp file left
    assert {p.name for p in tmp_path.iterdir()} == {"h.txt", "r.txt"}


def test_mismatch_on_stdin_is_found_when_a_file_ends(tmp_path):
    (tmp_path / "r.txt").write_text("a\nb\n")
    cmd = [sys.executable, "-m", "vecscore.cli", "rouge", "--hyps", "-", "--refs", str(tmp_path / "r.txt"),
           "--chunk-size", "1"]
    proc = subprocess.run(cmd, input=b"a\nb\nc\nd\n", capture_output=True, timeout=300)
    assert proc.returncode == 2
    assert b"r.txt has 2 lines but <stdin> has 4" in proc.stderr and b"Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "content, needle",
    [
        ('{"hyp": "a", "ref": "b"}\n{"hyp": "a", "ref": \n', "d.jsonl, line 2: not valid JSON"),
        ('{"hyp": "a", "ref": "b"}\n\n{"hyp": "a", "ref": "b"}\n', "d.jsonl, line 2: blank line"),
        ('{"hyp": "a", "ref": "b"}\n["a", "b"]\n', "d.jsonl, line 2: a JSON list, not an object"),
        ('{"hyp": "a", "ref": "b"}\n{"hyp": null, "ref": "b"}\n', "d.jsonl, line 2: 'hyp' is null"),
        ('{"hyp": "a", "ref": "b"}\n{"hyp": "a", "ref": []}\n', "d.jsonl, line 2: 'ref' is an empty list"),
        ('{"hyp": "a", "ref": "b"}\n{"hyp": "a", "reference": "b"}\n', "d.jsonl, line 2: no column 'ref'"),
    ],
)
def test_malformed_jsonl_names_file_and_line(tmp_path, capsys, content, needle):
    (tmp_path / "d.jsonl").write_text(content)
    out = tmp_path / "o.parquet"
    code, err = _run(["rouge", "--input", str(tmp_path / "d.jsonl"), "-o", str(out), "--chunk-size", "1"], capsys)
    assert code == 2 and needle in err, err
    assert {p.name for p in tmp_path.iterdir()} == {"d.jsonl"}  # the partial output was removed


@pytest.mark.parametrize(
    "content, needle",
    [
        ("hyp,ref\na,b\na,b,c\n", "d.csv, line 3: 3 fields but the header has 2"),
        ('hyp,ref\na,b\n"multi\nline",b\n"bad"x,b\n', "d.csv, line 5: malformed row"),
        ("hyp,reference\na,b\n", "d.csv, line 1: no column 'ref'"),
        ("", "d.csv: empty file"),
    ],
)
def test_malformed_csv_names_file_and_line(tmp_path, capsys, content, needle):
    (tmp_path / "d.csv").write_text(content)
    code, err = _run(["rouge", "--input", str(tmp_path / "d.csv")], capsys)
    assert code == 2 and needle in err, err


def test_csv_line_numbers_count_multiline_fields(tmp_path, capsys):
    (tmp_path / "d.csv").write_text('hyp,ref\n"a\nb",c\nx,y,z\n')
    code, err = _run(["rouge", "--input", str(tmp_path / "d.csv")], capsys)
    assert code == 2 and "d.csv, line 4:" in err


def test_parquet_errors(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(pa.table({"hyp": ["a", "b", None], "ref": ["a", "b", "c"]}), tmp_path / "n.parquet")
    code, err = _run(["rouge", "--input", str(tmp_path / "n.parquet")], capsys)
    assert code == 2 and "n.parquet, row 3: 'hyp' is null" in err
    code, err = _run(["rouge", "--input", str(tmp_path / "n.parquet"), "--ref-column", "refs"], capsys)
    assert code == 2 and "no column 'refs' (columns: hyp, ref)" in err
    (tmp_path / "bad.parquet").write_bytes(b"not parquet at all")
    code, err = _run(["rouge", "--input", str(tmp_path / "bad.parquet")], capsys)
    assert code == 2 and "cannot read" in err and "bad.parquet" in err


def test_unreadable_and_missing_files(tmp_path, capsys):
    code, err = _run(["rouge", "--hyps", str(tmp_path / "nope.txt"), "--refs", str(tmp_path / "nope.txt")], capsys)
    assert code == 2 and "nope.txt: no such file" in err
    code, err = _run(["rouge", "--input", str(tmp_path / "nope.jsonl")], capsys)
    assert code == 2 and "nope.jsonl: no such file" in err
    locked = tmp_path / "locked.txt"
    locked.write_text("a\n")
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):  # running as root: permissions are not enforced
            pytest.skip("permissions are not enforced for this user")
        code, err = _run(["rouge", "--hyps", str(locked), "--refs", str(locked)], capsys)
        assert code == 2 and "cannot read" in err and "locked.txt" in err
    finally:
        locked.chmod(0o644)


def test_invalid_utf8_in_jsonl(tmp_path, capsys):
    (tmp_path / "d.jsonl").write_bytes(b'{"hyp": "a", "ref": "b"}\n{"hyp": "\xff", "ref": "b"}\n')
    code, err = _run(["rouge", "--input", str(tmp_path / "d.jsonl")], capsys)
    assert code == 2 and "d.jsonl, line 2: not valid UTF-8" in err


def test_usage_errors_return_2(tmp_path, capsys):
    assert main(["rouge", "--chunk-size", "0", "--hyps", "x", "--refs", "x"]) == 2
    code, err = _run(["rouge"], capsys)
    assert code == 2 and "no input" in err
    code, err = _run(["filter", "--hyps", "a", "--refs", "b", "--where", "rougeL>0.3"], capsys)
    assert code == 2 and "unknown score column 'rougeL'" in err
    code, err = _run(["rouge", "--workers", "99", "--hyps", __file__, "--refs", __file__], capsys)
    assert code == 2 and "workers must be between 1 and" in err
    assert main(["--version"]) == 0


# --- atomic outputs ----------------------------------------------------------------------


def test_crash_mid_write_leaves_no_file(tmp_path, capsys, monkeypatch):
    lines = "".join(f"w{i} x y\n" for i in range(50))
    (tmp_path / "h.txt").write_text(lines)
    out = tmp_path / "scores.csv"
    out.write_text("previous content\n")
    calls = {"n": 0}
    real = cli_io.CsvWriter.write

    def crashing_write(self, rows, chunk, mask=None):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt  # e.g. Ctrl-C (or any crash) after two chunks were written
        return real(self, rows, chunk, mask)

    monkeypatch.setattr(cli_io.CsvWriter, "write", crashing_write)
    code = main(["rouge", "--hyps", str(tmp_path / "h.txt"), "--refs", str(tmp_path / "h.txt"), "-o", str(out),
                 "--chunk-size", "10"])
    assert code == 130 and calls["n"] == 3
    assert out.read_text() == "previous content\n"  # the old file is untouched, no partial file
    assert {p.name for p in tmp_path.iterdir()} == {"h.txt", "scores.csv"}


def test_atomic_output_replaces_only_on_success(tmp_path):
    target = tmp_path / "o.bin"
    with atomic_output(str(target)) as f:
        f.write(b"done")
        assert not target.exists()
    assert target.read_bytes() == b"done" and oct(target.stat().st_mode & 0o777) != "0o600"
    with pytest.raises(RuntimeError):
        with atomic_output(str(target)) as f:
            f.write(b"partial")
            raise RuntimeError
    assert target.read_bytes() == b"done" and len(list(tmp_path.iterdir())) == 1
    with pytest.raises(VecscoreError, match="does not exist"):
        with atomic_output(str(tmp_path / "missing" / "o.bin")):
            pass


# A process killed by SIGKILL while writing -o FILE: tests/test_cli_conditions.py (no partial output and no
# temporary file, with O_TMPFILE and with the named fallback).


# --- pipes and progress ------------------------------------------------------------------


def test_head_ends_quietly_for_every_row_format(tmp_path):
    (tmp_path / "h.txt").write_text("a b c\n" * 30000)
    for fmt in ("jsonl", "csv"):
        cmd = (f"{sys.executable} -m vecscore.cli rouge --hyps {tmp_path}/h.txt --refs {tmp_path}/h.txt "
               f"--format {fmt} --chunk-size 5000 | head -n 2")
        proc = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=300)
        assert proc.stdout.count("\n") == 2 and proc.stderr == "", proc.stderr


def test_progress_bar_off_when_not_a_tty_or_quiet():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    assert progress_bar(10, quiet=False, stream=io.StringIO()).disable  # not a terminal
    assert progress_bar(10, quiet=True, stream=Tty()).disable
    pytest.importorskip("tqdm")
    tty = Tty()
    bar = progress_bar(10, quiet=False, stream=tty)
    assert not bar.disable
    bar.update(10)
    bar.close()
    assert "scoring" in tty.getvalue() and "pair" in tty.getvalue()


def test_no_progress_output_in_a_pipe(tmp_path):
    (tmp_path / "h.txt").write_text("a b c\n" * 100)
    cmd = [sys.executable, "-m", "vecscore.cli", "rouge", "--hyps", str(tmp_path / "h.txt"),
           "--refs", str(tmp_path / "h.txt")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stderr == ""
    assert json.loads(proc.stdout)["n_pairs"] == 100


def test_threads_restored_after_a_failing_run(tmp_path, capsys):
    before = numba.get_num_threads()
    (tmp_path / "d.jsonl").write_text('{"hyp": "a", "ref": "b"}\n{"hyp": 3, "ref": "b"}\n')
    code, err = _run(["rouge", "--input", str(tmp_path / "d.jsonl"), "--workers", "1", "--chunk-size", "1"], capsys)
    assert code == 2 and "line 2" in err
    assert numba.get_num_threads() == before


def test_prefetch_keeps_order_and_raises_in_place():
    def gen():
        yield 1
        yield 2
        raise VecscoreError("bad row")

    it = prefetch(gen())
    assert next(it) == 1 and next(it) == 2
    with pytest.raises(VecscoreError, match="bad row"):
        next(it)
    closed = prefetch(iter(range(1000)))
    assert next(closed) == 0
    closed.close()  # stops the reader thread


def test_results_identical_for_chunk_sizes_and_workers(tmp_path, capsys):
    examples = Path(__file__).resolve().parents[1] / "examples"
    base = None
    for chunk, workers in [("1", "1"), ("3", "2"), ("100", "2"), ("100", "1")]:
        assert main(["rouge", "--hyps", str(examples / "hyps.txt"), "--refs", str(examples / "refs.txt"),
                     "--metrics", "rouge1", "rougeLsum", "rougeW", "--chunk-size", chunk, "--workers", workers]) == 0
        out = capsys.readouterr().out
        base = base or out
        assert out == base


def test_permission_denied_and_directory_inputs(tmp_path, capsys, monkeypatch):
    import vecscore.io.read as vio

    (tmp_path / "h.txt").write_text("a\n")
    code, err = _run(["rouge", "--hyps", str(tmp_path), "--refs", str(tmp_path / "h.txt")], capsys)
    assert code == 2 and "it is a directory" in err

    def denied(path, mode="r", *a, **k):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(vio, "open", denied, raising=False)
    code, err = _run(["rouge", "--input", str(tmp_path / "h.txt"), "--input-format", "jsonl"], capsys)
    assert code == 2 and f"cannot read {tmp_path / 'h.txt'}: Permission denied" in err
