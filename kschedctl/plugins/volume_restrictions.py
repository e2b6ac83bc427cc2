"""VolumeRestrictions: disks that cannot be shared, and ReadWriteOncePod claims already in use.

Upstream: pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go (release-1.34).
- Disk conflicts (Filter, Unschedulable "node(s) had no available disk"): the same GCE PD unless
  both mounts are read-only, the same AWS EBS volume ID, the same iSCSI IQN unless both are
  read-only, the same Ceph RBD image (a shared monitor, same pool and image) unless both are
  read-only, against every pod on the node.
- ReadWriteOncePod (Filter, Unschedulable "node(s) unavailable due to PersistentVolumeClaim with
  ReadWriteOncePod access mode already in-use by another pod", v1.34.4's text): PreFilter looks up every PVC of the pod (a missing one
  is UnschedulableAndUnresolvable with the lister's "not found" text) and counts the
  ReadWriteOncePod ones that a scheduled pod already uses; any such use rejects every node (the
  claim can move only by preemption, which the AddPod/RemovePod extensions account for).
- PreFilter is Skip when the pod has no volume of the four disk kinds and no ReadWriteOncePod
  claim in use.
- Events: a removed pod (Pod/Delete) queues a pod it rejected only when the removed pod shares
  one of its claims or a conflicting disk, in its namespace (isSchedulableAfterPodDeleted).
  Node/Add and PersistentVolumeClaim/Add are upstream's other events; a batch adds neither.
Differences from upstream: none known. The claim or disk that conflicts goes to ``Status.details``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from kschedctl.framework.events import ASSIGNED_POD_DELETE, QUEUE, QUEUE_SKIP
from kschedctl.framework.interfaces import Plugin
from kschedctl.framework.status import Code, PreFilterResult, Status
from kschedctl.plugins import names
from kschedctl.plugins.facts import PluginFacts
from kschedctl.plugins.remedy import RemedyEngine, RemedyScenario, Step, pods_text
from kschedctl.plugins.volume_binding.binder import pvc_not_found, spec

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = names.VOLUME_RESTRICTIONS

#: Filter reason for a disk that another pod on the node mounts.
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
#: Filter reason for a ReadWriteOncePod claim already used by a scheduled pod.
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"
)

#: CycleState key (upstream "PreFilter" + Name).
PRE_FILTER_STATE_KEY = "PreFilter" + NAME

_DISK_KINDS = ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")


class _PreFilterState:
    """The pod's ReadWriteOncePod claim names and how many scheduled pods use them."""

    __slots__ = ("rwop_claims", "conflicting_ref_count")

    def __init__(self, rwop_claims: frozenset[str], conflicting_ref_count: int) -> None:
        self.rwop_claims = rwop_claims
        self.conflicting_ref_count = conflicting_ref_count

    def count_for_pod(self, pod_info: "PodInfo") -> int:
        return sum(1 for claim in pod_info.pvc_names if claim in self.rwop_claims)

    def clone(self) -> "_PreFilterState":
        return _PreFilterState(self.rwop_claims, self.conflicting_ref_count)


class VolumeRestrictions(Plugin):
    """PreFilter (+ AddPod/RemovePod) and Filter."""

    name = NAME

    def pre_filter(
        self, state: "CycleState", pod_info: "PodInfo", nodes: list["NodeInfo"]
    ) -> tuple[PreFilterResult | None, Status | None]:
        volumes = (pod_info.pod.get("spec") or {}).get("volumes") or ()
        needs_check = any(_needs_restrictions_check(v) for v in volumes)
        cluster = self.handle.cluster() if self.handle is not None else None
        pvcs = getattr(cluster, "pvcs", None) or {}
        rwop: set[str] = set()
        for claim in pod_info.pvc_names:
            pvc = pvcs.get(f"{pod_info.namespace}/{claim}")
            if pvc is None:
                return None, Status(Code.UnschedulableAndUnresolvable, pvc_not_found(claim),
                                    details={"claim": f"{pod_info.namespace}/{claim}"})
            if "ReadWriteOncePod" in (spec(pvc).get("accessModes") or ()):
                rwop.add(claim)
        snapshot = self.handle.snapshot() if self.handle is not None else None
        conflicts = 0
        for claim in rwop:
            # at most one pod can use a ReadWriteOncePod claim
            if snapshot is not None and snapshot.is_pvc_used_by_pods(f"{pod_info.namespace}/{claim}"):
                conflicts += 1
        if not needs_check and conflicts == 0:
            return None, Status(Code.Skip)
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(frozenset(rwop), conflicts))
        return None, None

    def add_pod(
        self, state: "CycleState", pod_info: "PodInfo", pod_info_to_add: "PodInfo", node_info: "NodeInfo"
    ) -> Status | None:
        return self._update(state, pod_info_to_add, 1)

    def remove_pod(
        self, state: "CycleState", pod_info: "PodInfo", pod_info_to_remove: "PodInfo", node_info: "NodeInfo"
    ) -> Status | None:
        return self._update(state, pod_info_to_remove, -1)

    def _update(self, state: "CycleState", other: "PodInfo", sign: int) -> Status | None:
        try:
            s: _PreFilterState = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return Status(Code.Error, f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')
        s.conflicting_ref_count += sign * s.count_for_pod(other)
        return None

    def filter(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> Status | None:
        conflict = _volume_conflict(pod_info, node_info.pods)
        if conflict is not None:
            return Status(Code.Unschedulable, ERR_REASON_DISK_CONFLICT, details=conflict)
        try:
            s: _PreFilterState = state.read(PRE_FILTER_STATE_KEY)
        except KeyError as err:
            return Status(Code.Error, f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState', error=err)
        if s.conflicting_ref_count > 0:
            return Status(Code.Unschedulable, ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,
                          details={"claims": sorted(s.rwop_claims)})
        return None


def _needs_restrictions_check(volume: dict) -> bool:
    return any(volume.get(kind) is not None for kind in _DISK_KINDS)


def _volume_conflict(pod_info: "PodInfo", pods: Iterable["PodInfo"]) -> dict | None:
    """satisfyVolumeConflicts against ``pods`` (a node's): the first (volume, pod) that conflicts,
    as details, or None."""
    for volume in (pod_info.pod.get("spec") or {}).get("volumes") or ():
        if not _needs_restrictions_check(volume):
            continue
        for other in pods:
            if _is_volume_conflict(volume, other.pod):
                return {"volume": volume.get("name") or "", "pod": other.key}
    return None


def _is_volume_conflict(volume: dict, pod: dict) -> bool:
    gce, ebs, iscsi, rbd = (volume.get(k) for k in ("gcePersistentDisk", "awsElasticBlockStore", "iscsi", "rbd"))
    for existing in (pod.get("spec") or {}).get("volumes") or ():
        e_gce = existing.get("gcePersistentDisk")
        if gce is not None and e_gce is not None:
            if gce.get("pdName") == e_gce.get("pdName") and not (gce.get("readOnly") and e_gce.get("readOnly")):
                return True
        e_ebs = existing.get("awsElasticBlockStore")
        if ebs is not None and e_ebs is not None:
            if ebs.get("volumeID") == e_ebs.get("volumeID"):
                return True
        e_iscsi = existing.get("iscsi")
        if iscsi is not None and e_iscsi is not None:
            if iscsi.get("iqn") == e_iscsi.get("iqn") and not (iscsi.get("readOnly") and e_iscsi.get("readOnly")):
                return True
        e_rbd = existing.get("rbd")
        if rbd is not None and e_rbd is not None:
            if (
                set(rbd.get("monitors") or ()) & set(e_rbd.get("monitors") or ())
                # the API server defaults an empty pool to "rbd"
                and (rbd.get("pool") or "rbd") == (e_rbd.get("pool") or "rbd")
                and (rbd.get("image") or "") == (e_rbd.get("image") or "")
                and not (rbd.get("readOnly") and e_rbd.get("readOnly"))
            ):
                return True
    return False


# -- facts --------------------------------------------------------------------------------------


def remedy(engine: RemedyEngine, scen: RemedyScenario, status: Status) -> Step | None:
    """What would flip this plugin's Filter verdict on the scenario's node (kschedctl.plugins.remedy)."""
    d = status.details or {}
    if d.get("pod"):
        pods = [d["pod"]]
        text = f"needs {d['pod']} gone (it uses the same disk as volume {d.get('volume')})"
    elif d.get("claims"):
        # The claims are names in the pod's namespace; a scheduled pod using one holds it.
        ns = engine.pod_info.namespace
        claims = {f"{ns}/{c}" for c in d["claims"]}
        memo_key = ("rwop", tuple(sorted(claims)))
        users = engine.memo.get(memo_key)
        if users is None:
            users = engine.memo[memo_key] = sorted(
                pi.key for ni in engine.snapshot.node_infos() for pi in ni.pods if claims & set(pi.pvc_keys))
        pods = [k for k in users if k not in scen.removed]
        if not pods:
            return None
        text = f"needs {pods_text(pods)} gone (ReadWriteOncePod claim {', '.join(sorted(claims))} in use)"
    else:
        return None
    return Step(text, [{"kind": "removePods", "pods": pods}], dict(d), shortfall=len(pods) / max(
        len(scen.node_info.pods), 1), reasons=list(status.reasons))


def _schedulable_after_pod_deleted(pod_info: Any, other: Any, cluster: Any) -> str:
    # isSchedulableAfterPodDeleted: a removed pod of the namespace that mounted a disk the pod
    # conflicts on, or used one of the pod's claims (by name: upstream does not look the claim
    # up to see whether it is ReadWriteOncePod); any other removal leaves the pod where it is.
    if other.namespace != pod_info.namespace:
        return QUEUE_SKIP
    if _volume_conflict(pod_info, (other,)) is not None:  # upstream: a NodeInfo of the removed pod alone
        return QUEUE
    claims = set(pod_info.pvc_names)
    if claims and not claims.isdisjoint(other.pvc_names):
        return QUEUE
    return QUEUE_SKIP


FACTS = PluginFacts(
    name=VolumeRestrictions.name,
    points=("preFilter", "filter"),
    events={ASSIGNED_POD_DELETE: _schedulable_after_pod_deleted},
    remedy=remedy,
)
