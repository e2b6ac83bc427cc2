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
        #: uid -> the nodes pods of that uid were added to (``remove`` looks only there)
        self._nodes_of: dict[str, list[str]] = {}
        #: node -> its place in ``_by_node`` (``remove`` takes the first node in that order)
        self._place: dict[str, int] = {}
        for pod_info in pod_infos:
            self.add(pod_info)

    def add(self, pod_info: "PodInfo", node_name: str | None = None) -> None:
        node_name = node_name or pod_info.nominated_node_name
        if node_name:
            pods = self._by_node.get(node_name)
            if pods is None:
                pods = self._by_node[node_name] = []
                self._place[node_name] = len(self._place)
            pods.append(pod_info)
            self._nodes_of.setdefault(pod_info.uid, []).append(node_name)

    def remove(self, pod_info: "PodInfo") -> None:
        """Drop the first entry of the pod (same uid and key), nodes taken in the order they
        were first nominated to."""
        uid = pod_info.uid
        nodes = self._nodes_of.get(uid)
        if not nodes:
            return
        for node_name in sorted(set(nodes), key=self._place.__getitem__):
            pods = self._by_node[node_name]
            for i, other in enumerate(pods):
                if other.uid == uid and other.key == pod_info.key:
                    del pods[i]
                    nodes.remove(node_name)
                    if not nodes:
                        del self._nodes_of[uid]
                    return

    def nominated_pods_for_node(self, node_name: str) -> list["PodInfo"]:
        return self._by_node.get(node_name, [])

    @property
    def by_node(self) -> dict[str, list["PodInfo"]]:
        """node name -> the pods nominated there (read-only use; hot loops look nodes up here)."""
        return self._by_node

    def __bool__(self) -> bool:
        return any(self._by_node.values())
