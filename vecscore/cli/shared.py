"""``--shared-refs FILE``: every hypothesis against one shared set of references.

``vecscore bleu --hyps H.txt --shared-refs R.txt`` (and ``sentence-bleu``, ``rouge``)
score each line of ``H.txt`` against *all* lines of ``R.txt`` (one reference
per line, the one set shared by every hypothesis), as if each hypothesis were
given every line as its references.  The references are read, tokenized and
counted once (:class:`vecscore.SharedReferences`); the hypotheses stream
through in ``--chunk-size`` chunks as usual.
"""
from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.io.read import RowChunk, _decode, count_lines, read_lines
from vecscore.io.stream import BleuSpec, RougeSpec

__all__ = ["SharedBleuSpec", "SharedRougeSpec", "shared_bleu_spec", "shared_rouge_spec", "open_hyps"]

SHARED_HELP = ("one set of references for every hypothesis: each line of FILE is one reference, and every "
               "--hyps line is scored against all of them (instead of --refs)")


@dataclass(frozen=True)
class SharedBleuSpec(BleuSpec):
    """:class:`vecscore.io.stream.BleuSpec` against a :class:`vecscore.SharedReferences` (``refs`` ignored)."""

    shared: object = None

    def statistics(self, hyps, refs):
        return self.shared.bleu_statistics(  # type: ignore[attr-defined]
            hyps, max_ngram_order=self.order, brevity_penalty=self.options.get("brevity_penalty", "closest"))


@dataclass(frozen=True)
class SharedRougeSpec(RougeSpec):
    """:class:`vecscore.io.stream.RougeSpec` against a :class:`vecscore.SharedReferences` (``refs`` ignored)."""

    shared: object = None

    def score(self, hyps, refs):
        result = self.shared.rouge(hyps, metrics=list(self.metrics), **self.options)  # type: ignore[attr-defined]
        stats = {}
        if self.has_stats:
            for m, st in result.stats.items():
                for key in ("hits", "p_den", "r_den"):
                    a = getattr(st, key)
                    stats[f"{m}_{key}"] = a.astype(np.int64) if a.dtype.kind in "iub" else a.astype(np.float64)
        return result.columns(), stats, result.signature


def _check_args(args) -> None:
    if args.refs:
        raise VecscoreError("give either --refs (references aligned with --hyps, line by line) or --shared-refs (one "
                            "set of references for every hypothesis), not both")
    if args.input is not None or args.hyps is None:
        raise VecscoreError("--shared-refs goes with --hyps FILE (plain text, one hypothesis per line)")
    if args.hyps == "-" and args.shared_refs == "-":
        raise VecscoreError("only one of --hyps/--shared-refs can be '-' (stdin)")


def shared_bleu_spec(args, options: dict) -> SharedBleuSpec:
    """The BLEU spec of ``vecscore bleu|sentence-bleu --shared-refs FILE`` (``options``: the command's BLEU options)."""
    from vecscore.shared_refs import SharedReferences

    _check_args(args)
    refs = read_lines(args.shared_refs, strip=True)  # sacreBLEU's command line: trailing whitespace removed
    if not refs:
        raise VecscoreError(f"{args.shared_refs} is empty: --shared-refs needs at least one reference (one per line)")
    shared = SharedReferences(refs, tokenize=options["tokenize"], lowercase=options["lowercase"])
    return SharedBleuSpec(options, sentence=args.sentence, shared=shared)


def shared_rouge_spec(args, metrics: tuple, options: dict) -> SharedRougeSpec:
    """The spec of ``vecscore rouge --shared-refs FILE`` (``options``: the command's ROUGE options)."""
    from vecscore.shared_refs import SharedReferences

    _check_args(args)
    refs = read_lines(args.shared_refs)
    if not refs:
        raise VecscoreError(f"{args.shared_refs} is empty: --shared-refs needs at least one reference (one per line)")
    return SharedRougeSpec(metrics, options, shared=SharedReferences(refs))


def open_hyps(args, keep, strip: bool = False) -> tuple[Iterator[RowChunk], int | None]:
    """The hypotheses of ``--hyps`` in chunks (no references: they are shared), and their number if known;
    ``strip``: trailing whitespace removed from every line (sacreBLEU's command line)."""
    _check_args(args)
    if keep not in (None, "all") and [k for k in keep if k != "hyp"]:
        raise VecscoreError("--keep with --shared-refs: the only per-pair input column is hyp")
    return _iter_hyps(args.hyps, args.chunk_size, keep is not None, strip), count_lines(args.hyps)


def _iter_hyps(path: str, chunk_size: int, keep_text: bool, strip: bool = False) -> Iterator[RowChunk]:
    name = "<stdin>" if path == "-" else str(path)
    try:
        f = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as exc:
        raise VecscoreError(f"cannot read {path}: {exc.strerror or exc}; check the path") from None
    start = 0
    try:
        while True:
            block = list(itertools.islice(f, chunk_size))
            if not block:
                return
            hyps = [_decode(raw, name, start + i + 1, strip) for i, raw in enumerate(block)]
            records = [{"hyp": h} for h in hyps] if keep_text else None
            yield RowChunk(hyps, [], start, name, lines=list(range(start + 1, start + len(hyps) + 1)), records=records)
            start += len(hyps)
    finally:
        if f is not sys.stdin.buffer:
            f.close()
