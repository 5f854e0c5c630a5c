"""pytest plugin: sacreBLEU's scoring functions and metric classes replaced by vecscore's.

Loaded with ``-p tests.anchor_suites.sacrebleu_swap`` in a run of sacreBLEU's own ``test/`` folder.  The
names are replaced before the test modules import them (``from sacrebleu.metrics import BLEU`` then gives
vecscore's ``BLEU``); sacreBLEU's ``significance.PairedTest`` stays sacreBLEU's and drives vecscore's metric
objects.  A test session that does not score through vecscore would pass against sacreBLEU alone, so the
plugin counts the calls that reach vecscore and fails the session when none did.
"""
from __future__ import annotations

import functools

import pytest

SWAPPED: list[tuple[str, str]] = []
CALLS = {"n": 0}


def _counted(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        CALLS["n"] += 1
        return fn(*args, **kwargs)

    return wrapper


def _counted_class(cls):
    init = cls.__init__

    @functools.wraps(init)
    def counted_init(self, *args, **kwargs):
        CALLS["n"] += 1
        init(self, *args, **kwargs)

    cls.__init__ = counted_init
    return cls


def swap() -> None:
    import sacrebleu
    import sacrebleu.compat
    import sacrebleu.metrics

    from vecscore.bleu import api as bleu
    from vecscore.bleu.metric import BLEU
    from vecscore.chrf import api as chrf
    from vecscore.ter import api as ter

    functions = {
        "corpus_bleu": bleu.corpus_bleu, "raw_corpus_bleu": bleu.raw_corpus_bleu, "sentence_bleu": bleu.sentence_bleu,
        "corpus_chrf": chrf.corpus_chrf, "sentence_chrf": chrf.sentence_chrf,
        "corpus_ter": ter.corpus_ter, "sentence_ter": ter.sentence_ter,
    }
    classes = {"BLEU": BLEU, "CHRF": chrf.CHRF, "TER": ter.TER}
    for name, fn in functions.items():
        for module in (sacrebleu, sacrebleu.compat):
            setattr(module, name, _counted(fn))
            SWAPPED.append((module.__name__, name))
    for name, cls in classes.items():
        sub = type(name, (cls,), {"__module__": cls.__module__, "__doc__": cls.__doc__})
        sub = _counted_class(sub)
        for module in (sacrebleu, sacrebleu.metrics):
            setattr(module, name, sub)
            SWAPPED.append((module.__name__, name))


def pytest_configure(config) -> None:
    swap()


def pytest_report_header(config) -> str:
    return "vecscore drop-ins in place of: " + ", ".join(f"{m}.{n}" for m, n in SWAPPED)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus) -> None:
    if session.testscollected and not CALLS["n"]:
        print("\nno call reached vecscore: the swap did not take effect")
        session.exitstatus = 1
