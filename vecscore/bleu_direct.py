"""BLEU statistics straight from ASCII text: the fast path of vecscore's BLEU.

For a batch of ``str`` that is pure ASCII (read in place, see
:mod:`vecscore.pair_rows`), tokenized by
``13a``, ``none`` or ``char`` without lowercasing, every statistic compares
tokens within one pair, so no corpus-wide tokens or vocabulary are needed:
:func:`direct_stats` runs :func:`vecscore.kernels.pair_bleu.pair_bleu_counts`
over the raw bytes.  It returns ``None`` where it does not apply, and the
caller takes the general route (:func:`vecscore.batch.build_batch` with
sacreBLEU's tokenizers, then :func:`vecscore.bleu_stats.batch_stats`), which
gives the same statistics.
"""
from __future__ import annotations

from vecscore.bleu_stats import BleuStats, check_stats_args, stats_from_counts
from vecscore.kernels.pair_bleu import FAST_MODES, pair_bleu_counts
from vecscore.pair_rows import pair_rows

__all__ = ["direct_stats"]


def direct_stats(hyps, refs, *, tokenize: str, lowercase: bool, max_order: int, brevity_penalty: str,
                 refs_layout: str) -> BleuStats | None:
    """Statistics of validated text ``hyps`` (see :func:`vecscore.bleu.bleu_statistics`), or ``None``."""
    if tokenize not in FAST_MODES or lowercase:
        return None
    n = len(hyps)
    got = pair_rows(hyps, refs, refs_layout, None)
    if got is None:  # a row that is not pure ASCII
        return None
    rows, ref_ptr, _ = got
    check_stats_args(ref_ptr, max_order, brevity_penalty)
    lengths, correct = pair_bleu_counts(rows.addrs, rows.lens, ref_ptr, FAST_MODES[tokenize], int(max_order))
    return stats_from_counts(lengths[:n], lengths[n:], ref_ptr, correct, brevity_penalty)
