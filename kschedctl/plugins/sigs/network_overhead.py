"""NetworkOverhead: keep a pod close, in network cost, to the pods it depends on.

Port of kubernetes-sigs/scheduler-plugins v0.34.7 ``pkg/networkaware/networkoverhead/`` and its
args (``NetworkOverheadArgs``: ``namespaces`` default ``[default]``, ``weightsName`` default
``UserDefined``, ``networkTopologyName`` default ``nt-default``; upstream validates none).

- **PreFilter** finds the pod's AppGroup (label ``appgroup.diktyo.x-k8s.io``), its workload's
  dependencies and the bound pods of the group (all namespaces), then, for every node, counts
  the bound replicas of the dependencies whose network cost from the node is within the
  dependency's ``maxNetworkCost`` (satisfied) or beyond it (violated), and sums their costs:
  0 on the same node, 1 in the same zone, otherwise the NetworkTopology's zone-to-zone cost
  (same region) or region-to-region cost, 100 when the topology has no such cost (the counts
  skip a dependency without a cost; a node without region and zone labels is violated / 100).
  Pods outside an AppGroup, without dependencies or without bound dependencies are not
  affected: PreFilter says why (Success) and Filter/Score treat every node the same.
- **Filter** rejects a node with more violated than satisfied dependencies: "Node <n> does not
  meet several network requirements from Workload dependencies: Satisfied: <s> Violated: <v>".
- **Score** is the summed cost; **NormalizeScore** maps the lowest cost to 100 and the highest
  to 0 (``100 - int(100 * (c - min) / (max - min))``); all-zero costs stay 0, equal non-zero
  costs all become 100, as upstream.

Differences, where upstream's Go would dereference a missing object and the scheduler panic:
an AppGroup or a NetworkTopology found in none of the configured namespaces gives PreFilter an
Error status naming it. Objects read from files have no ``metadata.uid`` (the API server would
give them one); kschedctl does not require it, where upstream skips an object without one.
Sorting NetworkTopology lists is stable here (Go's is not for more than 12 equal keys).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from kschedctl.framework.interfaces import MAX_NODE_SCORE, NodeScore, Plugin
from kschedctl.framework.snapshot import NodeNotFound
from kschedctl.framework.status import Code, Status
from kschedctl.plugins.sigs.networkaware import (
    NAMESPACES_SCHEMA,
    NETPERF_COSTS,
    REGION_LABEL,
    ZONE_LABEL,
    app_group_name,
    check_objects,
    dependency_list,
    find_object,
    find_origin_costs,
    find_topology_key,
    namespaces_arg,
    workload_selector,
)
from kschedctl.plugins.sigs.podgroup import informer_pods
from kschedctl.plugins.facts import PluginFacts

if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = "NetworkOverhead"
STATE_KEY = "PreFilter" + NAME

MAX_COST = 100
SAME_HOSTNAME = 0
SAME_ZONE = 1


@dataclass
class _PreFilterState:
    score_equally: bool = True
    satisfied: dict[str, int] = field(default_factory=dict)
    violated: dict[str, int] = field(default_factory=dict)
    final_cost: dict[str, int] = field(default_factory=dict)

    def clone(self) -> "_PreFilterState":
        return self  # upstream's Clone returns the same state: nothing changes it after PreFilter


class NetworkOverhead(Plugin):
    """Filters out nodes too far, in network cost, from the pods a pod depends on, and prefers
    the nearest."""

    name = NAME
    default_args: ClassVar[dict[str, Any]] = {
        "namespaces": ["default"], "weightsName": "UserDefined", "networkTopologyName": "nt-default"}
    args_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {"namespaces": NAMESPACES_SCHEMA, "weightsName": {"type": "string"},
                       "networkTopologyName": {"type": "string"}},
    }

    def __init__(self, args: dict | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        args = args or {}
        self.namespaces = namespaces_arg(args)
        # Only a missing field is defaulted (upstream's pointer fields): "" stays "".
        self.weights_name: str = self.default_args["weightsName"] if args.get("weightsName") is None \
            else str(args["weightsName"])
        self.topology_name: str = self.default_args["networkTopologyName"] \
            if args.get("networkTopologyName") is None else str(args["networkTopologyName"])
        self.handle = handle
        cluster = handle.cluster() if handle is not None else None
        check_objects(cluster)

    # -- PreFilter ----------------------------------------------------------------------------
    def pre_filter(self, state: "CycleState", pod_info: "PodInfo",
                   nodes: list["NodeInfo"]) -> tuple[None, Status | None]:
        state.write(STATE_KEY, _PreFilterState())
        pod = pod_info.pod
        group = app_group_name(pod)
        if not group:
            return None, Status(Code.Success, "Pod does not belong to an AppGroup, return")
        cluster = self.handle.cluster() if self.handle is not None else None
        app_group = find_object(getattr(cluster, "app_groups", None) or {}, self.namespaces, group)
        topology = find_object(getattr(cluster, "network_topologies", None) or {}, self.namespaces,
                               self.topology_name)
        if topology is None and self.weights_name != NETPERF_COSTS:
            return None, self._missing("NetworkTopology", self.topology_name)
        weights = _sorted_weights(topology, self.weights_name) if topology is not None else []
        if app_group is None:
            return None, self._missing("AppGroup", group)
        dependencies = dependency_list(pod, app_group)
        if not dependencies:
            return None, Status(Code.Success, "Pod has no dependencies, return")
        members = [p for p in informer_pods(self.handle) if app_group_name(p) == group]
        if not members:
            return None, Status(Code.Success, "No pods yet allocated, return")
        scheduled = [(workload_selector(p), (p.get("spec") or {}).get("nodeName"))
                     for p in members if (p.get("spec") or {}).get("nodeName")]
        if not scheduled:
            return None, Status(Code.Success, "Scheduled list is empty, return")
        if topology is None:
            return None, self._missing("NetworkTopology", self.topology_name)
        snapshot = self.handle.snapshot()
        nodes = snapshot.node_infos()
        try:
            matches = _matched_dependencies(snapshot, scheduled, dependencies) if nodes else []
        except NodeNotFound as err:
            return None, Status(Code.Error, f"pod hostname not found: {err}")
        new = _PreFilterState(score_equally=False)
        for node_info in nodes:
            name = node_info.name
            region, zone = node_info.labels.get(REGION_LABEL, ""), node_info.labels.get(ZONE_LABEL, "")
            costs = _cost_map(weights, region, zone)
            new.satisfied[name], new.violated[name] = _check_max_network_cost(name, region, zone, costs, matches)
            new.final_cost[name] = _accumulated_cost(name, region, zone, costs, matches)
        state.write(STATE_KEY, new)
        return None, Status(Code.Success, "PreFilter State updated")

    def _missing(self, kind: str, name: str) -> Status:
        return Status(Code.Error, f"{kind} {name} not found in namespaces {self.namespaces}: upstream's plugin "
                                  f"dereferences the missing object and the scheduler panics")

    # PreFilterExtensions: upstream's AddPod/RemovePod do nothing.
    def add_pod(self, state: "CycleState", pod_info: "PodInfo", to_add: "PodInfo",
                node_info: "NodeInfo") -> Status | None:
        return Status(Code.Success, "")

    def remove_pod(self, state: "CycleState", pod_info: "PodInfo", to_remove: "PodInfo",
                   node_info: "NodeInfo") -> Status | None:
        return Status(Code.Success, "")

    # -- Filter -------------------------------------------------------------------------------
    def filter(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> Status | None:
        if node_info.node is None:
            return Status(Code.Error, "node not found")
        pre = _read(state)
        if pre is None:
            return Status(Code.Error, "not eligible due to failed to read from cycleState")
        if pre.score_equally:
            return None
        satisfied = pre.satisfied.get(node_info.name, 0)
        violated = pre.violated.get(node_info.name, 0)
        if violated > satisfied:
            return Status(Code.Unschedulable,
                          f"Node {node_info.name} does not meet several network requirements from Workload "
                          f"dependencies: Satisfied: {satisfied} Violated: {violated}")
        return None

    # -- Score --------------------------------------------------------------------------------
    def score(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status | None]:
        pre = _read(state)
        if pre is None:
            return 0, Status(Code.Error, "not eligible due to failed to read from cycleState, return min score")
        if pre.score_equally:
            return 0, Status(Code.Success, "scoreEqually enabled: minimum score")
        return pre.final_cost.get(node_info.name, 0), Status(
            Code.Success, "Accumulated cost added as score, normalization ensures lower costs are favored")

    def normalize_score(self, state: "CycleState", pod_info: "PodInfo", scores: list[NodeScore]) -> Status | None:
        if not scores:
            return None
        low = min(s.score for s in scores)
        high = max(s.score for s in scores)
        if low == 0 and high == 0:
            return None
        for s in scores:
            if high != low:
                s.score = MAX_NODE_SCORE - int(float(MAX_NODE_SCORE) * float(s.score - low) / float(high - low))
            else:
                s.score = MAX_NODE_SCORE
        return None


def _read(state: "CycleState") -> _PreFilterState | None:
    try:
        value = state.read(STATE_KEY)
    except KeyError:
        return None
    return value if isinstance(value, _PreFilterState) else None


def _sorted_weights(topology: Any, weights_name: str) -> list[Any]:
    """The weights entries named ``weights_name``, with upstream's sorts applied (topology keys,
    then origins) unless the name is NetperfCosts, whose lists upstream takes as sorted."""
    out = []
    for weight in (topology.get("spec") or {}).get("weights") or ():
        if not isinstance(weight, dict) or weight.get("name") != weights_name:
            continue
        topology_list = [t for t in weight.get("topologyList") or () if isinstance(t, dict)]
        if weights_name != NETPERF_COSTS:
            topology_list = [{**t, "originList": sorted(t.get("originList") or (), key=_origin)}
                             for t in sorted(topology_list, key=lambda t: str(t.get("topologyKey") or ""))]
        out.append(topology_list)
    return out


def _origin(entry: Any) -> str:
    return str((entry or {}).get("origin") or "") if isinstance(entry, dict) else ""


def _cost_map(weights: list[list[Any]], region: str, zone: str) -> dict[tuple[str, str], int]:
    """Upstream ``populateCostMap``: (origin, destination) -> cost for the node's region and zone."""
    costs: dict[tuple[str, str], int] = {}
    for topology_list in weights:
        for key, origin in ((REGION_LABEL, region), (ZONE_LABEL, zone)):
            if not origin:
                continue
            for cost in find_origin_costs(find_topology_key(topology_list, key), origin):
                if isinstance(cost, dict):
                    costs[(origin, str(cost.get("destination") or ""))] = int(cost.get("networkCost") or 0)
    return costs


def _matched_dependencies(snapshot: Any, scheduled: list[tuple[str, str]],
                          dependencies: list[Any]) -> list[tuple[str, str, str, int]]:
    """Every (bound pod, dependency) pair whose selectors match, in upstream's loop order, as
    (host, its region, its zone, maxNetworkCost): what the per-node counts and costs read, looked
    up once per cycle. A host missing from the snapshot raises NodeNotFound, as upstream's first
    node does."""
    out = []
    for selector, host in scheduled:
        for dep in dependencies:
            if selector != str((dep.get("workload") or {}).get("selector") or ""):
                continue
            labels = snapshot.get(host).labels
            out.append((host, labels.get(REGION_LABEL, ""), labels.get(ZONE_LABEL, ""),
                        int(dep.get("maxNetworkCost") or 0)))
    return out


def _check_max_network_cost(node_name: str, region: str, zone: str, costs: dict[tuple[str, str], int],
                            matches: list[tuple[str, str, str, int]]) -> tuple[int, int]:
    satisfied = violated = 0
    for host, pod_region, pod_zone, max_cost in matches:
        if host == node_name:
            satisfied += 1
            continue
        if not pod_region and not pod_zone:
            violated += 1
            continue
        key = (zone, pod_zone) if region == pod_region else (region, pod_region)
        if region == pod_region and zone == pod_zone:
            satisfied += 1
        elif key in costs:
            if costs[key] <= max_cost:
                satisfied += 1
            else:
                violated += 1
    return satisfied, violated


def _accumulated_cost(node_name: str, region: str, zone: str, costs: dict[tuple[str, str], int],
                      matches: list[tuple[str, str, str, int]]) -> int:
    total = 0
    for host, pod_region, pod_zone, _ in matches:
        if host == node_name:
            total += SAME_HOSTNAME
        elif not pod_region and not pod_zone:
            total += MAX_COST
        elif region == pod_region:
            total += SAME_ZONE if zone == pod_zone else costs.get((zone, pod_zone), MAX_COST)
        else:
            total += costs.get((region, pod_region), MAX_COST)
    return total


# -- facts --------------------------------------------------------------------------------------

FACTS = PluginFacts(
    name=NetworkOverhead.name,
    points=("preFilter", "filter", "score"),
    # No events: scheduler-plugins' EventsToRegister is not modelled, so the queue asks it about every
    # event (a pod it rejected is retried after any change, never fewer times than upstream would).
)
