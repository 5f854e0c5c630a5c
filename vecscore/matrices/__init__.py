"""Score matrices: every hypothesis against every reference (MBR decoding, self-BLEU, near-duplicates).

Front doors: :mod:`vecscore.matrices.api` (``pairwise``, ``pairwise_batch``), :mod:`vecscore.matrices.mbr`,
:mod:`vecscore.matrices.diversity` (``self_bleu`` and its kin) and :mod:`vecscore.matrices.similar`
(``similar_pairs``).  Below them, one cells module per family of metrics (:mod:`vecscore.matrices.registry`
names them): each text is tokenized and counted once (``prepare``), and a kernel fills the grid of cells
(``grid``).
"""
