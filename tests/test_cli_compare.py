"""``vecscore compare``: several systems, paired tests with sacreBLEU's numbers; repeated single flags refused."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from vecscore.cli.main import main

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.significance import PairedTest  # noqa: E402  (after the importorskip)

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
REFS, REFS2, HYPS = (EXAMPLES / n for n in ("refs.txt", "refs2.txt", "hyps.txt"))


def _systems(tmp_path):
    base = HYPS.read_text(encoding="utf-8").splitlines()
    other = [line.replace("the", "a") for line in base]
    third = [" ".join(reversed(line.split())) for line in base]
    paths = []
    for name, rows in (("base.txt", base), ("other.txt", other), ("third.txt", third)):
        (tmp_path / name).write_text("\n".join(rows) + "\n", encoding="utf-8")
        paths.append(str(tmp_path / name))
    return paths, {"base": base, "other": other, "third": third}


def _sacrebleu(test, systems, n):
    refs = [p.read_text(encoding="utf-8").splitlines() for p in (REFS, REFS2)]
    metrics = {"BLEU": sacrebleu.metrics.BLEU(references=refs), "chrF2": sacrebleu.metrics.CHRF(references=refs),
               "TER": sacrebleu.metrics.TER(references=refs)}
    named = [(f"Baseline: {k}" if i == 0 else k, v) for i, (k, v) in enumerate(systems.items())]
    return PairedTest(named, metrics, references=None, test_type=test, n_samples=n)()


@pytest.mark.parametrize("test,flag,n", [("bs", "--paired-bs", 200), ("ar", "--paired-ar", 500)])
def test_paired_tests_equal_sacrebleu(tmp_path, capsys, test, flag, n, monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    paths, systems = _systems(tmp_path)
    assert main(["compare", "--refs", str(REFS), "--refs", str(REFS2), "--hyps", *paths, "--metrics", "bleu", "chrf",
                 "ter", flag, f"{flag}-n", str(n), "--format", "json"]) == 0
    ours = json.loads(capsys.readouterr().out)
    _, theirs = _sacrebleu(test, systems, n)
    for metric in ("BLEU", "chrF2", "TER"):
        for i, row in enumerate(ours["systems"]):
            want = theirs[metric][i]
            got = row[metric]
            assert got["score"] == pytest.approx(float(want.score), abs=1e-9)
            for key in ("p_value", "mean", "ci"):
                w = getattr(want, key)
                assert (got[key] is None) == (w is None), (metric, i, key)
                if w is not None:
                    assert got[key] == pytest.approx(float(w), abs=1e-9), (metric, i, key)
    assert ours["signatures"]["BLEU"].startswith("nrefs:2|" + ("bs:200" if test == "bs" else "ar:500") + "|seed:12345")


def test_the_text_table_names_the_baseline(tmp_path, capsys):
    paths, _ = _systems(tmp_path)
    assert main(["compare", "--refs", str(REFS), "--hyps", *paths[:2], "--paired-bs-n", "100"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[2].startswith(f"Baseline: {paths[0]}") and "(p = " in out and "bs:100" in out


def test_bad_comparisons_are_errors(tmp_path, capsys):
    paths, _ = _systems(tmp_path)
    (tmp_path / "short.txt").write_text("one line\n", encoding="utf-8")
    assert main(["compare", "--refs", str(REFS), "--hyps", paths[0]]) == 2
    assert main(["compare", "--refs", str(REFS), "--hyps", paths[0], str(tmp_path / "short.txt")]) == 2
    assert "short.txt has 1 lines" in capsys.readouterr().err


@pytest.mark.parametrize("flags", [["--hyps", "a.txt", "--hyps", "b.txt"], ["-o", "x.json", "--output", "y.json"],
                                   ["--chunk-size", "5", "--chunk-size", "6"]])
def test_a_single_value_flag_given_twice_is_an_error(capsys, flags):
    assert main(["bleu", "--refs", str(REFS), *flags]) == 2
    err = capsys.readouterr().err
    assert "given more than once" in err
    if "--hyps" in flags:
        assert "vecscore compare" in err
