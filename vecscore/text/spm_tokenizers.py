"""sacreBLEU's SentencePiece tokenizers (``flores101``, ``flores200``, ``spBLEU-1K``, ``spm``) from a model file
already on disk.

Each name is a SentencePiece model that sacreBLEU downloads on first use;
vecscore never downloads.  A text's tokens are
``" ".join(model.EncodeAsPieces(text)).split()``, as sacreBLEU 2.6 computes
them (``spm`` is sacreBLEU's older name of ``flores101``: the same model and
signature).

Where the model is looked for, in order, under sacreBLEU's own file name
(:data:`MODEL_FILES`):

1. the folder named by the environment variable ``VECSCORE_SPM_DIR``;
2. ``$SACREBLEU/models``, else ``~/.sacrebleu/models``: where sacreBLEU
   keeps the model after downloading it, so a machine that has run
   sacreBLEU with the tokenizer once has it already.

A missing model raises :class:`~vecscore.errors.VecscoreError` with the
paths tried and the address to download it from.  Needs the
``sentencepiece`` package.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache, lru_cache

from vecscore.errors import MissingDependencyError, VecscoreError

__all__ = ["SPM_TOKENIZERS", "MODEL_FILES", "model_path", "line_tokenizer", "signature_name"]

#: name -> (the model's file name, sacreBLEU's signature, where sacreBLEU downloads it from)
_MODELS = {
    "flores101": ("sacrebleu_tokenizer_spm.model", "flores101",
                  "https://dl.fbaipublicfiles.com/fairseq/models/flores/sacrebleu_tokenizer_spm.model"),
    "flores200": ("flores200sacrebleuspm", "flores200", "https://tinyurl.com/flores200sacrebleuspm"),
    "spBLEU-1K": ("spbleu-1k_tokenizer_spm.model", "spBLEU-1K",
                  "https://www.dlnlp.ai/spBLEU-1K/spbleu-1k_tokenizer_spm.model"),
}
_MODELS["spm"] = _MODELS["flores101"]
SPM_TOKENIZERS = ("flores101", "flores200", "spBLEU-1K", "spm")
#: the file name of each tokenizer's model (sacreBLEU's)
MODEL_FILES = {name: file for name, (file, _, _) in _MODELS.items()}
#: the texts whose tokens each model keeps (sacreBLEU's ``lru_cache(maxsize=2**16)``)
CACHE_TEXTS = 2**16


def _folders() -> list[str]:
    folders = []
    mine = os.environ.get("VECSCORE_SPM_DIR")
    if mine:
        folders.append(os.path.expanduser(mine))
    sacrebleu_dir = os.environ.get("SACREBLEU", os.path.join(os.path.expanduser("~"), ".sacrebleu"))
    folders.append(os.path.join(sacrebleu_dir, "models"))
    return folders


def model_path(name: str) -> str:
    """The model file of tokenizer ``name``; :class:`~vecscore.errors.VecscoreError` when none is found."""
    file, _, url = _MODELS[name]
    tried = [os.path.join(folder, file) for folder in _folders()]
    for path in tried:
        if os.path.isfile(path):
            return path
    raise VecscoreError(
        f"tokenize={name!r} needs its SentencePiece model {file!r}, which vecscore does not download; it is in none "
        f"of: {', '.join(tried)}. Download it from {url} into one of these folders (for example "
        f"`curl -L -o {tried[-1]} {url}`; sacreBLEU puts it there itself when it first uses {name!r}), or set "
        "VECSCORE_SPM_DIR to the folder that holds it"
    )


@cache
def _pieces(path: str, mtime_ns: int) -> Callable[[str], tuple[str, ...]]:
    """A model's tokens of one text, cached per text; a changed file is loaded again (``mtime_ns``)."""
    try:
        import sentencepiece
    except ImportError as exc:
        raise MissingDependencyError(
            "the SentencePiece tokenizers need the sentencepiece package: pip install sentencepiece"
        ) from exc
    model = sentencepiece.SentencePieceProcessor()
    try:
        model.Load(path)
    except (OSError, RuntimeError) as exc:
        raise VecscoreError(f"cannot load the SentencePiece model {path}: {exc}; is it a SentencePiece model?") \
            from None
    encode = model.EncodeAsPieces

    @lru_cache(maxsize=CACHE_TEXTS)
    def tokens(line: str) -> tuple[str, ...]:
        return tuple(" ".join(encode(line)).split())

    return tokens


def line_tokenizer(name: str) -> Callable[[str], list[str]]:
    """The tokens of one text for sacreBLEU's SentencePiece tokenizer ``name`` (its model found now)."""
    path = model_path(name)
    tokens = _pieces(path, os.stat(path).st_mtime_ns)

    def tokenize(line: str) -> list[str]:
        return list(tokens(line))

    return tokenize


def signature_name(name: str) -> str:
    """sacreBLEU's ``tok:`` value (``spm`` signs as ``flores101``)."""
    return _MODELS[name][1]
