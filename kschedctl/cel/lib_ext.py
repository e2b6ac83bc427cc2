"""cel-go's ext sets and ext lists (v3), and the map insertion the two-variable comprehensions expand
to."""

from __future__ import annotations

from typing import Any, Callable

from .errors import CelError, COST_LIMIT, _CostLimit, _no_overload
from .gofmt import _fmt_v
from .operations import _eq_quiet, _in, _map_find, _MISSING, _want
from .values import _type_name, _UInt


def _set_contains(a: Any, b: Any) -> bool:
    _want("sets.contains", (a, b), list, list)
    return all(_in(x, a) for x in b)


def _set_equivalent(a: Any, b: Any) -> bool:
    _want("sets.equivalent", (a, b), list, list)
    return _set_contains(a, b) and _set_contains(b, a)


def _set_intersects(a: Any, b: Any) -> bool:
    _want("sets.intersects", (a, b), list, list)
    return any(_in(x, b) for x in a)


def _slice(lst: Any, start: Any, end: Any) -> list:
    _want("slice", (lst, start, end), list, int, int)
    if start < 0 or end < 0:
        raise CelError(f"cannot slice({start}, {end}), negative indexes not supported")
    if start > end:
        raise CelError(f"cannot slice({start}, {end}), start index must be less than or equal to end index")
    if len(lst) < end:
        raise CelError(f"cannot slice({start}, {end}), list is length {len(lst)}")
    return lst[start:end]


def _flatten(lst: Any, depth: Any = 1) -> list:
    if type(lst) is not list or type(depth) is not int:
        raise CelError(f"no such overload: {_type_name(lst)}.flatten({_type_name(depth)})")
    if depth < 0:
        raise CelError("level must be non-negative")
    out: list = []
    for x in lst:
        if type(x) is list and depth > 0:
            out.extend(_flatten(x, depth - 1))
        else:
            out.append(x)
    return out


def _lists_range(n: Any) -> list:
    _want("lists.range", (n,), int)
    if n > COST_LIMIT:  # its cost (the result's size) is over the limit: do not build it
        raise _CostLimit()
    return list(range(n))


def _reverse(lst: Any) -> list:
    _want("reverse", (lst,), list)
    return lst[::-1]


def _distinct(lst: Any) -> list:
    _want("distinct", (lst,), list)
    out: list = []
    for x in lst:
        if not any(_eq_quiet(x, y) for y in out):
            out.append(x)
    return out


def _sort_by_keys(lst: list, keys: list) -> list:
    if len(lst) != len(keys):
        raise CelError("@sortByAssociatedKeys() expected a list of the same size as the associated keys "
                       f"list, but got {len(lst)} and {len(keys)} elements respectively")
    if not lst:
        return lst
    first = type(keys[0])
    if first not in (int, _UInt, float, bool, str, bytes):
        raise CelError("list elements must be comparable")
    if any(type(k) is not first for k in keys):
        raise CelError("list elements must have the same type")
    if first is float and any(k != k for k in keys):
        raise CelError("NaN values cannot be ordered")
    order = sorted(range(len(keys)), key=lambda i: keys[i])
    return [lst[i] for i in order]


def _sort(lst: Any) -> list:
    if type(lst) is not list:
        raise CelError("no such overload: sort")
    return _sort_by_keys(lst, lst)


def _map_insert(m: dict, k: Any, v: Any = _MISSING) -> dict:
    out = dict(m)
    items = v.items() if v is _MISSING and isinstance(k, dict) else ((k, v),)
    if v is _MISSING and not isinstance(k, dict):
        raise _no_overload()
    for key, val in items:
        if _map_find(out, key) is not _MISSING:
            raise CelError(f"insert failed: key {_fmt_v(key)} already exists")
        out[key] = val
    return out


#: The ext sets and lists functions by name (the receiver, if any, comes first), and the helpers
#: macro expansions call.
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "sets.contains": _set_contains, "sets.equivalent": _set_equivalent,
    "sets.intersects": _set_intersects, "slice": _slice, "flatten": _flatten, "lists.range": _lists_range,
    "reverse": _reverse, "distinct": _distinct, "sort": _sort,
    "@sortByAssociatedKeys": lambda lst, keys: _sort_by_keys(lst, keys),
    "cel.@mapInsert": _map_insert,
}
