"""VolumeZone: the zone and region labels of the pod's bound PVs must match the node's.

Upstream: pkg/scheduler/framework/plugins/volumezone/volume_zone.go (release-1.34).
- PreFilter reads each PVC volume's claim (missing -> UnschedulableAndUnresolvable with the
  lister's "not found" text), its bound PV, and the PV's topology labels
  (failure-domain.beta.kubernetes.io/zone|region, topology.kubernetes.io/zone|region; values
  split on "__", a value with an empty part is ignored). An unbound claim of a
  WaitForFirstConsumer class is skipped; any other unbound claim is UnschedulableAndUnresolvable
  ("PersistentVolumeClaim had no pv name and storageClass name" / "PersistentVolume had no name").
  No topology at all -> Skip.
- Filter: a node without any of the four labels passes; otherwise each PV label must be on the
  node (a beta key may match the GA key) with a value in the PV's set, else
  UnschedulableAndUnresolvable "node(s) had no available volume zone".
Differences from upstream: none known. The PV and label that failed go to ``Status.details``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kschedctl.framework.interfaces import Plugin
from kschedctl.framework.status import Code, PreFilterResult, Status
from kschedctl.plugins import names
from kschedctl.plugins.facts import PluginFacts
from kschedctl.plugins.remedy import RemedyEngine, RemedyScenario, Step
from kschedctl.plugins.volume_binding.binder import claim_class, meta, not_found, pvc_not_found, spec

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = names.VOLUME_ZONE

#: Filter reason when a PV's zone or region label does not match the node.
ERR_REASON_CONFLICT = "node(s) had no available volume zone"

#: CycleState key (upstream "PreFilter" + Name).
PRE_FILTER_STATE_KEY = "PreFilter" + NAME

_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
_BETA_REGION = "failure-domain.beta.kubernetes.io/region"
_ZONE = "topology.kubernetes.io/zone"
_REGION = "topology.kubernetes.io/region"
#: Upstream topologyLabels, in its order.
TOPOLOGY_LABELS = (_BETA_ZONE, _BETA_REGION, _ZONE, _REGION)
_TO_GA = {_BETA_REGION: _REGION, _BETA_ZONE: _ZONE}
#: cloud-provider volume helpers' LabelMultiZoneDelimiter.
_MULTI_ZONE_DELIMITER = "__"


class _PVTopology:
    __slots__ = ("pv_name", "key", "values")

    def __init__(self, pv_name: str, key: str, values: frozenset[str]) -> None:
        self.pv_name = pv_name
        self.key = key
        self.values = values


class VolumeZone(Plugin):
    """PreFilter (collect the PVs' topology; Skip without any) and Filter."""

    name = NAME

    def pre_filter(
        self, state: "CycleState", pod_info: "PodInfo", nodes: list["NodeInfo"]
    ) -> tuple[PreFilterResult | None, Status | None]:
        topologies, status = self._pv_topologies(pod_info)
        if status is not None:
            return None, status
        if not topologies:
            return None, Status(Code.Skip)
        state.write(PRE_FILTER_STATE_KEY, topologies)
        return None, None

    def filter(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> Status | None:
        if not (pod_info.pod.get("spec") or {}).get("volumes"):
            return None
        try:
            topologies = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            # PreFilter did not run: compute here, as upstream's fallback does
            topologies, status = self._pv_topologies(pod_info)
            if status is not None:
                return status
        labels = node_info.labels
        if not any(key in labels for key in TOPOLOGY_LABELS):
            return None  # a node without zone labels (single-zone cluster) is fine
        for topo in topologies:
            value = labels.get(topo.key)
            if value is None:
                value = labels.get(_TO_GA.get(topo.key, topo.key))
            if value is None or value not in topo.values:
                return Status(
                    Code.UnschedulableAndUnresolvable,
                    ERR_REASON_CONFLICT,
                    details={"volume": topo.pv_name, "label": topo.key, "volumeValues": sorted(topo.values),
                             "nodeValue": value},
                )
        return None

    def _pv_topologies(self, pod_info: "PodInfo") -> tuple[list[_PVTopology], Status | None]:
        cluster = self.handle.cluster() if self.handle is not None else None
        pvcs = getattr(cluster, "pvcs", None) or {}
        pvs = getattr(cluster, "pvs", None) or {}
        classes = getattr(cluster, "storage_classes", None) or {}
        out: list[_PVTopology] = []
        for claim in pod_info.pvc_names:
            if not claim:
                return [], Status(Code.UnschedulableAndUnresolvable, "PersistentVolumeClaim had no name")
            key = f"{pod_info.namespace}/{claim}"
            pvc = pvcs.get(key)
            if pvc is None:
                return [], Status(Code.UnschedulableAndUnresolvable, pvc_not_found(claim), details={"claim": key})
            pv_name = spec(pvc).get("volumeName") or ""
            if not pv_name:
                sc_name = claim_class(pvc)
                if not sc_name:
                    return [], Status(Code.UnschedulableAndUnresolvable,
                                      "PersistentVolumeClaim had no pv name and storageClass name",
                                      details={"claim": key})
                sc = classes.get(sc_name)
                if sc is None:
                    return [], Status(Code.UnschedulableAndUnresolvable,
                                      not_found("storageclass.storage.k8s.io", sc_name), details={"claim": key})
                mode = sc.get("volumeBindingMode")
                if mode is None:
                    return [], Status(Code.UnschedulableAndUnresolvable,
                                      f'VolumeBindingMode not set for StorageClass "{sc_name}"')
                if mode == "WaitForFirstConsumer":
                    continue  # not bound yet: VolumeBinding decides where it goes
                return [], Status(Code.UnschedulableAndUnresolvable, "PersistentVolume had no name",
                                  details={"claim": key})
            pv = pvs.get(pv_name)
            if pv is None:
                return [], Status(Code.UnschedulableAndUnresolvable, not_found("persistentvolume", pv_name),
                                  details={"claim": key})
            out.extend(pv_topologies(pv))
        return out, None


def pv_topologies(pv: dict) -> list[_PVTopology]:
    """getPVTopologies: one entry per topology label on the PV (unparsable values ignored)."""
    labels = meta(pv).get("labels") or {}
    name = meta(pv).get("name") or ""
    out = []
    for key in TOPOLOGY_LABELS:
        value = labels.get(key)
        if value is None:
            continue
        zones = [z.strip() for z in value.split(_MULTI_ZONE_DELIMITER)]
        if any(not z for z in zones):
            continue  # LabelZonesToSet fails on an empty zone: upstream ignores the label
        out.append(_PVTopology(name, key, frozenset(zones)))
    return out


# -- facts --------------------------------------------------------------------------------------


def remedy(engine: RemedyEngine, scen: RemedyScenario, status: Status) -> Step | None:
    """What would flip this plugin's Filter verdict on the scenario's node (kschedctl.plugins.remedy)."""
    d = status.details or {}
    label, values = d.get("label"), d.get("volumeValues") or []
    if not label or not values:
        return None
    return Step(f"needs label {label} in ({', '.join(values)}) where PersistentVolume {d.get('volume')} is "
                f"(node has {d.get('nodeValue') if d.get('nodeValue') is not None else 'none'})",
                [{"kind": "setNodeLabel", "node": scen.name, "key": label, "value": values[0]}],
                dict(d), reasons=list(status.reasons))


FACTS = PluginFacts(
    name=VolumeZone.name,
    points=("preFilter", "filter"),
    # Only node events (or updates of the pod itself) can help; a batch has none.
    events={},
    remedy=remedy,
)
