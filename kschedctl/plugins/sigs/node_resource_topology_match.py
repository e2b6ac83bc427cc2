"""NodeResourceTopologyMatch: NUMA-aware Filter and Score from NodeResourceTopology objects.

Port of kubernetes-sigs/scheduler-plugins v0.34.7 ``pkg/noderesourcetopology/`` (``plugin.go``,
``filter.go``, ``score.go``, ``least_allocated.go``, ``most_allocated.go``,
``balanced_allocation.go``, ``least_numa.go``, ``reserve.go``, ``postbind.go``), args from
``apis/config/v1`` (defaults) and ``validation_pluginargs.go``. The objects, caches and per-cell
arithmetic live in ``numa_topology``.

- **Filter** (only on nodes whose object says the kubelet runs the ``single-numa-node``
  Topology Manager policy; every other policy passes): BestEffort pods that request nothing
  outside kubernetes.io pass. With scope ``pod`` the pod's effective request must fit in one
  NUMA cell ("cannot align pod"); with scope ``container`` each init container must fit in a
  cell ("cannot align init container") and each app container in turn must fit in a cell,
  which then loses what it took ("cannot align container"). Resources the node's allocatable
  lacks never fit; host-level resources (ephemeral storage, extended resources no cell lists)
  are not aligned; for non-Guaranteed pods cpu, memory and hugepages fit any cell. A node
  without an object passes; a node whose object the cache cannot vouch for fails with "invalid
  node topology data".
- **Score** (Guaranteed pods only: other pods score 100 everywhere; nodes without an object
  score 0): ``LeastAllocated`` (default), ``MostAllocated`` or ``BalancedAllocation`` of the
  request against each NUMA cell, keeping the lowest non-zero cell score, on
  ``single-numa-node`` nodes only (others score 0); in scope ``container`` the mean over init
  and app containers, truncated. ``LeastNUMANodes`` (any policy): fewer NUMA cells needed and
  the shortest distance between them score higher: ``100 - n * (100 / maxNUMANodes)``, plus
  half a step when the chosen cells are the closest possible set of that size. No
  NormalizeScore.
- **Reserve / Unreserve / PostBind** feed the cache (see ``numa_topology``).

Args (``NodeResourceTopologyMatchArgs``): ``scoringStrategy`` (``type``, default
LeastAllocated; ``resources`` name/weight, default cpu and memory with weight 1, a weight of 0
becomes 1), ``cacheResyncPeriodSeconds`` (> 0 selects the over-reserve cache),
``discardReservedNodes`` and ``cache`` (foreignPodsDetect, resyncMethod, informerMode,
resyncScope: defaulted and accepted, without effect here as kschedctl never resyncs).
Validation as upstream: the strategy type must be one of the four.

Differences, all where upstream's Go would panic rather than answer (the scheduler process
dies): a NUMA cell id at least the number of cells in Score's per-cell table or in
LeastNUMANodes' container scope (upstream indexes a slice by NUMA id), and a zone named
"node-64", are reported as an Error status naming the problem instead.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Any, Callable, ClassVar

from kschedctl.errors import InputError, QuantityError
from kschedctl.framework.events import ASSIGNED_POD_DELETE, always_queue
from kschedctl.framework.interfaces import MAX_NODE_SCORE, MIN_NODE_SCORE, Plugin
from kschedctl.framework.status import Code, Status
from kschedctl.k8s.quantity import format_quantity
from kschedctl.k8s.resources import qos_class
from kschedctl.plugins.facts import PluginFacts
from kschedctl.plugins.helper import located
from kschedctl.plugins.loader import validated
from kschedctl.plugins.sigs.numa_topology import (
    POD_SCOPE,
    SINGLE_NUMA_NODE_POLICY,
    NRTCache,
    NUMANode,
    container_requests,
    effective_request,
    include_non_native,
    is_host_level_resource,
    is_numa_affine_resource,
    is_resource_set_suitable,
    node_resource_names,
    numa_node_list,
    quantity_value,
    topology_manager_of,
)

if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = "NodeResourceTopologyMatch"

MOST_ALLOCATED = "MostAllocated"
BALANCED_ALLOCATION = "BalancedAllocation"
LEAST_ALLOCATED = "LeastAllocated"
LEAST_NUMA_NODES = "LeastNUMANodes"
SCORING_STRATEGIES = (MOST_ALLOCATED, BALANCED_ALLOCATION, LEAST_ALLOCATED, LEAST_NUMA_NODES)

#: Distance assumed between cells whose costs are not published (upstream ``maxDistanceValue``).
MAX_DISTANCE = 255
#: What Go's int64(NaN) gives on amd64, where the scheduler runs.
_GO_INT64_OF_NAN = -(1 << 63)

_BIT_LIMIT = 64  # the kubelet bitmask: NUMA ids 0..63


@dataclass
class _PodFacts:
    """What Filter and Score read of the pod, the same on every node: computed once per pod."""

    qos: str
    include_non_native: bool
    effective: dict[str, int]
    init: list[dict[str, int]]
    app: list[dict[str, int]]

    @classmethod
    def of(cls, pod: Any) -> "_PodFacts":
        return cls(qos_class(pod), include_non_native(pod), effective_request(pod),
                   [r for _, r in container_requests(pod, init=True)],
                   [r for _, r in container_requests(pod, init=False)])


class _Panic(Exception):
    """Where upstream's Go indexes out of range and the scheduler would crash."""


class NodeResourceTopologyMatch(Plugin):
    """NUMA-aware placement from NodeResourceTopology objects: aligns requests to one NUMA cell
    on single-numa-node nodes and scores nodes by how well the pod fits their cells."""

    name = NAME
    default_args: ClassVar[dict[str, Any]] = {
        "scoringStrategy": {"type": LEAST_ALLOCATED,
                            "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]},
        "cacheResyncPeriodSeconds": 0,
        "discardReservedNodes": False,
        "cache": {"foreignPodsDetect": "All", "resyncMethod": "Autodetect", "informerMode": "Dedicated"},
    }
    # Upstream decodes args strictly: unknown fields are errors.
    args_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "scoringStrategy": {"type": "object", "additionalProperties": False, "properties": {
                "type": {"type": "string"},
                "resources": {"type": "array", "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {"name": {"type": "string"}, "weight": {"type": "integer"}},
                    "required": ["name"],
                }},
            }},
            "cacheResyncPeriodSeconds": {"type": "integer"},
            "discardReservedNodes": {"type": "boolean"},
            # Upstream validates none of these (unknown values fall back to defaults at run time).
            "cache": {"type": "object", "additionalProperties": False, "properties": {
                "foreignPodsDetect": {"type": "string"},
                "resyncMethod": {"type": "string"},
                "informerMode": {"type": "string"},
                "resyncScope": {"type": "string"},
            }},
        },
    }

    def __init__(self, args: dict | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        merged = self.defaulted(args)
        validated(self, merged)
        strategy = merged["scoringStrategy"]
        self.strategy_type: str = strategy["type"]
        self.weights: dict[str, int] = {r["name"]: int(r.get("weight") or 0) for r in strategy["resources"]}
        if merged.get("discardReservedNodes"):
            mode = NRTCache.DISCARD_RESERVED
        elif int(merged.get("cacheResyncPeriodSeconds") or 0) <= 0:
            mode = NRTCache.PASSTHROUGH
        else:
            mode = NRTCache.OVER_RESERVE
        cluster = handle.cluster() if handle is not None else None
        objects = getattr(cluster, "node_resource_topologies", None) or {}
        _check_objects(cluster, objects)
        self.cache = NRTCache(objects, mode)
        self._facts: tuple[Any, _PodFacts] | None = None
        self._strategy: Callable[[dict[str, int], dict[str, int]], int] | None = {
            MOST_ALLOCATED: self._most_allocated,
            LEAST_ALLOCATED: self._least_allocated,
            BALANCED_ALLOCATION: _balanced_allocation,
        }.get(self.strategy_type)

    @classmethod
    def defaulted(cls, args: dict | None) -> dict:
        """Upstream ``SetDefaults_NodeResourceTopologyMatchArgs``."""
        given = dict(args or {})
        strategy = given.get("scoringStrategy")
        if strategy is None:
            strategy = {"type": LEAST_ALLOCATED}
        strategy = dict(strategy)
        resources = [dict(r) for r in strategy.get("resources") or ()]
        if not resources:
            resources = [dict(r) for r in cls.default_args["scoringStrategy"]["resources"]]
        for r in resources:
            if not r.get("weight"):
                r["weight"] = 1
        strategy["resources"] = resources
        strategy.setdefault("type", "")
        given["scoringStrategy"] = strategy
        cache = dict(given.get("cache") or {})
        for key, value in cls.default_args["cache"].items():
            cache.setdefault(key, value)
        given["cache"] = cache
        return given

    @classmethod
    def validate_args(cls, args: dict) -> list[tuple[str, str, str]]:
        """Upstream ``ValidateNodeResourceTopologyMatchArgs`` (on defaulted args)."""
        strategy = args.get("scoringStrategy") or {}
        kind = strategy.get("type", LEAST_ALLOCATED) if isinstance(strategy, dict) else ""
        if kind not in SCORING_STRATEGIES:
            return [("scoringStrategy.type", "Invalid", f'Invalid value: "{kind}": invalid ScoringStrategyType')]
        return []

    def _pod_facts(self, pod_info: "PodInfo") -> _PodFacts:
        cached = self._facts
        if cached is None or cached[0] is not pod_info:
            cached = self._facts = (pod_info, _PodFacts.of(pod_info.pod))
        return cached[1]

    # -- Filter -----------------------------------------------------------------------------
    def filter(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> Status | None:
        if node_info.node is None:
            return Status(Code.Error, "node not found")
        facts = self._pod_facts(pod_info)
        qos = facts.qos
        if qos == "BestEffort" and not facts.include_non_native:
            return None
        zones, nrt, fresh = self.cache.get(node_info.name)
        if not fresh:
            return Status(Code.Unschedulable, "invalid node topology data")
        if nrt is None:
            return None
        conf = topology_manager_of(nrt)
        if conf.policy != SINGLE_NUMA_NODE_POLICY:
            return None
        try:
            numa_nodes = _numa_nodes(zones)
        except _Panic as err:
            return Status(Code.Error, str(err))
        node_resources = node_resource_names(node_info.allocatable)
        if conf.scope == POD_SCOPE:
            if _align(facts.effective, numa_nodes, node_resources, qos) is None:
                return Status(Code.Unschedulable, "cannot align pod")
            return None
        for requests in facts.init:
            if _align(requests, numa_nodes, node_resources, qos) is None:
                return Status(Code.Unschedulable, "cannot align init container")
        for requests in facts.app:
            numa_id = _align(requests, numa_nodes, node_resources, qos)
            if numa_id is None:
                return Status(Code.Unschedulable, "cannot align container")
            problem = _take(numa_nodes, numa_id, qos, requests)
            if problem:
                return Status(Code.Error, "inconsistent resource accounting", problem)
        return None

    # -- Score ------------------------------------------------------------------------------
    def score(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status | None]:
        facts = self._pod_facts(pod_info)
        qos = facts.qos
        if qos != "Guaranteed":
            return MAX_NODE_SCORE, None
        zones, nrt, fresh = self.cache.get(node_info.name)
        if not fresh or nrt is None:
            return 0, None
        conf = topology_manager_of(nrt)
        try:
            numa_nodes = _numa_nodes(zones)
            if self.strategy_type == LEAST_NUMA_NODES:
                if conf.scope == POD_SCOPE:
                    return _least_numa_pod_scope(facts, numa_nodes, conf.max_numa_nodes), None
                return _least_numa_container_scope(facts, numa_nodes, conf.max_numa_nodes), None
            if conf.policy != SINGLE_NUMA_NODE_POLICY or self._strategy is None:
                return 0, None
            if conf.scope == POD_SCOPE:
                return self._score_cells(facts.effective, numa_nodes), None
            scores = [self._score_cells(requests, numa_nodes) for requests in facts.init + facts.app]
            return _go_int64(sum(scores) / len(scores)) if scores else _GO_INT64_OF_NAN, None
        except _Panic as err:
            return 0, Status(Code.Error, str(err))

    def _score_cells(self, requested: dict[str, int], numa_nodes: list[NUMANode]) -> int:
        """Upstream ``scoreForEachNUMANode``: the lowest non-zero cell score, in its own way."""
        assert self._strategy is not None
        min_score = 0
        for numa in numa_nodes:
            score = self._strategy(requested, numa.resources)
            if min_score == 0 or (score != 0 and score < min_score):
                min_score = score
            if numa.numa_id >= len(numa_nodes):
                raise _Panic(f"NUMA cell {numa.numa_id} of {len(numa_nodes)}: upstream indexes its per-cell "
                             f"scores by NUMA id and panics (index out of range)")
        return min_score

    def _weight(self, name: str) -> int:
        w = self.weights.get(name)
        return 1 if w is None or w < 1 else w

    def _weighted(self, requested: dict[str, int], available: dict[str, int],
                  one: Callable[[int, int], int]) -> int:
        total = weight_sum = 0
        for name, n in requested.items():
            w = self._weight(name)
            total += one(n, available.get(name, 0)) * w
            weight_sum += w
        if weight_sum == 0:
            raise _Panic("no resources requested: upstream divides by a zero weight sum and panics")
        return total // weight_sum

    def _least_allocated(self, requested: dict[str, int], available: dict[str, int]) -> int:
        def one(req: int, cap: int) -> int:
            if cap == 0 or req > cap:
                return 0
            cap_v = quantity_value(cap)
            return (cap_v - quantity_value(req)) * MAX_NODE_SCORE // cap_v
        return self._weighted(requested, available, one)

    def _most_allocated(self, requested: dict[str, int], available: dict[str, int]) -> int:
        def one(req: int, cap: int) -> int:
            if cap == 0 or req > cap:
                return 0
            return quantity_value(req) * MAX_NODE_SCORE // quantity_value(cap)
        return self._weighted(requested, available, one)

    # -- Reserve / Unreserve / PostBind -----------------------------------------------------
    def start_afresh(self) -> None:
        """Forget the pods earlier cycles reserved in the cache (``explain`` asks each pod alone)."""
        self.cache.reserved.clear()
        self.cache.assumed.clear()

    def reserve(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> Status | None:
        self.cache.reserve(node_name, pod_info.key, pod_info.pod)
        return Status(Code.Success, "")

    def unreserve(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> None:
        self.cache.unreserve(node_name, pod_info.key)

    def post_bind(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> None:
        self.cache.post_bind(node_name, pod_info.key)


def _check_objects(cluster: Any, objects: Any) -> None:
    """Bad quantities in an object are input errors, said once when the plugin starts."""
    for name, nrt in objects.items():
        try:
            numa_node_list(nrt.get("zones") or ())
        except QuantityError as err:
            raise located(InputError(f"NodeResourceTopology {name}: {err.message}"), cluster,
                          "NodeResourceTopology", name) from None


def _numa_nodes(zones: Any) -> list[NUMANode]:
    nodes = numa_node_list(zones or ())
    for node in nodes:
        if node.numa_id >= _BIT_LIMIT:
            raise _Panic(f"NUMA cell {node.numa_id}: upstream's table of 64 cells ends at 63 and it panics "
                         f"(index out of range)")
    return nodes


def _go_int64(x: float) -> int:
    if math.isnan(x):
        return _GO_INT64_OF_NAN
    return int(x)


# -- single-numa-node alignment -----------------------------------------------------------------


def _align(requests: dict[str, int], numa_nodes: list[NUMANode], node_resources: set[str], qos: str) -> int | None:
    """Upstream ``resourcesAvailableInAnyNUMANodes``: the lowest NUMA id every request fits in
    (0 when nothing constrains), None when no cell fits them all."""
    mask = (1 << _BIT_LIMIT) - 1
    for name, quantity in requests.items():
        if quantity == 0:
            continue
        if name not in node_resources:
            return None
        has_numa_affinity = False
        resource_mask = 0
        for numa in numa_nodes:
            available = numa.resources.get(name)
            if available is None:
                continue
            has_numa_affinity = True
            if is_resource_set_suitable(qos, name, quantity, available):
                resource_mask |= 1 << numa.numa_id
        if not has_numa_affinity and is_host_level_resource(name):
            continue
        mask &= resource_mask
        if mask == 0:
            return None
    return (mask & -mask).bit_length() - 1


def _take(numa_nodes: list[NUMANode], numa_id: int, qos: str, requests: dict[str, int]) -> str:
    """Upstream ``subtractResourcesFromNUMANodeList``: the container's exclusive resources come
    off the cell it was aligned to; the error text when a cell would go negative."""
    for numa in numa_nodes:
        if numa.numa_id != numa_id:
            continue
        for name, quantity in requests.items():
            if qos != "Guaranteed" and is_numa_affine_resource(name):
                continue
            if quantity == 0 or name not in numa.resources:
                continue
            left = numa.resources[name] - quantity
            if left < 0:
                return (f'resource "{name}" request {format_quantity(f"{quantity}n")} exceeds NUMA {numa_id} '
                        f'availability {format_quantity(f"{numa.resources[name]}n")}')
            numa.resources[name] = left
    return ""


# -- scoring strategies -------------------------------------------------------------------------


def _balanced_allocation(requested: dict[str, int], available: dict[str, int]) -> int:
    """1 - the sample variance (gonum ``stat.Variance``) of the requested fractions, times 100."""
    fractions = []
    for name, n in requested.items():
        cap = quantity_value(available.get(name, 0))
        fraction = 1.0 if cap == 0 else quantity_value(n) / cap
        if fraction > 1:
            return 0
        fractions.append(fraction)
    return _go_int64((1 - _sample_variance(fractions)) * MAX_NODE_SCORE)


def _sample_variance(xs: list[float]) -> float:
    n = len(xs)
    if n < 2:
        return math.nan  # gonum divides by n-1: 0/0 for one value, NaN for none
    mean = sum(xs) / n
    ss = sum((x - mean) ** 2 for x in xs)
    compensation = sum(x - mean for x in xs)
    return (ss - compensation * compensation / n) / (n - 1)


# -- LeastNUMANodes -------------------------------------------------------------------------------


def _only_non_numa_resources(numa_nodes: list[NUMANode], requests: dict[str, int]) -> bool:
    return not any(name in numa.resources for name in requests for numa in numa_nodes)


def _normalize(count: int, min_distance: bool, max_numa_nodes: int) -> int:
    step = MAX_NODE_SCORE // max_numa_nodes
    score = MAX_NODE_SCORE - count * step
    return score + step // 2 if min_distance else score


def _float32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def _avg_distance(numa_nodes: list[NUMANode], combo: tuple[int, ...]) -> float:
    """Mean cost over every ordered pair of the cells (positions in the list), as float32."""
    if not combo:
        return float(MAX_DISTANCE)
    total = 0
    for a in combo:
        costs = numa_nodes[a].costs
        for b in combo:
            total += costs.get(numa_nodes[b].numa_id, MAX_DISTANCE)
    return _float32(total / (len(combo) * len(combo)))


def _numa_nodes_required(qos: str, numa_nodes: list[NUMANode], requests: dict[str, int]) -> tuple[int | None, bool]:
    """Upstream ``numaNodesRequired``: the smallest set of cells (as a NUMA id bitmask) whose
    summed resources fit the request, the closest such set, and whether it is the closest of
    all sets of its size."""
    for size in range(1, len(numa_nodes) + 1):
        combos = list(combinations(range(len(numa_nodes)), size))
        min_avg = float(MAX_DISTANCE)
        for combo in combos:
            min_avg = min(min_avg, _avg_distance(numa_nodes, combo))
        best: tuple[int, ...] | None = None
        best_distance = 256.0
        for combo in combos:
            if not all(name in numa_nodes[i].resources for i in combo for name in requests):
                continue
            combined: dict[str, int] = {}
            for i in combo:
                for name, n in numa_nodes[i].resources.items():
                    combined[name] = combined.get(name, 0) + n
            if not all(n == 0 or is_resource_set_suitable(qos, name, n, combined.get(name, 0))
                       for name, n in requests.items()):
                continue
            distance = _avg_distance(numa_nodes, combo)
            if distance == min_avg:
                return _mask(numa_nodes, combo), True
            if distance < best_distance:
                best_distance, best = distance, combo
        if best is not None:
            return _mask(numa_nodes, best), False
    return None, False


def _mask(numa_nodes: list[NUMANode], combo: tuple[int, ...]) -> int:
    mask = 0
    for i in combo:
        mask |= 1 << numa_nodes[i].numa_id
    return mask


def _bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def _least_numa_pod_scope(facts: _PodFacts, numa_nodes: list[NUMANode], max_numa_nodes: int) -> int:
    requests = facts.effective
    if _only_non_numa_resources(numa_nodes, requests):
        return MAX_NODE_SCORE
    mask, min_distance = _numa_nodes_required(facts.qos, numa_nodes, requests)
    if mask is None:
        return MIN_NODE_SCORE
    return _normalize(len(_bits(mask)), min_distance, max_numa_nodes)


def _least_numa_container_scope(facts: _PodFacts, numa_nodes: list[NUMANode], max_numa_nodes: int) -> int:
    max_count = 0
    all_min_distance = True
    for requests in facts.init + facts.app:
        if _only_non_numa_resources(numa_nodes, requests):
            continue
        mask, min_distance = _numa_nodes_required(facts.qos, numa_nodes, requests)
        if mask is None:
            return MIN_NODE_SCORE
        all_min_distance = all_min_distance and min_distance
        max_count = max(max_count, len(_bits(mask)))
        _subtract_from_numas(requests, numa_nodes, _bits(mask))
    if max_count == 0:
        return MAX_NODE_SCORE
    return _normalize(max_count, all_min_distance, max_numa_nodes)


def _subtract_from_numas(requests: dict[str, int], numa_nodes: list[NUMANode], ids: list[int]) -> None:
    """Upstream ``subtractFromNUMAs``: the container's request is taken from the chosen cells in
    id order until it is met. Upstream looks the cells up by NUMA id as a position in the list."""
    for name, quantity in requests.items():
        for numa_id in ids:
            if quantity == 0:
                break
            if numa_id >= len(numa_nodes):
                raise _Panic(f"NUMA cell {numa_id} of {len(numa_nodes)}: upstream looks cells up by NUMA id "
                             f"as a list position and panics (index out of range)")
            resources = numa_nodes[numa_id].resources
            if name not in resources:
                continue
            available = resources[name]
            if quantity >= available:
                quantity -= available
                resources[name] = 0
            else:
                resources[name] = available - quantity
                quantity = 0


# -- facts --------------------------------------------------------------------------------------

FACTS = PluginFacts(
    name=NodeResourceTopologyMatch.name,
    points=("filter", "score", "reserve", "postBind"),
    # Pod/Delete (and node and NodeResourceTopology events) without hint functions.
    events={ASSIGNED_POD_DELETE: always_queue},
)
