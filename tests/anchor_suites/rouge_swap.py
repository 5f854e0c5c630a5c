"""pytest plugin: rouge-score's ``RougeScorer`` replaced by vecscore's.

Loaded with ``-p tests.anchor_suites.rouge_swap`` in a run of rouge-score's own ``*_test.py`` modules
(``rouge_score.rouge_scorer.RougeScorer`` is replaced before they import it; rouge-score's tokenizers,
``scoring`` and ``io`` stay rouge-score's and are handed vecscore's scorer).  The session fails when no call
reached vecscore (a swap that did not take effect would otherwise pass against rouge-score alone).
"""
from __future__ import annotations

import pytest

CALLS = {"n": 0}


def swap() -> None:
    from rouge_score import rouge_scorer

    from vecscore.rouge.scorer import RougeScorer

    class Counted(RougeScorer):
        __doc__ = RougeScorer.__doc__

        def __init__(self, *args, **kwargs):
            CALLS["n"] += 1
            super().__init__(*args, **kwargs)

    Counted.__name__ = Counted.__qualname__ = "RougeScorer"
    rouge_scorer.RougeScorer = Counted


def pytest_configure(config) -> None:
    swap()


def pytest_report_header(config) -> str:
    return "vecscore drop-in in place of: rouge_score.rouge_scorer.RougeScorer"


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus) -> None:
    if session.testscollected and not CALLS["n"]:
        print("\nno call reached vecscore: the swap did not take effect")
        session.exitstatus = 1
