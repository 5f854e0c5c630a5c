"""The hand-written IR helpers against their plain twins, and the switch that turns the fast path off.

Each IR helper of :mod:`vecscore.kernels.swar` reads memory by address (64-byte vector loads,
unaligned words, pairs of word vectors); its twin is an ordinary numba loop over the same bytes.
They are compared at every offset of a page-aligned buffer (the last 64-byte window of a page
included) and on random contents.  The switch (``VECSCORE_FAST_PATH=0``) is checked in a child
process: no in-place reading, the twins in use, the same numbers.
"""
from __future__ import annotations

import json
import mmap
import os
import subprocess
import sys

import numpy as np
import pytest

from vecscore._jit import jit
from vecscore.kernels import swar

PAGE = mmap.PAGESIZE


def _page_buffer(rng, pages: int = 2) -> tuple[np.ndarray, mmap.mmap]:
    """A page-aligned buffer of random bytes (an anonymous mapping)."""
    m = mmap.mmap(-1, pages * PAGE)
    buf = np.frombuffer(m, np.uint8)
    buf[:] = rng.integers(0, 256, len(buf), dtype=np.uint8)
    return buf, m


@jit
def _range_both(base, n, lo, hi, out_ir, out_loop):
    for j in range(n):
        out_ir[j] = swar.range_bits_ir(base + j, lo, hi)
        out_loop[j] = swar.range_bits_loop(base + j, lo, hi)


@jit
def _word_both(base, n, out_ir, out_loop):
    for j in range(n):
        out_ir[j] = swar.load_word_ir(base + j)
        out_loop[j] = swar.load_word_loop(base + j)


@jit
def _eq_both(addr_a, addr_b, a, b, out_ir, out_loop):
    for count in range(1, 65):
        out_ir[count] = swar.pair_eq_bits_ir(addr_a, addr_b, a, b, count)
        out_loop[count] = swar.pair_eq_bits_loop(addr_a, addr_b, a, b, count)


# lo <= hi, as callers pass
@pytest.mark.parametrize("lo,hi", [(0, 255), (48, 57), (65, 90), (97, 122), (0x80, 0xFF), (32, 32), (200, 255)])
def test_range_bits_equals_its_twin_at_every_offset_of_a_page(lo, hi):
    rng = np.random.default_rng(lo * 256 + hi)
    buf, m = _page_buffer(rng)
    base = buf.ctypes.data
    n = 2 * PAGE - 64 + 1  # every 64-byte window inside the mapping, page ends included
    got_ir = np.zeros(n, np.uint64)
    got_loop = np.zeros(n, np.uint64)
    _range_both(base, n, lo, hi, got_ir, got_loop)
    # and a third opinion from NumPy on a sample of offsets
    for j in rng.integers(0, n, 200).tolist() + [0, PAGE - 64, PAGE - 1, PAGE, n - 1]:
        block = buf[j:j + 64]
        want = sum(1 << k for k in np.flatnonzero((block >= lo) & (block <= hi)).tolist())
        assert int(got_loop[j]) == want, j
    np.testing.assert_array_equal(got_ir, got_loop)


def test_load_word_equals_its_twin_at_every_alignment():
    rng = np.random.default_rng(7)
    buf, m = _page_buffer(rng)
    n = 2 * PAGE - 8 + 1
    got_ir = np.zeros(n, np.uint64)
    got_loop = np.zeros(n, np.uint64)
    _word_both(buf.ctypes.data, n, got_ir, got_loop)
    np.testing.assert_array_equal(got_ir, got_loop)
    for j in (0, 1, 7, PAGE - 8, PAGE - 3, n - 1):
        assert int(got_loop[j]) == int.from_bytes(bytes(buf[j:j + 8]), "little")


@pytest.mark.parametrize("seed", range(20))
def test_pair_eq_bits_equals_its_twin(seed):
    rng = np.random.default_rng(seed)
    wa = rng.integers(0, 3, 64).astype(np.int64)  # few values: many equal words
    wb = rng.integers(0, 3, 64).astype(np.int64)
    a, b = int(rng.integers(0, 3)), int(rng.integers(0, 3))
    got_ir = np.zeros(65, np.uint64)
    got_loop = np.zeros(65, np.uint64)
    _eq_both(wa.ctypes.data, wb.ctypes.data, a, b, got_ir, got_loop)
    np.testing.assert_array_equal(got_ir[1:], got_loop[1:])
    for count in (1, 31, 32, 33, 64):
        want = sum(1 << j for j in range(count) if wa[j] == a and wb[j] == b)
        assert int(got_loop[count]) == want


@jit
def _claims(counter, workers, n_items, out):
    k = 0
    for w in range(workers):
        while True:
            c = swar.claim_strided(counter, w, workers)
            if c >= n_items:
                break
            out[k] = c
            k += 1
    return k


@pytest.mark.parametrize("workers,n_items", [(1, 5), (2, 7), (3, 3), (4, 1), (2, 0)])
def test_strided_claims_hand_out_every_item_once(workers, n_items):
    out = np.full(n_items + workers + 1, -1, np.int64)
    k = _claims(swar.work_counter(workers), workers, n_items, out)
    assert sorted(out[:k].tolist()) == list(range(n_items))


_CHILD = r"""
import json, warnings
warnings.simplefilter("ignore")
import vecscore
from vecscore.kernels import in_place, swar
from vecscore import cache_dir
name = lambda f: getattr(f, "py_func", f).__name__
rows = in_place.str_rows(["abc", "déf"])
r = vecscore.rouge(["the cat sat on the mat", "zwölf Boxkämpfer jagen Viktor"] * 3,
                   ["the cat is on the mat", "Zwölf Boxkämpfer jagten Viktor quer"] * 3,
                   metrics=["rouge1", "rouge2", "rougeL"])
b = vecscore.sentence_bleu(["the cat sat on the mat .", "a dog , barked (loudly) at 3.5 p.m."] * 3,
                           [["the cat is on the mat .", "the dog barked loudly at 3.5 p.m."] * 3])
print("RESULT " + json.dumps({
    "fast": swar.FAST, "in_place": rows is not None, "range_bits": name(swar.range_bits),
    "claim": name(swar.claim), "cache": cache_dir.chosen()[1] or "",
    "rouge": [r[m].fmeasure.tolist() for m in ("rouge1", "rouge2", "rougeL")], "bleu": b.score.tolist()}))
"""


def _child(env_value):
    env = dict(os.environ, VECSCORE_ROUTE="compiled")
    env.pop("VECSCORE_FAST_PATH", None)
    if env_value is not None:
        env["VECSCORE_FAST_PATH"] = env_value
    proc = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


def test_the_switch_turns_the_fast_path_off_with_the_same_numbers():
    on = _child(None)
    off = _child("0")
    assert on["fast"] and on["in_place"] and on["range_bits"] == "range_bits_ir" and on["claim"] == "claim_atomic"
    assert not off["fast"] and not off["in_place"]
    assert off["range_bits"] == "range_bits_loop" and off["claim"] == "claim_strided"
    assert off["cache"].endswith("fast-path-off")  # never the fast build's cache
    assert off["rouge"] == on["rouge"] and off["bleu"] == on["bleu"]
