"""Scoring in chunks: bounded memory, and the same numbers for any chunk size.

A *spec* (:class:`RougeSpec`, :class:`Rouge155Spec`, :class:`BleuSpec`) says
what to compute.  :func:`iter_scores` cuts the pairs into chunks of
``chunk_size`` and yields one :class:`ScoreChunk` per chunk: per-pair score
columns (float64) and per-pair sufficient statistics (int64; float64 for the
``f``-weighted ROUGE-W statistics).  :class:`CorpusAccumulator` folds the
chunks into corpus results.  Peak memory is one chunk of text and scores plus
the accumulator, which holds a handful of integers per column.

Exactness (why the chunk size and thread count never change a bit)
-------------------------------------------------------------------
Per-pair values do not depend on the chunk: every kernel computes a pair from
that pair's tokens alone, and token ids are compared for equality, never
ordered.  Integer statistics are summed in int64, which is associative.

Float columns (per-pair P, R, F, sentence BLEU, ROUGE-W's weighted counts)
are summed *exactly*: each float64 ``x`` is written as ``m * 2**(e - 53)``
with an integer mantissa ``m`` (``numpy.frexp``), ``m`` is split into two
halves of 27 and 26 bits, and the halves are summed per exponent with
``numpy.bincount`` (float64 sums of integers below ``2**53``, so exact for up
to ``2**25`` values per call).  The per-exponent sums are folded into one
Python integer: the column's sum times ``2**1127``, exact whatever the order
or grouping of the values.  The corpus mean is that integer divided by
``n * 2**1127`` with Python's correctly rounded integer true division, so it
is the exact mean rounded once to the nearest float64: identical for any chunk
size, thread count, shard order or machine.  (``numpy.mean`` uses pairwise
summation, whose result depends on the grouping; it can differ from the exact
mean in the last bit.)  NaN and infinities are kept apart and combined by
IEEE rules, which are order-independent for them.
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from vecscore.columns import column_slice
from vecscore.errors import VecscoreError
from vecscore.exactsum import ExactSum
from vecscore.parallel import numba_threads

__all__ = [
    "ExactSum",
    "ScoreChunk",
    "RougeSpec",
    "Rouge155Spec",
    "BleuSpec",
    "ChrfSpec",
    "TerSpec",
    "CombinedSpec",
    "make_spec",
    "iter_scores",
    "score_batches",
    "CorpusAccumulator",
    "score_corpus",
    "DEFAULT_CHUNK_SIZE",
]

DEFAULT_CHUNK_SIZE = 50_000
_NREFS = re.compile(r"nrefs:[^|]*")


@dataclass(frozen=True)
class ScoreChunk:
    """Scores of pairs ``start .. start + n - 1``.

    ``columns``: per-pair float64 score columns (``rouge1_fmeasure``,
    ``bleu_score``, ...).  ``stats``: per-pair sufficient statistics
    (``rouge1_hits``, ``rouge1_p_den``, ``rouge1_r_den``, ``bleu_correct_1``,
    ...), int64 except ROUGE-W's weighted ones.
    """

    start: int
    n: int
    columns: dict
    stats: dict = field(default_factory=dict)
    signature: str = ""


# --------------------------------------------------------------------------------------
# specs: what to compute, and how a corpus summary is formed from the accumulated sums
# --------------------------------------------------------------------------------------


def _rouge_columns_and_stats(result, with_stats: bool):
    columns = result.columns()
    stats = {}
    if with_stats:
        for m, st in result.stats.items():
            for key in ("hits", "p_den", "r_den"):
                a = getattr(st, key)
                stats[f"{m}_{key}"] = a.astype(np.int64) if a.dtype.kind in "iub" else a.astype(np.float64)
    return columns, stats


def _mean_scores(metrics, means) -> dict:
    return {m: {f: means.get(f"{m}_{f}", float("nan")) for f in ("precision", "recall", "fmeasure")} for m in metrics}


@dataclass(frozen=True)
class RougeSpec:
    """ROUGE as :func:`vecscore.rouge` (rouge-score semantics); ``options`` are its keyword arguments."""

    metrics: tuple = ("rouge1", "rouge2", "rougeL")
    options: dict = field(default_factory=dict)
    name = "ROUGE"

    def __post_init__(self):
        from vecscore.rouge.options import validate_metrics

        metrics = (self.metrics,) if isinstance(self.metrics, str) else tuple(self.metrics)
        object.__setattr__(self, "metrics", metrics)
        validate_metrics(list(metrics))

    @property
    def has_stats(self) -> bool:
        return self.options.get("multi_ref", "best") in ("best", "best-recall", "pooled")

    def score(self, hyps, refs) -> tuple[dict, dict, str]:
        from vecscore.rouge.api import rouge

        result = rouge(hyps, refs, metrics=list(self.metrics), **self.options)
        return (*_rouge_columns_and_stats(result, self.has_stats), result.signature)

    def summary(self, n: int, means: dict, sums: dict) -> dict:
        out = {"name": self.name, **_mean_scores(self.metrics, means)}
        if self.has_stats and n and all(f"{m}_hits" in sums for m in self.metrics):
            out["micro"] = self._micro(sums)
        return out

    def _micro(self, sums: dict) -> dict:
        from vecscore.rouge.options import parse_metric
        from vecscore.rouge.stats import RougeStats

        out = {}
        for m in self.metrics:
            kind, param = parse_metric(m)
            stats = RougeStats(*(np.array([sums[f"{m}_{k}"]]) for k in ("hits", "p_den", "r_den")),
                               exponent=param if kind == "W" else None)
            out[m] = stats.micro(alpha=self.options.get("alpha"), beta=self.options.get("beta"))._asdict()
        return out


@dataclass(frozen=True)
class Rouge155Spec:
    """ROUGE-1.5.5 as :func:`vecscore.rouge155.rouge155`; ``options`` are its keyword arguments."""

    metrics: tuple = ("rouge1", "rouge2", "rougeL", "rougeW-1.2", "rougeS4", "rougeSU4")
    options: dict = field(default_factory=dict)
    name = "ROUGE-1.5.5"
    has_stats = True

    def __post_init__(self):
        metrics = (self.metrics,) if isinstance(self.metrics, str) else tuple(self.metrics)
        object.__setattr__(self, "metrics", metrics)
        if not metrics:
            raise VecscoreError("metrics is empty; name at least one, e.g. ['rouge1', 'rougeL']")

    def score(self, hyps, refs):
        from vecscore.rouge.rouge155.api import rouge155

        result = rouge155(hyps, refs, metrics=list(self.metrics), **self.options)
        return (*_rouge_columns_and_stats(result, True), result.signature)

    def summary(self, n: int, means: dict, sums: dict) -> dict:
        """Exact means of the per-summary scores, and ``pooled`` (the script's ``-t 1`` without resampling)."""
        from vecscore.rouge.rouge155.average import pooled_score

        out = {"name": self.name, **_mean_scores(self.metrics, means)}
        if n and all(f"{m}_hits" in sums for m in self.metrics):
            alpha = self.options.get("alpha", 0.5)
            out["pooled"] = {m: pooled_score(*(float(sums[f"{m}_{k}"]) for k in ("hits", "p_den", "r_den")),
                                             alpha)._asdict() for m in self.metrics}
        return out


_BLEU_STAT_OPTIONS = ("tokenize", "lowercase", "max_ngram_order", "brevity_penalty")


@dataclass(frozen=True)
class BleuSpec:
    """Corpus BLEU from summed int64 statistics, and sentence BLEU per pair (sacreBLEU semantics).

    ``options`` are :func:`vecscore.bleu.corpus_bleu`'s (``tokenize``,
    ``lowercase``, ``smooth_method``, ``smooth_value``, ``max_ngram_order``,
    ``effective_order``, ``brevity_penalty``).  The per-pair ``bleu_score``
    column is sentence BLEU with the same options (``sentence=True`` also
    reports the mean of those, as the ``sentence-bleu`` command does).
    """

    options: dict = field(default_factory=dict)
    sentence: bool = False
    name = "BLEU"
    has_stats = True

    @property
    def order(self) -> int:
        return int(self.options.get("max_ngram_order", 4))

    def statistics(self, hyps, refs):
        """The per-pair :class:`~vecscore.BleuStats` of a chunk."""
        from vecscore.bleu.api import bleu_statistics

        return bleu_statistics(hyps, refs, refs_layout="per-example",
                               **{k: v for k, v in self.options.items() if k in _BLEU_STAT_OPTIONS})

    def score(self, hyps, refs):
        from vecscore.bleu.api import sentence_bleu_from_stats

        st = self.statistics(hyps, refs)
        scored = sentence_bleu_from_stats(st, **self._score_options())
        stats = {"bleu_sys_len": st.sys_len, "bleu_ref_len": st.ref_len, "bleu_nrefs": st.nrefs}
        for k in range(st.max_order):
            stats[f"bleu_correct_{k + 1}"] = np.ascontiguousarray(st.correct[:, k])
        for k in range(st.max_order):
            stats[f"bleu_total_{k + 1}"] = np.ascontiguousarray(st.total[:, k])
        return {"bleu_score": np.asarray(scored.score, np.float64)}, stats, scored.signature

    def _score_options(self) -> dict:
        opts = dict(self.options)
        opts.setdefault("effective_order", self.sentence)
        return opts

    def corpus(self, sums: dict, nrefs_label):
        """Corpus BLEU (a :class:`vecscore.bleu.BLEUScore`) from summed statistics."""
        from vecscore.bleu.api import corpus_bleu_from_stats
        from vecscore.bleu.stats import BleuStats

        k = self.order
        correct = [[sums.get(f"bleu_correct_{i + 1}", 0) for i in range(k)]]
        total = [[sums.get(f"bleu_total_{i + 1}", 0) for i in range(k)]]
        row = [sums.get("bleu_sys_len", 0)], [sums.get("bleu_ref_len", 0)]
        if nrefs_label == "var":  # a zero row with another nrefs keeps the signature's "var"
            st = BleuStats.from_arrays(row[0] + [0], row[1] + [0], correct + [[0] * k], total + [[0] * k], [1, 2])
        else:
            st = BleuStats.from_arrays(*row, correct, total, [int(nrefs_label or 1)])
        opts = dict(self.options)
        opts.pop("force", None)
        return corpus_bleu_from_stats(st, **opts)

    def summary(self, n: int, means: dict, sums: dict, nrefs_label=None) -> dict:
        s = self.corpus(sums, nrefs_label)
        out = {
            "name": self.name,
            "score": s.score,
            "counts": [int(c) for c in s.counts],
            "totals": [int(t) for t in s.totals],
            "precisions": [float(p) for p in s.precisions],
            "bp": s.bp,
            "sys_len": int(s.sys_len),
            "ref_len": int(s.ref_len),
            "ratio": s.ratio,
            "verbose_score": s.format().split(" = ", 1)[1].split(" ", 1)[1],
            "signature": s.signature,
        }
        if self.sentence:
            out["sentence_score_mean"] = means.get("bleu_score", float("nan"))
        return out


def _nrefs_column(refs) -> np.ndarray:
    """References per pair of per-example ``refs`` (a string is one), for the signature's ``nrefs``."""
    return np.fromiter((len(r) if isinstance(r, (list, tuple)) else 1 for r in refs), np.int64, len(refs))


@dataclass(frozen=True)
class ChrfSpec:
    """Corpus chrF/chrF++ from summed int64 statistics, and sentence chrF per pair (sacreBLEU semantics).

    ``options`` are :class:`vecscore.chrf.CHRF`'s (``char_order``,
    ``word_order``, ``beta``, ``lowercase``, ``whitespace``,
    ``eps_smoothing``).  The per-pair ``chrf_score`` column is sentence chrF;
    the corpus score comes from the summed statistics, as sacreBLEU's.
    """

    options: dict = field(default_factory=dict)
    sentence: bool = False
    name = "chrF"
    has_stats = True

    def _metric(self):
        from vecscore.chrf.api import CHRF

        return CHRF(**self.options, refs_layout="per-example")

    def score(self, hyps, refs):
        metric = self._metric()
        st, scores = metric.statistics_and_scores(hyps, refs)
        stats = {f"chrf_stat_{j + 1}": np.ascontiguousarray(st[:, j]) for j in range(st.shape[1])}
        stats["chrf_nrefs"] = _nrefs_column(refs)
        return {"chrf_score": np.asarray(scores, np.float64)}, stats, str(metric.get_signature()) if len(hyps) else ""

    def summary(self, n: int, means: dict, sums: dict, nrefs_label=None) -> dict:
        metric = self._metric()
        width = 3 * (metric.char_order + metric.word_order)
        row = np.array([[sums.get(f"chrf_stat_{j + 1}", 0) for j in range(width)]], np.int64)
        s = metric.score_stats(row, nrefs=nrefs_label if nrefs_label is not None else 1)
        out = {"name": s.name, "score": s.score, "char_order": s.char_order, "word_order": s.word_order,
               "beta": s.beta, "signature": s.signature}
        if self.sentence:
            out["sentence_score_mean"] = means.get("chrf_score", float("nan"))
        return out


@dataclass(frozen=True)
class TerSpec:
    """Corpus TER from summed edits and reference lengths, and sentence TER per pair (sacreBLEU semantics).

    ``options`` are :class:`vecscore.ter.TER`'s (``normalized``, ``no_punct``,
    ``asian_support``, ``case_sensitive``).  The per-pair ``ter_score``
    column is sentence TER; the corpus score is total edits over total
    reference length, as sacreBLEU's.
    """

    options: dict = field(default_factory=dict)
    sentence: bool = False
    name = "TER"
    has_stats = True

    def score(self, hyps, refs):
        from vecscore.ter.api import TER, scores_from_stats

        metric = TER(**self.options, refs_layout="per-example")
        if not len(hyps):
            return {"ter_score": np.zeros(0)}, {}, ""
        edits, ref_length = metric.statistics(hyps, refs)
        stats = {"ter_edits": np.asarray(edits, np.int64), "ter_ref_length": np.asarray(ref_length, np.float64),
                 "ter_nrefs": _nrefs_column(refs)}
        return {"ter_score": scores_from_stats(edits, ref_length)}, stats, metric.get_signature()

    def summary(self, n: int, means: dict, sums: dict, nrefs_label=None) -> dict:
        from vecscore.ter.api import corpus_score_from_stats, ter_signature

        sig = ter_signature(nrefs_label if nrefs_label is not None else 1, **self.options)
        s = corpus_score_from_stats(np.array([sums.get("ter_edits", 0)], np.int64),
                                    np.array([sums.get("ter_ref_length", 0.0)], np.float64), sig)
        out = {"name": "TER", "score": s.score, "num_edits": s.num_edits, "ref_length": s.ref_length,
               "signature": sig}
        if self.sentence:
            out["sentence_score_mean"] = means.get("ter_score", float("nan"))
        return out


@dataclass(frozen=True)
class CombinedSpec:
    """Several specs on the same pairs (e.g. ROUGE and sentence BLEU for a filter)."""

    specs: tuple
    name = "combined"

    @property
    def has_stats(self) -> bool:
        return any(s.has_stats for s in self.specs)

    def score(self, hyps, refs):
        columns, stats, sigs = {}, {}, []
        for s in self.specs:
            c, st, sig = s.score(hyps, refs)
            columns.update(c)
            stats.update(st)
            sigs.append(sig)
        return columns, stats, " + ".join(sigs)

    def summary(self, n, means, sums, nrefs_label=None) -> dict:
        out = {}
        for s in self.specs:
            out[s.name] = _summary(s, n, means, sums, nrefs_label)
        return out


def _summary(spec, n, means, sums, nrefs_label):
    if isinstance(spec, (BleuSpec, ChrfSpec, TerSpec, CombinedSpec)):
        return spec.summary(n, means, sums, nrefs_label)
    return spec.summary(n, means, sums)


def make_spec(metrics, *, rouge_options=None, bleu_options=None, rouge155_options=None):
    """One spec for a list of metric names: ROUGE names and/or ``"bleu"`` (sentence BLEU per pair).

    ROUGE names go to :class:`RougeSpec` (``rouge_options``), or to
    :class:`Rouge155Spec` when ``rouge155_options`` is given (a dict, may be
    empty); ``"bleu"`` adds a :class:`BleuSpec` with ``bleu_options``.
    """
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    if not metrics:
        raise VecscoreError("metrics is empty; name at least one, e.g. ['rouge1', 'rougeL'] or ['bleu']")
    rouge_names = [m for m in metrics if m != "bleu"]
    specs = []
    if rouge_names:
        if rouge155_options is not None:
            specs.append(Rouge155Spec(tuple(rouge_names), dict(rouge155_options)))
        else:
            specs.append(RougeSpec(tuple(rouge_names), dict(rouge_options or {})))
    if "bleu" in metrics:
        specs.append(BleuSpec(dict(bleu_options or {}), sentence=True))
    return specs[0] if len(specs) == 1 else CombinedSpec(tuple(specs))


# --------------------------------------------------------------------------------------
# chunking
# --------------------------------------------------------------------------------------


def _check_chunk_size(chunk_size) -> int:
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
        raise VecscoreError(f"chunk_size must be a positive int, got {chunk_size!r}")
    return int(chunk_size)


def _batches(hyps: Iterable, refs: Iterable, chunk_size: int) -> Iterator[tuple[Sequence, Sequence]]:
    """Equal slices of two iterables; a length mismatch is an error (nothing is truncated)."""
    h_cut, r_cut = column_slice(hyps), column_slice(refs)
    if h_cut is not None and r_cut is not None:  # two columns: sliced, each slice read as a column
        if len(hyps) != len(refs):
            raise VecscoreError(f"got {len(hyps)} hypotheses but {len(refs)} reference entries; give one reference "
                                "entry per hypothesis")
        for start in range(0, len(hyps), chunk_size):
            yield h_cut(start, start + chunk_size), r_cut(start, start + chunk_size)
        return
    h_it, r_it = iter(hyps), iter(refs)
    seen = 0
    while True:
        h = list(itertools.islice(h_it, chunk_size))
        r = list(itertools.islice(r_it, chunk_size))
        if len(h) != len(r):
            nh, nr = seen + len(h), seen + len(r)
            longer = "hypotheses" if len(h) > len(r) else "references"
            raise VecscoreError(
                f"there are more {longer} than {'references' if longer == 'hypotheses' else 'hypotheses'} "
                f"(at least {max(nh, nr)} against {min(nh, nr)}); give one reference entry per hypothesis"
            )
        if not h:
            return
        seen += len(h)
        yield h, r
        if len(h) < chunk_size:
            if next(h_it, _END) is not _END or next(r_it, _END) is not _END:
                raise VecscoreError("an input grew while it was read; pass sequences or finite iterables")
            return


_END = object()


def score_batches(batches: Iterable[tuple[Sequence, Sequence]], spec, *, workers=None, start: int = 0,
                  stats: bool = True) -> Iterator[ScoreChunk]:
    """Score pre-cut batches ``(hyps, refs)``; one :class:`ScoreChunk` per batch, in order."""
    with numba_threads(workers):
        for hyps, refs in batches:
            columns, st, sig = spec.score(hyps, refs)
            yield ScoreChunk(start, len(hyps), columns, st if stats else {}, sig)
            start += len(hyps)


def iter_scores(hyps: Iterable, refs: Iterable, spec, *, chunk_size: int = DEFAULT_CHUNK_SIZE, workers=None,
                stats: bool = True) -> Iterator[ScoreChunk]:
    """Yield the scores of ``chunk_size`` pairs at a time.

    Parameters
    ----------
    hyps, refs : iterable
        Hypotheses and, per pair, a reference or a list of references
        (generators are read lazily, so memory is bounded by the chunk).
    spec : RougeSpec, Rouge155Spec, BleuSpec or CombinedSpec
    chunk_size : int
        Pairs per chunk.  Results are identical, bit for bit, for any value.
    workers : int, optional
        numba threads while scoring (restored afterwards); ``-1`` for all.
    stats : bool
        Include the per-pair sufficient statistics (needed by the accumulator
        for micro averages and corpus BLEU).

    Examples
    --------
    >>> spec = RougeSpec(["rouge1"])
    >>> chunks = list(iter_scores(["a b", "a c", "b"], ["a b", "a b", "b"], spec, chunk_size=2))
    >>> [c.n for c in chunks], chunks[1].start
    ([2, 1], 2)
    """
    chunk_size = _check_chunk_size(chunk_size)
    yield from score_batches(_batches(hyps, refs, chunk_size), spec, workers=workers, stats=stats)


class CorpusAccumulator:
    """Corpus results from chunks: exact sums of the score columns, int64 sums of the statistics.

    ``add`` chunks in any order and grouping (or ``merge`` accumulators of
    shards); ``summary()`` is the same, bit for bit.
    """

    def __init__(self, spec) -> None:
        self.spec = spec
        self.n = 0
        self._means: dict[str, ExactSum] = {}
        self._ints: dict[str, np.int64] = {}
        self._floats: dict[str, ExactSum] = {}
        self._nrefs: set = set()
        self._signature = ""

    def add(self, chunk: ScoreChunk) -> None:
        self.n += chunk.n
        for name, col in chunk.columns.items():
            self._means.setdefault(name, ExactSum()).add(col)
        for name, col in chunk.stats.items():
            col = np.asarray(col)
            if name.endswith("_nrefs"):
                if len(self._nrefs) < 3:
                    self._nrefs.update(np.unique(col).tolist())
            elif col.dtype.kind in "iub":
                self._ints[name] = np.int64(self._ints.get(name, np.int64(0)) + np.sum(col, dtype=np.int64))
            else:
                self._floats.setdefault(name, ExactSum()).add(col)
        self._note_signature(chunk.signature)

    def merge(self, other: CorpusAccumulator) -> None:
        self.n += other.n
        for name, s in other._means.items():
            self._means.setdefault(name, ExactSum()).merge(s)
        for name, s in other._floats.items():
            self._floats.setdefault(name, ExactSum()).merge(s)
        for name, v in other._ints.items():
            self._ints[name] = np.int64(self._ints.get(name, np.int64(0)) + v)
        self._nrefs |= other._nrefs
        self._note_signature(other._signature)

    def _note_signature(self, sig: str) -> None:
        if not sig:
            return
        if not self._signature:
            self._signature = sig
            return
        a, b = _NREFS.findall(self._signature), _NREFS.findall(sig)
        if a != b:  # chunks with different reference counts: the corpus has a variable number
            self._signature = _NREFS.sub("nrefs:var", self._signature)

    def means(self) -> dict[str, float]:
        return {k: s.mean(self.n) for k, s in self._means.items()}

    def sums(self) -> dict:
        """Corpus sums of the statistics: Python ints (from int64), floats (exact, rounded once)."""
        out = {k: int(v) for k, v in self._ints.items()}
        out.update({k: s.value() for k, s in self._floats.items()})
        return out

    @property
    def signature(self) -> str:
        return self._signature

    def nrefs_label(self):
        if not self._nrefs:
            return None
        return "var" if len(self._nrefs) > 1 else next(iter(self._nrefs))

    def summary(self) -> dict:
        """A JSON-ready corpus summary (sacreBLEU-like keys, ``n_pairs`` and ``signature``)."""
        if not self._signature and self.n == 0:  # nothing scored: the signature of the options alone
            try:
                self._note_signature(self.spec.score([], [])[2])
            except (VecscoreError, ValueError, IndexError):
                pass
        out = _summary(self.spec, self.n, self.means(), self.sums(), self.nrefs_label())
        out["n_pairs"] = self.n
        out.setdefault("signature", self.signature)
        return out


def score_corpus(hyps: Iterable, refs: Iterable, spec, *, chunk_size: int = DEFAULT_CHUNK_SIZE,
                 workers=None) -> dict:
    """Stream all pairs through :func:`iter_scores` and return the corpus summary."""
    acc = CorpusAccumulator(spec)
    for chunk in iter_scores(hyps, refs, spec, chunk_size=chunk_size, workers=workers, stats=spec.has_stats):
        acc.add(chunk)
    return acc.summary()
