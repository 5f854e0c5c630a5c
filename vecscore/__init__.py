"""vecscore: BLEU and ROUGE for millions of pairs, identical to the official tools."""
from vecscore._version import __version__
from vecscore.errors import EmptyTokenizationWarning, UndefinedMetricWarning, VecscoreError
from vecscore.results import RougeResult, Score
from vecscore.rouge import rouge
from vecscore.rouge_scorer import RougeScorer

__all__ = [
    "__version__",
    "rouge",
    "RougeScorer",
    "RougeResult",
    "Score",
    "VecscoreError",
    "EmptyTokenizationWarning",
    "UndefinedMetricWarning",
]
