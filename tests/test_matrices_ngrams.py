"""The n-gram cells of score matrices (vecscore.matrices.ngram_cells) against the anchors' per-pair functions.

Every expected cell comes from the anchor called on the pair, computed in the test: sacreBLEU's
``CHRF(...).sentence_score`` / ``sentence_bleu`` / ``BLEU(...).sentence_score``, rouge-score's
``RougeScorer.score(target=ref, prediction=hyp)``; the reference-aggregated utility from fastchrf's
``aggregate_chrf`` and from sacreBLEU's ``BLEU.compute_bleu`` on hand-counted statistics.  Cells must be
equal within 1e-9 (in practice bit-equal).  Inputs: WMT21 en-de system outputs of the same source sentences
(realistic MBR candidates) and seeded random texts (unicode, punctuation, empty and whitespace-only texts).
The kernel is checked against its NumPy twin, also with the kernel run as plain Python (``NUMBA_DISABLE_JIT=1``,
a child process).
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
from vecscore.errors import VecscoreError
from vecscore.matrices import ngram_cells as nc
from vecscore.matrices.ngram_features import plain_matches

sacrebleu = pytest.importorskip("sacrebleu")
rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
logging.getLogger("sacrebleu").setLevel(logging.ERROR)

TOL = 1e-9


def _chrf(**kw):
    metric = sacrebleu.metrics.CHRF(**kw)
    return lambda h, r: metric.sentence_score(h, [r]).score


def _bleu(**kw):
    metric = sacrebleu.metrics.BLEU(**{"effective_order": True, **kw})
    return lambda h, r: metric.sentence_score(h, [r]).score


def _rouge(name: str, use_stemmer: bool = False, score: str = "fmeasure"):
    scorer = rouge_scorer.RougeScorer([name], use_stemmer=use_stemmer)
    return lambda h, r: getattr(scorer.score(target=r, prediction=h)[name], score)


#: (metric, options, the anchor's per-pair function)
CASES = [
    ("chrf", {}, lambda h, r: sacrebleu.sentence_chrf(h, [r]).score),
    ("chrf++", {}, _chrf(word_order=2)),
    ("bleu", {}, lambda h, r: sacrebleu.sentence_bleu(h, [r]).score),
    ("rouge1", {}, _rouge("rouge1")),
    ("rouge2", {}, _rouge("rouge2")),
]
OPTION_CASES = [
    ("chrf", {"lowercase": True, "whitespace": True}, _chrf(lowercase=True, whitespace=True)),
    ("chrf", {"eps_smoothing": True, "beta": 1, "char_order": 4}, _chrf(eps_smoothing=True, beta=1, char_order=4)),
    ("chrf++", {"word_order": 1, "char_order": 3, "lowercase": True}, _chrf(word_order=1, char_order=3,
                                                                            lowercase=True)),
    ("bleu", {"tokenize": "none", "smooth_method": "floor"}, _bleu(tokenize="none", smooth_method="floor")),
    ("bleu", {"tokenize": "intl", "lowercase": True}, _bleu(tokenize="intl", lowercase=True)),
    ("bleu", {"tokenize": "char", "smooth_method": "add-k", "max_ngram_order": 3},
     _bleu(tokenize="char", smooth_method="add-k", max_ngram_order=3)),
    ("bleu", {"effective_order": False, "smooth_method": "none"}, _bleu(effective_order=False, smooth_method="none")),
    ("rouge1", {"use_stemmer": True, "score": "precision"}, _rouge("rouge1", True, "precision")),
    ("rouge2", {"use_stemmer": True, "score": "recall"}, _rouge("rouge2", True, "recall")),
]


def _expected(anchor, texts, rows_a, rows_b) -> np.ndarray:
    return np.array([[anchor(texts[a], texts[b]) for b in rows_b] for a in rows_a], dtype=np.float64)


def _assert_cells(got: np.ndarray, want: np.ndarray, what: str) -> None:
    assert got.shape == want.shape and got.dtype == np.float64
    diff = np.abs(got - want)
    assert diff.max(initial=0.0) <= TOL, f"{what}: cell {np.unravel_index(diff.argmax(), diff.shape)} differs"


def _random_texts(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    words = ["the", "cat", "Cat", "sat", "on", "mat", "running", "runs", "über", "Straße", "naïve", "東京", "😀",
             "(hi)", "end.", "'quote'", "a-b", "x", "!", "...", "İstanbul", "K", "ﬁne"]
    spaces = [" ", " ", " ", "  ", "\t", "\u00a0", "\u3000", "\n", "\x1c"]
    out = ["", "   ", "\t\n"]
    while len(out) < n:
        k = rng.randrange(1, 12)
        text = "".join(rng.choice(words) + rng.choice(spaces) for _ in range(k))
        out.append(text.strip() if rng.random() < 0.7 else text)
    rng.shuffle(out)
    return out


RANDOM = _random_texts(7, 14)


@pytest.fixture(scope="module")
def wmt21_candidates(shared_data) -> list[list[str]]:
    """Per source segment (two of them), its 20 system outputs and 3 references of WMT21 en-de."""
    root = data_file(shared_data, "wmt21-news-systems", "en-de")
    files = sorted((root / "system-outputs").iterdir()) + [root / f"newstest2021.en-de.ref.{r}.de" for r in "ACD"]
    lines = [Path(f).read_text(encoding="utf-8").splitlines() for f in files]
    return [[f[s] for f in lines] for s in (3, 517)]


@pytest.mark.parametrize("metric,options,anchor", CASES, ids=[c[0] for c in CASES])
def test_wmt21_candidates_every_cell(wmt21_candidates, metric, options, anchor, monkeypatch):
    """Two sources' candidate sets prepared together; each source's square grid equals the anchor per cell, on
    both routes (the NumPy twin and plain formulas; the kernel and compiled formulas)."""
    from vecscore import _jit

    texts = [t for cands in wmt21_candidates for t in cands]
    prepared = nc.prepare(texts, metric, **options)
    n = len(wmt21_candidates[0])
    for s in range(len(wmt21_candidates)):
        rows = np.arange(s * n, (s + 1) * n)
        want = _expected(anchor, texts, rows, rows)
        with monkeypatch.context() as patch:
            patch.setattr(nc, "is_active", lambda: False)
            _assert_cells(nc.grid(prepared, rows, rows), want, f"{metric} source {s}, plain route")
        _jit.activate()
        _assert_cells(nc.grid(prepared, rows, rows), want, f"{metric} source {s}, compiled route")


@pytest.mark.parametrize("route", ["plain", "compiled"])
@pytest.mark.parametrize("metric,options,anchor", CASES + OPTION_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES + OPTION_CASES)])
def test_random_texts_every_cell(metric, options, anchor, route, monkeypatch):
    """Both routes: the NumPy twin and plain formulas (numba not loaded), the kernel and compiled formulas."""
    if route == "plain":
        monkeypatch.setattr(nc, "is_active", lambda: False)
    else:
        from vecscore import _jit

        _jit.activate()
    rows = np.arange(len(RANDOM))
    prepared = nc.prepare(RANDOM, metric, **options)
    _assert_cells(nc.grid(prepared, rows, rows), _expected(anchor, RANDOM, rows, rows), f"{metric} {options}")


@pytest.mark.parametrize("metric,options,anchor", [CASES[0], CASES[2], CASES[4]], ids=["chrf", "bleu", "rouge2"])
def test_rows_in_any_order_with_repeats(wmt21_candidates, metric, options, anchor):
    """Non-square grids, rows repeated and out of order (also both directions of a block from ``grid_both``):
    each cell is the anchor's score of its pair; the kernel's matches are the NumPy twin's."""
    texts = wmt21_candidates[0][:10] + RANDOM[:6]
    every = np.arange(len(texts))
    prepared = nc.prepare(texts, metric, **options)
    full = _expected(anchor, texts, every, every)
    rng = np.random.default_rng(3)
    for na, nb in ((5, 9), (9, 5), (1, 16), (16, 1), (7, 7)):
        a = rng.integers(0, len(texts), na)
        b = rng.integers(0, len(texts), nb)
        b[0] = b[-1]  # a repeat
        assert np.array_equal(nc.matches(prepared, a, b, route="kernel"), plain_matches(prepared.table, a, b))
        _assert_cells(nc.grid(prepared, list(a), b.tolist()), full[np.ix_(a, b)], f"{metric} {na}x{nb}")
        ab, ba = nc.grid_both(prepared, a, b)
        _assert_cells(ab, full[np.ix_(a, b)], f"{metric} {na}x{nb} grid_both")
        _assert_cells(ba, full[np.ix_(b, a)], f"{metric} {nb}x{na} grid_both, transposed")
    assert nc.grid(prepared, [], [1, 2]).shape == (0, 2)
    assert nc.grid(prepared, [3], np.zeros(0, np.int64)).shape == (1, 0)


@pytest.mark.parametrize("metric", list(nc.OPTIONS))
def test_kernel_equals_numpy_twin(metric):
    texts = _random_texts(11, 30)
    prepared = nc.prepare(texts, metric)
    rng = np.random.default_rng(5)
    a, b = rng.integers(0, 30, 17), rng.integers(0, 30, 23)
    for rows_a, rows_b in ((a, b), (a, a)):  # the second is the symmetric case of the kernel
        want = plain_matches(prepared.table, rows_a, rows_b)
        assert np.array_equal(nc.matches(prepared, rows_a, rows_b, route="kernel"), want)


_NO_JIT_SCRIPT = """
import numpy as np
from vecscore import _jit
from vecscore.matrices import ngram_cells as nc
from vecscore.matrices.ngram_features import plain_matches
from tests.test_matrices_ngrams import _random_texts
assert _jit.DISABLED
texts = _random_texts(5, 9)
for metric in nc.OPTIONS:
    prepared = nc.prepare(texts, metric)
    rows = np.arange(9)
    for a, b in ((rows, rows), (rows[::2].copy(), rows[1:].copy())):
        assert np.array_equal(nc.matches(prepared, a, b, route="kernel"), plain_matches(prepared.table, a, b))
nc.warm()
print("ok")
"""


def test_kernel_runs_as_plain_python():
    """The kernel's Python body (NUMBA_DISABLE_JIT=1, a child process) agrees with the NumPy twin."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", _NO_JIT_SCRIPT], check=False, env=env, cwd=root,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_aggregate_chrf_equals_fastchrf(wmt21_candidates):
    fastchrf = pytest.importorskip("fastchrf")
    cands = wmt21_candidates[0] + RANDOM[3:8]
    prepared = nc.prepare(cands, "chrf")
    rows = np.arange(len(cands))
    refs = np.array([0, 4, 4, 7, 12, 20, 22, 25])  # a repeated reference counts twice
    want = np.array(fastchrf.aggregate_chrf([cands], [[cands[r] for r in refs]])[0], np.float64)
    got = nc.aggregate(prepared, rows, refs)
    assert got.shape == (len(cands),)
    assert np.allclose(got, want, rtol=1e-5, atol=1e-4), np.abs(got - want).max()
    # one reference: the aggregate is the pair's own chrF
    one = np.array([sacrebleu.sentence_chrf(h, [cands[5]]).score for h in cands])
    assert np.abs(nc.aggregate(prepared, rows, [5]) - one).max() <= TOL


def test_aggregate_bleu_by_hand():
    """hyp "a b c d" against refs "a b c d" and "a b x y" pooled (m = 2): hypothesis counts doubled against the
    summed reference counts: matches 6/8, 4/6, 2/4, 1/2; lengths 8 and 8."""
    prepared = nc.prepare(["a b c d", "a b c d", "a b x y"], "bleu", tokenize="none")
    got = nc.aggregate(prepared, [0], [1, 2])
    bleu = sacrebleu.metrics.BLEU
    want = bleu.compute_bleu([6, 4, 2, 1], [8, 6, 4, 2], 8, 8, smooth_method="exp").score
    assert abs(got[0] - want) <= TOL
    assert abs(got[0] - 100 * (6 / 8 * 4 / 6 * 2 / 4 * 1 / 2) ** 0.25) <= 1e-9
    # a zero-match order: the exp smoothing sees the doubled totals (hand: 8 unigrams, 0 of 6 bigrams matched)
    prepared = nc.prepare(["a b c d", "d c b a", "c a"], "bleu", tokenize="none")
    got = nc.aggregate(prepared, [0], [1, 2])
    want = bleu.compute_bleu([6, 0, 0, 0], [8, 6, 4, 2], 8, 6, smooth_method="exp", effective_order=True).score
    assert abs(got[0] - want) <= TOL


def test_aggregate_rouge_by_hand():
    """rouge1 of "a b c" against "a b" and "a a d" pooled: hypothesis counts doubled (a:2, b:2, c:2) against
    summed counts (a:3, b:1, d:1): 3 matches of 6 hypothesis and 5 reference unigrams."""
    prepared = nc.prepare(["a b c", "a b", "a a d"], "rouge1", score="precision")
    assert nc.aggregate(prepared, [0], [1, 2])[0] == 3 / 6
    prepared = nc.prepare(["a b c", "a b", "a a d"], "rouge1")
    p, r = 3 / 6, 3 / 5
    assert nc.aggregate(prepared, [0], [1, 2])[0] == 2 * p * r / (p + r)


def test_bad_input_is_refused_naming_the_fix():
    with pytest.raises(VecscoreError, match="metric must be one of"):
        nc.prepare(["a"], "meteor")
    with pytest.raises(VecscoreError, match="unknown option.*'order'.*valid: char_order"):
        nc.prepare(["a"], "chrf", order=3)
    with pytest.raises(VecscoreError, match=r"texts\[1\] is NoneType"):
        nc.prepare(["a", None], "bleu")
    with pytest.raises(VecscoreError, match=r"texts\[2\] contains a lone surrogate"):
        nc.prepare(["a", "b", "c\ud800"], "chrf")
    with pytest.raises(VecscoreError, match="unknown tokenize"):
        nc.prepare(["a"], "bleu", tokenize="moses")
    with pytest.raises(VecscoreError, match="score must be one of"):
        nc.prepare(["a"], "rouge1", score="f1")
    prepared = nc.prepare(["a", "b"], "chrf")
    with pytest.raises(VecscoreError, match=r"rows_b\[1\] = 2 is not a row of the 2 prepared texts"):
        nc.grid(prepared, [0], [1, 2])
    with pytest.raises(VecscoreError, match="rows_a must be a 1-d sequence of integer"):
        nc.grid(prepared, [0.5], [1])
    with pytest.raises(VecscoreError, match="rows_b is empty"):
        nc.aggregate(prepared, [0], [])


def test_options_table_names_the_anchor_defaults():
    assert nc.OPTIONS["chrf"]["word_order"] == 0 and nc.OPTIONS["chrf++"]["word_order"] == 2
    assert nc.OPTIONS["bleu"]["effective_order"] is True and nc.OPTIONS["bleu"]["tokenize"] == "13a"
    assert nc.OPTIONS["rouge1"] == {"use_stemmer": False, "score": "fmeasure"}
