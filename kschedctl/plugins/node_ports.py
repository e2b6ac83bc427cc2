"""NodePorts: a pod's host ports must be free on the node.

Upstream: pkg/scheduler/framework/plugins/nodeports/node_ports.go (release-1.34). The wanted ports
are the pod's container ports with ``hostPort > 0``, sidecars (init containers with
``restartPolicy: Always``) included, as upstream's ``util.GetHostPorts``; conflicts follow
``HostPortInfo.CheckConflict`` (an empty host IP means 0.0.0.0, which conflicts with every IP of
the same protocol and port; an empty protocol means TCP).
PreFilter returns Skip when the pod wants no host port, so Filter does not run.
Differences from upstream: none known. The conflicting port is reported in ``Status.details``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kschedctl.framework.events import ASSIGNED_POD_DELETE, QUEUE, QUEUE_SKIP
from kschedctl.framework.interfaces import Plugin
from kschedctl.framework.status import Code, PreFilterResult, Status
from kschedctl.framework.types import HostPortInfo
from kschedctl.plugins import names
from kschedctl.plugins.facts import PluginFacts
from kschedctl.plugins.remedy import RemedyEngine, RemedyScenario, Step, pods_text

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = names.NODE_PORTS

#: Filter reason when a wanted host port is taken on the node.
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"

#: CycleState key of the PreFilter state (upstream "PreFilter" + Name).
PRE_FILTER_STATE_KEY = "PreFilter" + NAME


class NodePorts(Plugin):
    """PreFilter (Skip without host ports) and Filter (Unschedulable on a port conflict)."""

    name = NAME

    def pre_filter(
        self, state: "CycleState", pod_info: "PodInfo", nodes: list["NodeInfo"]
    ) -> tuple[PreFilterResult | None, Status | None]:
        ports = list(pod_info.host_ports)
        if not ports:
            return None, Status(Code.Skip)
        state.write(PRE_FILTER_STATE_KEY, tuple(ports))
        return None, None

    def filter(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> Status | None:
        try:
            wanted = state.read(PRE_FILTER_STATE_KEY)
        except KeyError as err:
            # PreFilter did not run (disabled in the profile): upstream's Error status, word for word.
            return Status(Code.Error, f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found', error=err)
        used = node_info.used_ports
        if not len(used):
            return None
        for ip, protocol, port in wanted:
            if used.check_conflict(ip, protocol, port):
                return Status(
                    Code.Unschedulable,
                    ERR_REASON,
                    details={"hostPort": port, "protocol": protocol or "TCP", "hostIP": ip or "0.0.0.0"},
                )
        return None


def fits(pod_info: "PodInfo", node_info: "NodeInfo") -> bool:
    """Upstream ``Fits``: whether none of the pod's host ports conflicts on the node."""
    used = node_info.used_ports
    return not any(used.check_conflict(ip, protocol, port) for ip, protocol, port in pod_info.host_ports)


# -- facts --------------------------------------------------------------------------------------


def _schedulable_after_pod_deleted(pod_info: Any, other: Any, cluster: Any) -> str:
    # isSchedulableAfterPodDeleted: only a deleted pod holding a wanted host port helps.
    wanted = {(p or "TCP", port) for _, p, port in getattr(pod_info, "host_ports", ())}
    shared = any((p or "TCP", port) in wanted for _, p, port in getattr(other, "host_ports", ()))
    return QUEUE if shared else QUEUE_SKIP


def remedy(engine: RemedyEngine, scen: RemedyScenario, status: Status) -> Step | None:
    """What would flip this plugin's Filter verdict on the scenario's node (kschedctl.plugins.remedy)."""
    used = scen.node_info.used_ports
    holders: dict[str, list[str]] = {}
    for ip, protocol, port in scen.pod_info.host_ports:
        if not used.check_conflict(ip, protocol, port):
            continue
        label = f"{port}/{protocol or 'TCP'}" + (f" on {ip}" if ip and ip != "0.0.0.0" else "")
        for other in scen.node_info.pods:
            mine = HostPortInfo()
            for oip, oproto, oport in other.host_ports:
                mine.add(oip, oproto, oport)
            if len(mine) and mine.check_conflict(ip, protocol, port):
                holders.setdefault(label, []).append(other.key)
    if not holders:
        return None
    pods = sorted({k for keys in holders.values() for k in keys})
    parts = [f"host port {label} freed (held by {pods_text(keys)})" for label, keys in holders.items()]
    return Step("needs " + " and ".join(parts), [{"kind": "removePods", "pods": pods}],
                {"ports": holders}, shortfall=len(pods) / max(len(scen.node_info.pods), 1),
                alternatives=[{"text": "use other hostPort values in the pod", "changes": []}],
                reasons=list(status.reasons))


FACTS = PluginFacts(
    name=NodePorts.name,
    points=("preFilter", "filter"),
    events={ASSIGNED_POD_DELETE: _schedulable_after_pod_deleted},
    node_local=frozenset({"filter"}),
    remedy=remedy,
)
