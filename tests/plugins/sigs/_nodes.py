"""Builders shared by the out-of-tree plugin tests (upstream's makeNodeInfo helpers as data)."""

from __future__ import annotations

from typing import Any

from kschedctl.framework.snapshot import Snapshot
from tests.plugins.harness import TestHandle, pod_info


def pod_state_env(nodes: list[list[Any]], pod_capacity: int | None = None) -> tuple[Snapshot, TestHandle]:
    """Nodes with terminating, nominated and regular pods; the nominated ones also nominated."""
    node_objs, pods, nominated = [], [], {}
    for name, terminating, nominated_n, regular in nodes:
        node: dict = {"kind": "Node", "metadata": {"name": name}, "status": {}}
        if pod_capacity is not None:
            node["status"] = {"capacity": {"pods": str(pod_capacity)}, "allocatable": {"pods": str(pod_capacity)}}
        node_objs.append(node)
        for i in range(terminating):
            pods.append({"metadata": {"name": f"tpod_{name}_{i + 1}", "deletionTimestamp": "2024-01-01T00:00:00Z"},
                         "spec": {"nodeName": name}})
        for i in range(nominated_n):
            pods.append({"metadata": {"name": f"npod_{name}_{i + 1}"}, "spec": {"nodeName": name},
                         "status": {"nominatedNodeName": name}})
        for i in range(regular):
            pods.append({"metadata": {"name": f"rpod_{name}_{i + 1}"}, "spec": {"nodeName": name}})
    infos = [pod_info(p) for p in pods]
    snapshot = Snapshot(node_objs, infos)
    for pi in infos:
        if pi.nominated_node_name:
            nominated.setdefault(pi.nominated_node_name, []).append(pi)
    return snapshot, TestHandle(snapshot, None, nominated)
