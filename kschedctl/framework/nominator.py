"""Nominated pods (upstream's nominator in pkg/scheduler/backend/queue, release-1.34): which pods
preemption nominated to which node, which Filter runs account for in its two passes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.framework.types import PodInfo

class PodNominator:
    """Pods nominated to nodes (``status.nominatedNodeName``) that are not bound yet."""

    def __init__(self, pod_infos: Iterable["PodInfo"] = ()) -> None:
        self._by_node: dict[str, list["PodInfo"]] = {}
        for pod_info in pod_infos:
            self.add(pod_info)

    def add(self, pod_info: "PodInfo", node_name: str | None = None) -> None:
        node_name = node_name or pod_info.nominated_node_name
        if node_name:
            self._by_node.setdefault(node_name, []).append(pod_info)

    def remove(self, pod_info: "PodInfo") -> None:
        for pods in self._by_node.values():
            for i, other in enumerate(pods):
                if other.uid == pod_info.uid and other.key == pod_info.key:
                    del pods[i]
                    return

    def nominated_pods_for_node(self, node_name: str) -> list["PodInfo"]:
        return self._by_node.get(node_name, [])

    @property
    def by_node(self) -> dict[str, list["PodInfo"]]:
        """node name -> the pods nominated there (read-only use; hot loops look nodes up here)."""
        return self._by_node

    def __bool__(self) -> bool:
        return any(self._by_node.values())
