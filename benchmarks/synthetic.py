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
