"""The plain route of vecscore.rouge155 (vecscore.rouge.rouge155.plain) against the compiled route, bit for bit.

Every comparison scores the same call with ``VECSCORE_ROUTE=plain`` and with
``VECSCORE_ROUTE=compiled`` and requires identical arrays (``np.array_equal``,
same dtype) for P, R, F and the statistics ``hits``, ``p_den``, ``r_den``; a
spy checks that each call really took the route it was sent to.  Corpora
(../shared/data): the ROUGE-1.5.5 sample test (SL2003 headlines with 4
models, DUC2002 and DUC2004 multi-sentence summaries), REALSumm (CNN/DM),
SummEval (11 references) and WMT21 en-de segments (3 references).
"""
from __future__ import annotations

import importlib
import json
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import vecscore.route
from tests.conftest import data_file, plain_budget
from vecscore.rouge.rouge155 import plain as plain155
from vecscore.rouge.rouge155 import plain_bags as rouge155_bags
from vecscore.rouge.rouge155.api import perl_average, rouge155, rouge155_args

r155 = importlib.import_module("vecscore.rouge.rouge155.api")  # the module (vecscore.rouge155 is the function)
streams155 = importlib.import_module("vecscore.rouge.rouge155.streams")

# (script flags, extra rouge155 options)
OPTION_SETS = [
    ("-n 2 -w 1.2 -2 4 -U", {}),
    ("-n 4 -w 1.2 -2 -1 -U -m", {}),
    ("-n 2 -w 1.5 -2 4 -u -s", {}),
    ("-n 2 -w 1.2 -2 4 -U -m -s -l 20", {}),
    ("-n 2 -w 1.2 -2 4 -U -b 100", {}),
    ("-n 2 -w 1.2 -2 4 -U -b 100", {"su_compat": False, "wlcs_compat": False, "byte_limit_compat": False}),
    ("-n 3 -w 1.2 -2 2 -U -f B -p 0.3 -m", {}),
    ("-n 2 -w 1.2 -2 4 -U -f B", {"round5": False}),
    ("-n 1 -x -2 -1 -u -b 75 -s", {}),
]
OPTION_IDS = [f + (" no_compat" if "su_compat" in kw else " round5=False" if kw else "") for f, kw in OPTION_SETS]


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


@pytest.fixture
def routes(monkeypatch):
    """Score with both routes; records the route each call took."""
    taken = []
    for cls, name in ((streams155.PlainRoute, "plain"), (streams155.CompiledRoute, "compiled")):
        original = cls.streams

        def spy(self, *args, _original=original, _name=name, **kwargs):
            taken.append(_name)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, "streams", spy)

    def both(hyps, refs, **kwargs):
        out = []
        for route in ("plain", "compiled"):
            monkeypatch.setenv("VECSCORE_ROUTE", route)
            del taken[:]
            out.append(rouge155(hyps, refs, **kwargs))
            assert taken == [route]
        return out

    both.taken = taken
    return both


def _assert_identical(a, b, tag=""):
    assert list(a) == list(b) and a.signature == b.signature
    for m in a:
        for field in ("precision", "recall", "fmeasure"):
            x, y = getattr(a[m], field), getattr(b[m], field)
            assert x.dtype == y.dtype and np.array_equal(x, y), (
                f"{tag} {m} {field}: first difference at pair {np.flatnonzero(x != y)[:1]}")
        for key in ("hits", "p_den", "r_den"):
            x, y = getattr(a.stats[m], key), getattr(b.stats[m], key)
            assert x.dtype == y.dtype and np.array_equal(x, y), (
                f"{tag} {m} {key}: first difference at pair {np.flatnonzero(x != y)[:1]}")


def _kwargs(flags, extra):
    return {**rouge155_args(flags.split()).kwargs, **extra}


def _jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


# --------------------------------------------------------------------------------------
# corpora
# --------------------------------------------------------------------------------------


def _sample_test(root, name):
    rows = _jsonl(data_file(root, "rouge155-sample-test", name))
    return [r["peer_sentences"] for r in rows], [[m for _, m in sorted(r["models"].items())] for r in rows]


def _realsumm(root):
    rows = _jsonl(data_file(root, "realsumm-cnndm", "realsumm_cnndm_100docs.jsonl"))[::5]  # 500 of 2,500
    return ["\n".join(r["summary_sentences"]) for r in rows], ["\n".join(r["reference_sentences"]) for r in rows]


def _summeval(root):
    rows = _jsonl(data_file(root, "summeval-bartscore", "summeval_16sys_11refs.jsonl"))[::40]  # 40 x 11 references
    return [r["summary"] for r in rows], [r["references"] for r in rows]


def _wmt21(root):
    base = data_file(root, "wmt21-news-systems", "en-de")
    def read(path):
        return path.read_text(encoding="utf-8").split("\n")[:400]
    hyps = read(base / "system-outputs" / "newstest2021.en-de.hyp.Facebook-AI.de")
    refs = [read(base / f"newstest2021.en-de.ref.{k}.de") for k in "ACD"]
    return hyps, [list(r) for r in zip(*refs)]


CORPORA = {
    "sl2003": lambda root: _sample_test(root, "sl2003_pairs.jsonl"),
    "duc2002": lambda root: _sample_test(root, "duc2002_spl_pairs.jsonl"),
    "duc2004": lambda root: _sample_test(root, "duc2004_pyrouge_pairs.jsonl"),
    "realsumm": _realsumm,
    "summeval": _summeval,
    "wmt21": _wmt21,
}


@pytest.fixture(scope="module")
def corpora(shared_data):
    return {}, shared_data


def _corpus(corpora, name):
    cache, root = corpora
    if name not in cache:
        cache[name] = CORPORA[name](root)
    return cache[name]


# --------------------------------------------------------------------------------------
# bit identity on the real corpora
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("flags,extra", OPTION_SETS, ids=OPTION_IDS)
@pytest.mark.parametrize("name", list(CORPORA))
def test_real_corpora_identical(routes, corpora, name, flags, extra):
    hyps, refs = _corpus(corpora, name)
    plain, compiled = routes(hyps, refs, **_kwargs(flags, extra))
    _assert_identical(plain, compiled, f"{name} {flags} {extra}")
    assert plain.n_pairs == len(hyps)


def test_sample_test_averages_identical(monkeypatch, corpora):
    """The script's printed averages (bootstrap means, -t 0 and -t 1): NumPy draws == the kernel's."""
    hyps, refs = _corpus(corpora, "sl2003")
    monkeypatch.setenv("VECSCORE_ROUTE", "compiled")
    res = rouge155(hyps, refs, **_kwargs("-n 2 -w 1.2 -2 -1 -U", {}))
    out = {}
    for route in ("plain", "compiled"):
        monkeypatch.setenv("VECSCORE_ROUTE", route)
        out[route] = [perl_average(res, t=t, n_samples=1000) for t in (0, 1)]
    assert out["plain"] == out["compiled"]


# --------------------------------------------------------------------------------------
# adversarial texts: the tokenizer's and the truncation's corner cases
# --------------------------------------------------------------------------------------

_WORDS = ["the", "cat", "cats", "sat", "on", "mat", "a", "police", "killed", "gunman", "running", "mice", "went",
          "state-of-the-art", "e-mail", "u.s.", "3.5%", "$100", "1999", "-", "--", "don't", "it's", "x", "y",
          "and", "of", "Best", "better", "CAT", "Mat.", "caf\u00e9", "na\u00efve", "\u0130stanbul", "\u212aelvin",
          "x\u00a0y", "\u00fcber", "\u65e5\u672c", "a_b", "tab\there", "cr\r", "\u2028sep"]


def _text(rng):
    kind = rng.random()
    if kind < 0.1:  # repeated tokens
        return "\n".join(" ".join([rng.choice(["the", "a", "cat"])] * rng.randint(1, 9))
                         for _ in range(rng.randint(1, 3)))
    if kind < 0.2:  # empty, blank and punctuation-only lines, leading whitespace
        return "\n".join(rng.choice(["cat", "", "  ", " the mat", "\tx y", "-", "mat .", "$"])
                         for _ in range(rng.randint(1, 6)))
    if kind < 0.25:  # long lines
        return "\n".join(" ".join(rng.choice(_WORDS) for _ in range(rng.randint(20, 70)))
                         for _ in range(rng.randint(2, 5)))
    return "\n".join(" ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 14))) for _ in range(rng.randint(1, 5)))


@pytest.mark.parametrize("flags,extra", OPTION_SETS + [("-n 2 -w 1.2 -2 0 -U -l 7", {}),
                                                        ("-n 2 -w 2 -2 9 -U -b 23", {}),
                                                        ("-n 2 -w 1.2 -2 -1 -U -l 3 -s", {"su_compat": False})],
                         ids=OPTION_IDS + ["-l 7", "-b 23", "-l 3 -s su"])
def test_adversarial_identical(routes, flags, extra, recwarn):
    rng = random.Random(sum(map(ord, flags + str(extra))))
    hyps = [_text(rng) for _ in range(150)]
    refs = [["zebra " + _text(rng) for _ in range(rng.randint(1, 3))] for _ in range(150)]
    plain, compiled = routes(hyps, refs, **_kwargs(flags, extra))
    _assert_identical(plain, compiled, flags)


def test_sentence_lists_empty_texts_and_no_pairs(routes, recwarn):
    hyps = [["police killed the gunman", "", "he fled"], "", "   \n\n", "only hyp"]
    refs = [[["police kill the gunman", "he fled"], "the gunman fled"], "x y", "a", [""]]
    for kwargs in ({}, {"multi_ref": "best-recall"}, {"byte_limit": 10}, {"word_limit": 2, "stopwords": True}):
        _assert_identical(*routes(hyps, refs, **kwargs), str(kwargs))
        _assert_identical(*routes([], [], **kwargs), str(kwargs))


def test_chunked_bags_identical(routes, monkeypatch, corpora):
    """Chunks of whole pairs give the same n-gram and skip-bigram hits as one pass."""
    hyps, refs = _corpus(corpora, "duc2004")
    monkeypatch.setattr(rouge155_bags, "CHUNK_UNITS", 300)
    _assert_identical(*routes(hyps * 5, refs * 5, **_kwargs("-n 4 -2 -1 -U", {})))


# --------------------------------------------------------------------------------------
# the route choice
# --------------------------------------------------------------------------------------


def test_route_switches_at_threshold(routes, monkeypatch, corpora):
    hyps, refs = _corpus(corpora, "duc2002")
    hyps, refs = hyps[:20], refs[:20]
    H, R = streams155.layout(hyps, refs)
    size = vecscore.route.text_chars(H, *R) * vecscore.route.COST["rouge155"]
    kwargs = _kwargs("-n 2 -w 1.2 -2 4 -U", {})
    monkeypatch.setenv("VECSCORE_ROUTE", "auto")
    results = {}
    for limit, route in ((size, "plain"), (size - 1, "compiled")):
        plain_budget(monkeypatch, limit)  # whether or not numba is loaded, and no earlier work counted
        del routes.taken[:]
        results[route] = rouge155(hyps, refs, **kwargs)
        assert routes.taken == [route], (limit, size)
    _assert_identical(results["plain"], results["compiled"])


def test_quadratic_work_goes_compiled_under_auto(routes, monkeypatch, corpora):
    """ROUGE-W's DP cells and ROUGE-S's skip-bigrams are bounded under auto; VECSCORE_ROUTE=plain is obeyed."""
    hyps, refs = _corpus(corpora, "duc2004")
    H, R = streams155.layout(hyps, refs)
    tokens = sum(len(t) // plain155.CHARS_PER_TOKEN for t in H + [x for r in R for x in r])
    monkeypatch.setattr(plain155, "PLAIN_MAX_WLCS_CELLS", 1000)
    monkeypatch.setattr(plain155, "PLAIN_MAX_SKIP_UNITS", 2 * tokens)  # S0 has ~1 unit per token, S4 ~5
    for metrics, route in ((["rouge1", "rougeL"], "plain"), (["rouge1", "rougeW-1.2"], "compiled"),
                           (["rougeSU4"], "compiled"), (["rougeS0"], "plain")):
        monkeypatch.setenv("VECSCORE_ROUTE", "auto")
        vecscore.route.reset()  # each call by its own work: rougeS0 shares the kernels rougeSU4 loaded
        plain_budget(monkeypatch, 2_000_000)
        del routes.taken[:]
        rouge155(hyps, refs, metrics=metrics)
        assert routes.taken == [route], metrics
    monkeypatch.setenv("VECSCORE_ROUTE", "plain")
    del routes.taken[:]
    rouge155(hyps, refs, metrics=["rougeW-1.2", "rougeS*"])
    assert routes.taken == ["plain"]


def test_plain_route_loads_no_numba():
    """``import vecscore.rouge155`` and the plain route (scores and printed averages) never import numba.

    The package is set up without running ``vecscore/__init__.py`` (whose other modules are not
    this test's concern), so only vecscore.rouge155's own import chain is checked.
    """
    code = textwrap.dedent(f"""
        import os, sys, types
        pkg = types.ModuleType("vecscore")
        pkg.__path__ = [{str(Path(r155.__file__).parent)!r}]
        sys.modules["vecscore"] = pkg
        from vecscore.rouge.rouge155 import api as m
        assert "numba" not in sys.modules, "import"
        os.environ["VECSCORE_ROUTE"] = "plain"
        hyps = ["Police killed the gunman.\\nHe fled the scene.", "mice went home"]
        refs = [["police kill the gunman\\nthe gunman fled", "he fled"], "the mouse goes home"]
        full = ["rouge1", "rouge2", "rougeL", "rougeW-1.2", "rougeS4", "rougeSU4", "rougeS*"]
        r = m.rouge155(hyps, refs, metrics=full, stemmer=True, stopwords=True)
        m.rouge155(hyps, refs, metrics=full, byte_limit=12, multi_ref="best-recall", su_compat=False)
        m.rouge155(hyps, refs, metrics=full, word_limit=3, round5=False)
        m.perl_average(r, n_samples=100)
        m.perl_average(r, t=1, n_samples=100)
        assert "numba" not in sys.modules, sorted(k for k in sys.modules if k.startswith("numba"))[:3]
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
