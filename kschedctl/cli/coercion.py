"""Command-line values of the common types converted without pydantic.

Typer (0.2x and later) converts every value given on the command line through a pydantic
``TypeAdapter`` built for its parameter: the first one imports pydantic and pydantic-core, about
a tenth of a second of every run of ``kschedctl`` for values that are strings, lists of strings,
paths and choices, which need no conversion beyond what typer's own helpers do. Here those four
are converted by typer's own helpers (``coerce_cli_path``, ``coerce_cli_choice``) without the
adapter, and defaults already of their parameter's type (``False``, ``0``) are taken as they are; anything else, and any value the quick way does not take as it is (a choice that is
none of the choices, an empty path, a value that is not a string), goes through typer's
adapter, built then, so that its conversions and error messages stay typer's.

Only installed on a typer that has the lazy per-parameter conversion this replaces
(``_TyperParameter.get_runtime_param``); on an older one nothing changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

__all__ = ["install"]

_installed = False
#: An integer as the quick way takes it (anything else, the adapter reads): short enough that no
#: digit limit applies.
_DECIMAL = re.compile(r"-?[0-9]{1,18}")


def install() -> bool:
    """Convert the common value types without pydantic from now on; whether typer allowed it."""
    global _installed
    if _installed:
        return True
    try:
        from typer import _coercion, _param_types
        from typer import core as typer_core
    except ImportError:
        return False
    param_class = getattr(typer_core, "_TyperParameter", None)
    base = getattr(_coercion, "RuntimeParam", None)
    build = getattr(_coercion, "build_runtime_param", None)
    coerce_path = getattr(_param_types, "coerce_cli_path", None)
    coerce_choice = getattr(_param_types, "coerce_cli_choice", None)
    if (param_class is None or base is None or build is None or coerce_path is None or coerce_choice is None
            or not callable(getattr(param_class, "get_runtime_param", None))):
        return False

    @dataclass(frozen=True)
    class QuickRuntimeParam(base):  # type: ignore[misc, valid-type]
        """typer's conversion of one parameter, its adapter built only when a value needs it."""

        descriptor: Any = None

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            done, result = _quick(self.annotation, self.parameter_info, value, ctx, param)
            if done:
                return result
            real = build(self.descriptor)
            param._runtime_param = real  # the adapter from now on: built once
            return real._coerce_value(value, param=param, ctx=ctx)

    def _quick(annotation: Any, info: Any, value: Any, ctx: Any, param: Any) -> tuple[bool, Any]:
        if getattr(info, "parser", None) is not None:
            return False, None
        if annotation is str or annotation is bool:
            # A default, or a string given: typer's adapter returns such a value as it is.
            return (True, value) if value.__class__ is annotation else (False, None)
        if annotation is int and value.__class__ is str and _DECIMAL.fullmatch(value):
            value = int(value)  # plain decimal digits: what the adapter makes of them too
        if annotation is int or annotation is float:
            if value.__class__ is not annotation:
                return False, None
            low, high = getattr(info, "min", None), getattr(info, "max", None)
            # Out of its range the adapter words the error, or clamps.
            return (low is None or value >= low) and (high is None or value <= high), value
        if annotation == list[str]:
            if isinstance(value, (list, tuple)) and all(v.__class__ is str for v in value):
                return True, list(value)
            return False, None
        if annotation is Path and getattr(info, "path_type", None) in (None, Path):
            if value.__class__ is str and value:
                return True, coerce_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
            return False, None
        if isinstance(annotation, type) and issubclass(annotation, Enum):
            try:
                return True, coerce_choice(value, choices=list(annotation), case_sensitive=info.case_sensitive,
                                           ctx=ctx)
            except ValueError:  # typer's adapter words the error
                return False, None
        return False, None

    def get_runtime_param(self: Any) -> Any:
        if self._runtime_param is None:
            descriptor = self.type_descriptor
            if getattr(descriptor, "file_annotation", None) is None:
                # No value at all (an option not given) never reaches the conversion: no adapter.
                self._runtime_param = QuickRuntimeParam(parameter_info=descriptor.parameter_info,
                                                        annotation=descriptor.annotation, descriptor=descriptor)
            else:
                self._runtime_param = build(descriptor)
        return self._runtime_param
    param_class.get_runtime_param = get_runtime_param
    _installed = True
    return True
