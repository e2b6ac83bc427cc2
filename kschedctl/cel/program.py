"""The ``device`` variable and the public interface: compile_expression, CompilationResult and
CelCache."""

from __future__ import annotations

import sys
from typing import Any, Callable

from .checker import _Checker, _validate
from .cost import _Run
from .decls import _str_type
from .errors import (
    CelError, _CompileFailure, _COST_EXCEEDED, COST_LIMIT, _CostLimit, _MAX_DEPTH, _MAX_INT, _MIN_INT,
)
from .evaluator import _Compiler
from .lexer import _SyntaxError
from .parser import _Parser, _visit_depth
from .quantity import _quantity_from_input
from .semver import _parse_semver
from .source import _Errors, _Source
from .syntax import _N
from .values import CelType, _DefaultMap, Quantity, Semver, _type_name, _UInt


def _attribute_value(name: str, attr: Any) -> Any:
    """getAttributeValue: the first of int, bool, string, version that is set."""
    if isinstance(attr, dict):
        v = attr.get("int")
        if v is not None:
            if type(v) is not int or not _MIN_INT <= v <= _MAX_INT:
                raise CelError(f"attribute {name}: invalid int value {v!r}")
            return v
        v = attr.get("bool")
        if v is not None:
            if type(v) is not bool:
                raise CelError(f"attribute {name}: invalid bool value {v!r}")
            return v
        v = attr.get("string")
        if v is not None:
            return str(v)
        v = attr.get("version")
        if v is not None:
            try:
                return _parse_semver(str(v))
            except CelError as err:
                raise CelError(f"attribute {name}: parse semantic version: {err}") from None
    raise CelError(f"attribute {name}: unsupported attribute value")


def _qualified(name: str, driver: str) -> tuple[str, str]:
    """parseQualifiedName: split at the first '/', the driver being the default domain."""
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (driver, name)


def _build_device(device: Any) -> dict:
    """The value of ``device`` for one device (DeviceMatches' maps), built once per device."""
    driver = device.id.driver
    attributes: dict[str, dict] = {}
    for name, attr in (device.attributes or {}).items():
        value = _attribute_value(str(name), attr)
        domain, ident = _qualified(str(name), driver)
        attributes.setdefault(domain, {})[ident] = value
    capacity: dict[str, dict] = {}
    for name, cap in (device.capacity or {}).items():
        raw = cap.get("value") if isinstance(cap, dict) else cap
        try:
            q = Quantity(0, 0, False) if raw is None else _quantity_from_input(raw)
        except CelError as err:
            raise CelError(f"capacity {name}: {err}") from None
        domain, ident = _qualified(str(name), driver)
        capacity.setdefault(domain, {})[ident] = q
    return {
        "driver": driver,
        # DRAConsumableCapacity is off in v1.34: the allocator leaves it unset, which reads as false
        "allowMultipleAllocations": False,
        "attributes": _DefaultMap(attributes),
        "capacity": _DefaultMap(capacity),
    }


_NATIVE_BOOL_ERRORS = {
    int: "unsupported type conversion from 'int' to bool",
    _UInt: "unsupported type conversion from 'uint' to bool",
    float: "type conversion error from Double to 'bool'",
    str: "unsupported native conversion from string to 'bool'",
    bytes: "type conversion error from Bytes to 'bool'",
    type(None): "type conversion error from 'null_type' to 'bool'",
    list: "type conversion error from list to 'bool'",
    dict: "type conversion error from map to 'bool'",
    _DefaultMap: "type conversion error from map to 'bool'",
    CelType: "type conversion not supported for 'type'",
    Quantity: "type conversion error from 'Quantity' to 'bool'",
    Semver: "type conversion error from 'Semver' to 'bool'",
}


class CompilationResult:
    """One compiled selector expression (or the reason it did not compile)."""

    __slots__ = ("expression", "error", "_fn", "_nslots")

    def __init__(self, expression: str, error: str | None, fn: Callable[[_Run], Any] | None = None,
                 nslots: int = 0) -> None:
        self.expression = expression
        #: upstream's compile error text, or None
        self.error = error
        self._fn = fn
        self._nslots = nslots

    def evaluate(self, device: Any = None) -> tuple[Any, int]:
        """(the expression's CEL value, its runtime cost) for ``device`` (a pools.Device, or None
        for an expression that does not use it). CelError as upstream's Program.Eval fails."""
        if self._fn is None:
            raise CelError(self.error or "expression did not compile")
        dev = device.cel_value(_build_device) if device is not None else _EMPTY_DEVICE
        r = _Run(dev, self._nslots)
        try:
            value = self._fn(r)
        except CelError:
            if r.cost > COST_LIMIT:
                raise CelError(_COST_EXCEEDED) from None
            raise
        except _CostLimit:
            raise CelError(_COST_EXCEEDED) from None
        except RecursionError:
            raise CelError("kschedctl: the expression is nested too deeply to evaluate") from None
        if r.cost > COST_LIMIT:
            raise CelError(_COST_EXCEEDED)
        return value, r.cost

    def device_matches(self, device: Any) -> bool:
        """DeviceMatches: whether the selector accepts ``device``; CelError with upstream's text."""
        value, _ = self.evaluate(device)
        if value is True or value is False:
            return value
        detail = _NATIVE_BOOL_ERRORS.get(type(value), f"cannot convert {_type_name(value)} to bool")
        raise CelError(f"CEL result of type {_type_name(value)} could not be converted to bool: {detail}")


_EMPTY_DEVICE = {"driver": "", "allowMultipleAllocations": False, "attributes": _DefaultMap(),
                 "capacity": _DefaultMap()}


def _failed(expression: str, error: str) -> CompilationResult:
    return CompilationResult(expression, error)


def compile_expression(expression: str, bool_result: bool = True) -> CompilationResult:
    """Compile one expression in the DRA selector environment (``CompileCELExpression``).

    ``bool_result=False`` skips the "must evaluate to bool" rule, for evaluating library
    expressions in tests.
    """
    # The parser and checker recurse per nesting level; cel-go accepts 250 levels, which takes
    # more Python frames than the default limit allows.
    limit = sys.getrecursionlimit()
    if limit < _COMPILE_RECURSION_LIMIT:
        sys.setrecursionlimit(_COMPILE_RECURSION_LIMIT)
    try:
        return _compile(expression, bool_result)
    except RecursionError:
        return _failed(expression, "compilation failed: ERROR: <input>:-1:0: max recursion depth exceeded")
    finally:
        if limit < _COMPILE_RECURSION_LIMIT:
            sys.setrecursionlimit(limit)


_COMPILE_RECURSION_LIMIT = 20000


def _compile(expression: str, bool_result: bool) -> CompilationResult:
    src = _Source(expression)
    errors = _Errors(src)
    root: _N | None = None
    try:
        root = _Parser(src, errors).parse()
    except _SyntaxError as err:
        pos, msg = err.args[0]
        errors.add(pos, msg)
    if errors or root is None:
        return _failed(expression, "compilation failed: " + errors.display())
    if _visit_depth(root) > _MAX_DEPTH:
        errors.add(-1, "max recursion depth exceeded")
        return _failed(expression, "compilation failed: " + errors.display())
    checker = _Checker(errors)
    checker.check(root)
    if errors:
        return _failed(expression, "compilation failed: " + errors.display())
    _validate(checker.finish(root), errors)
    if errors:
        return _failed(expression, "compilation failed: " + errors.display())
    if bool_result and root.t.kind not in ("bool", "any"):
        return _failed(expression, f"must evaluate to bool or the unknown type, not {_str_type(root.t)}")
    compiler = _Compiler()
    try:
        fn = compiler.fn(root)
    except _CompileFailure as err:
        return _failed(expression, err.args[0])
    return CompilationResult(expression, None, fn, compiler.nslots)


class CelCache:
    """Compiled expressions by their text (upstream's cel.Cache): each is compiled once;
    failures are not cached. ``max_entries`` > 0 bounds the cache (least recently used first
    out); 0 means unbounded."""

    def __init__(self, max_entries: int = 0) -> None:
        self._max = max_entries
        self._entries: dict[str, CompilationResult] = {}

    def get_or_compile(self, expression: str) -> CompilationResult:
        hit = self._entries.get(expression)
        if hit is not None:
            if self._max > 0:  # mark as most recently used
                del self._entries[expression]
                self._entries[expression] = hit
            return hit
        result = compile_expression(expression)
        if result.error is None:
            if self._max > 0 and len(self._entries) >= self._max:
                del self._entries[next(iter(self._entries))]
            self._entries[expression] = result
        return result
