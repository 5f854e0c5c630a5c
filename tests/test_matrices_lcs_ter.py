"""Score-matrix cells of rougeL and TER (vecscore.matrices.lcs_cells, ter_cells) against the anchors per pair.

Every expected cell comes from the anchor itself, one pair at a time: rouge-score's
``RougeScorer(["rougeL"]).score(target, prediction)`` and sacreBLEU's ``sentence_ter(hyp, [ref])``; the grid
kernels are also checked against plain twins (a textbook LCS dynamic programme, and the plain TER of
``tests/reference/ter_py.py``).  Texts: several WMT21 systems' outputs of the same source sentences (the shape
of MBR decoding) and seeded random texts with Unicode, punctuation, long texts and empty strings.  The file
runs as it is under ``NUMBA_DISABLE_JIT=1`` (the TER samples are smaller there), and one test runs the grid
kernels' Python bodies in a child process with ``NUMBA_DISABLE_JIT=1``.
"""
from __future__ import annotations

import logging
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import data_file
from tests.reference import ter_py
from vecscore.errors import VecscoreError
from vecscore.matrices import lcs_cells, ter_cells

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
sacrebleu = pytest.importorskip("sacrebleu")
logging.getLogger("sacrebleu").setLevel(logging.ERROR)

NO_JIT = os.environ.get("NUMBA_DISABLE_JIT", "") not in ("", "0")
TOL = 1e-9
SYSTEMS = 6


def _lines(path: Path) -> list[str]:
    out = path.read_text(encoding="utf-8").split("\n")
    return out[:-1] if out and out[-1] == "" else out


def _wmt_texts(root: Path, pair: str, lang: str, segments: list[int]) -> list[str]:
    """The outputs of the first :data:`SYSTEMS` systems for each of ``segments``, and reference A of each."""
    folder = data_file(root, "wmt21-news-systems", pair)
    files = sorted((folder / "system-outputs").iterdir())[:SYSTEMS]
    systems = [_lines(f) for f in files]
    ref = _lines(folder / f"newstest2021.{pair}.ref.A.{lang}")
    return [s[k] for k in segments for s in systems] + [ref[k] for k in segments]


@pytest.fixture(scope="module")
def wmt_de(shared_data) -> list[str]:
    return _wmt_texts(shared_data, "en-de", "de", [3, 250, 611])


@pytest.fixture(scope="module")
def wmt_zh(shared_data) -> list[str]:
    return _wmt_texts(shared_data, "en-zh", "zh", [8, 401])


_WORDS = ["the", "The", "cat", "CATS", "running", "runs", "ran", "café", "naïve", "İstanbul", "\u212a", "straße",
          "it's", "it's,", "3.14", "1,000", "e-mail", "x-", "--", "...", "(a)", "\"q\"", "&amp;", "&lt;b&gt;", "a.b",
          "U.S.", "won't", "\U0001f600", "中文", "日本語です", "。", "，", "！", "ｘ", "\u00a0", "tab\tbed", "a_b", "^"]


def _random_texts(seed: int, count: int, long_every: int = 0) -> list[str]:
    """Seeded texts over :data:`_WORDS` (Unicode, punctuation, case, numbers), with empty and blank texts, and
    every ``long_every``-th text 65-200 words long."""
    rng = random.Random(seed)
    out = ["", "   ", "...", "the cat"]
    while len(out) < count:
        k = len(out)
        n = rng.randint(65, 200) if long_every and k % long_every == 0 else rng.randint(1, 18)
        pool = _WORDS[:rng.randint(4, len(_WORDS))]
        out.append(" ".join(rng.choice(pool) for _ in range(n)))
    rng.shuffle(out)
    return out


def _rouge_expected(texts, rows_a, rows_b, use_stemmer=False, field="fmeasure") -> np.ndarray:
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=use_stemmer)
    return np.array([[getattr(scorer.score(target=texts[j], prediction=texts[i])["rougeL"], field) for j in rows_b]
                     for i in rows_a], np.float64).reshape(len(rows_a), len(rows_b))


def _ter_expected(texts, rows_a, rows_b, **options) -> np.ndarray:
    metric = sacrebleu.metrics.TER(**options)
    return np.array([[metric.sentence_score(texts[i], [texts[j]]).score for j in rows_b] for i in rows_a],
                    np.float64).reshape(len(rows_a), len(rows_b))


def _assert_cells(got: np.ndarray, expected: np.ndarray, what) -> None:
    assert got.shape == expected.shape and got.dtype == np.float64, (what, got.shape, expected.shape)
    diff = np.abs(got - expected)
    bad = np.argwhere(diff > TOL)
    assert bad.size == 0, (what, bad[:5].tolist(), got[tuple(bad[0])], expected[tuple(bad[0])])


# --- rougeL -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_rougel_every_cell_of_wmt_outputs(wmt_de, use_stemmer):
    rows = list(range(len(wmt_de)))
    expected = {field: _rouge_expected(wmt_de, rows, rows, use_stemmer, field)
                for field in ("fmeasure", "precision", "recall")}
    for field, want in expected.items():
        got = lcs_cells.grid(lcs_cells.prepare(wmt_de, "rougeL", score=field, use_stemmer=use_stemmer), rows, rows)
        _assert_cells(got, want, field)
        assert np.array_equal(got, want)  # bit-equal: the same divisions in the same order
    assert (expected["fmeasure"] > 0).mean() > 0.5  # outputs of the same source overlap: real LCS work
    assert len(np.unique(expected["fmeasure"])) > 50


def test_rougel_every_cell_of_random_texts_with_long_ones():
    texts = _random_texts(11, 26, long_every=6)
    assert max(len(t.split()) for t in texts) > 64  # rows through the multi-word kernel path
    rows = list(range(len(texts)))
    for use_stemmer in (False, True):
        prepared = lcs_cells.prepare(texts, "rougeL", use_stemmer=use_stemmer)
        _assert_cells(lcs_cells.grid(prepared, rows, rows), _rouge_expected(texts, rows, rows, use_stemmer),
                      use_stemmer)


def test_rougel_rows_in_any_order_repeated_non_square(wmt_de):
    texts = wmt_de[:20]
    assert len(texts) == 20
    prepared = lcs_cells.prepare(texts)
    full = lcs_cells.grid(prepared, range(20), range(20))
    rows_a = np.array([19, 3, 3, 0, 7, 19, 12], np.int32)
    rows_b = np.array([5, 5, 2])
    rows_b.flags.writeable = False  # e.g. a memory-mapped array: taken as it is
    got = lcs_cells.grid(prepared, rows_a, rows_b)
    assert np.array_equal(got, full[np.ix_(rows_a, rows_b)])
    _assert_cells(got, _rouge_expected(texts, rows_a.tolist(), rows_b.tolist()), "reordered")
    assert lcs_cells.grid(prepared, [], rows_b).shape == (0, 3)
    assert lcs_cells.grid(prepared, rows_a, np.array([], np.int64)).shape == (7, 0)


def test_lcs_kernel_against_plain_twins():
    """Small alphabets (many matches), lengths around the 64-token word boundary and past it; the LCS lengths
    against the plain route's bit-parallel LCS on Python integers, the scores against the textbook dynamic
    programme (:func:`lcs_cells.plain_grid`)."""
    from vecscore.rouge.plain import lcs_length

    rng = random.Random(3)
    texts = []
    for n in [0, 1, 2, 63, 64, 65, 127, 128, 129, 200] + [rng.randint(0, 90) for _ in range(10)]:
        alphabet = rng.randint(1, 7)
        texts.append(" ".join(f"w{rng.randrange(alphabet)}" for _ in range(n)))
    prepared = lcs_cells.prepare(texts)
    rows = np.arange(len(texts))
    lcs = lcs_cells.lcs_lengths(prepared, rows, rows)
    toks = [t.split() for t in texts]
    want = np.array([[lcs_length(a, b) for b in toks] for a in toks], np.int64)  # Python integers as bit vectors
    assert np.array_equal(lcs, want)
    assert np.array_equal(lcs_cells.grid(prepared, rows, rows), lcs_cells.plain_grid(prepared, rows, rows))


def test_lcs_grid_does_not_depend_on_the_chunking():
    from vecscore.kernels.grid_lcs import lcs_grid

    texts = _random_texts(5, 24, long_every=5)
    p = lcs_cells.prepare(texts)
    rows = np.arange(len(texts), dtype=np.int64)
    max_len = int(p.lengths.max())
    first = lcs_grid(p.ids, p.offsets, rows, rows, p.n_vocab, max_len, 1)
    for n_chunks in (3, 24):
        assert np.array_equal(lcs_grid(p.ids, p.offsets, rows, rows, p.n_vocab, max_len, n_chunks), first)
    assert np.array_equal(first, first.T)  # LCS is symmetric


# --- TER --------------------------------------------------------------------------------------------------------


def test_ter_sampled_cells_of_wmt_outputs(wmt_de):
    rng = np.random.default_rng(21)
    n = len(wmt_de)
    k = 6 if NO_JIT else 10
    rows_a = rng.choice(n, k, replace=False)
    rows_b = rng.choice(n, k - 2, replace=False)
    got = ter_cells.grid(ter_cells.prepare(wmt_de), rows_a, rows_b)
    want = _ter_expected(wmt_de, rows_a.tolist(), rows_b.tolist())
    _assert_cells(got, want, "wmt de")
    assert np.array_equal(got, want)
    assert (want > 0).mean() > 0.8 and len(np.unique(want)) > want.size // 4 and (want < 50).any()


@pytest.mark.parametrize("options", [
    {"normalized": True, "case_sensitive": True},
    {"normalized": True, "asian_support": True, "no_punct": True},
])
def test_ter_options_on_wmt_outputs(wmt_de, wmt_zh, options):
    texts = wmt_de[:3] + wmt_zh[:2] + wmt_zh[6:8]
    rows = list(range(0, len(texts), 2 if NO_JIT else 1))
    got = ter_cells.grid(ter_cells.prepare(texts, "ter", **options), rows, rows)
    _assert_cells(got, _ter_expected(texts, rows, rows, **options), options)


@pytest.mark.parametrize("options", [
    {},
    {"normalized": True},
    {"normalized": True, "asian_support": True, "case_sensitive": True},
    {"no_punct": True, "asian_support": True},
])
def test_ter_every_cell_of_random_texts(options):
    texts = _random_texts(17, 10 if NO_JIT else 16)
    rows = list(range(len(texts)))
    got = ter_cells.grid(ter_cells.prepare(texts, "ter", **options), rows, rows)
    _assert_cells(got, _ter_expected(texts, rows, rows, **options), options)


def test_ter_normalized_reference_tokenized_twice():
    """sacreBLEU tokenizes a reference twice: with ``normalized``, a text against itself can have edits."""
    texts = ["it's,", "a ,.1 b", "it 's ,"]
    prepared = ter_cells.prepare(texts, "ter", normalized=True)
    got = ter_cells.grid(prepared, [0, 1, 2], [0, 1, 2])
    want = _ter_expected(texts, [0, 1, 2], [0, 1, 2], normalized=True)
    assert np.array_equal(got, want)
    assert got[0, 0] > 0 and got[2, 0] == 0


def test_ter_rows_in_any_order_repeated_non_square():
    texts = _random_texts(23, 12)
    prepared = ter_cells.prepare(texts)
    full = ter_cells.grid(prepared, range(12), range(12))
    rows_a, rows_b = [11, 0, 0, 4, 11], np.array([6, 6, 1], np.uint8)
    got = ter_cells.grid(prepared, rows_a, rows_b)
    assert np.array_equal(got, full[np.ix_(rows_a, rows_b)])
    _assert_cells(full, _ter_expected(texts, range(12), range(12)), "full")
    assert ter_cells.grid(prepared, [], [1]).shape == (0, 1)


def test_ter_kernel_against_plain_twin():
    """Random token sequences with small alphabets (many shifts), one long pair past the search limits."""
    rng = random.Random(8)
    texts = []
    for _ in range(6 if NO_JIT else 10):
        alphabet = rng.randint(1, 6)
        texts.append(" ".join(f"w{rng.randrange(alphabet)}" for _ in range(rng.randint(0, 24))))
    phrase = "the cat sat on the mat and then".split()
    repeats = 3 if NO_JIT else 5
    texts.append(" ".join(phrase * repeats))
    texts.append(" ".join(w for _ in range(repeats) for w in rng.sample(phrase, len(phrase))))
    prepared = ter_cells.prepare(texts)
    rows = np.arange(len(texts))
    got = ter_cells.edits(prepared, rows, rows)
    toks = [t.split() for t in texts]
    want = np.array([[ter_py.ter_edits(h, r) for r in toks] for h in toks], np.int64)
    assert np.array_equal(got, want)
    assert (want > 0).sum() > len(texts) ** 2 // 2


def test_ter_grid_does_not_depend_on_the_chunking():
    from vecscore.kernels.grid_ter import ter_grid_edits

    p = ter_cells.prepare(_random_texts(9, 9), "ter", normalized=True)
    rows = np.arange(9, dtype=np.int64)
    first = ter_grid_edits(p.hyp_ids, p.hyp_ptr, p.ref_ids, p.ref_ptr, rows, rows, 1)
    assert np.array_equal(ter_grid_edits(p.hyp_ids, p.hyp_ptr, p.ref_ids, p.ref_ptr, rows, rows, 4), first)


def test_texts_without_tokens_and_no_texts():
    texts = ["", " ", "...", "\u3002", "a"]
    rows = list(range(len(texts)))
    _assert_cells(lcs_cells.grid(lcs_cells.prepare(texts), rows, rows), _rouge_expected(texts, rows, rows), "lcs")
    for options in ({}, {"normalized": True, "no_punct": True, "asian_support": True}):
        got = ter_cells.grid(ter_cells.prepare(texts, "ter", **options), rows, rows)
        assert np.array_equal(got, _ter_expected(texts, rows, rows, **options)), options
    for cells, metric in ((lcs_cells, "rougeL"), (ter_cells, "ter")):
        prepared = cells.prepare([], metric)
        assert prepared.n_texts == 0 and cells.grid(prepared, [], []).shape == (0, 0)


# --- bad input ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cells", [lcs_cells, ter_cells])
def test_bad_input_names_the_argument(cells):
    metric = "rougeL" if cells is lcs_cells else "ter"
    prepared = cells.prepare(["a b", "c"], metric)
    assert prepared.n_texts == 2
    cases = [
        (lambda: cells.prepare(["a", 3], metric), r"texts\[1\] is int"),
        (lambda: cells.prepare("a b", metric), "not a single string"),
        (lambda: cells.prepare(["a", "b\udc80"], metric), r"texts\[1\] has a lone surrogate"),
        (lambda: cells.prepare(["a"], "chrf"), "not 'chrf'"),
        (lambda: cells.prepare(["a"], metric, beta=2), "unknown option"),
        (lambda: cells.grid(prepared, [0, 2], [0]), r"rows_a\[1\] is 2"),
        (lambda: cells.grid(prepared, [0], [-1]), r"rows_b\[0\] is -1"),
        (lambda: cells.grid(prepared, [0.5], [0]), "integer text indices"),
        (lambda: cells.grid(prepared, [[0]], [0]), "one-dimensional"),
        (lambda: cells.grid(object(), [0], [0]), "prepared must come from"),
    ]
    for call, message in cases:
        with pytest.raises(VecscoreError, match=message):
            call()
    with pytest.raises(VecscoreError, match="True or False"):
        cells.prepare(["a"], metric, **{next(k for k in cells.OPTIONS[metric] if k != "score"): "yes"})


def test_rougel_score_option_checked():
    with pytest.raises(VecscoreError, match="score must be one of"):
        lcs_cells.prepare(["a"], "rougeL", score="f1")


def test_registry_names_these_modules():
    from vecscore.matrices.registry import cells_module

    assert cells_module("rougeL") is lcs_cells and cells_module("ter") is ter_cells
    assert lcs_cells.OPTIONS == {"rougeL": {"score": "fmeasure", "use_stemmer": False}}
    assert set(ter_cells.OPTIONS["ter"]) == {"normalized", "no_punct", "asian_support", "case_sensitive"}


# --- the kernels' Python bodies -------------------------------------------------------------------------------------

_NO_JIT_SCRIPT = """
import numpy as np
from tests.reference import ter_py
from vecscore.matrices import lcs_cells, ter_cells
texts = ["a b c a b", "b a c", "", "x " * 70 + "a b", "a b " * 40, "c a b c a", "the cat sat on the mat"]
rows = np.arange(len(texts))
p = lcs_cells.prepare(texts)
assert np.array_equal(lcs_cells.grid(p, rows, rows), lcs_cells.plain_grid(p, rows, rows))
p = ter_cells.prepare(texts[:3] + texts[5:])
toks = [t.split() for t in texts[:3] + texts[5:]]
want = np.array([[ter_py.ter_edits(h, r) for r in toks] for h in toks])
assert np.array_equal(ter_cells.edits(p, np.arange(5), np.arange(5)), want)
lcs_cells.warm()
ter_cells.warm()
print("ok")
"""


@pytest.mark.skipif(NO_JIT, reason="this process already runs the kernels as plain Python")
def test_kernel_python_bodies_in_a_child_without_jit():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", _NO_JIT_SCRIPT], check=False, env=env, cwd=root, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
