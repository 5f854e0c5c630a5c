"""BLEU benchmark: vecscore vs sacreBLEU 2.6, same process, same data.

Register in ``benchmarks/run.py`` as ``BENCHES["bleu"] = bench_bleu``; it uses
``args.pairs``, ``args.oracle_pairs`` and ``args.repeat``.

* corpus BLEU, 13a, 4 references per segment, ``args.pairs`` segments:
  ``vecscore.bleu.corpus_bleu`` vs ``sacrebleu.corpus_bleu`` on all of them;
* sentence BLEU, 13a, 1 reference, ``args.pairs`` pairs: one
  ``vecscore.bleu.sentence_bleu`` call vs ``sacrebleu.sentence_bleu`` per pair,
  timed on the first ``args.oracle_pairs`` pairs and scaled (pairs/s).

Tokenization is included on both sides (every timed call starts from Python
strings).  The data are seeded synthetic news-like sentences (~25 words,
Zipfian vocabulary, capitalised, with detokenized punctuation, numbers,
quotes and ``&amp;`` entities, so 13a's rules all fire); references share
about half of the hypothesis words.
"""
from __future__ import annotations

import time

import numpy as np


def mt_pairs(n_pairs: int, *, seed: int = 0, n_refs: int = 4, words: int = 25, vocab: int = 30_000):
    """``(hyps, streams)``: ``streams[k][i]`` is the k-th reference of segment ``i``."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    lex = np.array(sorted({"".join(rng.choice(letters, k)) for k in rng.integers(2, 11, vocab)}))
    punct = np.array([",", ",", ";", ":", "'s", "n't", "%", ")", "-"])

    def sentence(toks):
        out = []
        for w in toks:
            r = rng.random()
            if r < 0.08:
                w = w + punct[rng.integers(len(punct))]
            elif r < 0.10:
                w = f"{rng.integers(1, 5000)}.{rng.integers(0, 99):02d}"
            elif r < 0.11:
                w = f'"{w}"'
            elif r < 0.115:
                w = "&amp;"
            out.append(w)
        out[0] = out[0].capitalize()
        return " ".join(out) + rng.choice([".", ".", "?", "!"])

    ranks = np.minimum(rng.zipf(1.1, size=(n_pairs * (1 + n_refs), words)) - 1, len(lex) - 1)
    toks = lex[ranks]
    hyps, streams = [], [[] for _ in range(n_refs)]
    for i in range(n_pairs):
        h = toks[i * (1 + n_refs)]
        hyps.append(sentence(h))
        for k in range(n_refs):
            r = toks[i * (1 + n_refs) + 1 + k].copy()
            keep = rng.random(words) < 0.5
            r[keep] = h[keep]
            streams[k].append(sentence(r))
    return hyps, streams


def _best(fn, repeat: int):
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def bench_bleu(args) -> None:
    import sacrebleu

    from benchmarks.report import report as _report
    from vecscore.bleu.api import corpus_bleu, sentence_bleu

    n = args.pairs
    hyps, streams = mt_pairs(n, seed=0)
    per_example = [list(r) for r in zip(*streams)]

    # corpus BLEU, 4 references
    corpus_bleu(hyps[:1000], per_example[:1000], force=True)  # compile / load the kernel cache
    t_ours, ours = _best(lambda: corpus_bleu(hyps, per_example, force=True), args.repeat)
    t = time.perf_counter()
    theirs = sacrebleu.corpus_bleu(hyps, streams, force=True)
    t_theirs = time.perf_counter() - t
    same = abs(ours.score - theirs.score) <= 1e-9 and ours.counts.tolist() == theirs.counts
    print(f"[bleu-corpus] 13a, 4 references, {n:,d} segments ({ours.sys_len:,d} hypothesis tokens); "
          f"BLEU {ours.score:.4f} vs sacreBLEU {theirs.score:.4f} (identical statistics: {same})")
    _report("bleu-corpus", n, t_ours, "sacreBLEU", n, t_theirs)

    # sentence BLEU, 1 reference
    refs1 = streams[0]
    sentence_bleu(hyps[:1000], refs1[:1000])
    t_ours, ours = _best(lambda: sentence_bleu(hyps, refs1), args.repeat)
    k = min(args.oracle_pairs, n)
    t_theirs, theirs = _best(lambda: [sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps[:k], refs1[:k])],
                             getattr(args, "anchor_repeat", 1))
    worst = float(np.max(np.abs(ours.score[:k] - np.array(theirs))))
    print(f"[bleu-sentence] 13a, 1 reference, sacrebleu.sentence_bleu semantics (exp, effective order); "
          f"sacreBLEU timed on the first {k:,d} pairs (best of {getattr(args, 'anchor_repeat', 1)}) "
          f"and scaled to pairs/s; max |diff| on them: {worst:.1e}")
    _report("bleu-sentence", n, t_ours, "sacreBLEU", k, t_theirs)
