"""ROUGE-N and ROUGE-L straight from text: the fast path of :func:`vecscore.rouge`.

When the texts are ``str``, the tokenizer is ``rouge-score`` and no
vocabulary transform (stemming, stopwords) is asked for, rouge-score's
rouge1..rougeN and rougeL need no corpus-wide vocabulary: every statistic
compares tokens within one pair.  :func:`direct_stats` then runs one fused
kernel (:mod:`vecscore.kernels.pair_rouge`) over the raw bytes instead of
building token spans, corpus ids and sparse count matrices for the whole
batch.  The integer statistics are the same as :func:`vecscore.batch.build_batch`
plus :mod:`vecscore.counts` give (the tests compare the two routes); memory
is the input bytes, the outputs and scratch for one pair per thread.
"""
from __future__ import annotations

from itertools import chain

import numpy as np

from vecscore.batch import _check_units, input_kind, normalize_refs, warn_empty_rows
from vecscore.kernels.pair_rouge import pair_rouge_stats
from vecscore.text.tokenizers import rouge_score_bytes

__all__ = ["direct_applicable", "direct_stats"]


def direct_applicable(hyps, parsed, tokenizer, transform) -> bool:
    """Whether :func:`direct_stats` can score this call (the result would be the same either way)."""
    return (
        isinstance(tokenizer, str)
        and tokenizer == "rouge-score"
        and transform is None
        and all(kind in ("n", "L") for kind, _ in parsed)
        and not isinstance(hyps, (str, bytes))
        and hasattr(hyps, "__len__")
        and input_kind(hyps) == "text"
    )


def direct_stats(hyps, refs, parsed, *, refs_layout: str = "per-example", warn_empty: bool = True):
    """Per metric ``(hits, hyp_count, ref_count)`` and the reference pointer.

    ``parsed`` holds ``("n", N)`` and ``("L", 0)`` entries (see
    :func:`vecscore.rouge.parse_metric`).  ``hits`` and ``ref_count`` have one
    entry per reference row, ``hyp_count`` one per pair.
    """
    n = len(hyps)
    joined = _joined_single_refs(hyps, refs, refs_layout)
    if joined is not None:  # every text a str, one reference each: validated by the join itself
        ref_ptr = np.arange(n + 1, dtype=np.int64)
        rows = _Concat(hyps, refs)
    else:
        _check_units(hyps, "text", "hyps")
        flat_refs, ref_ptr = normalize_refs(refs, n, "text", refs_layout)
        rows = list(hyps) + flat_refs
    buf, offsets, table, fold = rouge_score_bytes(rows, joined)
    orders = np.array(sorted({int(p) for kind, p in parsed if kind == "n"}), dtype=np.int64)
    want_lcs = any(kind == "L" for kind, _ in parsed)
    lengths, hits, lcs = pair_rouge_stats(buf, offsets, table, fold, ref_ptr, orders, want_lcs)
    if warn_empty:  # attributed to the caller of rouge() (this, rouge, its workers= wrapper)
        warn_empty_rows(rows, lengths, stacklevel=5)
    hyp_len, ref_len = lengths[:n], lengths[n:]
    out = []
    for kind, param in parsed:
        if kind == "L":
            out.append((lcs, hyp_len, ref_len))
            continue
        k = int(np.searchsorted(orders, int(param)))
        out.append((hits[k], np.maximum(hyp_len - (param - 1), 0), np.maximum(ref_len - (param - 1), 0)))
    return out, ref_ptr


def _joined_single_refs(hyps, refs, refs_layout: str) -> str | None:
    """The texts NUL-joined (hypotheses, then references) when every row is a ``str``
    and every pair has one reference; ``None`` otherwise (take the checked path)."""
    if refs_layout != "per-example" or isinstance(refs, (str, bytes)) or not hasattr(refs, "__len__"):
        return None
    if len(refs) != len(hyps):
        return None
    rows = hyps + refs if type(hyps) is list and type(refs) is list else chain(hyps, refs)
    try:
        return "\x00".join(rows)
    except TypeError:  # a None, a list of references, ...
        return None


class _Concat:
    """``hyps`` then ``refs`` as one read-only sequence, without copying."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def __len__(self) -> int:
        return len(self.a) + len(self.b)

    def __getitem__(self, i: int):
        return self.a[i] if i < len(self.a) else self.b[i - len(self.a)]
