"""The scheduler's volume binder, read-only: which PVs a pod's claims would bind to on a node.

Upstream: pkg/scheduler/framework/plugins/volumebinding/binder.go (GetPodVolumeClaims,
FindPodVolumes, checkBoundClaims, findMatchingVolumes, checkVolumeProvisions) and
k8s.io/component-helpers/storage/volume (pv_helpers.go FindMatchingVolume, CheckAccessModes,
CheckVolumeModeMismatches, IsVolumeBoundToClaim, IsDelayBindingMode; helpers.go
GetPersistentVolume(Claim)Class, CheckNodeAffinity), k8s.io/component-helpers/storage/ephemeral,
release-1.34. Also the storage helpers the other volume plugins share (claim class, not-found
texts as the informer listers word them, in-tree plugin names, CSI migration annotation).

Nothing here writes: where upstream assumes a PV binding or a provisioning in its caches, the
binder only returns what it would do.

Known differences from upstream:
- CSIStorageCapacity objects are not read (the cluster state has none): a claim to provision
  always has "enough capacity" (upstream checks it when the CSIDriver has storageCapacity: true).
- In-tree PVs whose plugin is migrated to CSI on the node are checked with their node affinity
  as written; upstream first translates them to CSI (which rewrites zone keys to the driver's).
- PVs of a class are considered in input order; upstream's cache order is unspecified, which only
  matters when two matching PVs have the same size.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, NamedTuple

from kschedctl.k8s.quantity import parse_quantity
from kschedctl.k8s.node_selectors import NodeSelector, match_any_labels
from kschedctl.k8s.selectors import label_selector

# --- reasons (binder.go ConflictReason) -----------------------------------------------------------

ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"

# --- annotations and well-known names --------------------------------------------------------------

ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"
MIGRATED_PLUGINS_ANNOTATION = "storage.alpha.kubernetes.io/migrated-plugins"

AWS_EBS_PLUGIN = "kubernetes.io/aws-ebs"
GCE_PD_PLUGIN = "kubernetes.io/gce-pd"
AZURE_DISK_PLUGIN = "kubernetes.io/azure-disk"
CINDER_PLUGIN = "kubernetes.io/cinder"
PORTWORX_PLUGIN = "kubernetes.io/portworx-volume"
AZURE_FILE_PLUGIN = "kubernetes.io/azure-file"
VSPHERE_PLUGIN = "kubernetes.io/vsphere-volume"

#: csi-translation-lib: volume source field -> (in-tree plugin name, CSI driver name).
IN_TREE_SOURCES: dict[str, tuple[str, str]] = {
    "awsElasticBlockStore": (AWS_EBS_PLUGIN, "ebs.csi.aws.com"),
    "gcePersistentDisk": (GCE_PD_PLUGIN, "pd.csi.storage.gke.io"),
    "azureDisk": (AZURE_DISK_PLUGIN, "disk.csi.azure.com"),
    "cinder": (CINDER_PLUGIN, "cinder.csi.openstack.org"),
    "portworxVolume": (PORTWORX_PLUGIN, "pxd.portworx.com"),
    "azureFile": (AZURE_FILE_PLUGIN, "file.csi.azure.com"),
    "vsphereVolume": (VSPHERE_PLUGIN, "csi.vsphere.vmware.com"),
}
#: In-tree plugin name -> CSI driver name (GetCSINameFromInTreeName).
IN_TREE_DRIVERS: dict[str, str] = {plugin: driver for plugin, driver in IN_TREE_SOURCES.values()}
#: Plugins whose migration the scheduler honours in v1.34 (CSIMigrationPortworx is on by default).
MIGRATION_ON_PLUGINS = frozenset({AWS_EBS_PLUGIN, GCE_PD_PLUGIN, AZURE_DISK_PLUGIN, CINDER_PLUGIN, PORTWORX_PLUGIN})


# --- small helpers shared by the volume plugins ----------------------------------------------------


def meta(obj: dict | None) -> dict:
    return (obj or {}).get("metadata") or {}


def spec(obj: dict | None) -> dict:
    return (obj or {}).get("spec") or {}


def not_found(resource: str, name: str) -> str:
    """apierrors.NewNotFound(...).Error() as the informer listers word it (singular resource)."""
    return f'{resource} "{name}" not found'


def pvc_not_found(name: str) -> str:
    return not_found("persistentvolumeclaim", name)


def claim_class(pvc: dict) -> str:
    """GetPersistentVolumeClaimClass: the beta annotation wins over spec.storageClassName."""
    annotations = meta(pvc).get("annotations") or {}
    if BETA_STORAGE_CLASS_ANNOTATION in annotations:
        return annotations[BETA_STORAGE_CLASS_ANNOTATION]
    return spec(pvc).get("storageClassName") or ""


def volume_class(pv: dict) -> str:
    """GetPersistentVolumeClass."""
    annotations = meta(pv).get("annotations") or {}
    if BETA_STORAGE_CLASS_ANNOTATION in annotations:
        return annotations[BETA_STORAGE_CLASS_ANNOTATION]
    return spec(pv).get("storageClassName") or ""


def ephemeral_claim_name(pod: dict, volume: dict) -> str:
    """ephemeral.VolumeClaimName: "<pod name>-<volume name>"."""
    return f"{meta(pod).get('name') or ''}-{volume.get('name') or ''}"


def ephemeral_owner_error(pod: dict, pvc: dict) -> str | None:
    """ephemeral.VolumeIsForPod: the claim must be controlled by the pod (same UID)."""
    pod_uid = meta(pod).get("uid") or ""
    for ref in meta(pvc).get("ownerReferences") or ():
        if ref.get("controller") and (ref.get("uid") or "") == pod_uid:
            return None
    pm, cm = meta(pod), meta(pvc)
    return (f"PVC {cm.get('namespace') or ''}/{cm.get('name') or ''} was not created for pod "
            f"{pm.get('namespace') or ''}/{pm.get('name') or ''} (pod is not owner)")


def claim_name_of(pod: dict, volume: dict) -> tuple[str | None, bool]:
    """(claim name, is ephemeral) of a volume that uses a PVC, (None, False) otherwise."""
    source = volume.get("persistentVolumeClaim")
    if source is not None:
        return source.get("claimName") or "", False
    if volume.get("ephemeral") is not None:
        return ephemeral_claim_name(pod, volume), True
    return None, False


def storage_request(pvc: dict) -> Any:
    """The claim's storage request as an exact number (0 when absent, as a zero Quantity)."""
    value = ((spec(pvc).get("resources") or {}).get("requests") or {}).get("storage")
    return parse_quantity(value) if value is not None else 0


def storage_capacity(pv: dict) -> Any:
    value = (spec(pv).get("capacity") or {}).get("storage")
    return parse_quantity(value) if value is not None else 0


_node_affinity_cache: dict[int, tuple[dict, Callable[[Any], bool], tuple[Any, ...] | None]] = {}


def check_node_affinity(pv: dict, node_labels: dict) -> bool:
    """CheckNodeAffinity: the PV's required node affinity matches a node with these labels.

    Upstream builds a Node with only the labels, so matchFields on metadata.name see "".
    """
    return node_affinity_matcher(pv)(node_labels)


def node_affinity_matcher(pv: dict) -> Callable[[Any], bool]:
    """``check_node_affinity`` of ``pv`` as a function of node labels (for one PV asked of many nodes)."""
    affinity = spec(pv).get("nodeAffinity")
    if not affinity:
        return match_any_labels
    required = affinity.get("required")
    if required is None:
        return match_any_labels
    return _node_affinity(required)[1]


def node_affinity_requirements(pv: dict) -> tuple[Any, ...] | None:
    """The label requirements ``node_affinity_matcher`` of ``pv`` checks (all must match), as
    ``NodeSelector.label_requirements``: () when the PV admits every node, None when the
    matcher is more than one label selector."""
    affinity = spec(pv).get("nodeAffinity")
    if not affinity or affinity.get("required") is None:
        return ()
    return _node_affinity(affinity["required"])[2]


def _node_affinity(required: dict) -> tuple[dict, Callable[[Any], bool], tuple[Any, ...] | None]:
    cached = _node_affinity_cache.get(id(required))
    if cached is None or cached[0] is not required:
        selector = NodeSelector(required.get("nodeSelectorTerms") or [])
        cached = (required, selector.labels_matcher(), selector.label_requirements())
        _node_affinity_cache[id(required)] = cached
    return cached


def is_csi_migration_on(csinode: dict | None, plugin: str) -> bool:
    """isCSIMigrationOn (nodevolumelimits/utils.go, v1.34.4), NodeVolumeLimits' test.

    The node needs a CSINode. AWS EBS, GCE PD, Azure Disk and Cinder then count as migrated
    without looking further: their migration gates are GA and locked, so upstream returns before
    reading the annotation. Only Portworx (gate on by default) must also be named in the CSINode's
    migrated-plugins annotation; every other plugin is not migrated.
    """
    if csinode is None or not plugin or plugin not in MIGRATION_ON_PLUGINS:
        return False
    if plugin != PORTWORX_PLUGIN:
        return True
    value = (meta(csinode).get("annotations") or {}).get(MIGRATED_PLUGINS_ANNOTATION) or ""
    return plugin in value.split(",") if value else False


def match_topology_selector_terms(terms: list[dict] | None, labels: dict) -> bool:
    """v1helper.MatchTopologySelectorTerms: no terms match everything; terms are ORed, the
    expressions of a term ANDed, each needing the label with one of the values."""
    if not terms:
        return True
    for term in terms:
        ok = True
        for expr in (term or {}).get("matchLabelExpressions") or ():
            value = labels.get(expr.get("key") or "")
            if value is None or value not in (expr.get("values") or ()):
                ok = False
                break
        if ok:
            return True
    return False


# --- claims of a pod ------------------------------------------------------------------------------


def is_pvc_fully_bound(pvc: dict) -> bool:
    """isPVCFullyBound: volumeName set and the bind-completed annotation present.

    (The input layer adds the annotation to Bound claims that lack it, as the PV controller would.)
    """
    if not spec(pvc).get("volumeName"):
        return False
    return ANN_BIND_COMPLETED in (meta(pvc).get("annotations") or {})


def is_volume_bound_to_claim(pv: dict, pvc: dict) -> bool:
    ref = spec(pv).get("claimRef")
    if not ref:
        return False
    m = meta(pvc)
    if (ref.get("name") or "") != (m.get("name") or "") or (ref.get("namespace") or "") != (m.get("namespace") or ""):
        return False
    uid = ref.get("uid") or ""
    return not uid or uid == (m.get("uid") or "")


def pvc_key(pvc: dict) -> str:
    m = meta(pvc)
    return f"{m.get('namespace') or ''}/{m.get('name') or ''}"


class BinderError(Exception):
    """An error FindPodVolumes / GetPodVolumeClaims returns (an Error status upstream)."""


@dataclass
class PodVolumeClaims:
    """GetPodVolumeClaims' answer."""

    bound_claims: list[dict] = field(default_factory=list)
    unbound_claims_delay_binding: list[dict] = field(default_factory=list)
    unbound_claims_immediate: list[dict] = field(default_factory=list)
    #: storage class -> PVs of that class (for the delay-binding claims).
    unbound_volumes_delay_binding: dict[str, list[dict]] = field(default_factory=dict)


class BoundVolume(NamedTuple):
    """A bound claim as Filter checks it on every node: its PV's name, the PV's
    ``node_affinity_matcher`` (None: the PV is missing) and ``node_affinity_requirements``."""

    claim: dict
    pv_name: str
    matches: Callable[[Any], bool] | None
    requirements: tuple[Any, ...] | None


@dataclass
class PodVolumes:
    """What binding on one node would do: (claim, PV) pairs to bind and claims to provision."""

    static_bindings: list[tuple[dict, dict]] = field(default_factory=list)
    dynamic_provisions: list[dict] = field(default_factory=list)

    def describe(self) -> dict:
        return {
            "bind": [{"claim": pvc_key(c), "volume": meta(v).get("name") or ""} for c, v in self.static_bindings],
            "provision": [
                {"claim": pvc_key(c), "storageClass": claim_class(c)} for c in self.dynamic_provisions
            ],
        }


class VolumeBinder:
    """SchedulerVolumeBinder over a ClusterState (read-only)."""

    def __init__(self, cluster: Any) -> None:
        self.cluster = cluster

    # -- lookups
    def _pvcs(self) -> dict:
        return getattr(self.cluster, "pvcs", None) or {}

    def _pvs(self) -> dict:
        return getattr(self.cluster, "pvs", None) or {}

    def _classes(self) -> dict:
        return getattr(self.cluster, "storage_classes", None) or {}

    def csinode(self, node_name: str) -> dict | None:
        return (getattr(self.cluster, "csinodes", None) or {}).get(node_name)

    def list_pvs(self, class_name: str) -> list[dict]:
        return [pv for pv in self._pvs().values() if volume_class(pv) == class_name]

    def is_delay_binding_mode(self, pvc: dict) -> bool:
        name = claim_class(pvc)
        if not name:
            return False
        sc = self._classes().get(name)
        if sc is None:
            return False
        mode = sc.get("volumeBindingMode")
        if mode is None:
            raise BinderError(f'VolumeBindingMode not set for StorageClass "{name}"')
        return mode == "WaitForFirstConsumer"

    # -- GetPodVolumeClaims
    def get_pod_volume_claims(self, pod: dict) -> PodVolumeClaims:
        """Split the pod's claims into bound, unbound delay-binding and unbound immediate ones."""
        out = PodVolumeClaims()
        namespace = meta(pod).get("namespace") or ""
        pvcs = self._pvcs()
        for volume in spec(pod).get("volumes") or ():
            name, ephemeral = claim_name_of(pod, volume)
            if name is None:
                continue
            pvc = pvcs.get(f"{namespace}/{name}")
            if pvc is None:
                raise BinderError(f'error getting PVC "{namespace}/{name}": {pvc_not_found(name)}')
            if ephemeral:
                err = ephemeral_owner_error(pod, pvc)
                if err:
                    raise BinderError(err)
            if is_pvc_fully_bound(pvc):
                out.bound_claims.append(pvc)
            elif self.is_delay_binding_mode(pvc) and not spec(pvc).get("volumeName"):
                out.unbound_claims_delay_binding.append(pvc)
            else:
                # prebound claims (volumeName set, bind not completed) count as immediate
                out.unbound_claims_immediate.append(pvc)
        for pvc in out.unbound_claims_delay_binding:
            cls = claim_class(pvc)
            out.unbound_volumes_delay_binding[cls] = self.list_pvs(cls)
        return out

    def bound_volumes(self, claims: PodVolumeClaims) -> list[BoundVolume] | None:
        """When ``claims`` are all bound (none waits for binding): each bound claim's
        ``BoundVolume``, in ``_check_bound_claims``' order, up to the first missing PV, where
        that check stops on every node. None when some claim is unbound."""
        if claims.unbound_claims_delay_binding or claims.unbound_claims_immediate:
            return None
        pvs = self._pvs()
        out: list[BoundVolume] = []
        for pvc in claims.bound_claims:
            pv_name = spec(pvc).get("volumeName") or ""
            pv = pvs.get(pv_name)
            if pv is None:
                out.append(BoundVolume(pvc, pv_name, None, None))
                break
            out.append(BoundVolume(pvc, pv_name, node_affinity_matcher(pv), node_affinity_requirements(pv)))
        return out

    # -- FindPodVolumes
    def find_pod_volumes(self, pod: dict, claims: PodVolumeClaims, node: dict) -> tuple[PodVolumes, list[str], dict]:
        """(what binding would do, conflict reasons, details for the report) for one node.

        Raises ``BinderError`` where upstream returns an error.
        """
        node_name = meta(node).get("name") or ""
        labels = meta(node).get("labels") or {}
        pod_volumes = PodVolumes()
        details: dict = {}
        unbound_ok = bound_ok = sufficient = pvs_found = True

        if claims.bound_claims:
            bound_ok, pvs_found, bad = self._check_bound_claims(claims.bound_claims, labels)
            if bad:
                details["claim"], details["volume"] = bad
        unbound = claims.unbound_claims_delay_binding
        if unbound:
            to_match: list[dict] = []
            to_provision: list[dict] = []
            selected_elsewhere = None
            for pvc in unbound:
                annotations = meta(pvc).get("annotations") or {}
                if ANN_SELECTED_NODE in annotations:
                    if annotations[ANN_SELECTED_NODE] != node_name:
                        selected_elsewhere = (pvc, annotations[ANN_SELECTED_NODE])
                        break
                    to_provision.append(pvc)
                else:
                    to_match.append(pvc)
            if selected_elsewhere is not None:
                unbound_ok = False
                details["claim"] = pvc_key(selected_elsewhere[0])
                details["selectedNode"] = selected_elsewhere[1]
            else:
                if to_match:
                    unbound_ok, bindings, unmatched = self._find_matching_volumes(
                        to_match, claims.unbound_volumes_delay_binding, labels
                    )
                    pod_volumes.static_bindings = bindings
                    if unmatched:
                        details["unmatchedClaims"] = [pvc_key(c) for c in unmatched]
                    to_provision.extend(unmatched)
                if to_provision:
                    unbound_ok, sufficient, provisions, why = self._check_volume_provisions(to_provision, labels)
                    pod_volumes.dynamic_provisions = provisions
                    if why:
                        details.update(why)

        reasons = []
        if not bound_ok:
            reasons.append(ERR_REASON_NODE_CONFLICT)
        if not unbound_ok:
            reasons.append(ERR_REASON_BIND_CONFLICT)
        if not sufficient:
            reasons.append(ERR_REASON_NOT_ENOUGH_SPACE)
        if not pvs_found:
            reasons.append(ERR_REASON_PV_NOT_EXIST)
        return pod_volumes, reasons, details

    def _check_bound_claims(self, claims: list[dict], labels: dict) -> tuple[bool, bool, tuple[str, str] | None]:
        pvs = self._pvs()
        for pvc in claims:
            pv_name = spec(pvc).get("volumeName") or ""
            pv = pvs.get(pv_name)
            if pv is None:
                return True, False, (pvc_key(pvc), pv_name)
            if not check_node_affinity(pv, labels):
                return False, True, (pvc_key(pvc), pv_name)
        return True, True, None

    def _find_matching_volumes(
        self, claims: list[dict], volumes_by_class: dict[str, list[dict]], labels: dict
    ) -> tuple[bool, list[tuple[dict, dict]], list[dict]]:
        # smallest requests first, so each claim gets the smallest PV that fits
        ordered = sorted(claims, key=storage_request)
        chosen: set[str] = set()
        bindings: list[tuple[dict, dict]] = []
        unmatched: list[dict] = []
        found = True
        for pvc in ordered:
            pv = find_matching_volume(pvc, volumes_by_class.get(claim_class(pvc), []), labels, chosen)
            if pv is None:
                unmatched.append(pvc)
                found = False
                continue
            chosen.add(meta(pv).get("name") or "")
            bindings.append((pvc, pv))
        return found, bindings, unmatched

    def _check_volume_provisions(
        self, claims: list[dict], labels: dict
    ) -> tuple[bool, bool, list[dict], dict]:
        provisions: list[dict] = []
        classes = self._classes()
        for pvc in claims:
            cls_name = claim_class(pvc)
            if not cls_name:
                raise BinderError(f'no class for claim "{pvc_key(pvc)}"')
            sc = classes.get(cls_name)
            if sc is None:
                raise BinderError(f'failed to find storage class "{cls_name}"')
            provisioner = sc.get("provisioner") or ""
            if not provisioner or provisioner == NOT_SUPPORTED_PROVISIONER:
                return False, True, [], {"claim": pvc_key(pvc), "storageClass": cls_name,
                                         "why": "storage class does not support dynamic provisioning"}
            if not match_topology_selector_terms(sc.get("allowedTopologies"), labels):
                return False, True, [], {"claim": pvc_key(pvc), "storageClass": cls_name,
                                         "why": "node does not match the storage class's allowedTopologies"}
            # CSIStorageCapacity is not modelled: capacity counts as sufficient.
            provisions.append(pvc)
        return True, True, provisions, {}

    def are_pod_volumes_bound(self, pod: dict) -> bool:
        """arePodVolumesBound: every claim of the pod exists and is fully bound."""
        namespace = meta(pod).get("namespace") or ""
        pvcs = self._pvcs()
        for volume in spec(pod).get("volumes") or ():
            name, _ = claim_name_of(pod, volume)
            if name is None:
                continue
            pvc = pvcs.get(f"{namespace}/{name}")
            if pvc is None or not is_pvc_fully_bound(pvc):
                return False
        return True


def find_matching_volume(pvc: dict, volumes: Iterable[dict], node_labels: dict | None,
                         excluded: set[str]) -> dict | None:
    """FindMatchingVolume on the scheduler path (node given, delayBinding true, VAC on).

    A PV pre-bound to the claim wins (or, failing the node's affinity, nothing matches); else the
    smallest Available PV of the claim's class that fits size, volume mode, attributes class,
    selector, node affinity and access modes.
    """
    claim_spec = spec(pvc)
    requested = storage_request(pvc)
    requested_class = claim_class(pvc)
    claim_vac = claim_spec.get("volumeAttributesClassName") or ""
    claim_mode = claim_spec.get("volumeMode") or "Filesystem"
    selector = None
    if claim_spec.get("selector") is not None:
        try:
            selector = label_selector(claim_spec.get("selector"))
        except ValueError as err:
            raise BinderError(f"error creating internal label selector for claim: {pvc_key(pvc)}: {err}") from None
    wanted_modes = claim_spec.get("accessModes") or ()
    smallest = None
    smallest_qty = None
    for pv in volumes:
        pv_meta = meta(pv)
        if (pv_meta.get("name") or "") in excluded:
            continue
        pv_spec = spec(pv)
        if pv_spec.get("claimRef") and not is_volume_bound_to_claim(pv, pvc):
            continue
        qty = storage_capacity(pv)
        if qty < requested:
            continue
        if (pv_spec.get("volumeMode") or "Filesystem") != claim_mode:
            continue
        if (pv_spec.get("volumeAttributesClassName") or "") != claim_vac:
            continue
        if pv_meta.get("deletionTimestamp") is not None:
            continue
        affinity_ok = node_labels is None or check_node_affinity(pv, node_labels)
        if is_volume_bound_to_claim(pv, pvc):
            return pv if affinity_ok else None
        if ((pv.get("status") or {}).get("phase") or "") != "Available":
            continue
        if selector is not None and not selector.matches(pv_meta.get("labels") or {}):
            continue
        if volume_class(pv) != requested_class:
            continue
        if not affinity_ok:
            continue
        pv_modes = set(pv_spec.get("accessModes") or ())
        if any(mode not in pv_modes for mode in wanted_modes):
            continue
        if smallest is None or smallest_qty > qty:
            smallest, smallest_qty = pv, qty
    return smallest
