"""BLEU's options as sacreBLEU names them, and the checks and warnings on its inputs.

:class:`Options` validates the arguments every BLEU entry point takes and writes
sacreBLEU's signature; :func:`check_kind` refuses a tokenizer on pre-tokenized
input; :func:`warn_tokenized` and :func:`warn_cjk` are sacreBLEU's warning about
tokenized hypotheses and vecscore's about CJK text under a word tokenizer.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import repeat

import numpy as np

from vecscore import built
from vecscore._jit import is_active
from vecscore.bleu import formulas as bf
from vecscore.bleu import plain as plain_bleu
from vecscore.bleu.stats import check_brevity_penalty
from vecscore.columns import TextColumn
from vecscore.errors import VecscoreError, VecscoreWarning, warn
from vecscore.text.library_tokenizers import LIBRARY_TOKENIZERS, line_tokenizer, signature_name

__all__ = ["Options", "TokenizedInputWarning", "SMOOTH_METHODS", "TOKENIZERS", "check_kind", "warn_cjk",
           "warn_tokenized"]

SMOOTH_METHODS = tuple(bf.SMOOTH_DEFAULTS)
#: sacreBLEU's tokenizers (:mod:`vecscore.text.sacrebleu_tokenizers`; the plain route implements them all), then
#: those that run MeCab or SentencePiece on each text (:mod:`vecscore.text.library_tokenizers`)
TOKENIZERS = plain_bleu.TOKENIZERS + LIBRARY_TOKENIZERS
_TOKENIZED_LIMIT = 100  # sacreBLEU warns from 100 hypotheses ending in " ."
#: more hypotheses than this, with numba loaded, are checked for sacreBLEU's warning where they lie
_READ_IN_PLACE = 4096


class TokenizedInputWarning(VecscoreWarning):
    """sacreBLEU's warning: 100 or more hypotheses end in " ." (tokenized input?)."""


@dataclass(frozen=True)
class Options:
    tokenize: str = "13a"
    lowercase: bool = False
    smooth_method: str = "exp"
    smooth_value: float | None = None
    max_ngram_order: int = 4
    effective_order: bool = False
    brevity_penalty: str = "closest"
    force: bool = False

    def __post_init__(self):
        if self.tokenize not in TOKENIZERS:
            raise VecscoreError(f"unknown tokenize {self.tokenize!r}; valid: {', '.join(TOKENIZERS)}")
        if self.tokenize in LIBRARY_TOKENIZERS:
            line_tokenizer(self.tokenize)  # its package, dictionary or model is there (else the error says the fix)
        if self.smooth_method not in bf.SMOOTH_DEFAULTS:
            raise VecscoreError(f"unknown smooth_method {self.smooth_method!r}; valid: {', '.join(SMOOTH_METHODS)}")
        if isinstance(self.max_ngram_order, bool) or not isinstance(self.max_ngram_order, (int, np.integer)) \
                or self.max_ngram_order < 1:
            raise VecscoreError(f"max_ngram_order must be an int >= 1, got {self.max_ngram_order!r}")
        check_brevity_penalty(self.brevity_penalty)

    @property
    def smooth_k(self):
        v = bf.SMOOTH_DEFAULTS[self.smooth_method] if self.smooth_value is None else self.smooth_value
        return v

    def signature(self, nrefs, short: bool = False) -> str:
        sig = bf.sacrebleu_signature(
            nrefs=nrefs, lowercase=self.lowercase, smooth_method=self.smooth_method,
            tokenize=signature_name(self.tokenize) if self.tokenize in LIBRARY_TOKENIZERS else self.tokenize,
            smooth_value=self.smooth_value, effective_order=self.effective_order, short=short,
        )
        if self.brevity_penalty != "closest":  # not sacreBLEU's BLEU: say so before the version
            head, _, version = sig.rpartition("|")
            sig = f"{head}|bp:{self.brevity_penalty}|{version}"
        return sig


def check_kind(kind: str, opts: Options) -> None:
    if kind != "text" and (opts.tokenize != "none" or opts.lowercase):
        raise VecscoreError(
            f"hyps are pre-tokenized ({kind}); pass tokenize='none' (and lowercase=False) so that no "
            "tokenizer is claimed in the signature"
        )


_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def warn_cjk(hyps, kind: str, opts: Options) -> None:
    """Warn when most of the hypotheses' characters are Chinese, Japanese or Korean and the tokenizer is a word one."""
    if kind != "text" or opts.tokenize not in ("13a", "intl"):
        return
    sample = "".join(hyps[:200])
    if sample.isascii():  # no CJK character
        return
    letters = len("".join(sample.split()))  # the characters that are not whitespace (str.isspace)
    if letters and len(_CJK.findall(sample)) * 2 > letters:
        warn(
            f"the hypotheses look like Chinese, Japanese or Korean text, which tokenize={opts.tokenize!r} does not "
            "split into words, so BLEU counts whole phrases as tokens and comes out very low. Use tokenize='zh' "
            "for Chinese (sacreBLEU's choice for WMT) or tokenize='char' (Japanese, Korean)",
            VecscoreWarning,
        )


def warn_tokenized(hyps, kind: str, opts: Options) -> None:
    if opts.force or kind != "text":
        return
    n = hyps.count_endswith(" .") if isinstance(hyps, TextColumn) else None
    if n is None and len(hyps) > _READ_IN_PLACE:  # a large call: ~2 ms of endswith calls in Python
        from vecscore.kernels import in_place

        if is_active() or built.has_kernel(in_place.ending_flags):  # never loads numba for it
            n = in_place.count_endings(hyps, " .")
    if n is None:
        n = list(map(str.endswith, hyps, repeat(" ."))).count(True)  # half the time of sum(map(methodcaller(...)))
    if n >= _TOKENIZED_LIMIT:
        warn(
            f"{n} hypotheses end in a tokenized period (' .'): it looks like you forgot to detokenize your test "
            "data, which may hurt your score (sacreBLEU's warning). If your data is detokenized, or you don't "
            "care, pass force=True.",
            TokenizedInputWarning,
        )
