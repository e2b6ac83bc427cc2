"""PodTopologySpread, filtering part: PreFilter state, its AddPod/RemovePod updates, Filter.

Upstream: pkg/scheduler/framework/plugins/podtopologyspread/filtering.go (release-1.34, where the
counts are kept per constraint since upstream PR #129119, so constraints sharing a topology key
do not mix their counts).

PreFilter walks every node once: a node counts only when it has every constraint's topology key;
for each constraint whose node inclusion policies it passes, the matching pods on it are added to
``tp_value_to_match_num[i][node's value]``. ``critical_paths[i]`` then tracks the two domains with
the fewest matching pods (upstream's ``[2]criticalPath``: exact after PreFilter, approximate after
several AddPod/RemovePod calls, exactly as upstream). Filter on a node, per constraint:
``matchNum + selfMatch - minMatchNum > maxSkew`` rejects the node (Unschedulable), where
minMatchNum is 0 while fewer domains than ``minDomains`` exist; a node without the topology key is
UnschedulableAndUnresolvable.

Where upstream iterates a Go map (random order) to fill the critical paths, kschedctl takes the
domains in node order; among domains with equal counts upstream may track any of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kschedctl.plugins.pod_topology_spread_common import (
    Constraint,
    NodeInclusion,
    count_pods_match_selector,
    node_labels_match_spread_constraints,
)

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.types import NodeInfo, PodInfo

#: math.MaxInt32, the match number of an empty critical path.
MAX_INT32 = 2**31 - 1


class CriticalPaths:
    """Two (topology value, match number) pairs; ``[0]`` always holds the smaller number."""

    __slots__ = ("value0", "num0", "value1", "num1")

    def __init__(self) -> None:
        self.value0 = ""
        self.num0 = MAX_INT32
        self.value1 = ""
        self.num1 = MAX_INT32

    def update(self, value: str, num: int) -> None:
        """Upstream criticalPaths.update, including its quirks (an empty value matches the empty
        placeholder of an unfilled path)."""
        if value == self.value0:
            self.num0 = num
            if self.num0 > self.num1:
                self._swap()
        elif value == self.value1:
            self.num1 = num
            if self.num0 > self.num1:
                self._swap()
        elif num < self.num0:
            self.value1, self.num1 = self.value0, self.num0
            self.value0, self.num0 = value, num
        elif num < self.num1:
            self.value1, self.num1 = value, num

    def _swap(self) -> None:
        self.value0, self.num0, self.value1, self.num1 = self.value1, self.num1, self.value0, self.num0

    def copy(self) -> "CriticalPaths":
        c = CriticalPaths.__new__(CriticalPaths)
        c.value0, c.num0, c.value1, c.num1 = self.value0, self.num0, self.value1, self.num1
        return c

    def as_list(self) -> list[list[Any]]:
        return [[self.value0, self.num0], [self.value1, self.num1]]

    def __repr__(self) -> str:
        return f"CriticalPaths({self.as_list()!r})"


class PreFilterState:
    """What PreFilter computed for Filter (upstream preFilterState), per constraint index.

    ``self_match[i]`` (whether the incoming pod matches constraint i's selector) and
    ``inclusion`` (node inclusion answers) are kschedctl additions, computed once per cycle.
    """

    __slots__ = ("constraints", "critical_paths", "tp_value_to_match_num", "self_match", "inclusion")

    def __init__(
        self,
        constraints: list[Constraint],
        critical_paths: list[CriticalPaths],
        tp_value_to_match_num: list[dict[str, int]],
        self_match: list[int],
        inclusion: NodeInclusion | None,
    ) -> None:
        self.constraints = constraints
        self.critical_paths = critical_paths
        self.tp_value_to_match_num = tp_value_to_match_num
        self.self_match = self_match
        self.inclusion = inclusion

    def min_match_num(self, i: int) -> int:
        """The global minimum of constraint i, 0 while fewer domains than minDomains exist."""
        if len(self.tp_value_to_match_num[i]) < self.constraints[i].min_domains:
            return 0
        return self.critical_paths[i].num0

    def clone(self) -> "PreFilterState":
        """A copy whose counts can change independently (constraints are shared)."""
        return PreFilterState(
            self.constraints,
            [p.copy() for p in self.critical_paths],
            [dict(m) for m in self.tp_value_to_match_num],
            self.self_match,
            self.inclusion,
        )

    def update_with_pod(self, updated: "PodInfo", preemptor: "PodInfo", node_info: "NodeInfo", delta: int) -> None:
        """Upstream updateWithPod: count ``updated`` (+1) or stop counting it (-1) on ``node_info``."""
        node = node_info.node
        if updated.namespace != preemptor.namespace or node is None:
            return
        labels = node_info.labels
        if not node_labels_match_spread_constraints(labels, self.constraints):
            return
        inclusion = self.inclusion or NodeInclusion(preemptor)
        pod_labels = updated.labels
        for i, c in enumerate(self.constraints):
            # Neither the selector's emptiness nor a terminating pod is checked here, as upstream.
            if not c.selector.matches(pod_labels):
                continue
            if not inclusion.matches(c, node_info):
                continue
            value = labels[c.topology_key]
            counts = self.tp_value_to_match_num[i]
            num = counts.get(value, 0) + delta
            counts[value] = num
            self.critical_paths[i].update(value, num)

    def to_dict(self) -> dict:
        """The state as plain data (tests and reports)."""
        return {
            "constraints": [c.to_dict() for c in self.constraints],
            "criticalPaths": [p.as_list() for p in self.critical_paths],
            "tpValueToMatchNum": [dict(m) for m in self.tp_value_to_match_num],
        }


def calculate_pre_filter_state(
    constraints: list[Constraint], pod_info: "PodInfo", node_infos: list["NodeInfo"]
) -> PreFilterState:
    """Upstream calPreFilterState for non-empty ``constraints``: one walk over the nodes."""
    n = len(constraints)
    counts: list[dict[str, int]] = [{} for _ in range(n)]
    inclusion = NodeInclusion(pod_info)
    namespace = pod_info.namespace
    indexed = list(enumerate(constraints))
    for node_info in node_infos:
        if node_info.node is None:
            continue
        labels = node_info.labels
        # Only nodes holding every topology key take part.
        if not node_labels_match_spread_constraints(labels, constraints):
            continue
        pods = node_info.pods
        for i, c in indexed:
            if not inclusion.matches(c, node_info):
                continue
            value = labels[c.topology_key]
            m = counts[i]
            m[value] = m.get(value, 0) + (count_pods_match_selector(pods, c, namespace) if pods else 0)
    paths: list[CriticalPaths] = []
    for i in range(n):
        p = CriticalPaths()
        for value, num in counts[i].items():
            p.update(value, num)
        paths.append(p)
    pod_labels = pod_info.labels
    self_match = [1 if c.selector.matches(pod_labels) else 0 for c in constraints]
    return PreFilterState(constraints, paths, counts, self_match, inclusion)
