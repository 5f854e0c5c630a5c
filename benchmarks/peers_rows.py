"""The rows of ``benchmarks/peers.py``: each one runs in a fresh process of its own.

    python -m benchmarks.peers_rows ROW --out PATH [--quick] [--repeat N] [--peer-repeat N] [--data DIR]

(``benchmarks/peers.py`` starts these processes; running one by hand is useful while developing.)
A row loads its data, then for every task times each tool that can do it: one untimed warm-up call
(vecscore's numba kernels load from the on-disk cache; imports and data loading are never timed),
then the best of ``--repeat`` timed calls (vecscore and the compiled peers) or of ``--peer-repeat``
calls (the pure-Python peers, on a stated subset).  A tool that is missing, lacks the feature or
fails gets ``n/a (reason)`` and the row goes on.  The results, with the thread counts and
``os.getloadavg()`` before and after the row, are written to ``--out`` as JSON.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
import traceback
import warnings
from pathlib import Path

import numpy as np

from benchmarks.peers_harness import (
    BLEUSCORE,
    DEFAULT_DATA,
    FASTBLEU,
    NLTK,
    ROOT,
    RRUST,
    RS,
    RSRS,
    SACRE,
    VEC,
    VEC_COMPILED,
    NotAvailable,
    Row,
    ascii_fold,
    diff_check,
    flat_arrays,
    fmt,
    forced,
    guarded_check,
    max_diff,
    need,
    peer,
    realsumm,
    rouge_arrays,
    summeval,
    vec_arrays,
    wmt21,
)

# --------------------------------------------------------------------------------------------- BLEU rows


def _sacre_quiet():
    logging.getLogger("sacrebleu").setLevel(logging.ERROR)


def _wmt_bleu_row(row: Row, pair: str, tokenize: str, *, with_bleuscore: bool, with_cached: bool = True,
                  label: str = "") -> None:
    """corpus BLEU (one call, and one call per system), sentence BLEU and cached references for one pair/tokenizer."""
    cfg = row.cfg
    _sacre_quiet()
    names, hyps, ref = wmt21(cfg, pair)
    if cfg.quick:
        names, hyps = names[:5], hyps[:5]
    n_sys, n_seg = len(hyps), len(ref)
    all_h = [h for sys_h in hyps for h in sys_h]
    all_r = ref * n_sys
    n = len(all_h)
    k_sys = min(n_sys, 2 if cfg.quick else 5)  # systems sacreBLEU's corpus-level runs get
    k_pairs = min(n, 500 if cfg.quick else 2000)  # pairs sacreBLEU's sentence-level runs get
    tag = f"{label or pair} tok={tokenize}"
    row.note(f"{tag}: {n_sys} systems x {n_seg:,d} segments = {n:,d} pairs against reference A; "
             f"{sum(not h.isascii() for h in all_h) / n:.0%} of hypotheses contain non-ASCII characters")

    import vecscore

    sacrebleu = None
    try:
        sacrebleu = need("sacrebleu", "sacrebleu")
    except NotAvailable:
        pass

    # corpus BLEU, one call over every system's segments
    t = row.task(f"corpus BLEU, one call ({tag})", "sacrebleu.corpus_bleu semantics over all pairs")
    ours_fn = lambda: vecscore.corpus_bleu(all_h, [all_r], tokenize=tokenize)  # noqa: E731
    bs = peer(t, BLEUSCORE, "bleuscore", "bleuscore") if with_bleuscore else None
    bs_out = None
    if bs is None:
        ours = t.time(VEC, n, ours_fn)
    else:  # the two compiled tools in turn, so that a slow spell of the machine falls on both
        refs_b = [[r] for r in all_r]
        got = t.time_alternating([VEC, BLEUSCORE], n, [ours_fn, lambda: bs.compute(
            refs_b, all_h, max_order=4, smooth=False, ref_len_method="sacrebleu")], rounds=row.cfg.repeat)
        ours, bs_out = got if got is not None else (None, None)
        t.check(BLEUSCORE, "compute(ref_len_method='sacrebleu'), timed in turn with vecscore")
    k = k_sys * n_seg
    if sacrebleu is None:
        t.na(SACRE, "sacrebleu not installed")
    else:
        theirs = t.time(SACRE, k, lambda: sacrebleu.corpus_bleu(all_h[:k], [all_r[:k]], tokenize=tokenize),
                        fast=False, warmup=lambda: sacrebleu.corpus_bleu(all_h[:50], [all_r[:50]], tokenize=tokenize),
                        note=f"first {k_sys} systems")
        if ours is not None and theirs is not None:
            guarded_check(t, SACRE, lambda: _corpus_check(vecscore.corpus_bleu(all_h[:k], [all_r[:k]],
                                                                               tokenize=tokenize), theirs))
    if bs_out is not None and ours is not None:
        t.check(BLEUSCORE, f"|dBLEU| vs vecscore {fmt(abs(100 * bs_out['bleu'] - ours.score))}")
    if not with_bleuscore:
        t.na(BLEUSCORE, f"13a only (tokenize={tokenize} unsupported)")

    # corpus BLEU, one call per system (the usual evaluation loop)
    t = row.task(f"corpus BLEU, per system ({tag})", f"{n_sys} calls of {n_seg:,d} segments")
    ours = t.time(VEC, n, lambda: [vecscore.corpus_bleu(h, [ref], tokenize=tokenize).score for h in hyps])
    t.time(VEC_COMPILED, n, forced(lambda: [vecscore.corpus_bleu(h, [ref], tokenize=tokenize).score for h in hyps]))
    if sacrebleu is None:
        t.na(SACRE, "sacrebleu not installed")
    else:
        theirs = t.time(SACRE, k, lambda: [sacrebleu.corpus_bleu(h, [ref], tokenize=tokenize).score
                                           for h in hyps[:k_sys]],
                        fast=False, warmup=lambda: sacrebleu.corpus_bleu(hyps[0][:50], [ref[:50]], tokenize=tokenize),
                        note=f"first {k_sys} systems")
        if ours is not None and theirs is not None:
            t.check(SACRE, f"max |dBLEU| over {k_sys} systems {fmt(max(abs(a - b) for a, b in zip(ours, theirs)))}")
    if with_bleuscore:
        bs = peer(t, BLEUSCORE, "bleuscore", "bleuscore")
        if bs is not None:
            refs_1 = [[r] for r in ref]
            out = t.time(BLEUSCORE, n, lambda: [100 * bs.compute(refs_1, h, max_order=4, smooth=False,
                                                                 ref_len_method="sacrebleu")["bleu"] for h in hyps])
            if out is not None and ours is not None:
                t.check(BLEUSCORE, f"max |dBLEU| vs vecscore {fmt(max(abs(a - b) for a, b in zip(ours, out)))}")
    else:
        t.na(BLEUSCORE, f"13a only (tokenize={tokenize} unsupported)")

    # sentence BLEU per pair
    t = row.task(f"sentence BLEU ({tag})", "sacrebleu.sentence_bleu per pair (exp smoothing, effective order)")
    ours = t.time(VEC, n, lambda: vecscore.sentence_bleu(all_h, all_r, tokenize=tokenize))
    if sacrebleu is None:
        t.na(SACRE, "sacrebleu not installed")
    else:
        theirs = t.time(SACRE, k_pairs, lambda: [sacrebleu.sentence_bleu(h, [r], tokenize=tokenize).score
                                                 for h, r in zip(all_h[:k_pairs], all_r[:k_pairs])],
                        fast=False, warmup=lambda: sacrebleu.sentence_bleu(all_h[0], [all_r[0]], tokenize=tokenize),
                        note=f"first {k_pairs:,d} pairs")
        if ours is not None and theirs is not None:
            t.check(SACRE, f"max |dBLEU| on {k_pairs:,d} pairs "
                           f"{fmt(float(np.max(np.abs(np.asarray(ours.score)[:k_pairs] - theirs))))}")
    if with_bleuscore:
        t.na(BLEUSCORE, "no sentence-level BLEU (compute() returns one corpus score)")
    else:
        t.na(BLEUSCORE, f"13a only (tokenize={tokenize} unsupported)")

    if not with_cached:
        return
    if sacrebleu is None:
        row.note("cached-reference tasks skipped: sacrebleu not installed")
        return
    from sacrebleu.metrics import BLEU as SacreBLEU

    # cached references: build once, then score every system
    t = row.task(f"cached refs: build ({tag})", f"BLEU(references=[ref A]), {n_seg:,d} segments (n = segments)")
    t.time(VEC, n_seg, lambda: vecscore.BLEU(tokenize=tokenize, references=[ref]))
    t.time(SACRE, n_seg, lambda: SacreBLEU(tokenize=tokenize, references=[ref]), fast=False)
    ours_b = vecscore.BLEU(tokenize=tokenize, references=[ref])
    sacre_b = SacreBLEU(tokenize=tokenize, references=[ref])

    t = row.task(f"cached refs: corpus_score ({tag})", f"{n_sys} systems x corpus_score(hyps) on the cached scorer")
    ours = t.time(VEC, n, lambda: [ours_b.corpus_score(h).score for h in hyps])
    t.time(VEC_COMPILED, n, forced(lambda: [ours_b.corpus_score(h).score for h in hyps]))
    theirs = t.time(SACRE, k, lambda: [sacre_b.corpus_score(h, None).score for h in hyps[:k_sys]], fast=False,
                    warmup=lambda: sacre_b.corpus_score(hyps[0], None), note=f"first {k_sys} systems")
    if ours is not None and theirs is not None:
        t.check(SACRE, f"max |dBLEU| over {k_sys} systems {fmt(max(abs(a - b) for a, b in zip(ours, theirs)))}")

    t = row.task(f"cached refs: sentence scores ({tag})",
                 "vecscore BLEU.sentence_scores(hyps) per system vs sacreBLEU BLEU.sentence_score(h, [r]) per pair "
                 "(sacreBLEU's sentence_score cannot use its cache); effective order off in both")
    ours = t.time(VEC, n, lambda: np.concatenate([ours_b.sentence_scores(h).score for h in hyps]))
    t.time(VEC_COMPILED, n, forced(lambda: np.concatenate([ours_b.sentence_scores(h).score for h in hyps])))
    theirs = t.time(SACRE, k_pairs, lambda: [sacre_b.sentence_score(h, [r]).score
                                             for h, r in zip(all_h[:k_pairs], all_r[:k_pairs])],
                    fast=False, warmup=lambda: sacre_b.sentence_score(all_h[0], [all_r[0]]),
                    note=f"first {k_pairs:,d} pairs")
    if ours is not None and theirs is not None:
        t.check(SACRE, f"max |dBLEU| on {k_pairs:,d} pairs {fmt(float(np.max(np.abs(ours[:k_pairs] - theirs))))}")


def _corpus_check(ours, theirs) -> str:
    same = list(np.asarray(ours.counts).tolist()) == list(theirs.counts) and \
        list(np.asarray(ours.totals).tolist()) == list(theirs.totals)
    return f"|dBLEU| {fmt(abs(ours.score - theirs.score))}, counts/totals {'equal' if same else 'DIFFER'}"


def row_wmt21_ende(row: Row) -> None:
    row.title = "WMT21 en-de as written (13a): corpus, sentence and cached-reference BLEU"
    _wmt_bleu_row(row, "en-de", "13a", with_bleuscore=True)


def row_wmt21_enzh(row: Row) -> None:
    row.title = "WMT21 en-zh as written (sacreBLEU's zh tokenizer)"
    _wmt_bleu_row(row, "en-zh", "zh", with_bleuscore=False)


def row_wmt21_enja(row: Row) -> None:
    row.title = "WMT21 en-ja as written: ja-mecab (sacreBLEU's default for ja) and char (WMT21's official scores)"
    cfg = row.cfg
    _sacre_quiet()
    names, hyps, ref = wmt21(cfg, "en-ja")
    if cfg.quick:
        names, hyps = names[:5], hyps[:5]
    k_sys = min(len(hyps), 2 if cfg.quick else 5)
    k = k_sys * len(ref)
    all_h = [h for sys_h in hyps for h in sys_h]
    all_r = ref * len(hyps)
    t = row.task("corpus BLEU, one call (en-ja tok=ja-mecab)", "sacrebleu.corpus_bleu(tokenize='ja-mecab')")
    t.na(VEC, "no ja-mecab tokenizer in vecscore (tokenize: 13a, intl, zh, zh-fixed, char, none)")
    t.na(BLEUSCORE, "13a only")
    try:
        import sacrebleu
        from sacrebleu.tokenizers.tokenizer_ja_mecab import TokenizerJaMecab

        TokenizerJaMecab()
    except Exception as e:
        t.na(SACRE, f"ja-mecab unavailable, skipped ({type(e).__name__}: {str(e)[:80]})")
    else:
        theirs = t.time(SACRE, k, lambda: sacrebleu.corpus_bleu(all_h[:k], [all_r[:k]], tokenize="ja-mecab"),
                        fast=False, warmup=lambda: sacrebleu.corpus_bleu(all_h[:50], [all_r[:50]],
                                                                         tokenize="ja-mecab"),
                        note=f"first {k_sys} systems")
        if theirs is not None:
            t.check(SACRE, f"BLEU {theirs.score:.2f} (no vecscore figure to compare)")
    _wmt_bleu_row(row, "en-ja", "char", with_bleuscore=False, with_cached=not cfg.quick)


def row_ascii_fold(row: Row) -> None:
    row.title = "WMT21 en-de as written vs ASCII-folded: vecscore only (non-ASCII slowdown)"
    import vecscore

    names, hyps, ref = wmt21(row.cfg, "en-de")
    if row.cfg.quick:
        hyps = hyps[:5]
    all_h = [h for sys_h in hyps for h in sys_h]
    all_r = ref * len(hyps)
    f_h = [ascii_fold(x) for x in all_h]
    f_r = [ascii_fold(x) for x in all_r]
    n = len(all_h)
    assert all(x.isascii() for x in f_h + f_r)
    row.note(f"{n:,d} pairs; {sum(not h.isascii() for h in all_h) / n:.0%} of hypotheses and "
             f"{sum(not r.isascii() for r in ref) / len(ref):.0%} of references contain non-ASCII; folding = a fixed "
             "map for quotes, dashes, spaces, ss, EUR etc., then NFKD and every other non-ASCII character dropped; "
             f"folded tokens (whitespace) {sum(len(x.split()) for x in f_h):,d} vs "
             f"{sum(len(x.split()) for x in all_h):,d} as written")
    row.note("both sides run with VECSCORE_ROUTE=compiled, so the kernels are compared whatever the batch size "
             "(the auto route takes them too at 20,040 pairs; with --quick's 5,010 pairs it would take the "
             "plain Python route for rouge)")
    row.note("the two sides are timed in turn, as-written then folded, best of each over the rounds")
    jobs = [
        ("sentence BLEU", lambda h, r: vecscore.sentence_bleu(h, r)),
        ("corpus BLEU, one call", lambda h, r: vecscore.corpus_bleu(h, [r])),
        ("rouge1/2/L", lambda h, r: vecscore.rouge(h, r, metrics=["rouge1", "rouge2", "rougeL"])),
    ]
    for label, fn in jobs:
        t = row.task(f"{label} (en-de)", "ratio column: as-written pairs/s / folded pairs/s")
        got = t.time_alternating([f"{VEC} as written", f"{VEC} ASCII-folded"], n,
                                 [forced(lambda: fn(all_h, all_r)), forced(lambda: fn(f_h, f_r))],
                                 rounds=2 * row.cfg.repeat)
        if got is not None:
            cells = {c["tool"]: c for c in t.data["cells"]}
            slow = cells[f"{VEC} as written"]["seconds"] / cells[f"{VEC} ASCII-folded"]["seconds"]
            t.check(f"{VEC} ASCII-folded", f"non-ASCII / ASCII time = {slow:.2f}x")
            t.data["slowdown"] = slow


# --------------------------------------------------------------------------------------------- ROUGE rows


def _rouge_task(row: Row, label: str, what: str, hyps, refs, types, *, stem: bool = False, k_rs: int,
                k_rr: int | None = None, rs_warmup=None) -> None:
    """One ROUGE task over every tool; agreement = max |d| of P/R/F against rouge-score on its subset."""
    import vecscore

    n = len(hyps)
    t = row.task(label, what)
    ours = t.time(VEC, n, lambda: vecscore.rouge(hyps, refs, metrics=types, stemmer=stem))
    t.time(VEC_COMPILED, n, forced(lambda: vecscore.rouge(hyps, refs, metrics=types, stemmer=stem)))
    oracle = None
    rs = peer(t, RS, "rouge_score.rouge_scorer", "rouge-score")
    if rs is not None:
        scorer = rs.RougeScorer(types, use_stemmer=stem)
        oracle = t.time(RS, k_rs, lambda: [scorer.score(r, h) for h, r in zip(hyps[:k_rs], refs[:k_rs])], fast=False,
                        warmup=lambda: scorer.score(*(rs_warmup or (refs[0], hyps[0]))),
                        note=f"first {k_rs:,d} pairs, score() loop")
        oracle = rouge_arrays(oracle, types) if oracle is not None else None
    if oracle is not None and ours is not None:
        diff_check(t, VEC, f"max |d| P/R/F vs rouge-score ({k_rs:,d})",
                   lambda: max_diff(vec_arrays(ours, types), oracle, k_rs))
    rsrs = peer(t, RSRS, "rouge_score_rs", "rouge-score-rs")
    if rsrs is not None:
        s2 = rsrs.RougeScorer(types, use_stemmer=stem)
        out = t.time(RSRS, n, lambda: s2.score_batch(refs, hyps), note="RougeScorer.score_batch (rayon)")
        if out is not None and oracle is not None:
            diff_check(t, RSRS, "max |d| vs rouge-score", lambda: max_diff(rouge_arrays(out[:k_rs], types), oracle))
    if stem:
        t.na(RRUST, "no stemmer (rouge1/2/L unstemmed only)")
    elif any(x not in ("rouge1", "rouge2", "rougeL") for x in types):
        t.na(RRUST, "no " + "/".join(x for x in types if x not in ("rouge1", "rouge2", "rougeL")) +
             " (rouge1/2/L only)")
    else:
        fr = peer(t, RRUST, "fast_rouge", "rouge-rust")
        if fr is not None:
            k = n if k_rr is None else k_rr
            out = t.time(RRUST, k, lambda: fr.score_batch_flat(refs[:k], hyps[:k]), fast=k_rr is None,
                         note="score_batch_flat (rayon)" + ("" if k == n else f", first {k} pairs"))
            if out is not None and oracle is not None:
                diff_check(t, RRUST, "max |d| vs rouge-score", lambda: max_diff(flat_arrays(out, types), oracle, k_rs))


def row_realsumm(row: Row) -> None:
    row.title = "REALSumm (CNN/DM, 25 systems x 100 docs): multi-sentence summaries, sentences joined by newlines"
    hyps, refs = realsumm(row.cfg)
    k = 300 if row.cfg.quick else 1000
    row.note(f"{len(hyps):,d} pairs, {sum(h.count(chr(10)) + 1 for h in hyps) / len(hyps):.1f} sentences per summary; "
             "rougeLsum splits on newlines as rouge-score does")
    all4 = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    _rouge_task(row, "rouge1/2/L/Lsum (REALSumm)", "no stemming", hyps, refs, all4, k_rs=k)
    _rouge_task(row, "rougeLsum alone (REALSumm)", "no stemming", hyps, refs, ["rougeLsum"], k_rs=k)
    _rouge_task(row, "rouge1/2/L (REALSumm)", "no stemming; the set rouge-rust can do", hyps, refs,
                ["rouge1", "rouge2", "rougeL"], k_rs=k)
    if not row.cfg.quick:
        _rouge_task(row, "rouge1/2/L/Lsum, Porter stemmer (REALSumm)", "use_stemmer=True", hyps, refs, all4,
                    stem=True, k_rs=k)
    _punct_task(row, hyps, refs)


def _punct_task(row: Row, hyps, refs) -> None:
    """rougeLsum with vecscore's ``punct`` sentence splitter on the summaries joined by spaces, against the
    newline-joined summaries, on every thread and on one."""
    import numba

    import vecscore

    n = len(hyps)
    flat_h, flat_r = [h.replace("\n", " ") for h in hyps], [r.replace("\n", " ") for r in refs]
    t = row.task("rougeLsum, punct splitter (REALSumm)",
                 "vecscore only, compiled route: sentence_splitter='punct' on the summaries joined by spaces vs "
                 "the newline-joined summaries")
    t.time(f"{VEC} newline", n, forced(lambda: vecscore.rouge(hyps, refs, metrics=["rougeLsum"])))
    t.time(f"{VEC} punct", n, forced(lambda: vecscore.rouge(flat_h, flat_r, metrics=["rougeLsum"],
                                                            sentence_splitter="punct")))
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        t.time(f"{VEC} punct, 1 thread", n, forced(lambda: vecscore.rouge(flat_h, flat_r, metrics=["rougeLsum"],
                                                                         sentence_splitter="punct")))
    finally:
        numba.set_num_threads(threads)
    cells = {c["tool"]: c for c in t.data["cells"] if "seconds" in c}
    if {f"{VEC} newline", f"{VEC} punct", f"{VEC} punct, 1 thread"} <= set(cells):
        sec = {k: cells[k]["seconds"] for k in cells}
        t.check(f"{VEC} punct", f"punct / newline time = {sec[f'{VEC} punct'] / sec[f'{VEC} newline']:.2f}x; "
                                f"{threads} threads {sec[f'{VEC} punct, 1 thread'] / sec[f'{VEC} punct']:.2f}x "
                                "faster than 1")


def row_summeval(row: Row) -> None:
    row.title = "SummEval (16 systems x 100 docs), 11 references each: multi-reference rouge1/2/L (best reference)"
    import vecscore

    hyps, refs = summeval(row.cfg)
    types = ["rouge1", "rouge2", "rougeL"]
    n = len(hyps)
    k = 100 if row.cfg.quick else 300
    row.note(f"{n:,d} summaries x {len(refs[0])} references = {sum(len(r) for r in refs):,d} hypothesis-reference "
             "pairs; rouge-score's score_multi semantics (per type, the reference with the highest F) = vecscore "
             "multi_ref='best'; n counts summaries")
    t = row.task("rouge1/2/L, 11 refs (SummEval)", "score_multi(targets, prediction)")
    ours = t.time(VEC, n, lambda: vecscore.rouge(hyps, refs, metrics=types, multi_ref="best"))
    t.time(VEC_COMPILED, n, forced(lambda: vecscore.rouge(hyps, refs, metrics=types, multi_ref="best")))
    oracle = None
    rs = peer(t, RS, "rouge_score.rouge_scorer", "rouge-score")
    if rs is not None:
        scorer = rs.RougeScorer(types)
        out = t.time(RS, k, lambda: [scorer.score_multi(r, h) for h, r in zip(hyps[:k], refs[:k])], fast=False,
                     warmup=lambda: scorer.score_multi(refs[0], hyps[0]), note=f"first {k} summaries")
        oracle = rouge_arrays(out, types) if out is not None else None
    if oracle is not None and ours is not None:
        diff_check(t, VEC, f"max |d| P/R/F vs rouge-score ({k})", lambda: max_diff(vec_arrays(ours, types), oracle, k))
    rsrs = peer(t, RSRS, "rouge_score_rs", "rouge-score-rs")
    if rsrs is not None:
        s2 = rsrs.RougeScorer(types)
        out = t.time(RSRS, n, lambda: [s2.score_multi(r, h) for h, r in zip(hyps, refs)],
                     note="score_multi loop (no batch multi-reference API)")
        if out is not None and oracle is not None:
            diff_check(t, RSRS, "max |d| vs rouge-score", lambda: max_diff(rouge_arrays(out[:k], types), oracle))
    fr = peer(t, RRUST, "fast_rouge", "rouge-rust")
    if fr is not None:
        counts = np.array([len(r) for r in refs])
        flat_h = [h for h, c in zip(hyps, counts) for _ in range(c)]
        flat_r = [x for r in refs for x in r]
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])

        def fast_multi():
            res = fr.score_batch_flat(flat_r, flat_h)
            out = {}
            for ty in types:
                p, r_, f = (np.array(getattr(res, f"{ty}_{x}")) for x in ("precision", "recall", "fmeasure"))
                if (counts == counts[0]).all():
                    pick = starts + np.argmax(f.reshape(n, counts[0]), axis=1)
                else:
                    pick = np.array([s + int(np.argmax(f[s:s + c])) for s, c in zip(starts, counts)])
                out[ty] = (p[pick], r_[pick], f[pick])
            return out

        out = t.time(RRUST, n, fast_multi, note="no multi-ref API: score_batch_flat on all pairs + argmax F in NumPy")
        if out is not None and oracle is not None:
            diff_check(t, RRUST, "max |d| vs rouge-score", lambda: max_diff(out, oracle, k))


def row_synthetic(row: Row) -> None:
    from benchmarks.corpus import summary_pairs

    n = 5_000 if row.cfg.quick else 20_000
    k = 500 if row.cfg.quick else 2_000
    hyps, refs = summary_pairs(n, seed=0)
    row.title = "Synthetic summary pairs (benchmarks/corpus.py summary_pairs: ~50 tokens a side, ASCII)"
    row.note(f"{n:,d} pairs, seed 0")
    _rouge_task(row, "rouge1/2/L (synthetic)", "no stemming", hyps, refs, ["rouge1", "rouge2", "rougeL"], k_rs=k)


def row_long_rougel(row: Row) -> None:
    from benchmarks.corpus import summary_pairs

    n = 30 if row.cfg.quick else 100
    hyps, refs = summary_pairs(n, seed=5, tokens=5000)
    row.title = "rougeL at 5,000 tokens a side (synthetic, summary_pairs(tokens=5000))"
    row.note(f"{n} pairs of ~{np.mean([len(h.split()) for h in hyps]):,.0f} whitespace tokens; rouge-score "
             "(pure-Python O(n*m) LCS, ~5 s a pair) on 1 pair, rouge-rust (~75 ms a pair) on 10")
    _rouge_task(row, "rougeL, 5,000 tokens", "no stemming", hyps, refs, ["rougeL"], k_rs=1, k_rr=min(n, 10),
                rs_warmup=("a b c d", "a c d e"))


# --------------------------------------------------------------------------------------------- NLTK-flavour rows


def row_shared_refs(row: Row) -> None:
    row.title = "Shared references (self-BLEU style): N hypotheses each against one common set of 500 references"
    import vecscore

    names, hyps, ref = wmt21(row.cfg, "en-de")
    n = 2000 if row.cfg.quick else 10000
    k = 10 if row.cfg.quick else 40
    shared = ref[:500]
    shared_tok = [r.split() for r in shared]
    pool = [h for sys_h in hyps[1:] for h in sys_h]  # hypotheses from other systems than reference segments' order
    hyp_s = pool[:n]
    hyp_tok = [h.split() for h in hyp_s]
    row.note(f"WMT21 en-de: the first 500 segments of reference A are the shared references, {n:,d} system outputs "
             "the hypotheses; whitespace tokens; NLTK sentence_bleu semantics with SmoothingFunction().method1, "
             "BLEU-4 (fast-bleu's defaults); n counts hypotheses")
    row.note("vecscore: vecscore.SharedReferences(refs) built once (as fast-bleu's BLEU(refs)), then "
             "nltk_sentence_bleu(hyps, smoothing='method1'); 'incl. build' times both")
    t = row.task("sentence BLEU vs 500 shared refs", "NLTK sentence_bleu(refs500, hyp, method1)")
    sr_tok = vecscore.SharedReferences(shared_tok)
    sr_str = vecscore.SharedReferences(shared, tokenize="none")
    ours = t.time(f"{VEC} token lists", n, lambda: sr_tok.nltk_sentence_bleu(hyp_tok, smoothing="method1"),
                  note="SharedReferences built once")
    t.time(f"{VEC} token lists incl. building SharedReferences", n,
           lambda: vecscore.SharedReferences(shared_tok).nltk_sentence_bleu(hyp_tok, smoothing="method1"))
    ours_s = t.time(f"{VEC} strings (tokenize='none')", n,
                    lambda: sr_str.nltk_sentence_bleu(hyp_s, smoothing="method1"))
    fb_mod = peer(t, FASTBLEU, "fast_bleu", "fast-bleu")
    fb_out = None
    if fb_mod is not None:
        w = {4: (0.25, 0.25, 0.25, 0.25)}
        scorer = fb_mod.BLEU(shared_tok, w)
        fb_out = t.time(FASTBLEU, n, lambda: scorer.get_score(hyp_tok)[4],
                        note="BLEU(refs) built once, get_score timed")
        t.time(f"{FASTBLEU} incl. building BLEU(refs)", n, lambda: fb_mod.BLEU(shared_tok, w).get_score(hyp_tok)[4])
    nl = peer(t, NLTK, "nltk.translate.bleu_score", "nltk")
    oracle = None
    if nl is not None:
        m1 = nl.SmoothingFunction().method1
        oracle = t.time(NLTK, k, lambda: [nl.sentence_bleu(shared_tok, h, smoothing_function=m1) for h in hyp_tok[:k]],
                        fast=False, warmup=lambda: nl.sentence_bleu(shared_tok, hyp_tok[0], smoothing_function=m1),
                        note=f"first {k} hypotheses")
    if oracle is not None:
        oracle = np.array(oracle)
        for tool, out in ((f"{VEC} token lists", ours), (f"{VEC} strings (tokenize='none')", ours_s),
                          (FASTBLEU, fb_out)):
            if out is not None:
                t.check(tool, f"max |d| vs NLTK ({k}) {fmt(float(np.max(np.abs(np.asarray(out)[:k] - oracle))))}")


def row_token_lists(row: Row) -> None:
    row.title = "NLTK-flavour BLEU: token-list input vs string input (vecscore) vs NLTK, WMT21 en-de"
    import vecscore

    names, hyps, ref = wmt21(row.cfg, "en-de")
    if row.cfg.quick:
        hyps = hyps[:5]
    all_h = [h for sys_h in hyps for h in sys_h]
    all_r = ref * len(hyps)
    n = len(all_h)
    tok_h = [h.split() for h in all_h]
    tok_r = [[r.split()] for r in all_r]
    str_r = [[r] for r in all_r]
    k_c = min(n, 5_010 if row.cfg.quick else n)
    k_s = min(n, 500 if row.cfg.quick else 2_000)
    row.note(f"{n:,d} pairs, whitespace tokens (token lists = str.split(); string input with tokenize='none', "
             "which splits the same way); corpus: no smoothing; sentence: method1; ratio column: token-list pairs/s "
             "over the tool's")
    nl = None
    try:
        nl = need("nltk.translate.bleu_score", "nltk")
    except NotAvailable:
        pass

    t = row.task("nltk_corpus_bleu (en-de)", "nltk corpus_bleu(list_of_references, hypotheses)")
    a = t.time(f"{VEC} token lists", n, lambda: vecscore.nltk_corpus_bleu(tok_h, tok_r))
    b = t.time(f"{VEC} strings", n, lambda: vecscore.nltk_corpus_bleu(all_h, str_r, tokenize="none"))
    if nl is None:
        t.na(NLTK, "nltk not installed")
    else:
        c = t.time(NLTK, k_c, lambda: nl.corpus_bleu(tok_r[:k_c], tok_h[:k_c]), fast=False,
                   warmup=lambda: nl.corpus_bleu(tok_r[:20], tok_h[:20]),
                   note="all pairs" if k_c == n else f"first {k_c:,d} pairs")
        if c is not None:
            for tool, fn in ((f"{VEC} token lists", lambda: vecscore.nltk_corpus_bleu(tok_h[:k_c], tok_r[:k_c])),
                             (f"{VEC} strings", lambda: vecscore.nltk_corpus_bleu(all_h[:k_c], str_r[:k_c],
                                                                                  tokenize="none"))):
                if (a if "token" in tool else b) is not None:
                    guarded_check(t, tool, lambda fn=fn: f"|d| vs NLTK {fmt(abs(float(fn()) - c))}")

    t = row.task("nltk_sentence_bleu (en-de)", "nltk sentence_bleu per pair, method1")
    a = t.time(f"{VEC} token lists", n, lambda: vecscore.nltk_sentence_bleu(tok_h, tok_r, smoothing="method1"))
    b = t.time(f"{VEC} strings", n, lambda: vecscore.nltk_sentence_bleu(all_h, str_r, tokenize="none",
                                                                        smoothing="method1"))
    if nl is None:
        t.na(NLTK, "nltk not installed")
    else:
        m1 = nl.SmoothingFunction().method1
        c = t.time(NLTK, k_s, lambda: [nl.sentence_bleu(r, h, smoothing_function=m1)
                                       for h, r in zip(tok_h[:k_s], tok_r[:k_s])], fast=False,
                   warmup=lambda: nl.sentence_bleu(tok_r[0], tok_h[0], smoothing_function=m1),
                   note=f"first {k_s:,d} pairs")
        if c is not None:
            c = np.array(c)
            for tool, out in ((f"{VEC} token lists", a), (f"{VEC} strings", b)):
                if out is not None:
                    t.check(tool, f"max |d| vs NLTK ({k_s:,d}) {fmt(float(np.max(np.abs(out[:k_s] - c))))}")


ROWS = {
    "wmt21-ende": (row_wmt21_ende, "WMT21 en-de as written: corpus/sentence/cached BLEU vs sacreBLEU, bleuscore"),
    "wmt21-enzh": (row_wmt21_enzh, "WMT21 en-zh, tokenize=zh: corpus/sentence/cached BLEU vs sacreBLEU"),
    "wmt21-enja": (row_wmt21_enja, "WMT21 en-ja: ja-mecab (sacreBLEU only) and char BLEU vs sacreBLEU"),
    "ascii-fold": (row_ascii_fold, "en-de as written vs ASCII-folded, vecscore only: BLEU and rouge1/2/L"),
    "realsumm": (row_realsumm, "REALSumm rouge1/2/L/Lsum, rougeLsum alone: vs rouge-score and the Rust peers"),
    "summeval": (row_summeval, "SummEval, 11 references: multi-reference rouge1/2/L"),
    "synthetic": (row_synthetic, "synthetic summary pairs: rouge1/2/L"),
    "long-rougeL": (row_long_rougel, "rougeL at 5,000 tokens a side"),
    "shared-refs": (row_shared_refs, "N hypotheses vs 500 shared references: fast-bleu, vecscore, NLTK"),
    "token-lists": (row_token_lists, "nltk_corpus_bleu / nltk_sentence_bleu: token lists vs strings vs NLTK"),
}


# --------------------------------------------------------------------------------------------- child process


def _threads() -> dict:
    out = {"cpu_count": os.cpu_count(), "RAYON_NUM_THREADS": os.environ.get("RAYON_NUM_THREADS", "unset (all cores)")}
    try:
        import numba

        out["numba_threads"] = numba.get_num_threads()
        try:
            out["numba_threading_layer"] = numba.threading_layer()
        except Exception:
            out["numba_threading_layer"] = "not started"
    except Exception as e:
        out["numba_threads"] = f"n/a ({type(e).__name__})"
    return out


def run_row(name: str, cfg) -> dict:
    warnings.simplefilter("ignore")
    row = Row(name, cfg)
    result = {"row": name, "load_before": list(os.getloadavg()), "pid": os.getpid()}
    t0 = time.perf_counter()
    try:
        ROWS[name][0](row)
    except NotAvailable as e:
        result["error"] = f"n/a ({e})"
    except Exception as e:
        traceback.print_exc()
        result["error"] = f"failed: {type(e).__name__}: {str(e)[:200]}"
    result.update(title=row.title or ROWS[name][1], tasks=row.tasks, notes=row.notes,
                  load_after=list(os.getloadavg()), threads=_threads(), wall_seconds=time.perf_counter() - t0,
                  repeat=cfg.repeat, peer_repeat=cfg.peer_repeat, quick=cfg.quick)
    return result


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("row", choices=sorted(ROWS))
    p.add_argument("--out", required=True, help="JSON file to write the row's results to")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--peer-repeat", type=int, default=2)
    p.add_argument("--data", default=str(DEFAULT_DATA))
    cfg = p.parse_args(argv)
    result = run_row(cfg.row, cfg)
    Path(cfg.out).write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
