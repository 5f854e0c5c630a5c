"""The ``vecscore`` command.

``vecscore rouge --hyps FILE --refs FILE [--refs FILE ...]`` prints the corpus
means as JSON (``--per-pair`` prints one JSON object per pair instead).
"""
from __future__ import annotations

import argparse
import json
import signal
import sys

from vecscore._version import __version__
from vecscore.errors import VecscoreError
from vecscore.io import read_aligned
from vecscore.multiref import MULTI_REF
from vecscore.rouge import DEFAULT_METRICS, rouge
from vecscore.text.tokenizers import TOKENIZERS

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vecscore", description="Fast BLEU and ROUGE, identical to the official tools.")
    parser.add_argument("--version", action="version", version=f"vecscore {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("rouge", help="ROUGE scores of a hypothesis file against reference files")
    r.add_argument("--hyps", required=True, help="system outputs, one segment per line ('-' for stdin)")
    r.add_argument("--refs", required=True, action="append", help="references, one per line; repeat for several")
    r.add_argument("--metrics", nargs="+", default=list(DEFAULT_METRICS), help="rouge1 rouge2 ... (default: %(default)s)")
    r.add_argument("--tokenizer", default="rouge-score", choices=TOKENIZERS)
    r.add_argument("--lowercase", action="store_true", help="lowercase before tokenizing")
    r.add_argument("--stem", action="store_true", help="Porter stemming, as rouge-score's use_stemmer=True")
    r.add_argument("--multi-ref", default="best", choices=MULTI_REF, help="multi-reference convention")
    weight = r.add_mutually_exclusive_group()
    weight.add_argument("--alpha", type=float, help="F = PR / ((1-alpha)P + alpha R), as ROUGE-1.5.5 -p")
    weight.add_argument("--beta", type=float, help="F-beta instead of F1")
    r.add_argument("--per-pair", action="store_true", help="print one JSON object per pair (JSON Lines)")
    r.set_defaults(func=run_rouge)
    return parser


def run_rouge(args, out) -> int:
    hyps, refs = read_aligned(args.hyps, args.refs)
    result = rouge(
        hyps,
        refs,
        metrics=args.metrics,
        tokenizer=args.tokenizer,
        lowercase=args.lowercase,
        stemmer=args.stem,
        multi_ref=args.multi_ref,
        alpha=args.alpha,
        beta=args.beta,
    )
    if args.per_pair:
        cols = result.columns()
        names = list(cols)
        values = [cols[n].tolist() for n in names]
        for i in range(result.n_pairs):
            out.write(json.dumps({"pair": i, **{n: v[i] for n, v in zip(names, values)}}) + "\n")
        return 0
    summary = {k: s._asdict() for k, s in result.mean().items()}
    summary.update({"n_pairs": result.n_pairs, "signature": result.signature})
    out.write(json.dumps(summary, indent=2) + "\n")
    return 0


def main(argv=None) -> int:
    """Entry point; returns the exit status (0 ok, 2 bad input)."""
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `vecscore ... | head` ends quietly
    args = build_parser().parse_args(argv)
    try:
        return args.func(args, sys.stdout)
    except VecscoreError as exc:
        print(f"vecscore: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
