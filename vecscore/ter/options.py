"""TER's options as sacreBLEU's ``TER`` names them, checked: its tokenizers and its signature."""
from __future__ import annotations

from vecscore._version import __version__
from vecscore.errors import VecscoreError
from vecscore.ter.tokenize import TerTokenizer

__all__ = ["Options", "REFERENCE_NORMALIZATIONS", "check_reference_normalization", "ter_signature"]

#: ``reference_normalization``: "twice" (sacreBLEU 2.6, the default) or "once" (as the hypotheses)
REFERENCE_NORMALIZATIONS = ("twice", "once")


def check_reference_normalization(value) -> str:
    if value not in REFERENCE_NORMALIZATIONS:
        raise VecscoreError(f"reference_normalization must be 'twice' (sacreBLEU 2.6: every reference tokenized "
                            f"twice) or 'once' (references tokenized once, as the hypotheses), not {value!r}")
    return value


def ter_signature(nrefs, normalized: bool = False, no_punct: bool = False, asian_support: bool = False,
                  case_sensitive: bool = False, short: bool = False, version: str | None = None, *,
                  reference_normalization: str = "twice") -> str:
    """sacreBLEU's TER signature (``nrefs`` an int or ``"var"``) with vecscore's version.

    ``reference_normalization="once"`` (not sacreBLEU's tokenization) adds ``refnorm:once`` before the version.
    """
    if version is None:
        version = __version__
    yn = {True: "yes", False: "no"}
    items = [("nrefs", "#", nrefs), ("case", "c", "mixed" if case_sensitive else "lc"), ("tok", "t", "tercom"),
             ("norm", "nr", yn[bool(normalized)]), ("punct", "pn", yn[not no_punct]),
             ("asian", "as", yn[bool(asian_support)])]
    if check_reference_normalization(reference_normalization) != "twice":
        items.append(("refnorm", "refnorm", reference_normalization))
    items.append(("version", "v", version))
    return "|".join(f"{abbr if short else name}:{value}" for name, abbr, value in items)


class Options:
    """sacreBLEU's ``TER`` options, checked; its tokenizers and signature."""

    def __init__(self, normalized=False, no_punct=False, asian_support=False, case_sensitive=False,
                 reference_normalization="twice"):
        self.normalized = bool(normalized)
        self.no_punct = bool(no_punct)
        self.asian_support = bool(asian_support)
        self.case_sensitive = bool(case_sensitive)
        self.reference_normalization = check_reference_normalization(reference_normalization)

    def tokenizer(self) -> TerTokenizer:
        """The hypotheses' tokenizer: one pass."""
        return TerTokenizer(self.normalized, self.no_punct, self.asian_support, self.case_sensitive)

    def ref_tokenizer(self) -> TerTokenizer:
        """The references' tokenizer: two passes (sacreBLEU's), or one."""
        passes = 2 if self.reference_normalization == "twice" else 1
        return TerTokenizer(self.normalized, self.no_punct, self.asian_support, self.case_sensitive, passes)

    def signature(self, nrefs, short: bool = False) -> str:
        return ter_signature(nrefs, self.normalized, self.no_punct, self.asian_support, self.case_sensitive,
                             short=short, reference_normalization=self.reference_normalization)
