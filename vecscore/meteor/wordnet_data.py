"""NLTK's WordNet corpus folder built from Debian's WordNet 3.0 packages, with nothing downloaded.

NLTK's METEOR reads WordNet through ``nltk.corpus.wordnet``, which looks for
``corpora/wordnet`` in the folders of ``nltk.data.path`` (``~/nltk_data``,
the folders named by the ``NLTK_DATA`` environment variable, ...).  Debian's
``wordnet-base`` and ``wordnet-sense-index`` packages install the same
WordNet 3.0 database in ``/usr/share/wordnet``; NLTK's reader needs those
files in its folder (copies: NLTK refuses links that lead out of its data
folders) and a ``lexnames`` file, which Debian does not ship: the fixed list
of WordNet 3.0's 45 lexicographer files (the ``lexnames(5WN)`` manual page),
written here.  Usage::

    apt-get install -y --no-install-recommends wordnet-base wordnet-sense-index
    python -m vecscore.meteor.wordnet_data ~/nltk_data

(or a folder named by ``NLTK_DATA``).  Built from Debian 12's packages
(``1:3.0-37``), NLTK's reader gives the same synsets, in the same order, with
the same lemma names, as from Princeton's WordNet 3.0 files, for every word
of WordNet's indexes and exception lists.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from vecscore.errors import MissingDependencyError

__all__ = ["DEBIAN_SOURCE", "FILES", "LEXNAMES", "lexnames_text", "build", "main"]

#: where Debian's wordnet-base and wordnet-sense-index install the database
DEBIAN_SOURCE = Path("/usr/share/wordnet")

_POS = ("adj", "adv", "noun", "verb")
#: the files NLTK's WordNetCorpusReader reads, and the Debian package that installs each
FILES = {
    **{f"{kind}.{pos}": "wordnet-base" for kind in ("data", "index") for pos in _POS},
    **{f"{pos}.exc": "wordnet-base" for pos in _POS},
    "cntlist.rev": "wordnet-base",
    "index.sense": "wordnet-sense-index",
}

#: WordNet 3.0's lexicographer files, numbered from 00 (lexnames(5WN))
LEXNAMES = (
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact", "noun.attribute",
    "noun.body", "noun.cognition", "noun.communication", "noun.event", "noun.feeling", "noun.food", "noun.group",
    "noun.location", "noun.motive", "noun.object", "noun.person", "noun.phenomenon", "noun.plant",
    "noun.possession", "noun.process", "noun.quantity", "noun.relation", "noun.shape", "noun.state",
    "noun.substance", "noun.time", "verb.body", "verb.change", "verb.cognition", "verb.communication",
    "verb.competition", "verb.consumption", "verb.contact", "verb.creation", "verb.emotion", "verb.motion",
    "verb.perception", "verb.possession", "verb.social", "verb.stative", "verb.weather", "adj.ppl",
)
_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}  # the third field of a lexnames line


def lexnames_text() -> str:
    """The ``lexnames`` file: per line the two-digit file number, the file's name and its syntactic category
    (1 noun, 2 verb, 3 adjective, 4 adverb), tab-separated."""
    return "".join(f"{i:02d}\t{name}\t{_CATEGORY[name.split('.')[0]]}\n" for i, name in enumerate(LEXNAMES))


def build(dest: str | os.PathLike[str], source: str | os.PathLike[str] = DEBIAN_SOURCE) -> Path:
    """Write ``<dest>/corpora/wordnet`` from the WordNet database in ``source``; the folder written.

    Raises :class:`~vecscore.errors.MissingDependencyError` naming the
    Debian package to install when a file is missing from ``source``.
    """
    source = Path(source)
    missing = [name for name in FILES if not (source / name).is_file()]
    if missing:
        packages = sorted({FILES[name] for name in missing})
        raise MissingDependencyError(
            f"{source} lacks {', '.join(missing)}: install Debian's {' and '.join(packages)} "
            f"(apt-get install -y --no-install-recommends {' '.join(packages)}), or name the folder "
            "holding WordNet 3.0's database files (source=, --source)")
    target = Path(dest) / "corpora" / "wordnet"
    target.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        shutil.copyfile(source / name, target / name)
    (target / "lexnames").write_text(lexnames_text(), encoding="ascii")
    return target


def _default_dest() -> str:
    first = os.environ.get("NLTK_DATA", "").split(os.pathsep)[0]
    return first or str(Path.home() / "nltk_data")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vecscore.meteor.wordnet_data",
        description="Build NLTK's WordNet corpus folder (<dest>/corpora/wordnet) from Debian's wordnet-base and "
                    "wordnet-sense-index packages, for NLTK's METEOR.")
    parser.add_argument("dest", nargs="?", default=None,
                        help="an NLTK data folder (default: the first folder of $NLTK_DATA, else ~/nltk_data)")
    parser.add_argument("--source", default=str(DEBIAN_SOURCE),
                        help=f"the WordNet database folder (default: {DEBIAN_SOURCE})")
    args = parser.parse_args(argv)
    try:
        target = build(args.dest or _default_dest(), args.source)
    except MissingDependencyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
