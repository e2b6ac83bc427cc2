"""PodTopologySpread, scoring part: PreScore state, Score and NormalizeScore.

Upstream: pkg/scheduler/framework/plugins/podtopologyspread/scoring.go (release-1.34).

PreScore, on the filtered nodes: a node lacking a topology key of the soft constraints is
"ignored" (scored 0 after normalization), unless the constraints are the system defaults, where
a node without a zone label is its own zone (value ""). Every other node registers its value per
constraint (hostname constraints excepted: they are counted per node in Score). The weight of a
constraint is ``log(number of its domains + 2)``, with the number of non-ignored filtered nodes for
hostname. Then every node of the snapshot (not only the filtered ones) adds its matching pods to
the registered domains, subject to the node inclusion policies.

Score: for each constraint whose key the node has,
``count * weight + (maxSkew - 1)``, summed and rounded half away from zero (Go's math.Round).
NormalizeScore: ignored nodes get 0; the others ``100 * (max + min - score) / max`` over the
non-ignored scores (Go integer division), or 100 each when the maximum is 0.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from kschedctl.framework.interfaces import MAX_NODE_SCORE, NodeScore
from kschedctl.framework.twins import ColumnNodes
from kschedctl.framework.types import NODE_CHANGES
from kschedctl.plugins.helper import go_div
from kschedctl.plugins.pod_topology_spread.common import node_counts_memo
from kschedctl.plugins.pod_topology_spread.common import (
    HONOR,
    Constraint,
    NodeInclusion,
    count_node_pods_match_selector,
    node_labels_match_spread_constraints,
    remember_node_count,
)

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.types import NodeInfo, PodInfo


class PreScoreState:
    """What PreScore computed for Score and NormalizeScore (upstream preScoreState)."""

    __slots__ = ("constraints", "ignored_nodes", "topology_value_to_pod_counts", "topology_normalizing_weight")

    def __init__(self) -> None:
        self.constraints: list[Constraint] = []
        #: Names of filtered nodes missing a topology key: Score 0, NormalizeScore 0.
        self.ignored_nodes: set[str] = set()
        #: Per constraint: topology value -> matching pods (hostname constraints stay empty).
        self.topology_value_to_pod_counts: list[dict[str, int]] = []
        self.topology_normalizing_weight: list[float] = []

    def clone(self) -> "PreScoreState":
        return self  # never changed after PreScore, as upstream

    def to_dict(self) -> dict:
        return {
            "constraints": [c.to_dict() for c in self.constraints],
            "ignoredNodes": sorted(self.ignored_nodes),
            "topologyValueToPodCounts": [dict(m) for m in self.topology_value_to_pod_counts],
            "topologyNormalizingWeight": list(self.topology_normalizing_weight),
        }


def topology_normalizing_weight(size: int) -> float:
    """Upstream topologyNormalizingWeight: ``log(size + 2)``."""
    return math.log(size + 2)


def init_pre_score_state(
    s: PreScoreState, filtered_nodes: list["NodeInfo"], require_all_topologies: bool
) -> None:
    """Upstream initPreScoreState once the constraints are known (and non-empty)."""
    if type(filtered_nodes) is ColumnNodes:
        _init_from_columns(s, filtered_nodes, require_all_topologies)
        return
    constraints = s.constraints
    n = len(constraints)
    counts: list[dict[str, int]] = [{} for _ in range(n)]
    topo_size = [0] * n
    labels_of = [node_info.labels for node_info in filtered_nodes]
    if require_all_topologies:
        kept = []
        for node_info, labels in zip(filtered_nodes, labels_of):
            if node_labels_match_spread_constraints(labels, constraints):
                kept.append(labels)
            else:
                s.ignored_nodes.add(node_info.name)
        labels_of = kept
    for i, c in enumerate(constraints):
        if c.is_hostname:
            continue  # per-node counts are taken in Score
        # each domain once, in the order the nodes first show it (one pass at C speed)
        key = c.topology_key
        counts[i] = dict.fromkeys([labels.get(key, "") for labels in labels_of], 0)
        topo_size[i] = len(counts[i])
    s.topology_value_to_pod_counts = counts
    weights = []
    for i, c in enumerate(constraints):
        size = topo_size[i]
        if c.is_hostname:
            size = len(filtered_nodes) - len(s.ignored_nodes)
        weights.append(topology_normalizing_weight(size))
    s.topology_normalizing_weight = weights


def _init_from_columns(s: PreScoreState, nodes: ColumnNodes, require_all_topologies: bool) -> None:
    """``init_pre_score_state`` with each feasible node's topology values read as codes from the
    node columns (at tens of thousands of nodes, a label lookup per feasible node per cycle
    missed the cache on every node). The same ignored nodes, domains, in the same order, and
    weights."""
    import numpy as np

    constraints = s.constraints
    columns, at = nodes.columns, nodes.at
    codes_at: dict[str, tuple[np.ndarray, list[str]]] = {}

    def codes(key: str) -> tuple[np.ndarray, list[str]]:
        found = codes_at.get(key)
        if found is None:
            every, values = columns.label_codes(key)
            found = codes_at[key] = (every[at], values)
        return found

    kept = None
    if require_all_topologies:
        has_all = np.ones(len(at), dtype=bool)
        for c in constraints:
            has_all &= codes(c.topology_key)[0] >= 0  # -1: the node lacks the key
        if not has_all.all():
            s.ignored_nodes.update(nodes[i].name for i in np.flatnonzero(~has_all).tolist())
            kept = has_all
    counts: list[dict[str, int]] = []
    weights: list[float] = []
    for c in constraints:
        if c.is_hostname:
            counts.append({})  # per-node counts are taken in Score
            weights.append(topology_normalizing_weight(len(nodes) - len(s.ignored_nodes)))
            continue
        here, values = codes(c.topology_key)
        if kept is not None:
            here = here[kept]
        found, first = np.unique(here, return_index=True)
        # each domain once, in the order the nodes first show it; no label is the domain ""
        domains = dict.fromkeys([values[code] if code >= 0 else "" for code in found[np.argsort(first)].tolist()], 0)
        counts.append(domains)
        weights.append(topology_normalizing_weight(len(domains)))
    s.topology_value_to_pod_counts = counts
    s.topology_normalizing_weight = weights


def count_all_nodes(
    s: PreScoreState, pod_info: "PodInfo", all_nodes: list["NodeInfo"], require_all_topologies: bool
) -> None:
    """PreScore's walk over every node of the snapshot, adding matching pods to registered domains."""
    constraints = s.constraints
    inclusion = NodeInclusion(pod_info)
    namespace = pod_info.namespace
    counts = s.topology_value_to_pod_counts
    indexed = [(i, c) for i, c in enumerate(constraints) if not c.is_hostname]
    if not indexed:
        return
    slow = []
    for i, c in indexed:
        totals = _domain_totals(c, inclusion, namespace, all_nodes, constraints, require_all_topologies)
        if totals is None:
            slow.append((i, c))
            continue
        m = counts[i]
        for value in m:
            m[value] += totals.get(value, 0)
    if not slow:
        return
    for node_info in all_nodes:
        pods = node_info.pods
        if not pods or node_info.node is None:
            continue  # a node without pods adds nothing to any domain
        labels = node_info.labels
        if require_all_topologies and not node_labels_match_spread_constraints(labels, constraints):
            continue
        for i, c in slow:
            m = counts[i]
            value = labels.get(c.topology_key, "")
            if value not in m:
                continue  # a domain no filtered node is in
            if not inclusion.matches(c, node_info):
                continue
            m[value] += count_node_pods_match_selector(node_info, c, namespace)


#: Per (selector, namespace, topology key, topology keys that must all be present): the matching
#: pods per domain over every node of one snapshot, kept across the cycles of a run with each
#: node's share and generation. A cycle updates only the nodes the change log names (or, when it
#: fell behind, the nodes whose generation moved); upstream walks every node every cycle, which
#: Go can afford. The sums are the same.
_TOTALS: dict[tuple, "_Totals"] = {}
_TOTALS_MAX = 256
#: The snapshot's node list the totals are about: another list (another snapshot) drops them all,
#: so that no more than one snapshot is ever kept alive by this cache.
_TOTALS_NODES: list = []


class _Totals:
    __slots__ = ("nodes", "by_name", "shares", "totals", "seen")

    def __init__(self, nodes: list["NodeInfo"]) -> None:
        self.nodes = nodes  # the snapshot's list itself: another list means another snapshot
        self.by_name = {ni.name: ni for ni in nodes}
        self.shares: dict[str, tuple[int, str | None, int]] = {}
        self.totals: dict[str, int] = {}
        self.seen = NODE_CHANGES.count


def _domain_totals(c: Constraint, inclusion: NodeInclusion, namespace: str, all_nodes: list["NodeInfo"],
                   constraints: list[Constraint], require_all_topologies: bool) -> dict[str, int] | None:
    """Matching pods per domain of ``c`` over ``all_nodes``, or None when the node inclusion
    policies depend on the pod (then the caller walks the nodes itself)."""
    if c.selector_key is None or c.node_taints_policy == HONOR or (
            c.node_affinity_policy == HONOR and not inclusion.includes_every_node):
        return None
    required = tuple(sorted({k.topology_key for k in constraints})) if require_all_topologies else ()
    if not _TOTALS_NODES or _TOTALS_NODES[0] is not all_nodes:
        _TOTALS.clear()
        _TOTALS_NODES[:] = [all_nodes]
    key = (c.selector_key, namespace, c.topology_key, required)
    state = _TOTALS.get(key)
    changed = None
    if state is not None and state.nodes is all_nodes and len(state.by_name) == len(all_nodes):
        changed = NODE_CHANGES.deltas_since(state.seen)
    if changed is None:
        if len(_TOTALS) >= _TOTALS_MAX:
            _TOTALS.clear()
        if state is None or state.nodes is not all_nodes or len(state.by_name) != len(all_nodes):
            state = _TOTALS[key] = _Totals(all_nodes)
        changed = [(node_info, None, 0, -1, node_info.generation) for node_info in all_nodes]
    state.seen = NODE_CHANGES.count
    shares, totals, by_name = state.shares, state.totals, state.by_name
    matches = c.selector.matches
    topology_key = c.topology_key
    for node_info, pod, sign, before, after in changed:
        name = node_info.name
        if by_name.get(name) is not node_info:
            continue  # a scratch copy (preemption dry run, hints), not this snapshot's node
        share = shares.get(name)
        if share is not None and share[0] >= after:
            continue  # counted at or after this change
        if pod is not None and share is not None and share[0] == before:
            # one pod in or out, the node object as it was: one selector match, not a recount
            # (count_pods_match_selector's test for that one pod)
            value, count = share[1], share[2]
            if (value is not None and not c.selector_empty and not pod.is_terminating
                    and pod.namespace == namespace and matches(pod.labels)):
                count += sign
                totals[value] += sign
            shares[name] = (after, value, count)
            if value is not None:  # the node's whole count (not 0 for a node left out)
                remember_node_count(after, c, namespace, count)
            continue
        # anything else (a node object set or removed, a share older than the change): the
        # node's pods counted again as they are now
        value = None
        count = 0
        if node_info.node is not None:
            labels = node_info.labels
            if not required or all(k in labels for k in required):
                value = labels.get(topology_key, "")
                count = count_node_pods_match_selector(node_info, c, namespace)
        if share is not None and share[1] is not None:
            totals[share[1]] -= share[2]
        if value is not None:
            totals[value] = totals.get(value, 0) + count
        shares[name] = (node_info.generation, value, count)
    return totals


def score_nodes(s: PreScoreState, pod_info: "PodInfo", nodes: list["NodeInfo"]) -> list[int]:
    """Upstream Score for each of ``nodes`` (0 for an ignored node), with what is per constraint
    looked up once per cycle instead of once per node. The plugin's Score of one node is this
    of a list of one: with the column twin (``columns.column_score``), the only two forms."""
    ignored = s.ignored_nodes
    namespace = pod_info.namespace
    plan = [(c.topology_key, c.is_hostname, c, s.topology_value_to_pod_counts[i], s.topology_normalizing_weight[i],
             float(c.max_skew - 1)) for i, c in enumerate(s.constraints)]
    memo = node_counts_memo()
    out: list[int] = []
    append = out.append
    for node_info in nodes:
        if node_info.name in ignored:
            append(0)
            continue
        labels = node_info.labels
        score = 0.0
        for key, is_hostname, c, counts, weight, skew_term in plan:
            value = labels.get(key)
            if value is None:
                continue
            if is_hostname:
                count = memo.get((node_info.generation, c.selector_key, namespace)) if c.selector_key else None
                if count is None:
                    count = count_node_pods_match_selector(node_info, c, namespace)
            else:
                count = counts.get(value, 0)
            score += float(count) * weight + skew_term  # upstream scoreForCount
        # Go's math.Round (half away from zero) of a score that is never negative
        rounded = int(score)
        append(rounded + 1 if score - rounded >= 0.5 else rounded)
    return out


def normalize_scores(s: PreScoreState, scores: list[NodeScore]) -> None:
    """Upstream NormalizeScore, in place."""
    values = normalize_values(s, [ns.name for ns in scores], [ns.score for ns in scores])
    for ns, value in zip(scores, values):
        ns.score = value


def normalize_values(s: PreScoreState, names: list[str], values: list[int]) -> list[int]:
    """Upstream NormalizeScore on parallel lists of node names and raw scores: the new scores."""
    ignored = s.ignored_nodes
    min_score: int | None = None
    max_score = 0
    for name, score in zip(names, values):
        if name in ignored:
            continue
        if min_score is None or score < min_score:
            min_score = score
        if score > max_score:
            max_score = score
    low = min_score or 0
    out: list[int] = []
    for name, score in zip(names, values):
        if name in ignored:
            out.append(0)
        elif max_score == 0:
            out.append(MAX_NODE_SCORE)
        else:
            out.append(go_div(MAX_NODE_SCORE * (max_score + low - score), max_score))
    return out
