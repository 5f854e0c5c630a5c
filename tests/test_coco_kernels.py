"""The kernels of coco-caption's compiled route (``vecscore.kernels.coco``) against their plain twins.

The splitters against Python's own ``str.split()`` and ``str.split(" ")``; document frequencies and CIDEr-D's
clipped TF-IDF products against a dictionary implementation of pycocoevalcap's formulas written here; the
compiled route's LCS lengths and CIDEr values against the NumPy route's.  (``tests/test_coco.py`` checks both
routes against pycocoevalcap itself.)  CI also runs this file with ``NUMBA_DISABLE_JIT=1`` and with numba's
bounds checking.
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from vecscore.coco import compiled
from vecscore.coco.grams import idf_classes, square_table
from vecscore.coco.items import items
from vecscore.kernels.coco import (
    cider_values,
    document_frequency,
    gram_keys,
    intern_flat,
    split_joined,
    split_spaces,
    split_whitespace,
)

#: every character str.isspace() is true for, and neighbours of the multi-byte ones that are not
SPACES = [chr(c) for c in range(0x110000) if chr(c).isspace()]
NEAR = ["\u0084", "\u0086", "\u00a1", "\u009f", "\u1681", "\u167f", "\u180e", "\u1fff", "\u200b", "\u2027",
        "\u202a", "\u202e", "\u2030", "\u205e", "\u2060", "\u2fff", "\u3001", "\ufeff", "\u0100", "\u3100"]
PIECES = ["a", "bc", "é", "日本", "😀", "", "x\u0301"] + NEAR


def _texts(seed: int, n: int = 400) -> list[str]:
    rng = np.random.default_rng(seed)
    alphabet = SPACES + PIECES + [" ", " ", "  "]
    return ["".join(alphabet[i] for i in rng.integers(0, len(alphabet), int(rng.integers(0, 12))))
            for _ in range(n)]


def _split(kernel, texts, *args):
    buf, lo, hi, joined = compiled.encode(texts)
    if kernel is split_joined:
        if not joined:
            return None
        starts, ends, tok_off = kernel(buf, len(texts), *args)
    else:
        starts, ends, tok_off = kernel(buf, lo, hi, *args)
    raw = buf.tobytes()
    rows = [slice(tok_off[i], tok_off[i + 1]) for i in range(len(texts))]
    return [[raw[a:b].decode("utf-8") for a, b in zip(starts[r], ends[r])] for r in rows]


def test_whitespace_characters_are_pythons():
    """The list the kernel reads from UTF-8 bytes is str.isspace()'s (Python 3.11's Unicode data)."""
    assert len(SPACES) == 29
    texts = [f"a{c}b" for c in SPACES + NEAR] + [c for c in SPACES + NEAR]
    assert _split(split_whitespace, texts) == [t.split() for t in texts]


@pytest.mark.parametrize("seed", range(4))
def test_splitters_equal_str_split(seed):
    texts = _texts(seed) + ["", " ", "  ", "a", " a ", "a  b", "\t", "a\u3000\u3000b"]
    for batch in (texts, texts + ["a\x00 b", "\x00"], ["only"], [""]):  # NUL inside: texts encoded one by one
        assert _split(split_whitespace, batch) == [t.split() for t in batch]
        assert _split(split_spaces, batch, True) == [t.split(" ") for t in batch]
        assert _split(split_spaces, batch, False) == [[w for w in t.split(" ") if w] for t in batch]
        joined = "\x00" not in "".join(batch)
        assert _split(split_joined, batch, True) == ([t.split(" ") for t in batch] if joined else None)
        assert _split(split_joined, batch, False) == ([[w for w in t.split(" ") if w] for t in batch] if joined
                                                       else None)


def test_split_joined_block_edges():
    """Texts and tokens across the 64-byte blocks' edges: buffers of 0-200 bytes, separators anywhere."""
    rng = np.random.default_rng(12)
    for size in range(0, 200):
        for _ in range(3):
            text = "".join(rng.choice(["a", "b", " ", "\x00", "é"], size, p=[0.4, 0.2, 0.2, 0.1, 0.1]))
            batch = text.split("\x00")
            assert _split(split_joined, batch, True) == [t.split(" ") for t in batch]
            assert _split(split_joined, batch, False) == [[w for w in t.split(" ") if w] for t in batch]


def _first_ids(rows):
    """Every token's id in order of first occurrence."""
    seen: dict[str, int] = {}
    return [[seen.setdefault(w, len(seen)) for w in row] for row in rows]


def _token_rows(texts, sep):
    toks = compiled.token_ids(texts, sep)
    return [toks.ids[toks.starts[i]:toks.starts[i + 1]].tolist() for i in range(len(texts))], toks.n_vocab


def test_token_ids_long_tokens():
    """Ids in order of first occurrence for tokens of 0-40 bytes (keys exact up to 7, hashed beyond), long
    ones sharing prefixes or lengths; two long tokens with equal keys are told apart by their bytes."""
    from vecscore.kernels import intern as kernels_intern

    rng = np.random.default_rng(11)
    words = ["x" * k for k in range(41)] + ["abcdefgh" + c for c in "abcdefg"] + ["é" * k for k in range(1, 9)]
    texts = [" ".join(words[i] for i in rng.integers(0, len(words), int(rng.integers(0, 15)))) for _ in range(500)]
    for sep in (" ", None):
        want = _first_ids([t.split(sep) for t in texts])
        assert _token_rows(texts, sep) == (want, len({w for row in want for w in row}))
    exact = kernels_intern.token_keys

    def colliding(buf, starts, ends, fold):  # every long token gets the same key
        keys = exact(buf, starts, ends, fold)
        keys[(ends - starts) > 7] = -5
        return keys

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kernels_intern, "token_keys", colliding)
        assert _token_rows(texts, None)[0] == _first_ids([t.split() for t in texts])


@pytest.mark.parametrize("spaces_only", [False, True])
def test_token_ids_equal_strings_equal_ids(spaces_only):
    texts = _texts(9, 300)
    if spaces_only:  # str.split() by split(" ") without empty tokens
        texts = [" ".join(t.split()) + "  x " for t in texts]
    for sep in (None, " "):
        toks = compiled.token_ids(texts, sep)
        words = [w for t in texts for w in t.split(sep)]
        assert toks.ids.size == len(words)
        assert toks.lengths.tolist() == [len(t.split(sep)) for t in texts]
        first: dict[str, int] = {}
        for w, i in zip(words, toks.ids.tolist()):
            assert first.setdefault(w, i) == i  # one id per string
        assert len(set(first.values())) == len(first) == toks.n_vocab  # one string per id


def _cider_twin(docs, texts, ref_ptr, k):
    """Per reference: pycocoevalcap's ``sim`` for order ``k`` with df from ``docs`` (lists of texts), before the
    length penalty."""
    def grams(t):
        w = t.split()
        return Counter(tuple(w[i:i + k]) for i in range(len(w) - k + 1))

    df: Counter = Counter()
    for doc in docs:
        df.update(set(g for t in doc for g in grams(t)))
    log_n = np.log(float(len(docs)))

    def vec(t):
        v = {g: c * (log_n - np.log(max(1.0, df[g]))) for g, c in grams(t).items()}
        norm = 0.0
        for x in v.values():  # in order of first occurrence, each square by pow (as pycocoevalcap)
            norm += math.pow(x, 2)
        return v, math.sqrt(norm)

    n = len(ref_ptr) - 1
    out = []
    for i in range(n):
        vh, nh = vec(texts[i])
        for r in range(ref_ptr[i], ref_ptr[i + 1]):
            vr, nr = vec(texts[n + r])
            val = 0.0
            for g, w in vh.items():
                val += min(w, vr.get(g, 0.0)) * vr.get(g, 0.0)
            if nh != 0 and nr != 0:
                val /= nh * nr
            out.append(val)
    return np.array(out)


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_document_frequency_and_cider_values_equal_the_formulas(k):
    rng = np.random.default_rng(k)
    words = ["a", "b", "c", "d", "e"]
    n = 60

    def text():
        return " ".join(words[i] for i in rng.integers(0, len(words), int(rng.integers(0, 9))))

    hyps = [text() for _ in range(n)]
    refs = [[text() for _ in range(int(rng.integers(1, 5)))] for _ in range(n)]
    batch = items(hyps, refs)
    texts = batch.hyps + batch.refs
    toks = compiled.token_ids(texts)
    from vecscore.engine.batch import Ragged
    from vecscore.engine.counts import ngram_keys
    from vecscore.kernels.intern import intern_keys_chunked

    gram, goff, n_grams = toks.ids, toks.starts, toks.n_vocab
    for order in range(2, k + 1):  # as the compiled route makes them: from the ids one order shorter
        keys, goff = gram_keys(gram, goff, toks.ids, toks.starts, order, toks.n_vocab)
        gram, first = intern_flat(keys, 1, order % 2 == 0)  # both tables
        n_grams = len(first)
    if k > 1:  # the same ids (order of first occurrence) as vecscore's exact n-gram keys interned
        keys, off = ngram_keys(Ragged(toks.ids, toks.starts), k, toks.n_vocab)
        assert off.tolist() == goff.tolist()
        assert intern_keys_chunked(keys, 2)[0].tolist() == gram.tolist()
    df_owner = np.concatenate([np.full(n, -1), batch.owner]).astype(np.int64)
    df, most = document_frequency(gram, goff, df_owner, max(n_grams, 1), len(texts), 3)
    df1, most1 = document_frequency(gram, goff, df_owner, max(n_grams, 1), len(texts), 1)
    assert (df1.tolist(), most1) == (df.tolist(), most)
    want_most = max(Counter(tuple(t.split()[i:i + k]) for i in range(len(t.split()) - k + 1)).most_common(1)[0][1]
                    for t in texts if len(t.split()) >= k)
    assert most == want_most
    # df of every n-gram by its strings
    want_df: Counter = Counter()
    for rs in refs:
        want_df.update(set(tuple(t.split()[i:i + k]) for t in rs for i in range(len(t.split()) - k + 1)))
    got_df = {}
    flat = [w for t in texts for w in t.split()]
    for t in range(len(texts)):
        for p in range(int(goff[t]), int(goff[t + 1])):
            start = int(toks.starts[t]) + (p - int(goff[t]))
            got_df[tuple(flat[start:start + k])] = int(df[gram[p]])
    assert got_df == {g: want_df.get(g, 0) for g in got_df}
    idf, cls, values = idf_classes(df, float(np.log(float(n))))
    want = _cider_twin(refs, texts, batch.ref_ptr, k)
    for chunks in (1, 3):
        table = square_table(values)
        got = cider_values(gram, goff, batch.ref_ptr, idf, cls, table, table[1][cls], chunks)
        assert got.tolist() == want.tolist()  # bit for bit
    small = square_table(values, 1)
    assert cider_values(gram, goff, batch.ref_ptr, idf, cls, small, small[1][cls], 2) is None  # counts of 2+


def test_power_table_is_c_pow():
    """The kernel's squares are C's ``pow(w, 2)`` (``math.pow``), not ``w * w``: the two differ for some of these
    weights, so a compiler that turned one into the other would fail here."""
    from vecscore.kernels.coco import power_table

    values = np.random.default_rng(3).uniform(0.0, 12.0, 20_000)
    table = power_table(values, 4, 2.0)
    want = [[math.pow(k * v, 2) for v in values.tolist()] for k in range(5)]
    assert table.tolist() == want
    assert any(math.pow(v, 2) != v * v for v in values.tolist())  # the test can tell the two apart


@pytest.mark.parametrize("expected", [1, 5000, 10**6])
def test_intern_flat_equals_intern_keys(expected):
    """Ids in order of first occurrence, whatever the table's first size (1: it grows several times), in both
    layouts of its slots."""
    from vecscore.kernels.intern import intern_keys

    rng = np.random.default_rng(expected)
    wide = np.concatenate([rng.integers(-2**63, 2**63 - 1, 3000, dtype=np.int64), rng.integers(0, 900, 20000),
                           np.array([0, -1, 2**63 - 1, -2**63], dtype=np.int64)])
    small = np.concatenate([rng.integers(0, 2**31, 3000, dtype=np.int64), rng.integers(0, 900, 20000),
                            np.array([0, 2**31 - 1], dtype=np.int64)])
    for keys, packed in ((wide, False), (small, True), (small, False)):
        ids, first = intern_flat(keys, expected, packed)
        want_ids, want_first = intern_keys(keys)
        assert ids.tolist() == want_ids.tolist()
        assert first.tolist() == want_first.tolist()
        assert intern_flat(keys[:0], expected, packed)[0].size == 0


def test_compiled_route_equals_numpy_route(monkeypatch):
    """Same LCS lengths and CIDEr-D values (bit for bit) on both routes, texts with double spaces, tabs and
    Unicode spaces (where split(" ") and split() differ), and n-grams repeated beyond the table of squares."""
    from vecscore.coco import cider, rouge_l

    rng = np.random.default_rng(5)
    pieces = ["a", "b", "c", "dé", "", "\t", "\u00a0", "e f"]
    n = 80

    def text():
        return " ".join(pieces[i] for i in rng.integers(0, len(pieces), int(rng.integers(0, 90))))

    hyps = [text() for _ in range(n)]
    hyps[3] = "a " * 40  # 40 times one n-gram: beyond the kernel's table of squares
    batch = items(hyps, [[text() for _ in range(int(rng.integers(1, 4)))] for _ in range(n)])
    got = {}
    for route in ("plain", "compiled"):
        monkeypatch.setenv("VECSCORE_ROUTE", route)
        got[route] = (rouge_l.lcs_rows(batch), cider.item_scores(batch))
    for a, b in zip(got["plain"][0], got["compiled"][0]):
        assert np.array_equal(a, b)
    assert got["compiled"][1].tolist() == got["plain"][1].tolist()


def test_route_choice(monkeypatch):
    """``VECSCORE_ROUTE`` decides; under ``auto`` a small call takes NumPy until its kind ran compiled."""
    from vecscore import route

    batch = items(["a b"], [["a c"]])
    route.reset()
    monkeypatch.setenv("VECSCORE_ROUTE", "plain")
    assert not compiled.use_compiled(batch, compiled.ROUGE_KIND)
    monkeypatch.setenv("VECSCORE_ROUTE", "compiled")
    assert compiled.use_compiled(batch, compiled.ROUGE_KIND)
    monkeypatch.setenv("VECSCORE_ROUTE", "auto")
    assert not compiled.use_compiled(batch, compiled.ROUGE_KIND)
    compiled.lcs_rows(batch)  # a compiled call: the kind is warm in this process
    assert compiled.use_compiled(batch, compiled.ROUGE_KIND)
    assert not compiled.use_compiled(batch, compiled.CIDER_KIND)
    assert not compiled.use_compiled(items([], []), compiled.ROUGE_KIND)  # nothing to score
    route.reset()
    # a large call (20 million characters: past the plain route's budget at ROUGE-L's cost per character of
    # 0.25) takes the kernels when nothing is to be compiled in the background (the test suite turns that off),
    # also in a process where numba is not loaded yet (the budget is then the larger one)
    import vecscore._jit

    monkeypatch.setattr(vecscore._jit, "is_active", lambda: False)
    big = items(["a b c d " * 250] * 5_000, [["a b c e " * 250] * 3] * 5_000)
    assert compiled.use_compiled(big, compiled.ROUGE_KIND) and compiled.use_compiled(big, compiled.CIDER_KIND)
    route.reset()
