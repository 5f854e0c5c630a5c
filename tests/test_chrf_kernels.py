"""The chrF kernels (:mod:`vecscore.kernels.chrf`) against their plain twins.

The twin is :mod:`vecscore.chrf.plain` (``Counter``s over ``str.split()`` and
slices, the way sacreBLEU counts) and sacreBLEU itself where it is cheap;
nothing expected comes from the kernels.  Text is read in place at every
CPython width (1, 2, 4 bytes per code point) and encoded to UTF-32 (the
path taken with ``VECSCORE_FAST_PATH=0``).  The file runs as it is under
``NUMBA_DISABLE_JIT=1`` (smaller random batches there) and ``NUMBA_BOUNDSCHECK=1``.
"""
from __future__ import annotations

import random
from pathlib import Path

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.test_chrf import ODD, SacreCHRF
from vecscore.chrf import compiled as chrf_compiled
from vecscore.chrf import formulas
from vecscore.chrf import plain as plain_chrf
from vecscore.chrf import stats as chrf_stats
from vecscore.errors import VecscoreError
from vecscore.parallel import numba_threads

NO_JIT = bool(numba.config.DISABLE_JIT)


ALPHABET = list("aab.c!, \t(") + ["\u00e9", "e\u0301", "日", "本", "\U0001f600", "\u3000", "\u00a0", "-", "A"]
#: more than 64 distinct characters (and words) per text: the kernel's hashed order-2 path
BIG_ALPHABET = ALPHABET + [chr(0x4E00 + i) for i in range(150)] + [" "] * 40


def _random_text(rng: random.Random, alphabet=ALPHABET, sizes=(0, 1, 2, 5, 12, 30, 80)) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.choice(sizes)))


@pytest.mark.parametrize("seed", range(4))
def test_kernel_matches_plain_twin_random(seed):
    """The compiled kernels equal the plain Counter route on random text (seed 3: large alphabets, long texts)."""
    rng = random.Random(seed)
    big = seed == 3
    n = 40 if NO_JIT else 300
    text = (lambda: _random_text(rng, BIG_ALPHABET, (0, 3, 150, 400, 900))) if big else (lambda: _random_text(rng))
    hyps = [text() for _ in range(n)]
    refs = [[text() for _ in range(rng.randint(1, 4))] for _ in range(n)]
    texts = hyps + [r for rs in refs for r in rs]
    ref_ptr = np.concatenate([[0], np.cumsum([len(r) for r in refs])]).astype(np.int64)
    for char_order, word_order, keep in ((6, 0, False), (6, 2, False), (3, 4, True), (1, 1, False), (0, 2, True)):
        opts = chrf_stats.Options(char_order=char_order, word_order=word_order, whitespace=keep)
        a = plain_chrf.pair_stats(texts, n, ref_ptr, char_order, word_order, keep)
        for threads in (1, 2):
            with numba_threads(threads):
                b = chrf_compiled.compiled_rows(texts, n, ref_ptr, opts)
            assert np.array_equal(a, b), (char_order, word_order, keep, threads)


_NO_JIT_SCRIPT = """
import random, warnings
import numpy as np
warnings.simplefilter("ignore", RuntimeWarning)  # uint64 hashing wraps on purpose (silently in numba)
from vecscore.chrf import compiled, plain, stats
rng = random.Random(5)
alphabet = list("ab c.!,(") + ["\u65e5", "\u00a0", "\U0001f600"] + [chr(0x4E00 + i) for i in range(70)]
def text():
    return "".join(rng.choice(alphabet) for _ in range(rng.choice([0, 1, 4, 20, 120])))
hyps = [text() for _ in range(40)]
refs = [[text() for _ in range(rng.randint(1, 3))] for _ in range(40)]
texts = hyps + [r for rs in refs for r in rs]
ptr = np.concatenate([[0], np.cumsum([len(r) for r in refs])]).astype(np.int64)
for co, wo, keep in ((6, 2, False), (2, 3, True)):
    opts = stats.Options(char_order=co, word_order=wo, whitespace=keep)
    assert (compiled.compiled_rows(texts, 40, ptr, opts) == plain.pair_stats(texts, 40, ptr, co, wo, keep)).all()
print("ok")
"""


def test_kernel_python_bodies_match_plain_twin():
    """The kernels run as plain Python (NUMBA_DISABLE_JIT=1, a child process) agree with the plain route."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", _NO_JIT_SCRIPT], check=False, env=env, cwd=root, capture_output=True,
                          text=True,
                          timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def _units_of(rows, t, keep, words=True):
    """The kernel's characters and tokens of row ``t`` of ``rows`` (:func:`vecscore.chrf.compiled.text_rows`)."""
    from vecscore.kernels import chrf_text as k

    n = int(rows.lens[t])
    cb = np.empty(n + 1, np.int32)
    tok_s, tok_e, tok_h = np.empty(n + 1, np.int32), np.empty(n + 1, np.int32), np.empty(n + 1, np.int64)
    m, n_tok, bad = k.text_units(rows.addrs[t], n, rows.widths[t], keep, words, k.whitespace_table(),
                                 k.punctuation_table(), cb, tok_s, tok_e, tok_h)
    chars = "".join(map(chr, cb[:m]))
    tokens = ["".join(map(chr, cb[s:e])) for s, e in zip(tok_s[:n_tok], tok_e[:n_tok])]
    hashes = [int(h) for h in tok_h[:n_tok]]
    return chars, tokens, hashes, bad


def _fnv(text: str) -> int:
    h = 14695981039346656037
    for ch in text:
        h = ((h ^ ord(ch)) * 1099511628211) % (1 << 64)
    return h - (1 << 64) if h >= 1 << 63 else h


ODD_WIDE = ODD + ["\u00e9t\u00e9.", "(\u00e9t\u00e9", "\u201cquoted\u201d,", "\U0001f600!", "!\U0001f600",
                  "a\u3000b\u2028c", "\u00e4 " * 50, "x\u00a0" * 30 + "\u4e00"]


@pytest.mark.parametrize("fast", [True, False], ids=["in-place", "utf32"])
def test_text_units_match_plain_units(fast, monkeypatch):
    """Every text read by the kernel (in place at widths 1, 2 and 4, or encoded to UTF-32) gives
    sacreBLEU's characters and words, and each token's FNV hash of its code points."""
    from vecscore.kernels import in_place

    if not fast:
        monkeypatch.setattr(in_place, "_layout", lambda: None)
    rng = random.Random(11)
    texts = [_random_text(rng) for _ in range(500)] + ODD_WIDE
    rows = chrf_compiled.text_rows(texts)
    if not fast or in_place.str_rows(["a"]) is None:
        assert set(np.unique(rows.widths).tolist()) == {4}  # every text encoded to UTF-32
    elif hasattr(in_place.TextRows, "widths"):
        assert set(np.unique(rows.widths).tolist()) >= {1, 2, 4}  # non-ASCII rows read in place too
    for keep in (False, True):
        for t, text in enumerate(texts):
            chars, tokens, hashes, bad = _units_of(rows, t, keep)
            assert chars == plain_chrf.char_units(text, keep)
            assert tokens == plain_chrf.word_units(text) == SacreCHRF()._remove_punctuation(text)
            assert hashes == [_fnv(w) for w in tokens]
            assert bad == 0
            assert _units_of(rows, t, keep, words=False)[:2] == (chars, [])


def test_lone_surrogate_found_in_place():
    """A lone surrogate (width 2 or 4 in place) is flagged by the kernel; the caller names the row."""
    from vecscore.kernels import in_place

    texts = ["ok", "a\ud800b", "\U0001f600\udfff", "fine \u00e9"]
    if in_place.str_rows(["a"]) is None:  # VECSCORE_FAST_PATH=0: the texts are encoded, and the encoder refuses it
        with pytest.raises(UnicodeError):
            chrf_compiled.text_rows(texts)
    else:
        rows = chrf_compiled.text_rows(texts)
        assert [_units_of(rows, t, False)[3] for t in range(len(texts))] == [0, 1, 1, 0]
    for hyps, refs, name in ((texts[:2], [["x", "y"]], r"hyps\[1\]"), (["a", "b"], [texts[2:]], r"refs\[0\]\[0\]")):
        with pytest.raises(VecscoreError, match=name + ".*surrogate"):
            chrf_stats.pair_rows(chrf_stats.read_batch(hyps, refs, "streams", False), chrf_stats.Options(),
                                 route="compiled")


def test_whitespace_table_is_str_split():
    from vecscore.kernels import chrf_text as k

    table = k.whitespace_table()
    space = [c for c in range(0x110000) if chr(c).isspace()]
    assert space == list(np.flatnonzero(table))
    assert all(len(f"a{chr(c)}b".split()) == 2 for c in space)


# --- property tests: random text from an adversarial alphabet, every option --------------------

_UNITS = st.sampled_from(list("ab.,!( ") + ["\t", "\u00e9", "e\u0301", "\u65e5", "\U0001f600", "\u3000", "\u00a0",
                                            "\u2028", "A", "-", "'"])
_TEXT = st.lists(_UNITS, max_size=40).map("".join)


@settings(max_examples=25 if NO_JIT else 150, deadline=None)
@given(pairs=st.lists(st.tuples(_TEXT, st.lists(_TEXT, min_size=1, max_size=3)), min_size=1, max_size=6),
       char_order=st.integers(0, 7), word_order=st.integers(0, 3), keep=st.booleans(),
       beta=st.sampled_from([0, 0.5, 1, 2, 3]), eps=st.booleans())
def test_kernel_statistics_and_scores_property(pairs, char_order, word_order, keep, beta, eps):
    """Statistics equal the plain twin's; each pair's best reference and chrF equal
    :func:`vecscore.chrf.formulas.best_rows` (numpy, as sacreBLEU computes it) bit for bit."""
    if char_order + word_order == 0:
        char_order = 1
    hyps = [h for h, _ in pairs]
    texts = hyps + [r for _, rs in pairs for r in rs]
    ref_ptr = np.concatenate([[0], np.cumsum([len(rs) for _, rs in pairs])]).astype(np.int64)
    opts = chrf_stats.Options(char_order=char_order, word_order=word_order, beta=beta, whitespace=keep,
                              eps_smoothing=eps)
    rows, best, scores = chrf_compiled.compiled_statistics(texts, len(hyps), ref_ptr, opts)
    assert np.array_equal(rows, plain_chrf.pair_stats(texts, len(hyps), ref_ptr, char_order, word_order, keep))
    want_best, want_scores = formulas.best_rows(rows, ref_ptr, beta, eps)
    assert np.array_equal(best, want_best)
    assert scores.tobytes() == want_scores.tobytes()


def test_kernel_scores_match_sacrebleu_formula():
    """The kernel's chrF of a statistics row is sacreBLEU's ``_compute_f_score`` of it, bit for bit."""
    from vecscore.kernels import chrf as k

    rng = np.random.default_rng(4)
    for order, beta, eps in ((6, 2, False), (8, 3, True), (3, 0.5, False), (2, 1, True), (1, 0, False)):
        stats = rng.integers(0, 5, size=(400, 3 * order)).astype(np.int64)
        stats[:, 2::3] = np.minimum(stats[:, 2::3], np.minimum(stats[:, 0::3], stats[:, 1::3]))
        theirs = SacreCHRF(char_order=order, beta=beta, eps_smoothing=eps)
        for r in range(len(stats)):
            got = k.f_score(stats, r, order, float(beta ** 2), eps)
            assert got == theirs._compute_f_score(list(map(int, stats[r])))


def test_directly_indexed_and_hashed_orders_interleaved():
    """Pairs whose n-grams go through the directly indexed table (short, few characters) alternate with
    pairs that overflow it onto the hash table (long, many distinct characters) on the same thread: the
    table is left clean between pairs and orders, so every pair's statistics are sacreBLEU's."""
    rng = random.Random(8)
    wide = [chr(0x4E00 + i) for i in range(400)]
    hyps, refs = [], []
    for i in range(12 if NO_JIT else 60):
        if i % 3 == 1:  # ~250 distinct characters: (ids + 1) * width is far past the direct table
            base = "".join(rng.choice(wide) for _ in range(500))
            hyp = base[:450] + "".join(rng.choice(wide) for _ in range(50))
            ref = base[30:] + base[:30]
        else:
            base = "".join(rng.choice("abcde fgh.") for _ in range(rng.choice((3, 40, 120))))
            hyp, ref = base, base[::-1][: len(base) // 2] + base[len(base) // 2:]
        hyps.append(hyp)
        refs.append(ref)
    for word_order in (0, 2):
        want = np.array(SacreCHRF(word_order=word_order)._extract_corpus_statistics(hyps, [refs]))
        opts = chrf_stats.Options(word_order=word_order)
        with numba_threads(1):
            got = chrf_compiled.compiled_rows(hyps + refs, len(hyps), np.arange(len(hyps) + 1), opts)
        assert np.array_equal(got, want), word_order
