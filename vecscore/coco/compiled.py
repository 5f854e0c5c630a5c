"""The compiled route of coco-caption's ROUGE-L and CIDEr-D: vecscore's numba kernels instead of NumPy sorts.

Tokens come from :func:`vecscore.kernels.coco.split_joined` (``str.split(" ")``'s tokens, with or without the
empty ones, read 64 bytes at a time from the texts joined by NUL bytes), or, where a text holds another
whitespace character, :func:`~vecscore.kernels.coco.split_whitespace` (``str.split()``'s); they are interned
by one hash table (:func:`~vecscore.kernels.coco.intern_flat`).  ROUGE-L's LCS lengths come from
:func:`vecscore.kernels.lcs.lcs_length_pairs`; CIDEr-D's n-grams of order ``k`` are interned as pairs (the
id of the n-gram of order ``k - 1`` at the same place, the next token), and its document frequencies and
clipped TF-IDF products come from :mod:`vecscore.kernels.coco` in one linear pass each.  Both routes give the
same integers (tokens, LCS lengths, counts, document frequencies) and add CIDEr-D's products and squares in
pycocoevalcap's order, so both give pycocoevalcap's values bit for bit.

Which route a call takes (:func:`use_compiled`) follows :mod:`vecscore.route`: ``VECSCORE_ROUTE=compiled`` or
``plain``; under ``auto`` a call whose kind has run compiled in this process takes the kernels, a small call
takes NumPy, and a large call takes the kernels once they are compiled in the cache folder (``vecscore warmup
--only coco``, or the background compiler that such a call starts) and NumPy until then.  Importing this
module imports no numba; its functions do.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vecscore.coco.grams import TABLE_COUNTS, Tokens, idf_classes
from vecscore.coco.items import Items
from vecscore.columns import JoinedRows, TextColumn

__all__ = ["ROUGE_KIND", "CIDER_KIND", "COST", "use_compiled", "token_ids", "lcs_rows", "cider_values", "ref_sums"]

#: the kinds of call (:func:`vecscore.route.use_plain`'s ``warm``) of the two metrics
ROUGE_KIND = ("coco", "rouge-l")
CIDER_KIND = ("coco", "cider")

#: NumPy's time per text character relative to :data:`vecscore.route.COST`'s unit (~0.25 us): measured on
#: 25,000 E2E items x 5 references (20 million characters), ROUGE-L 1.3 s and CIDEr-D 3.5 s
COST = {ROUGE_KIND: 0.25, CIDER_KIND: 0.7}

def use_compiled(batch: Items, kind: tuple, extra: Sequence[str] | None = None) -> bool:
    """Whether a call of ``kind`` on ``batch`` (and the ``extra`` texts) takes the compiled route."""
    from vecscore import route

    if not batch.n:
        return False
    return not route.use_plain(True, lambda: route.text_chars(batch.hyps, batch.refs, extra or []), COST[kind],
                               warm=kind)


def _note(kind: tuple) -> None:
    from vecscore import route

    route.note_compiled(kind)


def token_ids(texts: Sequence[str], sep: str | None = None) -> Tokens | None:
    """``text.split(sep)`` of every text (``sep``: ``None`` or ``" "``) as dense ids shared by the batch (equal
    strings, equal ids); ``None`` when a text cannot be encoded as UTF-8 (a lone surrogate: the NumPy route,
    which splits the ``str`` itself, takes those)."""
    from vecscore.engine.batch import intern
    from vecscore.kernels.coco import intern_flat, only_ascii_spaces, split_joined, split_spaces, split_whitespace
    from vecscore.kernels.intern import IDENTITY, spans_match_first, token_keys
    from vecscore.text.spans import TokenSpans

    got = encode(texts)
    if got is None:
        return None
    buf, lo, hi, joined = got
    if sep is None and not only_ascii_spaces(buf):
        spans = TokenSpans(buf, *split_whitespace(buf, lo, hi))
    elif joined:  # str.split() is then split(" ") without the empty tokens
        spans = TokenSpans(buf, *split_joined(buf, len(texts), sep == " "))
    else:
        spans = TokenSpans(buf, *split_spaces(buf, lo, hi, sep == " "))
    # interned by one table (order of first occurrence, as vecscore.engine.batch.intern), the long tokens'
    # bytes compared with their id's first token
    keys = token_keys(spans.buf, spans.starts, spans.ends, IDENTITY)
    ids, first = intern_flat(keys, _EXPECTED_TOKENS, False)
    if not spans_match_first(spans.buf, spans.starts, spans.ends, IDENTITY, ids, first):
        ids, first = intern(spans)  # two long tokens share a hashed key: bytes compared on every lookup
    return Tokens(ids, spans.offsets, len(first))


#: the distinct tokens :func:`~vecscore.kernels.coco.intern_flat`'s table is first sized for
_EXPECTED_TOKENS = 1 << 13


def encode(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool] | None:
    """``(buf, lo, hi, joined)``: the texts in one UTF-8 buffer, text ``i`` at ``buf[lo[i]:hi[i]]``; ``None``
    when a text holds a lone surrogate.

    The texts joined by NUL characters and encoded by one call (an ASCII batch is read in place), the bounds
    found by a kernel (``joined``); when a text holds a NUL itself, each text is encoded on its own, with
    nothing between them.  String columns (:class:`~vecscore.columns.JoinedRows` of them) are UTF-8 already:
    their bytes are copied together, not decoded."""
    from vecscore.kernels.tokenize import nul_offsets

    if isinstance(texts, (JoinedRows, TextColumn)):
        return _parts_encoded(texts.parts if isinstance(texts, JoinedRows) else (texts,))
    from vecscore.text.spans import ascii_view, encode_texts

    n = len(texts)
    if n:
        joined = "\x00".join(texts)
        buf = ascii_view(joined) if joined.isascii() else None
        if buf is None:
            try:
                buf = np.frombuffer(joined.encode("utf-8"), dtype=np.uint8)
            except UnicodeEncodeError:
                return None
        off = nul_offsets(buf, n)  # empty when a text holds a NUL itself
        if off.size:
            hi = off[1:] - 1
            hi[-1] = off[-1]
            return buf, off[:-1], hi, True
    try:
        buf, off = encode_texts(texts)
    except UnicodeEncodeError:
        return None
    return buf, off[:-1], off[1:], False


def _parts_encoded(parts) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool] | None:
    """:func:`encode` of sequences one after another, a string column's bytes as they are."""
    bufs, los, his, base = [], [], [], 0
    for part in parts:
        if isinstance(part, TextColumn):
            o = part.offsets
            buf, lo, hi = part.data[o[0]:o[-1]], o[:-1] - o[0], o[1:] - o[0]
        else:
            got = encode(list(part))
            if got is None:
                return None
            buf, lo, hi, _ = got
        bufs.append(buf)
        los.append(lo + base)
        his.append(hi + base)
        base += len(buf)
    return np.concatenate(bufs), np.concatenate(los), np.concatenate(his), False


def lcs_rows(batch: Items) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`vecscore.coco.rouge_l.lcs_rows` by the kernels; ``None`` where :func:`token_ids` declines."""
    from vecscore.kernels.lcs import lcs_length_pairs

    n = batch.n
    toks = token_ids(batch.texts(), sep=" ")
    if toks is None:
        return None
    lengths = toks.lengths
    refs = n + np.arange(len(batch.refs), dtype=np.int64)
    lcs = lcs_length_pairs(toks.ids, toks.starts, toks.ids, toks.starts, batch.owner, refs,
                           vocab_size=max(toks.n_vocab, 1))
    _note(ROUGE_KIND)
    return lcs, lengths[:n], lengths[n:]


def cider_values(texts: Sequence[str], n_orders: int, ref_ptr: np.ndarray, df_owner: np.ndarray,
                 log_n: float) -> tuple[np.ndarray, np.ndarray] | None:
    """``(lengths, values)``: every text's token count and, per reference and order ``1..n_orders``, its clipped
    TF-IDF product with its item's hypothesis over the two norms (``(n_refs, n_orders)``), as
    :func:`vecscore.coco.cider.item_scores` computes them; ``None`` when a text holds one n-gram more than
    :data:`~vecscore.coco.grams.TABLE_COUNTS` times or a lone surrogate (the NumPy route takes those).
    ``texts``: the hypotheses, the references, then any corpus references; ``df_owner``: per text, the document
    that counts it for df (``-1``: none)."""
    from vecscore.kernels.coco import cider_values as values
    from vecscore.kernels.coco import document_frequency, gram_keys, intern_flat, power_table
    from vecscore.parallel import current_threads

    toks = token_ids(texts)
    if toks is None:
        return None
    threads = max(1, current_threads())
    n_scored = len(ref_ptr) - 1 + int(ref_ptr[-1])
    out = np.zeros((int(ref_ptr[-1]), n_orders), dtype=np.float64)
    gram_ids, goff, n_grams = toks.ids, toks.starts, toks.n_vocab
    rows = 1
    for k in range(1, n_orders + 1):
        if k > 1:  # n-grams of order k: (the n-gram of order k - 1 at a position, the token k - 1 after it)
            key_max = n_grams * max(toks.n_vocab, 1)
            if key_max >= 1 << 62:
                return None
            keys, goff = gram_keys(gram_ids, goff, toks.ids, toks.starts, k, max(toks.n_vocab, 1))
            gram_ids, first = intern_flat(keys, 2 * n_grams, key_max < 1 << 31)
            n_grams = len(first)
        # (no n-gram occurs in a text more often than its first token: the unigrams' largest count bounds all)
        df, most = document_frequency(gram_ids, goff, df_owner, max(n_grams, 1), n_scored if k == 1 else 0, threads)
        if k == 1:
            rows = max(int(most), 1)
            if rows > TABLE_COUNTS:  # a text repeats a token more often than a table of squares is made for
                return None
        idf, cls, idf_values = idf_classes(df, log_n)
        table = power_table(idf_values, rows, 2.0)
        got = values(gram_ids, goff, ref_ptr, idf, cls, table, table[1][cls], threads)
        if got is None:
            return None
        out[:, k - 1] = got
    _note(CIDER_KIND)
    return toks.lengths, out


def ref_sums(per_ref: np.ndarray, ref_ptr: np.ndarray) -> np.ndarray:
    """:func:`vecscore.coco.cider._ref_sums` by a kernel: per item, its references' rows added in order."""
    from vecscore.kernels.coco import ref_sums as sums

    return sums(np.ascontiguousarray(per_ref, dtype=np.float64), np.asarray(ref_ptr, dtype=np.int64))
