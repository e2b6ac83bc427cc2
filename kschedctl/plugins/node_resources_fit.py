"""NodeResourcesFit: does the node have room for the pod's requests, and how full would it be.

Follows upstream kube-scheduler v1.34
``pkg/scheduler/framework/plugins/noderesources/fit.go`` (Filter) with the shared
``resourceAllocationScorer`` of ``resource_allocation.go`` for Score (strategies in
``kschedctl.plugins.resource_allocation``).

PreFilter takes the pod's requests once (containers summed, init containers max'ed, sidecars
and overhead and pod-level resources folded in: ``PodInfo.requests``); Filter then compares
them with the node's allocatable minus what its pods already request:

- "Too many pods" first when the node's pod count is at its allocatable ``pods``;
- then "Insufficient <resource>" for cpu, memory, ephemeral-storage, then scalar resources
  (extended resources, hugepages, ``kubernetes.io/``-prefixed ones), skipping extended
  resources named in ``ignoredResources`` or whose ``<group>/`` is in ``ignoredResourceGroups``;
- the status is UnschedulableAndUnresolvable (v1.34, kubernetes#131345) when some request is
  larger than the node's whole allocatable, so preemption cannot help; Unschedulable otherwise.

The requested / used / allocatable amounts of each short resource go to ``Status.details``
(``{"insufficient": [{"resource", "requested", "used", "capacity", "unit", "unresolvable"}]}``),
never into the reasons.

Score uses the configured strategy (LeastAllocated by default) over the configured resources
with non-zero requests (100m cpu / 200Mi memory for each container that requests nothing).
Unlike Filter, Score takes the pod's own request from its containers' specs (plus overhead):
v1.34.4's fit.go builds the scorer without the pod-level-resources and in-place-resize flags,
so ``spec.resources`` and resize status do not count there (BalancedAllocation's scorer has both).

Differences from upstream: upstream lists several short scalar resources in Go map order
(random from run to run); kschedctl lists them sorted by name. The PreFilter rejection of pods
with restartable init containers applies only with the SidecarContainers gate off, which v1.34
locks on, so it is not reproduced. DRA-backed extended resources (DRAExtendedResource gate,
alpha and off in v1.34) are not delegated to DynamicResources, as with the gate off.
PreFilter reads ``PodInfo.requests``, which (like upstream's PodInfo) raises a container's
requests to the resources its status reports during an in-place resize; upstream's PreFilter
ignores status, which only matters for a pending pod that already carries resize status.

Args are validated when the plugin is built, as upstream NewFit does (the config validator
does not check NodeResourcesFitArgs); errors are an InputError with upstream's field errors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from kschedctl.errors import InputError
from kschedctl.framework.cycle_state import StateNotFound
from kschedctl.framework.events import ASSIGNED_POD_DELETE, QUEUE, QUEUE_SKIP
from kschedctl.framework.interfaces import Plugin
from kschedctl.framework.status import Code, Status
from kschedctl.framework.twins import ColumnTwin
from kschedctl.k8s.field import FieldError, child, index, invalid, not_supported
from kschedctl.k8s.resources import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    PODS,
    is_extended_resource_name,
    is_hugepage_resource_name,
)
from kschedctl.k8s.validation import validate_label_name
from kschedctl.plugins.facts import ArgsFacts, PluginFacts
from kschedctl.plugins.helper import int_field
from kschedctl.plugins.names import NODE_RESOURCES_FIT
from kschedctl.plugins.remedy import RemedyEngine, RemedyScenario, Step, format_amount, pods_text
from kschedctl.plugins.resource_allocation import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    SCORING_STRATEGY_TYPES,
    ResourceAllocationScorer,
    aggregate_errors,
    default_resources,
    least_allocated_scorer,
    most_allocated_scorer,
    requested_to_capacity_ratio_scorer,
    resource_specs,
    shape_points,
    validate_shape,
)

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.types import PodInfo

NAME = NODE_RESOURCES_FIT

#: Reasons, word for word as upstream (the scalar one is "Insufficient " + resource name).
REASON_TOO_MANY_PODS = "Too many pods"
REASON_INSUFFICIENT_CPU = "Insufficient cpu"
REASON_INSUFFICIENT_MEMORY = "Insufficient memory"
REASON_INSUFFICIENT_EPHEMERAL_STORAGE = "Insufficient ephemeral-storage"
REASON_INSUFFICIENT_PREFIX = "Insufficient "

#: CycleState keys, as upstream names them.
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME


class InsufficientResource(NamedTuple):
    """Upstream ``InsufficientResource``: one resource the node is short of for the pod."""

    resource: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool = False

    def as_detail(self) -> dict:
        """The ``Status.details["insufficient"]`` entry (cpu in millicores, bytes, or units)."""
        return {
            "resource": self.resource,
            "requested": self.requested,
            "used": self.used,
            "capacity": self.capacity,
            "unit": _unit_of(self.resource),
            "unresolvable": self.unresolvable,
        }


class NodeResourcesFit(Plugin):
    """Filter on the node's free allocatable resources; Score by the configured strategy."""

    name: ClassVar[str] = NAME

    def __init__(self, args: dict | None = None, handle=None) -> None:
        super().__init__(args, handle)
        args = args or {}
        errors: list[str] = []
        self.ignored_resources: frozenset[str] = frozenset(args.get("ignoredResources") or ())
        groups = list(args.get("ignoredResourceGroups") or ())
        for i, group in enumerate(groups):
            if "/" in group:
                errors.append(
                    f'ignoredResourceGroups[{i}]: Invalid value: "{group}": resource group name can\'t contain \'/\''
                )
        self.ignored_resource_groups: frozenset[str] = frozenset(groups)

        strategy = args.get("scoringStrategy")
        if strategy is None:
            # v1 defaulting of a missing scoringStrategy.
            strategy = {"type": LEAST_ALLOCATED}
        if not isinstance(strategy, dict):
            raise InputError(f"{NAME} args: scoringStrategy: must be an object with type and resources")
        strategy_type = strategy.get("type")
        try:
            resources = resource_specs(strategy.get("resources"), "scoringStrategy.resources")
        except InputError as err:
            raise InputError(f"{NAME} args: {err.message}") from None
        if strategy_type not in SCORING_STRATEGY_TYPES:
            supported = ", ".join(f'"{t}"' for t in sorted(SCORING_STRATEGY_TYPES))
            errors.append(
                f'scoringStrategy.type: Unsupported value: "{strategy_type or ""}": supported values: {supported}'
            )
        for i, (res, weight) in enumerate(resources):
            if weight <= 0 or weight > 100:
                errors.append(
                    f"scoringStrategy.resources[{i}].weight: Invalid value: {weight}: "
                    f"resource weight of {res} not in valid range (0, 100]"
                )
        rtcr = strategy.get("requestedToCapacityRatio")
        shape: list[tuple[int, int]] = []
        if rtcr is not None or strategy_type == REQUESTED_TO_CAPACITY_RATIO:
            try:
                # Upstream names this path scoringStrategy.shape, not ...requestedToCapacityRatio.shape.
                shape = shape_points((rtcr or {}).get("shape"), "scoringStrategy.shape")
            except InputError as err:
                errors.append(err.message)
        if errors:
            raise InputError(f"{NAME} args: {aggregate_errors(errors)}")

        if strategy_type == LEAST_ALLOCATED:
            scorer = least_allocated_scorer
        elif strategy_type == MOST_ALLOCATED:
            scorer = most_allocated_scorer
        else:
            scorer = requested_to_capacity_ratio_scorer(shape)
        self.strategy: str = strategy_type
        # fit.go's strategy map builds the scorer without the pod-level and in-place-resize flags
        self.scorer = ResourceAllocationScorer(strategy_type, resources, scorer, use_requested=False,
                                               pod_level_resources=False, status_resources=False)

    # --- PreFilter / Filter ----------------------------------------------------------------

    def pre_filter(self, state, pod_info, nodes) -> tuple[None, Status | None]:
        request = _pod_request(pod_info, self.ignored_resources, self.ignored_resource_groups)
        state.write(PRE_FILTER_STATE_KEY, request)
        return None, None

    def filter(self, state, pod_info, node_info) -> Status | None:
        try:
            request = state.read(PRE_FILTER_STATE_KEY)
        except StateNotFound:
            return Status(Code.Error, f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        insufficient = _fits_request(request, node_info)
        if not insufficient:
            return None
        # v1.34: a request larger than the whole node cannot be helped by preemption.
        unresolvable = any(r.unresolvable for r in insufficient)
        code = Code.UnschedulableAndUnresolvable if unresolvable else Code.Unschedulable
        return Status(
            code,
            *(r.reason for r in insufficient),
            details={"insufficient": [r.as_detail() for r in insufficient]},
        )

    # --- PreScore / Score ------------------------------------------------------------------

    def pre_score(self, state, pod_info, nodes) -> Status | None:
        state.write(PRE_SCORE_STATE_KEY, self.scorer.plan_for(pod_info))
        return None

    def score(self, state, pod_info, node_info) -> tuple[int, Status | None]:
        try:
            plan = state.read(PRE_SCORE_STATE_KEY)
        except StateNotFound:
            # Upstream recomputes the pod's requests when PreScore did not run.
            plan = self.scorer.plan_for(pod_info)
        return self.scorer.score(node_info, plan)


def fits(
    pod_info, node_info, ignored_resources=frozenset(), ignored_resource_groups=frozenset()
) -> list[InsufficientResource]:
    """Upstream ``noderesources.Fits``: what ``node_info`` lacks for the pod (empty: it fits)."""
    request = _pod_request(pod_info, frozenset(ignored_resources), frozenset(ignored_resource_groups))
    return _fits_request(request, node_info)


# --- private helpers ------------------------------------------------------------------------


class _PodRequest:
    """The pod's requests as Filter needs them; scalars already stripped of zero and ignored ones."""

    __slots__ = ("milli_cpu", "memory", "ephemeral_storage", "scalars")

    def __init__(
        self, milli_cpu: int, memory: int, ephemeral_storage: int, scalars: tuple[tuple[str, int], ...]
    ) -> None:
        self.milli_cpu = milli_cpu
        self.memory = memory
        self.ephemeral_storage = ephemeral_storage
        self.scalars = scalars

    def clone(self) -> "_PodRequest":
        return self


def _pod_request(pod_info, ignored: frozenset[str], ignored_groups: frozenset[str]) -> _PodRequest:
    requests = pod_info.requests
    scalars = []
    for res in sorted(requests.scalar_resources):
        quantity = requests.scalar_resources[res]
        if quantity == 0:
            continue
        if is_extended_resource_name(res):
            if res in ignored or (ignored_groups and res.split("/", 1)[0] in ignored_groups):
                continue
        scalars.append((res, quantity))
    return _PodRequest(requests.milli_cpu, requests.memory, requests.ephemeral_storage, tuple(scalars))


def _fits_request(request: _PodRequest, node_info) -> list[InsufficientResource]:
    """Upstream ``fitsRequest``; returns an empty list (no allocation) when the pod fits."""
    allocatable = node_info.allocatable
    requested = node_info.requested
    out: list[InsufficientResource] = []
    pod_count = len(node_info.pods)
    if pod_count + 1 > allocatable.allowed_pod_number:
        out.append(InsufficientResource(PODS, REASON_TOO_MANY_PODS, 1, pod_count, allocatable.allowed_pod_number))
    cpu = request.milli_cpu
    if cpu > 0 and cpu > allocatable.milli_cpu - requested.milli_cpu:
        out.append(InsufficientResource(
            CPU, REASON_INSUFFICIENT_CPU, cpu, requested.milli_cpu, allocatable.milli_cpu,
            cpu > allocatable.milli_cpu,
        ))
    memory = request.memory
    if memory > 0 and memory > allocatable.memory - requested.memory:
        out.append(InsufficientResource(
            MEMORY, REASON_INSUFFICIENT_MEMORY, memory, requested.memory, allocatable.memory,
            memory > allocatable.memory,
        ))
    storage = request.ephemeral_storage
    if storage > 0 and storage > allocatable.ephemeral_storage - requested.ephemeral_storage:
        out.append(InsufficientResource(
            EPHEMERAL_STORAGE,
            REASON_INSUFFICIENT_EPHEMERAL_STORAGE,
            storage,
            requested.ephemeral_storage,
            allocatable.ephemeral_storage,
            storage > allocatable.ephemeral_storage,
        ))
    if request.scalars:
        node_scalars = allocatable.scalar_resources
        used_scalars = requested.scalar_resources
        for res, quantity in request.scalars:
            capacity = node_scalars.get(res, 0)
            used = used_scalars.get(res, 0)
            if quantity > capacity - used:
                out.append(InsufficientResource(
                    res, REASON_INSUFFICIENT_PREFIX + res, quantity, used, capacity, quantity > capacity
                ))
    return out


def _unit_of(resource: str) -> str:
    if resource == CPU:
        return "m"
    if resource in (MEMORY, EPHEMERAL_STORAGE) or is_hugepage_resource_name(resource):
        return "bytes"
    return ""


# -- facts --------------------------------------------------------------------------------------


def _schedulable_after_pod_deleted(pod_info: Any, other: Any, cluster: Any) -> str:
    # isSchedulableAfterPodEvent: deleting an assigned pod frees resources, and so does a
    # nominated pod leaving the queue (its room on the nominated node was held).
    return QUEUE if getattr(other, "node_name", "") or getattr(other, "nominated_node_name", "") else QUEUE_SKIP


def remedy(engine: RemedyEngine, scen: RemedyScenario, status: Status) -> Step | None:
    """What would flip this plugin's Filter verdict on the scenario's node (kschedctl.plugins.remedy)."""
    insufficient = (status.details or {}).get("insufficient") or []
    if not insufficient:
        return None
    texts, changes, short = [], [], []
    missing: dict[str, int] = {}
    unresolvable = False
    for d in insufficient:
        resource = d["resource"]
        need = d["requested"] - (d["capacity"] - d["used"])
        if need <= 0:
            continue
        missing[resource] = need
        unresolvable = unresolvable or bool(d.get("unresolvable"))
        if resource == PODS:
            texts.append(f"room for {need} more pod{'s' if need != 1 else ''} ({d['used']} of {d['capacity']} in use)")
        else:
            texts.append(f"{format_amount(resource, need, for_people=True)} more {resource}")
        changes.append({"kind": "raiseAllocatable", "node": scen.name, "resource": resource,
                        "by": format_amount(resource, need), "to": format_amount(resource, d["capacity"] + need)})
        short.append(need / max(d["capacity"], d["requested"], 1))
    if not changes:
        return None
    eviction = _eviction(engine, scen, missing, unresolvable)
    text = "needs " + " and ".join(texts)
    if eviction.get("possible"):
        text += f" (evicting lower-priority {pods_text(eviction['pods'])} would free it)"
    elif unresolvable:
        text += " (over the node's whole allocatable: eviction cannot help)"
    alternatives = []
    if eviction.get("possible"):
        alternatives.append({"text": f"evict lower-priority {pods_text(eviction['pods'], limit=100)}",
                             "changes": [{"kind": "removePods", "pods": list(eviction["pods"])}]})
    details = {"missing": {r: format_amount(r, n) for r, n in missing.items()}, "eviction": eviction}
    return Step(text, changes, details, max(short), alternatives, list(status.reasons))


def _eviction(engine: RemedyEngine, scen: RemedyScenario, missing: dict[str, int], unresolvable: bool) -> dict:
    """Would evicting the node's lower-priority pods free ``missing``? The victims are chosen as
    preemption chooses them on one node: all lower-priority pods first, then the highest-priority
    ones reprieved while the rest still frees enough. PDBs are not looked at."""
    pod = engine.pod_info
    lower = [p for p in scen.node_info.pods if p.priority < pod.priority]
    policy = (pod.pod.get("spec") or {}).get("preemptionPolicy") or "PreemptLowerPriority"
    out: dict[str, Any] = {"possible": False, "lowerPriorityPods": len(lower), "preemptionPolicy": policy}
    if unresolvable or not lower:
        return out

    def freed(pods: list[PodInfo]) -> dict[str, int]:
        return {r: (len(pods) if r == PODS else sum(p.requests.get(r) for p in pods)) for r in missing}

    def enough(amounts: dict[str, int]) -> bool:
        return all(amounts[r] >= n for r, n in missing.items())

    if not enough(freed(lower)):
        return out
    victims = list(lower)
    for p in sorted(lower, key=lambda p: -p.priority):  # reprieve the most important first
        rest = [v for v in victims if v is not p]
        if enough(freed(rest)):
            victims = rest
    out["possible"] = True
    out["pods"] = sorted(v.key for v in victims)
    out["freed"] = {r: format_amount(r, n) for r, n in freed(victims).items()}
    if policy == "Never":
        out["note"] = "the pod's preemptionPolicy is Never: the scheduler will not evict them itself"
    return out


def default_config_args(a: dict[str, Any]) -> None:
    """``SetDefaults_NodeResourcesFitArgs`` on a v1 args dict, in place."""
    strategy = a.get("scoringStrategy")
    if strategy is None:
        a["scoringStrategy"] = strategy = {"type": "LeastAllocated", "resources": default_resources()}
    if not strategy.get("resources"):
        strategy["resources"] = default_resources()
    for r in strategy["resources"]:
        if not r.get("weight"):
            r["weight"] = 1


def validate_config_args(path: str, a: dict[str, Any]) -> list[FieldError]:
    """ValidateNodeResourcesFitArgs as of v1.34 (shape errors under ``scoringStrategy.shape``)."""
    errs: list[FieldError] = []
    for i, res in enumerate(a.get("ignoredResources") or []):
        errs.extend(validate_label_name(res, index(child(path, "ignoredResources"), i)))
    for i, group in enumerate(a.get("ignoredResourceGroups") or []):
        p = index(child(path, "ignoredResourceGroups"), i)
        if "/" in group:
            errs.append(invalid(p, group, "resource group name can't contain '/'"))
        errs.extend(validate_label_name(group, p))
    strategy = a.get("scoringStrategy")
    spath = child(path, "scoringStrategy")
    if strategy is not None:
        stype = strategy.get("type") or ""
        if stype not in SCORING_STRATEGY_TYPES:
            errs.append(not_supported(child(spath, "type"), stype, sorted(SCORING_STRATEGY_TYPES)))
        for i, r in enumerate(strategy.get("resources") or []):
            w = int_field(r, "weight")
            if w <= 0 or w > 100:
                errs.append(invalid(child(index(child(spath, "resources"), i), "weight"), w,
                                    f"resource weight of {r.get('name') or ''} not in valid range (0, 100]"))
        rtcr = strategy.get("requestedToCapacityRatio")
        if rtcr is not None:
            errs.extend(validate_shape(rtcr.get("shape"), child(spath, "shape")))
    return errs


FACTS = PluginFacts(
    name=NodeResourcesFit.name,
    points=("preFilter", "filter", "preScore", "score"),
    events={ASSIGNED_POD_DELETE: _schedulable_after_pod_deleted},
    node_local=frozenset({"filter", "score"}),
    args=ArgsFacts("NodeResourcesFitArgs", default_config_args, validate_config_args, checked_by_config=False),
    remedy=remedy,
    default_weight=1,
    twin=ColumnTwin("kschedctl.plugins.node_resources_fit_columns", ("filter", "score")),
)
