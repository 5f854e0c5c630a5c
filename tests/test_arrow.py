"""score_table: engine-neutral Arrow scoring, identical to the library and to chunked scoring."""
from __future__ import annotations

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")

from vecscore import rouge  # noqa: E402
from vecscore.bleu.api import corpus_bleu, sentence_bleu  # noqa: E402
from vecscore.errors import VecscoreError  # noqa: E402
from vecscore.io.arrow import corpus_from_table, score_table  # noqa: E402
from vecscore.io.stream import make_spec, score_corpus  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")
HYPS = ["the cat sat on the mat", "a quick brown fox", "", "hello there general kenobi"]
REFS = [["the cat is on the mat", "a cat sat"], ["the quick brown fox jumps"], ["nothing"], ["hello there"]]


def _table():
    return pa.table({"id": [10, 11, 12, 13], "hyp": HYPS, "refs": REFS, "r1": [r[0] for r in REFS]})


def test_scores_equal_the_library_and_input_columns_are_kept():
    out = score_table(_table(), ref_columns="refs", metrics=["rouge1", "rougeLsum", "bleu"], stats=True)
    assert out.column_names[:4] == ["id", "hyp", "refs", "r1"]
    direct = rouge(HYPS, REFS, metrics=["rouge1", "rougeLsum"])
    for name, col in direct.columns().items():
        assert out.column(name).to_pylist() == col.tolist()
    assert out.column("bleu_score").to_pylist() == sentence_bleu(HYPS, REFS).score.tolist()
    assert out.schema.field("bleu_correct_1").type == pa.int64() and out.schema.field("rouge1_hits").type == pa.int64()
    summary = corpus_from_table(out, make_spec(["rouge1", "rougeLsum", "bleu"]))
    assert summary["BLEU"]["score"] == corpus_bleu(HYPS, REFS).score


def test_several_string_columns_as_references():
    t = _table().append_column("r2", pa.array([r[-1] for r in REFS]))
    out = score_table(t, ref_columns=["r1", "r2"], metrics=["rouge2"])
    direct = rouge(HYPS, [[r[0], r[-1]] for r in REFS], metrics=["rouge2"])
    assert out.column("rouge2_fmeasure").to_pylist() == direct["rouge2"].fmeasure.tolist()


def test_chunk_size_and_workers_do_not_change_a_bit():
    t = _table()
    base = score_table(t, ref_columns="refs", metrics=["rouge1", "rougeW", "bleu"], stats=True, workers=1)
    for chunk, workers in [(1, 2), (3, 1), (100, 2)]:
        assert score_table(t, ref_columns="refs", metrics=["rouge1", "rougeW", "bleu"], stats=True, chunk_size=chunk,
                           workers=workers).equals(base)


def test_record_batch_rouge155_and_empty_table():
    batch = pa.RecordBatch.from_pydict({"hyp": ["police killed the gunman"], "ref": ["police kill the gunman"]})
    out = score_table(batch, metrics=["rougeSU4"], rouge155_options={"round5": True})
    assert out.num_rows == 1 and "rougeSU4_fmeasure" in out.column_names
    empty = score_table(pa.table({"hyp": pa.array([], pa.string()), "ref": pa.array([], pa.string())}),
                        metrics=["rouge1"])
    assert empty.num_rows == 0 and "rouge1_fmeasure" in empty.column_names


@pytest.mark.parametrize(
    "table, kwargs, needle",
    [
        (pa.table({"hyp": ["a", None], "ref": ["a", "b"]}), {}, "table, row 2: 'hyp' is null"),
        (pa.table({"hyp": ["a", "b"], "ref": [["a"], []]}), {}, "row 2: 'ref' is an empty list"),
        (pa.table({"hyp": ["a", "b"], "ref": [["a"], ["b", None]]}), {}, "row 2: 'ref' contains a null"),
        (pa.table({"hyp": [1, 2], "ref": ["a", "b"]}), {}, "has type int64, not string"),
        (pa.table({"hyp": ["a"], "ref": ["a"]}), {"ref_columns": "refs"}, "no column 'refs'"),
        (pa.table({"hyp": ["a"], "ref": ["a"], "rouge1_fmeasure": [0.1]}), {"metrics": ["rouge1"]},
         "already has a column"),
    ],
)
def test_errors_name_the_row(table, kwargs, needle):
    with pytest.raises(VecscoreError, match=needle.replace("(", r"\(")):
        score_table(table, **kwargs)


def test_corpus_from_table_equals_streaming():
    t = _table()
    spec = make_spec(["rouge1", "rougeL"], rouge_options={"multi_ref": "pooled"})
    out = score_table(t, ref_columns="refs", spec=spec, stats=True)
    s1 = corpus_from_table(out, spec)
    s2 = score_corpus(HYPS, REFS, spec, chunk_size=3)
    s1.pop("signature"), s2.pop("signature")
    assert s1 == s2
    assert np.isfinite(s1["micro"]["rouge1"]["fmeasure"])
