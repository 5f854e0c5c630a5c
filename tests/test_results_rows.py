"""Results that keep their rows and serialize.

* ``to_pandas()`` carries the index of the pandas Series the hypotheses came from, so ``df.join`` after a filter
  (or a shuffle) puts each score on its own row; the expected scores come from the oracles (rouge-score,
  pycocoevalcap) run row by row on the filtered frame and joined by label by hand;
* ``to_pandas(index=...)`` sets the labels, and a wrong length is a VecscoreError;
* ``to_arrow()`` / ``to_polars()`` hold the same columns as ``to_pandas()``;
* ``json.dumps(x.to_dict())`` works for every result type, and the values are plain Python (not NumPy scalars)
  equal to the oracle's or to the object's own attributes.

Data: the E2E NLG Challenge test set (``shared_data``), its first system's outputs and references.
"""
from __future__ import annotations

import json
import math
import sys

import numpy as np
import pytest

import vecscore
from tests.conftest import e2e_nlg
from vecscore.errors import VecscoreError
from vecscore.frames import row_index

pd = pytest.importorskip("pandas")
rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")

N_ITEMS = 150
METRICS = ["rouge1", "rouge2", "rougeL"]


@pytest.fixture(autouse=True)
def plain_route(monkeypatch):
    """NumPy only: these tests are about the result objects, which both routes fill with the same numbers (tested
    elsewhere); no kernel is compiled for them."""
    monkeypatch.setenv("VECSCORE_ROUTE", "plain")


def _assert_plain(value, path="value"):
    """Only JSON's own Python types (a NumPy float64 passes json.dumps as a float subclass; it is refused here)."""
    if value is None or type(value) in (int, float, str, bool):
        return
    if type(value) is list:
        for i, v in enumerate(value):
            _assert_plain(v, f"{path}[{i}]")
        return
    if type(value) is dict:
        for k, v in value.items():
            assert type(k) is str, f"{path} has key {k!r}"
            _assert_plain(v, f"{path}[{k!r}]")
        return
    raise AssertionError(f"{path} is a {type(value).__module__}.{type(value).__name__}, not a plain Python value")


def _round_trip(obj) -> dict:
    d = obj.to_dict()
    _assert_plain(d)
    assert json.loads(json.dumps(d)) == d
    return d


@pytest.fixture(scope="module")
def frame(shared_data):
    """E2E outputs with string labels, filtered to the longer outputs and shuffled: the labels are neither a
    RangeIndex nor in order."""
    refs, systems = e2e_nlg(shared_data)
    hyps = next(iter(systems.values()))[:N_ITEMS]
    df = pd.DataFrame({"hyp": hyps, "ref": [r[0] for r in refs[:N_ITEMS]], "refs": refs[:N_ITEMS]},
                      index=[f"mr{i:03d}" for i in range(N_ITEMS)])
    kept = df[df.hyp.str.split().str.len() > 20].sample(frac=1.0, random_state=3)
    assert 10 < len(kept) < N_ITEMS - 10  # the filter drops rows on both sides
    return kept


@pytest.fixture(scope="module")
def oracle():
    return rouge_scorer.RougeScorer(METRICS)


def _expected_by_label(df, oracle, multi=False) -> dict:
    if multi:
        return {label: oracle.score_multi(row.refs, row.hyp) for label, row in df.iterrows()}
    return {label: oracle.score(row.ref, row.hyp) for label, row in df.iterrows()}


def _check_joined(joined, expected: dict) -> None:
    assert len(joined) == len(expected)
    for label, scores in expected.items():
        for m in METRICS:
            for field in ("precision", "recall", "fmeasure"):
                got = joined.loc[label, f"{m}_{field}"]
                assert abs(got - getattr(scores[m], field)) <= 1e-12, (label, m, field)


def test_rouge_to_pandas_joins_back_after_a_filter(frame, oracle):
    result = vecscore.rouge(frame.hyp, frame.ref, metrics=METRICS)
    out = result.to_pandas()
    assert out.index.equals(frame.index)
    _check_joined(frame.join(out), _expected_by_label(frame, oracle))


def test_rouge_multi_reference_column_joins_back(frame, oracle):
    result = vecscore.rouge(frame.hyp, list(frame.refs), metrics=METRICS)  # refs as a list: the hyps carry the index
    _check_joined(frame.join(result.to_pandas()), _expected_by_label(frame, oracle, multi=True))


def test_rouge_scorer_batch_methods_keep_the_predictions_index(frame, oracle):
    scorer = vecscore.RougeScorer(METRICS)
    _check_joined(frame.join(scorer.score_batch(frame.ref, frame.hyp).to_pandas()), _expected_by_label(frame, oracle))
    multi = scorer.score_multi_batch(frame.refs, frame.hyp).to_pandas()
    _check_joined(frame.join(multi), _expected_by_label(frame, oracle, multi=True))


@pytest.mark.parametrize("score", ["rouge155", "rouge_weighted"])
def test_other_rouge_functions_keep_the_index(frame, score):
    result = getattr(vecscore, score)(frame.hyp, frame.ref, metrics=["rouge1"])
    out = result.to_pandas()
    assert out.index.equals(frame.index)
    np.testing.assert_array_equal(out["rouge1_fmeasure"].to_numpy(), result["rouge1"].fmeasure)


def test_inputs_without_an_index_give_a_range_index(frame):
    for hyps in (list(frame.hyp), np.array(list(frame.hyp), dtype=object)):
        out = vecscore.rouge(hyps, list(frame.ref), metrics=["rouge1"]).to_pandas()
        assert isinstance(out.index, pd.RangeIndex) and list(out.index) == list(range(len(frame)))


def test_row_index_reads_only_pandas_series():
    s = pd.Series(["a", "b"], index=[7, 3])
    assert list(row_index(s)) == [7, 3]
    assert row_index(["a", "b"]) is None
    assert row_index(np.array(["a", "b"])) is None
    assert row_index(pd.Index(["a", "b"])) is None
    pa = pytest.importorskip("pyarrow")
    assert row_index(pa.array(["a", "b"])) is None
    pl = pytest.importorskip("polars")
    assert row_index(pl.Series(["a", "b"])) is None


def test_index_argument_sets_the_labels_and_is_checked(frame, oracle):
    hyps, refs = list(frame.hyp), list(frame.ref)
    result = vecscore.rouge(hyps, refs, metrics=METRICS)
    _check_joined(frame.join(result.to_pandas(index=frame.index)), _expected_by_label(frame, oracle))
    labels = [f"row-{i}" for i in range(len(hyps))]
    assert list(result.to_pandas(index=labels).index) == labels
    kept = vecscore.rouge(frame.hyp, frame.ref, metrics=METRICS)
    assert list(kept.to_pandas(index=labels).index) == labels  # index= wins over the Series' labels
    with pytest.raises(VecscoreError, match=rf"index has {len(hyps) - 1} labels but the result has {len(hyps)} rows"):
        result.to_pandas(index=labels[:-1])
    with pytest.raises(VecscoreError, match="index must be a sequence of row labels"):
        result.to_pandas(index="hyp")


def test_arrow_and_polars_columns_equal_pandas(frame):
    pytest.importorskip("pyarrow")
    pytest.importorskip("polars")
    result = vecscore.rouge(frame.hyp, frame.ref, metrics=METRICS)
    pdf = result.to_pandas()
    table = result.to_arrow()
    pldf = result.to_polars()
    assert table.column_names == list(pdf.columns) == pldf.columns
    for name in pdf.columns:
        want = pdf[name].to_numpy()
        np.testing.assert_array_equal(table.column(name).to_numpy(), want)
        np.testing.assert_array_equal(pldf[name].to_numpy(), want)


@pytest.mark.parametrize("package, method", [("pyarrow", "to_arrow"), ("polars", "to_polars")])
def test_missing_table_library_names_the_package(monkeypatch, package, method):
    result = vecscore.rouge(["a b"], ["a c"], metrics=["rouge1"])
    monkeypatch.setitem(sys.modules, package, None)  # import raises ImportError
    with pytest.raises(VecscoreError, match=f"pip install {package}"):
        getattr(result, method)()


# --- coco-caption ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def coco_oracle(frame):
    bleu = pytest.importorskip("pycocoevalcap.bleu.bleu")
    rouge = pytest.importorskip("pycocoevalcap.rouge.rouge")
    cider = pytest.importorskip("pycocoevalcap.cider.cider")
    gts = {i: list(r) for i, r in enumerate(frame.refs)}
    res = {i: [h] for i, h in enumerate(frame.hyp)}
    labels = list(frame.index)
    b_corpus, b_items = bleu.Bleu(4).compute_score(gts, res, verbose=0)
    r_corpus, r_items = rouge.Rouge().compute_score(gts, res)
    c_corpus, c_items = cider.Cider().compute_score(gts, res)
    return {
        "bleu": (b_corpus, {lab: [b_items[k][i] for k in range(4)] for i, lab in enumerate(labels)}),
        "ROUGE_L": (r_corpus, dict(zip(labels, r_items))),
        "CIDEr": (c_corpus, dict(zip(labels, c_items))),
    }


def test_coco_per_item_scores_join_back(frame, coco_oracle):
    from vecscore.coco import cider_d, coco_bleu, coco_rouge_l

    refs = list(frame.refs)
    for name, fn in (("ROUGE_L", coco_rouge_l), ("CIDEr", cider_d)):
        joined = frame.join(fn(frame.hyp, refs).to_pandas())
        for label, want in coco_oracle[name][1].items():
            assert abs(joined.loc[label, name] - want) <= 1e-12, (name, label)
    joined = frame.join(coco_bleu(frame.hyp, refs).to_pandas())
    for label, want in coco_oracle["bleu"][1].items():
        for k in range(4):
            assert abs(joined.loc[label, f"Bleu_{k + 1}"] - want[k]) <= 1e-12, (label, k)


def test_coco_tables_and_dicts(frame, coco_oracle):
    pytest.importorskip("pyarrow")
    pytest.importorskip("polars")
    from vecscore.coco import coco_bleu, coco_rouge_l

    refs = list(frame.refs)
    bleu = coco_bleu(frame.hyp, refs)
    d = _round_trip(bleu)
    b_corpus, b_items = coco_oracle["bleu"]
    for k in range(4):
        assert abs(d[f"Bleu_{k + 1}"] - b_corpus[k]) <= 1e-12
    for row, label in zip(d["per_item"], frame.index):
        assert max(abs(a - b) for a, b in zip(row, b_items[label])) <= 1e-12
    rl = coco_rouge_l(frame.hyp, refs)
    d = _round_trip(rl)
    assert abs(d["score"] - coco_oracle["ROUGE_L"][0]) <= 1e-12
    assert d["per_item"] == [float(x) for x in rl.per_item]
    for obj in (bleu, rl):
        pdf = obj.to_pandas()
        assert obj.to_arrow().column_names == list(pdf.columns) == obj.to_polars().columns
        for name in pdf.columns:
            np.testing.assert_array_equal(obj.to_arrow().column(name).to_numpy(), pdf[name].to_numpy())
            np.testing.assert_array_equal(obj.to_polars()[name].to_numpy(), pdf[name].to_numpy())
    with pytest.raises(VecscoreError, match="index has 1 labels"):
        rl.to_pandas(index=["x"])


# --- to_dict of every result type ------------------------------------------------------------------------


def test_rouge_result_and_score_to_dict(frame, oracle):
    result = vecscore.rouge(frame.hyp, frame.ref, metrics=METRICS)
    d = _round_trip(result)
    expected = _expected_by_label(frame, oracle)
    for i, label in enumerate(frame.index):
        for m in METRICS:
            for field in ("precision", "recall", "fmeasure"):
                assert abs(d[m][field][i] - getattr(expected[label][m], field)) <= 1e-12
    scorer = vecscore.RougeScorer(METRICS)
    row = frame.iloc[0]
    one = scorer.score(row.ref, row.hyp)["rouge2"]
    assert _round_trip(one) == {"precision": expected[frame.index[0]]["rouge2"].precision,
                                "recall": expected[frame.index[0]]["rouge2"].recall,
                                "fmeasure": expected[frame.index[0]]["rouge2"].fmeasure}
    means = result.mean()["rougeL"]
    assert _round_trip(means) == {"precision": means.precision, "recall": means.recall, "fmeasure": means.fmeasure}


def test_rouge_bootstrap_to_dict_equals_rouge_score(frame):
    scoring = pytest.importorskip("rouge_score.scoring")
    from vecscore.significance import rouge_bootstrap

    result = vecscore.rouge(frame.hyp, frame.ref, metrics=METRICS)
    state = np.random.get_state()
    try:
        np.random.seed(11)
        d = _round_trip(rouge_bootstrap(result, n_samples=200))
        np.random.seed(11)
        agg = scoring.BootstrapAggregator(n_samples=200)
        for i in range(result.n_pairs):
            agg.add_scores({m: scoring.Score(*(float(x[i]) for x in result[m])) for m in METRICS})
        want = agg.aggregate()
    finally:
        np.random.set_state(state)
    assert d["n_samples"] == 200 and d["confidence"] == 0.95
    for m in METRICS:
        for bound in ("low", "mid", "high"):
            assert d["intervals"][m][bound] == getattr(want[m], bound)._asdict(), (m, bound)


def test_perl_intervals_to_dict(frame):
    from vecscore.significance import perl_intervals

    intervals = perl_intervals(vecscore.rouge155(frame.hyp, frame.ref, metrics=["rouge1", "rougeL"]), n_samples=50)
    for name, iv in intervals.items():
        d = _round_trip(iv)
        for part in ("average", "low", "high"):
            assert d[part] == getattr(iv, part)._asdict(), (name, part)


def test_confidence_interval_to_dict_equals_sacrebleu(frame, monkeypatch):
    sacrebleu = pytest.importorskip("sacrebleu")
    from vecscore.significance import confidence_interval

    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    hyps, refs = list(frame.hyp), [list(frame.ref)]
    ci = confidence_interval("bleu", hyps, refs, n_bootstrap=200)
    d = _round_trip(ci)
    want = sacrebleu.BLEU().corpus_score(hyps, refs, n_bootstrap=200)
    assert abs(d["score"] - want.score) <= 1e-9
    assert abs(d["mean"] - want._mean) <= 1e-9 and abs(d["ci"] - want._ci) <= 1e-9
    assert d["low"] == ci.mean - ci.ci and d["high"] == ci.mean + ci.ci
    assert d["n_bootstrap"] == 200 and d["seed"] == "12345" and d["signature"] == ci.signature()


@pytest.mark.parametrize("test", ["paired_bootstrap", "paired_randomization"])
def test_paired_results_to_dict(frame, test, monkeypatch):
    from vecscore import significance

    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    hyps, refs = list(frame.hyp), [list(frame.ref)]
    other = hyps[1:] + hyps[:1]
    res = getattr(significance, test)(["bleu", "chrf"], hyps, {"shifted": other}, refs, n_samples=100)
    d = _round_trip(res)
    assert d["systems"] == list(res.systems) and d["test"] == res.test and d["n_samples"] == 100
    for metric, rows in res.results.items():
        assert d["signatures"][metric] == res.signature(metric)
        for got, row in zip(d["results"][metric], rows):
            assert got == _round_trip(row)
            for key in ("score", "p_value", "mean", "ci"):
                want = getattr(row, key)
                assert got[key] == (None if want is None else float(want))
    assert d["results"]["BLEU"][1]["p_value"] is not None


def test_stream_summaries_are_plain_and_equal_the_oracles(frame, oracle):
    sacrebleu = pytest.importorskip("sacrebleu")
    from vecscore.io.stream import BleuSpec, ChrfSpec, RougeSpec, TerSpec, score_corpus

    part = frame.iloc[:30]
    hyps, refs = list(part.hyp), list(part.ref)
    rouge_sum = score_corpus(hyps, refs, RougeSpec(tuple(METRICS)), chunk_size=7)
    _assert_plain(rouge_sum)
    json.dumps(rouge_sum)
    expected = _expected_by_label(part, oracle)
    want = math.fsum(expected[label]["rougeL"].fmeasure for label in part.index) / len(part)
    assert abs(rouge_sum["rougeL"]["fmeasure"] - want) <= 1e-12
    bleu_sum = score_corpus(hyps, refs, BleuSpec({}), chunk_size=7)
    _assert_plain(bleu_sum)
    want_bleu = sacrebleu.corpus_bleu(hyps, [refs])
    assert bleu_sum["counts"] == list(want_bleu.counts) and bleu_sum["totals"] == list(want_bleu.totals)
    assert abs(bleu_sum["score"] - want_bleu.score) <= 1e-9
    chrf_sum = score_corpus(hyps, refs, ChrfSpec(), chunk_size=7)
    _assert_plain(chrf_sum)
    assert abs(chrf_sum["score"] - sacrebleu.corpus_chrf(hyps, [refs]).score) <= 1e-9
    ter_sum = score_corpus(hyps, refs, TerSpec(), chunk_size=7)
    _assert_plain(ter_sum)
    assert abs(ter_sum["score"] - sacrebleu.corpus_ter(hyps, [refs]).score) <= 1e-9


def test_rouge_stats_to_dict(frame):
    result = vecscore.rouge(frame.hyp, frame.ref, metrics=["rouge1", "rougeW"])
    for name, st in result.stats.items():
        d = _round_trip(st)
        assert d["hits"] == st.hits.tolist() and d["p_den"] == st.p_den.tolist() and d["r_den"] == st.r_den.tolist()
        assert d["exponent"] == st.exponent
    # by hand: hypothesis "a b a" against reference "a c": unigram hits min(2, 1) = 1, 3 hypothesis and 2 reference
    # unigrams
    st = vecscore.rouge(["a b a"], ["a c"], metrics=["rouge1"]).stats["rouge1"]
    assert _round_trip(st) == {"hits": [1], "p_den": [3], "r_den": [2], "exponent": None}


def test_shared_references_rouge_keeps_the_index(frame, oracle):
    shared = list(frame.refs.iloc[0])
    result = vecscore.SharedReferences(shared).rouge(frame.hyp, metrics=METRICS)
    joined = frame.join(result.to_pandas())
    _check_joined(joined, {label: oracle.score_multi(shared, row.hyp) for label, row in frame.iterrows()})


# --- sentence BLEU ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sacre_rows(frame):
    sacrebleu = pytest.importorskip("sacrebleu")
    return {label: sacrebleu.sentence_bleu(row.hyp, [row.ref]) for label, row in frame.iterrows()}


def _check_bleu_joined(joined, expected: dict) -> None:
    assert len(joined) == len(expected)
    for label, want in expected.items():
        assert abs(joined.loc[label, "score"] - want.score) <= 1e-9, label
        assert joined.loc[label, "sys_len"] == want.sys_len and joined.loc[label, "ref_len"] == want.ref_len
        for k in range(4):
            assert joined.loc[label, f"counts_{k + 1}"] == want.counts[k], (label, k)
            assert joined.loc[label, f"totals_{k + 1}"] == want.totals[k], (label, k)


def test_sentence_bleu_to_pandas_joins_back(frame, sacre_rows):
    _check_bleu_joined(frame.join(vecscore.sentence_bleu(frame.hyp, frame.ref).to_pandas()), sacre_rows)
    scores = vecscore.BLEU(effective_order=True).sentence_scores(frame.hyp, list(frame.ref))
    _check_bleu_joined(frame.join(scores.to_pandas()), sacre_rows)
    shared = list(frame.refs.iloc[0])
    sacrebleu = pytest.importorskip("sacrebleu")
    joined = frame.join(vecscore.SharedReferences(shared).sentence_bleu(frame.hyp).to_pandas())
    _check_bleu_joined(joined, {label: sacrebleu.sentence_bleu(row.hyp, shared) for label, row in frame.iterrows()})
    with pytest.raises(VecscoreError, match="index has 2 labels"):
        vecscore.sentence_bleu(frame.hyp, frame.ref).to_pandas(index=["x", "y"])


def test_sentence_bleu_tables_and_dict(frame, sacre_rows):
    pytest.importorskip("pyarrow")
    pytest.importorskip("polars")
    scores = vecscore.sentence_bleu(list(frame.hyp), list(frame.ref))
    pdf = scores.to_pandas()
    assert isinstance(pdf.index, pd.RangeIndex)
    assert scores.to_arrow().column_names == list(pdf.columns) == scores.to_polars().columns
    for name in pdf.columns:
        np.testing.assert_array_equal(scores.to_arrow().column(name).to_numpy(), pdf[name].to_numpy())
        np.testing.assert_array_equal(scores.to_polars()[name].to_numpy(), pdf[name].to_numpy())
    d = _round_trip(scores)
    assert d["signature"] == scores.signature
    for i, label in enumerate(frame.index):
        want = sacre_rows[label]
        assert abs(d["score"][i] - want.score) <= 1e-9 and abs(d["bp"][i] - want.bp) <= 1e-12
        assert d["counts"][i] == list(want.counts) and d["totals"][i] == list(want.totals)
        assert d["sys_len"][i] == want.sys_len and d["ref_len"][i] == want.ref_len
        assert max(abs(a - b) for a, b in zip(d["precisions"][i], want.precisions)) <= 1e-9


def test_statistics_and_coco_evaluation_serialize():
    from vecscore.bleu.api import bleu_statistics
    from vecscore.coco import coco_bleu
    from vecscore.coco.evaluate import evaluate

    hyps = ["the cat sat on the mat", "a dog"]
    refs = [["the cat is on the mat"], ["a dog barks", "the dog"]]
    stats = bleu_statistics(hyps, refs)
    d = _round_trip(stats)
    # the hand count: pair 0 has 6 hypothesis tokens, 5 unigrams and 3 bigrams matched; pair 1 two tokens, both
    # matched, one bigram matched, closest reference length 2
    assert d["sys_len"] == [6, 2] and d["ref_len"] == [6, 2] and d["nrefs"] == [1, 2]
    assert d["correct"][0][:2] == [5, 3] and d["correct"][1][:2] == [2, 1] and d["total"][1] == [2, 1, 0, 0]
    _round_trip(coco_bleu(hyps, refs).stats)
    result = evaluate({1: refs[0], "b": refs[1]}, {1: [hyps[0]], "b": [hyps[1]]})
    d = _round_trip(result)
    assert set(d["per_image"]) == {"1", "b"}
    assert d["scores"] == {k: float(v) for k, v in result.scores.items()}
    assert d["per_image"]["1"] == {k: float(v) for k, v in result.per_image[1].items()}
