"""Texts to n-gram tables: each text tokenized and its n-grams counted once, in one id space.

A text's *units* are what its n-grams are made of: characters (chrF), chrF++'s words, sacreBLEU's tokens
(BLEU) or rouge-score's tokens (ROUGE-N).  :func:`ngram_table` interns the n-grams of every order of a batch of
unit sequences with NumPy sorts (no per-token Python) and returns an :class:`NgramTable`, the layout that
:func:`vecscore.kernels.grid_ngrams.grid_matches` reads; :func:`plain_matches` is that kernel's NumPy twin.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, count

import numpy as np

from vecscore.engine.batch import dense_ids
from vecscore.errors import VecscoreError

__all__ = ["NgramTable", "Units", "char_units", "chrf_word_units", "token_units", "ngram_table", "plain_matches",
           "reference_sums", "check_texts", "text_entries"]

#: ASCII punctuation (``string.punctuation``), which chrF++ splits off the end (else the start) of a word
_PUNCT = re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
#: a word of two or more characters ending (group 1 + 2) or else starting (group 3 + 4) with one punctuation mark
_PUNCT_WORD = re.compile(rf"(?<!\S)(?:(\S+)([{_PUNCT}])|([{_PUNCT}])(\S+))(?!\S)")


@dataclass(frozen=True)
class Units:
    """Texts as sequences of dense unit ids: text ``t`` is ``ids[offsets[t]:offsets[t + 1]]``."""

    ids: np.ndarray  # int64
    offsets: np.ndarray  # int64, n_texts + 1

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)


@dataclass(frozen=True)
class NgramTable:
    """Every text's distinct n-grams per order, with counts (the layout of :mod:`vecscore.kernels.grid_ngrams`).

    ``totals[t, k]``: how many n-grams of order ``k + 1`` text ``t`` holds (with repeats).
    """

    start: np.ndarray  # int64 (n_texts, orders + 1)
    ids: np.ndarray  # int32
    cnts: np.ndarray  # int32
    totals: np.ndarray  # int64 (n_texts, orders)
    n_ids: int

    @property
    def orders(self) -> int:
        return self.start.shape[1] - 1

    @property
    def n_texts(self) -> int:
        return self.start.shape[0]


def check_texts(texts) -> list[str]:
    """``texts`` as a list of ``str``; anything else, or a lone surrogate, is refused naming its row."""
    if isinstance(texts, (str, bytes)) or not isinstance(texts, Iterable):
        raise VecscoreError(f"texts must be a list of str, not {type(texts).__name__}")
    texts = list(texts)
    bad = next((i for i, t in enumerate(texts) if not isinstance(t, str)), None)
    if bad is not None:
        raise VecscoreError(f"texts[{bad}] is {type(texts[bad]).__name__}, not str; every text must be a str "
                            "(replace missing values, e.g. with an empty string)")
    try:
        "".join(texts).encode("utf-8")
    except UnicodeEncodeError:
        for i, t in enumerate(texts):
            try:
                t.encode("utf-8")
            except UnicodeEncodeError:
                raise VecscoreError(f"texts[{i}] contains a lone surrogate code point, which is not valid "
                                    "Unicode text; clean or re-decode it") from None
    return texts


def _offsets(lengths) -> np.ndarray:
    lens = np.fromiter(lengths, np.int64)
    out = np.zeros(len(lens) + 1, np.int64)
    np.cumsum(lens, out=out[1:])
    return out


def char_units(texts: list[str], keep_space: bool) -> Units:
    """chrF's characters: each text without its whitespace (``str.split``'s) unless ``keep_space``."""
    if not keep_space:
        texts = ["".join(t.split()) for t in texts]
    joined = "".join(texts)
    points = np.frombuffer(joined.encode("utf-32-le"), np.uint32).astype(np.int64)
    return Units(dense_ids(points)[0], _offsets(map(len, texts)))


def chrf_word_units(texts: list[str]) -> Units:
    """chrF++'s words: whitespace-separated, one ASCII punctuation mark split off the end (else the start) of
    a word of two or more characters."""
    return token_units([_PUNCT_WORD.sub(r"\1\3 \2\4", t).split() for t in texts])


def token_units(token_lists: list[list[str]], transform: Callable[[str], str | None] | None = None) -> Units:
    """Dense ids of the tokens (interned by a dict, at C speed); ``transform`` maps each distinct token once
    (``None`` drops it: the token is removed from its text)."""
    vocab: dict[str, int] = {}
    n = sum(map(len, token_lists))
    raw = np.fromiter(map(vocab.setdefault, chain.from_iterable(token_lists), count()), np.int64, n)
    offsets = _offsets(map(len, token_lists))
    if transform is not None and n:
        words = list(vocab)
        slot = np.full(max(vocab.values()) + 1, -1, np.int64)
        slot[np.fromiter(vocab.values(), np.int64, len(vocab))] = np.arange(len(words))
        out: dict[str, int] = {}
        mapping = np.array([-1 if (w := transform(v)) is None else out.setdefault(w, len(out)) for v in words],
                           np.int64)
        raw = mapping[slot[raw]]
        keep = raw >= 0
        if not keep.all():
            kept = np.zeros(n + 1, np.int64)
            np.cumsum(keep, out=kept[1:])
            raw, offsets = raw[keep], kept[offsets]
    return Units(dense_ids(raw)[0], offsets)


def ngram_table(units: Sequence[Units], max_orders: Sequence[int], min_order: int = 1) -> NgramTable:
    """The n-grams of orders ``min_order .. max_orders[u]`` of each :class:`Units` ``units[u]`` (the same
    texts), in that order of orders, interned into one id space."""
    n_texts = len(units[0].offsets) - 1
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (text, id, count) per order
    totals: list[np.ndarray] = []
    n_ids = 0
    for u, top in zip(units, max_orders):
        lens = u.lengths
        n_units = len(u.ids)
        owner = np.repeat(np.arange(n_texts, dtype=np.int64), lens)
        end = u.offsets[1:][owner] if n_units else np.zeros(0, np.int64)
        alphabet = int(u.ids.max()) + 1 if n_units else 1
        pos = np.arange(n_units, dtype=np.int64)  # where an n-gram of the current order starts
        gid = np.zeros(n_units, np.int64)  # at those positions, the dense id of the n-gram of the order before
        for n in range(1, top + 1):
            if n == 1:
                keys = u.ids
            else:  # (dense id of the (n-1)-gram) * alphabet + the next unit: exact in int64
                pos = pos[pos + n - 1 < end[pos]]
                keys = gid[pos] * alphabet + u.ids[pos + n - 1]
            text, ids, cnts, dense = _count(keys, owner[pos], n_texts)
            gid[pos] = dense
            if n < min_order:
                continue
            parts.append((text, ids + n_ids, cnts))
            n_ids += int(dense.max()) + 1 if len(dense) else 0
            totals.append(np.maximum(lens - n + 1, 0))
    if n_ids >= 2 ** 31:
        raise VecscoreError(f"the texts hold {n_ids} distinct n-grams, more than one table holds (2**31 - 1); "
                            "prepare fewer texts at a time")
    return _assemble(parts, np.stack(totals, axis=1) if totals else np.zeros((n_texts, 0), np.int64), n_texts,
                     n_ids)


def _count(keys: np.ndarray, text: np.ndarray, n_texts: int):
    """``(text, id, count, dense)``: the distinct (text, n-gram) pairs of ``keys`` ordered by text (n-gram ids
    dense in key order), and the dense id of every key."""
    if not len(keys):
        empty = np.zeros(0, np.int64)
        return empty, empty, empty, empty
    order = np.argsort(keys, kind="stable")  # grouped by key, texts ascending within a key
    k, t = keys[order], text[order]
    new_key = np.empty(len(k), np.bool_)
    new_key[0] = True
    np.not_equal(k[1:], k[:-1], out=new_key[1:])
    gid = np.cumsum(new_key) - 1
    new_pair = new_key.copy()
    new_pair[1:] |= t[1:] != t[:-1]
    first = np.flatnonzero(new_pair)
    cnts = np.diff(np.append(first, len(k)))
    dense = np.empty(len(k), np.int64)
    dense[order] = gid
    t_first = t[first]
    # by text (a radix sort when the text numbers fit 16 bits)
    by_text = np.argsort(t_first.astype(np.int16) if n_texts < 2 ** 15 else t_first, kind="stable")
    return t_first[by_text], gid[first][by_text], cnts[by_text], dense


def _assemble(parts, totals: np.ndarray, n_texts: int, n_ids: int) -> NgramTable:
    """One table from the per-order ``(text, id, count)`` entries (each ordered by text): text ``t``'s
    entries of order ``k`` at ``start[t, k]``, no sort needed."""
    orders = len(parts)
    per_cell = np.zeros((n_texts, orders), np.int64)
    for k, (text, _, _) in enumerate(parts):
        per_cell[:, k] = np.bincount(text, minlength=n_texts)
    flat = np.zeros(n_texts * orders + 1, np.int64)
    np.cumsum(per_cell.reshape(-1), out=flat[1:])
    start = np.empty((n_texts, orders + 1), np.int64)
    start[:, :orders] = flat[:-1].reshape(n_texts, orders)
    start[:, orders] = flat[orders::orders] if orders else 0
    ids = np.empty(int(flat[-1]), np.int32)
    cnts = np.empty(int(flat[-1]), np.int32)
    for k, (text, gid, cnt) in enumerate(parts):
        first = np.cumsum(per_cell[:, k]) - per_cell[:, k]  # where text t's entries begin in this order's list
        dest = start[text, k] + np.arange(len(text), dtype=np.int64) - first[text]
        ids[dest] = gid
        cnts[dest] = cnt
    return NgramTable(start, ids, cnts, totals.astype(np.int64), n_ids)


def plain_matches(table: NgramTable, rows_a: np.ndarray, rows_b: np.ndarray) -> np.ndarray:
    """NumPy twin of :func:`vecscore.kernels.grid_ngrams.grid_matches`: int32 ``(len(rows_a), len(rows_b),
    orders)``, one vectorized pass over the entries of ``rows_b`` per row of ``rows_a``."""
    orders = table.orders
    nb = len(rows_b)
    out = np.zeros((len(rows_a), nb, orders), np.int32)
    if not len(rows_a) or not nb or not orders:
        return out
    entry, owner, order_of = text_entries(table, rows_b)
    cell = owner * orders + order_of
    b_ids, b_cnts = table.ids[entry], table.cnts[entry]
    scratch = np.zeros(table.n_ids, np.int64)
    for i, a in enumerate(np.asarray(rows_a).tolist()):
        seg = slice(table.start[a, 0], table.start[a, orders])
        scratch[table.ids[seg]] = table.cnts[seg]
        hits = np.minimum(scratch[b_ids], b_cnts)
        out[i] = np.bincount(cell, weights=hits, minlength=nb * orders).reshape(nb, orders)
        scratch[table.ids[seg]] = 0
    return out


def reference_sums(table: NgramTable, rows_b: np.ndarray) -> np.ndarray:
    """int64 ``(n_ids,)``: each n-gram's count summed over the texts ``rows_b`` (a repeated row counts again)."""
    entry = text_entries(table, rows_b)[0]
    return np.bincount(table.ids[entry], weights=table.cnts[entry], minlength=table.n_ids).astype(np.int64)


def text_entries(table: NgramTable, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(entry, owner, order)``: the entries of the texts ``rows`` (all orders, a repeated row again), for each
    the index in ``rows`` of its text and its order (0-based)."""
    lo, hi = table.start[rows, 0], table.start[rows, table.orders]
    sizes = hi - lo
    owner = np.repeat(np.arange(len(rows), dtype=np.int64), sizes)
    first = np.cumsum(sizes) - sizes
    entry = lo[owner] + np.arange(int(sizes.sum()), dtype=np.int64) - first[owner]
    # entry e of text t is of order k when start[t, k] <= e < start[t, k + 1]
    order = (entry[:, None] >= table.start[rows][owner, 1:]).sum(axis=1)
    return entry, owner, order
