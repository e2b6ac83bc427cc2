"""The console every table goes through: complete output wherever it goes.

On a terminal, rich fits the output to the window. Anywhere else (a pipe, a file, CI logs) rich
would assume 80 columns and cut the very numbers users look for, so the output is rendered at
``--width``, else ``COLUMNS``, else the width the content needs. In every case no cell is cut
short: a column that does not fit wraps (``fold``) instead of ending in "…", and lines carry no
trailing spaces.
"""

from __future__ import annotations

import os
import sys
from typing import IO, Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table

#: Width used off a terminal when neither --width nor COLUMNS says one: wide enough for any
#: table kschedctl prints, so each takes its natural width.
_NATURAL = 4096


class _RStripLines:
    """A text stream that writes whole lines with their trailing spaces removed."""

    def __init__(self, target: IO[str]) -> None:
        self.target = target
        self.pending = ""

    def write(self, text: str) -> int:
        self.pending += text
        if "\n" in self.pending:
            *lines, self.pending = self.pending.split("\n")
            self.target.write("".join(line.rstrip() + "\n" for line in lines))
        return len(text)

    def flush(self) -> None:
        if self.pending:
            self.target.write(self.pending.rstrip())
            self.pending = ""
        self.target.flush()

    def isatty(self) -> bool:
        return False


def _never_truncate(renderable: Any) -> None:
    # One policy for every table, however deeply nested: wrap, never cut.
    if isinstance(renderable, Table):
        for column in renderable.columns:
            column.no_wrap = False  # a narrow width wraps a cell at its spaces...
            if column.overflow in ("ellipsis", "crop"):
                column.overflow = "fold"  # ...and folds a word too long for it
            for cell in column._cells:
                _never_truncate(cell)
    elif isinstance(renderable, Panel):
        _never_truncate(renderable.renderable)
    elif isinstance(renderable, Group):
        for inner in renderable.renderables:
            _never_truncate(inner)


class OutputConsole(Console):
    """A rich Console whose tables never truncate a cell, and that prints strings as they are:
    messages from plugins and inputs (a CEL error quoting ``[eEinumkKMGTP]``, a name with
    ``:colon:``) are never read as rich markup or emoji codes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("markup", False)
        kwargs.setdefault("emoji", False)
        super().__init__(*args, **kwargs)

    def print(self, *objects: Any, **kwargs: Any) -> None:  # noqa: A003 - rich's name
        for renderable in objects:
            _never_truncate(renderable)
        super().print(*objects, **kwargs)


def output_console(width: int | None = None, file: IO[str] | None = None) -> OutputConsole:
    """The console for a command's report on stdout (``width``: the --width option)."""
    stream = file if file is not None else sys.stdout
    if stream.isatty():
        return OutputConsole(file=stream, width=width)
    columns = os.environ.get("COLUMNS", "")
    chosen = width or (int(columns) if columns.isdigit() and int(columns) > 0 else _NATURAL)
    return OutputConsole(file=_RStripLines(stream), width=chosen, force_terminal=False, soft_wrap=False,
                         legacy_windows=False)
