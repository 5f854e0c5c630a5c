"""The ROUGE-1.5.5.pl command line, parsed into :func:`vecscore.rouge155` options."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from vecscore.errors import VecscoreError

__all__ = ["Rouge155Args", "rouge155_args"]


@dataclass(frozen=True)
class Rouge155Args:
    """The script's command line, mapped to :func:`rouge155` options.

    ``kwargs`` go to :func:`rouge155`; ``average`` (``-t``: 0, 1 or 2),
    ``resamples`` (``-r``), ``confidence`` (``-c``) and ``per_eval`` (``-d``)
    describe the printed averages (see :func:`perl_average`); ``ignored``
    lists flags that do not change scores (``-a``, ``-e``, ``-v``, ``-z``).
    """

    kwargs: dict = field(default_factory=dict)
    average: int = 0
    resamples: int = 1000
    confidence: float = 95.0
    per_eval: bool = False
    ignored: tuple = ()


_WITH_VALUE = set("bcefl npr tz23w".replace(" ", ""))
_SWITCH = set("ahHdmMsuUvx")


def _getopts(argv) -> dict:
    """Perl ``getopts('ahHb:c:de:f:l:mMn:p:st:r:2:3:w:uUvxz:')``: bundling, values attached or next."""
    opts: dict = {}
    args = list(argv)
    i = 0
    while i < len(args):
        a = str(args[i])
        if not a.startswith("-") or a == "-":
            raise VecscoreError(
                f"unexpected argument {a!r}: give only the script's options (e.g. -n 2 -2 4 -u -m); "
                "texts are passed to rouge155() directly, not as a config file"
            )
        if a == "--":
            if i + 1 < len(args):
                raise VecscoreError(f"unexpected arguments after --: {args[i + 1:]}")
            break
        j = 1
        while j < len(a):
            c = a[j]
            if c in _WITH_VALUE:
                val = a[j + 1 :]
                if not val:
                    i += 1
                    if i >= len(args):
                        raise VecscoreError(f"option -{c} needs a value")
                    val = str(args[i])
                opts[c] = val
                break
            if c in _SWITCH:
                opts[c] = True
                j += 1
                continue
            raise VecscoreError(f"unknown ROUGE-1.5.5 option -{c}; valid: -a -b -c -d -e -f -h -H -l -m -M -n -p -r -s "
                                "-t -u -U -v -w -x -z -2 -3")
        i += 1
    return opts


def _number(flag, text, kind=float):
    try:
        return kind(text)
    except ValueError:
        raise VecscoreError(f"option -{flag} needs a {'number' if kind is float else 'whole number'}, "
                            f"got {text!r}") from None


def rouge155_args(argv: Sequence[str]) -> Rouge155Args:
    """Map ROUGE-1.5.5.pl flags to :func:`rouge155` options.

    Metrics follow the script: ``-n N`` gives ROUGE-1..N; ROUGE-L unless
    ``-x``; ``-w W`` gives ROUGE-W-W; ``-2 G`` gives ROUGE-SG (``G < 0``:
    ``S*``), ``-u`` turns it into SU, ``-U`` reports both S and SU (``-u``
    wins when both are given).  With no ``-n``, ``-w`` or ``-2`` the script
    computes ROUGE-L only.

    Examples
    --------
    >>> a = rouge155_args("-c 95 -2 -1 -U -r 1000 -n 2 -w 1.2 -a -m -l 10".split())
    >>> a.kwargs["metrics"], a.kwargs["stemmer"], a.kwargs["word_limit"]
    (['rouge1', 'rouge2', 'rougeL', 'rougeW-1.2', 'rougeS*', 'rougeSU*'], True, 10)
    """
    if isinstance(argv, str):
        argv = argv.split()
    o = _getopts(argv)
    if o.get("h") or o.get("H"):
        raise VecscoreError("-h/-H print the script's usage; see vecscore.rouge155 for the option mapping")
    if "3" in o:
        raise VecscoreError("-3 (Basic Elements) is not supported: it needs BE triples, not text")
    if o.get("M"):
        raise VecscoreError("-M (undocumented: stem models only) is not supported; use -m")
    if "l" in o and "b" in o:
        raise VecscoreError("Please specify length limit in words or bytes but not both (-l and -b)")
    metrics: list[str] = []
    if "n" in o:
        n = _number("n", o["n"], int)
        metrics += [f"rouge{k}" for k in range(1, n + 1)]
    if not o.get("x"):
        metrics.append("rougeL")
    if "w" in o:
        w = _number("w", o["w"])
        if not w > 0:
            raise VecscoreError("ROUGE-W weight factor must greater than 0 (-w)")
        metrics.append(f"rougeW-{o['w']}")
    if "2" in o:
        gap = _number("2", o["2"], int)
        g = "*" if gap < 0 else str(gap)
        if o.get("u"):
            metrics.append(f"rougeSU{g}")
        elif o.get("U"):
            metrics += [f"rougeS{g}", f"rougeSU{g}"]
        else:
            metrics.append(f"rougeS{g}")
    if not metrics:
        raise VecscoreError("these options compute no metric (-x without -n, -w or -2)")
    kwargs: dict = {"metrics": metrics, "stemmer": bool(o.get("m")), "stopwords": bool(o.get("s"))}
    if "l" in o:
        kwargs["word_limit"] = _number("l", o["l"], int)
    if "b" in o:
        kwargs["byte_limit"] = _number("b", o["b"], int)
    f = o.get("f", "A")
    if f not in ("A", "B"):
        raise VecscoreError(f"-f must be A (model average, pooled) or B (best model by recall), got {f!r}")
    kwargs["multi_ref"] = "pooled" if f == "A" else "best-recall"
    if "p" in o:
        kwargs["alpha"] = _number("p", o["p"])
        if not 0 <= kwargs["alpha"] <= 1:
            raise VecscoreError("Relative importance of ROUGE recall and precision has to be between 0 and 1 (-p)")
    kwargs["round5"] = True
    t = _number("t", o["t"], int) if "t" in o else 0
    t = t if t in (1, 2) else 0
    conf = _number("c", o["c"]) if "c" in o else 95.0
    if not 0 <= conf <= 100:
        raise VecscoreError("Confidence interval should be within 0 and 100 (-c)")
    ignored = tuple(f"-{k}" for k in "aevz" if k in o)
    return Rouge155Args(kwargs, t, _number("r", o["r"], int) if "r" in o else 1000, conf, bool(o.get("d")), ignored)


# --------------------------------------------------------------------------------------
# the printed averages
# --------------------------------------------------------------------------------------
