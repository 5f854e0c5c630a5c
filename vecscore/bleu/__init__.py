"""BLEU: sacreBLEU's and NLTK's, from integer statistics per pair.

``api`` (the public functions), ``metric`` (sacreBLEU's class ``BLEU``), ``stats`` (the statistics type),
``formulas`` (scores from statistics), ``compiled`` and ``direct`` (statistics on the compiled route), ``nltk`` (NLTK's
drop-ins).  The public names are importable from here: ``from vecscore.bleu import corpus_bleu``.
"""
from __future__ import annotations

import importlib


def __getattr__(name: str):
    # the public names of :mod:`vecscore.bleu.api` and :mod:`vecscore.bleu.metric`, loaded on first use
    # (``from vecscore.bleu import ...``)
    for where in ("vecscore.bleu.api", "vecscore.bleu.metric"):
        module = importlib.import_module(where)
        if name in getattr(module, "__all__", ()):
            return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
