"""Run the recipes of docs/recipes.md as a user would: the fenced block verbatim, in a fresh Python process.

The block runs in a folder holding ``pairs/`` (one small Parquet file; the block's paths may be made absolute),
and a few test lines appended after it save what the recipe computed (pickled) for the test to compare with the
oracles.  A recipe that hangs is killed with its whole process group after ``timeout`` seconds and the test
fails, instead of waiting for ever.
"""
from __future__ import annotations

import os
import pickle
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np

DOC = Path(__file__).resolve().parents[1] / "docs" / "recipes.md"
WORDS = "the a cat dog sat on mat rug and with big small red . , ran home".split()
RESULT = "recipe_result.pkl"


def recipe(heading: str, paths: dict[str, Path] | None = None) -> str:
    """The python block under the ``## heading`` of docs/recipes.md, verbatim but for ``paths``.

    ``paths`` maps a path the block names as a string literal (``"pairs/"``) to the one to use instead: an
    absolute path, since a Ray cluster's workers do not share the driver's folder.
    """
    text = DOC.read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1, f"docs/recipes.md, section {heading!r}: expected one python block, found {len(blocks)}"
    code = blocks[0]
    for name, path in (paths or {}).items():
        literal = f'"{name}"'
        assert code.count(literal) == 1, f"docs/recipes.md, section {heading!r}: {literal} should appear once"
        code = code.replace(literal, repr(str(path)))
    return code


def write_pairs(folder: Path, n: int = 240, seed: int = 9) -> tuple[list[str], list[str]]:
    """``folder/pairs/part-0.parquet`` with columns id, hyp, ref; returns the hyps and refs."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)

    def text():
        return " ".join(rng.choice(WORDS, size=rng.integers(1, 14)))

    hyps, refs = [text() for _ in range(n)], [text() for _ in range(n)]
    (folder / "pairs").mkdir()
    pq.write_table(pa.table({"id": np.arange(n), "hyp": hyps, "ref": refs}), folder / "pairs" / "part-0.parquet")
    return hyps, refs


def run_recipe(code: str, folder: Path, save: dict[str, str], *, timeout: float, env: dict | None = None) -> dict:
    """Run ``code`` in ``folder`` in a new process; return ``{name: eval(expression)}`` for ``save``'s items."""
    epilogue = "\nimport pickle as _p\nwith open(%r, 'wb') as _f:\n    _p.dump({%s}, _f)\n" % (
        RESULT, ", ".join(f"{k!r}: {v}" for k, v in save.items()))
    script = folder / "recipe.py"
    script.write_text(code + epilogue, encoding="utf-8")
    # a deprecated call in the recipe itself (a warning attributed to its own lines) fails the test
    child_env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "SPARK_LOCAL_IP": "127.0.0.1",
                 "PYTHONWARNINGS": "error::DeprecationWarning:__main__,error::FutureWarning:__main__", **(env or {})}
    proc = subprocess.Popen([sys.executable, str(script)], cwd=folder, env=child_env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the recipe's own process group: its Ray/Spark/JVM children too
        out, _ = proc.communicate()
        raise AssertionError(f"the recipe did not finish in {timeout:g} s; its output:\n"
                             + out.decode(errors="replace")[-4000:]) from None
    text = out.decode(errors="replace")
    assert proc.returncode == 0, f"the recipe failed (exit {proc.returncode}):\n{text[-4000:]}"
    with open(folder / RESULT, "rb") as f:
        result = pickle.load(f)
    result["stdout"] = text
    return result


def oracle(hyps: list[str], refs: list[str]) -> dict:
    """Per-pair rouge-score F/P/R (rouge1, rougeL) and sacreBLEU sentence BLEU; sacreBLEU corpus BLEU."""
    import sacrebleu
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"])
    scores = [scorer.score(r, h) for h, r in zip(hyps, refs)]  # rouge-score takes (target, prediction)
    out = {f"{m}_{k}": np.array([getattr(s[m], k) for s in scores])
           for m in ("rouge1", "rougeL") for k in ("precision", "recall", "fmeasure")}
    out["bleu_score"] = np.array([sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps, refs)])
    out["corpus_bleu"] = sacrebleu.corpus_bleu(hyps, [refs]).score
    return out


def check_rows(frame, expected: dict, columns: list[str]) -> None:
    """``frame`` (any row order, an ``id`` column) against the oracle's per-pair values."""
    got = frame.sort_values("id").reset_index(drop=True)
    assert got["id"].tolist() == list(range(len(expected[columns[0]]))), "rows lost, duplicated or renumbered"
    for c in columns:
        tol = 1e-9 if c.startswith("bleu") else 1e-12
        np.testing.assert_allclose(got[c].to_numpy(), expected[c], rtol=0, atol=tol, err_msg=c)
