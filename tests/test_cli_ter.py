"""``vecscore ter``: sacreBLEU's TER from the command line, options named as sacreBLEU's, in chunks."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from vecscore.cli.main import main

sacrebleu = pytest.importorskip("sacrebleu")
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
HYPS, REFS, REFS2 = (str(EXAMPLES / n) for n in ("hyps.txt", "refs.txt", "refs2.txt"))


def _lines(path):
    return Path(path).read_text(encoding="utf-8").splitlines()


# sacreBLEU's CLI flags -> sacrebleu.metrics.TER's arguments
_OPTIONS = [
    ([], {}),
    (["--ter-normalized"], {"normalized": True}),
    (["--ter-no-punct", "--ter-case-sensitive"], {"no_punct": True, "case_sensitive": True}),
    (["--ter-normalized", "--ter-asian-support"], {"normalized": True, "asian_support": True}),
]


@pytest.mark.parametrize("flags,kwargs", _OPTIONS)
@pytest.mark.parametrize("chunk", ["50000", "3"])
def test_corpus_ter_equals_sacrebleu(capsys, flags, kwargs, chunk):
    assert main(["ter", "--hyps", HYPS, "--refs", REFS, "--refs", REFS2, "--chunk-size", chunk, *flags]) == 0
    out = json.loads(capsys.readouterr().out)
    metric = sacrebleu.metrics.TER(**kwargs)
    want = metric.corpus_score(_lines(HYPS), [_lines(REFS), _lines(REFS2)])
    assert out["score"] == pytest.approx(want.score, abs=1e-9)
    assert out["num_edits"] == want.num_edits and out["ref_length"] == pytest.approx(want.ref_length, abs=1e-9)
    theirs = str(metric.get_signature())
    assert out["signature"].rsplit("|version:", 1)[0] == theirs.rsplit("|version:", 1)[0]


def test_per_pair_rows_are_sacrebleus_sentence_ter(capsys):
    assert main(["ter", "--hyps", HYPS, "--refs", REFS, "--refs", REFS2, "--per-pair", "--chunk-size", "3"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    metric = sacrebleu.metrics.TER()
    assert [r["pair"] for r in rows] == list(range(8))
    for row, h, r1, r2 in zip(rows, _lines(HYPS), _lines(REFS), _lines(REFS2)):
        assert row["ter_score"] == pytest.approx(metric.sentence_score(h, [r1, r2]).score, abs=1e-9)
