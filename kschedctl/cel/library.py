"""Function name -> implementation: the table the evaluator dispatches calls through, merged from
the tables of the operations and of each library family."""

from __future__ import annotations

from typing import Any, Callable

from . import lib_ext, lib_k8s, lib_strings, operations

#: Function name -> implementation (the receiver, if any, comes first).
_IMPLS: dict[str, Callable[..., Any]] = {
    **operations.FUNCTIONS, **lib_strings.FUNCTIONS, **lib_k8s.FUNCTIONS, **lib_ext.FUNCTIONS,
}
_CONVERSIONS = {"bool", "bytes", "double", "dyn", "int", "string", "type", "uint"}
