"""A seeded cluster shaped like a production one, for the benchmarks of the performance issue.

    python3 -m benchmarks.realistic --nodes 5000 > /tmp/cluster.json     # one JSON List

``benchmarks.synthetic`` fills identical nodes with identical, ownerless pods: nothing for
InterPodAffinity, PodTopologySpread, VolumeBinding or DynamicResources to walk. Here every
existing pod belongs to one of ``APPS`` apps (a Deployment's ReplicaSet, or a StatefulSet
for the apps with volumes) spread over ``NAMESPACES``, and the apps carry what real workloads carry:

- one in ten pods: required pod anti-affinity on the hostname, to its own app;
- one in ten: topology spread constraints (zone DoNotSchedule, hostname ScheduleAnyway);
- some: preferred pod anti-affinity (hostname), preferred pod affinity to another app (zone),
  preferred node affinity (instance type);
- some: one PersistentVolumeClaim per pod, bound to a PersistentVolume whose node affinity pins
  it to the pod's zone (network disks) or host (local disks);
- some: one allocated ResourceClaim per pod, for a device of a ResourceSlice published by the
  GPU nodes (one in ten nodes), under one DeviceClass;
- a few apps with a high PriorityClass (never victims of the preemption workload).

Nodes come in three instance types (4, 8 and 16 CPU; GPU nodes are the 16-CPU ones), labelled
with hostname, zone (3 zones), region and instance type. Placement is consecutive, so that each
app's pods sit on distinct nodes (required anti-affinity holds) and zones stay balanced (spread
constraints hold), and no node is over its allocatable. Everything is a function of the
arguments and ``seed``: the same call gives the same objects, in the same order.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import dataclass, field
from typing import Any

ZONES = ("zone-a", "zone-b", "zone-c")
NAMESPACES = ("default", "shop", "payments", "batch", "monitoring")
APPS = 40
#: Instance type -> (cpu, memory) allocatable; the GPU nodes are "m5.4xlarge".
INSTANCE_TYPES = {"m5.xlarge": ("4", "16Gi"), "m5.2xlarge": ("8", "32Gi"), "m5.4xlarge": ("16", "64Gi")}
SMALL_INSTANCE_TYPE = "m5.xlarge"
DRA_DRIVER = "gpu.example.com"
DEVICE_CLASS = "gpu.example.com"
DEVICES_PER_GPU_NODE = 8
GPU_NODE_EVERY = 10
HIGH_PRIORITY_CLASS = "business-critical"
#: The preemption workload's priority: above every app but those of ``HIGH_PRIORITY_CLASS``.
PREEMPTOR_PRIORITY_CLASS = "preemptor"

# App feature per index (40 apps, equal sizes): the fractions the performance issue names.
_REQUIRED_ANTI_AFFINITY = range(0, 4)  # 10 %
_SPREAD = range(4, 8)  # 10 %
_PREFERRED_ANTI_AFFINITY = range(8, 12)
_PREFERRED_AFFINITY = range(12, 14)
_PREFERRED_NODE_AFFINITY = range(14, 16)
_ZONE_VOLUMES = range(16, 18)
_LOCAL_VOLUMES = range(18, 19)
_DRA = range(19, 20)
_HIGH_PRIORITY = range(20, 22)


def node_name(i: int) -> str:
    return f"node-{i:05d}"


def instance_type(i: int) -> str:
    if i % GPU_NODE_EVERY == 0:
        return "m5.4xlarge"
    return ("m5.xlarge", "m5.2xlarge", "m5.2xlarge")[i % 3]


def node(i: int) -> dict[str, Any]:
    name = node_name(i)
    kind = instance_type(i)
    cpu, memory = INSTANCE_TYPES[kind]
    resources = {"cpu": cpu, "memory": memory, "pods": "110", "ephemeral-storage": "100Gi"}
    labels = {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "node.kubernetes.io/instance-type": kind,
        "topology.kubernetes.io/region": "region-1",
        "topology.kubernetes.io/zone": ZONES[i % len(ZONES)],
    }
    if i % GPU_NODE_EVERY == 0:
        labels["gpu.example.com/present"] = "true"
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "uid": f"uid-node-{i:05d}", "labels": labels},
        "spec": {},
        "status": {"capacity": dict(resources), "allocatable": dict(resources),
                   "conditions": [{"type": "Ready", "status": "True"}],
                   "images": [{"names": ["registry.k8s.io/pause:3.10"], "sizeBytes": 320_000}]},
    }


@dataclass
class App:
    index: int
    name: str
    namespace: str
    replicas: int
    cpu: str
    memory: str
    image: str
    features: set[str] = field(default_factory=set)

    @property
    def labels(self) -> dict[str, str]:
        return {"app": self.name}

    @property
    def owner_kind(self) -> str:
        return "StatefulSet" if self.features & {"zone-volume", "local-volume"} else "ReplicaSet"


def _apps(num_pods: int, rng: random.Random) -> list[App]:
    apps = []
    base, extra = divmod(num_pods, APPS)
    for a in range(APPS):
        features = set()
        for rows, feature in ((_REQUIRED_ANTI_AFFINITY, "required-anti-affinity"), (_SPREAD, "spread"),
                              (_PREFERRED_ANTI_AFFINITY, "preferred-anti-affinity"),
                              (_PREFERRED_AFFINITY, "preferred-affinity"),
                              (_PREFERRED_NODE_AFFINITY, "preferred-node-affinity"),
                              (_ZONE_VOLUMES, "zone-volume"), (_LOCAL_VOLUMES, "local-volume"), (_DRA, "dra"),
                              (_HIGH_PRIORITY, "high-priority")):
            if a in rows:
                features.add(feature)
        apps.append(App(
            index=a, name=f"app-{a:02d}", namespace=NAMESPACES[a % len(NAMESPACES)],
            replicas=base + (1 if a < extra else 0),
            # 10 pods of at most 300m / 1Gi fit the smallest node (4 CPU / 16Gi) with room to spare
            cpu=rng.choice(("50m", "100m", "100m", "200m", "250m", "300m")),
            memory=rng.choice(("64Mi", "128Mi", "256Mi", "512Mi", "1Gi")),
            image=f"registry.example.com/{NAMESPACES[a % len(NAMESPACES)]}/app-{a:02d}:v{rng.randint(1, 9)}",
            features=features))
    return apps


def _template_hash(app: App) -> str:
    return f"{(app.index * 2654435761) % 16**10:010x}"[:10]


def _owners(app: App) -> list[dict[str, Any]]:
    """The app's controller the scheduler reads: its ReplicaSet (owned by a Deployment, which the
    scheduler never reads and a cluster file therefore leaves out), or its StatefulSet."""
    selector = {"matchLabels": app.labels}
    template = {"metadata": {"labels": app.labels}}
    meta = {"namespace": app.namespace}
    if app.owner_kind == "StatefulSet":
        return [{"apiVersion": "apps/v1", "kind": "StatefulSet",
                 "metadata": {**meta, "name": app.name, "uid": f"uid-sts-{app.name}"},
                 "spec": {"replicas": app.replicas, "serviceName": app.name, "selector": selector,
                          "template": template}}]
    rs_name = f"{app.name}-{_template_hash(app)}"
    replica_set = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
                   "metadata": {**meta, "name": rs_name, "uid": f"uid-rs-{rs_name}",
                                "labels": {**app.labels, "pod-template-hash": _template_hash(app)},
                                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment",
                                                     "name": app.name, "uid": f"uid-deploy-{app.name}",
                                                     "controller": True}]},
                   "spec": {"replicas": app.replicas,
                            "selector": {"matchLabels": {**app.labels, "pod-template-hash": _template_hash(app)}},
                            "template": {"metadata": {"labels": {**app.labels,
                                                                 "pod-template-hash": _template_hash(app)}}}}}
    return [replica_set]


def _scheduling_spec(app: App, apps: list[App]) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    affinity: dict[str, Any] = {}
    if "required-anti-affinity" in app.features:
        affinity["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": app.labels}, "topologyKey": "kubernetes.io/hostname"}]}
    if "preferred-anti-affinity" in app.features:
        affinity["podAntiAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [{
            "weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": app.labels},
                                               "topologyKey": "kubernetes.io/hostname"}}]}
    if "preferred-affinity" in app.features:
        partner = apps[(app.index + 7) % len(apps)]
        affinity["podAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [{
            "weight": 50, "podAffinityTerm": {"labelSelector": {"matchLabels": partner.labels},
                                              "namespaces": [partner.namespace],
                                              "topologyKey": "topology.kubernetes.io/zone"}}]}
    if "preferred-node-affinity" in app.features:
        affinity["nodeAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [{
            "weight": 10, "preference": {"matchExpressions": [{
                "key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.2xlarge"]}]}}]}
    if affinity:
        spec["affinity"] = affinity
    if "spread" in app.features:
        spec["topologySpreadConstraints"] = [
            {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": app.labels}},
            {"maxSkew": 2, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
             "labelSelector": {"matchLabels": app.labels}}]
    if "high-priority" in app.features:
        spec["priorityClassName"] = HIGH_PRIORITY_CLASS
    return spec


def _pod(app: App, ordinal: int, host: str | None, scheduling: dict[str, Any]) -> dict[str, Any]:
    if app.owner_kind == "StatefulSet":
        name = f"{app.name}-{ordinal}"
        owner = {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": app.name, "uid": f"uid-sts-{app.name}",
                 "controller": True}
        labels = {**app.labels, "apps.kubernetes.io/pod-index": str(ordinal)}
    else:
        rs_name = f"{app.name}-{_template_hash(app)}"
        name = f"{rs_name}-{ordinal:05d}"
        owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs_name, "uid": f"uid-rs-{rs_name}",
                 "controller": True}
        labels = {**app.labels, "pod-template-hash": _template_hash(app)}
    spec: dict[str, Any] = {
        "schedulerName": "default-scheduler",
        "containers": [{"name": "main", "image": app.image, "ports": [{"containerPort": 8080}],
                        "resources": {"requests": {"cpu": app.cpu, "memory": app.memory},
                                      "limits": {"memory": app.memory}}}],
        **json.loads(json.dumps(scheduling)),  # a copy per pod, as the API server holds them
    }
    if host:
        spec["nodeName"] = host
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": app.namespace, "uid": f"uid-{app.namespace}-{name}",
                         "labels": labels, "ownerReferences": [owner]},
            "spec": spec, "status": {"phase": "Running"} if host else {"phase": "Pending"}}


def _with_volume(pod: dict[str, Any], app: App, host: str, zone: str) -> list[dict[str, Any]]:
    """A PVC for ``pod`` bound to a PV pinned to its zone (network disk) or host (local disk)."""
    name = pod["metadata"]["name"]
    claim, volume = f"data-{name}", f"pv-{app.namespace}-{name}"
    local = "local-volume" in app.features
    storage_class = "local-storage" if local else "standard"
    key, value = ("kubernetes.io/hostname", host) if local else ("topology.kubernetes.io/zone", zone)
    pod["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]
    pod["spec"]["containers"][0]["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": volume, "uid": f"uid-{volume}"},
          "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
                   "storageClassName": storage_class, "persistentVolumeReclaimPolicy": "Delete",
                   "claimRef": {"kind": "PersistentVolumeClaim", "namespace": app.namespace, "name": claim,
                                "uid": f"uid-pvc-{app.namespace}-{claim}"},
                   "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                       {"key": key, "operator": "In", "values": [value]}]}]}},
                   **({"local": {"path": f"/mnt/disks/{claim}"}} if local else
                      {"csi": {"driver": "disk.csi.example.com", "volumeHandle": volume}})},
          "status": {"phase": "Bound"}}
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
           "metadata": {"name": claim, "namespace": app.namespace, "uid": f"uid-pvc-{app.namespace}-{claim}",
                        "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
           "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": storage_class, "volumeName": volume,
                    "resources": {"requests": {"storage": "10Gi"}}},
           "status": {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "10Gi"}}}
    return [pv, pvc]


def _with_claim(pod: dict[str, Any], host: str, device: int) -> dict[str, Any]:
    """An allocated, reserved ResourceClaim for one GPU of ``host``, referenced by ``pod``."""
    meta = pod["metadata"]
    claim = f"{meta['name']}-gpu"
    pod["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": claim}]
    pod["spec"]["containers"][0]["resources"]["claims"] = [{"name": "gpu"}]
    pod["status"]["resourceClaimStatuses"] = [{"name": "gpu", "resourceClaimName": claim}]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": claim, "namespace": meta["namespace"], "uid": f"uid-claim-{meta['uid']}"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": DEVICE_CLASS}}]}},
            "status": {"allocation": {"devices": {"results": [
                {"request": "gpu", "driver": DRA_DRIVER, "pool": host, "device": f"gpu-{device}"}]}},
                "reservedFor": [{"resource": "pods", "name": meta["name"], "uid": meta["uid"]}]}}


def _resource_slice(i: int) -> dict[str, Any]:
    host = node_name(i)
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{host}-gpu"},
            "spec": {"driver": DRA_DRIVER, "nodeName": host, "pool": {"name": host, "generation": 1,
                                                                      "resourceSliceCount": 1},
                     "devices": [{"name": f"gpu-{d}", "attributes": {"model": {"string": "a100"}},
                                  "capacity": {"memory": {"value": "40Gi"}}}
                                 for d in range(DEVICES_PER_GPU_NODE)]}}


def _fixed_objects() -> list[dict[str, Any]]:
    return [
        *({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}} for ns in NAMESPACES),
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": HIGH_PRIORITY_CLASS},
         "value": 100000},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": PREEMPTOR_PRIORITY_CLASS}, "value": 10000},
        {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "standard"},
         "provisioner": "disk.csi.example.com", "volumeBindingMode": "WaitForFirstConsumer"},
        {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "local-storage"},
         "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer"},
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": DEVICE_CLASS},
         "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRA_DRIVER}"'}}]}},
    ]


def cluster_objects(num_nodes: int = 5000, num_pods: int | None = None, seed: int = 1) -> list[dict[str, Any]]:
    """Every object of the cluster (nodes, namespaces, classes, owners, pods, volumes, claims, slices).

    ``num_pods`` defaults to ten per node; it must leave each app no more pods than there are
    nodes (for required anti-affinity), and the GPU app no more than the GPU nodes' devices.
    """
    num_pods = num_nodes * 10 if num_pods is None else num_pods
    rng = random.Random(seed)
    apps = _apps(num_pods, rng)
    gpu_nodes = [i for i in range(num_nodes) if i % GPU_NODE_EVERY == 0]
    if any(app.replicas > num_nodes for app in apps):
        raise ValueError(f"{num_pods} pods on {num_nodes} nodes: more pods per app than nodes")
    objects: list[dict[str, Any]] = [node(i) for i in range(num_nodes)]
    objects += _fixed_objects()
    objects += [_resource_slice(i) for i in gpu_nodes]
    pods: list[dict[str, Any]] = []
    extra: list[dict[str, Any]] = []
    cursor = 0
    for app in apps:
        objects += _owners(app)
        scheduling = _scheduling_spec(app, apps)
        for k in range(app.replicas):
            if "dra" in app.features:
                slot = k % (len(gpu_nodes) * DEVICES_PER_GPU_NODE)
                i, device = gpu_nodes[slot % len(gpu_nodes)], slot // len(gpu_nodes)
            else:
                i, device = cursor % num_nodes, 0
                cursor += 1
            host = node_name(i)
            pod = _pod(app, k, host, scheduling)
            if "zone-volume" in app.features or "local-volume" in app.features:
                extra += _with_volume(pod, app, host, ZONES[i % len(ZONES)])
            if "dra" in app.features:
                extra.append(_with_claim(pod, host, device))
            pods.append(pod)
    return objects + extra + pods


def as_list(objects: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "items": objects}


# --- the workloads' incoming pods (a new Deployment's replicas) ---------------------------------


def rollout_objects(replicas: int, kind: str = "rollout", name: str = "web",
                    namespace: str = "default") -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A new Deployment's ReplicaSet and its ``replicas`` pending pods.

    ``kind``: "rollout" (a plain one, 200m / 256Mi), "zone-spread" (zone DoNotSchedule, maxSkew 1),
    "anti-affinity" (required hostname anti-affinity to its own pods) or "preemption"
    (3 CPU on the 4-CPU node pool, which has no room without evicting, at the preemptor priority).
    """
    app = App(index=99, name=name, namespace=namespace, replicas=replicas, cpu="200m", memory="256Mi",
              image=f"registry.example.com/{namespace}/{name}:v2")
    scheduling: dict[str, Any] = {}
    if kind == "zone-spread":
        scheduling["topologySpreadConstraints"] = [{
            "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": app.labels}}]
    elif kind == "anti-affinity":
        scheduling["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": app.labels}, "topologyKey": "kubernetes.io/hostname"}]}}
    elif kind == "preemption":
        app.cpu, app.memory = "3", "2Gi"
        scheduling["priorityClassName"] = PREEMPTOR_PRIORITY_CLASS
        scheduling["nodeSelector"] = {"node.kubernetes.io/instance-type": SMALL_INSTANCE_TYPE}
    elif kind != "rollout":
        raise ValueError(f"unknown rollout kind {kind!r}")
    owners = _owners(app)
    pods = [_pod(app, k, None, scheduling) for k in range(replicas)]
    return owners[-1], pods


def small_pod(name: str = "small") -> dict[str, Any]:
    """The capacity workload's pod: 100m / 500Mi, nothing else."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10",
                                     "resources": {"requests": {"cpu": "100m", "memory": "500Mi"}}}]}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, help="existing pods (default: ten per node)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    json.dump(as_list(cluster_objects(args.nodes, args.pods, args.seed)), sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
