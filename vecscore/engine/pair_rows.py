"""A batch of text pairs as rows of bytes for the per-pair kernels.

:func:`pair_rows` takes a batch as the front door read it (exact ``str`` rows or a
string column, the references as :class:`vecscore.references.Refs`) and returns every text by address
(:class:`vecscore.kernels.in_place.TextRows`): hypotheses first, then the
references pair by pair, with ``ref_ptr``.  Pure-ASCII ``str`` rows are read
where they lie.  With ``transcode`` (a mode of :mod:`vecscore.kernels.wide_text`),
non-ASCII ``str`` rows that CPython keeps compact are turned into the bytes
the caller's kernel reads by one parallel kernel, from their code points in
place; any other row is encoded by the caller's ``encode`` (the same bytes,
in Python), or the call returns ``None`` when ``encode`` is ``None`` (the
caller takes its general route then).

References scored again and again (a cached scorer's) can be resolved once:
:func:`ready_rows` turns them into a :class:`ReadyRows`, which :func:`pair_rows`
takes in place of ``refs`` (one reference per hypothesis) and reads without
scanning or transcoding them again.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import chain

import numpy as np

from vecscore.columns import TextColumn
from vecscore.errors import VecscoreError
from vecscore.inputs import exact_text
from vecscore.kernels.in_place import ASCII, TextRows, from_buffer, str_rows
from vecscore.kernels.wide_text import ROUGE_SCORE, UTF8, WIDE_SPACES, transcode_rows

__all__ = ["pair_rows", "ready_rows", "ReadyRows", "Rows"]


class Rows:
    """``hyps`` then flat ``refs`` as one read-only sequence, without copying."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def __len__(self) -> int:
        return len(self.a) + len(self.b)

    def __getitem__(self, i: int):
        return self.a[i] if i < len(self.a) else self.b[i - len(self.a)]


def pair_rows(hyps, refs, encode: Callable[[str], bytes] | None, transcode: int | None = None,
              lone_surrogate: Callable[[int], Exception] | None = None, table: np.ndarray | None = None):
    """``(rows, ref_ptr, texts)`` of a text batch as the front door read it, or ``None`` (see the module
    docstring).

    ``hyps`` are exact ``str`` rows or a :class:`TextColumn`; ``refs`` a :class:`Refs` of texts, or
    :class:`ReadyRows`.  ``texts`` is the sequence of the rows' ``str`` (for messages and warnings).  A text
    holding a lone surrogate (``encode`` raises ``UnicodeEncodeError``, or the transcoding kernel finds one)
    raises ``lone_surrogate(i)``, ``i`` its row (hypotheses, then the flat references), by default a
    :class:`VecscoreError` naming ``texts[i]``.  ``table``: the flag table of the ``zh`` transcoding modes.
    """
    fail = lone_surrogate or _lone_surrogate
    n = len(hyps)
    ready = refs if isinstance(refs, ReadyRows) else None
    if ready is not None:
        if ready is not _NO_REFS and len(ready.rows) != n:
            raise VecscoreError(f"got {n} hypotheses but {len(ready.rows)} prepared references; they must match")
        flat, ref_ptr = (), np.zeros(1, np.int64)  # the hypotheses alone are read here
    elif refs.n_pairs != n:
        raise VecscoreError(f"got {n} hypotheses but {refs.n_pairs} reference entries; they must match")
    else:
        flat, ref_ptr = refs.flat, refs.ptr
    if isinstance(hyps, TextColumn):  # a string column: its buffer is read as it is
        got = _column_pairs(hyps, flat, ref_ptr, ready, encode, transcode, table, fail)
        if got is not NotImplemented:
            return got
        hyps = hyps.decoded()
    if isinstance(flat, TextColumn):
        flat = flat.decoded()
    rows = str_rows(hyps, flat)  # hypotheses and references in one scan
    if rows is None:  # this Python cannot be read in place: encode everything
        texts = Rows(hyps, flat)
        if encode is None and not all(t.isascii() for t in chain(hyps, flat)):
            return None
        blobs = _encoded(encode, list(chain(hyps, flat)), range(len(texts)), fail)
        buf = np.frombuffer(b"".join(blobs), np.uint8)
        offsets = np.zeros(len(blobs) + 1, np.int64)
        np.cumsum(np.fromiter(map(len, blobs), np.int64, len(blobs)), out=offsets[1:])
        return _with_ready(from_buffer(buf, offsets), ref_ptr, texts, ready)
    texts = Rows(*rows.keep)
    rows = _resolved(rows, texts, encode, transcode, table, fail)
    return None if rows is None else _with_ready(rows, ref_ptr, texts, ready)


def _resolved(rows: TextRows, texts, encode, transcode, table, fail) -> TextRows | None:
    """``rows`` with every row that is not ASCII turned into the bytes the kernel reads: transcoded in place
    (``transcode``) or encoded (``encode``; ``None``: the call returns ``None`` when a row needs it)."""
    other = np.flatnonzero(rows.kind != ASCII)
    if len(other):
        wide = rows.widths()[other] > 0 if transcode is not None else np.zeros(len(other), bool)
        rest = other[~wide]
        if len(rest) and encode is None:
            return None
        bad = np.zeros(0, np.int64)
        if wide.any():
            rows, bad = transcode_rows(rows, other[wide], transcode, table)
        if len(rest):
            blobs = _encoded(encode, [exact_text(texts[int(i)]) for i in rest], rest, fail,
                             int(bad[0]) if len(bad) else None)
            rows = rows.patched(rest, blobs)
        if len(bad):
            raise fail(int(bad[0]))
    return rows


def _column_pairs(hyps: TextColumn, flat, ref_ptr, ready, encode, transcode, table, fail):
    """:func:`pair_rows` of a string column's hypotheses with references from a string column or prepared ones:
    every text read from the columns' own UTF-8 buffers.  ``NotImplemented`` for other references (the caller
    reads the decoded rows)."""
    if ready is None and not isinstance(flat, TextColumn):
        return NotImplemented
    parts = [hyps, flat] if isinstance(flat, TextColumn) else [hyps]
    rows = TextRows.concat([from_buffer(p.data, p.offsets) for p in parts])
    texts = Rows(hyps, flat)
    need = np.concatenate([_needs_str(p, transcode) + k for p, k in zip(parts, (0, len(hyps)))])
    if len(need):  # rows whose UTF-8 is not yet the kernel's bytes: read as the str they are
        strs = [texts[int(i)] for i in need]
        sub = str_rows(strs)
        if sub is None:  # this Python's str cannot be read in place: encode those rows
            if encode is None:
                return None
            rows = rows.patched(need, _encoded(encode, strs, need, fail))
        else:
            sub = _resolved(sub, strs, encode, transcode, table, lambda j: fail(int(need[j])))
            if sub is None:
                return None
            rows = rows.pointed(need, sub.addrs, sub.lens, sub.keep)
    return _with_ready(rows, ref_ptr, texts, ready)


def _needs_str(column: TextColumn, transcode: int | None) -> np.ndarray:
    """The rows of ``column`` whose UTF-8 bytes are not what the kernel of ``transcode`` reads, so that they are
    read as ``str`` instead.  The kernels take every byte ``>= 0x80`` as a separator (``ROUGE_SCORE``, as the
    one space that transcoding writes) or as part of a word (``UTF8``, whose bytes are the UTF-8 itself), so in
    these two modes a row is read as its bytes unless it holds one of :data:`_SPECIAL`'s characters: ``U+0130``
    or ``U+212A`` (``ROUGE_SCORE``, which lowers them to ASCII letters) or a non-ASCII space (``UTF8``).  In any
    other mode every non-ASCII row is read as ``str``."""
    if column.nbytes() == 0:
        return np.zeros(0, np.int64)
    if transcode not in _SPECIAL:
        return column.non_ascii_rows()
    seqs = _SPECIAL[transcode]
    lo = int(column.offsets[0])
    data = column.data[lo:int(column.offsets[-1])]
    at = np.flatnonzero(data >= min(b[0] for b in seqs))  # first bytes only: continuation bytes are < 0xC0
    if not len(at):
        return np.zeros(0, np.int64)
    # a first byte is followed by its continuation bytes (the column is valid UTF-8): no read past the end
    follow = [data[np.minimum(at + j, len(data) - 1)] for j in range(max(map(len, seqs)))]
    hit = np.zeros(len(at), np.bool_)
    for b in seqs:
        same = follow[0] == b[0]
        for j in range(1, len(b)):
            same &= follow[j] == b[j]
        hit |= same
    return np.unique(np.searchsorted(column.offsets, at[hit] + lo, side="right") - 1)


#: per transcoding mode, the UTF-8 of the characters that keep a non-ASCII row from being read as its bytes
_SPECIAL = {ROUGE_SCORE: [chr(c).encode() for c in (0x130, 0x212A)],
            UTF8: [chr(c).encode() for c in WIDE_SPACES]}


def _with_ready(rows: TextRows, ref_ptr, texts, ready: "ReadyRows | None"):
    """``(rows, ref_ptr, texts)``, the prepared references ``ready`` (if any) appended to the hypotheses' rows."""
    if ready is None or ready is _NO_REFS:
        return rows, ref_ptr, texts
    n = len(rows)
    return TextRows.concat([rows, ready.rows]), np.arange(n + 1, dtype=np.int64), Rows(texts.a, ready.texts)


@dataclass(frozen=True)
class ReadyRows:
    """One reference per hypothesis, already read into the bytes a per-pair kernel takes
    (:func:`ready_rows`); ``texts`` are the references themselves, for messages."""

    rows: TextRows
    texts: list


def ready_rows(refs: list, encode: Callable[[str], bytes] | None, transcode: int | None = None,
               table: np.ndarray | None = None) -> ReadyRows | None:
    """``refs`` (a list of ``str``, one per hypothesis) resolved once for :func:`pair_rows` (which must be
    given the same ``encode``, ``transcode`` and ``table``), or ``None`` where they cannot be read that
    way (the caller passes the texts then)."""
    got = pair_rows(refs, _NO_REFS, encode, transcode, table=table)
    return None if got is None else ReadyRows(got[0], refs)


#: no references: :func:`ready_rows` reads its texts as hypotheses alone
_NO_REFS = ReadyRows(TextRows(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.uint8), ()), [])


def _lone_surrogate(i: int) -> Exception:
    return VecscoreError(f"texts[{i}] contains a lone surrogate code point; clean or re-decode it")


def _encoded(encode, texts: list, rows, fail, before: int | None = None) -> list[bytes]:
    """``encode`` of every text (ASCII ones as they are); a text that cannot be encoded raises
    ``fail(row)`` for the first such row (or for ``before`` if that comes first)."""
    try:
        return [t.encode("ascii") if t.isascii() else encode(t) for t in texts]
    except UnicodeEncodeError:
        first = next(int(r) for r, t in zip(rows, texts) if not t.isascii() and not _encodes(encode, t))
        raise fail(first if before is None else min(first, before)) from None


def _encodes(encode, text: str) -> bool:
    try:
        encode(text)
    except UnicodeEncodeError:
        return False
    return True

