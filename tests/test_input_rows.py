"""One reading of the user's rows (issue 28, items 3-5), checked against the official tools.

* ``str`` subclasses count by their characters, whatever their methods say, on both routes: every
  public function that takes texts is scored with every kind of subclass and compared with the
  oracle (rouge-score, sacreBLEU, NLTK, ROUGE-1.5.5.pl) on ``str.__str__(x)``, the exact ``str`` of
  the same characters.
* Per-pair reference lists are read once, their items and their lengths together: a list changed
  during the call (deterministically here, by the list itself when it is read, and by a second thread)
  gives the oracle's number for a consistent reading, or a VecscoreError, never another pair's
  references.
* One layout rule for every function and method that takes references: a shape that reads
  differently as sacreBLEU's streams and per example is refused with both spellings; unambiguous
  shapes give the oracle's number (sacreBLEU's streams for its own calls).
"""
from __future__ import annotations

import enum
import sys
import threading
import warnings
from collections import Counter

import nltk.translate.bleu_score as nltk_bleu
import numpy as np
import pytest
import sacrebleu
from rouge_score import rouge_scorer, tokenizers

import vecscore
from vecscore.errors import VecscoreError

ROUTES = ("plain", "compiled")
TOL = 1e-12


@pytest.fixture(params=ROUTES)
def route(request, monkeypatch):
    """Both routes, forced (VECSCORE_ROUTE), as vecscore.route reads it."""
    monkeypatch.setenv("VECSCORE_ROUTE", request.param)
    return request.param


# --- str subclasses ------------------------------------------------------------------------------------


class StrOverride(str):
    def __str__(self):
        return "overridden text"


class LenOverride(str):
    def __len__(self):
        return 3


class EncodeOverride(str):
    def encode(self, *args, **kwargs):
        return b"zz"


class SplitOverride(str):
    def split(self, *args, **kwargs):
        return ["zz"]


class LowerOverride(str):
    def lower(self):
        return "zz"


class EqOverride(str):  # __eq__ without __hash__: unhashable, and equal to everything
    def __eq__(self, other):
        return True


class Everything(str):
    """Every method a text's reader might call says something else."""

    def __str__(self):
        return "zz"

    def __repr__(self):
        return "Everything()"

    def __len__(self):
        return 1

    def __iter__(self):
        return iter("zz")

    def __getitem__(self, i):
        return "z"

    def __contains__(self, x):
        return False

    def __eq__(self, other):
        return False

    def __ne__(self, other):
        return True

    def __hash__(self):
        raise TypeError("unhashable")

    def __add__(self, other):
        return "zz"

    def __format__(self, spec):
        return "zz"

    def encode(self, *a, **k):
        return b"zz"

    def split(self, *a, **k):
        return ["zz"]

    def rstrip(self, *a):
        return "zz"

    def strip(self, *a):
        return "zz"

    def lower(self):
        return "zz"

    def upper(self):
        return "ZZ"

    def replace(self, *a):
        return "zz"

    def isascii(self):
        return False

    def startswith(self, *a):
        return True

    def endswith(self, *a):
        return True

    def translate(self, *a):
        return "zz"


def _enum(texts):
    """Every text as a member of a ``(str, Enum)``: its ``str()`` is ``'Canned.T0'``, its characters the text."""
    distinct = list(dict.fromkeys(texts))
    canned = enum.Enum("Canned", [(f"T{i}", t) for i, t in enumerate(distinct)], type=str)
    members = {t: canned(t) for t in distinct}
    return [members[t] for t in texts]


def _each(cls):
    return lambda texts: [cls(t) for t in texts]


#: name -> texts -> the same texts as instances of a str subclass
KINDS = {
    "enum": _enum,
    "__str__": _each(StrOverride),
    "__len__": _each(LenOverride),
    "encode": _each(EncodeOverride),
    "split": _each(SplitOverride),
    "lower": _each(LowerOverride),
    "__eq__": _each(EqOverride),
    "numpy str_": _each(np.str_),
    "everything": _each(Everything),
}


def test_str_str_is_an_exact_copy_of_the_characters():
    """What the oracles below are given: ``str.__str__`` of a subclass is an exact ``str`` of its characters,
    without calling the subclass's ``__str__``."""
    for kind, make in KINDS.items():
        x = make(["Le café est très bon"])[0]
        assert type(x) is not str, kind
        y = str.__str__(x)
        assert type(y) is str and y == "Le café est très bon", kind


def _plain(x):
    """The exact ``str`` of a subclass's characters (a list: each item)."""
    if isinstance(x, (list, tuple)):
        return [_plain(t) for t in x]
    return None if x is None else str.__str__(x)


def _subclassed(make, refs):
    """Per-pair reference lists with every text made by ``make``."""
    return [make(list(r)) for r in refs]


# texts: ASCII, Latin-1 and wider characters, a newline (rougeLsum), sentence-final periods
HYPS = ["the cat sat on the mat.\nit was happy", "Le café est très bon, n'est-ce pas ?",
        "a quick brown fox jumps over the lazy dog", "東京は大きい都市です。 Tokyo is big.", ""]
REFS = [["the cat is on the mat.\nit looked happy", "there is a cat on the mat"],
        ["le café est bon", "ce café est très bon"],
        ["the quick brown fox jumped over the lazy dogs", "a fast fox leaps over a dog"],
        ["東京は都市です。", "Tokyo is a big city."],
        ["nothing here", "empty hypothesis"]]
STREAMS = [[r[k] for r in REFS] for k in range(2)]


def _close(got, expected, tol=TOL):
    got, expected = np.asarray(got, np.float64), np.asarray(expected, np.float64)
    assert got.shape == expected.shape and np.allclose(got, expected, rtol=0, atol=tol), (got, expected)


# --- the matrix: every public function x every subclass kind x both routes ------------------------------


ROUGE_METRICS = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


def _rouge_score_multi(hyps, refs, metrics):
    scorer = rouge_scorer.RougeScorer(metrics)
    per_pair = [scorer.score_multi(r, h) for h, r in zip(hyps, refs)]
    return {m: [s[m].fmeasure for s in per_pair] for m in metrics}


@pytest.mark.filterwarnings("ignore::vecscore.EmptyTokenizationWarning", "ignore:rougeLsum was asked for")
def test_rouge_and_rouge_scorer(route):
    expected = _rouge_score_multi(HYPS, REFS, ROUGE_METRICS)
    single = _rouge_score_multi(HYPS, [r[:1] for r in REFS], ROUGE_METRICS)
    scorer = vecscore.RougeScorer(ROUGE_METRICS)
    for kind, make in KINDS.items():
        hyps, refs = make(HYPS), _subclassed(make, REFS)
        got = vecscore.rouge(hyps, refs, metrics=ROUGE_METRICS)
        batch = scorer.score_multi_batch(refs, hyps)
        one = scorer.score_batch([r[0] for r in refs], hyps)
        for m in ROUGE_METRICS:
            _close(got[m].fmeasure, expected[m])
            _close(batch[m].fmeasure, expected[m])
            _close(one[m].fmeasure, single[m])
        assert scorer.score_multi(refs[2], hyps[2])["rougeL"].fmeasure == pytest.approx(expected["rougeL"][2], abs=TOL)
        assert scorer.score(refs[0][0], hyps[0])["rouge2"].fmeasure == pytest.approx(single["rouge2"][0], abs=TOL), kind


@pytest.mark.filterwarnings("ignore::vecscore.EmptyTokenizationWarning")
def test_rouge_token_lists(route):
    """Pre-tokenized input: tokens that are subclasses count by their characters too."""
    tok = tokenizers.DefaultTokenizer()
    h_tok = [tok.tokenize(h) for h in HYPS]
    r_tok = [[tok.tokenize(x) for x in r] for r in REFS]
    # rouge-score on the same tokens: texts whose default tokenization gives back exactly these tokens
    expected = _rouge_score_multi([" ".join(t) for t in h_tok], [[" ".join(t) for t in r] for r in r_tok],
                                  ["rouge1", "rouge2", "rougeL"])
    for kind, make in KINDS.items():
        got = vecscore.rouge([make(t) for t in h_tok], [[make(t) for t in r] for r in r_tok],
                             metrics=["rouge1", "rouge2", "rougeL"])
        for m in ("rouge1", "rouge2", "rougeL"):
            _close(got[m].fmeasure, expected[m])


def _weighted_oracle(hyp: str, refs: list[str], n: int, tokenizer: str = "rouge-score") -> float:
    """Word-length-weighted ROUGE-N (n >= 1) or ROUGE-L (n = 0) F of the best reference, from the module's
    formulas (a token weighs its characters) on rouge-score's tokens (its tokenizer) or ``str.split()``'s."""
    tokenize = tokenizers.DefaultTokenizer().tokenize if tokenizer == "rouge-score" else str.split
    h = tokenize(hyp)

    def f(hits, p_den, r_den):
        p = hits / p_den if p_den else 0.0
        r = hits / r_den if r_den else 0.0
        return 2 * p * r / (p + r) if p + r else 0.0

    best = -1.0
    for ref in refs:
        r = tokenize(ref)
        if n == 0:
            dp = [[0] * (len(r) + 1) for _ in range(len(h) + 1)]
            for i, a in enumerate(h):
                for j, b in enumerate(r):
                    dp[i + 1][j + 1] = max(dp[i][j + 1], dp[i + 1][j], dp[i][j] + len(a) if a == b else 0)
            score = f(dp[-1][-1], sum(map(len, h)), sum(map(len, r)))
        else:
            ch = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            cr = Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1))

            def w(g):
                return sum(map(len, g))

            hits = sum(w(g) * min(c, cr[g]) for g, c in ch.items())
            score = f(hits, sum(w(g) * c for g, c in ch.items()), sum(w(g) * c for g, c in cr.items()))
        best = max(best, score)
    return best


@pytest.mark.filterwarnings("ignore::vecscore.EmptyTokenizationWarning")
@pytest.mark.parametrize("tokenizer", ["rouge-score", "whitespace"])
def test_rouge_weighted(route, tokenizer):
    metrics = {"rouge1": 1, "rouge2": 2, "rougeL": 0}
    expected = {m: [_weighted_oracle(h, r, n, tokenizer) for h, r in zip(HYPS, REFS)] for m, n in metrics.items()}
    for kind, make in KINDS.items():
        got = vecscore.rouge_weighted(make(HYPS), _subclassed(make, REFS), metrics=list(metrics), tokenizer=tokenizer)
        for m in metrics:
            _close(got[m].fmeasure, expected[m])


R155_HYPS = ["police killed the gunman.\nthe gunman was shot", "a quick brown fox jumps over the lazy dog"]
R155_REFS = [["police kill the gunman.\nhe was shot", "the gunman was killed by police"],
             ["the quick brown fox jumped over the lazy dogs"]]


def test_rouge155(route, perl_rouge, tmp_path):
    flags = ["-n", "2", "-w", "1.2", "-2", "4", "-U"]
    out = perl_rouge.score(R155_HYPS, R155_REFS, flags, workdir=tmp_path)
    names = {"rouge1": "ROUGE-1", "rouge2": "ROUGE-2", "rougeL": "ROUGE-L", "rougeW-1.2": "ROUGE-W-1.2",
             "rougeSU4": "ROUGE-SU4"}
    for kind, make in KINDS.items():
        got = vecscore.rouge155(make(R155_HYPS), _subclassed(make, R155_REFS), metrics=list(names))
        for m, script in names.items():
            assert got[m].fmeasure.tolist() == [prf.fmeasure for prf in out[script]], (kind, m)
        # a summary given as a list of sentence strings
        sentences = [make(h.split("\n")) for h in R155_HYPS]
        got = vecscore.rouge155(sentences, [[make(x.split("\n")) for x in r] for r in R155_REFS], metrics=["rouge1"])
        assert got["rouge1"].fmeasure.tolist() == [prf.fmeasure for prf in out["ROUGE-1"]], kind


BLEU_TOKENIZERS = ("13a", "intl", "zh", "char")


def test_bleu(route):
    for tokenize in BLEU_TOKENIZERS:
        metric = sacrebleu.metrics.BLEU(tokenize=tokenize)
        corpus = metric.corpus_score(HYPS, STREAMS)
        per_pair = [sacrebleu.sentence_bleu(h, r, tokenize=tokenize).score for h, r in zip(HYPS, REFS)]
        cls_pairs = [metric.sentence_score(h, r).score for h, r in zip(HYPS, REFS)]
        seg = np.array(metric._extract_corpus_statistics(HYPS, STREAMS), np.int64)
        for kind, make in KINDS.items():
            hyps, refs = make(HYPS), _subclassed(make, REFS)
            streams = [make(s) for s in STREAMS]
            what = (tokenize, kind)
            assert abs(vecscore.corpus_bleu(hyps, streams, tokenize=tokenize).score - corpus.score) <= 1e-9, what
            assert abs(vecscore.corpus_bleu(hyps, refs, tokenize=tokenize).score - corpus.score) <= 1e-9, what
            _close(vecscore.sentence_bleu(hyps, refs, tokenize=tokenize).score, per_pair, 1e-9)
            assert abs(vecscore.sentence_bleu(hyps[1], refs[1], tokenize=tokenize).score - per_pair[1]) <= 1e-9
            st = vecscore.bleu_statistics(hyps, refs, tokenize=tokenize)
            assert st.sys_len.tolist() == seg[:, 0].tolist() and st.ref_len.tolist() == seg[:, 1].tolist(), what
            assert st.correct.tolist() == seg[:, 2:6].tolist() and st.total.tolist() == seg[:, 6:10].tolist(), what
            ours = vecscore.BLEU(tokenize=tokenize)
            assert abs(ours.corpus_score(hyps, streams).score - corpus.score) <= 1e-9, what
            _close(ours.sentence_scores(hyps, refs).score, cls_pairs, 1e-9)
            assert abs(ours.sentence_score(hyps[0], refs[0]).score - cls_pairs[0]) <= 1e-9, what
            cached = vecscore.BLEU(tokenize=tokenize, references=streams)
            assert abs(cached.corpus_score(hyps).score - corpus.score) <= 1e-9, what
            _close(cached.sentence_scores(hyps).score, cls_pairs, 1e-9)


def test_bleu_token_lists(route):
    """``tokenize="none"`` on token lists whose tokens are subclasses: sacreBLEU on the joined exact tokens."""
    h_tok = [h.split() for h in HYPS]
    r_tok = [[x.split() for x in r] for r in REFS]
    streams = [[" ".join(r[k]) for r in r_tok] for k in range(2)]
    expected = sacrebleu.corpus_bleu([" ".join(t) for t in h_tok], streams, tokenize="none").score
    for kind, make in KINDS.items():
        got = vecscore.corpus_bleu([make(t) for t in h_tok], [[make(t) for t in r] for r in r_tok], tokenize="none")
        assert abs(got.score - expected) <= 1e-9, kind


def test_nltk(route):
    h_tok = [h.split() for h in HYPS]
    r_tok = [[x.split() for x in r] for r in REFS]
    m1 = nltk_bleu.SmoothingFunction().method1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        corpus = nltk_bleu.corpus_bleu(r_tok, h_tok, smoothing_function=m1)
        sentences = [nltk_bleu.sentence_bleu(r, h, smoothing_function=m1) for h, r in zip(h_tok, r_tok)]
    for kind, make in KINDS.items():
        hyps, refs = [make(t) for t in h_tok], [[make(t) for t in r] for r in r_tok]
        assert abs(vecscore.nltk_corpus_bleu(hyps, refs, smoothing="method1") - corpus) <= TOL, kind
        _close(vecscore.nltk_sentence_bleu(hyps, refs, smoothing="method1"), sentences)
        # texts split by the "none" tokenizer (str.split)
        got = vecscore.nltk_sentence_bleu(make(HYPS), _subclassed(make, REFS), smoothing="method1", tokenize="none")
        _close(got, sentences)


def test_chrf(route):
    for word_order in (0, 2):
        metric = sacrebleu.metrics.CHRF(word_order=word_order)
        corpus = metric.corpus_score(HYPS, STREAMS).score
        per_pair = [metric.sentence_score(h, r).score for h, r in zip(HYPS, REFS)]
        seg = np.array(metric._extract_corpus_statistics(HYPS, STREAMS), np.int64)
        for kind, make in KINDS.items():
            hyps, refs, streams = make(HYPS), _subclassed(make, REFS), [make(s) for s in STREAMS]
            what = (word_order, kind)
            assert abs(vecscore.corpus_chrf(hyps, streams, word_order=word_order).score - corpus) <= 1e-9, what
            assert abs(vecscore.corpus_chrf(hyps, refs, word_order=word_order).score - corpus) <= 1e-9, what
            assert vecscore.chrf_statistics(hyps, refs, word_order=word_order).tolist() == seg.tolist(), what
            assert abs(vecscore.sentence_chrf(hyps[1], refs[1], word_order=word_order).score - per_pair[1]) <= 1e-9
            ours = vecscore.CHRF(word_order=word_order)
            assert abs(ours.corpus_score(hyps, streams).score - corpus) <= 1e-9, what
            _close(ours.sentence_scores(hyps, refs), per_pair, 1e-9)
            assert abs(ours.sentence_score(hyps[3], refs[3]).score - per_pair[3]) <= 1e-9, what
            cached = vecscore.CHRF(word_order=word_order, references=streams)
            assert abs(cached.corpus_score(hyps).score - corpus) <= 1e-9, what
            lower = vecscore.CHRF(lowercase=True).sentence_scores(hyps, refs)
            _close(lower, [sacrebleu.metrics.CHRF(lowercase=True).sentence_score(h, r).score
                           for h, r in zip(HYPS, REFS)], 1e-9)


def test_ter(route):
    metric = sacrebleu.metrics.TER()
    corpus = metric.corpus_score(HYPS, STREAMS).score
    per_pair = [metric.sentence_score(h, r).score for h, r in zip(HYPS, REFS)]
    seg = np.array(metric._extract_corpus_statistics(HYPS, STREAMS), np.float64)
    for kind, make in KINDS.items():
        hyps, refs, streams = make(HYPS), _subclassed(make, REFS), [make(s) for s in STREAMS]
        assert abs(vecscore.corpus_ter(hyps, streams).score - corpus) <= 1e-9, kind
        assert abs(vecscore.corpus_ter(hyps, refs).score - corpus) <= 1e-9, kind
        edits, ref_length = vecscore.ter_statistics(hyps, refs)
        assert edits.tolist() == seg[:, 0].tolist() and ref_length.tolist() == seg[:, 1].tolist(), kind
        assert abs(vecscore.sentence_ter(hyps[0], refs[0]).score - per_pair[0]) <= 1e-9, kind
        ours = vecscore.TER()
        assert abs(ours.corpus_score(hyps, streams).score - corpus) <= 1e-9, kind
        _close(ours.sentence_scores(hyps, refs), per_pair, 1e-9)
        assert abs(ours.sentence_score(hyps[2], refs[2]).score - per_pair[2]) <= 1e-9, kind
        assert abs(vecscore.TER(references=streams).corpus_score(hyps).score - corpus) <= 1e-9, kind
        case = vecscore.TER(case_sensitive=True).sentence_scores(hyps, refs)
        _close(case, [sacrebleu.metrics.TER(case_sensitive=True).sentence_score(h, r).score
                      for h, r in zip(HYPS, REFS)], 1e-9)


@pytest.mark.filterwarnings("ignore::vecscore.EmptyTokenizationWarning")
def test_shared_references(route):
    shared_refs = [r for rs in REFS for r in rs][:5]
    bleu = [sacrebleu.sentence_bleu(h, shared_refs).score for h in HYPS]
    corpus = sacrebleu.corpus_bleu(HYPS, [[r] * len(HYPS) for r in shared_refs]).score
    rouge = _rouge_score_multi(HYPS, [shared_refs] * len(HYPS), ["rouge1", "rougeL"])
    m1 = nltk_bleu.SmoothingFunction().method1
    tok_refs = [r.split() for r in shared_refs]
    nltk_scores = [nltk_bleu.sentence_bleu(tok_refs, h.split(), smoothing_function=m1) for h in HYPS]
    for kind, make in KINDS.items():
        shared = vecscore.SharedReferences(make(shared_refs))
        _close(shared.sentence_bleu(make(HYPS)).score, bleu, 1e-9)
        assert abs(shared.corpus_bleu(make(HYPS)).score - corpus) <= 1e-9, kind
        got = shared.rouge(make(HYPS), metrics=["rouge1", "rougeL"])
        _close(got["rouge1"].fmeasure, rouge["rouge1"])
        _close(got["rougeL"].fmeasure, rouge["rougeL"])
        tokens = vecscore.SharedReferences([make(t) for t in tok_refs])
        _close(tokens.nltk_sentence_bleu([make(h.split()) for h in HYPS], smoothing="method1"), nltk_scores)


def test_significance(route):
    other = ["the cat sat on a mat", "Le café est bon", "a fox jumps over a dog", "東京は大きい", "nothing"]
    base_score = sacrebleu.corpus_bleu(HYPS, STREAMS).score
    other_score = sacrebleu.corpus_bleu(other, STREAMS).score
    for kind, make in KINDS.items():
        streams = [make(s) for s in STREAMS]
        ci = vecscore.confidence_interval(vecscore.BLEU(), make(HYPS), streams, n_bootstrap=20, seed=1)
        assert abs(ci.score - base_score) <= 1e-9, kind
        res = vecscore.paired_bootstrap(vecscore.BLEU(), make(HYPS), {"other": make(other)}, streams,
                                        n_samples=20, seed=1)
        scores = [r.score for r in next(iter(res.results.values()))]
        _close(scores, [base_score, other_score], 1e-9)


# --- issue 28, item 3: the cases reported -----------------------------------------------------------------


class Canned(str, enum.Enum):
    GREETING = "hello there general kenobi"
    SHORT = "hello there"


def test_enum_member_scores_its_characters_whatever_the_batch_size(route):
    """Item 3: a ``(str, Enum)`` member was its ``str()`` (``'Canned.GREETING'``) on the compiled route and its
    characters on the plain route, so the number depended on the batch size."""
    expected = sacrebleu.sentence_bleu("hello there general kenobi", ["hello there"]).score
    got = vecscore.sentence_bleu([Canned.GREETING], [Canned.SHORT]).score
    assert abs(got[0] - expected) <= 1e-9
    rs = rouge_scorer.RougeScorer(["rouge1"]).score("hello there", "hello there general kenobi")["rouge1"].fmeasure
    assert abs(vecscore.rouge([Canned.GREETING], [Canned.SHORT], metrics=["rouge1"])["rouge1"].fmeasure[0] - rs) <= TOL


def test_len_override_in_chrf(route):
    """Item 3: compiled chrF called a subclass's ``__len__``."""
    chrf = sacrebleu.metrics.CHRF().sentence_score("the cat sat", ["the cat"]).score
    got = vecscore.CHRF().sentence_scores([LenOverride("the cat sat")], [[LenOverride("the cat")]])
    assert abs(got[0] - chrf) <= 1e-9


def test_encode_override_in_rouge_weighted(route):
    """Item 3: ``rouge_weighted`` called a subclass's ``encode()`` (non-ASCII text, a tokenizer of vecscore's own)."""
    w = _weighted_oracle("le café est très bon", ["le café"], 1, "whitespace")
    got = vecscore.rouge_weighted([EncodeOverride("le café est très bon")], [EncodeOverride("le café")],
                                  metrics=["rouge1"], tokenizer="whitespace")
    assert abs(got["rouge1"].fmeasure[0] - w) <= TOL


def test_split_override_in_rouge155(route, perl_rouge, tmp_path):
    """Item 3: the plain rouge155 route called a subclass's ``split()``."""
    out = perl_rouge.score(["police killed the gunman"], [["police kill the gunman"]], ["-n", "2"], workdir=tmp_path)
    got = vecscore.rouge155([SplitOverride("police killed the gunman")], [SplitOverride("police kill the gunman")],
                            metrics=["rouge1"])
    assert got["rouge1"].fmeasure.tolist() == [prf.fmeasure for prf in out["ROUGE-1"]]


def test_eq_override_in_ter(route):
    """Item 3: a subclass with ``__eq__`` (so unhashable) gave TER a bare TypeError."""
    ter = sacrebleu.metrics.TER().sentence_score("the cat sat", ["the cat"]).score
    assert abs(vecscore.TER().sentence_scores([EqOverride("the cat sat")], [[EqOverride("the cat")]])[0] - ter) <= 1e-9


def test_shared_references_take_numpy_str(route):
    """Item 3: ``SharedReferences`` with NumPy ``str_`` rows raised a bare StopIteration."""
    refs = np.array(["the cat is on the mat", "there is a cat on the mat"])
    assert type(refs[0]) is np.str_
    expected = sacrebleu.sentence_bleu("the cat sat on the mat", list(map(str, refs))).score
    got = vecscore.SharedReferences(refs).sentence_bleu(np.array(["the cat sat on the mat"])).score
    assert abs(got[0] - expected) <= 1e-9


# --- issue 28, item 4: references changed during the call ------------------------------------------------


PAIRS = 12
M_HYPS = [f"the cat number {i} sat on the mat" for i in range(PAIRS)]
M_REFS = [[f"a cat number {i} sat on a mat", f"the dog number {i} ran", f"cat {i} on mat"] for i in range(PAIRS)]


class Mutating(list):
    """A pair's references that change while they are read: the ``at``-th call of any of the list's reading
    methods (``__iter__``, ``__len__``, ``__getitem__``) first runs ``change`` (as another thread would, at that
    moment), then answers from the list as it is then."""

    def __init__(self, items, at: int, change):
        super().__init__(items)
        self.calls, self.at, self.change = 0, at, change

    def _tick(self):
        self.calls += 1
        if self.calls == self.at:
            self.change(self)

    def __iter__(self):
        self._tick()
        return list.__iter__(self)

    def __len__(self):
        self._tick()
        return list.__len__(self)

    def __getitem__(self, i):
        self._tick()
        return list.__getitem__(self, i)


def _chrf_pairs(hyps, refs):
    metric = sacrebleu.metrics.CHRF()
    return [metric.sentence_score(h, r).score for h, r in zip(hyps, refs)]


#: a change to the references (the user's outer list) that another thread could make during a call
CHANGES = {
    "pop its own last reference": lambda refs: refs[3].pop(),
    "append to its own references": lambda refs: refs[3].append("a cat number 3 sat on the mat"),
    "pop a later pair's reference": lambda refs: refs[7].pop(),
    "append to an earlier pair's references": lambda refs: refs[1].append("the cat number 1 sat on the mat"),
}

#: a call that takes per-pair reference lists, and its oracle (per pair, from sacreBLEU or rouge-score)
CALLS = {
    "CHRF.sentence_scores": (lambda h, r: vecscore.CHRF(refs_layout="per-example").sentence_scores(h, r),
                             _chrf_pairs),
    "sentence_bleu": (lambda h, r: vecscore.sentence_bleu(h, r).score,
                      lambda h, r: [sacrebleu.sentence_bleu(x, y).score for x, y in zip(h, r)]),
    "rouge": (lambda h, r: vecscore.rouge(h, r, metrics=["rougeL"])["rougeL"].fmeasure,
              lambda h, r: _rouge_score_multi(h, r, ["rougeL"])["rougeL"]),
}


@pytest.mark.parametrize("at", range(1, 8))
@pytest.mark.parametrize("change", list(CHANGES))
@pytest.mark.parametrize("call", list(CALLS))
def test_references_changed_while_read(call, change, at, monkeypatch):
    """Item 4: the references change while pair 3's list is read, at the ``at``-th call of one of its reading
    methods (every point at which a reader looks at it).  The scores are, pair by pair, the oracle's for the
    references before the change or after it, or the call raises VecscoreError: the lengths are never counted
    in one pass and the items taken in another (which paired every later hypothesis with the references of
    the pair before it, without an error)."""
    monkeypatch.setenv("VECSCORE_ROUTE", "plain")
    score, oracle = CALLS[call]
    after = [list(r) for r in M_REFS]
    CHANGES[change](after)
    readings = {"before": np.array(oracle(M_HYPS, M_REFS)), "after": np.array(oracle(M_HYPS, after))}
    refs = [list(r) for r in M_REFS]
    refs[3] = Mutating(refs[3], at, lambda _: CHANGES[change](refs))
    try:
        got = np.asarray(score(M_HYPS, refs), np.float64)
    except VecscoreError:
        return
    assert any(np.allclose(got, r, rtol=0, atol=1e-9) for r in readings.values()), (got, readings)


def test_references_changed_by_another_thread(monkeypatch):
    """Item 4 with a real second thread: while calls run, the thread switches pairs' reference lists between
    two contents of different lengths (``lst[:] = ...``, atomic in CPython).  Every call's scores are, pair by
    pair, the oracle's for one of the two contents of that pair."""
    monkeypatch.setenv("VECSCORE_ROUTE", "plain")
    n = 200
    hyps = [f"the cat number {i} sat on the mat" for i in range(n)]
    one = [[f"a cat number {i} sat on a mat"] for i in range(n)]
    two = [[f"the dog number {i} ran far", f"the cat number {i} sat on the mat"] for i in range(n)]
    exp_one, exp_two = np.array(_chrf_pairs(hyps, one)), np.array(_chrf_pairs(hyps, two))
    refs = [list(r) for r in one]
    stop = threading.Event()

    def flip():
        k = 0
        while not stop.is_set():
            for i in range(0, n, 3):
                refs[i][:] = two[i] if k % 2 == 0 else one[i]
            k += 1

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    thread = threading.Thread(target=flip, daemon=True)
    thread.start()
    try:
        for _ in range(30):
            got = vecscore.CHRF(refs_layout="per-example").sentence_scores(hyps, refs)
            ok = np.isclose(got, exp_one, rtol=0, atol=1e-9) | np.isclose(got, exp_two, rtol=0, atol=1e-9)
            assert ok.all(), np.flatnonzero(~ok)[:10]
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(old)


# --- issue 28, item 5: one layout rule for every function and method that takes references ---------------


SQ_HYPS = ["the cat sat on the mat", "a dog ran in the park"]
#: per pair, a list of 2 references: as many as the pairs, and read as streams it means something else
SQ_REFS = [["the cat sat on the mat", "a dog ran"], ["a dog ran in the park", "a cat"]]
BOTH = r"refs_layout='streams' or refs_layout='per-example'"


def _ambiguous_calls(refs):
    """Every function and method that takes references, on ``refs`` with its default layout."""
    h = SQ_HYPS
    return {
        "corpus_bleu": lambda: vecscore.corpus_bleu(h, refs),
        "sentence_bleu": lambda: vecscore.sentence_bleu(h, refs),
        "bleu_statistics": lambda: vecscore.bleu_statistics(h, refs),
        "BLEU.corpus_score": lambda: vecscore.BLEU().corpus_score(h, refs),
        "BLEU.sentence_scores": lambda: vecscore.BLEU().sentence_scores(h, refs),
        "BLEU.statistics": lambda: vecscore.BLEU().statistics(h, refs),
        "BLEU(references=)": lambda: vecscore.BLEU(references=refs),
        "corpus_chrf": lambda: vecscore.corpus_chrf(h, refs),
        "chrf_statistics": lambda: vecscore.chrf_statistics(h, refs),
        "CHRF.corpus_score": lambda: vecscore.CHRF().corpus_score(h, refs),
        "CHRF.sentence_scores": lambda: vecscore.CHRF().sentence_scores(h, refs),
        "CHRF.statistics": lambda: vecscore.CHRF().statistics(h, refs),
        "CHRF(references=)": lambda: vecscore.CHRF(references=refs),
        "corpus_ter": lambda: vecscore.corpus_ter(h, refs),
        "ter_statistics": lambda: vecscore.ter_statistics(h, refs),
        "TER.corpus_score": lambda: vecscore.TER().corpus_score(h, refs),
        "TER.sentence_scores": lambda: vecscore.TER().sentence_scores(h, refs),
        "TER.statistics": lambda: vecscore.TER().statistics(h, refs),
        "TER(references=)": lambda: vecscore.TER(references=refs),
        "rouge auto": lambda: vecscore.rouge(h, refs, refs_layout="auto"),
        "nltk auto": lambda: vecscore.nltk_sentence_bleu([x.split() for x in h],
                                                        [[r.split() for r in rs] for rs in refs], refs_layout="auto"),
        "confidence_interval": lambda: vecscore.confidence_interval(vecscore.CHRF(), h, refs, n_bootstrap=10, seed=1),
        "paired_bootstrap": lambda: vecscore.paired_bootstrap(vecscore.BLEU(), h, {"b": h[::-1]}, refs,
                                                              n_samples=10, seed=1),
    }


@pytest.mark.parametrize("name", list(_ambiguous_calls(SQ_REFS)))
def test_ambiguous_layout_is_refused_everywhere(name, monkeypatch):
    """Item 5: as many reference lists as pairs, each as long as the number of pairs, whose two readings differ:
    refused, naming both spellings, by every function and method (sentence_bleu already did)."""
    monkeypatch.setenv("VECSCORE_ROUTE", "plain")
    with pytest.raises(VecscoreError, match=BOTH):
        _ambiguous_calls(SQ_REFS)[name]()


def test_named_layouts_give_the_oracle():
    """Item 5: with the layout named, each reading gives its oracle's number."""
    streams_pairs = [[SQ_REFS[k][i] for k in range(2)] for i in range(2)]  # what the streams reading means
    for layout, pairs in (("per-example", SQ_REFS), ("streams", streams_pairs)):
        chrf = [sacrebleu.metrics.CHRF().sentence_score(h, r).score for h, r in zip(SQ_HYPS, pairs)]
        ter = [sacrebleu.metrics.TER().sentence_score(h, r).score for h, r in zip(SQ_HYPS, pairs)]
        bleu = [sacrebleu.metrics.BLEU().sentence_score(h, r).score for h, r in zip(SQ_HYPS, pairs)]
        _close(vecscore.CHRF(refs_layout=layout).sentence_scores(SQ_HYPS, SQ_REFS), chrf, 1e-9)
        _close(vecscore.TER(refs_layout=layout).sentence_scores(SQ_HYPS, SQ_REFS), ter, 1e-9)
        _close(vecscore.BLEU(refs_layout=layout).sentence_scores(SQ_HYPS, SQ_REFS).score, bleu, 1e-9)
        _close(vecscore.chrf_statistics(SQ_HYPS, SQ_REFS, refs_layout=layout),
               sacrebleu.metrics.CHRF()._extract_corpus_statistics(SQ_HYPS, [list(x) for x in zip(*pairs)]))


def test_unambiguous_shapes_keep_sacrebleus_numbers():
    """sacreBLEU's own calls (streams, one entry per hypothesis) give its numbers from the functions and the
    classes; per-pair lists that cannot be streams are read per pair; a symmetric square reads the same both
    ways and is taken."""
    hyps = SQ_HYPS + ["the bird sang"]
    streams = [["the cat sat on the mat", "a dog ran", "a bird sang"], ["a cat sat", "the dog ran in a park", None]]
    for ours, theirs in ((vecscore.BLEU(), sacrebleu.metrics.BLEU()), (vecscore.CHRF(), sacrebleu.metrics.CHRF()),
                         (vecscore.TER(), sacrebleu.metrics.TER())):
        assert abs(ours.corpus_score(hyps, streams).score - theirs.corpus_score(hyps, streams).score) <= 1e-9
        cached = type(ours)(references=streams)
        assert abs(cached.corpus_score(hyps).score - theirs.corpus_score(hyps, streams).score) <= 1e-9
    per_pair = [["the cat sat on the mat"], ["a dog ran", "the dog ran in the park", "a dog"], ["a bird sang"]]
    chrf = [sacrebleu.metrics.CHRF().sentence_score(h, r).score for h, r in zip(hyps, per_pair)]
    _close(vecscore.CHRF().sentence_scores(hyps, per_pair), chrf, 1e-9)
    symmetric = [["the cat sat", "a dog"], ["a dog", "a dog ran"]]
    chrf = [sacrebleu.metrics.CHRF().sentence_score(h, r).score for h, r in zip(SQ_HYPS, symmetric)]
    _close(vecscore.CHRF().sentence_scores(SQ_HYPS, symmetric), chrf, 1e-9)


def test_cached_per_pair_lists_read_as_streams_say_so():
    """Cached references are read before any hypothesis: equal-length lists are sacreBLEU's streams, and a call
    with another number of hypotheses names the other layout."""
    per_pair = [["the cat sat", "a cat"], ["a dog ran", "the dog"], ["a bird sang", "birds"]]
    with pytest.raises(VecscoreError, match="refs_layout='per-example'"):
        vecscore.CHRF(references=per_pair).sentence_scores(["the cat sat", "a dog ran", "a bird"])
    got = vecscore.CHRF(references=per_pair, refs_layout="per-example").sentence_scores(
        ["the cat sat", "a dog ran", "a bird"])
    _close(got, [sacrebleu.metrics.CHRF().sentence_score(h, r).score
                 for h, r in zip(["the cat sat", "a dog ran", "a bird"], per_pair)], 1e-9)
