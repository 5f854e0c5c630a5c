"""Shared fixtures.

Real corpora live in ``../shared/data`` (beside the checkout) and are never
copied into the project.  Tests that need them use the ``shared_data``
fixture: when the folder is missing they skip, unless the environment sets
``VECSCORE_REQUIRE_DATA=1`` (CI does), in which case they fail.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

# the ROUGE-1.5.5.pl oracle fixture (``perl_rouge``), available to every test module
pytest_plugins = ["tests.oracles.perl_rouge"]

# routes stay deterministic and no test run starts background compilers (vecscore.background); the tests of that
# feature (tests/test_background_compile.py) turn it on where they need it
os.environ["VECSCORE_BACKGROUND_COMPILE"] = "0"

#: set (CI's built pass) to require that every kernel call of the run took a built module (vecscore.built): the run
#: fails if a call fell back to the JIT or numba's JIT was loaded into the test process
REQUIRE_BUILT = os.environ.get("VECSCORE_REQUIRE_BUILT", "") not in ("", "0")


class _NoNumba:
    """Under ``VECSCORE_REQUIRE_BUILT``: importing numba, or a kernel call that finds no built function, fails the
    test that does it (with its traceback), so that one run names every such call (the first would otherwise
    load the JIT, and every later call would take it without asking the modules)."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == "numba" or name.startswith("numba."):
            raise RuntimeError("VECSCORE_REQUIRE_BUILT: this call imports numba (it took the JIT route)")
        return None


if REQUIRE_BUILT:
    import sys

    from vecscore import built as _built

    sys.meta_path.insert(0, _NoNumba)
    _record_miss = _built._miss

    def _failing_miss(name, key):
        _record_miss(name, key)
        raise RuntimeError(f"VECSCORE_REQUIRE_BUILT: no built function for {name} with argument types {key}")

    _built._miss = _failing_miss


def pytest_collection_modifyitems(config, items):
    if not REQUIRE_BUILT:
        return
    skip = pytest.mark.skip(reason="calls kernels outside the public API, which the built modules do not hold")
    for item in items:
        if item.get_closest_marker("internal_kernels"):
            item.add_marker(skip)


def _built_problems() -> list[str]:
    from vecscore import _jit, built

    problems = []
    if not built.found_groups():
        problems.append("no built module was found (set VECSCORE_BUILT_DIR to a `vecscore warmup` folder)")
    misses = sorted(set(built.misses()))
    if misses:
        problems.append(f"{len(misses)} kernel call(s) found no built function: {misses[:10]}")
    if _jit.is_active():
        problems.append("numba's JIT was loaded into the test process")
    return problems


#: under pytest-xdist, what the workers reported (the controller itself makes no kernel call)
_WORKER_PROBLEMS: list[str] = []


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    out = getattr(node, "workeroutput", None) or {}
    name = getattr(getattr(node, "gateway", None), "id", "a worker")
    _WORKER_PROBLEMS.extend(f"{name}: {x}" for x in out.get("require_built", []))


def pytest_sessionfinish(session, exitstatus):
    if not REQUIRE_BUILT:
        return
    config = session.config
    if hasattr(config, "workerinput"):  # an xdist worker: the controller reports for every worker
        config.workeroutput["require_built"] = _built_problems()
        return
    distributed = getattr(config.option, "dist", "no") != "no" and getattr(config.option, "numprocesses", None)
    problems = list(_WORKER_PROBLEMS) if distributed else _built_problems()
    if problems:
        config.get_terminal_writer().line("VECSCORE_REQUIRE_BUILT: " + "; ".join(problems), red=True)
        session.exitstatus = 1


DATA_DIR = Path(os.environ.get("VECSCORE_DATA_DIR", Path(__file__).resolve().parents[1].parent / "shared" / "data"))


def _require() -> bool:
    return os.environ.get("VECSCORE_REQUIRE_DATA", "") not in ("", "0")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not DATA_DIR.is_dir():
        msg = f"shared data folder {DATA_DIR} not found"
        if _require():
            pytest.fail(msg + " (VECSCORE_REQUIRE_DATA is set)")
        pytest.skip(msg)
    return DATA_DIR


def data_file(root: Path, *parts: str) -> Path:
    path = root.joinpath(*parts)
    if not path.exists():
        msg = f"missing data file {path}"
        if _require():
            pytest.fail(msg)
        pytest.skip(msg)
    return path


def e2e_nlg(root: Path) -> tuple[list[list[str]], dict[str, list[str]]]:
    """The E2E NLG Challenge test set (``shared_data``): per input its references (1 to 45), and per system its
    630 outputs."""
    folder = data_file(root, "e2e-nlg-challenge")
    blocks = [[r for r in b.split("\n") if r.strip()]
              for b in (folder / "test_references_multi.txt").read_text(encoding="utf-8").split("\n\n")]
    refs = [b for b in blocks if b]
    systems = {p.stem: p.read_text(encoding="utf-8").split("\n")[:len(refs)]
               for p in sorted((folder / "systems").glob("*.txt"))}
    return refs, systems


@pytest.fixture
def db_good(monkeypatch):
    """Stem best/better -> good, as the WordNet database the ROUGE-1.5.5 oracle files were made with
    (see tests/test_rouge155_oracles.py)."""
    from vecscore.rouge.rouge155 import streams
    from vecscore.text.perl_stemmer import stem as perl_stem

    def stem(word):
        return "good" if word in ("best", "better") else perl_stem(word)

    monkeypatch.setattr(streams, "perl_stem", stem)


def plain_budget(monkeypatch, limit: int) -> None:
    """The plain route's budget set to ``limit`` whether numba is loaded in this process or not, and no work counted
    against it yet: the next call's route depends on its own size only (vecscore.route.use_plain)."""
    from vecscore import route

    monkeypatch.setattr(route, "PLAIN_MAX_CHARS", limit)
    monkeypatch.setattr(route, "LOADED_PLAIN_MAX_CHARS", limit)
    monkeypatch.setattr(route, "_spent", 0)


@pytest.fixture(autouse=True)
def _routes_by_size():
    """Every test starts with no kind of call warm on the compiled route (vecscore.route.note_compiled), so that
    the route of each call depends on its own size as the tests expect, not on the tests that ran before."""
    from vecscore import route

    route.reset()
    yield
