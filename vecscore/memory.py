"""Memory: the allocator setting of large calls, and the scratch of the per-pair kernels.

The scratch of the per-pair kernels (:class:`PairMemoryError`, :class:`Slabs`,
:func:`groups`) is described below, with the code.

Keep freed memory for reuse between large calls (Linux/glibc).

Every call allocates and frees large arrays (token spans, ids, counts).  With
glibc's defaults, freed memory goes back to the operating system and the next
call pays for fresh page faults: on a 100,000-pair ROUGE batch that is about
40% of the wall time.  :func:`tune_memory` raises glibc's top pad
(``mallopt(M_TOP_PAD)``) so the heap keeps that memory mapped for the next
call.  Resident memory may stay up to the pad above what the process needs.

The ``vecscore`` command calls it at start-up.  In Python it is opt-in,
because it changes an allocator setting of the whole process:

>>> import vecscore
>>> vecscore.tune_memory()        # doctest: +SKIP
True

``VECSCORE_NO_MALLOC_TUNING=1`` turns it off; ``VECSCORE_MALLOC_TOP_PAD``
sets the pad in bytes (default 512 MiB).

The pad is address space: every time the heap grows, glibc asks for the
request *plus* the pad.  Under a limit (``ulimit -v``, i.e. ``RLIMIT_AS``, or
``RLIMIT_DATA``) a 512 MiB pad alone can exceed the room left, and a job that
fits fails with ``MemoryError`` or cannot load numba's compiler.  So the pad is
capped at 1/:data:`LIMIT_SHARE` (1/16) of the room left under each limit that
is set (:func:`top_pad_under_limits`), and not set at all when that leaves less
than glibc's own default (128 KiB).
"""
from __future__ import annotations

import os
import sys

import numpy as np

from vecscore.errors import VecscoreError

__all__ = ["tune_memory", "DEFAULT_TOP_PAD", "PairMemoryError"]

DEFAULT_TOP_PAD = 512 << 20
_M_TOP_PAD = -2  # glibc's mallopt parameter number
_GLIBC_TOP_PAD = 128 << 10  # glibc's own default: a smaller cap is not worth a setting

#: the pad takes at most 1/LIMIT_SHARE of the room left under a memory limit
LIMIT_SHARE = 16


def _status_bytes(key: str) -> int | None:
    """A ``/proc/self/status`` size (``VmSize``, ``VmData``) in bytes, or ``None``."""
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(key.encode() + b":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def memory_limits() -> list[tuple[str, int, int | None]]:
    """``[(name, limit, used)]`` for each of ``RLIMIT_AS`` and ``RLIMIT_DATA`` that is set (soft limit, bytes),
    with what the process uses of it now (``VmSize``, ``VmData``; ``None`` if unknown)."""
    try:
        import resource
    except ImportError:  # not POSIX
        return []
    out = []
    for name, key in (("RLIMIT_AS", "VmSize"), ("RLIMIT_DATA", "VmData")):
        which = getattr(resource, name, None)
        if which is None:
            continue
        try:
            soft = resource.getrlimit(which)[0]
        except (OSError, ValueError):
            continue
        if soft != resource.RLIM_INFINITY and soft >= 0:
            out.append((name, int(soft), _status_bytes(key)))
    return out


def top_pad_under_limits(top_pad: int) -> int:
    """``top_pad``, capped at 1/:data:`LIMIT_SHARE` of the room left under each memory limit that is set
    (0 when a limit is reached, or when what the process uses of it is unknown)."""
    pad = int(top_pad)
    for _name, limit, used in memory_limits():
        room = 0 if used is None else max(0, limit - used)
        pad = min(pad, room // LIMIT_SHARE)
    return max(pad, 0)


def tune_memory(top_pad: int | None = None) -> bool:
    """Raise glibc's top pad to ``top_pad`` bytes; return whether it was applied.

    A no-op (``False``) off Linux, without glibc, or when the environment sets
    ``VECSCORE_NO_MALLOC_TUNING=1``.  Under a memory limit (``RLIMIT_AS``,
    ``RLIMIT_DATA``) the pad is at most 1/16 of the room left under it, and
    nothing is set (``False``) when that is below glibc's default of 128 KiB.
    """
    if not sys.platform.startswith("linux") or os.environ.get("VECSCORE_NO_MALLOC_TUNING") == "1":
        return False
    if top_pad is None:
        top_pad = int(os.environ.get("VECSCORE_MALLOC_TOP_PAD", DEFAULT_TOP_PAD))
    top_pad = top_pad_under_limits(top_pad)
    if top_pad < _GLIBC_TOP_PAD:
        return False
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.mallopt(_M_TOP_PAD, int(top_pad)))
    except (OSError, AttributeError, ValueError):  # not glibc: nothing to tune
        return False


# --------------------------------------------------------------------------------------
# Scratch memory of the per-pair kernels
# --------------------------------------------------------------------------------------
#
# The per-pair kernels (vecscore.kernels.pair_rouge, vecscore.kernels.pair_bleu) never
# allocate inside their parallel loops: an allocation that fails there is lost (numba
# cannot raise from a parallel region), and the call returned zeros.  Their callers size
# every scratch array from the pairs' byte lengths, allocate it here, in Python, one slab
# per thread and dtype, and the kernels carve the slabs.  A pair whose scratch is larger
# than PARALLEL_SCRATCH runs on fewer threads (one slab per thread), so that a huge pair
# costs its own scratch once, not once per thread.


class PairMemoryError(MemoryError, VecscoreError):
    """The scratch memory a pair of texts needs could not be allocated.

    Both a :class:`MemoryError` and a :class:`vecscore.VecscoreError`; the
    message names the pair (``hyps[i]``), its size, the memory it needs and
    the fix.
    """


#: scratch bytes per thread up to which pairs are scored on every thread at once
PARALLEL_SCRATCH = 64 << 20


def py_func_of(kernel):
    """A kernel's Python function (for sizes computed on int arrays), whether numba is loaded, not
    yet loaded, or disabled (``NUMBA_DISABLE_JIT=1``: the kernel is the function itself)."""
    return getattr(kernel, "py_func", kernel)


def table_slots(n):
    """``1 << vecscore.kernels.ngrams.table_bits(n)`` of an int or an int array: the smallest power
    of two ``>= max(2 * n, 16)``."""
    x = np.maximum(2 * np.asarray(n, np.int64), 16)
    return np.int64(1) << np.frexp((x - 1).astype(np.float64))[1].astype(np.int64)


def segment_sums(values, ptr):
    """``values[ptr[i]:ptr[i + 1]].sum()`` for every ``i`` (int64; empty segments give 0)."""
    cs = np.zeros(len(values) + 1, np.int64)
    np.cumsum(values, out=cs[1:])
    return cs[ptr[1:]] - cs[ptr[:-1]]


def groups(need, threads: int):
    """``[(pairs, workers)]``: the pairs (indices into ``need``, bytes of scratch each) that run
    together, and on how many threads.  Pairs needing at most :data:`PARALLEL_SCRATCH` run on
    every thread; the others together, largest first, on as many threads as
    ``threads * PARALLEL_SCRATCH`` bytes of scratch allow (at least one)."""
    need = np.asarray(need, np.int64)
    small = need <= PARALLEL_SCRATCH
    out = []
    if small.all():
        return [(np.arange(len(need), dtype=np.int64), threads)] if len(need) else []
    if small.any():
        out.append((np.flatnonzero(small).astype(np.int64), threads))
    big = np.flatnonzero(~small).astype(np.int64)
    big = big[np.argsort(-need[big], kind="stable")]
    workers = int(max(1, min(threads, len(big), (threads * PARALLEL_SCRATCH) // int(need[big[0]]))))
    out.append((big, workers))
    return out


class Slabs:
    """Per-thread scratch: for each dtype, one ``(workers, words)`` array (``arrays``) and the offsets
    (``offsets``) of the named arrays of ``layout`` (``{dtype: [(name, count)]}``) in a row of it."""

    def __init__(self, layout: dict, workers: int):
        self.layout = layout  # dtype -> [(name, count)]
        self.workers = workers
        self.arrays = {}
        self.offsets = {}
        for dtype, parts in layout.items():
            # each array from a cache line of its own, and consecutive arrays a different number of lines
            # apart modulo a page (arrays read in step would otherwise meet in the same cache sets)
            line = max(1, 64 // np.dtype(dtype).itemsize)
            off = np.zeros(len(parts) + 1, np.int64)
            for j, (_, c) in enumerate(parts):
                off[j + 1] = off[j] + -(-int(c) // line) * line + line * (j % 7 + 1)
            self.offsets[dtype] = off

    @staticmethod
    def per_worker_bytes(layout: dict):
        """Bytes of one thread's slabs (an int64 array if the layout's counts are arrays)."""
        return sum(np.dtype(dt).itemsize * sum(np.asarray(c, np.int64) for _, c in parts)
                   for dt, parts in layout.items())

    def allocate(self):
        for dtype, off in self.offsets.items():
            self.arrays[dtype] = np.empty((self.workers, max(int(off[-1]), 1)), dtype)
        return self


def allocate_slabs(layout: dict, workers: int, describe) -> Slabs:
    """:class:`Slabs` of ``layout`` for ``workers`` threads, or for one thread if that many do not
    fit; when one does not fit either, :class:`PairMemoryError` with ``describe(bytes)``."""
    while True:
        try:
            return Slabs(layout, workers).allocate()
        except MemoryError:
            if workers == 1:
                raise PairMemoryError(describe(int(Slabs.per_worker_bytes(layout)))) from None
            workers = 1


#: the fewest pairs in a chunk of the per-pair kernels (a claim costs one atomic add; every thread is
#: started and has its scratch set up whatever the chunks, so a batch of a few thousand pairs of
#: summaries, milliseconds of work, still goes to every thread)
CHUNK_PAIRS = 256

#: the text in a chunk at which it needs no more pairs: a hundred pairs of 5,000-token texts are
#: a hundred chunks, not one chunk on one thread
CHUNK_BYTES = 1 << 16


def group_bounds(n_todo: int, workers: int, threads: int, weights=None) -> np.ndarray:
    """Chunk bounds over the ``n_todo`` pairs of one of :func:`groups`' groups: on every thread,
    chunks of :data:`CHUNK_PAIRS` pairs or of :data:`CHUNK_BYTES` bytes of text (``weights``: the
    text of each of those pairs, :func:`pair_bytes`), whichever makes more chunks (at most 256), with
    about the same text in each; on fewer threads (large pairs), a pair each."""
    if workers != threads:
        return np.arange(n_todo + 1, dtype=np.int64)
    n_chunks = max(1, min(256, n_todo // CHUNK_PAIRS, n_todo))
    if weights is None or n_todo == 0:
        return (n_todo * np.arange(n_chunks + 1, dtype=np.int64)) // n_chunks
    cum = np.cumsum(weights, dtype=np.int64)
    total = int(cum[-1])
    n_chunks = max(n_chunks, min(256, n_todo, total // CHUNK_BYTES))
    cuts = np.searchsorted(cum, (total * np.arange(1, n_chunks, dtype=np.int64)) // n_chunks, side="right")
    return np.unique(np.concatenate([[0], cuts, [n_todo]]).astype(np.int64))


def pair_bytes(lens, ref_ptr) -> np.ndarray:
    """The text of each pair (its hypothesis and its references), from the lengths ``lens`` of the
    hypotheses and then the references."""
    n_pairs = len(ref_ptr) - 1
    return lens[:n_pairs] + segment_sums(lens[n_pairs:], ref_ptr)


def largest_pair_message(what: str, kinds: str, lens, ref_ptr, todo, nbytes: int) -> str:
    """:func:`pair_message` for the largest pair of ``todo`` (all pairs if ``None``) of the texts
    ``lens``/``ref_ptr`` (hypotheses first, as the per-pair kernels take them); ``kinds`` (may be
    empty) names the statistics asked for."""
    pair_b = pair_bytes(lens, ref_ptr)
    p = int(np.argmax(pair_b)) if todo is None else int(todo[np.argmax(pair_b[todo])])
    text = int(pair_b[p])
    per_byte = f"{nbytes / max(text, 1):.0f} bytes per byte of its text"
    return pair_message(what, p, int(lens[p]), text - int(lens[p]), int(ref_ptr[p + 1] - ref_ptr[p]), nbytes,
                        f"{kinds}: {per_byte}" if kinds else per_byte)


def gigabytes(n: int) -> str:
    """``n`` bytes for a message."""
    return f"{n / 1e9:.2f} GB" if n >= 10**7 else f"{n / 1e6:.1f} MB"


def pair_message(what: str, p: int, hyp_bytes: int, ref_bytes: int, n_refs: int, need: int, per_byte: str) -> str:
    """The message of a :class:`PairMemoryError` for pair ``p``."""
    return (f"{what}: pair {p} (hyps[{p}]: {hyp_bytes:,} bytes; its {n_refs} reference(s): {ref_bytes:,} bytes) "
            f"needs {gigabytes(need)} of scratch memory ({per_byte}), and allocating it failed. "
            "Free memory or raise the process's memory limit (ulimit -v), or score shorter units "
            "(split the texts into paragraphs or sentences and score those).")


#: the message of a parallel kernel whose chunk could not allocate its scratch
CHUNK_FAILED = ("vecscore: a chunk of pairs could not allocate its scratch memory inside a compiled kernel "
                "(MemoryError). Free memory or raise the process's memory limit (ulimit -v), or score smaller "
                "batches of shorter texts (split very long texts into paragraphs or sentences).")
