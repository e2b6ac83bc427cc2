"""Random but valid scheduling inputs for the differential tests (``benchmarks.differential``).

``generate(seed, index, command)`` is a pure function of its arguments: the same call gives the
same case. A case covers, at random, every input dimension of kube-scheduler v1.34's default
profile (issue 41, Breadth item 1). ``DIMENSIONS`` names each one with the rate it is drawn at;
every case lists the dimensions it exercised in ``Case.features`` and ``coverage_table`` counts
them over a run, so a run shows what it really covered:

    python -m benchmarks.diffgen --seed S --cases N [--simulate-cases M]

Nodes are written in name order, so the order a freshly started kube-scheduler lists them in
(the API server lists by name) is the order kschedctl reads them in. Objects are written as the
API server stores them: a pod's RuntimeClass overhead is copied into ``spec.overhead`` (the
RuntimeClass admission plugin does that at creation).
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import yaml

ZONES = ("zone-a", "zone-b", "zone-c")
APPS = ("web", "db", "cache")
VERSIONS = ("v1", "v2")
IMAGES = {"nginx:1.27": 150 * 2**20, "redis:7": 40 * 2**20, "postgres:16": 400 * 2**20, "busybox:1.36": 2 * 2**20}
TAINT_KEYS = ("dedicated", "gpu", "maintenance")
CORDON = "node.kubernetes.io/unschedulable"
DEVICE_CLASS = "gpu.example.com"
DRIVER = "gpu.example.com"
CSI_DRIVERS = ("example.com/csi", "other.example.com/csi")
GCE_PD_DRIVER = "pd.csi.storage.gke.io"
EXTENDED = ("example.com/fpga", "example.com/nic")
SECOND_PROFILE = "batch-scheduler"

# Known defect classes (issue 41), kept out of generated cases while another change fixes them.
# Each is a dimension name of DIMENSIONS; an excluded dimension is never drawn and shows 0 in the
# coverage table. Empty: every dimension is drawn. A defect that makes too much noise goes here
# with a comment naming it and the side that is wrong, and leaves once the fix is merged.
EXCLUDED: frozenset[str] = frozenset()

# name -> the rate it is drawn at (what the coverage table is checked against).
DIMENSIONS: dict[str, str] = {
    # containers and resources
    "several-containers": "20% of pods",
    "init-containers": "12% of pods",
    "sidecar-containers": "10% of pods",
    "overhead-runtimeclass": "8% of pods",
    "pod-level-resources": "8% of pods",
    "hugepages": "25% of clusters (nodes), 20% of their pods",
    "extended-resources": "30% of clusters, 2 resources, some nodes with 0",
    "limits-only": "12% of containers",
    # node affinity and selectors
    "node-selector": "15% of pending pods",
    "match-fields": "25% of node affinities",
    "gt-lt": "25% of node affinity expressions",
    "several-terms": "30% of required node affinities",
    "added-affinity": "10% of profiles",
    "node-affinity-preferred": "half of node affinities",
    # taints
    "taint-noschedule": "20% of nodes carry taints (each effect)",
    "taint-prefernoschedule": "idem",
    "taint-noexecute": "idem",
    "toleration-seconds": "half of NoExecute tolerations",
    "cordon-taint": "6% of nodes (with the unschedulable flag)",
    "unschedulable-flag": "6% of nodes",
    # inter-pod affinity
    "pod-affinity": "30% of pending pods, 15% of existing",
    "pod-anti-affinity": "idem",
    "affinity-namespaces": "15% of terms",
    "namespace-selector-empty": "12% of terms",
    "namespace-selector-label": "12% of terms",
    "affinity-match-label-keys": "15% of terms",
    "affinity-mismatch-label-keys": "10% of terms",
    "partial-topology-key": "20% of terms (rack: some nodes lack it)",
    "hard-pod-affinity-weight": "10% of profiles",
    # topology spread
    "spread": "30% of pending pods",
    "spread-several": "35% of spread pods (2 or 3 constraints)",
    "spread-min-domains": "25% of DoNotSchedule constraints",
    "spread-inclusion-policies": "30% of constraints",
    "spread-match-label-keys": "15% of constraints",
    "spread-missing-key": "20% of constraints (rack)",
    "spread-system-defaults": "pods owned by a ReplicaSet/Service, no constraints, System defaulting",
    "spread-list-defaults": "15% of profiles",
    # preemption
    "pdb-min-available": "25% of clusters",
    "pdb-max-unavailable": "idem",
    "terminating-pods": "5% of existing pods",
    "nominated-pending-pod": "10% of clusters",
    "explained-pod-nominated": "5% of explained pods",
    "preemption-policy-never": "~12% of pending pods (PriorityClass high-nonpreempting)",
    "default-preemption-args": "10% of profiles",
    "priority-global-default": "20% of clusters",
    "min-priority-victims": "10% of running pods (PriorityClass lowest, value -2147483648)",
    # host ports
    "host-ports": "12% of pods",
    "host-ip": "40% of host ports",
    "udp-sctp": "40% of host ports",
    # volumes
    "pvc": "volume clusters (30%): 30% of pods",
    "rwop-claims": "35% of volume clusters",
    "generic-ephemeral": "10% of pods in volume clusters",
    "allowed-topologies": "volume clusters",
    "two-csi-drivers": "volume clusters",
    "csinode-limit-0": "volume clusters, ~1 node in 3",
    "csinode-migrated-annotation": "half the CSINodes of volume clusters",
    "in-tree-volumes": "8% of pods in volume clusters",
    # DRA
    "dra": "15% of clusters",
    "dra-all": "20% of claims",
    "dra-first-available": "20% of claims",
    "dra-capacity-selector": "20% of claims",
    "dra-allocated": "25% of claims",
    "dra-reserved": "idem (reserved for a running pod)",
    # pods' state
    "terminal-pods": "4% of existing pods (Succeeded/Failed)",
    "scheduling-gates": "3% of pending pods",
    # configuration
    "two-profiles": "25% of configurations",
    "multipoint-weights": "20% of profiles",
    "disabled-filters": "15% of profiles",
    "disabled-scores": "20% of profiles",
    "score-weights": "30% of profiles",
    "rtcr-shape": "a third of scoring strategies",
    "most-allocated": "a third of scoring strategies",
    "ignored-resources": "12% of profiles",
    "ignored-resource-groups": "8% of profiles",
    "balanced-allocation-args": "15% of profiles",
    "profile-percentage": "big clusters: 70% of profiles, else 10%",
    "global-percentage": "big clusters: 40%, else 15%",
    "big-cluster": "8% of cases (100-300 nodes)",
    "adaptive-percentage": "40% of big clusters: 210-249 nodes, no percentageOfNodesToScore set",
    "adaptive-wide-pods": "70% of those: small pods tolerating every taint (explain: one; simulate: 2-4 more)",
    "preemption-pressure": "5% of cases: every node filled by a low-priority pod, high-priority pending pods",
    "all-filters": "20% of explain cases",
    "all-filters-dra": "all-filters cases with DRA",
}


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
    features: frozenset[str] = frozenset()

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


def coverage_table(cases: Iterable[Case]) -> str:
    """How many cases exercised each dimension, beside the rate it is drawn at."""
    counts: collections.Counter[str] = collections.Counter()
    total = 0
    for case in cases:
        total += 1
        counts.update(case.features)
    return format_coverage(counts, total)


def format_coverage(counts: collections.Counter[str] | dict[str, int], total: int) -> str:
    width = max(len(name) for name in DIMENSIONS)
    lines = [f"coverage over {total} cases (cases that exercised the dimension):"]
    for name, rate in DIMENSIONS.items():
        n = counts.get(name, 0)
        share = f"{100 * n / total:5.1f}%" if total else "  -  "
        flag = "  EXCLUDED" if name in EXCLUDED else ("  NOT COVERED" if n == 0 else "")
        lines.append(f"  {name:<{width}} {n:6d} {share}   drawn at: {rate}{flag}")
    return "\n".join(lines)


def _millis(m: int) -> str:
    return f"{m}m"


def _mem(rng: random.Random, choices: tuple[int, ...]) -> str:
    return f"{rng.choice(choices)}Mi"


class _Generator:
    def __init__(self, rng: random.Random, command: str) -> None:
        self.rng = rng
        self.command = command
        self.uid = 0
        self.features: set[str] = set()
        self.dra = self.chance("dra", 0.15)
        self.volumes = rng.random() < 0.30
        self.hugepages = self.chance("hugepages", 0.25)
        self.extended = self.chance("extended-resources", 0.30)
        self.objects: list[dict[str, Any]] = []
        self.nodes: list[dict[str, Any]] = []
        self.claims: list[str] = []
        self.pvcs: list[str] = []
        self.rwop: list[str] = []
        self.existing_pods: list[dict[str, Any]] = []
        self.profiles = ["default-scheduler"]

    def chance(self, dimension: str, p: float) -> bool:
        """Draw a dimension at rate p, unless it is excluded; record it when drawn."""
        if dimension in EXCLUDED:
            return False
        if self.rng.random() < p:
            self.features.add(dimension)
            return True
        return False

    def hit(self, dimension: str) -> None:
        self.features.add(dimension)

    def next_uid(self) -> str:
        self.uid += 1
        return f"00000000-0000-4000-8000-{self.uid:012d}"

    # -- the cluster ------------------------------------------------------------------------
    def case(self, seed: int, index: int) -> Case:
        rng = self.rng
        big = self.chance("big-cluster", 0.08)
        # From 210 to 249 nodes upstream's adaptive share (50% less a point per 125 nodes) asks
        # for 102-122 feasible nodes, more than the floor of 100: the only sizes under 300 where
        # the formula, not the floor, decides how many nodes a cycle examines.
        adaptive = big and self.chance("adaptive-percentage", 0.4)
        n_nodes = rng.randint(210, 249) if adaptive else rng.randint(100, 300) if big else rng.randint(1, 12)
        zones = ZONES[: rng.randint(1, 3)]
        for i in range(n_nodes):
            self.nodes.append(self.node(f"n-{i:03d}", rng.choice(zones)))
        classes = [
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "low"}, "value": 100},
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000},
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high-nonpreempting"},
             "value": 1000, "preemptionPolicy": "Never"},
            # The lowest int32: a victim of this priority adds 0 to the offset priority sum
            # preemption ranks candidates by, so a node with one more such victim ties with
            # another on highest priority and on sum, and the victim count decides.
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "lowest"},
             "value": -2147483648},
        ]
        if self.chance("priority-global-default", 0.2):
            classes.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                            "metadata": {"name": "default-prio"}, "value": 50, "globalDefault": True})
        self.objects += classes
        self.objects.append({"apiVersion": "v1", "kind": "Namespace",
                             "metadata": {"name": "default", "labels": {"team": "a"}}})
        self.objects.append({"apiVersion": "v1", "kind": "Namespace",
                             "metadata": {"name": "other", "labels": {"team": "b"}}})
        self.objects.append({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "kata"},
                             "handler": "kata", "overhead": {"podFixed": {"cpu": "250m", "memory": "120Mi"}}})
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
        # Every node a preemption candidate: the dry run and every tie-break between candidates
        # decide the nominated node, not a lone node preemption could help.
        pressure = len(self.nodes) > 1 and self.chance("preemption-pressure", 0.05)
        config = self.config(big, adaptive)
        existing = rng.randint(0, 4 * n_nodes) if not big else rng.randint(40, 150)
        pods = []
        for i in range(existing):
            node = rng.choice(self.nodes)["metadata"]["name"]
            pod = self.pod(f"run-{i:03d}", node=node, existing=True)
            pods.append(pod)
            self.existing_pods.append(pod)
        if pressure:
            for i, node in enumerate(self.nodes):
                pods.append({"apiVersion": "v1", "kind": "Pod",
                             "metadata": {"name": f"filler-{i:03d}", "namespace": "default", "uid": self.next_uid(),
                                          "labels": {"app": "filler"}},
                             "spec": {"nodeName": node["metadata"]["name"], "priorityClassName": "low",
                                      "containers": [{"name": "c", "image": "app:1", "resources": {"requests": {
                                          "cpu": node["status"]["allocatable"]["cpu"]}}}]},
                             # Distinct start times: when candidates tie on everything else,
                             # upstream takes the first of a list in Go map order (random).
                             "status": {"phase": "Running", "startTime": f"2025-12-31T02:{i // 60:02d}:{i % 60:02d}Z"}})
        self.claim_states(pods)
        pods += self.pdbs()
        if self.chance("nominated-pending-pod", 0.1) and self.nodes:
            # A pod that already won a preemption and waits for its node.
            nominated = self.pod("nominated-0", existing=True)
            # kschedctl queues the cluster's pending pods before the files' pods; a freshly
            # started kube-scheduler queues all of them in list order (namespace, name).
            # "default/a-..." comes first in both.
            nominated["metadata"].update(name="a-nominated-0", namespace="default")
            nominated["metadata"].pop("ownerReferences", None)
            nominated["status"] = {"nominatedNodeName": rng.choice(self.nodes)["metadata"]["name"]}
            nominated["spec"]["priorityClassName"] = "high"
            nominated["spec"].pop("schedulerName", None)
            pods.append(nominated)
        pending_count = rng.randint(3, 12) if self.command == "simulate" else 1
        pending = [self.pod(f"pending-{i:02d}", existing=False) for i in range(pending_count)]
        if pressure:
            for p in pending:
                if p["spec"].get("priorityClassName") != "high-nonpreempting":
                    p["spec"]["priorityClassName"] = "high"
        if adaptive and self.chance("adaptive-wide-pods", 0.7):
            # Drawn pods fit on few of these nodes; the scan stops early only when more nodes
            # fit than the share asks for, so pods that fit nearly everywhere join them.
            wide = [self.wide_pod(f"pending-wide-{i}") for i in range(rng.randint(2, 4))]
            pending = wide[:1] if self.command == "explain" else pending + wide
        if self.command == "explain" and self.nodes and self.chance("explained-pod-nominated", 0.05):
            pending[0]["status"] = {"nominatedNodeName": rng.choice(self.nodes)["metadata"]["name"]}
        # A freshly started kube-scheduler queues pods in the API server's list order
        # (namespace, then name); equal priorities keep that order.
        pending.sort(key=lambda p: (p["metadata"]["namespace"], p["metadata"]["name"]))
        all_filters = self.command == "explain" and self.chance("all-filters", 0.2)
        if all_filters and self.dra and not self.chance("all-filters-dra", 1.0):
            all_filters = False
            self.features.discard("all-filters")
        return Case(seed, index, self.command, config, self.nodes + self.objects + pods, pending,
                    all_filters=all_filters, features=frozenset(self.features))

    def wide_pod(self, name: str) -> dict[str, Any]:
        """A small pod tolerating every taint, which nearly every node of a big cluster fits."""
        return {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": "default", "uid": self.next_uid(), "labels": {"app": "wide"}},
                "spec": {"containers": [{"name": "c", "image": "nginx:1.27",
                                         "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}],
                         "tolerations": [{"operator": "Exists"}]}}

    def node(self, name: str, zone: str) -> dict[str, Any]:
        rng = self.rng
        labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                  "topology.kubernetes.io/zone": zone, "topology.kubernetes.io/region": "region-1"}
        if rng.random() < 0.5:
            labels["disk"] = rng.choice(("ssd", "hdd"))
        if rng.random() < 0.3:
            labels["tier"] = rng.choice(("gold", "silver"))
        if rng.random() < 0.6:
            labels["rack"] = rng.choice(("r1", "r2", "r3"))  # a topology key some nodes lack
        if rng.random() < 0.7:
            labels["cores"] = str(rng.choice((2, 4, 8, 16)))  # for Gt / Lt
        allocatable = {"cpu": rng.choice(("1", "2", "4", "3500m")), "memory": rng.choice(("2Gi", "4Gi", "8Gi")),
                       "pods": str(rng.choice((3, 10, 110))), "ephemeral-storage": "20Gi"}
        if self.extended:
            for resource in EXTENDED:
                if rng.random() < 0.6:
                    allocatable[resource] = str(rng.randint(0, 3))  # 0 is a node with none of it
        if self.hugepages and rng.random() < 0.7:
            allocatable["hugepages-2Mi"] = rng.choice(("0", "256Mi", "1Gi"))
        spec: dict[str, Any] = {}
        taints = []
        if rng.random() < 0.2:
            for _ in range(rng.randint(1, 2)):
                effect = rng.choice(("NoSchedule", "PreferNoSchedule", "NoExecute"))
                self.hit(f"taint-{effect.lower()}")
                taints.append({"key": rng.choice(TAINT_KEYS), "value": rng.choice(("a", "b")), "effect": effect})
        if self.chance("unschedulable-flag", 0.06):
            spec["unschedulable"] = True
            if self.chance("cordon-taint", 0.9):
                taints.append({"key": CORDON, "effect": "NoSchedule"})
        if taints:
            # Two taints with the same key and effect are invalid.
            unique = {(t["key"], t["effect"]): t for t in taints}
            spec["taints"] = list(unique.values())
        images = [{"names": [image], "sizeBytes": size} for image, size in IMAGES.items() if rng.random() < 0.4]
        status: dict[str, Any] = {"capacity": dict(allocatable), "allocatable": allocatable,
                                  "conditions": [{"type": "Ready", "status": "True"}]}
        if images:
            status["images"] = images
        return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
                "spec": spec, "status": status}

    def storage(self, zones: tuple[str, ...]) -> None:
        rng = self.rng
        self.hit("two-csi-drivers")
        for n in self.nodes:
            if rng.random() < 0.6:
                # NodeVolumeLimits: each CSI driver's attach limit on this node (0 to 2 volumes).
                name = n["metadata"]["name"]
                drivers = []
                for driver in CSI_DRIVERS + (GCE_PD_DRIVER,):
                    if rng.random() < 0.7:
                        count = rng.randint(0, 2)
                        if count == 0:
                            self.hit("csinode-limit-0")
                        drivers.append({"name": driver, "nodeID": name, "allocatable": {"count": count}})
                csinode: dict[str, Any] = {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                                           "metadata": {"name": name}, "spec": {"drivers": drivers}}
                if self.chance("csinode-migrated-annotation", 0.5):
                    # Upstream's NodeVolumeLimits counts an in-tree GCE PD with or without it
                    # (its migration gate is locked on); drawn both ways to keep that checked.
                    csinode["metadata"]["annotations"] = {
                        "storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/gce-pd"}
                self.objects.append(csinode)
        self.objects.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                             "metadata": {"name": "late"}, "provisioner": "example.com/csi",
                             "volumeBindingMode": "WaitForFirstConsumer"})
        self.objects.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                             "metadata": {"name": "other-late"}, "provisioner": "other.example.com/csi",
                             "volumeBindingMode": "WaitForFirstConsumer"})
        self.hit("allowed-topologies")
        self.objects.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                             "metadata": {"name": "zoned"}, "provisioner": "example.com/csi",
                             "volumeBindingMode": "WaitForFirstConsumer",
                             "allowedTopologies": [{"matchLabelExpressions": [
                                 {"key": "topology.kubernetes.io/zone", "values": [rng.choice(zones)]}]}]})
        self.objects.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                             "metadata": {"name": "now"}, "provisioner": "kubernetes.io/no-provisioner",
                             "volumeBindingMode": "Immediate"})
        rwop = self.chance("rwop-claims", 0.35)
        for i in range(rng.randint(1, 5)):
            zone = rng.choice(zones)
            name = f"pv-{i}"
            mode = "ReadWriteOncePod" if rwop and rng.random() < 0.5 else "ReadWriteOnce"
            sc = rng.choice(("late", "now", "other-late", "zoned"))
            driver = CSI_DRIVERS[1] if sc == "other-late" else CSI_DRIVERS[0]
            pv: dict[str, Any] = {
                "apiVersion": "v1", "kind": "PersistentVolume",
                "metadata": {"name": name, "labels": {"topology.kubernetes.io/zone": zone}},
                "spec": {"capacity": {"storage": "10Gi"}, "accessModes": [mode],
                         "storageClassName": sc,
                         "persistentVolumeReclaimPolicy": "Retain",
                         "csi": {"driver": driver, "volumeHandle": name},
                         "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                             {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [zone]}]}]}}},
                "status": {"phase": "Available"}}
            claim = f"data-{i}"
            bound = rng.random() < 0.6 or mode == "ReadWriteOncePod"
            pvc: dict[str, Any] = {
                "apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"name": claim, "namespace": "default", "uid": f"pvc-uid-{i}"},
                "spec": {"accessModes": [mode], "resources": {"requests": {"storage": "5Gi"}},
                         "storageClassName": sc},
                "status": {"phase": "Pending"}}
            if bound:
                pvc["spec"]["volumeName"] = name
                pvc["status"] = {"phase": "Bound", "accessModes": [mode], "capacity": {"storage": "10Gi"}}
                pvc["metadata"]["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
                pv["spec"]["claimRef"] = {"namespace": "default", "name": claim, "uid": f"pvc-uid-{i}"}
                pv["status"] = {"phase": "Bound"}
            elif self.command == "simulate":
                # Binding a claim at PreBind waits for a PV controller, which neither engine
                # runs in a simulation: simulate cases keep their claims bound.
                continue
            self.objects += [pv, pvc]
            self.pvcs.append(claim)
            if mode == "ReadWriteOncePod":
                self.rwop.append(claim)
        self.pvcs.append("missing-claim")

    def devices(self) -> None:
        rng = self.rng
        self.objects.append({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                             "metadata": {"name": DEVICE_CLASS},
                             "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}})
        self.slices: dict[str, list[str]] = {}
        for node in self.nodes:
            if rng.random() < 0.5:
                continue
            name = node["metadata"]["name"]
            devices = [{"name": f"gpu-{j}", "attributes": {"model": {"string": rng.choice(("a100", "h100"))},
                                                           "memory": {"int": rng.choice((40, 80))}},
                        "capacity": {"memory": {"value": rng.choice(("40Gi", "80Gi"))}}}
                       for j in range(rng.randint(1, 3))]
            self.slices[name] = [d["name"] for d in devices]
            self.objects.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                                 "metadata": {"name": f"{name}-gpus"},
                                 "spec": {"driver": DRIVER, "nodeName": name,
                                          "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                                          "devices": devices}})
        self.claim_objects: dict[str, dict[str, Any]] = {}
        for i in range(rng.randint(1, 3)):
            claim = f"gpu-claim-{i}"
            exactly: dict[str, Any] = {"deviceClassName": DEVICE_CLASS, "allocationMode": "ExactCount",
                                       "count": rng.choice((1, 1, 2))}
            if self.chance("dra-all", 0.2):
                exactly = {"deviceClassName": DEVICE_CLASS, "allocationMode": "All"}
            selectors = []
            if rng.random() < 0.4:
                selectors.append({"cel": {"expression":
                    f'device.attributes["{DRIVER}"].model == "{rng.choice(("a100", "h100"))}"'}})
            if self.chance("dra-capacity-selector", 0.2):
                selectors.append({"cel": {"expression":
                    f'device.capacity["{DRIVER}"].memory.compareTo(quantity("{rng.choice(("40Gi", "64Gi"))}")) >= 0'}})
            if selectors:
                exactly["selectors"] = selectors
            request: dict[str, Any] = {"name": "gpu", "exactly": exactly}
            if self.chance("dra-first-available", 0.2):
                request = {"name": "gpu", "firstAvailable": [
                    {"name": "big", "deviceClassName": DEVICE_CLASS, "count": 2, "selectors": [{"cel": {
                        "expression": f'device.attributes["{DRIVER}"].model == "h100"'}}]},
                    {"name": "small", "deviceClassName": DEVICE_CLASS, "count": 1}]}
            obj = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                   "metadata": {"name": claim, "namespace": "default", "uid": f"claim-uid-{i}"},
                   "spec": {"devices": {"requests": [request]}}}
            self.objects.append(obj)
            self.claims.append(claim)
            self.claim_objects[claim] = obj

    def claim_states(self, pods: list[dict[str, Any]]) -> None:
        """Some claims already allocated to a node's device, some of those reserved for a
        running pod there (which then uses the claim)."""
        if not self.dra or not self.slices:
            return
        rng = self.rng
        for claim, obj in self.claim_objects.items():
            if not self.chance("dra-allocated", 0.25):
                continue
            node = rng.choice(sorted(self.slices))
            request = obj["spec"]["devices"]["requests"][0]
            request_name = "gpu/small" if "firstAvailable" in request else "gpu"
            device = rng.choice(self.slices[node])
            status: dict[str, Any] = {"allocation": {
                "devices": {"results": [{"request": request_name, "driver": DRIVER, "pool": node, "device": device}]},
                "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": [node]}]}]}}}
            running = [p for p in pods if p["spec"].get("nodeName") == node and p["metadata"]["namespace"] == "default"
                       and p.get("status", {}).get("phase") == "Running"]
            if running and rng.random() < 0.6:
                self.hit("dra-reserved")
                user = rng.choice(running)
                user["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": claim}]
                status["reservedFor"] = [{"resource": "pods", "name": user["metadata"]["name"],
                                          "uid": user["metadata"]["uid"]}]
            obj["status"] = status

    def pdbs(self) -> list[dict[str, Any]]:
        rng = self.rng
        out = []
        for app in APPS:
            if rng.random() >= 0.25 or "pdb-min-available" in EXCLUDED:
                continue
            matching = [p for p in self.existing_pods if p["metadata"]["labels"].get("app") == app
                        and p["metadata"]["namespace"] == "default"]
            spec: dict[str, Any] = {"selector": {"matchLabels": {"app": app}}}
            if rng.random() < 0.5:
                self.hit("pdb-min-available")
                spec["minAvailable"] = rng.randint(0, max(1, len(matching)))
                allowed = max(0, len(matching) - spec["minAvailable"])
            else:
                self.hit("pdb-max-unavailable")
                spec["maxUnavailable"] = rng.randint(0, 2)
                allowed = min(len(matching), spec["maxUnavailable"])
            out.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                        "metadata": {"name": f"{app}-pdb", "namespace": "default"}, "spec": spec,
                        "status": {"disruptionsAllowed": allowed, "currentHealthy": len(matching),
                                   "desiredHealthy": len(matching) - allowed, "expectedPods": len(matching)}})
        return out

    # -- pods --------------------------------------------------------------------------------
    def container(self, name: str, existing: bool, image: str | None = None) -> tuple[dict[str, Any], int]:
        """A container and its CPU request in millicores."""
        rng = self.rng
        requests: dict[str, str] = {}
        cpu = 0
        if rng.random() < 0.85:
            cpu = rng.choice((50, 100, 250, 500, 1000, 1500) if existing else (100, 200, 500, 1000, 2000))
            requests["cpu"] = _millis(cpu)
        if rng.random() < 0.8:
            requests["memory"] = _mem(rng, (64, 256, 512, 1024, 2048))
        if self.extended and rng.random() < 0.25:
            requests[rng.choice(EXTENDED)] = str(rng.randint(1, 2))
        container: dict[str, Any] = {"name": name, "image": image or rng.choice(list(IMAGES) + ["app:1"])}
        if requests:
            if self.chance("limits-only", 0.12):
                container["resources"] = {"limits": dict(requests)}  # requests default to limits
            else:
                container["resources"] = {"requests": requests}
        if self.hugepages and rng.random() < 0.2:
            self.hit("hugepages")
            resources = container.setdefault("resources", {})
            amount = rng.choice(("128Mi", "512Mi"))
            # Hugepages need requests equal to limits, and memory or CPU beside them.
            resources.setdefault("requests", {}).update({"hugepages-2Mi": amount})
            resources["requests"].setdefault("memory", "64Mi")
            resources.setdefault("limits", {})["hugepages-2Mi"] = amount
        if self.chance("host-ports", 0.12):
            port: dict[str, Any] = {"containerPort": 8080, "hostPort": rng.choice((8080, 9090))}
            if self.chance("host-ip", 0.4):
                port["hostIP"] = rng.choice(("10.0.0.1", "10.0.0.2", "0.0.0.0"))
            if self.chance("udp-sctp", 0.4):
                port["protocol"] = rng.choice(("UDP", "SCTP"))
            container["ports"] = [port]
        return container, cpu

    def pod(self, name: str, *, node: str | None = None, existing: bool) -> dict[str, Any]:
        rng = self.rng
        app = rng.choice(APPS)
        namespace = "other" if rng.random() < 0.1 else "default"
        container, cpu_sum = self.container("c", existing)
        containers = [container]
        if self.chance("several-containers", 0.2):
            for j in range(rng.randint(1, 2)):
                extra, cpu = self.container(f"c{j + 1}", existing)
                extra.pop("ports", None)
                containers.append(extra)
                cpu_sum += cpu
        spec: dict[str, Any] = {"containers": containers}
        inits = []
        init_cpu = 0
        if self.chance("init-containers", 0.12):
            init_cpu = rng.choice((100, 3000))
            inits.append({"name": "init", "image": "busybox:1.36", "resources": {"requests": {"cpu": _millis(init_cpu)}}})
        if self.chance("sidecar-containers", 0.10):
            sidecar_cpu = rng.choice((100, 500))
            inits.append({"name": "sidecar", "image": "busybox:1.36", "restartPolicy": "Always",
                          "resources": {"requests": {"cpu": _millis(sidecar_cpu), "memory": "64Mi"}}})
            cpu_sum += sidecar_cpu
        if inits:
            spec["initContainers"] = inits
        if self.chance("overhead-runtimeclass", 0.08):
            spec["runtimeClassName"] = "kata"
            spec["overhead"] = {"cpu": "250m", "memory": "120Mi"}
        if self.chance("pod-level-resources", 0.08):
            # Pod-level requests cover at least the containers' aggregate, an init container's
            # included (API validation; the API server refused the pod without it). The sidecar
            # starts after the init container, so the init container runs alone.
            level = max(cpu_sum, init_cpu, rng.choice((500, 2000, 3000, 12000)))
            spec["resources"] = {"requests": {"cpu": _millis(level), "memory": rng.choice(("1Gi", "3Gi"))}}
            for c in containers + inits:
                # Containers then need no memory above the pod's: keep them to CPU.
                c.get("resources", {}).get("requests", {}).pop("memory", None)
                c.get("resources", {}).get("limits", {}).pop("memory", None)
                c.get("resources", {}).get("requests", {}).pop("hugepages-2Mi", None)
                c.get("resources", {}).get("limits", {}).pop("hugepages-2Mi", None)
        if rng.random() < 0.35:
            choices = ("low", "high", "high-nonpreempting") if not existing else ("low", "high")
            if "preemption-policy-never" in EXCLUDED:
                choices = ("low", "high")
            spec["priorityClassName"] = rng.choice(choices)
            if spec["priorityClassName"] == "high-nonpreempting":
                self.hit("preemption-policy-never")
        if existing and self.chance("min-priority-victims", 0.10):
            spec["priorityClassName"] = "lowest"
        if rng.random() < 0.2:
            spec["tolerations"] = [self.toleration() for _ in range(rng.randint(1, 2))]
        labels = {"app": app, "version": rng.choice(VERSIONS)}
        if not existing:
            self.constraints(spec, app, labels)
        elif rng.random() < 0.15:
            self.affinity(spec, app, labels)
        if existing and rng.random() < 0.1:
            spec["topologySpreadConstraints"] = [self.spread(app, soft=True)]
        volumes = []
        if self.pvcs and rng.random() < 0.3 and namespace == "default":
            self.hit("pvc")
            claim = rng.choice(self.pvcs)
            if not (existing and claim == "missing-claim"):
                volumes.append({"name": "data", "persistentVolumeClaim": {"claimName": claim}})
        if self.volumes and self.chance("in-tree-volumes", 0.08):
            volumes.append({"name": "disk", "gcePersistentDisk": {"pdName": rng.choice(("pd-1", "pd-2")),
                                                                  "readOnly": rng.random() < 0.3}})
        if self.volumes and namespace == "default" and self.chance("generic-ephemeral", 0.10) and \
                self.command != "simulate":
            volumes.append({"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {
                "accessModes": ["ReadWriteOnce"], "storageClassName": rng.choice(("late", "zoned")),
                "resources": {"requests": {"storage": "1Gi"}}}}}})
        if volumes:
            spec["volumes"] = volumes
            container["volumeMounts"] = [{"name": v["name"], "mountPath": f"/{v['name']}"} for v in volumes]
        if self.claims and not existing and rng.random() < 0.5 and namespace == "default":
            spec["resourceClaims"] = [{"name": "gpu", "resourceClaimName": rng.choice(self.claims)}]
            container.setdefault("resources", {})["claims"] = [{"name": "gpu"}]
        metadata: dict[str, Any] = {"name": name, "namespace": namespace, "uid": self.next_uid(), "labels": labels}
        if app == "web" and namespace == "default" and rng.random() < 0.5:
            metadata["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-rs",
                                            "uid": "rs-web", "controller": True}]
            if not existing and "topologySpreadConstraints" not in spec:
                self.hit("spread-system-defaults")
        if not existing and self.chance("scheduling-gates", 0.03):
            spec["schedulingGates"] = [{"name": "example.com/wait"}]
        if len(self.profiles) > 1 and rng.random() < 0.5:
            spec["schedulerName"] = rng.choice(self.profiles)
        pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}
        if node:
            spec["nodeName"] = node
        if any("ephemeral" in v for v in volumes):
            self.ephemeral_claim(pod)
        if node:
            # A start time of its own (day, hour and second from the pod's uid): candidates that
            # tie on every other criterion are told apart by the latest start, where upstream
            # would otherwise take the first of a list in Go map order (random).
            n = self.uid
            pod["status"] = {"phase": "Running", "startTime":
                             f"2026-01-{1 + n // 1440:02d}T{n // 60 % 24:02d}:{rng.randint(0, 59):02d}:{n % 60:02d}Z"}
            if self.chance("terminal-pods", 0.04):
                pod["status"]["phase"] = rng.choice(("Succeeded", "Failed"))
            elif self.chance("terminating-pods", 0.05):
                metadata["deletionTimestamp"] = "2026-01-01T01:00:00Z"
                metadata["deletionGracePeriodSeconds"] = 30
        if self.rwop and namespace == "default" and rng.random() < 0.3:
            # Both running and pending pods take the ReadWriteOncePod claims.
            claim = rng.choice(self.rwop)
            spec.setdefault("volumes", []).append({"name": "rwop", "persistentVolumeClaim": {"claimName": claim}})
        return pod

    def ephemeral_claim(self, pod: dict[str, Any]) -> None:
        """The claim the ephemeral volume controller would create, most of the time."""
        rng = self.rng
        if rng.random() < 0.25:
            return  # not created yet
        name = f"{pod['metadata']['name']}-scratch"
        template = next(v for v in pod["spec"]["volumes"] if "ephemeral" in v)["ephemeral"]["volumeClaimTemplate"]
        # A running pod's claim was its own (it could not have been scheduled otherwise); a
        # pending pod may find one made for someone else.
        mine = "nodeName" in pod["spec"] or rng.random() < 0.85
        owner = pod["metadata"]["uid"] if mine else "someone-else"
        self.objects.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                             "metadata": {"name": name, "namespace": pod["metadata"]["namespace"],
                                          "uid": f"eph-{pod['metadata']['uid'][-6:]}",
                                          "ownerReferences": [{"apiVersion": "v1", "kind": "Pod",
                                                               "name": pod["metadata"]["name"], "uid": owner,
                                                               "controller": True}]},
                             "spec": template["spec"], "status": {"phase": "Pending"}})

    def toleration(self) -> dict[str, Any]:
        rng = self.rng
        if rng.random() < 0.15:
            return {"operator": "Exists"}
        if rng.random() < 0.15:
            return {"key": CORDON, "operator": "Exists", "effect": "NoSchedule"}
        tol: dict[str, Any] = {"key": rng.choice(TAINT_KEYS)}
        if rng.random() < 0.5:
            tol.update(operator="Equal", value=rng.choice(("a", "b")))
        else:
            tol["operator"] = "Exists"
        if rng.random() < 0.6:
            tol["effect"] = rng.choice(("NoSchedule", "PreferNoSchedule", "NoExecute"))
            if tol["effect"] == "NoExecute" and self.chance("toleration-seconds", 0.5):
                tol["tolerationSeconds"] = rng.choice((0, 300))
        return tol

    def constraints(self, spec: dict[str, Any], app: str, labels: dict[str, str]) -> None:
        rng = self.rng
        if self.chance("node-selector", 0.15):
            spec["nodeSelector"] = {"disk": rng.choice(("ssd", "hdd"))}
        if rng.random() < 0.35:
            self.affinity(spec, app, labels)
        if self.chance("spread", 0.3):
            n = 1
            if self.chance("spread-several", 0.35):
                n = rng.randint(2, 3)
            keys = rng.sample(("kubernetes.io/hostname", "topology.kubernetes.io/zone", "rack"), n)
            spec["topologySpreadConstraints"] = [self.spread(app, soft=rng.random() < 0.4, key=k) for k in keys]

    def node_term(self, fields: bool = True) -> dict[str, Any]:
        rng = self.rng
        term: dict[str, Any] = {}
        expressions = []
        for _ in range(1 if rng.random() < 0.7 else 2):
            if self.chance("gt-lt", 0.25):
                expressions.append({"key": "cores", "operator": rng.choice(("Gt", "Lt")),
                                    "values": [str(rng.choice((2, 4, 8)))]})
                continue
            expr = {"key": rng.choice(("disk", "tier", "topology.kubernetes.io/zone")),
                    "operator": rng.choice(("In", "NotIn", "Exists", "DoesNotExist")),
                    "values": [rng.choice(("ssd", "hdd", "gold", "zone-a", "zone-b"))]}
            if expr["operator"] in ("Exists", "DoesNotExist"):
                expr.pop("values")
            expressions.append(expr)
        if expressions:
            term["matchExpressions"] = expressions
        if fields and self.nodes and self.chance("match-fields", 0.25):
            # API validation: a metadata.name requirement takes exactly one value.
            term["matchFields"] = [{"key": "metadata.name", "operator": rng.choice(("In", "NotIn")),
                                    "values": [rng.choice(self.nodes)["metadata"]["name"]]}]
            if rng.random() < 0.5:
                term.pop("matchExpressions", None)
        return term

    def affinity(self, spec: dict[str, Any], app: str, labels: dict[str, str]) -> None:
        rng = self.rng
        affinity: dict[str, Any] = {}
        if rng.random() < 0.4:
            if not self.chance("node-affinity-preferred", 0.5):
                terms = [self.node_term()]
                if self.chance("several-terms", 0.3):
                    terms.append(self.node_term())
                affinity["nodeAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}
            else:
                term = self.node_term(fields=False)  # preferred terms take no matchFields
                if not term:
                    term = {"matchExpressions": [{"key": "disk", "operator": "Exists"}]}
                affinity["nodeAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": rng.randint(1, 100), "preference": term}]}
        for kind in ("podAffinity", "podAntiAffinity"):
            if rng.random() < 0.35:
                self.hit("pod-affinity" if kind == "podAffinity" else "pod-anti-affinity")
                term = self.pod_term(app)
                if rng.random() < 0.5:
                    affinity[kind] = {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
                else:
                    affinity[kind] = {"preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": rng.randint(1, 100), "podAffinityTerm": term}]}
        if affinity:
            spec["affinity"] = affinity

    def pod_term(self, app: str) -> dict[str, Any]:
        rng = self.rng
        term: dict[str, Any] = {"labelSelector": {"matchLabels": {"app": rng.choice(APPS) if rng.random() < 0.5 else app}},
                                "topologyKey": rng.choice(("kubernetes.io/hostname", "topology.kubernetes.io/zone"))}
        if self.chance("partial-topology-key", 0.2):
            term["topologyKey"] = "rack"
        if self.chance("affinity-namespaces", 0.15):
            term["namespaces"] = rng.choice((["default", "other"], ["other"]))
        if self.chance("namespace-selector-empty", 0.12):
            term["namespaceSelector"] = {}
        elif self.chance("namespace-selector-label", 0.12):
            term["namespaceSelector"] = {"matchLabels": {"team": rng.choice(("a", "b"))}}
        for dimension, rate, key in (("affinity-match-label-keys", 0.15, "matchLabelKeys"),
                                     ("affinity-mismatch-label-keys", 0.10, "mismatchLabelKeys")):
            if self.chance(dimension, rate):
                # as a user writes it: the API server merges it into labelSelector at create
                term[key] = ["version"]
                break
        return term

    def spread(self, app: str, soft: bool, key: str | None = None) -> dict[str, Any]:
        rng = self.rng
        key = key or rng.choice(("kubernetes.io/hostname", "topology.kubernetes.io/zone"))
        if key == "rack":
            self.hit("spread-missing-key")
        constraint: dict[str, Any] = {
            "maxSkew": rng.choice((1, 1, 2)),
            "topologyKey": key,
            "whenUnsatisfiable": "ScheduleAnyway" if soft else "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": app}}}
        if not soft and self.chance("spread-min-domains", 0.25):
            constraint["minDomains"] = rng.randint(1, 4)
        if self.chance("spread-inclusion-policies", 0.3):
            if rng.random() < 0.6:
                constraint["nodeAffinityPolicy"] = rng.choice(("Honor", "Ignore"))
            if rng.random() < 0.6:
                constraint["nodeTaintsPolicy"] = rng.choice(("Honor", "Ignore"))
        if self.chance("spread-match-label-keys", 0.15):
            constraint["matchLabelKeys"] = ["version"]
        return constraint

    # -- the configuration -------------------------------------------------------------------
    def config(self, big: bool, adaptive: bool = False) -> dict[str, Any] | None:
        rng = self.rng
        if rng.random() < 0.35 and not big:
            return None
        profiles = [self.profile("default-scheduler", big, adaptive)]
        if self.chance("two-profiles", 0.25):
            profiles.append(self.profile(SECOND_PROFILE, big, adaptive))
            self.profiles.append(SECOND_PROFILE)
        config: dict[str, Any] = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                                  "profiles": profiles}
        if not adaptive and self.chance("global-percentage", 0.4 if big else 0.15):
            config["percentageOfNodesToScore"] = rng.choice((0, 10, 30, 50, 100))
        return config

    def profile(self, name: str, big: bool, adaptive: bool = False) -> dict[str, Any]:
        rng = self.rng
        profile: dict[str, Any] = {"schedulerName": name}
        plugins: dict[str, Any] = {}
        args: list[dict[str, Any]] = []
        scorers = ("NodeResourcesFit", "ImageLocality", "TaintToleration", "NodeAffinity", "PodTopologySpread",
                   "InterPodAffinity", "NodeResourcesBalancedAllocation")
        if self.chance("score-weights", 0.3):
            plugins["score"] = {"enabled": [{"name": n, "weight": rng.randint(1, 10)} for n in rng.sample(scorers, 2)]}
        if self.chance("multipoint-weights", 0.2):
            plugins["multiPoint"] = {"enabled": [{"name": n, "weight": rng.randint(1, 5)}
                                                 for n in rng.sample(scorers, rng.randint(1, 2))]}
        if self.chance("disabled-scores", 0.2):
            plugins.setdefault("score", {})["disabled"] = [{"name": rng.choice(("ImageLocality",
                                                                                "NodeResourcesBalancedAllocation",
                                                                                "TaintToleration"))}]
        if self.chance("disabled-filters", 0.15):
            plugins["filter"] = {"disabled": [{"name": n} for n in rng.sample(
                ("NodePorts", "TaintToleration", "NodeAffinity", "VolumeRestrictions", "NodeUnschedulable"),
                rng.randint(1, 2))]}
        if rng.random() < 0.45:
            strategy = rng.choice(("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"))
            resources = [{"name": "cpu", "weight": rng.randint(1, 3)}, {"name": "memory", "weight": rng.randint(1, 3)}]
            if self.extended and rng.random() < 0.5:
                resources.append({"name": EXTENDED[0], "weight": rng.randint(1, 3)})
            scoring: dict[str, Any] = {"type": strategy, "resources": resources}
            if strategy == "MostAllocated":
                self.hit("most-allocated")
            if strategy == "RequestedToCapacityRatio":
                self.hit("rtcr-shape")
                scoring["requestedToCapacityRatio"] = {"shape": rng.choice((
                    [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}],
                    [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}],
                    [{"utilization": 0, "score": 2}, {"utilization": 40, "score": 9}, {"utilization": 80, "score": 3}],
                    [{"utilization": 30, "score": 10}, {"utilization": 70, "score": 5}],
                ))}
            fit: dict[str, Any] = {"scoringStrategy": scoring}
            if self.chance("ignored-resources", 0.12 / 0.45):
                fit["ignoredResources"] = [EXTENDED[0]]
            elif self.chance("ignored-resource-groups", 0.08 / 0.45):
                fit["ignoredResourceGroups"] = ["example.com"]
            args.append({"name": "NodeResourcesFit", "args": fit})
        if self.chance("spread-list-defaults", 0.15):
            args.append({"name": "PodTopologySpread", "args": {
                "defaultingType": "List",
                "defaultConstraints": [{"maxSkew": rng.randint(1, 3), "topologyKey": "topology.kubernetes.io/zone",
                                        "whenUnsatisfiable": rng.choice(("ScheduleAnyway", "DoNotSchedule"))}]}})
        if self.chance("hard-pod-affinity-weight", 0.1):
            args.append({"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": rng.randint(0, 100)}})
        if self.chance("balanced-allocation-args", 0.15):
            args.append({"name": "NodeResourcesBalancedAllocation", "args": {
                "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
                + ([{"name": EXTENDED[1], "weight": 1}] if self.extended and rng.random() < 0.5 else [])}})
        if self.chance("added-affinity", 0.1):
            args.append({"name": "NodeAffinity", "args": {"addedAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [self.node_term()]}}}})
        if self.chance("default-preemption-args", 0.1):
            percentage, absolute = rng.choice(((0, 1), (10, 0), (100, 100), (10, 1), (0, 100)))
            args.append({"name": "DefaultPreemption", "args": {
                "minCandidateNodesPercentage": percentage, "minCandidateNodesAbsolute": absolute}})
        if plugins:
            profile["plugins"] = plugins
        if args:
            profile["pluginConfig"] = args
        if not adaptive and self.chance("profile-percentage", 0.7 if big else 0.1):
            profile["percentageOfNodesToScore"] = rng.choice((5, 10, 20, 40, 60))
        return profile


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.diffgen",
                                     description="Print the coverage of generated differential cases.")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--simulate-cases", type=int, default=None)
    ns = parser.parse_args(argv)
    simulate = ns.cases // 10 if ns.simulate_cases is None else ns.simulate_cases
    cases = (generate(ns.seed, i, c) for c, n in (("explain", ns.cases), ("simulate", simulate)) for i in range(n))
    print(coverage_table(cases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
