"""Skip-bigram kernels against the plain-Python twin of the script's createSkipBigram."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.reference.skipgrams_py import skip_bigram_hits, skip_bigrams
from vecscore.errors import VecscoreError
from vecscore.kernels.pair_skipgrams import pair_skip_bigram_hits
from vecscore.kernels.skipgrams import (
    UNI_ALL,
    UNI_NONE,
    UNI_PERL,
    skip_bigram_keys,
    skip_bigram_overlap,
    skip_bigram_totals,
)

MODES = {UNI_NONE: "none", UNI_PERL: "perl", UNI_ALL: "all"}


def _ragged(rows):
    off = np.zeros(len(rows) + 1, np.int64)
    np.cumsum([len(r) for r in rows], out=off[1:])
    ids = np.array([t for r in rows for t in r], np.int64)
    return ids, off


rows_st = st.lists(st.lists(st.integers(0, 5), max_size=14), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None)
@given(rows=rows_st, gap=st.integers(-1, 5), uni=st.sampled_from([UNI_NONE, UNI_PERL, UNI_ALL]))
def test_keys_and_totals_match_twin(rows, gap, uni):
    ids, off = _ragged(rows)
    keys, koff = skip_bigram_keys(ids, off, np.arange(len(rows)), gap, uni)
    for i, r in enumerate(rows):
        twin = skip_bigrams(r, gap, MODES[uni])
        assert koff[i + 1] - koff[i] == sum(twin.values()) == skip_bigram_totals([len(r)], gap, uni)[0]
        decoded = [((int(k) >> 31) - 1, int(k) & ((1 << 31) - 1)) if k >> 31 else (int(k),)
                   for k in keys[koff[i]:koff[i + 1]]]
        assert sorted(decoded) == sorted(twin.elements())


@settings(max_examples=150, deadline=None)
@given(hyps=rows_st, data=st.data(), gap=st.integers(-1, 4), uni=st.sampled_from([UNI_NONE, UNI_PERL, UNI_ALL]),
       budget=st.sampled_from([1, 7, 1 << 22]))
def test_overlap_matches_twin_and_is_chunk_invariant(hyps, data, gap, uni, budget):
    nrefs = [data.draw(st.integers(1, 3)) for _ in hyps]
    refs = [data.draw(st.lists(st.integers(0, 5), max_size=14)) for _ in range(sum(nrefs))]
    ids, off = _ragged(hyps + refs)
    ptr = np.concatenate([[0], np.cumsum(nrefs)]).astype(np.int64)
    hits, nh, nr = skip_bigram_overlap(ids, off, len(hyps), ptr, gap, uni, max_keys=budget)
    owner = np.repeat(np.arange(len(hyps)), nrefs)
    for q, r in enumerate(refs):
        h, th, tr = skip_bigram_hits(hyps[owner[q]], r, gap, MODES[uni])
        assert (hits[q], nh[owner[q]], nr[q]) == (h, th, tr)


def test_unlimited_gap_on_a_long_text_in_small_chunks():
    rng = np.random.default_rng(0)
    hyp = rng.integers(0, 50, 1500).tolist()
    ref = rng.integers(0, 50, 1200).tolist()
    ids, off = _ragged([hyp, ref])
    hits, nh, nr = skip_bigram_overlap(ids, off, 1, np.array([0, 1]), -1, UNI_NONE, max_keys=1000)
    assert nh[0] == 1500 * 1499 // 2 and nr[0] == 1200 * 1199 // 2
    assert hits[0] == skip_bigram_hits(hyp, ref, -1)[0]


def test_validation():
    with pytest.raises(VecscoreError, match="unigrams"):
        skip_bigram_keys(np.array([0]), np.array([0, 1]), np.array([0]), 2, 5)
    with pytest.raises(VecscoreError, match="dense token ids"):
        skip_bigram_keys(np.array([-1]), np.array([0, 1]), np.array([0]), 2, UNI_NONE)


@settings(max_examples=150, deadline=None)
@given(hyps=st.lists(st.lists(st.integers(0, 400), max_size=40), min_size=1, max_size=5), data=st.data(),
       gap=st.integers(-1, 4), uni=st.sampled_from([UNI_NONE, UNI_PERL, UNI_ALL]), vocab=st.sampled_from([6, 401]))
def test_per_pair_kernel_matches_twin(hyps, data, gap, uni, vocab):
    # vocab 401: pairs with more than 255 distinct tokens number their units through the hash table
    hyps = [[t % vocab for t in h] for h in hyps]
    nrefs = [data.draw(st.integers(1, 3)) for _ in hyps]
    refs = [[t % vocab for t in data.draw(st.lists(st.integers(0, 400), max_size=40))] for _ in range(sum(nrefs))]
    ids, off = _ragged(hyps + refs)
    ptr = np.concatenate([[0], np.cumsum(nrefs)]).astype(np.int64)
    totals = skip_bigram_totals(np.diff(off), gap, uni)
    hits = pair_skip_bigram_hits(ids, off, len(hyps), ptr, vocab, gap, uni, totals)
    owner = np.repeat(np.arange(len(hyps)), nrefs)
    for q, r in enumerate(refs):
        assert hits[q] == skip_bigram_hits(hyps[owner[q]], r, gap, MODES[uni])[0]


def test_per_pair_kernel_hash_route_on_a_large_vocabulary():
    rng = np.random.default_rng(5)
    rows = [rng.integers(0, 3000, rng.integers(200, 400)).tolist() for _ in range(6)]
    ids, off = _ragged(rows)
    ptr = np.array([0, 2, 4], np.int64)  # two pairs, two references each
    for gap, uni in ((4, UNI_PERL), (-1, UNI_ALL)):
        totals = skip_bigram_totals(np.diff(off), gap, uni)
        hits = pair_skip_bigram_hits(ids, off, 2, ptr, 3000, gap, uni, totals)
        want, _, _ = skip_bigram_overlap(ids, off, 2, ptr, gap, uni)
        assert np.array_equal(hits, want) and hits.sum() > 0
