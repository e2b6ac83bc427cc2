"""VolumeBinding: the pod's PersistentVolumeClaims must be bound, bindable or provisionable on the node.

Upstream: pkg/scheduler/framework/plugins/volumebinding/volume_binding.go and binder.go
(release-1.34); the binder logic lives in ``volume_binding.binder``.
- PreFilter: a pod with no PVC (or generic ephemeral) volume is Skip. A missing claim
  (``persistentvolumeclaim "x" not found``; for an ephemeral volume "waiting for ephemeral volume
  controller to create the persistentvolumeclaim ..."), a Lost claim, a claim being deleted or an
  ephemeral claim the pod does not own is UnschedulableAndUnresolvable for the whole pod. Unbound
  claims with Immediate binding (or pre-bound but not yet bound) give UnschedulableAndUnresolvable
  "pod has unbound immediate PersistentVolumeClaims".
- Filter: bound claims' PVs must exist and match the node ("node(s) had volume node affinity
  conflict", "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)");
  WaitForFirstConsumer claims need an available PV ("node(s) didn't find available persistent
  volumes to bind") or a provisioner whose allowedTopologies admit the node. All reasons of a
  node are UnschedulableAndUnresolvable.
- PreScore is Skip and Score 0: capacity scoring (StorageCapacityScoring) is alpha, off in v1.34.
- Reserve and PreBind write nothing: their Success status carries in ``details`` the bindings
  and provisionings upstream would make.
Differences from upstream: see ``volume_binding.binder`` (CSIStorageCapacity not modelled,
in-tree PVs not translated to CSI). Which claim or PV failed goes to ``Status.details``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kschedctl.framework.interfaces import Plugin
from kschedctl.framework.status import Code, PreFilterResult, Status
from kschedctl.framework.twins import ColumnTwin
from kschedctl.k8s.field import FieldError, child, invalid
from kschedctl.plugins import names
from kschedctl.plugins.facts import ArgsFacts, PluginFacts
from kschedctl.plugins.helper import int_field
from kschedctl.plugins.remedy import RemedyEngine, RemedyScenario, Step
from kschedctl.plugins.resource_allocation import MAX_CUSTOM_PRIORITY_SCORE, validate_shape
from kschedctl.plugins.volume_binding.binder import (
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_PV_NOT_EXIST,
    BinderError,
    BoundVolume,
    PodVolumeClaims,
    PodVolumes,
    VolumeBinder,
    claim_name_of,
    ephemeral_owner_error,
    meta,
    pvc_key,
    pvc_not_found,
    spec,
)

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = names.VOLUME_BINDING

#: PreFilter reason when an Immediate claim is not bound yet.
ERR_REASON_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"

#: CycleState key (upstream stateKey = Name).
STATE_KEY = NAME


def bound_volume_rejection(volume: BoundVolume) -> Status:
    """Filter's status on a node ``volume`` (a bound claim) does not admit: its PV is missing,
    or the PV's node affinity does not match the node."""
    reason = ERR_REASON_PV_NOT_EXIST if volume.matches is None else ERR_REASON_NODE_CONFLICT
    return Status(Code.UnschedulableAndUnresolvable, reason,
                  details={"claim": pvc_key(volume.claim), "volume": volume.pv_name})


class _StateData:
    """What PreFilter found and Filter / Reserve add (shared by clones, as upstream's pointer)."""

    __slots__ = ("claims", "pod_volumes_by_node", "all_bound", "bound_only")

    def __init__(self, claims: PodVolumeClaims | None, bound_only: list[BoundVolume] | None = None) -> None:
        self.claims = claims
        self.pod_volumes_by_node: dict[str, PodVolumes] = {}
        self.all_bound = False
        #: When every claim is bound: each as Filter checks it (``VolumeBinder.bound_volumes``).
        self.bound_only = bound_only

    def clone(self) -> "_StateData":
        return self


class VolumeBinding(Plugin):
    """PreFilter, Filter, PreScore, Score, Reserve and PreBind on the pod's PVCs (read-only)."""

    name = NAME

    def __init__(self, args: dict | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        args = args or {}
        #: bindTimeoutSeconds (default 600): kept for reports; nothing waits here.
        self.bind_timeout_seconds = int(args.get("bindTimeoutSeconds", 600))

    def _binder(self) -> VolumeBinder:
        return VolumeBinder(self.handle.cluster() if self.handle is not None else None)

    # --- PreFilter / Filter ---------------------------------------------------------------------

    def pre_filter(
        self, state: "CycleState", pod_info: "PodInfo", nodes: list["NodeInfo"]
    ) -> tuple[PreFilterResult | None, Status | None]:
        binder = self._binder()
        pod = pod_info.pod
        has_pvc, error, details = _pod_has_pvcs(binder, pod)
        if error is not None:
            return None, Status(Code.UnschedulableAndUnresolvable, error, details=details)
        if not has_pvc:
            state.write(STATE_KEY, _StateData(None))
            return None, Status(Code.Skip)
        try:
            claims = binder.get_pod_volume_claims(pod)
        except BinderError as err:
            return None, Status(Code.Error, str(err), error=err)
        if claims.unbound_claims_immediate:
            return None, Status(
                Code.UnschedulableAndUnresolvable,
                ERR_REASON_UNBOUND_IMMEDIATE,
                details={"claims": [_key(c) for c in claims.unbound_claims_immediate]},
            )
        state.write(STATE_KEY, _StateData(claims, binder.bound_volumes(claims)))
        return None, None

    def filter(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> Status | None:
        try:
            data: _StateData = state.read(STATE_KEY)
        except KeyError as err:
            return Status(Code.Error, f'reading "{STATE_KEY}" from cycleState: not found', error=err)
        if data.claims is None:
            # pod without claims (PreFilter returned Skip): nothing to check
            return None
        bound_only = data.bound_only
        if bound_only is not None:
            # every claim bound: only the PVs' node affinity against the node's labels is asked,
            # as FindPodVolumes asks it (the claims and PVs were looked up once, in PreFilter)
            labels = node_info.labels
            for volume in bound_only:
                if volume.matches is None or not volume.matches(labels):
                    return bound_volume_rejection(volume)
            data.pod_volumes_by_node[node_info.name] = PodVolumes()
            return None
        try:
            pod_volumes, reasons, details = self._binder().find_pod_volumes(pod_info.pod, data.claims, node_info.node or {})
        except BinderError as err:
            return Status(Code.Error, str(err), error=err)
        if reasons:
            return Status(Code.UnschedulableAndUnresolvable, *reasons, details=details or None)
        data.pod_volumes_by_node[node_info.name] = pod_volumes
        return None

    # --- PreScore / Score -----------------------------------------------------------------------

    def pre_score(self, state: "CycleState", pod_info: "PodInfo", nodes: list["NodeInfo"]) -> Status | None:
        # No scorer in v1.34 defaults (StorageCapacityScoring is alpha): Score never runs.
        return Status(Code.Skip)

    def score(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status | None]:
        return 0, None

    # --- Reserve / PreBind ----------------------------------------------------------------------

    def reserve(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> Status | None:
        try:
            data: _StateData = state.read(STATE_KEY)
        except KeyError as err:
            return Status(Code.Error, f'reading "{STATE_KEY}" from cycleState: not found', error=err)
        pod_volumes = data.pod_volumes_by_node.get(node_name)
        if pod_volumes is None:
            data.all_bound = True  # the pod references no PVC
            return None
        data.all_bound = self._binder().are_pod_volumes_bound(pod_info.pod)
        if data.all_bound:
            return None
        return Status(Code.Success, details={"assumed": pod_volumes.describe(), "node": node_name})

    def unreserve(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> None:
        return None  # nothing was assumed in any cache

    def pre_bind(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> Status | None:
        try:
            data: _StateData = state.read(STATE_KEY)
        except KeyError as err:
            return Status(Code.Error, f'reading "{STATE_KEY}" from cycleState: not found', error=err)
        if data.all_bound:
            return None
        pod_volumes = data.pod_volumes_by_node.get(node_name)
        if pod_volumes is None:
            return Status(Code.Error, f'no pod volumes found for node "{node_name}"')
        # Upstream updates the PVs/PVCs and waits for the PV controller; kschedctl only reports.
        return Status(Code.Success, details={"wouldBind": pod_volumes.describe(), "node": node_name})


def _key(pvc: dict) -> str:
    m = meta(pvc)
    return f"{m.get('namespace') or ''}/{m.get('name') or ''}"


def _pod_has_pvcs(binder: VolumeBinder, pod: dict) -> tuple[bool, str | None, dict | None]:
    """podHasPVCs: (has a PVC, the error text, details); stops at the first bad claim."""
    has = False
    namespace = meta(pod).get("namespace") or ""
    pvcs = binder._pvcs()
    for volume in spec(pod).get("volumes") or ():
        name, ephemeral = claim_name_of(pod, volume)
        if name is None:
            continue
        has = True
        pvc = pvcs.get(f"{namespace}/{name}")
        details = {"claim": f"{namespace}/{name}"}
        if pvc is None:
            if ephemeral:
                return has, f'waiting for ephemeral volume controller to create the persistentvolumeclaim "{name}"', details
            return has, pvc_not_found(name), details
        if ((pvc.get("status") or {}).get("phase") or "") == "Lost":
            volume_name = spec(pvc).get("volumeName") or ""
            return has, f'persistentvolumeclaim "{name}" bound to non-existent persistentvolume "{volume_name}"', details
        if meta(pvc).get("deletionTimestamp") is not None:
            return has, f'persistentvolumeclaim "{name}" is being deleted', details
        if ephemeral:
            err = ephemeral_owner_error(pod, pvc)
            if err:
                return has, err, details
    return has, None, None


# -- facts --------------------------------------------------------------------------------------


def remedy(engine: RemedyEngine, scen: RemedyScenario, status: Status) -> Step | None:
    """What would flip this plugin's Filter verdict on the scenario's node (kschedctl.plugins.remedy)."""
    d = status.details or {}
    facts = []
    if d.get("claim") and d.get("volume"):
        facts.append(f"claim {d['claim']} is bound to PersistentVolume {d['volume']}, whose node affinity "
                     f"excludes this node")
    elif d.get("claim") and d.get("selectedNode"):
        facts.append(f"claim {d['claim']} is already being provisioned for node {d['selectedNode']}")
    if d.get("unmatchedClaims"):
        facts.append(f"no available PersistentVolume for {', '.join(d['unmatchedClaims'])} fits this node")
    if not facts:
        return None
    # Advice only: volumes cannot be moved by a label change kschedctl could check.
    return Step("cannot get its volumes here: " + "; ".join(facts), [], dict(d), shortfall=1.0,
                reasons=list(status.reasons))


#: Feature gate StorageCapacityScoring (alpha, off in v1.34): args get a ``shape``, Score scores.
STORAGE_CAPACITY_SCORING = False


def default_config_args(a: dict[str, Any]) -> None:
    """``SetDefaults_VolumeBindingArgs`` on a v1 args dict, in place."""
    if a.get("bindTimeoutSeconds") is None:
        a["bindTimeoutSeconds"] = 600
    if not a.get("shape") and STORAGE_CAPACITY_SCORING:  # pragma: no cover - gate off in v1.34
        a["shape"] = [{"utilization": 0, "score": MAX_CUSTOM_PRIORITY_SCORE}, {"utilization": 100, "score": 0}]


def validate_config_args(path: str, a: dict[str, Any]) -> list[FieldError]:
    """``ValidateVolumeBindingArgs``: upstream's field errors under ``path``."""
    errs: list[FieldError] = []
    t = int_field(a, "bindTimeoutSeconds")
    if t < 0:
        errs.append(invalid(child(path, "bindTimeoutSeconds"), t,
                            "invalid BindTimeoutSeconds, should not be a negative value"))
    shape = a.get("shape")
    if STORAGE_CAPACITY_SCORING:  # pragma: no cover - gate off in v1.34
        errs.extend(validate_shape(shape, child(path, "shape")))
    elif shape is not None:
        errs.append(invalid(child(path, "shape"), shape,
                            "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring"))
    return errs


FACTS = PluginFacts(
    name=VolumeBinding.name,
    points=("preFilter", "filter", "preScore", "score", "reserve", "preBind"),
    # Only node events (or updates of the pod itself) can help; a batch has none.
    events={},
    args=ArgsFacts("VolumeBindingArgs", default_config_args, validate_config_args),
    remedy=remedy,
    twin=ColumnTwin("kschedctl.plugins.volume_binding.columns", ("filter",)),
)
