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
from vecscore.kernels.swar import block_64, ctz, emit_bits, low_bits, popcount, range_bits
from vecscore.kernels.tokenize import token_slots
from vecscore.memory import CHUNK_FAILED

__all__ = ["intern_flat", "gram_keys", "document_frequency", "power_table", "cider_values", "ref_sums", "split_joined",
           "split_spaces", "split_whitespace", "only_ascii_spaces"]


_GOLDEN = 0x9E3779B97F4A7C15  # Fibonacci hashing: the top bits of key * 2^64 / phi pick the slot


@jit
def intern_flat(keys, expected, small):
    """Dense ids for int64 ``keys`` in order of first occurrence, by one linear-probing table sized for
    ``expected`` distinct keys and made four times larger (from the start again) when they are more.  A slot
    holds the key beside its id, so that a lookup reads one place: 16 bytes, or 8 when ``small`` (every key in
    ``0 .. 2**31 - 1``: key and id packed into one int64).  Returns ``(ids, first)``: ``first[v]`` is the index
    of the first key with id ``v``.  (At the sizes of one call this beats
    :func:`vecscore.kernels.intern.intern_keys_chunked`, whose tables start small and whose chunks are
    merged.)"""
    n = len(keys)
    ids = np.empty(n, np.int64)
    first = np.empty(n, np.int64)
    bits = 4
    while (1 << bits) < 2 * min(max(expected, 1), n) + 2:
        bits += 1
    while True:
        nv = _intern_packed(keys, bits, ids, first) if small else _intern_wide(keys, bits, ids, first)
        if nv >= 0:
            return ids, first[:nv].copy()
        bits += 2


@jit
def _intern_wide(keys, bits, ids, first):
    """:func:`intern_flat` with a table of ``2 ** bits`` slots of (key, id); -1 if it fills past half."""
    mask = (1 << bits) - 1
    shift = np.uint64(64 - bits)
    table = np.full(2 << bits, -1, np.int64)  # id -1: free
    limit = (1 << bits) // 2
    nv = 0
    for k in range(len(keys)):
        key = keys[k]
        slot = np.int64((np.uint64(key) * np.uint64(_GOLDEN)) >> shift)
        while True:
            v = table[2 * slot + 1]
            if v < 0:
                if nv == limit:
                    return -1
                table[2 * slot] = key
                table[2 * slot + 1] = nv
                first[nv] = k
                v = nv
                nv += 1
                break
            if table[2 * slot] == key:
                break
            slot = (slot + 1) & mask
        ids[k] = v
    return nv


@jit
def _intern_packed(keys, bits, ids, first):
    """:func:`intern_flat` with a table of ``2 ** bits`` slots of ``key << 32 | id``; -1 if it fills past
    half."""
    mask = (1 << bits) - 1
    shift = np.uint64(64 - bits)
    table = np.full(1 << bits, -1, np.int64)  # -1: free
    limit = (1 << bits) // 2
    nv = 0
    for k in range(len(keys)):
        key = keys[k]
        slot = np.int64((np.uint64(key) * np.uint64(_GOLDEN)) >> shift)
        while True:
            entry = table[slot]
            if entry < 0:
                if nv == limit:
                    return -1
                table[slot] = (key << 32) | nv
                first[nv] = k
                v = nv
                nv += 1
                break
            if entry >> 32 == key:
                v = entry & 0xFFFFFFFF
                break
            slot = (slot + 1) & mask
        ids[k] = v
    return nv


@jit
def gram_keys(prev, prev_off, tokens, tok_off, order, n_vocab):
    """The n-grams of ``order`` of every text as exact keys ``prev * n_vocab + last token``, where ``prev`` holds
    the dense ids of the n-grams one shorter (offsets ``prev_off``) and ``tokens`` the token ids (offsets
    ``tok_off``).  Returns ``(keys, offsets)``; ``prev``'s ids times ``n_vocab`` must fit in int64."""
    n = len(tok_off) - 1
    off = np.empty(n + 1, np.int64)
    off[0] = 0
    for t in range(n):
        off[t + 1] = off[t] + max(tok_off[t + 1] - tok_off[t] - order + 1, 0)
    keys = np.empty(off[n], np.int64)
    for t in range(n):
        p = prev[prev_off[t]:prev_off[t] + off[t + 1] - off[t]]
        w = tokens[tok_off[t] + order - 1:tok_off[t] + order - 1 + off[t + 1] - off[t]]
        out = keys[off[t]:off[t + 1]]
        for j in range(len(out)):
            out[j] = p[j] * n_vocab + w[j]
    return keys, off


@jit(parallel=True)
def document_frequency(grams, goff, doc_of_text, n_grams, n_scored, n_chunks):
    """``(df, most)``: ``df[g]``, how many documents hold n-gram ``g`` in one of their texts, and ``most``, the
    largest count of one n-gram in one of the first ``n_scored`` texts.

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
    most = np.zeros(n_chunks, np.int64)
    for c in prange(n_chunks):
        last = np.full(n_grams, -1, np.int64)
        count = np.zeros(n_grams, np.int32)
        df = parts[c]
        top = 0
        for t in range(bounds[c], bounds[c + 1]):
            d = doc_of_text[t]
            g_t = grams[goff[t]:goff[t + 1]]
            if t < n_scored:
                for p in range(len(g_t)):
                    count[g_t[p]] += 1
                for p in range(len(g_t)):
                    top = max(top, count[g_t[p]])
                    count[g_t[p]] = 0
            if d < 0:
                continue
            for p in range(len(g_t)):
                g = g_t[p]
                if last[g] != d:
                    last[g] = d
                    df[g] += 1
        most[c] = top
    out = np.zeros(n_grams, np.int64)
    for c in range(n_chunks):
        out += parts[c]
    return out, most.max()


@jit
def power_table(values, top, exponent):
    """``table[k, j] = pow(k * values[j], exponent)`` for ``k = 0..top``, by the C library's ``pow`` (as
    ``math.pow`` and NumPy's scalar power call it; the exponent is passed at run time, so that the compiler
    cannot turn ``pow(w, 2)`` into ``w * w``, which differs in the last bit for about 1 weight in 1,300)."""
    out = np.empty((top + 1, len(values)), np.float64)
    for k in range(top + 1):
        for j in range(len(values)):
            out[k, j] = (k * values[j]) ** exponent
    return out


@jit
def ref_sums(per_ref, ref_ptr):
    """Per item, its references' rows (``per_ref[ref_ptr[i]:ref_ptr[i + 1]]``) added one after the other from
    0.0, as pycocoevalcap adds its ``score += sim(...)``."""
    n_items = len(ref_ptr) - 1
    out = np.zeros((n_items, per_ref.shape[1]), np.float64)
    for i in range(n_items):
        row = out[i]
        for r in range(ref_ptr[i], ref_ptr[i + 1]):
            for k in range(len(row)):
                row[k] += per_ref[r, k]
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


@jit
def split_joined(buf, n_texts, keep_empty):
    """:func:`split_spaces` of ``n_texts`` texts joined by NUL bytes (which they do not hold), 64 bytes at a
    time: the separators of a block as the bits of one word, its tokens' starts and ends walked bit by bit
    (no branch per byte).  Returns ``(starts, ends, tok_offsets)``."""
    size = len(buf)
    addr = buf.ctypes.data
    pad = np.empty(64, np.uint8)
    n_blocks = (size + 63) // 64
    one = np.uint64(1)
    # pass 1: how many tokens
    n_tok = 0
    prev = one  # the byte before the block is a separator (the buffer's start counts as one)
    for b in range(n_blocks):
        base = b * 64
        a = block_64(buf, addr, base, pad)
        sep = range_bits(a, 0x20, 0x20) | range_bits(a, 0, 0)
        if base + 64 > size:
            sep |= ~low_bits(size - base)
        if keep_empty:
            n_tok += popcount(sep & low_bits(size - base))
        else:
            n_tok += popcount(~sep & ((sep << one) | prev))
        prev = sep >> np.uint64(63)
    if keep_empty:
        n_tok += 1
    starts = np.empty(n_tok + 1, np.int64)
    ends = np.empty(n_tok + 1, np.int64)
    tok_offsets = np.empty(n_texts + 1, np.int64)
    tok_offsets[0] = 0
    t = 1  # the next text whose first token is to be found
    k = 0  # tokens started
    e = 0  # tokens ended
    if keep_empty:
        starts[0] = 0
        k = 1
    prev = one
    for b in range(n_blocks):
        base = b * 64
        a = block_64(buf, addr, base, pad)
        nul = range_bits(a, 0, 0)
        sep = range_bits(a, 0x20, 0x20) | nul
        if base + 64 > size:
            live = low_bits(size - base)
            nul &= live
            sep |= ~live
        if keep_empty:  # every separator ends a token and starts the next
            sep &= low_bits(size - base)
            while nul != 0:  # the tokens before a NUL are its text's
                j = ctz(nul)
                tok_offsets[t] = k + popcount(sep & low_bits(j))
                t += 1
                nul &= nul - one
            while sep != 0:
                j = ctz(sep)
                ends[e] = base + j
                starts[k] = base + j + 1
                e += 1
                k += 1
                sep &= sep - one
        else:
            before = (sep << one) | prev
            first = ~sep & before
            last = sep & ~before
            while nul != 0:
                j = ctz(nul)
                tok_offsets[t] = k + popcount(first & low_bits(j))
                t += 1
                nul &= nul - one
            k = emit_bits(first, base, starts, k)
            e = emit_bits(last, base, ends, e)
            prev = sep >> np.uint64(63)
    if e < k:  # the last token runs to the end of the buffer
        ends[e] = size
        e += 1
    tok_offsets[n_texts] = k
    return starts[:k], ends[:k], tok_offsets


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
    starts, ends, tok_offsets = token_slots(counts)
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
    starts, ends, tok_offsets = token_slots(counts)
    for i in prange(n):
        _split_text(buf[lo[i]:hi[i]], lo[i], starts, ends, tok_offsets[i], True)
    return starts, ends, tok_offsets


@jit
def only_ascii_spaces(buf):
    """Whether the only whitespace characters (``str.isspace()``) in ``buf`` are ASCII spaces: then
    ``str.split()``'s tokens are ``str.split(" ")``'s without the empty ones.  (One branch-free pass counts
    the other ASCII whitespace and the bytes that may start a non-ASCII one; only those are looked at then.)"""
    other = 0
    lead = 0
    for q in range(len(buf)):
        b = buf[q]
        other += ((b >= 0x09) & (b <= 0x0D)) | ((b >= 0x1C) & (b <= 0x1F))
        lead += (b >= 0xC2) & (b <= 0xE3)
    if other:
        return False
    if lead:
        for q in range(len(buf)):
            if 0xC2 <= buf[q] <= 0xE3 and _space_bytes(buf, q):
                return False
    return True
