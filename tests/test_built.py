"""Kernels built ahead of time (vecscore.built, vecscore.aot_build): the rouge group's module is built once into
a temporary folder; fresh processes then score real summaries with it and must give rouge-score's numbers
without importing numba, and every module that does not fit (another CPU level, other sources, another NumPy
ABI, a truncated file) must be passed over for the JIT route with the same numbers."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

from tests.corpora import realsumm, summeval

ROOT = Path(__file__).resolve().parents[1]
TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


@pytest.fixture(scope="session")
def built_root(tmp_path_factory) -> Path:
    """Every group's module, built once (two at a time); or, where ``VECSCORE_TEST_BUILT_DIR`` names a folder that
    ``vecscore warmup`` filled from these sources (CI builds once for this file and its built pass), that
    folder, read only."""
    from vecscore.aot_build import build

    given = os.environ.get("VECSCORE_TEST_BUILT_DIR")
    if given:
        from vecscore import cpu_levels
        from vecscore.aot_build import folder_for

        if not os.path.isdir(folder_for(cpu_levels.best(), given)):
            pytest.fail(f"VECSCORE_TEST_BUILT_DIR={given} holds no modules built from these sources for this CPU: "
                        f"run `VECSCORE_BUILT_DIR={given} vecscore warmup` first, or unset it")
        return Path(given)
    root = tmp_path_factory.mktemp("built")
    build(root=str(root), jobs=2)
    return root


def _module_folder(root: Path) -> Path:
    (manifest,) = root.rglob("_vecscore_rouge.json")
    return manifest.parent


@pytest.fixture(scope="session")
def corpus(shared_data):
    hyps, refs = realsumm(shared_data)
    s_hyps, s_refs = summeval(shared_data)
    return hyps[:1500], refs[:1500], s_hyps[:400], s_refs[:400]


@pytest.fixture(scope="session")
def oracle(corpus):
    """rouge-score's F of every pair: REALSumm single-reference, SummEval's 11 references (score_multi)."""
    from rouge_score import rouge_scorer

    hyps, refs, m_hyps, m_refs = corpus
    scorer = rouge_scorer.RougeScorer(TYPES)
    single = {t: [] for t in TYPES}
    for h, r in zip(hyps, refs):
        s = scorer.score(r, h)
        for t in TYPES:
            single[t].append(s[t].fmeasure)
    multi = {t: [] for t in TYPES}
    for h, rs in zip(m_hyps, m_refs):
        s = scorer.score_multi(rs, h)
        for t in TYPES:
            multi[t].append(s[t].fmeasure)
    return single, multi


_CHILD = textwrap.dedent("""
    import json, sys, warnings
    import vecscore
    from vecscore import built
    data = json.load(open(sys.argv[1]))
    out = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for name, hyps, refs in (("single", data["hyps"], data["refs"]), ("multi", data["m_hyps"], data["m_refs"])):
            for workers in (1, 2):
                r = vecscore.rouge(hyps, refs, metrics=%r, workers=workers)
                out[f"{name}-{workers}"] = {t: r.scores[t].fmeasure.tolist() for t in r.scores}
    out["numba"] = "numba" in sys.modules or "llvmlite" in sys.modules
    out["package"] = vecscore.__file__
    out["misses"] = built.misses()
    out["groups"] = sorted(built.found_groups())
    out["warnings"] = [str(w.message) for w in caught if "built kernel module" in str(w.message)]
    print(json.dumps(out))
""" % TYPES)


def _limits(address_space_mib: int, stack_mib: int | None = None):
    def apply():
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (address_space_mib << 20, address_space_mib << 20))
        if stack_mib is not None:
            resource.setrlimit(resource.RLIMIT_STACK, (stack_mib << 20, stack_mib << 20))

    return apply


def _run_child(tmp_path, corpus, env_extra, preexec=None, path: Path = ROOT) -> dict:
    hyps, refs, m_hyps, m_refs = corpus
    data = tmp_path / "data.json"
    data.write_text(json.dumps({"hyps": hyps, "refs": refs, "m_hyps": m_hyps, "m_refs": m_refs}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VECSCORE_BUILT", "VECSCORE_ROUTE"))}
    env.update(env_extra)
    env["PYTHONPATH"] = str(path)
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(data)], capture_output=True, text=True, env=env,
                          timeout=1200, cwd=tmp_path, preexec_fn=preexec)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _assert_oracle(got: dict, oracle) -> None:
    single, multi = oracle
    for name, want in (("single", single), ("multi", multi)):
        for workers in (1, 2):
            for t in TYPES:
                assert np.array_equal(np.array(got[f"{name}-{workers}"][t]), np.array(want[t])), (name, workers, t)


def test_fresh_process_scores_with_the_module_and_never_imports_numba(built_root, corpus, oracle, tmp_path):
    got = _run_child(tmp_path, corpus, {"VECSCORE_BUILT_DIR": str(built_root)})
    assert "rouge" in got["groups"]
    assert got["misses"] == []  # every call of the public API found its export
    assert got["numba"] is False
    assert got["warnings"] == []
    _assert_oracle(got, oracle)


def test_a_wheel_ships_the_modules(built_root, corpus, oracle, tmp_path):
    """docs/deployment.md's wheel recipe: modules built into the package's ``_built`` folder go into the wheel, and
    a process that imports vecscore from the unpacked wheel alone (no VECSCORE_BUILT_DIR, an empty kernel cache)
    scores with them, rouge-score's numbers, without numba."""
    import zipfile

    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "vecscore", src / "vecscore", ignore=shutil.ignore_patterns("__pycache__", "_built"))
    shutil.copytree(built_root, src / "vecscore" / "_built")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w",
                           str(tmp_path / "dist"), str(src)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("vecscore-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        z.extractall(site)
    assert any(n.startswith("vecscore/_built/") and n.endswith(".so") for n in names)
    assert any(n.startswith("vecscore/_built/") and n.endswith("_vecscore_rouge.json") for n in names)
    cache = tmp_path / "empty-cache"
    cache.mkdir()
    got = _run_child(tmp_path, corpus, {"VECSCORE_CACHE_DIR": str(cache)}, path=site)
    assert Path(got["package"]).is_relative_to(site)
    assert "rouge" in got["groups"] and got["misses"] == [] and got["numba"] is False
    _assert_oracle(got, oracle)


@pytest.mark.parametrize("limits", [(800, None), (2560, 1536)], ids=["address-space-800MiB", "stack-1.5GiB"])
def test_built_route_under_cluster_limits(built_root, corpus, oracle, tmp_path, limits):
    """As cluster schedulers set them: an 800 MiB address space with an empty kernel cache and the compiled route
    forced (numba's compiler is killed by std::bad_alloc there), and a 1.5 GiB stack under 2.5 GiB (no worker
    thread can be created: numba's workqueue layer hangs): the built route scores, with rouge-score's numbers."""
    cache = tmp_path / "empty-cache"
    cache.mkdir()
    got = _run_child(tmp_path, corpus, {"VECSCORE_BUILT_DIR": str(built_root), "VECSCORE_ROUTE": "compiled",
                                        "VECSCORE_CACHE_DIR": str(cache)}, preexec=_limits(*limits))
    assert got["numba"] is False and got["misses"] == []
    _assert_oracle(got, oracle)


def _tampered(built_root: Path, tmp_path: Path, how: str) -> Path:
    """A copy of the built folder with its module made unfit in one way."""
    root = tmp_path / how
    shutil.copytree(built_root, root)
    folder = _module_folder(root)
    manifest_path = folder / "_vecscore_rouge.json"
    m = json.loads(manifest_path.read_text())
    if how == "other-level":
        from vecscore import cpu_levels

        runnable = cpu_levels.runnable()
        m["level"] = next((lv for lv in ("x86-64-v4", "generic") if lv not in runnable), "some-future-level")
    elif how == "stale":
        m["kernel_key"] = "v0.0.0-0123456789abcdef"
    elif how == "numpy-abi":
        m["numpy_c_api"] = int(m["numpy_c_api"]) + 1  # built against a newer NumPy than this one
    elif how == "truncated":
        so = folder / m["module"]
        so.write_bytes(so.read_bytes()[: so.stat().st_size // 2])
    manifest_path.write_text(json.dumps(m))
    return root


@pytest.mark.parametrize("how", ["other-level", "stale", "numpy-abi", "truncated"])
def test_unfit_module_is_passed_over_with_the_same_numbers(built_root, corpus, oracle, tmp_path, how):
    root = _tampered(built_root, tmp_path, how)
    got = _run_child(tmp_path, corpus, {"VECSCORE_BUILT_DIR": str(root), "VECSCORE_ROUTE": "compiled"})
    if how == "truncated":  # found, refused on load (its SHA-256), with one warning naming it
        assert "rouge" in got["groups"]
        assert len(got["warnings"]) == 1 and "_vecscore_rouge" in got["warnings"][0]
    else:
        assert "rouge" not in got["groups"] and got["warnings"] == []
    assert got["numba"] is True  # the JIT route
    _assert_oracle(got, oracle)


_FAMILIES = textwrap.dedent("""
    import json, sys, warnings
    warnings.simplefilter("ignore")
    import vecscore
    from vecscore import built
    from vecscore.coco import Bleu, Cider, Rouge
    d = json.load(open(sys.argv[1]))
    hyps, refs = d["hyps"], d["refs"]
    out = {}
    for tok in ("13a", "intl", "char", "zh", "none"):
        b = vecscore.corpus_bleu(hyps, refs, tokenize=tok)
        out[f"corpus_bleu-{tok}"] = [b.score, b.counts, b.totals, b.sys_len, b.ref_len]
    out["sentence_bleu"] = [float(x) for x in vecscore.sentence_bleu(hyps, refs[0]).score]
    for order in (0, 2):
        out[f"chrf-{order}"] = vecscore.corpus_chrf(hyps, refs, word_order=order).score
    out["ter"] = vecscore.corpus_ter(hyps, refs[:1]).score
    gts, res = d["gts"], d["res"]
    for name, scorer in (("coco-bleu", Bleu()), ("coco-rouge", Rouge()), ("coco-cider", Cider())):
        out[name] = scorer.compute_score(gts, res)[0]
    s_hyps, s_refs = d["s_hyps"], d["s_refs"]
    r = vecscore.rouge155(s_hyps, s_refs, stemmer=True)
    out["rouge155"] = {k: [float(x.recall.sum()), float(x.precision.sum())] for k, x in r.scores.items()}
    r = vecscore.rouge_weighted(s_hyps, s_refs, metrics=["rouge1", "rougeL"])
    out["rouge_weighted"] = {k: float(x.fmeasure.sum()) for k, x in r.scores.items()}
    from vecscore.significance import paired_bootstrap, paired_randomization
    for test, fn, n in (("bs", paired_bootstrap, 3000), ("ar", paired_randomization, 5000)):  # rows past 5,000
        got = fn("bleu", hyps, {"other": d["other"]}, refs[:1], n_samples=n)
        out[f"paired-{test}"] = [[r.score, r.p_value, r.mean, r.ci] for r in next(iter(got.results.values()))]
    out["numba"] = "numba" in sys.modules or "llvmlite" in sys.modules
    out["package"] = vecscore.__file__
    out["misses"] = built.misses()
    print(json.dumps(out))
""")


def test_every_family_scores_with_the_modules_and_never_imports_numba(built_root, shared_data, tmp_path):
    """BLEU (five tokenizers, corpus and sentence, paired bootstrap and randomization), chrF and chrF++, TER against
    sacreBLEU; coco-caption's Bleu, Rouge and Cider against pycocoevalcap; ROUGE-1.5.5 and ROUGE-W against the
    plain route (the Perl script and its plain twin are compared in their own tests): all in one fresh process on
    the built modules."""
    sacrebleu = pytest.importorskip("sacrebleu")
    coco = pytest.importorskip("pycocoevalcap")
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.rouge.rouge import Rouge

    import vecscore

    root = shared_data / "wmt21-news-systems" / "en-de"
    hyps, other = (p.read_text(encoding="utf-8").split("\n")[:1002]
                   for p in sorted((root / "system-outputs").iterdir())[:2])
    refs = [(root / f"newstest2021.en-de.ref.{r}.de").read_text(encoding="utf-8").split("\n")[:1002] for r in "AC"]
    e2e = shared_data / "e2e-nlg-challenge"
    blocks = [[r for r in b.split("\n") if r.strip()]
              for b in (e2e / "test_references_multi.txt").read_text(encoding="utf-8").split("\n\n") if b.strip()]
    system = sorted((e2e / "systems").glob("*.txt"))[0].read_text(encoding="utf-8").split("\n")[: len(blocks)]
    gts = {str(i): b for i, b in enumerate(blocks)}
    res = {str(i): [h] for i, h in enumerate(system)}
    m_hyps, m_refs = summeval(shared_data)
    s_hyps, s_refs = m_hyps[:300], [r[:4] for r in m_refs[:300]]
    data = tmp_path / "data.json"
    data.write_text(json.dumps({"hyps": hyps, "other": other, "refs": refs, "gts": gts, "res": res,
                                "s_hyps": s_hyps, "s_refs": s_refs}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VECSCORE_BUILT", "VECSCORE_ROUTE"))
           and k != "SACREBLEU_SEED"}
    env.update(VECSCORE_BUILT_DIR=str(built_root), PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", _FAMILIES, str(data)], capture_output=True, text=True, env=env,
                          timeout=1200, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["numba"] is False and got["misses"] == []
    for tok in ("13a", "intl", "char", "zh", "none"):
        want = sacrebleu.BLEU(tokenize=tok).corpus_score(hyps, refs)
        assert got[f"corpus_bleu-{tok}"] == [want.score, list(want.counts), list(want.totals), want.sys_len,
                                             want.ref_len], tok
    want = [sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps, refs[0])]
    assert max(abs(a - b) for a, b in zip(got["sentence_bleu"], want)) <= 1e-9
    for order in (0, 2):
        assert got[f"chrf-{order}"] == sacrebleu.CHRF(word_order=order).corpus_score(hyps, refs).score
    assert got["ter"] == sacrebleu.TER().corpus_score(hyps, refs[:1]).score
    from sacrebleu.significance import PairedTest

    for test, n in (("bs", 3000), ("ar", 5000)):  # vecscore compare's tests, sacreBLEU's default seed
        _, res_ = PairedTest([("baseline", hyps), ("other", other)], {"bleu": sacrebleu.BLEU()}, refs[:1],
                             test_type=test, n_samples=n)()
        want = [[r.score, r.p_value, r.mean, r.ci] for r in res_["BLEU"]]
        assert got[f"paired-{test}"] == want, test
    gts_i = {i: b for i, b in enumerate(blocks)}
    res_i = {i: [h] for i, h in enumerate(system)}
    for name, scorer in (("coco-bleu", Bleu()), ("coco-rouge", Rouge()), ("coco-cider", Cider())):
        want = scorer.compute_score(gts_i, res_i)[0]
        assert np.allclose(got[name], want, rtol=0, atol=1e-12), name
    assert coco is not None
    os.environ["VECSCORE_ROUTE"] = "plain"
    try:
        r = vecscore.rouge155(s_hyps, s_refs, stemmer=True)
        assert got["rouge155"] == {k: [float(x.recall.sum()), float(x.precision.sum())] for k, x in r.scores.items()}
        r = vecscore.rouge_weighted(s_hyps, s_refs, metrics=["rouge1", "rougeL"])
        assert got["rouge_weighted"] == {k: float(x.fmeasure.sum()) for k, x in r.scores.items()}
    finally:
        del os.environ["VECSCORE_ROUTE"]


def test_type_key_matches_numba_typeof():
    """Two values share a :func:`vecscore.built.type_key` exactly when numba gives them one type."""
    numba = pytest.importorskip("numba")
    from vecscore.built import type_key

    a = np.arange(12, dtype=np.int64)
    m = a.reshape(3, 4)
    ro = a.copy()
    ro.flags.writeable = False
    values = [a, a[::2], m, m.T, m[:, 1:], ro, a.astype(np.int32), a.astype(np.uint8), a.astype(np.float64),
              np.zeros((2, 2, 2)), np.int64(3), np.int32(3), np.uint64(3), np.float64(1.5), np.float32(1.5), 3,
              -5, 1.5, True, np.bool_(False), (1, 2), (1, 2.0), (a, 3), None, np.uint8(7)]
    for x in values:
        for y in values:
            same_numba = numba.typeof(x) == numba.typeof(y)
            assert (type_key(x) == type_key(y)) == same_numba, (x, y)
    assert type_key("text") is None and type_key([1]) is None


def test_run_threads_finishes_every_part_when_threads_cannot_start(monkeypatch):
    """A thread limit (ulimit -u, a tight address space) leaves the parts to the calling thread."""
    from vecscore.parallel import run_threads

    def refuse(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    done = []
    run_threads(done.append, 4)
    assert sorted(done) == [0, 1, 2, 3]


def test_run_threads_raises_a_parts_error():
    from vecscore.parallel import run_threads

    def task(i):
        if i == 1:
            raise ValueError("part 1")

    with pytest.raises(ValueError, match="part 1"):
        run_threads(task, 2)


def test_a_kernel_called_by_keyword_asks_the_modules_with_its_positional_arguments(monkeypatch):
    """A built function takes its arguments by position: a call by keyword is looked up (and, when no module has
    it, counted as a miss) as the same call by position, defaults filled in."""
    from vecscore import _jit, built

    def kernel(a, b, c=1, d=2):
        return "jit"

    k = _jit.Kernel(kernel, False, False)
    asked = []
    monkeypatch.setattr(built, "entry", lambda kern, args: asked.append((kern, args)) or (lambda *x: ("built", x)))
    assert k(1, b=2, d=5) == ("built", (1, 2, 1, 5))
    assert k(1, 2) == ("built", (1, 2))
    assert asked == [(k, (1, 2, 1, 5)), (k, (1, 2))]


def test_the_dask_recipe_scores_on_the_modules_without_numba(built_root, tmp_path):
    """docs/recipes.md's Dask recipe as written, in a fresh process that finds the modules (as a worker whose image
    or environment ships them): rouge-score's numbers, and numba never imported by the process that hosts its
    threaded workers."""
    pytest.importorskip("dask.dataframe", reason="the Dask recipe needs dask[dataframe]")
    from tests.recipe_runner import check_rows, oracle, recipe, run_recipe, write_pairs

    hyps, refs = write_pairs(tmp_path)
    env = {"VECSCORE_BUILT_DIR": str(built_root), "VECSCORE_BUILT": "1", "VECSCORE_ROUTE": "auto"}
    loaded = "sorted(g for g, m in __import__('vecscore.built').built._state.get('loaded', {}).items() if m)"
    got = run_recipe(recipe("Dask"), tmp_path, {"scored": "scored", "numba": "'numba' in __import__('sys').modules",
                                                "loaded": loaded}, timeout=120, env=env)
    assert got["numba"] is False and "rouge" in got["loaded"]  # its kernels ran from the rouge group's module
    check_rows(got["scored"], oracle(hyps, refs),
               [f"{m}_{k}" for m in ("rouge1", "rougeL") for k in ("precision", "recall", "fmeasure")])


def _java_ok() -> bool:
    java = shutil.which("java")
    try:
        return bool(java) and subprocess.run([java, "-version"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.mark.parametrize("engine", ["Ray Data", "Spark"])
def test_cluster_workers_score_on_the_modules_without_numba(engine, built_root, tmp_path):
    """docs/recipes.md's Ray and Spark recipes as written, on a local cluster that the recipe starts, with the
    modules in the workers' environment (as an image or a shipped environment holds them): rouge-score's numbers,
    and no process of the run, driver or worker, imports numba or llvmlite, while the workers open the modules.
    Each process reports through tests/worker_watch/sitecustomize.py the moment it does either."""
    from tests.recipe_runner import check_rows, oracle, recipe, run_recipe, write_pairs

    if engine == "Ray Data":
        pytest.importorskip("ray", reason="the Ray recipe needs ray[data]")
        code = recipe(engine, {"pairs/": tmp_path / "pairs", "kept/": tmp_path / "kept"})
        save, env = {"scored": "scored.to_pandas()"}, {}
    else:
        pytest.importorskip("pyspark", reason="the Spark recipe needs pyspark (and Java 17+)")
        if not _java_ok():
            pytest.skip("the Spark recipe needs a Java runtime (java -version failed)")
        code = recipe(engine) + "\nspark.stop()\n"
        save, env = {"scored": "scored"}, {"JAVA_TOOL_OPTIONS": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}
    hyps, refs = write_pairs(tmp_path, seed=12)
    watch = tmp_path / "watch"
    watch.mkdir()
    path = os.pathsep.join([str(ROOT / "tests" / "worker_watch"), str(ROOT)])
    env.update({"VECSCORE_BUILT_DIR": str(built_root), "VECSCORE_BUILT": "1", "VECSCORE_ROUTE": "auto",
                "VECSCORE_TEST_WATCH": str(watch), "PYTHONPATH": path})
    save["pid"] = "__import__('os').getpid()"
    got = run_recipe(code, tmp_path, save, timeout=300, env={**env, "RAY_ADDRESS": ""})  # the recipe's own cluster
    check_rows(got["scored"], oracle(hyps, refs),
               [f"{m}_{k}" for m in ("rouge1", "rougeL") for k in ("precision", "recall", "fmeasure")])
    jit = sorted(watch.glob("jit-*"))
    assert not jit, f"{len(jit)} process(es) imported numba or llvmlite; the first:\n" + jit[0].read_text()
    opened = {int(p.name.split("-")[1]): p.read_text() for p in watch.glob("built-*")}
    workers = {pid for pid, text in opened.items() if pid != got["pid"] and "_vecscore_rouge" in text}
    assert workers, f"no worker process opened the rouge module (driver {got['pid']}; opened: {opened})"


_METEOR = textwrap.dedent("""
    import json, sys, warnings
    warnings.simplefilter("ignore")
    from vecscore import built
    from vecscore.coco import Meteor
    d = json.load(open(sys.argv[1]))
    score, scores = Meteor().compute_score(d["gts"], d["res"])
    print(json.dumps({"score": score, "scores": [float(s) for s in scores], "misses": built.misses(),
                      "numba": "numba" in sys.modules or "llvmlite" in sys.modules}))
""")


def test_meteor_scores_with_the_module_on_two_threads_and_never_imports_numba(built_root, shared_data, tmp_path):
    """coco-caption's METEOR on one E2E system (630 items, 4,693 pairs), in a fresh process on the built module,
    whose kernel the pairs' slices run on two Python threads: the numbers of the compiled route in this process
    (which tests/test_meteor.py holds to the jar), bit for bit."""
    pytest.importorskip("pycocoevalcap")
    from tests.meteor_jar import require_jar

    require_jar()
    from vecscore.coco import Meteor
    from vecscore.route import preferred

    e2e = shared_data / "e2e-nlg-challenge"
    blocks = [[r for r in b.split("\n") if r.strip()]
              for b in (e2e / "test_references_multi.txt").read_text(encoding="utf-8").split("\n\n") if b.strip()]
    system = sorted((e2e / "systems").glob("*.txt"))[1].read_text(encoding="utf-8").split("\n")[: len(blocks)]
    gts = {str(i): b for i, b in enumerate(blocks)}
    res = {str(i): [h] for i, h in enumerate(system)}
    with preferred("compiled"):
        want_score, want_scores = Meteor().compute_score(gts, res)
    data = tmp_path / "data.json"
    data.write_text(json.dumps({"gts": gts, "res": res}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VECSCORE_BUILT", "VECSCORE_ROUTE"))}
    env.update(VECSCORE_BUILT_DIR=str(built_root), PYTHONPATH=str(ROOT), NUMBA_NUM_THREADS="2")
    proc = subprocess.run([sys.executable, "-c", _METEOR, str(data)], capture_output=True, text=True, env=env,
                          timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["numba"] is False and got["misses"] == []
    assert got["score"] == want_score
    assert got["scores"] == [float(s) for s in want_scores]


_MATRICES = textwrap.dedent("""
    import json, sys, warnings
    warnings.simplefilter("ignore")
    import vecscore
    from vecscore import built
    d = json.load(open(sys.argv[1]))
    out = {m: vecscore.pairwise(d["hyps"], d["refs"], metric=m).tolist()
           for m in ("chrf", "chrf++", "bleu", "rouge1", "rouge2", "rougeL", "ter")}
    out["numba"] = "numba" in sys.modules or "llvmlite" in sys.modules
    out["misses"] = built.misses()
    print(json.dumps(out))
""")


def test_score_matrices_on_the_modules_never_import_numba(built_root, shared_data, tmp_path):
    """Every metric of vecscore.pairwise in a fresh process on the built modules (grids large enough for the
    kernels): each cell equal to sacreBLEU's or rouge-score's per-pair function."""
    sacrebleu = pytest.importorskip("sacrebleu")
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    root = shared_data / "wmt21-news-systems" / "en-de"
    outputs = [p.read_text(encoding="utf-8").split("\n") for p in sorted((root / "system-outputs").iterdir())[:8]]
    lines = (3, 40, 77, 120, 256, 500, 640, 777, 901, 1000)
    hyps = [o[k] for o in outputs for k in lines]  # 80 x 41 cells: over the NumPy twin's 1,024
    refs = [o[k] for o in outputs[:4] for k in lines] + [""]
    data = tmp_path / "data.json"
    data.write_text(json.dumps({"hyps": hyps, "refs": refs}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VECSCORE_BUILT", "VECSCORE_ROUTE"))}
    env.update(VECSCORE_BUILT_DIR=str(built_root), PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", _MATRICES, str(data)], capture_output=True, text=True, env=env,
                          timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["numba"] is False and got["misses"] == []
    scorers = {m: rouge_scorer.RougeScorer([m]) for m in ("rouge1", "rouge2", "rougeL")}
    cell = {
        "chrf": lambda h, r: sacrebleu.sentence_chrf(h, [r]).score,
        "chrf++": lambda h, r: sacrebleu.sentence_chrf(h, [r], word_order=2).score,
        "bleu": lambda h, r: sacrebleu.sentence_bleu(h, [r]).score,
        "ter": lambda h, r: sacrebleu.sentence_ter(h, [r]).score,
        **{m: (lambda h, r, m=m: scorers[m].score(r, h)[m].fmeasure) for m in scorers},
    }
    for metric, fn in cell.items():
        want = np.array([[fn(h, r) for r in refs] for h in hyps])
        np.testing.assert_allclose(np.array(got[metric]), want, rtol=0, atol=1e-9, err_msg=metric)
