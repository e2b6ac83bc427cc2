"""Function name -> implementation: the table the evaluator dispatches calls through."""

from __future__ import annotations

from typing import Any, Callable

from .lib_ext import (
    _distinct, _flatten, _lists_range, _map_insert, _reverse, _set_contains, _set_equivalent,
    _set_intersects, _slice, _sort, _sort_by_keys,
)
from .lib_k8s import (
    _as_float, _as_integer, _compare_to, _is_greater_than, _is_integer, _is_less_than, _is_quantity,
    _is_semver, _is_sorted, _min_max, _q_add_fn, _q_sub_fn, _quantity, _semver, _semver_part, _sign,
)
from .lib_strings import (
    _char_at, _contains, _ends_with, _find, _find_all_fn, _index_of, _join, _last_index_of, _lower_ascii,
    _matches, _quote, _replace, _split, _starts_with, _substring, _trim, _upper_ascii,
)
from .operations import (
    _add, _div, _ge, _gt, _in, _le, _lt, _mod, _mul, _neg, _not, _runtime_type, _size, _sub, _to_bool,
    _to_bytes, _to_double, _to_int, _to_string, _to_uint,
)


_SEMVER_MAJOR = _semver_part("major")
_SEMVER_MINOR = _semver_part("minor")
_SEMVER_PATCH = _semver_part("patch")

#: Function name -> implementation (the receiver, if any, comes first).
_IMPLS: dict[str, Callable[..., Any]] = {
    "!_": _not, "-_": _neg, "_+_": _add, "_-_": _sub, "_*_": _mul, "_/_": _div, "_%_": _mod,
    "_<_": _lt, "_<=_": _le, "_>_": _gt, "_>=_": _ge, "@in": _in, "size": _size,
    "type": _runtime_type, "dyn": lambda v: v, "int": _to_int, "uint": _to_uint, "double": _to_double,
    "string": _to_string, "bool": _to_bool, "bytes": _to_bytes,
    "contains": _contains, "startsWith": _starts_with, "endsWith": _ends_with, "matches": _matches,
    "charAt": _char_at, "indexOf": _index_of, "lastIndexOf": _last_index_of, "lowerAscii": _lower_ascii,
    "upperAscii": _upper_ascii, "replace": _replace, "split": _split, "substring": _substring,
    "trim": _trim, "join": _join, "strings.quote": _quote, "find": _find, "findAll": _find_all_fn,
    "isSorted": _is_sorted, "max": lambda lst: _min_max(lst, "max", -1),
    "min": lambda lst: _min_max(lst, "min", 1),
    "quantity": _quantity, "isQuantity": _is_quantity, "sign": _sign, "isGreaterThan": _is_greater_than,
    "isLessThan": _is_less_than, "compareTo": _compare_to, "asInteger": _as_integer,
    "isInteger": _is_integer, "asApproximateFloat": _as_float, "add": _q_add_fn, "sub": _q_sub_fn,
    "semver": _semver, "isSemver": _is_semver, "major": _SEMVER_MAJOR, "minor": _SEMVER_MINOR,
    "patch": _SEMVER_PATCH, "sets.contains": _set_contains, "sets.equivalent": _set_equivalent,
    "sets.intersects": _set_intersects, "slice": _slice, "flatten": _flatten, "lists.range": _lists_range,
    "reverse": _reverse, "distinct": _distinct, "sort": _sort,
    "@sortByAssociatedKeys": lambda lst, keys: _sort_by_keys(lst, keys),
    "cel.@mapInsert": _map_insert,
}
_CONVERSIONS = {"bool", "bytes", "double", "dyn", "int", "string", "type", "uint"}
