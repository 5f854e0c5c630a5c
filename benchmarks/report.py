"""Timing and printing shared by the benchmarks: best-of-N times, and one report line per figure
with the thread count and the machine's load beside it."""
from __future__ import annotations

import os
import time

__all__ = ["best_time", "report"]


def best_time(fn, repeat: int) -> float:
    """The fastest of ``repeat`` runs of ``fn()``, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def report(name: str, n_ours: int, t_ours: float, anchor: str, n_theirs: int, t_theirs: float,
           tuned: float | None = None) -> None:
    """Print vecscore's and the anchor's throughput and their ratio."""
    import numba

    ours = n_ours / t_ours
    theirs = n_theirs / t_theirs
    load = "/".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"[{name}] numba threads: {numba.get_num_threads()}, load (1/5/15 min): {load}")
    print(f"[{name}] vecscore : {n_ours:>9,d} pairs in {t_ours:8.3f} s = {ours:12,.0f} pairs/s")
    print(f"[{name}] {anchor:<9}: {n_theirs:>9,d} pairs in {t_theirs:8.3f} s = {theirs:12,.0f} pairs/s")
    print(f"[{name}] ratio    : {ours / theirs:,.1f}x")
    if tuned is not None:
        print(f"[{name}] vecscore after vecscore.tune_memory(): {n_ours / tuned:12,.0f} pairs/s "
              f"= {n_ours / tuned / theirs:,.1f}x")
