"""Bootstrap confidence intervals and paired significance tests (paired bootstrap, approximate
randomization) for BLEU, chrF and TER, reproducing sacreBLEU 2.6's ``--confidence``, ``--paired-bs`` and
``--paired-ar`` (same seeds, same draws, same numbers), with all resamples scored at once from the
per-pair statistics; the same tests for ROUGE (:class:`RougeMetric`: the mean of the per-pair F, on
sacreBLEU's draws) and coco-caption's Bleu_1..4, METEOR, ROUGE_L and CIDEr-D (:class:`CocoMetric`).
For ROUGE: rouge-score's ``BootstrapAggregator`` intervals
(:func:`rouge_bootstrap`) and the 95% intervals ROUGE-1.5.5.pl prints (:func:`perl_intervals`).

>>> from vecscore.significance import confidence_interval, paired_bootstrap, paired_randomization
>>> from vecscore.significance import perl_intervals, rouge_bootstrap
"""
from vecscore.rouge.rouge155.average import PerlInterval, perl_intervals
from vecscore.significance._metric import RougeMetric
from vecscore.significance.coco import CocoMetric
from vecscore.significance.paired import (
    SIGNIFICANCE_LEVEL,
    ConfidenceInterval,
    PairedResults,
    SystemResult,
    confidence_interval,
    interval_from_stats,
    paired_bootstrap,
    paired_randomization,
    resampling_signature,
)
from vecscore.significance.resample import resolve_seed
from vecscore.significance.rouge_intervals import AggregateScore, RougeIntervals, rouge_bootstrap

__all__ = ["SIGNIFICANCE_LEVEL", "ConfidenceInterval", "PairedResults", "SystemResult", "confidence_interval",
           "interval_from_stats", "RougeMetric", "CocoMetric",
           "paired_bootstrap", "paired_randomization", "resampling_signature", "resolve_seed",
           "AggregateScore", "RougeIntervals", "rouge_bootstrap", "PerlInterval", "perl_intervals"]
