"""DynamicResources: the pod's ResourceClaims must get devices from the node's ResourceSlices.

Upstream: pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go (release-1.34,
v1.34.x: imports ``fwk "k8s.io/kube-scheduler/framework"`` and ``resource/v1``), with its
dra_manager.go and allocateddevices.go. The folder holds what the plugin builds on:

- ``features``: the DRA feature gates at their v1.34 defaults;
- ``cel``: device selectors (CEL) with Kubernetes' DRA environment;
- ``pools``: ResourceSlices gathered into pools per node;
- ``allocator``: the structured allocator (``k8s.io/dynamic-resource-allocation/structured``);
- ``claims``: a pod's claims, claims generated from templates, and the devices in use;
- ``diagnosis``: the device counts per request a failed node's report shows.

Feature gates are v1.34's defaults: prioritized lists and admin access on; partitionable devices, device taints, consumable capacity, binding conditions
and extended resources backed by DRA off.

- PreEnqueue: every claim of the pod must exist, not be being deleted, and (when generated from
  a template) be owned by the pod; otherwise UnschedulableAndUnresolvable with upstream's error
  text (``pod "ns/name": ResourceClaim not created yet``, ``could not find ResourceClaim
  "ns/name"``, ``resourceclaim "name" is being deleted``, ``ResourceClaim ns/c was not created for
  pod ns/p (pod is not owner)``).
- PreFilter: Skip without claims. An allocated claim's ``allocation.nodeSelector`` restricts the
  nodes; an unallocated one must not be in flight for another pod (``resource claim ns/name is
  in the process of being allocated``) and its DeviceClasses must exist (``request r: device
  class c does not exist``; an empty class name is an Error ``request r: unsupported request
  type``). The claims are recorded only when PreFilter succeeds, as upstream.
- Filter: ``resourceclaim not available on the node`` for an allocated claim whose node selector
  does not match; ``cannot allocate all claims`` when the allocator finds no devices; an allocator
  error (CEL, a missing class, an incomplete pool for ``All``) is an Error with its text. A
  node's Success carries the allocation in ``details``; a failure carries the device counts per
  request (kschedctl's explanation, computed only when a report reads it). A call made only for
  the report (``--all-filters`` after the node's first rejection, where upstream stops) marks no
  claim unavailable and keeps no allocation, so PostFilter sees what upstream's calls marked.
- PostFilter: ``no new claims to deallocate`` without recorded claims; otherwise the first
  (lowest-index) allocated claim that was unavailable on some node and is reserved by nobody else
  is deallocated (``deallocation of ResourceClaim completed``), else ``still not schedulable``.
- Reserve records each new allocation as in flight (its devices count as in use); Unreserve
  forgets it and removes the pod from claims reserved for it; PreBind writes the allocation and
  the reservation into the claim (kschedctl's run state, never the cluster).

Differences: DRASchedulerFilterTimeout's ``filterTimeout`` (10s) is not applied, kschedctl's
allocator has no wall clock; PostFilter upstream picks among the unavailable claims in Go map
order, kschedctl in index order.
"""

from __future__ import annotations

import copy
import json
from typing import TYPE_CHECKING, Any

from kschedctl.framework.events import ASSIGNED_POD_ADD, QUEUE, QUEUE_SKIP, RESOURCE_CLAIM_DEALLOCATED
from kschedctl.framework.interfaces import Plugin
from kschedctl.framework.status import Code, Status
from kschedctl.k8s.duration import parse_go_duration
from kschedctl.k8s.field import FieldError, child, forbidden, invalid
from kschedctl.k8s.node_selectors import NodeSelector
from kschedctl.plugins import names
from kschedctl.plugins.dynamic_resources.allocator import AllocationError, Allocator, claim_ref
from kschedctl.plugins.dynamic_resources.claims import ClaimLookupError, DraState, in_flight_key, is_reserved_for_pod
from kschedctl.plugins.dynamic_resources.diagnosis import DeviceGap
from kschedctl.plugins.dynamic_resources.features import DEFAULT_FEATURES
from kschedctl.plugins.facts import ArgsFacts, PluginFacts
from kschedctl.plugins.remedy import RemedyEngine, RemedyScenario, Step

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.status import PostFilterResult, PreFilterResult
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = names.DYNAMIC_RESOURCES
STATE_KEY = NAME

#: Reasons, word for word as release-1.34.
ERR_NOT_AVAILABLE = "resourceclaim not available on the node"
ERR_CANNOT_ALLOCATE = "cannot allocate all claims"
NO_NEW_CLAIMS_TO_DEALLOCATE = "no new claims to deallocate"
DEALLOCATION_COMPLETED = "deallocation of ResourceClaim completed"
STILL_NOT_SCHEDULABLE = "still not schedulable"
CLAIM_ALLOCATION_NOT_FOUND = "claim allocation not found for node"
#: getStateData returns the cycle state's ErrNotFound unwrapped: its text is the whole message.
ERR_STATE_NOT_FOUND = "not found"
#: Finalizer the scheduler puts on a claim it allocates.
DELETE_PROTECTION_FINALIZER = "resource.kubernetes.io/delete-protection"
#: ResourceClaimReservedForMaxSize, enforced by the API server's validation.
RESERVED_FOR_MAX_SIZE = 256
#: Allocation answers kept per run before the memo starts over (bounds memory).
_MEMO_LIMIT = 200_000
#: Where the plugins of one run find the shared DRA state (Snapshot.shared).
SHARED_KEY = "dra"


def _claims_of(pod_info: "PodInfo") -> list:
    return (pod_info.pod.get("spec") or {}).get("resourceClaims") or []


class _StateData:
    """What PreFilter found; Filter, Reserve and PreBind add to it (never copied, as upstream)."""

    __slots__ = ("claims", "available_on", "allocator", "to_allocate", "unavailable", "node_allocations",
                 "allocations", "allocated", "signature", "selectors", "dra")

    def __init__(self) -> None:
        self.claims: list[dict] = []
        self.available_on: list[NodeSelector | None] = []
        self.allocator: Allocator | None = None
        self.to_allocate: list[int] = []
        self.unavailable: set[int] = set()
        self.node_allocations: dict[str, list[dict]] = {}
        self.allocations: list[dict | None] = []
        self.allocated: Any = None
        #: The specs of the claims to allocate (the allocation memo's key with the node).
        self.signature = ""
        #: Whether an allocated claim restricts the nodes (``available_on`` has a selector).
        self.selectors = False
        self.dra: Any = None

    def clone(self) -> "_StateData":
        return self


class DynamicResources(Plugin):
    """PreEnqueue, PreFilter, Filter, PostFilter, Reserve/Unreserve and PreBind on ResourceClaims."""

    name = NAME

    def __init__(self, args: dict | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        self.features = DEFAULT_FEATURES

    def dra(self) -> DraState:
        """The run's shared DRA state (claims, classes, slices, devices in use)."""
        snapshot = self.handle.snapshot() if self.handle is not None else None
        shared = getattr(snapshot, "shared", None)
        if shared is None:
            shared = {}
        state = shared.get(SHARED_KEY)
        if state is None:
            cluster = self.handle.cluster() if self.handle is not None else None
            state = shared[SHARED_KEY] = DraState(cluster, self.features)
        return state

    # ------------------------------------------------------------------ PreEnqueue
    def pre_enqueue(self, pod_info: "PodInfo") -> Status | None:
        if not _claims_of(pod_info):
            return None
        try:
            self.dra().pod_claims(pod_info.pod)
        except ClaimLookupError as err:
            return Status(Code.UnschedulableAndUnresolvable, str(err))
        return None

    # ------------------------------------------------------------------ PreFilter
    def pre_filter(
        self, state: "CycleState", pod_info: "PodInfo", nodes: list["NodeInfo"]
    ) -> "tuple[PreFilterResult | None, Status | None]":
        data = _StateData()
        state.write(STATE_KEY, data)
        if not _claims_of(pod_info):
            return None, Status(Code.Skip)
        dra = self.dra()
        try:
            claims = [claim for _, claim in dra.pod_claims(pod_info.pod)]
        except ClaimLookupError as err:
            return None, Status(Code.UnschedulableAndUnresolvable, str(err))
        if not claims:
            return None, Status(Code.Skip)
        available_on: list[NodeSelector | None] = []
        to_allocate: list[int] = []
        for index, claim in enumerate(claims):
            allocation = (claim.get("status") or {}).get("allocation")
            # upstream tests the pointer: an empty allocation ({}) is still an allocated claim
            if allocation is not None:
                selector = None
                if allocation.get("nodeSelector") is not None:
                    selector = NodeSelector((allocation.get("nodeSelector") or {}).get("nodeSelectorTerms"))
                    if selector.errors:
                        return None, Status(Code.Error, selector.error or "")
                available_on.append(selector)
                continue
            available_on.append(None)
            to_allocate.append(index)
            if dra.has_pending_allocation(in_flight_key(claim)):
                return None, Status(Code.UnschedulableAndUnresolvable,
                                    f"resource claim {claim_ref(claim)} is in the process of being allocated")
            status = self._validate_requests(dra, claim)
            if status is not None:
                return None, status
        if to_allocate:
            allocated = dra.allocated_devices()
            data.allocator = Allocator([claims[i] for i in to_allocate], allocated, dra.device_class, dra.slices,
                                       dra.cel, self.features)
            data.allocated = allocated
            data.signature = json.dumps([claims[i].get("spec") for i in to_allocate], sort_keys=True,
                                        separators=(",", ":"), default=str)
        data.to_allocate = to_allocate
        data.available_on = available_on
        data.selectors = any(selector is not None for selector in available_on)
        data.dra = dra
        data.allocations = [None] * len(claims)
        data.claims = claims
        return None, None

    def _validate_requests(self, dra: DraState, claim: dict) -> Status | None:
        for request in (((claim.get("spec") or {}).get("devices") or {}).get("requests") or ()):
            name = str(request.get("name") or "")
            if request.get("exactly") is not None:
                status = _validate_class(dra, (request.get("exactly") or {}).get("deviceClassName"), name)
            elif request.get("firstAvailable"):
                if not self.features.prioritized_list:
                    return Status(Code.UnschedulableAndUnresolvable,
                                  f"resource claim {claim_ref(claim)}, request {name}: has subrequests, but the "
                                  f"DRAPrioritizedList feature is disabled")
                status = None
                for sub in request["firstAvailable"]:
                    status = _validate_class(dra, (sub or {}).get("deviceClassName"), f"{name}/{sub.get('name', '')}")
                    if status is not None:
                        break
            else:
                status = Status(Code.UnschedulableAndUnresolvable,
                                f"resource claim {claim_ref(claim)}, request {name}: unknown request type")
            if status is not None:
                return status
        return None

    # ------------------------------------------------------------------ Filter
    def filter(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> Status | None:
        data = _state(state)
        if data is None:
            return Status(Code.Error, ERR_STATE_NOT_FOUND)
        if not data.claims:
            return None
        node = node_info.node
        unavailable = [i for i, selector in enumerate(data.available_on)
                       if selector is not None and not selector.match(node)] if data.selectors else ()
        allocator = data.allocator
        results = None
        if allocator is not None:
            # The allocator's answer is a function of the claims and of the node's pools and their
            # devices in use: replicas asking the same get it from the memo while no device of
            # the node's pools was allocated or freed since.
            dra = data.dra
            versions = dra.node_pool_versions(node_info.name, node)
            key = (data.signature, node_info.name)
            known = dra.allocation_memo.get(key) if versions is not None else None
            if known is not None and known[0] == versions:
                results = known[1]
            else:
                try:
                    results = allocator.allocate(node)
                except AllocationError as err:
                    return Status(Code.Error, str(err))
                if versions is not None:
                    memo = dra.allocation_memo
                    if len(memo) >= _MEMO_LIMIT:
                        memo.clear()
                    memo[key] = (versions, results)
            if results is None or len(results) != len(data.to_allocate):
                to_allocate = [data.claims[i] for i in data.to_allocate]
                return Status(Code.UnschedulableAndUnresolvable, ERR_CANNOT_ALLOCATE,
                              details={"devices": DeviceGap(dra, to_allocate, node, data.allocated)})
        display_only = state.display_only
        if unavailable:
            if not display_only:  # only a Filter call upstream makes marks claims for PostFilter
                data.unavailable.update(unavailable)
            return Status(Code.UnschedulableAndUnresolvable, ERR_NOT_AVAILABLE,
                          details={"claims": [claim_ref(data.claims[i]) for i in unavailable]})
        if results is not None:
            if not display_only:
                data.node_allocations[node_info.name] = results
            return Status(Code.Success, details={"allocations": _Described(data, results)})
        return None

    # ------------------------------------------------------------------ PostFilter
    def post_filter(
        self, state: "CycleState", pod_info: "PodInfo", filtered_node_status: Any
    ) -> "tuple[PostFilterResult | None, Status | None]":
        data = _state(state)
        if data is None:
            return None, Status(Code.Error, ERR_STATE_NOT_FOUND)
        if not data.claims:
            return None, Status(Code.Unschedulable, NO_NEW_CLAIMS_TO_DEALLOCATE)
        dra = self.dra()
        uid = pod_info.uid
        for index in sorted(data.unavailable):
            claim = data.claims[index]
            reserved = (claim.get("status") or {}).get("reservedFor") or []
            if len(reserved) == 0 or (len(reserved) == 1 and (reserved[0] or {}).get("uid") == uid):
                deallocated = copy.copy(claim)
                status = {k: v for k, v in (claim.get("status") or {}).items()
                          if k not in ("reservedFor", "allocation", "devices")}
                deallocated["status"] = status
                dra.update(deallocated)
                return None, Status(Code.Unschedulable, DEALLOCATION_COMPLETED,
                                    details={"claim": claim_ref(claim)})
        return None, Status(Code.Unschedulable, STILL_NOT_SCHEDULABLE)

    # ------------------------------------------------------------------ Reserve
    def reserve(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> Status | None:
        data = _state(state)
        if data is None:
            return Status(Code.Error, ERR_STATE_NOT_FOUND)
        if not data.claims or not data.to_allocate:
            return None
        results = data.node_allocations.get(node_name)
        if not results:
            return Status(Code.Error, CLAIM_ALLOCATION_NOT_FOUND)
        if len(results) != len(data.to_allocate):
            return Status(Code.Error, f"internal error, have {len(results)} allocations, {len(data.to_allocate)} "
                                      f"claims to allocate, want {len(data.to_allocate)} claims")
        dra = self.dra()
        for index, allocation in zip(data.to_allocate, results):
            allocation = copy.deepcopy(allocation)  # the memo may hand the same answer to the next pod
            data.allocations[index] = allocation
            claim = copy.copy(data.claims[index])
            meta = dict(claim.get("metadata") or {})
            finalizers = list(meta.get("finalizers") or ())
            if DELETE_PROTECTION_FINALIZER not in finalizers:
                meta["finalizers"] = finalizers + [DELETE_PROTECTION_FINALIZER]
            claim["metadata"] = meta
            claim["status"] = {**(claim.get("status") or {}), "allocation": allocation}
            dra.signal_pending_allocation(claim)
        return Status(Code.Success, details={"allocations": _described(data, results)})

    def unreserve(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> None:
        data = _state(state)
        if data is None or not data.claims:
            return
        dra = self.dra()
        for claim in data.claims:
            dra.remove_pending_allocation(in_flight_key(claim))
            allocated = (claim.get("status") or {}).get("allocation") is not None
            if allocated and is_reserved_for_pod(pod_info.pod, claim):
                latest = dra.get((claim.get("metadata") or {}).get("namespace") or "",
                                 (claim.get("metadata") or {}).get("name") or "") or claim
                updated = copy.copy(latest)
                status = dict(latest.get("status") or {})
                status["reservedFor"] = [r for r in status.get("reservedFor") or () if (r or {}).get("uid") != pod_info.uid]
                updated["status"] = status
                dra.update(updated)

    # ------------------------------------------------------------------ PreBind
    def pre_bind(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> Status | None:
        data = _state(state)
        if data is None:
            return Status(Code.Error, ERR_STATE_NOT_FOUND)
        if not data.claims:
            return None
        dra = self.dra()
        bound = []
        for index, claim in enumerate(data.claims):
            if is_reserved_for_pod(pod_info.pod, claim):
                continue
            allocation = data.allocations[index]
            meta = claim.get("metadata") or {}
            latest = dra.get(meta.get("namespace") or "", meta.get("name") or "") or claim
            updated = copy.copy(latest)
            status = dict(latest.get("status") or {})
            if allocation is not None:
                if status.get("allocation") is not None:
                    dra.remove_pending_allocation(in_flight_key(claim))
                    return Status(Code.Error, f"claim {claim_ref(claim)} got allocated elsewhere in the meantime")
                new_meta = dict(latest.get("metadata") or {})
                finalizers = list(new_meta.get("finalizers") or ())
                if DELETE_PROTECTION_FINALIZER not in finalizers:
                    new_meta["finalizers"] = finalizers + [DELETE_PROTECTION_FINALIZER]
                updated["metadata"] = new_meta
                status["allocation"] = allocation
            reserved = list(status.get("reservedFor") or ())
            reserved.append({"resource": "pods", "name": pod_info.name, "uid": pod_info.uid})
            if len(reserved) > RESERVED_FOR_MAX_SIZE:
                what = "add allocation and reservation to claim" if allocation is not None else "add reservation to claim"
                if allocation is not None:
                    dra.remove_pending_allocation(in_flight_key(claim))
                return Status(Code.Error, f'{what} {claim_ref(claim)}: ResourceClaim.resource.k8s.io '
                                          f'"{meta.get("name", "")}" is invalid: status.reservedFor: Too many: '
                                          f'{len(reserved)}: must have at most {RESERVED_FOR_MAX_SIZE} items')
            status["reservedFor"] = reserved
            updated["status"] = status
            dra.update(updated)
            if allocation is not None:
                dra.remove_pending_allocation(in_flight_key(claim))
            data.claims[index] = updated
            bound.append(claim_ref(updated))
        return Status(Code.Success, details={"reservedFor": bound}) if bound else None


def _state(state: "CycleState") -> _StateData | None:
    try:
        return state.read(STATE_KEY)
    except KeyError:
        return None


def _validate_class(dra: DraState, class_name: Any, request_name: str) -> Status | None:
    if not class_name:
        return Status(Code.Error, f"request {request_name}: unsupported request type")
    if dra.device_class(str(class_name)) is None:
        return Status(Code.UnschedulableAndUnresolvable,
                      f"request {request_name}: device class {class_name} does not exist")
    return None


class _Described:
    """``_described`` computed only when a report reads it (``jsonable`` calls ``to_dict``)."""

    __slots__ = ("data", "results")

    def __init__(self, data: _StateData, results: list[dict]) -> None:
        self.data = data
        self.results = results

    def to_dict(self) -> list[dict]:
        return _described(self.data, self.results)


def _described(data: _StateData, results: list[dict]) -> list[dict]:
    """The devices a node would give each claim (for reports)."""
    out = []
    for index, allocation in zip(data.to_allocate, results):
        devices = (allocation.get("devices") or {}).get("results") or []
        out.append({"claim": claim_ref(data.claims[index]),
                    "devices": [{k: r[k] for k in ("request", "driver", "pool", "device", "adminAccess") if k in r}
                                for r in devices]})
    return out


# -- facts --------------------------------------------------------------------------------------


def _claim_names(pod_info: Any) -> set[str]:
    pod = pod_info.pod
    names = set()
    statuses = {s.get("name"): s.get("resourceClaimName") for s in ((pod.get("status") or {}).get("resourceClaimStatuses") or ())
                if isinstance(s, dict)}
    for claim in ((pod.get("spec") or {}).get("resourceClaims") or ()):
        name = (claim or {}).get("resourceClaimName") or statuses.get((claim or {}).get("name"))
        if name:
            names.add(name)
    return names


def _schedulable_after_pod_added(pod_info: Any, other: Any, cluster: Any) -> str:
    # isSchedulableAfterClaimChange: placing a pod updates its claims (allocation, reservedFor),
    # which only matters to a pod using one of them.
    if other.namespace != pod_info.namespace:
        return QUEUE_SKIP
    return QUEUE if _claim_names(pod_info) & _claim_names(other) else QUEUE_SKIP


def _schedulable_after_claim_deallocated(pod_info: Any, other: Any, cluster: Any) -> str:
    # isSchedulableAfterClaimChange: a claim going from allocated to deallocated is Queue for a
    # pod whose claims can be looked up, whichever claim it was.
    return QUEUE if (pod_info.pod.get("spec") or {}).get("resourceClaims") else QUEUE_SKIP


def remedy(engine: RemedyEngine, scen: RemedyScenario, status: Status) -> Step | None:
    """What would flip this plugin's Filter verdict on the scenario's node (kschedctl.plugins.remedy)."""
    d = status.details or {}
    if d.get("claims"):
        # Advice only: an allocated claim's devices are where they are.
        return Step(f"cannot use claim {', '.join(d['claims'])} here: it is allocated to devices whose node "
                    f"selector excludes this node", [], {"claims": list(d["claims"])}, shortfall=1.0,
                    reasons=list(status.reasons))
    gap = d.get("devices")
    if not hasattr(gap, "requests"):
        return None
    requests = gap.requests()
    short = []
    missing = needed_total = 0
    for r in requests:
        needed = r["needed"]
        if needed == "All":
            continue
        needed_total += needed
        if r["free"] < needed:
            missing += needed - r["free"]
            short.append(f"{r['request']} needs {needed} free device{'s' if needed != 1 else ''} of class "
                         f"{r['deviceClass']}" + (" matching its selectors" if r["matching"] != r["ofClass"] else "")
                         + f", has {r['free']} ({r['matching']} match, {r['matching'] - r['free']} in use)")
    if short:
        text = "needs more devices: " + "; ".join(short)
    else:
        text = ("no combination of the node's free matching devices satisfies the claims (constraints such as "
                "matchAttribute, an All request, or requests competing for the same devices)")
    return Step(text, [], {"requests": [{k: v for k, v in r.items() if k != "text"} for r in requests]},
                shortfall=missing / max(needed_total, 1) if short else 1.0, reasons=list(status.reasons))


#: Feature gate DRASchedulerFilterTimeout (beta, on in v1.34): args default ``filterTimeout``.
DRA_SCHEDULER_FILTER_TIMEOUT = True


def default_config_args(a: dict[str, Any]) -> None:
    """``SetDefaults_DynamicResourcesArgs`` on a v1 args dict, in place."""
    if a.get("filterTimeout") is None and DRA_SCHEDULER_FILTER_TIMEOUT:
        a["filterTimeout"] = "10s"


def validate_config_args(path: str, a: dict[str, Any]) -> list[FieldError]:
    """``ValidateDynamicResourcesArgs``: upstream's field errors under ``path``."""
    errs: list[FieldError] = []
    timeout = a.get("filterTimeout")
    if DRA_SCHEDULER_FILTER_TIMEOUT:
        if timeout is not None:
            try:
                negative = parse_go_duration(str(timeout).strip()) < 0
            except ValueError:
                negative = False  # the decoder reports unreadable durations
            if negative:
                errs.append(invalid(child(path, "filterTimeout"), timeout, "must be zero or positive"))
    elif timeout is not None:  # pragma: no cover - gate on in v1.34
        errs.append(forbidden(child(path, "filterTimeout"), "DRASchedulingFilterTimeout feature gate is disabled"))
    return errs


FACTS = PluginFacts(
    name=DynamicResources.name,
    points=("preEnqueue", "preFilter", "filter", "postFilter", "reserve", "preBind"),
    # Claim events, not pod deletion: a pod placed updates its claims; a claim deallocated (by
    # PostFilter, or after its pod was deleted) is its own event.
    events={ASSIGNED_POD_ADD: _schedulable_after_pod_added,
            RESOURCE_CLAIM_DEALLOCATED: _schedulable_after_claim_deallocated},
    args=ArgsFacts("DynamicResourcesArgs", default_config_args, validate_config_args),
    remedy=remedy,
)
