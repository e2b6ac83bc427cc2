"""The "what-if:" block a table starts with when a run changed the cluster (``--drain``, ...)."""

from __future__ import annotations

from typing import Iterable

from rich.console import Console
from rich.text import Text

from kschedctl.printable import printable


def render_what_if(lines: Iterable[str], console: Console) -> None:
    """One line per change, indented details under it, then a blank line."""
    console.print(Text("what-if:", style="bold"))
    for line in lines:
        console.print(Text("  " + printable(line)), overflow="fold")
    console.print()
