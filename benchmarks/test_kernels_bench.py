"""Kernel-level timings (pytest-benchmark), run apart from the tests:

    python -m pytest benchmarks/ --benchmark-only
"""
from __future__ import annotations

import pytest

from benchmarks.corpus import summary_pairs
from vecscore.engine.batch import build_batch, intern
from vecscore.engine.counts import ngram_counts, overlap
from vecscore.text.tokenizers import tokenize


@pytest.fixture(scope="module")
def corpus():
    hyps, refs = summary_pairs(20_000, seed=1)
    return hyps + refs


@pytest.fixture(scope="module")
def batch():
    hyps, refs = summary_pairs(20_000, seed=1)
    return build_batch(hyps, refs)


def test_tokenize_rouge_score(benchmark, corpus):
    benchmark(tokenize, corpus, "rouge-score")


def test_intern(benchmark, corpus):
    spans = tokenize(corpus, "rouge-score")
    benchmark(intern, spans)


@pytest.mark.parametrize("n", [1, 2])
def test_ngram_counts(benchmark, batch, n):
    benchmark(ngram_counts, batch.texts, n, batch.n_vocab)


def test_clipped_overlap(benchmark, batch):
    c = ngram_counts(batch.texts, 2, batch.n_vocab)
    benchmark(overlap, c, batch.owner, batch.ref_rows)
