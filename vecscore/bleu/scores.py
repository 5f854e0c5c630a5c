"""BLEU's result types: :class:`BLEUScore` (one score, sacreBLEU's fields) and :class:`BLEUScores` (one per pair)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vecscore.bleu import formulas as bf
from vecscore.bleu.stats import BleuStats
from vecscore.confidence import confidence_fields
from vecscore.frames import arrow_table, pandas_frame, plain, polars_frame

__all__ = ["BLEUScore", "BLEUScores", "StatList"]


class StatList(list):
    """A plain ``list`` (sacreBLEU's type for ``counts``, ``totals`` and ``precisions``: ``==`` against a list,
    ``json.dumps``), with ``tolist()`` for code written for the NumPy arrays of vecscore 0.1."""

    def tolist(self) -> list:
        return list(self)


def _ints(values) -> StatList:
    return StatList(int(v) for v in values)


def _floats(values) -> StatList:
    return StatList(float(v) for v in values)


@dataclass(frozen=True)
class BLEUScore:
    """One BLEU score (0..100), with sacreBLEU's ``BLEUScore`` fields.

    ``counts``/``totals`` are sacreBLEU's: lists of ``int`` (of ``float``
    under ``add-k`` smoothing with a float ``k``), which under ``add-k``
    include the ``k`` added to orders >= 2 (unless nothing matched);
    ``precisions`` a list of ``float``.  Every field is a plain Python
    number, so ``json.dumps(score.to_dict())`` works.  The raw int64
    per-pair statistics are in ``stats`` (``None`` for one pair taken out
    of a :class:`BLEUScores`).
    """

    score: float
    counts: list
    totals: list
    precisions: list
    bp: float
    sys_len: int
    ref_len: int
    signature: str = ""
    stats: BleuStats | None = field(default=None, repr=False, compare=False)
    #: sacreBLEU's bootstrap estimate (``corpus_score(..., n_bootstrap=N)``): mean and 95% CI half-width
    #: of the resample scores; -1.0 when none was computed
    _mean: float = field(default=-1.0, repr=False, compare=False)
    _ci: float = field(default=-1.0, repr=False, compare=False)

    name = "BLEU"

    def __post_init__(self) -> None:  # plain Python numbers, whatever the formulas returned
        whole = all(float(v).is_integer() for v in (*self.counts, *self.totals))
        conv = _ints if whole else _floats
        for name, value in (("counts", conv(self.counts)), ("totals", conv(self.totals)),
                            ("precisions", _floats(self.precisions)), ("score", float(self.score)),
                            ("bp", float(self.bp)), ("sys_len", int(self.sys_len)), ("ref_len", int(self.ref_len))):
            object.__setattr__(self, name, value)

    def to_dict(self) -> dict:
        """sacreBLEU's fields as plain Python numbers and lists (``json.dumps`` takes it): ``name``, ``score``,
        ``counts``, ``totals``, ``precisions``, ``bp``, ``sys_len``, ``ref_len``, ``ratio``, ``signature``,
        and ``mean``/``ci`` of a bootstrap estimate when one was computed."""
        d = {"name": self.name, "score": self.score, "counts": list(self.counts), "totals": list(self.totals),
             "precisions": list(self.precisions), "bp": self.bp, "sys_len": self.sys_len, "ref_len": self.ref_len,
             "ratio": float(self.ratio), "signature": str(self.signature)}
        if self._ci >= 0:
            d.update(mean=float(self._mean), ci=float(self._ci))
        return d

    @property
    def ratio(self) -> float:
        return self.sys_len / self.ref_len if self.ref_len else 0

    def format(self, width: int = 2, score_only: bool = False, signature: bool | str = False,
               is_json: bool = False) -> str:
        """sacreBLEU's ``Score.format``: ``BLEU = 29.06 65.0/35.3/20.0/10.0 (BP = ...)``.

        ``signature=True`` prefixes this result's signature (a string is used as given).
        """
        sig = self.signature if signature is True else (signature or "")
        line = bf.format_sacrebleu(self.score, self.precisions, self.bp, self.sys_len, self.ref_len,
                                   signature=sig, width=width)
        sc = f"{self.score:.{width}f}"
        conf = confidence_fields(self._mean, self._ci, width)
        if conf:
            head, tail = line.split(" = ", 1)
            line = f"{head} = {sc} ({conf['confidence']}){tail[len(sc):]}"
        if score_only:
            return f"{sc} ({conf['confidence']})" if conf else sc
        if is_json:
            d = {"name": self.name, "score": float(sc), "signature": sig, **conf,
                 "verbose_score": line.split(" = ", 1)[1].split(") ", 1)[1] if conf else
                 line.split(" = ", 1)[1].split(" ", 1)[1]}
            for item in filter(None, sig.split("|")):
                key, value = item.split(":", 1)
                d[key] = value
            return json.dumps(d, indent=1, ensure_ascii=False)
        return line

    def __str__(self) -> str:
        return self.format()


@dataclass(frozen=True)
class BLEUScores:
    """Sentence BLEU for a batch: one entry per pair.

    ``score``, ``bp``, ``sys_len``, ``ref_len`` have shape ``(N,)``;
    ``counts``, ``totals``, ``precisions`` shape ``(N, max_ngram_order)``.
    ``scores[i]`` is pair ``i`` as a :class:`BLEUScore`.
    """

    score: np.ndarray
    counts: np.ndarray
    totals: np.ndarray
    precisions: np.ndarray
    bp: np.ndarray
    sys_len: np.ndarray
    ref_len: np.ndarray
    signature: str = ""
    stats: BleuStats | None = field(default=None, repr=False, compare=False)
    #: the row labels of the pandas ``Series`` the hypotheses came from (``None`` for other inputs)
    index: Any = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.score)

    def columns(self) -> dict[str, np.ndarray]:
        """Flat columns: ``score``, ``bp``, ``sys_len``, ``ref_len``, then ``counts_k``, ``totals_k`` and
        ``precisions_k`` for every order ``k``."""
        cols = {"score": self.score, "bp": self.bp, "sys_len": self.sys_len, "ref_len": self.ref_len}
        for name in ("counts", "totals", "precisions"):
            values = np.asarray(getattr(self, name))
            for k in range(values.shape[1] if values.ndim == 2 else 0):
                cols[f"{name}_{k + 1}"] = values[:, k]
        return cols

    def to_pandas(self, *, index: Any = None) -> Any:
        """A DataFrame of :meth:`columns`, one row per pair; its index is ``index`` if given (one label per
        pair), else the index of the pandas ``Series`` the hypotheses came from, else a ``RangeIndex``."""
        return pandas_frame(self.columns(), len(self), index=index, kept=self.index)

    def to_arrow(self) -> Any:
        """A ``pyarrow.Table`` of :meth:`columns`, one row per pair in input order (needs pyarrow)."""
        return arrow_table(self.columns())

    def to_polars(self) -> Any:
        """A ``polars.DataFrame`` of :meth:`columns`, one row per pair in input order (needs polars)."""
        return polars_frame(self.columns())

    def to_dict(self) -> dict:
        """``name``, ``signature`` and the per-pair fields as Python lists (``counts``, ``totals`` and
        ``precisions``: one list per pair), for ``json.dumps``."""
        return {"name": "BLEU", "score": plain(self.score), "counts": plain(self.counts),
                "totals": plain(self.totals), "precisions": plain(self.precisions), "bp": plain(self.bp),
                "sys_len": plain(self.sys_len), "ref_len": plain(self.ref_len), "signature": str(self.signature)}

    def __getitem__(self, i: int) -> BLEUScore:
        return BLEUScore(float(self.score[i]), self.counts[i], self.totals[i], self.precisions[i],
                         float(self.bp[i]), int(self.sys_len[i]), int(self.ref_len[i]), self.signature)
