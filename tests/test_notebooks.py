"""The tutorial notebook, executed in a real Jupyter kernel (nbclient + ipykernel).

notebooks/tutorial.ipynb is stored *executed* (outputs and the plot's PNG), so that GitHub shows
it. These tests run it again, top to bottom, in a ``python3`` kernel on this interpreter, and check:

- no cell fails, and the kernel is this environment's Python;
- the plot cell shows an ``image/png`` (in the stored notebook and in the fresh run);
- key printed numbers equal what vecscore, sacreBLEU or a hand-computed fraction give;
- the stored outputs are current: every printed text equals the fresh run's.

After a change that moves a printed number, store the notebook again with::

    python tests/test_notebooks.py          # executes notebooks/tutorial.ipynb in place
"""
from __future__ import annotations

import base64
import copy
import os
import re
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "tutorial.ipynb"
TIMEOUT = 180  # seconds per cell; the whole notebook runs in ~10 s once the kernel is up
PROBE_ID = "test-probe-interpreter"
REGENERATE = "python tests/test_notebooks.py"


def execute(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Run every cell of ``nb`` (in place) in a fresh ``python3`` kernel started in notebooks/."""
    env = dict(os.environ)
    # the kernel imports the same vecscore as this process (the checkout), installed or not
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=TIMEOUT,
        startup_timeout=TIMEOUT,
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute(env=env)
    return nb


def strip_volatile(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Drop execution timing and the kernel's version details; keep outputs and execution counts."""
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    info = nb.metadata.get("language_info", {})
    nb.metadata["language_info"] = {k: v for k, v in info.items() if k != "version"}
    return nb


def cell(nb: nbformat.NotebookNode, cell_id: str) -> nbformat.NotebookNode:
    found = [c for c in nb.cells if c.get("id") == cell_id]
    assert len(found) == 1, f"the notebook has {len(found)} cells with id {cell_id!r}"
    return found[0]


def text(c: nbformat.NotebookNode) -> str:
    """A code cell's printed text: stdout, and the text/plain of its results and displays."""
    parts = []
    for out in c.get("outputs", []):
        if out.output_type == "stream" and out.name == "stdout":
            parts.append(out.text)
        elif out.output_type in ("execute_result", "display_data") and "text/plain" in out.data:
            parts.append(out.data["text/plain"] + "\n")
    return "".join(parts)


def pngs(c: nbformat.NotebookNode) -> list[bytes]:
    return [
        base64.b64decode(out.data["image/png"])
        for out in c.get("outputs", [])
        if out.output_type == "display_data" and "image/png" in out.data
    ]


@pytest.fixture(scope="module")
def stored() -> nbformat.NotebookNode:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    return nb


@pytest.fixture(scope="module")
def fresh(stored) -> nbformat.NotebookNode:
    nb = copy.deepcopy(stored)
    for c in nb.cells:
        if c.cell_type == "code":
            c.outputs, c.execution_count = [], None
    probe = nbformat.v4.new_code_cell("import sys\nprint(sys.prefix)\nprint(sys.executable)", id=PROBE_ID)
    nb.cells.append(probe)
    return execute(nb)  # raises CellExecutionError, naming the cell, if any cell fails


@pytest.fixture(scope="module")
def examples():
    def read(name):
        return (ROOT / "examples" / name).read_text(encoding="utf-8").splitlines()

    hyps, refs1, refs2 = read("hyps.txt"), read("refs.txt"), read("refs2.txt")
    return hyps, refs1, refs2, [[a, b] for a, b in zip(refs1, refs2)]


def test_runs_in_this_interpreter_without_errors(fresh):
    errors = [(c.get("id"), o.ename, o.evalue) for c in fresh.cells for o in c.get("outputs", [])
              if o.output_type == "error"]
    assert errors == []
    prefix, executable = text(cell(fresh, PROBE_ID)).splitlines()
    assert Path(prefix) == Path(sys.prefix), (
        f"the python3 kernel ran {executable}, not this environment's {sys.executable}")


def test_plot_is_an_inline_png(stored, fresh):
    for nb in (stored, fresh):
        images = pngs(cell(nb, "plot"))
        assert len(images) == 1 and images[0].startswith(b"\x89PNG\r\n\x1a\n")
    source = "".join(c.source for c in stored.cells if c.cell_type == "code")
    assert "%matplotlib inline" in source and 'use("Agg")' not in source


def test_printed_numbers_are_the_librarys(fresh, examples):
    import sacrebleu

    import vecscore

    hyps, refs1, refs2, refs = examples

    toy = text(cell(fresh, "rouge-toy"))
    for metric, value in [("rouge1", 5 / 6), ("rouge2", 3 / 5), ("rougeL", 5 / 6)]:
        assert f"{metric}: P = {value:.4f}  R = {value:.4f}  F = {value:.4f}" in toy

    means = vecscore.rouge(hyps, refs, metrics=["rouge1", "rouge2", "rougeL"], stemmer=True).mean()
    printed = text(cell(fresh, "rouge-mean"))
    for metric, s in means.items():
        assert f"mean {metric:7s} P = {s.precision:.4f}  R = {s.recall:.4f}  F = {s.fmeasure:.4f}" in printed

    # BLEU: sacreBLEU's own printout of the same corpus, and its sentence BLEU of pair 0
    bleu = text(cell(fresh, "bleu")).splitlines()
    assert bleu[0] == str(sacrebleu.corpus_bleu(hyps, [refs1, refs2]))
    assert f"sentence BLEU of pair 0: {sacrebleu.sentence_bleu(hyps[0], refs[0]).score:.4f}" in bleu
    assert f"BLEU-2 = {100 * (4 / 5) ** 0.5:.4f}" in text(cell(fresh, "bleu-toy"))

    parity = text(cell(fresh, "parity")).splitlines()
    assert len(parity) == 3 and all(line.endswith("True") for line in parity)

    # the conventions table: toy pair (hand-computed fractions) and corpus means per convention
    by_hand = {"best": 5 / 6, "best-recall": 1 / 2, "pooled": 11 / 16, "mean": 2 / 3, "jackknife": 7 / 9}
    rows = {line.split()[0]: re.findall(r"\d+\.\d+", line) for line in text(cell(fresh, "multiref")).splitlines()[1:]}
    assert set(rows) == set(by_hand)
    for convention, fraction in by_hand.items():
        m = vecscore.rouge(hyps, refs, metrics=["rouge1", "rouge2", "rougeL"], stemmer=True,
                           multi_ref=convention).mean()
        expected = [fraction, fraction, m["rouge1"].fmeasure, m["rouge2"].fmeasure, m["rougeL"].fmeasure]
        assert rows[convention] == [f"{x:.4f}" for x in expected], convention
    assert len({rows[c][0] for c in by_hand}) == 5  # five conventions, five numbers

    args = vecscore.rouge155_args(["-n", "2", "-w", "1.2", "-2", "4", "-U", "-m"])
    perl = vecscore.rouge155(hyps, refs, **args.kwargs).mean()
    printed = text(cell(fresh, "rouge155"))
    for metric, s in perl.items():
        assert f"{metric:11s} R = {s.recall:.5f}  P = {s.precision:.5f}  F = {s.fmeasure:.5f}" in printed
    assert f"script: {5 ** -0.2:.5f}" in text(cell(fresh, "rouge155-quirk"))

    zh = text(cell(fresh, "zh"))
    assert f"rouge1: P = {6 / 7:.4f}  R = {1:.4f}" in zh and f"rouge2: P = {4 / 6:.4f}  R = {4 / 5:.4f}" in zh


def test_stored_outputs_are_current(stored, fresh):
    code = [c for c in stored.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), (
        f"the stored notebook was not executed top to bottom in one kernel; run {REGENERATE}")
    for c in code:
        kinds = {(o.output_type, o.get("name")) for o in c.outputs}
        assert ("stream", "stderr") not in kinds and all(k[0] != "error" for k in kinds), c.id
        assert c.outputs, f"cell {c.id!r} has no stored output; run {REGENERATE}"
    for c in code:
        new = cell(fresh, c.id)
        assert text(c) == text(new), f"stored outputs of cell {c.id!r} are stale; run {REGENERATE}"
        assert len(pngs(c)) == len(pngs(new)), c.id


if __name__ == "__main__":  # store the notebook executed (outputs, PNGs, execution counts)
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    for c in notebook.cells:
        if c.cell_type == "code":
            c.outputs, c.execution_count = [], None
    notebook = strip_volatile(execute(notebook))
    nbformat.validate(notebook)
    nbformat.write(notebook, NOTEBOOK)
    print(f"stored {NOTEBOOK.relative_to(ROOT)} executed")
