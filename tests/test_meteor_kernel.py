"""METEOR 1.5's alignment kernels (:mod:`vecscore.kernels.meteor_align`, :mod:`~vecscore.kernels.meteor_beam`,
:mod:`~vecscore.kernels.meteor_texts`) against the plain twin (:mod:`vecscore.meteor.align`, the jar's Aligner
in plain Python, which tests/test_meteor.py holds to meteor-1.5.jar itself).

Expected statistics come from the plain twin; the kernels run on E2E NLG pairs and on pairs made to reach
their corners: empty texts, one word repeated, texts of more than 64 words (bit sets of two words, spans
across them), multiword paraphrases, equal Java hashes of different words, identical texts (the jar aligns
them with the first module alone), each module alone and in another order, beams of 1 and 2, one thread and
two.  A child process runs the kernels as plain Python (``NUMBA_DISABLE_JIT=1``), once with the distance kept
out of the rank key.  Needs meteor-1.5.jar's data (pip install pycocoevalcap); Java is not needed.
"""
from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import e2e_nlg
from tests.meteor_oracle import find_jar
from vecscore.meteor import scoring
from vecscore.meteor.data import load_data
from vecscore.meteor.options import resolve_options

NO_JIT = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
ALL = ("exact", "stem", "synonym", "paraphrase")

# multiword paraphrases of the table ("it is"/"there is", "is located"/"is situated", "located in the"/"located
# at the", "does not allow"/"does not permit", "a family"/"the family"), stems, synonyms
SENTENCES = [
    "it is located in the city centre near the river",
    "there is situated at the city center near a river",
    "this pub does not allow children and has a high price range",
    "this pub does not permit kids and it has high prices",
    "a family friendly place in the riverside area serves cheap food",
    "the family friendly place held at the riverside served food cheaply",
    "the car ran into the automobile while running",
    "an automobile runs into the car and ran",
]
#: "Aa" and "BB" have the same Java String.hashCode: the jar matches them exactly
COLLIDING = (["Aa", "man", "BB"], ["BB", "man", "Aa", "Aa"])


@pytest.fixture(scope="module")
def jar_data():
    if find_jar() is None:
        if os.environ.get("VECSCORE_REQUIRE_DATA", "") not in ("", "0"):
            pytest.fail("meteor-1.5.jar (pip install pycocoevalcap) is required in CI")
        pytest.skip("needs meteor-1.5.jar's data (pip install pycocoevalcap)")
    return load_data(ALL)


def _both(texts, pairs, options):
    """The statistics of ``pairs`` (hypothesis, reference text numbers) from the plain twin and from the kernels,
    on one thread and on two."""
    from vecscore.parallel import numba_threads

    data = load_data(options.modules)
    hyp = np.array([h for h, _ in pairs], np.int64)
    ref = np.array([r for _, r in pairs], np.int64)
    expected = scoring.pair_stats(texts, hyp, ref, options, data, plain=True)
    got = []
    for threads in ((None,) if NO_JIT else (1, 2)):
        with numba_threads(threads):
            got.append(scoring.pair_stats(texts, hyp, ref, options, data))
    return expected, got


def _check(texts, pairs, options):
    expected, got = _both(texts, pairs, options)
    for stats in got:
        bad = np.flatnonzero((stats != expected).any(axis=1))
        assert bad.size == 0, [(pairs[k], texts[pairs[k][0]], texts[pairs[k][1]]) for k in bad[:3]]


def _corner_texts() -> list[list[str]]:
    """Short texts (0..14), then three of more than 64 words: the odd sentences three times behind three words
    (a paraphrase match across the 64th word of either bit set), the even ones, and random words."""
    rng = random.Random(7)
    texts = [s.split() for s in SENTENCES]
    texts += [[], ["the"], ["the"] * 30, ["the"] * 12, "the cat the dog the mat the".split(), *COLLIDING]
    texts += [(["x"] * 3 + " ".join(SENTENCES[0::2] * 3).split())[:120], " ".join(SENTENCES[1::2] * 3).split()[:100]]
    words = " ".join(SENTENCES).split()
    texts.append([rng.choice(words) for _ in range(120)])
    return texts


def _corner_pairs() -> list[tuple[int, int]]:
    """Every ordered pair of the short texts (identical ones too), the long texts with each other and with a few
    short ones."""
    pairs = [(h, r) for h in range(15) for r in range(15)]
    pairs += [(h, r) for h in (15, 16, 17) for r in (15, 16, 17)]
    pairs += [p for h in (15, 16, 17) for r in (0, 3, 8, 10, 13) for p in ((h, r), (r, h))]
    return pairs


def test_e2e_pairs(shared_data, jar_data):
    """A few hundred E2E NLG pairs (each output against each of its references), all four modules."""
    refs, systems = e2e_nlg(shared_data)
    options = resolve_options("default", normalize=True)
    items = 16 if NO_JIT else 60
    hyps = systems["tgen"][:items // 2] + systems["sheff1"][items // 2:items]
    texts, hyp, ref = scoring._texts(hyps, refs[:items], options, jar_data.prefixes)
    pairs = list(zip(hyp.tolist(), ref.tolist()))
    assert len(pairs) > (50 if NO_JIT else 300)
    _check(texts, pairs, options)
    _check(texts, pairs[:120], resolve_options("default", normalize=True, beam_size=2))


@pytest.mark.parametrize("modules", [ALL, ("exact",), ("stem",), ("synonym",), ("paraphrase",),
                                     ("paraphrase", "synonym", "stem", "exact"), ("stem", "exact")])
def test_corner_pairs_by_module(jar_data, modules):
    """Every ordered pair of the corner texts (identical ones too) with each module alone, all four, all four in
    reverse order, and stem before exact (identical texts are then aligned by stem alone)."""
    pairs = _corner_pairs()
    if NO_JIT:
        pairs = pairs[::7]
    _check(_corner_texts(), pairs, resolve_options("default", modules=list(modules)))


@pytest.mark.parametrize("beam", [1, 2, 7])
def test_corner_pairs_small_beams(jar_data, beam):
    pairs = _corner_pairs()
    if NO_JIT:
        pairs = pairs[::11]
    _check(_corner_texts(), pairs, resolve_options("default", beam_size=beam))


def test_candidates_cover_the_corners(jar_data):
    """The corner texts do reach what they are for: multiword paraphrase candidates, one across the 64th word,
    and exact matches of colliding hashes."""
    from vecscore.meteor.align import align
    from vecscore.meteor.normalize import java_lower

    texts = _corner_texts()

    def matches(a, b):
        got = align(a, b, modules=ALL, function_words=jar_data.function_words, lower=java_lower, stem=jar_data.stem,
                    synsets=jar_data.synsets, paraphrase=jar_data.paraphrase)
        return [m for m in got.matches if m is not None]

    multi = [m for m in matches(texts[0], texts[1]) + matches(texts[2], texts[3]) if max(m.length, m.match_length) > 1]
    assert multi
    across = [m for m in matches(texts[15], texts[16]) if m.module == 3 and m.match_start < 64 < m.match_start +
              m.match_length]
    assert across
    a, b = COLLIDING
    assert any(m.module == 0 and a[m.match_start] != b[m.start] for m in matches(a, b))


_NO_JIT_SCRIPT = """
import sys
import numpy as np
sys.path.insert(0, {root!r})
from tests.test_meteor_kernel import _corner_texts, _check
from vecscore.kernels import meteor_beam
from vecscore.meteor.options import resolve_options
texts = _corner_texts()
pairs = [(0, 1), (1, 0), (2, 3), (4, 5), (6, 7), (7, 6), (11, 12), (13, 14), (15, 16), (17, 16), (10, 10), (8, 9)]
for beam in (40, 2):
    _check(texts, pairs, resolve_options("default", beam_size=beam))
meteor_beam._PACK_LIMIT = 0.0  # the rank key without the distance, which then breaks ties on its own
for beam in (40, 3):
    _check(texts, pairs, resolve_options("default", beam_size=beam))
print("ok")
"""


def test_kernels_as_plain_python(jar_data):
    """The kernels run as plain Python (NUMBA_DISABLE_JIT=1, a child process) equal the plain twin, also with the
    rank key that leaves the distance out (used when a pair's bounds do not fit one integer)."""
    root = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    done = subprocess.run([sys.executable, "-c", _NO_JIT_SCRIPT.format(root=root)], check=False, env=env, cwd=root,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]
