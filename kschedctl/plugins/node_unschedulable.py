"""NodeUnschedulable: keep pods off cordoned nodes (``spec.unschedulable: true``).

Upstream: pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go (release-1.34).
A pod that tolerates the taint ``node.kubernetes.io/unschedulable:NoSchedule`` (the taint the
node lifecycle controller puts on cordoned nodes) also tolerates ``spec.unschedulable``.
Differences from upstream: none known.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kschedctl.framework.interfaces import Plugin
from kschedctl.framework.status import Code, Status
from kschedctl.k8s.tolerations import tolerates
from kschedctl.plugins import names
from kschedctl.plugins.facts import PluginFacts
from kschedctl.plugins.remedy import RemedyEngine, RemedyScenario, Step, UNSCHEDULABLE_TAINT_KEY

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = names.NODE_UNSCHEDULABLE

#: Filter reason for a node with ``spec.unschedulable: true`` the pod does not tolerate.
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"

#: The taint a cordoned node is equivalent to (v1.TaintNodeUnschedulable, effect NoSchedule).
UNSCHEDULABLE_TAINT: dict = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}


class NodeUnschedulable(Plugin):
    """Filter: a node marked unschedulable rejects every pod that does not tolerate
    ``node.kubernetes.io/unschedulable:NoSchedule`` (UnschedulableAndUnresolvable)."""

    name = NAME

    def filter(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> Status | None:
        node = node_info.node
        if not ((node or {}).get("spec") or {}).get("unschedulable"):
            return None
        if pod_tolerates_unschedulable(pod_info.tolerations):
            return None
        return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_UNSCHEDULABLE)


def pod_tolerates_unschedulable(tolerations: list[dict]) -> bool:
    """Whether ``tolerations`` tolerate ``node.kubernetes.io/unschedulable:NoSchedule``
    (upstream v1helper.TolerationsTolerateTaint on that taint)."""
    for toleration in tolerations or ():
        if tolerates(toleration, UNSCHEDULABLE_TAINT):
            return True
    return False


# -- facts --------------------------------------------------------------------------------------


def remedy(engine: RemedyEngine, scen: RemedyScenario, status: Status) -> Step | None:
    """What would flip this plugin's Filter verdict on the scenario's node (kschedctl.plugins.remedy)."""
    node = scen.node_info.node or {}
    if not (node.get("spec") or {}).get("unschedulable"):
        return None
    tol = {"key": UNSCHEDULABLE_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}
    return Step("needs to be uncordoned (spec.unschedulable is true)",
                [{"kind": "uncordon", "node": scen.name}],
                {"unschedulable": True},
                alternatives=[{"text": f"add a toleration for {UNSCHEDULABLE_TAINT_KEY}:NoSchedule to the pod",
                               "changes": [{"kind": "addToleration", "toleration": tol}]}],
                reasons=list(status.reasons))


FACTS = PluginFacts(
    name=NodeUnschedulable.name,
    points=("filter",),
    # Only node events (or updates of the pod itself) can help; a batch has none.
    events={},
    node_local=frozenset({"filter"}),
    object_local=frozenset({"filter"}),  # Filter reads the pod and the node object only
    remedy=remedy,
)
