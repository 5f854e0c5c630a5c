"""Huge pairs under a memory limit: the right number or a clean ``MemoryError``, never a wrong number.

The per-pair kernels (:mod:`vecscore.kernels.pair_rouge`, :mod:`vecscore.kernels.pair_bleu`) size
their scratch from the pairs' byte lengths and allocate it in Python before the parallel loop, so a
failed allocation is a :class:`vecscore.memory.PairMemoryError` (a ``MemoryError`` and a
``VecscoreError``) naming the pair and the memory, where it used to be lost inside the parallel loop
and come back as a score of 0.0.

* Each child process scores one huge pair (hypothesis = reference, so the right number is known)
  under an address-space limit (``RLIMIT_AS``) set a little above what it uses before the call:
  too small for the pair (a clean ``PairMemoryError``), or enough for the documented scratch bound
  (the right number, and peak memory within the bound).  Then a small pair, in the same process and
  under the same limit, must score right.  The parent survives a crash of the child.
* The sizes the wrappers compute stay within :data:`SCRATCH_BOUNDS` bytes per byte of text for
  every metric combination and tokenizer, and a child with ``NUMBA_DISABLE_JIT=1`` (where NumPy
  checks every index) runs the kernels on adversarial pairs with every bound tight, through the
  retry and large-pair paths.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc/self/status")

_CHILD = r"""
import json, os, resource, sys, warnings
warnings.simplefilter("ignore")
metric, mb, budget = sys.argv[1], float(sys.argv[2]), sys.argv[3]
import numpy as np
import vecscore
from vecscore.bleu.api import corpus_bleu, sentence_bleu


def score(h, r):
    if metric == "sentence_bleu":
        return float(sentence_bleu([h], [[r]]).score[0])
    if metric == "corpus_bleu":
        return float(corpus_bleu([h], [[r]]).score)
    return float(vecscore.rouge([h], [r], metrics=[metric])[metric].fmeasure[0])


def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024


def text(nbytes):  # Zipfian made-up words with 13a's punctuation (a word like "U.S." replays R2-R4)
    rng = np.random.default_rng(0)
    words = np.array(["".join(chr(97 + c) for c in rng.integers(0, 26, rng.integers(1, 10))) for _ in range(20000)]
                     + [",", ".", "U.S.", "3.5", "(a)", "it's"])
    s = " ".join(words[np.minimum(rng.zipf(1.2, nbytes // 5), len(words) - 1)].tolist())
    return s[:nbytes]


SMALL = ("the cat sat on the mat .", "the cat is on the mat .")
small_want = score(*SMALL)  # loads numba and the kernels (the numba cache is inherited)
t = text(int(mb * 1e6))
lens = np.array([len(t), len(t)], np.int64)
ptr = np.array([0, 1], np.int64)
if "bleu" in metric:
    from vecscore.kernels import pair_bleu
    need = int(pair_bleu.bleu_scratch(lens, ptr, pair_bleu.MODE_13A, 4)[0])
    bound = pair_bleu.scratch_bound(2 * len(t), pair_bleu.MODE_13A)
else:
    from vecscore.kernels import pair_rouge
    order = 0 if metric == "rougeL" else int(metric[5:])
    need = int(pair_rouge.rouge_scratch(lens, ptr, 36, order, metric == "rougeL")[0])
    bound = pair_rouge.scratch_bound(2 * len(t), order, metric == "rougeL")
base = status("VmSize")
room = need // 4 if budget == "tight" else need + (160 << 20)
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
resource.setrlimit(resource.RLIMIT_AS, (base + room, hard))
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # VmHWM from here
rss0 = status("VmRSS")
out = {"need": need, "bound": bound, "pair_bytes": 2 * len(t)}
try:
    out["value"] = score(t, t)
except MemoryError as e:
    out["error"] = [type(e).__name__, str(e), isinstance(e, vecscore.VecscoreError)]
out["vm_peak"] = status("VmPeak") - base
out["rss_peak"] = status("VmHWM") - rss0
out["small"] = score(*SMALL)
out["small_want"] = small_want
print("RESULT " + json.dumps(out))
"""

_WANT = {"sentence_bleu": 100.0, "corpus_bleu": 100.0, "rouge1": 1.0, "rouge2": 1.0, "rougeL": 1.0}
# MB per text: rougeL's LCS is quadratic in time, so its pair is smaller
_SIZE = {"sentence_bleu": 4, "corpus_bleu": 4, "rouge1": 6, "rouge2": 4, "rougeL": 0.6}


def _child(args, env=None, timeout=300):
    """Run a child; the parent survives its crash and reports what it printed."""
    full = dict(os.environ, VECSCORE_ROUTE="compiled", **(env or {}))
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout, env=full)
    assert proc.returncode == 0, f"child exited with {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    lines = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
    assert lines, proc.stdout[-2000:] + proc.stderr[-4000:]
    return json.loads(lines[-1][len("RESULT "):])


@pytest.mark.parametrize("metric", list(_WANT))
def test_a_pair_too_large_for_the_limit_is_a_clean_memory_error_naming_it(metric):
    # the limit leaves a quarter of what the pair needs: it used to come back as a score of 0.0
    got = _child(["-c", _CHILD, metric, str(_SIZE[metric]), "tight"])
    assert "value" not in got, f"a number under a limit too small for the pair: {got}"
    name, message, is_vecscore_error = got["error"]
    assert name == "PairMemoryError" and is_vecscore_error, got
    assert "pair 0 (hyps[0]" in message and (" MB of scratch" in message or " GB of scratch" in message), message
    assert "ulimit" in message and "split the texts" in message, message
    assert got["small"] == got["small_want"] == pytest.approx(got["small_want"]), got  # nothing poisoned


@pytest.mark.parametrize("metric", list(_WANT))
def test_a_pair_within_its_bound_scores_right_under_the_limit(metric):
    # the limit leaves what the wrapper computes the pair needs, plus room for the rest of the call
    got = _child(["-c", _CHILD, metric, str(_SIZE[metric]), "enough"])
    assert "error" not in got, got
    assert got["value"] == pytest.approx(_WANT[metric], rel=1e-14, abs=0), got  # BLEU: exp(log(100))
    assert got["small"] == got["small_want"], got
    # the pair's memory, measured, stays within the documented bound (virtual memory: the scratch is
    # allocated whole, resident memory only where it is used)
    assert got["need"] <= got["bound"], got
    assert got["vm_peak"] <= got["bound"] + (64 << 20), got
    assert got["rss_peak"] <= got["vm_peak"] + (16 << 20), got


# ---------------------------------------------------------------------------------------------
# the scratch sizes the wrappers compute, against the documented bounds
# ---------------------------------------------------------------------------------------------


def _sizes():
    """Pair sizes (bytes) at and around the points where the tables' power-of-two rounding is largest."""
    out = set()
    for j in range(0, 31):
        for mult in (1, 3):
            for d in (-1, 0, 1):
                out.add(max(1, (mult << j) + d))
    return sorted(out)


@pytest.mark.parametrize("orders,want_lcs", [((1,), False), ((2,), False), ((1, 2), False), ((1, 2, 3, 4), False),
                                              ((), True), ((1,), True), ((1, 2), True)])
def test_rouge_scratch_per_pair_is_within_its_bound(orders, want_lcs):
    from vecscore.kernels.pair_rouge import rouge_scratch, scratch_bound

    max_order = max(orders) if orders else 0
    for nbytes in _sizes():
        for frac in (1.0, 0.75, 0.5, 0.25, 0.0):  # the hypothesis's share of the pair
            h = int(nbytes * frac)
            lens = np.array([h, nbytes - h], np.int64)
            need = int(rouge_scratch(lens, np.array([0, 1]), 36, max_order, want_lcs)[0])
            assert need <= scratch_bound(nbytes, max_order, want_lcs), (nbytes, frac, need)


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_bleu_scratch_per_pair_is_within_its_bound(mode):
    from vecscore.kernels.pair_bleu import bleu_scratch, scratch_bound

    for nbytes in _sizes():
        for frac in (1.0, 0.75, 0.5, 0.25, 0.0):
            h = int(nbytes * frac)
            lens = np.array([h, nbytes - h], np.int64)
            for refs in (1, 4):  # the reference's bytes split over 1 or 4 references
                parts = np.array([h] + [(nbytes - h) // refs] * refs, np.int64)
                need = int(bleu_scratch(parts, np.array([0, refs]), mode, 4)[0])
                assert need <= scratch_bound(int(parts.sum()), mode), (nbytes, frac, refs, need)
            del lens


def test_bounds_are_far_below_what_a_pair_took_before():
    # before: ROUGE ~110 bytes of scratch per byte of text (six tables of the pair's token bound,
    # allocated by every chunk), sentence BLEU ~370
    from vecscore.kernels import pair_bleu, pair_rouge

    assert pair_rouge.SCRATCH_BOUNDS[(False, False)][0] <= 36
    assert all(per_byte <= 98 for per_byte, _ in pair_rouge.SCRATCH_BOUNDS.values())
    assert all(per_byte <= 219 for per_byte, _ in pair_bleu.SCRATCH_BOUNDS.values())


# ---------------------------------------------------------------------------------------------
# every bound tight, with NumPy checking every index (NUMBA_DISABLE_JIT=1)
# ---------------------------------------------------------------------------------------------

_TIGHT = r"""
import json, sys, itertools, warnings
warnings.simplefilter("ignore")
import numpy as np
import vecscore.memory as memory
from vecscore.kernels import pair_bleu, pair_rouge
from vecscore.kernels.intern import ASCII_LOWER
from vecscore.engine.pair_rows import pair_rows
from vecscore.references import read_texts
from vecscore.rouge.direct import lowered_utf8
from vecscore.text.tokenizers import ROUGE_SCORE_TABLE

if sys.argv[1] == "small-caps":  # every pair takes the large-pair path, first tries too little, runs again
    memory.PARALLEL_SCRATCH = 1 << 10
    pair_rouge.BIG_TOKENS = 4
    pair_bleu.BIG_HYP = 4
    pair_bleu.WORD_CAP = 3

alpha = "abcdefghijklmnopqrstuvwxyz0123456789"
distinct = [" ".join("".join(t) for L in (1, 2, 3) for t in itertools.product(alpha[:6], repeat=L))]
tiny = " ".join(alpha * 6)
texts = {
    "tiny": tiny,  # a token per 2 bytes
    "distinct": distinct[0],  # as many distinct tokens as fit
    "long": " ".join(["supercalifragilistic" + c for c in alpha]),  # hashed keys
    "dots": "a.b.c.d.e.f.g.h.i.j.1,2,3.4-5-6 " * 8,  # 13a: a token per byte, R2-R4 words
    "mixed": "The U.S. economy grew 3.5% in 2023 , it's said ; (a) & <b> " * 6,
    "empty": "",
}
pairs = [(h, r) for h in texts.values() for r in texts.values()]
hyps = [h for h, _ in pairs] + [tiny]
refs = [[r] for _, r in pairs] + [[tiny, texts["dots"], "", texts["distinct"]]]
out = {}
rows, ptr, _ = pair_rows(*read_texts(hyps, refs, "per-example", "test"), lowered_utf8)
for orders, lcs in [((1,), False), ((2,), False), ((1, 2, 3), True), ((), True)]:
    lengths, hits, l = pair_rouge.pair_rouge_stats(rows.addrs, rows.lens, ROUGE_SCORE_TABLE, ASCII_LOWER, ptr,
                                                   np.array(orders, np.int64), lcs)
    out[f"rouge{orders}{lcs}"] = [lengths.tolist(), hits.tolist(), l.tolist()]
rows, ptr, _ = pair_rows(*read_texts(hyps, refs, "per-example", "test"), None)
for mode in (0, 1, 2):
    lengths, correct = pair_bleu.pair_bleu_counts(rows.addrs, rows.lens, ptr, mode, 4)
    out[f"bleu{mode}"] = [lengths.tolist(), correct.tolist()]
print("RESULT " + json.dumps(out))
"""


def test_every_bound_tight_with_numpy_checking_every_index():
    plain = _child(["-c", _TIGHT, "default"], env={"NUMBA_DISABLE_JIT": "1"})
    forced = _child(["-c", _TIGHT, "small-caps"], env={"NUMBA_DISABLE_JIT": "1"})
    compiled = _child(["-c", _TIGHT, "small-caps"])
    assert forced == plain
    assert compiled == plain
