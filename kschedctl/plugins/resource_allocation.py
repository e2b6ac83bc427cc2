"""The resource-allocation scorer shared by NodeResourcesFit and NodeResourcesBalancedAllocation.

Follows upstream kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/noderesources/``:
``resource_allocation.go`` (requested / allocatable per configured resource, non-zero requests,
the "pod does not request this scalar resource" bypass), ``least_allocated.go``,
``most_allocated.go``, ``requested_to_capacity_ratio.go`` (shape scores scaled from 0-10 to
0-100, then ``kschedctl.plugins.helper.build_broken_linear_function``, upstream
``plugins/helper/shape_score.go``) and the
``balancedResourceScorer`` of ``balanced_allocation.go``.

Integer arithmetic follows Go's int64 semantics where it matters: divisions of possibly
negative numbers truncate toward zero, ``math.Round`` rounds half away from zero, and float
fractions are computed as ``float64(a) / float64(b)``.

Known differences: none in verdicts or scores for inputs below 2**63 (Python integers do not
overflow where Go's int64 would, e.g. ``requested * 100`` for more than 92 PB of memory). The
DRA-backed extended resources of the ``DRAExtendedResource`` gate (alpha, off in v1.34) are not
scored, as with the gate off.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable, Sequence

from kschedctl.errors import InputError
from kschedctl.framework.interfaces import MAX_NODE_SCORE
from kschedctl.framework.status import Code, Status
from kschedctl.k8s.field import FieldError, child, index, invalid, required
from kschedctl.k8s.gomath import go_round
from kschedctl.k8s.resources import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    has_container_statuses,
    is_pod_level_requests_set,
    is_scalar_resource_name,
    pod_requests_for_scoring,
)
from kschedctl.plugins.helper import build_broken_linear_function, int_field

#: Scoring strategy names (upstream ``config.ScoringStrategyType``).
LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
SCORING_STRATEGY_TYPES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)

#: Upstream ``config.MaxCustomPriorityScore``: shape scores are given on a 0-10 scale.
MAX_CUSTOM_PRIORITY_SCORE = 10
#: Upstream ``maxUtilization`` of requested_to_capacity_ratio.go.
MAX_UTILIZATION = 100

#: The v1 default resources of both plugins' args: cpu and memory, weight 1.
DEFAULT_RESOURCES: tuple[tuple[str, int], ...] = ((CPU, 1), (MEMORY, 1))

#: Reason of the Error status when the plugin has no resources to score.
ERR_RESOURCES_NOT_FOUND = "resources not found"

# What a configured resource name is, decided once per plugin (not per node); public because
# the column twins (resource_allocation_columns) sort resources the same way.
RESOURCE_KIND_CPU = 0
RESOURCE_KIND_MEMORY = 1
RESOURCE_KIND_EPHEMERAL = 2
RESOURCE_KIND_SCALAR = 3
RESOURCE_KIND_OTHER = 4  # "pods", "storage", ...: never in NodeInfo's scalar map, always (0, 0)

#: A scorer takes requested and allocatable amounts and the matching weights, and returns the
#: node's raw score; entries whose allocatable is 0 do not count (upstream skips them).
Scorer = Callable[[Sequence[int], Sequence[int], Sequence[int]], int]


class PodRequestPlan:
    """One pod's requests, compiled against a scorer's resources: only the entries that can
    contribute to a score, as ``(kind, name, weight, pod_request)``. Computed once per pod in
    PreScore so that Score is a handful of lookups per node."""

    __slots__ = ("pod_requests", "entries")

    def __init__(self, pod_requests: list[int], entries: tuple[tuple[int, str, int, int], ...]) -> None:
        #: The pod's request per configured resource, in the configured order (upstream podRequests).
        self.pod_requests = pod_requests
        self.entries = entries

    def clone(self) -> "PodRequestPlan":
        # Read-only after PreScore, like upstream's preScoreState.Clone returning itself.
        return self


class ResourceAllocationScorer:
    """Upstream ``resourceAllocationScorer``: which resources, with which weights, scored how.

    ``use_requested`` picks the node's plain requested amounts for cpu and memory (and the
    pod's plain requests); otherwise the non-zero ones (100m cpu / 200Mi memory for each
    container that requests nothing), as NodeResourcesFit does.

    ``pod_level_resources`` and ``status_resources`` are upstream's enablePodLevelResources and
    enableInPlacePodVerticalScaling of the scorer: BalancedAllocation sets both from the feature
    gates, but fit.go (v1.34.4) builds NodeResourcesFit's scorer without them, so its score reads
    the containers' spec requests and ignores ``spec.resources`` and resizes in flight.
    """

    __slots__ = ("name", "resources", "use_requested", "pod_level_resources", "status_resources",
                 "scorer", "_kinds")

    def __init__(
        self,
        name: str,
        resources: Sequence[tuple[str, int]],
        scorer: Scorer,
        use_requested: bool,
        *,
        pod_level_resources: bool = True,
        status_resources: bool = True,
    ) -> None:
        self.name = name
        self.resources: tuple[tuple[str, int], ...] = tuple(resources)
        self.use_requested = use_requested
        self.pod_level_resources = pod_level_resources
        self.status_resources = status_resources
        self.scorer = scorer
        self._kinds = tuple(_kind_of(res) for res, _ in self.resources)

    def pod_requests(self, pod_info) -> list[int]:
        """The pod's request for each configured resource (upstream calculatePodResourceRequestList).

        cpu is in millicores, everything else in units; init, sidecar containers, overhead and
        pod-level resources are already folded into ``pod_info.requests`` by PodInfo, with both
        of PodInfo's options on; a scorer that turns one off recomputes for a pod it changes.
        """
        requests = pod_info.requests
        pod = pod_info.pod
        if ((not self.pod_level_resources and is_pod_level_requests_set(pod))
                or (not self.status_resources and has_container_statuses(pod))):
            requests = pod_requests_for_scoring(
                pod, use_status_resources=self.status_resources,
                pod_level_resources=self.pod_level_resources, non_zero=not self.use_requested)
            cpu, memory = requests.milli_cpu, requests.memory
        elif self.use_requested:
            cpu, memory = requests.milli_cpu, requests.memory
        else:
            cpu, memory = pod_info.non_zero_milli_cpu, pod_info.non_zero_memory
        out: list[int] = []
        for (res, _), kind in zip(self.resources, self._kinds):
            if kind == RESOURCE_KIND_CPU:
                out.append(cpu)
            elif kind == RESOURCE_KIND_MEMORY:
                out.append(memory)
            elif kind == RESOURCE_KIND_EPHEMERAL:
                out.append(requests.ephemeral_storage)
            else:
                # Resource.get also answers "pods" (which upstream's request list carries too).
                out.append(requests.get(res))
        return out

    def plan(self, pod_requests: list[int]) -> PodRequestPlan:
        """Compile ``pod_requests`` into the entries Score has to look at.

        Dropped up front, because upstream scores them (0, 0) on every node: scalar resources
        the pod does not request, and names that are neither cpu, memory, ephemeral-storage
        nor a scalar resource.
        """
        entries = []
        for (res, weight), kind, request in zip(self.resources, self._kinds, pod_requests):
            if kind == RESOURCE_KIND_OTHER or (kind == RESOURCE_KIND_SCALAR and request == 0):
                continue
            entries.append((kind, res, weight, request))
        return PodRequestPlan(pod_requests, tuple(entries))

    def plan_for(self, pod_info) -> PodRequestPlan:
        return self.plan(self.pod_requests(pod_info))

    def score(self, node_info, plan: PodRequestPlan) -> tuple[int, Status | None]:
        """Upstream ``resourceAllocationScorer.score`` for one node."""
        if not self.resources:
            return 0, Status(Code.Error, ERR_RESOURCES_NOT_FOUND)
        allocatable = node_info.allocatable
        node_requested = node_info.requested
        requested = node_requested if self.use_requested else node_info.non_zero_requested
        req_list: list[int] = []
        alloc_list: list[int] = []
        weights: list[int] = []
        for kind, res, weight, request in plan.entries:
            if kind == RESOURCE_KIND_CPU:
                alloc = allocatable.milli_cpu
                used = requested.milli_cpu
            elif kind == RESOURCE_KIND_MEMORY:
                alloc = allocatable.memory
                used = requested.memory
            elif kind == RESOURCE_KIND_EPHEMERAL:
                # Upstream always takes the plain requested amount for ephemeral storage.
                alloc = allocatable.ephemeral_storage
                used = node_requested.ephemeral_storage
            else:
                alloc = allocatable.scalar_resources.get(res)
                if alloc is None:
                    continue
                used = node_requested.scalar_resources.get(res, 0)
            if alloc == 0:
                continue
            alloc_list.append(alloc)
            req_list.append(used + request)
            weights.append(weight)
        return self.scorer(req_list, alloc_list, weights), None

    @staticmethod
    def is_best_effort(pod_requests: Iterable[int]) -> bool:
        """Upstream ``isBestEffortPod``: the pod requests none of the configured resources."""
        return not any(pod_requests)


# --- scoring strategies --------------------------------------------------------------------


def least_requested_score(requested: int, capacity: int) -> int:
    """Unused share of ``capacity`` on a 0-100 scale (0 when over-committed)."""
    if capacity == 0 or requested > capacity:
        return 0
    return (capacity - requested) * MAX_NODE_SCORE // capacity


def most_requested_score(requested: int, capacity: int) -> int:
    """Used share of ``capacity`` on a 0-100 scale (capped at 100)."""
    if capacity == 0:
        return 0
    if requested > capacity:
        requested = capacity
    return requested * MAX_NODE_SCORE // capacity


def least_allocated_scorer(requested: Sequence[int], allocatable: Sequence[int], weights: Sequence[int]) -> int:
    """LeastAllocated: weighted mean (integer division) of the unused shares."""
    node_score = weight_sum = 0
    for req, alloc, weight in zip(requested, allocatable, weights):
        if alloc == 0:
            continue
        node_score += least_requested_score(req, alloc) * weight
        weight_sum += weight
    return node_score // weight_sum if weight_sum else 0


def most_allocated_scorer(requested: Sequence[int], allocatable: Sequence[int], weights: Sequence[int]) -> int:
    """MostAllocated: weighted mean (integer division) of the used shares."""
    node_score = weight_sum = 0
    for req, alloc, weight in zip(requested, allocatable, weights):
        if alloc == 0:
            continue
        node_score += most_requested_score(req, alloc) * weight
        weight_sum += weight
    return node_score // weight_sum if weight_sum else 0


def requested_to_capacity_ratio_scorer(shape: Sequence[tuple[int, int]]) -> Scorer:
    """RequestedToCapacityRatio with ``shape`` given on upstream's 0-10 score scale.

    Scores are scaled to 0-100 (x ``MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE``); a resource
    whose score is 0 does not count towards the weights; the mean is rounded half away from 0.
    """
    factor = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    raw = build_broken_linear_function([(u, s * factor) for u, s in shape])
    at_max = raw(MAX_UTILIZATION)

    def scorer(requested: Sequence[int], allocatable: Sequence[int], weights: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for req, alloc, weight in zip(requested, allocatable, weights):
            if alloc == 0:
                continue
            if req > alloc:
                resource_score = at_max
            else:
                resource_score = raw(req * MAX_UTILIZATION // alloc)
            if resource_score > 0:
                node_score += resource_score * weight
                weight_sum += weight
        if weight_sum == 0:
            return 0
        return go_round(float(node_score) / float(weight_sum))

    # for its column form (resource_allocation_columns), which calls the same shape function
    scorer.shape_function = raw  # type: ignore[attr-defined]
    scorer.score_at_max = at_max  # type: ignore[attr-defined]
    return scorer


def balanced_resource_scorer(
    requested: Sequence[int], allocatable: Sequence[int], weights: Sequence[int] = ()
) -> int:
    """BalancedAllocation: ``(1 - std) * 100`` of the requested/allocatable fractions.

    Fractions are capped at 1; two fractions use ``|f1 - f2| / 2``, more use the population
    standard deviation, fewer give std 0 (score 100). Weights are ignored, as upstream.
    """
    fractions: list[float] = []
    total = 0.0
    for req, alloc in zip(requested, allocatable):
        if alloc == 0:
            continue
        fraction = float(req) / float(alloc)
        if fraction > 1:
            fraction = 1.0
        total += fraction
        fractions.append(fraction)
    std = 0.0
    n = len(fractions)
    if n == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif n > 2:
        mean = total / float(n)
        acc = 0.0
        for fraction in fractions:
            acc = acc + (fraction - mean) * (fraction - mean)
        std = math.sqrt(acc / float(n))
    return int((1 - std) * float(MAX_NODE_SCORE))


# --- args --------------------------------------------------------------------------------


def resource_specs(
    raw: object, field: str, default: Sequence[tuple[str, int]] = DEFAULT_RESOURCES
) -> list[tuple[str, int]]:
    """``[{name, weight}]`` from args as ``(name, weight)`` pairs; ``None`` gives ``default``.

    A missing weight is 1 (v1 defaulting); an explicit empty list stays empty (what upstream's
    plugin sees when the args bypass defaulting).
    """
    if raw is None:
        return list(default)
    if not isinstance(raw, list):
        raise InputError(f"{field}: must be a list of {{name, weight}}")
    out: list[tuple[str, int]] = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise InputError(f"{field}[{i}].name: Required value")
        weight = item.get("weight")
        if weight is None:
            weight = 1
        if isinstance(weight, bool) or not isinstance(weight, int):
            raise InputError(f"{field}[{i}].weight: Invalid value: {weight!r}: must be an integer")
        out.append((item["name"], weight))
    return out


def shape_points(raw: object, field: str) -> list[tuple[int, int]]:
    """``[{utilization, score}]`` from args as ``(utilization, score)`` pairs (validated as upstream)."""
    if not isinstance(raw, list) or not raw:
        raise InputError(f"{field}: Required value: at least one point must be specified")
    points: list[tuple[int, int]] = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise InputError(f"{field}[{i}]: must be a {{utilization, score}} point")
        u, s = item.get("utilization", 0), item.get("score", 0)
        if isinstance(u, bool) or isinstance(s, bool) or not isinstance(u, int) or not isinstance(s, int):
            raise InputError(f"{field}[{i}]: utilization and score must be integers")
        points.append((u, s))
    errors: list[str] = []
    for i in range(1, len(points)):
        if points[i - 1][0] >= points[i][0]:
            errors.append(
                f"{field}[{i}].utilization: Invalid value: {points[i][0]}: "
                "values must be sorted in increasing order"
            )
            break
    for i, (u, s) in enumerate(points):
        if u < 0 or u > MAX_UTILIZATION:
            errors.append(
                f"{field}[{i}].utilization: Invalid value: {u}: not in valid range [0, {MAX_UTILIZATION}]"
            )
        if s < 0 or s > MAX_CUSTOM_PRIORITY_SCORE:
            errors.append(
                f"{field}[{i}].score: Invalid value: {s}: not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]"
            )
    if errors:
        raise InputError(aggregate_errors(errors))
    return points


def aggregate_errors(errors: list[str]) -> str:
    """Upstream ``ErrorList.ToAggregate().Error()``: one error as is, several in brackets."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


# --- private helpers -------------------------------------------------------------------------


def _kind_of(resource: str) -> int:
    if resource == CPU:
        return RESOURCE_KIND_CPU
    if resource == MEMORY:
        return RESOURCE_KIND_MEMORY
    if resource == EPHEMERAL_STORAGE:
        return RESOURCE_KIND_EPHEMERAL
    if is_scalar_resource_name(resource):
        return RESOURCE_KIND_SCALAR
    return RESOURCE_KIND_OTHER


# -- args shared by NodeResourcesFit, NodeResourcesBalancedAllocation and VolumeBinding -----------

#: The resources (and weights) args default to: cpu and memory, weight 1.
DEFAULT_RESOURCES = ({"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1})


def default_resources() -> list[dict[str, Any]]:
    """A fresh copy of :data:`DEFAULT_RESOURCES` (args are defaulted in place)."""
    return [dict(r) for r in DEFAULT_RESOURCES]


def validate_shape(shape: list[dict[str, Any]] | None, path: str) -> list[FieldError]:
    """``validateFunctionShape`` of upstream's args validation: points sorted by utilization, in range."""
    if not shape:
        return [required(path, "at least one point must be specified")]
    errs: list[FieldError] = []
    for i in range(1, len(shape)):
        if int_field(shape[i - 1], "utilization") >= int_field(shape[i], "utilization"):
            errs.append(invalid(child(index(path, i), "utilization"), int_field(shape[i], "utilization"),
                                "values must be sorted in increasing order"))
            break
    for i, point in enumerate(shape):
        u, s = int_field(point, "utilization"), int_field(point, "score")
        if u < 0 or u > 100:
            errs.append(invalid(child(index(path, i), "utilization"), u, "not in valid range [0, 100]"))
        if s < 0 or s > MAX_CUSTOM_PRIORITY_SCORE:
            errs.append(invalid(child(index(path, i), "score"), s, f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]"))
    return errs
