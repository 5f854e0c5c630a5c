"""``--confidence`` for the scoring commands: bootstrap intervals added to the corpus summary.

The input is still read and scored a chunk at a time; what an interval needs from each chunk (per-pair
statistics for BLEU, chrF and TER; per-pair scores for ROUGE) is kept -- a few numbers per pair -- and
the interval is computed once the whole input is scored:

* ``bleu``, ``chrf``, ``ter``: sacreBLEU's ``--confidence`` (seed from ``SACREBLEU_SEED``, default
  12345, ``none`` for entropy).  The summary gains sacreBLEU's keys ``confidence_mean``,
  ``confidence_var`` (the half-width of the 95% interval; unrounded, as ``score``) and ``confidence``
  (sacreBLEU's text, ``"μ = 23.4 ± 0.8"``, at its command line's default width of 1 decimal), and the
  signature gains ``bs:N|seed:S``.
* ``rouge``: rouge-score's ``BootstrapAggregator`` (``--seed``, default 12345: the numbers of
  ``np.random.seed(12345)`` followed by rouge-score); ``confidence``: per metric ``low``, ``mid``,
  ``high``, each with ``precision``, ``recall``, ``fmeasure``.
* ``rouge155``: the 95% intervals ROUGE-1.5.5.pl prints (``-r``, ``-c``, ``-t`` from ``--script-options``,
  or ``--confidence --confidence-n N``); ``confidence``: per metric ``average``, ``low``, ``high``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from vecscore.errors import VecscoreError
from vecscore.io.stream import BleuSpec, ChrfSpec, Rouge155Spec, RougeSpec, TerSpec

__all__ = ["IntervalCollector", "collector", "SACREBLEU_CLI_WIDTH"]

#: the decimals sacreBLEU's command line prints (its ``--width`` default)
SACREBLEU_CLI_WIDTH = 1


def collector(args, spec) -> IntervalCollector | None:
    """An :class:`IntervalCollector` when the command asks for intervals, else None."""
    rouge155 = _rouge155_resampling(args) if isinstance(spec, Rouge155Spec) else None
    if not getattr(args, "confidence", False) and rouge155 is None:
        return None
    if isinstance(spec, BleuSpec) and spec.sentence:
        raise VecscoreError("--confidence is for corpus BLEU (vecscore bleu), not for sentence BLEU")
    if not isinstance(spec, (BleuSpec, ChrfSpec, TerSpec, RougeSpec, Rouge155Spec)):
        raise VecscoreError("--confidence is not available for this command")
    return IntervalCollector(spec, args, rouge155)


def _rouge155_resampling(args) -> tuple[int, float, int] | None:
    """``(r, c, t)`` when ``vecscore rouge155`` is asked for the script's intervals, else None."""
    n_flag = getattr(args, "confidence_n", None)
    if args.script_options is not None:
        from vecscore.rouge.rouge155.args import rouge155_args

        flags = args.script_options.split()
        parsed = rouge155_args(flags)
        asked = any(f.startswith(("-r", "-c")) for f in flags)
        if asked and n_flag is not None:
            raise VecscoreError("give the number of bootstrap samples once: -r in --script-options or "
                                "--confidence-n, not both")
        if asked or getattr(args, "confidence", False):
            if parsed.average == 2:
                raise VecscoreError("-t 2 prints no confidence interval; use -t 0 or -t 1 with -r/-c")
            if parsed.resamples < 1 and n_flag is None:
                raise VecscoreError("-r must be at least 1 for a confidence interval (the script divides by it)")
            return (n_flag or parsed.resamples), parsed.confidence, parsed.average
        return None
    if getattr(args, "confidence", False):
        return n_flag or 1000, 95.0, 0
    if n_flag is not None:
        raise VecscoreError("--confidence-n goes with --confidence")
    return None


class IntervalCollector:
    """Keeps what the interval needs from every scored chunk; :meth:`extend` adds it to the summary."""

    def __init__(self, spec, args, rouge155: tuple | None):
        self.spec = spec
        self.args = args
        self.rouge155 = rouge155
        self.parts: list[dict] = []
        if not isinstance(spec, Rouge155Spec) and getattr(args, "confidence_n", None) is None:
            args.confidence_n = 1000

    @property
    def needs_stats(self) -> bool:
        return isinstance(self.spec, (BleuSpec, ChrfSpec, TerSpec)) or (
            self.rouge155 is not None and self.rouge155[2] == 1)

    def add(self, chunk) -> None:
        keep = dict(chunk.stats) if self.needs_stats else {}
        if isinstance(self.spec, (RougeSpec, Rouge155Spec)):
            keep.update(chunk.columns)
        self.parts.append(keep)

    def _column(self, key: str) -> np.ndarray:
        missing = [i for i, p in enumerate(self.parts) if key not in p]
        if missing:
            raise VecscoreError(f"no per-pair {key} to resample (chunk {missing[0]}); this metric's options give "
                                "no per-pair statistics")
        return np.concatenate([p[key] for p in self.parts])

    def extend(self, summary: dict) -> dict:
        if not self.parts or sum(len(next(iter(p.values()), ())) for p in self.parts) == 0:
            raise VecscoreError("--confidence needs at least one pair; the input is empty")
        spec = self.spec
        if isinstance(spec, RougeSpec):
            return self._rouge(summary)
        if isinstance(spec, Rouge155Spec):
            return self._rouge155(summary)
        return self._sacrebleu(summary)

    # sacreBLEU's metrics

    def _sacrebleu(self, summary: dict) -> dict:
        from vecscore.significance.paired import interval_from_stats, resampling_signature

        spec = self.spec
        if isinstance(spec, BleuSpec):
            from vecscore.bleu.metric import BLEU

            k = spec.order
            keys = ["bleu_sys_len", "bleu_ref_len", *(f"bleu_correct_{i + 1}" for i in range(k)),
                    *(f"bleu_total_{i + 1}" for i in range(k))]
            stats = np.column_stack([self._column(key) for key in keys]).astype(np.int64)
            metric: Any = BLEU(**{key: v for key, v in spec.options.items() if key != "force"})
        elif isinstance(spec, ChrfSpec):
            from vecscore.chrf.api import CHRF

            metric = CHRF(**spec.options)
            width = 3 * (metric.char_order + metric.word_order)
            stats = np.column_stack([self._column(f"chrf_stat_{j + 1}") for j in range(width)]).astype(np.int64)
        else:
            from vecscore.ter.api import TER

            metric = TER(**spec.options)
            stats = np.column_stack([self._column("ter_edits").astype(np.float64),
                                     self._column("ter_ref_length").astype(np.float64)])
        ci = interval_from_stats(metric, stats, self.args.confidence_n, "env")
        w = SACREBLEU_CLI_WIDTH
        out = dict(summary)
        out["signature"] = resampling_signature(summary["signature"], bs=ci.n_bootstrap, seed=ci.seed)
        if ci.mean > 0:  # sacreBLEU prints no interval otherwise
            out["confidence_mean"] = float(ci.mean)
            out["confidence_var"] = float(ci.ci)
            out["confidence"] = f"μ = {ci.mean:.{w}f} ± {ci.ci:.{w}f}"
        return _signature_last(out)

    # ROUGE

    def _scores(self) -> dict:
        from vecscore.rouge.results import Score

        return {m: Score(*(self._column(f"{m}_{f}") for f in ("precision", "recall", "fmeasure")))
                for m in self.spec.metrics}

    def _rouge(self, summary: dict) -> dict:
        from vecscore.significance.rouge_intervals import rouge_bootstrap

        seed = _rouge_seed(getattr(self.args, "seed", "12345"))
        iv = rouge_bootstrap(self._scores(), n_samples=self.args.confidence_n, seed=seed,
                             metrics=list(self.spec.metrics))
        out = dict(summary)
        out["confidence"] = {m: {k: getattr(iv[m], k)._asdict() for k in ("low", "mid", "high")} for m in iv}
        sig = f"{summary.get('signature', '')}|ci:rouge-score|bs:{iv.n_samples}|conf:{iv.confidence:g}|seed:{iv.seed}"
        if seed is None:
            sig = sig.replace("seed:global", "seed:none")
        out["confidence_signature"] = sig
        return _signature_last(out)

    def _rouge155(self, summary: dict) -> dict:
        from vecscore.rouge.results import RougeResult
        from vecscore.rouge.rouge155.average import perl_intervals
        from vecscore.rouge.stats import RougeStats

        r, c, t = self.rouge155  # type: ignore[misc]
        stats = {}
        if t == 1:
            stats = {m: RougeStats(self._column(f"{m}_hits"), self._column(f"{m}_p_den"), self._column(f"{m}_r_den"))
                     for m in self.spec.metrics}
        result = RougeResult(self._scores(), stats)
        iv = perl_intervals(result, t=t, n_samples=int(r), c=c, alpha=self.spec.options.get("alpha", 0.5))
        out = dict(summary)
        out["confidence"] = {m: {k: getattr(iv[m], k)._asdict() for k in ("average", "low", "high")} for m in iv}
        out["confidence_signature"] = f"{summary.get('signature', '')}|ci:rouge155|r:{int(r)}|c:{c:g}|t:{t}"
        return _signature_last(out)


def _rouge_seed(text):
    if text is None or str(text).lower() == "none":
        return None
    try:
        return int(text)
    except ValueError:
        raise VecscoreError(f"--seed must be a whole number or 'none', not {text!r}") from None


def _signature_last(d: dict) -> dict:
    """The summary with ``n_pairs`` and the signatures last, as the summaries without intervals order them."""
    tail = [k for k in ("n_pairs", "signature", "confidence_signature") if k in d]
    return {**{k: v for k, v in d.items() if k not in tail}, **{k: d[k] for k in tail}}
