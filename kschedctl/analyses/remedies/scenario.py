"""Private copies of the pod, the node and the cycle state, changed step by step, on which a
hint's plugin is asked again (kschedctl.analyses.remedies explains the whole)."""

from __future__ import annotations

from typing import Any, Protocol

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.k8s.resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS
from kschedctl.plugins.remedy import UNSCHEDULABLE_TAINT_KEY, parse_amount

#: Change kinds ``Scenario.apply`` simulates; the others (raiseVolumeLimit, ...) are advice.
SIMULATED_KINDS = frozenset({"addToleration", "setNodeName", "setNodeLabel", "removeNodeLabel", "uncordon",
                             "raiseAllocatable", "removePods", "addPod"})


class ScenarioEngine(Protocol):
    """What a scenario needs of the engine: the framework (PreFilter extensions) and pod lookups."""

    fwk: Any

    def pod_by_key(self, key: str) -> tuple[PodInfo, NodeInfo] | None: ...


class Scenario:
    """The node, pod and cycle state of one what-if, copied on first write."""

    def __init__(self, engine: ScenarioEngine, state: CycleState, pod_info: PodInfo, node_info: NodeInfo) -> None:
        self.engine = engine
        self.state = state
        self.pod_info = pod_info
        self.node_info = node_info
        self._own_state = False
        self._own_node = False
        self._raised: dict[str, int] = {}
        self.removed: set[str] = set()

    @property
    def name(self) -> str:
        return self.node_info.name

    def _state(self) -> CycleState:
        if not self._own_state:
            self.state = self.state.clone()
            self._own_state = True
        return self.state

    def _node(self) -> NodeInfo:
        if not self._own_node:
            self.node_info = self.node_info.clone()
            self._own_node = True
        return self.node_info

    def _set_node(self, node: dict) -> None:
        ni = self._node()
        ni.set_node(node)
        for resource, amount in self._raised.items():
            _add_resource(ni, resource, amount)

    def _pod(self, pod: dict) -> None:
        self.pod_info = PodInfo(pod)

    def apply(self, change: dict) -> None:
        """Apply one change (the JSON form of a hint's change) to the copies."""
        kind = change["kind"]
        if kind == "addToleration":
            pod = _copy_pod(self.pod_info.pod)
            pod["spec"]["tolerations"] = list(pod["spec"].get("tolerations") or []) + [change["toleration"]]
            self._pod(pod)
        elif kind == "setNodeName":
            pod = _copy_pod(self.pod_info.pod)
            pod["spec"]["nodeName"] = change["nodeName"]
            self._pod(pod)
        elif kind in ("setNodeLabel", "removeNodeLabel"):
            node = _copy_node(self.node_info.node or {})
            labels = node["metadata"]["labels"]
            if kind == "setNodeLabel":
                labels[change["key"]] = change["value"]
            else:
                labels.pop(change["key"], None)
            self._set_node(node)
        elif kind == "uncordon":
            node = _copy_node(self.node_info.node or {})
            node["spec"].pop("unschedulable", None)
            # The node lifecycle controller removes its taint when the node is uncordoned.
            node["spec"]["taints"] = [t for t in node["spec"].get("taints") or ()
                                      if t.get("key") != UNSCHEDULABLE_TAINT_KEY]
            self._set_node(node)
        elif kind == "raiseAllocatable":
            resource = change["resource"]
            amount = parse_amount(resource, change["by"])
            self._raised[resource] = self._raised.get(resource, 0) + amount
            _add_resource(self._node(), resource, amount)
        elif kind == "removePods":
            for key in change["pods"]:
                self._remove_pod(key)
        elif kind == "addPod":
            self._add_pod(change)
        # Other kinds (e.g. raiseVolumeLimit) are advice only: nothing to simulate.

    def _remove_pod(self, key: str) -> None:
        if key in self.removed:
            return
        found = self.engine.pod_by_key(key)
        if found is None:
            return
        pi, ni = found
        self.removed.add(key)
        target = ni
        if ni.name == self.node_info.name:
            target = self._node()
            target.remove_pod(pi)
        self.engine.fwk.run_pre_filter_extension_remove_pod(self._state(), self.pod_info, pi, target)

    def _add_pod(self, change: dict) -> None:
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": change.get("name") or "hint-pod", "namespace": change.get("namespace") or "default",
                            "uid": f"kschedctl-hint/{change.get('name') or 'hint-pod'}",
                            "labels": dict(change.get("labels") or {})},
               "spec": {"nodeName": self.node_info.name, "containers": [{"name": "c", "image": "pause"}]}}
        pi = PodInfo(pod)
        ni = self._node()
        ni.add_pod(pi)
        self.engine.fwk.run_pre_filter_extension_add_pod(self._state(), self.pod_info, pi, ni)


def _copy_pod(pod: dict) -> dict:
    out = dict(pod)
    out["metadata"] = dict(pod.get("metadata") or {})
    out["spec"] = dict(pod.get("spec") or {})
    return out


def _copy_node(node: dict) -> dict:
    out = dict(node)
    meta = dict(node.get("metadata") or {})
    meta["labels"] = dict(meta.get("labels") or {})
    out["metadata"] = meta
    out["spec"] = dict(node.get("spec") or {})
    return out


def _add_resource(ni: NodeInfo, resource: str, amount: int) -> None:
    alloc = ni.allocatable
    if resource == CPU:
        alloc.milli_cpu += amount
    elif resource == MEMORY:
        alloc.memory += amount
    elif resource == EPHEMERAL_STORAGE:
        alloc.ephemeral_storage += amount
    elif resource == PODS:
        alloc.allowed_pod_number += amount
    else:
        alloc.scalar_resources[resource] = alloc.scalar_resources.get(resource, 0) + amount


