"""TER: vecscore.ter against sacreBLEU 2.6 itself (imported here) and the kernel against its plain twin.

Expected numbers always come from sacreBLEU (``sacrebleu.metrics.TER``,
``sacrebleu.corpus_ter``/``sentence_ter``, ``lib_ter.translation_edit_rate``,
``TercomTokenizer``) or from the plain twin ``tests/reference/ter_py.py``,
never from the code under test.  sacreBLEU's TER is slow (tens of segments
per second on WMT data), so the real-data tests subsample segments; set
``VECSCORE_TER_SEGMENTS`` to use more.
"""
from __future__ import annotations

import itertools
import os
import random

import numpy as np
import pytest

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import TER as SacreTER  # noqa: E402
from sacrebleu.metrics.lib_ter import translation_edit_rate  # noqa: E402
from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer  # noqa: E402

from tests.conftest import data_file  # noqa: E402
from tests.reference import ter_py  # noqa: E402
from vecscore.errors import VecscoreError  # noqa: E402
from vecscore.kernels import ter as kernels  # noqa: E402
from vecscore.ter import TER, TERScore, corpus_ter, sentence_ter, ter_statistics, ter_tokenize  # noqa: E402

OPTION_NAMES = ("normalized", "no_punct", "asian_support", "case_sensitive")
ALL_OPTIONS = [dict(zip(OPTION_NAMES, combo)) for combo in itertools.product((False, True), repeat=4)]


def _opt_id(opts: dict) -> str:
    return "-".join(k for k, v in opts.items() if v) or "default"


def kernel_edits(pairs) -> list[int]:
    """The kernel's edits for (hyp, ref) lists of hashable tokens, one job per pair, through ``ter_edits``."""
    vocab: dict = {}
    rows = [h for h, _ in pairs] + [r for _, r in pairs]
    ids = np.array([vocab.setdefault(t, len(vocab)) for row in rows for t in row], np.int64)
    ptr = np.zeros(len(rows) + 1, np.int64)
    np.cumsum([len(row) for row in rows], out=ptr[1:])
    n = len(pairs)
    jobs = np.arange(n, dtype=np.int64)
    plan = kernels.plan_chunks(np.diff(ptr[:n + 1]), np.diff(ptr[n:]), 7)
    return [int(x) for x in kernels.ter_edits(ids, ptr[:n + 1], ptr[n:], jobs, jobs, *plan)]


def random_pairs(seed: int, count: int, max_len: int = 30):
    rng = random.Random(seed)
    pairs = []
    for _ in range(count):
        alphabet = rng.randint(1, 6)
        n, m = rng.randint(0, max_len), rng.randint(0, max_len)
        pairs.append(([f"w{rng.randrange(alphabet)}" for _ in range(n)],
                      [f"w{rng.randrange(alphabet)}" for _ in range(m)]))
    return pairs


# --- the kernel against the plain twin and sacreBLEU's lib_ter -------------------------------------------------


def test_kernel_matches_twin_and_sacrebleu_on_random_small_sequences():
    pairs = random_pairs(2024, 300)
    got = kernel_edits(pairs)
    twin = [ter_py.ter_edits(h, r) for h, r in pairs]
    sacre = [translation_edit_rate(h, r)[0] for h, r in pairs]
    assert twin == sacre
    assert got == sacre
    assert sum(e > 0 for e in got) > 250  # the cases are not trivial


def test_random_sequences_exercise_shifts():
    """The random cases make shifts happen (the twin says how many), so the shift search is really compared."""
    pairs = random_pairs(7, 120)
    shifted = 0
    for h, r in pairs:
        info: dict = {}
        ter_py.ter_edits(h, r, info)
        shifted += info.get("shifts", 0) > 0
    assert shifted > 30
    assert kernel_edits(pairs) == [translation_edit_rate(h, r)[0] for h, r in pairs]


def test_kernel_py_func_matches_twin():
    """The kernel's Python body (as run under NUMBA_DISABLE_JIT) agrees too."""
    pairs = random_pairs(99, 25, max_len=14)
    for h, r in pairs:
        vocab: dict = {}
        hi = np.array([vocab.setdefault(t, len(vocab)) for t in h], np.int64)
        ri = np.array([vocab.setdefault(t, len(vocab)) for t in r], np.int64)
        n, m = len(h), len(r)
        cap = max(n, m) + 1
        scratch = [np.empty(cap, np.int64) for _ in range(8)]
        mats = (np.empty((n + 1, m + 1), np.int32), np.empty((n + 1, m + 1), np.int8),
                np.empty((n + 1, m + 1), np.int32), np.empty((n + 1, m + 1), np.int32))

        def plain(f):
            return getattr(f, "py_func", f)

        # run the body with its helpers as plain Python
        g = kernels.ter_edits_one.py_func.__globals__
        saved = {k: g[k] for k in ("band", "_row_ops", "_row_cost", "_backward", "_apply_shift", "_copy")}
        try:
            for k, f in saved.items():
                g[k] = plain(f)
            got = kernels.ter_edits_one.py_func(hi, ri, *mats, *scratch[:6], scratch[6], scratch[7])
        finally:
            g.update(saved)
        assert got == ter_py.ter_edits(h, r)


def test_long_sequences_where_the_limits_bind():
    """200+ tokens, repeated phrases, small alphabets: the 1000-candidate budget, the 50-position shift distance and
    the 10-word shift size all limit the search, and the beam is narrower than the reference."""
    rng = random.Random(5)
    phrase = "the cat sat on the mat and then".split()
    cases = [
        # a hypothesis made of a shuffled repeated phrase: many equal-gain shifts
        (phrase * 26, [w for _ in range(26) for w in rng.sample(phrase, len(phrase))]),
        # long with a small alphabet, unequal lengths (the band is widened)
        ([f"t{rng.randrange(4)}" for _ in range(210)], [f"t{rng.randrange(4)}" for _ in range(90)]),
        # blocks moved far apart: beyond MAX_SHIFT_DIST
        ([f"a{i}" for i in range(60, 120)] + [f"a{i}" for i in range(60)] + ["x"] * 90,
         [f"a{i}" for i in range(120)] + ["y"] * 90),
        # very short hypothesis against a very long reference (length ratio > 50: the band is widened)
        (["z", "q"], [f"r{rng.randrange(30)}" for _ in range(230)] + ["z"]),
    ]
    got = kernel_edits(cases)
    sacre = [translation_edit_rate(h, r)[0] for h, r in cases]
    assert got == sacre
    info: dict = {}
    ter_py.ter_edits(*cases[0], info)
    assert info["budget_hit"]  # the candidate budget really ended the search


def test_sequential_sum_is_left_to_right():
    values = np.array([1e16, 1.0, -1e16, 1.0, 0.1, 0.2, 0.3] * 5)
    expected = 0
    for v in values.tolist():
        expected += v
    assert kernels.sequential_sum(values) == expected
    assert kernels.sequential_sum.py_func(values) == expected


# --- the tokenizer ---------------------------------------------------------------------------------------------

ADVERSARIAL = [
    "", " ", "\t \n", "Hello, World!", "It's John's dog's bone 's", "3.14, 1,000.5 and 2-3 - x-ray --",
    "...!!??;;::\"\"(())", "a.b,c.1,2.d", "&quot;Tom &amp; Jerry&quot; &lt;3 &gt; &amp;lt;", "line\n-break\nnext",
    "ÀÉÎÕÜ straße İstanbul ΣΑΣ", "e\u0301 a\u0300\u0301 n\u0303",
    "中文測試，句子。「引號」！？", "日本語のテキスト、カタカナ。",
    "ひらがな", "カタカナ", "\u31f0\u31f1", "한국어 문장입니다.",
    "\u3200\u3250\u3300\u3f22\u3f23 \uf900 \ufe30 \u2e80 \u31c0",
    "ＡＢＣ１２３．，？：；！＂（）", "mixed中文text123.45，end", "{[(<tags>)]}~^_`|\\/@#$%&*+=",
    "tab\tsep\u00a0nbsp\u2003em\u3000ideo", "trailing   ", "   leading", "a" * 50 + " " + "b." * 30,
    "Dr. Smith's U.S.A. e.g. i.e.", "$5.00 -3 +4 1-2-3", "'s", "x's", "\u0130\u0131 \u1e9e",
]


@pytest.mark.parametrize("opts", ALL_OPTIONS, ids=_opt_id)
def test_tokenizer_matches_sacrebleu(opts):
    sacre = SacreTER(**opts)
    for text in ADVERSARIAL:
        assert ter_tokenize(text, **opts) == sacre._preprocess_segment(text).split(), text
        assert ter_tokenize(text, **opts) == TercomTokenizer(**opts)(text.rstrip()).split(), text


# --- public API against sacreBLEU on adversarial strings -----------------------------------------------------------

ADV_PAIRS = [
    ("", ""), ("", "a b c"), ("a b c", ""), ("   ", "x"), ("x", "   "), ("\n", "\t"),
    ("the cat the cat the cat sat", "sat the cat the cat the cat"),
    ("a b a b a b a b c d c d c d", "c d c d c d a b a b a b a b"),
    (" ".join("abcabdabe"), " ".join("abeabdabc")),
    ("中文測試，句子。", "中文句子，測試。"), ("日本語のテキスト", "テキストの日本語"),
    ("Hello, World!!!", "hello world"), ("e\u0301 n\u0303 o", "o n\u0303 e\u0301"),
    ("&quot;A&quot; &amp; B", '"a" & b'), ("3.14-2,5", "2,5-3.14"),
]


@pytest.mark.parametrize("opts", ALL_OPTIONS, ids=_opt_id)
def test_adversarial_pairs_against_sacrebleu(opts):
    hyps = [h for h, _ in ADV_PAIRS]
    refs = [r for _, r in ADV_PAIRS]
    refs2 = [r[::-1] for r in refs]
    for streams in ([refs], [refs, refs2]):
        sacre = SacreTER(**opts)
        stats = sacre._extract_corpus_statistics(hyps, streams)
        expected = sacre._aggregate_and_compute(stats)
        got = corpus_ter(hyps, streams, **opts)
        assert got.num_edits == expected.num_edits
        assert got.ref_length == expected.ref_length
        assert abs(got.score - expected.score) <= 1e-9
        sent = TER(**opts).sentence_scores(hyps, streams)
        for i, st in enumerate(stats):
            assert abs(sent[i] - sacre._compute_score_from_stats(st).score) <= 1e-9, (i, hyps[i])
    one = sentence_ter(hyps[6], [refs[6], refs2[6]], **opts)
    exp = sacrebleu.sentence_ter(hyps[6], [refs[6], refs2[6]], **opts)
    assert (one.score, one.num_edits, one.ref_length) == (exp.score, exp.num_edits, exp.ref_length)


@pytest.mark.parametrize("opts", [ALL_OPTIONS[0], ALL_OPTIONS[-1]], ids=_opt_id)
def test_long_texts_through_the_api(opts):
    """A 240-token text of repeated words (limits bind) through the public functions."""
    hyp = " ".join(["w%d," % (i % 7) for i in range(240)])
    ref = " ".join(["W%d" % ((i * 3) % 7) for i in range(230)])
    expected = sacrebleu.corpus_ter([hyp], [[ref]], **opts)
    got = corpus_ter([hyp], [[ref]], **opts)
    assert (got.num_edits, got.ref_length) == (expected.num_edits, expected.ref_length)
    assert abs(got.score - expected.score) <= 1e-9


def test_score_object_signature_and_format():
    hyps = ["The cat sat.", "a b c"]
    streams = [["The cat sat on the mat.", "a c b"], ["A cat sat.", None]]
    for opts in ALL_OPTIONS[::5]:
        ours, theirs = TER(**opts), SacreTER(**opts)
        got, exp = ours.corpus_score(hyps, streams), theirs.corpus_score(hyps, streams)
        # everything but the version (sacreBLEU's there, vecscore's here)
        assert ours.get_signature().rsplit("|", 1)[0] == str(theirs.get_signature()).rsplit("|", 1)[0]
        assert ours.get_signature(short=True).rsplit("|", 1)[0] == \
            theirs.get_signature().format(short=True).rsplit("|", 1)[0]
        from vecscore._version import __version__
        assert ours.get_signature().endswith(f"|version:{__version__}")
        assert str(got) == str(exp)
        assert got.format(width=4) == exp.format(width=4)
        ssig = str(theirs.get_signature())
        assert got.format(signature=ssig) == exp.format(signature=ssig)
        assert got.format(signature=ssig, is_json=True) == exp.format(signature=ssig, is_json=True)
        assert isinstance(got, TERScore) and isinstance(got.num_edits, int) and isinstance(got.ref_length, float)


def test_reference_cache_and_layouts():
    hyps = ["a b c d", "x y", "p q r"]
    streams = [["a c b d", "y x", "p r q"], ["d c b a", "x y z", None]]
    exp = sacrebleu.corpus_ter(hyps, streams)
    cached = TER(references=streams)
    assert cached.corpus_score(hyps).score == exp.score
    per_example = [["a c b d", "d c b a"], ["y x", "x y z"], ["p r q"]]
    assert corpus_ter(hyps, per_example, refs_layout="per-example").score == exp.score
    assert TER(refs_layout="per-example").corpus_score(hyps, per_example).score == exp.score
    edits, ref_len = ter_statistics(hyps, streams)
    stats = SacreTER()._extract_corpus_statistics(hyps, streams)
    assert edits.tolist() == [s[0] for s in stats]
    assert ref_len.tolist() == [s[1] for s in stats]


def test_errors_name_the_problem():
    with pytest.raises(VecscoreError, match="hyps"):
        corpus_ter("a b", [["a b"]])
    with pytest.raises(VecscoreError, match="stream 1"):
        corpus_ter(["a", "b"], [["a", "b"], ["c"]], refs_layout="streams")
    with pytest.raises(VecscoreError, match="no reference"):
        corpus_ter(["a"], [[None]], refs_layout="streams")
    with pytest.raises(VecscoreError, match="hyps\\[1\\]"):
        corpus_ter(["a", None], [["a", "b"]])
    with pytest.raises(VecscoreError, match="empty"):
        corpus_ter([], [[]])
    with pytest.raises(VecscoreError, match="score something first"):
        TER().get_signature()


# --- real data: WMT21 systems, every option combination ----------------------------------------------------------

_PAIRS = {"en-de": ("de", "ACD"), "en-zh": ("zh", "AB"), "en-ja": ("ja", "A")}


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


def _wmt(shared_data, pair: str, combo_index: int, count: int):
    lang, letters = _PAIRS[pair]
    root = shared_data / "wmt21-news-systems" / pair
    refs = [_read(data_file(root, f"newstest2021.{pair}.ref.{x}.{lang}")) for x in letters]
    systems = sorted((root / "system-outputs").glob(f"newstest2021.{pair}.hyp.*.{lang}"))
    assert systems
    system = systems[combo_index % len(systems)]
    hyps = _read(system)
    rng = random.Random(combo_index * 31 + len(pair))
    rows = sorted(rng.sample(range(len(hyps)), min(count, len(hyps))))
    streams = [[r[i] for i in rows] for r in refs]
    if len(streams) > 1:  # a few missing references: a variable number per segment
        for i in rows[::17]:
            streams[-1][rows.index(i)] = None
    return system.name, [hyps[i] for i in rows], streams


def _segments(pair: str, opts: dict) -> int:
    base = int(os.environ.get("VECSCORE_TER_SEGMENTS", "0"))
    if base:
        return base
    char_level = opts["normalized"] and opts["asian_support"] and pair != "en-de"
    if pair == "en-de":
        return 50
    return 25 if char_level else 300


@pytest.mark.parametrize("index,opts", list(enumerate(ALL_OPTIONS)), ids=[_opt_id(o) for o in ALL_OPTIONS])
@pytest.mark.parametrize("pair", sorted(_PAIRS))
def test_wmt21_systems_against_sacrebleu(shared_data, pair, index, opts):
    name, hyps, streams = _wmt(shared_data, pair, index, _segments(pair, opts))
    sacre = SacreTER(**opts)
    stats = sacre._extract_corpus_statistics(hyps, streams)  # what corpus_score and sentence_score compute from
    expected = sacre._aggregate_and_compute(stats)
    ours = TER(**opts)
    got = ours.corpus_score(hyps, streams)
    assert got.num_edits == expected.num_edits, name
    assert got.ref_length == expected.ref_length, name
    assert abs(got.score - expected.score) <= 1e-9, name
    edits, ref_len = ours.statistics(hyps, streams)
    assert edits.tolist() == [s[0] for s in stats], name
    assert ref_len.tolist() == [s[1] for s in stats], name
    sentence = ours.sentence_scores(hyps, streams)
    exp_sentence = np.array([sacre._compute_score_from_stats(s).score for s in stats])
    assert np.abs(sentence - exp_sentence).max() <= 1e-9, name
    # the public functions, on a few segments
    for i in range(0, len(hyps), max(1, len(hyps) // 3)):
        refs_i = [s[i] for s in streams if s[i] is not None]
        a, b = sentence_ter(hyps[i], refs_i, **opts), sacrebleu.sentence_ter(hyps[i], refs_i, **opts)
        assert (a.num_edits, a.ref_length) == (b.num_edits, b.ref_length)
        assert abs(a.score - b.score) <= 1e-9
