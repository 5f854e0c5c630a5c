"""The ROUGE-1.5.5 release's sample test (``../shared/data/rouge155-sample-test``), read as the script reads it.

:data:`RUNS` lists the release's standard commands and their expected-output files;
:func:`read_evals` reads an XML config's peers and models; :func:`parse_output` reads the
script's printed per-evaluation lines and averages; :func:`score_run` scores one command with
vecscore.  Used by the parity tests of the scores and of the printed 95% intervals.
"""
from __future__ import annotations

import re
from pathlib import Path

from vecscore.rouge.rouge155.api import rouge155, rouge155_args

__all__ = ["RUNS", "read_summary", "read_evals", "parse_output", "score_run"]


SEE = (re.compile(r'^<a size="[0-9]+" name="[0-9]+">\[([0-9]+)\]</a>\s+<a href="#[0-9]+" id=[0-9]+>([^<]+)'),
        re.compile(r'^<a name="[0-9]+">\[([0-9]+)\]</a>\s+<a href="#[0-9]+" id=[0-9]+>([^<]+)'))


def read_summary(path: Path, fmt: str) -> str:
    """The script's readText input lines, as one SPL text (lines joined with "\\n")."""
    raw = path.read_bytes().decode("latin-1")
    assert raw.isascii()
    if fmt == "SPL":
        return raw
    lines = []
    for line in raw.splitlines(keepends=True):
        m = SEE[0].match(line) or SEE[1].match(line)
        if m:
            # the script keeps the line's "\n" inside the text: one byte of whitespace
            lines.append(m.group(2).replace("\n", " "))
    return "\n".join(lines)


def read_evals(config: Path):
    """[(eval_id, {peer_id: text}, [model texts])] of an XML config, in file order."""
    xml = config.read_text()
    out = []
    for ev in re.finditer(r'<EVAL ID="([^"]+)">(.*?)</EVAL>', xml, re.S):
        body = ev.group(2)
        peer_root = config.parent / re.search(r"<PEER-ROOT>\s*(\S+)\s*</PEER-ROOT>", body).group(1)
        model_root = config.parent / re.search(r"<MODEL-ROOT>\s*(\S+)\s*</MODEL-ROOT>", body).group(1)
        fmt = re.search(r'<INPUT-FORMAT TYPE="([^"]+)">', body).group(1)
        peers = {p: read_summary(peer_root / f, fmt) for p, f in re.findall(r'<P ID="([^"]+)">\s*(\S+)\s*</P>', body)}
        models = [read_summary(model_root / f, fmt) for _, f in re.findall(r'<M ID="([^"]+)">\s*(\S+)\s*</M>', body)]
        out.append((ev.group(1), peers, models))
    return out


LINE = re.compile(r"^(\S+) (ROUGE-\S+) Eval (\S+)\.(\S+) R:(\S+) P:(\S+) F:(\S+)$")
AVG = re.compile(r"^(\S+) (ROUGE-\S+) Average_([RPF]): (\S+) ")


def parse_output(path: Path):
    per, avg = {}, {}
    for line in path.read_text().splitlines():
        m = LINE.match(line)
        if m:
            peer, metric, ev = m.group(1), m.group(2), m.group(3)
            per.setdefault((peer, metric), {})[ev] = tuple(map(float, m.group(5, 6, 7)))
            continue
        m = AVG.match(line)
        if m:
            avg.setdefault((m.group(1), m.group(2)), {})[m.group(3)] = float(m.group(4))
    return per, avg


# (output file stem, config, extra flags); all share -c 95 -2 -1 -U -r 1000 -n 4 -w 1.2 -a
RUNS = [
    ("ROUGE-test-c95-2-1-U-r1000-n4-w1.2-a", "sample-test/ROUGE-test.xml", []),
    ("ROUGE-test-c95-2-1-U-r1000-n4-w1.2-a-m", "sample-test/ROUGE-test.xml", ["-m"]),
    ("ROUGE-test-c95-2-1-U-r1000-n4-w1.2-a-m-s", "sample-test/ROUGE-test.xml", ["-m", "-s"]),
    ("ROUGE-test-c95-2-1-U-r1000-n4-w1.2-l10-a", "sample-test/ROUGE-test.xml", ["-l", "10"]),
    ("ROUGE-test-c95-2-1-U-r1000-n4-w1.2-l10-a-m", "sample-test/ROUGE-test.xml", ["-l", "10", "-m"]),
    ("ROUGE-test-c95-2-1-U-r1000-n4-w1.2-l10-a-m-s", "sample-test/ROUGE-test.xml", ["-l", "10", "-m", "-s"]),
    ("ROUGE-test-c95-2-1-U-r1000-n4-w1.2-b75-a", "sample-test/ROUGE-test.xml", ["-b", "75"]),
    ("ROUGE-test-c95-2-1-U-r1000-n4-w1.2-b75-a-m", "sample-test/ROUGE-test.xml", ["-b", "75", "-m"]),
    ("ROUGE-test-c95-2-1-U-r1000-n4-w1.2-b75-a-m-s", "sample-test/ROUGE-test.xml", ["-b", "75", "-m", "-s"]),
    ("DUC2002-spl-c95-2-1-U-r1000-n4-w1.2-a", "sample-test/DUC2002-ROUGE.in.26.spl.xml", []),
    ("DUC2002-spl-c95-2-1-U-r1000-n4-w1.2-a-m", "sample-test/DUC2002-ROUGE.in.26.spl.xml", ["-m"]),
    ("pyrouge-duc2004-plain-c95-2-1-U-r1000-n4-w1.2-a", "pyrouge-duc2004-plain/ROUGE-config.xml", []),
    ("pyrouge-duc2004-plain-c95-2-1-U-r1000-n4-w1.2-a-m", "pyrouge-duc2004-plain/ROUGE-config.xml", ["-m"]),
]


def score_run(root: Path, config: str, extra: list[str]):
    """Per peer: (eval ids, RougeResult) as the script's -a run computes them."""
    args = rouge155_args(["-c", "95", "-2", "-1", "-U", "-r", "1000", "-n", "4", "-w", "1.2", "-a", *extra])
    evals = read_evals(root / config)
    out = {}
    for peer in sorted({p for _, peers, _ in evals for p in peers}):
        rows = [(e, peers[peer], models) for e, peers, models in evals if peer in peers]
        res = rouge155([r[1] for r in rows], [r[2] for r in rows], **args.kwargs)
        out[peer] = ([r[0] for r in rows], res)
    return args, out
