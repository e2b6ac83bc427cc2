"""The errors of the CEL package and the limits they report: CelError (a runtime error, its text as
upstream's), the cost limit, the parser's depth limit and Go's integer bounds."""

from __future__ import annotations

#: resourceapi.CELSelectorExpressionMaxCost: the runtime cost limit of one evaluation.
COST_LIMIT = 1_000_000

_COST_EXCEEDED = "operation cancelled: actual cost limit exceeded"
_MIN_INT = -(1 << 63)
_MAX_INT = (1 << 63) - 1
_MAX_UINT = (1 << 64) - 1
#: Recursion limits of cel-go's parser (parser.MaxRecursionDepth default).
_MAX_DEPTH = 250


class CelError(Exception):
    """A CEL runtime error; ``str(err)`` is the text upstream would report."""


class _CostLimit(Exception):
    """Raised past the cost limit. Deliberately not a CelError: nothing may absorb it."""


class _CompileFailure(Exception):
    """A failed compilation; ``args[0]`` is the full upstream error text."""


def _no_overload() -> CelError:
    return CelError("no such overload")
