"""sacreBLEU's ``BLEU`` class: its arguments and defaults (effective order off), references cached once when given
to the constructor, the methods sacreBLEU's own code calls (:mod:`vecscore.sacrebleu_protocol`), and
``corpus_score(n_bootstrap=N)``'s interval; the same numbers as sacreBLEU 2.6's class.  The functions are in
:mod:`vecscore.bleu.api`."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from vecscore import route
from vecscore.bleu import formulas as bf
from vecscore.bleu import plain as plain_bleu
from vecscore.bleu import plain_formulas as plain_formulas
from vecscore.bleu import scoring
from vecscore.bleu.options import (
    Options,
    check_kind,
    warn_tokenized,
)
from vecscore.bleu.scores import BLEUScore, BLEUScores
from vecscore.bleu.scoring import (
    LANG_TOKENIZERS,
    PER_PAIR_TOKENIZERS,
    RowScore,
    call_stats,
    check_stats,
    corpus_result,
    float_row_score,
    read_call,
    sacre_counts,
    sentence_result,
)
from vecscore.bleu.stats import BleuStats
from vecscore.errors import VecscoreError
from vecscore.frames import row_index
from vecscore.inputs import as_rows, input_kind, read_rows
from vecscore.references import Refs, cached_mismatch, check_layout, read_constructor_refs, read_refs
from vecscore.route import note_compiled, use_plain
from vecscore.row_errors import unicode_errors
from vecscore.sacrebleu_protocol import SacreMetricMethods, sacrebleu_keywords

__all__ = ["BLEU"]


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
            tokenize = LANG_TOKENIZERS.get(trg_lang, "13a")
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
            read = refs
        else:
            read = read_constructor_refs(refs, self.refs_layout, _ref_kind)
        kind = read.kind
        self._refs = read
        flat, ref_ptr = read.flat, read.ptr
        nrefs = np.diff(ref_ptr)
        self._nrefs = BleuStats.from_arrays(nrefs, nrefs, nrefs[:, None], nrefs[:, None], nrefs).nrefs_label()
        o = self._opts
        if kind == "text" and o.tokenize in PER_PAIR_TOKENIZERS and not o.lowercase:
            self._one_each = read.one_each
            # one reference per pair: the flat list itself, which the per-pair kernel reads as it is
            self._refs_rows = list(flat) if self._one_each else [flat[a:b] for a, b in zip(ref_ptr[:-1].tolist(),
                                                                                               ref_ptr[1:].tolist())]
            self._ref_chars = plain_bleu.text_size(kind, (), flat)
        options = dict(kind=kind, tokenize=o.tokenize, lowercase=o.lowercase, max_order=o.max_ngram_order)
        if use_plain(plain_bleu.supports(kind, o.tokenize), lambda: plain_bleu.text_size(kind, (), flat)):
            return plain_bleu.reference_table(flat, ref_ptr, **options)
        return scoring.compiled().cache_references(flat, ref_ptr, **options)

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
                stats, formulas = call_stats(hyps, kind, self._refs, self._opts)
            return stats, formulas
        plain = isinstance(c, plain_bleu.RefTable)
        return c.statistics(hyps, self._opts.brevity_penalty), (plain_formulas if plain else bf)

    def _ready_stats(self, hyps: list, kind: str) -> BleuStats | None:
        """Statistics on the per-pair kernel against the cached references as it reads them, prepared on the
        first call (one reference per pair: :func:`vecscore.engine.pair_rows.ready_rows`), or ``None``."""
        if self._ready is None:
            self._ready = (self._one_each and scoring.compiled().ready_references(self._refs_rows, self._opts.tokenize)
                           or False)
        if self._ready is False:
            return None
        o = self._opts
        with unicode_errors(hyps, self._refs_rows):
            stats = scoring.compiled().direct_stats(hyps, self._ready, tokenize=o.tokenize, lowercase=o.lowercase,
                                             max_order=o.max_ngram_order, brevity_penalty=o.brevity_penalty)
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
            stats, formulas = call_stats(hyps, kind, read, self._opts)
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
        stats, formulas = call_stats(*read_call([hypothesis], [refs], self._opts, "per-example"), self._opts)
        self._nrefs = stats.nrefs_label()
        return sentence_result(stats, self._opts, formulas)[0]

    def score_stats(self, stats: BleuStats) -> BLEUScore:
        """Corpus BLEU of (concatenated, resampled ...) statistics with this object's options."""
        return corpus_result(check_stats(stats, self._opts), self._opts)

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
        counts, totals = sacre_counts(s.counts, s.totals, opts)
        result = BLEUScore(s.score, counts, totals, s.precisions, s.bp, s.sys_len, s.ref_len)
        if whole:
            return result
        from dataclasses import replace

        return replace(result, score=float_row_score(c[:k], t[:k], sys_len, ref_len, opts))

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
        score = float_row_score(correct, total, row[0], row[1], o)

        def full() -> BLEUScore:
            return self.compute_bleu(correct, total, int(row[0]), int(row[1]), o.smooth_method, o.smooth_value,
                                     o.effective_order, k)

        return RowScore(score, full)

    def __repr__(self) -> str:
        o = self._opts
        return (f"BLEU(tokenize={o.tokenize!r}, lowercase={o.lowercase}, smooth_method={o.smooth_method!r}, "
                f"max_ngram_order={o.max_ngram_order}, effective_order={o.effective_order}, "
                f"brevity_penalty={o.brevity_penalty!r}, refs_layout={self.refs_layout!r}, "
                f"cached={self._cache is not None})")
