"""ROUGE's small-batch route (rouge-score semantics): statistics in Python, no compilation.

The same per-(pair, reference) integer statistics as the compiled route
(:mod:`vecscore.rouge.compiled`), from the same token sequences:

``rougeN``
    clipped n-gram hits (``Counter`` intersections), hypothesis and reference
    n-gram counts;
``rougeL``
    LCS length of the whole token sequences (bit-parallel, on Python integers);
``rougeLsum``
    rouge-score's summary-level union LCS: per reference sentence, the union
    of its LCS positions (rouge-score's table and backtracking order) with
    every hypothesis sentence, hits clipped by both texts' token counts.

ROUGE-W and the ``char``/``cjk`` tokenizers are left to the compiled route.
"""
from __future__ import annotations

import re
from collections import Counter

import numpy as np

from vecscore.errors import RowError, VecscoreError
from vecscore.rouge.splitting import split_texts
from vecscore.route import COST, text_chars, use_plain
from vecscore.row_errors import check_unicode, warn_empty_rows
from vecscore.text.tokenizers import plain_tokenizer

__all__ = ["plain_supports", "plain_stats", "lcs_length", "union_lcs_hits"]

_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def plain_supports(parsed, tokenizer) -> bool:
    """Whether this route implements the metrics and the tokenizer."""
    return all(kind != "W" for kind, _ in parsed) and plain_tokenizer(tokenizer) is not None


def _text_tokens(rows, tokenizer, lowercase, sentences):
    """Per text, its sentences (lists of tokens); one sentence per text unless ``sentences``."""
    split = plain_tokenizer(tokenizer)
    if lowercase and tokenizer != "rouge-score":
        rows = [t.lower() for t in rows]
    if sentences:
        return [[split(line) for line in t.split("\n")] for t in rows]
    return [[split(t)] for t in rows]


def _check_tokens(texts, tokenizer) -> None:
    if isinstance(tokenizer, str):
        return
    for i, sents in enumerate(texts):
        for toks in sents:
            bad = next((t for t in toks if not isinstance(t, str)), None)
            if bad is not None:
                raise RowError(i, f"the tokenizer returned a non-string token {bad!r} for {{row}}; it must return "
                                  "list[str]")


def _id_rows(rows):
    out = []
    for row, r in enumerate(rows):
        a = np.asarray(r, dtype=np.int64).reshape(-1)
        if a.size and a.min() < 0:
            raise RowError(row, "{row} has a negative token id; token ids must be >= 0")
        out.append([a.tolist()])
    return out


def _apply(texts, transform):
    if transform is None:
        return texts
    memo: dict = {}

    def one(tok):
        out = memo.get(tok, memo)
        if out is memo:
            out = memo[tok] = transform(tok)
        return out

    return [[[o for o in map(one, toks) if o is not None] for toks in sents] for sents in texts]


def warm_key(parsed, tokenizer) -> frozenset:
    """The kinds of call for :func:`vecscore.route.use_plain`'s ``warm``: one per metric kind, with the tokenizer
    (rouge1/2/L after rouge1/2/L/Lsum: the same kernels)."""
    tok = tokenizer if isinstance(tokenizer, str) else "callable"
    return frozenset(("rouge", k, tok) for k, _ in parsed)


def plain_stats(hyps, input_kind, refs, parsed, *, tokenizer, lowercase, transform, sentences, wlcs,
                splitter="newline"):
    """``(per_metric, ref_ptr)`` as :func:`vecscore.rouge.compiled.compiled_stats`, or ``None``.

    ``hyps``, their ``input_kind`` and ``refs`` are as :func:`vecscore.references.read_pairs` read them.
    ``None`` means "take the compiled route": the options are not implemented
    here, or the batch is above the size where this route wins
    (:func:`vecscore.route.use_plain`).  ``splitter``: the sentence splitter to apply first.
    """
    if not plain_supports(parsed, tokenizer):
        return None
    cost = COST["rouge+lsum"] if any(k == "Lsum" for k, _ in parsed) else COST["rouge"]
    warm = warm_key(parsed, tokenizer)
    # the hypotheses alone decide a large batch
    if not use_plain(True, lambda: text_chars(hyps), cost, warm, final=False):
        return None
    hyps, refs = split_texts(hyps, refs, splitter)
    rows, ref_ptr = hyps + refs.flat, refs.ptr
    check_unicode(hyps, "hyps")
    check_unicode(refs, "refs")
    n = len(ref_ptr) - 1
    if not use_plain(True, lambda: text_chars(rows), cost, warm):
        return None
    if input_kind == "ids":
        if transform is not None:
            raise VecscoreError("stemming and stopwords need text or string tokens, not token ids")
        texts = _id_rows(rows)
    elif input_kind == "tokens":
        texts = _apply([[list(r)] for r in rows], transform)
    else:
        texts = _text_tokens(rows, tokenizer, lowercase, sentences)
        _check_tokens(texts, tokenizer)
        texts = _apply(texts, transform)
    flat = [[t for s in sents for t in s] for sents in texts]
    lengths = np.fromiter(map(len, flat), dtype=np.int64, count=len(flat))
    if input_kind == "text":
        warn_empty_rows(rows, lengths)
    owner = np.repeat(np.arange(n, dtype=np.int64), np.diff(ref_ptr))
    hyp_len, ref_len = lengths[:n], lengths[n:]
    per_metric = []
    for kind, param in parsed:
        if kind == "n":
            per_metric.append((*_ngram_stats(flat, n, owner, int(param)), None))
        elif kind == "L":
            hits = [lcs_length(flat[o], flat[n + j]) for j, o in enumerate(owner.tolist())]
            per_metric.append((np.array(hits, np.int64), hyp_len, ref_len, None))
        else:
            sents = [[s for s in t if s] for t in texts]
            hits = [union_lcs_hits(sents[o], sents[n + j]) for j, o in enumerate(owner.tolist())]
            per_metric.append((np.array(hits, np.int64), hyp_len, ref_len, None))
    return per_metric, ref_ptr


def _ngrams(tokens, order: int) -> Counter:
    if order == 1:
        return Counter(tokens)
    return Counter(zip(*(tokens[i:] for i in range(order))))


def _ngram_stats(flat, n_pairs: int, owner, order: int):
    counts = [_ngrams(t, order) for t in flat]
    totals = np.fromiter((max(0, len(t) - order + 1) for t in flat), dtype=np.int64, count=len(flat))
    hits = np.fromiter(
        (sum((counts[o] & counts[n_pairs + j]).values()) for j, o in enumerate(owner.tolist())),
        dtype=np.int64, count=len(owner),
    )
    return hits, totals[:n_pairs], totals[n_pairs:]


def lcs_length(a, b) -> int:
    """Length of the longest common subsequence of two token lists (Hyyrö's bit-parallel recurrence)."""
    if not a or not b:
        return 0
    masks: dict = {}
    for j, t in enumerate(b):
        masks[t] = masks.get(t, 0) | (1 << j)
    full = (1 << len(b)) - 1
    v = full
    for t in a:
        m = masks.get(t)
        if m:
            u = v & m
            v = ((v + u) | (v - u)) & full
    return len(b) - v.bit_count()


def _lcs_positions(ref, hyp) -> list[int]:
    """Positions in ``ref`` of one LCS with ``hyp``: rouge-score's table, walked back from the end.

    On a mismatch the walk moves left (along ``hyp``) when the cell to the
    left is strictly larger than the cell above, else up.
    """
    cols = len(hyp) + 1
    table = [[0] * cols]
    for r in ref:
        prev, row = table[-1], [0] * cols
        for j, h in enumerate(hyp, 1):
            row[j] = prev[j - 1] + 1 if r == h else (prev[j] if prev[j] >= row[j - 1] else row[j - 1])
        table.append(row)
    i, j, out = len(ref), len(hyp), []
    while i > 0 and j > 0:
        if ref[i - 1] == hyp[j - 1]:
            out.append(i - 1)
            i, j = i - 1, j - 1
        elif table[i][j - 1] > table[i - 1][j]:
            j -= 1
        else:
            i -= 1
    return out


def union_lcs_hits(hyp_sents, ref_sents) -> int:
    """rouge-score's summary-level LCS hits of one (hypothesis, reference) pair of sentence lists."""
    if not hyp_sents or not ref_sents:
        return 0
    hyp_left = Counter(t for s in hyp_sents for t in s)
    ref_left = Counter(t for s in ref_sents for t in s)
    hits = 0
    for ref in ref_sents:
        union = set()
        for hyp in hyp_sents:
            union.update(_lcs_positions(ref, hyp))
        for i in sorted(union):
            t = ref[i]
            if hyp_left[t] > 0 and ref_left[t] > 0:
                hits += 1
                hyp_left[t] -= 1
                ref_left[t] -= 1
    return hits
