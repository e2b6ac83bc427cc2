"""Random but valid scheduling inputs for the differential tests (``benchmarks.differential``).

``generate(seed, index, command)`` is a pure function of its arguments: the same call gives the
same case. A case covers, at random, every default plugin and DRA: nodes with zones, labels,
taints, allocatable, images and the unschedulable flag; existing pods with requests, host ports,
tolerations, priorities, node and pod (anti-)affinity, spread constraints, owners and volumes;
PersistentVolumes, claims and StorageClasses; DeviceClasses, ResourceSlices and ResourceClaims;
CSINode attach limits; and a configuration varying enabled plugins, weights, plugin args and percentageOfNodesToScore.

Nodes are written in name order, so the order a freshly started kube-scheduler lists them in
(the API server lists by name) is the order kschedctl reads them in.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ZONES = ("zone-a", "zone-b", "zone-c")
APPS = ("web", "db", "cache")
IMAGES = {"nginx:1.27": 150 * 2**20, "redis:7": 40 * 2**20, "postgres:16": 400 * 2**20, "busybox:1.36": 2 * 2**20}
TAINT_KEYS = ("dedicated", "gpu", "maintenance")
DEVICE_CLASS = "gpu.example.com"
DRIVER = "gpu.example.com"


@dataclass
class Case:
    seed: int
    index: int
    command: str
    config: dict[str, Any] | None
    cluster: list[dict[str, Any]]
    pods: list[dict[str, Any]]
    all_filters: bool = False
    notes: list[str] = field(default_factory=list)

    def write(self, directory: Path) -> dict[str, Any]:
        directory.mkdir(parents=True, exist_ok=True)
        cluster = directory / "cluster.yaml"
        cluster.write_text(yaml.safe_dump_all(self.cluster, sort_keys=False))
        pods = directory / "pods.yaml"
        pods.write_text(yaml.safe_dump_all(self.pods, sort_keys=False))
        paths: dict[str, Any] = {"cluster": str(cluster), "pods": [str(pods)]}
        if self.config is not None:
            config = directory / "config.yaml"
            config.write_text(yaml.safe_dump(self.config, sort_keys=False))
            paths["config"] = str(config)
        return paths


def generate(seed: int, index: int, command: str) -> Case:
    return _Generator(random.Random(f"{seed}:{command}:{index}"), command).case(seed, index)


def _cpu(rng: random.Random, choices: tuple[int, ...]) -> str:
    return f"{rng.choice(choices)}m"


def _mem(rng: random.Random, choices: tuple[int, ...]) -> str:
    return f"{rng.choice(choices)}Mi"


class _Generator:
    def __init__(self, rng: random.Random, command: str) -> None:
        self.rng = rng
        self.command = command
        self.uid = 0
        self.dra = rng.random() < 0.15
        self.volumes = rng.random() < 0.25
        self.objects: list[dict[str, Any]] = []
        self.nodes: list[dict[str, Any]] = []
        self.claims: list[str] = []
        self.pvcs: list[str] = []

    def next_uid(self) -> str:
        self.uid += 1
        return f"00000000-0000-4000-8000-{self.uid:012d}"

    # -- the cluster ------------------------------------------------------------------------
    def case(self, seed: int, index: int) -> Case:
        rng = self.rng
        big = rng.random() < 0.05
        n_nodes = rng.randint(105, 130) if big else rng.randint(1, 12)
        zones = ZONES[: rng.randint(1, 3)]
        for i in range(n_nodes):
            self.nodes.append(self.node(f"n-{i:03d}", rng.choice(zones)))
        classes = [
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "low"}, "value": 100},
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000},
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high-nonpreempting"},
             "value": 1000, "preemptionPolicy": "Never"},
        ]
        if rng.random() < 0.2:
            classes.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                            "metadata": {"name": "default-prio"}, "value": 50, "globalDefault": True})
        self.objects += classes
        self.objects.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}})
        self.objects.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}})
        if rng.random() < 0.4:
            self.objects.append({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                 "metadata": {"name": "web-rs", "namespace": "default", "uid": "rs-web"},
                                 "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                                          "template": {"metadata": {"labels": {"app": "web"}},
                                                       "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}}})
            self.objects.append({"apiVersion": "v1", "kind": "Service",
                                 "metadata": {"name": "web", "namespace": "default"},
                                 "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}})
        if self.volumes:
            self.storage(zones)
        if self.dra:
            self.devices()
        existing = rng.randint(0, 4 * n_nodes if not big else 60)
        pods = []
        for i in range(existing):
            node = rng.choice(self.nodes)["metadata"]["name"]
            pods.append(self.pod(f"run-{i:03d}", node=node, existing=True))
        if rng.random() < 0.1 and self.nodes:
            # A pod that already won a preemption and waits for its node.
            nominated = self.pod("nominated-0", existing=True)
            # kschedctl queues the cluster's pending pods before the files' pods; a freshly
            # started kube-scheduler queues all of them in list order (namespace, name).
            # "default/a-..." comes first in both.
            nominated["metadata"].update(name="a-nominated-0", namespace="default")
            nominated["metadata"].pop("ownerReferences", None)
            nominated["status"] = {"nominatedNodeName": rng.choice(self.nodes)["metadata"]["name"]}
            nominated["spec"]["priorityClassName"] = "high"
            pods.append(nominated)
        pending_count = rng.randint(3, 12) if self.command == "simulate" else 1
        pending = [self.pod(f"pending-{i:02d}", existing=False) for i in range(pending_count)]
        # A freshly started kube-scheduler queues pods in the API server's list order
        # (namespace, then name); equal priorities keep that order.
        pending.sort(key=lambda p: (p["metadata"]["namespace"], p["metadata"]["name"]))
        config = self.config(big)
        return Case(seed, index, self.command, config, self.nodes + self.objects + pods, pending,
                    all_filters=self.command == "explain" and rng.random() < 0.2)

    def node(self, name: str, zone: str) -> dict[str, Any]:
        rng = self.rng
        labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                  "topology.kubernetes.io/zone": zone, "topology.kubernetes.io/region": "region-1"}
        if rng.random() < 0.5:
            labels["disk"] = rng.choice(("ssd", "hdd"))
        if rng.random() < 0.3:
            labels["tier"] = rng.choice(("gold", "silver"))
        allocatable = {"cpu": rng.choice(("1", "2", "4", "3500m")), "memory": rng.choice(("2Gi", "4Gi", "8Gi")),
                       "pods": str(rng.choice((3, 10, 110))), "ephemeral-storage": "20Gi"}
        if rng.random() < 0.15:
            allocatable["example.com/fpga"] = str(rng.randint(0, 2))
        spec: dict[str, Any] = {}
        if rng.random() < 0.2:
            spec["taints"] = [{"key": rng.choice(TAINT_KEYS), "value": rng.choice(("a", "b")),
                               "effect": rng.choice(("NoSchedule", "PreferNoSchedule", "NoExecute"))}]
        if rng.random() < 0.05:
            spec["unschedulable"] = True
        images = [{"names": [image], "sizeBytes": size} for image, size in IMAGES.items() if rng.random() < 0.4]
        status: dict[str, Any] = {"capacity": dict(allocatable), "allocatable": allocatable,
                                  "conditions": [{"type": "Ready", "status": "True"}]}
        if images:
            status["images"] = images
        return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
                "spec": spec, "status": status}

    def storage(self, zones: tuple[str, ...]) -> None:
        rng = self.rng
        for n in self.nodes:
            if rng.random() < 0.5:
                # NodeVolumeLimits: the CSI driver's attach limit on this node (0 to 2 volumes).
                name = n["metadata"]["name"]
                self.objects.append({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": name},
                                     "spec": {"drivers": [{"name": "example.com/csi", "nodeID": name,
                                                           "allocatable": {"count": rng.randint(0, 2)}}]}})
        self.objects.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                             "metadata": {"name": "late"}, "provisioner": "example.com/csi",
                             "volumeBindingMode": "WaitForFirstConsumer"})
        self.objects.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                             "metadata": {"name": "now"}, "provisioner": "kubernetes.io/no-provisioner",
                             "volumeBindingMode": "Immediate"})
        for i in range(rng.randint(1, 4)):
            zone = rng.choice(zones)
            name = f"pv-{i}"
            pv: dict[str, Any] = {
                "apiVersion": "v1", "kind": "PersistentVolume",
                "metadata": {"name": name, "labels": {"topology.kubernetes.io/zone": zone}},
                "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
                         "storageClassName": rng.choice(("late", "now")),
                         "persistentVolumeReclaimPolicy": "Retain",
                         "csi": {"driver": "example.com/csi", "volumeHandle": name},
                         "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                             {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [zone]}]}]}}},
                "status": {"phase": "Available"}}
            claim = f"data-{i}"
            bound = rng.random() < 0.6
            pvc: dict[str, Any] = {
                "apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"name": claim, "namespace": "default", "uid": f"pvc-uid-{i}"},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "5Gi"}},
                         "storageClassName": pv["spec"]["storageClassName"]},
                "status": {"phase": "Pending"}}
            if bound:
                pvc["spec"]["volumeName"] = name
                pvc["status"] = {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "10Gi"}}
                pvc["metadata"]["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
                pv["spec"]["claimRef"] = {"namespace": "default", "name": claim, "uid": f"pvc-uid-{i}"}
                pv["status"] = {"phase": "Bound"}
            elif self.command == "simulate":
                # Binding a claim at PreBind waits for a PV controller, which neither engine
                # runs in a simulation: simulate cases keep their claims bound.
                continue
            elif pv["spec"]["storageClassName"] == "now":
                pvc["spec"]["storageClassName"] = "now"
            self.objects += [pv, pvc]
            self.pvcs.append(claim)
        self.pvcs.append("missing-claim")

    def devices(self) -> None:
        rng = self.rng
        self.objects.append({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                             "metadata": {"name": DEVICE_CLASS},
                             "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}})
        for node in self.nodes:
            if rng.random() < 0.5:
                continue
            name = node["metadata"]["name"]
            devices = [{"name": f"gpu-{j}", "attributes": {"model": {"string": rng.choice(("a100", "h100"))},
                                                           "memory": {"int": rng.choice((40, 80))}}}
                       for j in range(rng.randint(1, 3))]
            self.objects.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                                 "metadata": {"name": f"{name}-gpus"},
                                 "spec": {"driver": DRIVER, "nodeName": name,
                                          "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                                          "devices": devices}})
        for i in range(rng.randint(1, 3)):
            claim = f"gpu-claim-{i}"
            request: dict[str, Any] = {"name": "gpu", "exactly": {"deviceClassName": DEVICE_CLASS,
                                                                  "allocationMode": "ExactCount",
                                                                  "count": rng.choice((1, 1, 2))}}
            if rng.random() < 0.4:
                request["exactly"]["selectors"] = [{"cel": {"expression":
                    f'device.attributes["{DRIVER}"].model == "{rng.choice(("a100", "h100"))}"'}}]
            self.objects.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                                 "metadata": {"name": claim, "namespace": "default", "uid": f"claim-uid-{i}"},
                                 "spec": {"devices": {"requests": [request]}}})
            self.claims.append(claim)

    # -- pods --------------------------------------------------------------------------------
    def pod(self, name: str, *, node: str | None = None, existing: bool) -> dict[str, Any]:
        rng = self.rng
        app = rng.choice(APPS)
        namespace = "other" if rng.random() < 0.1 else "default"
        requests: dict[str, str] = {}
        if rng.random() < 0.85:
            requests["cpu"] = _cpu(rng, (50, 100, 250, 500, 1000, 1500) if existing else (100, 200, 500, 1000, 2000))
        if rng.random() < 0.8:
            requests["memory"] = _mem(rng, (64, 256, 512, 1024, 2048))
        if rng.random() < 0.05:
            requests["example.com/fpga"] = "1"
        container: dict[str, Any] = {"name": "c", "image": rng.choice(list(IMAGES) + ["app:1"])}
        if requests:
            if rng.random() < 0.15:
                container["resources"] = {"limits": dict(requests)}  # requests default to limits
            else:
                container["resources"] = {"requests": requests}
        if rng.random() < 0.1:
            container["ports"] = [{"containerPort": 8080, "hostPort": rng.choice((8080, 9090))}]
        spec: dict[str, Any] = {"containers": [container]}
        if rng.random() < 0.1:
            spec["initContainers"] = [{"name": "init", "image": "busybox:1.36",
                                       "resources": {"requests": {"cpu": _cpu(rng, (100, 3000))}}}]
        if rng.random() < 0.35:
            spec["priorityClassName"] = rng.choice(("low", "high", "high-nonpreempting") if not existing else ("low", "high"))
        if rng.random() < 0.2:
            spec["tolerations"] = [self.toleration()]
        if not existing:
            self.constraints(spec, app)
        elif rng.random() < 0.15:
            self.affinity(spec, app)
        if existing and rng.random() < 0.1:
            spec["topologySpreadConstraints"] = [self.spread(app, soft=True)]
        if self.pvcs and rng.random() < 0.3 and namespace == "default":
            spec["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": rng.choice(self.pvcs)}}]
            container["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
            if existing and spec["volumes"][0]["persistentVolumeClaim"]["claimName"] == "missing-claim":
                spec.pop("volumes")
                container.pop("volumeMounts")
        if self.claims and not existing and rng.random() < 0.5 and namespace == "default":
            spec["resourceClaims"] = [{"name": "gpu", "resourceClaimName": rng.choice(self.claims)}]
            container.setdefault("resources", {})["claims"] = [{"name": "gpu"}]
        metadata: dict[str, Any] = {"name": name, "namespace": namespace, "uid": self.next_uid(),
                                    "labels": {"app": app}}
        if app == "web" and namespace == "default" and rng.random() < 0.5:
            metadata["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-rs",
                                            "uid": "rs-web", "controller": True}]
        if not existing and rng.random() < 0.03:
            spec["schedulingGates"] = [{"name": "example.com/wait"}]
        if node:
            spec["nodeName"] = node
        pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}
        if node:
            pod["status"] = {"phase": "Running", "startTime": f"2026-01-01T00:{rng.randint(0, 59):02d}:00Z"}
        return pod

    def toleration(self) -> dict[str, Any]:
        rng = self.rng
        if rng.random() < 0.2:
            return {"operator": "Exists"}
        tol: dict[str, Any] = {"key": rng.choice(TAINT_KEYS)}
        if rng.random() < 0.5:
            tol.update(operator="Equal", value=rng.choice(("a", "b")))
        else:
            tol["operator"] = "Exists"
        if rng.random() < 0.6:
            tol["effect"] = rng.choice(("NoSchedule", "PreferNoSchedule", "NoExecute"))
        return tol

    def constraints(self, spec: dict[str, Any], app: str) -> None:
        rng = self.rng
        if rng.random() < 0.2:
            spec["nodeSelector"] = {"disk": rng.choice(("ssd", "hdd"))}
        if rng.random() < 0.3:
            self.affinity(spec, app)
        if rng.random() < 0.25:
            spec["topologySpreadConstraints"] = [self.spread(app, soft=rng.random() < 0.4)]

    def affinity(self, spec: dict[str, Any], app: str) -> None:
        rng = self.rng
        affinity: dict[str, Any] = {}
        if rng.random() < 0.4:
            term = {"matchExpressions": [{"key": rng.choice(("disk", "tier", "topology.kubernetes.io/zone")),
                                          "operator": rng.choice(("In", "NotIn", "Exists", "DoesNotExist")),
                                          "values": [rng.choice(("ssd", "hdd", "gold", "zone-a", "zone-b"))]}]}
            if term["matchExpressions"][0]["operator"] in ("Exists", "DoesNotExist"):
                term["matchExpressions"][0].pop("values")
            if rng.random() < 0.5:
                affinity["nodeAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}
            else:
                affinity["nodeAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": rng.randint(1, 100), "preference": term}]}
        for kind in ("podAffinity", "podAntiAffinity"):
            if rng.random() < 0.35:
                term = {"labelSelector": {"matchLabels": {"app": rng.choice(APPS) if rng.random() < 0.5 else app}},
                        "topologyKey": rng.choice(("kubernetes.io/hostname", "topology.kubernetes.io/zone"))}
                if rng.random() < 0.15:
                    term["namespaces"] = ["default", "other"]
                if rng.random() < 0.5:
                    affinity[kind] = {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
                else:
                    affinity[kind] = {"preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": rng.randint(1, 100), "podAffinityTerm": term}]}
        if affinity:
            spec["affinity"] = affinity

    def spread(self, app: str, soft: bool) -> dict[str, Any]:
        rng = self.rng
        constraint: dict[str, Any] = {
            "maxSkew": rng.choice((1, 1, 2)),
            "topologyKey": rng.choice(("kubernetes.io/hostname", "topology.kubernetes.io/zone")),
            "whenUnsatisfiable": "ScheduleAnyway" if soft else "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": app}}}
        if not soft and rng.random() < 0.2:
            constraint["minDomains"] = rng.randint(1, 4)
        if rng.random() < 0.2:
            constraint["nodeAffinityPolicy"] = rng.choice(("Honor", "Ignore"))
        if rng.random() < 0.2:
            constraint["nodeTaintsPolicy"] = rng.choice(("Honor", "Ignore"))
        return constraint

    # -- the configuration -------------------------------------------------------------------
    def config(self, big: bool) -> dict[str, Any] | None:
        rng = self.rng
        if rng.random() < 0.4 and not big:
            return None
        profile: dict[str, Any] = {"schedulerName": "default-scheduler"}
        plugins: dict[str, Any] = {}
        args: list[dict[str, Any]] = []
        if rng.random() < 0.3:
            plugins["score"] = {"enabled": [{"name": name, "weight": rng.randint(1, 10)} for name in
                                            rng.sample(("NodeResourcesFit", "ImageLocality", "TaintToleration",
                                                        "NodeAffinity", "PodTopologySpread", "InterPodAffinity",
                                                        "NodeResourcesBalancedAllocation"), 2)]}
        if rng.random() < 0.2:
            plugins.setdefault("score", {})["disabled"] = [{"name": rng.choice(("ImageLocality",
                                                                                "NodeResourcesBalancedAllocation"))}]
        if rng.random() < 0.1:
            plugins["filter"] = {"disabled": [{"name": rng.choice(("NodePorts", "TaintToleration"))}]}
        if rng.random() < 0.4:
            strategy = rng.choice(("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"))
            scoring: dict[str, Any] = {"type": strategy,
                                       "resources": [{"name": "cpu", "weight": rng.randint(1, 3)},
                                                     {"name": "memory", "weight": rng.randint(1, 3)}]}
            if strategy == "RequestedToCapacityRatio":
                scoring["requestedToCapacityRatio"] = {"shape": [{"utilization": 0, "score": 0},
                                                                 {"utilization": 100, "score": 10}]
                                                       if rng.random() < 0.5 else
                                                       [{"utilization": 0, "score": 10},
                                                        {"utilization": 100, "score": 0}]}
            args.append({"name": "NodeResourcesFit", "args": {"scoringStrategy": scoring}})
        if rng.random() < 0.2:
            args.append({"name": "PodTopologySpread", "args": {
                "defaultingType": "List",
                "defaultConstraints": [{"maxSkew": rng.randint(1, 3), "topologyKey": "topology.kubernetes.io/zone",
                                        "whenUnsatisfiable": rng.choice(("ScheduleAnyway", "DoNotSchedule"))}]}})
        if rng.random() < 0.15:
            args.append({"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": rng.randint(0, 100)}})
        if rng.random() < 0.15:
            args.append({"name": "NodeResourcesBalancedAllocation", "args": {
                "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}})
        if plugins:
            profile["plugins"] = plugins
        if args:
            profile["pluginConfig"] = args
        config: dict[str, Any] = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                                  "profiles": [profile]}
        if big or rng.random() < 0.2:
            config["percentageOfNodesToScore"] = rng.choice((0, 10, 50, 100))
        return config
