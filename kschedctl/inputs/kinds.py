"""Every kind of the cluster state, in one table: how the API serves it, where ``ClusterState``
keeps it, and what the scheduler loses without it.

The live reader (``kube.py``) lists these kinds in this order (snapshots print them so), the file
loader (``cluster.py``) files each object under its kind's collection, and a pod file may bring
along the ones ``workloads.py`` lets it bundle. A new kind is one ``Kind`` line here, plus its
collection on ``ClusterState``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from urllib.parse import quote

__all__ = ["Kind", "KINDS", "KIND_BY_NAME"]


@dataclass(frozen=True)
class Kind:
    """One kind kschedctl reads: where it is served, where it is kept, what is lost without it."""

    kind: str
    group: str
    version: str
    plural: str
    namespaced: bool
    #: The ``ClusterState`` attribute holding its objects (a list for nodes and pods, else a dict).
    collection: str
    #: Other API groups a file may give it in (an older or renamed group).
    other_groups: tuple[str, ...] = ()
    #: Without it the scheduler cannot run at all (nodes, pods): a failure stops the read.
    required: bool = False
    #: A CRD that may well not be installed: 404 means "skip quietly".
    crd: bool = False
    #: What goes missing without it, for the warning.
    affects: str = ""

    @cached_property
    def groups(self) -> tuple[str, ...]:
        """Every API group a file may give this kind in (asked once per object loaded)."""
        return (self.group,) + self.other_groups

    @property
    def api_version(self) -> str:
        """``group/version`` (just ``version`` for the core group)."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def resource(self) -> str:
        """``plural.group`` as RBAC and the API server's messages spell it (``pods`` for core)."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    def path(self, namespace: str | None = None) -> str:
        """The list endpoint, all namespaces or one."""
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if namespace is not None and self.namespaced:
            return f"{base}/namespaces/{quote(namespace, safe='')}/{self.plural}"
        return f"{base}/{self.plural}"


_SIGS = ("scheduling.sigs.k8s.io",)  # the scheduler-plugins CRDs' group before scheduling.x-k8s.io

#: Every kind of the cluster state, in the order a live cluster is read (and snapshots print them).
KINDS: tuple[Kind, ...] = (
    Kind("Node", "", "v1", "nodes", False, "nodes", required=True),
    Kind("Namespace", "", "v1", "namespaces", False, "namespaces",
         affects="namespace selectors of pod affinity see only each namespace's name label"),
    Kind("PriorityClass", "scheduling.k8s.io", "v1", "priorityclasses", False, "priority_classes",
         affects="pods are taken with the priority they carry; a pod without spec.priority counts as 0"),
    Kind("StorageClass", "storage.k8s.io", "v1", "storageclasses", False, "storage_classes",
         affects="volume binding cannot see storage classes (unbound claims may be judged wrongly)"),
    Kind("PersistentVolume", "", "v1", "persistentvolumes", False, "pvs",
         affects="volume plugins cannot see persistent volumes"),
    Kind("PersistentVolumeClaim", "", "v1", "persistentvolumeclaims", True, "pvcs",
         affects="pods with claims will be reported as using claims that do not exist"),
    Kind("CSINode", "storage.k8s.io", "v1", "csinodes", False, "csinodes",
         affects="CSI volume limits per node (NodeVolumeLimits) are not known"),
    Kind("CSIDriver", "storage.k8s.io", "v1", "csidrivers", False, "csidrivers",
         affects="CSI drivers' attach and capacity settings are taken as their defaults"),
    Kind("VolumeAttachment", "storage.k8s.io", "v1", "volumeattachments", False, "volume_attachments",
         affects="volumes attached to nodes are not counted against CSI volume limits"),
    Kind("PodDisruptionBudget", "policy", "v1", "poddisruptionbudgets", True, "pdbs",
         affects="preemption does not respect PodDisruptionBudgets"),
    Kind("Service", "", "v1", "services", True, "services",
         affects="default topology spreading does not see services' selectors"),
    Kind("ReplicationController", "", "v1", "replicationcontrollers", True, "replication_controllers",
         affects="default topology spreading does not see replication controllers' selectors"),
    Kind("ReplicaSet", "apps", "v1", "replicasets", True, "replica_sets", other_groups=("extensions",),
         affects="default topology spreading does not see replica sets' selectors"),
    Kind("StatefulSet", "apps", "v1", "statefulsets", True, "stateful_sets",
         affects="default topology spreading does not see stateful sets' selectors"),
    Kind("PodGroup", "scheduling.x-k8s.io", "v1alpha1", "podgroups", True, "pod_groups", other_groups=_SIGS,
         crd=True, affects="Coscheduling sees no pod groups"),
    Kind("ElasticQuota", "scheduling.x-k8s.io", "v1alpha1", "elasticquotas", True, "elastic_quotas",
         other_groups=_SIGS, crd=True, affects="CapacityScheduling sees no elastic quotas"),
    Kind("NodeResourceTopology", "topology.node.k8s.io", "v1alpha2", "noderesourcetopologies", False,
         "node_resource_topologies", crd=True,
         affects="NodeResourceTopologyMatch sees no NUMA topology (every node passes its Filter)"),
    Kind("AppGroup", "appgroup.diktyo.x-k8s.io", "v1alpha1", "appgroups", True, "app_groups", crd=True,
         affects="TopologicalSort and NetworkOverhead see no application groups"),
    Kind("NetworkTopology", "networktopology.diktyo.x-k8s.io", "v1alpha1", "networktopologies", True,
         "network_topologies", crd=True, affects="NetworkOverhead sees no network costs"),
    # Dynamic Resource Allocation (kept as resource.k8s.io/v1, see kschedctl.k8s.dra)
    Kind("DeviceClass", "resource.k8s.io", "v1", "deviceclasses", False, "device_classes",
         affects="pods with resource claims cannot be judged (device classes unknown)"),
    Kind("ResourceSlice", "resource.k8s.io", "v1", "resourceslices", False, "resource_slices",
         affects="pods with resource claims cannot be judged (the devices of the nodes unknown)"),
    Kind("ResourceClaimTemplate", "resource.k8s.io", "v1", "resourceclaimtemplates", True,
         "resource_claim_templates", affects="pods with resource claim templates cannot be judged"),
    Kind("ResourceClaim", "resource.k8s.io", "v1", "resourceclaims", True, "resource_claims",
         affects="pods with resource claims cannot be judged, and devices in use are not known"),
    Kind("Pod", "", "v1", "pods", True, "pods", required=True),
)
KIND_BY_NAME: dict[str, Kind] = {k.kind: k for k in KINDS}
