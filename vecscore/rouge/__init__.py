"""ROUGE: rouge-score's (``api``, ``scorer``), ROUGE-1.5.5's (``rouge155/``) and word-length-weighted
ROUGE (``weighted``), from integer statistics per pair.

``plain`` (small batches), ``direct`` and ``compiled`` compute the statistics; ``multiref`` combines
references into :class:`~vecscore.rouge.stats.RougeStats` (``stats``), whose scores ``fscore`` computes
and ``results`` holds.
"""
from __future__ import annotations

import importlib


def __getattr__(name: str):
    # the public names of :mod:`vecscore.rouge.api`, loaded on first use (``from vecscore.rouge import ...``)
    module = importlib.import_module("vecscore.rouge.api")
    if name not in getattr(module, "__all__", ()):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(module, name)
