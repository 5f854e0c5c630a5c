"""Shared references (:class:`vecscore.SharedReferences`): one set of references against many hypotheses.

Expected values come from the oracles run here with the references repeated for every hypothesis
(sacreBLEU, NLTK), and from the plain-Python twin of the kernels (``tests/reference/shared_ngrams_py.py``).
"""
from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest

import vecscore
from tests.conftest import data_file
from tests.reference.shared_ngrams_py import shared_correct, vocab_lookup
from vecscore import SharedReferences, VecscoreError

sacrebleu = pytest.importorskip("sacrebleu")
nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")


@pytest.fixture(scope="module")
def wmt(shared_data):
    """WMT21 en-de: reference A's first 60 segments (shared), and 200 outputs of two systems (hypotheses)."""
    root = data_file(shared_data, "wmt21-news-systems", "en-de")
    ref = (root / "newstest2021.en-de.ref.A.de").read_text(encoding="utf-8").splitlines()
    hyps = []
    for name in ("Facebook-AI", "HuaweiTSC"):
        path = data_file(root, "system-outputs", f"newstest2021.en-de.hyp.{name}.de")
        hyps += path.read_text(encoding="utf-8").splitlines()[:100]
    return ref[:60], hyps


ADVERSARIAL_REFS = [
    ["the cat is on the mat", "there is a cat on the mat"],
    ["the cat is on the mat"],  # one reference
    ["the cat is on the mat", "the cat is on the mat", "a a a a"],  # duplicate references
    ["", "the cat"],  # an empty reference
    [""],  # only an empty reference
]
ADVERSARIAL_HYPS = [
    "the cat is on the mat",
    "",  # empty
    "   ",  # whitespace only
    "a a a a a a a a a a the the the cat cat",  # clipped far below its counts
    "the cat is on the mat and the cat is on the mat and the cat is on the mat again today",  # longer than any ref
    "zebra quokka",  # nothing in the references
    "cat",
    "Über die Straße — „Anführung“ & <tag> 3.50, done.",
]


# --- the kernels against their plain-Python twin ---------------------------------------------


def _random_rows(rng, n, vocab, max_len):
    return [rng.integers(0, vocab, rng.integers(0, max_len + 1)).tolist() for _ in range(n)]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kernels_equal_their_plain_twin(seed):
    from vecscore.kernels.shared_ngrams import build_table, shared_counts

    rng = np.random.default_rng(seed)
    vocab = [5, 12, 40][seed]
    refs = _random_rows(rng, 30, vocab, 40)
    hyps = _random_rows(rng, 200, vocab + 3, 70)  # ids >= vocab: tokens no reference has
    hyps[0] = []
    hyps[1] = [0] * 50
    # the reference ids, dense 0..V-1 as the kernel expects
    values = sorted({t for r in refs for t in r})
    dense = {v: i for i, v in enumerate(values)}
    ref_ids = np.array([dense[t] for r in refs for t in r], np.int64)
    ref_off = np.concatenate([[0], np.cumsum([len(r) for r in refs])]).astype(np.int64)
    hyp_ids = np.array([dense.get(t, -1) for h in hyps for t in h], np.int64)
    hyp_off = np.concatenate([[0], np.cumsum([len(h) for h in hyps])]).astype(np.int64)
    for order in (1, 4, 6):
        keys, vals, max_count = build_table(ref_ids, ref_off, len(values), order)
        got = shared_counts(hyp_ids, hyp_off, keys, vals, max_count, len(values), order)
        want = shared_correct([[dense.get(t, -1) for t in h] for h in hyps],
                              [[dense[t] for t in r] for r in refs], order)
        np.testing.assert_array_equal(got, want)


def test_token_lookup_equals_a_dict():
    from vecscore.bleu.shared import SharedBleuTable

    refs = [["a", "bb", "ccc", "a-long-token-of-many-bytes"], ["ü", "bb", ""]]
    table = SharedBleuTable.from_rows(refs, "tokens", "none", False)
    hyps = [["a", "zz", "ü", "a-long-token-of-many-bytes", "a-long-token-of-many-bytez", "", "bb"]]
    ids, _ = table.hyp_ids(hyps)
    vocab = ["a", "bb", "ccc", "a-long-token-of-many-bytes", "ü", ""]  # first-occurrence order
    np.testing.assert_array_equal(ids, vocab_lookup(hyps[0], vocab))


def test_token_list_spans_split_like_python():
    from vecscore.bleu.shared import token_list_spans

    rows = [["a", "", "ß", "x y"], [], ["nul\x00inside", "b"], [""]]
    spans = token_list_spans(rows)
    assert [spans.token_strings(i) for i in range(len(rows))] == rows
    spans = token_list_spans([["a", ""], [], ["", "ü"]])
    assert [spans.token_strings(i) for i in range(3)] == [["a", ""], [], ["", "ü"]]


# --- sacreBLEU -----------------------------------------------------------------------------------


def _sacre_stats(s):
    return list(s.counts), list(s.totals), s.sys_len, s.ref_len


def test_sacrebleu_sentence_and_corpus_on_wmt21(wmt):
    refs, hyps = wmt
    sr = SharedReferences(refs)
    got = sr.sentence_bleu(hyps)
    want = [sacrebleu.sentence_bleu(h, refs) for h in hyps]
    assert got.score.tolist() == [w.score for w in want]  # bit for bit
    np.testing.assert_array_equal(got.sys_len, [w.sys_len for w in want])
    np.testing.assert_array_equal(got.ref_len, [w.ref_len for w in want])
    # BLEU().sentence_score: effective order off
    bleu = sacrebleu.BLEU()
    got = sr.sentence_bleu(hyps[:100], effective_order=False)
    assert got.score.tolist() == [bleu.sentence_score(h, refs).score for h in hyps[:100]]
    # corpus BLEU, each hypothesis's references being all of them
    ours = sr.corpus_bleu(hyps)
    theirs = sacrebleu.corpus_bleu(hyps, [[r] * len(hyps) for r in refs])
    assert ours.score == theirs.score
    assert _sacre_stats(ours) == _sacre_stats(theirs)
    assert ours.signature.startswith(f"nrefs:{len(refs)}|")


@pytest.mark.parametrize("refs", ADVERSARIAL_REFS)
@pytest.mark.parametrize("options", [{}, {"tokenize": "intl", "lowercase": True}, {"tokenize": "char"},
                                     {"tokenize": "none"}])
def test_sacrebleu_adversarial(refs, options):
    sr = SharedReferences(refs, **options)
    got = sr.sentence_bleu(ADVERSARIAL_HYPS)
    want = [sacrebleu.sentence_bleu(h, refs, **options).score for h in ADVERSARIAL_HYPS]
    assert got.score.tolist() == want
    for smooth in ("floor", "add-k", "none"):
        bleu = sacrebleu.BLEU(smooth_method=smooth, **options)
        got = sr.sentence_bleu(ADVERSARIAL_HYPS, smooth_method=smooth, effective_order=False)
        assert got.score.tolist() == [bleu.sentence_score(h, refs).score for h in ADVERSARIAL_HYPS]
    ours = sr.corpus_bleu(ADVERSARIAL_HYPS)
    theirs = sacrebleu.corpus_bleu(ADVERSARIAL_HYPS, [[r] * len(ADVERSARIAL_HYPS) for r in refs], **options)
    assert ours.score == theirs.score and _sacre_stats(ours) == _sacre_stats(theirs)


def test_one_hypothesis_string_gives_one_score():
    refs = ["the cat is on the mat", "there is a cat on the mat"]
    got = SharedReferences(refs).sentence_bleu("the cat sat on the mat")
    assert got.score == sacrebleu.sentence_bleu("the cat sat on the mat", refs).score


def test_statistics_per_hypothesis_against_the_twin():
    refs = [r.split() for r in ADVERSARIAL_REFS[2]]
    hyps = [h.split() for h in ADVERSARIAL_HYPS]
    st = SharedReferences(refs).bleu_statistics(hyps, max_ngram_order=5)
    np.testing.assert_array_equal(st.correct, shared_correct(hyps, refs, 5))
    np.testing.assert_array_equal(st.nrefs, [3] * len(hyps))
    closest = [min((len(r) for r in refs), key=lambda r: (abs(r - len(h)), r)) for h in hyps]
    np.testing.assert_array_equal(st.ref_len, closest)
    shortest = SharedReferences(refs).bleu_statistics(hyps, brevity_penalty="shortest").ref_len
    np.testing.assert_array_equal(shortest, [min(len(r) for r in refs)] * len(hyps))


# --- NLTK ----------------------------------------------------------------------------------------


def test_nltk_sentence_and_corpus_on_wmt21(wmt):
    refs, hyps = wmt
    refs_tok = [r.split() for r in refs]
    hyps_tok = [h.split() for h in hyps[:120]]
    sr = SharedReferences(refs_tok)
    m = nltk_bleu.SmoothingFunction()
    for method in ("method1", "method2", "method4", "method7"):
        got = sr.nltk_sentence_bleu(hyps_tok, smoothing=method)
        want = [nltk_bleu.sentence_bleu(refs_tok, h, smoothing_function=getattr(m, method)) for h in hyps_tok]
        tol = 0 if method in ("method1", "method2") else 1e-12  # NLTK keeps Fractions in methods 5-7
        np.testing.assert_allclose(got, want, rtol=0, atol=tol)
    weights = [(0.5, 0.5), (1 / 3, 1 / 3, 1 / 3), (0.25,) * 4]
    got = sr.nltk_sentence_bleu(hyps_tok, weights=weights, smoothing="method1")
    want = [nltk_bleu.sentence_bleu(refs_tok, h, weights=weights, smoothing_function=m.method1) for h in hyps_tok]
    np.testing.assert_array_equal(got, np.array(want).T)
    got = sr.nltk_corpus_bleu(hyps_tok, smoothing="method1")
    assert got == nltk_bleu.corpus_bleu([refs_tok] * len(hyps_tok), hyps_tok, smoothing_function=m.method1)
    # strings, split on whitespace
    got = SharedReferences(refs, tokenize="none").nltk_sentence_bleu(hyps[:120], smoothing="method1")
    want = [nltk_bleu.sentence_bleu(refs_tok, h, smoothing_function=m.method1) for h in hyps_tok]
    assert got.tolist() == want


@pytest.mark.parametrize("refs", ADVERSARIAL_REFS)
def test_nltk_adversarial(refs):
    refs_tok = [r.split() for r in refs]
    hyps_tok = [h.split() for h in ADVERSARIAL_HYPS]
    sr = SharedReferences(refs_tok)
    m = nltk_bleu.SmoothingFunction()
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        got = sr.nltk_sentence_bleu(hyps_tok)  # method0: NLTK warns on zero counts of some orders
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        want = [nltk_bleu.sentence_bleu(refs_tok, h) for h in hyps_tok]
    assert got.tolist() == want
    def nltk_warnings(caught):  # (the kernels' integer wrap-around warns when run as Python, NUMBA_DISABLE_JIT=1)
        return [w for w in caught if not issubclass(w.category, RuntimeWarning)]

    assert bool(nltk_warnings(ours)) == bool(nltk_warnings(theirs))
    got = sr.nltk_sentence_bleu(hyps_tok, smoothing=m.method1)
    assert got.tolist() == [nltk_bleu.sentence_bleu(refs_tok, h, smoothing_function=m.method1) for h in hyps_tok]
    got = sr.nltk_corpus_bleu(hyps_tok, smoothing="method3")
    want = nltk_bleu.corpus_bleu([refs_tok] * len(hyps_tok), hyps_tok, smoothing_function=m.method3)
    assert math.isclose(got, want, rel_tol=0, abs_tol=1e-15)


def test_token_ids_equal_nltk_on_their_string_form():
    rng = np.random.default_rng(7)
    refs = [rng.integers(1000, 1012, rng.integers(0, 30)) for _ in range(20)]
    hyps = [rng.integers(1000, 1015, rng.integers(0, 40)) for _ in range(50)]
    got = SharedReferences(refs).nltk_sentence_bleu(hyps, smoothing="method1")
    m1 = nltk_bleu.SmoothingFunction().method1
    as_str = [[str(t) for t in r] for r in refs]
    assert got.tolist() == [nltk_bleu.sentence_bleu(as_str, [str(t) for t in h], smoothing_function=m1) for h in hyps]


# --- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize("refs, match", [
    ([], "references is empty"),
    ("the one reference", "not a single string"),
    (["ok", None], r"references\[1\] is NoneType"),
    ([[["a"], ["b"]]], "ONE list of references"),
    (42, "must be a sequence"),
])
def test_bad_references(refs, match):
    with pytest.raises(VecscoreError, match=match):
        SharedReferences(refs)


def test_bad_hypotheses_and_options():
    sr = SharedReferences(["a b c"])
    with pytest.raises(VecscoreError, match="hypotheses are token lists .* shared references are strings"):
        sr.sentence_bleu([["a", "b"]])
    with pytest.raises(VecscoreError, match=r"hyps\[1\] is NoneType"):
        sr.sentence_bleu(["a", None])
    with pytest.raises(VecscoreError, match="unknown smooth_method"):
        sr.sentence_bleu(["a"], smooth_method="nope")
    with pytest.raises(VecscoreError, match="unknown tokenize"):
        SharedReferences(["a"], tokenize="13b")
    with pytest.raises(VecscoreError, match="tokenize=None"):
        SharedReferences([["a"]], tokenize="13a")
    tok = SharedReferences([["a", "b"]])
    with pytest.raises(VecscoreError, match=r"hyps\[1\] holds the token 3"):
        tok.nltk_sentence_bleu([["a"], ["b", 3]])
    with pytest.raises(VecscoreError, match="list of token lists"):
        tok.nltk_sentence_bleu([[["a"]]])
    assert tok.nltk_sentence_bleu([]).shape == (0,)


# --- the command line ----------------------------------------------------------------------------


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "vecscore", *args], capture_output=True, text=True)


def test_cli_shared_refs(tmp_path, wmt):
    refs, hyps = wmt
    rfile, hfile = tmp_path / "refs.txt", tmp_path / "hyps.txt"
    rfile.write_text("\n".join(refs) + "\n", encoding="utf-8")
    hfile.write_text("\n".join(hyps[:80]) + "\n", encoding="utf-8")
    out = _cli("sentence-bleu", "--hyps", str(hfile), "--shared-refs", str(rfile), "--per-pair", "--chunk-size", "30")
    assert out.returncode == 0, out.stderr
    got = [json.loads(line)["bleu_score"] for line in out.stdout.splitlines()]
    assert got == [sacrebleu.sentence_bleu(h, refs).score for h in hyps[:80]]
    out = _cli("bleu", "--hyps", str(hfile), "--shared-refs", str(rfile))
    assert out.returncode == 0, out.stderr
    theirs = sacrebleu.corpus_bleu(hyps[:80], [[r] * 80 for r in refs])
    summary = json.loads(out.stdout)
    assert summary["score"] == theirs.score and summary["counts"] == list(theirs.counts)
    assert summary["signature"].startswith(f"nrefs:{len(refs)}|")
    out = _cli("bleu", "--hyps", str(hfile), "--shared-refs", str(rfile), "--refs", str(rfile))
    assert out.returncode == 2 and "not both" in out.stderr
    (tmp_path / "empty.txt").write_text("")
    out = _cli("bleu", "--hyps", str(hfile), "--shared-refs", str(tmp_path / "empty.txt"))
    assert out.returncode == 2 and "needs at least one reference" in out.stderr


def test_public_name():
    assert vecscore.SharedReferences is SharedReferences


# --- ROUGE ---------------------------------------------------------------------------------------

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")

ROUGE_TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


def _assert_rouge_equal(got, want, types, atol=0.0):
    for k in types:
        for field in ("precision", "recall", "fmeasure"):
            ours = getattr(got[k], field)
            theirs = np.array([getattr(w[k], field) for w in want])
            np.testing.assert_allclose(ours, theirs, rtol=0, atol=atol, err_msg=f"{k} {field}")


@pytest.fixture(scope="module")
def realsumm_refs(shared_data):
    from tests.corpora import realsumm

    summaries, references = realsumm(shared_data)
    return references[:25], summaries[:40]


@pytest.mark.parametrize("stem", [False, True])
def test_rouge_best_equals_score_multi_on_realsumm(realsumm_refs, stem):
    refs, hyps = realsumm_refs
    hyps = hyps + ["", "the", refs[3]]
    scorer = rouge_scorer.RougeScorer(ROUGE_TYPES, use_stemmer=stem)
    want = [scorer.score_multi(refs, h) for h in hyps]
    got = SharedReferences(refs).rouge(hyps, metrics=ROUGE_TYPES, stemmer=stem)
    _assert_rouge_equal(got, want, ROUGE_TYPES)  # bit for bit
    assert got.signature.endswith(f"|nrefs:{len(refs)}|version:{vecscore.__version__}")


@pytest.mark.parametrize("refs", ADVERSARIAL_REFS)
def test_rouge_adversarial(refs):
    scorer = rouge_scorer.RougeScorer(ROUGE_TYPES)
    want = [scorer.score_multi(refs, h) for h in ADVERSARIAL_HYPS]
    got = SharedReferences(refs).rouge(ADVERSARIAL_HYPS, metrics=ROUGE_TYPES)
    _assert_rouge_equal(got, want, ROUGE_TYPES)


def test_rouge_blocks_and_other_conventions(realsumm_refs):
    from vecscore.rouge.shared import shared_rouge

    refs, hyps = realsumm_refs
    refs, hyps = refs[:6], hyps[:15]
    types = ["rouge1", "rougeL"]
    scorer = rouge_scorer.RougeScorer(types)
    per_ref = [[scorer.score(r, h) for r in refs] for h in hyps]
    options = dict(metrics=types, tokenizer="rouge-score", lowercase=False, stemmer=False, stopwords=None,
                   alpha=None, beta=None, sentence_splitter="newline", wlcs="rouge155", block_pairs=7)
    best = shared_rouge(hyps, refs, "text", multi_ref="best", **options)  # blocks of one hypothesis
    _assert_rouge_equal(best, [scorer.score_multi(refs, h) for h in hyps], types)
    recall = shared_rouge(hyps, refs, "text", multi_ref="best-recall", **options)
    for k in types:
        pick = [int(np.argmax([s[k].recall for s in row])) for row in per_ref]
        np.testing.assert_array_equal(recall[k].recall, [row[i][k].recall for row, i in zip(per_ref, pick)])
        np.testing.assert_array_equal(recall[k].precision, [row[i][k].precision for row, i in zip(per_ref, pick)])
    mean = shared_rouge(hyps, refs, "text", multi_ref="mean", **options)
    for k in types:
        for field in ("precision", "recall", "fmeasure"):
            want = [np.mean([getattr(s[k], field) for s in row]) for row in per_ref]
            np.testing.assert_allclose(getattr(mean[k], field), want, rtol=1e-15, atol=0)
    jack = shared_rouge(hyps, refs, "text", multi_ref="jackknife", **options)
    for k in types:
        for i, field in enumerate(("precision", "recall", "fmeasure")):
            want = []
            for row in per_ref:
                sets = [[s for j, s in enumerate(row) if j != out] for out in range(len(row))]
                want.append(np.mean([max(rest, key=lambda s: s[k].fmeasure)[k][i] for rest in sets]))
            np.testing.assert_allclose(getattr(jack[k], field), want, rtol=1e-15, atol=0)
    # pooled (ROUGE-1.5.5 -f A): hits and reference counts summed; hits recovered from rouge-score's P
    pooled = shared_rouge(hyps, refs, "text", multi_ref="pooled", **options)
    tokenize = scorer._tokenizer.tokenize
    ref_counts = np.array([len(tokenize(r)) for r in refs])
    for h, row, p, r in zip(hyps, per_ref, pooled["rouge1"].precision, pooled["rouge1"].recall):
        hyp_count = len(tokenize(h))
        hits = sum(round(s["rouge1"].precision * hyp_count) for s in row)
        assert math.isclose(p, hits / (len(refs) * hyp_count), rel_tol=1e-15)
        assert math.isclose(r, hits / ref_counts.sum(), rel_tol=1e-15)


def test_rouge_token_lists_and_empty_input():
    refs = [r.split() for r in ADVERSARIAL_REFS[0]]
    hyps = [h.lower().split() for h in ADVERSARIAL_HYPS[:7]]
    scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"])
    want = [scorer.score_multi([" ".join(r) for r in refs], " ".join(h)) for h in hyps]
    got = SharedReferences(refs).rouge(hyps, metrics=["rouge1", "rougeL"])
    _assert_rouge_equal(got, want, ["rouge1", "rougeL"])
    empty = SharedReferences(["a b"]).rouge([], metrics=["rouge1"])
    assert empty["rouge1"].fmeasure.shape == (0,)


def test_cli_rouge_shared_refs(tmp_path):
    refs = ADVERSARIAL_REFS[2]
    rfile, hfile = tmp_path / "refs.txt", tmp_path / "hyps.txt"
    rfile.write_text("\n".join(refs) + "\n", encoding="utf-8")
    hfile.write_text("\n".join(ADVERSARIAL_HYPS) + "\n", encoding="utf-8")
    out = _cli("rouge", "--hyps", str(hfile), "--shared-refs", str(rfile), "--per-pair", "--stemmer")
    assert out.returncode == 0, out.stderr
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    for row, h in zip(rows, ADVERSARIAL_HYPS):
        want = scorer.score_multi(refs, h)
        assert [row[f"{k}_fmeasure"] for k in want] == [want[k].fmeasure for k in want]
