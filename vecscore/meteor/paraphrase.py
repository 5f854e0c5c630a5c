"""METEOR 1.5's paraphrase table (``paraphrase-en.gz``) as flat arrays, for its paraphrase module.

The table is a gzip file of entries of three lines each: a probability (not used by the jar), a reference
phrase and its paraphrase, read as UTF-8 (malformed bytes read as U+FFFD as Java reads them, lines ended by
``\\n``, ``\\r`` or ``\\r\\n``) and split into words at spaces, tabs and form feeds (Java's
``StringTokenizer``).  Entry ``p`` is paraphrase number ``p`` (file order).  Every word of either phrase is in
the vocabulary; a word outside it translates to ``-1`` and matches nothing.

The reference phrases form a trie over word numbers.  From a position in a text, :meth:`ParaphraseTable.
reference_paths` follows the text's words down the trie and lists, for each node reached, the paraphrases it
emits: pairs ``(phrase length, paraphrase number)`` by length, then by file order, exactly the order in which
the jar's transducer returns them (which decides ties later on).

The arrays, all read-only (memory-mapped from the cache by :func:`load_paraphrases`):

* ``vocab``: a :class:`~vecscore.meteor.resources.StringIndex` of the words (arrays ``word_*``);
* node ``v``'s children (node 0 is the root): edge words ``child_word[child_ptr[v]:child_ptr[v + 1]]``
  (ascending) to nodes ``child_node[child_ptr[v]:child_ptr[v + 1]]``;
* the paraphrases node ``v`` emits: ``emit[emit_ptr[v]:emit_ptr[v + 1]]`` (file order);
* paraphrase ``p``'s words: ``para_words[para_ptr[p]:para_ptr[p + 1]]``.

Every array of numbers is ``int64``, the type the alignment kernels take, so that they use the memory-mapped
arrays as they are (:meth:`ParaphraseTable.translate` gives ``int32`` word numbers).  The table is built with
NumPy in one pass over the file's bytes (about 15 to 25 seconds for the 62 MB ``paraphrase-en.gz``) and
cached.
"""
from __future__ import annotations

import codecs
import gzip
import os
import threading
import zlib
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.meteor.resources import StringIndex, build_string_index, cached_arrays, find_paraphrase, java_decode

__all__ = ["ParaphraseTable", "load_paraphrases", "build_paraphrase_arrays"]


def _java_text(data: bytes) -> bytes:
    """``data`` as the jar's reader sees it, re-encoded: malformed UTF-8 replaced by U+FFFD, every line ended by
    ``\\n``."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:  # checked a slice at a time: decoding all at once would hold the whole text as a str
        for k in range(0, len(data), 1 << 24):
            decoder.decode(view[k:k + (1 << 24)])
        decoder.decode(b"", True)
    except UnicodeDecodeError:
        data = java_decode(data).encode("utf-8")
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if data and not data.endswith(b"\n"):
        data += b"\n"
    return data


def _tokens(data: bytes, arr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """``(starts, ends, lines, n_lines)``: the byte offsets of every token (a run of bytes between separators:
    space, tab, form feed, newline) and the line it is on (from 0)."""
    sep = arr == 10
    n_lines = int(np.count_nonzero(sep))
    for c in (32, 9, 12):
        if bytes([c]) in data:
            sep |= arr == c
    pos = np.flatnonzero(sep)  # the text ends with a newline: every token ends at a separator
    del sep
    is_newline = arr[pos] == 10
    newlines_before = np.cumsum(is_newline) - is_newline
    gaps = np.diff(pos, prepend=-1) - 1  # the bytes between a separator and the one before it
    keep = gaps > 0
    return pos[keep] - gaps[keep], pos[keep], newlines_before[keep], n_lines


def _intern(arr: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, list[bytes]]:
    """``(ids, words)``: the number of each token and the distinct tokens, by length then bytes."""
    ids = np.empty(len(starts), np.int64)
    words: list[bytes] = []
    order = np.argsort(lengths.astype(np.uint16) if lengths.max(initial=0) < 1 << 16 else lengths, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(lengths))])
    for length in np.flatnonzero(np.diff(bounds)).tolist():
        idx = order[bounds[length]:bounds[length + 1]]
        first = starts[idx]
        if length <= 8:  # the bytes as one big-endian number: numbers sort as the bytes do
            key = np.zeros(len(idx), np.uint64)
            for j in range(length):
                key |= arr[first + j].astype(np.uint64) << np.uint64(56 - 8 * j)
            sorted_keys = np.sort(key)
            distinct = sorted_keys[np.concatenate([[True], sorted_keys[1:] != sorted_keys[:-1]])]
            inverse = np.searchsorted(distinct, key)
            table = distinct.astype(">u8").view(np.uint8).reshape(-1, 8)[:, :length]
        else:
            rows = np.empty((len(idx), length), np.uint8)
            for j in range(length):
                rows[:, j] = arr[first + j]
            uniq, inverse = np.unique(rows.view(f"S{length}").ravel(), return_inverse=True)
            table = uniq.view(np.uint8).reshape(-1, length)
        ids[idx] = len(words) + inverse
        words.extend(row.tobytes() for row in table)
    return ids, words


def _ptr(counts: np.ndarray) -> np.ndarray:
    ptr = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=ptr[1:])
    return ptr


def _trie(ref_words: np.ndarray, ref_ptr: np.ndarray, n_words: int) -> dict[str, np.ndarray]:
    """The trie of the reference phrases ``ref_words[ref_ptr[p]:ref_ptr[p + 1]]``, built a depth at a time: the
    nodes at depth ``d + 1`` are the distinct (node at depth ``d``, word) pairs, numbered in that order."""
    n = len(ref_ptr) - 1
    lengths = np.diff(ref_ptr)
    node = np.zeros(n, np.int64)
    parents, words = [], []
    n_nodes = 1
    active = np.arange(n)
    for depth in range(int(lengths.max()) if n else 0):
        active = active[lengths[active] > depth]
        key = node[active] * n_words + ref_words[ref_ptr[active] + depth]
        order = np.argsort(key, kind="stable")
        key = key[order]
        new = np.concatenate([[True], key[1:] != key[:-1]])
        node[active[order]] = n_nodes + np.cumsum(new) - 1
        parents.append(key[new] // n_words)
        words.append(key[new] % n_words)
        n_nodes += int(new.sum())
    parent = np.concatenate(parents) if parents else np.zeros(0, np.int64)
    emit_order = np.argsort(node, kind="stable")
    return {"child_ptr": np.searchsorted(parent, np.arange(n_nodes + 1)).astype(np.int64),
            "child_word": (np.concatenate(words) if words else np.zeros(0)).astype(np.int64),
            "child_node": np.arange(1, n_nodes, dtype=np.int64),
            "emit_ptr": _ptr(np.bincount(node, minlength=n_nodes)), "emit": emit_order.astype(np.int64)}


def build_paraphrase_arrays(data: bytes) -> dict[str, np.ndarray]:
    """The arrays of a :class:`ParaphraseTable` from the (uncompressed) bytes of a paraphrase table."""
    data = _java_text(data)
    arr = np.frombuffer(data, np.uint8)
    starts, ends, line, n_lines = _tokens(data, arr)
    if n_lines % 3:
        raise VecscoreError(f"the paraphrase table has {n_lines} lines, not a multiple of 3 (probability, "
                            "reference, paraphrase): the file is damaged or truncated")
    n = n_lines // 3
    keep = line % 3 != 0  # the probability lines are not read
    starts, ends, line = starts[keep], ends[keep], line[keep]
    ids, vocab = _intern(arr, starts, (ends - starts).astype(np.int64))
    del arr, starts, ends, keep
    ref = line % 3 == 1
    entry = line // 3
    ref_ptr = _ptr(np.bincount(entry[ref], minlength=n))
    arrays = _trie(ids[ref], ref_ptr, max(len(vocab), 1))
    arrays["para_ptr"] = _ptr(np.bincount(entry[~ref], minlength=n))
    arrays["para_words"] = ids[~ref]
    arrays.update(build_string_index(vocab, "word_"))
    return arrays


class ParaphraseTable:
    """The paraphrase table over read-only arrays (see the module's description).

    Examples
    --------
    >>> table = load_paraphrases()  # doctest: +SKIP
    >>> ids = table.translate(["a", "lot", "of", "people"])  # doctest: +SKIP
    >>> [(n, table.paraphrase_words(p)) for n, p in table.reference_paths(ids, 0)][:2]  # doctest: +SKIP
    """

    def __init__(self, arrays: dict[str, np.ndarray], source: Path | None = None):
        self.arrays = arrays
        self.source = source
        self.vocab = StringIndex(arrays, "word_")
        self.child_ptr, self.child_word, self.child_node = arrays["child_ptr"], arrays["child_word"], \
            arrays["child_node"]
        self.emit_ptr, self.emit = arrays["emit_ptr"], arrays["emit"]
        self.para_ptr, self.para_words = arrays["para_ptr"], arrays["para_words"]
        self._find = lru_cache(maxsize=1 << 16)(self.vocab.find)

    def __reduce__(self):
        if self.source is None:
            return ParaphraseTable, (self.arrays,)
        return load_paraphrases, (str(self.source),)

    def __len__(self) -> int:
        """The number of paraphrases (entries)."""
        return len(self.para_ptr) - 1

    def word_id(self, word: str) -> int:
        """The number of ``word`` in the vocabulary, ``-1`` if absent."""
        return self._find(word)

    def word(self, i: int) -> str:
        """The word of number ``i``."""
        return self.vocab.key(i)

    def translate(self, words: Sequence[str]) -> np.ndarray:
        """The numbers of ``words`` (``int32``, ``-1`` for a word outside the vocabulary)."""
        return np.fromiter((self._find(w) for w in words), np.int32, len(words))

    def reference_paths(self, ids: Sequence[int] | np.ndarray, start: int) -> list[tuple[int, int]]:
        """``(length, paraphrase)`` for every reference phrase that ``ids[start:]`` begins with: by length, then
        by file order."""
        if start < 0:
            raise IndexError(f"start {start} is negative")
        out: list[tuple[int, int]] = []
        node = 0
        for i in range(start, len(ids)):
            lo, hi = int(self.child_ptr[node]), int(self.child_ptr[node + 1])
            k = lo + int(np.searchsorted(self.child_word[lo:hi], ids[i]))
            if k == hi or self.child_word[k] != ids[i]:
                break
            node = int(self.child_node[k])
            n = i - start + 1
            out.extend((n, p) for p in self.emit[self.emit_ptr[node]:self.emit_ptr[node + 1]].tolist())
        return out

    def paraphrase(self, p: int) -> np.ndarray:
        """The word numbers of paraphrase ``p`` (a read-only view)."""
        return self.para_words[self.para_ptr[p]:self.para_ptr[p + 1]]

    def paraphrase_words(self, p: int) -> list[str]:
        """The words of paraphrase ``p``."""
        return [self.word(i) for i in self.paraphrase(p).tolist()]


_loaded: dict[tuple, ParaphraseTable] = {}
_lock = threading.Lock()


def _read(path: Path) -> bytes:
    try:
        with gzip.open(path, "rb") as f:
            return f.read()
    except (OSError, EOFError, zlib.error) as e:
        raise VecscoreError(f"cannot read the paraphrase table {path} as gzip: {e}") from None


def load_paraphrases(paraphrase_file: str | os.PathLike[str] | None = None, *,
                     jar: str | os.PathLike[str] | None = None) -> ParaphraseTable:
    """The paraphrase table at ``paraphrase_file`` (default: ``data/paraphrase-en.gz`` beside ``jar``, itself by
    default pycocoevalcap's meteor-1.5.jar), built and cached on first use (seconds), then memory-mapped
    (milliseconds); one table per process and file."""
    path = find_paraphrase(paraphrase_file, jar=jar)
    st = os.stat(path)
    key = (os.path.realpath(path), st.st_size, st.st_mtime_ns)
    with _lock:
        table = _loaded.get(key)
        if table is None:
            arrays = cached_arrays("paraphrase", [path], lambda: build_paraphrase_arrays(_read(path)))
            table = _loaded[key] = ParaphraseTable(arrays, path)
    return table
