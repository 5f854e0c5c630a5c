"""METEOR 1.5's options for English: tasks, modules, module weights, parameters, normalization, beam.

The options resolve the way ``meteor-1.5.jar`` resolves its command line: ``-t TASK`` sets the
parameters, the modules and their weights; ``-p`` replaces the parameters *and the task*: the jar then
takes the task ``custom``, whose module weights are those of ``adq`` (1.0 1.0 0.6 0.8), whatever ``-t``
said; ``-w`` replaces the weights;
``-m`` replaces the modules and then resizes the weights *by position* (a module beyond the weights
gets 0.0, so ``-m "exact synonym"`` under the default task gives synonym the stem weight 0.6, as the
jar does); ``-norm`` normalizes, keeps punctuation and lowercases, ``-noPunct`` (only with ``-norm``)
also drops punctuation, ``-lower`` (ignored with ``-norm``) only lowercases.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from vecscore.errors import VecscoreError

__all__ = ["MODULES", "TASKS", "MeteorOptions", "resolve_options"]

MODULES = ("exact", "stem", "synonym", "paraphrase")
#: (alpha, beta, gamma, delta) and the weights of exact, stem, synonym, paraphrase, per task, for English.
TASKS: dict[str, tuple[tuple[float, float, float, float], tuple[float, float, float, float]]] = {
    "rank": ((0.85, 0.20, 0.60, 0.75), (1.0, 0.6, 0.8, 0.6)),
    "adq": ((0.75, 1.40, 0.45, 0.70), (1.0, 1.0, 0.6, 0.8)),
    "hter": ((0.40, 1.50, 0.35, 0.55), (1.0, 0.2, 0.6, 0.8)),
    "li": ((0.75, 1.40, 0.70, 0.50), (1.0, 0.5, 0.5, 0.5)),
}
_TASK_ALIASES = {"default": "rank"}
_NORMALIZATIONS = ("none", "lower", "norm", "norm-nopunct")


@dataclass(frozen=True)
class MeteorOptions:
    """A resolved METEOR configuration (what the jar prints as its settings)."""

    task: str
    modules: tuple[str, ...]
    weights: tuple[float, ...]
    alpha: float
    beta: float
    gamma: float
    delta: float
    normalization: str = "none"
    beam_size: int = 40

    @property
    def normalize(self) -> bool:
        return self.normalization.startswith("norm")

    @property
    def keep_punct(self) -> bool:
        return self.normalization != "norm-nopunct"

    @property
    def lowercase(self) -> bool:
        return self.normalization != "none"

    def jar_args(self) -> list[str]:
        """The meteor-1.5.jar flags that give this configuration (``-l en`` included)."""
        args = ["-l", "en", "-m", " ".join(self.modules), "-w", " ".join(_java_str(w) for w in self.weights),
                "-p", " ".join(_java_str(p) for p in (self.alpha, self.beta, self.gamma, self.delta))]
        if self.beam_size != 40:
            args += ["-x", str(self.beam_size)]
        args += {"none": [], "lower": ["-lower"], "norm": ["-norm"], "norm-nopunct": ["-norm", "-noPunct"]}[
            self.normalization]
        return args

    @property
    def signature(self) -> str:
        params = "_".join(_java_str(p) for p in (self.alpha, self.beta, self.gamma, self.delta))
        mods = "_".join(m[:2] if m != "synonym" else "sy" for m in self.modules)
        weights = "_".join(_java_str(w) for w in self.weights)
        return f"meteor-1.5-wo-en-{self.normalization}-{params}-{mods}-{weights}"


def _java_str(x: float) -> str:
    return repr(float(x))


def _floats(name: str, values, length: int | None = None) -> tuple[float, ...]:
    if isinstance(values, str):
        values = values.split()
    try:
        out = tuple(float(v) for v in values)
    except (TypeError, ValueError) as exc:
        raise VecscoreError(f"{name}={values!r}: expected numbers, e.g. {name}=[0.85, 0.2, 0.6, 0.75]") from exc
    if length is not None and len(out) != length:
        raise VecscoreError(f"{name}={values!r}: METEOR takes exactly {length} values (alpha beta gamma delta)")
    return out


def resolve_options(task: str = "default", *, modules: Sequence[str] | str | None = None,
                    weights: Sequence[float] | str | None = None, params: Sequence[float] | str | None = None,
                    normalize: bool = False, lower: bool = False, no_punct: bool = False,
                    beam_size: int = 40) -> MeteorOptions:
    """Resolve METEOR's options as ``meteor-1.5.jar -l en -t task -p params -w weights -m modules`` does."""
    name = _TASK_ALIASES.get(str(task).lower(), str(task).lower())
    if name not in TASKS:
        raise VecscoreError(f"task={task!r}: unknown METEOR task; valid: default {' '.join(TASKS)} "
                            "(METEOR 1.5's English tasks; 'default' is 'rank')")
    if params is not None:  # the jar replaces the task with "custom (...)", which takes adq's weights
        name = "adq"
    task_params, task_weights = TASKS[name]
    mods: tuple[str, ...] = MODULES
    w: tuple[float, ...] = task_weights
    p = task_params
    custom = False
    if params is not None:
        p = _floats("params", params, 4)  # type: ignore[assignment]
        custom = True
    if weights is not None:
        w = _floats("weights", weights)
        custom = True
    if modules is not None:
        names = modules.split() if isinstance(modules, str) else list(modules)
        bad = [m for m in names if str(m).lower() not in MODULES]
        if bad or not names:
            raise VecscoreError(f"modules={modules!r}: METEOR's modules are {' '.join(MODULES)} (one or more, in "
                                "the order they match)")
        if len(names) > len(MODULES):
            raise VecscoreError(f"modules={modules!r}: at most {len(MODULES)} modules (meteor-1.5.jar keeps the "
                                "statistics of four)")
        mods = tuple(str(m).lower() for m in names)
        w = tuple(w[i] if i < len(w) else 0.0 for i in range(len(mods)))
        custom = True
    if len(w) > len(mods):
        raise VecscoreError(f"weights={weights!r}: {len(w)} weights for {len(mods)} modules ({' '.join(mods)}); "
                            "give one weight per module")
    if not isinstance(beam_size, int) or isinstance(beam_size, bool) or beam_size < 1:
        raise VecscoreError(f"beam_size={beam_size!r}: expected a positive integer (the jar's -x; default 40)")
    if normalize:
        norm = "norm-nopunct" if no_punct else "norm"
    else:
        norm = "lower" if lower else "none"
    return MeteorOptions(task="custom" if custom else name, modules=mods, weights=w, alpha=p[0], beta=p[1],
                         gamma=p[2], delta=p[3], normalization=norm, beam_size=beam_size)
