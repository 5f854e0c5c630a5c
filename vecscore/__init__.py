"""vecscore: BLEU and ROUGE for millions of pairs, identical to the official tools."""
from vecscore._version import __version__
from vecscore.bleu import BLEU, corpus_bleu, sentence_bleu
from vecscore.bleu_nltk import nltk_corpus_bleu, nltk_sentence_bleu
from vecscore.memory import tune_memory
from vecscore.errors import EmptyTokenizationWarning, UndefinedMetricWarning, VecscoreError
from vecscore.results import RougeResult, Score
from vecscore.rouge import rouge
from vecscore.rouge155 import perl_average, rouge155, rouge155_args
from vecscore.rouge_scorer import RougeScorer
from vecscore.rouge_weighted import rouge_weighted

__all__ = [
    "__version__",
    "rouge",
    "RougeScorer",
    "BLEU",
    "corpus_bleu",
    "sentence_bleu",
    "nltk_corpus_bleu",
    "nltk_sentence_bleu",
    "rouge155",
    "rouge155_args",
    "perl_average",
    "rouge_weighted",
    "tune_memory",
    "RougeResult",
    "Score",
    "VecscoreError",
    "EmptyTokenizationWarning",
    "UndefinedMetricWarning",
]
