"""Imports point down only: the core never imports the CLI, rich or typer.

Reads every module's imports with ``ast`` so the rule holds without running anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "kschedctl"

#: Which third-party packages (and kschedctl layers) each layer may not import.
FORBIDDEN = {
    "errors": {"typer", "rich", "kubernetes", "kschedctl.cli", "kschedctl.render"},
    "limits": {"typer", "rich", "kubernetes", "kschedctl"},
    "atomic": {"typer", "rich", "kubernetes", "kschedctl.cli", "kschedctl.render", "kschedctl.scheduler",
               "kschedctl.plugins", "kschedctl.config", "kschedctl.inputs"},
    "k8s": {"typer", "rich", "kubernetes", "kschedctl.cli", "kschedctl.render", "kschedctl.scheduler",
            "kschedctl.plugins", "kschedctl.config", "kschedctl.inputs"},
    "inputs": {"typer", "rich", "kschedctl.cli", "kschedctl.render", "kschedctl.scheduler", "kschedctl.plugins"},
    "config": {"typer", "rich", "kubernetes", "kschedctl.cli", "kschedctl.render", "kschedctl.scheduler"},
    "framework": {"typer", "rich", "kubernetes", "kschedctl.cli", "kschedctl.render", "kschedctl.scheduler"},
    "plugins": {"typer", "rich", "kubernetes", "kschedctl.cli", "kschedctl.render", "kschedctl.scheduler"},
    "scheduler": {"typer", "rich", "kubernetes", "kschedctl.cli", "kschedctl.render"},
    "render": {"typer", "kubernetes", "kschedctl.cli"},
    "scenarios": {"typer", "rich", "kubernetes", "kschedctl.cli", "kschedctl.render"},
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        layer = rel.parts[0].removesuffix(".py")
        if layer in FORBIDDEN:
            out.append((layer, path))
    return out


@pytest.mark.parametrize("layer,path", _modules(), ids=lambda v: str(v).split("kschedctl/")[-1])
def test_layer_imports_point_down(layer: str, path: Path) -> None:
    # kube.py is the one module of inputs allowed to talk to the kubernetes client.
    forbidden = FORBIDDEN[layer] - ({"kubernetes"} if path.name == "kube.py" else set())
    bad = sorted(
        name for name in _imports(path) if any(name == f or name.startswith(f + ".") for f in forbidden)
    )
    assert not bad, f"{path.relative_to(PACKAGE)} imports {bad}"
