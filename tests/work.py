"""Bounds on work done, for tests that guard against a blow-up (a hostile input that hangs the
loader, a plugin that turns quadratic): the number of function calls is the same on a busy
machine as on an idle one, where a wall-clock limit is not."""

from __future__ import annotations

import sys
from typing import Any, Callable

from kschedctl.errors import InputError


def calls_made(fn: Callable[[], Any]) -> tuple[Any, int]:
    """``fn()`` (or the ``InputError`` it raised) and how many Python and C functions it called."""
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        if event == "call" or event == "c_call":
            count += 1

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        result: Any = fn()
    except InputError as exc:
        result = exc
    finally:
        sys.setprofile(previous)
    return result, count
