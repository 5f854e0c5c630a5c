"""``vecscore chrf``: sacreBLEU's chrF from the command line, options named as sacreBLEU's, in chunks."""
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


# sacreBLEU's CLI flags -> sacrebleu.metrics.CHRF's arguments
_OPTIONS = [
    ([], {}),
    (["--chrf-word-order", "2"], {"word_order": 2}),
    (["--chrf-char-order", "4", "--chrf-beta", "3"], {"char_order": 4, "beta": 3}),
    (["--chrf-lowercase", "--chrf-whitespace"], {"lowercase": True, "whitespace": True}),
    (["--chrf-eps-smoothing", "--chrf-word-order", "2"], {"eps_smoothing": True, "word_order": 2}),
]


@pytest.mark.parametrize("flags,kwargs", _OPTIONS)
@pytest.mark.parametrize("chunk", ["50000", "3"])
def test_corpus_chrf_equals_sacrebleu(capsys, flags, kwargs, chunk):
    assert main(["chrf", "--hyps", HYPS, "--refs", REFS, "--refs", REFS2, "--chunk-size", chunk, *flags]) == 0
    out = json.loads(capsys.readouterr().out)
    metric = sacrebleu.metrics.CHRF(**kwargs)
    want = metric.corpus_score(_lines(HYPS), [_lines(REFS), _lines(REFS2)])
    assert out["score"] == pytest.approx(want.score, abs=1e-9)
    assert out["name"] == want.name
    theirs = str(metric.get_signature())
    assert out["signature"].rsplit("|version:", 1)[0] == theirs.rsplit("|version:", 1)[0]
    assert out["n_pairs"] == 8


def test_per_pair_rows_are_sacrebleus_sentence_chrf(capsys):
    assert main(["chrf", "--hyps", HYPS, "--refs", REFS, "--refs", REFS2, "--per-pair", "--chrf-word-order", "2",
                 "--chunk-size", "3"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    metric = sacrebleu.metrics.CHRF(word_order=2)
    assert [r["pair"] for r in rows] == list(range(8))
    for row, h, r1, r2 in zip(rows, _lines(HYPS), _lines(REFS), _lines(REFS2)):
        assert row["chrf_score"] == pytest.approx(metric.sentence_score(h, [r1, r2]).score, abs=1e-9)
