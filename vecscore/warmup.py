"""The calls that compile every kernel group: what ``vecscore warmup`` builds ahead of time.

Small batches never compile anything (:mod:`vecscore.route`), but the first
large batch of a fresh environment needs the kernels of its metric.  Each
group (:data:`GROUPS`) scores a handful of pairs through the compiled route
with every family of options the library has (each metric, each tokenizer
family, each multi-reference convention).  ``vecscore warmup`` records the
kernel calls they make and builds those into a module per group
(:mod:`vecscore.aot_build`); :func:`warmup` (``vecscore warmup --jit``) runs
them on numba's JIT instead, so the kernels land in its disk cache
(:mod:`vecscore.cache_dir`) and each group that completes is marked ready in
the cache folder (``<folder>/ready/<group>``, :mod:`vecscore.background`),
which the ``auto`` route reads.  Results are thrown away.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from contextlib import contextmanager

__all__ = ["GROUPS", "warmup"]

_HYPS = [
    "the cat sat on the mat.\nit was happy",
    "a quick brown fox jumps over the lazy dog",
    "Le café est très bon, n'est-ce pas ?",
    "Der schnelle braune Fuchs springt über den faulen Hund.",
    "\u201cQuoted\u201d text \u2014 with an emoji \U0001f600 and \u0130stanbul",  # two- and four-byte code points
]
_REFS = [
    ["the cat is on the mat.\nit looked happy", "there is a cat on the mat"],
    ["the quick brown fox jumped over the lazy dogs", "a fast fox leaps over a dog"],
    ["le café est bon", "ce café est très bon"],
    ["Der flinke braune Fuchs springt über den faulen Hund.", "Ein Fuchs springt über einen Hund."],
    ["\u201cQuoted\u201d text \u2013 an emoji \U0001f600 in Istanbul", "quoted text with an emoji"],
]
_ZH = (["我们今天去公园散步", "他喜欢读书"], [["我们今天在公园散步", "今天我们去公园"], ["他很喜欢看书", "他爱读书"]])


def _rouge() -> None:
    from vecscore.rouge.api import rouge
    from vecscore.rouge.scorer import RougeScorer

    ascii_hyps, ascii_refs = _HYPS[:2], _REFS[:2]
    for refs in (ascii_refs, [r[0] for r in ascii_refs]):  # the per-pair kernel: rougeN/rougeL on ASCII text
        rouge(ascii_hyps, refs)
        rouge(ascii_hyps, refs, metrics=["rouge1", "rouge2", "rouge3", "rouge4", "rougeL"])
        rouge(_HYPS, refs + _REFS[2:] if isinstance(refs[0], list) else refs + [r[0] for r in _REFS[2:]])
    metrics = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum", "rougeW"]
    for multi_ref in ("best", "best-recall", "pooled", "mean", "jackknife"):
        rouge(_HYPS, _REFS, metrics=metrics, multi_ref=multi_ref)
    rouge(_HYPS, [r[0] for r in _REFS], metrics=metrics)
    rouge(_HYPS, _REFS, metrics=metrics, stemmer=True, stopwords=["the", "a"])
    rouge(_HYPS, _REFS, metrics=metrics, wlcs="textbook", sentence_splitter="punct")
    for tokenizer in ("whitespace", "char", "cjk"):
        rouge(*_ZH, metrics=metrics, tokenizer=tokenizer)
    rouge([h.split() for h in _HYPS], [[r.split() for r in rs] for rs in _REFS], metrics=metrics)
    import numpy as np

    ids = [np.arange(100 * k, 100 * k + 100) for k in range(3)]  # 300 token ids: 9-grams do not pack into 64 bits
    rouge(ids, ids[::-1], metrics=["rouge9"])
    RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True).score_batch(
        [r[0] for r in _REFS], _HYPS)
    from vecscore.shared_refs import SharedReferences

    SharedReferences(_REFS[0] + _REFS[2]).rouge(_HYPS, metrics=metrics)


def _rouge_weighted() -> None:
    from vecscore.rouge.weighted import rouge_weighted

    rouge_weighted(_HYPS, _REFS, metrics=["rouge1", "rouge2", "rougeL"])


def _bleu() -> None:
    from vecscore.bleu.api import corpus_bleu, sentence_bleu
    from vecscore.bleu.metric import BLEU
    from vecscore.bleu.nltk import nltk_corpus_bleu, nltk_sentence_bleu

    streams = [[r[k] for r in _REFS] for k in range(2)]
    for hyps, refs in ((_HYPS[:2], [s[:2] for s in streams]), (_HYPS, streams)):  # ASCII: the per-pair kernel
        corpus_bleu(hyps, refs, refs_layout="streams")
        sentence_bleu(hyps, refs[0])
        sentence_bleu(hyps, refs, refs_layout="streams")
    for tokenize in ("13a", "intl", "char", "none"):
        corpus_bleu(_HYPS, streams, tokenize=tokenize, refs_layout="streams")
        sentence_bleu(_HYPS, [r[0] for r in _REFS], tokenize=tokenize)
        sentence_bleu(_HYPS, _REFS, tokenize=tokenize, lowercase=True)
    corpus_bleu(_ZH[0], [[r[0] for r in _ZH[1]]], tokenize="zh", refs_layout="streams")
    sentence_bleu(_ZH[0], [r[0] for r in _ZH[1]], tokenize="zh")
    BLEU(references=streams).corpus_score(_HYPS)
    BLEU(references=streams[:1]).corpus_score(_HYPS)  # one reference per pair: read and tokenized once
    from vecscore.kernels.in_place import count_endings

    count_endings(_HYPS, " .")  # sacreBLEU's tokenized-period warning on a large call
    tok_hyps = [h.split() for h in _HYPS]
    tok_refs = [[r.split() for r in rs] for rs in _REFS]
    for method in range(8):
        nltk_corpus_bleu(tok_hyps, tok_refs, smoothing=f"method{method}")
        nltk_sentence_bleu(tok_hyps, tok_refs, smoothing=f"method{method}")
    from vecscore.shared_refs import SharedReferences

    for shared, hyps in ((SharedReferences(_REFS[0] + _REFS[3]), _HYPS), (SharedReferences(tok_refs[0]), tok_hyps)):
        shared.sentence_bleu(hyps)
        shared.nltk_corpus_bleu(hyps, smoothing="method1")
    _significance()


def _significance() -> None:
    """``vecscore compare``'s tests on BLEU: enough resamples that the scores of every row take the kernel."""
    import numpy as np

    from vecscore.significance import paired_bootstrap, paired_randomization
    from vecscore.significance.resample import float32_resampler
    from vecscore.significance.scores import KERNEL_MIN_ROWS

    systems = {f"s{i}": _HYPS[i:] + _HYPS[:i] for i in range(1, 3)}
    refs = [[r[0] for r in _REFS]]
    paired_bootstrap("bleu", _HYPS, systems, refs, n_samples=KERNEL_MIN_ROWS // 2, seed=12345)
    paired_randomization("bleu", _HYPS, systems, refs, n_samples=KERNEL_MIN_ROWS, seed=12345)
    # statistics whose float32 sums are not exact (a corpus of more than 2**24 tokens): summed in order
    stats = np.array([[2**25 + 1, 3], [5, 7]], dtype=np.int64)
    float32_resampler(stats)(np.zeros((2, 2), np.int64), np.ones((2, 2), np.int64))


def _rouge155() -> None:
    from vecscore.rouge.rouge155.api import rouge155, rouge155_args

    flags = ["-n 2 -w 1.2 -2 4 -U", "-n 4 -w 1.2 -2 4 -u -m -s", "-n 2 -l 10 -f B", "-n 2 -b 40 -p 0.3 -2 -1 -U"]
    from vecscore.rouge.rouge155.average import perl_average

    for f in flags:
        result = rouge155(_HYPS, _REFS, **rouge155_args(f.split()).kwargs)
    perl_average(result, n_samples=10)  # the printed averages' bootstrap


#: what ``vecscore warmup --only`` accepts, in the order they run
def _chrf() -> None:
    from vecscore.chrf.api import CHRF

    streams = [[r[k] for r in _REFS] for k in range(2)]
    for word_order in (0, 2):
        CHRF(word_order=word_order).corpus_score(_HYPS, streams)
        CHRF(word_order=word_order, whitespace=True, lowercase=True).sentence_scores(_HYPS, streams)
    CHRF().corpus_score(_ZH[0], [[r[0] for r in _ZH[1]]])


def _ter() -> None:
    from vecscore.ter.api import TER

    streams = [[r[k] for r in _REFS] for k in range(2)]
    TER().corpus_score(_HYPS, streams)
    TER(normalized=True, asian_support=True).corpus_score(_ZH[0], [[r[0] for r in _ZH[1]]])


def _coco() -> None:
    from vecscore.coco import Cider, Rouge, cider_d

    # coco-caption's BLEU takes the kernels of the group "bleu" (sacreBLEU's with tokenize="none")
    gts = {k: [r.lower() for r in rs] for k, rs in enumerate(_REFS)}
    res = {k: [h.lower()] for k, h in enumerate(_HYPS)}
    for scorer in (Rouge(), Cider()):
        scorer.compute_score(gts, res)
    cider_d(_HYPS, _REFS, df_refs=_REFS[::-1])
    tabs = ({0: ["a  b\tc"], 1: ["d e"]}, {0: [" a b"], 1: ["d"]})  # split(" ") differing from split()
    Rouge().compute_score(*tabs)
    Cider().compute_score(*tabs)


def _meteor() -> None:
    """METEOR's alignment kernels on a small table built here (no pycocoevalcap needed): read-only arrays, as the
    memory-mapped tables are."""
    from vecscore.meteor.data import MeteorData
    from vecscore.meteor.options import resolve_options
    from vecscore.meteor.paraphrase import ParaphraseTable, build_paraphrase_arrays
    from vecscore.meteor.scoring import pair_stats
    from vecscore.meteor.snowball import stem
    from vecscore.meteor.synonyms import SynonymTable, build_synonym_arrays

    def frozen(arrays):
        for a in arrays.values():
            a.flags.writeable = False
        return arrays

    para = ParaphraseTable(frozen(build_paraphrase_arrays(b"0.5\nsat on\nsat upon\n0.2\nmat\nrug\n")))
    syn = SynonymTable(frozen(build_synonym_arrays(b"sit\nsat\n", b"sit\n1 2\nseat\n2\nmat\n3\nrug\n3\n")))
    data = MeteorData(None, frozenset(("the", "on", "a")), stem, syn.synsets, syn, para)
    texts = [h.lower().split() for h in _HYPS] + [r.lower().split() for rs in _REFS for r in rs]
    n = len(_HYPS)
    hyp = [k for k, rs in enumerate(_REFS) for _ in rs]
    ref = list(range(n, len(texts)))
    import numpy as np

    for modules in (None, ["exact"]):
        pair_stats(texts, np.array(hyp, np.int64), np.array(ref, np.int64), resolve_options(modules=modules), data)


def _matrices() -> None:
    """The score matrices' grid kernels: n-gram cells (chrF, BLEU, rouge1/2), rougeL's LCS and TER."""
    from vecscore.matrices import lcs_cells, ngram_cells, ter_cells

    for cells in (ngram_cells, lcs_cells, ter_cells):
        cells.warm()


GROUPS: dict[str, Callable[[], None]] = {
    "rouge": _rouge,
    "bleu": _bleu,
    "rouge155": _rouge155,
    "rouge-weighted": _rouge_weighted,
    "chrf": _chrf,
    "ter": _ter,
    "coco": _coco,
    "meteor": _meteor,
    "matrices": _matrices,
}


@contextmanager
def _compiled_route():
    before = os.environ.get("VECSCORE_ROUTE")
    os.environ["VECSCORE_ROUTE"] = "compiled"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("VECSCORE_ROUTE", None)
        else:
            os.environ["VECSCORE_ROUTE"] = before


def warmup(groups: Iterable[str] | None = None, report: Callable[[str], None] | None = None) -> dict[str, float]:
    """Compile (or load from the cache) the kernels of ``groups`` (default: all) into numba's JIT cache
    (``vecscore warmup --jit``); seconds per group."""
    import warnings

    from vecscore import background
    from vecscore.errors import VecscoreError

    names = list(GROUPS) if groups is None else list(groups)
    unknown = [g for g in names if g not in GROUPS]
    if unknown:
        raise VecscoreError(f"unknown warmup group(s) {', '.join(unknown)}; valid: {', '.join(GROUPS)}")
    seconds = {}
    with _compiled_route(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in names:
            start = time.perf_counter()
            GROUPS[name]()
            seconds[name] = time.perf_counter() - start
            background.mark_ready(name)  # later processes know without importing numba (vecscore.background)
            if report is not None:
                report(f"{name}: {seconds[name]:.1f} s")
    return seconds
