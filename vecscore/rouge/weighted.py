"""Word-length-weighted ROUGE: a matched word counts its number of characters.

Word-level ROUGE gives a one-word match the same credit whatever the word;
after Chinese word segmentation that undervalues long words: matching
武汉长江大桥 as one word earns 1, as six characters it earns 6.  Here every
token ``t`` weighs ``w(t) = len(t)`` (Unicode code points, after stemming and
stopword removal).

Formulas (hypothesis ``h``, reference ``r``)
--------------------------------------------
ROUGE-N: an n-gram ``g`` weighs the characters of its words,
``W(g) = sum_{t in g} w(t)``; with ``c_h(g)``, ``c_r(g)`` the n-gram counts::

    hits = sum_g W(g) min(c_h(g), c_r(g))
    P = hits / sum_g W(g) c_h(g)          R = hits / sum_g W(g) c_r(g)

ROUGE-L: ``WLCS_c(h, r)`` = the maximum, over common subsequences, of the
total characters of the matched words (a weighted LCS DP,
:func:`vecscore.kernels.weighted_lcs.weighted_lcs_pairs`)::

    P = WLCS_c / sum_{t in h} w(t)        R = WLCS_c / sum_{t in r} w(t)

F is ``2PR / (P + R)`` (or ``alpha``/``beta`` weighted, as in
:func:`vecscore.rouge`).  With every word one character long these are plain
ROUGE-N and ROUGE-L.  All statistics are integers (characters), so the
multi-reference conventions and corpus pooling of :mod:`vecscore.rouge.multiref`
apply unchanged.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from vecscore.engine.batch import build_batch
from vecscore.engine.counts import ngram_keys
from vecscore.errors import VecscoreError
from vecscore.frames import row_index
from vecscore.kernels.weighted_lcs import weighted_lcs_pairs, weighted_overlap_pairs
from vecscore.parallel import accepts_workers
from vecscore.references import read_pairs
from vecscore.rouge.multiref import combine
from vecscore.rouge.options import check_multi_ref, check_weighting, make_transform
from vecscore.rouge.results import RougeResult
from vecscore.row_errors import check_unicode, rows_named
from vecscore.text.tokenizers import resolve_tokenizer

__all__ = ["rouge_weighted"]


def _parse(name):
    if isinstance(name, str):
        if name == "rougeL":
            return 0
        if name.startswith("rouge") and name[5:].isdigit() and int(name[5:]) >= 1:
            return int(name[5:])
    raise VecscoreError(f"unknown weighted ROUGE metric {name!r}; valid: rouge1, rouge2, ... (any rougeN), rougeL")


@accepts_workers
def rouge_weighted(
    hyps: Sequence,
    refs: Sequence,
    *,
    metrics: Sequence[str] = ("rouge1", "rouge2", "rougeL"),
    tokenizer: str | Callable[[str], list[str]] = "rouge-score",
    lowercase: bool = False,
    stemmer: bool | str | Callable[[str], str] = False,
    stopwords: bool | Iterable[str] | None = None,
    multi_ref: str = "best",
    alpha: float | None = None,
    beta: float | None = None,
) -> RougeResult:
    """Word-length-weighted ROUGE-N and ROUGE-L (module docstring for the formulas).

    Parameters are those of :func:`vecscore.rouge` (``tokenizer="jieba"`` for
    Chinese words; pre-tokenized lists of ``str`` work too).  Token id input
    is refused: weights need the words' characters.

    Returns
    -------
    RougeResult
        Per pair P, R, F; ``stats`` hold the character-weighted ``hits``,
        ``p_den`` and ``r_den``.

    Examples
    --------
    >>> r = rouge_weighted([["武汉", "市", "长江大桥"]], [["武汉", "长江大桥"]], metrics=["rouge1", "rougeL"])
    >>> r.stats["rouge1"].hits.tolist(), r.stats["rouge1"].p_den.tolist(), r.stats["rouge1"].r_den.tolist()
    ([6], [7], [6])
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    if len(metrics) == 0:
        raise VecscoreError("metrics is empty; name at least one, e.g. ['rouge1', 'rougeL']")
    orders = [_parse(m) for m in metrics]
    check_multi_ref(multi_ref)
    check_weighting(alpha, beta)
    resolve_tokenizer(tokenizer)
    inner = make_transform(tokenizer, stemmer, stopwords)
    vocab: dict[str, int] = {}

    def transform(word: str):
        out = word if inner is None else inner(word)
        if out is not None and out not in vocab:
            vocab[out] = len(out)
        return out

    index = row_index(hyps)  # the caller's row labels (a pandas Series' index), for to_pandas()
    hyps, kind, refs = read_pairs(hyps, refs)  # read once: exact str rows, references with ref_ptr
    if kind == "ids":
        raise VecscoreError("word-length-weighted ROUGE needs text or string tokens, not token ids")
    check_unicode(hyps, "hyps")
    check_unicode(refs, "refs")
    with rows_named(hyps, refs):
        batch = build_batch(hyps, refs, tokenizer=tokenizer, lowercase=lowercase, transform=transform, kind=kind)
    # build_batch numbers the transformed vocabulary in order of first output, as this dict does
    w = np.fromiter(vocab.values(), dtype=np.int64, count=len(vocab))
    if len(w) < batch.n_vocab:
        raise VecscoreError("internal error: vocabulary weights are incomplete")
    ids, off = batch.texts.ids, batch.texts.offsets
    tok_w = w[ids] if ids.size else np.zeros(0, np.int64)
    cw = np.zeros(len(ids) + 1, np.int64)
    np.cumsum(tok_w, out=cw[1:])
    text_w = cw[off[1:]] - cw[off[:-1]]
    hyp_rows, ref_rows, owner = batch.hyp_rows, batch.ref_rows, batch.owner
    scores, stats = {}, {}
    for name, n in zip(metrics, orders):
        if n == 0:
            hits = weighted_lcs_pairs(ids, off, w, owner, ref_rows) if len(owner) else np.zeros(0, np.int64)
            hyp_tot, ref_tot = text_w[hyp_rows], text_w[ref_rows]
        else:
            keys, koff = ngram_keys(batch.texts, n, max(batch.n_vocab, 1))
            # weight of the n-gram starting at token q of row i: cw[q + n] - cw[q]
            starts = np.repeat(off[:-1], np.diff(koff)) + (np.arange(len(keys)) - np.repeat(koff[:-1], np.diff(koff)))
            kw = cw[starts + n] - cw[starts]
            ck = np.zeros(len(kw) + 1, np.int64)
            np.cumsum(kw, out=ck[1:])
            row_tot = ck[koff[1:]] - ck[koff[:-1]]
            hits = weighted_overlap_pairs(keys, kw, koff, owner, ref_rows) if len(owner) else np.zeros(0, np.int64)
            hyp_tot, ref_tot = row_tot[hyp_rows], row_tot[ref_rows]
        scores[name], st = combine(hits, hyp_tot, ref_tot, batch.ref_ptr, multi_ref, alpha, beta)
        if st is not None:
            stats[name] = st
    tok = tokenizer if isinstance(tokenizer, str) else "custom"
    sig = f"{'+'.join(metrics)}|weight:chars|tok:{tok}|stem:{'yes' if stemmer else 'no'}|multi:{multi_ref}"
    return RougeResult(scores, stats, sig, index)
