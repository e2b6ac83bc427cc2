"""Single changes of plain data (dicts and lists), for tests that mutate valid inputs at every place."""

from __future__ import annotations

import copy
from typing import Any, Iterator


def paths(value: Any, path: tuple = ()) -> Iterator[tuple]:
    """Every place in ``value``: the keys and indexes that lead to it, ``()`` for the whole."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from paths(item, (*path, i))


def replaced(obj: Any, path: tuple, value: Any) -> Any:
    """A copy of ``obj`` with ``value`` at ``path`` (``obj`` itself is left as it is)."""
    if not path:
        return value
    obj = copy.deepcopy(obj)
    parent = obj
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = value
    return obj


def at(obj: Any, path: tuple) -> Any:
    """What ``obj`` holds at ``path``."""
    for part in path:
        obj = obj[part]
    return obj
