"""Per-pair n-gram hits over corpus ids (vecscore.kernels.pair_ngrams) against the
sparse-count route (vecscore.engine.counts) and a Counter twin."""
from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vecscore.engine.batch import Ragged
from vecscore.engine.counts import ngram_counts, overlap
from vecscore.kernels.pair_ngrams import pair_ngram_hits_ids


def _grams(toks, n):
    return Counter(tuple(toks[i : i + n]) for i in range(len(toks) - n + 1))


@st.composite
def batches(draw):
    vocab = draw(st.sampled_from([1, 3, 20, 300]))  # 300: pair vocabularies past the dense bigram range
    tok = st.integers(0, vocab - 1)
    n_pairs = draw(st.integers(1, 5))
    hyps = [draw(st.lists(tok, max_size=draw(st.sampled_from([0, 5, 40, 200])))) for _ in range(n_pairs)]
    refs = [[draw(st.lists(tok, max_size=60)) for _ in range(draw(st.integers(1, 3)))] for _ in range(n_pairs)]
    return vocab, hyps, refs


@settings(max_examples=150, deadline=None, derandomize=True)
@given(batches(), st.sampled_from([(), (1,), (2,), (1, 2), (1, 2, 3), (2, 4)]), st.booleans())
def test_hits_equal_the_twin_and_the_sparse_route(batch, orders, drop_last):
    vocab, hyps, refs = batch
    texts = hyps + [r for rs in refs for r in rs]
    offsets = np.zeros(len(texts) + 1, np.int64)
    np.cumsum([len(t) for t in texts], out=offsets[1:])
    ids = np.array([x for t in texts for x in t], np.int64)
    ref_ptr = np.zeros(len(hyps) + 1, np.int64)
    np.cumsum([len(rs) for rs in refs], out=ref_ptr[1:])
    got = pair_ngram_hits_ids(ids, offsets, len(hyps), ref_ptr, vocab, np.array(orders, np.int64), drop_last)
    assert got.shape == (len(orders) + drop_last, len(texts) - len(hyps))
    owner = np.repeat(np.arange(len(hyps)), [len(rs) for rs in refs])
    for i, n in enumerate(orders):
        want = [sum((_grams(hyps[p], n) & _grams(r, n)).values()) for p, rs in enumerate(refs) for r in rs]
        assert got[i].tolist() == want
        c = ngram_counts(Ragged(ids, offsets), n, vocab)
        assert got[i].tolist() == overlap(c, owner, np.arange(len(hyps), len(texts))).tolist()
    if drop_last:  # ROUGE-1.5.5's ROUGE-SU unigrams: every text without its last token
        want = [sum((_grams(hyps[p][:-1], 1) & _grams(r[:-1], 1)).values()) for p, rs in enumerate(refs) for r in rs]
        assert got[-1].tolist() == want
