"""``vecscore coco`` (and coco metrics in ``vecscore compare``): text files and coco's JSON, against pycocoevalcap's
scorers and nlg-eval's published values; errors in the user's terms; no partial output."""
from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pytest

from tests.conftest import data_file, e2e_nlg
from vecscore.cli.main import main

oracle_bleu = pytest.importorskip("pycocoevalcap.bleu.bleu")
oracle_rouge = pytest.importorskip("pycocoevalcap.rouge.rouge")
oracle_cider = pytest.importorskip("pycocoevalcap.cider.cider")

N_ITEMS = 60
METRICS = ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr"]  # METEOR: pycocoevalcap's data


def _oracle(gts: dict, res: dict) -> tuple[dict, dict]:
    """pycocoevalcap's corpus values and per-image values (COCOEvalCap's eval and imgToEval)."""
    bleu, bleu_items = oracle_bleu.Bleu(4).compute_score(gts, res, verbose=0)
    rouge, rouge_items = oracle_rouge.Rouge().compute_score(gts, res)
    cider, cider_items = oracle_cider.Cider().compute_score(gts, res)
    scores = {f"Bleu_{k + 1}": bleu[k] for k in range(4)}
    scores.update(ROUGE_L=float(rouge), CIDEr=float(cider))
    per = {f"Bleu_{k + 1}": list(bleu_items[k]) for k in range(4)}
    per.update(ROUGE_L=list(rouge_items), CIDEr=list(cider_items))
    return scores, per


def _close(got: dict, want: dict) -> None:
    for m, w in want.items():
        tol = 1e-12 if m == "CIDEr" else 0.0  # BLEU and ROUGE-L bit for bit
        assert got[m] == pytest.approx(w, abs=tol, rel=0), m


def _run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def e2e(shared_data):
    refs, systems = e2e_nlg(shared_data)
    refs, hyps, other = refs[:N_ITEMS], systems["tgen"][:N_ITEMS], systems["sheff1"][:N_ITEMS]
    return refs, hyps, other


def _text_files(tmp_path, refs, hyps, name="hyp.txt"):
    """Reference files as the command takes them: file k holds each item's k-th reference, an empty line where an
    item has fewer (the E2E items have 1 to 8 references here)."""
    width = max(len(r) for r in refs)
    paths = []
    for k in range(width):
        p = tmp_path / f"ref{k + 1}.txt"
        p.write_text("".join(f"{r[k] if k < len(r) else ''}\n" for r in refs), encoding="utf-8")
        paths.append(str(p))
    h = tmp_path / name
    h.write_text("".join(f"{x}\n" for x in hyps), encoding="utf-8")
    return str(h), paths


def test_nlg_eval_published_values(shared_data, capsys):
    root = data_file(shared_data, "nlg-eval-examples")
    published = json.loads((root / "expected_scores.json").read_text(encoding="utf-8"))["corpus_files"]["scores"]
    code, out, _ = _run(["coco", "--hyps", str(root / "hyp.txt"), "-r", str(root / "ref1.txt"),
                         str(root / "ref2.txt"), "--no-tokenize", "--format", "json"], capsys)
    assert code == 0
    got = json.loads(out)
    assert list(got) == METRICS  # coco's metric dictionary, nothing else
    for m in METRICS:
        assert got[m] == pytest.approx(published[m], abs=5e-6), m
    hyps = (root / "hyp.txt").read_text(encoding="utf-8").splitlines()
    refs = list(zip(*((root / f).read_text(encoding="utf-8").splitlines() for f in ("ref1.txt", "ref2.txt"))))
    want, _ = _oracle({i: [x.strip() for x in r] for i, r in enumerate(refs)}, {i: [h.strip()] for i, h in
                                                                               enumerate(hyps)})
    _close(got, want)


def test_e2e_text_files_with_missing_references(tmp_path, capsys, e2e):
    refs, hyps, _ = e2e
    hyp, ref_paths = _text_files(tmp_path, refs, hyps)
    assert len(ref_paths) > 2 and "\n\n" in open(ref_paths[-1], encoding="utf-8").read()
    code, out, _ = _run(["coco", "--hyps", hyp, "-r", *ref_paths, "--no-tokenize", "--format", "json"], capsys)
    assert code == 0
    gts, res = {i: r for i, r in enumerate(refs)}, {i: [h] for i, h in enumerate(hyps)}
    want, per = _oracle(gts, res)
    _close(json.loads(out), want)
    # per item: coco's per-image values, one JSON line per item
    out_path = tmp_path / "items.jsonl"
    assert main(["coco", "--hyps", hyp, "-r", *ref_paths[:1], "--refs", *ref_paths[1:], "--no-tokenize",
                 "--per-item", "-o", str(out_path)]) == 0
    rows = [json.loads(line) for line in out_path.read_text(encoding="utf-8").splitlines()]
    assert [r["pair"] for r in rows] == list(range(N_ITEMS)) and list(rows[0])[1:] == METRICS
    for m in per:
        np.testing.assert_allclose([r[m] for r in rows], per[m], rtol=0, atol=1e-12 if m == "CIDEr" else 0, err_msg=m)
    # TSV rows, only the metrics asked for (any spelling)
    code, out, _ = _run(["coco", "--hyps", hyp, "-r", *ref_paths, "--no-tokenize", "--per-item", "--format", "tsv",
                         "--metrics", "cider", "bleu_4"], capsys)
    lines = out.splitlines()
    assert code == 0 and lines[0] == "pair\tCIDEr\tBleu_4" and len(lines) == N_ITEMS + 1
    assert float(lines[1].split("\t")[2]) == per["Bleu_4"][0]


def test_tokenized_by_default_as_coco_caption(tmp_path, capsys, e2e):
    """Text files are PTB-tokenized as coco-caption does: expected values from pycocoevalcap's PTBTokenizer (the
    Java jar) and its scorers."""
    import shutil

    if shutil.which("java") is None:
        pytest.skip("java is not installed: pycocoevalcap's PTBTokenizer runs the CoreNLP jar")
    jar = pytest.importorskip("pycocoevalcap.tokenizer.ptbtokenizer")
    refs, hyps, _ = e2e
    hyp, ref_paths = _text_files(tmp_path, refs[:20], hyps[:20])
    code, out, _ = _run(["coco", "--hyps", hyp, "-r", *ref_paths, "--format", "json"], capsys)
    assert code == 0
    gts = jar.PTBTokenizer().tokenize({i: [{"caption": c} for c in r] for i, r in enumerate(refs[:20])})
    res = jar.PTBTokenizer().tokenize({i: [{"caption": h}] for i, h in enumerate(hyps[:20])})
    want, _ = _oracle(gts, res)
    _close(json.loads(out), want)
    code, text, _ = _run(["coco", "--hyps", hyp, "-r", *ref_paths], capsys)  # the table
    assert code == 0 and text.splitlines()[0] == f"Bleu_1   {want['Bleu_1']:.4f}" and "tok:ptb" in text


def _coco_json(tmp_path, refs, hyps, *, drop=(), shuffle=True):
    """An annotation file (images in one order, annotations in another, one image without results) and a results
    file in a third order; image ids are not positions."""
    ids = [1000 + 7 * i for i in range(len(refs))]
    images = [{"id": i, "file_name": f"{i}.jpg"} for i in ids]
    pairs = [(i, c) for i, rs in zip(ids, refs) for c in rs]
    anns = [{"image_id": i, "id": n, "caption": c} for n, (i, c) in enumerate(pairs)]
    rnd = random.Random(3)
    if shuffle:
        rnd.shuffle(images)
        rnd.shuffle(anns)
    results = [{"image_id": i, "caption": h} for i, h in zip(ids, hyps) if i not in drop]
    rnd.shuffle(results)
    a, r = tmp_path / "captions_val.json", tmp_path / "results.json"
    a.write_text(json.dumps({"info": {}, "images": images, "annotations": anns}), encoding="utf-8")
    r.write_text(json.dumps(results), encoding="utf-8")
    return str(a), str(r), ids, images, anns, results


def test_coco_json_scores_exactly_the_result_images(tmp_path, capsys, e2e):
    refs, hyps, _ = e2e
    dropped = {1000 + 7 * 3, 1000 + 7 * 10}
    a, r, ids, images, anns, results = _coco_json(tmp_path, refs, hyps, drop=dropped)
    code, out, _ = _run(["coco", "--annotations", a, "--results", r, "--no-tokenize", "--format", "json"], capsys)
    assert code == 0
    # the oracle's dictionaries as COCOEvalCap builds them: images of the results, in the annotation file's order
    scored = [img["id"] for img in images if img["id"] not in dropped]
    gts = {i: [x["caption"] for x in anns if x["image_id"] == i] for i in scored}
    res = {i: [x["caption"] for x in results if x["image_id"] == i] for i in scored}
    want, per = _oracle(gts, res)
    _close(json.loads(out), want)
    code, out, _ = _run(["coco", "--annotations", a, "--results", r, "--no-tokenize", "--per-item"], capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    assert [row["image_id"] for row in rows] == scored
    assert [row["ROUGE_L"] for row in rows] == per["ROUGE_L"]


def test_confidence_in_the_summary(tmp_path, capsys, e2e):
    from vecscore.significance import CocoMetric, confidence_interval

    refs, hyps, _ = e2e
    hyp, ref_paths = _text_files(tmp_path, refs, hyps)
    argv = ["coco", "--hyps", hyp, "-r", *ref_paths, "--no-tokenize", "--format", "json", "--confidence",
            "--confidence-n", "50", "--seed", "4", "--metrics", "Bleu_4", "CIDEr"]
    code, out, _ = _run(argv, capsys)
    assert code == 0
    got = json.loads(out)
    assert got["confidence_signature"].startswith(f"coco|items:{N_ITEMS}|tok:none|bs:50|seed:4|")
    for m in ("Bleu_4", "CIDEr"):
        ci = confidence_interval(CocoMetric(m, tokenize=False), hyps, refs, n_bootstrap=50, seed=4)
        assert got[m] == ci.score
        assert got["confidence"][m] == {"mean": ci.mean, "ci": ci.ci, "low": ci.low, "high": ci.high}
    assert _run(argv, capsys)[1] == out  # seeded: the same numbers every run
    code, text, _ = _run(["coco", "--hyps", hyp, "-r", *ref_paths, "--no-tokenize", "--confidence"], capsys)
    assert code == 0 and "(μ = " in text.splitlines()[0] and "bs:1000|seed:12345" in text
    # per-item rows write no dictionary: the intervals need --summary
    summary = tmp_path / "summary.json"
    code, _, err = _run(["coco", "--hyps", hyp, "-r", *ref_paths, "--per-item", "--confidence", "--no-tokenize"],
                        capsys)
    assert code == 2 and "--summary" in err
    assert main(["coco", "--hyps", hyp, "-r", *ref_paths, "--per-item", "--confidence", "--confidence-n", "20",
                 "--no-tokenize", "--summary", str(summary), "-o", str(tmp_path / "rows.tsv")]) == 0
    assert "confidence" in json.loads(summary.read_text()) and (tmp_path / "rows.tsv").read_text().startswith("pair\t")


def test_compare_takes_coco_metrics(tmp_path, capsys, e2e):
    refs, hyps, other = e2e
    base, ref_paths = _text_files(tmp_path, refs, hyps, "base.txt")
    sys_path = tmp_path / "sheff1.txt"
    sys_path.write_text("".join(f"{x}\n" for x in other), encoding="utf-8")
    argv = ["compare", "--hyps", base, str(sys_path), "--metrics", "Bleu_4", "CIDEr", "ROUGE_L", "--coco-no-tokenize",
            "--paired-bs-n", "40"]
    for path in ref_paths:
        argv += ["--refs", path]
    code, out, _ = _run(argv + ["--format", "json"], capsys)
    assert code == 0
    got = json.loads(out)
    for i, path in enumerate((base, str(sys_path))):
        code, single, _ = _run(["coco", "--hyps", path, "-r", *ref_paths, "--no-tokenize", "--format", "json"], capsys)
        want = json.loads(single)
        for m in ("Bleu_4", "CIDEr", "ROUGE_L"):
            assert got["systems"][i][m]["score"] == want[m], (path, m)
    assert got["systems"][1]["CIDEr"]["p_value"] is not None
    assert got["signatures"]["CIDEr"].startswith("CIDEr|tok:none|df:refs|sigma:6|bs:40|seed:12345")
    code, table, _ = _run(argv, capsys)
    assert code == 0 and "Bleu_4" in table.splitlines()[0] and "(p = " in table


@pytest.mark.parametrize("case,needle", [
    ("missing-image", "image 99 is not in"),
    ("duplicate", "image 1 has two results (entries 0 and 2)"),
    ("bad-json", "line 1 column"),
    ("not-a-list", "expected a JSON list"),
    ("no-caption", "entry 1 has no 'caption'"),
    ("number-caption", "the caption is int"),
])
def test_json_errors_name_the_image_and_write_nothing(tmp_path, capsys, case, needle):
    ann = {"images": [{"id": 1}, {"id": 2}],
           "annotations": [{"image_id": 1, "caption": "a dog"}, {"image_id": 2, "caption": "a cat"}]}
    results: object = [{"image_id": 1, "caption": "a dog"}, {"image_id": 2, "caption": "cat"}]
    if case == "missing-image":
        results = [{"image_id": 1, "caption": "x"}, {"image_id": 99, "caption": "y"}]
    elif case == "duplicate":
        results = [{"image_id": 1, "caption": "x"}, {"image_id": 2, "caption": "y"}, {"image_id": 1, "caption": "z"}]
    elif case == "not-a-list":
        results = {"image_id": 1, "caption": "x"}
    elif case == "no-caption":
        results = [{"image_id": 1, "caption": "x"}, {"image_id": 2}]
    elif case == "number-caption":
        results = [{"image_id": 1, "caption": 5}]
    (tmp_path / "a.json").write_text(json.dumps(ann))
    (tmp_path / "r.json").write_text("[{" if case == "bad-json" else json.dumps(results))
    out = tmp_path / "out.json"
    code, _, err = _run(["coco", "--annotations", str(tmp_path / "a.json"), "--results", str(tmp_path / "r.json"),
                         "--no-tokenize", "-o", str(out)], capsys)
    assert code == 2 and err.startswith("vecscore: error: ") and needle in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "r.json"]  # no output, no temporary file


def test_text_errors_name_the_file_and_line(tmp_path, capsys):
    (tmp_path / "h.txt").write_text("a dog\na cat\nbirds\n")
    (tmp_path / "r1.txt").write_text("a dog runs\n\nbirds fly\n")
    (tmp_path / "r2.txt").write_text("dog\n\n\n")
    (tmp_path / "short.txt").write_text("dog\n")
    (tmp_path / "empty.txt").write_text("")
    h, r1, r2 = (str(tmp_path / n) for n in ("h.txt", "r1.txt", "r2.txt"))
    out = str(tmp_path / "o.json")
    cases = [
        (["--hyps", h, "-r", r1, r2], "line 2: no reference for this caption"),
        (["--hyps", h, "-r", str(tmp_path / "short.txt")], "short.txt has 1 lines but"),
        (["--hyps", str(tmp_path / "empty.txt"), "-r", r1], "empty.txt has no lines"),
        (["--hyps", h, "-r", str(tmp_path / "nope.txt")], "cannot read"),
        (["--hyps", h], "needs both --hyps FILE and -r"),
        (["--hyps", h, "-r", r1, "--results", r1], "not both"),
        ([], "no input"),
        (["--hyps", h, "-r", r1, "--metrics", "SPICE"], "--metrics SPICE: unknown metric"),
        (["--hyps", h, "-r", r1, "--per-item", "--format", "json"], "--per-item writes one row per item"),
        (["--hyps", h, "-r", r1, "--confidence-n", "5"], "--confidence-n goes with --confidence"),
        (["--hyps", h, "-r", r1, "--seed", "x", "--confidence"], "--seed must be"),
    ]
    for flags, needle in cases:
        code, _, err = _run(["coco", *flags, "--no-tokenize", "-o", out], capsys)
        assert code == 2 and needle in err, (flags, err)
    assert not (tmp_path / "o.json").exists()
    assert main(["coco", "--hyps", h, "--hyps", h, "-r", r1]) == 2  # a single-value flag given twice
    assert "given more than once" in capsys.readouterr().err
    # two references for line 1, one from each file for lines 2 and 3
    (tmp_path / "r2.txt").write_text("dog\nkitten\n\n")
    code, out_text, _ = _run(["coco", "--hyps", h, "-r", r1, r2, "--no-tokenize", "--format", "json"], capsys)
    want, _ = _oracle({0: ["a dog runs", "dog"], 1: ["kitten"], 2: ["birds fly"]},
                      {0: ["a dog"], 1: ["a cat"], 2: ["birds"]})
    assert code == 0
    _close(json.loads(out_text), want)


def test_no_numba_and_fresh_process(tmp_path, shared_data):
    root = data_file(shared_data, "nlg-eval-examples")
    out = tmp_path / "o.json"
    code = ("import sys\nfrom vecscore.cli.main import main\n"
            f"rc = main(['coco', '--hyps', {str(root / 'hyp.txt')!r}, '-r', {str(root / 'ref1.txt')!r}, "
            f"{str(root / 'ref2.txt')!r}, '--confidence', '--confidence-n', '30', '-o', {str(out)!r}])\n"
            "print(rc, 'numba' in sys.modules)\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.split() == ["0", "False"], res.stderr
    assert set(json.loads(out.read_text())) >= set(METRICS) | {"confidence"}


def test_coco_json_equals_cocoevalcap_with_the_java_tokenizer(e2e, tmp_path, capsys):
    """The whole of coco-caption's evaluation, as its users run it: pycocotools' COCO and loadRes on an annotation
    file (images, annotations shuffled) and a results file for some of the images, COCOEvalCap's image ids
    (cocoRes.getImgIds()), its PTBTokenizer (the Java jar) and its scorers; against `vecscore coco --annotations
    --results`, tokenizing in Python."""
    import contextlib
    import io
    import shutil

    if shutil.which("java") is None:
        pytest.skip("java is not installed: pycocoevalcap's PTBTokenizer runs the CoreNLP jar")
    coco_api = pytest.importorskip("pycocotools.coco")
    jar = pytest.importorskip("pycocoevalcap.tokenizer.ptbtokenizer")
    refs, hyps, _ = e2e
    rng = random.Random(3)
    order = list(range(len(refs)))
    rng.shuffle(order)
    anns = [{"image_id": 1000 + i, "id": len(refs) * j + i, "caption": c} for i in order for j, c in enumerate(refs[i])]
    rng.shuffle(anns)
    ann_path, res_path = tmp_path / "ann.json", tmp_path / "res.json"
    ann_path.write_text(json.dumps({"images": [{"id": 1000 + i} for i in order], "annotations": anns}), "utf-8")
    scored = [i for i in order if i % 5]
    res_path.write_text(json.dumps([{"image_id": 1000 + i, "caption": hyps[i]} for i in scored]), "utf-8")
    with contextlib.redirect_stdout(io.StringIO()):
        coco = coco_api.COCO(str(ann_path))
        coco_res = coco.loadRes(str(res_path))
        ids = coco_res.getImgIds()
        gts = jar.PTBTokenizer().tokenize({i: coco.imgToAnns[i] for i in ids})
        res = jar.PTBTokenizer().tokenize({i: coco_res.imgToAnns[i] for i in ids})
    want, _ = _oracle(gts, res)
    code, out, err = _run(["coco", "--annotations", str(ann_path), "--results", str(res_path), "--format", "json"],
                          capsys)
    assert code == 0, err
    _close(json.loads(out), want)


def test_meteor_equals_pycocoevalcap_and_its_bootstrap(tmp_path, capsys, e2e):
    """METEOR in the table, the per-item rows and the bootstrap: pycocoevalcap's Meteor (meteor-1.5.jar) on the same
    captions; the interval's point estimate is the corpus score (summed statistics), the same with a seed every run;
    vecscore compare takes METEOR too."""
    from tests.meteor_jar import require_jar

    require_jar()
    from pycocoevalcap.meteor.meteor import Meteor as JarMeteor

    refs, hyps, other = e2e
    hyp, ref_paths = _text_files(tmp_path, refs, hyps)
    scorer = JarMeteor()
    try:
        corpus, items = scorer.compute_score({i: r for i, r in enumerate(refs)}, {i: [h] for i, h in enumerate(hyps)})
        other_corpus, _ = scorer.compute_score({i: r for i, r in enumerate(refs)},
                                               {i: [h] for i, h in enumerate(other)})
    finally:
        del scorer
    argv = ["coco", "--hyps", hyp, "-r", *ref_paths, "--no-tokenize"]
    code, out, _ = _run(argv + ["--format", "json", "--confidence", "--confidence-n", "200", "--seed", "5"], capsys)
    assert code == 0
    got = json.loads(out)
    assert list(got)[:len(METRICS)] == METRICS
    assert abs(got["METEOR"] - corpus) <= 1e-12
    ci = got["confidence"]["METEOR"]
    assert ci["low"] < got["METEOR"] < ci["high"] and abs(ci["mean"] - got["METEOR"]) < ci["ci"]
    assert _run(argv + ["--format", "json", "--confidence", "--confidence-n", "200", "--seed", "5"], capsys)[1] == out
    code, rows, _ = _run(argv + ["--per-item", "--metrics", "meteor"], capsys)
    assert code == 0
    np.testing.assert_allclose([json.loads(r)["METEOR"] for r in rows.splitlines()], items, rtol=0, atol=1e-12)
    code, table, _ = _run(argv, capsys)
    assert code == 0 and f"METEOR   {corpus:.4f}" in table.splitlines()
    # vecscore compare: the same corpus scores, and a paired test
    sys_path = tmp_path / "sheff1.txt"
    sys_path.write_text("".join(f"{x}\n" for x in other), encoding="utf-8")
    cmp = ["compare", "--hyps", hyp, str(sys_path), "--metrics", "METEOR", "--coco-no-tokenize", "--paired-bs-n",
           "50", "--format", "json"] + [x for p in ref_paths for x in ("--refs", p)]
    code, out, _ = _run(cmp, capsys)
    assert code == 0
    res = json.loads(out)
    assert abs(res["systems"][0]["METEOR"]["score"] - corpus) <= 1e-12
    assert abs(res["systems"][1]["METEOR"]["score"] - other_corpus) <= 1e-12
    assert res["systems"][1]["METEOR"]["p_value"] is not None
    assert res["signatures"]["METEOR"].startswith("METEOR|tok:none|meteor:1.5-en-norm|bs:50|seed:12345|")


def test_without_meteor_data(tmp_path, capsys, monkeypatch):
    """pycocoevalcap not installed: METEOR is left out of the default metrics with a note (none with -q); asked for,
    it is an error that names the fix, and nothing is written."""
    (tmp_path / "h.txt").write_text("a dog runs\na cat\n")
    (tmp_path / "r.txt").write_text("a dog runs fast\na black cat\n")
    h, r, out = str(tmp_path / "h.txt"), str(tmp_path / "r.txt"), tmp_path / "o.json"
    monkeypatch.setitem(sys.modules, "pycocoevalcap", None)  # what importlib finds when it is not installed
    code, text, err = _run(["coco", "--hyps", h, "-r", r, "--no-tokenize", "--format", "json"], capsys)
    assert code == 0 and "METEOR" not in json.loads(text) and set(json.loads(text)) == set(METRICS) - {"METEOR"}
    assert err.startswith("vecscore coco: METEOR left out:") and "pip install pycocoevalcap" in err
    assert _run(["coco", "--hyps", h, "-r", r, "--no-tokenize", "-q"], capsys)[2] == ""
    code, _, err = _run(["coco", "--hyps", h, "-r", r, "--no-tokenize", "--metrics", "Bleu_4", "METEOR", "-o",
                         str(out)], capsys)
    assert code == 2 and err.startswith("vecscore: error: --metrics METEOR:") and "pip install pycocoevalcap" in err
    assert not out.exists()
    (tmp_path / "h2.txt").write_text("a dog\ncats\n")
    code, _, err = _run(["compare", "--hyps", h, str(tmp_path / "h2.txt"), "--refs", r, "--metrics", "METEOR",
                         "--coco-no-tokenize"], capsys)
    assert code == 2 and err.startswith("vecscore: error: --metrics METEOR:") and "pip install pycocoevalcap" in err


def test_help_names_every_coco_metric(capsys):
    """The parser names the metrics in its help without importing their list (every command builds it): the
    names it gives are the list's."""
    from vecscore.significance.coco import COCO_METRICS

    assert main(["coco", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert " ".join(COCO_METRICS) in text
