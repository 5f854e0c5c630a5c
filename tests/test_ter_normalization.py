"""TER's reference tokenization: sacreBLEU 2.6 tokenizes every reference twice, vecscore reproduces it by default
and tokenizes once with ``reference_normalization="once"``.

sacreBLEU's ``Metric._cache_references`` tokenizes each reference (``_preprocess_segment``) and hands the result
to ``TER._extract_reference_info``, which tokenizes it again; hypotheses are tokenized once.  With
``normalized=True`` tercom's normalization is not idempotent (``"it's,"`` -> ``"it's ,"`` -> ``"it 's ,"``), so
the second pass changes references.  Every expected number here comes from sacreBLEU: as installed for the
default, and with ``_extract_reference_info`` patched to split the already tokenized references without
tokenizing them again for ``"once"`` (:func:`sacrebleu_tokenizing_once`).
"""
from __future__ import annotations

import itertools
import json
import os
import random
from contextlib import contextmanager

import numpy as np
import pytest

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import TER as SacreTER  # noqa: E402

from tests.conftest import data_file  # noqa: E402
from vecscore.errors import VecscoreError  # noqa: E402
from vecscore.ter import TER, corpus_ter, sentence_ter, ter_signature, ter_statistics  # noqa: E402
from vecscore.ter.tokenize import TerTokenizer  # noqa: E402

OPTION_NAMES = ("normalized", "no_punct", "asian_support", "case_sensitive")
ALL_OPTIONS = [dict(zip(OPTION_NAMES, combo)) for combo in itertools.product((False, True), repeat=4)]


def _opt_id(opts: dict) -> str:
    return "-".join(k for k, v in opts.items() if v) or "default"


@contextmanager
def sacrebleu_tokenizing_once():
    """sacreBLEU with each reference tokenized once: ``_extract_reference_info`` only splits the lines that
    ``_cache_references`` has already tokenized (its only caller in sacreBLEU 2.6)."""
    def split_only(self, refs):
        return {"ref_words": [line.split() for line in refs]}

    with pytest.MonkeyPatch.context() as m:
        m.setattr(SacreTER, "_extract_reference_info", split_only)
        yield


def test_the_patch_makes_sacrebleu_tokenize_references_once():
    """The patched sacreBLEU's reference tokens are one pass of its tokenizer, and the patch changes its numbers."""
    text = "It's the dog's, not the cat's."
    assert sacrebleu.sentence_ter(text, [text], normalized=True).score > 18
    with sacrebleu_tokenizing_once():
        metric = SacreTER(normalized=True)
        words = metric._cache_references([[text]])[0]["ref_words"][0]
        assert words == metric._preprocess_segment(text).split()
        assert sacrebleu.sentence_ter(text, [text], normalized=True).score == 0.0
    assert sacrebleu.sentence_ter(text, [text], normalized=True).score > 18  # the patch is undone


# --- adversarial strings: the normalization is not idempotent on most of them --------------------------------

STRINGS = [
    "it's,", "It's the dog's, not the cat's.", ",.1", "ft.,12 ft.", "a's.", "IT'S, JOHN'S.", "x.,y", "1,.,2",
    "the cat's. 中文's，", "&quot;it's&quot;,", "rock 'n' roll's, ok", "e\u0301's, \u00c9's.", "Ｔｈｅ's，x's.",
    "8 ft.,12 ft. lange Proteine.", "a.,b.,c", "Hello, World!", "", "3.14-2,5", "日本語のテキスト、カタカナ。",
    "plain words only",
]


def _sacre_stats(opts: dict, hyps, streams):
    """sacreBLEU's per-segment statistics and its corpus score, through every public route it has."""
    metric = SacreTER(**opts)
    stats = metric._extract_corpus_statistics(hyps, streams)
    corpus = metric.corpus_score(hyps, streams)
    assert (sacrebleu.corpus_ter(hyps, streams, **opts).score, SacreTER(**opts, references=streams)
            .corpus_score(hyps, None).score) == (corpus.score, corpus.score)
    return stats, corpus


def _sentence_refs(streams, i):
    return [s[i] for s in streams if s[i] is not None]


def _check_against(opts: dict, hyps, streams, vec_kw: dict):
    """Every vecscore TER entry (with ``vec_kw``) against sacreBLEU as it is currently patched; returns sacreBLEU's
    corpus statistics (edits, reference length)."""
    stats, want = _sacre_stats(opts, hyps, streams)
    exp_edits = [s[0] for s in stats]
    exp_len = [s[1] for s in stats]
    exp_sent = np.array([SacreTER(**opts)._compute_score_from_stats(s).score for s in stats])

    for got in (corpus_ter(hyps, streams, **opts, **vec_kw), TER(**opts, **vec_kw).corpus_score(hyps, streams),
                TER(**opts, **vec_kw, references=streams).corpus_score(hyps)):
        assert (got.num_edits, got.ref_length) == (want.num_edits, want.ref_length)
        assert abs(got.score - want.score) <= 1e-9
    for edits, ref_len in (ter_statistics(hyps, streams, **opts, **vec_kw),
                           TER(**opts, **vec_kw).statistics(hyps, streams),
                           TER(**opts, **vec_kw, references=streams).statistics(hyps)):
        assert edits.tolist() == exp_edits
        assert ref_len.tolist() == exp_len
    assert np.abs(TER(**opts, **vec_kw).sentence_scores(hyps, streams) - exp_sent).max() <= 1e-9
    one = TER(**opts, **vec_kw)
    for i, hyp in enumerate(hyps):
        refs = _sentence_refs(streams, i)
        exp = SacreTER(**opts).sentence_score(hyp, refs)
        assert exp.score == sacrebleu.sentence_ter(hyp, refs, **opts).score
        for got in (one.sentence_score(hyp, refs), sentence_ter(hyp, refs, **opts, **vec_kw)):
            assert (got.num_edits, got.ref_length) == (exp.num_edits, exp.ref_length), (i, hyp)
            assert abs(got.score - exp.score) <= 1e-9, (i, hyp)
    return exp_edits, exp_len


@pytest.mark.parametrize("route", ["plain", "compiled"])
@pytest.mark.parametrize("opts", ALL_OPTIONS, ids=_opt_id)
def test_every_entry_against_sacrebleu_twice_and_once(monkeypatch, route, opts):
    """Identical hypothesis and reference (where a single tokenization gives TER 0), then a second reference
    stream with gaps (a variable number of references): sacreBLEU as installed against the default, sacreBLEU
    tokenizing references once against ``reference_normalization="once"``.  TER has one scoring route (its
    kernel); ``VECSCORE_ROUTE`` is set to both values so that neither can take another tokenization."""
    monkeypatch.setenv("VECSCORE_ROUTE", route)
    hyps = list(STRINGS)
    second = STRINGS[1:] + STRINGS[:1]
    second = [None if i % 5 == 2 else r for i, r in enumerate(second)]
    for streams in ([list(STRINGS)], [list(STRINGS), second]):
        twice = _check_against(opts, hyps, streams, {})
        assert twice == _check_against(opts, hyps, streams, {"reference_normalization": "twice"})
        with sacrebleu_tokenizing_once():
            once = _check_against(opts, hyps, streams, {"reference_normalization": "once"})
        if opts["normalized"]:  # the two tokenizations really differ here, so each comparison can fail
            assert twice != once
            if len(streams) == 1:
                assert once[0] == [0] * len(hyps)  # a hypothesis equal to its reference has no edits...
                assert sum(e > 0 for e in twice[0]) >= 7  # ...except after sacreBLEU's second pass
        else:  # one pass is all that changes anything without the normalization
            assert twice == once


@pytest.mark.parametrize("opts", ALL_OPTIONS, ids=_opt_id)
def test_reference_tokens_are_sacrebleus_cached_words(opts):
    """``TerTokenizer(passes=2)`` gives the words sacreBLEU caches for a reference; ``passes=1`` those it gives a
    hypothesis (and, patched, a reference)."""
    from tests.test_ter import ADVERSARIAL

    texts = STRINGS + ADVERSARIAL
    metric = SacreTER(**opts)
    cached = [c["ref_words"][0] for c in metric._cache_references([texts])]
    assert [list(TerTokenizer(**opts, passes=2)(t)) for t in texts] == cached
    assert [list(TerTokenizer(**opts)(t)) for t in texts] == [metric._preprocess_segment(t).split() for t in texts]
    with sacrebleu_tokenizing_once():
        cached_once = [c["ref_words"][0] for c in SacreTER(**opts)._cache_references([texts])]
    assert [list(TerTokenizer(**opts, passes=1)(t)) for t in texts] == cached_once
    if opts["normalized"]:
        assert cached != cached_once


# --- real data: WMT21 TED en-de, a system output as a second reference ----------------------------------------

def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


#: line 322 of eTranslation.de ("8 ft.,12 ft. lange Proteine."): the one TED line whose tokens change in a second
#: normalization pass (",12" -> ", 12"); checked over every file of wmt21-ted-mqm and the WMT21 news references
_ETRANSLATION_ROW = 321


@pytest.mark.parametrize("opts", [{"normalized": True}, {"normalized": True, "case_sensitive": True},
                                  {"normalized": True, "asian_support": True}], ids=_opt_id)
def test_ted_ende_with_a_system_output_as_reference(shared_data, opts):
    """Two systems scored against the human reference and eTranslation's output (as when systems are compared
    with each other): sacreBLEU's corpus and segment numbers by default, its one-pass numbers with "once".
    ``VECSCORE_TER_SEGMENTS`` sets the sample size (0 or unset: 40 segments; any value >= 529: all)."""
    root = shared_data / "wmt21-ted-mqm" / "ende"
    refs = [_read(data_file(root, "ref.de")), _read(data_file(root, "systems", "eTranslation.de"))]
    n = len(refs[0])
    count = int(os.environ.get("VECSCORE_TER_SEGMENTS", "0")) or 40
    rows = sorted(set(random.Random(28).sample(range(n), min(count, n))) | {_ETRANSLATION_ROW})
    streams = [[r[i] for i in rows] for r in refs]
    at = rows.index(_ETRANSLATION_ROW)
    for system in ("Facebook-AI", "UEdin"):
        full = _read(data_file(root, "systems", f"{system}.de"))
        hyps = [full[i] for i in rows]
        edits, ref_len = _check_against(opts, hyps, streams, {})
        with sacrebleu_tokenizing_once():
            edits1, ref_len1 = _check_against(opts, hyps, streams, {"reference_normalization": "once"})
        assert ref_len[at] == ref_len1[at] + 0.5  # one more token in one of two references
        assert [i for i in range(len(rows)) if ref_len[i] != ref_len1[i]] == [at]


# --- the command line ---------------------------------------------------------------------------------------------

def test_cli_ter_is_sacrebleus_twice(tmp_path, capsys):
    """``vecscore ter --ter-normalized`` (corpus and --per-pair) gives sacreBLEU's numbers on lines where one
    tokenization pass would give other ones."""
    from vecscore.cli.main import main

    hyps = [s for s in STRINGS if s]
    ref2 = hyps[3:] + hyps[:3]
    files = {}
    for name, lines in (("hyps", hyps), ("refs", hyps), ("refs2", ref2)):
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["ter", "--hyps", str(files["hyps"]), "--refs", str(files["refs"]), "--refs", str(files["refs2"]),
            "--ter-normalized"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    want = sacrebleu.corpus_ter(hyps, [hyps, ref2], normalized=True)
    assert (out["num_edits"], out["ref_length"]) == (want.num_edits, want.ref_length)
    assert out["score"] == pytest.approx(want.score, abs=1e-9)
    assert main(args + ["--per-pair"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    for row, h, r2 in zip(rows, hyps, ref2):
        assert row["ter_score"] == pytest.approx(sacrebleu.sentence_ter(h, [h, r2], normalized=True).score,
                                                 abs=1e-9)
    with sacrebleu_tokenizing_once():
        once = sacrebleu.corpus_ter(hyps, [hyps, ref2], normalized=True)
    assert want.score != once.score
    assert main(args + ["--ter-reference-normalization", "once"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["num_edits"], out["ref_length"]) == (once.num_edits, once.ref_length)
    assert out["score"] == pytest.approx(once.score, abs=1e-9)


# --- the option itself --------------------------------------------------------------------------------------------

def test_signature_names_once_and_only_once():
    hyps, streams = ["it's,"], [["it's,"]]
    default = TER(normalized=True)
    default.corpus_score(hyps, streams)
    theirs = SacreTER(normalized=True)
    theirs.corpus_score(hyps, streams)
    assert default.get_signature().rsplit("|", 1)[0] == str(theirs.get_signature()).rsplit("|", 1)[0]
    assert "refnorm" not in TER(reference_normalization="twice").corpus_score(hyps, streams).signature
    once = TER(normalized=True, reference_normalization="once")
    score = once.corpus_score(hyps, streams)
    head, version = default.get_signature().rsplit("|", 1)
    assert once.get_signature() == score.signature == f"{head}|refnorm:once|{version}"
    short_head, short_version = default.get_signature(short=True).rsplit("|", 1)
    assert once.get_signature(short=True) == f"{short_head}|refnorm:once|{short_version}"
    assert sentence_ter("a", ["a"], reference_normalization="once").signature.endswith(f"|refnorm:once|{version}")
    assert ter_signature(1, True, reference_normalization="once") == f"{head}|refnorm:once|{version}"
    assert "reference_normalization='once'" in repr(once) and "reference_normalization" not in repr(default)


def test_bad_option_value_is_refused():
    for bad in ("double", None, 2, "Once"):
        with pytest.raises(VecscoreError, match="reference_normalization must be 'twice'"):
            TER(reference_normalization=bad)
        with pytest.raises(VecscoreError, match="reference_normalization"):
            corpus_ter(["a"], [["a"]], reference_normalization=bad)
    with pytest.raises(VecscoreError, match="passes"):
        TerTokenizer(passes=0)


@pytest.mark.parametrize("norm", ["twice", "once"])
def test_significance_tests_keep_the_option(norm):
    """The paired tests rebuild the metric with the references cached: the option must survive that."""
    import vecscore

    hyps = ["It's the dog's, not the cat's.", "8 ft.,12 ft. high"]
    refs = [list(hyps)]
    metric = TER(normalized=True, reference_normalization=norm)
    with sacrebleu_tokenizing_once() if norm == "once" else _as_installed():
        want = sacrebleu.corpus_ter(hyps, refs, normalized=True).score
    assert (want == 0.0) == (norm == "once")
    result = vecscore.paired_bootstrap(metric, hyps, {"same": hyps}, refs, n_samples=20, seed=1)
    baseline = next(iter(result.results.values()))[0]
    assert baseline.score == want


@contextmanager
def _as_installed():
    yield
