"""ROUGE-1.5.5.pl's reading, truncation and tokenizing, with Python's ``re``.

The same token streams as :mod:`vecscore.text.perl_rouge` (whose module
docstring states the script's rules) followed by the vocabulary transform of
:func:`vecscore.rouge155.rouge155` (stopwords, stemming): one id per kept
token, as flat int64 arrays.

* A token is a maximal run of ASCII ``[A-Za-z0-9]``, lowercased.  It is
  found in the ``str`` itself (a non-ASCII character is a separator, as each
  of its UTF-8 bytes is to the script) and lowercased after it is found
  (``str.lower`` of some non-ASCII characters gives ASCII letters).
* Lines are split on ``"\\n"`` only; empty lines are skipped.
* ``-l`` counts the fields of Perl's ``split(/\\s+/, $line)`` with ``\\s`` the
  ASCII whitespace ``[\\t\\n\\v\\f\\r ]``; ``-b`` counts UTF-8 bytes, so that
  path works on the encoded text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

__all__ = ["Rows", "PerlStreams", "perl_streams"]

_TOKEN = re.compile(r"[A-Za-z0-9]+")
_TOKEN_BYTES = re.compile(rb"[A-Za-z0-9]+")
_WORD = re.compile(r"[^\t\n\x0b\x0c\r ]+")  # Perl's \S on a byte string
_SPACE = frozenset("\t\n\x0b\x0c\r ")


@dataclass(frozen=True)
class Rows:
    """Ragged int64 rows: row ``i`` is ``ids[offsets[i]:offsets[i + 1]]``."""

    ids: np.ndarray
    offsets: np.ndarray


@dataclass(frozen=True)
class PerlStreams:
    """Every text of a call (hypotheses, then the references in order) as the script reads it.

    ``ns``: the ``readText`` stream of each text (ROUGE-N/S, and the
    ROUGE-L/W clipping budgets under ``budget_from_ns``).  ``lines``: the
    ``readText_LCS`` lines (ROUGE-L/W), ``text_lines[i]:text_lines[i + 1]``
    being those of text ``i``; ``None`` when not asked for.
    """

    n_vocab: int
    ns: Rows
    lines: Rows | None = None
    text_lines: np.ndarray | None = None
    budget_from_ns: bool = False


class _Vocab(dict):
    """Raw token (``str`` or ASCII ``bytes``, any case) -> id of its transformed form, ``-1`` if removed."""

    def __init__(self, transform):
        super().__init__()
        self.transform = transform
        self.index: dict[str, int] = {}

    def __missing__(self, raw):
        word = (raw.decode("ascii") if isinstance(raw, bytes) else raw).lower()
        if self.transform is not None:
            word = self.transform(word)
        out = -1 if word is None else self.index.setdefault(word, len(self.index))
        self[raw] = out
        return out


def _word_limited(lines: list[str], limit: int) -> list[str]:
    """The kept lines under ``-l limit`` (both reading paths): whole lines while their fields fit,
    then the first ``limit - used`` fields of the line that reaches the limit."""
    out = []
    used = 0
    for line in lines:
        words = list(_WORD.finditer(line))
        lead = line[0] in _SPACE  # the empty leading field of split(/\s+/) counts as a word
        nfields = len(words) + (1 if lead and words else 0)
        if used + nfields < limit:
            used += nfields
            out.append(line)
            continue
        take = limit - used - (1 if lead else 0)
        out.append(line[: words[take - 1].end()] if take > 0 else "")
        break
    return out


def _byte_limited(lines: list[bytes], limit: int, lcs: bool) -> list[bytes]:
    """The kept lines under ``-b limit``: ``readText`` (``lcs`` false) or ``readText_LCS``'s
    buggy version, which never adds to the running size."""
    out = []
    used = 0
    for line in lines:
        size = len(line)
        if lcs:
            if size >= limit:
                out.append(line[:limit])
                break
            out.append(line)
        elif used + size < limit:
            used += size
            out.append(line)
        else:
            out.append(line[: limit - used])
            break
    return out


def _lcs_lines(text: str, word_limit, byte_limit) -> list:
    """The lines ``readText_LCS`` keeps of one text: ``str`` lines, or ``bytes`` lines under ``-b``."""
    if byte_limit is not None:
        return _byte_limited([x for x in text.encode("utf-8").split(b"\n") if x], byte_limit, True)
    lines = [x for x in text.split("\n") if x]
    return lines if word_limit is None else _word_limited(lines, word_limit)


def _line_rows(texts, vocab: _Vocab, word_limit, byte_limit):
    """Token ids per ``readText_LCS`` line of every text: ``(ids, line_offsets, text_lines)``."""
    ids: list[int] = []
    line_ends: list[int] = []
    text_lines = [0]
    find = (_TOKEN_BYTES if byte_limit is not None else _TOKEN).findall
    for text in texts:
        for line in _lcs_lines(text, word_limit, byte_limit):
            ids += [v for v in map(vocab.__getitem__, find(line)) if v >= 0]
            line_ends.append(len(ids))
        text_lines.append(len(line_ends))
    line_off = np.zeros(len(line_ends) + 1, np.int64)
    line_off[1:] = line_ends
    return np.array(ids, np.int64), line_off, np.array(text_lines, np.int64)


def _stream_rows(texts, vocab: _Vocab, byte_limit) -> Rows:
    """The ``readText`` stream of every text under ``-b``: all kept lines' tokens in one row."""
    ids: list[int] = []
    ends = [0]
    for text in texts:
        for line in _byte_limited([x for x in text.encode("utf-8").split(b"\n") if x], byte_limit, False):
            ids += [v for v in map(vocab.__getitem__, _TOKEN_BYTES.findall(line)) if v >= 0]
        ends.append(len(ids))
    return Rows(np.array(ids, np.int64), np.array(ends, np.int64))


def perl_streams(texts, *, need_lcs: bool, transform, word_limit=None, byte_limit=None,
                 byte_limit_compat: bool = True) -> PerlStreams:
    """Read, truncate, tokenize and transform every text as :func:`vecscore.rouge155.rouge155` does.

    ``texts``: hypotheses then references (``str``, lines = sentences).
    ``transform``: ``word -> word or None`` applied once per vocabulary word
    (``None`` removes it), or ``None``.  Without ``byte_limit`` the stream of
    a text is its lines joined (both reading paths truncate alike).  With
    ``byte_limit`` and ``need_lcs``, ``byte_limit_compat`` keeps the script's
    ``readText_LCS`` lines with budgets from the stream; otherwise the lines
    are the stream's tokens split at the ``readText_LCS`` line boundaries.
    """
    vocab = _Vocab(transform)
    if byte_limit is None:
        ids, line_off, text_lines = _line_rows(texts, vocab, word_limit, None)
        ns = Rows(ids, line_off[text_lines])
        return PerlStreams(len(vocab.index), ns, Rows(ids, line_off), text_lines)
    ns = _stream_rows(texts, vocab, byte_limit)
    if not need_lcs:
        return PerlStreams(len(vocab.index), ns)
    ids, line_off, text_lines = _line_rows(texts, vocab, None, byte_limit)
    if byte_limit_compat:
        return PerlStreams(len(vocab.index), ns, Rows(ids, line_off), text_lines, budget_from_ns=True)
    # the correct truncation: the stream's tokens, split where the readText_LCS lines end
    nlines = np.diff(text_lines)
    text = np.repeat(np.arange(len(nlines), dtype=np.int64), nlines)
    within = line_off[1:] - line_off[text_lines[text]]
    ends = ns.offsets[text] + np.minimum(within, np.diff(ns.offsets)[text])
    return PerlStreams(len(vocab.index), ns, Rows(ns.ids, np.concatenate([[0], ends]).astype(np.int64)), text_lines)
