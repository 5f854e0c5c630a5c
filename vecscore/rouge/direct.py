"""ROUGE-N, ROUGE-L and ROUGE-Lsum straight from text: the fast path of :func:`vecscore.rouge`.

When the texts are ``str``, the tokenizer is ``rouge-score`` and no vocabulary
transform (stemming, stopwords) is asked for, rouge-score's rouge1..rougeN,
rougeL and rougeLsum need no corpus-wide vocabulary: every statistic compares
tokens within one pair (rougeLsum's sentences are the texts' lines, after
:func:`vecscore.rouge` has applied the sentence splitter).
:func:`direct_stats` then runs one fused kernel
(:mod:`vecscore.kernels.pair_rouge`) over the raw bytes instead of building
token spans, corpus ids and sparse count matrices for the whole batch.
Pure-ASCII ``str`` are read where they lie (:mod:`vecscore.engine.pair_rows`);
other ``str`` are read in place too, as the bytes rouge-score's tokenizer would
see (:data:`vecscore.kernels.wide_text.ROUGE_SCORE`: Latin-1 rows as they are,
wider ones transcoded by a kernel); rows that cannot be read in place are
lowercased by ``str.lower()`` and encoded (:func:`lowered_utf8`).  A text
holding a lone surrogate is refused as on the plain route, naming the row.  The
integer statistics are the same as :func:`vecscore.engine.batch.build_batch`
plus :mod:`vecscore.engine.counts` give (the tests compare the two routes);
memory is the outputs and scratch for one pair per thread (bounded by the
pair's bytes of text, see :mod:`vecscore.kernels.pair_rouge`), plus the encoded
non-ASCII rows.  A pair whose scratch cannot be allocated raises
:class:`vecscore.memory.PairMemoryError` naming it (``hyps[i]``) and the memory
it needs.  The rare (hypothesis, reference) rows whose rougeLsum needs an LCS
table larger than the kernel keeps (a hypothesis line of more than 64 tokens
against long reference lines, see :mod:`vecscore.kernels.pair_lsum`) get their
rougeLsum from the general route's kernel (:mod:`vecscore.kernels.union_lcs`).
With ``sentence_splitter="punct"``, the kernel finds the splitter's sentence
ends in ASCII texts itself, from their bytes (no split copies of them); the
other texts are split first (:func:`_punct_rows`).
"""
from __future__ import annotations

from itertools import chain

import numpy as np

from vecscore.engine.batch import warn_empty_rows
from vecscore.engine.pair_rows import pair_rows
from vecscore.errors import VecscoreError
from vecscore.kernels.intern import ASCII_LOWER
from vecscore.kernels.pair_rouge import pair_rouge_stats
from vecscore.kernels.wide_text import ROUGE_SCORE
from vecscore.references import Refs
from vecscore.rouge.splitting import split_texts
from vecscore.row_errors import check_unicode
from vecscore.text.sentences import punct_keys, split_punct_compiled, split_punct_plain, split_punct_utf8
from vecscore.text.tokenizers import ROUGE_SCORE_TABLE

__all__ = ["direct_stats", "lowered_utf8"]


def _applies(input_kind, parsed, tokenizer, transform) -> bool:
    """Whether :func:`direct_stats` can score this call (the result would be the same either way)."""
    return (
        isinstance(tokenizer, str)
        and tokenizer == "rouge-score"
        and transform is None
        and all(kind in ("n", "L", "Lsum") for kind, _ in parsed)
        and input_kind == "text"
    )


def direct_stats(hyps, input_kind: str, refs: Refs, parsed, *, tokenizer="rouge-score", transform=None,
                 warn_empty: bool = True, splitter: str = "newline"):
    """Per metric ``(hits, hyp_count, ref_count)`` and the reference pointer, or ``None``.

    ``hyps``, their ``input_kind`` and ``refs`` are as :func:`vecscore.references.read_pairs` read them.
    ``None`` means this route does not apply to the call (the protocol of every
    route, see :mod:`vecscore.route`): not ``str`` texts, another tokenizer, a
    vocabulary transform, or metrics other than rougeN, rougeL and rougeLsum.
    ``parsed`` holds ``("n", N)``, ``("L", 0)`` and ``("Lsum", 0)`` entries (see
    :func:`vecscore.rouge.parse_metric`).  ``hits`` and ``ref_count`` have one
    entry per reference row, ``hyp_count`` one per pair.  ``splitter``: rougeLsum's sentence splitter
    (``punct``: :func:`_punct_rows`).
    """
    if not _applies(input_kind, parsed, tokenizer, transform):
        return None
    n = len(hyps)
    rows, ref_ptr, texts = pair_rows(hyps, refs, lowered_utf8, ROUGE_SCORE,
                                     lambda i: _lone_surrogate(hyps, refs, i))
    orders = np.array(sorted({int(p) for kind, p in parsed if kind == "n"}), dtype=np.int64)
    want_lcs = any(kind == "L" for kind, _ in parsed)
    want_lsum = any(kind == "Lsum" for kind, _ in parsed)
    punct = abbrev = None
    if want_lsum and splitter == "punct":
        rows, punct = _punct_rows(rows, texts)
        abbrev = punct_keys()
    found = pair_rouge_stats(rows.addrs, rows.lens, ROUGE_SCORE_TABLE, ASCII_LOWER, ref_ptr, orders, want_lcs,
                             want_lsum=want_lsum, punct=punct, abbrev=abbrev)
    lengths, hits, lcs = found[:3]
    lsum = _lsum_fallback(found[3], texts, ref_ptr, splitter) if want_lsum else None
    if warn_empty:  # attributed to the caller of rouge() (this, rouge, its workers= wrapper)
        warn_empty_rows(texts, lengths)
    hyp_len, ref_len = lengths[:n], lengths[n:]
    out = []
    for kind, param in parsed:
        if kind in ("L", "Lsum"):
            out.append((lcs if kind == "L" else lsum, hyp_len, ref_len))
            continue
        k = int(np.searchsorted(orders, int(param)))
        out.append((hits[k], np.maximum(hyp_len - (param - 1), 0), np.maximum(ref_len - (param - 1), 0)))
    return out, ref_ptr


def _punct_rows(rows, texts):
    """``(rows, punct)`` for ``sentence_splitter="punct"``: the kernel finds the breaks of the ASCII texts
    (``punct``, one flag per row) from their bytes, where they lie; every other text is split here (its
    rule needs the text's characters, which the kernel's bytes do not keep) and read as the UTF-8 the
    splitting kernel writes (:func:`vecscore.text.sentences.split_punct_utf8`): rouge-score's tokens are
    the same in it, since the per-pair kernel folds ``A-Z`` and takes every byte ``>= 0x80`` as a
    separator, unless a text holds one of the two characters that lower to ASCII letters (``U+0130``,
    ``U+212A``), when :func:`lowered_utf8` of the split texts is read."""
    n = len(texts)
    punct = np.fromiter((t.isascii() for t in chain(texts.a, texts.b)), np.bool_, n)
    other = np.flatnonzero(~punct)
    if len(other) == 0:
        return rows, punct
    todo = [str(texts[int(i)]) for i in other]
    found = None if any("\u0130" in t or "\u212a" in t for t in todo) else split_punct_utf8(todo)
    if found is None:
        return rows.patched(other, [lowered_utf8(t) for t in split_punct_compiled(todo)]), punct
    out, offsets, flagged = found
    ends = offsets[1:] - 1
    ends[-1] += 1  # no NUL after the last text
    starts = offsets[:-1]
    rows = rows.pointed(other, out.ctypes.data + starts, ends - starts, out)
    redo = np.flatnonzero(flagged)
    if len(redo):
        rows = rows.patched(other[redo], [lowered_utf8(split_punct_plain(todo[int(i)])) for i in redo])
    return rows, punct


def _lsum_fallback(lsum, texts, ref_ptr, splitter="newline"):
    """``lsum`` with its -1 rows (tables too large for the per-pair kernel) scored by the general route,
    on the texts split by ``splitter``."""
    todo = np.flatnonzero(lsum < 0)
    if todo.size == 0:
        return lsum
    from vecscore.engine.batch import build_batch
    from vecscore.kernels.union_lcs import union_lcs_hits_pairs

    n = len(ref_ptr) - 1
    owner = np.repeat(np.arange(n), np.diff(ref_ptr))[todo]
    hyps, refs = split_texts([str(texts[int(p)]) for p in owner], [str(texts[n + int(q)]) for q in todo], splitter,
                             split_punct_compiled)
    batch = build_batch(hyps, refs, sentences=True, warn_empty=False)
    t = batch.texts
    so, ts = batch.sentences
    lsum[todo] = union_lcs_hits_pairs(t.ids, so, ts, t.ids, so, ts, batch.owner, batch.ref_rows,
                                      vocab_size=batch.n_vocab)
    return lsum


def lowered_utf8(text: str) -> bytes:
    """A row that is not pure ASCII, as rouge-score sees it: ``str.lower()`` first; its
    remaining non-ASCII bytes are separators for the byte tokenizer (``UnicodeEncodeError`` for
    a lone surrogate)."""
    return text.lower().encode("utf-8")


def _lone_surrogate(hyps, refs, i: int) -> Exception:
    """The plain route's error for a text holding a lone surrogate (it names the user's row)."""
    try:
        check_unicode(hyps, "hyps")
        check_unicode(refs if isinstance(refs, (list, tuple, Refs)) else list(refs), "refs")
    except VecscoreError as e:
        return e
    return VecscoreError(f"texts[{i}] contains a lone surrogate code point; clean or re-decode it")
