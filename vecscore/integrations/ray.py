"""Ray Data: score a ``ray.data.Dataset`` with an actor pool; corpus scores from summed statistics.

Install with ``pip install 'vecscore[ray]'`` (``ray[data]>=2.51,<3``)::

    import ray
    from ray.data.expressions import col
    from vecscore.integrations.ray import score_dataset, corpus_score

    ds = ray.data.read_parquet("pairs/")                 # columns: id, hyp, ref (or refs: list<string>)
    scored = score_dataset(ds, metrics=["rouge1", "rougeL"], stats=True).materialize()
    scored.filter(expr=col("rougeL_fmeasure") >= 0.3).write_parquet("kept/")
    corpus_score(scored, metrics=["rouge1", "rougeL"])   # exact means, micro ROUGE (and corpus BLEU)

Each actor builds its scorer once and runs one tiny batch in its
constructor, so numba kernels are loaded (or compiled) once per actor, not
per batch.  Batches are Arrow tables (``batch_format="pyarrow"``) passed to
:func:`vecscore.io.arrow.score_table`; per-row results are the same, bit for
bit, as scoring locally, whatever the batch size or the number of actors.
Corpus results come from int64 statistics and exact float sums per batch
(:class:`vecscore.io.stream.CorpusAccumulator`), merged on the driver, so they
too are independent of how Ray splits the data.

Resources: every actor takes ``num_cpus_per_actor`` CPUs (default 0.5), and
Ray Data's read and write tasks need one CPU besides the pool, or the pipeline
waits for ever (on a 2-CPU node, two 1-CPU actors never receive a batch).  By
default the pool grows from one actor to as many as the cluster's CPUs hold
with that CPU left over; a pool whose minimum does not fit is refused at once
with a :class:`~vecscore.errors.VecscoreError`.  On an autoscaling cluster,
give ``num_actors=(min, max)`` with a minimum the cluster has now: only the
minimum is checked, and Ray Data grows the pool as nodes join.
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


# Ray Data's read and write tasks take one CPU each; a pool that leaves less than this idle starves them
_TASK_CPUS = 1.0


def _cluster_cpus(ray) -> float:
    if not ray.is_initialized():
        ray.init()  # what Ray Data does on first use; the pool is sized from the cluster it joins or starts
    return float(ray.cluster_resources().get("CPU", 0.0))


def _pool_size(num_actors, num_cpus_per_actor, cpus: float) -> tuple[int, int]:
    """``(min, max)`` actors: checked against the CPUs the cluster has, one left for Ray Data's tasks."""
    if isinstance(num_cpus_per_actor, bool) or not isinstance(num_cpus_per_actor, (int, float)) \
            or not num_cpus_per_actor >= 0:
        raise VecscoreError(f"num_cpus_per_actor={num_cpus_per_actor!r}; give a number of CPUs >= 0 (e.g. 0.5)")
    room = cpus - _TASK_CPUS
    fit = int(room // num_cpus_per_actor) if num_cpus_per_actor > 0 else max(1, int(cpus))
    if num_actors is None:
        low, high = 1, max(1, fit)
    elif isinstance(num_actors, tuple) and len(num_actors) == 2 and all(
            isinstance(n, int) and not isinstance(n, bool) for n in num_actors) and 1 <= num_actors[0] <= num_actors[1]:
        low, high = num_actors
    elif isinstance(num_actors, int) and not isinstance(num_actors, bool) and num_actors >= 1:
        low = high = num_actors
    else:
        raise VecscoreError(f"num_actors={num_actors!r}; give a number of actors >= 1, a (min, max) pair, or None "
                            "to size the pool from the cluster's CPUs")
    if low * num_cpus_per_actor > room:
        fix = (f"ask for at most {fit} actor{'s' if fit > 1 else ''}, " if fit >= 1 else "") + \
            "lower num_cpus_per_actor, or leave num_actors=None to size the pool from the cluster"
        raise VecscoreError(
            f"num_actors={num_actors!r} with num_cpus_per_actor={num_cpus_per_actor:g} reserves "
            f"{low * num_cpus_per_actor:g} CPUs at start, but the Ray cluster has {cpus:g} and Ray Data's read "
            f"tasks need {_TASK_CPUS:g} of them besides: the pipeline would wait for ever; {fix}")
    return low, high


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
    num_actors: int | tuple[int, int] | None = None,
    num_cpus_per_actor: float = 0.5,
    workers: int | None = 1,
):
    """``ds`` with score columns appended (lazily; Ray executes on consumption).

    Parameters are those of :func:`vecscore.io.arrow.score_table`, plus:

    batch_size : int
        Rows per Arrow batch handed to an actor.
    num_actors : int, (min, max) or None
        Size of the actor pool (``ray.data.ActorPoolStrategy``).  ``None``
        (default): from 1 to as many actors as the cluster's CPUs hold with
        one CPU left for Ray Data's tasks.  A minimum that does not fit now
        raises :class:`~vecscore.errors.VecscoreError` (Ray would wait for ever).
    num_cpus_per_actor : float
        CPUs reserved per actor.
    workers : int, optional
        numba threads inside each actor (default 1: parallelism comes from
        the actors; ``None`` leaves numba's default).
    """
    ray = _ray()
    spec = _spec(spec, metrics, rouge_options, bleu_options, rouge155_options)
    low, high = _pool_size(num_actors, num_cpus_per_actor, _cluster_cpus(ray))
    size = dict(size=low) if low == high else dict(min_size=low, max_size=high)
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
