"""A seeded fuzzer of the public functions: random containers, lengths, types and Unicode.

    python -m tests.fuzz_inputs --cases 100000 --seed 0

Each case calls one public function with generated arguments on the plain or
the compiled route.  The outcome must be one of:

* a result equal to the oracle's (rouge-score for ``rouge`` and
  ``RougeScorer``, sacreBLEU for ``corpus_bleu`` and ``sentence_bleu``) when
  the arguments are ones the oracle takes;
* a result equal to the other route's (``rouge155``, ``nltk_corpus_bleu``);
* a :class:`~vecscore.VecscoreError` or ``MemoryError``.

Anything else (another exception type, a different number) is printed with
the case and counted; the exit status is 1 if any.  It runs in its own
process so that a crash is a failed test, not a dead test run.
"""
from __future__ import annotations

import argparse
import collections
import collections.abc
import math
import os
import random
import sys
import traceback
import warnings

import numpy as np

ALPHABET = (list("abcdefghij ABC  ...,,;--'\"!?\n\t\r0123") + ["\x00", "é", "ß", "İ", "\u212a", "ﬁ", "中", "文", "日",
            "한", "\u3000", "\u2028", "\u0301", "😀", "\ufeff", "&amp;", "<skipped>", "\u200b"])


class Lying(collections.abc.Sequence):
    """A sequence whose ``len()`` is one more than its items."""

    def __init__(self, items):
        self.items = list(items)

    def __len__(self):
        return len(self.items) + 1

    def __getitem__(self, i):
        return self.items[i]


class Sub(str):
    def lower(self):
        return "x"


def text(rng: random.Random) -> str:
    n = rng.choice([0, 1, 3, 8, 20, 60])
    t = "".join(rng.choice(ALPHABET) for _ in range(n))
    if rng.random() < 0.02:  # a lone surrogate somewhere (bytes decoded with surrogateescape)
        k = rng.randrange(len(t) + 1)
        t = t[:k] + rng.choice(["\ud800", "\udfff"]) + t[k:]
    return t


def item(rng: random.Random):
    r = rng.random()
    if r < 0.93:
        return text(rng)
    if r < 0.96:
        return Sub(text(rng))
    return rng.choice([None, 5, 3.5, b"bytes", ["a", "b"], [], np.array([1, -2]), ("x",), {"a": 1}])


def container(rng: random.Random, items: list):
    kind = rng.random()
    if kind < 0.6:
        return items
    if kind < 0.7:
        return tuple(items)
    if kind < 0.78:
        return (x for x in items)
    if kind < 0.86:
        import pandas as pd

        return pd.Series(items, index=[i + 1 for i in range(len(items))], dtype=object)
    if kind < 0.9:
        return Lying(items)
    if kind < 0.95:
        return np.array(items, dtype=object) if items else np.array([], dtype=object)
    return rng.choice(["a single string", None, 7, {"a": "b"}])


def refs_for(rng: random.Random, n: int):
    """``(refs, items)``: the argument, and its items as a list (``None`` where it is not a sequence)."""
    r = rng.random()
    m = n if rng.random() < 0.9 else n + rng.choice([-1, 1])
    if r < 0.5:
        items = [item(rng) for _ in range(max(m, 0))]
    elif r < 0.85:
        items = [[item(rng) for _ in range(rng.choice([0, 1, 2, 3]))] for _ in range(max(m, 0))]
    else:
        streams = [[item(rng) for _ in range(max(m, 0))] for _ in range(rng.choice([1, 2]))]
        return streams, None
    obj = container(rng, items)
    return obj, (items if not isinstance(obj, (str, int, dict, type(None))) else None)


def _plain_texts(hyps, refs):
    """``(hyps, refs)`` as lists if every hypothesis is a plain str and every pair has str references
    (an oracle's input)."""
    if not isinstance(hyps, list) or not isinstance(refs, list) or len(hyps) != len(refs):
        return None
    if not all(type(h) is str for h in hyps):
        return None
    out = []
    for r in refs:
        rs = [r] if type(r) is str else r
        if not isinstance(rs, list) or not rs or not all(type(x) is str for x in rs):
            return None
        out.append(rs)
    texts = hyps + [x for rs in out for x in rs]
    if any(any(0xD800 <= ord(c) <= 0xDFFF for c in t) for t in texts):
        return None
    return hyps, out


OUTCOMES: collections.Counter = collections.Counter()


def run_case(rng: random.Random, vecscore, scorer, sacrebleu) -> str | None:
    """One case; returns a description of a failure, or None (``OUTCOMES`` counts what happened)."""
    n = rng.choice([0, 1, 2, 3, 5])
    hyp_items = [item(rng) for _ in range(n)]
    hyps = container(rng, hyp_items)
    refs, ref_items = refs_for(rng, n)
    api = rng.choice(["rouge", "scorer", "corpus_bleu", "sentence_bleu", "rouge155", "nltk"])
    valid = not isinstance(hyps, (str, int, dict, type(None), Lying)) and not isinstance(refs, Lying)
    plain = _plain_texts(hyp_items, ref_items) if valid else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if api == "rouge":
                got = vecscore.rouge(hyps, refs, metrics=["rouge1", "rouge2", "rougeL"])
                if plain is not None and all(len(rs) == 1 for rs in plain[1]):
                    OUTCOMES["compared with rouge-score"] += 1
                    for i, (h, rs) in enumerate(zip(*plain)):
                        want = scorer.score(rs[0], h)
                        for k, s in want.items():
                            if (got[k].precision[i], got[k].recall[i], got[k].fmeasure[i]) != tuple(s):
                                return f"rouge {k} pair {i}: {tuple(s)} expected"
            elif api == "scorer":
                got = vecscore.RougeScorer(["rouge1", "rougeL"]).score_batch(refs, hyps)
            elif api == "corpus_bleu":
                got = vecscore.corpus_bleu(hyps, refs, refs_layout="per-example")
                if plain is not None and plain[0] and len({len(rs) for rs in plain[1]}) == 1:
                    OUTCOMES["compared with sacreBLEU"] += 1
                    streams = [list(s) for s in zip(*plain[1])]
                    want = sacrebleu.corpus_bleu(plain[0], streams).score
                    if not math.isclose(got.score, want, rel_tol=0, abs_tol=1e-9):
                        return f"corpus_bleu {got.score} vs sacreBLEU {want}"
            elif api == "sentence_bleu":
                got = vecscore.sentence_bleu(hyps, refs, refs_layout="per-example")
                if plain is not None:
                    OUTCOMES["compared with sacreBLEU"] += 1
                    for i, (h, rs) in enumerate(zip(*plain)):
                        want = sacrebleu.sentence_bleu(h, rs).score
                        if not math.isclose(got.score[i], want, rel_tol=0, abs_tol=1e-9):
                            return f"sentence_bleu pair {i}: {got.score[i]} vs sacreBLEU {want}"
            elif api == "rouge155":
                got = vecscore.rouge155(hyps, refs, metrics=["rouge1", "rouge2", "rougeL", "rougeSU4"])
            else:
                got = vecscore.nltk_corpus_bleu(hyps, refs, tokenize="13a", smoothing="method1")
            del got
            OUTCOMES["scored"] += 1
        except (vecscore.VecscoreError, MemoryError):
            OUTCOMES["refused"] += 1
            return None
        except Exception:
            return f"{api}: {traceback.format_exc(limit=3)}"
    return None


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--cases", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--compiled-share", type=float, default=0.1, help="cases forced onto the compiled route")
    args = p.parse_args(argv)
    import sacrebleu
    from rouge_score import rouge_scorer

    import vecscore

    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    rng = random.Random(args.seed)
    failures = 0
    for case in range(args.cases):
        os.environ["VECSCORE_ROUTE"] = "compiled" if rng.random() < args.compiled_share else "auto"
        state = rng.getstate()
        bad = run_case(rng, vecscore, scorer, sacrebleu)
        if bad is not None:
            failures += 1
            if failures <= 20:
                print(f"case {case} (route {os.environ['VECSCORE_ROUTE']}, rng state hash {hash(state)}): {bad}")
    print(", ".join(f"{k}: {v}" for k, v in sorted(OUTCOMES.items())))
    print(f"{args.cases} cases, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
