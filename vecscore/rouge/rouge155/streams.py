"""ROUGE-1.5.5's input: every text of a call as the script reads it, on either route.

:func:`layout` checks the user's summaries and references (a ``str`` with one
sentence per line, or a list of sentence strings); :class:`PlainRoute`
(Python and NumPy, :mod:`vecscore.rouge.rouge155.plain`) and
:class:`CompiledRoute` (numba kernels) tokenize them into :class:`Streams`
and compute the per-reference statistics that :mod:`vecscore.rouge.rouge155.api`
turns into the script's scores.  :func:`plain_size` is the call's size for
the choice of route.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from vecscore import route as _route
from vecscore.errors import EmptyTokenizationWarning, VecscoreError, warn
from vecscore.inputs import all_exact_str, as_rows, exact_text
from vecscore.kernels.skipgrams import UNI_NONE, skip_bigram_totals  # NumPy only
from vecscore.references import Refs
from vecscore.rouge.rouge155 import plain as plain155
from vecscore.route import text_chars
from vecscore.row_errors import check_unicode
from vecscore.text.perl_stemmer import stem as perl_stem
from vecscore.text.stopwords import stopword_set

__all__ = ["layout", "make_transform", "RowsLike", "Streams", "warn_empty", "PlainRoute", "CompiledRoute",
           "plain_size"]

# --------------------------------------------------------------------------------------
# input layout and tokenizing
# --------------------------------------------------------------------------------------


def _summary(x, what: str) -> str:
    """One summary (a ``str``, or a list of sentence ``str`` read once) as an exact ``str``, lines = sentences."""
    if isinstance(x, str):
        return exact_text(x)
    if isinstance(x, (list, tuple)):
        sentences = list(x)
        for j, s in enumerate(sentences):
            if not isinstance(s, str):
                raise VecscoreError(f"{what}[{j}] is {type(s).__name__}; a summary is a str or a list of sentence str")
            s = sentences[j] = exact_text(s)
            if "\n" in s:
                raise VecscoreError(f"{what}[{j}] contains a newline; in a list of sentences each item is one line")
        return "\n".join(sentences)
    raise VecscoreError(f"{what} is {type(x).__name__}; "
                        "a summary is a str (lines = sentences) or a list of sentence str")


def layout(hyps, refs) -> tuple[list[str], Refs]:
    """``(H, R)``: every hypothesis as one exact ``str`` (lines = sentences), and the references read once
    (:class:`vecscore.references.Refs`: every reference summary as one ``str``, pair after pair; iterated, the list
    of each pair's references)."""
    hyps, refs = as_rows(hyps, "hyps"), as_rows(refs, "refs")
    if len(hyps) != len(refs):
        raise VecscoreError(f"got {len(hyps)} hypotheses but {len(refs)} reference entries; "
                            "they must have the same length")
    fast = _layout_fast(hyps, refs)
    if fast is not None:
        H, flat, ptr, single = fast
    else:
        H = [_summary(h, f"hyps[{i}]") for i, h in enumerate(hyps)]
        flat, ptr, single = _references(refs, any(isinstance(h, (list, tuple)) for h in hyps))
    check_unicode(H, "hyps")
    check_unicode(Refs(flat, ptr, single=single), "refs")  # names as given: refs[i] or refs[i][j]
    return H, Refs(flat, ptr)


def _references(refs: list, sentence_lists: bool) -> tuple[list[str], np.ndarray, np.ndarray]:
    """``(flat, ptr, single)`` of the reference entries, each read once and checked (:func:`layout`)."""
    flat: list[str] = []
    ptr = np.zeros(len(refs) + 1, np.int64)
    single = np.zeros(len(refs), np.bool_)
    for i, r in enumerate(refs):
        if isinstance(r, str):
            flat.append(exact_text(r))
            single[i] = True
        elif isinstance(r, (list, tuple, np.ndarray)):  # an array: pandas' read_parquet of a list column
            r = r.tolist() if isinstance(r, np.ndarray) else list(r)
            if sentence_lists and len(r) > 1 and all(isinstance(x, str) for x in r):
                raise VecscoreError(
                    f"refs[{i}] is a list of {len(r)} strings while hypotheses are lists of sentences: it could be "
                    f"one reference's sentences or {len(r)} one-line references. Write one reference as "
                    "[[s1, s2, ...]] (or one string with a newline between its sentences), several as "
                    "[ref1, ref2, ...] with each a list of sentences or a string")
            if len(r) == 0:
                raise VecscoreError(f"refs[{i}] is an empty list; every pair needs at least one reference")
            flat.extend(_summary(x, f"refs[{i}][{j}]") for j, x in enumerate(r))
        else:
            raise VecscoreError(f"refs[{i}] is {type(r).__name__}; "
                                "expected a str (one reference) or a list of references")
        ptr[i + 1] = len(flat)
    return flat, ptr, single


def _layout_fast(hyps, refs):
    """:func:`layout`'s ``(H, flat, ptr, single)`` by C-level checks when every summary is an exact ``str``
    (``None``: check row by row).  Each list of references is read once, its items and length together."""
    if not all_exact_str(hyps):
        return None
    kinds = set(map(type, refs))
    n = len(refs)
    if kinds <= {str}:
        return hyps, refs, np.arange(n + 1, dtype=np.int64), True
    if not kinds <= {list, tuple}:
        return None
    flat: list = []
    ptr = np.zeros(n + 1, np.int64)
    ptr[1:] = np.fromiter(map(len, map(flat.__iadd__, refs)), np.int64, count=n)
    if (np.diff(ptr) == 0).any() or not all_exact_str(flat):
        return None
    return hyps, flat, ptr, False


def make_transform(stemmer: bool, stopwords):
    stop = stopword_set(stopwords)
    if not stemmer and stop is None:
        return None
    stop = stop or frozenset()

    def transform(word: str):
        if word in stop:
            return None
        return perl_stem(word) if stemmer else word

    return transform


class RowsLike(Protocol):
    """Ragged rows (:class:`vecscore.engine.batch.Ragged` on the compiled route, ``plain_text.Rows`` on the plain
    one): row ``i`` is ``ids[offsets[i]:offsets[i + 1]]``."""

    @property
    def ids(self) -> np.ndarray: ...

    @property
    def offsets(self) -> np.ndarray: ...


@dataclass
class Streams:
    """Every text of a call as the script reads it; ``ns``, ``lines``: ragged rows (``.ids``, ``.offsets``)."""

    n_pairs: int
    ref_ptr: np.ndarray
    n_vocab: int
    ns: RowsLike  # the readText stream of every text (hyps, then refs)
    lines: RowsLike | None = None  # readText_LCS lines (ids over lines.ids)
    text_lines: np.ndarray | None = None  # lines of text i: text_lines[i]:text_lines[i+1]
    budget_from_ns: bool = False  # the LCS lines differ from the stream (-b compat)

    @property
    def n_rows(self) -> int:
        return len(self.ns.offsets) - 1

    def lcs_lines(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(ids, offsets, text_lines)`` of the LCS lines, which only streams built with ``need_lcs`` have."""
        if self.lines is None or self.text_lines is None:
            raise AssertionError("these streams were built without the LCS lines (need_lcs=False)")
        return self.lines.ids, self.lines.offsets, self.text_lines

    @property
    def owner(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_pairs, dtype=np.int64), np.diff(self.ref_ptr))

    @property
    def ref_rows(self) -> np.ndarray:
        return np.arange(self.n_pairs, self.n_rows, dtype=np.int64)

    @property
    def budget(self):
        """The ROUGE-L/W clipping budgets when they are not the lines' own tokens: ``(ids, offsets)``."""
        return (self.ns.ids, self.ns.offsets) if self.budget_from_ns else None


def warn_empty(H, R: Refs, st: Streams) -> None:

    rows = H + R.flat
    lens = np.diff(st.ns.offsets)
    lost = [int(i) for i in np.flatnonzero(lens == 0) if any(ch.isalnum() for ch in rows[i])]
    if lost:
        warn(
            f"{len(lost)} text(s) with letters or digits have no ROUGE-1.5.5 token (first: text {lost[0]}, "
            f"{rows[lost[0]]!r:.40}); the script keeps only ASCII [a-z0-9] runs, so non-ASCII text scores 0. "
            "Map words to ASCII ids first (e.g. ' '.join(f'w{id}' ...)) to score it with the script's rules.",
            EmptyTokenizationWarning,
        )


# --------------------------------------------------------------------------------------
# the two routes: where the statistics come from
# --------------------------------------------------------------------------------------


class PlainRoute:
    """Statistics from :mod:`vecscore.rouge.rouge155.plain`: Python and NumPy, numba never loaded."""

    def streams(self, H, R: Refs, *, need_lcs, transform, word_limit, byte_limit, byte_limit_compat) -> Streams:
        ps = plain155.perl_streams(H + R.flat, need_lcs=need_lcs, transform=transform,
                                   word_limit=word_limit, byte_limit=byte_limit, byte_limit_compat=byte_limit_compat)
        return Streams(len(H), R.ptr, ps.n_vocab, ps.ns, ps.lines, ps.text_lines, ps.budget_from_ns)

    def ngram_hits(self, st: Streams, orders, drop_last: bool) -> np.ndarray:
        return plain155.ngram_hits(st.ns.ids, st.ns.offsets, st.n_pairs, st.ref_ptr, orders, drop_last)

    def skip_bigram_hits(self, st: Streams, gap: int) -> np.ndarray:
        return plain155.skip_bigram_hits(st.ns.ids, st.ns.offsets, st.n_pairs, st.ref_ptr, gap)

    def lcs_hits(self, st: Streams) -> np.ndarray:
        ids, off, tl = st.lcs_lines()
        return plain155.union_lcs_hits(ids, off, tl, st.n_pairs, st.ref_ptr, budget=st.budget)

    def wlcs_stats(self, st: Streams, weight: float):
        ids, off, tl = st.lcs_lines()
        return plain155.wlcs_stats(ids, off, tl, st.n_pairs, st.ref_ptr, weight, budget=st.budget)

    segment_sum_seq = staticmethod(plain155.segment_sum_seq)
    segment_argmax = staticmethod(plain155.segment_argmax)


class CompiledRoute:
    """Statistics from the numba kernels and the byte tokenizers of :mod:`vecscore.text.perl_rouge`.

    The one place where this module imports modules that load numba (``vecscore.engine.batch``,
    ``vecscore.text.perl_rouge``, the kernels of ROUGE-N/S/L/W): they are imported when a call
    takes this route, so ``import vecscore.rouge155`` and the plain route never load numba.
    """

    def __init__(self):
        from vecscore.engine.batch import Ragged, build_batch
        from vecscore.kernels.pair_ngrams import pair_ngram_hits_ids
        from vecscore.kernels.pair_skipgrams import pair_skip_bigram_hits
        from vecscore.kernels.rouge155 import segment_sum_seq
        from vecscore.kernels.segments import segment_argmax
        from vecscore.kernels.union_lcs import union_lcs_hits_pairs
        from vecscore.kernels.wlcs import wlcs_perl_pairs
        from vecscore.text.perl_rouge import perl_tokenize, perl_tokenize_sentences
        from vecscore.text.spans import TokenSpans

        self._ragged, self._build_batch, self._spans = Ragged, build_batch, TokenSpans
        self._tokenize, self._tokenize_sentences = perl_tokenize, perl_tokenize_sentences
        self._ngrams, self._skips = pair_ngram_hits_ids, pair_skip_bigram_hits
        self._lcs, self._wlcs = union_lcs_hits_pairs, wlcs_perl_pairs
        self.segment_sum_seq, self.segment_argmax = segment_sum_seq, segment_argmax

    def _concat_spans(self, a, b):
        shift = len(a.buf)
        return self._spans(
            np.concatenate([a.buf, b.buf]),
            np.concatenate([a.starts, b.starts + shift]),
            np.concatenate([a.ends, b.ends + shift]),
            np.concatenate([a.offsets, a.offsets[-1] + b.offsets[1:]]),
            a.fold,
        )

    def streams(self, H, R: Refs, *, need_lcs, transform, word_limit, byte_limit, byte_limit_compat) -> Streams:
        Ragged = self._ragged
        two = byte_limit is not None and need_lcs
        holder = {}

        def spans_fn(rows):
            if byte_limit is None:
                sp, sent = self._tokenize_sentences(rows, word_limit=word_limit)
                holder["sent"] = sent
                return sp
            ns = self._tokenize(rows, byte_limit=byte_limit)
            if not two:
                return ns
            sp, sent = self._tokenize_sentences(rows, byte_limit=byte_limit)
            holder["sent"] = sent
            return self._concat_spans(ns, sp)

        batch = self._build_batch(H, R, spans_fn=spans_fn, transform=transform, warn_empty=False)
        n_rows = len(H) + int(batch.ref_ptr[-1])
        ids, off = batch.texts.ids, batch.texts.offsets
        if byte_limit is None:
            sent = holder["sent"]
            return Streams(len(H), batch.ref_ptr, batch.n_vocab, Ragged(ids, off[sent]), Ragged(ids, off), sent)
        if not two:
            return Streams(len(H), batch.ref_ptr, batch.n_vocab, Ragged(ids, off))
        cut = off[n_rows]
        ns = Ragged(ids[:cut], off[: n_rows + 1])
        sent = holder["sent"]
        lines = Ragged(ids[cut:], off[n_rows:] - cut)
        if byte_limit_compat:
            return Streams(len(H), batch.ref_ptr, batch.n_vocab, ns, lines, sent, budget_from_ns=True)
        # the correct truncation: the stream's tokens, split at the line boundaries
        nlines = np.diff(sent)
        text = np.repeat(np.arange(n_rows, dtype=np.int64), nlines)
        within = lines.offsets[1:] - lines.offsets[sent[text]]
        ends = ns.offsets[text] + np.minimum(within, np.diff(ns.offsets)[text])
        return Streams(len(H), batch.ref_ptr, batch.n_vocab, ns,
                        Ragged(ns.ids, np.concatenate([[0], ends]).astype(np.int64)), sent)

    def ngram_hits(self, st: Streams, orders, drop_last: bool) -> np.ndarray:
        return self._ngrams(st.ns.ids, st.ns.offsets, st.n_pairs, st.ref_ptr, max(st.n_vocab, 1),
                            np.asarray(orders, np.int64), drop_last)

    def skip_bigram_hits(self, st: Streams, gap: int) -> np.ndarray:
        return self._skips(st.ns.ids, st.ns.offsets, st.n_pairs, st.ref_ptr, max(st.n_vocab, 1), gap, UNI_NONE,
                           skip_bigram_totals(np.diff(st.ns.offsets), gap, UNI_NONE))

    def lcs_hits(self, st: Streams) -> np.ndarray:
        ids, off, tl = st.lcs_lines()
        budget = st.budget
        return self._lcs(ids, off, tl, ids, off, tl, st.owner, st.ref_rows, vocab_size=max(st.n_vocab, 1),
                         hyp_budget=budget, ref_budget=budget)

    def wlcs_stats(self, st: Streams, weight: float):
        ids, off, tl = st.lcs_lines()
        budget = st.budget
        return self._wlcs(ids, off, tl, ids, off, tl, st.owner, st.ref_rows, alpha=weight,
                          vocab_size=max(st.n_vocab, 1), hyp_budget=budget, ref_budget=budget)


def plain_size(H, R: Refs, specs) -> float:
    """The call's size for :func:`vecscore.route.use_plain` (under ``auto``): its text characters, or
    infinity when ROUGE-W's or ROUGE-S's super-linear work would be long on the plain route
    (:func:`vecscore.rouge.rouge155.plain.plain_route_fits`; not estimated for calls already too large)."""
    chars = text_chars(H, R.flat)
    if chars * _route.COST["rouge155"] > _route.PLAIN_MAX_CHARS:
        return chars
    gaps = [s.gap for s in specs if s.kind == "S"]
    if not plain155.plain_route_fits(H, R, wlcs=any(s.kind == "W" for s in specs), skip_gaps=gaps):
        return float("inf")
    return chars
