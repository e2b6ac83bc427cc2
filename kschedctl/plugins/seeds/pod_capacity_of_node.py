"""PodCapacityOfNode: favour nodes with more free pod slots (seed article, "自定义调度器(二)").

The article's Go plugin (a scheduler-plugins fork) scores each node with the share of its pod
capacity still free, counting the pods on the node and the pods nominated to it::

    score = (capacity.pods - (len(pods on node) + len(nominated pods))) * 100 / capacity.pods

(Go integer arithmetic: truncated), then NormalizeScore maps the lowest score to 0 and the
highest to 100 linearly (every node 0 when all scores are equal), as PodState does. The
article's own unit test gives 0, 88 and 100 for nodes with 110/110, 13/110 and 0/110 pods.

Differences from the article: it reads ``status.capacity.pods`` and divides by it, so a node
without a pod capacity crashed its scheduler (division by zero); here such a node gets an
Error status naming the node instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kschedctl.framework.interfaces import MAX_NODE_SCORE, MIN_NODE_SCORE, NodeScore, Plugin
from kschedctl.framework.status import Code, Status
from kschedctl.k8s.quantity import int_value, parse_quantity
from kschedctl.plugins.helper import go_div

if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = "PodCapacityOfNode"


class PodCapacityOfNode(Plugin):
    """Scores nodes by the share of their pod capacity that is still free (pods and nominated pods count)."""

    name = NAME

    def score(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status | None]:
        node = node_info.node or {}
        capacity = ((node.get("status") or {}).get("capacity") or {}).get("pods")
        all_pods = int_value(parse_quantity(capacity)) if capacity is not None else 0
        if all_pods == 0:
            return 0, Status(Code.Error, f'node "{node_info.name}" has no pod capacity (status.capacity.pods)')
        nominated = len(self.handle.nominated_pods_for_node(node_info.name)) if self.handle is not None else 0
        running = len(node_info.pods)
        return go_div((all_pods - (running + nominated)) * 100, all_pods), None

    def normalize_score(self, state: "CycleState", pod_info: "PodInfo", scores: list[NodeScore]) -> Status | None:
        min_max_normalize(scores)
        return None


def min_max_normalize(scores: list[NodeScore]) -> None:
    """Map [lowest, highest] linearly onto [MIN_NODE_SCORE, MAX_NODE_SCORE]; all MIN when equal."""
    if not scores:
        return
    highest = max(s.score for s in scores)
    lowest = min(s.score for s in scores)
    old_range = highest - lowest
    new_range = MAX_NODE_SCORE - MIN_NODE_SCORE
    for s in scores:
        if old_range == 0:
            s.score = MIN_NODE_SCORE
        else:
            s.score = go_div((s.score - lowest) * new_range, old_range) + MIN_NODE_SCORE
