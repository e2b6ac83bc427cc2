"""The few apimachinery validators config and plugin args validation need, with upstream's messages word for word.

Sources: k8s.io/apimachinery/pkg/util/validation (IsQualifiedName, IsValidLabelValue,
IsDNS1123Subdomain), pkg/apis/core/v1/helper (IsExtendedResourceName), metav1 validation
(ValidateLabelName), k8s.io/apimachinery/pkg/labels (NewRequirement) and
component-helpers nodeaffinity (NodeSelector parsing with field paths).
"""

from __future__ import annotations

import re
from typing import Any

from kschedctl.k8s.field import FieldError, child, index, invalid, not_supported
from kschedctl.k8s.selectors import label_key_errors, label_value_errors


# The apimachinery validators themselves live in kschedctl.k8s (one implementation for the
# whole project); config only adds field paths.
is_qualified_name = label_key_errors
is_valid_label_value = label_value_errors


def validate_label_name(name: str, path: str) -> list[FieldError]:
    """metav1validation.ValidateLabelName: one Invalid per message."""
    return [invalid(path, name, msg) for msg in is_qualified_name(name)]


_NODE_SELECTOR_OPS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_REQUIREMENT_OPS = ["!", "!=", "=", "==", "gt", "in", "lt", "notin", "exists"]


def _requirement(key: str, op: str, values: list[str], path: str) -> list[FieldError]:
    # labels.NewRequirement with field.WithPath(path).
    errs: list[FieldError] = []
    msgs = is_qualified_name(key)
    if msgs:
        errs.append(invalid(child(path, "key"), key, "; ".join(msgs)))
    vpath = child(path, "values")
    if op in ("In", "NotIn"):
        if not values:
            errs.append(invalid(vpath, values, "for 'in', 'notin' operators, values set can't be empty"))
    elif op in ("Exists", "DoesNotExist"):
        if values:
            errs.append(invalid(vpath, values, "values set must be empty for exists and does not exist"))
    elif op in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(invalid(vpath, values, "for 'Gt', 'Lt' operators, exactly one value is required"))
        for i, v in enumerate(values):
            if not re.fullmatch(r"[+-]?[0-9]+", v) or not -(2**63) <= int(v) < 2**63:
                errs.append(invalid(index(vpath, i), v, "for 'Gt', 'Lt' operators, the value must be an integer"))
    for i, v in enumerate(values):
        msgs = is_valid_label_value(v)
        if msgs:
            errs.append(invalid(f"{index(vpath, i)}[{key}]", v, "; ".join(msgs)))
    return errs


def _strs(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def validate_node_selector_term(term: dict[str, Any], path: str) -> list[FieldError]:
    """component-helpers nodeaffinity newNodeSelectorTerm: the errors it collects."""
    errs: list[FieldError] = []
    for j, expr in enumerate(term.get("matchExpressions") or []):
        p = index(child(path, "matchExpressions"), j)
        op = expr.get("operator") or ""
        if op not in _NODE_SELECTOR_OPS:
            errs.append(not_supported(child(p, "operator"), op, None))
            continue
        errs.extend(_requirement(expr.get("key") or "", op, _strs(expr.get("values")), p))
    for j, expr in enumerate(term.get("matchFields") or []):
        p = index(child(path, "matchFields"), j)
        op = expr.get("operator") or ""
        values = _strs(expr.get("values"))
        if op in ("In", "NotIn"):
            if len(values) != 1:
                errs.append(invalid(child(p, "values"), values, "must have one element"))
        else:
            errs.append(not_supported(child(p, "operator"), op, ["In", "NotIn"]))
    return errs
