"""The methods through which sacreBLEU's own code drives a metric object, on vecscore's ``BLEU``, ``CHRF``, ``TER``.

sacreBLEU's ``significance.PairedTest`` (and code written against sacreBLEU's
``Metric`` base class) calls these private-looking methods of a metric:

``_extract_corpus_statistics(hyps, refs)``
    per-pair statistics, one row per pair, in sacreBLEU's layout (``refs=None``:
    the cached references);
``_compute_score_from_stats(stats)``
    the score object of one row of (summed, possibly float32-resampled) statistics;
``_aggregate_and_compute(stats)``
    the score object of the column sums of per-pair statistics;
``_check_sentence_score_args`` / ``_check_corpus_score_args``
    sacreBLEU's argument checks (a :class:`~vecscore.errors.VecscoreError` here);
``get_signature()``
    a :class:`Signature` whose ``update(key, value)`` adds ``bs``/``ar``/``seed``.

The statistics and the row scores come from :mod:`vecscore.significance.adapters`, the same code
vecscore's own paired tests use (so a score of float32 sums has sacreBLEU's float32 rounding).
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from vecscore.errors import VecscoreError

__all__ = ["SacreMetricMethods", "Signature", "sacrebleu_keywords"]

_F = TypeVar("_F", bound=Callable[..., Any])


def sacrebleu_keywords(**names: str) -> Callable[[_F], _F]:
    """Let a function take sacreBLEU's keyword names for its data arguments as well as vecscore's:
    ``@sacrebleu_keywords(hypotheses="hyps", references="refs")`` makes ``f(hypotheses=h, references=r)`` the
    call ``f(hyps=h, refs=r)``.  Both names of one argument in one call are refused."""

    def wrap(fn: _F) -> _F:
        @functools.wraps(fn)
        def named(*args: Any, **kwargs: Any) -> Any:
            for theirs, ours in names.items():
                if theirs in kwargs:
                    if ours in kwargs:
                        raise VecscoreError(f"got both {ours}= and {theirs}= (sacreBLEU's name for it); pass one")
                    kwargs[ours] = kwargs.pop(theirs)
            return fn(*args, **kwargs)

        return named  # type: ignore[return-value]

    return wrap

#: where sacreBLEU's ``Signature.format`` puts the keys it shares across metrics (right after ``nrefs``)
_GLOBAL_ORDER = ("nrefs", "bs", "ar", "seed", "test", "lang", "origlang", "subset")
_GLOBAL_ABBR = {"nrefs": "#", "bs": "bs", "ar": "ar", "seed": "rs", "test": "t", "lang": "l", "origlang": "o",
                "subset": "S", "version": "v"}


class Signature(str):
    """A signature: the ``str`` of its long form, and sacreBLEU's ``Signature`` methods.

    ``format(short=False)`` gives the long or short form, ``update(key, value)`` sets an item (``bs``, ``ar``,
    ``seed`` ..., placed where sacreBLEU places it; a ``bool`` shows as ``yes``/``no``), ``info`` is the items
    as a dict.  ``str(sig)`` is ``sig.format()``, updates included; the ``str`` value itself (comparisons,
    slicing) stays the form it was made with.
    """

    info: dict[str, Any]
    _abbr: dict[str, str]

    def __new__(cls, long: str, short: str = ""):
        self = super().__new__(cls, long)
        keys = [item.split(":", 1)[0] for item in long.split("|") if item]
        values = [item.split(":", 1)[1] if ":" in item else "" for item in long.split("|") if item]
        abbrs = [item.split(":", 1)[0] for item in short.split("|") if item] if short else keys
        if len(abbrs) != len(keys):
            abbrs = keys
        self.info = dict(zip(keys, values))
        self._abbr = {**_GLOBAL_ABBR, **dict(zip(keys, abbrs))}
        return self

    @property
    def short(self) -> str:
        return self.format(short=True)

    def update(self, key: str, value: Any) -> None:
        """Set ``key`` to ``value`` (``None`` removes it from the formatted string), as sacreBLEU's."""
        if key in self.info or key not in _GLOBAL_ORDER:
            self.info[key] = value
            if key not in _GLOBAL_ORDER and "version" in self.info:  # new keys go before version
                self.info["version"] = self.info.pop("version")
            return
        rank = _GLOBAL_ORDER.index(key)
        items = list(self.info.items())
        at = next((i for i, (k, _) in enumerate(items) if k not in _GLOBAL_ORDER[:rank + 1]), len(items))
        items.insert(at, (key, value))
        self.info = dict(items)

    def format(self, short: bool = False) -> str:  # type: ignore[override]  # sacreBLEU's Signature.format
        out = []
        for key, value in self.info.items():
            if value is None:
                continue
            if isinstance(value, bool):
                value = "yes" if value else "no"
            out.append(f"{self._abbr.get(key, key) if short else key}:{value}")
        return "|".join(out)

    def __str__(self) -> str:
        return self.format()


def _row(stats) -> np.ndarray:
    """One row of statistics as an array, keeping the caller's dtype (float32 sums stay float32)."""
    row = np.asarray(stats)
    if row.ndim != 1:
        raise VecscoreError(f"expected one row of statistics (1-d), got shape {row.shape}; sum the per-pair rows "
                            "first (or call _aggregate_and_compute)")
    return row


class SacreMetricMethods:
    """Mixin for ``BLEU``, ``CHRF`` and ``TER``: the calls sacreBLEU's ``PairedTest`` makes on a metric."""

    def _sacre_adapter(self):
        """The metric's :class:`~vecscore.significance.adapters.MetricAdapter` (made once, by the metric's own
        ``_make_sacre_adapter``)."""
        adapter = self.__dict__.get("_sacre_adapter_made")
        if adapter is None:
            adapter = self.__dict__["_sacre_adapter_made"] = self._make_sacre_adapter()
        return adapter

    def _make_sacre_adapter(self):  # pragma: no cover - every metric defines its own
        raise NotImplementedError

    #: the type of :meth:`get_signature`'s result
    _signature_type: type = Signature

    def get_signature(self, short: bool = False) -> Signature:
        """sacreBLEU's signature (``nrefs`` is known once references were seen): a ``str`` of the long form
        (or the short one with ``short=True``), with sacreBLEU's ``Signature`` methods (``format(short)``,
        ``update(key, value)``); after ``corpus_score(n_bootstrap=N)`` it also says ``bs:N|seed:S``."""
        nrefs = getattr(self, "_nrefs", None)
        if nrefs is None:
            raise VecscoreError("number of references unknown: score something first (or cache references)")
        forms = [self._opts.signature(nrefs, short=x) for x in (False, True)]  # type: ignore[attr-defined]
        resampled = getattr(self, "_bootstrap", None)  # (n, seed) after corpus_score(n_bootstrap=n)
        if resampled is not None:
            from vecscore.significance.estimate import resampling_signature

            forms = [resampling_signature(x, bs=resampled[0], seed=resampled[1]) for x in forms]
        return self._signature_type(forms[1], forms[1]) if short else self._signature_type(*forms)

    def _extract_corpus_statistics(self, hypotheses: Sequence[str], references: Any) -> np.ndarray:
        """Per-pair statistics, ``(N, S)``, in sacreBLEU's layout (``references=None``: the cached ones)."""
        self._check_corpus_score_args(hypotheses, references)
        return self._sacre_adapter().stats(hypotheses, references)

    def _aggregate_and_compute(self, stats) -> Any:
        """The score of the column sums of per-pair statistics ``stats``."""
        return self._compute_score_from_stats(np.sum(np.asarray(stats), axis=0))

    def _compute_score_from_stats(self, stats) -> Any:  # pragma: no cover - every metric defines its own
        raise NotImplementedError

    def _check_sentence_score_args(self, hyp: str, refs: Sequence[str]) -> None:
        """sacreBLEU's checks of ``sentence_score(hyp, refs)``, as a :class:`VecscoreError`."""
        name = type(self).__name__
        if not isinstance(hyp, str):
            raise VecscoreError(f"{name}.sentence_score: the hypothesis must be a str, got {type(hyp).__name__}")
        if isinstance(refs, str) or not isinstance(refs, Sequence):
            raise VecscoreError(f"{name}.sentence_score: refs must be a list of reference strings (got "
                                f"{type(refs).__name__}); wrap a single reference: [ref]")
        if len(refs) == 0 or (refs[0] is not None and not isinstance(refs[0], str)):
            raise VecscoreError(f"{name}.sentence_score: refs must be a non-empty list of str")

    def _check_corpus_score_args(self, hyps: Sequence[str], refs: Any) -> None:
        """sacreBLEU's checks of ``corpus_score(hyps, refs)``, as a :class:`VecscoreError`."""
        name = type(self).__name__
        if isinstance(hyps, str) or not hasattr(hyps, "__len__"):
            raise VecscoreError(f"{name}.corpus_score: hyps must be a sequence of str (one per segment), got "
                                f"{type(hyps).__name__}; wrap a single hypothesis: [hyp]")
        if refs is not None and (isinstance(refs, str) or not hasattr(refs, "__iter__")):
            raise VecscoreError(f"{name}.corpus_score: refs must be a sequence of reference streams (refs[k][i])")
