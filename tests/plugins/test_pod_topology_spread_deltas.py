"""PodTopologySpread's PreScore domain totals kept from the change log's pod deltas (#46).

Each case builds a snapshot, counts the totals once, applies a list of changes to its NodeInfos
and counts again: the kept totals must equal a walk over every node (upstream's count), and a
change of pods alone must be applied as one pod (no node counted again), while a node object
set or removed, a scratch copy's change or an overrun log fall back to counting as before.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest

from kschedctl.framework.snapshot import Snapshot
from kschedctl.framework.types import NODE_CHANGES, NodeInfo, PodInfo
from kschedctl.plugins.pod_topology_spread import PodTopologySpread
from kschedctl.plugins.pod_topology_spread import scoring
from kschedctl.plugins.pod_topology_spread.common import NodeInclusion, count_pods_match_selector, node_counts_memo


def _pod(name: str, app: str, namespace: str = "default", terminating: bool = False, node: str | None = None) -> PodInfo:
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "labels": {"app": app}, "uid": f"uid-{name}"}
    if terminating:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return PodInfo({"metadata": meta, "spec": {"nodeName": node} if node else {}})


def _node(i: int, zone: str | None) -> dict:
    labels = {"kubernetes.io/hostname": f"n{i}"}
    if zone is not None:
        labels["zone"] = zone
    return {"metadata": {"name": f"n{i}", "labels": labels},
            "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}}


_INCOMING = PodInfo({"metadata": {"name": "incoming", "namespace": "default", "labels": {"app": "web"}},
                     "spec": {"topologySpreadConstraints": [{
                         "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
                         "labelSelector": {"matchLabels": {"app": "web"}}}]}})

Change = Callable[[list[NodeInfo], list[dict]], None]


def _add(i: int, pod: PodInfo) -> Change:
    return lambda infos, nodes: infos[i].add_pod(pod)


def _remove(i: int, name: str) -> Change:
    return lambda infos, nodes: infos[i].remove_pod(next(p for p in infos[i].pods if p.name == name))


def _relabel(i: int, zone: str | None) -> Change:
    return lambda infos, nodes: infos[i].set_node(_node(i, zone))


def _remove_node(i: int) -> Change:
    return lambda infos, nodes: infos[i].remove_node()


def _on_copy(i: int, pod: PodInfo) -> Change:
    return lambda infos, nodes: infos[i].clone().add_pod(pod)


def _overrun(infos: list[NodeInfo], nodes: list[dict]) -> None:
    spare = NodeInfo(_node(99, "z0"))
    for _ in range(NODE_CHANGES.deltas.maxlen + 1):
        spare.remove_node()


# (case, changes, nodes counted again: None when not asserted)
CASES: list[tuple[str, list[Change], int | None]] = [
    ("matching pod added", [_add(0, _pod("a1", "web"))], 0),
    ("matching pods added on three nodes", [_add(0, _pod("a1", "web")), _add(4, _pod("a2", "web")),
                                            _add(8, _pod("a3", "web"))], 0),
    ("matching pod removed", [_remove(1, "e1")], 0),
    ("added then removed", [_add(2, _pod("a1", "web")), _remove(2, "a1")], 0),
    ("other app added", [_add(3, _pod("a1", "db"))], 0),
    ("other namespace added", [_add(3, _pod("a1", "web", namespace="other"))], 0),
    ("terminating pod added", [_add(3, _pod("a1", "web", terminating=True))], 0),
    ("last pod of a node removed, then one added", [_remove(7, "e7"), _add(7, _pod("a1", "web"))], 0),
    ("pod added to a node without the zone", [_add(9, _pod("a1", "web"))], 0),
    ("node moved zone", [_add(5, _pod("a1", "web")), _relabel(5, "z9"), _add(5, _pod("a2", "web"))], 1),
    ("node lost its zone, then got it back", [_relabel(4, None), _add(4, _pod("a1", "web")), _relabel(4, "z1")], 1),
    ("node object removed, then set again", [_remove_node(1), _add(1, _pod("a1", "web")), _relabel(1, "z1")], 1),
    ("change on a scratch copy", [_on_copy(3, _pod("a1", "web"))], 0),
    ("log overrun", [_add(0, _pod("a1", "web")), _overrun, _add(2, _pod("a2", "web"))], None),
]


def _walk(c: Any, infos: list[NodeInfo]) -> dict[str, int]:
    """Upstream's count: every node with a node object and the key, its matching pods."""
    out: dict[str, int] = {}
    for ni in infos:
        if ni.node is None or c.topology_key not in ni.labels:
            continue
        value = ni.labels[c.topology_key]
        out[value] = out.get(value, 0) + count_pods_match_selector(ni.pods, c, "default")
    return out


@pytest.mark.parametrize("case, changes, recounted", CASES, ids=[c[0] for c in CASES])
def test_domain_totals_from_pod_deltas_equal_a_walk(monkeypatch: pytest.MonkeyPatch, case: str,
                                                    changes: list[Change], recounted: int | None) -> None:
    nodes = [_node(i, f"z{i % 3}" if i < 9 else None) for i in range(10)]
    pods = [_pod(f"e{i}", "web" if i % 2 else "db", node=f"n{i}") for i in range(9)]
    infos = Snapshot(nodes, pods).node_infos()
    c = PodTopologySpread().get_constraints(_INCOMING, "ScheduleAnyway")[0]
    assert not c.is_hostname and c.selector_key is not None
    inclusion = NodeInclusion(_INCOMING)
    # require_all_topologies: only the zone, which node n9 lacks
    scoring._TOTALS.clear()

    def totals() -> dict[str, int]:
        got = scoring._domain_totals(c, inclusion, "default", infos, [c], True)
        assert got is not None
        return {k: v for k, v in got.items() if v}

    assert totals() == {k: v for k, v in _walk(c, infos).items() if v}
    counted: list[str] = []
    real = scoring.count_node_pods_match_selector

    def counting(node_info: NodeInfo, *args: Any) -> int:
        counted.append(node_info.name)
        return real(node_info, *args)

    monkeypatch.setattr(scoring, "count_node_pods_match_selector", counting)
    for change in changes:
        change(infos, nodes)
        assert totals() == {k: v for k, v in _walk(c, infos).items() if v}, case
    if recounted is not None:
        assert len(counted) == recounted, counted
    # each count the deltas told the node counts' memo is the node's own at that generation
    # (the hostname constraint of the same selector reads it instead of counting)
    memo = node_counts_memo()
    for ni in infos:
        told = memo.get((ni.generation, c.selector_key, "default"))
        if told is not None:
            assert told == count_pods_match_selector(ni.pods, c, "default"), (case, ni.name)


@pytest.mark.parametrize("op, sign", [("add", 1), ("remove", -1), ("set_node", 0), ("remove_node", 0)])
def test_change_log_records_each_pod_delta(op: str, sign: int) -> None:
    """What ``deltas_since`` says of one change: the pod (the stored one for a removal), its
    sign, and the node's generation before and after; a node object change names no pod."""
    stored = _pod("p", "web")
    ni = NodeInfo(_node(0, "z0"), [stored])
    before = ni.generation
    position = NODE_CHANGES.count
    pod = None
    if op == "add":
        pod = _pod("q", "web")
        ni.add_pod(pod)
    elif op == "remove":
        pod = stored
        assert ni.remove_pod(_pod("p", "web"))  # another PodInfo of the same pod: the stored one is logged
    elif op == "set_node":
        ni.set_node(_node(0, "z1"))
    else:
        ni.remove_node()
    deltas = NODE_CHANGES.deltas_since(position)
    assert deltas == [(ni, pod, sign, before, ni.generation)]
    assert NODE_CHANGES.since(position) == [ni]  # the node list API as before
