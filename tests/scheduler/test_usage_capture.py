"""A simulation's usage tables: captured as values when the run asks, made into records when read.

The capture must show the moment it was taken (the requested amounts of a NodeInfo change in
place with every later cycle), make the same tables ``usage`` always made, and leave a
``SimulationResult`` built by hand (lists) as it was.
"""

from __future__ import annotations

import pytest

from kschedctl.framework.snapshot import Snapshot
from kschedctl.scheduler.columns import NodeColumns
from kschedctl.scheduler.simulation_result import NodeUsage, SimulationResult, UsageCapture, usage
from tests.framework.fakes import make_node, make_pod, pod_info

ZONE = "topology.kubernetes.io/zone"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"


def _pod(name: str, node: str, requests: dict[str, str]) -> dict:
    return make_pod(name, node=node, containers=[{"name": "c", "resources": {"requests": requests}}])


def _snapshot(more_zones: bool = False) -> Snapshot:
    gpu = make_node("n3", {ZONE: "b"})
    gpu["status"]["allocatable"]["example.com/gpu"] = "4"
    nodes = [make_node("n1", {ZONE: "a"}), make_node("n2", {ZONE: "a"}), gpu, make_node("n4", {})]
    pods = [_pod("p1", "n1", {"cpu": "1", "memory": "1Gi"}),
            _pod("p2", "n3", {"cpu": "500m", "example.com/gpu": "1"})]
    if more_zones:
        # the beta label wins over the GA one, an empty value does not count, storage shows
        nodes += [make_node("n5", {BETA_ZONE: "old", ZONE: "a"}), make_node("n6", {BETA_ZONE: "", ZONE: "b"}),
                  make_node("n7", {BETA_ZONE: ""}), make_node("n8", {ZONE: ""})]
        nodes[-1]["status"]["allocatable"]["ephemeral-storage"] = "10Gi"
        pods.append(_pod("p3", "n8", {"ephemeral-storage": "1Gi", "example.com/gpu": "1"}))
    return Snapshot(nodes, [pod_info(p) for p in pods])


def _capture(snapshot: Snapshot, placed: dict | None = None, columns: bool = False) -> UsageCapture:
    return UsageCapture(snapshot, placed, NodeColumns(snapshot) if columns else None)


def _node(snapshot: Snapshot, name: str):
    return next(ni for ni in snapshot.node_infos() if ni.name == name)


def _plain(table: list) -> list[tuple]:
    return [(u.name, u.allocatable, u.requested, getattr(u, "zone", None), u.placed, getattr(u, "nodes", None))
            for u in table]


@pytest.mark.parametrize("columns", [False, True], ids=["node-by-node", "from-columns"])
@pytest.mark.parametrize("placed", [None, {"n1": 2, "n3": 1}])
def test_a_capture_makes_the_tables_usage_makes(placed: dict | None, columns: bool) -> None:
    snapshot = _snapshot()
    nodes, zones = usage(snapshot, placed)
    capture = _capture(snapshot, placed, columns)
    assert _plain(capture.table("nodes")) == _plain(nodes)
    assert _plain(capture.table("zones")) == _plain(zones)
    assert [z.name for z in zones] == ["a", "b", ""]  # first-seen order, a node without a zone in ""
    by_name = {n.name: n for n in nodes}
    assert by_name["n3"].requested == {"cpu": 500, "memory": 0, "pods": 1, "example.com/gpu": 1}
    assert by_name["n1"].allocatable["pods"] == 110 and "example.com/gpu" not in by_name["n1"].allocatable


def test_the_columns_give_the_zones_and_amounts_the_nodes_give() -> None:
    snapshot = _snapshot(more_zones=True)
    by_nodes, by_columns = _capture(snapshot, {"n8": 1}), _capture(snapshot, {"n8": 1}, columns=True)
    for table in ("nodes", "zones"):
        assert _plain(by_columns.table(table)) == _plain(by_nodes.table(table))
    zones = {u.name: u.zone for u in by_columns.table("nodes")}
    assert [zones[n] for n in ("n5", "n6", "n7", "n8")] == ["old", "b", "", ""]
    n8 = next(u for u in by_columns.table("nodes") if u.name == "n8")
    assert n8.requested["ephemeral-storage"] == 1 << 30 and n8.requested["example.com/gpu"] == 1


@pytest.mark.parametrize("columns", [False, True], ids=["node-by-node", "from-columns"])
def test_a_capture_shows_the_moment_it_was_taken(columns: bool) -> None:
    snapshot = _snapshot()
    kept = NodeColumns(snapshot)
    capture = UsageCapture(snapshot, None, kept) if columns else UsageCapture(snapshot)
    before = _plain(capture.table("nodes"))
    more = pod_info(_pod("p3", "n3", {"cpu": "2", "example.com/gpu": "2"}))
    _node(snapshot, "n3").add_pod(more)
    assert kept.refresh()
    assert _plain(UsageCapture(snapshot, None, kept).table("nodes")) != before  # the columns did change
    assert _plain(UsageCapture(snapshot).table("nodes")) != before  # the NodeInfo did change
    assert _plain(capture.table("nodes")) == before
    fresh = _capture(_snapshot(), columns=columns)
    assert _plain(fresh.table("nodes")) == before


def test_a_result_makes_its_tables_when_read_and_keeps_them() -> None:
    snapshot = _snapshot()
    result = SimulationResult()
    result.nodes_before = UsageCapture(snapshot)
    result.nodes = result.zones = UsageCapture(snapshot, {"n2": 1})
    _node(snapshot, "n1").add_pod(pod_info(_pod("p3", "n1", {"cpu": "1"})))
    assert [(n.name, n.requested["cpu"], n.placed) for n in result.nodes] == [
        ("n1", 1000, 0), ("n3", 500, 0), ("n4", 0, 0), ("n2", 0, 1)]  # snapshot order: zones in turn
    assert [(z.name, z.nodes, z.placed) for z in result.zones] == [("a", 2, 1), ("b", 1, 0), ("", 1, 0)]
    assert result.nodes is result.nodes  # made once, then the same list
    assert result.nodes_before[0].requested["cpu"] == 1000
    assert result.to_dict()["nodes"][3]["placedPods"] == 1


def test_a_result_built_by_hand_keeps_its_lists() -> None:
    mine = [NodeUsage({"cpu": 1000}, {"cpu": 10}, name="x")]
    result = SimulationResult(nodes=mine)
    assert result.nodes == mine and result.zones == [] and result.nodes_before == []
    other = SimulationResult()
    other.zones.append("z")  # type: ignore[arg-type]
    assert SimulationResult().zones == []  # no default shared between results
    assert result == SimulationResult(nodes=list(mine))
