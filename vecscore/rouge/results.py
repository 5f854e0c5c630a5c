"""Result containers, in rouge-score's vocabulary."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.frames import arrow_table, pandas_frame, plain, polars_frame

if TYPE_CHECKING:
    import pandas as pd
    import polars as pl
    import pyarrow as pa

__all__ = ["Score", "RougeResult"]


class Score(NamedTuple):
    """Precision, recall and F: float64 arrays (one per pair) or floats.

    A named tuple with rouge-score's field names, so ``p, r, f = score`` and
    ``score.fmeasure`` both work as they do with rouge-score's ``Score``.
    """

    precision: Any
    recall: Any
    fmeasure: Any

    def to_dict(self) -> dict[str, Any]:
        """``{"precision": ..., "recall": ..., "fmeasure": ...}`` as Python floats (lists for arrays)."""
        return {"precision": plain(self.precision), "recall": plain(self.recall), "fmeasure": plain(self.fmeasure)}


@dataclass(frozen=True)
class RougeResult(Mapping):
    """Per-pair ROUGE scores: ``result["rouge1"].fmeasure`` is an array.

    ``stats[metric]`` is the metric's :class:`vecscore.rouge.stats.RougeStats`
    (``hits``, ``p_den``, ``r_den`` per pair), for every metric whose
    multi-reference convention scores from one set of counts (``best``,
    ``best-recall``, ``pooled``; not ``mean`` or ``jackknife``).

    ``index`` holds the row labels of the pandas ``Series`` the hypotheses
    came from (``None`` for other inputs); :meth:`to_pandas` gives its rows
    these labels, so ``df.join(result.to_pandas())`` puts each score on the row
    it belongs to.
    """

    scores: dict
    stats: dict = field(default_factory=dict)
    signature: str = ""
    index: Any = field(default=None, repr=False, compare=False)

    def __getitem__(self, key: str) -> Score:
        return self.scores[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.scores)

    def __len__(self) -> int:
        return len(self.scores)

    @property
    def n_pairs(self) -> int:
        first = next(iter(self.scores.values()), None)
        return 0 if first is None else len(first.fmeasure)

    def mean(self) -> dict[str, Score]:
        """Corpus scores: the arithmetic mean of the per-pair P, R and F.

        Computed exactly and rounded once (:mod:`vecscore.exactsum`), so the
        value does not depend on how the pairs were chunked or sharded.
        """
        from vecscore.exactsum import exact_mean

        return {k: Score(exact_mean(s.precision), exact_mean(s.recall), exact_mean(s.fmeasure))
                for k, s in self.scores.items()}

    def micro(self, *, alpha: float | None = None, beta: float | None = None) -> dict[str, Score]:
        """Corpus scores from pooled counts: ``sum(hits) / sum(denominators)``."""
        out = {}
        for k in self.scores:
            st = self.stats.get(k)
            if st is None:
                raise VecscoreError(
                    f"micro averages need integer statistics, which the {k} scores under this multi_ref convention "
                    "do not have; use mean() or multi_ref='best'/'best-recall'/'pooled'"
                )
            out[k] = st.micro(alpha, beta)
        return out

    def to_dict(self) -> dict[str, dict[str, list[float]]]:
        """``{metric: {"precision": [...], "recall": [...], "fmeasure": [...]}}``, Python floats, one per pair
        (``json.dumps`` takes it)."""
        return {k: Score(*s).to_dict() for k, s in self.scores.items()}

    def columns(self) -> dict[str, np.ndarray]:
        """Flat columns ``rouge1_precision``, ``rouge1_recall``, ``rouge1_fmeasure``, ..."""
        cols = {}
        for k, s in self.scores.items():
            cols[f"{k}_precision"] = s.precision
            cols[f"{k}_recall"] = s.recall
            cols[f"{k}_fmeasure"] = s.fmeasure
        return cols

    def to_pandas(self, *, index: Any = None) -> pd.DataFrame:
        """A DataFrame with one row per pair and the flat :meth:`columns`.

        Its index is ``index`` if given (one label per pair), else the index of
        the pandas ``Series`` the hypotheses came from, else a ``RangeIndex``;
        so after ``df = df[df.keep]``, ``df.join(rouge(df.hyp, df.ref).to_pandas())``
        joins each score to its own row.
        """
        return pandas_frame(self.columns(), self.n_pairs, index=index, kept=self.index)

    def to_arrow(self) -> pa.Table:
        """A ``pyarrow.Table`` of the flat :meth:`columns`, one row per pair in input order (needs pyarrow)."""
        return arrow_table(self.columns())

    def to_polars(self) -> pl.DataFrame:
        """A ``polars.DataFrame`` of the flat :meth:`columns`, one row per pair in input order (needs polars)."""
        return polars_frame(self.columns())
