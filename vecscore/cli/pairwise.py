"""``vecscore pairwise`` and ``vecscore mbr``: score matrices and MBR choices, one per source.

Input: one row per source holding its list of candidates (and, optionally, its list of references or
pseudo-references):

* ``--input FILE`` (JSON Lines or Parquet): the column ``--column`` (default ``candidates``) holds a list of
  strings per row; ``--refs-column`` an optional second list;
* ``--hyps FILE`` (plain text, one candidate per line): every ``--group-size`` consecutive lines are one
  source's candidates (without it, the whole file is one source); ``--refs FILE`` likewise, grouped by
  ``--refs-group-size`` (default: ``--group-size``).

Output: JSON Lines, one row per source, written atomically (nothing is written when a row is bad):
``pairwise``: ``{"source": k, "matrix": [[...], ...]}``; ``mbr``: ``{"source": k, "index": i, "text": ...,
"score": ..., "expected": [...]}``.  Metric options: ``--option NAME=VALUE`` (repeatable; VALUE read as JSON
when it parses, e.g. ``word_order=2``, ``lowercase=true``, else as a string, e.g. ``tokenize=intl``).
"""
from __future__ import annotations

import json
import sys

from vecscore.errors import MissingDependencyError, VecscoreError

__all__ = ["add_matrix_parsers", "run_pairwise", "run_mbr", "read_sources", "parse_options"]


def add_matrix_parsers(sub) -> None:
    """The ``pairwise`` and ``mbr`` subcommands."""
    from vecscore.matrices.registry import METRICS

    for name in ("pairwise", "mbr"):
        if name == "pairwise":
            p = sub.add_parser("pairwise", help="score matrices: every candidate against every reference, per source",
                               description="One matrix per source: each candidate (hypothesis) against each "
                               "reference (the candidates themselves without references), in the anchor's units "
                               "(sacreBLEU's sentence scores, rouge-score's F).")
        else:
            p = sub.add_parser("mbr", help="minimum Bayes risk decoding: the candidate with the best expected score",
                               description="Per source, the candidate whose mean score against the pseudo-references "
                               "(the candidates themselves by default, diagonal included, as mbrs) is highest (lowest "
                               "for TER).")
        g = p.add_argument_group("input (a table: --input; plain text: --hyps)")
        g.add_argument("--input", metavar="FILE", help="JSON Lines or Parquet, one row per source ('-' for stdin)")
        g.add_argument("--input-format", choices=["jsonl", "parquet"], help="format of --input (default: from its "
                       "extension)")
        g.add_argument("--column", default="candidates", help="the column of candidate lists (default: %(default)s)")
        g.add_argument("--refs-column", metavar="COLUMN",
                       help="a column of reference lists (default: the candidates are their own references)")
        g.add_argument("--hyps", metavar="FILE", help="plain text, one candidate per line ('-' for stdin)")
        g.add_argument("--group-size", type=int, metavar="K",
                       help="with --hyps: every K lines are one source's candidates (default: the whole file)")
        g.add_argument("--refs", metavar="FILE", help="with --hyps: references, one per line")
        g.add_argument("--refs-group-size", type=int, metavar="K", help="lines of --refs per source "
                       "(default: --group-size)")
        m = p.add_argument_group("metric")
        m.add_argument("--metric", default="chrf", choices=list(METRICS), help="(default: %(default)s)")
        m.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                       help="a metric option, as the anchor names it (e.g. word_order=2, tokenize=intl); repeatable")
        if name == "mbr":
            m.add_argument("--aggregate", action="store_true",
                           help="chrf/bleu: score against the pooled pseudo-references (an approximation of MBR)")
        o = p.add_argument_group("output")
        o.add_argument("-o", "--output", default="-", help="JSON Lines output ('-': stdout, the default); written "
                       "atomically")
        o.add_argument("--quiet", "-q", action="store_true", help="no progress bar (shown on a terminal's stderr "
                       "when tqdm is installed)")


def parse_options(items: list[str]) -> dict:
    """``NAME=VALUE`` strings as keyword arguments (VALUE as JSON when it parses, else the string)."""
    out: dict = {}
    for item in items:
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise VecscoreError(f"--option {item!r}: write NAME=VALUE, e.g. --option word_order=2")
        if name in out:
            raise VecscoreError(f"--option {name} is given twice; give it once")
        try:
            out[name] = json.loads(raw)
        except json.JSONDecodeError:
            out[name] = raw
    return out


def _text_list(value, where: str, column: str) -> list[str]:
    if not isinstance(value, (list, tuple)):
        raise VecscoreError(f"{where}: column {column!r} is a {type(value).__name__}, not a list of strings; give "
                            "each source's texts as a list, e.g. [\"first\", \"second\"]")
    for i, t in enumerate(value):
        if not isinstance(t, str):
            raise VecscoreError(f"{where}: {column}[{i}] is {type(t).__name__}, not a string; every text must be a "
                                "string")
    if not value:
        raise VecscoreError(f"{where}: column {column!r} is an empty list; every source needs at least one text")
    return list(value)


def _records(path: str, fmt: str):
    """``(where, record)`` per row of a JSON Lines or Parquet file."""
    from vecscore.io.read import open_input

    name = "<stdin>" if path == "-" else path
    if fmt == "parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError:  # pragma: no cover - depends on the environment
            raise MissingDependencyError("Parquet needs pyarrow: pip install 'vecscore[parquet]'") from None
        source = sys.stdin.buffer if path == "-" else path
        try:
            table = pq.read_table(source)
        except (OSError, ValueError) as exc:
            raise VecscoreError(f"cannot read {name} as Parquet: {exc}") from None
        for i, rec in enumerate(table.to_pylist()):
            yield f"{name}, row {i + 1}", rec
        return
    f = sys.stdin.buffer if path == "-" else open_input(path)
    try:
        for i, raw in enumerate(f):
            where = f"{name}, line {i + 1}"
            try:
                rec = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise VecscoreError(f"{where}: not valid JSON ({exc}); fix or remove the row") from None
            if not isinstance(rec, dict):
                raise VecscoreError(f"{where}: a JSON {type(rec).__name__}, not an object; write one object per "
                                    "line, e.g. {\"candidates\": [\"...\", \"...\"]}")
            yield where, rec
    finally:
        if f is not sys.stdin.buffer:
            f.close()


def _groups(lines: list[str], size: int | None, flag: str) -> list[list[str]]:
    if size is None:
        return [lines]
    if size < 1:
        raise VecscoreError(f"{flag} must be at least 1, got {size}")
    if len(lines) % size:
        raise VecscoreError(f"{flag} {size}: the file has {len(lines):,d} lines, not a multiple of {size} (the last "
                            f"source has {len(lines) % size}); give every source {size} lines")
    return [lines[k:k + size] for k in range(0, len(lines), size)]


def read_sources(args) -> tuple[list[list[str]], list[list[str]] | None]:
    """The candidates (and references) of every source, from ``--input`` or ``--hyps``."""
    if (args.input is None) == (args.hyps is None):
        raise VecscoreError(f"vecscore {args.command} needs either --input FILE (a table, one row per source) or "
                            "--hyps FILE (plain text), not both")
    if args.input is None:
        return _text_sources(args)
    return _table_sources(args)


def _text_sources(args) -> tuple[list[list[str]], list[list[str]] | None]:
    from vecscore.io.read import read_lines

    if args.refs_column is not None:
        raise VecscoreError("--refs-column goes with --input; with --hyps give --refs FILE")
    hyps = read_lines(args.hyps)
    if not hyps:
        raise VecscoreError(f"{args.hyps} has no lines: give one candidate per line")
    cands = _groups(hyps, args.group_size, "--group-size")
    if args.refs is None:
        return cands, None
    refs = read_lines(args.refs)
    size = args.refs_group_size if args.refs_group_size is not None else args.group_size
    groups = _groups(refs, size, "--refs-group-size") if refs else []
    if len(groups) != len(cands):
        raise VecscoreError(f"{args.refs} makes {len(groups):,d} sources but {args.hyps} makes {len(cands):,d}; "
                            "give the same number of sources (see --group-size and --refs-group-size)")
    return cands, groups


def _table_sources(args) -> tuple[list[list[str]], list[list[str]] | None]:
    if args.refs is not None or args.group_size is not None or args.refs_group_size is not None:
        raise VecscoreError("--refs, --group-size and --refs-group-size go with --hyps, not with --input")
    fmt = args.input_format
    if fmt is None:
        fmt = "parquet" if args.input.lower().endswith((".parquet", ".pq")) else "jsonl"
    cands: list[list[str]] = []
    refs: list[list[str]] = []
    for where, rec in _records(args.input, fmt):
        for col in [args.column] + ([args.refs_column] if args.refs_column else []):
            if col not in rec:
                raise VecscoreError(f"{where}: no column {col!r} (columns: {', '.join(map(str, rec)) or 'none'}); "
                                    "name the right one with --column / --refs-column")
        cands.append(_text_list(rec[args.column], where, args.column))
        if args.refs_column:
            refs.append(_text_list(rec[args.refs_column], where, args.refs_column))
    if not cands:
        raise VecscoreError(f"{args.input} has no rows: give one row per source")
    return cands, refs if args.refs_column else None


def _write_rows(path: str, rows) -> None:
    from vecscore.io.write import atomic_output

    with atomic_output(path) as f:
        for row in rows:
            f.write((json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8"))


#: sources are scored in runs of about this many cells (a progress bar moves once per run)
CHUNK_CELLS = 4_000_000


def _cells(cands: list[list[str]], refs: list[list[str]] | None) -> list[int]:
    """Each source's number of cells: its candidates times its references (or its candidates again)."""
    return [len(c) * len(refs[k] if refs is not None else c) for k, c in enumerate(cands)]


def _runs(cells: list[int]):
    """``(start, stop, cells)``: consecutive sources of about :data:`CHUNK_CELLS` cells each."""
    start, total = 0, 0
    for k, n in enumerate(cells):
        total += n
        if total >= CHUNK_CELLS:
            yield start, k + 1, total
            start, total = k + 1, 0
    if start < len(cells):
        yield start, len(cells), total


def _by_runs(args, cands, refs, score):
    """``score(cands[a:b], refs[a:b])`` per run of sources, each result with its source number, under a
    progress bar (stderr, a terminal, not ``--quiet``); an error names the user's source."""
    from vecscore.io.write import progress_bar

    cells = _cells(cands, refs)
    bar = progress_bar(sum(cells), quiet=args.quiet, desc=args.command)
    try:
        for start, stop, n in _runs(cells):
            try:
                out = score(cands[start:stop], None if refs is None else refs[start:stop])
            except VecscoreError as exc:
                first = f"source {start + 1}" if stop == start + 1 else f"sources {start + 1}-{stop}"
                raise VecscoreError(f"{first} (counted from 1, a row each): {exc}") from None
            for k, result in enumerate(out):
                yield start + k, result
            bar.update(n)
    finally:
        bar.close()


def run_pairwise(args) -> int:
    from vecscore.matrices.api import pairwise_batch

    options = parse_options(args.option)
    cands, refs = read_sources(args)
    runs = _by_runs(args, cands, refs, lambda c, r: pairwise_batch(c, r, metric=args.metric, **options))
    _write_rows(args.output, ({"source": k, "matrix": m.tolist()} for k, m in runs))
    return 0


def run_mbr(args) -> int:
    from vecscore.matrices.mbr import mbr

    options = parse_options(args.option)
    cands, refs = read_sources(args)

    def score(c, r):
        out = mbr(c, r, metric=args.metric, aggregate=args.aggregate, **options)
        return out if isinstance(out, list) else [out]

    runs = _by_runs(args, cands, refs, score)
    _write_rows(args.output, ({"source": k, "index": r.index, "text": cands[k][r.index], "score": r.score,
                               "expected": r.expected.tolist()} for k, r in runs))
    return 0
