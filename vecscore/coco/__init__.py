"""coco-caption's captioning metrics (pycocoevalcap 1.2): BLEU, ROUGE-L, CIDEr-D and the PTB tokenizer, in
NumPy, with no Java.

Drop-ins with pycocoevalcap's classes and calls (:class:`Bleu`, :class:`Rouge`, :class:`Cider`,
:class:`PTBTokenizer`) and vecscore-style functions on lists (:func:`coco_bleu`, :func:`coco_rouge_l`,
:func:`cider_d`, :func:`ptb_tokenize`), and :func:`evaluate`, coco-caption's whole evaluation in one
call.  METEOR and SPICE are not computed.
"""
from vecscore.coco.api import CocoBleu, CocoScore, cider_d, coco_bleu, coco_rouge_l
from vecscore.coco.evaluate import CocoEval, evaluate
from vecscore.coco.ptb import PTBTokenizer, ptb_tokenize
from vecscore.coco.scorers import Bleu, Cider, Rouge

__all__ = ["Bleu", "Rouge", "Cider", "PTBTokenizer", "CocoBleu", "CocoScore", "CocoEval", "coco_bleu", "coco_rouge_l",
           "cider_d", "ptb_tokenize", "evaluate"]
