"""The Kubernetes libraries of k8s.io/apiserver/pkg/cel/library: lists, quantity and semver."""

from __future__ import annotations

from typing import Any, Callable

from .errors import CelError
from .operations import _add, _cmp, _want
from .quantity import _parse_quantity, _q_add, _q_float, _q_int64
from .semver import _go_int64, _normalize_parse_semver, _parse_semver
from .values import _no_overload_sig, Quantity, Semver


def _is_sorted(lst: Any) -> bool:
    _want("isSorted", (lst,), list)
    for a, b in zip(lst, lst[1:]):
        if _cmp(a, b) > 0:
            return False
    return True


def _sum(lst: Any, zero: Any) -> Any:
    acc = zero
    for x in lst:
        acc = _add(acc, x)
    return acc


def _min_max(lst: Any, name: str, prefer: int) -> Any:
    _want(name, (lst,), list)
    if not lst:
        raise CelError(f"{name} called on empty list")
    best = lst[0]
    for x in lst[1:]:
        if _cmp(best, x) == prefer:
            best = x
    return best


# -- k8s quantity library


def _quantity(s: Any) -> Quantity:
    _want("quantity", (s,), str)
    return _parse_quantity(s)


def _is_quantity(s: Any) -> bool:
    _want("isQuantity", (s,), str)
    try:
        _parse_quantity(s)
    except CelError:
        return False
    return True


def _q_or_s_cmp(name: str, a: Any, b: Any) -> int:
    ta = type(a)
    if ta is not type(b) or ta not in (Quantity, Semver):
        raise _no_overload_sig(name, (a, b))
    return a.cmp(b)


def _is_greater_than(a: Any, b: Any) -> bool:
    return _q_or_s_cmp("isGreaterThan", a, b) == 1


def _is_less_than(a: Any, b: Any) -> bool:
    return _q_or_s_cmp("isLessThan", a, b) == -1


def _compare_to(a: Any, b: Any) -> int:
    return _q_or_s_cmp("compareTo", a, b)


def _sign(q: Any) -> int:
    _want("sign", (q,), Quantity)
    return (q.m > 0) - (q.m < 0)


def _as_integer(q: Any) -> int:
    _want("asInteger", (q,), Quantity)
    v = _q_int64(q)
    if v is None:
        raise CelError("cannot convert value to integer")
    return v


def _is_integer(q: Any) -> bool:
    _want("isInteger", (q,), Quantity)
    return _q_int64(q) is not None


def _as_float(q: Any) -> float:
    _want("asApproximateFloat", (q,), Quantity)
    return _q_float(q)


def _q_arith(name: str, q: Any, o: Any, negate: bool) -> Quantity:
    if type(q) is not Quantity or type(o) not in (Quantity, int):
        raise _no_overload_sig(name, (q, o))
    if type(o) is int:
        o = Quantity(o, 0, False)  # resource.NewQuantity(i, DecimalExponent)
    return _q_add(q, o, negate)


def _q_add_fn(q: Any, o: Any) -> Quantity:
    return _q_arith("add", q, o, False)


def _q_sub_fn(q: Any, o: Any) -> Quantity:
    return _q_arith("sub", q, o, True)


# -- k8s semver library


def _semver(s: Any, normalize: Any = False) -> Semver:
    _want("semver", (s, normalize), str, bool)
    return _normalize_parse_semver(s) if normalize else _parse_semver(s)


def _is_semver(s: Any, normalize: Any = False) -> bool:
    _want("isSemver", (s, normalize), str, bool)
    try:
        _semver(s, normalize)
    except CelError:
        return False
    return True


def _semver_part(name: str) -> Callable[[Any], int]:
    def part(v: Any) -> int:
        _want(name, (v,), Semver)
        return _go_int64(getattr(v, name))
    return part


_SEMVER_MAJOR = _semver_part("major")
_SEMVER_MINOR = _semver_part("minor")
_SEMVER_PATCH = _semver_part("patch")

#: The k8s library functions by name (the receiver, if any, comes first).
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "isSorted": _is_sorted, "max": lambda lst: _min_max(lst, "max", -1),
    "min": lambda lst: _min_max(lst, "min", 1),
    "quantity": _quantity, "isQuantity": _is_quantity, "sign": _sign, "isGreaterThan": _is_greater_than,
    "isLessThan": _is_less_than, "compareTo": _compare_to, "asInteger": _as_integer,
    "isInteger": _is_integer, "asApproximateFloat": _as_float, "add": _q_add_fn, "sub": _q_sub_fn,
    "semver": _semver, "isSemver": _is_semver, "major": _SEMVER_MAJOR, "minor": _SEMVER_MINOR,
    "patch": _SEMVER_PATCH,
}
