"""The console every table goes through: complete output wherever it goes.

On a terminal, rich fits the output to the window. Anywhere else (a pipe, a file, CI logs) the
output is rendered at ``--width``, else ``COLUMNS``, else the width of the terminal that stderr is
on (``kschedctl ... | less`` keeps the terminal's width), else the width the content needs. In
every case no cell is cut short and no word or number is broken: tables take widths that keep each
column's longest word whole, wrap prose at its spaces, and split their columns over several tables
when even that is too wide (``kschedctl.render.fit``); lines carry no trailing spaces, and a rule
is no wider than what was printed above it. Colour follows rich's rules everywhere: ``NO_COLOR``
turns it off, ``FORCE_COLOR`` turns it on in a pipe.

Nothing from the inputs reaches the terminal as a control sequence: every string and ``Text`` a
renderer prints has its control characters written as visible escapes (``kschedctl.printable``)
before layout, and again, as a net, in the rendered text of every segment, where no line may
begin with ``::`` either (a GitHub workflow command). The escape sequences rich itself writes for
colours and styles are not text: they pass.
"""

from __future__ import annotations

import os
import sys
from typing import IO, Any, Iterable

from rich.console import Console, Group
from rich.measure import Measurement
from rich.panel import Panel
from rich.rule import Rule
from rich.segment import Segment
from rich.table import Table
from rich.text import Span, Text

from kschedctl.printable import defuse_lines, has_unsafe, printable
from kschedctl.render.fit import fit_table

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


def _prepare(renderable: Any, width: int, console: Console) -> list[tuple[Any, int]]:
    """``renderable`` ready to print at ``width``, as pieces with the width each needs: text
    escaped (``_printable``) and, one policy for every table however deeply nested, cells that
    wrap at spaces, never inside a word (a table may come back as several column pages)."""
    renderable = _printable(renderable)
    if isinstance(renderable, Table):
        renderable.title = _printable(renderable.title)
        renderable.caption = _printable(renderable.caption)
        for column in renderable.columns:
            column.header = _printable(column.header)
            if column.overflow in ("ellipsis", "crop"):
                column.overflow = "fold"  # a last resort only: fit_table keeps every word whole
            column._cells[:] = [_printable(cell) for cell in column._cells]
        return list(fit_table(renderable, width, console))
    if isinstance(renderable, Panel):
        inner = max(1, width - 4)  # borders and padding
        pieces = _prepare(renderable.renderable, inner, console)
        renderable.renderable = pieces[0][0] if len(pieces) == 1 else Group(*(piece for piece, _ in pieces))
        renderable.title = _printable(renderable.title)
        renderable.subtitle = _printable(renderable.subtitle)
        return [(renderable, max(width, max(needed for _, needed in pieces) + 4))]
    if isinstance(renderable, Group):
        pieces = [piece for item in renderable.renderables for piece in _prepare(item, width, console)]
        renderable.renderables[:] = [piece for piece, _ in pieces]  # the list the group renders
        return [(renderable, max([width, *(needed for _, needed in pieces)]))]
    return [(renderable, width)]


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

    #: The widest line printed so far (rules are drawn no wider).
    widest = 0

    def print(self, *objects: Any, **kwargs: Any) -> None:  # noqa: A003 - rich's name
        if not objects or kwargs.get("width") is not None:
            super().print(*(_printable(o) for o in objects), **kwargs)
            return
        width = self.width
        for renderable in objects:
            for piece, needed in _prepare(renderable, width, self):
                self._note_width(piece, needed)
                if needed > width:
                    # One word wider than the console: the line runs past the edge (a terminal or
                    # pager wraps it) rather than a word being cut.
                    saved, self._width = self._width, needed
                    try:
                        super().print(piece, **kwargs)
                    finally:
                        self._width = saved
                else:
                    super().print(piece, **kwargs)

    def _note_width(self, piece: Any, width: int) -> None:
        if isinstance(piece, Rule):
            return
        measured = Measurement.get(self, self.options.update(width=width), piece).maximum
        self.widest = max(self.widest, min(measured, width))

    def rule(self, title: Any = "", *, characters: str = "─", style: Any = "rule.line",
             align: Any = "center") -> None:
        """A rule as wide as the output above it (the console's width at most)."""
        rule = Rule(title=_printable(title), characters=characters, style=style, align=align)
        super().print(rule, width=min(self.width, self.widest or self.width))


def output_console(width: int | None = None, file: IO[str] | None = None) -> OutputConsole:
    """The console for a command's report on stdout (``width``: the --width option)."""
    stream = file if file is not None else sys.stdout
    if stream.isatty():
        return OutputConsole(file=stream, width=width)
    columns = os.environ.get("COLUMNS", "")
    chosen = width or (int(columns) if columns.isdigit() and int(columns) > 0 else None) or _stderr_terminal_width()
    # force_terminal stays unset: rich then reads FORCE_COLOR (colour in a pipe) and NO_COLOR.
    return OutputConsole(file=_RStripLines(stream), width=chosen or _NATURAL, soft_wrap=False, legacy_windows=False)


def _stderr_terminal_width() -> int | None:
    """The width of the terminal on stderr: where a user piping stdout to a pager or a file sits."""
    try:
        if sys.stderr is None or not sys.stderr.isatty():
            return None
        return os.get_terminal_size(sys.stderr.fileno()).columns or None
    except (OSError, ValueError, AttributeError):
        return None
