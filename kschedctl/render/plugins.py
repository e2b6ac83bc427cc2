"""Reports of ``kschedctl plugins``: a table, or ``-o json|yaml`` (kind ``PluginList``)."""

from __future__ import annotations

import json
from typing import Any, Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from kschedctl.render.output import dump

_ORIGIN_STYLE = {"built-in": "cyan", "out-of-tree": "magenta", "custom": "green"}


def plugins_data(items: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The machine-readable document: ``{"kind": "PluginList", "items": [...]}``."""
    return {"kind": "PluginList", "items": list(items)}


def render_machine(items: Sequence[dict[str, Any]], fmt: str) -> str:
    return dump(plugins_data(items), fmt)


def _args_text(args: dict | None) -> str:
    if not args:
        return "-"
    return "\n".join(f"{k}: {json.dumps(v, separators=(', ', ': '))}" for k, v in args.items())


def print_table(items: Sequence[dict[str, Any]], console: Console) -> None:
    """One row per plugin: name, origin, extension points, default weight, args defaults."""
    table = Table(title="Registered plugins", show_lines=False, expand=False)
    table.add_column("PLUGIN", no_wrap=True)
    table.add_column("ORIGIN", no_wrap=True)
    table.add_column("EXTENSION POINTS")
    table.add_column("DEFAULT WEIGHT", justify="right")
    table.add_column("ARGS (defaults)")
    for item in items:
        name = Text(item["name"])
        if item.get("enabledByDefault"):
            name.append(" *", style="bold")
        weight = item.get("defaultWeight")
        table.add_row(
            name,
            Text(item["origin"], style=_ORIGIN_STYLE.get(item["origin"], "")),
            ", ".join(item["extensionPoints"]),
            "-" if weight is None else str(weight),
            Text(_args_text(item.get("args"))),
        )
    console.print(table)
    console.print("* enabled in the default profile (default-scheduler)")
