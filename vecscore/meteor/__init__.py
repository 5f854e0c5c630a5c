"""METEOR without Java: meteor-1.5.jar's METEOR 1.5 and NLTK's ``meteor_score``, two different metrics.

* :func:`vecscore.meteor` (:mod:`vecscore.meteor.api`): METEOR 1.5 as ``meteor-1.5.jar`` computes it (the
  version coco-caption, nlg-eval and the E2E NLG scripts run): exact, stem, synonym and paraphrase modules,
  the jar's tasks and parameters, per-item and corpus scores; the jar's data is read from an installed
  pycocoevalcap.  :class:`vecscore.coco.Meteor` is pycocoevalcap's ``Meteor`` on it.
* :func:`vecscore.nltk_meteor_score` (:mod:`vecscore.meteor.nltk_meteor`): NLTK's ``meteor_score``, a
  different algorithm with different numbers (docs/meteor.md).
"""
from vecscore.meteor.api import MeteorResult, meteor
from vecscore.meteor.nltk_meteor import meteor_score, nltk_meteor_score, single_meteor_score

__all__ = ["meteor", "MeteorResult", "nltk_meteor_score", "meteor_score", "single_meteor_score"]
