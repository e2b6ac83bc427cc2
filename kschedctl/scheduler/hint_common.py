"""Shared by the hint modules: limits, the change kinds that are simulated, and the texts and
amounts hints are written with (kschedctl.scheduler.hints explains the whole)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from typing import Any

from kschedctl.framework.status import Code, Status
from kschedctl.k8s.quantity import format_bytes, format_milli_cpu, humanize_bytes, int_value, milli_value
from kschedctl.k8s.resources import CPU, EPHEMERAL_STORAGE, MEMORY, is_hugepage_resource_name


if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.scheduler.hint_scenario import Step

#: How many changes one plugin may need on one node before kschedctl gives up (taints, constraints).
MAX_STEPS = 16
#: Pods listed in one hint's text before "and N more".
TEXT_PODS = 3
#: The taint the node lifecycle controller puts on cordoned nodes.
UNSCHEDULABLE_TAINT_KEY = "node.kubernetes.io/unschedulable"

_REJECTED = frozenset({Code.Unschedulable, Code.UnschedulableAndUnresolvable, Code.Pending})

#: Change kinds ``Scenario.apply`` simulates; the others (raiseVolumeLimit, ...) are advice.
SIMULATED_KINDS = frozenset({"addToleration", "setNodeName", "setNodeLabel", "removeNodeLabel", "uncordon",
                             "raiseAllocatable", "removePods", "addPod"})


# ---------------------------------------------------------------------------------------------
# Formatting
# ---------------------------------------------------------------------------------------------


def format_amount(resource: str, amount: int, for_people: bool = False) -> str:
    """An amount of ``resource`` as a quantity: cpu from millicores, bytes binary-SI, others plain.

    ``for_people`` rounds bytes to a readable unit (hint texts); details and changes stay exact.
    """
    if resource == CPU:
        return format_milli_cpu(amount)
    if resource in (MEMORY, EPHEMERAL_STORAGE) or is_hugepage_resource_name(resource):
        return humanize_bytes(amount) if for_people else format_bytes(amount)
    return str(amount)


def _parse_amount(resource: str, text: str) -> int:
    return milli_value(text) if resource == CPU else int_value(text)


def _pods_text(pods: list[str], limit: int = TEXT_PODS) -> str:
    if len(pods) <= limit:
        return ", ".join(pods)
    return ", ".join(pods[:limit]) + f" and {len(pods) - limit} more"


def _counts_text(counts: dict[str, int], limit: int = 6) -> str:
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    text = ", ".join(f"{k}: {v}" for k, v in items[:limit])
    return "domains " + text + (" ..." if len(items) > limit else "")


def _unresolved_text(plugin: str, status: Status | None) -> str:
    reasons = "; ".join(status.reasons) if status is not None and status.reasons else "rejected"
    return f"is rejected by {plugin} ({reasons}); kschedctl knows no change that would flip it"


def _dedupe(items: Any) -> list[str]:
    return list(dict.fromkeys(items))


def _merge_details(steps: list[Step]) -> dict:
    """One step's details as they are; several steps' lists joined (taints), else one entry each."""
    if len(steps) == 1:
        return dict(steps[0].details)
    merged: dict[str, Any] = {}
    for step in steps:
        for k, v in step.details.items():
            if k not in merged:
                merged[k] = list(v) if isinstance(v, list) else v
            elif isinstance(merged[k], list) and isinstance(v, list):
                merged[k] += [x for x in v if x not in merged[k]]
            elif merged[k] != v:
                return {"steps": [dict(s.details) for s in steps]}
    return merged


def _jsonable_details(status: Status | None) -> dict:
    return dict(status.details) if status is not None and status.details else {}

