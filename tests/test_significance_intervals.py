"""Single-system intervals as sacreBLEU exposes them, the intervals of the scoring commands, ROUGE in the
paired tests, and the chunked draws -- every expected value from an oracle run here:

* ``BLEU/CHRF/TER.corpus_score(..., n_bootstrap=N)`` against sacreBLEU 2.6's (``_mean``, ``_ci``,
  ``format()``, JSON, signatures), and ``vecscore bleu|chrf|ter --confidence`` against sacreBLEU's own
  command line (``python -m sacrebleu REF... -i HYP -m bleu chrf ter --confidence``, run here);
* ``vecscore rouge --confidence`` against rouge-score's ``BootstrapAggregator`` after
  ``np.random.seed(12345)``; ``vecscore rouge155 --script-options '... -c C -r R'`` against the
  intervals ROUGE-1.5.5.pl prints (when Perl is available);
* paired tests drawn a few resamples at a time equal sacreBLEU's (one draw of the whole matrix);
* ROUGE in the paired tests: rouge-score's per-pair F, resampled with the indices sacreBLEU draws,
  and sacreBLEU's own ``estimate_ci`` and p-value functions.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import data_file

sacrebleu = pytest.importorskip("sacrebleu")
from rouge_score import rouge_scorer, scoring  # noqa: E402
from sacrebleu.metrics import BLEU as SacreBLEU  # noqa: E402
from sacrebleu.metrics import CHRF as SacreCHRF  # noqa: E402
from sacrebleu.metrics import TER as SacreTER  # noqa: E402
from sacrebleu.significance import PairedTest, _compute_p_value  # noqa: E402
from sacrebleu.significance import estimate_ci as sacre_estimate_ci  # noqa: E402

import vecscore  # noqa: E402
from vecscore.cli.main import main  # noqa: E402
from vecscore.errors import VecscoreError  # noqa: E402
from vecscore.significance import RougeMetric, paired_bootstrap, paired_randomization  # noqa: E402
from vecscore.significance import resample as rs  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
REFS, REFS2, HYPS = (EXAMPLES / n for n in ("refs.txt", "refs2.txt", "hyps.txt"))
SYSTEMS = ("Facebook-AI", "Online-W", "UEdin")


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _unversioned(sig: str) -> str:
    return sig.rsplit("|", 1)[0]


@pytest.fixture(scope="module")
def wmt21(shared_data):
    root = shared_data / "wmt21-news-systems" / "en-de"

    def read(*parts, n=200):
        return data_file(root, *parts).read_text(encoding="utf-8").split("\n")[:n]

    refs = [read(f"newstest2021.en-de.ref.{r}.de") for r in "AC"]
    hyps = {s: read("system-outputs", f"newstest2021.en-de.hyp.{s}.de") for s in SYSTEMS}
    return refs, hyps


# --- corpus_score(..., n_bootstrap=N) ------------------------------------------------------------


@pytest.mark.parametrize("name", ["bleu", "chrf", "ter"])
def test_corpus_score_n_bootstrap_equals_sacrebleu(wmt21, name, monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    refs, hyps = wmt21
    n = 150 if name == "ter" else 200
    refs = [r[:n] for r in refs]
    h = hyps["Online-W"][:n]
    sb, vm = {"bleu": (SacreBLEU(), vecscore.BLEU()), "chrf": (SacreCHRF(), vecscore.CHRF()),
              "ter": (SacreTER(), vecscore.TER())}[name]
    want = sb.corpus_score(h, refs, n_bootstrap=300)
    got = vm.corpus_score(h, refs, n_bootstrap=300)
    assert got.score == want.score
    assert got._mean == want._mean and got._ci == want._ci and type(got._mean) is type(want._mean)
    for short in (False, True):  # bs/seed in sacreBLEU's place; the version is the package's own
        assert _unversioned(str(vm.get_signature(short=short))) == _unversioned(sb.get_signature().format(short))
    sig_sb, sig_vm = str(sb.get_signature()), str(vm.get_signature())
    for width in (1, 2):
        assert got.format(width, signature=sig_vm).replace(sig_vm, sig_sb) == want.format(width, signature=sig_sb)
        assert got.format(width, score_only=True) == want.format(width, score_only=True)
        ours = json.loads(got.format(width, signature=sig_vm, is_json=True))
        theirs = json.loads(want.format(width, signature=sig_sb, is_json=True))
        assert list(ours) == list(theirs)
        assert {k: v for k, v in ours.items() if k not in ("signature", "version")} == \
            {k: v for k, v in theirs.items() if k not in ("signature", "version")}
    assert got.signature == sig_vm
    # without n_bootstrap (or with 1) no estimate, as sacreBLEU
    plain = type(vm)().corpus_score(h, refs)
    assert plain._mean == -1.0 and "μ" not in plain.format()


def test_corpus_score_seed_from_environment_and_errors(monkeypatch):
    h, refs = _lines(HYPS), [_lines(REFS)]
    monkeypatch.setenv("SACREBLEU_SEED", "7")
    want, got = SacreBLEU().corpus_score(h, refs, n_bootstrap=100), vecscore.BLEU().corpus_score(h, refs,
                                                                                              n_bootstrap=100)
    assert (got._mean, got._ci) == (want._mean, want._ci) and "seed:7" in got.signature
    for bad in (0, -3, 2.5):
        with pytest.raises(VecscoreError, match="n_bootstrap"):
            vecscore.CHRF().corpus_score(h, refs, n_bootstrap=bad)


# --- the commands' --confidence ------------------------------------------------------------------


def _sacrebleu_cli(*args: str) -> list:
    out = subprocess.run([sys.executable, "-m", "sacrebleu", *args], capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin"})  # no SACREBLEU_SEED: the default seed
    data = json.loads(out.stdout)
    return data if isinstance(data, list) else [data]


def test_commands_confidence_equal_sacrebleu_command_line(capsys, monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    theirs = _sacrebleu_cli(str(REFS), str(REFS2), "-i", str(HYPS), "-m", "bleu", "chrf", "ter", "--confidence",
                            "--confidence-n", "400")
    for command, want in zip(("bleu", "chrf", "ter"), theirs, strict=True):
        assert main([command, "--hyps", str(HYPS), "--refs", str(REFS), "--refs", str(REFS2), "--confidence",
                     "--confidence-n", "400"]) == 0
        ours = json.loads(capsys.readouterr().out)
        assert ours["name"] == want["name"]
        assert float(f"{ours['score']:.1f}") == want["score"]
        # sacreBLEU's command line prints 1 decimal: its text exactly, our unrounded values rounded the same way
        assert ours["confidence"] == want["confidence"]
        assert float(f"{ours['confidence_mean']:.1f}") == want["confidence_mean"]
        assert float(f"{ours['confidence_var']:.1f}") == want["confidence_var"]
        assert _unversioned(ours["signature"]) == _unversioned(want["signature"])


def test_command_confidence_unrounded_values_and_chunks(capsys, monkeypatch, tmp_path):
    """The summary's unrounded mean and half-width are sacreBLEU's ``_mean``/``_ci``, for any chunk size."""
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    h, refs = _lines(HYPS), [_lines(REFS), _lines(REFS2)]
    want = SacreTER().corpus_score(h, refs, n_bootstrap=200)
    for chunk in ("3", "1000"):
        assert main(["ter", "--hyps", str(HYPS), "--refs", str(REFS), "--refs", str(REFS2), "--confidence",
                     "--confidence-n", "200", "--chunk-size", chunk]) == 0
        ours = json.loads(capsys.readouterr().out)
        assert ours["confidence_mean"] == float(want._mean) and ours["confidence_var"] == float(want._ci)
    # per-pair rows with --summary: the summary carries the interval
    summary = tmp_path / "s.json"
    assert main(["bleu", "--hyps", str(HYPS), "--refs", str(REFS), "--confidence", "--per-pair",
                 "--summary", str(summary), "-o", str(tmp_path / "rows.jsonl")]) == 0
    b = SacreBLEU().corpus_score(h, refs[:1], n_bootstrap=1000)
    assert json.loads(summary.read_text())["confidence_mean"] == b._mean


def test_command_confidence_errors(capsys):
    base = ["--hyps", str(HYPS), "--refs", str(REFS)]
    assert main(["bleu", *base, "--confidence", "--per-pair"]) == 2
    assert "--summary" in capsys.readouterr().err
    assert main(["bleu", *base, "--confidence", "--confidence-n", "5", "--confidence-n", "6"]) == 2
    assert "given more than once" in capsys.readouterr().err
    assert main(["bleu", *base, "--confidence", "--confidence-n", "0"]) == 2
    assert main(["rouge", *base, "--confidence", "--seed", "x"]) == 2
    assert "--seed" in capsys.readouterr().err
    assert main(["rouge155", *base, "--confidence-n", "50"]) == 2
    assert "--confidence" in capsys.readouterr().err


def test_rouge_command_confidence_equals_bootstrap_aggregator(capsys):
    hyps, refs = _lines(HYPS), _lines(REFS)
    types = ["rouge1", "rougeL"]
    scorer = rouge_scorer.RougeScorer(types)
    agg = scoring.BootstrapAggregator(confidence_interval=0.95, n_samples=300)
    for h, r in zip(hyps, refs):
        agg.add_scores(scorer.score(r, h))
    np.random.seed(12345)
    want = agg.aggregate()
    assert main(["rouge", "--hyps", str(HYPS), "--refs", str(REFS), "--metrics", *types, "--confidence",
                 "--confidence-n", "300"]) == 0
    ours = json.loads(capsys.readouterr().out)
    for m in types:
        for k in ("low", "mid", "high"):
            assert ours["confidence"][m][k] == getattr(want[m], k)._asdict(), (m, k)
    assert ours["confidence_signature"].endswith("|ci:rouge-score|bs:300|conf:0.95|seed:12345")


def test_rouge155_command_prints_the_scripts_intervals(perl_rouge, tmp_path, capsys):
    from tests.test_significance_rouge import _printed

    rng = np.random.default_rng(3)
    words = np.array("the cat sat on a mat dog barked police gunman ran and".split())

    def text():
        return " ".join(words[rng.integers(0, len(words), rng.integers(1, 10))])

    hyps = [text() for _ in range(17)]
    refs = [text() for _ in range(17)]
    (tmp_path / "h.txt").write_text("\n".join(hyps) + "\n")
    (tmp_path / "r.txt").write_text("\n".join(refs) + "\n")
    flags = ["-n", "2", "-c", "90", "-r", "50"]
    want = _printed(perl_rouge.run(hyps, [[r] for r in refs], flags, workdir=tmp_path / "run"))
    assert main(["rouge155", "--hyps", str(tmp_path / "h.txt"), "--refs", str(tmp_path / "r.txt"),
                 "--script-options", " ".join(flags)]) == 0
    ours = json.loads(capsys.readouterr().out)
    names = {"rouge1": "ROUGE-1", "rouge2": "ROUGE-2", "rougeL": "ROUGE-L"}
    for m, script_name in names.items():
        iv = ours["confidence"][m]
        got = {f: (iv["average"][f], iv["low"][f], iv["high"][f]) for f in ("recall", "precision", "fmeasure")}
        assert got == want[("1", script_name)], m
    assert ours["confidence_signature"].endswith("|ci:rouge155|r:50|c:90|t:0")


# --- chunked draws ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["bleu", "ter"])
def test_chunked_draws_equal_sacrebleu(wmt21, name, monkeypatch):
    """A few resamples (and 32 AR trials) at a time give sacreBLEU's numbers (it draws the whole matrix)."""
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    refs, hyps = wmt21
    n = 100 if name == "bleu" else 40  # sacreBLEU's TER is the slow part
    monkeypatch.setattr(rs, "CHUNK_ELEMENTS", 3 * n + 7)
    refs = [r[:n] for r in refs]
    named = [(s, hyps[s][:n]) for s in SYSTEMS]
    sb = SacreBLEU() if name == "bleu" else SacreTER()
    vm = vecscore.BLEU() if name == "bleu" else vecscore.TER()
    for test, kw in (("bs", {}), ("ar", {"n_ar_confidence": 40})):
        _, res = PairedTest(named, {name: sb}, refs, test_type=test, n_samples=150 if test == "bs" else 100, **kw)()
        key = next(k for k in res if k != "System")
        if test == "bs":
            got = paired_bootstrap(vm, named[0][1], named[1:], refs, n_samples=150)
        else:
            got = paired_randomization(vm, named[0][1], named[1:], refs, n_samples=100, confidence_samples=40)
        assert [(r.score, r.p_value, r.mean, r.ci) for r in got.results[key]] == \
            [(r.score, r.p_value, r.mean, r.ci) for r in res[key]], test


# --- ROUGE in the paired tests ------------------------------------------------------------------


def _rouge_f(hyps, refs, metric, stem=False):
    scorer = rouge_scorer.RougeScorer([metric], use_stemmer=stem)
    return np.array([scorer.score(r, h)[metric].fmeasure for h, r in zip(hyps, refs)])


def test_rouge_paired_bootstrap_and_randomization(wmt21, monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    refs, hyps = wmt21
    n = 120
    f = {s: _rouge_f(hyps[s][:n], refs[0][:n], "rougeL", stem=True) for s in SYSTEMS}
    base, others = SYSTEMS[0], SYSTEMS[1:]
    metric = RougeMetric("rougeL", stemmer=True)
    got = paired_bootstrap([metric, "bleu"], hyps[base][:n], {s: hyps[s][:n] for s in others}, [refs[0][:n]],
                           n_samples=200)
    idxs = np.random.default_rng(12345).choice(n, size=(200, n), replace=True)  # sacreBLEU's draw

    def boot(x):
        return np.array([x[row].mean() for row in idxs])

    rows = got.results["rougeL"]
    mean, ci = sacre_estimate_ci(boot(f[base]))
    assert rows[0].score == pytest.approx(f[base].mean(), abs=1e-15)
    assert (rows[0].mean, rows[0].ci) == pytest.approx((mean, ci), abs=1e-12)
    for s, row in zip(others, rows[1:]):
        sm, sci = sacre_estimate_ci(boot(f[s]))
        diffs = np.abs(boot(f[s]) - boot(f[base]))
        p = _compute_p_value(diffs - diffs.mean(), abs(f[base].mean() - f[s].mean()))
        assert row.score == pytest.approx(f[s].mean(), abs=1e-15)
        assert (row.mean, row.ci) == pytest.approx((sm, sci), abs=1e-12) and row.p_value == p
    assert "bs:200|seed:12345" in got.signature("rougeL") and got.signature("rougeL").startswith("rougeL|")
    assert "BLEU" in got.results

    ar = paired_randomization("rouge1", hyps[base][:n], {s: hyps[s][:n] for s in others}, [refs[0][:n]],
                              n_samples=300)
    f1 = {s: _rouge_f(hyps[s][:n], refs[0][:n], "rouge1") for s in SYSTEMS}
    masks = np.random.default_rng(12345).integers(2, size=(300, n), dtype=bool)  # sacreBLEU's draw
    for s, row in zip(others, ar.results["rouge1"][1:]):
        a = np.where(masks, f1[base], f1[s]).mean(axis=1)
        b = np.where(masks, f1[s], f1[base]).mean(axis=1)
        assert row.p_value == _compute_p_value(np.abs(a - b), abs(f1[base].mean() - f1[s].mean()))


def test_compare_command_with_rouge(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    base = _lines(HYPS)
    other = [line.replace("the", "a") for line in base]
    (tmp_path / "other.txt").write_text("\n".join(other) + "\n", encoding="utf-8")
    argv = ["compare", "--refs", str(REFS), "--hyps", str(HYPS), str(tmp_path / "other.txt"), "--metrics", "bleu",
            "rougeL", "--paired-bs-n", "100"]
    assert main([*argv, "--format", "json"]) == 0
    ours = json.loads(capsys.readouterr().out)
    want = paired_bootstrap(["bleu", "rougeL"], base, {"o": other}, [_lines(REFS)], n_samples=100)
    assert [r["rougeL"] for r in ours["systems"]] == [r.as_dict() for r in want.results["rougeL"]]
    assert ours["systems"][0]["rougeL"]["score"] == pytest.approx(_rouge_f(base, _lines(REFS), "rougeL").mean(),
                                                                  abs=1e-15)
    assert main(argv) == 0
    table = capsys.readouterr().out
    assert "rougeL" in table and f"{want.results['rougeL'][1].score:.4f}" in table
    assert main([*argv[:-5], "--metrics", "rougeQ"]) == 2
    assert "unknown metric" in capsys.readouterr().err
    assert main([*argv, "--metrics", "ter"]) == 2
    assert "given more than once" in capsys.readouterr().err


# --- BLEU of many rows: the compiled loop -------------------------------------------------------


@pytest.mark.parametrize("smooth", ["exp", "floor", "add-k", "none"])
@pytest.mark.parametrize("effective_order", [False, True])
def test_bleu_rows_kernel_equals_sacrebleu_formula(smooth, effective_order, monkeypatch):
    from vecscore.significance import scores as rows
    from vecscore.significance._metric import adapt

    monkeypatch.setattr(rows, "KERNEL_MIN_ROWS", 0)
    rng = np.random.default_rng(7)
    n = 3000
    total = np.sort(rng.integers(0, 40, size=(n, 4)), axis=1)[:, ::-1]
    correct = (total * rng.random((n, 4)) * rng.integers(0, 2, size=(n, 4))).astype(np.int64)
    correct[:30] = 0
    sys_len = total[:, 0]
    ref_len = np.maximum(0, sys_len + rng.integers(-8, 8, n))
    sums = np.column_stack([sys_len, ref_len, correct, total])
    sb = SacreBLEU(smooth_method=smooth, effective_order=effective_order)
    a = adapt(vecscore.BLEU(smooth_method=smooth, effective_order=effective_order))
    for dtype in (np.float32, np.int64):  # bootstrap rows, AR rows
        s = sums.astype(dtype)
        want = np.array([sb._compute_score_from_stats(row).score for row in s.copy()])
        got = a.rows(s)
        assert want.dtype == got.dtype and np.array_equal(want, got), (dtype, np.flatnonzero(want != got)[:5])
