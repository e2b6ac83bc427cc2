"""Field errors, worded the way upstream's field.Error prints them, and field paths.

Upstream (k8s.io/apimachinery/pkg/util/validation/field) prints an error as
``<path>: <type text>: <value>: <detail>``; a :class:`FieldError` keeps the path apart and
its ``message`` is the rest, so ``str(error)`` reads exactly like kube-scheduler's log line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable


@dataclass
class FieldError:
    """One finding: upstream field path, upstream error type, message, YAML line, hint."""

    field: str
    type: str
    message: str
    line: int | None = None
    hint: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"field": self.field, "type": self.type, "message": self.message}
        if self.line is not None:
            out["line"] = self.line
        if self.hint:
            out["hint"] = self.hint
        return out

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


def child(path: str, name: str) -> str:
    """``path.name`` (just ``name`` at the root), as upstream's field.Path.Child prints."""
    return f"{path}.{name}" if path else name


def index(path: str, i: int) -> str:
    """``path[i]``, as upstream's field.Path.Index prints."""
    return f"{path}[{i}]"


class PathValue:
    """A field path used as a value (upstream's Duplicate of a schedulerName prints it as ``{}``)."""

    def __init__(self, path: str) -> None:
        self.path = path


def render_value(value: Any) -> str:
    """A bad value as upstream's ErrorBody renders it: %v for numbers and bools, %q for strings, JSON else."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, PathValue):
        return "{}"
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return str(value)


def _with_detail(text: str, detail: str) -> str:
    return f"{text}: {detail}" if detail else text


def invalid(path: str, value: Any, detail: str) -> FieldError:
    return FieldError(path, "Invalid", _with_detail(f"Invalid value: {render_value(value)}", detail))


def required(path: str, detail: str = "") -> FieldError:
    return FieldError(path, "Required", _with_detail("Required value", detail))


def duplicate(path: str, value: Any) -> FieldError:
    return FieldError(path, "Duplicate", f"Duplicate value: {render_value(value)}")


def not_supported(path: str, value: Any, valid: Iterable[str] | None) -> FieldError:
    detail = ""
    valid = list(valid or ())
    if valid:
        detail = "supported values: " + ", ".join(json.dumps(v) for v in valid)
    error = FieldError(path, "NotSupported", _with_detail(f"Unsupported value: {render_value(value)}", detail))
    close = closest(value, valid) if isinstance(value, str) else None
    if close is not None:
        error.hint = f'did you mean "{close}"?'
    return error


def closest(name: str, candidates: Iterable[str]) -> str | None:
    """The candidate ``name`` was most likely meant to be (the same letters in another case, else
    a close spelling: ``MostAlocated`` -> ``MostAllocated``), or None."""
    import difflib

    candidates = [c for c in candidates if isinstance(c, str) and c != name]
    folded = name.lower()
    for candidate in candidates:
        if candidate.lower() == folded:
            return candidate
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    return close[0] if close else None


def forbidden(path: str, detail: str) -> FieldError:
    return FieldError(path, "Forbidden", _with_detail("Forbidden", detail))


def too_many(path: str, actual: int, limit: int) -> FieldError:
    return FieldError(path, "TooMany", f"Too many: {actual}: must have at most {limit} items")


def prefixed(prefix: str, errors: Iterable[FieldError]) -> list[FieldError]:
    """Errors of a validator run with a nil path, re-rooted under ``prefix``."""
    out = []
    for e in errors:
        if not e.field:
            e.field = prefix
        elif e.field.startswith("["):
            e.field = prefix + e.field
        else:
            e.field = f"{prefix}.{e.field}" if prefix else e.field
        out.append(e)
    return out
