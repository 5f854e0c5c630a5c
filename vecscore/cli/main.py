"""The ``vecscore`` command.

Subcommands (``vecscore <command> --help`` lists every option):

``rouge``          ROUGE as rouge-score (rouge1..N, rougeL, rougeLsum, rougeW)
``rouge155``       ROUGE-1.5.5 (adds rougeS/SU; the script's flags via ``--script-options``)
``bleu``           corpus BLEU (sacreBLEU), per-pair sentence BLEU with ``--per-pair``
``sentence-bleu``  sentence BLEU per pair (sacreBLEU's ``sentence_bleu``)
``chrf``           corpus chrF / chrF++ (sacreBLEU), per-pair sentence chrF with ``--per-pair``
``ter``            corpus TER (sacreBLEU), per-pair sentence TER with ``--per-pair``
``compare``        several systems against one set of references, with paired significance tests
``coco``           coco-caption's Bleu_1..4, METEOR, ROUGE_L and CIDEr (pycocoevalcap), from text files or coco's JSON
``meteor``         METEOR 1.5 as meteor-1.5.jar computes it (no Java), corpus or per line, the jar's options
``pairwise``       score matrices: every candidate against every reference (chrF, BLEU, TER, ROUGE), per source
``mbr``            minimum Bayes risk decoding: per source, the candidate with the best expected score
``filter``         keep the rows whose scores pass conditions such as ``rougeL_fmeasure>=0.3``
``warmup``         compile and cache every kernel now (a Dockerfile step, a cluster node's setup)
``sacrebleu``      sacreBLEU's own command line (``REF -i HYP -m bleu chrf ter -b -w -f text -l``), its output

Inputs: ``--hyps FILE --refs FILE [--refs FILE ...]`` (plain text, one segment
per line) or ``--input FILE`` (JSON Lines, CSV, TSV, Parquet; columns by
name).  Outputs: the corpus summary as JSON (default) or one row per pair as
JSON Lines, CSV, TSV or Parquet; ``-`` is stdin/stdout.  Input is read and
scored ``--chunk-size`` pairs at a time; files are written atomically.
"""
from __future__ import annotations

import os
import re
import signal
import sys
import threading

from vecscore.cli.filter import apply_conditions, metrics_of, parse_condition
from vecscore.cli.intervals import collector as interval_collector
from vecscore.cli.parser import build_parser
from vecscore.cli.sacrebleu_run import run_sacrebleu
from vecscore.cli.shared import open_hyps, shared_bleu_spec, shared_rouge_spec
from vecscore.cli.warning_line import one_line_warnings
from vecscore.errors import MissingDependencyError, VecscoreError
from vecscore.io.read import count_lines, detect_format, iter_input, iter_text, prefetch
from vecscore.io.stream import (
    BleuSpec,
    ChrfSpec,
    CorpusAccumulator,
    Rouge155Spec,
    RougeSpec,
    ScoreChunk,
    TerSpec,
    make_spec,
)
from vecscore.io.write import (
    OutputError,
    atomic_output,
    make_writer,
    output_format,
    progress_bar,
    write_json,
    write_text,
)
from vecscore.memory import memory_limits, tune_memory
from vecscore.parallel import numba_threads

__all__ = ["main", "build_parser"]

_ROW_REF = re.compile(r"\b(hyps|refs)\[(\d+)\]")

#: the commands that take sacreBLEU's option names: they read text files as sacreBLEU's command line does
#: (every line's trailing whitespace removed) and refuse an input with no segment, as it does
SACREBLEU_COMMANDS = frozenset({"bleu", "sentence-bleu", "chrf", "ter", "compare"})


def sacrebleu_reading(args) -> bool:
    """Whether this command reads its text files as sacreBLEU's command line does."""
    return getattr(args, "command", None) in SACREBLEU_COMMANDS


# --------------------------------------------------------------------------------------
# specs from arguments
# --------------------------------------------------------------------------------------


def _read_stopwords(path):
    if path is None or path is True:  # not given, or given without FILE: the SMART list
        return path
    from vecscore.io.read import read_lines

    return [w.strip() for w in read_lines(path) if w.strip()]


def rouge_options(args) -> dict:
    return dict(tokenizer=args.tokenizer, lowercase=args.lowercase, stemmer=args.stem,
                stopwords=_read_stopwords(args.stopwords), multi_ref=args.multi_ref, alpha=args.alpha, beta=args.beta,
                sentence_splitter=args.sentence_splitter, wlcs=args.wlcs)


def bleu_options(args) -> dict:
    return dict(tokenize=args.tokenize, lowercase=args.lowercase, smooth_method=args.smooth_method,
                smooth_value=args.smooth_value, max_ngram_order=args.max_ngram_order,
                effective_order=args.effective_order, brevity_penalty=args.brevity_penalty)


def rouge155_spec(args) -> Rouge155Spec:
    from vecscore.rouge.rouge155.api import DEFAULT_METRICS_155, rouge155_args

    if args.script_options is not None:
        if args.metrics:
            raise VecscoreError("give the metrics either with --metrics or in --script-options (-n, -2, -u, -w), not "
                                "both")
        kwargs = dict(rouge155_args(args.script_options.split()).kwargs)
        metrics = kwargs.pop("metrics")
        return Rouge155Spec(tuple(metrics), kwargs)
    compat = not args.no_compat
    kwargs = dict(stemmer=args.stem, stopwords=_read_stopwords(args.stopwords), word_limit=args.word_limit,
                  byte_limit=args.byte_limit, multi_ref=args.multi_ref, alpha=args.alpha, round5=args.round5,
                  su_compat=compat, wlcs_compat=compat, byte_limit_compat=compat)
    return Rouge155Spec(tuple(args.metrics or DEFAULT_METRICS_155), kwargs)


# --------------------------------------------------------------------------------------
# running
# --------------------------------------------------------------------------------------


def open_rows(args, keep):
    """The input as :class:`vecscore.io.RowChunk` objects, and the number of pairs if known."""
    strip = sacrebleu_reading(args)
    if getattr(args, "shared_refs", None) is not None:
        return open_hyps(args, keep, strip)
    text = args.hyps is not None or args.refs is not None
    if text and args.input is not None:
        raise VecscoreError("give either --hyps/--refs (plain text) or --input (a table), not both")
    if text:
        if args.hyps is None or not args.refs:
            raise VecscoreError("plain-text input needs both --hyps FILE and --refs FILE")
        if args.input_format or args.ref_column or args.hyp_column != "hyp":
            raise VecscoreError("--input-format/--hyp-column/--ref-column go with --input, not with --hyps/--refs")
        rows = iter_text(args.hyps, args.refs, chunk_size=args.chunk_size, keep_text=keep is not None, strip=strip)
        if keep not in (None, "all"):
            rows = _select_text(rows, keep, len(args.refs))
        return rows, count_lines(args.hyps)
    if args.input is None:
        raise VecscoreError("no input: give --hyps FILE --refs FILE (plain text) or --input FILE "
                            "(jsonl/csv/tsv/parquet)")
    fmt = detect_format(args.input, args.input_format)
    if fmt == "text":
        raise VecscoreError(f"{args.input} looks like plain text: give it with --hyps/--refs, or say --input-format")
    rows = iter_input(fmt, args.input, hyp_column=args.hyp_column, ref_columns=args.ref_column or ["ref"], keep=keep,
                      chunk_size=args.chunk_size)
    return rows, _parquet_rows(args.input) if fmt == "parquet" else None


def refuse_empty(rows, args):
    """``rows``, and an error after the last when there was none: sacreBLEU refuses an input that contains no
    sentence (its command line exits 1 with "contains no sentence"; its ``corpus_score`` fails on an empty
    list), so the commands that give its numbers do too (exit 2, before any output is written)."""
    empty = True
    for chunk in rows:
        empty = False
        yield chunk
    if empty:
        raise VecscoreError(empty_message(args))


def empty_message(args, path=None) -> str:
    path = path or (args.hyps if getattr(args, "hyps", None) is not None else args.input)
    name = "<stdin>" if path == "-" else path
    table = getattr(args, "input", None) is not None and path == args.input
    fix = "give at least one row" if table else "give one segment per line"
    return (f"{name} has no {'rows' if table else 'lines'}: vecscore {args.command} needs at least one segment, as "
            f"sacreBLEU does (it refuses a test set that \"contains no sentence\"); {fix}")


def _select_text(rows, keep, n_refs):
    valid = ["hyp", "ref"] if n_refs == 1 else ["hyp", *(f"ref{k + 1}" for k in range(n_refs))]
    bad = [k for k in keep if k not in valid]
    if bad:
        raise VecscoreError(f"--keep {' '.join(bad)}: plain-text inputs have the columns {', '.join(valid)}")
    for chunk in rows:
        chunk.records = [{k: r[k] for k in keep} for r in chunk.records]
        yield chunk


def _parquet_rows(path):
    if path == "-":
        return None
    try:
        import pyarrow.parquet as pq

        return pq.ParquetFile(path).metadata.num_rows
    except Exception:  # the reader reports unreadable files with the details
        return None


def score_rows(spec, rows, stats: bool) -> ScoreChunk:
    """Score one :class:`RowChunk`; errors name the file and line of the row."""
    try:
        columns, st, sig = spec.score(rows.hyps, rows.refs)
    except MissingDependencyError:
        raise  # about the options, not about these rows
    except VecscoreError as exc:
        msg = _ROW_REF.sub(lambda m: f"{m.group(1)} of {rows.where(int(m.group(2)))}"
                           if int(m.group(2)) < len(rows) else m.group(0), str(exc))
        if msg == str(exc) and len(rows):
            msg = f"{rows.where(0)} .. {rows.where(len(rows) - 1)}: {msg}"
        raise VecscoreError(msg) from None
    return ScoreChunk(rows.start, len(rows), columns, st if stats else {}, sig)


def _scored_chunks(rows_iter, spec, need_stats: bool, acc, intervals, bar):
    """``(rows, chunk)`` of every chunk of input, scored, added to the corpus sums (and the bootstrap's
    collector) and counted on the progress bar."""
    for rows in rows_iter:
        chunk = score_rows(spec, rows, need_stats)
        acc.add(chunk)
        if intervals is not None:
            intervals.add(chunk)
        bar.update(len(rows))
        yield rows, chunk


def _per_pair_format(args, default: str) -> str:
    fmt = output_format(args.output, args.format, default)
    if args.per_pair and fmt == "json":
        fmt = "jsonl" if args.format is None else fmt
    return fmt


def run_scoring(args, spec, *, keep=None, conditions=None, any_of=False) -> int:
    """Stream the input through ``spec``: corpus summary and/or per-pair rows (or the rows a filter keeps)."""
    default = "jsonl" if conditions else ("jsonl" if args.per_pair else "json")
    fmt = _per_pair_format(args, default)
    if conditions and fmt == "json":
        raise VecscoreError("filter writes rows: use --format jsonl, csv, tsv or parquet (or an -o with that "
                            "extension)")
    per_pair = fmt != "json"
    intervals = interval_collector(args, spec)
    if intervals is not None and per_pair and args.summary is None:
        raise VecscoreError("--confidence adds an interval to the corpus summary, which per-pair output does not "
                            "write: add --summary FILE, or drop --per-pair")
    keep = keep if keep is not None else args.keep
    rows_iter, total = open_rows(args, keep if per_pair else None)
    if sacrebleu_reading(args):
        rows_iter = refuse_empty(rows_iter, args)
    rows_iter = prefetch(rows_iter)  # read the next chunk while this one is scored
    need_stats = spec.has_stats and (not per_pair or args.stats or args.summary is not None or intervals is not None)
    acc = CorpusAccumulator(spec)
    kept = 0
    bar = progress_bar(total, quiet=args.quiet, desc="filtering" if conditions else "scoring")
    try:
        with numba_threads(args.workers):
            scored = _scored_chunks(rows_iter, spec, need_stats, acc, intervals, bar)
            if per_pair:
                with atomic_output(args.output) as stream:
                    writer = make_writer(fmt, stream, stats=args.stats)
                    try:
                        for rows, chunk in scored:
                            mask = apply_conditions(conditions, chunk.columns, any_of=any_of) if conditions else None
                            kept += len(rows) if mask is None else int(mask.sum())
                            writer.write(rows, chunk, mask)
                    except BaseException:
                        writer.abort()
                        raise
                    writer.close()
            else:
                for _ in scored:
                    pass
    finally:
        bar.close()
    if conditions and not args.quiet and args.output != "-":
        print(f"vecscore: kept {kept:,d} of {acc.n:,d} rows", file=sys.stderr)
    if per_pair and args.summary is None:
        return 0
    summary = acc.summary()
    if intervals is not None:
        with numba_threads(args.workers):
            summary = intervals.extend(summary)
    if conditions:
        summary = {"kept": kept, "n_pairs": acc.n, "conditions": [str(c) for c in conditions],
                   "any": any_of, "scores": summary}
    if not per_pair:
        write_json(args.output, summary)
    if args.summary is not None:
        write_json(args.summary, summary)
    return 0


def run_rouge(args) -> int:
    if args.shared_refs is not None:
        return run_scoring(args, shared_rouge_spec(args, tuple(args.metrics), rouge_options(args)))
    return run_scoring(args, RougeSpec(tuple(args.metrics), rouge_options(args)))


def run_rouge155(args) -> int:
    return run_scoring(args, rouge155_spec(args))


def run_bleu(args) -> int:
    if args.shared_refs is not None:
        return run_scoring(args, shared_bleu_spec(args, bleu_options(args)))
    return run_scoring(args, BleuSpec(bleu_options(args), sentence=args.sentence))


def chrf_options(args) -> dict:
    return {"char_order": args.chrf_char_order, "word_order": args.chrf_word_order, "beta": args.chrf_beta,
            "lowercase": args.chrf_lowercase, "whitespace": args.chrf_whitespace,
            "eps_smoothing": args.chrf_eps_smoothing}


def run_chrf(args) -> int:
    return run_scoring(args, ChrfSpec(chrf_options(args), sentence=bool(args.per_pair)))


def run_ter(args) -> int:
    options = {"normalized": args.ter_normalized, "no_punct": args.ter_no_punct,
               "asian_support": args.ter_asian_support, "case_sensitive": args.ter_case_sensitive,
               "reference_normalization": args.ter_reference_normalization}
    return run_scoring(args, TerSpec(options, sentence=bool(args.per_pair)))


def run_compare(args) -> int:
    from vecscore.bleu.metric import BLEU
    from vecscore.chrf.api import CHRF
    from vecscore.io.read import read_lines
    from vecscore.significance.paired import paired_bootstrap, paired_randomization
    from vecscore.ter.api import TER

    if len(args.hyps) < 2:
        raise VecscoreError("compare needs at least two systems: --hyps BASELINE.txt OTHER.txt ...")
    if len(set(args.hyps)) != len(args.hyps):
        raise VecscoreError(f"a system is given twice in --hyps: {' '.join(args.hyps)}")
    # sacreBLEU's reading (every line's trailing whitespace removed); the ROUGE tokenizers ignore it anyway
    refs = [read_lines(path, strip=True) for path in args.refs]
    systems = {path: read_lines(path, strip=True) for path in args.hyps}
    n = len(refs[0])
    for path, rows in list(zip(args.refs, refs)) + list(systems.items()):
        if len(rows) != n:
            raise VecscoreError(f"{path} has {len(rows):,d} lines but {args.refs[0]} has {n:,d}; every file needs one "
                                "line per segment")
    if n == 0:
        raise VecscoreError(empty_message(args, args.hyps[0]))
    makers = {"bleu": lambda: BLEU(**bleu_options(args)), "chrf": lambda: CHRF(**chrf_options(args)),
              "ter": lambda: TER(normalized=args.ter_normalized, no_punct=args.ter_no_punct,
                                 asian_support=args.ter_asian_support, case_sensitive=args.ter_case_sensitive,
                                 reference_normalization=args.ter_reference_normalization)}
    metrics = [makers[m]() if m in makers else _coco_or_rouge_metric(m, args) for m in dict.fromkeys(args.metrics)]
    baseline, *others = args.hyps
    with numba_threads(None):
        if args.paired_ar:
            res = paired_randomization(metrics, systems[baseline], [(p, systems[p]) for p in others], refs,
                                       n_samples=args.paired_ar_n, baseline_name=baseline)
        else:
            res = paired_bootstrap(metrics, systems[baseline], [(p, systems[p]) for p in others], refs,
                                   n_samples=args.paired_bs_n, baseline_name=baseline)
    if args.format == "json":
        out = {"systems": res.to_json(), "signatures": {m: res.signature(m) for m in res.results}}
        write_json(args.output, out)
        return 0
    write_text(args.output, _comparison_table(res))
    return 0


def _coco_or_rouge_metric(name: str, args):
    from vecscore.significance.coco import CocoMetric, coco_metric_name

    coco_name = coco_metric_name(name)
    if coco_name:
        if coco_name == "METEOR":
            from vecscore.cli.coco import require_meteor_data

            require_meteor_data()
        # the lines as vecscore coco reads them: stripped, an empty reference line is no reference
        return CocoMetric(name, tokenize=not args.coco_no_tokenize, refs_layout="streams", lines=True)
    return _rouge_metric(name, args)


def _rouge_metric(name: str, args):
    from vecscore.rouge.options import parse_metric
    from vecscore.significance import RougeMetric

    try:
        parse_metric(name)
    except VecscoreError:
        raise VecscoreError(f"--metrics {name}: unknown metric; valid: bleu, chrf, ter, rouge1 ... rouge9, rougeL, "
                            "rougeLsum, rougeW, and coco-caption's Bleu_1 ... Bleu_4, METEOR, ROUGE_L, CIDEr") from None
    return RougeMetric(name, **rouge_options(args))


def _comparison_table(res) -> str:
    """sacreBLEU's paired-test table: one row per system, one column per metric (baseline first)."""
    names = list(res.results)
    rows = [["System", *names]]
    for i, system in enumerate(res.systems):
        label = f"Baseline: {system}" if i == 0 else system
        # ROUGE and coco-caption's metrics are fractions (rouge-score's, coco's scale): 4 decimals; BLEU, chrF,
        # TER: sacreBLEU's 1
        rows.append([label, *(res.results[m][i].format(width=4 if m.startswith("rouge") or _is_coco(m) else 1)
                              for m in names)])
    widths = [max(len(r[j]) for r in rows) for j in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    kind = "paired bootstrap resampling" if res.test == "bs" else "paired approximate randomization"
    lines += ["", f"{kind}; * marks p <= 0.05 against the baseline.", ""]
    lines += [f"{m}: {res.signature(m)}" for m in names]
    return "\n".join(lines) + "\n"


def _is_coco(name: str) -> bool:
    from vecscore.significance.coco import COCO_METRICS

    return name in COCO_METRICS


def run_coco(args) -> int:
    from vecscore.cli.coco import run_coco as run

    return run(args)


def run_meteor(args) -> int:
    from vecscore.cli.meteor import run_meteor as run

    return run(args)


def run_pairwise(args) -> int:
    from vecscore.cli.pairwise import run_pairwise as run

    return run(args)


def run_mbr(args) -> int:
    from vecscore.cli.pairwise import run_mbr as run

    return run(args)


def run_filter(args) -> int:
    conditions = [parse_condition(c) for c in args.where]
    metrics = metrics_of(conditions)
    r155 = None
    if args.rouge155 is not None:
        from vecscore.rouge.rouge155.api import rouge155_args

        r155 = dict(rouge155_args(args.rouge155.split() + ["-n", "1"]).kwargs) if args.rouge155.strip() else {}
        r155.pop("metrics", None)
    script_only = [m for m in metrics if m.startswith("rougeS")]
    if script_only and r155 is None:
        raise VecscoreError(f"{', '.join(script_only)}: ROUGE-S/SU are ROUGE-1.5.5 metrics; add --rouge155 "
                            "(optionally with the script's flags, e.g. --rouge155='-m')")
    spec = make_spec(metrics, rouge_options=rouge_options(args), bleu_options=bleu_options(args), rouge155_options=r155)
    return run_scoring(args, spec, keep=args.keep if args.keep is not None else "all", conditions=conditions,
                       any_of=args.any)


def run_warmup(args) -> int:
    from vecscore.cache_dir import chosen
    from vecscore.warmup import warmup

    if args.portable:
        raise VecscoreError("vecscore warmup --portable (a JIT cache for numba's generic CPU) is gone: build the "
                            "kernel modules for a CPU level that every target machine runs instead, e.g. "
                            "VECSCORE_CPU_LEVEL=x86-64-v2 vecscore warmup (docs/deployment.md)")
    groups = args.only
    if not args.jit:
        from vecscore import cpu_levels
        from vecscore.aot_build import BuildError, build, folder_for

        print(f"vecscore warmup: building kernel modules for {cpu_levels.best()} into "
              f"{folder_for(cpu_levels.best())}", file=sys.stderr)
        try:
            seconds = build(groups, jobs=args.jobs, report=lambda line: print(f"  {line}", file=sys.stderr))
        except BuildError as exc:  # no C compiler, a numba without its AOT compiler...: those groups take the JIT
            groups = list(exc.groups)
            print(f"vecscore warmup: the module(s) of {', '.join(groups)} could not be built ({exc.reason()}); "
                  "compiling their kernels into numba's cache instead", file=sys.stderr)
        else:
            print(f"vecscore warmup: built in {sum(seconds.values()):.1f} s", file=sys.stderr)
            return 0

    where, folder = chosen()
    place = {"package": "the package folder", "none": "nowhere (no writable folder)"}.get(where, folder)
    print(f"vecscore warmup: compiling into {place}", file=sys.stderr)
    seconds = warmup(groups, report=lambda line: print(f"  {line}", file=sys.stderr))
    print(f"vecscore warmup: done in {sum(seconds.values()):.1f} s", file=sys.stderr)
    return 0


#: the function that runs each command
RUNS = {"rouge": run_rouge, "rouge155": run_rouge155, "bleu": run_bleu, "sentence-bleu": run_bleu, "chrf": run_chrf,
        "ter": run_ter, "compare": run_compare, "coco": run_coco, "meteor": run_meteor, "filter": run_filter,
        "pairwise": run_pairwise, "mbr": run_mbr,
        "warmup": run_warmup, "sacrebleu": run_sacrebleu}


def main(argv=None) -> int:
    """Entry point; returns the exit status (0 ok, 2 bad input or usage, 130 interrupted, 143 terminated).

    ``vecscore ... | head`` ends quietly: a closed stdout stops the run
    without a traceback (exit status 141, as a shell reports SIGPIPE).
    """
    if argv is None:  # the real command line (not a call from Python): tune the allocator
        tune_memory()
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    previous = _catch_sigterm()
    try:
        with one_line_warnings():
            return RUNS[args.command](args)
    except VecscoreError as exc:
        if isinstance(exc, OutputError) and exc.stdout:
            _silence_stdout()  # the interpreter's last flush of what is left would fail again
        print(f"vecscore: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        _silence_stdout()
        return 141
    except (KeyboardInterrupt, Terminated) as exc:
        return _interrupted(exc)
    except SystemError as exc:  # an interrupt that arrived while a compiled kernel was returning
        cause = exc.__cause__ or exc.__context__
        if isinstance(cause, (KeyboardInterrupt, Terminated)):
            return _interrupted(cause)
        raise
    except MemoryError:
        print(f"vecscore: error: {out_of_memory_message(args)}", file=sys.stderr)
        return 2
    except (OSError, ImportError) as exc:
        message = load_failure_message(exc)
        if message is None:
            raise
        print(f"vecscore: error: {message}", file=sys.stderr)
        return 2
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _limits_text() -> str | None:
    """The memory limits set on this process, for a message (``None``: none is set)."""
    flags = {"RLIMIT_AS": "ulimit -v", "RLIMIT_DATA": "ulimit -d"}
    parts = [f"{name} ({flags[name]}) {limit / 2**20:,.0f} MiB" for name, limit, _ in memory_limits()]
    return " and ".join(parts) or None


def out_of_memory_message(args) -> str:
    """The one-line message of a ``MemoryError`` that reached the command line."""
    chunk = getattr(args, "chunk_size", None)
    smaller = f"lower --chunk-size (now {chunk:,d}) or --workers" if chunk else "score fewer segments per call"
    limits = _limits_text()
    if limits:
        return (f"out of memory (MemoryError) under this process's memory limit: {limits}; raise the limit, or "
                f"{smaller}")
    return f"out of memory (MemoryError); free memory, or {smaller}"


_MAP_FAILED = re.compile(r"failed to map segment|cannot allocate memory|libllvmlite", re.IGNORECASE)
_LIBRARY = re.compile(r"([\w.+-]+\.so(?:\.[\d.]+)?)")


def load_failure_message(exc: BaseException) -> str | None:
    """The one-line message of a shared library (numba's compiler, ``libllvmlite.so``) that could not be loaded
    under a memory limit, or ``None`` when ``exc`` is something else or no limit is set."""
    limits = _limits_text()
    if limits is None:
        return None  # not a limit: a broken installation, whose traceback says more
    texts, seen, e = [], set(), exc
    while e is not None and id(e) not in seen:  # the error, and the ones it was raised from or during
        seen.add(id(e))
        texts.append(str(e))
        e = e.__cause__ or e.__context__
    hits = [t for t in texts if _MAP_FAILED.search(t)]
    if not hits:
        return None
    libs = [m.group(1) for t in hits for m in _LIBRARY.finditer(t)]
    lib = "libllvmlite.so" if any("libllvmlite" in t for t in hits) else (libs[0] if libs else "a shared library")
    what = "numba's compiler, libllvmlite.so" if lib.startswith("libllvmlite") else lib
    detail = next((t.rsplit(": ", 1)[-1] for t in texts if "failed to map segment" in t), "")
    return (f"cannot load {what}{f' ({detail}),' if detail else ''} under this process's memory limit: {limits}; "
            "raise the limit (numba's compiler alone maps about 200 MB of address space), or set "
            "VECSCORE_ROUTE=plain to score without numba where the options allow (slower on large inputs)")


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so that partial output files are removed on the way out."""


def _on_sigterm(signum, frame):
    raise Terminated()


def _catch_sigterm():
    """Turn SIGTERM into :class:`Terminated` for the run (main thread only); returns the previous handler."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _on_sigterm)


def _interrupted(exc: BaseException) -> int:
    if isinstance(exc, Terminated):
        print("vecscore: terminated; no output was written", file=sys.stderr)
        return 143
    print("vecscore: interrupted; no output was written", file=sys.stderr)
    return 130


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the interpreter's final flush stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # pragma: no cover - stdout replaced (e.g. by pytest)
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
