"""ROUGE: rouge-score's (``api``, ``scorer``), ROUGE-1.5.5's (``rouge155/``) and word-length-weighted
ROUGE (``weighted``), from integer statistics per pair.

``direct`` and ``compiled`` compute the statistics on the compiled route, ``multiref`` combines
references, ``fscore`` and ``results`` turn statistics into scores.
"""
from __future__ import annotations

import importlib


def __getattr__(name: str):
    # the public names of :mod:`vecscore.rouge.api`, loaded on first use (``from vecscore.rouge import ...``)
    module = importlib.import_module("vecscore.rouge.api")
    if name not in getattr(module, "__all__", ()):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(module, name)
