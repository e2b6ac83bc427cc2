"""Go's float arithmetic where Python's differs: ``math.Round`` and the built-in ``min``/``max``.

Scores are ``int64(math.Round(x))`` upstream; Python's ``round`` rounds halves to even, so a
port that used it would score 2 where Go scores 3 for 2.5.
"""

from __future__ import annotations

import math

__all__ = ["go_round", "go_min", "go_max"]


def go_round(x: float) -> int:
    """``int64(math.Round(x))``: halves round away from zero; exact for every float."""
    t = math.trunc(x)
    if abs(x - t) >= 0.5:
        t += 1 if x > 0 else -1
    return int(t)


def go_min(a: float, b: float) -> float:
    """Go's built-in ``min`` for two floats: NaN wins."""
    if a != a or b != b:
        return math.nan
    return a if a < b else b


def go_max(a: float, b: float) -> float:
    """Go's built-in ``max`` for two floats: NaN wins."""
    if a != a or b != b:
        return math.nan
    return a if a > b else b
