"""The house has no circle: imports point down the layer list, never up, never around.

Reads every module's imports with ``ast`` (module-level and function-level alike, so a lazy
import cannot hide a knot) and checks them against ``LAYERS``, the one place the layering is
written down (docs/architecture.md explains it). Third-party rules: only the CLI imports typer,
only the CLI and render import rich, only ``inputs/kube.py`` imports the kubernetes client.
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
    {"scheduler"},
    {"config"},
    {"plugins"},
    {"framework"},
    {"inputs"},
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
