"""sacreBLEU tokenizers: token identity with sacrebleu 2.6 on real and random text."""
from __future__ import annotations

import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import data_file
from vecscore import VecscoreError
from vecscore.text import unicode_tables as ut
from vecscore.text.sacrebleu_tokenizers import TOKENIZERS, tokenize

sb_bleu = pytest.importorskip("sacrebleu.metrics.bleu")
regex = pytest.importorskip("regex")

SACRE_NAMES = ("13a", "intl", "zh", "char", "none")


def _oracle(name):
    return sb_bleu._get_tokenizer(name)()


def _expected(texts, name, lowercase=False):
    tok = _oracle(name)
    return [tok((t.lower() if lowercase else t).rstrip()).split() for t in texts]


def _assert_identical(texts, name, lowercase=False):
    spans = tokenize(texts, name, lowercase=lowercase)
    assert spans.n_texts == len(texts)
    got = [spans.token_strings(i) for i in range(len(texts))]
    want = _expected(texts, name, lowercase)
    bad = [i for i in range(len(texts)) if got[i] != want[i]]
    assert not bad, f"{name}: first mismatch at line {bad[0]}: {texts[bad[0]]!r}\n{got[bad[0]]}\n{want[bad[0]]}"


def _lines(path):
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


# --- tables over all code points ------------------------------------------------------------


def _all_chars():
    return "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)


@pytest.fixture(scope="module")
def all_chars():
    return _all_chars()


def _cps(s):
    return np.frombuffer(s.encode("utf-32-le"), np.uint32)


@pytest.mark.parametrize("flag,cls", [(ut.FLAG_P, "P"), (ut.FLAG_S, "S"), (ut.FLAG_N, "N")])
def test_class_table_equals_regex_module_on_every_code_point(all_chars, flag, cls):
    table = ut.flag_table()
    want = np.zeros(0x110000, bool)
    want[_cps("".join(regex.findall(r"\p{%s}" % cls, all_chars)))] = True
    assert np.array_equal((table & flag) != 0, want)


def test_unicodedata_fallback_differs_only_on_code_points_unknown_to_unicodedata():
    table, source = ut.build_flag_table("unicodedata")
    assert source == "unicodedata"
    diff = np.nonzero((table ^ ut.flag_table()) & (ut.FLAG_P | ut.FLAG_S | ut.FLAG_N))[0]
    # regex ships a newer Unicode database; every difference is unassigned in unicodedata
    assert all(unicodedata.category(chr(int(c))) == "Cn" for c in diff)


def test_whitespace_table_is_str_isspace():
    table = ut.flag_table()
    want = np.array([chr(c).isspace() for c in range(0x110000)])
    assert np.array_equal((table & ut.FLAG_WS) != 0, want)


def test_zh_table_reproduces_sacrebleu_on_every_code_point():
    is_cjk = sb_bleu._get_tokenizer("zh")._is_chinese_char.__wrapped__
    want = np.array([is_cjk(chr(c)) for c in range(0x110000)])
    assert np.array_equal((ut.flag_table() & ut.FLAG_ZH) != 0, want)


def test_zh_fixed_table_is_the_intended_ranges():
    table = ut.flag_table()
    fixed = (table & ut.FLAG_ZH_FIXED) != 0
    assert fixed[0x20000] and fixed[0x2A6D6] and fixed[0x2F800] and fixed[0x2FA1D] and fixed[0x30000]
    assert not fixed[0x2001] and not fixed[0x2192] and not fixed[0x2A6D]  # punctuation, arrow
    buggy = (table & ut.FLAG_ZH) != 0
    assert buggy[0x2192] and not buggy[0x20000]


# --- small hand cases -----------------------------------------------------------------------

HAND = [
    "",
    "   ",
    "Hello, world!",
    "It costs $3.50 &amp; more.",
    "a..b 1,000.5 x-1 2-3 .5 ,5 5. 5, -5",
    "&amp;lt; &amp;quot; &amp;amp; &quot;q&quot; &lt;b&gt;",
    "<skip<skipped>ped> ok-\nfoo\nbar\n",
    "中文,测试。 𠀀𠀁 ‘quote’ → ∑ ① ２",
    " .5 leading",
    "Ünïcödé — “x”; 3.5% İstanbul ΣΑΣ",
    "tabs\tand\x0bvertical\x1cfile\x1dsep\u3000ideographic\u2028line\x85nel\xa0nbsp",
    "a\u0301\u0300 combining ́start",
    "year 1999.",
    "e.g. U.S.A., 1.2.3",
]


@pytest.mark.parametrize("name", SACRE_NAMES)
@pytest.mark.parametrize("lowercase", [False, True])
def test_hand_cases(name, lowercase):
    _assert_identical(HAND, name, lowercase)


def test_names_and_errors():
    assert set(SACRE_NAMES) <= set(TOKENIZERS) and "zh-fixed" in TOKENIZERS
    with pytest.raises(VecscoreError, match="valid names"):
        tokenize(["x"], "13b")
    with pytest.raises(VecscoreError, match="single str"):
        tokenize("abc", "13a")
    with pytest.raises(VecscoreError, match=r"texts\[1\]"):
        tokenize(["a", 3], "13a")
    with pytest.raises(VecscoreError, match=r"texts\[1\].*surrogate"):
        tokenize(["a", "b\ud800"], "13a")


def test_empty_batch():
    spans = tokenize([], "13a")
    assert spans.n_texts == 0 and len(spans.starts) == 0


def test_zh_fixed_splits_extension_b():
    spans = tokenize(["𠀀𠀁a → b"], "zh-fixed")
    assert spans.token_strings(0) == ["𠀀", "𠀁", "a", "→", "b"]
    assert tokenize(["𠀀𠀁a → b"], "zh").token_strings(0) == ["𠀀𠀁a", "→", "b"]


# --- random text ----------------------------------------------------------------------------

_FRAGMENTS = [
    "&quot;", "&amp;", "&lt;", "&gt;", "&amp;lt;", "&amp;quot;", "<skipped>", "-\n", "\n", " ", "  ",
    "\u3000", "\x0b", "\x1c", "\x1f", "\x85", "\xa0", "\u2028", "\t", "\r",
    ".", ",", "-", "'", "...", "1.5", "3,000", "2-", "-3", "U.S.", "$", "%", "€",
    "中", "文", "。", "，", "𠀀", "𪛖", "丽", "→", "∑", "①", "２", "（", "）", "「", "」",
    "\u0301", "\u20dd", "a", "Z", "É", "ß", "İ", "Σ", "ς", "x", "word", "0", "9", "٣",
    "\U0001f600", "\u2001", "\u2a6d", "\u2f81", "\u2fa1", "\u1b7f", "\U00016ff4",
]
_texts = st.lists(
    st.one_of(st.sampled_from(_FRAGMENTS), st.characters(exclude_categories=("Cs",))), max_size=30
).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(_texts, min_size=1, max_size=8), st.sampled_from(SACRE_NAMES), st.booleans())
def test_random_unicode_matches_sacrebleu(texts, name, lowercase):
    _assert_identical(texts, name, lowercase)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=40), min_size=1, max_size=8), st.sampled_from(SACRE_NAMES))
def test_arbitrary_text_matches_sacrebleu(texts, name):
    texts = [t for t in texts if not any(0xD800 <= ord(c) <= 0xDFFF for c in t)]
    _assert_identical(texts, name)


# --- real corpora ---------------------------------------------------------------------------

WMT21 = ("wmt21-news-systems",)


def _wmt21_files(root, pair, tgt, n_systems=3):
    base = data_file(root, *WMT21, pair)
    refs = sorted(base.glob(f"newstest2021.{pair}.ref.*.{tgt}"))
    systems = sorted((base / "system-outputs").glob(f"*.{tgt}"))[:n_systems]
    assert refs and systems
    return refs + systems


@pytest.mark.parametrize(
    "pair,tgt,names",
    [("en-zh", "zh", ("zh", "zh-fixed")), ("en-de", "de", ("13a", "intl")), ("en-ja", "ja", ("char",))],
)
def test_wmt21_lines(shared_data, pair, tgt, names):
    lines = [line for f in _wmt21_files(shared_data, pair, tgt) for line in _lines(f)]
    for name in names:
        if name == "zh-fixed":
            _assert_zh_fixed_agrees_where_ranges_agree(lines)
            continue
        _assert_identical(lines, name)
        _assert_identical(lines[:2000], name, lowercase=True)


def _assert_zh_fixed_agrees_where_ranges_agree(lines):
    table = ut.flag_table()
    differs = ((table & ut.FLAG_ZH) != 0) != ((table & ut.FLAG_ZH_FIXED) != 0)
    same = [t for t in lines if not differs[_cps(t)].any()]
    assert len(same) > len(lines) // 2
    spans = tokenize(same, "zh-fixed")
    want = _expected(same, "zh")
    assert all(spans.token_strings(i) == want[i] for i in range(len(same)))


def test_wmt17_lines(shared_data):
    root = data_file(shared_data, "wmt17-ende-sacrebleu")
    files = [root / "newstest2017-ende-ref.de"] + sorted((root / "systems").iterdir())[:4]
    lines = [line for f in files for line in _lines(f)]
    for name in ("13a", "intl", "none"):
        _assert_identical(lines, name)


@pytest.mark.parametrize(
    "fname,names",
    [
        ("ted.ref.detok.eng", ("13a", "intl")),
        ("ted.sys1.detok.eng", ("13a", "intl")),
        ("ted.ref.eng", ("13a", "none")),
        ("multited.ref.jpn", ("char", "zh", "none")),
        ("sum.sys1.eng", ("13a", "intl")),
        ("ted.orig.slk", ("13a", "intl", "char")),
    ],
)
def test_compare_mt_lines(shared_data, fname, names):
    lines = _lines(data_file(shared_data, "compare-mt-examples", fname))
    for name in names:
        _assert_identical(lines, name)
