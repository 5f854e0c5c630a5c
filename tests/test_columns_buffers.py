"""String columns read from their own buffers: a pyarrow, polars or pandas string column reaches the per-pair
kernels as its UTF-8 bytes and offsets (no decoding, no copy of the text), and gives the numbers of the same rows
as Python lists and of the official tools, whatever characters the rows hold (the few that the kernels cannot read
as UTF-8 are read as ``str``)."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import vecscore as vs
from vecscore.bleu.api import TokenizedInputWarning
from vecscore.columns import TextColumn, column_rows
from vecscore.errors import VecscoreError

pa = pytest.importorskip("pyarrow")
sacrebleu = pytest.importorskip("sacrebleu")
rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")

#: rows with every kind of character the byte reading must get right: ASCII, Latin-1 (2-byte UTF-8), the two
#: characters rouge-score lowers to ASCII letters (U+0130, U+212A), non-ASCII spaces (U+00A0, U+2009, U+3000,
#: U+0085), punctuation that shares their first bytes (U+2014, U+201C), Chinese, an emoji (4 bytes), a text that
#: ends in a multi-byte character, empty and blank texts
HYPS = [
    "The cat sat on the mat .",
    "Die Katze saß auf der Matte, über dem Boden.",
    "İstanbul is a KELVIN \u212aelvin city",
    "no\u00a0break and thin\u2009space and ideographic\u3000space and next\u0085line",
    "an em\u2014dash and \u201cquotes\u201d around words",
    "猫坐在垫子上。 the cat",
    "emoji \U0001F600 inside a sentence \U0001F600",
    "ends in a multi-byte character é",
    "",
    "   ",
    "tokenized period at the end .",
    "İ",
]
REFS = [
    ["The cat is on the mat .", "A cat sat on a mat ."],
    ["Die Katze sitzt auf der Matte über dem Boden.", "Eine Katze saß auf einer Matte."],
    ["istanbul is a kelvin city", "İstanbul is a \u212aelvin city"],
    ["no break and thin space and ideographic space", "no\u00a0break\u3000space"],
    ["an em dash and “quotes” around words", "em\u2014dash quotes"],
    ["猫在垫子上。 the cat", "一只猫坐在垫子上"],
    ["emoji inside a sentence", "\U0001F600 emoji"],
    ["ends in a multi-byte character é", "ends in e"],
    ["something", "else"],
    ["blank", "   "],
    ["tokenized period at the end .", "period at the end"],
    ["i", "İ"],
]


@pytest.fixture(autouse=True, params=["compiled", "plain"])
def route(request, monkeypatch):
    """Every test on both routes: the kernels read the buffers, the plain route the decoded rows."""
    monkeypatch.setenv("VECSCORE_ROUTE", request.param)
    return request.param


def _repeat(k: int):
    return HYPS * k, REFS * k


def _hyp_columns(h):
    return {
        "string": pa.array(h, pa.string()),
        "large_string": pa.array(h, pa.large_string()),
        "string_view": pa.array(h, pa.string_view()),
        "chunked": pa.chunked_array([pa.array(h[:5]), pa.array(h[5:17]), pa.array(h[17:])]),
        "sliced": pa.array(["x"] * 3 + h + ["y"]).slice(3, len(h)),
    }


def _refs_column(r):
    return pa.array(r, pa.list_(pa.string()))


# --- the column itself ------------------------------------------------------------------------------------------


def test_text_column_reads_the_arrow_buffer_without_a_copy():
    arr = pa.array(HYPS)
    col = column_rows(arr, "hyps")
    assert isinstance(col, TextColumn)
    assert col.data.ctypes.data == arr.buffers()[2].address  # the column's own bytes
    assert np.shares_memory(col.data, np.frombuffer(arr.buffers()[2], np.uint8))
    starts = col.offsets[:-1].tolist()
    ends = col.offsets[1:].tolist()
    assert [col.data[a:b].tobytes().decode() for a, b in zip(starts, ends)] == HYPS


def test_text_column_is_a_sequence_of_its_str():
    col = column_rows(pa.array(["x"] + HYPS).slice(1), "hyps")
    assert len(col) == len(HYPS)
    assert [col[i] for i in range(len(HYPS))] == HYPS
    assert col[-1] == HYPS[-1] and col[-len(HYPS)] == HYPS[0]
    assert col[2:5] == HYPS[2:5] and col[::3] == HYPS[::3] and col[5:2] == []
    with pytest.raises(IndexError):
        col[len(HYPS)]
    assert list(col) == HYPS
    assert col + ["z"] == HYPS + ["z"] and ["z"] + col == ["z"] + HYPS and col * 2 == HYPS * 2
    assert pickle.loads(pickle.dumps(col)) == HYPS  # to a worker process: the list of its rows


@pytest.mark.parametrize("suffix", [" .", "é", "\U0001F600", "İ", "e"])
def test_count_endswith_is_str_endswith(suffix):
    texts = HYPS + ["xé", "x\U0001F600", "é", ""]
    col = column_rows(pa.array(texts), "hyps")
    assert col.count_endswith(suffix) == sum(t.endswith(suffix) for t in texts)


def test_invalid_utf8_is_refused():
    bad = pa.array([b"fine", b"caf\xe9"], pa.binary()).view(pa.string())
    with pytest.raises(VecscoreError, match="not valid UTF-8"):
        vs.rouge(bad, ["a", "b"], metrics=["rouge1"])


def test_the_kernels_read_the_buffers_without_decoding(route, monkeypatch):
    if route != "compiled":
        pytest.skip("the plain route reads decoded rows")
    h, r = HYPS[:2] * 50, REFS[:2] * 50  # ASCII and German: no row needs its str

    def refuse(self):
        raise AssertionError("a column was decoded")

    monkeypatch.setattr(TextColumn, "decoded", refuse)
    assert vs.rouge(pa.array(h), _refs_column(r), metrics=["rouge1", "rougeL"])["rouge1"].fmeasure.shape == (100,)
    assert vs.corpus_bleu(pa.array(h), _refs_column(r), refs_layout="per-example").score > 0
    assert vs.sentence_bleu(pa.array(h), pa.array([x[0] for x in r])).score.shape == (100,)


# --- which rows are read as str ------------------------------------------------------------------------------


@pytest.mark.parametrize("mode_name", ["ROUGE_SCORE", "UTF8"])
def test_rows_read_as_str_are_those_with_the_modes_characters(mode_name):
    from vecscore.engine.pair_rows import _needs_str
    from vecscore.kernels import wide_text

    special = {"ROUGE_SCORE": "\u0130\u212a",
               "UTF8": "".join(map(chr, (0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F,
                                         0x205F, 0x3000)))}[mode_name]
    texts = HYPS + [f"a{c}b" for c in special] + ["\u2014\u2019\u201c\u00e9\u4e00", "x" * 20 + "\u3000"]
    col = column_rows(pa.array(["pad\u3000\u0130"] + texts).slice(1), "hyps")
    want = [i for i, t in enumerate(texts) if any(c in t for c in special)]
    assert _needs_str(col, getattr(wide_text, mode_name)).tolist() == want


# --- the numbers: columns against lists and against the official tools ---------------------------------------


@pytest.mark.parametrize("kind", ["string", "large_string", "string_view", "chunked", "sliced"])
def test_rouge_from_columns_equals_lists_and_rouge_score(kind):
    h, r = _repeat(3)
    metrics = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    col = vs.rouge(_hyp_columns(h)[kind], _refs_column(r), metrics=metrics)
    lst = vs.rouge(h, r, metrics=metrics)
    assert col.to_dict() == lst.to_dict()
    scorer = rouge_scorer.RougeScorer(metrics)
    for i in range(len(HYPS)):
        want = scorer.score_multi(r[i], h[i])
        for m in metrics:
            assert col[m].fmeasure[i] == pytest.approx(want[m].fmeasure, abs=1e-12), (i, m)


def test_rouge_with_one_reference_column_per_pair():
    h, r = _repeat(2)
    first = [x[0] for x in r]
    col = vs.rouge(pa.array(h), pa.array(first), metrics=["rouge1", "rougeL"])
    assert col.to_dict() == vs.rouge(h, first, metrics=["rouge1", "rougeL"]).to_dict()


@pytest.mark.parametrize("tokenize", ["13a", "none", "intl", "zh", "char"])
def test_bleu_from_columns_equals_lists_and_sacrebleu(tokenize):
    h, r = _repeat(3)
    streams = [list(x) for x in zip(*r)]
    for kind, hyps in _hyp_columns(h).items():
        got = vs.corpus_bleu(hyps, _refs_column(r), tokenize=tokenize, refs_layout="per-example", force=True)
        want = sacrebleu.corpus_bleu(h, streams, tokenize=tokenize, force=True)
        assert got.score == pytest.approx(want.score, abs=1e-9), kind
        assert list(got.counts) == want.counts and list(got.totals) == want.totals, kind
    sent = vs.sentence_bleu(pa.array(h), _refs_column(r), tokenize=tokenize)
    assert np.array_equal(sent.score, vs.sentence_bleu(h, r, tokenize=tokenize).score)
    for i in range(len(HYPS)):
        want = sacrebleu.sentence_bleu(h[i], r[i], tokenize=tokenize)
        assert sent.score[i] == pytest.approx(want.score, abs=1e-9), i


def test_tokenized_period_warning_counts_column_rows():
    h = ["a b c ."] * 120 + ["fine text"] * 10
    with pytest.warns(TokenizedInputWarning, match="^120 hypotheses"):
        vs.corpus_bleu(pa.array(h), [pa.array(h)])


def test_cached_references_from_a_column():
    h, r = _repeat(2)
    first = [x[0] for x in r]
    bleu = vs.BLEU(references=[pa.array(first)])
    assert bleu.corpus_score(pa.array(h)).score == pytest.approx(
        sacrebleu.BLEU(references=[first]).corpus_score(h, None).score, abs=1e-9)


@pytest.mark.parametrize("word_order", [0, 2])
def test_chrf_from_columns_equals_lists_and_sacrebleu(word_order):
    h, r = _repeat(3)
    streams = [list(x) for x in zip(*r)]
    chrf = sacrebleu.CHRF(word_order=word_order)
    for kind, hyps in _hyp_columns(h).items():
        got = vs.corpus_chrf(hyps, [pa.array(s) for s in streams], word_order=word_order)
        assert got.score == pytest.approx(chrf.corpus_score(h, streams).score, abs=1e-9), kind
        per_example = vs.corpus_chrf(hyps, _refs_column(r), word_order=word_order, refs_layout="per-example")
        assert per_example.score == got.score, kind
    one = vs.corpus_chrf(pa.array(h), [_hyp_columns([x[0] for x in r])["sliced"]], word_order=word_order)
    assert one.score == pytest.approx(chrf.corpus_score(h, [streams[0]]).score, abs=1e-9)
    rows = vs.chrf_statistics(pa.array(h), [pa.array(s) for s in streams], word_order=word_order)
    assert np.array_equal(rows, vs.chrf_statistics(h, streams, word_order=word_order))


def test_coco_from_columns_equals_lists_and_pycocoevalcap():
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.rouge.rouge import Rouge

    from vecscore import coco

    h, r = _repeat(3)
    gts = {i: list(refs) for i, refs in enumerate(r)}
    res = {i: [hyp] for i, hyp in enumerate(h)}
    for kind, hyps in _hyp_columns(h).items():
        refs = _refs_column(r)
        got = coco.coco_bleu(hyps, refs)
        assert got.to_dict() == coco.coco_bleu(h, r).to_dict(), kind
        assert got.scores == pytest.approx(Bleu(4).compute_score(gts, res, verbose=0)[0], abs=1e-12), kind
        got = coco.coco_rouge_l(hyps, refs)
        assert got.to_dict() == coco.coco_rouge_l(h, r).to_dict(), kind
        assert got.score == pytest.approx(Rouge().compute_score(gts, res)[0], abs=1e-12), kind
        got = coco.cider_d(hyps, refs, df_refs=refs)
        assert got.to_dict() == coco.cider_d(h, r).to_dict(), kind
        assert got.score == pytest.approx(Cider().compute_score(gts, res)[0], abs=1e-12), kind


def test_chrf_and_coco_read_the_buffers_without_decoding(route, monkeypatch):
    if route != "compiled":
        pytest.skip("the plain route reads decoded rows")
    from vecscore import coco

    h, r = HYPS * 20, REFS * 20  # every kind of row: the non-ASCII ones decoded together, not as a column

    def refuse(self):
        raise AssertionError("a column was decoded")

    monkeypatch.setattr(TextColumn, "decoded", refuse)
    streams = [pa.array(list(s)) for s in zip(*r)]
    assert vs.corpus_chrf(pa.array(h), streams[:1]).score > 0
    assert vs.corpus_chrf(pa.array(h), streams).score > 0  # two streams: interleaved by Arrow
    assert vs.corpus_bleu(pa.array(h), streams).score > 0
    assert vs.corpus_chrf(pa.array(h), _refs_column(r), refs_layout="per-example").score > 0
    assert coco.coco_rouge_l(pa.array(h), _refs_column(r)).score > 0
    assert coco.coco_bleu(pa.array(h), _refs_column(r)).scores[0] > 0
