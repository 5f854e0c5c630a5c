"""Everything one METEOR configuration reads from the jar's data, loaded once per process."""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["MeteorData", "load_data"]


@dataclass(frozen=True)
class MeteorData:
    prefixes: Any                          # the normalizer's nonbreaking prefixes
    function_words: frozenset[str]
    stem: Callable[[str], str] | None      # the Snowball English stemmer, with the stem module
    synsets: Callable[[str], frozenset[int]] | None  # with the synonym module
    table: Any                             # the SynonymTable, with the synonym module
    paraphrase: Any                        # the ParaphraseTable, with the paraphrase module


_lock = threading.Lock()
_loaded: dict[tuple, MeteorData] = {}


def load_data(modules: Sequence[str], *, jar=None, paraphrase_file=None) -> MeteorData:
    """The data ``modules`` need, from an installed pycocoevalcap or from ``jar`` and ``paraphrase_file``
    (a :class:`~vecscore.errors.VecscoreError` names what is missing)."""
    from vecscore.meteor import resources

    jar_path = resources.find_jar(jar)
    para_path = resources.find_paraphrase(paraphrase_file, jar=jar) if "paraphrase" in modules else None
    key = (str(jar_path), "stem" in modules, "synonym" in modules, str(para_path))
    with _lock:
        data = _loaded.get(key)
        if data is None:
            from vecscore.meteor.normalize import load_prefixes

            stem: Callable[[str], str] | None = None
            table = para = None
            if "stem" in modules:
                from vecscore.meteor import snowball

                stem = snowball.stem
            if "synonym" in modules:
                from vecscore.meteor.synonyms import load_synonyms

                table = load_synonyms(jar_path)
            if para_path is not None:
                from vecscore.meteor.paraphrase import load_paraphrases

                para = load_paraphrases(para_path, jar=jar_path)
            data = MeteorData(load_prefixes(jar_path), resources.function_words(jar_path), stem,
                              None if table is None else table.synsets, table, para)
            _loaded[key] = data
    return data
