"""Long names made short enough for a table column, with a legend that gives them back in full.

Names generated from one another share their beginning (a sweep's ``bin-packing[percentage
OfNodesToScore=50]`` and ``bin-packing[percentageOfNodesToScore=70]``): that common prefix is
written once in the legend and each name shows the rest after ``~``. A long name that shares no
prefix gets a short label (``c1``). Short names stay as they are.
"""

from __future__ import annotations

import os
from typing import Sequence

#: A prefix is worth writing once in the legend from this many characters.
_MIN_PREFIX = 8
#: Where a shared prefix may end: after one of these, so the rest reads as a whole part.
_SEPARATORS = "[=,-_/.:("


def _common_prefix(names: Sequence[str]) -> str:
    prefix = os.path.commonprefix(list(names))
    cut = max((i + 1 for i, char in enumerate(prefix) if char in _SEPARATORS), default=0)
    return prefix[:cut]


def shorten(names: Sequence[str], limit: int) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """A short form of every name (``limit`` characters at most where it can be) and the legend:
    (short, full) pairs for the names that changed, in the order given."""
    distinct = list(dict.fromkeys(names))
    short = {name: name for name in distinct}
    long = [name for name in distinct if len(name) > limit]
    if not long:
        return short, []
    taken = set(distinct)
    prefix = _common_prefix(long) if len(long) > 1 else ""
    if len(prefix) >= _MIN_PREFIX:
        for name in long:
            candidate = "~" + name[len(prefix):]
            if len(candidate) <= limit and candidate not in taken:
                short[name] = candidate
                taken.add(candidate)
    number = 0
    for name in long:
        if short[name] != name:
            continue
        number += 1
        while f"c{number}" in taken:
            number += 1
        short[name] = f"c{number}"
        taken.add(short[name])
    legend = [(short[name], name) for name in distinct if short[name] != name]
    return short, legend
