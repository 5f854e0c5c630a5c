"""The ``vecscore`` command under adverse conditions (issue 28, command-line items 6, 10, 11, 13, 14).

* Lines are read as sacreBLEU's command line reads them (``line.rstrip()``) by the commands that take
  its option names (bleu, sentence-bleu, chrf, ter, compare); expected numbers come from sacreBLEU's
  own command line, run as a subprocess, and from its Python API on lines read by its ``smart_open``.
* An empty input is refused by those commands, as sacreBLEU refuses it; ROUGE keeps rouge-score's
  command line's behaviour (it accepts it).
* Memory limits (``RLIMIT_AS``, in child processes with timeouts): the allocator pad never makes a
  job that fits fail, and a job that does not fit, or numba's compiler that cannot be loaded, is exit
  2 with one line naming the limit.
* Outputs that cannot be written (stdout on ``/dev/full``, a full file system, ``RLIMIT_FSIZE``):
  exit 2 with one line, no output file, no traceback.
* A process killed by SIGKILL while writing ``-o FILE`` leaves no temporary file (Linux: the file
  has no name until it is complete), and the named fallback's leftovers are removed by the next run.
"""
from __future__ import annotations

import json
import os
import random
import resource
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vecscore.cli.main import main
from vecscore.io import write as write_module

pytestmark = pytest.mark.filterwarnings("ignore")
LINUX = sys.platform.startswith("linux")
TIMEOUT = 240


def _env(**extra):
    """A child's environment: the plain route (no numba compile in these tests) unless told otherwise."""
    env = dict(os.environ)
    env.setdefault("VECSCORE_ROUTE", "plain")
    env.update({k: v for k, v in extra.items() if v is not None})
    for k, v in extra.items():
        if v is None:
            env.pop(k, None)
    return env


def _cli(*args, env=None, preexec_fn=None, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=TIMEOUT):
    """The real command line (``python -m vecscore.cli``, which tunes the allocator) in a child process."""
    return subprocess.run([sys.executable, "-m", "vecscore.cli", *map(str, args)], env=env or _env(),
                          preexec_fn=preexec_fn, stdout=stdout, stdin=stdin, stderr=subprocess.PIPE, timeout=timeout)


def _one_line_error(proc, *needles):
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 2, (proc.returncode, err)
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("vecscore: error: "), err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


# --------------------------------------------------------------------------------------
# item 6: sacreBLEU's line handling
# --------------------------------------------------------------------------------------

sacrebleu = pytest.importorskip("sacrebleu")

# trailing spaces, tabs, CR LF, NBSP, ideographic space, form feed and U+2028 (which end no line in
# sacreBLEU's files: it splits on "\n" only), and lines that are whitespace only
HYP_LINES = ["the cat sat on the mat  ", "hello world\t", "a b c d e\r", "über straße\u00a0", "东京 大学\u3000",
             "x\x0cy z\x0c", "line\u2028two \u2028", "   ", "no trailing", "the end . "]
REF_LINES = ["the cat sat on the mat", "hello  world \t ", "a b c d f ", "uber strasse", "东京 大学",
             "x y z", "line two", "", "no trailing  ", "the end ."]
REF2_LINES = ["a cat sat on a mat ", "hello world", "a b c\t", "über straße", "东京大学 ", "x\x0cy z", "line", " x",
              "no  trailing", "the end"]


@pytest.fixture
def texts(tmp_path):
    paths = {}
    for name, lines in (("h.txt", HYP_LINES), ("r.txt", REF_LINES), ("r2.txt", REF2_LINES)):
        p = tmp_path / name
        p.write_bytes("".join(line + "\n" for line in lines).encode("utf-8"))
        paths[name] = str(p)
    return paths


def _rows(out: str):
    """JSON Lines (split on "\\n" only: a row may hold U+2028, which ``str.splitlines`` would split on)."""
    return [json.loads(line) for line in out.split("\n") if line]


def _sacrebleu_lines(path):
    """Lines as sacreBLEU's command line reads them (its smart_open, then rstrip)."""
    from sacrebleu.utils import smart_open

    with smart_open(path) as f:
        return [line.rstrip() for line in f]


def _sacrebleu_cli(refs, hyp, *flags):
    """sacreBLEU's own command line: its scores (``-b -w 10``), one per line."""
    proc = subprocess.run([sys.executable, "-m", "sacrebleu", *refs, "-i", hyp, "-b", "-w", "10", *flags],
                          capture_output=True, timeout=TIMEOUT, env=_env(NO_COLOR="1"))
    assert proc.returncode == 0, proc.stderr
    return [float(x) for x in proc.stdout.split()]


_COMMANDS = [
    ("chrf", ["--chrf-whitespace"], ["-m", "chrf", "--chrf-whitespace"]),
    ("chrf", ["--chrf-whitespace", "--chrf-word-order", "2"], ["-m", "chrf", "--chrf-whitespace", "-cw", "2"]),
    ("chrf", [], ["-m", "chrf"]),
    ("bleu", [], ["-m", "bleu"]),
    ("bleu", ["--tokenize", "char"], ["-m", "bleu", "-tok", "char"]),
    ("ter", [], ["-m", "ter"]),
]


@pytest.mark.parametrize("command, ours, theirs", _COMMANDS)
@pytest.mark.parametrize("nrefs", [1, 2])
def test_corpus_scores_equal_sacrebleus_command_line(texts, capsys, command, ours, theirs, nrefs):
    refs = [texts["r.txt"], texts["r2.txt"]][:nrefs]
    args = [command, "--hyps", texts["h.txt"], *sum((["--refs", r] for r in refs), []), *ours]
    assert main(args) == 0
    score = json.loads(capsys.readouterr().out)["score"]
    (want,) = _sacrebleu_cli(refs, texts["h.txt"], *theirs)
    assert score == pytest.approx(want, abs=1e-9)  # its command line prints 10 decimals
    metric = {"chrf": sacrebleu.metrics.CHRF, "bleu": sacrebleu.metrics.BLEU, "ter": sacrebleu.metrics.TER}[command]
    kwargs = {"--chrf-whitespace": {"whitespace": True}, "--chrf-word-order": {"word_order": 2},
              "--tokenize": {"tokenize": "char"}}
    options = {k2: v2 for flag in ours if flag in kwargs for k2, v2 in kwargs[flag].items()}
    exact = metric(**options).corpus_score(_sacrebleu_lines(texts["h.txt"]), [_sacrebleu_lines(r) for r in refs])
    assert score == pytest.approx(exact.score, abs=1e-9)


@pytest.mark.parametrize("command, ours, theirs", [
    ("chrf", ["--chrf-whitespace"], ["-m", "chrf", "--chrf-whitespace"]),
    ("sentence-bleu", [], ["-m", "bleu"]),
    ("ter", [], ["-m", "ter"]),
])
def test_per_pair_scores_equal_sacrebleus_sentence_level(texts, capsys, command, ours, theirs):
    assert main([command, "--hyps", texts["h.txt"], "--refs", texts["r.txt"], "--per-pair", "--chunk-size", "3",
                 *ours]) == 0
    rows = _rows(capsys.readouterr().out)
    key = {"chrf": "chrf_score", "sentence-bleu": "bleu_score", "ter": "ter_score"}[command]
    want = _sacrebleu_cli([texts["r.txt"]], texts["h.txt"], "-sl", *theirs)
    assert len(rows) == len(want) == len(HYP_LINES)
    for row, w in zip(rows, want):
        assert row[key] == pytest.approx(w, abs=1e-9)


def test_the_issues_case_trailing_spaces_in_whitespace_chrf(texts, capsys):
    """The case of the issue (97.28 against 100.0): a hypothesis equal to its reference but for trailing spaces."""
    hyp, ref = Path(texts["h.txt"]).with_name("h1.txt"), Path(texts["h.txt"]).with_name("r1.txt")
    hyp.write_text("the cat sat on the mat   \n")
    ref.write_text("the cat sat on the mat\n")
    assert main(["chrf", "--hyps", str(hyp), "--refs", str(ref), "--chrf-whitespace"]) == 0
    assert json.loads(capsys.readouterr().out)["score"] == _sacrebleu_cli([str(ref)], str(hyp), "-m", "chrf",
                                                                          "--chrf-whitespace")[0] == 100.0


def test_shared_refs_and_compare_read_as_sacrebleu(texts, capsys, tmp_path):
    hyps, refs = _sacrebleu_lines(texts["h.txt"]), _sacrebleu_lines(texts["r.txt"])
    assert main(["sentence-bleu", "--hyps", texts["h.txt"], "--shared-refs", texts["r.txt"], "--per-pair",
                 "--keep", "hyp"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert [r["hyp"] for r in rows] == hyps  # the text as sacreBLEU reads it
    for row, h in zip(rows, hyps):
        assert row["bleu_score"] == pytest.approx(sacrebleu.sentence_bleu(h, refs).score, abs=1e-9)
    other = tmp_path / "other.txt"
    other.write_text("".join(line + " \t\n" for line in REF2_LINES))
    assert main(["compare", "--hyps", texts["h.txt"], str(other), "--refs", texts["r.txt"], "--metrics", "chrf",
                 "--chrf-whitespace", "--format", "json", "--paired-bs-n", "10"]) == 0
    systems = json.loads(capsys.readouterr().out)["systems"]
    metric = sacrebleu.metrics.CHRF(whitespace=True)
    for s, path in zip(systems, [texts["h.txt"], str(other)]):
        want = metric.corpus_score(_sacrebleu_lines(path), [refs]).score
        assert s["chrF2"]["score"] == pytest.approx(want, abs=1e-9)


def test_rouge_reads_lines_as_written(texts, capsys):
    """ROUGE mirrors rouge-score, whose command line reads records as written; its tokenizers ignore trailing
    whitespace anyway, so only the passed-through text shows it."""
    assert main(["rouge", "--hyps", texts["h.txt"], "--refs", texts["r.txt"], "--metrics", "rouge1", "--per-pair",
                 "--keep", "hyp"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert [r["hyp"] for r in rows] == [h.removesuffix("\r") for h in HYP_LINES]


# --------------------------------------------------------------------------------------
# item 14: empty inputs
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("command, theirs", [("bleu", ["-m", "bleu"]), ("sentence-bleu", ["-m", "bleu", "-sl"]),
                                             ("chrf", ["-m", "chrf"]), ("ter", ["-m", "ter"])])
@pytest.mark.parametrize("per_pair", [False, True])
def test_empty_files_are_refused_as_sacrebleu_refuses_them(tmp_path, capsys, command, theirs, per_pair):
    (tmp_path / "h.txt").write_bytes(b"")
    (tmp_path / "r.txt").write_bytes(b"")
    proc = subprocess.run([sys.executable, "-m", "sacrebleu", str(tmp_path / "r.txt"), "-i", str(tmp_path / "h.txt"),
                           *theirs], capture_output=True, timeout=TIMEOUT, env=_env(NO_COLOR="1"))
    assert proc.returncode != 0 and b"contains no sentence" in proc.stderr  # the oracle refuses
    out = tmp_path / ("o.jsonl" if per_pair else "o.json")
    code = main([command, "--hyps", str(tmp_path / "h.txt"), "--refs", str(tmp_path / "r.txt"), "-o", str(out),
                 *(["--per-pair"] if per_pair else [])])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith(f"vecscore: error: {tmp_path / 'h.txt'} has no lines") and "contains no sentence" in err
    assert len(err.strip().splitlines()) == 1
    assert {p.name for p in tmp_path.iterdir()} == {"h.txt", "r.txt"}  # no output, no temporary file


def test_empty_inputs_of_every_kind_are_refused(tmp_path, capsys):
    (tmp_path / "e.txt").write_bytes(b"")
    (tmp_path / "e.jsonl").write_bytes(b"")
    (tmp_path / "r.txt").write_text("a reference\n")
    for argv, needle in [
        (["bleu", "--input", tmp_path / "e.jsonl"], "e.jsonl has no rows"),
        (["chrf", "--input", tmp_path / "e.jsonl", "--per-pair"], "e.jsonl has no rows"),
        (["bleu", "--hyps", tmp_path / "e.txt", "--shared-refs", tmp_path / "r.txt"], "e.txt has no lines"),
        (["sentence-bleu", "--hyps", tmp_path / "e.txt", "--shared-refs", tmp_path / "r.txt"], "e.txt has no lines"),
        (["compare", "--hyps", tmp_path / "e.txt", tmp_path / "e.jsonl", "--refs", tmp_path / "e.txt"],
         "e.txt has no lines"),
    ]:
        code = main([str(a) for a in argv])
        err = capsys.readouterr().err
        assert code == 2 and needle in err and len(err.strip().splitlines()) == 1, (argv, err)
    proc = _cli("ter", "--hyps", "-", "--refs", tmp_path / "e.txt", stdin=subprocess.DEVNULL)
    _one_line_error(proc, "<stdin> has no lines")
    assert proc.stdout == b""


def test_empty_files_for_rouge_are_accepted_as_rouge_score_accepts_them(tmp_path, capsys):
    """rouge-score's command line writes just its CSV header for empty files (exit 0); vecscore rouge gives
    ``n_pairs`` 0 and ``null`` means (the documented policy for a mean over zero pairs)."""
    pytest.importorskip("rouge_score")
    pytest.importorskip("absl")
    (tmp_path / "e.txt").write_bytes(b"")
    proc = subprocess.run([sys.executable, "-m", "rouge_score.rouge", f"--target_filepattern={tmp_path / 'e.txt'}",
                           f"--prediction_filepattern={tmp_path / 'e.txt'}", f"--output_filename={tmp_path / 'o.csv'}",
                           "--rouge_types=rouge1"], capture_output=True, timeout=TIMEOUT)
    assert proc.returncode == 0 and (tmp_path / "o.csv").read_text() == "score_type,low,mid,high\n"
    assert main(["rouge", "--hyps", str(tmp_path / "e.txt"), "--refs", str(tmp_path / "e.txt"),
                 "--metrics", "rouge1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_pairs"] == 0


# --------------------------------------------------------------------------------------
# item 10: memory limits (child processes)
# --------------------------------------------------------------------------------------

_PEAK = r"""
import atexit, runpy, sys
def report():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmPeak:"):
                sys.stderr.write("VMPEAK %d\n" % (int(line.split()[1]) * 1024))
atexit.register(report)
sys.argv = ["vecscore", *sys.argv[1:]]
runpy.run_module("vecscore.cli", run_name="__main__")
"""


def _vm_peak(args, env) -> int:
    proc = subprocess.run([sys.executable, "-c", _PEAK, *map(str, args)], env=env, capture_output=True,
                          timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    return int(proc.stderr.split(b"VMPEAK ")[-1].split()[0])


def _limit_as(nbytes: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (nbytes, nbytes))
    return apply


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """6,000 synthetic pairs: the plain route (no compile), a few seconds, heap that grows well past start-up."""
    d = tmp_path_factory.mktemp("corpus")
    rng = random.Random(0)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 9))) for _ in range(5000)]

    def line():
        return " ".join(rng.choice(words) for _ in range(rng.randint(5, 35)))

    hyps = [line() for _ in range(6000)]
    refs = [line() for _ in range(6000)]
    (d / "h.txt").write_text("".join(h + "\n" for h in hyps))
    (d / "r.txt").write_text("".join(r + "\n" for r in refs))
    return d, hyps, refs


@pytest.mark.skipif(not LINUX, reason="RLIMIT_AS, glibc and /proc")
def test_a_job_that_fits_under_an_address_space_limit_succeeds(corpus):
    """The allocator pad (512 MiB by default) is capped by the room under the limit: a job given 128 MiB
    more than it ever maps without the pad must succeed (with the old uncapped pad it failed with a
    MemoryError at every limit up to 256 MiB above that).  ``MALLOC_ARENA_MAX=1`` keeps glibc from
    falling back to other arenas, which made the old failure depend on the machine."""
    d, hyps, refs = corpus
    args = ["bleu", "--hyps", d / "h.txt", "--refs", d / "r.txt"]
    peak = _vm_peak(args, _env(MALLOC_ARENA_MAX="1", VECSCORE_NO_MALLOC_TUNING="1"))
    limit = peak + (128 << 20)
    proc = _cli(*args, env=_env(MALLOC_ARENA_MAX="1", VECSCORE_NO_MALLOC_TUNING=None),
                preexec_fn=_limit_as(limit))
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    score = json.loads(proc.stdout)["score"]
    assert score == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs]).score, abs=1e-9)


@pytest.mark.skipif(not LINUX, reason="RLIMIT_AS, glibc and /proc")
def test_the_pad_is_capped_by_the_room_under_each_limit(monkeypatch):
    from vecscore import memory

    monkeypatch.setattr(memory, "memory_limits", lambda: [])
    assert memory.top_pad_under_limits(512 << 20) == 512 << 20
    monkeypatch.setattr(memory, "memory_limits", lambda: [("RLIMIT_AS", 800 << 20, 160 << 20)])
    assert memory.top_pad_under_limits(512 << 20) == (640 << 20) // 16
    monkeypatch.setattr(memory, "memory_limits", lambda: [("RLIMIT_AS", 64 << 30, 1 << 30),
                                                          ("RLIMIT_DATA", 600 << 20, 100 << 20)])
    assert memory.top_pad_under_limits(512 << 20) == (500 << 20) // 16
    monkeypatch.setattr(memory, "memory_limits", lambda: [("RLIMIT_AS", 100 << 20, 101 << 20)])
    assert memory.top_pad_under_limits(512 << 20) == 0
    monkeypatch.delenv("VECSCORE_NO_MALLOC_TUNING", raising=False)
    assert memory.tune_memory() is False  # below glibc's default: nothing is set
    monkeypatch.setattr(memory, "memory_limits", lambda: [("RLIMIT_AS", 300 << 20, None)])
    assert memory.top_pad_under_limits(512 << 20) == 0  # usage unknown: no pad


@pytest.mark.skipif(not LINUX, reason="RLIMIT_AS and /proc")
def test_a_job_that_cannot_fit_exits_2_with_one_line(corpus, tmp_path):
    d, _, _ = corpus
    args = ["bleu", "--hyps", d / "h.txt", "--refs", d / "r.txt"]
    start = _vm_peak(["--version"], _env(VECSCORE_NO_MALLOC_TUNING="1"))
    peak = _vm_peak(args, _env(VECSCORE_NO_MALLOC_TUNING="1", MALLOC_ARENA_MAX="1"))
    limit = start + (peak - start) // 3
    proc = _cli(*args, "-o", tmp_path / "o.json", env=_env(MALLOC_ARENA_MAX="1"), preexec_fn=_limit_as(limit))
    _one_line_error(proc, "out of memory (MemoryError)", f"RLIMIT_AS (ulimit -v) {limit / 2**20:,.0f} MiB",
                    "raise the limit")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not LINUX, reason="RLIMIT_AS and /proc")
def test_numba_that_cannot_load_under_a_limit_exits_2_with_one_line(tmp_path):
    """numba's compiler (libllvmlite.so) maps ~180 MB; 64 MiB above start-up cannot hold it.  (Thread creation
    inside numba's threading layers is not reached: the library fails to load first.)"""
    (tmp_path / "h.txt").write_text("the cat sat on the mat\n")
    start = _vm_peak(["--version"], _env(VECSCORE_NO_MALLOC_TUNING="1"))  # the pad would count in VmPeak
    limit = start + (64 << 20)
    proc = _cli("bleu", "--hyps", tmp_path / "h.txt", "--refs", tmp_path / "h.txt",
                env=_env(VECSCORE_ROUTE="compiled", NUMBA_NUM_THREADS="1"), preexec_fn=_limit_as(limit))
    _one_line_error(proc, "cannot load", "RLIMIT_AS (ulimit -v)", "raise the limit", "VECSCORE_ROUTE=plain")


# --------------------------------------------------------------------------------------
# item 11: outputs that cannot be written
# --------------------------------------------------------------------------------------


@pytest.fixture
def small(tmp_path):
    lines = "".join(f"the cat number {i} sat on the mat\n" for i in range(2000))
    (tmp_path / "h.txt").write_text(lines)
    return tmp_path


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("extra", [[], ["--per-pair"], ["--per-pair", "--format", "csv"]])
def test_stdout_on_dev_full_exits_2_with_one_line(small, extra):
    with open("/dev/full", "wb") as full:
        proc = _cli("sentence-bleu", "--hyps", small / "h.txt", "--refs", small / "h.txt", *extra, stdout=full)
    _one_line_error(proc, "cannot write standard output", "No space left on device (ENOSPC)")


def _device(path: Path, minor: int) -> bool:
    """A character device like /dev/full (1, 7) or /dev/null (1, 3) at ``path``; False if not permitted."""
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    except (PermissionError, OSError):
        return False
    return True


@pytest.mark.skipif(not LINUX, reason="Linux device numbers")
def test_o_to_a_device_writes_into_it(small):
    """``-o /dev/null`` (or a full device) is written into, never replaced by a regular file (as root, the old
    temporary-and-rename replaced the device node itself); tested on nodes made in the test's folder."""
    if not (_device(small / "full", 7) and _device(small / "null", 3)):
        pytest.skip("mknod not permitted")
    proc = _cli("sentence-bleu", "--hyps", small / "h.txt", "--refs", small / "h.txt", "--per-pair",
                "-o", small / "full")
    _one_line_error(proc, f"cannot write {small / 'full'}", "ENOSPC")
    proc = _cli("sentence-bleu", "--hyps", small / "h.txt", "--refs", small / "h.txt", "--per-pair",
                "-o", small / "null")
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISCHR(os.stat(small / "full").st_mode) and stat.S_ISCHR(os.stat(small / "null").st_mode)
    assert {p.name for p in small.iterdir()} == {"h.txt", "full", "null"}


def _fsize(nbytes: int):
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, nbytes))
    return apply


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_file_size_limit_exits_2_and_leaves_no_file(small, fmt):
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    (small / "o.json").write_text("previous\n")
    out = small / f"o.{fmt}"
    proc = _cli("sentence-bleu", "--hyps", small / "h.txt", "--refs", small / "h.txt", "--per-pair", "-o", out,
                "--chunk-size", "100", preexec_fn=_fsize(8192))
    _one_line_error(proc, f"cannot write {out}", "File too large (EFBIG)", "ulimit -f")
    assert {p.name for p in small.iterdir()} == {"h.txt", "o.json"}
    proc = _cli("sentence-bleu", "--hyps", small / "h.txt", "--refs", small / "h.txt", "-o", small / "o.json",
                preexec_fn=_fsize(1))
    _one_line_error(proc, "EFBIG")
    assert (small / "o.json").read_text() == "previous\n"  # an existing file is left as it was


@pytest.mark.skipif(not (LINUX and os.geteuid() == 0 and shutil.which("unshare")),
                    reason="a private tmpfs needs root and unshare")
def test_full_file_system_exits_2_and_leaves_no_file(small):
    """A real ENOSPC: a 16 KiB tmpfs mounted in a private mount namespace of the child."""
    mnt = small / "mnt"
    mnt.mkdir()
    out = mnt / "o.jsonl"
    script = (f'mount -t tmpfs -o size=16k tmpfs "{mnt}" || exit 99; '
              f'"{sys.executable}" -m vecscore.cli sentence-bleu --hyps "{small / "h.txt"}" --refs "{small / "h.txt"}" '
              f'--per-pair -o "{out}" --chunk-size 100; echo "rc=$?"; ls -A "{mnt}"')
    proc = subprocess.run(["unshare", "-m", "sh", "-c", script], env=_env(), capture_output=True, timeout=TIMEOUT)
    if proc.returncode == 99:
        pytest.skip("cannot mount a tmpfs here")
    assert proc.stdout.decode().split() == ["rc=2"], proc.stdout  # exit 2, and nothing in the file system
    err = proc.stderr.decode()
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert f"cannot write {out}: No space left on device (ENOSPC)" in err


# --------------------------------------------------------------------------------------
# item 13: SIGKILL while writing -o FILE
# --------------------------------------------------------------------------------------

_KILLABLE = r"""
import sys
from vecscore.io import write
write._USE_TMPFILE = sys.argv[1] == "unnamed"
from vecscore.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def _writing(pid: int, folder: Path) -> bool:
    """Whether process ``pid`` holds an output file in ``folder`` (named or not) with data in it."""
    fd_dir = Path(f"/proc/{pid}/fd")
    try:
        fds = list(fd_dir.iterdir())
    except OSError:
        return False
    for fd in fds:
        try:
            link = os.readlink(fd)
            if link.startswith(str(folder)) and not link.endswith(".txt") and os.stat(fd).st_size > 0:
                return True
        except OSError:
            continue
    return False


def _kill_mid_write(folder: Path, how: str) -> None:
    argv = ["rouge", "--hyps", folder / "h.txt", "--refs", folder / "h.txt", "--metrics", "rouge1", "--per-pair",
            "-o", folder / "o.jsonl", "--chunk-size", "500"]
    proc = subprocess.Popen([sys.executable, "-c", _KILLABLE, how, *map(str, argv)], env=_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + TIMEOUT
        while not _writing(proc.pid, folder):
            assert proc.poll() is None, "the run ended before it could be killed mid-write; give it more rows"
            assert time.monotonic() < deadline, "no output was being written"
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL


@pytest.fixture
def many_rows(tmp_path):
    (tmp_path / "h.txt").write_text("a b c d e f\n" * 300_000)
    return tmp_path


@pytest.mark.skipif(not LINUX, reason="O_TMPFILE and /proc")
def test_sigkill_during_o_file_leaves_nothing(many_rows):
    _kill_mid_write(many_rows, "unnamed")
    assert {p.name for p in many_rows.iterdir()} == {"h.txt"}  # the file had no name: nothing to leave


@pytest.mark.skipif(not LINUX, reason="/proc")
def test_named_fallback_leftovers_are_removed_by_the_next_run(many_rows):
    _kill_mid_write(many_rows, "named")
    assert not (many_rows / "o.jsonl").exists()
    (many_rows / "s.txt").write_text("one line\n")
    proc = _cli("rouge", "--hyps", many_rows / "s.txt", "--refs", many_rows / "s.txt", "-o", many_rows / "o.json")
    assert proc.returncode == 0, proc.stderr
    assert {p.name for p in many_rows.iterdir()} == {"h.txt", "s.txt", "o.json"}


def test_remove_leftovers_only_takes_dead_processes_of_this_host(tmp_path):
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True,
                          timeout=60)
    dead = int(done.stdout)
    host = write_module._host()
    names = {
        "dead": f".o.jsonl.vecscore-tmp.{host}.{dead}.abc_12",
        "alive": f".o.jsonl.vecscore-tmp.{host}.{os.getpid()}.abc_12",
        "other_host": f".o.jsonl.vecscore-tmp.{host}x.{dead}.abc_12",
        "mkstemp": ".o.jsonl.k2j3h4.tmp",
        "user": "o.jsonl.vecscore-tmp.notes",
    }
    for n in names.values():
        (tmp_path / n).write_text("x")
    assert write_module.remove_leftovers(tmp_path) == [names["dead"]]
    assert {p.name for p in tmp_path.iterdir()} == set(names.values()) - {names["dead"]}


def test_atomic_output_without_o_tmpfile_cleans_up_and_replaces(tmp_path, monkeypatch):
    monkeypatch.setattr(write_module, "_USE_TMPFILE", False)
    target = tmp_path / "o.bin"
    with write_module.atomic_output(str(target)) as f:
        f.write(b"done")
        assert [p.name.startswith(".o.bin.vecscore-tmp.") for p in tmp_path.iterdir()] == [True]
    assert target.read_bytes() == b"done" and oct(target.stat().st_mode & 0o777) != "0o600"
    with pytest.raises(RuntimeError):
        with write_module.atomic_output(str(target)) as f:
            f.write(b"partial")
            raise RuntimeError
    assert [p.name for p in tmp_path.iterdir()] == ["o.bin"] and target.read_bytes() == b"done"
