"""Plain-Python twins: ROUGE-1.5.5 createSkipBigram + skipBigramScore, word-length-weighted ROUGE."""
from __future__ import annotations

from collections import Counter


def skip_bigrams(tokens, gap, unigrams="none"):
    """The script's loop: unigram of t_i (not the last one unless unigrams == 'all'), then pairs within the gap."""
    c = Counter()
    for i in range(len(tokens)):
        if unigrams == "all" or (unigrams == "perl" and i < len(tokens) - 1):
            c[(tokens[i],)] += 1
        for j in range(i + 1, len(tokens)):
            if gap >= 0 and j > i + gap + 1:
                break
            c[(tokens[i], tokens[j])] += 1
    return c


def skip_bigram_hits(hyp, ref, gap, unigrams="none"):
    h, r = skip_bigrams(hyp, gap, unigrams), skip_bigrams(ref, gap, unigrams)
    return sum(min(v, h[k]) for k, v in r.items()), sum(h.values()), sum(r.values())


def weighted_ngram(hyp, ref, n):
    def grams(t):
        return Counter(tuple(t[i:i + n]) for i in range(len(t) - n + 1))

    def w(g):
        return sum(len(x) for x in g)

    h, r = grams(hyp), grams(ref)
    hits = sum(w(g) * min(c, h[g]) for g, c in r.items())
    return hits, sum(w(g) * c for g, c in h.items()), sum(w(g) * c for g, c in r.items())


def weighted_lcs(a, b):
    """Textbook DP: maximum total characters of a common subsequence."""
    C = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                C[i][j] = C[i - 1][j - 1] + len(a[i - 1])
            else:
                C[i][j] = max(C[i - 1][j], C[i][j - 1])
    return C[-1][-1]
