"""mbrs's chrF and BLEU metric classes and its MBR decoder, for the benchmarks and the tests that compare
vecscore.mbr with mbrs.

``mbrs.metrics`` imports every metric, the neural ones included (COMET, which needs packages an environment
may lack); when that import fails, only the package's base, chrF and BLEU modules are loaded, unchanged.
"""
from __future__ import annotations

import enum
import importlib
import sys
import types
from pathlib import Path


def mbrs_classes() -> tuple[type, type, type]:
    """``(MetricChrF, MetricBLEU, DecoderMBR)``; ImportError where mbrs (or torch) is not installed."""
    try:
        from mbrs.decoders import DecoderMBR
        from mbrs.metrics import MetricBLEU, MetricChrF
        return MetricChrF, MetricBLEU, DecoderMBR
    except ImportError:
        pass
    import mbrs
    from mbrs import registry

    for name in [k for k in sys.modules if k.startswith(("mbrs.metrics", "mbrs.decoders", "mbrs.selectors"))]:
        del sys.modules[name]
    pkg = types.ModuleType("mbrs.metrics")
    pkg.__path__ = [str(Path(mbrs.__file__).parent / "metrics")]
    sys.modules["mbrs.metrics"] = pkg
    base = importlib.import_module("mbrs.metrics.base")
    for name in ("Metric", "MetricAggregatable", "MetricAggregatableCache", "MetricBase", "MetricCacheable",
                 "MetricReferenceless", "get_metric", "register"):
        setattr(pkg, name, getattr(base, name))
    chrf = importlib.import_module("mbrs.metrics.chrf")
    bleu = importlib.import_module("mbrs.metrics.bleu")
    metrics = registry.get_registry(base.Metric | base.MetricReferenceless)
    pkg.Metrics = enum.Enum("Metrics", {k: k for k in metrics}, type=str)  # type: ignore[attr-defined]
    decoders = importlib.import_module("mbrs.decoders")
    return chrf.MetricChrF, bleu.MetricBLEU, decoders.DecoderMBR
