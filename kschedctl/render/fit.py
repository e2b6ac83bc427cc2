"""Tables that fit their width without breaking a word or a number.

rich, given a table wider than the console, narrows its columns until they fit, and a cell
narrower than one of its words is cut inside the word (``defau`` / ``lt``, ``1589`` / ``0m``).
Here the widths are chosen first, on one rule: a column is never narrower than its longest word
(its longest line for a ``no_wrap`` column: a name, a number, a usage figure), and headers, which
are prose, wrap at their spaces. When even those widths do not fit, the columns are laid out in
several tables one under the other, each repeating the table's key columns (the first one unless
the renderer set ``key_columns`` on the table), as a pager shows a wide data frame. A page that
still cannot fit (one word wider than the console) is left wider than the console: a terminal
or pager wraps the line, no word is cut.
"""

from __future__ import annotations

import copy
from typing import Any

from rich.console import Console, ConsoleOptions
from rich.measure import Measurement
from rich.table import Column, Table

#: Attribute a renderer may set on a Table: how many leading columns identify a row (repeated
#: on every page when the columns are split over several tables).
KEY_COLUMNS = "key_columns"


def _measure(console: Console, options: ConsoleOptions, renderable: Any, whole: bool) -> tuple[int, int]:
    if renderable is None or renderable == "":
        return 0, 0
    measured = Measurement.get(console, options, renderable)
    return (measured.maximum, measured.maximum) if whole else (measured.minimum, measured.maximum)


def column_bounds(console: Console, column: Column) -> tuple[int, int]:
    """The narrowest width a column can take without cutting a word, and its natural width
    (content only, without padding)."""
    options = console.options.update(width=1 << 16)
    low, high = _measure(console, options, column.header, whole=False)
    for cell in column.cells:
        cell_low, cell_high = _measure(console, options, cell, whole=column.no_wrap)
        low, high = max(low, cell_low), max(high, cell_high)
    if column.min_width is not None:
        low, high = max(low, column.min_width), max(high, column.min_width)
    if column.width is not None:
        low = high = max(low, column.width)
    return low, max(low, high)


def _overhead(table: Table) -> int:
    """Borders and padding of ``table``: its width beyond the content of its columns."""
    return table._extra_width + sum(table._get_padding_width(i) for i in range(len(table.columns)))


def _with_columns(table: Table, columns: list[Column], first: bool) -> Table:
    page = copy.copy(table)
    page.columns = []
    for index, column in enumerate(columns):
        clone = copy.copy(column)
        clone._index = index
        page.columns.append(clone)
    if not first:
        page.title = None
    return page


def _allocate(table: Table, bounds: list[tuple[int, int]], width: int) -> int:
    """Set the columns' widths so that ``table`` fits ``width`` (returns the width it needs)."""
    overhead = _overhead(table)
    lows = [low for low, _ in bounds]
    highs = [high for _, high in bounds]
    if sum(highs) + overhead <= width:
        for column in table.columns:
            column.no_wrap = False  # it fits as it is: headers keep their natural width too
        return sum(highs) + overhead
    spare = width - overhead - sum(lows)
    widths = list(lows)
    if spare > 0:
        # The room left is shared equally among the columns still short of their natural width
        # (a column that needs less than its share takes only what it needs).
        while spare > 0:
            wanting = [i for i in range(len(widths)) if widths[i] < highs[i]]
            if not wanting:
                break
            share = max(1, spare // len(wanting))
            for i in wanting:
                grant = min(share, highs[i] - widths[i], spare)
                widths[i] += grant
                spare -= grant
                if spare == 0:
                    break
    for column, chosen in zip(table.columns, widths):
        column.width = chosen
        column.no_wrap = False  # the width holds the longest line: only headers wrap, at spaces
    return sum(widths) + overhead


def fit_table(table: Table, width: int, console: Console) -> list[tuple[Table, int]]:
    """``table`` as one or more tables (column pages) that fit ``width`` without cutting a word,
    each with the width it needs (more than ``width`` only when one word alone does not fit)."""
    if not table.columns or table.expand:
        return [(table, width)]
    bounds = [column_bounds(console, column) for column in table.columns]
    if sum(low for low, _ in bounds) + _overhead(table) <= width:
        return [(table, _allocate(table, bounds, width))]
    keys = max(0, min(int(getattr(table, KEY_COLUMNS, 1)), len(table.columns) - 1))
    rest = list(range(keys, len(table.columns)))
    pages: list[list[int]] = []
    current: list[int] = []
    for index in rest:
        candidate = list(range(keys)) + current + [index]
        page = _with_columns(table, [table.columns[i] for i in candidate], first=not pages)
        if current and sum(bounds[i][0] for i in candidate) + _overhead(page) > width:
            pages.append(current)
            current = [index]
        else:
            current.append(index)
    pages.append(current)
    fitted = []
    for number, indexes in enumerate(pages):
        chosen = list(range(keys)) + indexes
        page = _with_columns(table, [table.columns[i] for i in chosen], first=number == 0)
        needed = _allocate(page, [bounds[i] for i in chosen], width)
        fitted.append((page, max(width, needed)))
    return fitted
