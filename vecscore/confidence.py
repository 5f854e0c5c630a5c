"""sacreBLEU's text and JSON of a score, and their confidence keys, shared by the BLEU, chrF and TER score types."""
from __future__ import annotations

import json

__all__ = ["confidence_fields", "score_format"]


def confidence_fields(mean: float, ci: float, width: int) -> dict:
    """sacreBLEU's ``Score.format`` confidence keys (``confidence_mean``, ``confidence_var``, ``confidence``:
    ``"μ = 23.41 ± 0.80"``), or ``{}`` when no bootstrap estimate was made (``mean <= 0``, as sacreBLEU).

    >>> confidence_fields(23.414, 0.8, 2)["confidence"]
    'μ = 23.41 ± 0.80'
    >>> confidence_fields(-1.0, -1.0, 2)
    {}
    """
    if not mean > 0:
        return {}
    m, c = f"{mean:.{width}f}", f"{ci:.{width}f}"
    return {"confidence_mean": float(m), "confidence_var": float(c), "confidence": f"μ = {m} ± {c}"}


def score_format(name: str, score: float, signature: str, width: int, score_only: bool, is_json: bool,
                 mean: float = -1.0, ci: float = -1.0) -> str:
    """sacreBLEU's ``Score.format`` of a score with no verbose part (chrF, TER): ``chrF2 = 59.54``, after
    ``name|signature`` when a signature is given, with the bootstrap estimate when one was made
    (:func:`confidence_fields`), or sacreBLEU's JSON (the signature's items as keys).

    >>> score_format("TER", 54.321, "nrefs:1", 2, False, False)
    'TER|nrefs:1 = 54.32'
    """
    value = f"{score:.{width}f}"
    conf = confidence_fields(mean, ci, width)
    if conf:
        value += f" ({conf['confidence']})"
    if score_only:
        return value
    if is_json:
        d = {"name": name, "score": float(f"{score:.{width}f}"), "signature": signature, **conf}
        d.update(item.split(":", 1) for item in filter(None, signature.split("|")))
        return json.dumps(d, indent=1, ensure_ascii=False)
    return f"{name}|{signature} = {value}" if signature else f"{name} = {value}"
