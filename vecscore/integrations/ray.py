"""Ray Data: score a ``ray.data.Dataset`` with an actor pool; corpus scores from summed statistics.

Install with ``pip install 'vecscore[ray]'`` (``ray[data]>=2.51,<3``)::

    import ray
    from vecscore.integrations.ray import score_dataset, corpus_score

    ds = ray.data.read_parquet("pairs/")                 # columns: id, hyp, ref (or refs: list<string>)
    scored = score_dataset(ds, metrics=["rouge1", "rougeL"], stats=True)
    scored.filter(expr="rougeL_fmeasure >= 0.3").write_parquet("kept/")
    corpus_score(scored, metrics=["rouge1", "rougeL"])   # exact means, micro ROUGE (and corpus BLEU)

Each actor builds its scorer once and runs one tiny batch in its
constructor, so numba kernels are loaded (or compiled) once per actor, not
per batch.  Batches are Arrow tables (``batch_format="pyarrow"``) passed to
:func:`vecscore.io.arrow.score_table`; per-row results are the same, bit for
bit, as scoring locally, whatever the batch size or the number of actors.
Corpus results come from int64 statistics and exact float sums per batch
(:class:`vecscore.io.stream.CorpusAccumulator`), merged on the driver, so they
too are independent of how Ray splits the data.

Resources: every actor takes ``num_cpus_per_actor`` CPUs (default 0.5).  Keep
it below the node's CPU count: on a 2-CPU node, two 1-CPU actors plus Ray's
read tasks deadlock (actors pending forever).
"""
from __future__ import annotations

import pickle
from collections.abc import Sequence

from vecscore.errors import MissingDependencyError, VecscoreError
from vecscore.io.arrow import is_stat_column, score_columns, score_table
from vecscore.io.stream import CorpusAccumulator, ScoreChunk, make_spec

__all__ = ["score_dataset", "corpus_score", "RayScorer"]


def _ray():
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError:  # pragma: no cover - depends on the environment
        raise MissingDependencyError("the Ray integration needs Ray Data: pip install 'vecscore[ray]'") from None
    return ray


class RayScorer:
    """A callable class for ``Dataset.map_batches``: one instance per actor, kernels loaded once."""

    def __init__(self, spec, hyp_column: str, ref_columns, stats: bool, workers=None) -> None:
        self.spec, self.hyp_column, self.ref_columns = spec, hyp_column, ref_columns
        self.stats, self.workers = stats, workers
        self.spec.score(["warm up the kernels"], ["warm up kernels"])  # load/compile numba code once per actor

    def __call__(self, batch):
        return score_table(batch, hyp_column=self.hyp_column, ref_columns=self.ref_columns, spec=self.spec,
                           stats=self.stats, workers=self.workers)


def _spec(spec, metrics, rouge_options, bleu_options, rouge155_options):
    if spec is not None:
        return spec
    return make_spec(metrics, rouge_options=rouge_options, bleu_options=bleu_options, rouge155_options=rouge155_options)


def score_dataset(
    ds,
    *,
    hyp_column: str = "hyp",
    ref_columns: str | Sequence[str] = "ref",
    metrics: Sequence[str] = ("rouge1", "rouge2", "rougeL"),
    stats: bool = False,
    rouge_options: dict | None = None,
    bleu_options: dict | None = None,
    rouge155_options: dict | None = None,
    spec=None,
    batch_size: int = 4096,
    num_actors: int | tuple = 1,
    num_cpus_per_actor: float = 0.5,
    workers: int | None = 1,
):
    """``ds`` with score columns appended (lazily; Ray executes on consumption).

    Parameters are those of :func:`vecscore.io.arrow.score_table`, plus:

    batch_size : int
        Rows per Arrow batch handed to an actor.
    num_actors : int or (min, max)
        Size of the actor pool (``ray.data.ActorPoolStrategy``).
    num_cpus_per_actor : float
        CPUs reserved per actor (keep the total below the cluster's CPUs).
    workers : int, optional
        numba threads inside each actor (default 1: parallelism comes from
        the actors; ``None`` leaves numba's default).
    """
    ray = _ray()
    spec = _spec(spec, metrics, rouge_options, bleu_options, rouge155_options)
    size = (dict(min_size=num_actors[0], max_size=num_actors[1]) if isinstance(num_actors, tuple)
            else dict(size=num_actors))
    return ds.map_batches(
        RayScorer,
        fn_constructor_kwargs=dict(spec=spec, hyp_column=hyp_column, ref_columns=ref_columns, stats=stats,
                                   workers=workers),
        batch_format="pyarrow",
        batch_size=batch_size,
        compute=ray.data.ActorPoolStrategy(**size),
        num_cpus=num_cpus_per_actor,
    )


def _partial_sums(batch, spec):
    """One row per batch: the pickled accumulator of that batch (int64 sums, exact float sums)."""
    import pyarrow as pa

    names = set(batch.column_names)
    wanted = score_columns(spec)
    missing = [c for c in wanted if c not in names]
    if missing:
        raise VecscoreError(f"the dataset lacks the score columns {missing}; score it with score_dataset(..., "
                            "stats=True) first")
    columns = {c: batch.column(c).to_numpy() for c in wanted}
    stats = {c: batch.column(c).to_numpy() for c in names if is_stat_column(c, spec)}
    acc = CorpusAccumulator(spec)
    acc.add(ScoreChunk(0, batch.num_rows, columns, stats, ""))
    return pa.table({"vecscore_partial": pa.array([pickle.dumps(acc)], pa.binary())})


def corpus_score(
    ds,
    *,
    metrics: Sequence[str] = ("rouge1", "rouge2", "rougeL"),
    rouge_options: dict | None = None,
    bleu_options: dict | None = None,
    rouge155_options: dict | None = None,
    spec=None,
    batch_size: int = 65536,
) -> dict:
    """Corpus summary of a dataset scored by :func:`score_dataset` with ``stats=True``.

    Means are exact (correctly rounded), micro ROUGE and corpus BLEU come
    from summed int64 statistics: the same numbers as scoring the whole
    corpus locally with :func:`vecscore.io.stream.score_corpus`, bit for bit.
    (The ``signature`` is not carried through Ray; take it from a local call.)
    """
    _ray()
    spec = _spec(spec, metrics, rouge_options, bleu_options, rouge155_options)
    needs_stats = spec.has_stats
    if needs_stats:
        names = set(ds.schema().names)
        stat_cols = [c for c in names if is_stat_column(c, spec)]
        if not stat_cols:
            raise VecscoreError("the dataset has no statistics columns; score it with score_dataset(..., stats=True)")
    parts = ds.map_batches(_partial_sums, fn_kwargs=dict(spec=spec), batch_format="pyarrow", batch_size=batch_size)
    total = CorpusAccumulator(spec)
    for row in parts.iter_rows():
        total.merge(pickle.loads(row["vecscore_partial"]))
    return total.summary()
