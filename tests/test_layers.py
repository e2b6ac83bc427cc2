"""The house has no circle: imports point down the layer list, never up, never around.

Reads every module's imports with ``ast`` (module-level and function-level alike, so a lazy
import cannot hide a knot) and checks them against ``LAYERS``, the one place the layering is
written down (docs/architecture.md explains it). Third-party rules: only the CLI imports typer,
only the CLI and render import rich, only ``inputs/kube.py`` imports the kubernetes client.

Inside a package, modules form no circle either (``test_no_import_circle_inside_a_package``),
counted the same way: an import inside a function or under ``TYPE_CHECKING`` ties two modules
as much as one at the top (neither can be read, tested or moved without the other).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "kschedctl"

#: Top to bottom. A module may import its own layer's package and any layer below it.
LAYERS: list[set[str]] = [
    {"__main__", "cli"},
    {"render"},
    {"sweep"},
    {"scenarios"},
    {"api"},
    {"analyses"},
    {"scheduler"},
    {"config"},
    {"plugins"},
    {"framework"},
    {"cluster"},
    {"inputs"},
    {"cel"},
    {"k8s"},
    {"atomic", "limits", "fastpaths"},
    {"errors", "printable"},
]
RANK = {name: i for i, layer in enumerate(LAYERS) for name in layer}

THIRD_PARTY = {
    "typer": {"cli"},
    "rich": {"cli", "render"},
    "kubernetes": set(),  # inputs/kube.py only, below
    "matplotlib": {"render"},
    "ray": {"sweep"},
}


def _imports(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.module, node.lineno))
    return out


def _package_of(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if _package_of(p) != "__init__")


def test_every_package_has_a_layer() -> None:
    packages = {_package_of(p) for p in MODULES}
    assert packages <= set(RANK), sorted(packages - set(RANK))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path: Path) -> None:
    layer = _package_of(path)
    bad = []
    for name, line in _imports(path):
        parts = name.split(".")
        if parts[0] == "kschedctl" and len(parts) > 1 and parts[1] in RANK:
            if RANK[parts[1]] < RANK[layer]:
                bad.append(f"line {line}: {name} (layer {parts[1]} is above {layer})")
        elif parts[0] in THIRD_PARTY:
            allowed = THIRD_PARTY[parts[0]] | ({"inputs"} if path.name == "kube.py" and parts[0] == "kubernetes"
                                               else set())
            if layer not in allowed:
                bad.append(f"line {line}: {name} (only {sorted(allowed) or ['inputs/kube.py']} may)")
    assert not bad, f"{path.relative_to(PACKAGE)} imports upward: {bad}"


def test_no_import_cycle_between_packages() -> None:
    edges: dict[str, set[str]] = defaultdict(set)
    for path in MODULES:
        src = _package_of(path)
        for name, _ in _imports(path):
            parts = name.split(".")
            if parts[0] == "kschedctl" and len(parts) > 1 and parts[1] in RANK and parts[1] != src:
                edges[src].add(parts[1])
    # A cycle would need an edge from a lower or equal layer back up: find any strongly connected pair.
    def reaches(a: str, b: str) -> bool:
        seen, todo = set(), [a]
        while todo:
            n = todo.pop()
            if n == b:
                return True
            if n not in seen:
                seen.add(n)
                todo.extend(edges.get(n, ()))
        return False
    cycles = sorted({tuple(sorted((a, b))) for a in list(edges) for b in edges[a] if reaches(b, a)})
    assert not cycles, f"import cycles between packages: {cycles}"


# -- circles between the modules of one package ----------------------------------------------

#: Circles known and being taken apart (each entry names one); a circle not listed fails, and
#: ``test_known_circles_are_still_there`` fails once a listed one is gone, so the list stays true.
KNOWN_CIRCLES: list[frozenset[str]] = []


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package_key(module: str) -> str:
    """The top-level package (layer) of a dotted module name ("" for ``kschedctl`` itself)."""
    return (module.split(".") + [""])[1]


def _module_edges() -> dict[str, dict[str, int]]:
    """module -> {module of the same top-level package it imports: first line}. ``from a.b import c``
    imports ``a.b`` and, when ``c`` is a module, ``a.b.c``."""
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    edges: dict[str, dict[str, int]] = defaultdict(dict)
    for module, path in paths.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                if target in paths and target != module and _package_key(target) == _package_key(module):
                    edges[module].setdefault(target, node.lineno)
    return edges


def _circles(edges: dict[str, dict[str, int]]) -> list[frozenset[str]]:
    """The strongly connected sets of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            members = set()
            while True:
                w = stack.pop()
                members.add(w)
                if w == v:
                    break
            if len(members) > 1:
                out.append(frozenset(members))

    for v in list(edges):
        if v not in index:
            visit(v)
    return out


def _describe(circle: frozenset[str], edges: dict[str, dict[str, int]]) -> str:
    return "; ".join(f"{a} imports {b} (line {edges[a][b]})" for a in sorted(circle)
                     for b in sorted(edges.get(a, {})) if b in circle)


def test_no_import_circle_inside_a_package() -> None:
    edges = _module_edges()
    new = [c for c in _circles(edges) if not any(c <= known for known in KNOWN_CIRCLES)]
    assert not new, "import circles inside a package:\n" + "\n".join(_describe(c, edges) for c in new)


def test_known_circles_are_still_there() -> None:
    circles = _circles(_module_edges())
    gone = [sorted(known) for known in KNOWN_CIRCLES if not any(c <= known for c in circles)]
    assert not gone, f"these circles are gone: delete them from KNOWN_CIRCLES in tests/test_layers.py: {gone}"


def test_circles_are_found() -> None:
    edges = {"kschedctl.pkg.a": {"kschedctl.pkg.b": 2}, "kschedctl.pkg.b": {"kschedctl.pkg.c": 1},
             "kschedctl.pkg.c": {"kschedctl.pkg.a": 1}, "kschedctl.pkg.d": {"kschedctl.pkg.a": 1}}
    assert _circles(edges) == [frozenset({"kschedctl.pkg.a", "kschedctl.pkg.b", "kschedctl.pkg.c"})]
