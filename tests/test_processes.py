"""Threads and processes: every public entry from several threads on every threading layer, a fork after each
metric's compiled call, and worker threads that cannot be created.

Each case runs in a child process with a timeout, so a hang or a killed child fails the test instead of the
test run.  The numbers a thread or a forked child computes are compared with the same call made first, alone,
in the parent (the oracles' own numbers are checked by the differential tests; here the property is that
threads and forks do not change them).
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _child(code: str, env=None, timeout=1800, args=()) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "VECSCORE_ROUTE": "compiled", **(env or {})}
    full_env = {k: v for k, v in full_env.items() if v is not None}  # None: the variable unset
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          cwd=ROOT, env=full_env, timeout=timeout)


def _code(*parts: str) -> str:
    return "\n".join(textwrap.dedent(part) for part in parts)


def _layers() -> list[str]:
    """The threading layers numba can load here (tbb only where the ``tbb`` package is installed).

    vecscore loads a virtual environment's ``libtbb`` before numba looks for it by name, so the probe does too.
    """
    out = _child(_code("""
        from vecscore._jit import _preload_tbb
        _preload_tbb()
        from numba.np.ufunc import parallel
        found = []
        for name in ("workqueue", "omp", "tbb"):
            try:
                if name == "tbb":
                    parallel._check_tbb_version_compatible()
                    from numba.np.ufunc import tbbpool  # noqa: F401
                elif name == "omp":
                    from numba.np.ufunc import omppool  # noqa: F401
                found.append(name)
            except Exception:
                pass
        print(" ".join(found))
    """), timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


LAYERS = _layers()

# Every public entry that runs compiled kernels, on a small batch (the compiled route is forced), each returning
# a number or an array of numbers.
CALLS = """
    import vecscore
    from tests.fuzz_inputs import numbers as rows  # every number a result holds, in order
    H = ["the cat sat on the mat number %d ." % i for i in range(40)]
    R = ["a cat was on the mat number %d ." % (i % 7) for i in range(40)]
    R2 = ["the cat lay on a mat , number %d" % (i % 5) for i in range(40)]
    H2 = ["a cat sat on the mat number %d ." % (i % 3) for i in range(40)]
    shared = vecscore.SharedReferences(R[:7] + R2[:5])

    CALLS = {
        "rouge": lambda: rows(vecscore.rouge(H, R, metrics=["rouge1", "rouge2", "rougeL", "rougeLsum"],
                                             sentence_splitter="punct")),
        "rouge_stemmed": lambda: rows(vecscore.rouge(H, R, metrics=["rouge1"], stemmer=True)),
        "RougeScorer": lambda: rows(vecscore.RougeScorer(["rougeL"]).score_batch(R, H)),
        "rouge155": lambda: rows(vecscore.rouge155(H, [[a, b] for a, b in zip(R, R2)])),
        "rouge_weighted": lambda: rows(vecscore.rouge_weighted(H, R)),
        "sentence_bleu": lambda: rows(vecscore.sentence_bleu(H, R)),
        "corpus_bleu": lambda: rows(vecscore.corpus_bleu(H, [R, R2])),
        "BLEU": lambda: rows(vecscore.BLEU().corpus_score(H, [R, R2])),
        "bleu_statistics": lambda: rows(vecscore.bleu_statistics(H, [R, R2])),
        "nltk_corpus_bleu": lambda: rows(vecscore.nltk_corpus_bleu(H, R, tokenize="13a")),
        "nltk_sentence_bleu": lambda: rows(vecscore.nltk_sentence_bleu(H, R, tokenize="13a")),
        "CHRF": lambda: rows(vecscore.CHRF(word_order=2).corpus_score(H, [R, R2])),
        "corpus_chrf": lambda: rows(vecscore.corpus_chrf(H, [R])),
        "chrf_statistics": lambda: rows(vecscore.chrf_statistics(H, [R, R2])),
        "TER": lambda: rows(vecscore.TER().corpus_score(H, [R, R2])),
        "ter_statistics": lambda: rows(vecscore.ter_statistics(H, [R, R2])),
        "SharedReferences": lambda: rows(shared.sentence_bleu(H)) + rows(shared.rouge(H)),
        "confidence_interval": lambda: rows(vecscore.confidence_interval("bleu", H, [R], n_bootstrap=50, seed=3)),
        "paired_bootstrap": lambda: rows(vecscore.paired_bootstrap("chrf", H, {"b": H2}, [R], n_samples=50,
                                                                   seed=3)),
        "paired_randomization": lambda: rows(vecscore.paired_randomization("ter", H, {"b": H2}, [R],
                                                                           n_samples=50, seed=3)),
    }
"""


def test_every_call_is_defined():
    """The list the thread and fork tests run covers what it says (every call runs, on the compiled route)."""
    out = _child(_code(CALLS, """
        for name, call in CALLS.items():
            call()
        print(len(CALLS))
    """))
    assert out.returncode == 0, out.stderr[-3000:]
    assert int(out.stdout.split()[-1]) == 20


THREADS = _code(CALLS, """
    import sys, threading
    want = {name: call() for name, call in CALLS.items()}
    bad = []
    def work(k):
        names = list(CALLS)
        for j in range(2):
            for name in names[k:] + names[:k]:  # each thread in its own order: different kernels at once
                if CALLS[name]() != want[name]:
                    bad.append(name)
    ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    import numba
    print("LAYER", numba.threading_layer(), "BAD", ",".join(sorted(set(bad))) or "-")
""")


@pytest.mark.parametrize("layer", ["default", *LAYERS])
def test_every_public_entry_from_four_threads(layer):
    env = {"NUMBA_THREADING_LAYER": None if layer == "default" else layer}
    out = _child(THREADS, env)
    assert out.returncode == 0, out.stderr[-3000:]
    words = out.stdout.split()
    assert words[-2:] == ["BAD", "-"], out.stdout
    if layer != "default":
        assert words[words.index("LAYER") + 1] == layer


def test_the_default_layer_is_fork_safe():
    """With no layer chosen, vecscore never runs on GNU OpenMP while a fork-safe layer loads."""
    out = _child(_code("""
        import vecscore
        from vecscore import _jit
        vecscore.sentence_bleu(["a b c d"] * 3, ["a b c e"] * 3)
        print(_jit.threading_layer())
    """), {"NUMBA_THREADING_LAYER": None})
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split()[-1] == ("tbb" if "tbb" in LAYERS else "workqueue")


FORK = _code(CALLS, """
    import multiprocessing as mp, os, sys
    from concurrent.futures import ProcessPoolExecutor
    names = sys.argv[1].split(",")
    want = {name: CALLS[name]() for name in names}  # the compiled calls run in the parent first

    def score(name):
        return CALLS[name]()

    # a bare fork
    for name in names:
        pid = os.fork()
        if pid == 0:
            os._exit(0 if score(name) == want[name] else 3)
        _, status = os.waitpid(pid, 0)
        print("FORK", name, status)
    ctx = mp.get_context("fork")
    with ctx.Pool(2) as pool:
        got = pool.map_async(score, names).get(timeout=600)
    print("POOL", all(g == want[n] for g, n in zip(got, names)))
    with ProcessPoolExecutor(2, mp_context=ctx) as ex:
        got = list(ex.map(score, names, timeout=600))
    print("EXECUTOR", all(g == want[n] for g, n in zip(got, names)))
""")

GROUPS = {"rouge": "rouge,RougeScorer,rouge155,rouge_weighted",
          "bleu": "sentence_bleu,corpus_bleu,BLEU,nltk_corpus_bleu,SharedReferences",
          "chrf": "CHRF,corpus_chrf,chrf_statistics,paired_bootstrap", "ter": "TER,ter_statistics"}


@pytest.mark.parametrize("layer", [name for name in LAYERS if name != "omp"])
@pytest.mark.parametrize("group", sorted(GROUPS))
def test_fork_after_each_metrics_compiled_call(group, layer):
    out = _child(FORK, {"NUMBA_THREADING_LAYER": layer}, args=[GROUPS[group]])
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    forks = [line.split() for line in lines if line.startswith("FORK")]
    assert [f[1] for f in forks] == GROUPS[group].split(",")
    assert all(f[2] == "0" for f in forks), forks  # the child exited 0: not killed, same number
    assert "POOL True" in lines and "EXECUTOR True" in lines, out.stdout


@pytest.mark.skipif("omp" not in LAYERS, reason="numba's OpenMP layer does not load here")
def test_a_fork_on_the_openmp_layer_is_warned_about():
    """GNU OpenMP kills a child forked after it ran (numba's own handler); vecscore runs on it only when asked,
    and says so, with the fix, before such a fork."""
    out = _child(_code("""
        import os, vecscore
        vecscore.sentence_bleu(["a b c d"] * 3, ["a b c e"] * 3)
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        print("STATUS", os.waitpid(pid, 0)[1])
    """), {"NUMBA_THREADING_LAYER": "omp"}, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "GNU OpenMP" in out.stderr and "'spawn'" in out.stderr and "NUMBA_THREADING_LAYER" in out.stderr


# The child imports numba first, then limits its own address space so that the worker threads' stacks (8 MiB
# each) no longer fit.
THREAD_LIMIT = _code("""
    import resource, re, threading
    import numba
    from numba.np.ufunc import parallel  # noqa: F401  (loaded before the limit)
    import vecscore
    from vecscore import cache_dir
    cache_dir.configure()
    threading.stack_size(0)
    with open("/proc/self/status") as f:
        size = int(re.search(r"VmSize:\\s+(\\d+) kB", f.read()).group(1)) * 1024
    resource.setrlimit(resource.RLIMIT_AS, (size + (6 << 20), resource.RLIM_INFINITY))
    try:
        vecscore._jit.activate()
        print("ACTIVATED")
    except vecscore.VecscoreError as exc:
        print("ERROR", exc)
""")


@pytest.mark.parametrize("layer", LAYERS)
def test_threads_that_cannot_be_created_are_an_error(layer):
    out = _child(THREAD_LIMIT, {"NUMBA_THREADING_LAYER": layer, "NUMBA_NUM_THREADS": "2"}, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.startswith("ERROR vecscore could not start 2 worker threads"), out.stdout + out.stderr[-2000:]
    assert "NUMBA_NUM_THREADS" in out.stdout
