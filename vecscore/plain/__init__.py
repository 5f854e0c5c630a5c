"""The small-batch route: the same integer statistics as the kernels, in Python and NumPy.

Nothing here imports numba or a kernel module, so a call routed here
(:mod:`vecscore.route`) scores in a fresh environment without compiling
anything.  Each module mirrors one compiled path and is tested against it bit
for bit on the real corpora.
"""
