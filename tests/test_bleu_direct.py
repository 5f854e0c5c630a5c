"""The fused per-pair BLEU path (bytes -> statistics in one kernel).

Expected values: sacreBLEU's own tokenizers feeding the Counter twin of
``tests/reference/bleu_py.py``, and sacreBLEU's scores.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.reference.bleu_py import corpus_stats
from vecscore.bleu.api import corpus_bleu, sentence_bleu
from vecscore.bleu.direct import direct_stats
from vecscore.engine.pair_rows import pair_rows
from vecscore.kernels.pair_bleu import pair_bleu_counts
from vecscore.references import read_texts

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a  # noqa: E402


def read(hyps, refs):
    """``(hyps, refs)`` as the front door reads them (references per example)."""
    return read_texts(hyps, refs, "per-example", "BLEU")

# pieces that fire every 13a rule: punctuation, numbers, dashes, entities, <skipped>, newlines,
# long words (hashed token keys), repeated tokens (non-ASCII: tests/test_wide_text.py)
_PIECES = ["the", "The", "cat", "cat.", "a,b", "3.5", "3,5", "10-4", "x-y", "-", "--", "...", ",", "&amp;",
           "&amp;lt;", "&quot;", "<skipped>", "-\n", "\n", "\t", "'s", "(ok)", "$5", "U.S.", "abcdefgh",
           "abcdefghij", "abcdefghik", "supercalifragilistic", "!", "?", "", "a\x00b", "1.", ".5", "a..b",
           "a.,b", "5-", "-5", "x.-1", ",.", "9,", "e.g.", "3--4"]
_text = st.lists(st.sampled_from(_PIECES), max_size=25).map(" ".join)
_PREPROCESS = {"13a": Tokenizer13a(), "none": str, "char": None}


def _tokens(text: str, tok: str) -> list[str]:
    text = text.rstrip()
    if tok == "char":
        return [c for c in text if not c.isspace()]
    return _PREPROCESS[tok](text).split()


def _case(pairs, tok, order, collide):
    """``(hyps, refs, corpus_stats of sacreBLEU's tokens, rows, ref_ptr, mode, key mask)`` for the kernel tests."""
    hyps = [h for h, _ in pairs]
    refs = [rs for _, rs in pairs]
    stats = corpus_stats([_tokens(h, tok) for h in hyps], [[_tokens(r, tok) for r in rs] for rs in refs], order)
    rows, ref_ptr, _ = pair_rows(*read(hyps, refs), None)
    mode = {"13a": 0, "none": 1, "char": 2}[tok]
    # key mask: bit 63 and two low bits, so every long token's key is one of four values
    mask = np.int64(-(1 << 63) | 3) if collide else np.int64(-1)
    return hyps, refs, stats, rows, ref_ptr, mode, mask


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.lists(st.tuples(_text, st.lists(_text, min_size=1, max_size=4)), min_size=1, max_size=6),
       st.sampled_from(["13a", "none", "char"]), st.integers(1, 5), st.booleans())
def test_kernel_equals_sacrebleu_tokens_and_counter_twin(pairs, tok, order, collide):
    hyps, refs, (sys_len, ref_len, correct, total), rows, ref_ptr, mode, mask = _case(pairs, tok, order, collide)
    lengths, got = pair_bleu_counts(rows.addrs, rows.lens, ref_ptr, mode, order, mask)
    assert lengths[: len(hyps)].tolist() == sys_len.tolist()
    assert np.array_equal(got, correct.T)
    s = direct_stats(*read(hyps, refs), tokenize=tok, lowercase=False, max_order=order, brevity_penalty="closest")
    assert s.ref_len.tolist() == ref_len.tolist() and np.array_equal(s.total, total.T)


def test_fast_path_applies_only_without_lowercasing():
    kw = dict(max_order=4, brevity_penalty="closest")
    assert direct_stats(*read(["a b"], ["a b"]), tokenize="13a", lowercase=False, **kw) is not None
    assert direct_stats(*read(["a b"], ["a b"]), tokenize="13a", lowercase=True, **kw) is None
    assert direct_stats(*read(["a b"], ["a b"]), tokenize="intl", lowercase=False, **kw) is None
    # non-ASCII text takes it too (as UTF-8, see tests/test_wide_text.py)
    s = direct_stats(*read(["café au lait"], ["café au lait"]), tokenize="13a", lowercase=False, **kw)
    assert s.sys_len.tolist() == [3] and s.correct[0].tolist() == [3, 2, 1, 0]
    # a NUL is an ordinary character to 13a (rows are read in place, not NUL-joined)
    s = direct_stats(*read(["a\x00b c."], ["a\x00b c"]), tokenize="13a", lowercase=False, **kw)
    assert s.sys_len.tolist() == [len(Tokenizer13a()("a\x00b c.").split())] == [3]
    assert s.correct[0].tolist() == [2, 1, 0, 0]


def test_scores_equal_sacrebleu_on_mixed_batches():
    hyps = ["The cat sat on the mat.", "It costs $3.50 &amp; more -- really?", "", "Ünïcode text, too."]
    refs = [["The cat is on the mat.", "A cat sat on a mat."], ["It costs 3.50 dollars."], ["nothing"],
            ["Unicode text too."]]
    streams = [[r[0] for r in refs], [r[1] if len(r) > 1 else None for r in refs]]
    ours = corpus_bleu(hyps, refs)
    theirs = sacrebleu.corpus_bleu(hyps, streams)
    assert ours.score == pytest.approx(theirs.score, abs=1e-9) and ours.counts.tolist() == theirs.counts
    ascii_only = hyps[:3], refs[:3]
    sent = sentence_bleu(*ascii_only).score
    want = [sacrebleu.sentence_bleu(h, r).score for h, r in zip(*ascii_only)]
    assert np.allclose(sent, want, rtol=0, atol=1e-9)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.integers(60, 400), st.integers(1, 3), st.integers(1, 6))
def test_long_texts_number_ngrams_through_the_hash_table(seed, n_words, n_refs, order):
    # past ~128 distinct hypothesis tokens the kernel numbers n-grams through a hash table instead of
    # a square one; repeated phrases give n-gram counts above 1 on both sides
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(rng.integers(20, 600))])
    phrase = " ".join(rng.choice(vocab, 6))

    def text(n):
        words = list(rng.choice(vocab, n))
        for _ in range(rng.integers(0, 4)):
            words.insert(int(rng.integers(0, len(words) + 1)), phrase)
        return " ".join(words)

    hyp = text(n_words)
    refs = [hyp if k == 0 and rng.random() < 0.3 else text(int(rng.integers(1, 2 * n_words))) for k in range(n_refs)]
    sys_len, _, correct, _ = corpus_stats([hyp.split()], [[r.split() for r in refs]], order)
    rows, ref_ptr, _ = pair_rows(*read([hyp], [refs]), None)
    lengths, got = pair_bleu_counts(rows.addrs, rows.lens, ref_ptr, 0, order)
    assert lengths[0] == sys_len[0] and np.array_equal(got, correct.T)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3), st.integers(1, 6), st.booleans())
def test_pairs_around_32_and_64_tokens_equal_the_counter_twin(seed, n_refs, order, collide):
    # texts of up to 64 tokens are compared 32 or 64 token keys at a time (one bit per position);
    # longer ones are numbered through the hash table.  Lengths straddle both widths; a small
    # vocabulary with long words (hashed keys; with ``collide`` their keys take at most four values)
    # gives repeated n-grams on both sides.
    rng = np.random.default_rng(seed)
    vocab = np.array(["a", "b", "cc", "abcdefgh", "abcdefghij", "abcdefghijklmnopq", "abcdefghijklmnopr",
                      "qwertyuiopasdfghjklz", "qwertyuiopasdfghjklx"])

    def text():
        n = int(rng.choice([rng.integers(0, 8), rng.integers(28, 36), rng.integers(60, 68), rng.integers(1, 70)]))
        return " ".join(rng.choice(vocab[: rng.integers(2, len(vocab) + 1)], n))

    hyps = [text() for _ in range(6)]
    refs = [[text() for _ in range(n_refs)] for _ in hyps]
    sys_len, _, correct, _ = corpus_stats([h.split() for h in hyps], [[r.split() for r in rs] for rs in refs], order)
    rows, ref_ptr, _ = pair_rows(*read(hyps, refs), None)
    mask = np.int64(-(1 << 63) | 3) if collide else np.int64(-1)
    lengths, got = pair_bleu_counts(rows.addrs, rows.lens, ref_ptr, 0, order, mask)
    assert lengths[: len(hyps)].tolist() == sys_len.tolist()
    assert np.array_equal(got, correct.T)


# zh: "Chinese" characters of both range sets (U+2014 and U+2190 lie in sacreBLEU's malformed U+2001..U+2A6D row,
# U+20000 only in zh-fixed's), fullwidth forms, ideographic space and punctuation, and '.'/',' at a text's ends,
# where zh's unpadded rules differ from 13a's
_ZH_PIECES = ["中", "文字", "。", "，", "\u3000", "\uff0c", "\uff21", "\u2014", "\u2190", "\U00020000", "\u4e00x",
              "5.", ".5", ",", ".", "9,", ",1", "a.", "3.5", "&amp;", "<skipped>", "-\n", "10-4", "ab", "Ünï", "", "\t"]
_zh_text = st.lists(st.sampled_from(_ZH_PIECES + _PIECES[:12]), max_size=12).map(lambda xs: "".join(
    x if i % 3 else " " + x for i, x in enumerate(xs)))


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.tuples(_zh_text, st.lists(_zh_text, min_size=1, max_size=3)), min_size=1, max_size=6),
       st.integers(1, 4))
def test_zh_kernel_equals_sacrebleu_tokens(pairs, order):
    """``zh`` on the per-pair kernel: sacreBLEU's ``TokenizerZh`` tokens, counted by the Counter twin."""
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

    zh = TokenizerZh()
    hyps = [h for h, _ in pairs]
    refs = [rs for _, rs in pairs]
    sys_len, ref_len, correct, total = corpus_stats(
        [zh(h.rstrip()).split() for h in hyps], [[zh(r.rstrip()).split() for r in rs] for rs in refs], order)
    s = direct_stats(*read(hyps, refs), tokenize="zh", lowercase=False, max_order=order, brevity_penalty="closest")
    assert s.sys_len.tolist() == sys_len.tolist() and s.ref_len.tolist() == ref_len.tolist()
    assert np.array_equal(s.correct, correct.T) and np.array_equal(s.total, total.T)


@pytest.mark.parametrize("tokenize", ["zh", "zh-fixed"])
def test_zh_kernel_equals_the_general_route(tokenize):
    """Both zh range sets: the per-pair kernel's statistics equal the general route's, texts whose ends hold
    ``.``/``,`` included (those pairs are scored again on the general route)."""
    from vecscore.bleu.direct import general_stats

    hyps = ["中文 测试 5.", ".5 文字。", "\U00020000\U00020001 x", "a,b 中\u3000国", "\u2014 dash \u2190", "", "9,"]
    refs = [["中文测试 5 ."], ["文字。 .5", "x"], ["\U00020000 x"], ["a , b 中国"], ["\u2014dash"], ["a"], [",9"]]
    kw = dict(tokenize=tokenize, lowercase=False, max_order=4, brevity_penalty="closest")
    fast, general = direct_stats(*read(hyps, refs), **kw), general_stats(hyps, refs, refs_layout="per-example", **kw)
    for f in ("sys_len", "ref_len", "correct", "total", "nrefs"):
        assert np.array_equal(getattr(fast, f), getattr(general, f)), f


# --- references tokenized once (reference_keys), as a cached scorer's per-pair calls read them -------------------


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.tuples(_text, st.lists(_text, min_size=1, max_size=4)), min_size=1, max_size=6),
       st.sampled_from(["13a", "none", "char"]), st.integers(1, 5), st.booleans())
def test_cached_reference_keys_equal_tokenizing_them_again(pairs, tok, order, collide):
    """Statistics against references whose keys :func:`reference_keys` made once equal the Counter twin's, call
    after call (rewritten references, hashed long words with forced collisions, several references per pair)."""
    from vecscore.kernels.pair_bleu import reference_keys

    hyps, refs, (sys_len, ref_len, correct, _), rows, ref_ptr, mode, mask = _case(pairs, tok, order, collide)
    n = len(hyps)
    keys = reference_keys(rows.addrs[n:], rows.lens[n:], mode, mask)
    assert keys is not None
    for _ in range(2):
        lengths, got = pair_bleu_counts(rows.addrs, rows.lens, ref_ptr, mode, order, mask, ref_keys=keys)
        assert lengths[:n].tolist() == sys_len.tolist()
        assert [int(lengths[n + q]) for q in range(len(lengths) - n)] == [len(_tokens(r, tok)) for rs in refs
                                                                         for r in rs]
        assert np.array_equal(got, correct.T)
    with pytest.raises(ValueError, match="ref_keys"):
        pair_bleu_counts(rows.addrs, rows.lens, ref_ptr, (mode + 1) % 3, order, mask, ref_keys=keys)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3), st.integers(1, 6))
def test_cached_reference_keys_of_long_texts(seed, n_refs, order):
    """Pairs past 64 tokens (the hash-table route) against cached reference keys: the Counter twin's counts."""
    from vecscore.kernels.pair_bleu import reference_keys

    rng = np.random.default_rng(seed)
    vocab = np.array(["a", "b", "cc", "abcdefgh", "abcdefghij", "abcdefghijklmnopq", "x.y", "&amp;", "z-1"])

    def text():
        return " ".join(rng.choice(vocab, int(rng.choice([rng.integers(0, 8), rng.integers(60, 200)]))))

    hyps = [text() for _ in range(5)]
    refs = [[text() for _ in range(n_refs)] for _ in hyps]
    sys_len, _, correct, _ = corpus_stats([_tokens(h, "13a") for h in hyps],
                                          [[_tokens(r, "13a") for r in rs] for rs in refs], order)
    rows, ref_ptr, _ = pair_rows(*read(hyps, refs), None)
    keys = reference_keys(rows.addrs[len(hyps):], rows.lens[len(hyps):], 0)
    lengths, got = pair_bleu_counts(rows.addrs, rows.lens, ref_ptr, 0, order, ref_keys=keys)
    assert lengths[: len(hyps)].tolist() == sys_len.tolist() and np.array_equal(got, correct.T)


def test_reference_with_a_word_too_long_for_cached_keys_is_tokenized_per_call():
    """A reference word that R2-R4 would replay in more than WORD_CAP bytes is not cached
    (``reference_keys`` declines), and the references are then read as text on every call: same numbers."""
    from vecscore.bleu.direct import ready_references
    from vecscore.kernels.pair_bleu import WORD_CAP

    refs = ["a.b-" * (WORD_CAP // 4 + 10) + " end", "the cat sat"]
    hyps = ["a.b- end", "the cat"]
    ready = ready_references(refs, "13a")
    assert ready is not None and ready.keys is None
    options = dict(tokenize="13a", lowercase=False, max_order=4, brevity_penalty="closest")
    got = direct_stats(hyps, ready, **options)
    want = direct_stats(*read(hyps, refs), **options)
    assert np.array_equal(got.correct, want.correct) and got.ref_len.tolist() == want.ref_len.tolist()


@pytest.mark.parametrize("tokenize", ["13a", "none", "char", "zh"])
def test_cached_scorer_equals_sacrebleu_call_after_call(monkeypatch, tokenize):
    """``BLEU(references=[refs])`` on the per-pair kernel, references tokenized once: sacreBLEU's corpus and
    sentence scores for every call, with references that are empty, non-ASCII, rewritten by 13a's step 1,
    longer than 64 tokens or made of long (hashed) words, and hypotheses that are empty or whitespace."""
    from vecscore.bleu.metric import BLEU

    monkeypatch.setenv("VECSCORE_ROUTE", "compiled")
    long_ref = " ".join(f"w{i % 37}." for i in range(150))
    refs = ["the cat — is on the mat", "", "naïve café, x-y 3.5", "a &amp; b <skipped> c\nd", long_ref,
            "supercalifragilisticexpialidocious supercalifragilisticexpialidociouz", "中文 测试。", "  ", "e.g. U.S."]
    oracle = sacrebleu.BLEU(tokenize=tokenize, references=[refs])
    scorer = BLEU(tokenize=tokenize, references=[refs])
    systems = [["the cat sat on the mat", "x", "naive café , x - y", "a & b c d", long_ref[:300], refs[5], "中文",
                "", "e.g. U.S"],
               ["", "", "", "", "", "", "", "", ""],
               [r[::-1] for r in refs]]
    for hyps in systems * 2:
        got, want = scorer.corpus_score(hyps), oracle.corpus_score(hyps, None)
        assert (list(got.counts), list(got.totals), got.sys_len, got.ref_len) == \
               (list(want.counts), list(want.totals), want.sys_len, want.ref_len)
        assert abs(got.score - want.score) <= 1e-9
        sent = scorer.sentence_scores(hyps).score
        want_sent = [sacrebleu.BLEU(tokenize=tokenize).sentence_score(h, [r]).score for h, r in zip(hyps, refs)]
        assert np.max(np.abs(np.asarray(sent) - want_sent)) <= 1e-9
    assert scorer._ready and scorer._ready.keys is not None  # prepared once, keys and all


@pytest.mark.parametrize("tokenize", ["13a", "zh"])
def test_systems_sharing_reference_objects_on_the_compiled_route_equal_sacrebleu(monkeypatch, tokenize):
    """``refs * n_systems`` (each reference one object, in several rows) scored on the kernels, three calls in a row:
    every pair's counts and sentence score, and the corpus counts, are sacreBLEU's."""
    monkeypatch.setenv("VECSCORE_ROUTE", "compiled")
    rng = np.random.default_rng(7)
    words = ["the", "cat", "naïve", "café,", "3.5", "&amp;", "x-y", "中文", "测试。", "U.S.", "—",
             "supercalifragilistic"]
    ref = [" ".join(rng.choice(words, int(rng.integers(0, 30)))) for _ in range(128)]
    hyps = [" ".join(rng.choice(words, int(rng.integers(0, 30)))) for _ in range(3 * len(ref))]
    refs = ref * 3
    want = [sacrebleu.sentence_bleu(h, [r], tokenize=tokenize) for h, r in zip(hyps, refs)]
    want_corpus = sacrebleu.corpus_bleu(hyps, [refs], tokenize=tokenize)
    for _ in range(3):
        got = sentence_bleu(hyps, refs, tokenize=tokenize)
        assert np.asarray(got.counts).tolist() == [list(w.counts) for w in want]
        assert np.max(np.abs(np.asarray(got.score) - [w.score for w in want])) <= 1e-9
        corpus = corpus_bleu(hyps, [refs], tokenize=tokenize)
        assert list(corpus.counts) == list(want_corpus.counts) and abs(corpus.score - want_corpus.score) <= 1e-9
