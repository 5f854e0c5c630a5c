"""Core kernels against their plain-Python twins: tokenizers, interning, sparse counts."""
from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.reference.rouge_n_py import ngrams
from tests.reference.tokenize_py import (
    char_tokens,
    cjk_tokens,
    intern_first_occurrence,
    rouge_score_tokens,
    whitespace_tokens,
)
from vecscore.engine.batch import Ragged, intern
from vecscore.engine.counts import ngram_counts, overlap
from vecscore.kernels.intern import (
    ASCII_LOWER,
    IDENTITY,
    intern_keys,
    intern_keys_chunked,
    intern_spans_exact,
    spans_match_first,
    token_keys,
)
from vecscore.text.spans import encode_texts
from vecscore.text.tokenizers import tokenize

ALPHABET = st.sampled_from(list("aAbZz09 \t\n\x0b\x1c\u3000\xa0\x85.,-_'é\u0130\u212a武汉ひカ한!\x00") + ["ab", "xyz"])
TEXTS = st.lists(st.lists(ALPHABET, max_size=30).map("".join), min_size=1, max_size=8)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(TEXTS)
def test_builtin_tokenizers_match_twins(texts):
    for name, twin in [("rouge-score", rouge_score_tokens), ("whitespace", whitespace_tokens),
                       ("char", char_tokens), ("cjk", cjk_tokens)]:
        spans = tokenize(texts, name)
        got = [[t.lower() if name == "rouge-score" else t for t in spans.token_strings(i)] for i in range(len(texts))]
        assert got == [twin(t) for t in texts], name


def test_rouge_score_tokenizer_matches_rouge_score_itself():
    tokenize_mod = pytest.importorskip("rouge_score.tokenize")
    texts = ["Café naïve résumé", "\u212aelvin İstanbul ǅ", "state-of-the-art U.S. 3.5% e-mail", "ÀÉÎ ÕÜ x",
             "ⅫⅣ ¹²³", "ﬁne ﬂow"]
    for t in texts:
        spans = tokenize([t], "rouge-score")
        assert [s.lower() for s in spans.token_strings(0)] == tokenize_mod.tokenize(t, None), t


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.text(alphabet="abcAB9é武", min_size=0, max_size=12), max_size=200))
def test_interning_is_first_occurrence_order(tokens):
    spans = tokenize([" ".join(tokens)], "whitespace")
    ids, first = intern(spans)
    words = spans.token_strings(0)
    assert ids.tolist() == intern_first_occurrence(words)
    assert [words[i] for i in first] == list(dict.fromkeys(words))


def test_interning_large_vocabulary_and_long_tokens_across_chunks():
    rng = np.random.default_rng(3)
    words = ["".join(rng.choice(list("abcdefghij"), rng.integers(1, 20))) for _ in range(300_000)]
    spans = tokenize([" ".join(words)], "whitespace")
    expected = intern_first_occurrence(words)
    for threads in (1, 2):
        old = numba.get_num_threads()
        try:
            numba.set_num_threads(threads)
            ids, _ = intern(spans)
        finally:
            numba.set_num_threads(old)
        assert ids.tolist() == expected
    from vecscore.kernels.intern import hash_spans

    exact, _ = intern_spans_exact(spans.buf, spans.starts, spans.ends,
                                  hash_spans(spans.buf, spans.starts, spans.ends, IDENTITY), IDENTITY, 3)
    assert exact.tolist() == expected


def test_exact_fallback_interner_compares_bytes():
    # every hash equal: each lookup walks the probe chain comparing bytes, and still gets it right
    rng = np.random.default_rng(4)
    words = ["".join(rng.choice(list("abcdefghij"), rng.integers(1, 12))) for _ in range(3_000)]
    spans = tokenize([" ".join(words)], "whitespace")
    exact, first = intern_spans_exact(spans.buf, spans.starts, spans.ends, np.zeros(len(spans.starts), np.uint64),
                                      IDENTITY, 3)
    assert exact.tolist() == intern_first_occurrence(words)
    assert [words[i] for i in first] == list(dict.fromkeys(words))


def test_key_collision_between_long_tokens_is_detected():
    spans = tokenize(["averylongtoken anotherlongtoken averylongtoken"], "whitespace")
    keys = token_keys(spans.buf, spans.starts, spans.ends, IDENTITY)
    keys[1] = keys[0]  # force a collision between two different long tokens
    ids, first = intern_keys_chunked(keys, 1)
    assert not spans_match_first(spans.buf, spans.starts, spans.ends, IDENTITY, ids, first)
    keys = token_keys(spans.buf, spans.starts, spans.ends, IDENTITY)
    ids, first = intern_keys_chunked(keys, 1)
    assert spans_match_first(spans.buf, spans.starts, spans.ends, IDENTITY, ids, first)


@pytest.mark.parametrize(("a", "b", "fold_name", "same"), [
    ("longtokenabcd", "longtokenabce", "identity", False),   # differ in the last byte (masked word)
    ("xongtokenabcd", "longtokenabcd", "identity", False),   # differ in the first word
    ("LongTokenABCD", "longtokenabcd", "lower", True),       # equal once folded
    ("LongTokenABCD", "longtokenabcd", "identity", False),
    ("long\xe9tokenab", "long\xc9tokenab", "lower", False),  # non-ASCII bytes are not folded
])
def test_long_token_confirmation_compares_folded_bytes(a, b, fold_name, same):
    fold = {"identity": IDENTITY, "lower": ASCII_LOWER}[fold_name]
    spans = tokenize([f"{a} {b}"], "whitespace")  # b ends the buffer
    keys = token_keys(spans.buf, spans.starts, spans.ends, fold)
    keys[1] = keys[0]  # the same key, as after a hash collision
    ids, first = intern_keys_chunked(keys, 1)
    assert bool(spans_match_first(spans.buf, spans.starts, spans.ends, fold, ids, first)) is same


def test_short_token_keys_are_exact_and_case_folded():
    spans = tokenize(["Ab ab AB a b ab0 abcdefg abcdefgh"], "rouge-score")
    keys = token_keys(spans.buf, spans.starts, spans.ends, ASCII_LOWER)
    assert keys[0] == keys[1] == keys[2] and len(set(keys[3:].tolist())) == 5


@pytest.mark.parametrize("fold_name", ["identity", "lower", "other"])
def test_token_keys_word_reads_equal_the_byte_definition(fold_name):
    # short tokens: their folded bytes packed with the length; long ones: equal folded strings, equal
    # keys (anywhere in the buffer, the last bytes included), and different strings, different keys
    other = IDENTITY.copy()
    other[ord("x")] = ord("y")
    fold = {"identity": IDENTITY, "lower": ASCII_LOWER, "other": other}[fold_name]
    rng = np.random.default_rng(11)
    alphabet = list("aAbBzZxy09é@[`{")
    words = ["".join(rng.choice(alphabet, rng.integers(1, 20))) for _ in range(3_000)]
    words += words[:50]  # repeats, the last of them at the very end of the buffer
    spans = tokenize([" ".join(words)], "whitespace")
    keys = token_keys(spans.buf, spans.starts, spans.ends, fold)
    raw = spans.buf.tobytes()
    folded = [bytes(fold[b] for b in raw[s:e]) for s, e in zip(spans.starts.tolist(), spans.ends.tolist())]
    by_string = {}
    for word, key in zip(folded, keys.tolist()):
        if len(word) <= 7:
            assert key == int.from_bytes(word, "little") | (len(word) << 56)
        else:
            assert key < 0  # bit 63 marks a hash
            assert by_string.setdefault(word, key) == key
    assert len(set(by_string.values())) == len(by_string)


def test_intern_keys_chunked_equals_serial():
    rng = np.random.default_rng(0)
    keys = (rng.zipf(1.2, 500_000) % 70_000).astype(np.int64)
    ids, first = intern_keys(keys)
    for chunks in (1, 2, 7):
        cid, cfirst = intern_keys_chunked(keys, chunks)
        np.testing.assert_array_equal(cid, ids)
        np.testing.assert_array_equal(cfirst, first)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.lists(st.integers(0, 6), max_size=15), min_size=2, max_size=8), st.integers(1, 4))
def test_sparse_counts_match_counter_and_scipy(rows, n):
    ids = np.array([t for r in rows for t in r], dtype=np.int64)
    offsets = np.zeros(len(rows) + 1, np.int64)
    np.cumsum([len(r) for r in rows], out=offsets[1:])
    c = ngram_counts(Ragged(ids, offsets), n, 7)
    for i, r in enumerate(rows):
        lo, hi = c.indptr[i], c.indptr[i + 1]
        assert sorted(c.counts[lo:hi].tolist()) == sorted(ngrams(r, n).values())
        assert c.totals[i] == max(len(r) - n + 1, 0)
    a = np.arange(len(rows) - 1, dtype=np.int64)
    b = a + 1
    hits = overlap(c, a, b)
    m = c.to_scipy()
    via_scipy = np.asarray(m[a].minimum(m[b]).sum(axis=1)).ravel()
    np.testing.assert_array_equal(hits, via_scipy)
    for k in range(len(a)):
        ga, gb = ngrams(rows[a[k]], n), ngrams(rows[b[k]], n)
        assert hits[k] == sum(min(v, gb[g]) for g, v in ga.items())


def test_encode_texts_round_trips_non_ascii():
    texts = ["", "a", "é武\x00x", "\U0001F600"]
    buf, off = encode_texts(texts)
    b = buf.tobytes()
    assert [b[off[i] : off[i + 1]].decode() for i in range(len(texts))] == texts
