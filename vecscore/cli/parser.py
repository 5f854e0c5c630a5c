"""The ``vecscore`` command's arguments: one ``argparse`` parser with a subparser per command.

Every option is defined here (the input and output flags shared by the scoring
commands in :func:`io_parent`, each metric's options in its own function);
:mod:`vecscore.cli.main` turns parsed arguments into a run.
"""
from __future__ import annotations

import argparse

from vecscore._version import __version__
from vecscore.cli.pairwise import add_matrix_parsers
from vecscore.cli.sacrebleu_args import add_sacrebleu_parser
from vecscore.cli.shared import SHARED_HELP
from vecscore.io.stream import DEFAULT_CHUNK_SIZE
from vecscore.io.write import OUTPUT_FORMATS
from vecscore.rouge.multiref import MULTI_REF
from vecscore.rouge.options import DEFAULT_METRICS
from vecscore.text.sentences import SENTENCE_SPLITTERS
from vecscore.text.tokenizers import TOKENIZERS

__all__ = ["build_parser", "positive_int", "Once", "io_parent"]


def positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {v}")
    return v


class Once(argparse.Action):
    """A flag that takes one value: given twice is an error (argparse would silently keep the last)."""

    def __call__(self, parser, namespace, values, option_string=None):
        seen = namespace.__dict__.setdefault("_given_once", set())
        if self.dest in seen:
            hint = "; to compare several systems, use: vecscore compare --hyps A.txt B.txt ..." \
                if self.dest == "hyps" else ""
            raise argparse.ArgumentError(self, f"given more than once; give it once{hint}")
        seen.add(self.dest)
        setattr(namespace, self.dest, values)


def io_parent() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("input (plain text: --hyps/--refs; structured: --input)")
    g.add_argument("--hyps", action=Once, help="system outputs, one segment per line ('-' for stdin)")
    g.add_argument("--refs", action="append", help="references, one per line, aligned with --hyps; repeat for several")
    g.add_argument("--input", action=Once,
                   help="one file with hypothesis and reference columns: .jsonl, .csv, .tsv, .parquet ('-' for stdin)")
    g.add_argument("--input-format", action=Once, choices=["jsonl", "csv", "tsv", "parquet"],
                   help="format of --input (default: from its extension)")
    g.add_argument("--hyp-column", action=Once, default="hyp",
                   help="hypothesis column of --input (default: %(default)s)")
    g.add_argument("--ref-column", action="append", help="reference column: a string or a list of strings; repeat for "
                   "several columns (default: ref)")
    g.add_argument("--keep", nargs="+", metavar="COL",
                   help="input columns to copy into per-pair outputs (plain text: hyp, ref, ref1, ...)")
    o = p.add_argument_group("output")
    o.add_argument("-o", "--output", action=Once, default="-",
                   help="output file ('-': stdout, the default); written atomically")
    o.add_argument("--format", action=Once, choices=OUTPUT_FORMATS,
                   help="json: corpus summary; jsonl/csv/tsv/parquet: one row per "
                   "pair (default: from the --output extension, else json)")
    o.add_argument("--per-pair", action="store_true",
                   help="one row per pair (JSON Lines unless --format says otherwise)")
    o.add_argument("--stats", action="store_true", help="add the per-pair int64 sufficient statistics to per-pair rows")
    o.add_argument("--summary", action=Once, metavar="FILE",
                   help="also write the corpus summary (JSON) here ('-': stdout)")
    r = p.add_argument_group("run")
    r.add_argument("--chunk-size", action=Once, type=positive_int, default=DEFAULT_CHUNK_SIZE,
                   help="pairs read and scored at a "
                   "time; bounds memory, never changes results (default: %(default)s)")
    r.add_argument("--workers", action=Once, type=int, help="numba threads (default: all cores; -1: all)")
    r.add_argument("--quiet", "-q", action="store_true",
                   help="no progress bar (it is off anyway when stderr is not a terminal)")
    return p


def _rouge_options(p: argparse.ArgumentParser, with_metrics: bool) -> None:
    g = p.add_argument_group("ROUGE (rouge-score semantics)")
    if with_metrics:
        g.add_argument("--metrics", nargs="+", default=list(DEFAULT_METRICS),
                       help="rouge1 rouge2 ... rougeL rougeLsum rougeW rougeW-<alpha> (default: %(default)s)")
    g.add_argument("--tokenizer", default="rouge-score", choices=TOKENIZERS)
    g.add_argument("--stemmer", "--stem", dest="stem", action="store_true",
                   help="Porter stemming, as rouge-score's use_stemmer=True")
    g.add_argument("--stopwords", metavar="FILE", nargs="?", const=True,
                   help="remove stopwords: the tokens in FILE (one per line), or without FILE the SMART list "
                        "(ROUGE-1.5.5's -s)")
    g.add_argument("--multi-ref", default="best", choices=MULTI_REF,
                   help="multi-reference convention (default: %(default)s)")
    weight = g.add_mutually_exclusive_group()
    weight.add_argument("--alpha", type=float, help="F = PR / ((1-alpha)P + alpha R), as ROUGE-1.5.5 -p")
    weight.add_argument("--beta", type=float, help="F-beta instead of F1")
    g.add_argument("--sentence-splitter", default="newline", choices=SENTENCE_SPLITTERS,
                   help="sentences for rougeLsum/rougeW (default: %(default)s)")
    g.add_argument("--wlcs", default="rouge155", choices=["rouge155", "textbook"],
                   help="ROUGE-W flavour (default: %(default)s)")


def _bleu_options(p: argparse.ArgumentParser, effective_default: bool) -> None:
    from vecscore.bleu.api import BREVITY_PENALTIES, SMOOTH_METHODS
    from vecscore.bleu.api import TOKENIZERS as BLEU_TOKENIZERS

    g = p.add_argument_group("BLEU (sacreBLEU semantics)")
    g.add_argument("--tokenize", default="13a", choices=BLEU_TOKENIZERS)
    g.add_argument("--smooth-method", default="exp", choices=SMOOTH_METHODS)
    g.add_argument("--smooth-value", type=float)
    g.add_argument("--max-ngram-order", type=positive_int, default=4)
    g.add_argument("--effective-order", action=argparse.BooleanOptionalAction, default=effective_default,
                   help=f"(default: {'on' if effective_default else 'off'})")
    g.add_argument("--brevity-penalty", default="closest", choices=BREVITY_PENALTIES,
                   help="closest (sacreBLEU, NLTK) or shortest (HF bleu) reference length")


def _chrf_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("chrF (sacreBLEU semantics; sacreBLEU's option names)")
    g.add_argument("--chrf-char-order", type=positive_int, default=6, help="character n-gram order (default: 6)")
    g.add_argument("--chrf-word-order", type=int, default=0, choices=range(0, 10), metavar="N",
                   help="word n-gram order: 0 for chrF, 2 for chrF++ (default: 0)")
    g.add_argument("--chrf-beta", type=int, default=2, help="recall weight beta (default: 2)")
    g.add_argument("--chrf-lowercase", action="store_true", help="lowercase before extracting n-grams")
    g.add_argument("--chrf-whitespace", action="store_true", help="keep whitespace in character n-grams")
    g.add_argument("--chrf-eps-smoothing", action="store_true",
                   help="smooth zero statistics as the chrF++.py reference does (sacreBLEU's eps_smoothing)")


def _ter_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("TER (sacreBLEU semantics; sacreBLEU's option names)")
    g.add_argument("--ter-normalized", action="store_true", help="normalize punctuation and split it off (tercom -N)")
    g.add_argument("--ter-no-punct", action="store_true", help="remove punctuation")
    g.add_argument("--ter-asian-support", action="store_true",
                   help="split Chinese and Japanese characters (with --ter-normalized or --ter-no-punct)")
    g.add_argument("--ter-case-sensitive", action="store_true", help="do not lowercase")
    g.add_argument("--ter-reference-normalization", choices=("twice", "once"), default="twice",
                   help="how often references are tokenized: twice as sacreBLEU 2.6 does (the default; it matters "
                        "with --ter-normalized), or once as hypotheses (adds refnorm:once to the signature)")


def _confidence_options(p: argparse.ArgumentParser, kind: str) -> None:
    g = p.add_argument_group("confidence interval (bootstrap)")
    helps = {
        "sacrebleu": "add sacreBLEU's bootstrap estimate (mean ± 95%% interval half-width) to the summary, as "
                     "sacrebleu --confidence (seed: SACREBLEU_SEED, default 12345; 'none': entropy)",
        "rouge": "add rouge-score's BootstrapAggregator interval (low/mid/high) of every metric to the summary",
        "rouge155": "add the script's 95%% intervals (as ROUGE-1.5.5.pl -c 95 -r N) to the summary; with "
                    "--script-options, -r or -c there ask for them too",
    }
    g.add_argument("--confidence", action="store_true", help=helps[kind])
    g.add_argument("--confidence-n", action=Once, type=positive_int, metavar="N",
                   help="bootstrap resamples (default: 1000)")
    if kind == "rouge":
        g.add_argument("--seed", action=Once, default="12345",
                       help="seed of NumPy's legacy generator, as np.random.seed(SEED) before rouge-score; 'none' "
                            "for entropy (default: %(default)s)")


def _rouge155_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("ROUGE-1.5.5")
    g.add_argument("--metrics", nargs="+", help="rouge1 ... rougeL rougeW-1.2 rougeS4 rougeSU4 rougeS* rougeSU* "
                   "(default: rouge1 rouge2 rougeL rougeW-1.2 rougeS4 rougeSU4)")
    g.add_argument("--script-options", metavar="FLAGS", help="the script's flags instead, e.g. \"-n 2 -2 4 -u -m -s\" "
                   "(metrics, -m, -s, -l, -b, -f, -p; per-summary values rounded to 5 decimals as printed)")
    g.add_argument("--stemmer", "--stem", dest="stem", action="store_true",
                   help="-m: the script's Porter stemmer with WordNet exceptions")
    g.add_argument("--stopwords", metavar="FILE", nargs="?", const=True,
                   help="-s: remove the SMART stopwords; with FILE, the tokens in FILE (one per line) instead")
    g.add_argument("--word-limit", type=positive_int, help="-l")
    g.add_argument("--byte-limit", type=positive_int, help="-b")
    g.add_argument("--multi-ref", default="pooled", choices=["pooled", "best-recall"], help="-f A (pooled) or -f B")
    g.add_argument("--alpha", type=float, default=0.5, help="-p (default: %(default)s)")
    g.add_argument("--round5", action="store_true", help="round P and R to 5 decimals, then F, as the script prints")
    g.add_argument("--no-compat", action="store_true",
                   help="correct the script's quirks (SU last unigram, W recall, -b LCS)")


def _coco_parser(sub) -> None:
    p = sub.add_parser("coco", help="coco-caption's Bleu_1-4, METEOR, ROUGE_L and CIDEr (pycocoevalcap), from text "
                       "or coco's JSON",
                       description="coco-caption's evaluation (pycocoevalcap 1.2's COCOEvalCap without SPICE): "
                       "Bleu_1..4, METEOR, ROUGE_L and CIDEr (CIDEr-D), PTB-tokenized as coco-caption does. METEOR is "
                       "meteor-1.5.jar's (-l en -norm, computed without Java) and reads the jar's data from an "
                       "installed pycocoevalcap.")
    g = p.add_argument_group("input (text files: --hyps/-r; coco's JSON: --annotations/--results)")
    g.add_argument("--hyps", action=Once, metavar="FILE", help="captions, one per line ('-' for stdin)")
    g.add_argument("-r", "--refs", nargs="+", action="extend", metavar="FILE",
                   help="reference files: line i of each is a reference of line i of --hyps (an empty line: no "
                        "reference from this file for that item); repeatable")
    g.add_argument("--annotations", action=Once, metavar="FILE",
                   help="coco's annotation file (captions_val2014.json: \"annotations\": [{image_id, caption}])")
    g.add_argument("--results", action=Once, metavar="FILE",
                   help="coco's results file ([{image_id, caption}]): exactly these images are scored")
    s = p.add_argument_group("scoring")
    s.add_argument("--no-tokenize", action="store_true",
                   help="the captions are already tokenized: split on whitespace as given (as nlg-eval); default: "
                        "PTB-tokenize and lowercase as coco-caption does")
    s.add_argument("--metrics", nargs="+", action=Once, metavar="METRIC",
                   help="any of Bleu_1 Bleu_2 Bleu_3 Bleu_4 METEOR ROUGE_L CIDEr, in any case (default: all; METEOR "
                        "only when pycocoevalcap, which ships its data, is installed)")
    o = p.add_argument_group("output")
    o.add_argument("-o", "--output", action=Once, default="-", help="output file ('-': stdout, the default); "
                   "written atomically")
    o.add_argument("--format", action=Once, choices=["text", "json", "jsonl", "csv", "tsv", "parquet"],
                   help="text (a table) or json: coco's metric dictionary; jsonl/csv/tsv/parquet: one row per item "
                        "(default: from the --output extension, else text, or jsonl with --per-item)")
    o.add_argument("--per-item", action="store_true", help="one row per item (image): its scores")
    o.add_argument("--summary", action=Once, metavar="FILE",
                   help="also write the metric dictionary (JSON) here ('-': stdout)")
    c = p.add_argument_group("confidence interval (bootstrap)")
    c.add_argument("--confidence", action="store_true",
                   help="add a bootstrap estimate (mean ± 95%% interval half-width, sacreBLEU's convention) of every "
                        "metric: Bleu and METEOR from resampled per-item statistics (summed, as the corpus score), "
                        "ROUGE_L and CIDEr from resampled per-item scores")
    c.add_argument("--confidence-n", action=Once, type=positive_int, metavar="N",
                   help="bootstrap resamples (default: 1000)")
    c.add_argument("--seed", action=Once, help="seed of the resampling (default: SACREBLEU_SEED, else 12345; 'none' "
                   "for entropy)")
    p.add_argument("--quiet", "-q", action="store_true", help="no note on stderr when METEOR is left out")


def _meteor_parser(sub) -> None:
    from vecscore.meteor.options import MODULES, TASKS

    p = sub.add_parser("meteor", help="METEOR 1.5 as meteor-1.5.jar computes it (no Java), from text files",
                       description="METEOR 1.5 of each hypothesis against its references and of the corpus (from the "
                       "summed statistics, as the jar's final score), equal to meteor-1.5.jar's; its options use the "
                       "jar's letters. The jar's data (function words, synonyms, paraphrases) is read from an "
                       "installed pycocoevalcap, or from --jar and --paraphrase-file. Unlike the jar, normalization is "
                       "on by default, as coco-caption runs it (-l en -norm); --no-norm gives the jar's own default.")
    g = p.add_argument_group("input")
    g.add_argument("--hyps", action=Once, metavar="FILE", help="hypotheses, one per line ('-' for stdin)")
    g.add_argument("-r", "--refs", nargs="+", action="extend", metavar="FILE",
                   help="reference files: line i of each is a reference of line i of --hyps (an empty line: no "
                        "reference from this file for that line); repeatable")
    m = p.add_argument_group("METEOR (meteor-1.5.jar's options, English)")
    m.add_argument("-t", "--task", action=Once, default="default", choices=["default", *TASKS],
                   help="parameters, modules and weights of a task (default: %(default)s, which is rank)")
    m.add_argument("-m", "--modules", nargs="+", action=Once, metavar="MODULE",
                   help=f"modules in matching order, as values or one quoted string: {' '.join(MODULES)} (default: "
                        "the task's, all four)")
    m.add_argument("-w", "--weights", nargs="+", action=Once, metavar="W",
                   help="one weight per module (default: the task's)")
    m.add_argument("-p", "--params", nargs="+", action=Once, metavar="P",
                   help="alpha beta gamma delta; as in the jar, they make the task custom, whose module weights are "
                        "adq's unless -w says otherwise")
    m.add_argument("--norm", action=argparse.BooleanOptionalAction, default=True,
                   help="the jar's -norm: normalize punctuation and lowercase (default: on, as coco-caption; the jar's "
                        "own default is --no-norm)")
    m.add_argument("--lower", action="store_true", help="the jar's -lower: only lowercase (with --no-norm)")
    m.add_argument("--no-punct", action="store_true", help="the jar's -noPunct: also drop punctuation (with --norm)")
    m.add_argument("-x", "--beam-size", action=Once, type=positive_int, default=40,
                   help="the aligner's beam (default: %(default)s)")
    m.add_argument("--jar", action=Once, metavar="PATH",
                   help="meteor-1.5.jar to read the function words and synonyms from (default: pycocoevalcap's)")
    m.add_argument("--paraphrase-file", action=Once, metavar="PATH",
                   help="the paraphrase table, paraphrase-en.gz (default: data/paraphrase-en.gz beside the jar)")
    o = p.add_argument_group("output")
    o.add_argument("-o", "--output", action=Once, default="-", help="output file ('-': stdout, the default); "
                   "written atomically")
    o.add_argument("--format", action=Once, choices=["text", "json", "jsonl", "csv", "tsv", "parquet"],
                   help="text or json: the corpus score with its signature; jsonl/csv/tsv/parquet: one row per line "
                        "(default: from the --output extension, else text, or jsonl with --per-item)")
    o.add_argument("--per-item", action="store_true", help="one row per line of --hyps: its METEOR (meteor_score)")
    o.add_argument("--stats", action="store_true",
                   help="add each line's 23 statistics (of its best reference, the jar's layout) to per-item rows")
    o.add_argument("--summary", action=Once, metavar="FILE",
                   help="also write the corpus score (JSON) here ('-': stdout)")
    p.add_argument("--quiet", "-q", action="store_true", help="(accepted for symmetry; nothing is printed but output)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vecscore",
                                     description="Fast BLEU and ROUGE, identical to the official tools.")
    parser.add_argument("--version", action="version", version=f"vecscore {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    shared = io_parent()
    case = argparse.ArgumentParser(add_help=False)
    case.add_argument("--lowercase", action="store_true", help="lowercase before tokenizing")

    r = sub.add_parser("rouge", parents=[shared, case], help="ROUGE, as rouge-score")
    _rouge_options(r, with_metrics=True)
    r.add_argument("--shared-refs", action=Once, metavar="FILE", help=SHARED_HELP)
    _confidence_options(r, "rouge")

    r155 = sub.add_parser("rouge155", parents=[shared], help="ROUGE-1.5.5 (the Perl script), incl. ROUGE-S/SU")
    _rouge155_options(r155)
    _confidence_options(r155, "rouge155")

    b = sub.add_parser("bleu", parents=[shared, case], help="corpus BLEU, as sacreBLEU")
    _bleu_options(b, effective_default=False)
    b.add_argument("--shared-refs", action=Once, metavar="FILE", help=SHARED_HELP)
    _confidence_options(b, "sacrebleu")
    b.set_defaults(sentence=False)

    s = sub.add_parser("sentence-bleu", parents=[shared, case],
                       help="sentence BLEU per pair, as sacrebleu.sentence_bleu")
    _bleu_options(s, effective_default=True)
    s.add_argument("--shared-refs", action=Once, metavar="FILE", help=SHARED_HELP)
    s.set_defaults(sentence=True)

    c = sub.add_parser("chrf", parents=[shared],
                       help="corpus chrF / chrF++, as sacreBLEU (--per-pair: sentence chrF)")
    _chrf_options(c)
    _confidence_options(c, "sacrebleu")

    t = sub.add_parser("ter", parents=[shared], help="corpus TER, as sacreBLEU (--per-pair: sentence TER)")
    _ter_options(t)
    _confidence_options(t, "sacrebleu")

    cmp = sub.add_parser("compare", help="several systems on the same references: scores and paired significance tests",
                         description="Score every system with each metric and test each against the first (the "
                         "baseline) with paired bootstrap resampling or approximate randomization, with sacreBLEU's "
                         "seeds, draws and numbers (SACREBLEU_SEED; default 12345).")
    cmp.add_argument("--refs", action="append", required=True, help="references, one per line; repeat for several")
    cmp.add_argument("--hyps", nargs="+", required=True, action=Once, metavar="FILE",
                     help="system outputs, one file per system; the first is the baseline")
    cmp.add_argument("--metrics", nargs="+", default=["bleu"], action=Once, metavar="METRIC",
                     help="bleu, chrf, ter, ROUGE metrics (rouge1, rouge2, rougeL, rougeLsum, ...: the mean of the "
                          "per-pair F, as rouge-score) and coco-caption's Bleu_1..4, METEOR, ROUGE_L, CIDEr (as "
                          "vecscore coco) (default: bleu)")
    test = cmp.add_mutually_exclusive_group()
    test.add_argument("--paired-bs", action="store_true", help="paired bootstrap resampling (the default)")
    test.add_argument("--paired-ar", action="store_true", help="paired approximate randomization")
    cmp.add_argument("--paired-bs-n", type=positive_int, default=1000, help="resamples (default: 1000)")
    cmp.add_argument("--paired-ar-n", type=positive_int, default=10000, help="trials (default: 10000)")
    cmp.add_argument("--format", choices=["text", "json"], default="text", action=Once,
                     help="a table, or sacreBLEU's JSON (default: text)")
    cmp.add_argument("-o", "--output", default="-", action=Once, help="output file ('-': stdout)")
    cmp.add_argument("--lowercase", action="store_true", help="BLEU: lowercase before tokenizing")
    _bleu_options(cmp, effective_default=False)
    _chrf_options(cmp)
    _ter_options(cmp)
    _rouge_options(cmp, with_metrics=False)
    cmp.add_argument("--coco-no-tokenize", action="store_true",
                     help="coco-caption metrics (Bleu_1..4, METEOR, ROUGE_L, CIDEr): the lines are already tokenized "
                          "(default: PTB-tokenize as coco-caption does)")

    _coco_parser(sub)
    _meteor_parser(sub)
    add_matrix_parsers(sub)
    add_sacrebleu_parser(sub)

    f = sub.add_parser("filter", parents=[shared, case], help="keep the rows whose scores pass conditions",
                       description="Write the rows (input columns, 'pair', scores) that pass every --where condition.")
    f.add_argument("--where", action="append", required=True, metavar="COND",
                   help="e.g. 'rougeL_fmeasure>=0.3' or 'bleu_score<60'; repeat for several (all must pass)")
    f.add_argument("--any", action="store_true", help="keep rows that pass at least one condition")
    f.add_argument("--rouge155", metavar="FLAGS", nargs="?", const="", help="ROUGE columns from ROUGE-1.5.5, with "
                   "these script flags (write --rouge155='-m -s'); rougeS/SU need this")
    _rouge_options(f, with_metrics=False)
    _bleu_options(f, effective_default=True)

    w = sub.add_parser("warmup", help="build every kernel ahead of time (for images, cluster nodes, CI caches)",
                       description="Build the kernels of every metric ahead of time into extension modules "
                       "(numba's AOT compiler), for the CPU level of this machine or VECSCORE_CPU_LEVEL, in the kernel "
                       "cache folder's built/ or VECSCORE_BUILT_DIR: a process that finds them loads them without "
                       "importing numba (docs/deployment.md). A group whose module cannot be built (no C compiler) "
                       "is compiled into numba's cache instead.")
    w.add_argument("--only", nargs="+", metavar="GROUP",
                   help="rouge, bleu, rouge155, rouge-weighted, chrf, ter, coco, meteor (default: all)")
    w.add_argument("--jit", action="store_true",
                   help="compile into numba's JIT cache instead of building modules (the development route)")
    w.add_argument("--built", action="store_true", help=argparse.SUPPRESS)  # the default since modules build
    w.add_argument("--portable", action="store_true", help=argparse.SUPPRESS)  # gone: refused with the fix
    w.add_argument("--jobs", type=int, default=2, metavar="N", help="modules built at once (default 2)")
    return parser
