"""Runtime operations (cel-go common/types semantics): equality, ordering, arithmetic with int64/uint64
overflow errors, conversions. Errors are raised as CelError."""

from __future__ import annotations

import math
import operator
from typing import Any, Callable

from kschedctl.k8s.strconv import NumError, parse_float, parse_int, parse_uint

from .decls import _TYPE_VALUES
from .errors import CelError, _MAX_INT, _MAX_UINT, _MIN_INT, _no_overload
from .gofmt import _BOOL_STRINGS, _go_g
from .values import _qcmp, CelType, _no_overload_sig, Quantity, Semver, _type_name, _UInt


_MISSING = object()
_NUMERIC = (int, _UInt, float)
_F_MIN_INT = -9.223372036854775808e18  # float64(math.MinInt64)
_F_MAX_INT = 9.223372036854775808e18   # float64(math.MaxInt64) rounds up to 2^63
_F_MAX_UINT = 1.8446744073709551616e19


def _cmp_double(d: float, n: int) -> int:
    """A double against an int or uint: outside the integer type's range the double wins outright;
    inside it, cel-go converts the integer to a double (so 2^53+1 == 2^53.0)."""
    if type(n) is _UInt:
        lo, hi = 0, _F_MAX_UINT
    else:
        lo, hi = _F_MIN_INT, _F_MAX_INT
    if d < lo:
        return -1
    if d > hi:
        return 1
    fn = float(n)
    return (d > fn) - (d < fn)


def _num_eq(a: Any, b: Any) -> bool:
    """Heterogeneous numeric equality (Int/Uint/Double.Equal)."""
    ta, tb = type(a), type(b)
    if ta is float:
        if a != a or (tb is float and b != b):
            return False
        if tb is float:
            return a == b
        return _cmp_double(a, b) == 0
    if tb is float:
        if b != b:
            return False
        return _cmp_double(b, a) == 0
    return int(a) == int(b)


def _eq(a: Any, b: Any) -> bool:
    """types.Equal: null-aware, heterogeneous (false across types), numeric across int/uint/double.
    Quantity and Semver refuse other operands with 'no such overload', as upstream."""
    if a is None or b is None:
        return a is b
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is str or ta is int or ta is bool or ta is float or ta is bytes or ta is _UInt:
            return a == b
        if ta is list:
            return _list_eq(a, b)
        if ta is Quantity:
            if b.ptr:
                raise CelError("no such overload")
            return _qcmp(a.m, a.e, b.m, b.e) == 0
        if ta is Semver:
            return a.cmp(b) == 0
        if ta is CelType:
            return a.name == b.name
        if isinstance(a, dict):
            return _map_eq(a, b)
        return False
    if ta in _NUMERIC and tb in _NUMERIC:
        return _num_eq(a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return _map_eq(a, b)
    if ta is Quantity or ta is Semver:
        raise CelError("no such overload")
    return False


def _eq_quiet(a: Any, b: Any) -> bool | None:
    """Equality where an error counts as 'not false' (list/map Equal, Contains): None on error."""
    try:
        return _eq(a, b)
    except CelError:
        return None


def _list_eq(a: list, b: list) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if _eq_quiet(x, y) is False:
            return False
    return True


def _map_find(d: dict, k: Any) -> Any:
    """traits.Mapper.Find: the value or _MISSING (numeric keys match across int/uint/double,
    never bools)."""
    if type(k) is str:
        return dict.get(d, k, _MISSING)
    try:
        v = dict.get(d, k, _MISSING)
    except TypeError:
        return _MISSING
    if v is _MISSING:
        return _MISSING
    kb = type(k) is bool
    for sk, sv in d.items():
        if (type(sk) is bool) == kb and type(sk) is not str and sk == k:
            return sv
    return _MISSING


def _map_eq(a: dict, b: dict) -> bool:
    if len(a) != len(b):
        return False
    for k, v in a.items():
        w = _map_find(b, k)
        if w is _MISSING:
            return False
        if _eq_quiet(v, w) is False:
            return False
    return True


def _in(x: Any, c: Any) -> bool:
    if type(c) is list:
        for e in c:
            if _eq_quiet(x, e):
                return True
        return False
    if isinstance(c, dict):
        return _map_find(c, x) is not _MISSING
    raise _no_overload()


def _cmp(a: Any, b: Any) -> int:
    """traits.Comparer.Compare with cross-type numeric ordering."""
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is int or ta is str or ta is _UInt or ta is bool or ta is bytes:
            return (a > b) - (a < b)
        if ta is float:
            if a != a or b != b:
                raise CelError("NaN values cannot be ordered")
            return (a > b) - (a < b)
        raise _no_overload()
    if ta in _NUMERIC and tb in _NUMERIC:
        if ta is float or tb is float:
            if (ta is float and a != a) or (tb is float and b != b):
                raise CelError("NaN values cannot be ordered")
            if ta is float:
                return _cmp_double(a, b)
            return -_cmp_double(b, a)
        return (a > b) - (a < b)  # int vs uint: exact, as compareIntUint
    raise _no_overload()


def _lt(a: Any, b: Any) -> bool:
    if type(a) is int and type(b) is int:
        return a < b
    return _cmp(a, b) < 0


def _le(a: Any, b: Any) -> bool:
    if type(a) is int and type(b) is int:
        return a <= b
    return _cmp(a, b) <= 0


def _gt(a: Any, b: Any) -> bool:
    if type(a) is int and type(b) is int:
        return a > b
    return _cmp(a, b) > 0


def _ge(a: Any, b: Any) -> bool:
    if type(a) is int and type(b) is int:
        return a >= b
    return _cmp(a, b) >= 0


def _int_result(v: int) -> int:
    if _MIN_INT <= v <= _MAX_INT:
        return v
    raise CelError("integer overflow")


def _uint_result(v: int) -> _UInt:
    if 0 <= v <= _MAX_UINT:
        return _UInt(v)
    raise CelError("unsigned integer overflow")


def _arithmetic(op: Callable[[Any, Any], Any], unchecked: tuple) -> Callable[[Any, Any], Any]:
    """``+ - *`` on two operands of one type: int and uint results must stay in range, the
    ``unchecked`` types' results need no check."""
    def arithmetic(a: Any, b: Any) -> Any:
        ta = type(a)
        if ta is not type(b):
            raise _no_overload()
        if ta is int:
            return _int_result(op(a, b))
        if ta in unchecked:
            return op(a, b)
        if ta is _UInt:
            return _uint_result(op(a, b))
        raise _no_overload()
    return arithmetic


_add = _arithmetic(operator.add, (str, float, bytes, list))
_sub = _arithmetic(operator.sub, (float,))
_mul = _arithmetic(operator.mul, (float,))


def _go_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _go_mod(a: int, b: int) -> int:
    # Go's remainder takes the dividend's sign; Python's takes the divisor's
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def _float_div(a: float, b: float) -> float:
    if b == 0:  # IEEE: Go yields ±Inf or NaN where Python raises
        if a == 0 or a != a:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _division(by_zero: str, on_int: Callable[[int, int], int], on_uint: Callable[[int, int], int],
              on_float: Callable[[float, float], float] | None) -> Callable[[Any, Any], Any]:
    """``/`` and ``%``: a zero int or uint divisor is an error (``by_zero``), and so is MinInt64
    by -1, which overflows int64; doubles follow IEEE (``%`` has none, ``on_float`` None)."""
    def division(a: Any, b: Any) -> Any:
        ta = type(a)
        if ta is not type(b):
            raise _no_overload()
        if ta is int:
            if b == 0:
                raise CelError(by_zero)
            if a == _MIN_INT and b == -1:
                raise CelError("integer overflow")
            return on_int(a, b)
        if ta is _UInt:
            if b == 0:
                raise CelError(by_zero)
            return _UInt(on_uint(a, b))
        if ta is float and on_float is not None:
            return on_float(a, b)
        raise _no_overload()
    return division


_div = _division("division by zero", _go_div, operator.floordiv, _float_div)
_mod = _division("modulus by zero", _go_mod, operator.mod, None)


def _neg(a: Any) -> Any:
    t = type(a)
    if t is int:
        return _int_result(-a)
    if t is float:
        return -a
    raise _no_overload()


def _not(a: Any) -> bool:
    if a is True:
        return False
    if a is False:
        return True
    raise _no_overload()


def _size(v: Any) -> int:
    t = type(v)
    if t is str or t is bytes or t is list or isinstance(v, dict):
        return len(v)
    raise _no_overload_sig("size", (v,))


def _runtime_type(v: Any) -> CelType:
    return _TYPE_VALUES.get(_type_name(v)) or CelType(_type_name(v))


def _conv_error(v: Any, target: str) -> CelError:
    return CelError(f"type conversion error from '{_type_name(v)}' to '{target}'")


def _to_int(v: Any) -> int:
    t = type(v)
    if t is int:
        return v
    if t is _UInt:
        return _int_result(int(v))
    if t is float:
        if v != v or v in (math.inf, -math.inf) or v <= _F_MIN_INT or v >= _F_MAX_INT:
            raise CelError("integer overflow")
        return int(v)
    if t is str:
        try:
            return parse_int(v, 64)
        except NumError:
            raise _conv_error(v, "int") from None
    raise _no_overload_sig("int", (v,))


def _to_uint(v: Any) -> _UInt:
    t = type(v)
    if t is _UInt:
        return v
    if t is int:
        if v < 0:
            raise CelError("unsigned integer overflow")
        return _UInt(v)
    if t is float:
        if v != v or v in (math.inf, -math.inf) or v < 0 or v >= _F_MAX_UINT:
            raise CelError("unsigned integer overflow")
        return _UInt(int(v))
    if t is str:
        try:
            return _UInt(parse_uint(v, 64))
        except NumError:
            raise _conv_error(v, "uint") from None
    raise _no_overload_sig("uint", (v,))


def _to_double(v: Any) -> float:
    t = type(v)
    if t is float:
        return v
    if t is int or t is _UInt:
        return float(v)
    if t is str:
        try:
            return parse_float(v)
        except NumError:
            raise _conv_error(v, "double") from None
    raise _no_overload_sig("double", (v,))


def _to_string(v: Any) -> str:
    t = type(v)
    if t is str:
        return v
    if t is bool:
        return "true" if v else "false"
    if t is int or t is _UInt:
        return str(int(v))
    if t is float:
        return _go_g(v)
    if t is bytes:
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            raise CelError("invalid UTF-8 in bytes, cannot convert to string") from None
    raise _no_overload_sig("string", (v,))


def _to_bool(v: Any) -> bool:
    t = type(v)
    if t is bool:
        return v
    if t is str:
        b = _BOOL_STRINGS.get(v)
        if b is None:
            raise _conv_error(v, "bool")
        return b
    raise _no_overload_sig("bool", (v,))


def _to_bytes(v: Any) -> bytes:
    t = type(v)
    if t is bytes:
        return v
    if t is str:
        return v.encode("utf-8", errors="surrogatepass")
    raise _no_overload_sig("bytes", (v,))


def _want(name: str, args: tuple, *types: type) -> None:
    """The runtime signature guard of library overloads ('no such overload: f(types)')."""
    for a, t in zip(args, types):
        if type(a) is not t:
            raise _no_overload_sig(name, args)


#: The operators and conversions by function name (the receiver, if any, comes first).
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "!_": _not, "-_": _neg, "_+_": _add, "_-_": _sub, "_*_": _mul, "_/_": _div, "_%_": _mod,
    "_<_": _lt, "_<=_": _le, "_>_": _gt, "_>=_": _ge, "@in": _in, "size": _size,
    "type": _runtime_type, "dyn": lambda v: v, "int": _to_int, "uint": _to_uint, "double": _to_double,
    "string": _to_string, "bool": _to_bool, "bytes": _to_bytes,
}
