"""BLEU: sacreBLEU's and NLTK's, from integer statistics per pair.

``api`` (the public functions), ``stats`` (the statistics type), ``formulas`` (scores from
statistics), ``compiled`` and ``direct`` (statistics on the compiled route), ``nltk`` (NLTK's
drop-ins).  The public names are importable from here: ``from vecscore.bleu import corpus_bleu``.
"""
from __future__ import annotations

import importlib


def __getattr__(name: str):
    # the public names of :mod:`vecscore.bleu.api`, loaded on first use (``from vecscore.bleu import ...``)
    module = importlib.import_module("vecscore.bleu.api")
    if name not in getattr(module, "__all__", ()):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(module, name)
