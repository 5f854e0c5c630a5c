"""``vecscore sacrebleu``'s arguments: sacreBLEU 2.6's command line, flag for flag.

``sacrebleu REF [REF ...] -i HYP -m bleu chrf ter -b -w 2 -f text -l en-de`` becomes
``vecscore sacrebleu REF [REF ...] -i HYP ...`` with the same flags, short and long, and the same defaults.
The flags that fetch or describe sacreBLEU's test sets (``-t``, ``--list``, ``--echo``, ...) are accepted
by the parser so that :mod:`vecscore.cli.sacrebleu_run` can refuse them with the fix, instead of argparse
calling them unknown.
"""
from __future__ import annotations

import argparse

from vecscore._version import __version__

__all__ = ["SACREBLEU_VERSION", "SACREBLEU_TOKENIZERS", "OUTPUT_FORMATS", "add_sacrebleu_parser"]

#: the sacreBLEU release whose command line (flags, output) and numbers ``vecscore sacrebleu`` reproduces
SACREBLEU_VERSION = "2.6.0"

#: sacreBLEU 2.6's ``--tokenize`` names, and vecscore's ``zh-fixed`` (sacreBLEU's ``zh`` with its character
#: ranges corrected); a name vecscore cannot run here is refused when the metric is built, with the fix
SACREBLEU_TOKENIZERS = ("none", "zh", "13a", "intl", "char", "ja-mecab", "ko-mecab", "spm", "flores101", "flores200",
                        "spBLEU-1K", "zh-fixed")

OUTPUT_FORMATS = ("json", "text", "latex")

_DESCRIPTION = """\
sacreBLEU 2.6's command line, scored by vecscore: the same flags, the same numbers and the same output
(BLEU, chrF and TER against your own reference files).

  vecscore sacrebleu REF.txt [REF2.txt ...] -i HYP.txt [-m bleu chrf ter] [-b] [-w 2] [-f text] [-l en-de]

Signatures name sacreBLEU's version (version:2.6.0), the release that gives these numbers; --vecscore-version
names vecscore's instead. Test sets (-t), downloads and paired tests are not here: give reference files, and
compare systems with `vecscore compare`."""


def add_sacrebleu_parser(sub) -> argparse.ArgumentParser:
    """Add the ``sacrebleu`` command to the subparsers ``sub``; returns its parser."""
    p = sub.add_parser("sacrebleu", help="sacreBLEU's command line: vecscore sacrebleu REF -i HYP -m bleu chrf ter "
                       "-b -w 2 -f text -l en-de", description=_DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("refs", nargs="*", default=[], help="reference files, one segment per line; give them before -i")
    p.add_argument("--input", "-i", nargs="*", default=None, metavar="INPUT",
                   help="the system output (one file); without -i, standard input")
    p.add_argument("--num-refs", "-nr", type=int, default=1,
                   help="one reference file holding this many tab-separated references per line (default: 1)")
    p.add_argument("--encoding", "-e", default="utf-8", help="encoding of the text files (default: %(default)s)")
    p.add_argument("--metrics", "-m", nargs="+", choices=["bleu", "chrf", "ter"], default=["bleu"],
                   help="metrics to compute (default: bleu)")
    p.add_argument("--sentence-level", "-sl", action="store_true", help="one score per segment (one metric)")
    p.add_argument("--language-pair", "-l", dest="langpair", metavar="SRC-TGT",
                   help="source-target language pair: without --tokenize, BLEU's tokenizer follows the target "
                        "(zh: zh, ja: ja-mecab, ko: ko-mecab, otherwise 13a), as sacreBLEU's")

    b = p.add_argument_group("BLEU")
    b.add_argument("--smooth-method", "-s", dest="bleu_smooth_method", choices=["none", "floor", "add-k", "exp"],
                   default="exp", help="(default: %(default)s)")
    b.add_argument("--smooth-value", "-sv", dest="bleu_smooth_value", type=float,
                   help="for floor (default 0.1) and add-k (default 1)")
    b.add_argument("--tokenize", "-tok", dest="bleu_tokenize", choices=SACREBLEU_TOKENIZERS,
                   help="(default: from -l's target, else 13a)")
    b.add_argument("--lowercase", "-lc", dest="bleu_lowercase", action="store_true", help="case-insensitive BLEU")
    b.add_argument("--force", dest="bleu_force", action="store_true",
                   help="no warning for hypotheses that look tokenized")

    c = p.add_argument_group("chrF")
    c.add_argument("--chrf-char-order", "-cc", type=int, default=6, help="(default: %(default)s)")
    c.add_argument("--chrf-word-order", "-cw", type=int, default=0, help="2 for chrF++ (default: %(default)s)")
    c.add_argument("--chrf-beta", type=int, default=2, help="(default: %(default)s)")
    c.add_argument("--chrf-whitespace", action="store_true")
    c.add_argument("--chrf-lowercase", action="store_true")
    c.add_argument("--chrf-eps-smoothing", action="store_true")

    t = p.add_argument_group("TER")
    t.add_argument("--ter-case-sensitive", action="store_true")
    t.add_argument("--ter-asian-support", action="store_true")
    t.add_argument("--ter-no-punct", action="store_true")
    t.add_argument("--ter-normalized", action="store_true")

    ci = p.add_argument_group("confidence interval (bootstrap; seed: SACREBLEU_SEED, default 12345)")
    ci.add_argument("--confidence", "-ci", action="store_true")
    ci.add_argument("--confidence-n", "-cin", type=int, default=1000, help="(default: %(default)s)")

    r = p.add_argument_group("reporting")
    r.add_argument("--quiet", "-q", action="store_true")
    r.add_argument("--short", "-sh", action="store_true", help="short signature")
    r.add_argument("--score-only", "-b", action="store_true", help="print only the score")
    r.add_argument("--width", "-w", type=int, default=1, help="decimals (default: %(default)s)")
    r.add_argument("--no-color", "-nc", action="store_true", help="(vecscore never colours its output)")
    r.add_argument("--format", "-f", choices=OUTPUT_FORMATS, default="json",
                   help="json or text (latex prints as text for one system); the SACREBLEU_FORMAT environment "
                        "variable overrides it, as in sacreBLEU (default: %(default)s)")
    r.add_argument("--vecscore-version", action="store_true",
                   help="signatures name vecscore's version instead of sacreBLEU's")
    r.add_argument("--version", "-V", action="version",
                   version=f"vecscore {__version__} (sacrebleu: sacreBLEU {SACREBLEU_VERSION}'s command line)")

    # sacreBLEU's flags that vecscore does not offer: parsed, then refused with the fix
    no = p.add_argument_group("not offered (sacreBLEU's test sets and multi-system modes)")
    no.add_argument("--test-set", "-t", help=argparse.SUPPRESS)
    no.add_argument("--list", action="store_true", help=argparse.SUPPRESS)
    no.add_argument("--citation", "--cite", action="store_true", help=argparse.SUPPRESS)
    no.add_argument("--download", help=argparse.SUPPRESS)
    no.add_argument("--echo", nargs="+", help=argparse.SUPPRESS)
    no.add_argument("--origlang", "-ol", help=argparse.SUPPRESS)
    no.add_argument("--subset", help=argparse.SUPPRESS)
    no.add_argument("--detail", "-d", action="store_true", help=argparse.SUPPRESS)
    pair = no.add_mutually_exclusive_group()
    pair.add_argument("--paired-ar", "-par", action="store_true", help=argparse.SUPPRESS)
    pair.add_argument("--paired-bs", "-pbs", action="store_true", help=argparse.SUPPRESS)
    no.add_argument("--paired-ar-n", "-parn", type=int, default=10000, help=argparse.SUPPRESS)
    no.add_argument("--paired-bs-n", "-pbsn", type=int, default=1000, help=argparse.SUPPRESS)
    no.add_argument("--paired-jobs", "-j", type=int, default=1, help=argparse.SUPPRESS)
    return p
