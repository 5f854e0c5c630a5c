"""Compilation off the critical path (vecscore.background, vecscore.route.use_plain).

No kernel is compiled here: the cache folder is a temporary one, and the background compiler's command is
replaced by one that runs ``vecscore.background_job.main`` on a fake warmup group (a short sleep), so the
detaching, the priority, the lock and the markers are the real ones.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from vecscore import background, background_job, cache_dir, route

BLEU = ("bleu", "text", "13a")
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def folder(monkeypatch, tmp_path) -> Path:
    """Background compiling on, this process's cache folder a fresh ``<tmp>/root/<kernel key>``."""
    monkeypatch.setenv(background.SETTING, "1")
    monkeypatch.delenv(background.CHILD, raising=False)
    monkeypatch.delenv("VECSCORE_ROUTE", raising=False)
    monkeypatch.delenv("VECSCORE_FAST_PATH", raising=False)
    monkeypatch.delenv("NUMBA_BOUNDSCHECK", raising=False)
    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)
    monkeypatch.setenv("VECSCORE_BUILT", "0")  # no built module found elsewhere decides a route here
    path = tmp_path / "root" / cache_dir.kernel_key()
    path.mkdir(parents=True)
    monkeypatch.setattr(background, "_folder", lambda: str(path))
    monkeypatch.setattr("vecscore._jit.is_active", lambda: False)
    monkeypatch.setattr("vecscore.chrf.stats.is_active", lambda: False)  # its own name for it
    route.reset()
    yield path
    route.reset()


# Readiness -------------------------------------------------------------------------------------------------------

def test_kinds_map_to_their_warmup_group():
    assert background.groups_of(BLEU) == {"bleu"}
    assert background.groups_of(frozenset({("rouge", "N", "default"), ("rouge", "Lsum", "default")})) == {"rouge"}
    assert background.groups_of(("chrf", 6, 2)) == {"chrf"}
    assert background.groups_of(("unknown", "x")) is None
    assert background.groups_of(frozenset({("rouge", "N", "default"), ("unknown",)})) is None
    from vecscore.warmup import GROUPS

    assert set(background.GROUP_OF.values()) == set(GROUPS) == set(background.COMPILE_SECONDS)


def test_a_group_is_ready_once_its_marker_is_written(folder):
    assert not background.ready("bleu")
    assert background.missing_groups(BLEU) == {"bleu"}
    background.mark_ready("bleu")
    assert (folder / "ready" / "bleu").is_file()
    assert background.ready("bleu") and not background.ready("rouge")
    assert background.missing_groups(BLEU) == frozenset()
    assert background.cold_budget(BLEU) == (0.0, frozenset())


def test_a_kind_that_finished_on_the_compiled_route_is_ready_for_later_processes(folder, monkeypatch):
    kind = ("rouge", "L", "default")
    monkeypatch.setitem(sys.modules, "numba", sys.modules.get("numba") or object())  # as after a compiled call
    route.note_compiled(frozenset({kind}))
    assert (folder / "ready" / "kinds" / "rouge-L-default").is_file()
    background.reset()  # a later process: nothing cached in memory
    assert background.kind_ready(kind)
    assert not background.kind_ready(("rouge", "N", "default"))  # another kind of the same group
    assert background.missing_groups(frozenset({kind, ("rouge", "N", "default")})) == {"rouge"}


def test_warmup_marks_each_group_it_completes(folder, monkeypatch):
    from vecscore import warmup

    monkeypatch.setitem(warmup.GROUPS, "fake", lambda: None)
    monkeypatch.setitem(warmup.GROUPS, "broken", lambda: 1 / 0)
    warmup.warmup(["fake"])
    assert background.ready("fake")
    with pytest.raises(ZeroDivisionError):
        warmup.warmup(["broken"])
    assert not (folder / "ready" / "broken").exists()


def test_no_marker_without_a_real_compile(folder, monkeypatch):
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "1")
    background.mark_ready("ter")
    monkeypatch.setitem(sys.modules, "numba", sys.modules.get("numba") or object())
    background.mark_kinds(("ter", "x"))
    assert not (folder / "ready").exists()


def test_a_negative_answer_is_looked_at_again_after_a_while_a_positive_one_kept(folder, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(background.time, "monotonic", lambda: clock[0])
    assert not background.ready("chrf")
    (folder / "ready").mkdir()
    (folder / "ready" / "chrf").write_text("x")
    clock[0] += background.RECHECK_SECONDS / 2
    assert not background.ready("chrf")  # not looked at again yet
    clock[0] += background.RECHECK_SECONDS
    assert background.ready("chrf")
    (folder / "ready" / "chrf").unlink()
    clock[0] += 10 * background.RECHECK_SECONDS
    assert background.ready("chrf")  # kept


# The route decision ------------------------------------------------------------------------------------------------

@pytest.fixture
def started(monkeypatch) -> list:
    calls: list = []
    monkeypatch.setattr(background, "start", lambda groups: calls.append(set(groups)) or [])
    return calls


def _texts(chars: int) -> list[str]:
    row = "x" * 100_000
    return [row] * (chars // 100_000)


def test_cold_kernels_plain_below_the_compile_time_foreground_compile_above(folder, monkeypatch, started):
    monkeypatch.setitem(background.COMPILE_SECONDS, "bleu", 2.0)  # 8,000,000 characters of cost 1
    assert background.cold_budget(BLEU)[0] == pytest.approx(8_000_000)
    # 3,000,000 characters of cost 2: 1.5 s on the plain route, above PLAIN_MAX_CHARS, below the 2 s compile
    assert route.use_plain(True, lambda: route.text_chars(_texts(3_000_000)), 2, BLEU) is True
    assert started == [{"bleu"}]
    # 5,000,000 characters: 2.5 s > 2 s (counted past PLAIN_MAX_CHARS, where the count usually stops)
    route.reset()
    assert route.use_plain(True, lambda: route.text_chars(_texts(5_000_000)), 2, BLEU) is False
    assert started == [{"bleu"}]
    # the process's plain work counts: 6,000,000 spent, 2 x 1,500,000 more is past 8,000,000
    route.reset()
    assert route.use_plain(True, lambda: route.text_chars(_texts(3_000_000)), 2, BLEU) is True
    assert route.use_plain(True, lambda: route.text_chars(_texts(1_500_000)), 2, BLEU) is False


def test_a_first_look_starts_nothing(folder, started):
    assert route.use_plain(True, 10_000_000, 2, BLEU, final=False) is True
    assert started == []
    assert route.use_plain(True, 10_000_000, 2, BLEU) is True
    assert started == [{"bleu"}]


def test_ready_kernels_or_the_setting_off_decide_as_before(folder, monkeypatch, started):
    background.mark_ready("bleu")
    assert route.use_plain(True, 3_000_000, 2, BLEU) is False  # compiled: the kernels are in the cache
    assert route.use_plain(True, 900_000, 2, BLEU) is True  # under PLAIN_MAX_CHARS: plain as before
    route.reset()
    monkeypatch.setenv(background.SETTING, "0")
    assert route.use_plain(True, 3_000_000, 2, BLEU) is False
    assert route.use_plain(True, 3_000_000, 2, ("unknown",)) is False  # a kind with no group: as before
    assert route.use_plain(True, 3_000_000, 2) is False  # a helper step: its own size
    assert started == []


def test_a_long_lived_process_takes_the_compiled_route_once_the_group_is_ready(folder, monkeypatch, started):
    clock = [50.0]
    monkeypatch.setattr(background.time, "monotonic", lambda: clock[0])
    assert route.use_plain(True, 3_000_000, 2, BLEU) is True
    monkeypatch.setattr(route, "_spent", 0)
    (folder / "ready").mkdir()
    (folder / "ready" / "bleu").write_text("done")  # another process (the background compiler) finished
    assert route.use_plain(True, 3_000_000, 2, BLEU) is True  # not looked at again yet
    monkeypatch.setattr(route, "_spent", 0)
    clock[0] += background.RECHECK_SECONDS + 0.1
    assert route.use_plain(True, 3_000_000, 2, BLEU) is False


def test_a_long_lived_process_takes_the_module_its_background_build_wrote(folder, monkeypatch, started):
    from vecscore import built

    clock = [50.0]
    monkeypatch.setattr(background.time, "monotonic", lambda: clock[0])
    monkeypatch.delenv("VECSCORE_BUILT")
    found: dict = {}
    monkeypatch.setattr(built, "_scan", lambda: {"index": {}, "groups": dict(found)})
    built.reset()
    try:
        assert route.use_plain(True, 3_000_000, 2, BLEU) is True  # cold: the plain route, and the build starts
        assert started == [{"bleu"}]
        monkeypatch.setattr(route, "_spent", 0)
        found["bleu"] = ("_vecscore_bleu.so", {})  # the background build has written the module
        assert route.use_plain(True, 3_000_000, 2, BLEU) is True  # not looked for again yet
        clock[0] += background.RECHECK_SECONDS + 0.1
        assert route.use_plain(True, 100, 2, BLEU) is False  # found: the compiled route at every size
        monkeypatch.setattr("vecscore._jit.is_active", lambda: True)  # once numba is loaded, every kernel is its
        assert not background.module_ready("bleu")
    finally:
        built.reset()


def test_the_background_compiler_builds_the_groups_module(tmp_path):
    """The real thing, on the smallest group: ``python -m vecscore.background_job ter`` builds TER's module into the
    cache's ``built`` folder, and a fresh process then scores TER from it without numba (sacreBLEU's number)."""
    pytest.importorskip("setuptools")  # numba.pycc's compiler driver
    sacrebleu = pytest.importorskip("sacrebleu")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VECSCORE_", "NUMBA_"))}
    env["VECSCORE_CACHE_DIR"] = str(tmp_path / "cache")
    keyed = subprocess.run([sys.executable, "-c", "from vecscore import cache_dir; print(cache_dir.chosen()[1])"],
                           env=env, capture_output=True, text=True, timeout=120, cwd=ROOT).stdout.strip()
    lock = background.lock_path(keyed, "ter")
    os.makedirs(os.path.dirname(lock))
    Path(lock).write_text(f"{os.getpid()}\n")
    out = subprocess.run([sys.executable, "-m", "vecscore.background_job", "ter", lock, str(os.getpid())],
                         env={**env, "VECSCORE_CACHE_DIR": keyed}, capture_output=True, text=True, timeout=900,
                         cwd=ROOT)
    assert out.returncode == 0 and "built the module of ter" in out.stdout, out.stdout[-3000:] + out.stderr[-3000:]
    assert not os.path.exists(lock)
    assert not (Path(keyed) / "ready" / "ter").exists()  # the module is the marker: the JIT's cache is empty
    hyps = ["the cat sat on the mat", "a dog barked at the moon all night", "nothing in common"]
    refs = ["the cat sat on a mat", "the dog barked at the moon all night long", "something else entirely"]
    code = textwrap.dedent(f"""
        import sys, vecscore
        from vecscore import built
        score = vecscore.corpus_ter({hyps!r}, [{refs!r}]).score
        print(repr(score), "numba" in sys.modules, built.misses(), sorted(built.found_groups()))
    """)
    got = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300,
                         cwd=ROOT)
    assert got.returncode == 0, got.stderr[-3000:]
    assert got.stdout.split(" ", 1)[1].strip() == "False [] ['ter']"
    assert float(got.stdout.split()[0]) == sacrebleu.TER().corpus_score(hyps, [refs]).score


def test_a_failed_build_leaves_the_jit_cache_to_fill(monkeypatch, capsys):
    from vecscore import aot_build
    from vecscore.errors import VecscoreError

    monkeypatch.delenv("VECSCORE_BUILT", raising=False)
    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)
    monkeypatch.delenv("VECSCORE_FAST_PATH", raising=False)
    monkeypatch.delenv("NUMBA_BOUNDSCHECK", raising=False)

    def fail(groups, **kwargs):
        raise VecscoreError("building the kernel module(s) of ter failed; no C compiler")

    monkeypatch.setattr(aot_build, "build", fail)
    assert background_job._build_module("ter") is False
    assert "no C compiler" in capsys.readouterr().out
    monkeypatch.setenv("VECSCORE_BUILT", "0")
    monkeypatch.setattr(aot_build, "build", lambda *a, **k: pytest.fail("built with modules off"))
    assert background_job._build_module("ter") is False


# Starting the compiler ---------------------------------------------------------------------------------------------

CHILD = textwrap.dedent("""
    import sys, time
    import vecscore.background as b
    import vecscore.background_job as job
    import vecscore.warmup as w

    w.GROUPS["fake"] = lambda: time.sleep(float(sys.argv[4]))
    print("nested start:", b.start(["fake"]), "enabled:", b.enabled(), flush=True)
    sys.exit(job.main(sys.argv[1:4]))
""")


@pytest.fixture
def fake_compiler(monkeypatch):
    """The background compiler runs ``vecscore.background_job.main`` on a warmup group ``fake`` that sleeps."""
    seconds = ["2.0"]
    monkeypatch.setattr(background, "_command",
                        lambda group, lock: [sys.executable, "-c", CHILD, group, lock, str(os.getpid()), seconds[0]])
    monkeypatch.setitem(background.COMPILE_SECONDS, "fake", 1.0)
    return seconds


def _wait(predicate, timeout: float = 60.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def _child(pid: int) -> subprocess.Popen:
    return next(p for p in background._children if p.pid == pid)


def test_the_compiler_is_detached_low_priority_and_marks_the_group_ready(folder, fake_compiler):
    [pid] = background.start(["fake"])
    lock = Path(background.lock_path(str(folder), "fake"))
    assert lock.read_text().strip() == str(pid)
    assert os.getsid(pid) == pid != os.getsid(0)  # a session of its own: no signal from the caller's terminal
    assert _wait(lambda: os.getpriority(os.PRIO_PROCESS, pid) == 19, 20)
    assert background.start(["fake"]) == []  # once per process
    assert _child(pid).wait(timeout=120) == 0
    assert (folder / "ready" / "fake").is_file()  # in this process's folder: the child chose the same one
    assert not lock.exists()
    log = (folder / "compiling" / "fake.log").read_text()
    assert "nested start: [] enabled: False" in log  # never a compiler from the compiler
    assert "compiled fake" in log


def test_two_processes_start_one_compiler(folder, fake_compiler):
    script = textwrap.dedent(f"""
        import os, sys
        import vecscore.background as b
        b._folder = lambda: {str(folder)!r}
        b._command = lambda group, lock: [sys.executable, "-c", {CHILD!r}, group, lock, str(os.getpid()), "3"]
        print(len(b.start(["fake"])), flush=True)
    """)
    env = {**os.environ, background.SETTING: "1"}
    procs = [subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True)
             for _ in range(2)]
    counts = [int(p.communicate(timeout=120)[0].split()[-1]) for p in procs]
    assert sorted(counts) == [0, 1]
    lock = Path(background.lock_path(str(folder), "fake"))
    assert _wait(lambda: (folder / "ready" / "fake").exists() and not lock.exists(), 120)


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_a_stale_lock_is_taken_over_a_live_one_is_not(tmp_path):
    lock = tmp_path / "compiling" / "g.lock"
    lock.parent.mkdir()
    lock.write_text(f"{_dead_pid()}\n")
    assert background.acquire(str(lock))
    assert lock.read_text().strip() == str(os.getpid())
    assert not background.acquire(str(lock))  # held by a live process (this one)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock.write_text(f"{sleeper.pid}\n")
        assert not background.acquire(str(lock))
        old = time.time() - background.LOCK_MAX_AGE - 10  # too old to be a compile: stale whatever its process
        os.utime(lock, (old, old))
        assert background.acquire(str(lock))
    finally:
        sleeper.kill()
        sleeper.wait()
    lock.write_text("")  # being written: held while young, stale once old
    assert not background.acquire(str(lock))
    os.utime(lock, (time.time() - 120, time.time() - 120))
    assert background.acquire(str(lock))
    background.release(str(lock), [os.getpid() + 1])
    assert lock.exists()
    background.release(str(lock), [os.getpid()])
    assert not lock.exists()


def test_nothing_starts_when_off_in_the_compiler_without_a_folder_or_numba(folder, fake_compiler, monkeypatch):
    lock = Path(background.lock_path(str(folder), "fake"))
    for name, value in ((background.SETTING, "0"), (background.CHILD, "1")):
        monkeypatch.setenv(name, value)
        assert not background.can_start() and background.start(["fake"]) == []
        monkeypatch.delenv(name)
    with monkeypatch.context() as m:
        m.setattr(background, "_numba_installed", lambda: False)
        assert not background.can_start() and background.start(["fake"]) == []
    with monkeypatch.context() as m:
        m.setattr(background, "_folder", lambda: None)
        assert not background.can_start() and background.start(["fake"]) == []
    assert not lock.exists() and not (folder / "compiling").exists()
    assert background.can_start()


def test_the_compiler_uses_the_callers_folder(folder, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(folder))  # as cache_dir.configure() leaves it: the keyed folder
    env = background._environment(str(folder))
    assert env["VECSCORE_CACHE_DIR"] == str(folder) and "NUMBA_CACHE_DIR" not in env
    assert env[background.CHILD] == "1"
    out = subprocess.run([sys.executable, "-c", "from vecscore import cache_dir; print(cache_dir.chosen()[1])"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == str(folder), out.stderr


# Through the metrics' own calls ------------------------------------------------------------------------------------

def _pairs(n: int) -> tuple[list[str], list[str]]:
    return ([f"the cat {i} sat on the mat and looked at the dog that sat on the other mat all day" for i in range(n)],
            [f"a cat {i} was sitting on the mat while a dog sat on another mat for the whole day" for i in range(n)])


def _no_compiled_route(*args, **kwargs):
    raise AssertionError("the compiled route was taken")


def test_a_large_cold_rouge_call_takes_the_plain_route_and_starts_its_compiler(folder, monkeypatch, started):
    from vecscore.rouge import compiled
    from vecscore.rouge.api import rouge

    monkeypatch.setattr(compiled, "compiled_stats", _no_compiled_route)
    hyps, refs = _pairs(15_000)
    assert route.text_chars(hyps, refs) > route.PLAIN_MAX_CHARS
    scores = rouge(hyps, refs, metrics=["rouge1", "rougeL"])
    assert len(scores["rouge1"].fmeasure) == 15_000
    assert started == [{"rouge"}]


def test_a_large_cold_bleu_call_takes_the_plain_route_and_starts_its_compiler(folder, monkeypatch, started):
    from vecscore.bleu import scoring
    from vecscore.bleu.api import corpus_bleu

    monkeypatch.setattr(scoring, "compiled", _no_compiled_route)
    hyps, refs = _pairs(8_000)
    assert route.text_chars(hyps, refs) * route.COST["bleu"] > route.PLAIN_MAX_CHARS
    assert corpus_bleu(hyps, [refs], refs_layout="streams").score > 0
    assert started == [{"bleu"}]


def test_a_large_cold_chrf_call_takes_the_plain_route_and_starts_its_compiler(folder, monkeypatch, started):
    from vecscore.chrf import stats
    from vecscore.chrf.api import corpus_chrf

    monkeypatch.setattr(stats, "compiled_route", _no_compiled_route)
    hyps, refs = _pairs(4_000)
    assert route.text_chars(hyps, refs) * stats._COST_CHARS > route.PLAIN_MAX_CHARS
    assert corpus_chrf(hyps, [refs]).score > 0
    assert started == [{"chrf"}]


def test_a_large_cold_rouge155_call_takes_the_plain_route_and_starts_its_compiler(folder, monkeypatch, started):
    from vecscore.rouge.rouge155 import api

    monkeypatch.setattr(api, "CompiledRoute", _no_compiled_route)
    hyps, refs = _pairs(15_000)
    assert route.text_chars(hyps, refs) * route.COST["rouge155"] > route.PLAIN_MAX_CHARS
    scores = api.rouge155(hyps, refs, metrics=["rouge1", "rougeL"])
    assert len(scores["rouge1"].fmeasure) == 15_000
    assert started == [{"rouge155"}]
