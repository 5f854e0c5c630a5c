"""METEOR's text preparation and stemmer against meteor-1.5.jar itself.

One JVM per kind of check runs a small harness that calls the jar's own classes (Normalizer.normalizeLine,
String.toLowerCase, Alignment's tokenizer, the Snowball stemmer the stem module uses, Java's String.split on a
``-stdio`` SCORE line, the nonbreaking-prefix table), over real corpora, the jar's WordNet vocabulary, every code
point and seeded adversarial strings; the Python side must agree on every one.
"""
from __future__ import annotations

import json
import random
import re
import unicodedata
import zipfile
from pathlib import Path

import pytest

from tests.conftest import data_file, e2e_nlg
from tests.corpora import realsumm, summeval
from tests.meteor_oracle import compile_harness, find_jar, java_available, run_lines
from vecscore.errors import VecscoreError
from vecscore.meteor.normalize import (
    Prefixes,
    java_lower,
    load_prefixes,
    normalize_line,
    prepare,
    split_score_line,
)
from vecscore.meteor.snowball import stem

JAR = find_jar() or Path("meteor-1.5.jar")
pytestmark = pytest.mark.skipif(find_jar() is None or not java_available(),
                                reason="needs java, javac and pycocoevalcap's meteor/meteor-1.5.jar")

HARNESS = r"""
import java.io.*;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.*;
import edu.cmu.meteor.aligner.Alignment;
import edu.cmu.meteor.aligner.SnowballStemmerWrapper;
import edu.cmu.meteor.util.Constants;
import edu.cmu.meteor.util.Normalizer;
import org.tartarus.snowball.ext.englishStemmer;

public class MeteorTextOracle {
    static String words(String line) {
        return String.join(" ", new Alignment(line, "x").words1);
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16),
                                          false, "UTF-8");
        if (mode.equals("prefixes")) {
            Method m = Normalizer.class.getDeclaredMethod("nbpList", int.class);
            m.setAccessible(true);
            Map<?, ?> table = (Map<?, ?>) m.invoke(null, Constants.LANG_EN);
            for (Map.Entry<?, ?> e : table.entrySet())
                out.println(e.getKey() + "\t" + (((Integer) e.getValue()) == Constants.NBP_NUM_ONLY ? "num" : "any"));
            out.flush();
            return;
        }
        SnowballStemmerWrapper stemmer = new SnowballStemmerWrapper(new englishStemmer());
        String line;
        while ((line = in.readLine()) != null) {
            if (mode.equals("text")) {
                String keep = Normalizer.normalizeLine(line, Constants.LANG_EN, true);
                String drop = Normalizer.normalizeLine(line, Constants.LANG_EN, false);
                out.println(keep);
                out.println(drop);
                out.println(words(line));
                out.println(words(line.toLowerCase()));
                out.println(words(keep.toLowerCase()));
                out.println(words(drop.toLowerCase()));
            } else if (mode.equals("lower")) {
                out.println(line.toLowerCase());
            } else if (mode.equals("type")) {
                out.println(Character.getType(line.codePointAt(0)));
            } else if (mode.equals("stem")) {
                out.println(stemmer.stem(line));
            } else if (mode.equals("score")) {
                if (!(line.startsWith("SCORE") || line.startsWith("score"))) {
                    out.println("not a score line");
                    continue;
                }
                String[] part = line.split("\\|\\|\\|");
                if (part.length < 3) {
                    out.println("too few fields");
                    continue;
                }
                out.println(part.length - 1);
                for (int i = 1; i < part.length; i++)
                    out.println(part[i].trim());
            }
        }
        out.flush();
    }
}
"""

_LINE_BREAK = re.compile("\r\n|\r|\n")  # what Java's readLine splits on


def _lines(text: str) -> list[str]:
    return [x for x in _LINE_BREAK.split(text) if x]


@pytest.fixture(scope="module")
def oracle(tmp_path_factory) -> str:
    return compile_harness(tmp_path_factory.mktemp("meteor_text"), "MeteorTextOracle", HARNESS)


@pytest.fixture(scope="module")
def prefixes() -> Prefixes:
    return load_prefixes(JAR)


@pytest.fixture(scope="module")
def real_lines(shared_data: Path) -> list[str]:
    """About 7,000 lines of real text: data-to-text outputs and references, MT (en, de, ru, zh), summaries,
    headlines, TED talks, Chinese captions (the jar's normalizer takes ~0.2 ms a line, so large files are
    sampled)."""
    root = shared_data
    out: list[str] = []
    refs, systems = e2e_nlg(root)
    out += [r for block in refs for r in block][::3]
    out += systems[sorted(systems)[0]][::2]
    for name in ("sum.ref.eng", "sum.sys1.eng", "ted.ref.detok.eng", "ted.ref.eng"):
        out += _lines(data_file(root, "compare-mt-examples", name).read_text(encoding="utf-8"))[::5]
    ende = data_file(root, "wmt21-news-systems", "en-de")
    for path in (ende / "newstest2021.en-de.src.en", ende / "newstest2021.en-de.ref.A.de"):
        out += _lines(path.read_text(encoding="utf-8"))[::4]
    out += _lines(data_file(root, "wmt17-ende-sacrebleu", "newstest2017-ende-ref.de").read_text("utf-8"))[::8]
    for name in ("newstest-2015-100sents.en-ru.ref.ru", "newstest-2015-100sents.en-ru.src.en"):
        out += _lines(data_file(root, "nltk-wmt15-eval", name).read_text(encoding="utf-8"))
    for name in ("ref.en", "source.zh"):
        out += _lines(data_file(root, "wmt21-ted-mqm", "zhen", name).read_text(encoding="utf-8"))[::2]
    for name in ("hyp.txt", "ref1.txt", "ref2.txt"):
        out += _lines(data_file(root, "nlg-eval-examples", name).read_text(encoding="utf-8"))
    for line in data_file(root, "newsroom-bartscore", "newsroom_7sys_60docs.jsonl").open(encoding="utf-8"):
        row = json.loads(line)
        out += _lines(row["summary"]) + _lines(row["reference"])
    hyps, mrefs = summeval(root)
    out += [x for h in hyps[::8] for x in _lines(h)] + [x for r in mrefs[::40] for ref in r for x in _lines(ref)]
    hyps, refs1 = realsumm(root)
    out += [x for h in hyps[::20] for x in _lines(h)] + [x for r in refs1[::50] for x in _lines(r)]
    captions = json.loads(data_file(root, "aichallenger2017-caption-zh", "id_to_words.json").read_text("utf-8"))
    out += [a["caption"] for a in captions["annotations"]]
    return out


ADVERSARIAL = [
    "", " ", "   \t ", "\t", ".", "..", "...", "....", ". . .", "!!!", "?!", ",", ",,", "'", "''", "`", "``", "\"",
    "&amp;", "&quot;hi&quot;", "AT&T", "<b>bold</b>", "\"quoted\"", "''double''", "``tex quotes''", "‘single’",
    "“curly”", "It's", "it’s", "rock 'n' roll", "the '90s", "1990's", "1990's'", "'tis", "James' car", "O'Neill",
    "rock'n'roll", "a'b'c", "1'2", "x'", "'x", "’s", "'s", "s'", "‘’", "U.S.", "U.S.-based", "the U.S. Army",
    "U.K.'s", "a.b.c.", "A.B.", "a.b", "Ph.D. student", "Mr. Smith", "Mr. smith", "Mr.Smith", "No. 5", "No. Five",
    "no. 5", "Art. 3", "pp. 12-15", "e.g. this", "i.e., that", "e.g.", "etc.", "Inc. is", "A.", "a.", "I. M. Pei",
    "St. Louis", "Dr.No", "p.m. today", "3 a.m.", "vs. them", "Capt. Kirk", "Jan. 5", "Ends with Jan.",
    "1,000.50", "1,000", "1, 2, 3", "a,b", "a, b", "a ,b", "3.14", "-5", "5-6", "well-known", "--", "a--b", "a---b",
    "a – b", "a–b", "a—b", "x-", "-x", "- x -", "...word", "word...", "a...b", "end....", "a. . .b",
    "DOTMULTI", "DOTDOTMULTI.", "DOTMULTI. x", "$5.00", "100%", "#hashtag", "@user", "C++", "x=y+z", "(parens)",
    "[brackets]", "{braces}", "a/b", "a\\b", "~tilde~", "^caret", "_under_", "ALL CAPS SENTENCE.",
    "tab\tseparated\ttext", "nbsp\u00a0here", "line\u2028sep", "para\u2029sep", "nel\u0085here", "vt\x0bhere",
    "ff\x0chere", "ctrl\x01\x02\x1fchars", "nul\x00char", "\x1f leading control", "trailing control \x1f",
    "zero\u200bwidth", "soft\u00adhyphen", "ogham\u1680space", "mongolian\u180evs", "ideo\u3000space",
    "thin\u2009space\u202fnarrow\u205fmath", "\u00a0\u00a0lead and trail\u00a0", "emoji 😀 here", "😀😀",
    "non-BMP 𝒳 math", "𐐀𐐨 deseret", "ΣΟΦΟΣ σοφος", "ΟΔΟΣ.", "ΑΣ ΑΣ. ΑΣ1 Α-Σ Α'Σ", "İstanbul", "ß STRASSE",
    "Ǆ ǅ ǆ", "ﬁ ligature", "Ⅻ ⅻ", "café naïve résumé", "CAFÉ", "Москва, Россия.", "Ёлка", "日本語の文。",
    "中文，标点。",
    "العربية، نص", "ä-ö", "ŠKODA Žiga", "Ÿves", "a|||b", "|||", "SCORE ||| a ||| b", "١٢٣,٤٥٦", "٣.١٤", "x,٣",
    "a\u0301b", "Ꙁ ꙁ", "ᴀᴁ", "Ԁԧ", "ǅungla", "\ufeffbom", "\ufffd replacement", "\u00ad", "'\u00ad'",
]


def _random_lines(n: int, seed: int) -> list[str]:
    """Seeded strings over the characters the normalizer's rules treat specially."""
    alphabet = (list("aAzZ09 .,'`-\"!?$%&;:()") + ["''", "``", "...", "--", "U.S.", "Mr.", "No.", "pp.", "DOTMULTI"]
                + list("‘’“”–—\t\x0b\x1f\u00a0\u2028\u3000\u2009éÿŠšŸ×÷Ж\ua640\u1d00ΣΑσ\u0301\u200b\u00ad😀一")
                + ["\U0001d7ce", "١"])
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14))) for _ in range(n)]


@pytest.fixture(scope="module")
def text_cases(real_lines: list[str], oracle: str) -> tuple[list[str], list[str]]:
    lines = real_lines + ADVERSARIAL + _random_lines(8000, seed=42)
    out = run_lines(oracle, "MeteorTextOracle", lines, ["text"])
    assert len(out) == 6 * len(lines)
    return lines, out


def _mismatches(lines, out, prefixes):
    bad = []
    for i, line in enumerate(lines):
        jar = out[6 * i:6 * i + 6]
        ours = [normalize_line(line, keep_punct=True, prefixes=prefixes),
                normalize_line(line, keep_punct=False, prefixes=prefixes)]
        ours += [" ".join(prepare(line, normalize=n, keep_punct=k, lowercase=lc, prefixes=prefixes))
                 for n, k, lc in ((False, True, False), (False, True, True), (True, True, True), (True, False, True))]
        if ours != jar:
            bad.append((line, jar, ours))
    return bad


def test_text_preparation_matches_the_jar_on_real_lines(text_cases, real_lines, prefixes):
    lines, out = text_cases
    n = len(real_lines)
    assert n > 6000
    bad = _mismatches(lines[:n], out[:6 * n], prefixes)
    assert not bad, f"{len(bad)} of {n} real lines differ, e.g. {bad[:3]}"


def test_text_preparation_matches_the_jar_on_adversarial_lines(text_cases, real_lines, prefixes):
    lines, out = text_cases
    n = len(real_lines)
    bad = _mismatches(lines[n:], out[6 * n:], prefixes)
    assert not bad, f"{len(bad)} of {len(lines) - n} adversarial lines differ, e.g. {bad[:3]}"


def test_prefixes_are_the_jar_table(oracle, prefixes):
    rows = dict(x.split("\t") for x in run_lines(oracle, "MeteorTextOracle", [], ["prefixes"]))
    assert prefixes.always == {p for p, kind in rows.items() if kind == "any"}
    assert prefixes.numeric_only == {p for p, kind in rows.items() if kind == "num"}
    assert prefixes.numeric_only == {"No", "Art", "pp"} and len(prefixes.always) > 80


# --- lowercasing ----------------------------------------------------------------------------------------------

_JAVA_TYPES = ("Cn", "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Me", "Mc", "Nd", "Nl", "No", "Zs", "Zl", "Zp", "Cc", "Cf",
               "", "Co", "Cs", "Pd", "Ps", "Pe", "Pc", "Po", "Sm", "Sc", "Sk", "So", "Pi", "Pf")


@pytest.fixture(scope="module")
def code_points() -> list[str]:
    return [chr(c) for c in range(0x110000) if not (0xD800 <= c <= 0xDFFF) and c not in (0x0A, 0x0D)]


@pytest.fixture(scope="module")
def same_category(oracle, code_points) -> frozenset[str]:
    """Characters whose Unicode category is the same in the JVM's tables and in Python's (they differ where a
    character was added after the JVM's Unicode version)."""
    types = run_lines(oracle, "MeteorTextOracle", code_points, ["type"])
    return frozenset(c for c, t in zip(code_points, types) if _JAVA_TYPES[int(t)] == unicodedata.category(c))


def test_lowercase_every_code_point(oracle, code_points):
    out = run_lines(oracle, "MeteorTextOracle", code_points, ["lower"])
    bad = [(c, j) for c, j in zip(code_points, out) if java_lower(c) != j]
    assert not bad, f"{len(bad)} code points lowercase differently, e.g. {bad[:5]}"


def test_final_sigma_follows_java(oracle, code_points, same_category):
    """Java's final sigma looks at the word (java.text.BreakIterator) around the sigma; every character next to
    a sigma, then seeded strings mixing the word-break classes."""
    others = [c for c in code_points if c in same_category and unicodedata.category(c) != "Cn"
              and (c <= "\uffff" or ord(c) % 16 == 0)]
    lines = [s for c in others for s in ("Α" + c + "Σ", "ΑΣ" + c, c + "Σ")]
    alphabet = (list("ΣΣΣΣΑβγΔέaZ09.'\"-_,$%#& \t\x0b\x0c\x01")
                + list("\u200b\u00ad\u0301\u0903\u4e00\u30a2\u3042\u0964\u2028\u00a0\u2027\u066b\u00a2\u0660")
                + list("\u02b0\u2160\u24b6\u0345\u1d2c\U00010400\U00010428\U00010000\U0001f600\U0001d7ce\U0001d167"))
    rng = random.Random(7)
    lines += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12))) for _ in range(40000)]
    out = run_lines(oracle, "MeteorTextOracle", lines, ["lower"])
    bad = [(s, j) for s, j in zip(lines, out) if java_lower(s) != j]
    assert not bad, f"{len(bad)} of {len(lines)} strings lowercase differently, e.g. {bad[:5]}"


# --- the stemmer ----------------------------------------------------------------------------------------------

_SUFFIXES = ("", "s", "es", "ies", "ied", "sses", "ss", "us", "'", "'s", "'s'", "ed", "eed", "ing", "edly", "eedly",
             "ingly", "y", "Y", "ly", "li", "ogi", "ational", "tional", "enci", "anci", "abli", "entli", "izer",
             "ization", "ation", "ator", "alism", "aliti", "alli", "fulness", "ousli", "ousness", "iveness", "iviti",
             "biliti", "bli", "fulli", "lessli", "alize", "icate", "iciti", "ical", "ful", "ness", "ative", "al",
             "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ism", "ate", "iti", "ous",
             "ive", "ize", "ion", "sion", "tion", "e", "l", "ll", "at", "bl", "iz", "bb", "tt", "ying", "yed")
_ADVERSARIAL_WORDS = [
    "", "a", "y", "Y", "ys", "yy", "yyy", "yyyy", "YyY", "yay", "sayYy", "'yell", "''", "'", "'''", "'s", "'s'",
    "cat's", "cats'", "it’s", "’s", "o’clock", "generously", "generate", "generation", "communication", "communism",
    "arsenal", "arsenic", "skis", "skies", "sky", "dying", "lying", "tying", "idly", "gently", "ugly", "early", "only",
    "singly", "news", "howe", "atlas", "cosmos", "bias", "andes", "inning", "innings", "outing", "outings", "canning",
    "herring", "herrings", "earring", "earrings", "proceed", "proceeds", "exceed", "exceeded", "succeed", "succeeds",
    "ied", "ies", "tied", "cries", "dies", "RUNNING", "Running", "rUnning", "naïve", "café", "résumé", "cafés",
    "Москва", "日本語", "😀", "😀s", "😀ing", "a😀ing", "x😀ies", "𐐀yed", "𐐀𐐀ed", "a𐐀ed", "ab𐐀", "1,000.50", "-5",
    "3.14", "1990's", "٣", "١٢٣", "𝟎𝟏", "--", "...", ".", "U.S.", "e.g.", "&amp;", "a\u00a0b", "\u00adly",
]


@pytest.fixture(scope="module")
def vocabulary(real_lines: list[str], prefixes: Prefixes) -> list[str]:
    """Every distinct token of the real lines (raw, lowercased, normalized), the jar's WordNet vocabulary
    (synsets, morphological exceptions, function words), seeded stem+suffix words, adversarial words."""
    words: set[str] = set(_ADVERSARIAL_WORDS)
    for line in real_lines:
        words.update(prepare(line, normalize=False, keep_punct=True, lowercase=False, prefixes=prefixes))
        words.update(prepare(line, normalize=True, keep_punct=True, lowercase=True, prefixes=prefixes))
    with zipfile.ZipFile(JAR) as jar:
        for name in ("synonym/english.synsets", "synonym/english.exceptions", "function/english.words"):
            for token in jar.read(name).decode("utf-8").split():
                if not token.isdigit():
                    words.add(token)
                    words.update(token.split("_"))
    rng = random.Random(3)
    letters = "aeiouybcdlgnrstwxzY'"
    for _ in range(60000):
        base = "".join(rng.choice(letters) for _ in range(rng.randint(0, 7)))
        words.add(base + rng.choice(_SUFFIXES) + rng.choice(("", "", "s", "ly", "ing", "ed")))
    return sorted(w for w in words if "\n" not in w and "\r" not in w)


def test_stems_match_the_jar(oracle, vocabulary):
    """The Snowball stemmer the jar's stem module calls (SnowballStemmerWrapper), on every word."""
    assert len(vocabulary) > 200000
    out = run_lines(oracle, "MeteorTextOracle", vocabulary, ["stem"])
    bad = [(w, j, stem(w)) for w, j in zip(vocabulary, out) if stem(w) != j]
    assert not bad, f"{len(bad)} of {len(vocabulary)} words stem differently, e.g. {bad[:10]}"


def _looks_like_number(word: str) -> bool:
    """The ``Stemmer`` main class's test (per UTF-16 unit: Character.isDigit, ',', '.', '-')."""
    return all(c in ",.-" or (c <= "\uffff" and unicodedata.category(c) == "Nd") for c in word)


def test_stemmer_main_class(vocabulary):
    """``java -cp meteor-1.5.jar Stemmer en``, which leaves number-like words alone and stems the rest."""
    words = [w for w in vocabulary if w and not re.search("[ \t\f]", w)]
    out = run_lines(str(JAR), "Stemmer", words, ["en"])
    assert len(out) == len(words)
    bad = [(w, j) for w, j in zip(words, out) if j != (w if _looks_like_number(w) else stem(w))]
    assert not bad, f"{len(bad)} of {len(words)} words differ, e.g. {bad[:10]}"


# --- -stdio SCORE lines ---------------------------------------------------------------------------------------

SCORE_LINES = [
    "SCORE ||| a ref ||| a hyp", "SCORE ||| r1 ||| r2 ||| r3 ||| hyp", "score ||| r ||| h", "SCORE||| r |||h",
    "SCORE ||| r ||| ", "SCORE ||| r |||", "SCORE ||| r ||| |||", "SCORE ||| ||| ", "SCORE ||| |||", "SCORE |||",
    "SCORE", "SCORE ||| r", "SCORE ||| r ||| h |||", "SCORE ||| r ||| h ||| ", "SCORE ||| a||b ||| c|||d",
    "SCORE |||| r |||| h", "SCORE ||||||| h", "SCORE ||| \x01r\x1f ||| \u00a0h\u00a0 ", "SCORE ||| \tr\t ||| h\t",
    "SCOREX ||| r ||| h", "EVAL ||| 1 2 3", "Score ||| r ||| h", " SCORE ||| r ||| h", "||| r ||| h",
    "SCORE ||| r ||| h ||| ||| ", "SCORE ||| ΣΑΣ ||| 😀", "SCORE |||||| r ||| h",
]


def test_split_score_line_matches_the_jar(oracle):
    out = run_lines(oracle, "MeteorTextOracle", SCORE_LINES, ["score"])
    k = 0
    for line in SCORE_LINES:
        head = out[k]
        k += 1
        if head in ("not a score line", "too few fields"):
            with pytest.raises(VecscoreError):
                split_score_line(line)
            continue
        fields = out[k:k + int(head)]
        k += int(head)
        assert split_score_line(line) == (fields[:-1], fields[-1]), line
    assert k == len(out)
