"""Non-ASCII ``str`` read in place (vecscore.kernels.in_place widths, vecscore.kernels.wide_text).

Expected bytes come from Python (``str.lower``, ``str.isspace``, ``str.encode``) and the plain
twins in ``wide_text``, which are checked against Python on every code point; expected tokens and
scores from the oracles (rouge-score's tokenizer and scorer, sacreBLEU's tokenizers and scores).
"""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.reference.bleu_py import corpus_stats
from vecscore.bleu.direct import direct_stats as bleu_direct
from vecscore.engine.pair_rows import pair_rows
from vecscore.kernels.in_place import ASCII, NON_ASCII, TextRows, str_rows, text_at
from vecscore.kernels.pair_bleu import FAST_MODES, pair_bleu_counts
from vecscore.kernels.wide_text import (
    ROUGE_SCORE,
    UTF8,
    WIDE_SPACES,
    ZH,
    ZH_FIXED,
    rouge_score_bytes,
    sacrebleu_utf8,
    transcode_rows,
)
from vecscore.references import read_pairs, read_refs, read_texts
from vecscore.rouge.direct import direct_stats as rouge_direct
from vecscore.rouge.direct import lowered_utf8
from vecscore.rouge.options import parse_metric
from vecscore.text.unicode_tables import ZH_FIXED_RANGES, flag_table

#: tests of the reading itself; the rest also run with VECSCORE_FAST_PATH=0 (rows encoded by the twins)
in_place = pytest.mark.skipif(str_rows([]) is None, reason="this Python's str cannot be read in place")

sacrebleu = pytest.importorskip("sacrebleu")
rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a  # noqa: E402

_ALL = range(0x80, 0x110000)
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def _kind(s: str) -> int:
    top = max(map(ord, s), default=0)
    return 1 if top < 0x100 else 2 if top < 0x10000 else 4


def _bytes(rows: TextRows, i: int) -> bytes:
    return bytes(text_at(int(rows.addrs[i]), int(rows.lens[i])))


# ------------------------------------------------------------------ the twins against Python, every code point


def test_wide_spaces_are_pythons_whitespace():
    assert list(WIDE_SPACES) == [c for c in _ALL if chr(c).isspace()]


def test_rouge_score_bytes_give_rouge_scores_tokens_for_every_code_point():
    # rouge-score: str.lower(), then runs of [a-z0-9]; each code point between two letters
    for c in _ALL:
        text = "A" + chr(c) + "b"
        want = _NON_ALNUM.sub(" ", text.lower()).split()
        got = _NON_ALNUM.sub(" ", rouge_score_bytes(text).decode("ascii").lower()).split()
        assert got == want, hex(c)


def test_lowered_utf8_gives_the_same_tokens_as_the_twin():
    text = "".join(map(chr, range(0x80, 0x3000))) + "İx\u212aK\u00e9y"
    pattern = re.compile(rb"[^a-z0-9]+")
    assert pattern.sub(b" ", lowered_utf8(text)).split() == pattern.sub(b" ", rouge_score_bytes(text).lower()).split()


def _chunks(size: int) -> list[str]:
    """Every code point from U+0080 on, in strings of ``size`` with ASCII between them: all three kinds."""
    cps = list(_ALL)
    out = []
    for i in range(0, len(cps), size):
        out.append("a " + "".join(chr(c) + ("x" if c % 3 else "") for c in cps[i : i + size]) + " z")
    return out


def _utf8_passing(text: str) -> bytes:
    """:func:`sacrebleu_utf8`, with lone surrogates as ``surrogatepass`` writes them."""
    return text.translate({c: " " for c in WIDE_SPACES}).encode("utf-8", "surrogatepass")


def _zh_passing(chinese) -> object:
    """``ZH``'s bytes: the characters for which ``chinese`` holds spaced as sacreBLEU's zh does, the rest as
    :func:`_utf8_passing` writes them."""
    def twin(text: str) -> bytes:
        return _utf8_passing("".join(f" {c} " if chinese(c) and not c.isspace() else c for c in text))
    return twin


def _sacrebleu_chinese(c: str) -> bool:
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh
    return TokenizerZh._is_chinese_char(c)


def _zh_fixed_chinese(c: str) -> bool:
    return any(a <= ord(c) <= b for a, b in ZH_FIXED_RANGES)


@in_place
@pytest.mark.parametrize("mode,twin", [(ROUGE_SCORE, rouge_score_bytes), (UTF8, _utf8_passing),
                                       (ZH, _zh_passing(_sacrebleu_chinese)),
                                       (ZH_FIXED, _zh_passing(_zh_fixed_chinese))],
                         ids=["rouge-score", "utf8", "zh", "zh-fixed"])
def test_transcoding_equals_the_twin_on_every_code_point(mode, twin):
    texts = _chunks(4093) + ["é" * 9, "ü" + "abcdefgh" * 5, "\u201e" + "abcd" * 9, "😀", "İ" * 5, "\U0001f600\udfff"]
    rows = str_rows(texts)
    assert {int(w) for w in rows.width} == {1, 2, 4}
    got, lone = transcode_rows(rows, np.flatnonzero(rows.kind == NON_ASCII), mode, flag_table())
    assert (got.kind == ASCII).all()
    assert lone.tolist() == [i for i, t in enumerate(texts) if re.search("[\ud800-\udfff]", t)]
    assert len(lone) == 2  # the chunk of the surrogates, and the last text
    for i, t in enumerate(texts):
        if mode == ROUGE_SCORE and _kind(t) == 1:  # Latin-1 rows are read as they are
            assert int(got.addrs[i]) == int(rows.addrs[i]) and _bytes(got, i) == t.encode("latin-1")
            assert _NON_ALNUM.sub(" ", t.encode("latin-1").decode("latin-1")) == _NON_ALNUM.sub(" ", twin(t).decode())
        else:
            assert _bytes(got, i) == twin(t), i


@in_place
@pytest.mark.parametrize("mode,twin", [(ROUGE_SCORE, rouge_score_bytes), (UTF8, _utf8_passing)],
                         ids=["rouge-score", "utf8"])
def test_a_str_in_several_rows_is_transcoded_once(mode, twin):
    # references repeated per system (refs * n): the rows of one str read one copy of its bytes; equal but distinct
    # str objects, and every row holding a lone surrogate, are still told apart
    base = ["\u201eHallo\u201c", "straße é", "😀 a", "x \ud800 y", "\u201eHallo\u201c".encode().decode()]
    other = "".join(["\u201eHa", "llo\u201c"])  # equal to base[0], another object
    texts = base * 3 + [other] + base[:2] * 2000  # also past the one-thread size
    rows = str_rows(texts)
    which = np.flatnonzero(rows.kind == NON_ASCII)
    got, lone = transcode_rows(rows, which, mode)
    assert lone.tolist() == [i for i, t in enumerate(texts) if "\ud800" in t]
    for i, t in enumerate(texts):
        latin1 = mode == ROUGE_SCORE and _kind(t) == 1  # read as it is, in place
        assert _bytes(got, i) == (t.encode("latin-1") if latin1 else twin(t)), i
        first = next(j for j, u in enumerate(texts) if u is t)
        assert int(got.addrs[i]) == int(got.addrs[first])
    if mode == UTF8:
        assert int(got.addrs[len(base) * 3]) != int(got.addrs[0])  # the equal str that is another object


def test_sacrebleu_utf8_is_utf8_with_wide_spaces_as_spaces():
    t = "a\u00a0b\u3000c\u2028d\u0085e é 😀 "
    assert sacrebleu_utf8(t) == "a b c d e é 😀 ".encode()
    with pytest.raises(UnicodeEncodeError):
        sacrebleu_utf8("a \ud800")


# ------------------------------------------------------------------ reading the kinds in place


@in_place
@pytest.mark.parametrize("char", ["é", "\u00ff", "\u0100", "\u201e", "\uffff", "\U0001f600", "\U0010ffff"])
@pytest.mark.parametrize("n", [1, 7, 8, 9, 63, 64, 65, 4095, 4097])
def test_every_kind_is_read_in_place_at_any_length(char, n):
    for text in (char * n, "a" * (n - 1) + char, char + "b" * (n - 1), "\x00" * (n - 1) + char):
        rows = str_rows(["plain", text])
        k = _kind(text)
        assert rows.kind.tolist() == [ASCII, NON_ASCII] and rows.widths().tolist() == [0, k]
        assert rows.lens[1] == len(text)
        assert bytes(text_at(int(rows.addrs[1]), len(text) * k)) == b"".join(ord(c).to_bytes(k, "little")
                                                                              for c in text)
        got, lone = transcode_rows(rows, np.array([1]), UTF8)
        assert _bytes(got, 1) == sacrebleu_utf8(text) and _bytes(got, 0) == b"plain" and len(lone) == 0


@in_place
def test_rows_without_width_are_encoded_in_python():
    class Sub(str):
        pass

    # a row whose code units the scan does not know (a subclass; the front door's reading makes them exact)
    rows, _, _ = pair_rows([Sub("Ünï İ"), "Ünï İ"], read_refs(["x", "y"], 2, "text"), lowered_utf8, ROUGE_SCORE)
    assert _bytes(rows, 0) == "ünï i̇".encode()  # the subclass: str.lower() and UTF-8
    assert _bytes(rows, 1) == rouge_score_bytes("Ünï İ")  # width 2: the kernel's bytes
    assert pair_rows(*read_texts(["é"], ["e"], "per-example", "test"), None, None) is None  # no encoder, no transcoding


@in_place
def test_without_the_kind_probe_non_ascii_rows_are_encoded(monkeypatch):
    import dataclasses

    from vecscore.kernels import in_place as ip

    layout = dataclasses.replace(ip._layout(), kind_shift=-1, wide_off=0)
    assert ip._check(layout)  # ASCII rows are still read in place
    monkeypatch.setattr(ip, "_LAYOUT", [layout])
    rows = str_rows(["été", "ascii", "\u201e"])
    assert rows.kind.tolist() == [NON_ASCII, ASCII, NON_ASCII] and rows.widths().tolist() == [0, 0, 0]
    read = read_texts(["été x", "a"], ["\u201ex\u201c", "b"], "per-example", "test")
    got, _, _ = pair_rows(*read, sacrebleu_utf8, UTF8)
    assert [_bytes(got, i) for i in range(4)] == ["été x".encode(), b"a", "\u201ex\u201c".encode(), b"b"]


# ------------------------------------------------------------------ lone surrogates: refused, naming the row


class _Sub(str):
    pass


@pytest.mark.parametrize("bad", ["a \ud800 b", "\u201e\udfff", "\U0001f600 \ud800", _Sub("a \ud800")])
def test_lone_surrogates_are_refused_as_on_the_other_routes(bad):
    from vecscore import VecscoreError

    hyps, refs = ["ok", "fine \u00e9"], ["ok", bad]
    kw = dict(tokenize="13a", lowercase=False, max_order=4, brevity_penalty="closest")
    with pytest.raises(VecscoreError, match=r"^texts\[3\] contains a lone surrogate"):
        bleu_direct(*read_texts(hyps, refs, "per-example", "BLEU"), **kw)
    with pytest.raises(VecscoreError, match=r"^refs\[1\] has a lone surrogate"):
        rouge_direct(*read_pairs(hyps, refs), [parse_metric("rouge1")])
    with pytest.raises(VecscoreError, match=r"^texts\[0\] contains a lone surrogate"):
        # the first row in hyps-then-references order
        bleu_direct(*read_texts([bad, "x"], [["ok \ud800"], ["y"]], "per-example", "BLEU"), **kw)


# ------------------------------------------------------------------ scores against the oracles

_PIECES = ["the", "The", "cat.", "a,b", "3.5", "10-4", "-", "&amp;", "<skipped>", "-\n", "\n", "\t", "\x00",
           "abcdefghij", "café", "Café", "ÉTÉ", "straße", "İstanbul", "İ", "\u212a", "K\u212ak", "e\u0301",
           "\u0307", "\u00a0", "a\u00a0b", "\u2028", "\u3000", "\u0085", "\u2013", "\u201eHallo\u201c", "😀",
           "a😀b", "中文", "Москва", "3\u00a0.5", "x.é", "é.5", "5-é", "é-5", "1.\u2009", "über-", "ü,ü",
           "Ärger.", "\u00bd", "naïve", "\uff21\uff22"]
_text = st.lists(st.sampled_from(_PIECES), max_size=20).map(" ".join) | st.lists(
    st.sampled_from(_PIECES), max_size=8).map("".join)


def _sacre_tokens(text: str, tok: str) -> list[str]:
    text = text.rstrip()
    if tok == "char":
        return [c for c in text if not c.isspace()]
    return (Tokenizer13a()(text) if tok == "13a" else text).split()


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.tuples(_text, st.lists(_text, min_size=1, max_size=3)), min_size=1, max_size=6),
       st.sampled_from(["13a", "none", "char"]), st.integers(1, 4), st.booleans())
def test_bleu_kernel_on_non_ascii_equals_sacrebleus_tokens(pairs, tok, order, collide):
    hyps = [h for h, _ in pairs]
    refs = [rs for _, rs in pairs]
    sys_len, ref_len, correct, total = corpus_stats(
        [_sacre_tokens(h, tok) for h in hyps], [[_sacre_tokens(r, tok) for r in rs] for rs in refs], order)
    rows, ref_ptr, _ = pair_rows(*read_texts(hyps, refs, "per-example", "test"), sacrebleu_utf8, UTF8)
    mask = np.int64(-(1 << 63) | 3) if collide else np.int64(-1)  # long tokens' keys collide
    lengths, got = pair_bleu_counts(rows.addrs, rows.lens, ref_ptr, FAST_MODES[tok], order, mask)
    assert lengths[: len(hyps)].tolist() == sys_len.tolist()
    assert np.array_equal(got, correct.T)
    s = bleu_direct(*read_texts(hyps, refs, "per-example", "BLEU"), tokenize=tok, lowercase=False, max_order=order,
                    brevity_penalty="closest")
    assert s.ref_len.tolist() == ref_len.tolist() and np.array_equal(s.total, total.T)


def test_bleu_scores_equal_sacrebleu_across_kinds_and_block_boundaries(monkeypatch):
    import vecscore

    monkeypatch.setenv("VECSCORE_ROUTE", "compiled")
    words = ["der", "Bär", "„Hallo“", "straße.", "😀", "x" * 70, "3.5", "é-5", "İ", "a\u00a0b", "中文"]
    rng = np.random.default_rng(7)
    hyps, refs = [], []
    for n in (1, 5, 10, 11, 12, 30, 63, 64, 65, 200):
        for _ in range(3):
            hyps.append(" ".join(rng.choice(words, n)))
            refs.append(" ".join(rng.choice(words, n + int(rng.integers(0, 3)))))
    for tok in ("13a", "none", "char"):
        ours = vecscore.sentence_bleu(hyps, refs, tokenize=tok)
        want = [sacrebleu.sentence_bleu(h, [r], tokenize=tok).score for h, r in zip(hyps, refs)]
        assert np.allclose(ours.score, want, rtol=0, atol=1e-9), tok
        c = vecscore.corpus_bleu(hyps, [refs], tokenize=tok)
        theirs = sacrebleu.corpus_bleu(hyps, [refs], tokenize=tok)
        assert c.counts.tolist() == theirs.counts and c.totals.tolist() == theirs.totals
        assert c.score == pytest.approx(theirs.score, abs=1e-9)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.tuples(_text, st.lists(_text, min_size=1, max_size=3)), min_size=1, max_size=5))
def test_rouge_on_non_ascii_equals_rouge_score(pairs):
    hyps = [h for h, _ in pairs]
    refs = [rs for _, rs in pairs]
    parsed = [parse_metric(m) for m in ("rouge1", "rouge2", "rougeL")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, ref_ptr = rouge_direct(*read_pairs(hyps, refs), parsed)
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    tokenize = scorer._tokenizer.tokenize
    for p, (h, rs) in enumerate(zip(hyps, refs)):
        ht = tokenize(h)
        for j, r in enumerate(rs):
            q = ref_ptr[p] + j
            rt = tokenize(r)
            for (kind, n), (hits, hyp_count, ref_count) in zip(parsed, got):
                if kind == "n":
                    hg = [tuple(ht[i:i + n]) for i in range(len(ht) - n + 1)]
                    rg = [tuple(rt[i:i + n]) for i in range(len(rt) - n + 1)]
                    want = sum(min(hg.count(g), rg.count(g)) for g in set(hg))
                    assert (hits[q], hyp_count[p], ref_count[q]) == (want, len(hg), len(rg))
                else:
                    table = rouge_scorer._lcs_table(rt, ht)
                    assert (hits[q], hyp_count[p], ref_count[q]) == (table[-1][-1], len(ht), len(rt))


def test_rouge_scores_equal_rouge_score_across_kinds(monkeypatch):
    import vecscore

    monkeypatch.setenv("VECSCORE_ROUTE", "compiled")
    words = ["Der", "BÄR", "İstanbul", "\u212aelvin", "kelvin", "„Hallo“", "😀x", "naïve", "Straße", "e\u0301t",
             "x" * 70, "中文abc", "ǅ", "\u0130i"]
    rng = np.random.default_rng(11)
    hyps = [" ".join(rng.choice(words, n)) for n in range(1, 80, 3)]
    refs = [" ".join(rng.choice(words, n)) for n in range(2, 81, 3)]
    r = vecscore.rouge(hyps, refs, metrics=["rouge1", "rouge2", "rougeL"])
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    for i, (h, ref) in enumerate(zip(hyps, refs)):
        want = scorer.score(ref, h)
        for m in ("rouge1", "rouge2", "rougeL"):
            assert (r[m].precision[i], r[m].recall[i], r[m].fmeasure[i]) == tuple(want[m]), (m, i)
