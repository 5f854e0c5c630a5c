"""One set of references shared by every hypothesis: :class:`SharedReferences`.

Self-BLEU (every generated text against the others), decontamination filters
(every training text against a benchmark's references) and fast-bleu's
``BLEU(references).get_score(hypotheses)`` score many hypotheses against the
*same* references.  ``SharedReferences(references)`` tokenizes and counts
those references once; each method then scores any number of hypotheses
against all of them, with the numbers of the usual call given the references
repeated for every hypothesis:

==========================================  ================================================================
vecscore                                    the same numbers as
==========================================  ================================================================
``sr.sentence_bleu(hyps)``                  ``sacrebleu.sentence_bleu(h, references)`` for every ``h``
``sr.sentence_bleu(hyps,                    ``BLEU().sentence_score(h, references)``
effective_order=False)``
``sr.corpus_bleu(hyps)``                    ``sacrebleu.corpus_bleu(hyps, [[r] * len(hyps) for r in references])``
``sr.nltk_sentence_bleu(hyps)``             ``nltk...sentence_bleu(references, h)`` for every ``h``
``sr.nltk_sentence_bleu(hyps,               ``fast_bleu.BLEU(references).get_score(hyps)[4]``
smoothing="method1")``
``sr.nltk_corpus_bleu(hyps)``               ``nltk...corpus_bleu([references] * len(hyps), hyps)``
``sr.rouge(hyps)``                          rouge-score's ``score_multi(references, h)`` for every ``h``
==========================================  ================================================================

(For NLTK and fast-bleu, ``references`` and ``hyps`` are token lists.)
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from itertools import chain
from typing import Any

import numpy as np

from vecscore.bleu import formulas as bf
from vecscore.bleu.options import TOKENIZERS, Options, warn_cjk, warn_tokenized
from vecscore.bleu.scores import BLEUScore, BLEUScores
from vecscore.bleu.scoring import corpus_result, sentence_result  # with the compiled formulas: numba is loaded
from vecscore.bleu.stats import BleuStats
from vecscore.errors import VecscoreError
from vecscore.frames import row_index
from vecscore.inputs import all_exact_str, as_rows, check_token_rows, exact_units, input_kind
from vecscore.references import Refs
from vecscore.rouge.results import RougeResult

__all__ = ["SharedReferences"]

_KIND_NAME = {"text": "strings", "tokens": "token lists (lists of str)", "ids": "token-id arrays"}
_NLTK_WEIGHTS = (0.25, 0.25, 0.25, 0.25)


def _refs_kind(refs: list) -> str:
    if isinstance(refs[0], (list, tuple)) and refs[0] and isinstance(refs[0][0], (list, tuple)):
        raise VecscoreError(
            "references[0] is a list of token lists: a shared set is ONE list of references (each a str, a list "
            "of str tokens or an integer array), not one list per hypothesis. For per-hypothesis references use "
            "sentence_bleu / nltk_sentence_bleu instead"
        )
    return input_kind(refs, "references")


def _exact_rows(rows: list, kind: str, what: str) -> list:
    """``rows`` (a list this object owns) with every text an exact ``str`` (a subclass by its characters,
    :func:`vecscore.inputs.exact_units`); a row or token that is not one is named."""
    noun = "reference" if what == "references" else "hypothesis"
    if kind == "text":
        if all_exact_str(rows):
            return rows
        bad = next((i for i, r in enumerate(rows) if not isinstance(r, str)), None)
        if bad is not None:
            raise VecscoreError(f"{what}[{bad}] is {type(rows[bad]).__name__}, not str; every {noun} must be a "
                                "str (replace missing values, e.g. with an empty string)")
    elif kind == "tokens":
        if set(map(type, rows)) <= {list, tuple} and all_exact_str(chain.from_iterable(rows)):
            return rows
        check_token_rows(rows, what)
    return exact_units(rows, kind, what)


class SharedReferences:
    """One set of references, tokenized and counted once, scored against any number of hypotheses.

    Parameters
    ----------
    references : sequence
        The shared references: strings, token lists (lists of ``str``) or
        integer token-id arrays.  Every hypothesis is scored against all of
        them.  Hypotheses must be of the same kind.
    tokenize : str, optional
        For strings: a sacreBLEU tokenizer (``13a``, the default, ``intl``,
        ``zh``, ``zh-fixed``, ``char`` or ``none`` = ``str.split()``), used
        for the references and every hypothesis, in the BLEU and NLTK
        methods alike.  Token lists and ids are used as they are
        (``tokenize`` must be None or ``"none"``).
    lowercase : bool
        Lowercase strings before tokenizing (sacreBLEU's ``lowercase``).

    Examples
    --------
    >>> sr = SharedReferences(["the cat is on the mat", "there is a cat on the mat"])
    >>> sr.sentence_bleu(["the cat is on the mat", "a dog"]).score.round(4).tolist()
    [100.0, 6.7668]
    >>> hyp = "the cat sat on the mat".split()
    >>> refs = SharedReferences([r.split() for r in ["the cat is on the mat", "the bird sat on the bush"]])
    >>> round(float(refs.nltk_sentence_bleu([hyp], weights=(0.5, 0.5))[0]) ** 2, 12)
    0.8
    """

    def __init__(self, references: Iterable[Any], *, tokenize: str | None = None, lowercase: bool = False):
        refs = as_rows(references, "references")  # read once: every later step takes these rows
        if not refs:
            raise VecscoreError("references is empty: a shared set needs at least one reference "
                                "(pass a list such as ['first reference', 'second reference'])")
        self.kind = _refs_kind(refs)
        refs = _exact_rows(refs, self.kind, "references")  # exact str (a subclass by its characters), checked
        if self.kind == "text":
            tokenize = "13a" if tokenize is None else tokenize
            if tokenize not in TOKENIZERS:
                raise VecscoreError(f"unknown tokenize {tokenize!r}; valid: {', '.join(TOKENIZERS)}")
        else:
            if tokenize not in (None, "none") or lowercase:
                raise VecscoreError(f"the references are {_KIND_NAME[self.kind]}: pass tokenize=None (or 'none') "
                                    "and lowercase=False; tokenize or lowercase the tokens yourself")
            tokenize = "none"
        self.tokenize = tokenize
        self.lowercase = bool(lowercase)
        self.n_refs = len(refs)
        self._references = refs
        self._bleu = None
        self._ref_chars: int | None = None

    def __len__(self) -> int:
        return self.n_refs

    @property
    def rows(self) -> list:
        """The references as read and checked (exact ``str``, token lists or id lists, per :attr:`kind`)."""
        return self._references

    def __repr__(self) -> str:
        return (f"SharedReferences({self.n_refs} references, {_KIND_NAME[self.kind]}, tokenize={self.tokenize!r}, "
                f"lowercase={self.lowercase})")

    # --- inputs -------------------------------------------------------------------------------

    def _bleu_stats(self, rows: list, max_order: int, brevity_penalty: str):
        """``(stats, formulas)``: a small job on text takes the plain route (the references repeated per
        hypothesis, as any small :func:`vecscore.bleu_statistics` call; no numba to load), others the shared
        table (which also checks token lists and ids, naming the bad token)."""
        from vecscore.bleu import plain as plain_bleu
        from vecscore.bleu import plain_formulas
        from vecscore.route import PLAIN_MAX_CHARS

        if self._ref_chars is None:
            self._ref_chars = plain_bleu.text_size(self.kind, (), self._references)
        if self.kind == "text" and rows and len(rows) * self._ref_chars <= PLAIN_MAX_CHARS:
            k = len(self._references)
            refs = Refs(self._references * len(rows), np.arange(0, k * len(rows) + 1, k, dtype=np.int64),
                        what="references", kind=self.kind)
            plain = plain_bleu.plain_inputs(rows, refs, kind=self.kind, tokenize=self.tokenize)
            if plain is not None:
                stats = plain_bleu.bleu_stats(*plain, kind=self.kind, tokenize=self.tokenize, lowercase=self.lowercase,
                                              max_order=max_order, brevity_penalty=brevity_penalty)
                return stats, plain_formulas
        return self.bleu_table().statistics(rows, max_order, brevity_penalty), bf

    def bleu_table(self):
        if self._bleu is None:
            from vecscore.bleu.shared import SharedBleuTable

            self._bleu = SharedBleuTable.from_rows(self._references, self.kind, self.tokenize, self.lowercase)
        return self._bleu

    def _hyps(self, hyps) -> list:
        rows = as_rows(hyps, "hyps")
        if not rows:
            return rows
        if isinstance(rows[0], (list, tuple)) and rows[0] and isinstance(rows[0][0], (list, tuple)):
            raise VecscoreError("hyps[0] is a list of token lists: pass the hypotheses (each a list of str tokens); "
                                "the references were given when the SharedReferences was built")
        kind = input_kind(rows)
        if kind != self.kind:
            raise VecscoreError(f"the hypotheses are {_KIND_NAME[kind]} but the shared references are "
                                f"{_KIND_NAME[self.kind]}; give both as the same kind")
        return _exact_rows(rows, kind, "hyps")  # exact str (a subclass by its characters), checked

    # --- BLEU -----------------------------------------------------------------------------------

    def bleu_statistics(self, hyps: Iterable[Any], *, max_ngram_order: int = 4,
                        brevity_penalty: str = "closest") -> BleuStats:
        """Per-hypothesis int64 BLEU statistics against the shared references (``nrefs`` = their number).

        Equal to :func:`vecscore.bleu_statistics` with the references repeated for every hypothesis.
        """
        opts = Options(self.tokenize, self.lowercase, max_ngram_order=max_ngram_order,
                       brevity_penalty=brevity_penalty)
        return self._bleu_stats(self._hyps(hyps), opts.max_ngram_order, opts.brevity_penalty)[0]

    def _sacre_options(self, **kw) -> dict:
        return dict(tokenize=self.tokenize, lowercase=self.lowercase, **kw)

    def sentence_bleu(self, hyps: str | Iterable[Any], *, smooth_method: str = "exp",
                      smooth_value: float | None = None, max_ngram_order: int = 4, effective_order: bool = True,
                      brevity_penalty: str = "closest") -> BLEUScores | BLEUScore:
        """sacreBLEU's sentence BLEU (0..100) of every hypothesis against all the shared references.

        ``hyps[i]``'s score equals ``sacrebleu.sentence_bleu(hyps[i], references)`` (exp smoothing,
        effective order on); ``effective_order=False`` gives ``BLEU().sentence_score``'s.  One ``str``
        returns one :class:`~vecscore.BLEUScore`.
        """
        one = isinstance(hyps, str)
        o = Options(**self._sacre_options(smooth_method=smooth_method, smooth_value=smooth_value,
                                          max_ngram_order=max_ngram_order, effective_order=effective_order,
                                          brevity_penalty=brevity_penalty))
        stats, formulas = self._bleu_stats(self._hyps([hyps] if one else hyps), o.max_ngram_order, o.brevity_penalty)
        scores = sentence_result(stats, o, formulas)
        return scores[0] if one else replace(scores, index=row_index(hyps))

    def corpus_bleu(self, hyps: Iterable[Any], *, smooth_method: str = "exp", smooth_value: float | None = None,
                    max_ngram_order: int = 4, effective_order: bool = False, brevity_penalty: str = "closest",
                    force: bool = False) -> BLEUScore:
        """sacreBLEU's corpus BLEU of the hypotheses, each pair's references being all the shared ones."""
        o = Options(**self._sacre_options(smooth_method=smooth_method, smooth_value=smooth_value,
                                          max_ngram_order=max_ngram_order, effective_order=effective_order,
                                          brevity_penalty=brevity_penalty, force=force))
        rows = self._hyps(hyps)
        stats, formulas = self._bleu_stats(rows, o.max_ngram_order, o.brevity_penalty)
        warn_tokenized(rows, self.kind, o)
        warn_cjk(rows, self.kind, o)
        return corpus_result(stats, o, formulas)

    def _nltk_stats(self, hyps, weights, smoothing, epsilon, alpha, k, brevity_penalty):
        from vecscore.bleu.nltk import nltk_max_order, nltk_smoothing

        method, epsilon, alpha, k = nltk_smoothing(smoothing, epsilon, alpha, k)
        order = nltk_max_order(weights, method)
        stats, formulas = self._bleu_stats(self._hyps(hyps), order, brevity_penalty)
        return stats, formulas, dict(weights=weights, smoothing=method, epsilon=epsilon, alpha=alpha, k=k)

    def nltk_sentence_bleu(self, hyps: Iterable[Any], *,
                           weights: Sequence[float] | Sequence[Sequence[float]] = _NLTK_WEIGHTS,
                           smoothing: str | Callable[..., Any] | None = None, epsilon: float = 0.1,
                           alpha: float = 5, k: float = 5, auto_reweigh: bool = False,
                           brevity_penalty: str = "closest", on_error: str = "raise") -> np.ndarray:
        """NLTK's ``sentence_bleu(references, h, ...)`` (0..1) of every hypothesis ``h``.

        Options as :func:`vecscore.nltk_sentence_bleu`.  fast-bleu's ``BLEU(references, weights)
        .get_score(hyps)`` is this with ``smoothing="method1"`` (fast-bleu's default) and one weight tuple.

        Returns
        -------
        ndarray
            Shape ``(N,)`` for one weight tuple, ``(n_weights, N)`` for a list.
        """
        s, formulas, kw = self._nltk_stats(hyps, weights, smoothing, epsilon, alpha, k, brevity_penalty)
        return formulas.nltk_sentence(s.sys_len, s.ref_len, s.correct.T, s.total.T, auto_reweigh=auto_reweigh,
                                on_error=on_error, **kw)

    def nltk_corpus_bleu(self, hyps: Iterable[Any], *,
                         weights: Sequence[float] | Sequence[Sequence[float]] = _NLTK_WEIGHTS,
                         smoothing: str | Callable[..., Any] | None = None, epsilon: float = 0.1,
                         alpha: float = 5, k: float = 5, auto_reweigh: bool = False,
                         brevity_penalty: str = "closest", on_error: str = "raise") -> float | np.ndarray:
        """NLTK's ``corpus_bleu([references] * N, hyps, ...)`` (0..1); options as :meth:`nltk_sentence_bleu`."""
        s, formulas, kw = self._nltk_stats(hyps, weights, smoothing, epsilon, alpha, k, brevity_penalty)
        return formulas.nltk_corpus(s.sys_len, s.ref_len, s.correct.T, s.total.T, auto_reweigh=auto_reweigh,
                              on_error=on_error, **kw)

    # --- ROUGE ----------------------------------------------------------------------------------

    def rouge(self, hyps: Iterable[Any], *, metrics: Sequence[str] = ("rouge1", "rouge2", "rougeL"),
              tokenizer: str | Callable[[str], list[str]] = "rouge-score", lowercase: bool | None = None,
              stemmer: bool | str | Callable[[str], str] = False, stopwords: bool | Iterable[str] | None = None,
              multi_ref: str = "best", alpha: float | None = None, beta: float | None = None,
              sentence_splitter: str = "newline", wlcs: str = "rouge155") -> RougeResult:
        """ROUGE of every hypothesis against all the shared references, reduced by ``multi_ref``.

        Options are :func:`vecscore.rouge`'s (``tokenizer``: ROUGE's tokenizers, not the BLEU ``tokenize``
        this object was built with; ``lowercase=None``: this object's).  The default ``multi_ref="best"``
        equals rouge-score's ``RougeScorer(metrics, use_stemmer=stemmer).score_multi(references, h)`` for
        every hypothesis ``h``: per metric, the reference with the highest F (the first on ties).
        """
        from vecscore.rouge.shared import shared_rouge

        index = row_index(hyps)  # the caller's row labels (a pandas Series' index), for to_pandas()
        rows = self._hyps(hyps)
        result = shared_rouge(rows, self._references, self.kind, metrics=metrics, tokenizer=tokenizer,
                              lowercase=self.lowercase if lowercase is None else lowercase, stemmer=stemmer,
                              stopwords=stopwords, multi_ref=multi_ref, alpha=alpha, beta=beta,
                              sentence_splitter=sentence_splitter, wlcs=wlcs)
        return replace(result, index=index)
