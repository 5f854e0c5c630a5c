"""The small-batch route of chrF: Python ``Counter``s, no numba.

It computes exactly what :func:`vecscore.kernels.chrf.pair_stats` computes
(one row of ``[hyp, ref, match]`` per order for every (pair, reference)), so
small calls never load numba; the tests compare the two on random and real
text.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from vecscore.chrf.formulas import best_rows
from vecscore.chrf.options import Options
from vecscore.references import Refs
from vecscore.row_errors import check_unicode

__all__ = ["PUNCTUATION", "char_units", "pair_stats", "plain_statistics", "word_units"]

#: ASCII punctuation (``string.punctuation``): split off the start or end of a word for chrF++
PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def char_units(text: str, keep_space: bool) -> str:
    """The characters whose n-grams count: the text without whitespace (``str.split``'s), unless kept."""
    return text if keep_space else "".join(text.split())


def word_units(text: str) -> list[str]:
    """chrF++'s words: whitespace-separated, one ASCII punctuation mark split off the end (else the start)."""
    out: list[str] = []
    for w in text.split():
        if len(w) > 1 and w[-1] in PUNCTUATION:
            out += (w[:-1], w[-1])
        elif len(w) > 1 and w[0] in PUNCTUATION:
            out += (w[0], w[1:])
        else:
            out.append(w)
    return out


def _char_counters(units: str, order: int) -> list[Counter]:
    return [Counter(units[i:i + n] for i in range(len(units) - n + 1)) for n in range(1, order + 1)]


def _word_counters(units: list[str], order: int) -> list[Counter]:
    return [Counter(tuple(units[i:i + n]) for i in range(len(units) - n + 1)) for n in range(1, order + 1)]


def _counters(text: str, char_order: int, word_order: int, keep_space: bool) -> list[Counter]:
    out = _char_counters(char_units(text, keep_space), char_order)
    if word_order:
        out += _word_counters(word_units(text), word_order)
    return out


def pair_stats(texts: list[str], n_pairs: int, ref_ptr: np.ndarray, char_order: int, word_order: int,
               keep_space: bool) -> np.ndarray:
    """int64 ``(n_refs_total, 3 * (char_order + word_order))``, as the kernel's.

    ``texts``: the hypotheses, then the references of every pair in order
    (already lowercased if asked for).
    """
    width = 3 * (char_order + word_order)
    n_rows = int(ref_ptr[n_pairs]) if n_pairs else 0
    out = np.zeros((n_rows, width), np.int64)
    for i in range(n_pairs):
        hyp = _counters(texts[i], char_order, word_order, keep_space)
        hyp_totals = [sum(c.values()) for c in hyp]
        for row in range(int(ref_ptr[i]), int(ref_ptr[i + 1])):
            ref = _counters(texts[n_pairs + row], char_order, word_order, keep_space)
            stats = out[row]
            for k, (h, r) in enumerate(zip(hyp, ref)):
                n_ref = sum(r.values())
                if n_ref == 0:
                    stats[3 * k + 1] = 0
                    continue
                small, big = (h, r) if len(h) <= len(r) else (r, h)
                stats[3 * k] = hyp_totals[k]
                stats[3 * k + 1] = n_ref
                stats[3 * k + 2] = sum(min(c, big[g]) for g, c in small.items() if g in big)
    return out


def plain_statistics(texts, hyps: list, refs: Refs, opts: Options):
    """``(rows, best, scores)`` on the plain route: :func:`pair_stats`, and per pair its best reference's row
    and chrF (:func:`vecscore.chrf.formulas.best_rows`); a lone surrogate is refused naming its row."""
    check_unicode(hyps, "hyps")
    check_unicode(refs, "refs")
    rows = pair_stats(texts, len(hyps), refs.ptr, int(opts.char_order), int(opts.word_order), bool(opts.whitespace))
    return (rows, *best_rows(rows, refs.ptr, opts.beta, opts.eps_smoothing))
