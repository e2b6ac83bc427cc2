"""NodeVolumeLimits (upstream CSILimits): the node's CSI drivers must have attach slots left.

Upstream: pkg/scheduler/framework/plugins/nodevolumelimits/csi.go and utils.go (release-1.34).
- PreFilter is Skip unless the pod has a PVC, a generic ephemeral volume or an in-tree inline
  volume csi-translation-lib can migrate (AWS EBS, GCE PD, Azure Disk/File, Cinder, Portworx,
  vSphere).
- Filter counts unique volumes ("<driver>/<volume handle>") per CSI driver: the new pod's, those
  of the pods on the node, and the node's VolumeAttachments (attacher + the PV's volume handle)
  not already counted from a pod. A volume the node already has is not new. Limits are the
  CSINode's ``spec.drivers[].allocatable.count``; a driver without one is unlimited. Over the
  limit: Unschedulable "node(s) exceed max volume count".
- A claim resolves to its PV's CSI driver and handle; an in-tree PV or inline volume counts under
  its CSI driver when its plugin is migrated on the node: the node has a CSINode and the plugin
  is AWS EBS, GCE PD, Azure Disk or Cinder (always, in v1.34) or Portworx named in the CSINode's
  storage.alpha.kubernetes.io/migrated-plugins annotation; an unbound claim (or one whose PV is missing) counts under its StorageClass's
  provisioner with a handle made from a per-plugin random prefix and the claim's key.
- The new pod's missing claim is UnschedulableAndUnresolvable ("looking up PVC ns/name:
  persistentvolumeclaim "name" not found"); an existing pod's missing claim is not counted.
Differences from upstream: none known. Counts and limit per driver go to ``Status.details``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from kschedctl.framework.events import ASSIGNED_POD_DELETE, QUEUE, QUEUE_SKIP
from kschedctl.framework.interfaces import Plugin
from kschedctl.framework.status import Code, PreFilterResult, Status
from kschedctl.framework.twins import ColumnTwin
from kschedctl.plugins import names
from kschedctl.plugins.facts import PluginFacts
from kschedctl.plugins.remedy import RemedyEngine, RemedyScenario, Step
from kschedctl.plugins.volume_binding.binder import (
    IN_TREE_DRIVERS,
    IN_TREE_SOURCES,
    MIGRATED_PLUGINS_ANNOTATION,
    claim_class,
    claim_name_of,
    ephemeral_owner_error,
    is_csi_migration_on,
    meta,
    pvc_not_found,
    spec,
)

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = names.NODE_VOLUME_LIMITS

#: Filter reason when a driver's attach limit would be exceeded.
ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"

_ZONE_LABELS = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")


class _LookupError(Exception):
    """filterAttachableVolumes' error; ``not_found`` marks apierrors.IsNotFound."""

    def __init__(self, message: str, not_found: bool = False) -> None:
        super().__init__(message)
        self.not_found = not_found


class NodeVolumeLimits(Plugin):
    """PreFilter (Skip without attachable volumes) and Filter."""

    name = NAME

    def __init__(self, args: dict | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        # upstream rand.String(32): keeps unbound claims' made-up handles apart from real ones
        self.random_volume_id_prefix = os.urandom(16).hex()  # secrets.token_hex, without importing hmac
        self._limits_anywhere: tuple[Any, int, bool] | None = None

    def pre_filter(
        self, state: "CycleState", pod_info: "PodInfo", nodes: list["NodeInfo"]
    ) -> tuple[PreFilterResult | None, Status | None]:
        for volume in (pod_info.pod.get("spec") or {}).get("volumes") or ():
            if (volume.get("persistentVolumeClaim") is not None or volume.get("ephemeral") is not None
                    or _inline_source(volume) is not None):
                state.write(_NEW_VOLUMES_KEY, _NewVolumes())
                return None, None
        return None, Status(Code.Skip)

    def filter(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> Status | None:
        pod = pod_info.pod
        if not (pod.get("spec") or {}).get("volumes"):
            return None
        cluster = self.handle.cluster() if self.handle is not None else None
        node_name = node_info.name
        csinode = (getattr(cluster, "csinodes", None) or {}).get(node_name)

        found = self.new_volumes(state, cluster, pod, csinode)
        if isinstance(found, _LookupError):
            code = Code.UnschedulableAndUnresolvable if found.not_found else Code.Error
            return Status(code, str(found), error=None if found.not_found else found)
        if not found:
            return None
        limits = _volume_limits(csinode)
        if not limits:
            return None
        new_volumes = dict(found)  # the node's own volumes are taken out of it below

        attached: dict[str, str] = {}
        for other in node_info.pods:
            try:
                self._attachable_volumes(cluster, other.pod, csinode, False, attached)
            except _LookupError as err:
                return Status(Code.Error, str(err), error=err)
        attached_count: dict[str, int] = {}
        for unique_name, driver in attached.items():
            new_volumes.pop(unique_name, None)  # a volume already on the node is not new
            attached_count[driver] = attached_count.get(driver, 0) + 1
        for unique_name, driver in _volume_attachments(cluster, node_name).items():
            if unique_name not in attached:
                attached_count[driver] = attached_count.get(driver, 0) + 1

        new_count: dict[str, int] = {}
        for driver in new_volumes.values():
            new_count[driver] = new_count.get(driver, 0) + 1
        for driver, count in new_count.items():
            limit = limits.get(driver)
            if limit is None:
                continue
            current = attached_count.get(driver, 0)
            if current + count > limit:
                return Status(Code.Unschedulable, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,
                              details={"driver": driver, "attached": current, "new": count, "limit": limit})
        return None

    # --- volume resolution ----------------------------------------------------------------------

    def new_volumes(self, state: "CycleState", cluster: Any, pod: dict, csinode: dict | None) -> Any:
        """The new pod's "<driver>/<handle>" -> driver on a node with ``csinode`` (not to be
        changed), or the ``_LookupError`` resolving them raised. They depend on the node only
        through its CSINode's migration answers (is_csi_migration_on), and whether resolving
        raises not at all: resolved once per such answer in a cycle, not once per node."""
        try:
            known: _NewVolumes | None = state.read(_NEW_VOLUMES_KEY)
        except KeyError:
            known = None  # Filter asked without this plugin's PreFilter: resolved here, every time
        shape = None if csinode is None else ((meta(csinode).get("annotations") or {}).get(MIGRATED_PLUGINS_ANNOTATION) or "")
        found = known.by_shape.get(shape) if known is not None else None
        if found is None:
            resolved: dict[str, str] = {}
            try:
                self._attachable_volumes(cluster, pod, csinode, True, resolved)
                found = resolved
            except _LookupError as err:
                found = err
            if known is not None:
                known.by_shape[shape] = found
        return found

    def limits_anywhere(self, cluster: Any) -> bool:
        """Whether some CSINode of ``cluster`` sets an attach limit (kept per CSINode map)."""
        csinodes = getattr(cluster, "csinodes", None) or {}
        kept = self._limits_anywhere
        if kept is None or kept[0] is not csinodes or kept[1] != len(csinodes):
            kept = self._limits_anywhere = (csinodes, len(csinodes),
                                            any(_volume_limits(c) for c in csinodes.values()))
        return kept[2]

    def _attachable_volumes(self, cluster: Any, pod: dict, csinode: dict | None, new_pod: bool,
                            result: dict[str, str]) -> None:
        """filterAttachableVolumes: add "<driver>/<handle>" -> driver for the pod's volumes."""
        pvcs = getattr(cluster, "pvcs", None) or {}
        namespace = meta(pod).get("namespace") or ""
        for volume in (pod.get("spec") or {}).get("volumes") or ():
            claim, ephemeral = claim_name_of(pod, volume)
            if claim is None:
                self._inline_volume(volume, csinode, result)
                continue
            if not claim:
                raise _LookupError("PersistentVolumeClaim had no name")
            pvc = pvcs.get(f"{namespace}/{claim}")
            if pvc is None:
                if new_pod:
                    raise _LookupError(f"looking up PVC {namespace}/{claim}: {pvc_not_found(claim)}", not_found=True)
                continue  # an existing pod's missing claim is not counted
            if ephemeral:
                err = ephemeral_owner_error(pod, pvc)
                if err:
                    raise _LookupError(err)
            driver, handle = self._csi_driver_info(cluster, csinode, pvc)
            if not driver or not handle:
                continue
            result[f"{driver}/{handle}"] = driver

    def _inline_volume(self, volume: dict, csinode: dict | None, result: dict[str, str]) -> None:
        found = _inline_source(volume)
        if found is None:
            return
        key, source = found
        plugin, driver = IN_TREE_SOURCES[key]
        if not is_csi_migration_on(csinode, plugin):
            return
        handle = _translated_handle(key, source, None)
        if handle is None:
            return  # the translation gives no CSI source for this kind of inline volume
        result[f"{driver}/{handle}"] = driver

    def _csi_driver_info(self, cluster: Any, csinode: dict | None, pvc: dict) -> tuple[str, str]:
        pv_name = spec(pvc).get("volumeName") or ""
        if not pv_name:
            return self._csi_driver_info_from_sc(cluster, csinode, pvc)
        pv = (getattr(cluster, "pvs", None) or {}).get(pv_name)
        if pv is None:
            # deleted, or pre-bound to a PV not created yet: count by the storage class
            return self._csi_driver_info_from_sc(cluster, csinode, pvc)
        pv_spec = spec(pv)
        csi = pv_spec.get("csi")
        if csi is not None:
            return csi.get("driver") or "", csi.get("volumeHandle") or ""
        for key, (plugin, driver) in IN_TREE_SOURCES.items():
            source = pv_spec.get(key)
            if source is None:
                continue
            if not is_csi_migration_on(csinode, plugin):
                return "", ""
            handle = _translated_handle(key, source, pv)
            return (driver, handle) if handle else ("", "")
        return "", ""

    def _csi_driver_info_from_sc(self, cluster: Any, csinode: dict | None, pvc: dict) -> tuple[str, str]:
        sc_name = claim_class(pvc)
        if not sc_name:
            return "", ""  # no class: an Immediate claim that must be bound before scheduling
        sc = (getattr(cluster, "storage_classes", None) or {}).get(sc_name)
        if sc is None:
            return "", ""
        m = meta(pvc)
        handle = f"{self.random_volume_id_prefix}-{m.get('namespace') or ''}/{m.get('name') or ''}"
        provisioner = sc.get("provisioner") or ""
        if provisioner in IN_TREE_DRIVERS:
            if not is_csi_migration_on(csinode, provisioner):
                return "", ""
            return IN_TREE_DRIVERS[provisioner], handle
        return provisioner, handle


#: CycleState key of the new pod's volumes resolved so far in this cycle.
_NEW_VOLUMES_KEY = f"{NAME}/newVolumes"


class _NewVolumes:
    """The new pod's "<driver>/<handle>" -> driver (or the lookup error), per CSINode shape: None
    for a node without a CSINode, else its migrated-plugins annotation. Shared by clones: the pod
    does not change within a cycle."""

    __slots__ = ("by_shape",)

    def __init__(self) -> None:
        self.by_shape: dict[str | None, dict[str, str] | _LookupError] = {}

    def clone(self) -> "_NewVolumes":
        return self


def _inline_source(volume: dict) -> tuple[str, dict] | None:
    """The in-tree source of an inline volume csi-translation-lib can migrate (IsInlineMigratable)."""
    for key in IN_TREE_SOURCES:
        source = volume.get(key)
        if source is not None:
            return key, source
    return None


def _translated_handle(key: str, source: dict, pv: dict | None) -> str | None:
    """The CSI volume handle csi-translation-lib gives an in-tree source (None: no CSI source)."""
    if key == "awsElasticBlockStore":
        volume_id = source.get("volumeID") or ""
        # KubernetesVolumeIDToEBSVolumeID: "aws://<zone>/<id>" -> "<id>"
        return volume_id.rsplit("/", 1)[-1] if volume_id.startswith("aws://") else volume_id
    if key == "gcePersistentDisk":
        pd_name = source.get("pdName") or ""
        labels = meta(pv).get("labels") or {}
        zone_value = next((labels[k] for k in _ZONE_LABELS if k in labels), "")
        zones = [z for z in zone_value.split("__") if z] if zone_value else []
        if len(zones) > 1:
            region = zones[0].rsplit("-", 1)[0]
            return f"projects/UNSPECIFIED/regions/{region}/disks/{pd_name}"
        zone = zones[0] if zones else "UNSPECIFIED"
        return f"projects/UNSPECIFIED/zones/{zone}/disks/{pd_name}"
    if key == "azureDisk":
        return source.get("diskURI") or ""
    if key in ("cinder", "portworxVolume"):
        return source.get("volumeID") or ""
    if key == "vsphereVolume":
        return source.get("volumePath") or ""
    if key == "azureFile":
        return source.get("shareName") or ""
    return None


def _volume_limits(csinode: dict | None) -> dict[str, int]:
    """getVolumeLimits: driver -> spec.drivers[].allocatable.count of the node's CSINode."""
    limits: dict[str, int] = {}
    if csinode is None:
        return limits
    for driver in spec(csinode).get("drivers") or ():
        count = (driver.get("allocatable") or {}).get("count")
        if count is not None:
            limits[driver.get("name") or ""] = int(count)
    return limits


def _volume_attachments(cluster: Any, node_name: str) -> dict[str, str]:
    """getNodeVolumeAttachmentInfo: "<attacher>/<PV volume handle>" -> attacher for the node's
    VolumeAttachments of CSI PVs."""
    out: dict[str, str] = {}
    pvs = getattr(cluster, "pvs", None) or {}
    for va in (getattr(cluster, "volume_attachments", None) or {}).values():
        va_spec = spec(va)
        if (va_spec.get("nodeName") or "") != node_name:
            continue
        attacher = va_spec.get("attacher") or ""
        pv_name = (va_spec.get("source") or {}).get("persistentVolumeName")
        if not attacher or not pv_name:
            continue
        csi = spec(pvs.get(pv_name)).get("csi")
        if csi is None:
            continue
        out[f"{attacher}/{csi.get('volumeHandle') or ''}"] = attacher
    return out


# -- facts --------------------------------------------------------------------------------------


#: Volume sources nodevolumelimits counts: claims, ephemeral volumes, and the inline in-tree
#: sources csi-translation-lib v0.34 migrates to CSI (IsInlineMigratable).
_LIMITED_VOLUME_KEYS = frozenset({"persistentVolumeClaim", "ephemeral", "gcePersistentDisk", "awsElasticBlockStore",
                                  "cinder", "azureDisk", "azureFile", "vsphereVolume", "portworxVolume"})


def _schedulable_after_pod_deleted(pod_info: Any, other: Any, cluster: Any) -> str:
    # (CSI) isSchedulableAfterPodDeleted: a placed or nominated pod with a volume that counts
    # against a limit.
    volumes = (other.pod.get("spec") or {}).get("volumes") or ()
    if not volumes or not (other.node_name or other.nominated_node_name):
        return QUEUE_SKIP
    counted = any(isinstance(v, dict) and not _LIMITED_VOLUME_KEYS.isdisjoint(v) for v in volumes)
    return QUEUE if counted else QUEUE_SKIP


def remedy(engine: RemedyEngine, scen: RemedyScenario, status: Status) -> Step | None:
    """What would flip this plugin's Filter verdict on the scenario's node (kschedctl.plugins.remedy)."""
    d = status.details or {}
    if "limit" not in d:
        return None
    over = d["attached"] + d["new"] - d["limit"]
    return Step(f"needs room for {over} more {d['driver']} volume{'s' if over != 1 else ''} "
                f"({d['attached']} attached + {d['new']} new > limit {d['limit']})",
                [{"kind": "raiseVolumeLimit", "node": scen.name, "driver": d["driver"],
                  "to": d["attached"] + d["new"]}],
                dict(d), shortfall=over / max(d["limit"], 1), reasons=list(status.reasons))


FACTS = PluginFacts(
    name=NodeVolumeLimits.name,
    points=("preFilter", "filter"),
    events={ASSIGNED_POD_DELETE: _schedulable_after_pod_deleted},
    remedy=remedy,
    twin=ColumnTwin("kschedctl.plugins.node_volume_limits_columns", ("filter",)),
)
