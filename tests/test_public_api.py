"""The package's public names: every name in ``vecscore.__all__`` resolves, and nothing public is left out."""
from __future__ import annotations

import vecscore


def test_every_public_name_resolves_and_is_listed():
    for name in vecscore.__all__:
        assert getattr(vecscore, name) is not None, name
    eager = {"__version__", "rouge", "rouge155", "rouge155_args", "perl_average", "meteor"}
    assert set(vecscore.__all__) == eager | set(vecscore._EXPORTS)  # the lazy table and __all__ agree
    for name in ("BLEUScore", "BleuStats", "bleu_statistics", "corpus_bleu_from_stats", "CHRF", "TER",
                 "SharedReferences"):
        assert name in vecscore.__all__


def test_metric_packages_export_their_api():
    from vecscore.bleu import corpus_bleu
    from vecscore.chrf import corpus_chrf
    from vecscore.rouge import rouge
    from vecscore.ter import corpus_ter

    assert corpus_bleu is vecscore.corpus_bleu and corpus_chrf is vecscore.corpus_chrf
    assert rouge is vecscore.rouge and corpus_ter is vecscore.corpus_ter


def test_workers_is_in_the_signatures():
    import inspect

    for fn in (vecscore.rouge, vecscore.rouge155, vecscore.corpus_bleu, vecscore.sentence_bleu,
               vecscore.rouge_weighted):
        param = inspect.signature(fn).parameters.get("workers")
        assert param is not None and param.kind is inspect.Parameter.KEYWORD_ONLY and param.default is None, fn
