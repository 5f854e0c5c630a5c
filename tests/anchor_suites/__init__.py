"""The anchors' own test suites (sacreBLEU 2.6.0, rouge-score 0.1.2) run against vecscore's drop-ins.

The suites are not part of this repository: ``tests/test_anchor_suites.py`` downloads the anchors' source
distributions from PyPI at test time and runs their tests unchanged, in a subprocess, with one of the plugins
here loaded (``-p``), which puts vecscore's functions and classes in place of the anchor's before the tests
import them.  ``expected.py`` lists the tests left out, each with its reason.
"""
