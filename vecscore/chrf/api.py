"""chrF and chrF++ with sacreBLEU's semantics, for whole batches.

Per pair, integer statistics are computed first (per order ``[hypothesis
n-grams, reference n-grams, clipped matches]`` against the pair's best
reference, laid out as sacreBLEU's ``CHRF`` lays them out: character orders
``1..char_order``, then word orders ``1..word_order``, 3 columns each);
scores come from them (:mod:`vecscore.chrf.formulas`), bit-identical to
sacreBLEU 2.6.  Porting code means changing the import:

=============================================  ==================================================
vecscore                                       sacreBLEU 2.6
=============================================  ==================================================
``corpus_chrf(hyps, refs, ...)``               ``sacrebleu.corpus_chrf(hyps, refs, ...)``
``sentence_chrf(hyp, refs, ...)``              ``sacrebleu.sentence_chrf(hyp, refs, ...)``
``CHRF(**kw).corpus_score(hyps, refs)``        ``CHRF(**kw).corpus_score(hyps, refs)``
``CHRF(**kw).sentence_score(hyp, refs)``       ``CHRF(**kw).sentence_score(hyp, refs)``
``CHRF(**kw).sentence_scores(hyps, refs)``     ``[CHRF(**kw).sentence_score(h, r).score ...]``
                                               for every pair, as one NumPy array
``chrf_statistics(hyps, refs, ...)``           ``CHRF(**kw)._extract_corpus_statistics(...)``
=============================================  ==================================================

References: ``corpus_chrf``, :func:`chrf_statistics` and the :class:`CHRF`
class take ``refs_layout="auto"`` (sacreBLEU's streams ``refs[k][i]`` when the
shape fits, else per example ``refs[i]``; both fitting with different
meanings is refused, see :func:`vecscore.references.read_refs`);
``refs_layout="streams"`` or ``"per-example"`` names one.
``None`` in a stream is a missing reference; ``""`` is an empty one.
Unlike sacreBLEU, streams shorter than the hypotheses are refused, not
silently truncated.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vecscore.chrf import formulas
from vecscore.chrf.options import Options
from vecscore.chrf.stats import ChrfBatch, batch_of, read_batch, statistics
from vecscore.confidence import score_format
from vecscore.errors import VecscoreError
from vecscore.inputs import as_rows
from vecscore.parallel import accepts_workers
from vecscore.references import Refs, cached_mismatch, check_layout, read_constructor_refs, read_refs, text_hyps
from vecscore.sacrebleu_protocol import SacreMetricMethods, Signature, _row

__all__ = ["CHRF", "CHRFScore", "CHRFSignature", "chrf_statistics", "corpus_chrf", "sentence_chrf"]


class CHRFScore:
    """One chrF score (0..100), as sacreBLEU's ``CHRFScore``.

    ``stats``: the integer statistics it was computed from (summed over the
    corpus for a corpus score); ``signature``: the metric's signature string.
    """

    def __init__(self, score: float, char_order: int, word_order: int, beta, stats=None, signature: str = ""):
        self.score = float(score)
        self.char_order = char_order
        self.word_order = word_order
        self.beta = beta
        self.name = f"chrF{beta}" + "+" * word_order
        self.stats = stats
        self.signature = signature
        # sacreBLEU's bootstrap estimate (corpus_score(..., n_bootstrap=N)); -1.0: none
        self._mean = -1.0
        self._ci = -1.0

    def format(self, width: int = 2, score_only: bool = False, signature: bool | str = "",
               is_json: bool = False) -> str:
        """sacreBLEU's ``Score.format``: ``chrF2 = 59.54`` (``signature=True``: this score's signature)."""
        sig = self.signature if signature is True else (signature or "")
        return score_format(self.name, self.score, sig, width, score_only, is_json, self._mean, self._ci)

    def __repr__(self) -> str:
        return self.format()

    __str__ = __repr__

    def __float__(self) -> float:
        return self.score

    def to_dict(self) -> dict:
        """sacreBLEU's fields as plain Python values (``json.dumps`` takes it): ``name``, ``score``,
        ``char_order``, ``word_order``, ``beta``, ``signature``, and ``mean``/``ci`` of a bootstrap estimate."""
        d = {"name": self.name, "score": float(self.score), "char_order": int(self.char_order),
             "word_order": int(self.word_order), "beta": float(self.beta) if isinstance(self.beta, float) else
             int(self.beta), "signature": str(self.signature)}
        if self._ci >= 0:
            d.update(mean=float(self._mean), ci=float(self._ci))
        return d


class CHRFSignature(Signature):
    """The signature string; ``format(short=True)`` gives the short form and ``update(key, value)`` adds an
    item, as sacreBLEU's ``Signature`` (:class:`vecscore.sacrebleu_protocol.Signature`).

    (A ``str``, so code written for vecscore's ``BLEU.get_signature`` works too.)
    """


def _corpus_score(stats: np.ndarray, opts: Options, signature: str) -> CHRFScore:
    total = np.asarray(stats, np.int64).sum(axis=0) if len(stats) else np.zeros(opts.width, np.int64)
    score = float(formulas.f_scores(total, opts.beta, opts.eps_smoothing)[0])
    return CHRFScore(score, opts.char_order, opts.word_order, opts.beta, total, signature)


def _one_pair(hypothesis, references) -> list:
    """sacreBLEU's ``sentence_score(hypothesis, references)`` arguments as a batch of one pair."""
    if not isinstance(hypothesis, str):
        raise VecscoreError(
            f"hypothesis must be one str, got {type(hypothesis).__name__}; for every pair of a batch use "
            "CHRF(...).sentence_scores(hyps, refs)"
        )
    if isinstance(references, (str, bytes)) or not isinstance(references, Sequence):
        raise VecscoreError("references must be the list of this hypothesis's reference strings "
                            "(sacreBLEU's sentence_score(hypothesis, [ref1, ref2, ...])), not a single string")
    refs = [r for r in as_rows(references, "references") if r is not None]
    if not refs:
        raise VecscoreError("references has no reference (it is empty or all None); pass at least one string")
    return refs


# --- functions --------------------------------------------------------------------------------


@accepts_workers
def chrf_statistics(hyps, refs, *, char_order: int = 6, word_order: int = 0, beta=2, lowercase: bool = False,
                    whitespace: bool = False, eps_smoothing: bool = False, refs_layout: str = "auto") -> np.ndarray:
    """Per-pair int64 chrF statistics, shape ``(N, 3 * (char_order + word_order))``.

    Row ``i`` is sacreBLEU's segment statistics of pair ``i``: for each order
    (characters ``1..char_order``, then words ``1..word_order``) the
    hypothesis n-gram count (0 when the reference has no n-gram of that
    order), the reference n-gram count and the clipped matches, against the
    pair's best reference (which depends on ``beta`` and ``eps_smoothing``).
    Corpus chrF of any subset is ``CHRF(...).score_stats(stats[idx])``.

    Examples
    --------
    >>> chrf_statistics(["ab c"], [["abd"]], char_order=2).tolist()
    [[3, 3, 2, 2, 2, 1]]
    """
    opts = Options(char_order, word_order, beta, lowercase, whitespace, eps_smoothing)
    batch = read_batch(hyps, refs, check_layout(refs_layout, True), lowercase)
    return statistics(batch, opts)[0]


@accepts_workers
def corpus_chrf(hypotheses, references, char_order: int = 6, word_order: int = 0, beta=2,
                remove_whitespace: bool = True, eps_smoothing: bool = False, *,
                refs_layout: str = "auto") -> CHRFScore:
    """Corpus chrF (chrF++ with ``word_order=2``), as ``sacrebleu.corpus_chrf``.

    ``references`` are sacreBLEU's streams ``[refs1, refs2, ...]`` (or per
    pair a ``str`` or a list of ``str``; see ``refs_layout``).

    Examples
    --------
    >>> corpus_chrf(["the cat sat on the mat"], [["the cat sat on the mat"]]).score
    100.0
    """
    opts = Options(char_order, word_order, beta, False, not remove_whitespace, eps_smoothing)
    batch = read_batch(hypotheses, references, check_layout(refs_layout, True), False)
    stats, _ = statistics(batch, opts)
    return _corpus_score(stats, opts, opts.signature(batch.refs.nrefs_label()))


def sentence_chrf(hypothesis: str, references: Sequence[str], char_order: int = 6, word_order: int = 0, beta=2,
                  remove_whitespace: bool = True, eps_smoothing: bool = False) -> CHRFScore:
    """chrF of one hypothesis against its references, as ``sacrebleu.sentence_chrf``.

    For every pair of a batch in one call use ``CHRF(...).sentence_scores``.

    Examples
    --------
    >>> round(sentence_chrf("the cat", ["the cat", "a dog"]).score, 6)
    100.0
    """
    return CHRF(char_order, word_order, beta, whitespace=not remove_whitespace,
                eps_smoothing=eps_smoothing).sentence_score(hypothesis, references)


# --- the sacreBLEU-shaped class -----------------------------------------------------------------


class CHRF(SacreMetricMethods):
    """sacreBLEU's ``CHRF`` metric object, vectorized (sacreBLEU's ``PairedTest`` can drive it).

    Parameters are sacreBLEU's: ``char_order`` (6), ``word_order`` (0; 2 is
    chrF++), ``beta`` (2), ``lowercase``, ``whitespace`` (keep whitespace in
    character n-grams), ``eps_smoothing`` (chrF++.py's epsilon smoothing
    instead of the effective order), ``references`` (streams to cache and
    score several systems against).  ``refs_layout``: ``"auto"`` (default:
    sacreBLEU's streams when the references have that shape, per example
    otherwise, refused when both fit with different meanings; cached
    references of equal-length sequences are streams), ``"streams"`` or
    ``"per-example"``.

    Examples
    --------
    >>> chrf = CHRF(word_order=2)
    >>> chrf.corpus_score(["the cat sat"], [["the cat sat"]])
    chrF2++ = 100.00
    >>> chrf.get_signature()
    'nrefs:1|case:mixed|eff:yes|nc:6|nw:2|space:no|version:0.1.0'
    """

    CHAR_ORDER = 6
    WORD_ORDER = 0
    BETA = 2
    _signature_type = CHRFSignature

    def __init__(self, char_order: int = CHAR_ORDER, word_order: int = WORD_ORDER, beta=BETA,
                 lowercase: bool = False, whitespace: bool = False, eps_smoothing: bool = False,
                 references=None, *, refs_layout: str = "auto"):
        self._opts = Options(char_order, word_order, beta, lowercase, whitespace, eps_smoothing)
        self.char_order = char_order
        self.word_order = word_order
        self.order = char_order + word_order
        self.beta = beta
        self.lowercase = lowercase
        self.whitespace = whitespace
        self.eps_smoothing = eps_smoothing
        self.refs_layout = check_layout(refs_layout)
        self._nrefs = None
        self._cache = None if references is None else self._cache_references(references)

    def _cache_references(self, refs) -> Refs:
        """``refs`` read once (lowercased if asked)."""
        if isinstance(refs, Refs):  # read already (vecscore.significance reads a test's references once)
            read = read_refs(refs, None, "text")
        else:
            read = read_constructor_refs(refs, self.refs_layout, "text")
        if self.lowercase:
            read = read.replaced(list(map(str.lower, read.flat)))
        self._nrefs = read.nrefs_label()
        return read

    def _batch(self, hyps, refs) -> ChrfBatch:
        if refs is not None:
            return read_batch(hyps, refs, self.refs_layout, self.lowercase)
        if self._cache is None:
            raise VecscoreError("no references given and none cached; pass refs or CHRF(references=...)")
        hyps = text_hyps(hyps, "chrF")
        if len(hyps) != self._cache.n_pairs:
            raise cached_mismatch(len(hyps), self._cache)
        return batch_of(hyps, self._cache, self.lowercase, refs_lowercased=True)

    def _statistics(self, hyps, refs, batch: ChrfBatch | None = None):
        batch = batch or self._batch(hyps, refs)
        stats, scores = statistics(batch, self._opts)
        self._nrefs = batch.refs.nrefs_label()
        return stats, scores

    def statistics(self, hyps, refs=None) -> np.ndarray:
        """Per-pair int64 statistics (see :func:`chrf_statistics`) against ``refs`` or the cached references."""
        return self._statistics(hyps, refs)[0]

    def statistics_and_scores(self, hyps, refs=None) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`statistics` and :meth:`sentence_scores` of the same pairs, computed once."""
        return self._statistics(hyps, refs)

    def corpus_score(self, hypotheses, references=None, n_bootstrap: int = 1) -> CHRFScore:
        """Corpus chrF, as sacreBLEU's ``CHRF.corpus_score`` (``references=None``: the cached ones).

        ``n_bootstrap > 1``: also sacreBLEU's bootstrap estimate (``_mean``, ``_ci``; seed from
        ``SACREBLEU_SEED``), and the signature gains ``bs:N|seed:S`` from then on, as sacreBLEU's.
        """
        stats, _ = self._statistics(hypotheses, references)
        result = _corpus_score(stats, self._opts, str.__str__(self.get_signature()))
        if n_bootstrap == 1:
            return result
        from vecscore.significance.adapters import chrf_adapter  # lazy: only with n_bootstrap
        from vecscore.significance.estimate import with_interval

        return with_interval(self, chrf_adapter(self), result, np.asarray(stats, np.int64), n_bootstrap)

    def sentence_scores(self, hyps, refs=None) -> np.ndarray:
        """Every pair's ``CHRF.sentence_score(...).score`` (float64, shape ``(N,)``), in one call."""
        return self._statistics(hyps, refs)[1]

    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> CHRFScore:
        """One hypothesis against its references, as sacreBLEU's ``CHRF.sentence_score``."""
        refs = _one_pair(hypothesis, references)
        batch = read_batch([hypothesis], [refs], "per-example", self.lowercase)
        stats, scores = self._statistics(None, None, batch)
        return CHRFScore(float(scores[0]), self.char_order, self.word_order, self.beta, stats[0],
                         str.__str__(self.get_signature()))

    def score_stats(self, stats, nrefs=None) -> CHRFScore:
        """Corpus chrF of (resampled, concatenated ...) rows of :meth:`statistics`; ``nrefs`` (an int
        or ``"var"``) for the signature when these statistics came from elsewhere."""
        stats = np.asarray(stats)
        if stats.ndim != 2 or stats.shape[1] != self._opts.width:
            raise VecscoreError(f"stats must have shape (N, {self._opts.width}) for char_order={self.char_order}, "
                                f"word_order={self.word_order}; got {stats.shape}")
        if nrefs is not None:
            self._nrefs = nrefs
        sig = str.__str__(self.get_signature()) if self._nrefs is not None else ""
        return _corpus_score(stats, self._opts, sig)

    def _make_sacre_adapter(self):
        from vecscore.significance.adapters import chrf_adapter

        return chrf_adapter(self)

    def _compute_score_from_stats(self, stats) -> CHRFScore:
        """sacreBLEU's ``_compute_score_from_stats``: the score of one row of summed statistics (float32
        bootstrap sums give sacreBLEU's float32 score)."""
        from vecscore.significance.scores import chrf_rows

        row = _row(stats)
        score = chrf_rows(row[None, :], beta=self.beta, eps_smoothing=self.eps_smoothing)[0]
        result = CHRFScore(float(score), self.char_order, self.word_order, self.beta, row)
        if isinstance(score, np.float32):  # sacreBLEU's score of float32 sums is a float32 (so are their means)
            result.score = score  # type: ignore[assignment]
        return result

    def __repr__(self) -> str:
        o = self._opts
        return (f"CHRF(char_order={o.char_order}, word_order={o.word_order}, beta={o.beta}, "
                f"lowercase={o.lowercase}, whitespace={o.whitespace}, eps_smoothing={o.eps_smoothing}, "
                f"refs_layout={self.refs_layout!r}, cached={self._cache is not None})")
