"""What the README's "Guarantees" promise: no crash, no silently wrong number, errors in the user's terms.

Every case that once crashed the interpreter runs in a child process, so a
regression fails the test instead of killing the test run.  Expected values
come from the oracles (sacreBLEU, rouge-score) or from the same call on a
plain list.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sacrebleu

import vecscore
from vecscore import VecscoreError

ROOT = Path(__file__).resolve().parents[1]


def _child(code: str, env=None, timeout=600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, **(env or {})}, timeout=timeout)


# 1. a Sequence whose len() disagrees with its items ------------------------------------------------

LIAR = """
    import collections.abc, vecscore
    class Liar(collections.abc.Sequence):
        def __init__(self, items): self.items = items
        def __len__(self): return len(self.items) + 1
        def __getitem__(self, i): return self.items[i]
    h = Liar(["the cat sat on the mat"] * 2)
    r = Liar(["the cat is on the mat"] * 2)
    calls = {
        "rouge": lambda: vecscore.rouge(h, r),
        "rouge-stem": lambda: vecscore.rouge(h, r, stemmer=True),
        "sentence_bleu": lambda: vecscore.sentence_bleu(h, r),
        "corpus_bleu": lambda: vecscore.corpus_bleu(h, [r]),
        "score_batch": lambda: vecscore.RougeScorer(["rouge1"]).score_batch(r, h),
        "rouge155": lambda: vecscore.rouge155(h, r),
        "nltk": lambda: vecscore.nltk_corpus_bleu(h, r, tokenize="13a"),
    }
    for name, call in calls.items():
        try:
            call()
            print(name, "returned a result")
        except vecscore.VecscoreError as e:
            print(name, "refused:", "len() = 3 but yields 2" in str(e))
"""


@pytest.mark.parametrize("route", ["plain", "compiled"])
def test_lying_sequence_is_refused_not_a_crash(route):
    out = _child(LIAR, {"VECSCORE_ROUTE": route})
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.split("\n")[:-1]
    assert len(lines) == 7 and all(line.endswith("refused: True") for line in lines), out.stdout


# 4. sacreBLEU's names take sacreBLEU's arguments ---------------------------------------------------

H = ["the cat sat on the mat", "a dog barked at night", "x y z w"]
R1 = ["the cat is on the mat", "the dog barked at night", "x y z"]
R2 = ["a cat sat on a mat", "a dog barks", "x z w"]


def test_corpus_bleu_takes_sacrebleu_streams():
    assert vecscore.corpus_bleu(H, [R1, R2]).score == sacrebleu.corpus_bleu(H, [R1, R2]).score
    # two hypotheses with two references each: both layouts fit with different meanings
    with pytest.raises(VecscoreError, match="refs_layout='streams' or refs_layout='per-example'"):
        vecscore.corpus_bleu(H[:2], [R1[:2], R2[:2]])
    named = vecscore.corpus_bleu(H[:2], [R1[:2], R2[:2]], refs_layout="streams").score
    assert named == sacrebleu.corpus_bleu(H[:2], [R1[:2], R2[:2]]).score
    per_pair = [[a, b] for a, b in zip(R1, R2)]
    assert vecscore.corpus_bleu(H, per_pair, refs_layout="per-example").score == \
        sacrebleu.corpus_bleu(H, [R1, R2]).score


def test_sentence_bleu_takes_sacrebleu_single_form():
    ours = vecscore.sentence_bleu(H[0], [R1[0], R2[0]])
    theirs = sacrebleu.sentence_bleu(H[0], [R1[0], R2[0]])
    assert ours.score == theirs.score and list(ours.counts) == theirs.counts
    with pytest.raises(VecscoreError, match="list of its references"):
        vecscore.sentence_bleu(H[0], R1[0])


def test_nltk_argument_order_is_recognised():
    hyp, refs = H[0].split(), [R1[0].split(), R2[0].split()]
    with pytest.raises(VecscoreError, match="references first"):
        vecscore.nltk_corpus_bleu([refs], [hyp])


# 5. ROUGE-1.5.5: a list of sentences is not several references -------------------------------------

def test_rouge155_sentence_lists_are_not_guessed():
    hyps = [["the cat sat on the mat .", "it was happy ."]]
    with pytest.raises(VecscoreError, match="ambiguous|could be one reference's sentences"):
        vecscore.rouge155(hyps, [["the cat is on the mat .", "it looked happy ."]])
    as_lists = vecscore.rouge155(hyps, [[["the cat is on the mat .", "it looked happy ."]]])
    as_text = vecscore.rouge155(["the cat sat on the mat .\nit was happy ."],
                                ["the cat is on the mat .\nit looked happy ."])
    for k in as_text:
        assert np.array_equal(as_lists[k].fmeasure, as_text[k].fmeasure)


# 6. threads on numba's workqueue layer -----------------------------------------------------------

THREADS = """
    import threading, numpy as np, vecscore
    h = ["the cat sat on the mat number %d" % i for i in range(3000)]
    r = ["a cat was on the mat number %d" % (i % 7) for i in range(3000)]
    want = vecscore.rouge(h, r, metrics=["rouge1", "rougeL"])["rougeL"].fmeasure
    bleu = vecscore.sentence_bleu(h, r).score
    bad = []
    def work():
        for _ in range(3):
            if not np.array_equal(vecscore.rouge(h, r, metrics=["rouge1", "rougeL"])["rougeL"].fmeasure, want):
                bad.append("rouge")
            if not np.array_equal(vecscore.sentence_bleu(h, r).score, bleu):
                bad.append("bleu")
    ts = [threading.Thread(target=work) for _ in range(4)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    import numba
    print(numba.threading_layer(), len(bad))
"""


def test_threads_on_the_workqueue_layer():
    out = _child(THREADS, {"NUMBA_THREADING_LAYER": "workqueue", "VECSCORE_ROUTE": "compiled"})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["workqueue", "0"]


# 7. pandas, generators, str subclasses: rows by iteration --------------------------------------------

def test_pandas_series_with_any_index_and_generators():
    df = pd.DataFrame({"h": ["x", *H], "r": ["y", *R1]})
    kept = df[df.h.str.len() > 1]  # index 1..3: no 0
    assert kept.index[0] != 0
    want_r = vecscore.rouge(H, R1)["rougeL"].fmeasure
    assert np.array_equal(vecscore.rouge(kept.h, kept.r)["rougeL"].fmeasure, want_r)
    assert np.array_equal(vecscore.rouge((x for x in H), R1, stemmer=True)["rougeL"].fmeasure,
                          vecscore.rouge(H, R1, stemmer=True)["rougeL"].fmeasure)
    assert vecscore.corpus_bleu(kept.h, [kept.r]).score == sacrebleu.corpus_bleu(H, [R1]).score
    assert np.array_equal(vecscore.sentence_bleu(kept.h, kept.r).score, vecscore.sentence_bleu(H, R1).score)
    scorer = vecscore.RougeScorer(["rouge1"])
    assert np.array_equal(scorer.score_batch(kept.r, kept.h)["rouge1"].fmeasure,
                          scorer.score_batch(R1, H)["rouge1"].fmeasure)


class Shouty(str):
    def lower(self):
        return "SHOUT"

    def split(self, *a):
        return ["SHOUT"]


@pytest.mark.parametrize("route", ["plain", "compiled"])
def test_str_subclasses_count_by_their_characters(route, monkeypatch):
    monkeypatch.setenv("VECSCORE_ROUTE", route)
    sub = [Shouty(h) for h in H]
    assert np.array_equal(vecscore.rouge(sub, R1)["rouge1"].fmeasure, vecscore.rouge(H, R1)["rouge1"].fmeasure)
    assert vecscore.corpus_bleu(sub, [R1]).score == vecscore.corpus_bleu(H, [R1]).score
    assert np.array_equal(vecscore.rouge155(sub, R1)["rouge1"].fmeasure, vecscore.rouge155(H, R1)["rouge1"].fmeasure)


# 8. interrupts ---------------------------------------------------------------------------------------

def _big_input(tmp_path: Path) -> tuple[Path, Path]:
    words = np.array("alpha beta gamma delta epsilon zeta eta theta iota kappa".split())
    rng = np.random.default_rng(0)
    lines = [" ".join(words[rng.integers(0, 10, 20)]) for _ in range(200_000)]
    h, r = tmp_path / "h.txt", tmp_path / "r.txt"
    h.write_text("\n".join(lines) + "\n")
    r.write_text("\n".join(reversed(lines)) + "\n")
    return h, r


def _default_sigint():
    """A shell without job control starts background jobs with SIGINT ignored; the child should see it as a user
    would."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _writing_into(pid: int, folder: Path) -> bool:
    """Whether process ``pid`` has a file in ``folder`` open (a named temporary file, or an unnamed O_TMPFILE
    one, which only /proc shows), or a file there exists."""
    if any(folder.iterdir()):
        return True
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}").startswith(str(folder) + os.sep):
                return True
        except OSError:
            pass
    return False


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_interrupt_leaves_no_partial_file(tmp_path, sig, code):
    h, r = _big_input(tmp_path)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "vecscore.cli", "rouge", "--hyps", str(h), "--refs", str(r),
                             "--per-pair", "--chunk-size", "2000", "-o", str(out_dir / "scores.jsonl")],
                            cwd=ROOT, env={**os.environ, "VECSCORE_ROUTE": "plain"}, stderr=subprocess.PIPE,
                            text=True, preexec_fn=_default_sigint)
    deadline = time.time() + 60
    while not _writing_into(proc.pid, out_dir) and time.time() < deadline:  # the output is open
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    time.sleep(0.3)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == code, err[-2000:]
    assert "Traceback" not in err
    assert list(out_dir.iterdir()) == []


# clear errors and quiet traps ----------------------------------------------------------------------

def test_byte_order_marks_are_dropped(tmp_path):
    from vecscore.cli.main import main

    (tmp_path / "h.txt").write_bytes("\ufeff".encode() + "\n".join(H).encode() + b"\n")
    (tmp_path / "r.txt").write_text("\n".join(R1) + "\n")
    out = tmp_path / "o.json"
    assert main(["bleu", "--hyps", str(tmp_path / "h.txt"), "--refs", str(tmp_path / "r.txt"), "-o", str(out)]) == 0
    assert json.loads(out.read_text())["score"] == sacrebleu.corpus_bleu(H, [R1]).score
    (tmp_path / "d.csv").write_bytes("\ufeffhyp,ref\n".encode() + "".join(f"{a},{b}\n" for a, b in zip(H, R1)).encode())
    assert main(["bleu", "--input", str(tmp_path / "d.csv"), "-o", str(out)]) == 0
    assert json.loads(out.read_text())["score"] == sacrebleu.corpus_bleu(H, [R1]).score


def test_workers_zero_is_an_error():
    with pytest.raises(VecscoreError, match="use -1 for all"):
        vecscore.rouge(H, R1, workers=0)


def test_chinese_with_13a_warns():
    with pytest.warns(vecscore.errors.VecscoreWarning, match="tokenize='zh'"):
        vecscore.corpus_bleu(["我们今天去公园散步了"], [["我们今天在公园散步"]])


def test_warnings_point_at_the_caller():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vecscore.rouge(["你好世界"], ["你好"], metrics=["rouge1"])  # this line
    assert caught and all(w.filename == __file__ for w in caught)


def test_missing_optional_dependency_says_what_to_install(tmp_path):
    (tmp_path / "h.txt").write_text("a b\n")
    code = f"""
        import sys
        sys.modules["nltk"] = None  # as if NLTK were not installed
        from vecscore.cli.main import main
        sys.exit(main(["rouge", "--hyps", {str(tmp_path / 'h.txt')!r}, "--refs", {str(tmp_path / 'h.txt')!r},
                       "--stem"]))
    """
    out = _child(code)
    assert out.returncode == 2
    assert "pip install 'vecscore[stem]'" in out.stderr and "row" not in out.stderr


def test_lone_surrogates_name_the_row():
    for call in (lambda: vecscore.rouge(["a", "b"], ["a", ["b", "c \ud800"]]),
                 lambda: vecscore.corpus_bleu(["a", "b"], ["a", ["b", "c \ud800"]], refs_layout="per-example"),
                 lambda: vecscore.rouge155(["a", "b"], ["a", ["b", "c \ud800"]])):
        with pytest.raises(VecscoreError, match=r"refs\[1\]\[1\] has a lone surrogate"):
            call()
    with pytest.raises(VecscoreError, match="^target has a lone surrogate"):
        vecscore.RougeScorer(["rouge1"]).score("a \ud800", "a")
