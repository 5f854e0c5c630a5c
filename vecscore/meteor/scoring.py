"""Score hypotheses against their references: prepare each distinct text once, align every (hypothesis,
reference) pair, keep each item's best reference (the first of equal scores, as the jar keeps it), and sum
the statistics for the corpus score."""
from __future__ import annotations

from itertools import chain

import numpy as np

from vecscore.meteor.options import MeteorOptions
from vecscore.meteor.result import MeteorResult
from vecscore.meteor.stats import N_STATS, corpus_stats, scores_from_stats, stats_row
from vecscore.parallel import current_threads, in_threads

__all__ = ["score_items", "pair_stats"]

_CODES = {"exact": 0, "stem": 1, "synonym": 2, "paraphrase": 3}

#: a built module's kernel runs on Python threads of at least this many pairs each
_MIN_PAIRS_PER_THREAD = 64


def _texts(hyps: list[str], refs: list[list[str]], options: MeteorOptions, prefixes):
    """Distinct prepared texts (token lists), and per pair the numbers of its hypothesis and reference texts."""
    from vecscore.meteor.normalize import prepare

    all_refs = [r for rs in refs for r in rs]
    # each distinct text numbered in order of first appearance (hypotheses, then references), prepared once
    number = {t: k for k, t in enumerate(dict.fromkeys(chain(hyps, all_refs)))}
    texts = [prepare(t, normalize=options.normalize, keep_punct=options.keep_punct, lowercase=options.lowercase,
                     prefixes=prefixes) for t in number]
    hyp_ids = np.fromiter(map(number.__getitem__, hyps), np.int64, len(hyps))
    pair_hyp = np.repeat(hyp_ids, np.fromiter(map(len, refs), np.int64, len(refs)))
    pair_ref = np.fromiter(map(number.__getitem__, all_refs), np.int64, len(all_refs))
    return texts, pair_hyp, pair_ref


def pair_stats(texts: list[list[str]], pair_hyp: np.ndarray, pair_ref: np.ndarray, options: MeteorOptions, data,
               plain: bool = False) -> np.ndarray:
    """The 23 statistics of every pair, on the compiled kernel or (``plain``) the plain Python aligner."""
    from vecscore.meteor.normalize import java_lower

    if plain:
        from vecscore.meteor.align import align

        out = np.zeros((len(pair_hyp), N_STATS))
        for k, (h, r) in enumerate(zip(pair_hyp.tolist(), pair_ref.tolist())):
            out[k] = stats_row(align(texts[h], texts[r], modules=options.modules, function_words=data.function_words,
                                     lower=java_lower, stem=data.stem, synsets=data.synsets, paraphrase=data.paraphrase,
                                     beam_size=options.beam_size))
        return out
    from vecscore.kernels.meteor_align import meteor_pair_stats
    from vecscore.meteor.features import text_arrays

    mods = options.modules  # data may hold more than the modules use
    arrays = text_arrays(texts, function_words=data.function_words, lower=java_lower,
                         stem=data.stem if "stem" in mods else None,
                         synsets=data.synsets if "synonym" in mods else None,
                         paraphrase=data.paraphrase if "paraphrase" in mods else None)
    modules = np.array([_CODES[m] for m in options.modules], np.int64)
    pair_hyp, pair_ref = np.asarray(pair_hyp, np.int64), np.asarray(pair_ref, np.int64)
    args = arrays.kernel_args()
    workers = max(1, min(current_threads(), len(pair_hyp) // _MIN_PAIRS_PER_THREAD))
    # where a built module runs the kernel (on one thread, releasing the GIL), the pairs go in slices to
    # ``workers`` Python threads; where numba runs it, one call takes them all (its prange spreads them)
    bounds = np.linspace(0, len(pair_hyp), workers + 1).astype(np.int64)
    parts: list = [None] * workers

    def run(w0: int, w1: int) -> None:
        lo, hi = bounds[w0], bounds[w1]
        parts[w0] = meteor_pair_stats(arrays.woff, pair_hyp[lo:hi], pair_ref[lo:hi], modules, options.beam_size, *args)

    in_threads(run, workers, meteor_pair_stats)
    if workers == 1 or parts[1] is None:
        return parts[0]
    return np.concatenate(parts)


def _best_of_items(scores: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per item, the index (into the pairs) of its first best-scoring pair."""
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    best = np.maximum.reduceat(scores, starts)
    owner = np.repeat(np.arange(len(counts)), counts)
    hit = np.flatnonzero(scores == best[owner])
    first = np.full(len(counts), -1, np.int64)
    first_hit = np.unique(owner[hit], return_index=True)[1]
    first[owner[hit[first_hit]]] = hit[first_hit]
    return first


#: the kind of call (:func:`vecscore.route.use_plain`): one group of kernels for every option
KIND = ("meteor",)


def _pair_chars(hyps: list[str], refs: list[list[str]]) -> int:
    """The characters the aligner reads: each hypothesis once per reference, and the references."""
    return sum(len(h) * len(rs) + sum(map(len, rs)) for h, rs in zip(hyps, refs))


def score_items(hyps: list[str], refs: list[list[str]], options: MeteorOptions, *, jar=None, paraphrase_file=None,
                plain: bool = False):
    from vecscore.meteor.data import load_data

    data = load_data(options.modules, jar=jar, paraphrase_file=paraphrase_file)
    params = (options.alpha, options.beta, options.gamma, options.delta)
    if not hyps:
        return MeteorResult(np.zeros(0), 0.0, np.zeros((0, N_STATS)), np.zeros(0, np.int64), options)
    texts, pair_hyp, pair_ref = _texts(hyps, refs, options, data.prefixes)
    from vecscore import route

    if not plain:
        plain = route.use_plain(True, lambda: _pair_chars(hyps, refs), route.COST["meteor"], warm=KIND)
    st = pair_stats(texts, pair_hyp, pair_ref, options, data, plain=plain)
    if not plain:
        route.note_compiled(KIND)
    counts = np.array([len(rs) for rs in refs], np.int64)
    first = _best_of_items(scores_from_stats(st, options.weights, *params), counts)
    stats = st[first]
    best_ref = first - np.concatenate(([0], np.cumsum(counts)[:-1]))
    scores = scores_from_stats(stats, options.weights, *params)
    total = float(scores_from_stats(corpus_stats(stats), options.weights, *params)[0])
    return MeteorResult(scores=scores, score=total, stats=stats, best_ref=best_ref, options=options)
