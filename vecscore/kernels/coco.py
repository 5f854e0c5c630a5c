"""Numba kernels for coco-caption's CIDEr-D (the compiled route of :mod:`vecscore.coco.cider`).

Layout: the n-grams of one order as dense ids ``grams`` (int64, ``0..n_grams-1``)
with per-text offsets ``goff``: text ``t``'s n-grams are
``grams[goff[t]:goff[t + 1]]``.  Texts are the batch's hypotheses (``0..n_items-1``)
then its references, item after item (``ref_ptr``), then any corpus references that
give the document frequencies.  Every pass is linear in the n-grams, with dense
scratch arrays indexed by n-gram id instead of sorting.
"""
from __future__ import annotations

import numpy as np

from vecscore._jit import jit, prange
from vecscore.memory import CHUNK_FAILED

__all__ = ["document_frequency", "cider_values"]


@jit(parallel=True)
def document_frequency(grams, goff, doc_of_text, n_grams, n_chunks):
    """``df[g]``: how many documents hold n-gram ``g`` in one of their texts.

    ``doc_of_text[t]`` is text ``t``'s document (``-1``: not counted); a document's texts must be
    consecutive (an n-gram seen again in the same document is recognised by the last document that
    counted it).  Chunks of texts, cut only between documents, count in parallel.
    """
    n_texts = len(goff) - 1
    bounds = np.empty(n_chunks + 1, np.int64)
    bounds[0] = 0
    for c in range(1, n_chunks):
        t = max(bounds[c - 1], c * n_texts // n_chunks)
        while 0 < t < n_texts and doc_of_text[t] >= 0 and doc_of_text[t] == doc_of_text[t - 1]:
            t += 1
        bounds[c] = t
    bounds[n_chunks] = n_texts
    parts = np.zeros((n_chunks, n_grams), np.int32)
    for c in prange(n_chunks):
        last = np.full(n_grams, -1, np.int64)
        df = parts[c]
        for t in range(bounds[c], bounds[c + 1]):
            d = doc_of_text[t]
            if d < 0:
                continue
            for p in range(goff[t], goff[t + 1]):
                g = grams[p]
                if last[g] != d:
                    last[g] = d
                    df[g] += 1
    out = np.zeros(n_grams, np.int64)
    for c in range(n_chunks):
        out += parts[c]
    return out


@jit(parallel=True)
def cider_values(grams, goff, ref_ptr, idf, idf_class, squares, square1, n_chunks):
    """Per reference: ``sum_g min(h_g, r_g) * r_g / (|h| |r|)`` (the division only when both norms are
    non-zero), where ``h_g``/``r_g`` are the hypothesis' and the reference's weights ``count * idf[g]``;
    ``None`` when a text holds an n-gram more often than ``squares`` has rows for.

    ``idf[g]`` is ``log N - log max(1, df[g])``; item ``i``'s hypothesis is text ``i``, its references
    texts ``n_items + ref_ptr[i] .. n_items + ref_ptr[i + 1] - 1``.  The norms add
    ``squares[count, idf_class[g]]`` (``square1[g]`` for a count of 1): each weight's square as
    ``pow(weight, 2)`` gives it, which may differ from ``weight * weight`` in the last bit.  Every sum runs
    in pycocoevalcap's order (a text's distinct n-grams in the order they first occur in it; the product
    over the hypothesis' n-grams), so the values are its values bit for bit.
    """
    n_items = len(ref_ptr) - 1
    out = np.zeros(ref_ptr[n_items], np.float64)
    status = np.zeros(n_chunks, np.int64)
    for c in prange(n_chunks):
        status[c] = _cider_chunk(grams, goff, ref_ptr, idf, idf_class, squares, square1, n_chunks, c, out)
    if (status == 2).any():
        raise MemoryError(CHUNK_FAILED)
    if (status == 1).any():
        return None
    return out


@jit
def _cider_chunk(grams, goff, ref_ptr, idf, idf_class, squares, square1, n_chunks, c, out):
    """The items of chunk ``c`` of :func:`cider_values`: 0, or 1 when a count is beyond ``squares``, 2 when
    its scratch could not be allocated."""
    try:
        return _cider_chunk_body(grams, goff, ref_ptr, idf, idf_class, squares, square1, n_chunks, c, out)
    except Exception:
        return 2


@jit
def _cider_chunk_body(grams, goff, ref_ptr, idf, idf_class, squares, square1, n_chunks, c, out):
    n_items = len(ref_ptr) - 1
    lo = c * n_items // n_chunks
    hi = (c + 1) * n_items // n_chunks
    top = squares.shape[0] - 1
    count = np.zeros(len(idf), np.int32)  # a text's count of each n-gram; negated once its weight is used
    longest = 0
    for i in range(lo, hi):
        longest = max(longest, goff[i + 1] - goff[i])
    hyp_gram = np.empty(longest, np.int64)  # the hypothesis' distinct n-grams, in order of first occurrence
    hyp_weight = np.empty(longest, np.float64)
    for i in range(lo, hi):
        for p in range(goff[i], goff[i + 1]):
            count[grams[p]] += 1
        m = 0
        norm_h = 0.0
        for p in range(goff[i], goff[i + 1]):
            g = grams[p]
            k = count[g]
            if k > 0:
                if k > top:
                    return 1
                hyp_gram[m] = g
                hyp_weight[m] = k * idf[g]
                norm_h += square1[g] if k == 1 else squares[k, idf_class[g]]
                m += 1
                count[g] = 0
        norm_h = np.sqrt(norm_h)
        for r in range(ref_ptr[i], ref_ptr[i + 1]):
            t = n_items + r
            for p in range(goff[t], goff[t + 1]):
                count[grams[p]] += 1
            norm_r = 0.0
            for p in range(goff[t], goff[t + 1]):
                g = grams[p]
                k = count[g]
                if k > 0:
                    if k > top:
                        return 1
                    norm_r += square1[g] if k == 1 else squares[k, idf_class[g]]
                    count[g] = -k
            norm_r = np.sqrt(norm_r)
            val = 0.0
            for e in range(m):
                g = hyp_gram[e]
                w = -count[g] * idf[g] if count[g] < 0 else 0.0
                val += min(hyp_weight[e], w) * w
            for p in range(goff[t], goff[t + 1]):
                count[grams[p]] = 0
            if norm_h != 0.0 and norm_r != 0.0:
                val /= norm_h * norm_r
            out[r] = val
    return 0


@jit(parallel=True)
def split_spaces(buf, lo, hi, keep_empty):
    """The byte ranges between ASCII spaces of every text of a UTF-8 buffer (text ``i`` is
    ``buf[lo[i]:hi[i]]``; no multi-byte character holds the byte 0x20): ``str.split(" ")`` with
    ``keep_empty`` (a text with ``k`` spaces has ``k + 1`` tokens), else without its empty tokens (which is
    ``str.split()`` when no other whitespace occurs).  Returns ``(starts, ends, tok_offsets)``.

    (The loops run from 0 over slices: numba keeps a negative-index check on every access of a loop from a
    variable start, which blocks LLVM's vectorizer.)"""
    n = len(lo)
    counts = np.empty(n, np.int64)
    for i in prange(n):
        seg = buf[lo[i]:hi[i]]
        k = 0
        if keep_empty:
            k = 1
            for q in range(len(seg)):
                k += seg[q] == 0x20
        else:
            prev = True  # the byte before is a space (or the text's start)
            for q in range(len(seg)):
                space = seg[q] == 0x20
                k += prev and not space
                prev = space
        counts[i] = k
    tok_offsets = np.zeros(n + 1, np.int64)
    for i in range(n):
        tok_offsets[i + 1] = tok_offsets[i] + counts[i]
    starts = np.empty(tok_offsets[n], np.int64)
    ends = np.empty(tok_offsets[n], np.int64)
    for i in prange(n):
        base = lo[i]
        seg = buf[base:hi[i]]
        j = tok_offsets[i]
        if keep_empty:
            starts[j] = base
            for q in range(len(seg)):
                if seg[q] == 0x20:
                    ends[j] = base + q
                    j += 1
                    starts[j] = base + q + 1
            ends[j] = hi[i]
        else:
            inside = False
            for q in range(len(seg)):
                if seg[q] == 0x20:
                    if inside:
                        ends[j] = base + q
                        j += 1
                        inside = False
                elif not inside:
                    starts[j] = base + q
                    inside = True
            if inside:
                ends[j] = hi[i]
    return starts, ends, tok_offsets


@jit
def _space_bytes(seg, q):
    """The length in bytes of the non-ASCII whitespace character (``str.isspace()``) that starts at ``seg[q]``,
    else 0."""
    b = seg[q]
    end = len(seg)
    if b == 0xC2:  # U+0085, U+00A0
        return 2 if q + 1 < end and (seg[q + 1] == 0x85 or seg[q + 1] == 0xA0) else 0
    if b < 0xE1 or b > 0xE3 or q + 2 >= end:
        return 0
    b1 = seg[q + 1]
    b2 = seg[q + 2]
    if b == 0xE1:  # U+1680
        return 3 if b1 == 0x9A and b2 == 0x80 else 0
    if b == 0xE3:  # U+3000
        return 3 if b1 == 0x80 and b2 == 0x80 else 0
    if b1 == 0x80:  # U+2000..U+200A, U+2028, U+2029, U+202F
        return 3 if b2 <= 0x8A or b2 == 0xA8 or b2 == 0xA9 or b2 == 0xAF else 0
    return 3 if b1 == 0x81 and b2 == 0x9F else 0  # U+205F


@jit
def _split_text(seg, base, starts, ends, j, write):
    """The whitespace-separated tokens of ``seg`` (which starts at ``base`` in the buffer), written from ``j``
    when ``write``; their number."""
    k = 0
    inside = False
    skip = 0
    for q in range(len(seg)):
        if skip:  # the rest of a multi-byte whitespace character
            skip -= 1
            continue
        b = seg[q]
        if b < 0x80:  # the common case in line: 0x20, 0x09-0x0D, 0x1C-0x1F
            w = 1 if b == 0x20 or 0x09 <= b <= 0x0D or 0x1C <= b <= 0x1F else 0
        else:  # a continuation byte never starts a whitespace character: reading byte by byte is safe
            w = _space_bytes(seg, q)
        if w:
            if inside:
                if write:
                    ends[j + k - 1] = base + q
                inside = False
            skip = w - 1
        elif not inside:
            if write:
                starts[j + k] = base + q
            k += 1
            inside = True
    if inside and write:
        ends[j + k - 1] = base + len(seg)
    return k


@jit(parallel=True)
def split_whitespace(buf, lo, hi):
    """``str.split()`` of every text of a UTF-8 buffer (text ``i`` is ``buf[lo[i]:hi[i]]``; whitespace read from
    the bytes, without decoding code points).  Returns ``(starts, ends, tok_offsets)``."""
    n = len(lo)
    counts = np.empty(n, np.int64)
    none = np.empty(0, np.int64)
    for i in prange(n):
        counts[i] = _split_text(buf[lo[i]:hi[i]], lo[i], none, none, 0, False)
    tok_offsets = np.zeros(n + 1, np.int64)
    for i in range(n):
        tok_offsets[i + 1] = tok_offsets[i] + counts[i]
    starts = np.empty(tok_offsets[n], np.int64)
    ends = np.empty(tok_offsets[n], np.int64)
    for i in prange(n):
        _split_text(buf[lo[i]:hi[i]], lo[i], starts, ends, tok_offsets[i], True)
    return starts, ends, tok_offsets


@jit
def only_ascii_spaces(buf):
    """Whether the only whitespace characters (``str.isspace()``) in ``buf`` are ASCII spaces: then
    ``str.split()``'s tokens are ``str.split(" ")``'s without the empty ones."""
    for q in range(len(buf)):
        b = buf[q]
        if b < 0x20:
            if 0x09 <= b <= 0x0D or b >= 0x1C:
                return False
        elif 0xC2 <= b <= 0xE3 and _space_bytes(buf, q):
            return False
    return True
