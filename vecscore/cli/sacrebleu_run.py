"""``vecscore sacrebleu``: sacreBLEU 2.6's command line for one system, scored by vecscore.

The files are read as sacreBLEU reads them (split on ``\\n``, every line's trailing whitespace removed,
``-nr N``: tab-separated references), the metrics are vecscore's :class:`vecscore.BLEU`,
:class:`vecscore.CHRF` and :class:`vecscore.TER` with sacreBLEU's options, and the output is sacreBLEU's:
one JSON object per metric (a JSON list for several), or text lines aligned on ``=``, or ``-b`` the scores
alone, at ``-w`` decimals; ``-sl`` one line per segment.
"""
from __future__ import annotations

import gzip
import os
import sys

from vecscore.cli.sacrebleu_args import OUTPUT_FORMATS, SACREBLEU_VERSION
from vecscore.errors import VecscoreError, warn
from vecscore.io.read import open_input

__all__ = ["run_sacrebleu", "tokenizer_for", "align_results", "with_version"]

#: BLEU's tokenizer by target language when ``--tokenize`` is not given (sacreBLEU's ``BLEU._TOKENIZER_MAP``)
_TOKENIZER_BY_TARGET = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}
_LANGUAGE = {"zh": "Chinese", "ja": "Japanese", "ko": "Korean"}


def tokenizer_for(tokenize: str | None, target: str | None) -> str:
    """BLEU's tokenizer: ``tokenize`` when given (with sacreBLEU's warning when the target language has a
    better one), else the target language's (``zh``, ``ja-mecab``, ``ko-mecab``), else ``13a``."""
    if tokenize is None:
        return _TOKENIZER_BY_TARGET.get(target or "", "13a")
    best = _TOKENIZER_BY_TARGET.get(target or "")
    if best is not None and tokenize != best:
        warn(f"Consider using the '{best}' or 'spm' tokenizer for {_LANGUAGE[target or '']} (sacreBLEU's advice; "
             f"this run's BLEU uses --tokenize {tokenize})")
    return tokenize


def _target(langpair: str | None) -> str | None:
    if langpair is None:
        return None
    parts = langpair.split("-")
    if len(parts) < 2 or not parts[1]:
        raise VecscoreError(f"-l {langpair}: give the source and target languages as SRC-TGT, e.g. -l en-de")
    return parts[1]


def _refuse_unoffered(args) -> None:
    if args.test_set is not None or args.list or args.citation or args.download or args.echo:
        raise VecscoreError("vecscore sacrebleu has no test sets (-t, --list, --echo, --download, --citation): give "
                            "the reference files before -i, e.g. vecscore sacrebleu ref.de -i output.de -l en-de; "
                            "`sacrebleu -t wmt21 -l en-de --echo ref > ref.de` writes a test set's references once")
    if args.origlang is not None or args.subset is not None or args.detail:
        raise VecscoreError("--origlang, --subset and --detail select parts of sacreBLEU's test sets, which vecscore "
                            "sacrebleu does not have: score the lines you want from your own files")
    if args.paired_bs or args.paired_ar:
        raise VecscoreError("paired tests compare several systems: use vecscore compare --refs REF --hyps BASELINE "
                            "OTHER ... --metrics bleu chrf ter --paired-bs (sacreBLEU's seeds, draws and numbers)")
    if args.sentence_level and len(args.metrics) > 1:
        raise VecscoreError(f"-sl scores one metric per run, but -m gives {len(args.metrics)}: "
                            f"{' '.join(args.metrics)}; run once per metric")
    if args.sentence_level and args.confidence:
        raise VecscoreError("-sl gives one score per segment, which has no confidence interval: drop -ci, or -sl")
    if args.width < 0:
        raise VecscoreError(f"--width {args.width}: the number of decimals must be 0 or more")


def _open_text(path: str, encoding: str):
    opener = gzip.open if path.endswith(".gz") else open
    try:
        return open_input(path, lambda: opener(path, "rt", encoding=encoding, newline="\n"))
    except LookupError:
        raise VecscoreError(f"--encoding {encoding}: unknown encoding; e.g. utf-8, latin-1") from None


def _read(stream, name: str) -> list[str]:
    """Every line of ``stream`` with its trailing whitespace removed; a leading byte-order mark dropped (as every
    vecscore command reads text)."""
    lines: list[str] = []
    try:
        for line in stream:
            lines.append(line.rstrip())
    except UnicodeDecodeError as exc:
        raise VecscoreError(f"{name}, line {len(lines) + 1}: not valid {exc.encoding} ({exc.reason}); give the file's "
                            "encoding with -e, or convert it to UTF-8") from None
    except OSError as exc:  # e.g. a .gz file that is not gzip
        raise VecscoreError(f"cannot read {name}: {exc}") from None
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    return lines


def _read_file(path: str, encoding: str) -> list[str]:
    with _open_text(path, encoding) as f:
        return _read(f, path)


def read_references(args) -> list[list[str]]:
    """The reference streams (``refs[k][i]``), from one file per stream or ``-nr N`` tab-separated ones."""
    if not args.refs:
        raise VecscoreError("no reference file: give the references before -i, e.g. vecscore sacrebleu ref.de -i "
                            "output.de (vecscore sacrebleu has no test sets)")
    if args.num_refs < 1:
        raise VecscoreError(f"--num-refs {args.num_refs}: give 1 or more")
    if args.num_refs == 1:
        return [_read_file(path, args.encoding) for path in args.refs]
    if len(args.refs) > 1:
        raise VecscoreError(f"--num-refs {args.num_refs} reads {args.num_refs} tab-separated references from one "
                            f"file, but {len(args.refs)} files are given: give one file, or drop --num-refs")
    streams: list[list[str]] = [[] for _ in range(args.num_refs)]
    for i, line in enumerate(_read_file(args.refs[0], args.encoding), 1):
        fields = line.split("\t", args.num_refs - 1)
        if len(fields) != args.num_refs:
            raise VecscoreError(f"{args.refs[0]}, line {i}: {len(fields)} tab-separated references, but --num-refs is "
                                f"{args.num_refs}; every line needs {args.num_refs}")
        for stream, ref in zip(streams, fields):
            stream.append(ref)
    return streams


def _check_one_system(args) -> None:
    if args.input is not None and len(args.input) != 1:
        what = "no file" if not args.input else f"{len(args.input)} systems"
        raise VecscoreError(f"-i gives {what}: vecscore sacrebleu scores one system (-i HYP); to score and test "
                            "several, use vecscore compare --refs REF --hyps A B ...")


def read_system(args) -> tuple[str, list[str]]:
    """The one system's name and lines: the file of ``-i``, else standard input."""
    _check_one_system(args)
    if args.input is not None:
        return args.input[0], _read_file(args.input[0], args.encoding)
    import io

    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding=args.encoding, newline="\n")
    try:
        lines = _read(stdin, "<stdin>")
    finally:
        stdin.detach()
    for i, line in enumerate(lines, 1):
        if "\t" in line:
            raise VecscoreError(f"<stdin>, line {i} holds a tab: sacreBLEU reads tab-separated systems from standard "
                                "input, and vecscore sacrebleu scores one; give it with -i FILE, or compare several "
                                "with vecscore compare --refs REF --hyps A B ...")
    return "<stdin>", lines


def _check_lengths(name: str, hyps: list[str], refs: list[list[str]], paths: list[str]) -> None:
    if not hyps:
        raise VecscoreError(f"{name} has no lines: vecscore sacrebleu needs at least one segment, as sacreBLEU does "
                            "(it refuses a test set that \"contains no sentence\"); give one segment per line")
    for k, stream in enumerate(refs):
        if len(stream) != len(hyps):
            ref = paths[k] if len(paths) == len(refs) else f"{paths[0]} (reference {k + 1})"
            raise VecscoreError(f"{ref} has {len(stream):,d} lines but {name} has {len(hyps):,d}; every file needs one "
                                "line per segment")


def build_metrics(args, refs: list[list[str]]) -> dict:
    """The metric objects by sacreBLEU's upper-case name, built with its command line's options and the
    references cached."""
    from vecscore import BLEU, CHRF, TER

    metrics: dict[str, BLEU | CHRF | TER] = {}
    for name in args.metrics:
        if name == "bleu":
            tokenize = tokenizer_for(args.bleu_tokenize, _target(args.langpair))
            metrics["BLEU"] = BLEU(lowercase=args.bleu_lowercase, force=args.bleu_force, tokenize=tokenize,
                                   smooth_method=args.bleu_smooth_method, smooth_value=args.bleu_smooth_value,
                                   effective_order=args.sentence_level, references=refs, refs_layout="streams")
        elif name == "chrf":
            metrics["CHRF"] = CHRF(char_order=args.chrf_char_order, word_order=args.chrf_word_order,
                                   beta=args.chrf_beta, lowercase=args.chrf_lowercase, whitespace=args.chrf_whitespace,
                                   eps_smoothing=args.chrf_eps_smoothing, references=refs, refs_layout="streams")
        else:
            metrics["TER"] = TER(normalized=args.ter_normalized, no_punct=args.ter_no_punct,
                                 asian_support=args.ter_asian_support, case_sensitive=args.ter_case_sensitive,
                                 references=refs, refs_layout="streams")
    return metrics


def with_version(signature: str, version: str) -> str:
    """``signature`` with its last field (``version:...`` or, short, ``v:...``) naming ``version``."""
    head, _, last = signature.rpartition("|")
    key, sep, _ = last.partition(":")
    if not sep or key not in ("version", "v"):
        return signature
    return f"{head}|{key}:{version}" if head else f"{key}:{version}"


def _signature(metric, args, short: bool) -> str:
    sig = str(metric.get_signature(short=short))
    return sig if args.vecscore_version else with_version(sig, SACREBLEU_VERSION)


def align_results(results: list[str]) -> list[str]:
    """sacreBLEU's text lines for several metrics: right-aligned on the `` = `` of each (lines without one, as
    ``-b`` prints, are kept as they are)."""
    if len(results) == 1:
        return results
    lines = [r for r in results if "=" not in r]
    cuts = [(r.index("=") - 1, r) for r in results if "=" in r]
    if cuts:
        w = max(cut for cut, _ in cuts)
        lines += [f"{r[:cut]:>{w}}{r[cut:]}" for cut, r in cuts]
    return lines


def _sentence_lines(metric, name: str, hyps: list[str], args) -> list[str]:
    """sacreBLEU's ``-sl`` lines: every segment's score against its references, with the metric's signature."""
    scores = metric.sentence_scores(hyps)
    sig = _signature(metric, args, args.short)
    if name == "BLEU":
        items = [scores[i] for i in range(len(scores))]
    else:  # chrF and TER give the scores as an array
        make = _score_maker(metric, name)
        items = [make(v) for v in scores.tolist()]
    return [item.format(args.width, args.score_only, sig) for item in items]


def _score_maker(metric, name: str):
    if name == "CHRF":
        from vecscore.chrf.api import CHRFScore

        return lambda v: CHRFScore(v, metric.char_order, metric.word_order, metric.beta)
    from vecscore.ter.api import TERScore

    return lambda v: TERScore(v, 0, 0.0)


def _write(text: str) -> None:
    """``text`` on standard output in UTF-8 (as sacreBLEU writes), whatever the locale."""
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # pragma: no cover - a replaced stdout without bytes
        sys.stdout.write(text)
        return
    buffer.write(text.encode("utf-8"))
    buffer.flush()


def run_sacrebleu(args) -> int:
    """Score one system as ``sacrebleu REFS -i HYP ...`` does and print what it prints."""
    env = os.environ.get("SACREBLEU_FORMAT", "").lower()
    if env in OUTPUT_FORMATS:
        args.format = env
    _refuse_unoffered(args)
    _target(args.langpair)  # a malformed -l or -i is refused before any file is read
    _check_one_system(args)
    refs = read_references(args)
    name, hyps = read_system(args)
    _check_lengths(name, hyps, refs, args.refs)
    metrics = build_metrics(args, refs)
    if args.sentence_level:
        (metric_name, metric), = metrics.items()
        _write("".join(f"{line}\n" for line in _sentence_lines(metric, metric_name, hyps, args)))
        return 0
    is_json = args.format == "json"
    n_bootstrap = args.confidence_n if args.confidence else 1
    results = []
    for metric_name in sorted(metrics):
        metric = metrics[metric_name]
        score = metric.corpus_score(hyps, None, n_bootstrap=n_bootstrap)
        sig = _signature(metric, args, args.short and not is_json)
        results.append(score.format(args.width, args.score_only, sig, is_json))
    if is_json:
        out = results[0] if len(results) == 1 else "[\n" + ",\n".join(results) + "\n]"
        _write(out + "\n")
    else:
        _write("".join(f"{line}\n" for line in align_results(results)))
    return 0
