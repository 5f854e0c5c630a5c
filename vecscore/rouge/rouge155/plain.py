"""The plain route of :func:`vecscore.rouge155.rouge155`: ROUGE-1.5.5 statistics without numba.

Every statistic the compiled route takes from a kernel, computed in Python
and NumPy with the same integer results and the same float operations in
the same order, so the scores are identical bit for bit:

==========================  =============================================  ==================================
statistic                   plain route                                    compiled route
==========================  =============================================  ==================================
tokens (``-l``, ``-b``)     :func:`perl_streams` (``re``)                  :mod:`vecscore.text.perl_rouge`
ROUGE-N, SU's unigrams      :func:`ngram_hits`                             ``pair_ngram_hits_ids``
ROUGE-S skip-bigrams        :func:`skip_bigram_hits`                       ``pair_skip_bigram_hits``
ROUGE-L union LCS           :func:`union_lcs_hits`                         ``union_lcs_hits_pairs``
ROUGE-W (the script's)      :func:`wlcs_stats`                             ``wlcs_perl_pairs``
``-f A`` ROUGE-W sums       :func:`segment_sum_seq`                        ``segment_sum_seq``
``-f B`` choice             :func:`segment_argmax`                         ``segment_argmax``
printed averages            :func:`perl_bootstrap_means`                   ``perl_bootstrap_means``
==========================  =============================================  ==================================

Every option of :func:`vecscore.rouge155.rouge155` is implemented.  Two
statistics cost more than linear time: ROUGE-W fills the script's dynamic
programme (``len(ref line) x len(hyp line)`` cells per line pair, in Python)
and ROUGE-S* has ``L (L - 1) / 2`` skip-bigrams per text of ``L`` tokens.
:func:`plain_route_fits` bounds both, so that under ``VECSCORE_ROUTE=auto``
a call with long texts (e.g. multi-document summaries scored with ROUGE-W)
goes to the kernels even when its text is short enough for the plain route.
"""
from __future__ import annotations

from vecscore.rouge.rouge155.plain_bags import (
    ngram_hits,
    segment_argmax,
    segment_sum_seq,
    skip_bigram_hits,
)
from vecscore.rouge.rouge155.plain_bootstrap import perl_bootstrap_means
from vecscore.rouge.rouge155.plain_lcs import union_lcs_hits, wlcs_stats
from vecscore.rouge.rouge155.plain_text import PerlStreams, Rows, perl_streams

__all__ = [
    "perl_streams",
    "PerlStreams",
    "Rows",
    "ngram_hits",
    "skip_bigram_hits",
    "union_lcs_hits",
    "wlcs_stats",
    "segment_sum_seq",
    "segment_argmax",
    "perl_bootstrap_means",
    "plain_route_fits",
    "PLAIN_MAX_WLCS_CELLS",
    "PLAIN_MAX_SKIP_UNITS",
    "CHARS_PER_TOKEN",
]

#: ROUGE-W dynamic-programme cells (hypothesis tokens x reference tokens, summed over the
#: call's (hypothesis, reference) pairs) up to which ``auto`` takes the plain route.  The plain
#: route fills only the cells that can differ from the row above: 25-60 ns per cell of the product
#: on news text (about 0.3 s at this bound), up to ~140 ns on very repetitive text; it binds
#: only for long texts (single-sentence segments stay far below it).
PLAIN_MAX_WLCS_CELLS = 10_000_000
#: skip-bigram occurrences (all texts) up to which ``auto`` takes the plain route (ROUGE-S*: about
#: 0.3 s at this bound; units of tokens the pair's other side lacks are never formed)
PLAIN_MAX_SKIP_UNITS = 10_000_000
#: characters per ROUGE-1.5.5 token assumed by :func:`plain_route_fits` (English news text has
#: about 5.5-6 characters per token, counting spaces and punctuation)
CHARS_PER_TOKEN = 5


def plain_route_fits(hyps, refs, *, wlcs: bool, skip_gaps) -> bool:
    """Whether the plain route's super-linear work stays small for these texts.

    ``hyps``: one ``str`` per pair; ``refs``: per pair a list of ``str``.
    ``wlcs``: ROUGE-W is asked for; ``skip_gaps``: the ROUGE-S/SU gaps asked
    for (``< 0``: no limit).  Token counts are estimated from characters
    (:data:`CHARS_PER_TOKEN`), before tokenizing:

    * ROUGE-W: ``sum over pairs and references of |hyp| x |ref|`` at most
      :data:`PLAIN_MAX_WLCS_CELLS` (the cells of the script's DP, whatever
      the line split: the line pairs' cells add up to that product);
    * ROUGE-S: ``sum over texts of min(L (gap + 1), L (L - 1) / 2)`` for the
      largest gap asked for at most :data:`PLAIN_MAX_SKIP_UNITS`.
    """
    c = CHARS_PER_TOKEN
    if wlcs:
        cells = sum(len(h) * sum(map(len, rs)) for h, rs in zip(hyps, refs)) // (c * c)
        if cells > PLAIN_MAX_WLCS_CELLS:
            return False
    if skip_gaps:
        gap = -1 if min(skip_gaps) < 0 else max(skip_gaps)
        lengths = [len(t) // c for t in hyps] + [len(t) // c for rs in refs for t in rs]
        units = sum(n * (n - 1) // 2 if gap < 0 else min(n * (gap + 1), n * (n - 1) // 2) for n in lengths)
        if units > PLAIN_MAX_SKIP_UNITS:
            return False
    return True
