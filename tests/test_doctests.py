"""The Examples in vecscore's docstrings run and print what they say."""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import vecscore

MODULES = sorted(
    m.name for m in pkgutil.walk_packages(vecscore.__path__, "vecscore.")
    if not m.name.startswith("vecscore.integrations") and not m.name.endswith("__main__")  # __main__ runs the CLI
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
