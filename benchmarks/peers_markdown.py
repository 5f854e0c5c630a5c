"""The figures of a ``benchmarks/peers.py --json PATH`` run as a Markdown table (pairs per second, one row per task).

    python -m benchmarks.peers_markdown PATH
"""
from __future__ import annotations

import json
import sys

TOOLS = ["vecscore", "vecscore, VECSCORE_ROUTE=compiled", "sacreBLEU", "bleuscore", "rouge-score", "rouge-score-rs",
         "rouge-rust", "fast-bleu", "NLTK"]
HEAD = ["vecscore", "vecscore compiled route", "sacreBLEU", "bleuscore", "rouge-score", "rouge-score-rs", "rouge-rust",
        "fast-bleu", "NLTK"]


def _cell(cells: list, tool: str) -> str:
    found = [c for c in cells if c["tool"] == tool or c["tool"].startswith(tool + " ")]
    out = []
    for c in found:
        if "rate" not in c:
            out.append("n/a")
            continue
        label = c["tool"][len(tool):].strip()
        rate = f"{c['rate']:,.0f}" if c["rate"] >= 10 else f"{c['rate']:.2g}"
        out.append(rate + (f" ({label})" if label else ""))
    return ", ".join(out)


def table(run: dict) -> str:
    lines = ["| row | task | load | " + " | ".join(HEAD) + " |", "|---|---|---:|" + "---:|" * len(HEAD)]
    for row in run["rows"]:
        load = f"{row['load_before'][0]:.2f}" if row.get("load_before") else ""
        for task in row.get("tasks", []):
            cells = task["cells"]
            used = [_cell(cells, t) for t in TOOLS]
            if not any(used):  # e.g. a ratio row: note it as text
                continue
            lines.append(f"| {row['row']} | {task['task']} | {load} | " + " | ".join(used) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    with open(args[0], encoding="utf-8") as fh:
        print(table(json.load(fh)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
