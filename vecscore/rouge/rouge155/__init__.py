"""ROUGE-1.5.5, option for option: ``api`` (:func:`vecscore.rouge155`), ``args`` (the script's
command line), ``average`` (the script's averages and bootstrap intervals).
"""
from __future__ import annotations

import importlib


def __getattr__(name: str):
    # the public names of :mod:`vecscore.rouge.rouge155.api`, loaded on first use
    # (``from vecscore.rouge.rouge155 import ...``)
    module = importlib.import_module("vecscore.rouge.rouge155.api")
    if name not in getattr(module, "__all__", ()):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(module, name)
