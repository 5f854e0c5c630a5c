"""Captions as integer arrays: token ids, n-gram ids and per-text n-gram counts, in NumPy alone.

coco-caption splits captions on whitespace (``str.split()``; its ROUGE-L on
single spaces, ``str.split(" ")``) and counts n-grams of 1 to 4 tokens.  Here
every token gets an integer id (first come, first numbered), every n-gram of
order ``k`` an exact id of its own (the pair of its ``(k-1)``-gram's id and its
last token's id, numbered densely), and a batch of texts becomes one flat
table of ``(text, n-gram, count)`` entries per order, sorted by text and
n-gram: what BLEU's clipped counts, CIDEr's document frequencies and its
TF-IDF vectors are computed from, with no Python loop over tokens or n-grams
and no numba (so a fresh process scores at once).
"""
from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from itertools import chain

import numpy as np

__all__ = ["Tokens", "tokens", "Counts", "ngram_ids", "counts_by_text", "run_starts", "unique_sorted", "unique_inverse",
           "sort_order", "lookup", "max_by_key", "Grams", "grams", "idf_classes", "square_table", "squares",
           "TABLE_COUNTS"]


def run_starts(sorted_keys: np.ndarray) -> np.ndarray:
    """Where each run of equal values starts in a sorted array."""
    if not sorted_keys.size:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])


def unique_sorted(keys: np.ndarray) -> np.ndarray:
    """``np.unique(keys)`` by sorting (NumPy 2's hash table is many times slower on large int64 arrays)."""
    s = np.sort(keys)
    return s[run_starts(s)]


def sort_order(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sorted keys, order)`` of non-negative int64 ``keys``, equal keys in their original order.

    When each key and its position fit in 63 bits together, one ``np.sort`` of ``key << b | position`` gives
    both (several times faster than ``np.argsort``); otherwise a stable ``argsort``.
    """
    n = keys.size
    bits = max(int(n - 1).bit_length(), 1)
    top = int(keys.max()) if n else 0
    if top.bit_length() + bits <= 63:
        packed = np.sort((keys << bits) | np.arange(n, dtype=np.int64))
        return packed >> bits, packed & ((1 << bits) - 1)
    order = np.argsort(keys, kind="stable")
    return keys[order], order


def max_by_key(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(distinct keys, sorted; the largest value of each)`` for non-negative int64 ``keys`` and ``values``."""
    if not keys.size:
        return keys, values
    bits = max(int(values.max()).bit_length(), 1)
    if int(keys.max()).bit_length() + bits <= 63:  # one sort of key << bits | value: a key's last is its largest
        packed = np.sort((keys << bits) | values)
        k = packed >> bits
        last = np.r_[np.flatnonzero(k[1:] != k[:-1]), k.size - 1]
        return k[last], packed[last] & ((1 << bits) - 1)
    s, order = sort_order(keys)
    first = run_starts(s)
    return s[first], np.maximum.reduceat(values[order], first)


def lookup(keys: np.ndarray, values: np.ndarray, wanted: np.ndarray, presorted: bool = False) -> np.ndarray:
    """``values`` at each of ``wanted`` in the sorted distinct ``keys``, 0 where absent.

    Unless ``wanted`` is already sorted (``presorted``), it is sorted first: binary searches in ascending order
    walk memory forwards, many times faster on large arrays than searches in random order.
    """
    out = np.zeros(wanted.size, dtype=values.dtype)
    if not keys.size or not wanted.size:
        return out
    if presorted:
        order, sorted_wanted = None, wanted
    else:
        sorted_wanted, order = sort_order(wanted)
    at = np.minimum(np.searchsorted(keys, sorted_wanted), keys.size - 1)
    found = np.where(keys[at] == sorted_wanted, values[at], 0)
    if order is None:
        return found.astype(values.dtype, copy=False)
    out[order] = found
    return out


def unique_inverse(keys: np.ndarray) -> np.ndarray:
    """``np.unique(keys, return_inverse=True)[1]``: each key's rank among the distinct keys."""
    s, order = sort_order(keys)
    flags = np.zeros(s.size, dtype=np.int64)
    flags[run_starts(s)[1:]] = 1
    inverse = np.empty(s.size, dtype=np.int64)
    inverse[order] = np.cumsum(flags)
    return inverse


@dataclass(frozen=True)
class Tokens:
    """Token ids of a batch of texts, flat, with each text's start (``starts[i]:starts[i+1]``)."""

    ids: np.ndarray  # int64, one per token
    starts: np.ndarray  # int64, len(texts) + 1
    n_vocab: int

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.starts)

    @cached_property
    def text_of(self) -> np.ndarray:
        """The text each token belongs to (computed once: every order's table needs it)."""
        return np.repeat(np.arange(len(self.starts) - 1, dtype=np.int64), self.lengths)


#: joins the texts of a batch into one string that one ``split`` call cuts: a token no text can contain
#: unless the joined string holds more of it than the joins put there (then each text is split alone)
_MARK = "\x00"

#: texts split at a time: one chunk's token strings are alive at once (about 30 MB), not the whole batch's
_CHUNK = 1 << 14


def tokens(texts: list[str], sep: str | None = None) -> Tokens:
    """Every text's ``text.split(sep)`` (``sep``: ``None`` or ``" "``) as ids shared by the whole batch (equal
    strings, equal ids).

    Chunk by chunk, the texts are joined by a marker token and split by one ``str.split`` call (about twice as
    fast as one call per text); the markers give each text's tokens back."""
    vocab: dict[str, int] = {_MARK: 0}
    ids, lengths = [], []
    for a in range(0, len(texts), _CHUNK):
        chunk = texts[a:a + _CHUNK]
        joined = f" {_MARK} ".join(chunk)
        marked = joined.count(_MARK) == len(chunk) - 1  # no text holds the marker
        rows = [] if marked else [t.split(sep) for t in chunk]
        flat = joined.split(sep) if marked else list(chain.from_iterable(rows))
        new = [w for w in dict.fromkeys(flat) if w not in vocab]
        vocab.update(zip(new, range(len(vocab), len(vocab) + len(new))))
        got = np.fromiter(map(vocab.__getitem__, flat), dtype=np.int64, count=len(flat))
        if marked:
            marks = np.flatnonzero(got == 0)
            ends = np.r_[marks, got.size] - np.arange(marks.size + 1)  # tokens before each marker and the end
            lengths.append(np.diff(ends, prepend=0))
            ids.append(got[got != 0])
        else:  # id 0 is then a text's own marker-string token, kept
            lengths.append(np.fromiter(map(len, rows), dtype=np.int64, count=len(rows)))
            ids.append(got)
    starts = np.zeros(len(texts) + 1, dtype=np.int64)
    if texts:
        np.cumsum(np.concatenate(lengths), out=starts[1:])
    return Tokens(np.concatenate(ids) if ids else np.zeros(0, dtype=np.int64), starts, len(vocab))


def ngram_ids(toks: Tokens, n: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Per order ``k`` in ``1..n``, one after the other (one order's arrays alive at a time): ``(position, id)``
    of every n-gram of ``k`` tokens inside one text.

    ``position`` indexes ``toks.ids`` (the n-gram's first token); ids are dense
    (``0..number of distinct k-grams``) and exact: two n-grams share an id when
    their tokens are equal.
    """
    ids = toks.ids
    lengths = toks.lengths
    # tokens left in its text after each token, itself included
    left: np.ndarray = np.repeat(toks.starts[1:], lengths) - np.arange(ids.size, dtype=np.int64)
    yield np.arange(ids.size, dtype=np.int64), ids
    prev = ids  # the (k-1)-gram id at every position where one starts (else unused)
    width = max(toks.n_vocab, 1)  # (k-1)-gram ids are below the number of tokens: the key fits in int64
    for k in range(2, n + 1):
        pos = np.flatnonzero(left >= k)
        dense = unique_inverse(prev[pos] * width + ids[pos + (k - 1)])
        yield pos, dense
        prev = np.zeros(ids.size, dtype=np.int64)
        prev[pos] = dense


#: counts up to this take their weights' squares from one table per order (:func:`square_table`)
TABLE_COUNTS = 16


def idf_classes(df: np.ndarray, log_n: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(idf, cls, values)`` for document frequencies ``df`` (one per n-gram): each n-gram's
    ``log_n - log(max(1, df))``, the index of its value in ``values``, and the distinct values (one per
    distinct frequency, each logarithm taken as pycocoevalcap takes it: ``np.log`` of one Python float; a
    vectorized ``np.log`` may round differently in the last bit)."""
    if not df.size:
        return np.zeros(0, dtype=np.float64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    present = np.zeros(int(df.max()) + 1, dtype=bool)
    present[df] = True
    values = log_n - _logs(present.size - 1)[np.flatnonzero(present)]
    cls = (np.cumsum(present) - 1)[df]
    return values[cls], cls, values


_LOGS = np.zeros(1, dtype=np.float64)


def _logs(top: int) -> np.ndarray:
    """``np.log(max(1.0, float(d)))`` for ``d = 0..top``, each taken on its own and kept for later calls."""
    global _LOGS
    logs = _LOGS  # read once: another thread may replace it meanwhile
    if top >= logs.size:
        more = [np.log(max(1.0, float(d))) for d in range(logs.size, max(top + 1, 2 * logs.size))]
        logs = np.concatenate([logs, np.array(more, dtype=np.float64)])
        if logs.size > _LOGS.size:
            _LOGS = logs
    return logs


def square_table(values: np.ndarray, top: int = TABLE_COUNTS) -> np.ndarray:
    """``table[k, j] = pow(k * values[j], 2)`` for counts ``k = 0..top``: a weight's square as pycocoevalcap's
    norms take it (C's ``pow``, which may differ from ``w * w`` in the last bit)."""
    vals = values.tolist()
    return np.array([[math.pow(k * v, 2) for v in vals] for k in range(top + 1)], dtype=np.float64).reshape(
        top + 1, len(vals))


def squares(count: np.ndarray, cls: np.ndarray, weight: np.ndarray, table: np.ndarray) -> np.ndarray:
    """``pow(weight, 2)`` of every entry: from ``table`` (:func:`square_table`) where the count is in it, else one
    ``pow`` each."""
    top = table.shape[0] - 1
    out = table[np.minimum(count, top), cls]
    big = np.flatnonzero(count > top)
    if big.size:
        out[big] = [math.pow(w, 2) for w in weight[big].tolist()]
    return out


@dataclass(frozen=True)
class Counts:
    """One order's n-gram counts of every text: entries sorted by ``(text, gram)``, ``start[t]:start[t+1]`` per text."""

    text: np.ndarray  # int64
    gram: np.ndarray  # int64, dense id within this order
    count: np.ndarray  # int64
    start: np.ndarray  # int64, n_texts + 1
    n_grams: int  # number of distinct ids of this order (ids are below it)
    first: np.ndarray  # int64, where the entry's n-gram first occurs in its text (a position in ``Tokens.ids``)

    def by_first(self) -> np.ndarray:
        """The entries' order by first occurrence (text by text, each text's n-grams in the order they first
        occur in it): the order pycocoevalcap's dictionaries hold them in.  Linear: positions are distinct."""
        if not self.first.size:
            return np.zeros(0, dtype=np.int64)
        slot = np.full(int(self.first.max()) + 1, -1, dtype=np.int64)
        slot[self.first] = np.arange(self.first.size, dtype=np.int64)
        return slot[slot >= 0]


def counts_by_text(toks: Tokens, order: tuple[np.ndarray, np.ndarray]) -> Counts:
    """The ``(text, gram, count)`` table of one order's n-grams (from :func:`ngram_ids`)."""
    pos, gram = order
    n_texts = len(toks.starts) - 1
    n_grams = int(gram.max()) + 1 if gram.size else 0
    text = toks.text_of[pos]
    key, perm = sort_order(text * max(n_grams, 1) + gram)  # stable: a run's first entry is its first occurrence
    heads = run_starts(key)
    count = np.diff(np.r_[heads, key.size])
    first = pos[perm[heads]]
    key = key[heads]
    text = key // max(n_grams, 1)
    gram = key - text * max(n_grams, 1)
    start = np.searchsorted(text, np.arange(n_texts + 1, dtype=np.int64))
    return Counts(text, gram, count.astype(np.int64), start, n_grams, first)


class Grams:
    """A batch's tokens (``str.split()``) and its n-gram count tables of orders ``1..n_orders``, each made when
    first asked for (the tokens too: a metric that takes the compiled route never asks), the tables one order at
    a time (:meth:`orders`); ``keep``: hold them for the next metric that asks (coco-caption's BLEU and CIDEr
    split alike), else only one order's table is alive at a time."""

    def __init__(self, texts: list[str], n_orders: int, keep: bool = True):
        self._texts = texts
        self.n_orders = n_orders
        self._keep = keep
        self._kept: list[Counts] = []

    @cached_property
    def toks(self) -> Tokens:
        return tokens(self._texts)

    @property
    def n_texts(self) -> int:
        return len(self._texts)

    def orders(self, n: int) -> Iterator[Counts]:
        """The tables of orders ``1..n`` (``n <= n_orders``), in order."""
        if n > self.n_orders:
            raise ValueError(f"the table has orders up to {self.n_orders}, not {n}")
        if len(self._kept) >= n:
            yield from self._kept[:n]
            return
        for k, order in enumerate(ngram_ids(self.toks, n)):
            if k < len(self._kept):
                yield self._kept[k]
                continue
            table = counts_by_text(self.toks, order)
            if self._keep:
                self._kept.append(table)
            yield table


def grams(texts: list[str], n: int, keep: bool = True) -> Grams:
    """The tokens of ``texts`` and, as they are asked for, their count tables of n-grams of 1 to ``n`` tokens
    (see :class:`Grams`)."""
    return Grams(texts, n, keep)
