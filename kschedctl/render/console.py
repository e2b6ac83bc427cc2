"""The console every table goes through: complete output wherever it goes.

On a terminal, rich fits the output to the window. Anywhere else (a pipe, a file, CI logs) rich
would assume 80 columns and cut the very numbers users look for, so the output is rendered at
``--width``, else ``COLUMNS``, else the width the content needs. In every case no cell is cut
short: a column that does not fit wraps (``fold``) instead of ending in "…", and lines carry no
trailing spaces.

Nothing from the inputs reaches the terminal as a control sequence: every string and ``Text`` a
renderer prints has its control characters written as visible escapes (``kschedctl.printable``)
before layout, and again, as a net, in the rendered text of every segment, where no line may
begin with ``::`` either (a GitHub workflow command). The escape sequences rich itself writes for
colours and styles are not text: they pass (NO_COLOR and FORCE_COLOR work as they always did).
"""

from __future__ import annotations

import os
import sys
from typing import IO, Any, Iterable

from rich.console import Console, Group
from rich.panel import Panel
from rich.segment import Segment
from rich.table import Table
from rich.text import Span, Text

from kschedctl.printable import defuse_lines, has_unsafe, printable

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


#: Renderers' own line breaks stay; every other control character is escaped.
_KEEP = "\n"


def printable_text(text: Text) -> Text:
    """``text`` (changed in place) with its control characters escaped, its styles kept on the
    characters they covered."""
    plain = text.plain
    if not has_unsafe(plain, _KEEP):
        return text
    pieces = [printable(char, _KEEP) for char in plain]
    offsets = [0]
    for piece in pieces:
        offsets.append(offsets[-1] + len(piece))
    spans = [Span(offsets[min(span.start, len(plain))], offsets[min(span.end, len(plain))], span.style)
             for span in text.spans]
    text.plain = "".join(pieces)
    text.spans = spans
    return text


def _printable(renderable: Any) -> Any:
    if isinstance(renderable, str):
        return printable(renderable, _KEEP)
    if isinstance(renderable, Text):
        return printable_text(renderable)
    return renderable


def _prepare(renderable: Any) -> Any:
    """``renderable`` ready to print: text escaped (``_printable``) and, one policy for every
    table however deeply nested, cells that wrap rather than being cut."""
    renderable = _printable(renderable)
    if isinstance(renderable, Table):
        renderable.title = _printable(renderable.title)
        renderable.caption = _printable(renderable.caption)
        for column in renderable.columns:
            column.header = _printable(column.header)
            column.no_wrap = False  # a narrow width wraps a cell at its spaces...
            if column.overflow in ("ellipsis", "crop"):
                column.overflow = "fold"  # ...and folds a word too long for it
            column._cells[:] = [_prepare(cell) for cell in column._cells]
    elif isinstance(renderable, Panel):
        renderable.renderable = _prepare(renderable.renderable)
        renderable.title = _printable(renderable.title)
        renderable.subtitle = _printable(renderable.subtitle)
    elif isinstance(renderable, Group):
        inner = renderable.renderables  # the list the group renders
        inner[:] = [_prepare(item) for item in inner]
    return renderable


def _printable_segments(segments: Iterable[Segment]) -> list[Segment]:
    segments = list(segments)
    # One search over all the text first: the common case, nothing to escape, costs one pass.
    if not has_unsafe("".join(text for text, _, control in segments if control is None), _KEEP):
        return segments
    return [Segment(printable(text, _KEEP), style) if control is None and has_unsafe(text, _KEEP)
            else Segment(text, style, control) for text, style, control in segments]


class SafeConsole(Console):
    """A rich Console that writes no control character of the text it prints (rich's own
    styling and cursor codes aside) and no line beginning with ``::``."""

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return defuse_lines(super()._render_buffer(_printable_segments(buffer)))


class OutputConsole(SafeConsole):
    """A rich Console whose tables never truncate a cell, and that prints strings as they are:
    messages from plugins and inputs (a CEL error quoting ``[eEinumkKMGTP]``, a name with
    ``:colon:``) are never read as rich markup or emoji codes, their control characters are
    escaped."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("markup", False)
        kwargs.setdefault("emoji", False)
        super().__init__(*args, **kwargs)

    def print(self, *objects: Any, **kwargs: Any) -> None:  # noqa: A003 - rich's name
        super().print(*(_prepare(renderable) for renderable in objects), **kwargs)


def output_console(width: int | None = None, file: IO[str] | None = None) -> OutputConsole:
    """The console for a command's report on stdout (``width``: the --width option)."""
    stream = file if file is not None else sys.stdout
    if stream.isatty():
        return OutputConsole(file=stream, width=width)
    columns = os.environ.get("COLUMNS", "")
    chosen = width or (int(columns) if columns.isdigit() and int(columns) > 0 else _NATURAL)
    return OutputConsole(file=_RStripLines(stream), width=chosen, force_terminal=False, soft_wrap=False,
                         legacy_windows=False)
