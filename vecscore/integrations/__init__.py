"""Distributed engines around the engine-neutral :func:`vecscore.io.arrow.score_table`.

``vecscore.integrations.ray`` (extra ``vecscore[ray]``): Ray Data.  Dask and
Spark have documented recipes (``docs/recipes.md``) instead of a module.
"""
