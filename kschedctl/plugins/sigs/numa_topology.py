"""NodeResourceTopology objects as NodeResourceTopologyMatch reads them: NUMA cells, kubelet
Topology Manager settings, the NRT caches and the per-cell resource arithmetic.

Port of kubernetes-sigs/scheduler-plugins v0.34.7 ``pkg/noderesourcetopology/``
(``numaresources.go``, ``pluginhelpers.go``, ``nodeconfig/topologymanager.go``,
``resourcerequests/exclusive.go``, ``cache/{passthrough,discardreserved,overreserve,store}.go``)
and of the helpers it uses from noderesourcetopology-api v0.1.2 (``numanode.NameToID``) and
``pkg/util/resource.go`` (``GetPodEffectiveRequest``, ``ResourceList``).

The CRD is ``topology.node.k8s.io/v1alpha2`` ``NodeResourceTopology``, cluster scoped, one
object per node with the node's name. Quantities are kept as nanos (exact integers), as the
rest of kschedctl keeps them; ``Quantity.Value()`` is the nanos rounded up to a whole unit.

**Caches.** Upstream reads the objects through one of three caches, chosen by the args:
- ``Passthrough`` (``cacheResyncPeriodSeconds`` <= 0, the default): the object as stored.
- ``DiscardReserved`` (``discardReservedNodes: true``): a node holding a pod that passed
  Reserve but is not bound yet has no usable data (Filter: "invalid node topology data").
  In kschedctl a pod is bound in the cycle that reserves it unless a Permit plugin makes it
  wait (e.g. Coscheduling), so this only shows while pods wait at Permit, as upstream.
- ``OverReserve`` (``cacheResyncPeriodSeconds`` > 0): the effective requests of every pod
  reserved on a node are taken off every NUMA cell of that node that has the resource (it
  over-reserves on purpose) until a resync replaces the node's object. A resync needs the node
  agent to publish a fresh object whose pod fingerprint matches, which a snapshot never does:
  kschedctl starts with the snapshot's objects as they are and never resyncs during a run.
  Upstream's foreign-pod detection (pods bound by other schedulers make a node unusable until
  the next resync) is not modelled: the snapshot is taken to be in sync.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from kschedctl.k8s.quantity import nanos, value_of_nanos
from kschedctl.k8s.resources import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    is_hugepage_resource_name,
    is_native_resource,
)
from kschedctl.k8s.strconv import NumError, parse_int

__all__ = [
    "API_GROUP",
    "KIND",
    "TopologyManager",
    "NUMANode",
    "topology_manager_of",
    "numa_node_list",
    "name_to_id",
    "effective_request",
    "container_requests",
    "include_non_native",
    "is_host_level_resource",
    "is_numa_affine_resource",
    "is_resource_set_suitable",
    "node_resource_names",
    "NRTCache",
]

API_GROUP = "topology.node.k8s.io"
KIND = "NodeResourceTopology"

#: Zone type of a NUMA cell (noderesourcetopology-api ``helper.ZoneTypeNUMANode``).
ZONE_TYPE_NUMA_NODE = "Node"
#: NUMA ids above this are ignored (upstream ``maxNUMAId``).
MAX_NUMA_ID = 64

NONE_POLICY = "none"
BEST_EFFORT_POLICY = "best-effort"
RESTRICTED_POLICY = "restricted"
SINGLE_NUMA_NODE_POLICY = "single-numa-node"
CONTAINER_SCOPE = "container"
POD_SCOPE = "pod"
DEFAULT_MAX_NUMA_NODES = 8
LIMIT_NUMA_NODES = 1024

ATTRIBUTE_SCOPE = "topologyManagerScope"
ATTRIBUTE_POLICY = "topologyManagerPolicy"
ATTRIBUTE_MAX_NUMA_NODES = "topologyManagerMaxNUMANodes"

#: The deprecated ``topologyPolicies`` values upstream understands: (policy, scope).
_LEGACY_POLICIES = {
    "SingleNUMANodePodLevel": (SINGLE_NUMA_NODE_POLICY, POD_SCOPE),
    "SingleNUMANodeContainerLevel": (SINGLE_NUMA_NODE_POLICY, CONTAINER_SCOPE),
    "BestEffortPodLevel": (BEST_EFFORT_POLICY, POD_SCOPE),
    "BestEffortContainerLevel": (BEST_EFFORT_POLICY, CONTAINER_SCOPE),
    "RestrictedPodLevel": (RESTRICTED_POLICY, POD_SCOPE),
    "RestrictedContainerLevel": (RESTRICTED_POLICY, CONTAINER_SCOPE),
}


@dataclass
class TopologyManager:
    """The kubelet Topology Manager settings a node's object advertises."""

    scope: str = CONTAINER_SCOPE
    policy: str = NONE_POLICY
    max_numa_nodes: int = DEFAULT_MAX_NUMA_NODES

    def __str__(self) -> str:
        return f"policy={self.policy} scope={self.scope} maxNUMANodes={self.max_numa_nodes}"


def _go_atoi(text: Any) -> int | None:
    try:
        return parse_int(text) if isinstance(text, str) else None
    except NumError:
        return None


def topology_manager_of(nrt: Mapping[str, Any]) -> TopologyManager:
    """Defaults, then the first deprecated ``topologyPolicies`` entry, then ``attributes``."""
    conf = TopologyManager()
    policies = nrt.get("topologyPolicies") or []
    if policies and isinstance(policies, list):
        legacy = _LEGACY_POLICIES.get(policies[0]) if isinstance(policies[0], str) else None
        if legacy is not None:
            conf.policy, conf.scope = legacy
    for attr in nrt.get("attributes") or ():
        if not isinstance(attr, Mapping):
            continue
        name, value = attr.get("name"), attr.get("value")
        if name == ATTRIBUTE_SCOPE and value in (CONTAINER_SCOPE, POD_SCOPE):
            conf.scope = value
        elif name == ATTRIBUTE_POLICY and value in (
                NONE_POLICY, BEST_EFFORT_POLICY, RESTRICTED_POLICY, SINGLE_NUMA_NODE_POLICY):
            conf.policy = value
        elif name == ATTRIBUTE_MAX_NUMA_NODES:
            n = _go_atoi(value)
            if n is not None and n > 1:
                conf.max_numa_nodes = min(n, LIMIT_NUMA_NODES)
    return conf


def name_to_id(name: Any) -> int | None:
    """``numanode.NameToID``: "node-<n>" with n >= 0, else None."""
    if not isinstance(name, str) or not name.startswith("node-"):
        return None
    n = _go_atoi(name[len("node-"):])
    return n if n is not None and n >= 0 else None


@dataclass
class NUMANode:
    """One NUMA cell: its id, what is available on it (nanos) and its distances to other cells."""

    numa_id: int
    resources: dict[str, int]
    costs: dict[int, int] = field(default_factory=dict)

    def copy(self) -> "NUMANode":
        return NUMANode(self.numa_id, dict(self.resources), dict(self.costs))


def numa_node_list(zones: Iterable[Any]) -> list[NUMANode]:
    """Upstream ``createNUMANodeList``: the zones of type "Node" named "node-<id>" (id <= 64),
    in the object's order, with their available resources and their costs."""
    zones = [z for z in zones or () if isinstance(z, Mapping)]
    nodes: list[NUMANode] = []
    zone_of_id: dict[int, Mapping[str, Any]] = {}
    for zone in zones:
        if zone.get("type") != ZONE_TYPE_NUMA_NODE:
            continue
        numa_id = name_to_id(zone.get("name"))
        if numa_id is None or numa_id > MAX_NUMA_ID:
            continue
        zone_of_id[numa_id] = zone  # a repeated id takes its costs from the last zone, as upstream
        resources: dict[str, int] = {}
        for info in zone.get("resources") or ():
            if isinstance(info, Mapping) and isinstance(info.get("name"), str):
                resources[info["name"]] = nanos(info.get("available", 0))
        nodes.append(NUMANode(numa_id, resources))
    for node in nodes:
        node.costs = _costs(zone_of_id[node.numa_id].get("costs"))
    return nodes


def _costs(costs: Any) -> dict[int, int]:
    out: dict[int, int] = {}
    for cost in costs or ():
        if not isinstance(cost, Mapping):
            continue
        numa_id = name_to_id(cost.get("name"))
        if numa_id is None or numa_id > MAX_NUMA_ID:
            continue
        try:
            out[numa_id] = int(cost.get("value") or 0)
        except (TypeError, ValueError):
            continue
    return out


# -- requests ---------------------------------------------------------------------------------


def _requests(container: Mapping[str, Any]) -> dict[str, int]:
    reqs = (container.get("resources") or {}).get("requests") or {}
    return {name: nanos(q) for name, q in reqs.items()}


def container_requests(pod: Mapping[str, Any], init: bool) -> list[tuple[str, dict[str, int]]]:
    """(name, requests in nanos) of the pod's init containers or app containers, in order."""
    key = "initContainers" if init else "containers"
    return [(c.get("name", ""), _requests(c)) for c in (pod.get("spec") or {}).get(key) or ()]


def effective_request(pod: Mapping[str, Any]) -> dict[str, int]:
    """``util.GetPodEffectiveRequest``: app containers summed, the largest init container request
    per resource if larger (sidecars are not told apart), then the pod overhead added."""
    out: dict[str, int] = {}
    for _, reqs in container_requests(pod, init=False):
        for name, n in reqs.items():
            out[name] = out.get(name, 0) + n
    init_max: dict[str, int] = {}
    for _, reqs in container_requests(pod, init=True):
        for name, n in reqs.items():
            if name not in init_max or n > init_max[name]:
                init_max[name] = n
    for name, n in init_max.items():
        if name not in out or n > out[name]:
            out[name] = n
    for name, q in ((pod.get("spec") or {}).get("overhead") or {}).items():
        out[name] = out.get(name, 0) + nanos(q)
    return out


def include_non_native(pod: Mapping[str, Any]) -> bool:
    """Some container or init container requests a resource outside kubernetes.io."""
    return any(not is_native_resource(name)
               for init in (True, False) for _, reqs in container_requests(pod, init) for name in reqs)


def is_host_level_resource(name: str) -> bool:
    return name in (EPHEMERAL_STORAGE, "storage") or not is_native_resource(name)


def is_numa_affine_resource(name: str) -> bool:
    return name in (CPU, MEMORY) or is_hugepage_resource_name(name)


def is_resource_set_suitable(qos: str, name: str, requested: int, available: int) -> bool:
    """Only Guaranteed pods get exclusive CPUs, memory and hugepages: for the others those fit
    anywhere; everything else must fit in the NUMA cell."""
    if qos != "Guaranteed" and is_numa_affine_resource(name):
        return True
    return available >= requested


def node_resource_names(allocatable: Any) -> set[str]:
    """The keys of ``util.ResourceList(nodeInfo.Allocatable)``: the four base resources always,
    then the scalar resources."""
    return {CPU, MEMORY, "pods", EPHEMERAL_STORAGE, *allocatable.scalar_resources}


def quantity_value(n: int) -> int:
    """``Quantity.Value()`` of an amount in nanos."""
    return value_of_nanos(n)


# -- the caches -------------------------------------------------------------------------------


class NRTCache:
    """Where the plugin gets each node's object: passthrough, discard-reserved or over-reserve."""

    PASSTHROUGH = "Passthrough"
    DISCARD_RESERVED = "DiscardReserved"
    OVER_RESERVE = "OverReserve"

    def __init__(self, objects: Mapping[str, Mapping[str, Any]], mode: str) -> None:
        self.objects = objects
        self.mode = mode
        #: node -> pod keys reserved and not yet bound (DiscardReserved).
        self.reserved: dict[str, set[str]] = {}
        #: node -> pod key -> effective request (OverReserve).
        self.assumed: dict[str, dict[str, dict[str, int]]] = {}

    def get(self, node_name: str) -> tuple[list[Any] | None, Mapping[str, Any] | None, bool]:
        """(zones to use, the object, fresh?) for a node; no object gives (None, None, True)."""
        if self.mode == self.DISCARD_RESERVED and self.reserved.get(node_name):
            return None, None, False
        nrt = self.objects.get(node_name)
        if nrt is None:
            return None, None, True
        zones = nrt.get("zones") or []
        assumed = self.assumed.get(node_name) if self.mode == self.OVER_RESERVE else None
        if assumed:
            zones = _subtract_assumed(zones, assumed.values())
        return zones, nrt, True

    def reserve(self, node_name: str, pod_key: str, pod: Mapping[str, Any]) -> None:
        if self.mode == self.DISCARD_RESERVED:
            self.reserved.setdefault(node_name, set()).add(pod_key)
        elif self.mode == self.OVER_RESERVE:
            self.assumed.setdefault(node_name, {})[pod_key] = effective_request(pod)

    def unreserve(self, node_name: str, pod_key: str) -> None:
        if self.mode == self.DISCARD_RESERVED:
            self.reserved.get(node_name, set()).discard(pod_key)
        elif self.mode == self.OVER_RESERVE:
            self.assumed.get(node_name, {}).pop(pod_key, None)

    def post_bind(self, node_name: str, pod_key: str) -> None:
        if self.mode == self.DISCARD_RESERVED:
            self.reserved.get(node_name, set()).discard(pod_key)


def _subtract_assumed(zones: list[Any], assumed: Iterable[Mapping[str, int]]) -> list[Any]:
    """Upstream ``resourceStore.UpdateNRT``: each assumed pod's request comes off every zone that
    lists the resource, down to zero at most."""
    out = []
    for zone in zones:
        if not isinstance(zone, Mapping):
            out.append(zone)
            continue
        resources = [dict(r) if isinstance(r, Mapping) else r for r in zone.get("resources") or ()]
        for request in assumed:
            for info in resources:
                if not isinstance(info, dict) or info.get("name") not in request:
                    continue
                available = nanos(info.get("available", 0))
                wanted = request[info["name"]]
                info["available"] = f"{available - wanted}n" if available >= wanted else "0"
        out.append({**zone, "resources": resources})
    return out
