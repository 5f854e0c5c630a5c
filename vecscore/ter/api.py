"""TER (translation edit rate) with sacreBLEU 2.6's semantics, for whole batches.

Texts are tokenized as sacreBLEU's ``TER`` does (:mod:`vecscore.ter.tokenize`),
the tokens of the batch are interned to int ids, and the number of edits of
every (hypothesis, reference) pair is computed by the numba kernel
:func:`vecscore.kernels.ter.ter_edits` in parallel.  Per pair the statistics
are sacreBLEU's: the fewest edits over the references (an int) and the
*average* reference length (total reference tokens / number of references,
a float computed by one division, as sacreBLEU does).  Scores come from
them:

* sentence: ``100 * edits / ref_length``; with ``ref_length == 0`` it is 100
  if there is any edit, else 0;
* corpus: the same formula on the sum of the edits and the sum of the
  average reference lengths, added left to right in float64 like
  sacreBLEU's Python loop.

References are tokenized as sacreBLEU 2.6 tokenizes them, twice (its
reference cache tokenizes each reference, and ``TER._extract_reference_info``
tokenizes the result again); hypotheses once.  The second pass changes tokens
only with ``normalized=True``, whose normalization is not idempotent
(``"it's,"`` -> ``"it's ,"`` -> ``"it 's ,"``): a hypothesis equal to such a
reference then has edits.  ``reference_normalization="once"`` tokenizes the
references once, as the hypotheses (tercom's intent), and says
``refnorm:once`` in the signature; the default ``"twice"`` is sacreBLEU's.

Reference layouts are those of :mod:`vecscore.inputs`: the functions and the
:class:`TER` class default to ``refs_layout="auto"`` (sacreBLEU's streams,
``None`` for a missing reference, when the shape says so; a shape that reads
differently per example is refused); ``"streams"`` or ``"per-example"``
names one.  Unlike sacreBLEU, streams of different lengths are an error, not
silently truncated.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vecscore.confidence import score_format
from vecscore.errors import VecscoreError
from vecscore.inputs import as_rows
from vecscore.references import cached_mismatch, check_layout
from vecscore.sacrebleu_protocol import SacreMetricMethods, _row
from vecscore.ter.options import REFERENCE_NORMALIZATIONS, Options, ter_signature
from vecscore.ter.stats import pair_statistics, read_hyps, read_texts_refs, scores_from_stats, statistics

__all__ = ["TER", "TERScore", "corpus_ter", "sentence_ter", "ter_statistics", "ter_signature", "scores_from_stats",
           "REFERENCE_NORMALIZATIONS"]

@dataclass(frozen=True, repr=False)
class TERScore:
    """One TER score (percent), with sacreBLEU's ``TERScore`` fields.

    ``num_edits`` is the (summed) number of edits, ``ref_length`` the
    (summed) average reference length.
    """

    score: float
    num_edits: int
    ref_length: float
    signature: str = ""
    #: sacreBLEU's bootstrap estimate (``corpus_score(..., n_bootstrap=N)``); -1.0: none
    _mean: float = -1.0
    _ci: float = -1.0

    name = "TER"

    def format(self, width: int = 2, score_only: bool = False, signature: bool | str = False,
               is_json: bool = False) -> str:
        """sacreBLEU's ``Score.format``: ``TER = 54.32`` or ``TER|nrefs:1|...|version:... = 54.32``.

        ``signature=True`` uses this result's signature (a string is used as given).
        """
        sig = self.signature if signature is True else (signature or "")
        return score_format(self.name, self.score, sig, width, score_only, is_json, self._mean, self._ci)

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        return self.format()

    def to_dict(self) -> dict:
        """sacreBLEU's fields as plain Python numbers (``json.dumps`` takes it): ``name``, ``score``,
        ``num_edits``, ``ref_length``, ``signature``, and ``mean``/``ci`` of a bootstrap estimate."""
        edits = float(self.num_edits)
        d = {"name": self.name, "score": float(self.score), "num_edits": int(edits) if edits.is_integer() else edits,
             "ref_length": float(self.ref_length), "signature": str(self.signature)}
        if self._ci >= 0:
            d.update(mean=float(self._mean), ci=float(self._ci))
        return d


def corpus_score_from_stats(edits: np.ndarray, ref_length: np.ndarray, signature: str) -> TERScore:
    """Corpus TER from per-pair edits and reference lengths (summed left to right, as sacreBLEU)."""
    from vecscore._jit import loaded_or_plain
    from vecscore.kernels.ter import sequential_sum

    total_edits = int(edits.sum())
    total_ref = float(loaded_or_plain(sequential_sum)(np.ascontiguousarray(ref_length, np.float64)))
    if total_ref > 0:
        rate = total_edits / total_ref
    else:
        rate = 1.0 if total_edits > 0 else 0.0
    return TERScore(100 * rate, total_edits, total_ref, signature)


def ter_statistics(hyps, refs, normalized: bool = False, no_punct: bool = False, asian_support: bool = False,
                   case_sensitive: bool = False, *, refs_layout: str = "auto",
                   reference_normalization: str = "twice") -> tuple[np.ndarray, np.ndarray]:
    """Per pair ``(edits, ref_length)``: int64 fewest edits over the pair's references, float64 average
    reference length (sacreBLEU's ``TER`` segment statistics; ``reference_normalization``: see :class:`TER`)."""
    opts = Options(normalized, no_punct, asian_support, case_sensitive, reference_normalization)
    edits, ref_length, _ = statistics(hyps, refs, opts, refs_layout)
    return edits, ref_length


def corpus_ter(hypotheses, references, normalized: bool = False, no_punct: bool = False, asian_support: bool = False,
               case_sensitive: bool = False, *, refs_layout: str = "auto",
               reference_normalization: str = "twice") -> TERScore:
    """sacreBLEU's ``corpus_ter``: ``references`` is sacreBLEU's list of reference streams (or, when the shape
    says so, one reference or list of references per hypothesis; see ``refs_layout``).
    ``reference_normalization``: see :class:`TER`."""
    opts = Options(normalized, no_punct, asian_support, case_sensitive, reference_normalization)
    edits, ref_length, read = statistics(hypotheses, references, opts, refs_layout)
    return corpus_score_from_stats(edits, ref_length, opts.signature(read.nrefs_label()))


def sentence_ter(hypothesis: str, references: Sequence[str], normalized: bool = False, no_punct: bool = False,
                 asian_support: bool = False, case_sensitive: bool = False, *,
                 reference_normalization: str = "twice") -> TERScore:
    """sacreBLEU's ``sentence_ter``: one hypothesis against its list of references
    (``reference_normalization``: see :class:`TER`)."""
    return TER(normalized, no_punct, asian_support, case_sensitive,
               reference_normalization=reference_normalization).sentence_score(hypothesis, references)


class TER(SacreMetricMethods):
    """sacreBLEU's ``sacrebleu.metrics.TER`` with the same options and numbers (sacreBLEU's ``PairedTest`` can
    drive it).

    ``references`` (sacreBLEU's streams) are tokenized once and used when a
    call passes ``refs=None``.  ``refs_layout`` is the layout of every
    ``refs`` given to this object (default ``"auto"``: sacreBLEU's streams
    when the references have that shape, per example otherwise, refused when
    both fit with different meanings; cached references of equal-length
    sequences are streams).

    ``reference_normalization``: ``"twice"`` (the default) tokenizes every
    reference twice, the second pass on the first one's tokens, as sacreBLEU
    2.6 does on every route (its reference cache, then
    ``_extract_reference_info``); ``"once"`` tokenizes references once, as
    the hypotheses.  They differ only with ``normalized=True``, whose
    normalization is not idempotent: a hypothesis equal to its reference
    ``"it's,"`` scores 66.67 with ``"twice"`` (sacreBLEU's number: the
    reference's tokens are ``it 's ,``, the hypothesis's ``it's ,``) and 0.0
    with ``"once"``.

    >>> TER().corpus_score(["the cat sat"], [["the cat sat down"]]).score
    25.0
    >>> TER(normalized=True).sentence_score("it's,", ["it's,"])  # sacreBLEU 2.6's number
    TER = 66.67
    >>> TER(normalized=True, reference_normalization="once").sentence_score("it's,", ["it's,"])
    TER = 0.00
    """

    def __init__(self, normalized: bool = False, no_punct: bool = False, asian_support: bool = False,
                 case_sensitive: bool = False, references=None, *, refs_layout: str = "auto",
                 reference_normalization: str = "twice"):
        self._opts = Options(normalized, no_punct, asian_support, case_sensitive, reference_normalization)
        self.normalized = self._opts.normalized
        self.no_punct = self._opts.no_punct
        self.asian_support = self._opts.asian_support
        self.case_sensitive = self._opts.case_sensitive
        self.reference_normalization = self._opts.reference_normalization
        self.refs_layout = check_layout(refs_layout)
        self._tok = self._opts.tokenizer()
        self._ref_tok = self._opts.ref_tokenizer()
        self._nrefs = None
        self._ref_cache = None
        if references is not None:
            self._ref_cache = self._tokenize_refs(references, None)

    def _tokenize_refs(self, refs, n_pairs, layout=None):
        """``(tokens of every reference, the references read)``; ``n_pairs`` None: a stream's length, or the
        entries."""
        read = read_texts_refs(refs, n_pairs, layout or self.refs_layout)
        self._nrefs = read.nrefs_label()
        return [self._ref_tok(r) for r in read.flat], read

    def _statistics(self, hyps, refs, layout=None):
        hyps = read_hyps(hyps)
        if refs is None:
            if self._ref_cache is None:
                raise VecscoreError("no references: pass refs, or references= when creating the TER object")
            ref_tokens, read = self._ref_cache
            if read.n_pairs != len(hyps):
                raise cached_mismatch(len(hyps), read)
            self._nrefs = read.nrefs_label()
        else:
            ref_tokens, read = self._tokenize_refs(refs, len(hyps), layout)
        return pair_statistics([self._tok(h) for h in hyps], ref_tokens, read.ptr)

    def statistics(self, hyps, refs=None) -> tuple[np.ndarray, np.ndarray]:
        """Per pair ``(edits, ref_length)`` (see :func:`ter_statistics`)."""
        return self._statistics(hyps, refs)

    def corpus_score(self, hyps, refs=None, n_bootstrap: int = 1) -> TERScore:
        """sacreBLEU's ``TER.corpus_score(hyps, refs)``.

        ``n_bootstrap > 1``: also sacreBLEU's bootstrap estimate (``_mean``, ``_ci``; seed from
        ``SACREBLEU_SEED``), and the signature gains ``bs:N|seed:S`` from then on, as sacreBLEU's.
        """
        edits, ref_length = self._statistics(hyps, refs)
        result = corpus_score_from_stats(edits, ref_length, self.get_signature())
        if n_bootstrap == 1:
            return result
        from vecscore.significance.adapters import ter_adapter  # lazy: only with n_bootstrap
        from vecscore.significance.estimate import with_interval

        stats = np.column_stack([np.asarray(edits, np.float64), np.asarray(ref_length, np.float64)])
        return with_interval(self, ter_adapter(self, corpus_score_from_stats), result, stats, n_bootstrap)

    def sentence_scores(self, hyps, refs=None) -> np.ndarray:
        """``TER.sentence_score(hyps[i], refs of i).score`` of every pair, as a float64 array."""
        edits, ref_length = self._statistics(hyps, refs)
        return scores_from_stats(edits, ref_length)

    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> TERScore:
        """sacreBLEU's ``TER.sentence_score(hypothesis, references)``: one hypothesis, its list of references."""
        if not isinstance(hypothesis, str):
            raise VecscoreError(f"hypothesis must be a str, not {type(hypothesis).__name__}")
        if isinstance(references, str):
            raise VecscoreError("references must be a list of reference strings; wrap one reference in a list")
        refs = [r for r in as_rows(references, "references") if r is not None]
        if not refs:
            raise VecscoreError("references has no reference; pass at least one reference string")
        bad = next((i for i, r in enumerate(refs) if not isinstance(r, str)), None)
        if bad is not None:
            raise VecscoreError(f"references[{bad}] is {refs[bad]!r:.60}, not a str")
        edits, ref_length = self._statistics([hypothesis], [refs], "per-example")
        return corpus_score_from_stats(edits, ref_length, self._opts.signature(len(refs)))

    def _make_sacre_adapter(self):
        from vecscore.significance.adapters import ter_adapter

        return ter_adapter(self, corpus_score_from_stats)

    def _compute_score_from_stats(self, stats) -> TERScore:
        """sacreBLEU's ``_compute_score_from_stats``: the score of one row ``[edits, ref_length]``."""
        from vecscore.significance.scores import ter_rows

        row = _row(stats)
        score = ter_rows(row[None, :])[0]  # float32 for float32 sums, as sacreBLEU's (so are their means)
        return TERScore(score if isinstance(score, np.float32) else float(score),  # type: ignore[arg-type]
                        row[0].item(), row[1].item())

    def __repr__(self) -> str:
        once = ", reference_normalization='once'" if self.reference_normalization == "once" else ""
        return (f"TER(normalized={self.normalized}, no_punct={self.no_punct}, asian_support={self.asian_support}, "
                f"case_sensitive={self.case_sensitive}{once})")
