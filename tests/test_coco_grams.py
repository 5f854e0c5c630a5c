"""vecscore.coco.grams' sorting helpers against their plain definitions (both branches: packed and argsort)."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from vecscore.coco.grams import lookup, max_by_key, ngram_ids, sort_order, tokens, unique_inverse


@pytest.fixture(params=[2**20, 2**62], ids=["packed", "argsort"])
def keys(request) -> np.ndarray:
    rng = np.random.default_rng(7)
    k = rng.integers(0, request.param, 5_000, dtype=np.int64)
    return np.concatenate([k, k[:1_000], k[:10]])  # repeats


def test_sort_order_is_a_stable_argsort(keys):
    s, order = sort_order(keys)
    want = np.argsort(keys, kind="stable")
    assert np.array_equal(order, want) and np.array_equal(s, keys[want])


def test_unique_inverse_is_numpys(keys):
    assert np.array_equal(unique_inverse(keys), np.unique(keys, return_inverse=True)[1])


def test_max_by_key(keys):
    values = np.random.default_rng(1).integers(0, 50, keys.size)
    best: dict = {}
    for k, v in zip(keys.tolist(), values.tolist()):
        best[k] = max(best.get(k, 0), v)
    got_k, got_v = max_by_key(keys, values)
    assert got_k.tolist() == sorted(best) and got_v.tolist() == [best[k] for k in sorted(best)]


@pytest.mark.parametrize("presorted", [False, True])
def test_lookup(keys, presorted):
    table = np.unique(keys[::2])
    values = np.arange(1, table.size + 1)
    wanted = np.sort(keys) if presorted else keys
    index = dict(zip(table.tolist(), values.tolist()))
    assert lookup(table, values, wanted, presorted).tolist() == [index.get(w, 0) for w in wanted.tolist()]


def test_ngram_ids_are_exact():
    texts = ["a b a b c", "", "b a b", "a b c a b c", "x"]
    toks = tokens(texts)
    words = [t.split() for t in texts]
    flat = [w for ws in words for w in ws]
    for k, (pos, ids) in enumerate(ngram_ids(toks, 4), start=1):
        grams = [tuple(flat[p:p + k]) for p in pos.tolist()]
        want = [g for ws in words for g in zip(*(ws[i:] for i in range(k)))]
        assert grams == want  # every n-gram inside one text, in order
        assert len(set(zip(grams, ids.tolist()))) == len(set(grams)) == len(set(ids.tolist()))
        assert Counter(ids.tolist()).most_common(1)[0][1] == Counter(grams).most_common(1)[0][1]


EDGE_TEXTS = ["a b", "", " ", "a  b ", " lead", "trail ", "x\ty\nz", "a\u00a0b\u3000c", "\x00", "a \x00 b", "a\x00b",
              "\x1c\x1d x", "ok"]


@pytest.mark.parametrize("chunk", [3, 1 << 14], ids=["chunks-of-3", "one-chunk"])
@pytest.mark.parametrize("sep", [None, " "])
@pytest.mark.parametrize("texts", [EDGE_TEXTS, [t for t in EDGE_TEXTS if "\x00" not in t], ["solo text"], []],
                         ids=["with-nul", "joined", "one", "none"])
def test_tokens_are_str_split(sep, texts, chunk, monkeypatch):
    """Both ways of splitting (one joined split, or per text when a text holds the joining marker), chunk after
    chunk, give every text's ``split(sep)``, with equal ids for equal strings across chunks."""
    from vecscore.coco import grams

    monkeypatch.setattr(grams, "_CHUNK", chunk)
    toks = tokens(texts) if sep is None else tokens(texts, sep=" ")
    got = [toks.ids[a:b].tolist() for a, b in zip(toks.starts[:-1].tolist(), toks.starts[1:].tolist())]
    want = [t.split(sep) for t in texts]
    assert [len(g) for g in got] == [len(w) for w in want]
    pairs = {(i, w) for g, ws in zip(got, want) for i, w in zip(g, ws)}
    assert len({i for i, _ in pairs}) == len({w for _, w in pairs}) == len(pairs)  # a bijection
    assert toks.ids.size == 0 or int(toks.ids.max()) < toks.n_vocab
