"""Which route scores a call: the compiled kernels or the small-batch route.

The two routes compute the same integer statistics, and scores from them with
the same operations, so they give the same numbers bit for bit (the tests
check it on the real corpora and at the switch):

``compiled``
    numba kernels: hundreds of times faster than the official tools per pair,
    but the first call in a fresh environment compiles them (tens of seconds
    to minutes; cached on disk afterwards, see :mod:`vecscore.cache_dir`) and
    every process pays numba's import and cache loading (~0.5 s).
``plain``
    :mod:`vecscore.rouge.plain`, :mod:`vecscore.bleu.plain`, :mod:`vecscore.rouge.rouge155.plain`:
    Python and NumPy, no numba at all: the first score
    in a fresh environment comes in well under a second.

``auto`` (the default) takes the plain route when the plain route implements
the options asked for and the call's estimated work, its characters
(hypotheses and references together) times the cost per character of its
kind of work (:data:`COST`), is at most :data:`PLAIN_MAX_CHARS`: about half a
second of Python on a current core, which is also what the compiled route
needs just to load numba and its cached kernels.  Below that the plain route
wins whether the kernel cache is warm or cold; above it a warm cache wins,
and a cold one compiles first (``vecscore warmup`` does that ahead of time).
Once a kind of call has run on the compiled route in a process, later calls of
that kind take it whatever their size (its kernels are loaded by then).  The
budget is also the process's: many small calls, each under it, take the plain
route only until their work together has reached it, then the compiled route
(so a loop of small calls spends at most about twice what the better route
would have).  Once numba is loaded, a kind whose kernels are not loaded yet
needs only those from the cache (about a tenth of numba's start-up), so the
budget is then :data:`LOADED_PLAIN_MAX_CHARS`.
Where built kernel modules (:mod:`vecscore.built`) hold every group of kernels a call needs (and numba is not
loaded in the process), ``auto`` takes the compiled route at every size: they load in a millisecond, without
numba.
``VECSCORE_ROUTE=plain`` or ``=compiled`` forces one (``plain``
still falls back to the kernels for options it does not implement).

Compilation off the critical path (:mod:`vecscore.background`): when a call
above that budget would need kernels that are not in the disk cache (no
readiness marker for its kind or its warmup group), ``auto`` keeps it on the
plain route as long as the process's plain work stays below the estimated
compile time of what is missing (:data:`vecscore.background.COMPILE_SECONDS`,
converted with :data:`vecscore.background.SECONDS_PER_CHAR`), and starts one
low-priority background process that builds the group's kernel module (or, where
no module can be built, compiles the group into the cache); once it has finished
(the module or the marker appears), large calls take the compiled route.
Larger calls compile in the foreground.  ``VECSCORE_BACKGROUND_COMPILE=0``
turns this off.

One protocol for every metric: a route that may not apply to a call (the
plain route, and the per-pair fast kernels inside the compiled route:
``vecscore.rouge.direct.direct_stats``, ``vecscore.bleu.direct.direct_stats``)
returns the call's statistics, or ``None`` when it does not apply, and the
caller tries the next route.  The general compiled route always applies.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import islice

from vecscore.columns import JoinedRows, TextColumn
from vecscore.errors import VecscoreError

__all__ = ["ROUTES", "PLAIN_MAX_CHARS", "LOADED_PLAIN_MAX_CHARS", "COST", "route", "use_plain", "note_compiled",
           "is_warm", "text_chars", "capped_sum", "preferred", "reset"]

ROUTES = ("auto", "plain", "compiled")

#: the plain route's budget under ``auto``, in characters of the cheapest work (``COST`` 1:
#: rouge-score's rouge1/2/L, ~0.25 us per character): 2,000,000 is ~0.5 s, or about
#: 6,000 sentence pairs of rouge1/2/L, 3,000 of BLEU (``benchmarks/cold_start.py`` measures it)
PLAIN_MAX_CHARS = 2_000_000

#: the plain route's budget once numba is loaded (a compiled call ran in this process): what loading one more
#: kind's kernels from the on-disk cache costs, about 0.05 s
LOADED_PLAIN_MAX_CHARS = 200_000

#: relative cost per character of the plain route, by kind of work (measured on WMT21 and REALSumm)
COST = {
    "rouge": 1,  # rouge-score tokenizer, rougeN and rougeL
    "rouge+lsum": 2,  # ... with rougeLsum's per-sentence LCS tables
    "bleu": 2,  # sacreBLEU's 13a, intl, none; NLTK on token lists
    "bleu-char": 5,  # one token per character
    "bleu-zh": 8,  # one token per Chinese character, plus the zh rules
    "rouge155": 2,  # the script's tokenizer, ROUGE-N/L/W/S
    "meteor": 40,  # METEOR 1.5: the jar's normalizer, four matchers and its beam search, per pair in Python
}


def route() -> str:
    """The route setting: ``VECSCORE_ROUTE`` (``auto`` when unset)."""
    value = os.environ.get("VECSCORE_ROUTE", "auto").strip().lower() or "auto"
    if value not in ROUTES:
        raise VecscoreError(f"VECSCORE_ROUTE must be one of {', '.join(ROUTES)}, not {value!r}")
    if value == "auto":
        return getattr(_preferred, "value", "auto")
    return value


_preferred = threading.local()


@contextmanager
def preferred(value: str) -> Iterator[None]:
    """Within the block (this thread), ``auto`` means ``value``; a ``VECSCORE_ROUTE`` the user set still wins.

    For a caller that knows its job is larger than each of its calls: a significance test scores many
    systems against one set of references, each call too small to pay numba's start-up alone.
    """
    if value not in ROUTES:
        raise VecscoreError(f"route must be one of {', '.join(ROUTES)}, not {value!r}")
    with _scoped(_preferred, value, "auto"):
        yield


def _length(x) -> int:
    return len(x) if isinstance(x, str) else 16


_cap = threading.local()


def _size_cap() -> int:
    """Where :func:`capped_sum` and :func:`text_chars` stop: :data:`PLAIN_MAX_CHARS`, or more while
    :func:`use_plain` weighs a call against a compile time (:func:`_counting_to`)."""
    return max(PLAIN_MAX_CHARS, getattr(_cap, "value", 0))


def _counting_to(cap: int):
    return _scoped(_cap, cap, 0)


@contextmanager
def _scoped(local: threading.local, value, default) -> Iterator[None]:
    """``local.value`` is ``value`` within the block (this thread), then what it was (``default``: unset)."""
    previous = getattr(local, "value", default)
    local.value = value
    try:
        yield
    finally:
        local.value = previous


def capped_sum(lengths) -> int:
    """``sum(lengths)``, but it stops once past :data:`PLAIN_MAX_CHARS` (it then returns that plus one).

    Enough to decide the route (a cost is at least 1), and cheap for a large
    batch: every length read touches a string object scattered in memory.
    (While :func:`use_plain` weighs a call whose kernels are not compiled, the
    cap is the compile time's budget instead.)
    """
    cap = _size_cap()
    total = 0
    for block in _blocks(lengths):
        total += sum(block)
        if total > cap:
            return cap + 1
    return total


def _blocks(lengths, size: int = 1024):
    it = iter(lengths)
    while True:
        block = list(islice(it, size))
        if not block:
            return
        yield block


def text_chars(*groups) -> int:
    """Characters in every ``str`` of the given sequences (other items count 16 each), capped as :func:`capped_sum`."""
    cap = _size_cap()
    total = 0
    for rows in groups:
        if isinstance(rows, JoinedRows):
            total += text_chars(*rows.parts)
            if total > cap:
                return cap + 1
            continue
        if isinstance(rows, TextColumn):  # its bytes: at least its characters, read without decoding
            total += rows.nbytes()
            if total > cap:
                return cap + 1
            continue
        rows = rows if isinstance(rows, (list, tuple)) else list(rows)
        for i in range(0, len(rows), 1024):
            block = rows[i : i + 1024]
            total += sum(map(len, block)) if set(map(type, block)) <= {str} else sum(map(_length, block))
            if total > cap:
                return cap + 1
    return total


#: the kinds of call (see ``warm`` in :func:`use_plain`) that have run on the compiled route in this process
_WARM: set = set()

#: the work (characters times cost) this process has done on the plain route under ``auto``
_spent = 0


def _kinds(warm) -> frozenset:
    return warm if isinstance(warm, frozenset) else frozenset((warm,))


def note_compiled(warm) -> None:
    """Record that a call of kind ``warm`` ran on the compiled route: its kernels are now loaded.

    ``warm`` is one kind, or a ``frozenset`` of kinds whose kernels the call loaded together.  The first time
    in a process, the kinds are also marked ready in the cache folder for later processes
    (:func:`vecscore.background.mark_kinds`)."""
    kinds = _kinds(warm)
    if kinds <= _WARM:
        return
    from vecscore import background

    background.mark_kinds(kinds - _WARM)
    _WARM.update(kinds)


def is_warm(warm) -> bool:
    """Whether a call of kind ``warm`` (every kind, for a ``frozenset``) ran on the compiled route in this process."""
    return _kinds(warm) <= _WARM


def reset() -> None:
    """Forget what this process has run: no kind warm, no plain-route work done (for tests)."""
    global _spent
    _WARM.clear()
    _spent = 0
    from vecscore import background

    background.reset()


def _built(warm) -> bool:
    """Whether built modules (:mod:`vecscore.built`) hold the kernels of every group a call of kind ``warm``
    needs."""
    from vecscore import background

    groups = background.groups_of(warm)
    return bool(groups) and all(background.module_ready(g) for g in groups)


def use_plain(supported: bool, size, cost: float = 1, warm=None, final: bool = True) -> bool:
    """Whether this call takes the plain route.

    ``supported``: the plain route implements the call's options.  ``size``:
    the call's text characters, or a zero-argument callable giving them (only
    called under ``auto``); ``cost``: the relative cost per character (:data:`COST`).
    ``warm``: the kind of call (e.g. ``("bleu", "text", "13a")``); once a call of that
    kind has run on the compiled route in this process (:func:`note_compiled`), its
    kernels are loaded and the compiled route is faster at every size, so later calls
    of that kind take it (scoring systems one by one, a loop over batches).
    ``final``: whether a ``True`` answer sends the call to the plain route (its work is
    then counted against the process's budget), or is a first look at part of the call
    that another question settles.  Without ``warm`` (a helper step, not a scoring call),
    the step goes by its own size only.

    Above the budget, a call whose kinds' kernels are not compiled in the disk cache takes the
    plain route while the process's plain work stays below their estimated compile time, and
    (``final``) starts their background compile (:mod:`vecscore.background`).
    """
    global _spent
    if not supported:
        return False
    r = route()
    if r != "auto":
        return r == "plain"
    if warm is not None and is_warm(warm):  # before the size: counting a large batch's characters takes time
        return False
    if warm is not None and _built(warm):  # built kernels load in a millisecond: faster at every size
        return False
    # a size function stops counting past the budget; with a cost below 1 that is past the budget over the cost
    cap = max(PLAIN_MAX_CHARS, int(PLAIN_MAX_CHARS / cost) + 1 if 0 < cost < 1 else 0)
    if callable(size):
        with _counting_to(cap):
            n = size()
    else:
        n = size
    if warm is None:  # not a kind of scoring call (a helper step): by its own size
        return n * cost <= PLAIN_MAX_CHARS
    from vecscore._jit import is_active

    budget = LOADED_PLAIN_MAX_CHARS if is_active() else PLAIN_MAX_CHARS
    plain = _spent + n * cost <= budget
    if not plain:
        from vecscore import background

        cold, groups = background.cold_budget(warm)
        if _spent + min(n, cap + 1) * cost <= cold:  # worth counting past the usual cap
            if callable(size) and n > cap:
                with _counting_to(int(cold // cost) + 1):
                    n = size()
            plain = _spent + n * cost <= cold
            if plain and final:
                background.start(groups)
    if plain and final:
        _spent += n * cost
    return plain
