"""``vecscore meteor``: METEOR 1.5 as meteor-1.5.jar computes it (:func:`vecscore.meteor`, no Java), from text
files.

Input: ``--hyps H.txt -r R1.txt [R2.txt ...]``: line ``i`` of ``H.txt`` is scored against line ``i`` of each
reference file (its best reference counts, as the jar's ``-r N``); a reference line that is empty or only
whitespace is no reference from that file.  Lines are taken as they are, as the jar reads its files.

Options: the jar's, by its letters (``-t``, ``-m``, ``-w``, ``-p``, ``-x``; ``--norm``, ``--lower``,
``--no-punct`` for ``-norm``, ``-lower``, ``-noPunct``), resolved as the jar resolves its command line
(:func:`vecscore.meteor.options.resolve_options`).  Normalization is on by default, as coco-caption runs the jar;
``--no-norm`` is the jar's own default.

Output: the corpus score (the score of the summed statistics, the jar's "Final score") as text or JSON, with the
signature and the jar flags that give the same numbers; or one row per line (``--per-item``: JSON Lines, CSV,
TSV, Parquet), with ``--stats`` each line's 23 statistics.
"""
from __future__ import annotations

import shlex

import numpy as np

from vecscore.errors import VecscoreError

__all__ = ["run_meteor", "STAT_COLUMNS"]

_ROW_FORMATS = ("jsonl", "csv", "tsv", "parquet")
#: the per-item statistics columns of ``--stats``, in the jar's order (stage k: the k-th module of ``-m``)
STAT_COLUMNS = ("meteor_test_len", "meteor_ref_len", "meteor_test_function", "meteor_ref_function",
                *(f"meteor_stage{k}_{name}" for k in range(1, 5)
                  for name in ("test_content", "ref_content", "test_function", "ref_function")),
                "meteor_chunks", "meteor_test_matches", "meteor_ref_matches")
_FLAGS = {"task": "-t/--task", "modules": "-m/--modules", "weights": "-w/--weights", "params": "-p/--params",
          "beam_size": "-x/--beam-size"}


def _options(args):
    """The resolved options; an error names the flag."""
    from vecscore.meteor.options import resolve_options

    if args.lower and args.norm:
        raise VecscoreError("--lower goes with --no-norm: --norm (the default) lowercases already")
    if args.no_punct and not args.norm:
        raise VecscoreError("--no-punct goes with --norm: the jar's -noPunct only acts on normalized text")
    kwargs = options_kwargs(args)
    try:
        return resolve_options(kwargs.pop("task"), **kwargs)
    except VecscoreError as e:
        name = str(e).split("=", 1)[0]
        raise VecscoreError(f"{_FLAGS[name]}: {e}" if name in _FLAGS else str(e)) from None


def options_kwargs(args) -> dict:
    """:func:`vecscore.meteor`'s option arguments from the command's flags."""
    def joined(values):
        return None if values is None else " ".join(values)

    return {"task": args.task, "modules": joined(args.modules), "weights": joined(args.weights),
            "params": joined(args.params), "normalize": args.norm, "lower": args.lower, "no_punct": args.no_punct,
            "beam_size": args.beam_size}


def _check_data(args, options) -> None:
    """meteor-1.5.jar (and the paraphrase table, with the paraphrase module) found, or an error naming the flag."""
    from vecscore.meteor import resources

    try:
        if "paraphrase" in options.modules:
            resources.find_paraphrase(args.paraphrase_file, jar=args.jar)
        else:
            resources.find_jar(args.jar)
    except VecscoreError as e:
        message = (str(e).replace("pass jar= ", "pass --jar ").replace("leave jar unset", "leave --jar out")
                   .replace("pass paraphrase_file= ", "pass --paraphrase-file ")
                   .replace("jar='", "--jar '").replace("paraphrase_file='", "--paraphrase-file '"))
        raise type(e)(message) from None


def _format(args) -> str:
    from vecscore.io.write import output_format

    if args.format is not None:
        fmt = args.format
    elif args.output != "-" and args.output.lower().endswith(".txt"):
        fmt = "text"
    else:
        fmt = output_format(args.output, None, "jsonl" if args.per_item else "text")
    if args.per_item and fmt in ("text", "json"):
        raise VecscoreError(f"--per-item writes one row per line: use --format jsonl, csv, tsv or parquet, not {fmt}")
    if args.stats and fmt not in _ROW_FORMATS:
        raise VecscoreError("--stats adds columns to per-item rows: add --per-item (or a row format)")
    return fmt


def summary(result, n_items: int) -> dict:
    """The corpus score as ``--format json`` writes it."""
    from vecscore._version import __version__

    return {"name": "METEOR", "score": float(result.score), "n_items": n_items, "signature": result.signature,
            "jar_args": result.options.jar_args(), "version": __version__}


def _text(s: dict) -> str:
    return (f"METEOR = {s['score']!r}\n\nsignature: {s['signature']}\nmeteor-1.5.jar flags: "
            f"{shlex.join(s['jar_args'])}\nitems: {s['n_items']:,d}, vecscore {s['version']}\n")


def run_meteor(args) -> int:
    from vecscore.cli.coco import read_text_input
    from vecscore.io.write import write_json, write_text
    from vecscore.meteor.api import meteor

    fmt = _format(args)
    options = _options(args)
    if args.hyps is None or not args.refs:
        raise VecscoreError("vecscore meteor needs --hyps FILE and -r REF_FILE [REF_FILE ...]")
    _check_data(args, options)
    data = read_text_input(args.hyps, args.refs, strip=False, command="vecscore meteor", item="hypothesis")
    result = meteor(data.hyps, data.refs, jar=args.jar, paraphrase_file=args.paraphrase_file,
                    **options_kwargs(args))
    out = summary(result, len(data.hyps))
    if fmt in _ROW_FORMATS:
        _write_rows(args, fmt, data, result)
    elif fmt == "text":
        write_text(args.output, _text(out))
    else:
        write_json(args.output, out)
    if args.summary is not None:
        write_json(args.summary, out)
    return 0


def _write_rows(args, fmt: str, data, result) -> None:
    from vecscore.io.read import RowChunk
    from vecscore.io.stream import ScoreChunk
    from vecscore.io.write import atomic_output, make_writer

    n = len(data.hyps)
    stats = {}
    if args.stats:
        counts = np.rint(result.stats).astype(np.int64)
        stats = {name: counts[:, k] for k, name in enumerate(STAT_COLUMNS)}
    rows = RowChunk(data.hyps, data.refs, 0, data.source)
    with atomic_output(args.output) as stream:
        writer = make_writer(fmt, stream, stats=args.stats)
        try:
            writer.write(rows, ScoreChunk(0, n, {"meteor_score": np.asarray(result.scores, np.float64)}, stats))
        except BaseException:
            writer.abort()
            raise
        writer.close()
