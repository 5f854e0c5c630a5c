"""Shared references: many hypotheses against one common set of references (WMT21 en-de).

fast-bleu's own case: the first 500 segments of reference A are the shared references, system
outputs of the other systems the hypotheses, whitespace tokens, NLTK's ``sentence_bleu`` with
``SmoothingFunction().method1`` and BLEU-4 (fast-bleu's defaults).  Timed, warm, best of
``--repeat``:

* vecscore: ``SharedReferences(refs)`` built once, then ``nltk_sentence_bleu(hyps, smoothing="method1")``
  (token lists, and strings with ``tokenize="none"``); and with the build timed;
* fast-bleu: ``BLEU(refs)`` built once, then ``get_score(hyps)``; and with the build timed;
* NLTK on the first ``--nltk`` hypotheses (it is the oracle: vecscore's numbers must equal it);
* sacreBLEU's ``sentence_bleu(h, refs)`` against ``SharedReferences(refs).sentence_bleu(hyps)``, and
  rouge-score's ``score_multi(refs, h)`` against ``SharedReferences(refs).rouge(hyps)``, on subsets
  (with fewer references for ROUGE: every hypothesis is compared with every reference).

Every figure is printed with ``os.getloadavg()`` (the machine may be shared).  Peers that are not
installed are skipped.  Run: ``python benchmarks/bench_shared_refs.py [--hyps 10000] [--refs 500]``.
"""
from __future__ import annotations

import argparse
import glob
import os
import time
from pathlib import Path

import numpy as np

DATA = Path(os.environ.get("VECSCORE_DATA_DIR", Path(__file__).resolve().parents[1].parent / "shared" / "data"))


def _lines(path) -> list[str]:
    return Path(path).read_text(encoding="utf-8").splitlines()


def _load() -> str:
    return "load " + "/".join(f"{x:.2f}" for x in os.getloadavg())


def _best(fn, repeat: int):
    fn()
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _report(label: str, n: int, seconds: float, base: float | None = None) -> float:
    rate = n / seconds
    ratio = f"  vecscore {base / rate:8.2f}x" if base else ""
    print(f"  {label:<48} {n:>7,d} in {seconds:8.4f} s  {rate:>12,.1f} /s{ratio}  [{_load()}]")
    return rate


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hyps", type=int, default=10_000)
    ap.add_argument("--refs", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--nltk", type=int, default=40, help="hypotheses NLTK scores (the oracle check)")
    ap.add_argument("--sacre", type=int, default=100, help="hypotheses sacreBLEU scores")
    ap.add_argument("--rouge-refs", type=int, default=50)
    ap.add_argument("--rouge-hyps", type=int, default=30, help="hypotheses rouge-score scores")
    args = ap.parse_args(argv)

    import vecscore

    root = DATA / "wmt21-news-systems" / "en-de"
    ref = _lines(root / "newstest2021.en-de.ref.A.de")
    files = sorted(glob.glob(str(root / "system-outputs" / "newstest2021.en-de.hyp.*.de")))
    pool = [h for f in files[1:] for h in _lines(f)]
    refs, hyps = ref[: args.refs], pool[: args.hyps]
    refs_tok, hyps_tok = [r.split() for r in refs], [h.split() for h in hyps]
    n = len(hyps)
    print(f"shared references: {len(refs)} (WMT21 en-de ref A), hypotheses: {n:,d} (system outputs); "
          f"numba threads {os.environ.get('NUMBA_NUM_THREADS', 'all')}; {_load()}")

    print("NLTK sentence BLEU, method1, BLEU-4 (fast-bleu's case)")
    sr_tok = vecscore.SharedReferences(refs_tok)
    sr_str = vecscore.SharedReferences(refs, tokenize="none")
    t, ours = _best(lambda: sr_tok.nltk_sentence_bleu(hyps_tok, smoothing="method1"), args.repeat)
    base = _report("vecscore token lists (refs built once)", n, t)
    t, _ = _best(lambda: vecscore.SharedReferences(refs_tok).nltk_sentence_bleu(hyps_tok, smoothing="method1"),
                 args.repeat)
    _report("vecscore token lists incl. building", n, t, base)
    t, ours_s = _best(lambda: sr_str.nltk_sentence_bleu(hyps, smoothing="method1"), args.repeat)
    _report("vecscore strings, tokenize='none'", n, t, base)
    try:
        import fast_bleu
    except ImportError:
        print("  fast-bleu: not installed (pip install fast-bleu)")
    else:
        w = {4: (0.25, 0.25, 0.25, 0.25)}
        scorer = fast_bleu.BLEU(refs_tok, w)
        t, fb = _best(lambda: scorer.get_score(hyps_tok)[4], args.repeat)
        _report("fast-bleu (BLEU(refs) built once)", n, t, base)
        t, _ = _best(lambda: fast_bleu.BLEU(refs_tok, w).get_score(hyps_tok)[4], args.repeat)
        _report("fast-bleu incl. building", n, t, base)
        print(f"  fast-bleu vs vecscore: max |d| {np.max(np.abs(np.asarray(fb) - ours)):.2g}")
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    m1, k = SmoothingFunction().method1, args.nltk
    t, oracle = _best(lambda: [sentence_bleu(refs_tok, h, smoothing_function=m1) for h in hyps_tok[:k]], 1)
    _report("NLTK", k, t, base)
    equal = ours[:k].tolist() == oracle and ours_s[:k].tolist() == oracle
    print(f"  vecscore == NLTK on the first {k}: {equal}")

    print("sacreBLEU sentence BLEU (13a, exp smoothing, effective order)")
    import sacrebleu

    sr13 = vecscore.SharedReferences(refs)
    t, got = _best(lambda: sr13.sentence_bleu(hyps).score, args.repeat)
    base = _report("vecscore SharedReferences.sentence_bleu", n, t)
    k = args.sacre
    t, want = _best(lambda: [sacrebleu.sentence_bleu(h, refs).score for h in hyps[:k]], 1)
    _report("sacreBLEU sentence_bleu(h, refs)", k, t, base)
    print(f"  vecscore == sacreBLEU on the first {k}: {got[:k].tolist() == want}")

    try:
        from rouge_score import rouge_scorer
    except ImportError:
        print("rouge-score: not installed")
        return 0
    rr, types = refs[: args.rouge_refs], ["rouge1", "rouge2", "rougeL"]
    print(f"ROUGE rouge1/2/L, best reference (score_multi), {len(rr)} shared references")
    sr_r = vecscore.SharedReferences(rr)
    m = min(n, 2000)
    t, res = _best(lambda: sr_r.rouge(hyps[:m], metrics=types), max(1, args.repeat // 2))
    base = _report("vecscore SharedReferences.rouge", m, t)
    k = args.rouge_hyps
    scorer = rouge_scorer.RougeScorer(types)
    t, want = _best(lambda: [scorer.score_multi(rr, h) for h in hyps[:k]], 1)
    _report("rouge-score score_multi(refs, h)", k, t, base)
    same = all(res[ty].fmeasure[:k].tolist() == [w[ty].fmeasure for w in want] for ty in types)
    print(f"  vecscore == rouge-score on the first {k}: {same}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
