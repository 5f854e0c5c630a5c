"""TER statistics of a batch: the texts read once, tokenized, interned, and every pair's fewest edits.

Per pair the statistics are sacreBLEU's: the fewest edits over the
references (an int, from :func:`vecscore.kernels.ter.ter_edits` on numba's
threads) and the *average* reference length (total reference tokens /
number of references, one float division, as sacreBLEU computes it).
"""
from __future__ import annotations

from itertools import chain

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.references import Refs, check_layout, read_refs, text_hyps
from vecscore.row_errors import check_unicode
from vecscore.ter.options import Options

__all__ = ["intern_tokens", "pair_statistics", "read_hyps", "read_texts_refs", "scores_from_stats", "statistics"]


def read_hyps(hyps) -> list:
    """The hypotheses read once (:func:`vecscore.references.text_hyps`), at least one, valid Unicode."""
    hyps = text_hyps(hyps, "TER")
    if not hyps:
        raise VecscoreError("hyps is empty; TER needs at least one hypothesis")
    check_unicode(hyps, "hyps")
    return hyps


def read_texts_refs(refs, n_pairs: int | None, refs_layout: str) -> Refs:
    """The references read once (:func:`vecscore.references.read_refs`; ``n_pairs=None``: cached references),
    valid Unicode."""
    read = read_refs(refs, n_pairs, "text", check_layout(refs_layout))
    check_unicode(read, "refs")
    return read


def intern_tokens(token_lists: list) -> tuple[np.ndarray, np.ndarray]:
    """``(ids, ptr)``: every token as an int id (equal strings, equal ids), row ``r`` at ``ids[ptr[r]:ptr[r+1]]``."""
    lengths = np.fromiter(map(len, token_lists), np.int64, count=len(token_lists))
    ptr = np.zeros(len(token_lists) + 1, np.int64)
    np.cumsum(lengths, out=ptr[1:])
    vocab: dict[str, int] = {}
    ids = np.fromiter((vocab.setdefault(t, len(vocab)) for t in chain.from_iterable(token_lists)), np.int64,
                      count=int(ptr[-1]))
    return ids, ptr


def pair_statistics(hyp_tokens: list, ref_tokens: list, ref_ptr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per pair (fewest edits over its references, average reference length) from token lists."""
    from vecscore.kernels import ter as kernels
    from vecscore.parallel import current_threads

    n_pairs = len(hyp_tokens)
    n_refs = np.diff(ref_ptr)
    if n_pairs == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.float64)
    ids, row_ptr = intern_tokens(hyp_tokens + ref_tokens)
    hyp_ptr = row_ptr[:n_pairs + 1]
    refs_ptr = row_ptr[n_pairs:]
    job_hyp = np.repeat(np.arange(n_pairs, dtype=np.int64), n_refs)
    job_ref = np.arange(len(ref_tokens), dtype=np.int64)
    hyp_len = np.diff(hyp_ptr)[job_hyp]
    ref_len = np.diff(refs_ptr)
    plan = kernels.plan_chunks(hyp_len, ref_len, 8 * current_threads())
    job_edits = kernels.ter_edits(ids, hyp_ptr, refs_ptr, job_hyp, job_ref, *plan)
    if (job_edits < 0).any():  # unreachable: the band always connects; sacreBLEU raises there
        raise VecscoreError("TER's edit-distance trace left the beam (please report this input)")
    edits = np.minimum.reduceat(job_edits, ref_ptr[:-1])
    total_ref = np.add.reduceat(ref_len, ref_ptr[:-1])
    return edits.astype(np.int64), total_ref / n_refs


def scores_from_stats(edits: np.ndarray, ref_length: np.ndarray) -> np.ndarray:
    """Sentence TER (0..100+) of every pair from its edits and reference length, as sacreBLEU."""
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = edits / ref_length
    rate = np.where(ref_length > 0, rate, np.where(edits > 0, 1.0, 0.0))
    return 100 * rate


def statistics(hyps, refs, opts: Options, refs_layout: str):
    """``(edits, ref_length, refs)`` of a batch (``refs``: :class:`vecscore.references.Refs`)."""
    hyps = read_hyps(hyps)
    read = read_texts_refs(refs, len(hyps), refs_layout)
    tok, ref_tok = opts.tokenizer(), opts.ref_tokenizer()
    edits, ref_length = pair_statistics([tok(h) for h in hyps], [ref_tok(r) for r in read.flat], read.ptr)
    return edits, ref_length, read
