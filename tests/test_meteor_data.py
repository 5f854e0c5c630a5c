"""METEOR's data tables (function words, WordNet synonyms, the paraphrase table) against meteor-1.5.jar's own
classes, and their on-disk cache.

A small Java harness builds the jar's ``SynonymDictionary`` and ``ParaphraseTransducer`` and prints, per input
word, the synsets the synonym module uses (and the private ``morph``'s answer), and per input line the
reference paths from every position with the paraphrase's words (spelled through the transducer's own
vocabulary); the Python tables must give the same, in the same order.  Inputs: real corpora, the jar's WordNet
files, entries of the paraphrase table itself, inflected and adversarial words.  Java reads the paraphrase table
once per module.
"""
from __future__ import annotations

import gzip
import os
import random
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import data_file, e2e_nlg
from tests.meteor_oracle import compile_harness, find_jar, java_available, run_lines
from vecscore.errors import MissingDependencyError, VecscoreError
from vecscore.meteor import resources
from vecscore.meteor.paraphrase import ParaphraseTable, build_paraphrase_arrays, load_paraphrases
from vecscore.meteor.resources import cached_arrays, find_paraphrase, function_words
from vecscore.meteor.resources import find_jar as vecscore_find_jar
from vecscore.meteor.synonyms import SynonymTable, build_synonym_arrays, java_hash, load_synonyms

JAR = find_jar()


def _require_oracle() -> None:
    if JAR is None or not java_available():
        if os.environ.get("VECSCORE_REQUIRE_DATA", "") not in ("", "0"):
            pytest.fail("java, javac and pycocoevalcap's meteor-1.5.jar are required (VECSCORE_REQUIRE_DATA is set)")
        pytest.skip("needs java, javac and pycocoevalcap's meteor/meteor-1.5.jar")


def _require_jar() -> Path:
    if JAR is None:
        if os.environ.get("VECSCORE_REQUIRE_DATA", "") not in ("", "0"):
            pytest.fail("pycocoevalcap's meteor-1.5.jar is required (VECSCORE_REQUIRE_DATA is set)")
        pytest.skip("needs pycocoevalcap's meteor/meteor-1.5.jar")
    return JAR


HARNESS = r"""
import edu.cmu.meteor.aligner.ParaphraseTransducer;
import edu.cmu.meteor.aligner.SynonymDictionary;
import java.io.*;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URL;
import java.util.*;

public class MeteorDataHarness {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        PrintStream out = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16),
                                          false, "UTF-8");
        if (args[0].equals("syn")) {
            String dir = ClassLoader.getSystemResource("synonym").toString();
            SynonymDictionary d = new SynonymDictionary(new URL(dir + "/english.exceptions"),
                                                        new URL(dir + "/english.synsets"),
                                                        new URL(dir + "/english.relations"));
            Method morph = SynonymDictionary.class.getDeclaredMethod("morph", String.class);
            morph.setAccessible(true);
            String w;
            while ((w = in.readLine()) != null) {
                TreeSet<Integer> s = new TreeSet<Integer>(d.getSynSets(w));
                s.addAll(d.getStemSynSets(w));
                StringBuilder b = new StringBuilder();
                for (int x : s) {
                    if (b.length() > 0) b.append(' ');
                    b.append(x);
                }
                b.append('\t').append((String) morph.invoke(d, w));
                out.print(b.toString() + "\n");
            }
        } else {
            ParaphraseTransducer t = new ParaphraseTransducer(new File(args[1]).toURI().toURL());
            Field f = ParaphraseTransducer.class.getDeclaredField("vocab");
            f.setAccessible(true);
            @SuppressWarnings("unchecked")
            Hashtable<String, Integer> vocab = (Hashtable<String, Integer>) f.get(t);
            String[] words = new String[vocab.size()];
            for (Map.Entry<String, Integer> e : vocab.entrySet()) words[e.getValue()] = e.getKey();
            Field n = ParaphraseTransducer.class.getDeclaredField("nextIdx");
            n.setAccessible(true);
            out.print(n.get(t) + "\n" + words.length + "\n");
            for (String w : words) out.print(w + "\n");
            String line;
            while ((line = in.readLine()) != null) {
                StringTokenizer tok = new StringTokenizer(line, " ");
                ArrayList<String> ws = new ArrayList<String>();
                while (tok.hasMoreTokens()) ws.add(tok.nextToken());
                int[] ids = t.translate(ws);
                StringBuilder b = new StringBuilder();
                for (int id : ids) b.append(id < 0 ? '0' : '1');
                for (int j = 0; j < ids.length; j++) {
                    int[] p = t.getReferencePaths(ids, j);
                    for (int k = 0; k < p.length; k += 2) {
                        b.append('\t').append(j).append(',').append(p[k]).append(',').append(p[k + 1]).append(':');
                        int[] par = t.getParaphrase(p[k + 1]);
                        for (int q = 0; q < par.length; q++) {
                            if (q > 0) b.append(' ');
                            b.append(words[par[q]]);
                        }
                    }
                }
                out.print(b.toString() + "\n");
            }
        }
        out.flush();
    }
}
"""


@pytest.fixture(scope="module")
def harness(tmp_path_factory) -> str:
    _require_oracle()
    return compile_harness(tmp_path_factory.mktemp("meteor-data"), "MeteorDataHarness", HARNESS)


def _java_paraphrases(classpath: str, path: Path, lines: list[str]) -> tuple[int, list[str], list[str]]:
    """``(entries, vocabulary, one output per line)`` of the jar's transducer over the table at ``path``."""
    out = run_lines(classpath, "MeteorDataHarness", lines, ["para", str(path)])
    entries, n = int(out[0]), int(out[1])
    return entries, out[2:2 + n], out[2 + n:]


def _python_paths(table: ParaphraseTable, lines: list[str]) -> list[str]:
    """The harness's output lines, from the Python table."""
    vocab = [table.word(i) for i in range(len(table.vocab))]
    out = []
    for line in lines:
        ids = table.translate([w for w in line.split(" ") if w])
        parts = ["".join("0" if i < 0 else "1" for i in ids)]
        for j in range(len(ids)):
            for n, p in table.reference_paths(ids, j):
                parts.append(f"{j},{n},{p}:" + " ".join(vocab[i] for i in table.paraphrase(p).tolist()))
        out.append("\t".join(parts))
    return out


def _mismatches(expected: list[str], got: list[str], inputs: list[str]) -> list[tuple[str, str, str]]:
    assert len(expected) == len(got) == len(inputs)
    return [(i, e[:300], g[:300]) for i, e, g in zip(inputs, expected, got) if e != g]


# --- inputs ------------------------------------------------------------------------------------------------------

_WORD = re.compile(r"[\w'-]+|[^\w\s]")


@pytest.fixture(scope="module")
def corpus_lines(shared_data: Path) -> list[str]:
    """Real English text: E2E references and system outputs, TED translations and headlines; each as it is
    (split at whitespace) and lower-cased with punctuation split off (as METEOR's normalisation sees it)."""
    refs, systems = e2e_nlg(shared_data)
    raw = [r for rs in refs for r in rs] + systems["tgen"] + systems["sheff1"]
    mt = data_file(shared_data, "compare-mt-examples")
    for name in ("ted.ref.eng", "ted.sys1.eng", "sum.ref.eng", "sum.sys1.eng"):
        raw += (mt / name).read_text(encoding="utf-8").split("\n")
    nlg = data_file(shared_data, "nlg-eval-examples")
    for name in ("hyp.txt", "ref1.txt", "ref2.txt"):
        raw += (nlg / name).read_text(encoding="utf-8").split("\n")
    lines = [" ".join(r.split()) for r in raw] + [" ".join(_WORD.findall(r.lower())) for r in raw]
    return list(dict.fromkeys(x for x in lines if x))


@pytest.fixture(scope="module")
def table_phrases() -> list[str]:
    """Every 1,500th entry's reference and paraphrase phrase from the paraphrase table itself, with a word
    after them (long matches, multiword paths)."""
    path = find_paraphrase(jar=_require_jar())
    with gzip.open(path, "rt", encoding="utf-8") as f:
        lines = f.read().split("\n")
    phrases = lines[1::3][::1500] + lines[2::3][::1500]
    return list(dict.fromkeys(p + suffix for p in phrases for suffix in ("", " of the")))


def _adversarial_words() -> list[str]:
    return ["", "a", "I", "s", "ss", "as", "is", "us", "ox", "xes", "ies", "men", "ful", "sful", "ss ful",
            "glass", "glasses", "classes", "kiss", "kisses", "boss's", "beautiful", "beautifuls", "handful",
            "handfuls", "cupful", "cupsful", "spoonful", "Running", "RAN", "Went", "Cars", "ÉTÉ", "été", "naïve",
            "naïves", "café", "cafés", "ßs", "straße", "über", "中文", "テスト", "😀", "😀s", "a😀", "😀ss", "x\u00a0s",
            "caf\u00e9s", "cafe\u0301s", "ﬁles", "İs", "men's", "'s", "s's", "-ing", "ing", "ed", "er", "est", "es",
            "ches", "shes", "zes", "ses", "eses", "buses", "boxes", "buzzes", "churches", "bushes", "women",
            "flies", "tries", "goes", "does", "used", "using", "makes", "taking", "bigger", "biggest", "nicer",
            "nicest", "larger", "happier", "happiest", "axes", "bases", "ties", "dies", "lies", "media", "data"]


@pytest.fixture(scope="module")
def synonym_words(corpus_lines: list[str]) -> list[str]:
    """Corpus words (as written and lower-cased), the jar's exception forms and bases, a seeded sample of the
    WordNet words with every suffix of WordNet's rules (and ``ful``, ``ss``) added, capitalised words and
    adversarial ones."""
    jar = _require_jar()
    with zipfile.ZipFile(jar) as z:
        exceptions = z.read("synonym/english.exceptions").decode("utf-8").split("\n")
        listed = z.read("synonym/english.synsets").decode("utf-8").split("\n")[0::2]
    words = [w for line in corpus_lines for w in line.split(" ")]
    words += [w for line in exceptions for w in line.split()]
    rng = random.Random(42)
    sample = rng.sample(listed, 3000)
    suffixes = ("s", "ses", "xes", "zes", "ches", "shes", "men", "ies", "es", "ed", "ing", "er", "est", "ful", "ss")
    words += sample + [w + s for w in sample for s in suffixes] + [w[:-1] for w in sample]
    words += [w.capitalize() for w in sample[:500]] + [w.upper() for w in sample[:200]]
    words += _adversarial_words()
    return list(dict.fromkeys(w for w in words if "\n" not in w and "\r" not in w))


# --- synonyms against the jar ------------------------------------------------------------------------------------

def test_synonym_files_are_ascii():
    """The jar reads the synsets with the JVM's default charset and the exceptions as UTF-8; both files being
    ASCII is what makes that difference moot (vecscore reads both as UTF-8)."""
    with zipfile.ZipFile(_require_jar()) as z:
        for name in ("synonym/english.synsets", "synonym/english.exceptions"):
            assert z.read(name).isascii(), name


def test_synsets_match_the_jar(harness, synonym_words):
    out = run_lines(harness, "MeteorDataHarness", synonym_words, ["syn"])
    table = load_synonyms()
    got = [" ".join(map(str, sorted(table.synsets(w)))) + "\t" + table.base_form(w) for w in synonym_words]
    bad = _mismatches(out, got, synonym_words)
    assert not bad, bad[:10]
    assert len(synonym_words) > 40_000
    assert sum(1 for line in out if not line.startswith("\t")) > 20_000  # most words have synsets


def test_synset_arrays_are_the_sets(synonym_words):
    table = load_synonyms()
    words = synonym_words[:2000]
    ptr, values = table.synset_arrays(words)
    assert ptr.dtype == values.dtype == np.int64 and len(ptr) == len(words) + 1
    for k, w in enumerate(words):
        row = values[ptr[k]:ptr[k + 1]]
        assert np.all(np.diff(row) > 0) and set(row.tolist()) == table.synsets(w)


def test_synonym_pairs():
    table = load_synonyms()
    assert table.are_synonyms("car", "automobile") and table.are_synonyms("went", "go")
    assert not table.are_synonyms("car", "car")
    assert java_hash("Aa") == java_hash("BB") == 2112 and java_hash("hello") == 99162322
    assert java_hash("😀") == (31 * 0xD83D + 0xDE00)


def test_function_words_are_the_jar_list():
    jar = _require_jar()
    with zipfile.ZipFile(jar) as z:
        lines = z.read("function/english.words").decode("utf-8").split("\n")
    words = function_words()
    assert words == frozenset(x for x in lines if x) and "the" in words and "\u2019" in words
    assert function_words(jar) is words


# --- the paraphrase table against the jar -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def paraphrase_oracle(harness, corpus_lines, table_phrases):
    lines = random.Random(7).sample(corpus_lines, 12_000) + table_phrases
    path = find_paraphrase(jar=JAR)
    entries, vocab, out = _java_paraphrases(harness, path, lines)
    return lines, entries, vocab, out


def test_paraphrase_vocabulary_matches_the_jar(paraphrase_oracle):
    _, entries, vocab, _ = paraphrase_oracle
    table = load_paraphrases()
    assert len(table) == entries == 5_274_084
    assert len(table.vocab) == len(vocab)
    assert sorted(table.word(i) for i in range(len(table.vocab))) == sorted(vocab)
    assert all(table.word_id(w) >= 0 for w in vocab)


def test_reference_paths_match_the_jar(paraphrase_oracle):
    lines, _, _, out = paraphrase_oracle
    table = load_paraphrases()
    bad = _mismatches(out, _python_paths(table, lines), lines)
    assert not bad, bad[:5]
    assert len(lines) > 10_000
    assert sum(line.count("\t") for line in out) > 100_000  # many paths, of every length
    assert {int(p.split(",")[1]) for line in out for p in line.split("\t")[1:]} == set(range(1, 8))


SYNTHETIC = [  # (probability, reference phrase, paraphrase) in file order
    ("0.5", "a lot", "many"),
    ("0.25", "a lot of", "plenty of"),
    ("0.125", "a", "one"),
    ("0.5", "a lot", "lots"),  # a second paraphrase of "a lot": emitted after entry 0
    ("0.1", "big", "large"),
    ("0.2", "a lot of people", "many people"),
    ("0.3", "big", "a lot"),
]


def _write_table(path: Path, entries, raw: bytes | None = None) -> Path:
    data = raw if raw is not None else "".join(f"{p}\n{r}\n{q}\n" for p, r, q in entries).encode("utf-8")
    with gzip.open(path, "wb") as f:
        f.write(data)
    return path


def test_synthetic_table_by_hand():
    table = ParaphraseTable(build_paraphrase_arrays(_write_bytes(SYNTHETIC)))
    assert len(table) == 7 and len(table.vocab) == 10
    ids = table.translate(["a", "lot", "of", "people", "are", "big"])
    assert ids[4] == -1 and (ids[[0, 1, 2, 3, 5]] >= 0).all()
    assert table.reference_paths(ids, 0) == [(1, 2), (2, 0), (2, 3), (3, 1), (4, 5)]
    assert table.reference_paths(ids, 1) == [] and table.reference_paths(ids, 6) == []
    assert table.reference_paths(ids, 5) == [(1, 4), (1, 6)]
    assert [table.paraphrase_words(p) for p in (0, 1, 5, 6)] == [["many"], ["plenty", "of"], ["many", "people"],
                                                                  ["a", "lot"]]
    assert table.paraphrase(6).tolist() == table.translate(["a", "lot"]).tolist()
    # the arrays a kernel walks: children sorted by word, emits in file order
    assert (table.child_ptr[0], table.child_ptr[1]) == (0, 2)  # the root's children: "a" and "big"
    root = table.child_word[0:2].tolist()
    assert root == sorted(table.translate(["a", "big"]).tolist())


def _write_bytes(entries) -> bytes:
    return "".join(f"{p}\n{r}\n{q}\n" for p, r, q in entries).encode("utf-8")


ODD_TABLE = (  # separators, line ends and bytes the jar's reader treats in its own way
    b"\xef\xbb\xbf0.1\nthe\tbig\x0cdog\n  a   dog \n"  # BOM in an unread line; tab and form feed separate words
    b"0.2\r\nthe big\r\nthe\x0blarge\r\n"  # CRLF line ends; a vertical tab does not separate words
    b"0.3\rcaf\xc3\xa9\rcoffee\xa0shop\r"  # CR line ends; a lone continuation byte is malformed
    b"0.4\n\xed\xa0\x80x \xe2\x82 \xf0\x9f\x98\x80 \xed\xbf!\n"  # encoded surrogates (whole, cut), a cut sequence
    b"\xc0\xaf y \xe0\x80\x80z \xf4\x90\x80\x80 \xf0\x9f\x98\n"  # overlong forms, past U+10FFFF, a cut emoji
    b"0.5\nthe\n\n"  # an empty paraphrase
    b"0.6\n\nempty reference\n"  # an empty reference phrase: never found
    b"0.7\nthe big\nlast line without a newline"
)


def test_odd_bytes_match_the_jar(harness, tmp_path):
    path = _write_table(tmp_path / "odd.gz", [], raw=ODD_TABLE)
    table = ParaphraseTable(build_paraphrase_arrays(gzip.decompress(path.read_bytes())))
    words = [table.word(i) for i in range(len(table.vocab))]
    assert table.word_id("\ufffdx") >= 0 and table.word_id("\ufffd!") >= 0  # one U+FFFD per surrogate, as Java
    lines = ["the big dog", "the big", "the", "café", "\ufffdx", "\ufffd\ufffd\ufffdx", "😀", "a dog the",
             "empty reference", "big dog", "the\x0blarge"] + [" ".join(words), " ".join(reversed(words))]
    entries, vocab, out = _java_paraphrases(harness, path, lines)
    assert entries == len(table) == 7
    assert sorted(vocab) == sorted(words)
    bad = _mismatches(out, _python_paths(table, lines), lines)
    assert not bad, bad


def test_truncated_table_is_an_error():
    with pytest.raises(VecscoreError, match="not a multiple of 3"):
        build_paraphrase_arrays(b"0.1\na\n")
    empty = ParaphraseTable(build_paraphrase_arrays(b""))
    assert len(empty) == 0 and empty.reference_paths(empty.translate(["a"]), 0) == []


# --- the cache ---------------------------------------------------------------------------------------------------

@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setattr(resources, "cache_folder", lambda: str(folder))
    return folder


def _counting(entries):
    calls = []

    def build():
        calls.append(1)
        return build_paraphrase_arrays(_write_bytes(entries))
    return build, calls


def test_cache_is_reused_and_read_only(cache, tmp_path):
    source = _write_table(tmp_path / "table.gz", SYNTHETIC)
    build, calls = _counting(SYNTHETIC)
    first = cached_arrays("paraphrase", [source], build)
    second = cached_arrays("paraphrase", [source], build)
    assert len(calls) == 1
    files = list(cache.iterdir())
    assert len([f for f in files if f.suffix == ".npy"]) == 1 and not [f for f in files if f.name.startswith(".")]
    for name, a in second.items():
        assert not a.flags.writeable, name
        np.testing.assert_array_equal(a, first[name])
    with pytest.raises(ValueError):
        second["emit"][0] = 1
    # a fresh process maps the same file and builds nothing
    code = (f"import sys; import numpy as np; from pathlib import Path; from vecscore.meteor import resources as r\n"
            f"r.cache_folder = lambda: {str(cache)!r}\n"
            f"def build(): sys.exit('rebuilt')\n"
            f"a = r.cached_arrays('paraphrase', [Path({str(source)!r})], build)['emit']\n"
            f"b = a\n"
            f"while isinstance(b, np.ndarray): b = b.base\n"
            f"print(type(b).__name__, a.flags.writeable, a.tolist())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parents[1])
    assert done.returncode == 0, done.stderr
    assert done.stdout.split(" ", 2)[:2] == ["mmap", "False"]  # views of one read-only memory map
    assert done.stdout.split(" ", 2)[2].strip() == str(first["emit"].tolist())


def test_cache_is_rebuilt_when_the_source_changes(cache, tmp_path):
    source = _write_table(tmp_path / "table.gz", SYNTHETIC)
    table = ParaphraseTable(cached_arrays("paraphrase", [source], _counting(SYNTHETIC)[0]))
    assert table.reference_paths(table.translate(["big"]), 0) == [(1, 4), (1, 6)]
    changed = SYNTHETIC[:4] + [("0.9", "big dog", "hound")]
    _write_table(source, changed)
    os.utime(source, ns=(os.stat(source).st_atime_ns, os.stat(source).st_mtime_ns + 10**9))
    build, calls = _counting(changed)
    table = ParaphraseTable(cached_arrays("paraphrase", [source], build))
    assert calls == [1] and len(table) == 5
    assert table.reference_paths(table.translate(["big", "dog"]), 0) == [(2, 4)]
    assert table.paraphrase_words(4) == ["hound"]
    files = list(cache.iterdir())  # replaced in place, no partial or stale files
    assert len([f for f in files if f.suffix == ".npy"]) == 1 and not [f for f in files if f.name.startswith(".")]


def test_damaged_cache_file_is_rebuilt(cache, tmp_path):
    source = _write_table(tmp_path / "table.gz", SYNTHETIC)
    build, calls = _counting(SYNTHETIC)
    cached_arrays("paraphrase", [source], build)
    (path,) = cache.glob("*.npy")
    path.write_bytes(path.read_bytes()[:200])
    table = ParaphraseTable(cached_arrays("paraphrase", [source], build))
    assert calls == [1, 1] and len(table) == 7


def test_cold_processes_build_once(cache, tmp_path):
    """Workers started together on a cold cache: one builds, the others wait for its file."""
    source = _write_table(tmp_path / "table.gz", SYNTHETIC)
    log = tmp_path / "builds.log"
    code = (f"import time; from pathlib import Path; from vecscore.meteor import resources as r\n"
            f"from vecscore.meteor.paraphrase import build_paraphrase_arrays\n"
            f"r.cache_folder = lambda: {str(cache)!r}\n"
            f"def build():\n"
            f"    open({str(log)!r}, 'a').write('built\\n'); time.sleep(1.0)\n"
            f"    return build_paraphrase_arrays({_write_bytes(SYNTHETIC)!r})\n"
            f"a = r.cached_arrays('paraphrase', [Path({str(source)!r})], build)\n"
            f"print(a['emit'].tolist())")
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              cwd=Path(__file__).parents[1]) for _ in range(3)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [e for _, e in outs]
    assert len({o for o, _ in outs}) == 1 and log.read_text() == "built\n"


def test_load_paraphrases_from_a_path(cache, tmp_path):
    source = _write_table(tmp_path / "mine.gz", SYNTHETIC)
    table = load_paraphrases(source)
    assert load_paraphrases(str(source)) is table and len(table) == 7
    assert table.paraphrase_words(3) == ["lots"]
    import pickle
    assert pickle.loads(pickle.dumps(table)) is table  # a worker process loads the file from the cache


def test_synonyms_from_bytes_by_hand():
    synsets = b"car\n1 2 3\nauto\n3\nbox\n7\nfox\n\nglass\n9 8\nbox\n5 4\n"  # box listed twice: the last line wins
    exceptions = b"car\nkar cars\nnone\ncars\n"  # "cars" is a form of car and of an unlisted base
    table = SynonymTable(build_synonym_arrays(exceptions, synsets))
    assert table.synsets("car") == {1, 2, 3} and table.synsets("box") == {4, 5}
    assert table.synsets("cars") == {1, 2, 3} and table.synsets("kar") == {1, 2, 3}
    assert table.synsets("boxes") == {4, 5}  # the noun rule "xes" -> "x"
    assert table.base_form("foxes") == "fox" and table.synsets("foxes") == frozenset()  # listed with no synsets
    assert table.base_form("glasses") == "glass" and table.synsets("glasses") == {8, 9}  # "ses" -> "s"
    assert table.base_form("glass") == "glass" and table.synsets("glass") == {8, 9}
    assert table.base_form("autos") == "auto" and table.are_synonyms("autos", "car")
    assert table.base_form("ox") == "ox" and table.base_form("carful") == ""


# --- missing data ------------------------------------------------------------------------------------------------

def test_missing_data_names_the_fix(monkeypatch, tmp_path):
    monkeypatch.setattr(resources, "_pycocoevalcap_meteor", lambda: None)
    with pytest.raises(MissingDependencyError, match="pip install pycocoevalcap"):
        vecscore_find_jar()
    with pytest.raises(MissingDependencyError, match="pip install pycocoevalcap"):
        load_synonyms()
    with pytest.raises(MissingDependencyError, match="pip install pycocoevalcap"):
        load_paraphrases()
    with pytest.raises(VecscoreError, match="jar='/no/such.jar' is not a file"):
        vecscore_find_jar("/no/such.jar")
    with pytest.raises(VecscoreError, match="paraphrase_file='/no/such.gz' is not a file"):
        find_paraphrase("/no/such.gz")
    lone = tmp_path / "meteor-1.5.jar"
    lone.write_bytes(b"not a jar")
    with pytest.raises(VecscoreError, match="paraphrase_file="):
        find_paraphrase(jar=lone)
    with pytest.raises(VecscoreError, match="cannot read"):
        function_words(lone)
