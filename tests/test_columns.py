"""Columns from data libraries as input: every public function gives, for an Arrow, polars, pandas or NumPy column,
the numbers it gives for the same rows as Python lists (which the differential tests check against the official
tools); a few rows are also checked against the oracles directly.  Nulls and wrong types are refused by name."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import vecscore as vs
from vecscore import coco
from vecscore.errors import VecscoreError

pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")
pq = pytest.importorskip("pyarrow.parquet")
pl = pytest.importorskip("polars")


@pytest.fixture(scope="module")
def rows(shared_data):
    """60 SummEval summaries with 1 to 4 of their references (real text, several references per pair), and the
    same summaries with exactly 2 references each (for 2-d arrays and sacreBLEU's streams)."""
    path = shared_data / "summeval-bartscore" / "summeval_16sys_11refs.jsonl"
    with path.open(encoding="utf-8") as f:
        data = [json.loads(line) for _, line in zip(range(60), f)]
    hyps = [d["summary"] for d in data]
    refs = [d["references"][: 1 + i % 4] for i, d in enumerate(data)]
    refs2 = [d["references"][:2] for d in data]
    return hyps, refs, refs2


# --- the columns, built from the lists ------------------------------------------------------------------------


def _pandas_str(x):
    return pd.Series(x, dtype="string[pyarrow]")


HYP_COLUMNS = {
    "arrow string": lambda h: pa.array(h, pa.string()),
    "arrow large_string": lambda h: pa.array(h, pa.large_string()),
    "arrow string_view": lambda h: pa.array(h, pa.string_view()),
    "arrow chunked": lambda h: pa.chunked_array([pa.array(h[:7]), pa.array(h[7:31]), pa.array(h[31:])]),
    "arrow sliced": lambda h: pa.array(["x"] * 3 + h + ["y"]).slice(3, len(h)),
    "polars String": lambda h: pl.Series("hyp", h),
    "pandas ArrowDtype": lambda h: pd.Series(h, dtype=pd.ArrowDtype(pa.string())),
    "pandas string[pyarrow]": _pandas_str,
    "pandas filtered": lambda h: pd.Series(["x"] + h, dtype=pd.ArrowDtype(pa.large_string()))[1:],
    "numpy <U": lambda h: np.array(h),
    "numpy object": lambda h: np.array(h, dtype=object),
}


def _parquet_column(refs, tmp_path_factory):
    """The references as pandas reads a Parquet list column back: an object Series of NumPy arrays."""
    path = tmp_path_factory.mktemp("pq") / "refs.parquet"
    pq.write_table(pa.table({"refs": pa.array(refs, pa.list_(pa.string()))}), path)
    return pd.read_parquet(path)["refs"]


REF_COLUMNS = {
    "arrow list": lambda r: pa.array(r, pa.list_(pa.string())),
    "arrow large_list": lambda r: pa.array(r, pa.large_list(pa.large_string())),
    "arrow list<string_view>": lambda r: pa.array(r, pa.list_(pa.string_view())),
    "arrow chunked list": lambda r: pa.chunked_array([pa.array(r[:11], pa.list_(pa.string())),
                                                      pa.array(r[11:], pa.list_(pa.string()))]),
    "arrow sliced list": lambda r: pa.array([["z"]] + r + [["w", "v"]], pa.list_(pa.string())).slice(1, len(r)),
    "polars List(String)": lambda r: pl.Series("refs", r),
    "pandas ArrowDtype list": lambda r: pd.Series(r, dtype=pd.ArrowDtype(pa.list_(pa.string()))),
    "pandas read_parquet": None,  # built by the fixture below (needs a folder)
    "pandas object of arrays": lambda r: pd.Series([np.array(x, dtype=object) for x in r]),
}


# --- what each function gives, as plain values --------------------------------------------------------------


def _plain(x):
    """A result as nested plain values, compared exactly."""
    if isinstance(x, vs.RougeResult):
        return x.to_dict()
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, float):
        return "nan" if math.isnan(x) else x
    for fields in (("score", "counts", "totals", "sys_len", "ref_len"), ("score", "num_edits", "ref_length"),
                   ("score",)):
        if all(hasattr(x, f) for f in fields):
            return {f: _plain(getattr(x, f)) for f in fields}
    if hasattr(x, "__dict__"):
        return {k: _plain(v) for k, v in vars(x).items() if not k.startswith("_")}
    return x


PER_EXAMPLE = {
    "rouge": lambda h, r: vs.rouge(h, r, metrics=("rouge1", "rouge2", "rougeL")),
    "rouge_weighted": lambda h, r: vs.rouge_weighted(h, r, metrics=("rouge2", "rougeL")),
    "rouge155": lambda h, r: vs.rouge155(h, r, metrics=("rouge1", "rougeL", "rougeSU4")),
    "RougeScorer.score_multi_batch": lambda h, r: vs.RougeScorer(["rouge1", "rougeL"]).score_multi_batch(r, h),
    "corpus_bleu": lambda h, r: vs.corpus_bleu(h, r, refs_layout="per-example"),
    "sentence_bleu": lambda h, r: vs.sentence_bleu(h, r, refs_layout="per-example").score,
    "bleu_statistics": lambda h, r: vs.bleu_statistics(h, r, refs_layout="per-example").correct,
    "nltk_corpus_bleu": lambda h, r: vs.nltk_corpus_bleu(h, r, tokenize="13a"),
    "nltk_sentence_bleu": lambda h, r: vs.nltk_sentence_bleu(h, r, tokenize="13a", smoothing="method1"),
    "corpus_chrf": lambda h, r: vs.corpus_chrf(h, r, refs_layout="per-example"),
    "chrf_statistics": lambda h, r: vs.chrf_statistics(h, r, refs_layout="per-example"),
    "corpus_ter": lambda h, r: vs.corpus_ter(h, r, refs_layout="per-example"),
    "ter_statistics": lambda h, r: vs.ter_statistics(h, r, refs_layout="per-example"),
    "coco_bleu": lambda h, r: coco.coco_bleu(h, r).to_dict(),
    "coco_rouge_l": lambda h, r: coco.coco_rouge_l(h, r).to_dict(),
    "cider_d": lambda h, r: coco.cider_d(h, r).to_dict(),
}


@pytest.fixture(scope="module")
def expected(rows):
    hyps, refs, _ = rows
    return {name: _plain(f(hyps, refs)) for name, f in PER_EXAMPLE.items()}


@pytest.mark.parametrize("column", list(HYP_COLUMNS))
@pytest.mark.parametrize("function", list(PER_EXAMPLE))
def test_hypotheses_as_a_column(rows, expected, function, column):
    hyps, refs, _ = rows
    got = PER_EXAMPLE[function](HYP_COLUMNS[column](hyps), refs)
    assert _plain(got) == expected[function]


@pytest.mark.parametrize("column", list(REF_COLUMNS))
@pytest.mark.parametrize("function", list(PER_EXAMPLE))
def test_references_as_a_list_column(rows, expected, tmp_path_factory, function, column):
    hyps, refs, _ = rows
    build = REF_COLUMNS[column]
    col = _parquet_column(refs, tmp_path_factory) if build is None else build(refs)
    got = PER_EXAMPLE[function](hyps, col)
    assert _plain(got) == expected[function]


def test_both_columns_from_one_parquet_file(rows, tmp_path):
    """A whole table read back from Parquet, as pyarrow, polars and pandas give it, against the oracles."""
    from rouge_score import rouge_scorer
    from sacrebleu.metrics import BLEU

    hyps, refs, _ = rows
    path = tmp_path / "pairs.parquet"
    pq.write_table(pa.table({"hyp": hyps, "refs": pa.array(refs, pa.list_(pa.string()))}), path)
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    want_rouge = [scorer.score_multi(r, h)["rougeL"].fmeasure for h, r in zip(hyps, refs)]
    n = max(map(len, refs))
    streams = [[r[k] if k < len(r) else None for r in refs] for k in range(n)]
    want_bleu = BLEU().corpus_score(hyps, streams).score
    table = pq.read_table(path)
    frames = {"pyarrow": (table["hyp"], table["refs"]),
              "polars": tuple(pl.read_parquet(path)[c] for c in ("hyp", "refs")),
              "pandas": tuple(pd.read_parquet(path)[c] for c in ("hyp", "refs"))}
    for name, (h, r) in frames.items():
        assert vs.rouge(h, r, metrics=("rougeL",))["rougeL"].fmeasure.tolist() == want_rouge, name
        assert vs.corpus_bleu(h, r, refs_layout="per-example").score == want_bleu, name


def test_two_dimensional_numpy_references(rows):
    """A 2-d array of references (one row per pair) and sacreBLEU's streams as Arrow columns."""
    hyps, _, refs2 = rows
    want = _plain(vs.corpus_bleu(hyps, refs2, refs_layout="per-example"))
    assert _plain(vs.corpus_bleu(hyps, np.array(refs2), refs_layout="per-example")) == want
    assert _plain(vs.rouge(hyps, np.array(refs2))) == _plain(vs.rouge(hyps, refs2))
    streams = [pa.array([r[k] for r in refs2]) for k in range(2)]
    assert _plain(vs.BLEU().corpus_score(pa.chunked_array([hyps]), streams)) == want
    fixed = pa.FixedSizeListArray.from_arrays(pa.array([x for r in refs2 for x in r]), 2)
    assert _plain(vs.corpus_chrf(hyps, fixed, refs_layout="per-example")) == \
        _plain(vs.corpus_chrf(hyps, refs2, refs_layout="per-example"))


def test_the_metric_classes_take_columns(rows):
    hyps, _, refs2 = rows
    streams = [[r[k] for r in refs2] for k in range(2)]
    col_streams = [pl.Series(s) for s in streams]
    for cls in (vs.BLEU, vs.CHRF, vs.TER):
        want = _plain(cls().corpus_score(hyps, streams))
        assert _plain(cls().corpus_score(pa.array(hyps), col_streams)) == want, cls.__name__
        assert _plain(cls(references=col_streams).corpus_score(pl.Series(hyps))) == want, cls.__name__
        assert _plain(cls().sentence_scores(pd.Series(hyps, dtype="str"), streams)) == \
            _plain(cls().sentence_scores(hyps, streams)), cls.__name__


@pytest.mark.parametrize("column", ["arrow string", "polars String", "pandas string[pyarrow]", "numpy <U"])
def test_shared_references_as_columns(rows, column):
    hyps, refs, _ = rows
    shared = [r[0] for r in refs[:12]]
    make = HYP_COLUMNS[column]
    want = vs.SharedReferences(shared).sentence_bleu(hyps)
    got = vs.SharedReferences(make(shared)).sentence_bleu(make(hyps))
    assert _plain(got) == _plain(want)
    want_rouge = vs.SharedReferences(shared).rouge(hyps)
    assert _plain(vs.SharedReferences(make(shared)).rouge(make(hyps))) == _plain(want_rouge)


# --- refused, by name ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [
    lambda: pa.array(["a b", "c", None, "d"]),
    lambda: pa.chunked_array([["a b", "c"], [None, "d"]]),
    lambda: pl.Series(["a b", "c", None, "d"]),
    lambda: pd.Series(["a b", "c", None, "d"], dtype=pd.ArrowDtype(pa.string())),
], ids=["arrow", "arrow chunked", "polars", "pandas ArrowDtype"])
def test_a_null_hypothesis_is_named(make):
    with pytest.raises(VecscoreError, match=r"hyps\[2\] is null.*fill_null"):
        vs.rouge(make(), ["x"] * 4)
    with pytest.raises(VecscoreError, match=r"hyps\[2\] is null"):
        vs.corpus_bleu(make(), [["x"] * 4])


def test_null_references_are_named():
    hyps = ["a b", "c d", "e"]
    with pytest.raises(VecscoreError, match=r"refs\[1\]\[1\] is null.*fill_null"):
        vs.rouge(hyps, pa.array([["a"], ["c", None], ["e"]]))
    with pytest.raises(VecscoreError, match=r"refs\[2\] is null"):
        vs.rouge(hyps, pa.array([["a"], ["c"], None], pa.list_(pa.string())))
    with pytest.raises(VecscoreError, match=r"refs\[1\]\[0\] is null"):
        vs.corpus_chrf(hyps, pl.Series([["a"], [None, "c"], ["e"]]), refs_layout="per-example")


@pytest.mark.parametrize("make, message", [
    (lambda: pa.array([1, 2, 3]), r"hyps is an Arrow column of int64; expected strings"),
    (lambda: pa.array([b"a", b"b", b"c"]), r"hyps is an Arrow column of binary; decode it to strings first"),
    (lambda: pa.table({"hyp": ["a", "b", "c"]}), r"whole Table; pass one of its columns"),
    (lambda: pl.DataFrame({"hyp": ["a", "b", "c"]}), r"whole polars DataFrame; pass one of its columns"),
    (lambda: pd.DataFrame({"hyp": ["a", "b", "c"]}), r"whole pandas DataFrame; pass one of its columns"),
])
def test_wrong_columns_are_refused(make, message):
    with pytest.raises(VecscoreError, match=message):
        vs.rouge(make(), ["a", "b", "c"])


def test_a_list_column_of_numbers_is_refused_as_references():
    with pytest.raises(VecscoreError, match=r"refs is an Arrow column of lists of int64"):
        vs.rouge(["a", "b"], pa.array([[1], [2]]))


def test_streaming_slices_columns(rows):
    """vecscore.io.stream cuts two columns into slices of the same type; the chunks' scores are the lists'."""
    from vecscore.io.stream import CorpusAccumulator, RougeSpec, iter_scores

    hyps, refs, _ = rows
    spec = RougeSpec(("rouge1", "rougeL"), {})

    def run(h, r):
        acc = CorpusAccumulator(spec)
        chunks = list(iter_scores(h, r, spec, chunk_size=16))
        for c in chunks:
            acc.add(c)
        return [c.n for c in chunks], [c.columns["rougeL_fmeasure"].tolist() for c in chunks], acc.summary()

    want = run(hyps, refs)
    assert run(pa.array(hyps), pa.array(refs)) == want
    assert run(pl.Series(hyps), pl.Series(refs)) == want
    assert run(pd.Series(hyps, dtype="str"), pd.Series(refs)) == want
    with pytest.raises(VecscoreError, match="got 60 hypotheses but 59 reference entries"):
        run(pa.array(hyps), pa.array(refs[:-1]))
