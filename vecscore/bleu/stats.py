"""BLEU's integer sufficient statistics per pair: the :class:`BleuStats` type.

For every (hypothesis, references) pair and n-gram orders ``1..K``:

``sys_len``
    hypothesis length in tokens;
``ref_len``
    the reference length that the brevity penalty uses: the *closest* to
    ``sys_len`` (ties go to the shorter reference, as sacreBLEU and NLTK) or
    the *shortest* (HuggingFace ``bleu``);
``correct[:, n-1]``
    hypothesis n-gram counts clipped by the n-gram's maximum count over the
    pair's references, summed;
``total[:, n-1]``
    hypothesis n-grams, ``max(0, sys_len - n + 1)``.

All int64.  Corpus BLEU is a function of their column sums only, so
streaming, bootstrap resampling and distributed runs concatenate, index or
sum :class:`BleuStats` and never look at the text again.  Both routes fill
it: the compiled kernels (:mod:`vecscore.bleu.compiled`) and the small-batch
route (the ``plain`` module of each metric).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from vecscore.errors import VecscoreError

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["BREVITY_PENALTIES", "BleuStats", "check_brevity_penalty"]

BREVITY_PENALTIES = ("closest", "shortest")


def check_brevity_penalty(name: str) -> str:
    if name not in BREVITY_PENALTIES:
        raise VecscoreError(
            f"brevity_penalty must be one of {BREVITY_PENALTIES} (closest: sacreBLEU/NLTK, ties to the shorter "
            f"reference; shortest: Hugging Face evaluate's bleu), not {name!r}"
        )
    return name


@dataclass(frozen=True)
class BleuStats:
    """Per-pair BLEU statistics (int64); pairs on axis 0.

    Attributes
    ----------
    sys_len, ref_len : ndarray of int64, shape (N,)
    correct, total : ndarray of int64, shape (N, K)
        Clipped matches and hypothesis n-grams of orders ``1..K``.
    nrefs : ndarray of int64, shape (N,)
        References per pair (for the signature's ``nrefs``).

    Examples
    --------
    >>> s = BleuStats.from_arrays([6], [6], [[6, 4]], [[6, 5]])
    >>> s.sum().correct.tolist(), s.max_order
    ([[6, 4]], 2)
    """

    sys_len: np.ndarray
    ref_len: np.ndarray
    correct: np.ndarray
    total: np.ndarray
    nrefs: np.ndarray

    def to_dict(self) -> dict:
        """Every field as nested lists of Python ints (``json.dumps`` takes it; :meth:`from_arrays` reads it back)."""
        return {f: getattr(self, f).tolist() for f in ("sys_len", "ref_len", "correct", "total", "nrefs")}

    @classmethod
    def from_arrays(cls, sys_len: npt.ArrayLike, ref_len: npt.ArrayLike, correct: npt.ArrayLike,
                    total: npt.ArrayLike, nrefs: npt.ArrayLike | None = None) -> BleuStats:
        """Validate and wrap arrays (``correct``/``total`` of shape ``(N, K)``)."""
        sys_len = np.asarray(sys_len, dtype=np.int64).reshape(-1)
        ref_len = np.asarray(ref_len, dtype=np.int64).reshape(-1)
        correct = np.asarray(correct, dtype=np.int64)
        total = np.asarray(total, dtype=np.int64)
        n = len(sys_len)
        nrefs = np.ones(n, np.int64) if nrefs is None else np.asarray(nrefs, dtype=np.int64).reshape(-1)
        if correct.ndim != 2 or correct.shape != total.shape or correct.shape[0] != n or len(ref_len) != n:
            raise VecscoreError(
                f"statistics disagree in shape: sys_len {sys_len.shape}, ref_len {ref_len.shape}, correct "
                f"{correct.shape}, total {total.shape}; expected (N,), (N,), (N, K), (N, K)"
            )
        if len(nrefs) != n:
            raise VecscoreError(f"nrefs has shape {nrefs.shape}, expected ({n},)")
        return cls(sys_len, ref_len, correct, total, nrefs)

    @classmethod
    def from_sacrebleu(cls, stats: npt.ArrayLike, max_order: int = 4) -> BleuStats:
        """From sacreBLEU's per-segment lists ``[hyp_len, ref_len, correct..., total...]``."""
        a = np.asarray(stats, dtype=np.int64).reshape(-1, 2 + 2 * max_order)
        return cls.from_arrays(a[:, 0], a[:, 1], a[:, 2 : 2 + max_order], a[:, 2 + max_order :])

    @classmethod
    def concat(cls, parts: Sequence[BleuStats]) -> BleuStats:
        """Stack the pairs of several batches (e.g. chunks of a stream)."""
        parts = list(parts)
        if not parts:
            raise VecscoreError("concat needs at least one BleuStats")
        orders = {p.max_order for p in parts}
        if len(orders) != 1:
            raise VecscoreError(f"cannot concatenate statistics of different max orders {sorted(orders)}")
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in _FIELDS))

    def __len__(self) -> int:
        return len(self.sys_len)

    @property
    def n_pairs(self) -> int:
        return len(self.sys_len)

    @property
    def max_order(self) -> int:
        return self.correct.shape[1]

    def take(self, index: npt.ArrayLike | slice) -> BleuStats:
        """The pairs ``index`` (an index array, boolean mask or slice), e.g. a bootstrap sample."""
        return BleuStats(*(getattr(self, f)[index] for f in _FIELDS))

    def sum(self) -> BleuStats:
        """One row: the corpus totals (what corpus BLEU is computed from)."""
        return BleuStats(*(getattr(self, f).sum(axis=0, keepdims=True) for f in _FIELDS))

    def truncate(self, max_order: int) -> BleuStats:
        """The statistics of orders ``1..max_order`` only."""
        if not 1 <= max_order <= self.max_order:
            raise VecscoreError(f"max_order must be in 1..{self.max_order}, got {max_order}")
        return BleuStats(self.sys_len, self.ref_len, self.correct[:, :max_order], self.total[:, :max_order], self.nrefs)

    def to_sacrebleu(self) -> np.ndarray:
        """sacreBLEU's layout: one row ``[hyp_len, ref_len, correct..., total...]`` per pair."""
        return np.column_stack([self.sys_len, self.ref_len, self.correct, self.total])

    def nrefs_label(self) -> int | str:
        """``nrefs`` as the signature prints it: an int, or ``"var"``."""
        if len(self.nrefs) == 0:
            return 0
        first = int(self.nrefs[0])
        return first if bool(np.all(self.nrefs == first)) else "var"


_FIELDS = ("sys_len", "ref_len", "correct", "total", "nrefs")
