"""Taints and tolerations: which toleration tolerates which taint.

Follows upstream v1.34: ``k8s.io/api/core/v1/toleration.go`` (``Toleration.ToleratesTaint``),
``taint.go`` (``Taint.ToString``, ``MatchTaint``) and
``k8s.io/component-helpers/scheduling/corev1/helpers.go`` (``TolerationsTolerateTaint``,
``FindMatchingUntoleratedTaint``).

v1.34 knows the operators ``Equal`` (also spelled as an empty operator) and ``Exists`` only;
any other operator (including ``Lt`` / ``Gt``, added as an alpha feature after v1.34) tolerates
nothing. Missing fields behave as Go's empty strings.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

__all__ = [
    "EFFECT_NO_SCHEDULE",
    "EFFECT_PREFER_NO_SCHEDULE",
    "EFFECT_NO_EXECUTE",
    "OP_EQUAL",
    "OP_EXISTS",
    "tolerates",
    "tolerations_tolerate_taint",
    "find_matching_untolerated_taint",
    "taint_to_string",
    "match_taint",
    "match_toleration",
]

EFFECT_NO_SCHEDULE = "NoSchedule"
EFFECT_PREFER_NO_SCHEDULE = "PreferNoSchedule"
EFFECT_NO_EXECUTE = "NoExecute"

OP_EQUAL = "Equal"
OP_EXISTS = "Exists"

TaintFilter = Callable[[Mapping[str, Any]], bool]


def tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """Upstream ``Toleration.ToleratesTaint`` (v1.34).

    An empty effect matches every effect; an empty key matches every key; ``Exists`` matches
    every value; ``Equal`` (or no operator) needs equal values.
    """
    effect = toleration.get("effect") or ""
    if effect and effect != (taint.get("effect") or ""):
        return False
    key = toleration.get("key") or ""
    if key and key != (taint.get("key") or ""):
        return False
    op = toleration.get("operator") or ""
    if op == "" or op == OP_EQUAL:
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return op == OP_EXISTS


def tolerations_tolerate_taint(tolerations: Iterable[Mapping[str, Any]] | None, taint: Mapping[str, Any]) -> bool:
    """Upstream ``TolerationsTolerateTaint``: whether any toleration tolerates ``taint``."""
    for toleration in tolerations or ():
        if tolerates(toleration, taint):
            return True
    return False


def find_matching_untolerated_taint(
    taints: Sequence[Mapping[str, Any]] | None,
    tolerations: Sequence[Mapping[str, Any]] | None,
    inclusion_filter: TaintFilter | None = None,
) -> dict | None:
    """Upstream ``FindMatchingUntoleratedTaint``: the first taint (in node order) that passes
    ``inclusion_filter`` and that no toleration tolerates, or None when all are tolerated."""
    tolerations = tolerations or ()
    for taint in taints or ():
        if inclusion_filter is not None and not inclusion_filter(taint):
            continue
        if not tolerations_tolerate_taint(tolerations, taint):
            return taint  # type: ignore[return-value]
    return None


def taint_to_string(taint: Mapping[str, Any]) -> str:
    """Upstream ``Taint.ToString``: ``key=value:Effect``, ``key:Effect``, ``key=value:`` or ``key``."""
    key = taint.get("key") or ""
    value = taint.get("value") or ""
    effect = taint.get("effect") or ""
    if not effect:
        return f"{key}={value}:" if value else f"{key}"
    return f"{key}={value}:{effect}" if value else f"{key}:{effect}"


def match_taint(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Upstream ``Taint.MatchTaint``: taints are unique by key and effect."""
    return (a.get("key") or "") == (b.get("key") or "") and (a.get("effect") or "") == (b.get("effect") or "")


def match_toleration(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Upstream ``Toleration.MatchToleration``: same key, effect, operator and value."""
    return all((a.get(f) or "") == (b.get(f) or "") for f in ("key", "effect", "operator", "value"))
