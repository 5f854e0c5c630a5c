"""A seeded fuzzer of the public functions: random containers, lengths, types and Unicode.

    python -m tests.fuzz_inputs --cases 100000 --seed 0

Each case calls one public function with generated arguments on the plain or
the compiled route.  The outcome must be one of:

* a result equal to the oracle's (rouge-score for ``rouge`` and
  ``RougeScorer``, sacreBLEU for ``corpus_bleu`` and ``sentence_bleu``) when
  the arguments are ones the oracle takes;
* a result equal to the other route's (``rouge155``, ``nltk_corpus_bleu``);
* a :class:`~vecscore.VecscoreError` or ``MemoryError``.

Texts include ``str`` subclasses whose methods lie (an Enum mixin, overridden
``__str__``, ``__len__``, ``encode``, ``split``, ``lower``, ``__eq__``) and
NumPy ``str_``: the oracles see their characters.  chrF and TER (random
options, ``normalized`` included) are compared with sacreBLEU.  A share of the
cases also runs the same call from two threads at once: both must give the
first call's outcome.

Anything else (another exception type, a different number) is printed with
the case and counted; the exit status is 1 if any.  It runs in its own
process so that a crash is a failed test, not a dead test run.
"""
from __future__ import annotations

import argparse
import collections
import collections.abc
import enum
import math
import os
import random
import sys
import traceback
import warnings
from concurrent.futures import ThreadPoolExecutor

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


class Shown(str):
    def __str__(self):
        return "shown " + str.__str__(self)


class Long(str):
    def __len__(self):
        return 10 ** 6


class Encoded(str):
    def encode(self, *args, **kwargs):
        return b"encoded"


class Split(str):
    def split(self, *args, **kwargs):
        return ["split"]


class Equal(str):
    def __eq__(self, other):
        return True

    def __hash__(self):
        return 7


class Canned(str, enum.Enum):
    GREETING = "hello there , general kenobi ."
    EMPTY = ""
    WIDE = "zwölf Boxkämpfer 中文 😀"


SUBCLASSES = (Sub, Shown, Long, Encoded, Split, Equal)


def characters(x) -> str:
    """What the oracles see of a text: its characters, whatever its class's methods say."""
    return str.__str__(x)


def sub_text(rng: random.Random):
    r = rng.random()
    if r < 0.2:
        return rng.choice(list(Canned))
    if r < 0.3:
        return np.str_(text(rng))
    return rng.choice(SUBCLASSES)(text(rng))


def text(rng: random.Random) -> str:
    n = rng.choice([0, 1, 3, 8, 20, 60])
    t = "".join(rng.choice(ALPHABET) for _ in range(n))
    if rng.random() < 0.02:  # a lone surrogate somewhere (bytes decoded with surrogateescape)
        k = rng.randrange(len(t) + 1)
        t = t[:k] + rng.choice(["\ud800", "\udfff"]) + t[k:]
    return t


def item(rng: random.Random):
    r = rng.random()
    if r < 0.9:
        return text(rng)
    if r < 0.96:
        return sub_text(rng)
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
    """``(hyps, refs)`` as lists of plain str (the characters of any subclass) if every hypothesis is a text and
    every pair has text references (an oracle's input)."""
    if not isinstance(hyps, list) or not isinstance(refs, list) or len(hyps) != len(refs):
        return None
    if not all(isinstance(h, str) for h in hyps):
        return None
    hyps = [characters(h) for h in hyps]
    out = []
    for r in refs:
        rs = [r] if isinstance(r, str) else r
        if not isinstance(rs, list) or not rs or not all(isinstance(x, str) for x in rs):
            return None
        out.append([characters(x) for x in rs])
    texts = hyps + [x for rs in out for x in rs]
    if any(any(0xD800 <= ord(c) <= 0xDFFF for c in t) for t in texts):
        return None
    return hyps, out


OUTCOMES: collections.Counter = collections.Counter()


def numbers(x, depth=0) -> list:
    """Every number a result holds, in order, for comparing two results of one call (also tests/test_processes)."""
    if depth > 5 or x is None or isinstance(x, (str, bytes)):
        return []
    if isinstance(x, (int, float, np.number, np.bool_)):
        return [float(x)]
    if isinstance(x, np.ndarray):
        return x.astype(float).ravel().tolist() if x.dtype.kind in "biuf" else []
    if isinstance(x, dict):
        return [v for k in sorted(x, key=str) for v in numbers(x[k], depth + 1)]
    if isinstance(x, (list, tuple)):
        return [v for item in x for v in numbers(item, depth + 1)]
    names = sorted(n for n in getattr(x, "__dict__", {}) if not n.startswith("_"))
    return [v for n in names for v in numbers(getattr(x, n), depth + 1)]


def _outcome(call):
    try:
        return numbers(call())
    except Exception as exc:  # compared by type, not raised
        return type(exc).__name__


def run_case(rng: random.Random, vecscore, scorer, sacrebleu, threads=None) -> str | None:
    """One case; returns a description of a failure, or None (``OUTCOMES`` counts what happened).

    ``threads``: a pool of two; the call is then made again from both threads at once."""
    n = rng.choice([0, 1, 2, 3, 5])
    hyp_items = [item(rng) for _ in range(n)]
    hyps = container(rng, hyp_items)
    refs, ref_items = refs_for(rng, n)
    api = rng.choice(["rouge", "scorer", "corpus_bleu", "sentence_bleu", "rouge155", "nltk", "chrf", "ter"])
    ter_opts = {k: rng.random() < 0.5 for k in ("normalized", "no_punct", "asian_support", "case_sensitive")}
    chrf_opts = {"word_order": rng.choice([0, 2]), "whitespace": rng.random() < 0.2}
    valid = not isinstance(hyps, (str, int, dict, type(None), Lying)) and not isinstance(refs, Lying)
    plain = _plain_texts(hyp_items, ref_items) if valid else None
    calls = {
        "rouge": lambda: vecscore.rouge(hyps, refs, metrics=["rouge1", "rouge2", "rougeL"]),
        "scorer": lambda: vecscore.RougeScorer(["rouge1", "rougeL"]).score_batch(refs, hyps),
        "corpus_bleu": lambda: vecscore.corpus_bleu(hyps, refs, refs_layout="per-example"),
        "sentence_bleu": lambda: vecscore.sentence_bleu(hyps, refs, refs_layout="per-example"),
        "rouge155": lambda: vecscore.rouge155(hyps, refs, metrics=["rouge1", "rouge2", "rougeL", "rougeSU4"]),
        "nltk": lambda: vecscore.nltk_corpus_bleu(hyps, refs, tokenize="13a", smoothing="method1"),
        "chrf": lambda: vecscore.CHRF(**chrf_opts, refs_layout="per-example").sentence_scores(hyps, refs),
        "ter": lambda: vecscore.corpus_ter(hyps, refs, **ter_opts, refs_layout="per-example"),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = calls[api]()
            bad = _compare(api, got, plain, scorer, sacrebleu, ter_opts, chrf_opts)
            if bad is not None:
                return bad
            OUTCOMES["scored"] += 1
        except (vecscore.VecscoreError, MemoryError) as exc:
            OUTCOMES["refused"] += 1
            got = exc
        except Exception:
            return f"{api}: {traceback.format_exc(limit=3)}"
        rereadable = not isinstance(hyps, collections.abc.Iterator) and not isinstance(refs, collections.abc.Iterator)
        if threads is not None and rereadable:
            OUTCOMES["run from two threads at once"] += 1
            want = type(got).__name__ if isinstance(got, BaseException) else numbers(got)
            for other in threads.map(lambda _: _outcome(calls[api]), range(2)):
                if other != want:
                    return f"{api} from two threads: {str(other)[:200]} instead of {str(want)[:200]}"
    return None


def _compare(api, got, plain, scorer, sacrebleu, ter_opts, chrf_opts) -> str | None:
    """The oracle's numbers against ``got`` where the arguments are ones the oracle takes."""
    if plain is None:
        return None
    if api == "rouge" and all(len(rs) == 1 for rs in plain[1]):
        OUTCOMES["compared with rouge-score"] += 1
        for i, (h, rs) in enumerate(zip(*plain)):
            want = scorer.score(rs[0], h)
            for k, s in want.items():
                if (got[k].precision[i], got[k].recall[i], got[k].fmeasure[i]) != tuple(s):
                    return f"rouge {k} pair {i}: {tuple(s)} expected"
    elif api == "corpus_bleu" and plain[0] and len({len(rs) for rs in plain[1]}) == 1:
        OUTCOMES["compared with sacreBLEU"] += 1
        want = sacrebleu.corpus_bleu(plain[0], [list(s) for s in zip(*plain[1])]).score
        if not math.isclose(got.score, want, rel_tol=0, abs_tol=1e-9):
            return f"corpus_bleu {got.score} vs sacreBLEU {want}"
    elif api == "sentence_bleu":
        OUTCOMES["compared with sacreBLEU"] += 1
        for i, (h, rs) in enumerate(zip(*plain)):
            want = sacrebleu.sentence_bleu(h, rs).score
            if not math.isclose(got.score[i], want, rel_tol=0, abs_tol=1e-9):
                return f"sentence_bleu pair {i}: {got.score[i]} vs sacreBLEU {want}"
    elif api == "chrf":
        OUTCOMES["compared with sacreBLEU"] += 1
        oracle = sacrebleu.CHRF(**chrf_opts)
        for i, (h, rs) in enumerate(zip(*plain)):
            want = oracle.sentence_score(h, rs).score
            score = float(getattr(got[i], "score", got[i]))
            if score != want:
                return f"chrF {chrf_opts} pair {i}: {score} vs sacreBLEU {want}"
    elif api == "ter" and plain[0] and len({len(rs) for rs in plain[1]}) == 1:
        OUTCOMES["compared with sacreBLEU"] += 1
        want = sacrebleu.corpus_ter(plain[0], [list(x) for x in zip(*plain[1])], **ter_opts).score
        if not math.isclose(got.score, want, rel_tol=0, abs_tol=1e-9):
            return f"TER {ter_opts}: {got.score} vs sacreBLEU {want}"
    return None


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--cases", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--compiled-share", type=float, default=0.1, help="cases forced onto the compiled route")
    p.add_argument("--thread-share", type=float, default=0.02, help="cases also run from two threads at once")
    args = p.parse_args(argv)
    import sacrebleu
    from rouge_score import rouge_scorer

    import vecscore

    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    rng = random.Random(args.seed)
    threads = ThreadPoolExecutor(2)
    failures = 0
    for case in range(args.cases):
        os.environ["VECSCORE_ROUTE"] = "compiled" if rng.random() < args.compiled_share else "auto"
        state = rng.getstate()
        bad = run_case(rng, vecscore, scorer, sacrebleu, threads if rng.random() < args.thread_share else None)
        if bad is not None:
            failures += 1
            if failures <= 20:
                print(f"case {case} (route {os.environ['VECSCORE_ROUTE']}, rng state hash {hash(state)}): {bad}")
    print(", ".join(f"{k}: {v}" for k, v in sorted(OUTCOMES.items())))
    print(f"{args.cases} cases, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
