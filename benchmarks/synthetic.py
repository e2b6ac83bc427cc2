"""Deterministic synthetic clusters, in the spirit of upstream's scheduler_perf templates.

Nodes (test/integration/scheduler_perf/templates/node-default.yaml): 4 CPU, 32Gi memory,
110 pods, spread over 3 zones. Pods (pod-default.yaml): one container requesting 100m CPU and
500Mi memory. Everything is a function of the arguments: the same call gives the same cluster.
"""

from __future__ import annotations

from typing import Any

ZONES = ("zone-a", "zone-b", "zone-c")


def node(i: int) -> dict[str, Any]:
    name = f"node-{i:05d}"
    zone = ZONES[i % len(ZONES)]
    resources = {"cpu": "4", "memory": "32Gi", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "topology.kubernetes.io/region": "region-1",
                "topology.kubernetes.io/zone": zone,
            },
        },
        "spec": {},
        "status": {"capacity": dict(resources), "allocatable": dict(resources),
                   "conditions": [{"type": "Ready", "status": "True"}]},
    }


def pod(name: str, node_name: str | None = None, namespace: str = "default") -> dict[str, Any]:
    spec: dict[str, Any] = {
        "schedulerName": "default-scheduler",
        "priority": 0,
        "containers": [{
            "name": "pause",
            "image": "registry.k8s.io/pause:3.10",
            "resources": {"requests": {"cpu": "100m", "memory": "500Mi"},
                          "limits": {"cpu": "100m", "memory": "500Mi"}},
        }],
    }
    if node_name:
        spec["nodeName"] = node_name
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}", "labels": {"app": "bench"}},
        "spec": spec,
        "status": {"phase": "Running"} if node_name else {"phase": "Pending"},
    }


def cluster_objects(num_nodes: int, pods_per_node: int = 10) -> tuple[list[dict], list[dict]]:
    """``num_nodes`` nodes with ``pods_per_node`` running pods each: (nodes, pods)."""
    nodes = [node(i) for i in range(num_nodes)]
    pods = [pod(f"pod-{i:05d}-{j:02d}", nodes[i]["metadata"]["name"])
            for i in range(num_nodes) for j in range(pods_per_node)]
    return nodes, pods


def pending_pod(name: str = "bench-pending") -> dict[str, Any]:
    return pod(name)


# --- scheduler_perf-like workloads for ``benchmarks.simulate`` ---------------------------------


def perf_pod(
    name: str,
    cpu: str = "100m",
    memory: str = "500Mi",
    labels: dict[str, str] | None = None,
    node_name: str | None = None,
    priority_class: str | None = None,
    extra_spec: dict[str, Any] | None = None,
    namespace: str = "default",
) -> dict[str, Any]:
    """A pod like upstream's scheduler_perf templates (pod-default.yaml and friends).

    ``priority_class`` names a PriorityClass (admission fills spec.priority from it); the pod
    carries no spec.priority itself, as the API server requires.
    """
    spec: dict[str, Any] = {
        "schedulerName": "default-scheduler",
        "containers": [{
            "name": "pause",
            "image": "registry.k8s.io/pause:3.10",
            "ports": [{"containerPort": 80}],
            "resources": {"requests": {"cpu": cpu, "memory": memory}, "limits": {"cpu": cpu, "memory": memory}},
        }],
    }
    if priority_class:
        spec["priorityClassName"] = priority_class
    if node_name:
        spec["nodeName"] = node_name
    spec.update(extra_spec or {})
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{namespace}-{name}",
                     "labels": dict(labels or {"app": "bench"})},
        "spec": spec,
        "status": {"phase": "Running"} if node_name else {"phase": "Pending"},
    }


def priority_class(name: str, value: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value, "preemptionPolicy": "PreemptLowerPriority"}


def topology_spread_spec(max_skew: int = 5, key: str = "topology.kubernetes.io/zone",
                         labels: dict[str, str] | None = None) -> dict[str, Any]:
    """pod-with-topology-spreading.yaml: DoNotSchedule spread over zones, maxSkew 5."""
    return {"topologySpreadConstraints": [{
        "maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": dict(labels or {"color": "blue"})}}]}


def anti_affinity_spec(labels: dict[str, str] | None = None, key: str = "kubernetes.io/hostname") -> dict[str, Any]:
    """pod-with-pod-anti-affinity.yaml: required anti-affinity to pods of the same color per host."""
    return {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": dict(labels or {"color": "green"})}, "topologyKey": key}]}}}
