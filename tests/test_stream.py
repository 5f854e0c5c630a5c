"""Chunked scoring: bit-identical for any chunk size and thread count; exact sums; numba threads restored."""
from __future__ import annotations

from fractions import Fraction

import numba
import numpy as np
import pytest

from vecscore import rouge
from vecscore.bleu.api import corpus_bleu, sentence_bleu
from vecscore.errors import VecscoreError
from vecscore.io.stream import (
    BleuSpec,
    CorpusAccumulator,
    ExactSum,
    Rouge155Spec,
    RougeSpec,
    iter_scores,
    make_spec,
    score_corpus,
)
from vecscore.parallel import numba_threads, resolve_workers

WORDS = "the a cat dog sat on mat rug and with big small red . , quickly ran home".split()


def _pairs(n, seed=0, max_refs=1):
    rng = np.random.default_rng(seed)

    def text():
        sents = []
        for _ in range(rng.integers(1, 3)):
            sents.append(" ".join(rng.choice(WORDS, size=rng.integers(0, 12))))
        return "\n".join(sents)

    hyps = [text() for _ in range(n)]
    if max_refs == 1:
        return hyps, [text() for _ in range(n)]
    return hyps, [[text() for _ in range(rng.integers(1, max_refs + 1))] for _ in range(n)]


HYPS, REFS = _pairs(120, seed=1)
MHYPS, MREFS = _pairs(90, seed=2, max_refs=3)
SPECS = {
    "rouge": (RougeSpec(("rouge1", "rouge2", "rougeL", "rougeLsum", "rougeW"), {"stemmer": True}), HYPS, REFS),
    "rouge-pooled-multi": (RougeSpec(("rouge1", "rougeL", "rougeW-1.5"), {"multi_ref": "pooled", "alpha": 0.3}),
                           MHYPS, MREFS),
    "rouge-jackknife": (RougeSpec(("rouge2", "rougeLsum"), {"multi_ref": "jackknife"}), MHYPS, MREFS),
    "rouge155": (Rouge155Spec(("rouge1", "rougeL", "rougeW-1.2", "rougeS4", "rougeSU*"), {"stemmer": True}),
                 MHYPS, MREFS),
    "bleu": (BleuSpec({"tokenize": "13a"}), MHYPS, MREFS),
    "sentence-bleu": (BleuSpec({"smooth_method": "floor"}, sentence=True), HYPS, REFS),
    "combined": (make_spec(["rouge1", "bleu"]), HYPS, REFS),
}


def _collect(spec, hyps, refs, chunk_size, workers=None):
    chunks = list(iter_scores(hyps, refs, spec, chunk_size=chunk_size, workers=workers))
    columns = {k: np.concatenate([c.columns[k] for c in chunks]) for k in chunks[0].columns}
    stats = {k: np.concatenate([c.stats[k] for c in chunks]) for k in chunks[0].stats}
    acc = CorpusAccumulator(spec)
    for c in chunks:
        acc.add(c)
    return columns, stats, acc.summary()


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name", list(SPECS))
def test_identical_for_any_chunk_size_and_thread_count(name):
    spec, hyps, refs = SPECS[name]
    base_cols, base_stats, base_summary = _collect(spec, hyps, refs, len(hyps), workers=1)
    for chunk_size, workers in [(1, 2), (7, 1), (7, 2), (50, 2), (len(hyps) + 5, 2)]:
        cols, stats, summary = _collect(spec, hyps, refs, chunk_size, workers=workers)
        assert cols.keys() == base_cols.keys() and stats.keys() == base_stats.keys()
        assert all(_same_bits(cols[k], base_cols[k]) for k in cols), (name, chunk_size, workers)
        assert all(_same_bits(stats[k], base_stats[k]) for k in stats), (name, chunk_size, workers)
        assert summary == base_summary, (name, chunk_size, workers)  # float == is bit equality here (no NaN)


@pytest.mark.filterwarnings("ignore")
def test_columns_equal_the_library_and_means_are_exact():
    metrics = ["rouge1", "rougeL", "rougeLsum"]
    cols, stats, summary = _collect(RougeSpec(tuple(metrics)), HYPS, REFS, 13)
    direct = rouge(HYPS, REFS, metrics=metrics)
    for m in metrics:
        for field in ("precision", "recall", "fmeasure"):
            ours = cols[f"{m}_{field}"]
            assert _same_bits(ours, getattr(direct[m], field))
            exact = sum(Fraction(float(x)) for x in ours) / len(ours)
            assert summary[m][field] == float(exact)
        assert stats[f"{m}_hits"].dtype == np.int64
        assert summary["micro"][m] == direct.micro()[m]._asdict()
    assert summary["n_pairs"] == len(HYPS) and summary["signature"] == direct.signature


def test_corpus_bleu_from_summed_statistics_equals_corpus_bleu():
    import sacrebleu

    spec = BleuSpec({})
    _, stats, summary = _collect(spec, MHYPS, MREFS, 11)
    direct = corpus_bleu(MHYPS, MREFS)
    assert summary["score"] == direct.score and summary["counts"] == direct.counts.tolist()
    assert summary["signature"] == direct.signature and "nrefs:var" in summary["signature"]
    assert stats["bleu_correct_1"].dtype == np.int64
    streams = [[r[k] if k < len(r) else None for r in MREFS] for k in range(3)]
    assert summary["score"] == pytest.approx(sacrebleu.corpus_bleu(MHYPS, streams).score, abs=1e-9)


def test_sentence_bleu_column_and_mean():
    cols, _, summary = _collect(BleuSpec({}, sentence=True), HYPS, REFS, 9)
    direct = sentence_bleu(HYPS, REFS)
    assert _same_bits(cols["bleu_score"], np.asarray(direct.score, np.float64))
    assert summary["sentence_score_mean"] == float(sum(Fraction(float(x)) for x in direct.score) / len(HYPS))


def test_generators_are_read_lazily_and_mismatch_is_an_error():
    spec = RougeSpec(("rouge1",))
    consumed = []

    def gen():
        for h in HYPS[:10]:
            consumed.append(h)
            yield h

    it = iter_scores(gen(), iter(REFS[:10]), spec, chunk_size=4)
    first = next(it)
    assert first.n == 4 and len(consumed) == 4
    with pytest.raises(VecscoreError, match="more hypotheses than references"):
        list(iter_scores(HYPS[:5], REFS[:4], spec, chunk_size=2))
    with pytest.raises(VecscoreError, match="chunk_size"):
        list(iter_scores(HYPS, REFS, spec, chunk_size=0))


def test_empty_input():
    assert score_corpus([], [], RougeSpec(("rouge1",)))["n_pairs"] == 0


# --- exact summation -------------------------------------------------------------------------


def test_exact_sum_matches_fractions_in_any_grouping():
    rng = np.random.default_rng(5)
    x = rng.random(3000) * 10.0 ** rng.integers(-300, 300, 3000) * rng.choice([-1.0, 1.0], 3000)
    x = np.concatenate([x, [5e-324, -5e-324, 2.2250738585072014e-308, 0.0, -0.0, 1e308, 1e308, -1e308]])
    exact = sum(Fraction(float(v)) for v in x)
    for cut in (1, 17, 1000, len(x)):
        total = ExactSum()
        for i in range(0, len(x), cut):
            part = ExactSum()
            part.add(x[i : i + cut])
            total.merge(part)
        assert total.value() == float(exact)
        assert total.mean() == float(exact / len(x))


def test_exact_sum_beats_naive_summation_and_handles_nan():
    s = ExactSum()
    s.add([1e16, 1.0, -1e16])
    assert s.value() == 1.0  # naive left-to-right summation gives 0.0
    s.add([float("inf")])
    assert s.value() == float("inf")
    s.add([float("nan")])
    assert np.isnan(s.value())


# --- threads -----------------------------------------------------------------------------


def test_numba_threads_sets_and_restores_even_on_error():
    before = numba.get_num_threads()
    with numba_threads(1) as n:
        assert n == 1 and numba.get_num_threads() == 1
    assert numba.get_num_threads() == before
    with pytest.raises(RuntimeError):
        with numba_threads(1):
            raise RuntimeError("boom")
    assert numba.get_num_threads() == before
    spec = RougeSpec(("rouge1",))
    with pytest.raises(VecscoreError):
        list(iter_scores(HYPS[:4], [None] * 4, spec, workers=1))  # fails inside the block
    assert numba.get_num_threads() == before


@pytest.mark.parametrize("bad", [0.5, "2", True, numba.config.NUMBA_NUM_THREADS + 1, -2])
def test_numba_threads_validates(bad):
    before = numba.get_num_threads()
    with pytest.raises(VecscoreError, match="workers"):
        with numba_threads(bad):
            pass
    assert numba.get_num_threads() == before


def test_resolve_workers():
    assert resolve_workers(None) is None
    assert resolve_workers(-1) == numba.config.NUMBA_NUM_THREADS
    assert resolve_workers(np.int64(1)) == 1


def test_library_calls_take_workers_and_restore_the_thread_count():
    import numba

    import vecscore

    hyps = ["the cat sat on the mat", "a b c d"] * 50
    refs = ["the cat is on the mat", "a b x d"] * 50
    before = numba.get_num_threads()
    one = vecscore.rouge(hyps, refs, metrics=["rouge1", "rougeL"], workers=1)
    two = vecscore.rouge(hyps, refs, metrics=["rouge1", "rougeL"], workers=2)
    assert numba.get_num_threads() == before
    np.testing.assert_array_equal(one["rougeL"].fmeasure, two["rougeL"].fmeasure)
    assert vecscore.corpus_bleu(hyps, refs, workers=1).score == vecscore.corpus_bleu(hyps, refs, workers=2).score
    with pytest.raises(vecscore.VecscoreError):
        vecscore.rouge(hyps, refs[:3], workers=1)  # an error inside the call
    assert numba.get_num_threads() == before
    with pytest.raises(vecscore.VecscoreError, match="workers"):
        vecscore.rouge(hyps, refs, workers=0.5)
