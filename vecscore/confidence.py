"""sacreBLEU's confidence keys of a score's text and JSON, shared by the BLEU, chrF and TER score types."""
from __future__ import annotations

__all__ = ["confidence_fields"]


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
