"""BLEU statistics without numba: sacreBLEU's tokenizers and clipped n-gram counts in plain Python.

The small-batch route of :mod:`vecscore.bleu.api` and :mod:`vecscore.bleu.nltk`.
Texts are tokenized as sacreBLEU 2.6's BLEU does (``text.lower()`` first when
``lowercase``, then ``tokenizer(text.rstrip()).split()``) with the regular
expressions of its tokenizers; token lists are taken as they are.  Each
text's n-grams of orders ``1..K`` are counted in :class:`collections.Counter`
objects, the references of a pair are merged into each n-gram's maximum
count, and the hypothesis counts are clipped by them: the same
:class:`~vecscore.bleu.stats.BleuStats` as the compiled kernels, the same
reference-length rule (closest, ties to the shorter; or shortest).

Tokenizers (:data:`TOKENIZERS`, all of vecscore's sacreBLEU tokenizers):
``13a``, ``intl`` (through the ``regex`` module, as sacreBLEU and vecscore's
character tables), ``zh`` (with sacrebleu#298's character ranges, see
:mod:`vecscore.text.unicode_tables`), ``zh-fixed``, ``char`` and ``none``.
Token ids are left to the compiled route (:func:`supports`).
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from itertools import chain

import numpy as np

from vecscore.bleu.stats import BleuStats
from vecscore.errors import VecscoreError
from vecscore.references import Refs
from vecscore.route import COST, capped_sum, text_chars, use_plain
from vecscore.row_errors import check_unicode
from vecscore.text.library_tokenizers import LIBRARY_TOKENIZERS, line_tokenizer
from vecscore.text.unicode_tables import ZH_FIXED_RANGES, ZH_RANGES

__all__ = [
    "TOKENIZERS",
    "supports",
    "text_size",
    "plain_inputs",
    "tokenize_rows",
    "RefTable",
    "reference_table",
    "bleu_stats",
]

# ``pattern.sub(template, line)`` expands the template in Python for every match (CPython 3.11), so the
# rules below split on the pattern instead (the same matches, found by the same scan) and pad the captured
# pieces that the template pads: "".join of the pieces is then sub's result.
_SPACED = {c: f" {c} " for c in ".,-"}.__getitem__


def _spaced_each(split):
    r"""``split``'s pattern has one group; ``sub(r" \1 ", line)``."""
    return lambda line: " ".join(split(line))


def _spaced_group(split, group: int):
    r"""``split``'s pattern has two groups, the padded one (``group``) matching ``.``, ``,`` or ``-`` only;
    ``sub`` with a template that puts one space before and after that group."""

    def apply(line: str) -> str:
        parts = split(line)
        if len(parts) > 1:
            parts[group::3] = map(_SPACED, parts[group::3])
        return "".join(parts)

    return apply


# mteval-v13a's punctuation rules (sacreBLEU's TokenizerRegexp), shared by 13a and zh
_PUNCT = (
    _spaced_each(re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])").split),  # r" \1 ": ASCII punctuation but . , - '
    _spaced_group(re.compile(r"([^0-9])([\.,])").split, 2),  # r"\1 \2 ": . and , after a non-digit
    _spaced_group(re.compile(r"([\.,])([^0-9])").split, 1),  # r" \1 \2": . and , before a non-digit
    _spaced_group(re.compile(r"([0-9])(-)").split, 2),  # r"\1 \2 ": - after a digit
)


def _punct(line: str) -> list[str]:
    for rule in _PUNCT:
        line = rule(line)
    return line.split()


def _tok_13a(line: str) -> list[str]:
    """mteval-v13a: ``<skipped>`` and ``-\\n`` removed, newlines to spaces, four entities, padding."""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    return _punct(f" {line} ")


def _char_class(ranges):
    r"""``sub(r" \1 ", line)`` for one character of the code point ``ranges``."""
    return _spaced_each(re.compile("([" + "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in ranges) + "])").split)


@cache
def _zh_spaced(fixed: bool):
    """The Chinese-character rule, compiled on first use (a large character class)."""
    return _char_class(ZH_FIXED_RANGES if fixed else ZH_RANGES)


def _tok_zh(line: str) -> list[str]:
    """sacreBLEU's zh: ``strip()``, spaces around every Chinese character, then 13a's punctuation rules."""
    return _punct(_zh_spaced(False)(line.strip()))


def _tok_zh_fixed(line: str) -> list[str]:
    """``zh`` with the Chinese ranges as intended (vecscore's ``zh-fixed``)."""
    return _punct(_zh_spaced(True)(line.strip()))


@cache
def _intl_rules() -> tuple:
    """mteval-v14's rules, in the ``regex`` module's Unicode classes (imported on first use)."""
    import regex

    return tuple((regex.compile(pattern).sub, repl) for pattern, repl in (
        (r"(\P{N})(\p{P})", r"\1 \2 "),  # punctuation after a non-number
        (r"(\p{P})(\P{N})", r" \1 \2"),  # punctuation before a non-number
        (r"(\p{S})", r" \1 "),  # every symbol
    ))


def _tok_intl(line: str) -> list[str]:
    """mteval-v14: Unicode punctuation split off unless between a non-number and a number; every symbol."""
    for sub, repl in _intl_rules():
        line = sub(repl, line)
    return line.split()


def _tok_char(line: str) -> list[str]:
    """Every non-whitespace character."""
    return list("".join(line.split()))


#: sacreBLEU tokenizer name -> tokens of one (right-stripped) text
_TOKENIZE = {
    "13a": _tok_13a,
    "intl": _tok_intl,
    "zh": _tok_zh,
    "zh-fixed": _tok_zh_fixed,
    "char": _tok_char,
    "none": str.split,
}
TOKENIZERS = tuple(_TOKENIZE)


def supports(kind: str, tokenize: str | None) -> bool:
    """Whether this route computes statistics of input ``kind`` with tokenizer ``tokenize``.

    Texts with any of :data:`TOKENIZERS` or of :data:`~vecscore.text.library_tokenizers.LIBRARY_TOKENIZERS`;
    token lists (``tokenize`` ignored).
    """
    return kind == "tokens" or (kind == "text" and (tokenize in _TOKENIZE or tokenize in LIBRARY_TOKENIZERS))


def cost_per_char(kind: str, tokenize: str | None) -> int:
    """The relative cost per character of this call on the plain route (:data:`vecscore.route.COST`)."""
    if kind == "text" and tokenize == "char":
        return COST["bleu-char"]
    if kind == "text" and tokenize in ("zh", "zh-fixed"):
        return COST["bleu-zh"]
    return COST["bleu"]


def text_size(kind: str, hyps, flat_refs) -> int:
    """The call's size for :func:`vecscore.route.use_plain`: characters of its texts (or of its tokens)."""
    if kind == "tokens":
        return capped_sum(map(len, chain(chain.from_iterable(hyps), chain.from_iterable(flat_refs))))
    return text_chars(hyps, flat_refs)


def _hyps_size(kind: str, hyps) -> int:
    """:func:`text_size` of unvalidated hypotheses alone (0 when a row has no length: validation reports it)."""
    try:
        return text_size(kind, hyps, ())
    except TypeError:
        return 0


def warm_key(kind: str, tokenize: str | None) -> tuple:
    """The kind of call for :func:`vecscore.route.use_plain`'s ``warm``."""
    return ("bleu", kind, tokenize)


def plain_inputs(hyps, refs: Refs, *, kind: str, tokenize: str | None):
    """``(hyps, flat_refs, ref_ptr)`` of rows read once (:func:`vecscore.inputs.read_rows`,
    :func:`vecscore.references.read_refs`) when the call takes the plain route, its texts checked for invalid
    Unicode; ``None`` for the compiled route.

    The hypotheses alone decide first, so that a batch too big for the plain
    route goes to the compiled route without counting its references.
    """
    cost = cost_per_char(kind, tokenize)
    warm = warm_key(kind, tokenize)
    if not use_plain(supports(kind, tokenize), lambda: _hyps_size(kind, hyps), cost, warm, final=False):
        return None
    hyps = list(hyps)
    if not use_plain(True, lambda: text_size(kind, hyps, refs.flat), cost, warm):
        return None
    check_unicode(hyps, "hyps")
    check_unicode(refs, "refs")
    return hyps, refs.flat, refs.ptr


def tokenize_rows(rows, kind: str, name: str | None, lowercase: bool = False, first: int = 0) -> list[list[str]]:
    """Tokens of every row: sacreBLEU's ``name`` tokenizer for texts, token lists as they are.

    ``first``: the index of ``rows[0]`` in the call's texts (hypotheses, then
    references), for the message about a text that cannot be encoded.
    """
    if kind == "tokens":
        return [list(r) for r in rows]
    _check_encodable(rows, first)
    tok = _TOKENIZE[name] if name in _TOKENIZE else line_tokenizer(name)
    if lowercase:
        return [tok(t.lower().rstrip()) for t in rows]
    return [tok(t.rstrip()) for t in rows]


def _check_encodable(rows, first: int) -> None:
    """The compiled route's error for a lone surrogate (it encodes texts as UTF-8)."""
    for i, t in enumerate(rows):
        if not t.isascii():
            try:
                t.encode("utf-8")
            except UnicodeEncodeError:
                raise VecscoreError(
                    f"texts[{first + i}] contains a lone surrogate code point; clean or re-decode it"
                ) from None


def _ngram_counts(toks: list[str], max_order: int) -> Counter:
    """Counts of the n-grams of orders ``1..max_order``, keyed by tuples of tokens (the order is the length)."""
    return Counter(chain.from_iterable(zip(*[toks[i:] for i in range(n)]) for n in range(1, max_order + 1)))


def _max_counts(per_ref: list[Counter]) -> Counter:
    """Each n-gram's maximum count over a pair's references."""
    if len(per_ref) <= 1:
        return per_ref[0] if per_ref else Counter()
    merged = per_ref[0].copy()
    get = merged.get
    for counts in per_ref[1:]:
        for gram, count in counts.items():
            if count > get(gram, 0):
                merged[gram] = count
    return merged


def _clipped(hyp: Counter, ref: Counter, max_order: int) -> list[int]:
    """Per order: hypothesis n-gram counts clipped by the references' maxima, summed."""
    get = ref.get
    hits = [0] * max_order
    for gram, count in hyp.items():
        r = get(gram)
        if r:
            hits[len(gram) - 1] += count if count < r else r
    return hits


def _ref_len(hyp_len: int, lens: list[int], shortest: bool) -> int:
    """The brevity penalty's reference length (the compiled ``_lengths_kernel``'s rule)."""
    best = -1
    for r in lens:
        if best < 0:
            best = r
        elif shortest:
            best = min(best, r)
        else:
            gap, best_gap = abs(r - hyp_len), abs(best - hyp_len)
            if gap < best_gap or (gap == best_gap and r < best):
                best = r
    return max(best, 0)


@dataclass(frozen=True)
class RefTable:
    """References tokenized and counted once: per pair, the reference lengths and n-gram maxima.

    :meth:`statistics` scores any number of hypothesis sets against them
    (the plain route of :class:`vecscore.bleu.BLEU`'s cached references).
    """

    kind: str
    tokenize: str | None
    lowercase: bool
    max_order: int
    lens: list[list[int]]
    counts: list[Counter]
    nrefs: np.ndarray

    @property
    def n_pairs(self) -> int:
        return len(self.lens)

    def statistics(self, hyps, brevity_penalty: str = "closest") -> BleuStats:
        """:class:`BleuStats` of validated ``hyps`` (one per pair, of this table's kind)."""
        return self.token_statistics(tokenize_rows(hyps, self.kind, self.tokenize, self.lowercase), brevity_penalty)

    def token_statistics(self, hyp_tokens: list[list[str]], brevity_penalty: str = "closest") -> BleuStats:
        """:class:`BleuStats` of tokenized hypotheses (one token list per pair)."""
        k = self.max_order
        shortest = brevity_penalty == "shortest"
        sys_len, ref_len, correct, total = [], [], [], []
        for toks, lens, ref in zip(hyp_tokens, self.lens, self.counts):
            n = len(toks)
            sys_len.append(n)
            ref_len.append(_ref_len(n, lens, shortest))
            correct.append(_clipped(_ngram_counts(toks, k), ref, k))
            total.append([max(n - i, 0) for i in range(k)])
        shape = (len(sys_len), k)
        return BleuStats(np.array(sys_len, np.int64), np.array(ref_len, np.int64),
                         np.array(correct, np.int64).reshape(shape), np.array(total, np.int64).reshape(shape),
                         self.nrefs)


def reference_table(flat_refs, ref_ptr, *, kind: str, tokenize: str | None, lowercase: bool, max_order: int,
                    first: int = 0) -> RefTable:
    """A :class:`RefTable` of validated, flattened references (pair ``i``: ``flat_refs[ref_ptr[i]:ref_ptr[i+1]]``).

    ``first``: the index of ``flat_refs[0]`` in the call's texts (for messages).
    """
    toks = tokenize_rows(flat_refs, kind, tokenize, lowercase, first)
    lens = [len(t) for t in toks]
    counts = [_ngram_counts(t, max_order) for t in toks]
    bounds = np.asarray(ref_ptr).tolist()
    pairs = range(len(bounds) - 1)
    return RefTable(
        kind, tokenize, lowercase, max_order,
        [lens[bounds[i]: bounds[i + 1]] for i in pairs],
        [_max_counts(counts[bounds[i]: bounds[i + 1]]) for i in pairs],
        np.diff(np.asarray(ref_ptr, np.int64)),
    )


def bleu_stats(hyps, flat_refs, ref_ptr, *, kind: str, tokenize: str | None, lowercase: bool, max_order: int,
               brevity_penalty: str) -> BleuStats:
    """:class:`BleuStats` of rows read once (``flat_refs``, ``ref_ptr``: a :class:`vecscore.references.Refs`'
    ``flat`` and ``ptr``)."""
    hyp_tokens = tokenize_rows(hyps, kind, tokenize, lowercase)  # hypotheses first, as the compiled route
    table = reference_table(flat_refs, ref_ptr, kind=kind, tokenize=tokenize, lowercase=lowercase,
                            max_order=max_order, first=len(hyps))
    return table.token_statistics(hyp_tokens, brevity_penalty)
