"""The package's import graph: layers that only point down, and no circle.

Every ``import`` and ``from ... import`` in vecscore's modules is read from the source (also those inside
functions, which run later but tie the modules all the same).  ``from vecscore.a import b`` is an arrow to the
module ``vecscore.a.b`` where there is one, else to ``vecscore.a``.  Importing ``vecscore.a.b`` also runs the
packages above it first; those package files only hand names on, so they are not arrows.

:data:`LAYERS` is the picture of docs/how-it-works.md, top to bottom: a module belongs to the layer of the
longest prefix that names it, and may import its own layer and those below.  A new module must be placed in a
layer here (and in the picture) before it can be imported.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "vecscore"
DOC = PACKAGE.parent / "docs" / "how-it-works.md"

#: top to bottom: (the layer's name in docs/how-it-works.md, the module prefixes it holds); a prefix ending in
#: "." holds the modules under it but not the package itself
LAYERS = [
    ("command line", ["vecscore.cli", "vecscore.__main__"]),
    ("file formats, cluster recipes, building kernels", [
        "vecscore.io", "vecscore.integrations", "vecscore.warmup", "vecscore.aot_build", "vecscore.background_job"]),
    ("metric front doors", [
        "vecscore.bleu", "vecscore.bleu.api", "vecscore.bleu.metric", "vecscore.bleu.nltk", "vecscore.chrf",
        "vecscore.chrf.api",
        "vecscore.ter", "vecscore.ter.api", "vecscore.rouge", "vecscore.rouge.api", "vecscore.rouge.scorer",
        "vecscore.rouge.weighted", "vecscore.rouge.rouge155", "vecscore.rouge.rouge155.api", "vecscore.coco",
        "vecscore.coco.api", "vecscore.coco.scorers", "vecscore.coco.meteor", "vecscore.coco.evaluate",
        "vecscore.meteor", "vecscore.meteor.api", "vecscore.meteor.nltk_meteor", "vecscore.significance",
        "vecscore.shared_refs", "vecscore.matrices", "vecscore.matrices.api", "vecscore.matrices.mbr",
        "vecscore.matrices.diversity", "vecscore.matrices.similar"]),
    ("resampling and sacreBLEU's protocol", [
        "vecscore.significance.adapters", "vecscore.significance.estimate", "vecscore.significance.resample",
        "vecscore.significance.scores", "vecscore.sacrebleu_protocol"]),
    ("metric statistics and routes", [
        "vecscore.bleu.", "vecscore.chrf.", "vecscore.ter.", "vecscore.rouge.", "vecscore.coco.", "vecscore.meteor.",
        "vecscore.matrices.",
        "vecscore.route",
        "vecscore.engine.pair_rows"]),
    ("input reading and batches", ["vecscore.inputs", "vecscore.references", "vecscore.row_errors",
                                   "vecscore.columns", "vecscore.frames", "vecscore.engine", "vecscore.text"]),
    ("kernels and their loading", ["vecscore.kernels", "vecscore._jit", "vecscore.built", "vecscore.background",
                                   "vecscore.parallel", "vecscore.cpu_levels"]),
    ("ground", ["vecscore.errors", "vecscore.memory", "vecscore.cache_dir", "vecscore.fast_path",
                "vecscore.exactsum", "vecscore.confidence", "vecscore._version", "vecscore.data"]),
]


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _arrows(modules: dict[str, Path]) -> dict[str, dict[str, int]]:
    """``{module: {imported module: first line}}`` for imports of vecscore's own modules."""

    def owner(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    arrows: dict[str, dict[str, int]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        out = arrows.setdefault(name, {})
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            else:
                continue
            for t in targets:
                target = owner(t) if t.split(".")[0] == "vecscore" else None
                if target is not None and target != name:
                    out.setdefault(target, node.lineno)
    return arrows


def _circles(arrows: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in arrows:
        if root in index:
            continue
        work = [(root, iter(arrows[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(arrows.get(w, {}))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def layer_of(module: str) -> int | None:
    best = None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if module == p.rstrip(".") and p.endswith("."):
                continue
            if module == p or module.startswith(p if p.endswith(".") else p + "."):
                if best is None or len(p) > best[1]:
                    best = (i, len(p))
    return None if best is None else best[0]


@pytest.fixture(scope="module")
def graph():
    modules = _modules()
    return modules, _arrows(modules)


def test_the_reader_sees_imports_inside_functions_and_relative_ones(graph):
    _, arrows = graph
    assert "vecscore.background" in arrows["vecscore.route"]  # imported inside route's functions only
    assert "vecscore.warmup" in arrows["vecscore.background_job"]
    assert "vecscore.cache_dir" in arrows["vecscore._jit"]
    circle = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert _circles(circle) == [["a", "b", "c"]]


def test_no_import_circle(graph):
    _, arrows = graph
    circles = _circles(arrows)
    where = [" -> ".join(c) + ": " + "; ".join(f"{a}:{line} imports {b}" for a in c
                                                  for b, line in arrows[a].items() if b in c) for c in circles]
    assert not circles, "import circles:\n" + "\n".join(where)


def test_every_module_has_a_layer(graph):
    modules, _ = graph
    missing = sorted(m for m in modules if m != "vecscore" and layer_of(m) is None)
    assert not missing, f"place these modules in a layer of LAYERS (and docs/how-it-works.md): {missing}"


def test_imports_only_point_down(graph):
    _, arrows = graph
    up = [f"{a}:{line} ({LAYERS[layer_of(a)][0]}) imports {b} ({LAYERS[layer_of(b)][0]})"
          for a, out in arrows.items() if a != "vecscore" for b, line in out.items()
          if layer_of(b) is not None and layer_of(a) is not None and layer_of(b) < layer_of(a)]
    assert not up, "imports that climb a layer:\n" + "\n".join(sorted(up))


def test_the_picture_in_the_docs_names_the_layers_in_order():
    text = DOC.read_text(encoding="utf-8")
    places = [text.find(f"**{name}**") for name, _ in LAYERS]
    assert -1 not in places, [name for (name, _), p in zip(LAYERS, places) if p < 0]
    assert places == sorted(places)
