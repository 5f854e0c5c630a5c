"""Bootstrap confidence intervals and paired significance tests (paired bootstrap, approximate
randomization) for BLEU, chrF and TER, reproducing sacreBLEU 2.6's ``--confidence``, ``--paired-bs`` and
``--paired-ar`` (same seeds, same draws, same numbers), with all resamples scored at once from the
per-pair statistics.

>>> from vecscore.significance import confidence_interval, paired_bootstrap, paired_randomization
"""
from vecscore.significance.paired import (
    SIGNIFICANCE_LEVEL,
    ConfidenceInterval,
    PairedResults,
    SystemResult,
    confidence_interval,
    paired_bootstrap,
    paired_randomization,
    resampling_signature,
)
from vecscore.significance.resample import resolve_seed

__all__ = ["SIGNIFICANCE_LEVEL", "ConfidenceInterval", "PairedResults", "SystemResult", "confidence_interval",
           "paired_bootstrap", "paired_randomization", "resampling_signature", "resolve_seed"]
