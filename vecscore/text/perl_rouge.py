"""ROUGE-1.5.5.pl's text processing: length limits and tokenizer, as byte kernels.

Input convention: one ``str`` per summary, sentences separated by ``"\\n"``
(the script's SPL format, one sentence per line).  Texts are encoded to UTF-8
and processed as bytes, as the script does (it never decodes its input).

What the script does, in order
------------------------------
For every summary file, peer and model (reference) alike:

1. **Read lines** (``readText`` / ``readText_LCS``).  Lines are split on
   ``"\\n"`` only; ``chomp`` removes the ``"\\n"``, so a ``"\\r"`` stays (and
   counts as one byte and as whitespace later).  Lines of length 0 are
   skipped; a line of only spaces or punctuation is kept (it yields no
   tokens).  Each line is lowercased with ``tr/A-Z/a-z/`` (ASCII only).
2. **Truncate** (only with ``-l`` or ``-b``; both peer *and* references).  This
   happens on the raw lowercased lines, before any tokenizing, so it counts
   raw units, not final tokens:

   * ``-l L`` (words), both code paths: a line's word count is the number of
     fields of Perl's ``split(/\\s+/, $line)``, where ``\\s`` is the ASCII
     whitespace ``[ \\t\\v\\f\\r]`` (never a non-ASCII byte): runs of
     non-whitespace, **plus one empty leading field when the line starts with
     whitespace**; a whitespace-only line has 0 fields.  A word is a raw field
     such as ``u.s.``, ``--`` (0 tokens) or ``state-of-the-art`` (4 tokens).
     Lines are kept whole while ``used + count < L``; the first line that
     reaches ``L`` keeps only its first ``L - used`` fields, and reading stops.
   * ``-b B`` (bytes), ROUGE-N/S path (``readText``): a line's size is its byte
     length without the ``"\\n"`` (the spaces the script joins lines with are
     not counted).  Lines are kept whole while ``used + size < B``; the first
     line that reaches ``B`` keeps only its first ``B - used`` bytes (possibly
     cutting a word, which then becomes a shorter token, e.g. ``dddd -> d``),
     and reading stops.
   * ``-b B``, ROUGE-L/W path (``readText_LCS``): **the script's bug**: the
     running size is never incremented, so every line shorter than ``B``
     bytes is kept whole, and only the first line of ``B`` bytes or more is
     cut (to ``B`` bytes), after which reading stops.  For texts whose lines
     are all shorter than ``B``, ``-b`` has no effect on the LCS sentences.
3. **Tokenize**: ``s/-/ - /g`` then ``s/[^A-Za-z0-9\\-]/ /g``, split on
   whitespace, keep only tokens matching ``^[a-z0-9$]``.  The ``-`` tokens
   fail that test and ``$`` was already replaced, so a token is exactly a
   maximal run of ASCII letters and digits, lowercased; every other byte
   (including ``_``, ``$``, tabs and every byte of a non-ASCII character)
   is a separator.
4. **Remove stopwords** (``-s``): a token is dropped if it is in the SMART
   list (:func:`vecscore.text.stopwords.smart_stopwords`), tested on the
   *unstemmed* token.  (In the code the stopword test comes first and the
   ``^[a-z0-9$]`` test second; they commute.)
5. **Stem** (``-m``): tokens longer than 3 characters go through
   :func:`vecscore.text.perl_stemmer.stem` (WordNet exception lemma, else the
   script's Porter stemmer); shorter tokens are kept.  The stem is not
   checked against the stopword list again.  ``-M`` (undocumented) stems the
   models only.
6. **Count**: ROUGE-N and ROUGE-S/SU (``readText`` + ``createNGram`` /
   ``createSkipBigram``) join all kept lines into one token stream, so n-grams
   and skip-bigrams cross sentence boundaries *and* removed stopwords.
   ROUGE-L and ROUGE-W (``readText_LCS`` + ``tokenizeText_LCS``) keep one
   token list per kept line; but their unigram clipping budgets and the peer
   length used for precision come from the ``readText`` stream (step 2's
   N/S truncation), through ``createNGram(..., 1)``.

So stopwords and stemming are pure functions of a token's string, and can be
applied once per unique token: map every vocabulary entry to "removed" or to
the interned id of its stem, then compact the id stream (drop removed ids)
before n-grams, skip-bigrams or LCS are formed.  Truncation must come first,
on the texts, and is done here.  Nothing in the script makes vocabulary-level
processing impossible; the two points to respect are that (a) truncation
counts raw whitespace fields or bytes, never tokens after stopword removal,
and (b) stems and lemmas must be re-interned as strings (``mice -> mouse`` is
not the token ``mouse``, which stems to ``mous``; a lemma can contain ``_``,
e.g. ``comics -> comic_strip``).

Public functions
----------------
:func:`perl_tokenize`
    The ``readText`` path: one token stream per text (ROUGE-N, ROUGE-S/SU,
    and the unigram counts of ROUGE-L/W).
:func:`perl_tokenize_sentences`
    The ``readText_LCS`` path: one token list per kept line (ROUGE-L/W).

Both return spans into the UTF-8 buffer of the input, with the ASCII
lowercasing table as ``fold``; no per-token Python is run.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vecscore._jit import jit, prange
from vecscore.errors import VecscoreError
from vecscore.kernels.intern import ASCII_LOWER
from vecscore.kernels.swar import (
    block_64,
    ctz,
    emit_bits,
    low_bits,
    popcount,
    range_bits,
)
from vecscore.kernels.tokenize import token_slots
from vecscore.text.spans import TokenSpans, encode_texts

__all__ = ["perl_tokenize", "perl_tokenize_sentences"]

# Bytes that are part of a token: [A-Za-z0-9] (case folded by ``fold``).
_ALNUM = np.zeros(256, np.uint8)
_ALNUM[ord("a") : ord("z") + 1] = 1
_ALNUM[ord("A") : ord("Z") + 1] = 1
_ALNUM[ord("0") : ord("9") + 1] = 1
# Perl's \s on a byte string (no locale, no unicode_strings): ASCII whitespace,
# including \v since Perl 5.18; never 0x85 or 0xA0.
_SPACE = np.zeros(256, np.uint8)
_SPACE[[9, 10, 11, 12, 13, 32]] = 1
#: work chunks of the parallel loops (each allocates one 64-byte pad)
_CHUNKS = 256


@jit
def _word_cut(buf, lo, hi, space, take):
    """Byte position after the ``take``-th whitespace-separated word of ``buf[lo:hi]``."""
    count = 0
    inside = False
    for i in range(lo, hi):
        word = space[buf[i]] == 0
        if word and not inside:
            count += 1
        elif inside and not word and count == take:
            return i
        inside = word
    return hi


@jit
def _scan_text(buf, lo, hi, word_limit, byte_limit, lcs, alnum, space, starts, ends, sent_ends, k, s, fill):
    """Truncate and tokenize one text; return the next token and sentence slots.

    With ``fill`` false only counts; with ``fill`` true writes token spans at
    ``starts[k:]``/``ends[k:]`` and sentence ends (absolute token indices) at
    ``sent_ends[s:]``.  See the module docstring for the rules.
    """
    used = 0
    pos = lo
    while pos < hi:
        eol = pos
        while eol < hi and buf[eol] != 10:
            eol += 1
        if eol > pos:  # lines of length 0 are skipped
            cut = eol
            stop = False
            if word_limit > 0:
                nwords = 0
                inside = False
                for i in range(pos, eol):
                    word = space[buf[i]] == 0
                    if word and not inside:
                        nwords += 1
                    inside = word
                lead = space[buf[pos]] != 0
                nfields = nwords + 1 if (lead and nwords > 0) else nwords
                if used + nfields < word_limit:
                    used += nfields
                else:
                    take = word_limit - used
                    if lead:
                        take -= 1  # the empty leading field counts as a word
                    cut = pos if take <= 0 else _word_cut(buf, pos, eol, space, take)
                    stop = True
            elif byte_limit > 0:
                size = eol - pos
                if lcs:  # readText_LCS never adds to the running size
                    if size >= byte_limit:
                        cut = pos + byte_limit
                        stop = True
                elif used + size < byte_limit:
                    used += size
                else:
                    cut = pos + (byte_limit - used)
                    stop = True
            inside = False
            for i in range(pos, cut):
                tok = alnum[buf[i]] != 0
                if tok and not inside:
                    if fill:
                        starts[k] = i
                elif inside and not tok:
                    if fill:
                        ends[k] = i
                    k += 1
                inside = tok
            if inside:
                if fill:
                    ends[k] = cut
                k += 1
            if fill:
                sent_ends[s] = k
            s += 1
            if stop:
                break
        pos = eol + 1
    return k, s


@jit(inline=True)
def _block_classes(buf, addr, base, hi, pad):
    """Token bytes (``[A-Za-z0-9]``) and newlines among ``buf[base:min(base + 64, hi)]``, as bit masks."""
    block = block_64(buf, addr, base, pad)
    keep = low_bits(hi - base)
    alnum = range_bits(block, 97, 122) | range_bits(block, 65, 90) | range_bits(block, 48, 57)
    return alnum & keep, range_bits(block, 10, 10) & keep


@jit
def _count_unlimited(buf, lo, hi, pad):
    """:func:`_scan_text`'s counts without a length limit, 64 bytes at a time: tokens (runs of
    token bytes; a newline is not one) and non-empty lines."""
    addr = buf.ctypes.data
    k = 0
    s = 0
    tok_carry = np.uint64(0)
    nl_carry = np.uint64(1)  # as if a newline came before the text
    for base in range(lo, hi, 64):
        alnum, nl = _block_classes(buf, addr, base, hi, pad)
        k += popcount(alnum & ~((alnum << np.uint64(1)) | tok_carry))
        s += popcount(nl & ~((nl << np.uint64(1)) | nl_carry))
        tok_carry = alnum >> np.uint64(63)
        nl_carry = nl >> np.uint64(63)
        if hi - base < 64:
            nl_carry = (nl >> np.uint64(hi - base - 1)) & np.uint64(1)
    return k, s + (1 - np.int64(nl_carry))


@jit
def _fill_unlimited(buf, lo, hi, pad, starts, ends, sent_ends, k, s):
    """:func:`_scan_text`'s spans and line ends without a length limit, 64 bytes at a time."""
    addr = buf.ctypes.data
    ke = k
    line = lo  # where the current line starts
    carry = np.uint64(0)
    for base in range(lo, hi, 64):
        alnum, nl = _block_classes(buf, addr, base, hi, pad)
        before = (alnum << np.uint64(1)) | carry
        k = emit_bits(alnum & ~before, base, starts, k)
        ended = before & ~alnum & low_bits(hi - base)
        while nl != 0:
            b = ctz(nl)
            if base + b > line:  # lines of length 0 are skipped
                sent_ends[s] = ke + popcount(ended & low_bits(b + 1))
                s += 1
            line = base + b + 1
            nl &= nl - np.uint64(1)
        ke = emit_bits(ended, base, ends, ke)
        carry = alnum >> np.uint64(63)
        if hi - base < 64:
            carry = (alnum >> np.uint64(hi - base - 1)) & np.uint64(1)
    if carry:
        ends[ke] = hi
        ke += 1
    if hi > line:
        sent_ends[s] = ke
        s += 1
    return ke, s


@jit(parallel=True)
def perl_split(buf, offsets, word_limit, byte_limit, lcs, alnum, space):
    """Kernel: truncate and tokenize every text of a batch as ROUGE-1.5.5 does.

    Returns ``(starts, ends, tok_offsets, sent_tok_offsets, sent_offsets)``:
    token spans, tokens per text (``n + 1``), tokens per kept line
    (``n_lines + 1``) and kept lines per text (``n + 1``).
    """
    n = len(offsets) - 1
    ntok = np.empty(n, np.int64)
    nsent = np.empty(n, np.int64)
    empty = np.empty(0, np.int64)
    unlimited = word_limit == 0 and byte_limit == 0
    chunks = min(n, _CHUNKS)
    # scratch for a block at the end of the buffer, one per chunk (allocated here: an allocation that
    # fails inside a parallel loop is lost)
    pads = np.empty((max(chunks, 1), 64), np.uint8)
    for c in prange(chunks):
        pad = pads[c]
        for i in range(c * n // chunks, (c + 1) * n // chunks):
            if unlimited:
                k, s = _count_unlimited(buf, offsets[i], offsets[i + 1], pad)
            else:
                k, s = _scan_text(buf, offsets[i], offsets[i + 1], word_limit, byte_limit, lcs, alnum, space,
                                  empty, empty, empty, 0, 0, False)  # fmt: skip
            ntok[i] = k
            nsent[i] = s
    starts, ends, tok_offsets = token_slots(ntok)
    sent_offsets = np.zeros(n + 1, np.int64)
    sent_offsets[1:] = np.cumsum(nsent)
    sent_tok_offsets = np.zeros(sent_offsets[n] + 1, np.int64)
    sent_ends = sent_tok_offsets[1:]
    for c in prange(chunks):
        pad = pads[c]
        for i in range(c * n // chunks, (c + 1) * n // chunks):
            if unlimited:
                _fill_unlimited(buf, offsets[i], offsets[i + 1], pad, starts, ends, sent_ends,
                                tok_offsets[i], sent_offsets[i])
            else:
                _scan_text(buf, offsets[i], offsets[i + 1], word_limit, byte_limit, lcs, alnum, space,
                           starts, ends, sent_ends, tok_offsets[i], sent_offsets[i], True)  # fmt: skip
    return starts, ends, tok_offsets, sent_tok_offsets, sent_offsets


def _check(texts, word_limit, byte_limit) -> tuple[int, int]:
    if isinstance(texts, str) or not isinstance(texts, Sequence):
        raise VecscoreError("texts must be a sequence of str (one summary per element, sentences separated by '\\n')")
    if not set(map(type, texts)) <= {str}:  # the C-level check first; row by row to name the row
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise VecscoreError(f"texts[{i}] is {type(t).__name__}, expected str")
    limits = []
    for name, value in (("word_limit", word_limit), ("byte_limit", byte_limit)):
        if value is None:
            limits.append(0)
        elif isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value > 0:
            limits.append(int(value))
        else:
            raise VecscoreError(f"{name} must be a positive int or None (no limit), got {value!r}")
    if limits[0] and limits[1]:
        raise VecscoreError("word_limit (-l) and byte_limit (-b) are mutually exclusive in ROUGE-1.5.5; pass one")
    return limits[0], limits[1]


def perl_tokenize(texts: Sequence[str], *, word_limit: int | None = None, byte_limit: int | None = None) -> TokenSpans:
    """Tokenize summaries as ROUGE-1.5.5's ROUGE-N/S path (``readText``).

    Parameters
    ----------
    texts : sequence of str
        One summary per element; sentences separated by ``"\\n"``.
    word_limit : int, optional
        The script's ``-l``: keep the first ``word_limit`` whitespace-separated
        raw words (see the module docstring for what a word is).
    byte_limit : int, optional
        The script's ``-b``: keep the first ``byte_limit`` bytes of the lines,
        not counting line separators.  Exclusive with ``word_limit``.

    Returns
    -------
    TokenSpans
        One token stream per text (all kept lines joined), ``fold`` = ASCII
        lowercasing.  Stopwords are *not* removed and nothing is stemmed:
        apply :func:`~vecscore.text.stopwords.smart_stopwords` and
        :func:`~vecscore.text.perl_stemmer.stem` per unique token.

    Examples
    --------
    >>> sp = perl_tokenize(["Police killed the gunman.\\nIt's state-of-the-art!", "a b c d e f"],
    ...                    word_limit=5)
    >>> sp.token_strings(0), sp.token_strings(1)
    (['police', 'killed', 'the', 'gunman', 'it', 's'], ['a', 'b', 'c', 'd', 'e'])
    """
    wl, bl = _check(texts, word_limit, byte_limit)
    buf, offsets = encode_texts(texts)
    starts, ends, tok_offsets, _, _ = perl_split(buf, offsets, wl, bl, False, _ALNUM, _SPACE)
    return TokenSpans(buf, starts, ends, tok_offsets, ASCII_LOWER)


def perl_tokenize_sentences(
    texts: Sequence[str], *, word_limit: int | None = None, byte_limit: int | None = None
) -> tuple[TokenSpans, np.ndarray]:
    """Tokenize summaries as ROUGE-1.5.5's ROUGE-L/W path (``readText_LCS``).

    Parameters
    ----------
    texts : sequence of str
        One summary per element; sentences separated by ``"\\n"``.
    word_limit : int, optional
        The script's ``-l`` (same rule as :func:`perl_tokenize`).
    byte_limit : int, optional
        The script's ``-b`` with the ``readText_LCS`` bug: lines shorter than
        ``byte_limit`` bytes are kept whole, only the first line of at least
        ``byte_limit`` bytes is cut, and reading stops there.

    Returns
    -------
    spans : TokenSpans
        One entry per *kept line* (non-empty input lines, up to the cut; a
        line may have zero tokens): ``spans.offsets`` has ``n_lines + 1``
        entries.
    sent_offsets : numpy.ndarray of int64, shape (len(texts) + 1,)
        Lines ``sent_offsets[i]:sent_offsets[i + 1]`` belong to ``texts[i]``.

    Notes
    -----
    ROUGE-L/W also need :func:`perl_tokenize` of the same texts with the same
    limit: the script takes the unigram clipping budgets and the peer length
    from that stream, which is truncated differently under ``byte_limit``.

    Examples
    --------
    >>> sp, sent = perl_tokenize_sentences(["aaaa bbbb\\ncccc dddd\\neeee ffff"], byte_limit=15)
    >>> [sp.token_strings(j) for j in range(sent[0], sent[1])]
    [['aaaa', 'bbbb'], ['cccc', 'dddd'], ['eeee', 'ffff']]
    >>> perl_tokenize(["aaaa bbbb\\ncccc dddd\\neeee ffff"], byte_limit=15).token_strings(0)
    ['aaaa', 'bbbb', 'cccc', 'd']
    """
    wl, bl = _check(texts, word_limit, byte_limit)
    buf, offsets = encode_texts(texts)
    starts, ends, _, sent_tok_offsets, sent_offsets = perl_split(buf, offsets, wl, bl, True, _ALNUM, _SPACE)
    return TokenSpans(buf, starts, ends, sent_tok_offsets, ASCII_LOWER), sent_offsets
