"""BLEU scores from statistics without numba: :mod:`vecscore.bleu.formulas` on plain kernels.

The formulas are :mod:`vecscore.bleu.formulas`' own code; only the loops it
hands to numba (a :class:`~vecscore.bleu.formulas.Kernels` set) run here as
plain Python: each kernel's own Python function, whose calls to other
kernels go to their Python functions too and whose ``prange`` is ``range``.
So both routes run the same float operations in the same order, with
``math.log``/``math.exp`` (libm, as numba calls it), and give the same
numbers bit for bit, whether or not numba has been loaded in the process.
"""
from __future__ import annotations

import types
from functools import partial

from vecscore.bleu import formulas as bf

__all__ = ["KERNELS", "sacrebleu_corpus", "sacrebleu_sentence", "nltk_corpus", "nltk_sentence"]


def plain_function(kernel):
    """The Python function of ``kernel`` (a lazy kernel, a numba dispatcher or a function), calling no numba.

    Every global of the function that is itself a kernel is replaced by its
    plain function (recursively), and ``prange`` by ``range``; the module's
    other globals are the module's.
    """
    fn = getattr(kernel, "py_func", kernel)
    space = dict(fn.__globals__)
    for name in fn.__code__.co_names:
        value = space.get(name)
        if name == "prange":
            space[name] = range
        elif hasattr(value, "py_func"):
            space[name] = plain_function(value)
    return types.FunctionType(fn.__code__, space, fn.__name__, fn.__defaults__, fn.__closure__)


#: :data:`vecscore.bleu.formulas.COMPILED`'s kernels as plain Python
KERNELS = bf.Kernels(*(plain_function(k) for k in (bf.COMPILED.sacre, bf.COMPILED.nltk_combine, bf.COMPILED.log)))


def _on_plain_kernels(formula):
    """``formula`` with ``kernels=KERNELS`` (a partial: no extra frame, so warnings point where they do on the
    compiled route)."""
    plain = partial(formula, kernels=KERNELS)
    plain.__doc__ = f":func:`vecscore.bleu.formulas.{formula.__name__}` on plain kernels."
    return plain


sacrebleu_corpus = _on_plain_kernels(bf.sacrebleu_corpus)
sacrebleu_sentence = _on_plain_kernels(bf.sacrebleu_sentence)
nltk_corpus = _on_plain_kernels(bf.nltk_corpus)
nltk_sentence = _on_plain_kernels(bf.nltk_sentence)
