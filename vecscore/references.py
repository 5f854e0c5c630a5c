"""A call's references read once (:func:`read_refs`) into :class:`Refs`: every reference, pair after pair, and
where each pair's start, in the layout the user gave (``per-example`` lists, sacreBLEU's ``streams``, or
``auto``, decided by one rule for every function and method).  The hypotheses are read by
:mod:`vecscore.inputs`."""
from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Sequence
from itertools import chain, repeat
from typing import Any

import numpy as np

from vecscore.columns import TextColumn, column_refs, column_rows, interleaved
from vecscore.errors import VecscoreError
from vecscore.inputs import UNIT_NAME, all_exact_str, as_rows, exact_tokens, exact_unit, exact_units, read_rows

__all__ = ["REFS_LAYOUTS", "AUTO_LAYOUT", "Refs", "check_layout", "read_refs", "read_constructor_refs",
           "read_pairs", "read_texts", "text_hyps", "cached_mismatch", "batch_rows"]

#: the layouts of references: a list (or one ``str``) per hypothesis, or sacreBLEU's streams (``refs[k][i]``)
REFS_LAYOUTS = ("per-example", "streams")
#: ``refs_layout="auto"``: the one layout that fits the references' shape; both fitting with
#: different meanings is an error (see :func:`read_refs`)
AUTO_LAYOUT = "auto"


def check_layout(refs_layout: str, auto: bool = True) -> str:
    """``refs_layout`` itself, after checking it names a layout (``"auto"`` only when ``auto``)."""
    valid = (AUTO_LAYOUT, *REFS_LAYOUTS) if auto else REFS_LAYOUTS
    if refs_layout not in valid:
        raise VecscoreError(f"refs_layout must be one of {', '.join(map(repr, valid))}, not {refs_layout!r}")
    return refs_layout




class Refs(Sequence):
    """A call's references, read once by :func:`read_refs`: pair ``i``'s are ``flat[ptr[i]:ptr[i + 1]]``.

    ``flat`` holds exact rows (``str``, token lists or id arrays), pair after
    pair, with streams' missing references (``None``) left out.  ``layout`` is
    the layout the user's references came in; with ``what`` (the argument's
    name) it gives every row its user's name (:meth:`name`: ``refs[2][1]``).

    A :class:`Refs` is also the sequence of its pairs' entries (one
    reference, or the list of a pair's references), and every function that
    takes references takes it as they are, without reading anything again.
    """

    __slots__ = ("flat", "ptr", "layout", "what", "kind", "_single", "_stream")

    def __init__(self, flat: Any, ptr: np.ndarray, layout: str = "per-example", what: str = "refs",
                 single: bool | np.ndarray = False, stream: np.ndarray | None = None, kind: str = "text"):
        self.flat = flat
        self.ptr = ptr
        self.layout = layout
        self.what = what
        self.kind = kind  # "text", "tokens" or "ids"
        self._single = single  # per pair: its entry was one reference, not a list (for names and entries)
        self._stream = stream  # streams with missing references: the stream of every row of flat

    @property
    def n_pairs(self) -> int:
        return len(self.ptr) - 1

    @property
    def nrefs(self) -> np.ndarray:
        return np.diff(self.ptr)

    def nrefs_label(self) -> int | str:
        """References per pair as sacreBLEU's signature prints them: an int, or ``"var"`` when they differ."""
        counts = np.unique(self.nrefs)
        return 0 if counts.size == 0 else int(counts[0]) if counts.size == 1 else "var"

    @property
    def one_each(self) -> bool:
        """Every pair has exactly one reference (then ``flat[i]`` is pair ``i``'s)."""
        return len(self.flat) == self.n_pairs

    def _is_single(self, i: int) -> bool:
        s = self._single
        return bool(s) if isinstance(s, (bool, np.bool_)) else bool(s[i])

    def __len__(self) -> int:
        return self.n_pairs

    def __getitem__(self, i):  # type: ignore[override]  # an int: one pair's entry
        if i < 0:
            i += self.n_pairs
        if not 0 <= i < self.n_pairs:
            raise IndexError(i)
        a, b = int(self.ptr[i]), int(self.ptr[i + 1])
        return self.flat[a] if b - a == 1 and self._is_single(i) else self.flat[a:b]

    def __iter__(self) -> Iterator[Any]:
        return map(self.__getitem__, range(self.n_pairs))

    def name(self, row: int) -> str:
        """The user's name of reference row ``row`` of ``flat``: ``refs[i]``, ``refs[i][j]``, or for streams
        ``refs[k][i]`` (stream ``k``, pair ``i``)."""
        i = int(np.searchsorted(self.ptr, row, side="right") - 1)
        j = row - int(self.ptr[i])
        if self.layout == "streams":
            k = j if self._stream is None else int(self._stream[row])
            return f"{self.what}[{k}][{i}]"
        return f"{self.what}[{i}]" if self._is_single(i) else f"{self.what}[{i}][{j}]"

    def replaced(self, flat: list) -> Refs:
        """The same pairs with ``flat`` (as long as this one's) in place of their references."""
        return Refs(flat, self.ptr, self.layout, self.what, self._single, self._stream, self.kind)

    def repeated(self, k: int) -> Refs:
        """The references of ``k`` concatenated copies of the pairs (for ``k`` systems scored in one call)."""
        n_rows = len(self.flat)
        ptr = (self.ptr[:-1][None, :] + n_rows * np.arange(k, dtype=np.int64)[:, None]).ravel()
        ptr = np.append(ptr, n_rows * k).astype(np.int64)
        single = self._single if isinstance(self._single, (bool, np.bool_)) else np.tile(self._single, k)
        stream = None if self._stream is None else np.tile(self._stream, k)
        return Refs(self.flat * k, ptr, self.layout, self.what, single, stream, self.kind)

    def __repr__(self) -> str:
        return f"Refs({self.n_pairs} pairs, {len(self.flat)} references, read from {self.layout!r} {self.what})"


def _count_error(n_entries: int, n_pairs: int) -> VecscoreError:
    return VecscoreError(
        f"got {n_pairs} hypotheses but {n_entries} reference entries; they must have the same length "
        "(for sacreBLEU-style reference streams pass refs_layout='streams')"
    )


def _ambiguous(n_pairs: int) -> VecscoreError:
    return VecscoreError(
        f"refs could be read two ways: {n_pairs} reference streams (sacreBLEU's layout, refs[k][i]) or, per "
        f"hypothesis, a list of {n_pairs} references (refs[i][k]); pass refs_layout='streams' or "
        "refs_layout='per-example'"
    )


def iterable(x) -> bool:
    return not isinstance(x, (str, bytes)) and hasattr(x, "__iter__")


def read_refs(refs: Any, n_pairs: int | None, kind: str, refs_layout: str = "per-example",
              what: str = "refs") -> Refs:
    """The user's references read once into :class:`Refs` (a :class:`Refs` is returned as it is).

    ``n_pairs``: the number of hypotheses (``None``: references cached alone,
    see below).  Layouts:

    ``"per-example"``
        ``refs[i]`` is pair ``i``'s reference or list of references.
    ``"streams"``
        sacreBLEU's ``refs[k][i]``, every stream one entry per hypothesis
        (``None``: missing).
    ``"auto"``
        The one of the two that the shape fits: streams when every entry is
        a sequence with one entry per hypothesis, else per-example; when both
        fit with different meanings (as many streams as hypotheses, and the
        square not symmetric) the call is refused and names both spellings.
        So sacreBLEU's own calls give sacreBLEU's numbers, and no shape is
        read one way when it could mean the other.  With ``n_pairs=None``
        (a class's cached references, before any hypothesis), equal-length
        sequences are streams (sacreBLEU's) unless they are as many as
        their length; then they are ambiguous as above.
    """
    if isinstance(refs, Refs):
        if n_pairs is not None and refs.n_pairs != n_pairs:
            raise _count_error(refs.n_pairs, n_pairs)
        if refs.kind != kind:
            raise VecscoreError(f"the hypotheses are {kind} but the references were read as {refs.kind}")
        return refs
    check_layout(refs_layout)
    if not iterable(refs):
        raise VecscoreError(f"{what} must be a sequence with one entry per hypothesis (or streams with "
                            "refs_layout='streams')")
    if kind == "text":
        column = column_refs(refs, what)
        if column is not None:  # a list column: its references and offsets as they are
            flat, ends = column
            return _read_text_refs(flat, ends, False, n_pairs, refs_layout, what)
    entries = as_rows(refs, what)
    if kind == "text":
        return _text_refs(entries, n_pairs, refs_layout, what)
    read = _other_refs(entries, n_pairs, kind, refs_layout, what)
    read.kind = kind
    return read


def read_constructor_refs(refs: Any, refs_layout: str, kind: str | Callable[[list], str]) -> Refs:
    """References given to a metric's constructor (``BLEU(references=...)``, ``CHRF(references=...)``), before
    any hypothesis: a sequence (for ``refs_layout="streams"`` a non-empty list of streams), read once by
    :func:`read_refs`.  ``kind``: their input kind, or a function of the entries that decides it."""
    if isinstance(refs, (str, bytes)) or not hasattr(refs, "__iter__"):
        raise VecscoreError("references must be a sequence (streams refs[k][i], or per-example refs[i])")
    entries = as_rows(refs, "references")
    if refs_layout == "streams" and (not entries or isinstance(entries[0], (str, bytes))
                                     or not hasattr(entries[0], "__len__")):
        raise VecscoreError("references must be a non-empty list of reference streams (refs[k][i])")
    return read_refs(entries, None, kind(entries) if callable(kind) else kind, refs_layout, "references")


def read_pairs(hyps: Any, refs: Any, refs_layout: str = "per-example", *, hyps_name: str = "hyps",
               refs_name: str = "refs") -> tuple[list, str, Refs]:
    """``(hyps, kind, refs)``: a call's hypotheses (:func:`read_rows`) and references (:func:`read_refs`),
    each read once."""
    rows, kind = read_rows(hyps, hyps_name)
    return rows, kind, read_refs(refs, len(rows), kind, refs_layout, refs_name)


def text_hyps(hyps: Any, metric: str) -> list:
    """The hypotheses of a metric that tokenizes text itself (chrF, TER), read once: exact ``str``
    (:func:`vecscore.inputs.exact_units`), or a string column as it is."""
    rows = as_rows(hyps, "hyps")
    if len(rows) and not isinstance(rows[0], str):
        raise VecscoreError(f"{metric} scores texts: hyps[0] is {type(rows[0]).__name__}; pass the texts (a list of "
                            f"str), which {metric} tokenizes itself")
    return exact_units(rows, "text", "hyps")


def read_texts(hyps: Any, refs: Any, refs_layout: str, metric: str, refs_name: str = "refs") -> tuple[list, Refs]:
    """``(hyps, refs)`` of a metric that tokenizes text itself: :func:`text_hyps` and :func:`read_refs`."""
    rows = text_hyps(hyps, metric)
    return rows, read_refs(refs, len(rows), "text", refs_layout, refs_name)


def _any(single) -> bool:
    return bool(single) if isinstance(single, (bool, np.bool_)) else bool(single.any())


def _text_refs(entries: list, n_pairs: int | None, layout: str, what: str) -> Refs:
    """:func:`read_refs` of texts: every entry read once (C-level for lists and tuples of references)."""
    if layout != "streams" and all_exact_str(entries):  # one exact str per pair
        n = len(entries) if n_pairs is None else n_pairs
        if len(entries) != n:
            raise _count_error(len(entries), n)
        return Refs(entries, np.arange(n + 1, dtype=np.int64), "per-example", what, True)
    single: bool | np.ndarray = False
    streams = _column_streams(entries, n_pairs, layout, what)
    if streams is not None:
        return streams
    types = list(map(type, entries))
    if types.count(list) + types.count(tuple) == len(types):
        flat: list = []
        # list += entry: each entry read once, its items appended and the running length taken together
        ends = np.fromiter(map(len, map(flat.__iadd__, entries)), np.int64, count=len(entries))
    elif entries and types.count(np.ndarray) == len(types) and all(e.ndim == 1 for e in entries):
        # NumPy arrays of references (pandas' read_parquet of a list column, the rows of a 2-d array)
        ends = np.cumsum(np.fromiter(map(len, entries), np.int64, count=len(entries)))
        flat = np.concatenate(entries).tolist()
    else:
        flat, ends, single = _read_entries(entries, layout, what)
    return _read_text_refs(flat, ends, single, n_pairs, layout, what)


def _column_streams(entries: list, n_pairs: int | None, layout: str, what: str) -> Refs | None:
    """:class:`Refs` of reference streams that are all string columns, read as columns (no ``str`` made): one
    stream as it is, several interleaved pair after pair by Arrow (a copy of their bytes).  ``None`` for other
    entries, and where ``"auto"`` could also read them as one entry per pair (the general reading decides)."""
    if layout == "per-example" or not entries or (layout == AUTO_LAYOUT and len(entries) == n_pairs):
        return None
    columns = []
    for k, e in enumerate(entries):
        column = None if isinstance(e, (str, list, tuple, np.ndarray)) else column_rows(e, f"{what}[{k}]")
        if not isinstance(column, TextColumn):
            return None
        columns.append(column)
    if len(columns) == 1:
        return _read_text_refs(columns[0], np.array([len(columns[0])], np.int64), False, n_pairs, layout, what)
    k, n = len(columns), len(columns[0]) if n_pairs is None else n_pairs
    if (layout == AUTO_LAYOUT and k == n) or any(len(c) != n for c in columns):
        return None  # the general reading names the stream whose length is wrong, or decides the layout
    return Refs(interleaved(columns), np.arange(0, k * n + 1, k, dtype=np.int64), "streams", what)


def _read_text_refs(flat: Sequence, ends: np.ndarray, single, n_pairs: int | None, layout: str, what: str) -> Refs:
    """:class:`Refs` of entries read into ``flat`` (entry ``k``'s items end at ``ends[k]``): texts made exact,
    the layout decided and checked."""
    ptr = np.zeros(len(ends) + 1, np.int64)
    ptr[1:] = ends
    missing = _exact_texts(flat, ptr, single, what)
    if layout == AUTO_LAYOUT:
        layout = _text_layout(flat, ptr, single, n_pairs, missing)
    if layout == "streams":
        return _streams(flat, ptr, single, n_pairs, missing, what)
    n_entries = len(ends)
    n = n_entries if n_pairs is None else n_pairs
    if n_entries != n:
        raise _count_error(n_entries, n)
    lens = np.diff(ptr)
    empty = int(np.argmax(lens == 0)) if (lens == 0).any() else n
    none = _first_none(flat) if missing else None
    if none is not None and int(np.searchsorted(ptr, none, side="right")) - 1 < empty:
        raise VecscoreError(f"{_entry_name(ptr, single, none, what)} is None, not a str")
    if empty < n:
        raise VecscoreError(f"{what}[{empty}] is an empty list of references; every pair needs at least one reference")
    return Refs(flat, ptr, "per-example", what, single)


def _read_entries(entries: list, layout: str, what: str) -> tuple[list, np.ndarray, np.ndarray]:
    """``(flat, ends, single)`` of entries that are not all lists or tuples: each read once."""
    flat: list = []
    ends = np.empty(len(entries), np.int64)
    single = np.zeros(len(entries), np.bool_)
    for k, e in enumerate(entries):
        if isinstance(e, str):
            flat.append(e)
            single[k] = True
        elif iterable(e):
            flat += as_rows(e, f"{what}[{k}]")
        elif layout == "streams":
            raise VecscoreError(f"reference stream {k} is not a sequence of references")
        else:
            raise VecscoreError(f"{what}[{k}] is {e!r:.60}; expected a str or a list of them")
        ends[k] = len(flat)
    return flat, ends, single


def _entry_name(ptr: np.ndarray, single, row: int, what: str) -> str:
    """The user's name of item ``row`` of the entries read into ``flat``: ``refs[k]`` or ``refs[k][j]``."""
    k = int(np.searchsorted(ptr, row, side="right") - 1)
    one = bool(single) if isinstance(single, (bool, np.bool_)) else bool(single[k])
    return f"{what}[{k}]" if one else f"{what}[{k}][{row - int(ptr[k])}]"


def _exact_texts(flat: Any, ptr: np.ndarray, single, what: str) -> bool:
    """Make every text of ``flat`` exact (in place); whether it holds a ``None``. Other items are named."""
    if all_exact_str(flat):
        return False
    missing = False
    for row, x in enumerate(flat):
        if type(x) is not str:
            if isinstance(x, str):
                flat[row] = str.__str__(x)
            elif x is None:
                missing = True
            else:
                raise VecscoreError(f"{_entry_name(ptr, single, row, what)} is {x!r:.60}, not a str")
    return missing


def _first_none(flat: Sequence) -> int:
    return next(i for i, x in enumerate(flat) if x is None)


def _transposed(flat: Sequence, n: int) -> list:
    """``flat`` read as an ``n x n`` table, row after row, transposed (C-level slices)."""
    out = [None] * (n * n)
    for k in range(n):
        out[k::n] = flat[k * n:(k + 1) * n]
    return out


def _text_layout(flat: Sequence, ptr: np.ndarray, single, n_pairs: int | None, missing: bool) -> str:
    """``"auto"``'s layout of entries read into ``flat`` (texts exact, or ``None``: ``missing``)."""
    n_entries = len(ptr) - 1
    if n_entries == 0 or _any(single):
        return "per-example"
    lens = np.diff(ptr)
    m = int(lens[0]) if n_pairs is None else n_pairs
    if not (lens == m).all():
        if n_pairs is not None and n_entries != n_pairs:
            raise _neither(lens, n_pairs)
        return "per-example"
    if n_entries != m or missing:  # None marks a missing reference, in streams only
        return "streams"
    if flat == _transposed(flat, m):  # exact str and None: no user code runs
        return "streams"  # the two readings agree when the square is symmetric (e.g. one pair)
    raise _ambiguous(m)


def _neither(lens: np.ndarray, n_pairs: int) -> VecscoreError:
    """The error of lists of references that fit neither layout."""
    k = int(np.argmax(lens != n_pairs))
    return VecscoreError(
        f"got {n_pairs} hypotheses but {len(lens)} reference entries, which fit neither layout: per hypothesis "
        f"(refs[i]) there must be one entry per hypothesis; as sacreBLEU's reference streams (refs[k][i]), "
        f"reference stream {k} has {int(lens[k])} references but there are {n_pairs} hypotheses (every stream "
        "needs one entry per hypothesis, None for a missing one)"
    )


def _streams(flat: Sequence, ptr: np.ndarray, single, n_pairs: int | None, missing: bool, what: str) -> Refs:
    """Streams (``flat``: stream after stream) regrouped pair after pair, ``None`` left out."""
    n_streams = len(ptr) - 1
    if n_streams == 0:
        raise VecscoreError("refs_layout='streams' needs at least one reference stream")
    if _any(single):
        k = int(np.argmax(single)) if isinstance(single, np.ndarray) else 0
        raise VecscoreError(f"reference stream {k} is not a sequence of references")
    lens = np.diff(ptr)
    n = int(lens[0]) if n_pairs is None else n_pairs
    bad = np.flatnonzero(lens != n)
    if bad.size:
        k = int(bad[0])
        raise VecscoreError(f"reference stream {k} has {int(lens[k])} references but there are {n} hypotheses; "
                            "every stream needs one entry per hypothesis (None for a missing one)")
    if not missing:
        if n_streams == 1:
            rows = flat
        else:
            rows = [None] * (n_streams * n)
            for k in range(n_streams):
                rows[k::n_streams] = flat[k * n:(k + 1) * n]
        return Refs(rows, np.arange(0, n_streams * n + 1, n_streams, dtype=np.int64), "streams", what)
    present = ~np.fromiter(map(operator.is_, flat, repeat(None)), np.bool_, count=len(flat))
    grid = present.reshape(n_streams, n)
    counts = grid.sum(axis=0)
    if (counts == 0).any():
        i = int(np.argmax(counts == 0))
        raise VecscoreError(f"pair {i} has no reference: it is None in every reference stream; "
                            "every hypothesis needs at least one reference")
    order = np.arange(n_streams * n, dtype=np.int64).reshape(n_streams, n).T.ravel()  # pair after pair
    keep = order[present[order]]
    new_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=new_ptr[1:])
    return Refs(list(map(flat.__getitem__, keep.tolist())), new_ptr, "streams", what, stream=keep // max(n, 1))


def _sequence(x) -> bool:
    return iterable(x) and hasattr(x, "__len__")


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        a, b = exact_tokens(a) or a, exact_tokens(b) or b  # tokens compared by their characters
        return list(a) == list(b)
    return a == b


def _other_layout(entries: list, n_pairs: int | None) -> str:
    """``"auto"``'s layout of token or id references (each sequence entry read once, into ``entries``)."""
    if not entries or not all(_sequence(s) for s in entries):
        return "per-example"
    for k, s in enumerate(entries):
        if not isinstance(s, (list, tuple)):
            entries[k] = as_rows(s, f"refs[{k}]")
    m = len(entries[0]) if n_pairs is None else n_pairs
    if any(len(s) != m for s in entries):
        if n_pairs is not None and len(entries) != n_pairs:
            raise _neither(np.fromiter(map(len, entries), np.int64, len(entries)), n_pairs)
        return "per-example"
    if len(entries) != m or any(x is None for s in entries for x in s):  # None: a missing reference (streams)
        return "streams"
    if all(_same(entries[k][i], entries[i][k]) for k in range(m) for i in range(k)):
        return "streams"
    raise _ambiguous(m)


def _other_refs(entries: list, n_pairs: int | None, kind: str, layout: str, what: str) -> Refs:
    """:func:`read_refs` of token lists and token ids."""
    if layout == AUTO_LAYOUT:
        layout = _other_layout(entries, n_pairs)
    stream = None
    if layout == "streams":
        if not entries:
            raise VecscoreError("refs_layout='streams' needs at least one reference stream")
        for k, s in enumerate(entries):
            if not iterable(s):
                raise VecscoreError(f"reference stream {k} is not a sequence of references")
            entries[k] = as_rows(s, f"{what}[{k}]")
        n = len(entries[0]) if n_pairs is None else n_pairs
        for k, s in enumerate(entries):
            if len(s) != n:
                raise VecscoreError(f"reference stream {k} has {len(s)} references but there are {n} hypotheses; "
                                    "every stream needs one entry per hypothesis (None for a missing one)")
        per_pair = [[(s[i], k) for k, s in enumerate(entries) if s[i] is not None] for i in range(n)]
        missing = next((i for i, r in enumerate(per_pair) if not r), None)
        if missing is not None:
            raise VecscoreError(f"pair {missing} has no reference: it is None in every reference stream; "
                                "every hypothesis needs at least one reference")
        stream = np.fromiter((k for r in per_pair for _, k in r), np.int64)
        entries = [[x for x, _ in r] for r in per_pair]
    n = len(entries) if n_pairs is None else n_pairs
    if len(entries) != n:
        raise _count_error(len(entries), n)
    fast = _fast_tokens(entries, n) if kind == "tokens" and stream is None else None
    if fast is not None:
        flat, ptr, single = fast
    else:
        flat, ptr, single = _checked_entries(entries, n, kind, what)
    if stream is not None:
        return Refs(flat, ptr, "streams", what, stream=stream)
    return Refs(flat, ptr, "per-example", what, single)


def _fast_tokens(entries: list, n: int):
    """Per-example token lists by C-level checks: every entry one reference (a list of ``str``) or every
    entry a list of them; ``None``: take the checked path."""
    if n == 0 or not set(map(type, entries)) <= {list, tuple}:
        return None
    flat: list = []
    ends = np.fromiter(map(len, map(flat.__iadd__, entries)), np.int64, count=n)
    ptr = np.zeros(n + 1, np.int64)
    ptr[1:] = ends
    if (np.diff(ptr) == 0).any():
        return None
    inner = set(map(type, flat))
    if inner <= {str}:  # one reference per pair
        return entries, np.arange(n + 1, dtype=np.int64), True
    if inner <= {list, tuple} and all_exact_str(chain.from_iterable(flat)):
        return flat, ptr, False
    return None


def _checked_entries(entries: list, n: int, kind: str, what: str):
    """``(flat, ptr, single)`` of per-example entries, each read once; errors name the row."""
    entries = [list(r) if isinstance(r, (list, tuple)) else r for r in entries]  # each read once
    units = [exact_unit(r, kind) for r in entries]
    if all(u is not None for u in units):  # one reference per pair (an empty token list too)
        return units, np.arange(n + 1, dtype=np.int64), True
    flat: list = []
    counts = np.empty(n, np.int64)
    single = np.zeros(n, np.bool_)
    for i, (r, unit) in enumerate(zip(entries, units)):
        if unit is not None and not (kind != "text" and len(r) == 0):
            flat.append(unit)
            counts[i] = 1
            single[i] = True
            continue
        if not isinstance(r, list):
            raise VecscoreError(f"{what}[{i}] is {r!r:.60}; expected {UNIT_NAME[kind]} or a list of them")
        if len(r) == 0:
            hint = " (write [[]] for one empty reference)" if kind != "text" else ""
            raise VecscoreError(f"{what}[{i}] is an empty list of references; "
                                f"every pair needs at least one reference{hint}")
        for j, x in enumerate(r):
            unit = exact_unit(x, kind)
            if unit is None:
                raise VecscoreError(f"{what}[{i}][{j}] is {x!r:.60}, not {UNIT_NAME[kind]}")
            flat.append(unit)
        counts[i] = len(r)
    ptr = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=ptr[1:])
    return flat, ptr, single


def cached_mismatch(n_hyps: int, refs: Refs) -> VecscoreError:
    """The error of a class's call whose hypotheses are not as many as its cached references' pairs."""
    hint = (" (they were read as sacreBLEU's reference streams, refs[k][i]; for one list of references per "
            "hypothesis pass refs_layout='per-example')") if refs.layout == "streams" else ""
    return VecscoreError(f"got {n_hyps} hypotheses but the cached references have {refs.n_pairs} entries; they must "
                         f"match (sacreBLEU would silently score only the shorter prefix){hint}")


def batch_rows(hyps: Sequence[Any], refs: Sequence[Any],
               refs_layout: str = "per-example") -> tuple[str, list, np.ndarray]:
    """``(kind, rows, ref_ptr)`` of a checked batch: every text, hypotheses first, then the flattened references.

    The references of pair ``i`` are rows ``n + ref_ptr[i] .. n + ref_ptr[i + 1]``.
    """
    rows, kind, r = read_pairs(hyps, refs, refs_layout)
    return kind, rows + r.flat, r.ptr
