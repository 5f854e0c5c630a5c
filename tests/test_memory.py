"""vecscore.tune_memory: applied on Linux/glibc, switched off by the environment."""
from __future__ import annotations

import sys

import pytest

import vecscore


def test_switched_off_by_environment(monkeypatch):
    monkeypatch.setenv("VECSCORE_NO_MALLOC_TUNING", "1")
    assert vecscore.tune_memory() is False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt is Linux-only")
def test_applied_on_linux(monkeypatch):
    monkeypatch.delenv("VECSCORE_NO_MALLOC_TUNING", raising=False)
    assert vecscore.tune_memory(64 << 20) is True
    # scoring still works and gives the same numbers afterwards
    r = vecscore.rouge(["the cat sat"], ["the cat sat down"], metrics=["rouge1"])
    assert r["rouge1"].recall[0] == 0.75
