"""NodeName: a pod that names its node (``spec.nodeName``) fits only that node.

Upstream: pkg/scheduler/framework/plugins/nodename/node_name.go (release-1.34).
Differences from upstream: none known.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kschedctl.framework.interfaces import Plugin
from kschedctl.framework.status import Code, Status
from kschedctl.plugins import names
from kschedctl.plugins.facts import PluginFacts
from kschedctl.plugins.remedy import RemedyEngine, RemedyScenario, Step

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = names.NODE_NAME

#: Filter reason when ``spec.nodeName`` names another node.
ERR_REASON = "node(s) didn't match the requested node name"


class NodeName(Plugin):
    """Filter: UnschedulableAndUnresolvable on every node but the one ``spec.nodeName`` names."""

    name = NAME

    def filter(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> Status | None:
        if fits(pod_info, node_info):
            return None
        return Status(Code.UnschedulableAndUnresolvable, ERR_REASON, details={"nodeName": _wanted(pod_info)})


def fits(pod_info: "PodInfo", node_info: "NodeInfo") -> bool:
    """Upstream ``Fits``: no node name requested, or it is this node's name."""
    wanted = _wanted(pod_info)
    return not wanted or wanted == node_info.name


def _wanted(pod_info: "PodInfo") -> str:
    return pod_info.node_name


# -- facts --------------------------------------------------------------------------------------


def remedy(engine: RemedyEngine, scen: RemedyScenario, status: Status) -> Step | None:
    """What would flip this plugin's Filter verdict on the scenario's node (kschedctl.plugins.remedy)."""
    wanted = scen.pod_info.node_name
    if not wanted or wanted == scen.name:
        return None
    return Step(f"is not the node the pod names (spec.nodeName: {wanted})",
                [{"kind": "setNodeName", "nodeName": scen.name}],
                {"nodeName": wanted},
                alternatives=[{"text": "remove spec.nodeName from the pod", "changes": [{"kind": "unsetNodeName"}]}],
                reasons=list(status.reasons))


FACTS = PluginFacts(
    name=NodeName.name,
    points=("filter",),
    # Only node events (or updates of the pod itself) can help; a batch has none.
    events={},
    node_local=frozenset({"filter"}),
    object_local=frozenset({"filter"}),  # Filter reads the pod and the node object only
    remedy=remedy,
)
