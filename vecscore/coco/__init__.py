"""coco-caption's captioning metrics (pycocoevalcap 1.2): BLEU, METEOR, ROUGE-L, CIDEr-D and the PTB tokenizer,
with no Java.

Drop-ins with pycocoevalcap's classes and calls (:class:`Bleu`, :class:`Meteor`, :class:`Rouge`, :class:`Cider`,
:class:`PTBTokenizer`) and vecscore-style functions on lists (:func:`coco_bleu`, :func:`coco_rouge_l`,
:func:`cider_d`, :func:`ptb_tokenize`), and :func:`evaluate`, coco-caption's whole evaluation in one
call.  :class:`Meteor` reads meteor-1.5.jar's data from the installed pycocoevalcap (:mod:`vecscore.meteor`); SPICE
is not computed.
"""
from vecscore.coco.api import CocoBleu, CocoScore, cider_d, coco_bleu, coco_rouge_l
from vecscore.coco.evaluate import CocoEval, evaluate
from vecscore.coco.meteor import Meteor
from vecscore.coco.ptb import PTBTokenizer, ptb_tokenize
from vecscore.coco.scorers import Bleu, Cider, Rouge

__all__ = ["Bleu", "Meteor", "Rouge", "Cider", "PTBTokenizer", "CocoBleu", "CocoScore", "CocoEval", "coco_bleu",
           "coco_rouge_l", "cider_d", "ptb_tokenize", "evaluate"]
