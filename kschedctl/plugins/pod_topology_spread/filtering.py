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

from collections import OrderedDict
from itertools import compress
from operator import attrgetter, ne
from typing import TYPE_CHECKING, Any, Hashable, Sequence

from kschedctl.framework.types import NODE_CHANGES
from kschedctl.k8s.selectors import Selector
from kschedctl.plugins.pod_topology_spread.common import (
    HONOR,
    Constraint,
    NodeInclusion,
    count_node_pods_match_selector,
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
    constraints: list[Constraint],
    pod_info: "PodInfo",
    node_infos: list["NodeInfo"],
    cache: "PreFilterCache | None" = None,
) -> PreFilterState:
    """Upstream calPreFilterState for non-empty ``constraints``: one walk over the nodes.

    With ``cache`` (the plugin's), the walk is done once per kind of pod and then only the nodes
    whose NodeInfo changed since the previous cycle are walked again; the state is the same.
    """
    inclusion = NodeInclusion(pod_info)
    counts = cache.counts(constraints, pod_info, node_infos, inclusion) if cache is not None else None
    if counts is None:
        counts = _sum_contributions(constraints, _contributions(constraints, pod_info, node_infos, inclusion))
    n = len(constraints)
    paths: list[CriticalPaths] = []
    for i in range(n):
        p = CriticalPaths()
        for value, num in counts[i].items():
            p.update(value, num)
        paths.append(p)
    pod_labels = pod_info.labels
    self_match = [1 if c.selector.matches(pod_labels) else 0 for c in constraints]
    return PreFilterState(constraints, paths, counts, self_match, inclusion)


def _node_contribution(
    constraints: Sequence[Constraint], namespace: str, node_info: "NodeInfo", inclusion: NodeInclusion
) -> Any:
    """One node's part of the PreFilter counts: None when the node takes no part (no node object,
    or a topology key missing), else per constraint None (excluded by the node inclusion policies)
    or (topology value, matching pods on the node)."""
    if node_info.node is None:
        return None
    labels = node_info.labels
    # Only nodes holding every topology key take part.
    if not node_labels_match_spread_constraints(labels, constraints):
        return None
    pods = node_info.pods
    out = []
    for c in constraints:
        if not inclusion.matches(c, node_info):
            out.append(None)
            continue
        out.append((labels[c.topology_key], count_node_pods_match_selector(node_info, c, namespace) if pods else 0))
    return tuple(out)


def _contributions(
    constraints: Sequence[Constraint], pod_info: "PodInfo", node_infos: Sequence["NodeInfo"], inclusion: NodeInclusion
) -> list[Any]:
    namespace = pod_info.namespace
    return [_node_contribution(constraints, namespace, node_info, inclusion) for node_info in node_infos]


def _sum_contributions(constraints: Sequence[Constraint], contributions: list[Any]) -> list[dict[str, int]]:
    """Per constraint, topology value -> matching pods, values in the order nodes first show them
    (the order upstream's walk would insert them in, which the critical paths depend on)."""
    counts: list[dict[str, int]] = [{} for _ in constraints]
    for contribution in contributions:
        if contribution is None:
            continue
        for m, part in zip(counts, contribution):
            if part is not None:
                value, num = part
                m[value] = m.get(value, 0) + num
    return counts


def _participation(contribution: Any) -> Any:
    """Which domains a node's contribution goes to, without the pod counts."""
    if contribution is None:
        return None
    return tuple(None if part is None else part[0] for part in contribution)


_generation_of = attrgetter("generation")


class _CacheEntry:
    __slots__ = ("nodes", "names", "generations", "contributions", "counts", "source", "seen", "position")

    def __init__(self, nodes: list, generations: list[int], contributions: list[Any], counts: list[dict[str, int]]):
        self.nodes = nodes
        self.names = [n.name for n in nodes]
        self.generations = generations
        self.contributions = contributions
        self.counts = counts
        #: the node list last counted (a snapshot's, never changed in place) and the change log's
        #: position then: the next count over that same list reads the log, not every node
        self.source: Any = None
        self.seen = -1
        #: each node's index by identity (``nodes`` keeps them alive), made on first use
        self.position: dict[int, int] | None = None


class PreFilterCache:
    """PreFilter counts kept between scheduling cycles (kschedctl's; upstream recounts every time).

    A pod's counts depend on its constraints (topology keys, selectors, inclusion policies), its
    namespace, what the node inclusion policies read of it (required node affinity, tolerations),
    and on the nodes. For pods that agree on the former (the replicas of a workload), each node's
    contribution is remembered with the NodeInfo generation it was computed at; the next such pod
    recounts only the nodes whose generation moved (a pod placed, a victim removed) and adjusts
    the sums. When a changed node's domains change too (its labels, taints or node object), or
    the node list itself differs, everything is recounted, so value order and counts always equal
    a fresh walk. Pods whose selectors are not plain ``Selector`` objects (deduced default
    selectors) are never cached, nor lists with two nodes of one name (NodeInclusion answers by
    name within a cycle, which a sum over several cycles could not reproduce).
    """

    __slots__ = ("_entries", "max_entries")

    def __init__(self, max_entries: int = 8) -> None:
        self._entries: OrderedDict[Hashable, _CacheEntry] = OrderedDict()
        self.max_entries = max_entries

    def counts(
        self, constraints: list[Constraint], pod_info: "PodInfo", node_infos: Sequence["NodeInfo"],
        inclusion: NodeInclusion,
    ) -> list[dict[str, int]] | None:
        """Fresh per-constraint counts for ``pod_info`` (dicts the caller may change), or None
        when the pod cannot be cached."""
        key = _cache_key(constraints, pod_info)
        if key is None:
            return None
        entry = self._entries.get(key)
        if entry is not None and entry.source is node_infos and len(node_infos) == len(entry.nodes):
            changed = NODE_CHANGES.since(entry.seen)
            if changed is not None:
                self._entries.move_to_end(key)
                if self._update_logged(entry, constraints, pod_info, changed, inclusion):
                    entry.seen = NODE_CHANGES.count
                    return [dict(m) for m in entry.counts]
        nodes = node_infos if isinstance(node_infos, list) else list(node_infos)
        generations = list(map(_generation_of, nodes))
        if entry is not None and entry.nodes == nodes:  # same NodeInfo objects, in the same order
            self._entries.move_to_end(key)
            if entry.generations != generations and not self._update(entry, constraints, pod_info, nodes,
                                                                     generations, inclusion):
                entry = None
        else:
            entry = None
        if entry is None:
            if len({n.name for n in nodes}) != len(nodes):
                return None
            contributions = _contributions(constraints, pod_info, nodes, inclusion)
            entry = _CacheEntry(list(nodes), generations, contributions, _sum_contributions(constraints, contributions))
            self._entries[key] = entry
            if len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        entry.source, entry.seen = node_infos, NODE_CHANGES.count
        return [dict(m) for m in entry.counts]

    @classmethod
    def _update_logged(cls, entry: _CacheEntry, constraints: list[Constraint], pod_info: "PodInfo",
                       logged: list, inclusion: NodeInclusion) -> bool:
        """``_update`` for the nodes the change log names since the entry was counted (the
        others kept their generation); False when their domains changed (recount all)."""
        position = entry.position
        if position is None:
            position = entry.position = {id(n): i for i, n in enumerate(entry.nodes)}
        nodes = entry.nodes
        old = entry.generations
        changed = sorted({i for i in map(position.get, map(id, logged))
                          if i is not None and nodes[i].generation != old[i]})
        if not changed:
            return True
        generations = list(old)
        for i in changed:
            generations[i] = nodes[i].generation
        return cls._update(entry, constraints, pod_info, nodes, generations, inclusion, changed)

    @staticmethod
    def _update(entry: _CacheEntry, constraints: list[Constraint], pod_info: "PodInfo", nodes: list,
                generations: list[int], inclusion: NodeInclusion, changed: list[int] | None = None) -> bool:
        """Recount the nodes whose generation moved (``changed``, when known); False when their
        domains changed (recount all)."""
        if changed is None:
            # indices whose generation differs, found at C speed
            changed = list(compress(range(len(generations)), map(ne, generations, entry.generations)))
        names = entry.names
        for i in changed:
            if nodes[i].name != names[i]:
                return False  # renamed: names may no longer be unique
        namespace = pod_info.namespace
        contributions = entry.contributions
        fresh = [(i, _node_contribution(constraints, namespace, nodes[i], inclusion)) for i in changed]
        for i, contribution in fresh:
            if _participation(contribution) != _participation(contributions[i]):
                return False
        counts = entry.counts
        for i, contribution in fresh:
            old = contributions[i]
            if contribution is not None:
                for m, part, old_part in zip(counts, contribution, old):
                    if part is not None and part[1] != old_part[1]:
                        m[part[0]] += part[1] - old_part[1]
            contributions[i] = contribution
        entry.generations = generations
        return True


def _cache_key(constraints: list[Constraint], pod_info: "PodInfo") -> Hashable | None:
    """What the counts depend on, or None when a selector is not hashable by content."""
    parts = []
    honor_affinity = honor_taints = False
    for c in constraints:
        selector = c.selector
        if type(selector) is not Selector:
            return None
        parts.append((c.topology_key, selector, c.node_affinity_policy, c.node_taints_policy))
        honor_affinity = honor_affinity or c.node_affinity_policy == HONOR
        honor_taints = honor_taints or c.node_taints_policy == HONOR
    affinity = taints = None
    if honor_affinity:
        # What RequiredNodeAffinity(pod) reads; repr tells apart any two different plain values.
        spec = pod_info.pod.get("spec") or {}
        node_affinity = (spec.get("affinity") or {}).get("nodeAffinity") or {}
        affinity = repr((spec.get("nodeSelector"), node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")))
    if honor_taints:
        taints = repr(pod_info.tolerations)
    return (tuple(parts), pod_info.namespace, affinity, taints)
