"""BLEU with sacreBLEU's semantics: corpus and sentence scores for whole batches.

Text goes through sacreBLEU's tokenizers once and int64 statistics are
computed per pair (:class:`~vecscore.bleu.stats.BleuStats`); corpus BLEU is
computed from their sums and sentence BLEU from each row
(:mod:`vecscore.bleu.formulas`), bit-identical to sacreBLEU 2.6.  Argument
order is hypotheses first, as sacreBLEU's ``corpus_score(hyps, refs)``.

Two routes give the same numbers bit for bit (:mod:`vecscore.route`): small
batches go the plain route (:mod:`vecscore.bleu.plain` and
:mod:`vecscore.bleu.plain_formulas`, no numba), others the compiled route
(:mod:`vecscore.bleu.direct`, imported by :func:`_compiled` on first use).

Reference layouts (never guessed):

``refs_layout="auto"`` (the default of the functions and of :class:`BLEU`)
    sacreBLEU's streams when the references have their shape, else
    per-example; when both fit with different meanings (as many streams as
    hypotheses) the call is refused and names the two options
    (:func:`vecscore.references.read_refs`).  So ``corpus_bleu(h, [r1, r2])`` and
    ``BLEU().corpus_score(h, [r1, r2])`` give sacreBLEU's number or refuse,
    never another number.
``refs_layout="per-example"``
    ``refs[i]`` is pair ``i``'s reference (a ``str``) or list of references.
``refs_layout="streams"`` (sacreBLEU's)
    ``refs[k][i]`` is the k-th reference of pair ``i``; ``None`` marks a
    missing one (``""`` is an *empty reference*, of length 0, as in
    sacreBLEU's code).  Every stream must have one entry per hypothesis:
    sacreBLEU silently truncates to the shortest, vecscore raises.

Which sacreBLEU call each function equals:

=====================================  ==============================================================
vecscore                               sacreBLEU 2.6
=====================================  ==============================================================
``corpus_bleu(h, r)``                  ``sacrebleu.corpus_bleu(h, r)`` = ``BLEU().corpus_score(h, r)``
``sentence_bleu(h, r)`` (per pair)     ``sacrebleu.sentence_bleu(h_i, r_i)``: exp smoothing,
                                       **effective order on**
``BLEU(**kw).sentence_scores(h, r)``   ``BLEU(**kw).sentence_score(h_i, r_i)`` per pair: the
                                       class's defaults, **effective order off**
=====================================  ==============================================================
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from vecscore import route
from vecscore.bleu import formulas as bf
from vecscore.bleu import plain as plain_bleu
from vecscore.bleu import plain_formulas as plain_formulas
from vecscore.bleu.options import (
    SMOOTH_METHODS,
    TOKENIZERS,
    Options,
    TokenizedInputWarning,
    check_kind,
    warn_cjk,
    warn_tokenized,
)
from vecscore.bleu.scores import BLEUScore, BLEUScores
from vecscore.bleu.stats import BREVITY_PENALTIES, BleuStats
from vecscore.errors import VecscoreError
from vecscore.frames import row_index
from vecscore.inputs import as_rows, input_kind, read_rows
from vecscore.parallel import accepts_workers
from vecscore.references import Refs, cached_mismatch, check_layout, read_refs
from vecscore.route import note_compiled, use_plain
from vecscore.row_errors import rows_named, unicode_errors
from vecscore.sacrebleu_protocol import SacreMetricMethods, Signature, sacrebleu_keywords

__all__ = [
    "BLEU",
    "BLEUScore",
    "BLEUScores",
    "TokenizedInputWarning",
    "corpus_bleu",
    "raw_corpus_bleu",
    "sentence_bleu",
    "bleu_statistics",
    "corpus_bleu_from_stats",
    "sentence_bleu_from_stats",
    "BREVITY_PENALTIES",
    "SMOOTH_METHODS",
    "TOKENIZERS",
]

#: the tokenizers of the per-pair kernel (:mod:`vecscore.bleu.direct`; without lowercasing)
_PER_PAIR_TOKENIZERS = ("13a", "none", "char", "zh", "zh-fixed")
#: a row of scores from statistics counts as this many characters for the route
#: (:func:`vecscore.route.use_plain`): the plain formulas cost about 4 us a row, 16 characters of rouge1
_ROW_CHARS = 16


def _effective(use_effective_order, effective_order, default: bool) -> bool:
    """``effective_order``, given under vecscore's name or sacreBLEU's function argument ``use_effective_order``."""
    if use_effective_order is not None and effective_order is not None and \
            bool(use_effective_order) != bool(effective_order):
        raise VecscoreError(f"use_effective_order={use_effective_order!r} and effective_order={effective_order!r} "
                            "disagree; they are one option (sacreBLEU's and vecscore's name): pass one of them")
    value = use_effective_order if use_effective_order is not None else effective_order
    return default if value is None else bool(value)


#: sacreBLEU's default tokenizer per target language (``BLEU(trg_lang=...)``)
_LANG_TOKENIZERS = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}


def _compiled():
    """The compiled route, :mod:`vecscore.bleu.direct`, imported on its first use (it loads numba)."""
    from vecscore.bleu import direct as bleu_direct

    return bleu_direct


def _read(hyps, refs, opts: Options, refs_layout: str) -> tuple[list, str, Refs]:
    """``(hyps, kind, refs)``: a call's rows read once (:func:`vecscore.references.read_pairs`), the kind checked."""
    hyps, kind = read_rows(hyps, "hyps")
    check_kind(kind, opts)
    return hyps, kind, read_refs(refs, len(hyps), kind, check_layout(refs_layout))


def _stats(hyps: list, kind: str, refs: Refs, opts: Options):
    """``(stats, formulas)`` of rows read by :func:`_read`: the statistics and the formulas of the route taken."""
    options: dict[str, Any] = dict(kind=kind, tokenize=opts.tokenize, lowercase=opts.lowercase)
    plain = plain_bleu.plain_inputs(hyps, refs, kind=kind, tokenize=opts.tokenize, refs_layout=refs.layout)
    if plain is not None:
        stats = plain_bleu.bleu_stats(*plain, max_order=opts.max_ngram_order,
                                      brevity_penalty=opts.brevity_penalty, **options)
        return stats, plain_formulas
    with rows_named(hyps, refs), unicode_errors(hyps, refs):
        stats = _compiled().text_stats(hyps, refs, max_order=opts.max_ngram_order,
                                       brevity_penalty=opts.brevity_penalty, refs_layout=refs.layout, **options)
    note_compiled(plain_bleu.warm_key(kind, opts.tokenize))
    return stats, bf


def _stats_formulas(rows: int):
    """The formulas that score ``rows`` rows of statistics given alone (not from text)."""
    return plain_formulas if use_plain(True, lambda: rows * _ROW_CHARS) else bf


def _sacre_counts(correct, total, opts: Options):
    """sacreBLEU's ``counts``/``totals``: ``add-k`` adds k to orders >= 2 when anything matched."""
    if opts.smooth_method != "add-k":
        return correct, total
    k = opts.smooth_k
    add = np.zeros(correct.shape, dtype=np.result_type(correct, np.asarray(k)))
    matched = (correct != 0).any(axis=-1)
    add[..., 1:] = np.where(matched[..., None], k, 0)
    return correct + add, total + add


def corpus_result(stats: BleuStats, opts: Options, formulas=None) -> BLEUScore:
    """``formulas``: :mod:`vecscore.bleu.formulas` or :mod:`vecscore.bleu.plain_formulas` (None: by size)."""
    formulas = formulas or _stats_formulas(1)
    st = stats.truncate(opts.max_ngram_order) if stats.max_order != opts.max_ngram_order else stats
    s = formulas.sacrebleu_corpus(st.sys_len, st.ref_len, st.correct.T, st.total.T,
                                  smooth_method=opts.smooth_method, smooth_value=opts.smooth_value,
                                  effective_order=opts.effective_order)
    counts, totals = _sacre_counts(s.counts, s.totals, opts)
    return BLEUScore(s.score, counts, totals, s.precisions, s.bp, s.sys_len, s.ref_len,
                     opts.signature(stats.nrefs_label()), stats)


def sentence_result(stats: BleuStats, opts: Options, formulas=None) -> BLEUScores:
    """As :func:`corpus_result`, one score per row."""
    formulas = formulas or _stats_formulas(stats.n_pairs)
    st = stats.truncate(opts.max_ngram_order) if stats.max_order != opts.max_ngram_order else stats
    s = formulas.sacrebleu_sentence(st.sys_len, st.ref_len, st.correct.T, st.total.T,
                                    smooth_method=opts.smooth_method, smooth_value=opts.smooth_value,
                                    effective_order=opts.effective_order)
    counts, totals = _sacre_counts(st.correct, st.total, opts)
    return BLEUScores(s.score, counts, totals, s.precisions.T, s.bp, s.sys_len, s.ref_len,
                      opts.signature(stats.nrefs_label()), stats)


class _RowScore(BLEUScore):
    """The :class:`BLEUScore` of one row of statistics whose score is computed at once and whose other fields on
    first use (sacreBLEU's ``PairedTest`` reads only ``score``, of thousands of rows)."""

    def __init__(self, score: float, full):  # noqa: D107 - no dataclass __init__: the fields come from full()
        object.__setattr__(self, "score", score)
        object.__setattr__(self, "_full", full)

    def __getattr__(self, name: str):
        if name.startswith("__") or name == "_full" or "_full" not in self.__dict__:
            raise AttributeError(name)
        full = self.__dict__.pop("_full")()
        for key in BLEUScore.__dataclass_fields__:
            if key != "score":
                object.__setattr__(self, key, getattr(full, key))
        return getattr(self, name)


_ROW_KERNEL: list = []


def _float_row_score(correct: np.ndarray, total: np.ndarray, sys_len, ref_len, opts: Options) -> float:
    """sacreBLEU's score of one row of float statistics (its float32 bootstrap sums) in their dtype: the plain
    Python twin of :func:`vecscore.kernels.significance.bleu_rows_scores` (one row: no numba, no NumPy
    passes over arrays of one element)."""
    if not _ROW_KERNEL:
        from vecscore.kernels.significance import bleu_rows_scores

        _ROW_KERNEL.append(plain_formulas.plain_function(bleu_rows_scores))
    from vecscore.kernels.pysum import NEUMAIER

    pdt = np.float32 if correct.dtype == np.float32 else np.float64
    code = {"none": 0, "floor": 1, "add-k": 2, "exp": 3}[opts.smooth_method]
    value = opts.smooth_k
    add = pdt(value) if opts.smooth_method == "add-k" else pdt(0.0)
    floor = pdt(100.0 * value) if opts.smooth_method == "floor" else pdt(0.0)
    out = np.zeros(1)
    _ROW_KERNEL[0](np.array([np.trunc(float(sys_len))]), np.array([np.trunc(float(ref_len))]),
                   correct.astype(pdt)[None, :], total.astype(pdt)[None, :], code, add, floor, pdt(100.0),
                   bool(opts.effective_order), NEUMAIER, out)
    return float(out[0])


def _check_stats(stats, opts: Options) -> BleuStats:
    if not isinstance(stats, BleuStats):
        raise VecscoreError(f"expected BleuStats, got {type(stats).__name__}")
    if stats.max_order < opts.max_ngram_order:
        raise VecscoreError(
            f"statistics have orders 1..{stats.max_order}, max_ngram_order={opts.max_ngram_order} needs more"
        )
    return stats


# --- functions -------------------------------------------------------------------------------


def bleu_statistics(hyps: Iterable[Any], refs: Iterable[Any], *, tokenize: str = "13a", lowercase: bool = False,
                    max_ngram_order: int = 4, brevity_penalty: str = "closest",
                    refs_layout: str = "auto") -> BleuStats:
    """Per-pair int64 BLEU statistics (see :mod:`vecscore.bleu.compiled`).

    Corpus BLEU of any subset (bootstrap samples, chunks of a stream, shards of
    a distributed job) is ``corpus_bleu_from_stats(stats.take(idx))``.
    """
    opts = Options(tokenize=tokenize, lowercase=lowercase, max_ngram_order=max_ngram_order,
                    brevity_penalty=brevity_penalty)
    return _stats(*_read(hyps, refs, opts, refs_layout), opts)[0]


@sacrebleu_keywords(hypotheses="hyps", references="refs")
@accepts_workers
def corpus_bleu(
    hyps: Iterable[Any], refs: Iterable[Any], smooth_method: str = "exp", smooth_value: float | None = None,
    force: bool = False, lowercase: bool = False, tokenize: str = "13a", use_effective_order: bool | None = None, *,
    max_ngram_order: int = 4, effective_order: bool | None = None, brevity_penalty: str = "closest",
    refs_layout: str = "auto",
) -> BLEUScore:
    """Corpus BLEU (0..100), as ``sacrebleu.corpus_bleu``.

    The arguments up to ``use_effective_order`` are sacreBLEU's, in its
    order; the others are keyword-only.

    Parameters
    ----------
    hyps : sequence of str
        System outputs, one per pair (or token lists / id arrays with
        ``tokenize="none"``).
    refs : sequence
        sacreBLEU's streams ``refs[k][i]`` (``None`` for a missing reference),
        or per pair a ``str`` or a list of ``str``; see ``refs_layout``.
    tokenize : {"13a", "intl", "zh", "zh-fixed", "char", "none"}
        sacreBLEU's tokenizers, token-identical (``zh`` keeps sacrebleu#298's
        character ranges; ``zh-fixed`` is the corrected variant).
    lowercase : bool
    smooth_method : {"exp", "floor", "add-k", "none"}
    smooth_value : float, optional
        ``floor``'s epsilon (0.1) or ``add-k``'s k (1).
    force : bool
        Silence the :class:`TokenizedInputWarning` (100 or more hypotheses
        ending in " .").
    use_effective_order, effective_order : bool
        One option under sacreBLEU's name and vecscore's (default False).
    max_ngram_order : int
    brevity_penalty : {"closest", "shortest"}
        Reference length of each pair: the closest to the hypothesis length
        (ties to the shorter; sacreBLEU, NLTK) or the shortest (HF ``bleu``).
    refs_layout : {"auto", "per-example", "streams"}
        ``auto`` (default): the layout the references' shape fits; refused
        when both fit with different meanings (then name one).

    Returns
    -------
    BLEUScore
        ``score``, ``counts``, ``totals``, ``precisions``, ``bp``,
        ``sys_len``, ``ref_len``, ``signature``, and the per-pair ``stats``.

    Examples
    --------
    >>> s = corpus_bleu(["the cat sat on the mat"], [["the cat is on the mat", "the bird sat on the bush"]],
    ...                 tokenize="none", max_ngram_order=2, smooth_method="none")
    >>> s.counts.tolist(), s.totals.tolist(), s.bp, round(s.score, 10) == round(100 * 0.8 ** 0.5, 10)
    ([6, 4], [6, 5], 1.0, True)
    """
    opts = Options(tokenize, lowercase, smooth_method, smooth_value, max_ngram_order,
                   _effective(use_effective_order, effective_order, False), brevity_penalty, force)
    hyps, kind, read = _read(hyps, refs, opts, refs_layout)
    stats, formulas = _stats(hyps, kind, read, opts)
    warn_tokenized(hyps, kind, opts)
    warn_cjk(hyps, kind, opts)
    return corpus_result(stats, opts, formulas)


@sacrebleu_keywords(hypothesis="hyps", references="refs")
@accepts_workers
def sentence_bleu(
    hyps: str | Iterable[Any], refs: Iterable[Any], smooth_method: str = "exp", smooth_value: float | None = None,
    lowercase: bool = False, tokenize: str = "13a", use_effective_order: bool | None = None, *,
    max_ngram_order: int = 4, effective_order: bool | None = None, brevity_penalty: str = "closest",
    refs_layout: str = "auto",
) -> BLEUScores | BLEUScore:
    """Sentence BLEU (0..100) of every pair in one call, or of one hypothesis as sacreBLEU.

    Pair ``i``'s score equals ``sacrebleu.sentence_bleu(hyps[i], refs_i)``
    (the legacy function: exp smoothing, **effective order on**).  For
    ``BLEU().sentence_score``'s defaults (effective order off) use
    ``BLEU().sentence_scores`` or ``effective_order=False``.  Parameters are
    those of :func:`corpus_bleu` (the positional ones in sacreBLEU's
    ``sentence_bleu`` order, without ``force``).  sacreBLEU's own form, one
    hypothesis ``str`` and a list of its references, returns one
    :class:`BLEUScore`.

    Returns
    -------
    BLEUScores
        ``score`` has shape ``(N,)``; a :class:`BLEUScore` for a single ``str`` hypothesis.

    Examples
    --------
    >>> sentence_bleu(["hello there", "hello there"], ["hello there", "hi"]).score.round(6).tolist()
    [100.0, 0.0]
    >>> round(sentence_bleu("hello there general kenobi", ["hello there general kenobi", "hi"]).score, 6)
    100.0
    """
    opts = Options(tokenize, lowercase, smooth_method, smooth_value, max_ngram_order,
                   _effective(use_effective_order, effective_order, True), brevity_penalty, True)
    if isinstance(hyps, str):  # sacreBLEU's sentence_bleu(hypothesis, references)
        if isinstance(refs, (str, bytes)) or not hasattr(refs, "__iter__"):
            raise VecscoreError("with one hypothesis (a str), refs must be the list of its references "
                                "(sacreBLEU's sentence_bleu(hypothesis, [ref1, ref2, ...])), not a single string")
        stats, formulas = _stats(*_read([hyps], [as_rows(refs, "refs")], opts, "per-example"), opts)
        return sentence_result(stats, opts, formulas)[0]
    index = row_index(hyps)  # the caller's row labels (a pandas Series' index), for to_pandas()
    hyps, kind, read = _read(hyps, refs, opts, refs_layout)
    stats, formulas = _stats(hyps, kind, read, opts)
    warn_cjk(hyps, kind, opts)
    return replace(sentence_result(stats, opts, formulas), index=index)


@sacrebleu_keywords(hypotheses="hyps", references="refs")
def raw_corpus_bleu(hyps: Iterable[Any], refs: Iterable[Any], smooth_value: float | None = None) -> BLEUScore:
    """sacreBLEU's ``raw_corpus_bleu``: corpus BLEU of text tokenized already (``tokenize="none"``), ``floor``
    smoothing (``smooth_value``, default 0.1), effective order, no tokenized-input warning.

    >>> round(raw_corpus_bleu(["this is a fest"], [["this is a test"]], .01).score / 100, 12)
    0.22360679775
    """
    return corpus_bleu(hyps, refs, "floor", smooth_value, True, False, "none", True)


def corpus_bleu_from_stats(stats: BleuStats, **options: Any) -> BLEUScore:
    """Corpus BLEU from (e.g. concatenated or resampled) statistics.

    ``options`` are :func:`corpus_bleu`'s scoring options (``smooth_method``,
    ``smooth_value``, ``effective_order``, ``max_ngram_order`` <= the
    statistics' order, and ``tokenize``/``lowercase``/``brevity_penalty``
    for the signature only).
    """
    options.setdefault("max_ngram_order", stats.max_order)
    opts = Options(**options)
    return corpus_result(_check_stats(stats, opts), opts)


def sentence_bleu_from_stats(stats: BleuStats, **options: Any) -> BLEUScores:
    """Sentence BLEU of every row of ``stats`` (options as :func:`sentence_bleu`)."""
    options.setdefault("max_ngram_order", stats.max_order)
    options.setdefault("effective_order", True)
    opts = Options(**options)
    return sentence_result(_check_stats(stats, opts), opts)



# --- the sacreBLEU-shaped class -----------------------------------------------------------------


def _ref_kind(entries: list) -> str:
    """The input kind of references alone (no hypotheses to decide from): per-example entries or streams."""
    r0 = entries[0] if entries else ""
    if isinstance(r0, np.ndarray) and r0.dtype.kind in "iu":
        return "ids"
    if isinstance(r0, (list, tuple, np.ndarray)):
        x = next((x for x in r0 if x is not None), None)
        if x is None or isinstance(x, str):
            return "text"  # a list of text references (cached token references are lists of token lists)
        if isinstance(x, (int, np.integer)):
            return "ids"
        return input_kind([x], "references")
    return "text"


class BLEU(SacreMetricMethods):
    """sacreBLEU's ``BLEU`` metric object, vectorized.

    ``BLEU(references=refs)`` tokenizes the references once (counting their
    n-grams on the plain route, interning their tokens on the compiled route,
    chosen by the references' size) and scores any number of systems against
    them (``corpus_score(hyps)``).  References are read as the functions read
    them (``refs_layout="auto"``): sacreBLEU's streams when they have that
    shape, so every sacreBLEU call gives sacreBLEU's number; one entry per
    hypothesis otherwise; a shape that both fit with different meanings is
    refused (name the layout: ``refs_layout="streams"`` or
    ``"per-example"``).  Cached references, read before any hypothesis, are
    streams when they are equal-length sequences (sacreBLEU's reading).

    Parameters are those of :func:`corpus_bleu`, the ones sacreBLEU's
    ``BLEU`` takes in its order (``tokenize=None``: the default of
    ``trg_lang``, ``zh``, ``ja-mecab``, ``ko-mecab`` or ``13a``); as in
    sacreBLEU, ``effective_order`` defaults to False, also for
    :meth:`sentence_score`.  sacreBLEU's ``significance.PairedTest`` can
    drive it (:mod:`vecscore.sacrebleu_protocol`).

    Examples
    --------
    >>> refs = [["The dog bit the man.", "It was not unexpected."], ["The dog had bit the man.", None]]
    >>> bleu = BLEU(references=refs)
    >>> round(bleu.corpus_score(["The dog bit the man.", "It wasn't surprising."]).score, 4)
    63.9817
    >>> bleu.get_signature()[:25]
    'nrefs:var|case:mixed|eff:'
    """

    def __init__(self, lowercase: bool = False, force: bool = False, tokenize: str | None = None,
                 smooth_method: str = "exp", smooth_value: float | None = None, max_ngram_order: int = 4,
                 effective_order: bool = False, trg_lang: str = "", references: Iterable[Any] | None = None, *,
                 brevity_penalty: str = "closest", refs_layout: str = "auto"):
        if tokenize is None:
            tokenize = _LANG_TOKENIZERS.get(trg_lang, "13a")
        self.trg_lang = trg_lang
        self._opts = Options(tokenize, lowercase, smooth_method, smooth_value, max_ngram_order, effective_order,
                             brevity_penalty, force)
        self.refs_layout = check_layout(refs_layout)
        self._nrefs = None
        self._refs: Refs | None = None  # the cached references as read
        self._refs_rows: list | None = None  # the cached references per pair, for the per-pair kernel
        self._one_each = False  # the cached references are one str per pair (self._refs_rows is then flat)
        self._ready: Any = None  # those references read once for the kernel (one per pair), False: they cannot be
        self._work = 0  # characters scored against the cached references so far
        self._ref_chars = 0
        self._cache = None if references is None else self._cache_references(references)

    def __getattr__(self, name):
        opts = self.__dict__.get("_opts")
        if opts is not None and name in Options.__dataclass_fields__:
            return getattr(opts, name)
        raise AttributeError(name)

    # references

    def _cache_references(self, refs):
        """A :class:`vecscore.bleu.plain.RefTable` (plain route) or :class:`vecscore.bleu.direct.RefCache`."""
        if isinstance(refs, Refs):  # read already (vecscore.significance reads a test's references once)
            read, kind = refs, refs.kind
        else:
            if isinstance(refs, (str, bytes)) or not hasattr(refs, "__iter__"):
                raise VecscoreError("references must be a sequence (streams refs[k][i], or per-example refs[i])")
            entries = as_rows(refs, "references")
            if self.refs_layout == "streams" and (not entries or isinstance(entries[0], (str, bytes))
                                                  or not hasattr(entries[0], "__len__")):
                raise VecscoreError("references must be a non-empty list of reference streams (refs[k][i])")
            kind = _ref_kind(entries)
            read = read_refs(entries, None, kind, self.refs_layout, "references")
        self._refs = read
        flat, ref_ptr = read.flat, read.ptr
        nrefs = np.diff(ref_ptr)
        self._nrefs = BleuStats.from_arrays(nrefs, nrefs, nrefs[:, None], nrefs[:, None], nrefs).nrefs_label()
        o = self._opts
        if kind == "text" and o.tokenize in _PER_PAIR_TOKENIZERS and not o.lowercase:
            self._one_each = read.one_each
            # one reference per pair: the flat list itself, which the per-pair kernel reads as it is
            self._refs_rows = list(flat) if self._one_each else [flat[a:b] for a, b in zip(ref_ptr[:-1].tolist(),
                                                                                               ref_ptr[1:].tolist())]
            self._ref_chars = plain_bleu.text_size(kind, (), flat)
        options = dict(kind=kind, tokenize=o.tokenize, lowercase=o.lowercase, max_order=o.max_ngram_order)
        if use_plain(plain_bleu.supports(kind, o.tokenize), lambda: plain_bleu.text_size(kind, (), flat)):
            return plain_bleu.reference_table(flat, ref_ptr, **options)
        return _compiled().cache_references(flat, ref_ptr, **options)

    def _cached_stats(self, hyps: list, kind: str):
        """``(stats, formulas)`` of read hypotheses against the cached references, on the route they were
        cached for."""
        c = self._cache
        assert c is not None and self._refs is not None  # the callers check for cached references first
        if kind != c.kind:
            raise VecscoreError(f"hyps are {kind} but the cached references are {c.kind}")
        if len(hyps) != c.n_pairs:
            raise cached_mismatch(len(hyps), self._refs)
        if self._refs_rows is not None and self._per_pair_wins(hyps, kind):
            with route.preferred("compiled"):
                ready = self._ready_stats(hyps, kind)
                if ready is not None:
                    return ready, bf
                stats, formulas = _stats(hyps, kind, self._refs, self._opts)
            return stats, formulas
        plain = isinstance(c, plain_bleu.RefTable)
        return c.statistics(hyps, self._opts.brevity_penalty), (plain_formulas if plain else bf)

    def _ready_stats(self, hyps: list, kind: str) -> BleuStats | None:
        """Statistics on the per-pair kernel against the cached references as it reads them, prepared on the
        first call (one reference per pair: :func:`vecscore.engine.pair_rows.ready_rows`), or ``None``."""
        if self._ready is None:
            self._ready = (self._one_each and _compiled().ready_references(self._refs_rows, self._opts.tokenize)
                           or False)
        if self._ready is False:
            return None
        o = self._opts
        with unicode_errors(hyps, self._refs_rows):
            stats = _compiled().direct_stats(hyps, self._ready, tokenize=o.tokenize, lowercase=o.lowercase,
                                             max_order=o.max_ngram_order, brevity_penalty=o.brevity_penalty,
                                             refs_layout="per-example")
        if stats is not None:
            note_compiled(plain_bleu.warm_key(kind, o.tokenize))
        return stats

    def _kernel_warm(self, kind: str = "text") -> bool:
        """Whether :meth:`_per_pair_wins` holds for ``kind`` without counting its characters:
        ``VECSCORE_ROUTE=compiled``, or (unless ``=plain``) a call of this kind ran on the compiled route."""
        r = route.route()
        return r == "compiled" or (r != "plain" and route.is_warm(plain_bleu.warm_key(kind, self._opts.tokenize)))

    def _per_pair_wins(self, hyps, kind: str) -> bool:
        """Whether this call scores against the cached references with the per-pair kernel (which tokenizes the
        references again, faster than any cache reads them) rather than the cache: once the calls of this object
        have scored more text than the plain route's budget, or the kernel is loaded already (a call of this
        kind ran on the compiled route), or ``VECSCORE_ROUTE=compiled``."""
        if self._kernel_warm(kind):
            return True
        if route.route() == "plain":
            return False
        self._work += plain_bleu.text_size(kind, hyps, ()) + self._ref_chars
        return self._work > route.PLAIN_MAX_CHARS

    # scoring

    def _statistics(self, hyps, refs):
        """``(stats, formulas, hyps, kind)``: :meth:`statistics`, the formulas of the route that computed them,
        and the hypotheses as read."""
        hyps, kind = read_rows(hyps, "hyps")  # read once; every later step takes these rows
        check_kind(kind, self._opts)
        if refs is None:
            if self._cache is None:
                raise VecscoreError("no references given and none cached; pass refs or BLEU(references=...)")
            stats, formulas = self._cached_stats(hyps, kind)
        else:
            read = read_refs(refs, len(hyps), kind, self.refs_layout)
            stats, formulas = _stats(hyps, kind, read, self._opts)
        self._nrefs = stats.nrefs_label()
        return stats, formulas, hyps, kind

    def statistics(self, hyps: Sequence[Any], refs: Iterable[Any] | None = None) -> BleuStats:
        """Per-pair statistics against ``refs`` or, if None, the cached references."""
        return self._statistics(hyps, refs)[0]

    @sacrebleu_keywords(hypotheses="hyps", references="refs")
    def corpus_score(self, hyps: Sequence[Any], refs: Iterable[Any] | None = None,
                     n_bootstrap: int = 1) -> BLEUScore:
        """Corpus BLEU, as sacreBLEU's ``BLEU.corpus_score`` (``refs=None``: the cached ones).

        ``n_bootstrap > 1``: also sacreBLEU's bootstrap estimate (``_mean``, ``_ci``; seed from
        ``SACREBLEU_SEED``, see :func:`vecscore.significance.confidence_interval`), and the signature
        gains ``bs:N|seed:S`` from then on, as sacreBLEU's.
        """
        stats, formulas, rows, kind = self._statistics(hyps, refs)
        warn_tokenized(rows, kind, self._opts)
        result = corpus_result(stats, self._opts, formulas)
        if n_bootstrap == 1:
            return result
        from vecscore.significance.adapters import bleu_adapter, bleu_matrix  # lazy: only with n_bootstrap
        from vecscore.significance.estimate import with_interval

        k = self._opts.max_ngram_order
        return with_interval(self, bleu_adapter(self), result, bleu_matrix(stats, k), n_bootstrap)

    def sentence_scores(self, hyps: Sequence[Any], refs: Iterable[Any] | None = None) -> BLEUScores:
        """Every pair's ``BLEU.sentence_score``, with this object's options, in one call."""
        index = row_index(hyps)  # the caller's row labels, for to_pandas()
        stats, formulas, _, _ = self._statistics(hyps, refs)
        return replace(sentence_result(stats, self._opts, formulas), index=index)

    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> BLEUScore:
        """One hypothesis against its references, as sacreBLEU's ``BLEU.sentence_score``."""
        if isinstance(references, (str, bytes)) or not isinstance(references, Sequence):
            raise VecscoreError("references must be a list of reference strings for this one hypothesis")
        refs = [r for r in as_rows(references, "references") if r is not None]
        stats, formulas = _stats(*_read([hypothesis], [refs], self._opts, "per-example"), self._opts)
        self._nrefs = stats.nrefs_label()
        return sentence_result(stats, self._opts, formulas)[0]

    def score_stats(self, stats: BleuStats) -> BLEUScore:
        """Corpus BLEU of (concatenated, resampled ...) statistics with this object's options."""
        return corpus_result(_check_stats(stats, self._opts), self._opts)

    @staticmethod
    def compute_bleu(correct: Sequence[Any] | np.ndarray, total: Sequence[Any] | np.ndarray, sys_len: int,
                     ref_len: int, smooth_method: str = "none", smooth_value: float | None = None,
                     effective_order: bool = False, max_ngram_order: int = 4) -> BLEUScore:
        """sacreBLEU's ``BLEU.compute_bleu``: the score of summed statistics (``correct``/``total`` per order).

        Float statistics (sacreBLEU's float32 bootstrap sums) give sacreBLEU's score in their dtype; the
        other fields come from the statistics rounded to integers.

        >>> BLEU.compute_bleu([9, 7, 5, 3], [10, 8, 6, 4], 11, 11).score.__round__(8)
        83.75922397
        """
        k = int(max_ngram_order)
        c, t = np.asarray(correct), np.asarray(total)
        if c.ndim != 1 or t.ndim != 1 or len(c) < k or len(t) < k:
            raise VecscoreError(f"correct and total must be sequences of at least max_ngram_order={k} numbers, "
                                f"got lengths {np.size(c)} and {np.size(t)}")
        opts = Options("none", False, smooth_method, smooth_value, k, bool(effective_order))
        whole = c.dtype.kind in "iub" and t.dtype.kind in "iub"
        ci, ti = (c[:k], t[:k]) if whole else (np.rint(c[:k]), np.rint(t[:k]))
        s = plain_formulas.sacrebleu_corpus([int(sys_len)], [int(ref_len)], ci.astype(np.int64)[:, None],
                                            ti.astype(np.int64)[:, None], smooth_method=opts.smooth_method,
                                            smooth_value=opts.smooth_value, effective_order=opts.effective_order)
        counts, totals = _sacre_counts(s.counts, s.totals, opts)
        result = BLEUScore(s.score, counts, totals, s.precisions, s.bp, s.sys_len, s.ref_len)
        if whole:
            return result
        from dataclasses import replace

        return replace(result, score=_float_row_score(c[:k], t[:k], sys_len, ref_len, opts))

    def _make_sacre_adapter(self):
        from vecscore.significance.adapters import bleu_adapter

        return bleu_adapter(self)

    def _compute_score_from_stats(self, stats) -> BLEUScore:
        """sacreBLEU's ``_compute_score_from_stats``: one row ``[sys_len, ref_len, correct_1..K, total_1..K]``."""
        from vecscore.sacrebleu_protocol import _row

        row, k, o = _row(stats), self._opts.max_ngram_order, self._opts
        correct, total = row[2:2 + k], row[2 + k:2 + 2 * k]
        if len(correct) < k or len(total) < k:
            raise VecscoreError(f"a row of BLEU statistics has 2 + 2 * {k} numbers, got {len(row)}")
        score = _float_row_score(correct, total, row[0], row[1], o)

        def full() -> BLEUScore:
            return self.compute_bleu(correct, total, int(row[0]), int(row[1]), o.smooth_method, o.smooth_value,
                                     o.effective_order, k)

        return _RowScore(score, full)

    def get_signature(self, short: bool = False) -> Signature:
        """sacreBLEU's signature (``nrefs`` is known once references were seen): a ``str`` of the long form
        (or the short one with ``short=True``), with sacreBLEU's ``Signature`` methods (``format(short)``,
        ``update(key, value)``)."""
        if self._nrefs is None:
            raise VecscoreError("number of references unknown: score something (or cache references) first")
        forms = [self._opts.signature(self._nrefs, short=x) for x in (False, True)]
        resampled = getattr(self, "_bootstrap", None)  # (n, seed) after corpus_score(n_bootstrap=n)
        if resampled is not None:
            from vecscore.significance.estimate import resampling_signature

            forms = [resampling_signature(x, bs=resampled[0], seed=resampled[1]) for x in forms]
        sig = Signature(*forms)
        return Signature(forms[1], forms[1]) if short else sig

    def __repr__(self) -> str:
        o = self._opts
        return (f"BLEU(tokenize={o.tokenize!r}, lowercase={o.lowercase}, smooth_method={o.smooth_method!r}, "
                f"max_ngram_order={o.max_ngram_order}, effective_order={o.effective_order}, "
                f"brevity_penalty={o.brevity_penalty!r}, refs_layout={self.refs_layout!r}, "
                f"cached={self._cache is not None})")

