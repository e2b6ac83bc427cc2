"""Extenders in ``simulate`` and ``capacity``: called for every pod of a batch (and every copy),
as kube-scheduler calls them, or skipped with a warning when asked (``--no-extenders``); and
``diff --simulate`` runs each side with its own configuration's extenders."""

from __future__ import annotations

from pathlib import Path

from kschedctl.analyses.capacity import capacity
from kschedctl.analyses.diff import diff_simulate
from kschedctl.scheduler.simulate import Simulator
from tests.framework.extender_server import extender_server  # noqa: F401 - a fixture
from tests.framework.fakes import make_node
from tests.scheduler.test_extenders import _cluster, _config, _web

NODES = ("node1", "node2", "node3")


def _only(node: str):
    """A filter extender that keeps ``node`` and turns the others away."""
    def route(args: dict) -> tuple[int, dict]:
        names = list(args.get("NodeNames") or [])
        return 200, {"NodeNames": [n for n in names if n == node],
                     "FailedNodes": {n: "rack full" for n in names if n != node}}
    return route


def _pods(n: int) -> list[dict]:
    pods = []
    for i in range(n):
        pod = _web(requests={"cpu": "100m"})
        pod["metadata"]["name"] = f"web-{i}"
        pods.append(pod)
    return pods


def test_simulate_calls_the_filter_extender_for_every_pod(extender_server, tmp_path: Path) -> None:
    srv = extender_server()
    srv.routes["/filter"] = _only("node2")
    cfg = _config(tmp_path, [{"urlPrefix": srv.url, "filterVerb": "filter", "nodeCacheCapable": True}])
    result = Simulator(_cluster([make_node(n) for n in NODES]), cfg, seed=1).run(_pods(3))
    assert [(p.outcome, p.node) for p in result.placements] == [("Scheduled", "node2")] * 3
    assert srv.paths() == ["/filter"] * 3
    assert result.warnings == []


def test_simulate_prioritize_extender_moves_the_choice(extender_server, tmp_path: Path) -> None:
    srv = extender_server()
    srv.routes["/prioritize"] = lambda args: (200, [{"Host": n, "Score": 10 if n == "node3" else 0}
                                                    for n in args.get("NodeNames") or []])
    cfg = _config(tmp_path, [{"urlPrefix": srv.url, "prioritizeVerb": "prioritize", "weight": 5,
                              "nodeCacheCapable": True}])
    result = Simulator(_cluster([make_node(n) for n in NODES]), cfg, seed=1).run(_pods(2))
    assert [p.node for p in result.placements] == ["node3", "node3"]


def test_simulate_without_extenders_skips_them_and_says_so(extender_server, tmp_path: Path) -> None:
    srv = extender_server()
    srv.routes["/filter"] = _only("node2")
    cfg = _config(tmp_path, [{"urlPrefix": srv.url, "filterVerb": "filter", "nodeCacheCapable": True}])
    result = Simulator(_cluster([make_node(n) for n in NODES]), cfg, seed=1, extenders=False).run(_pods(3))
    assert srv.requests == []
    assert {p.node for p in result.placements} != {"node2"}
    assert result.warnings == ["1 configured extender(s) skipped (--no-extenders): kube-scheduler would call them"]


def test_simulate_reports_an_ignorable_extender_failure_once(extender_server, tmp_path: Path) -> None:
    srv = extender_server()
    srv.routes["/filter"] = lambda args: (200, b"{not json")
    cfg = _config(tmp_path, [{"urlPrefix": srv.url, "filterVerb": "filter", "ignorable": True}])
    result = Simulator(_cluster([make_node(n) for n in NODES]), cfg, seed=1).run(_pods(3))
    assert all(p.outcome == "Scheduled" for p in result.placements)
    assert len(result.warnings) == 1 and "ignorable extender" in result.warnings[0]


def test_capacity_counts_only_what_the_extender_lets_through(extender_server, tmp_path: Path) -> None:
    srv = extender_server()
    srv.routes["/filter"] = _only("node2")
    cfg = _config(tmp_path, [{"urlPrefix": srv.url, "filterVerb": "filter", "nodeCacheCapable": True}])
    cluster = _cluster([make_node(n) for n in NODES])
    pod = _web(requests={"cpu": "1"})
    with_ext = capacity(pod, cluster, cfg, seed=1, max_copies=100)
    assert set(with_ext.per_node) == {"node2"} and with_ext.count == with_ext.per_node["node2"] > 0
    assert "rack full" in with_ext.stop_reason
    without = capacity(pod, cluster, cfg, seed=1, max_copies=100, extenders=False)
    assert without.count == 3 * with_ext.count
    assert without.warnings == ["1 configured extender(s) skipped (--no-extenders): kube-scheduler would call them"]


def test_simulate_failing_extender_makes_every_pod_an_error(extender_server, tmp_path: Path) -> None:
    srv = extender_server()
    srv.routes["/filter"] = lambda args: (500, b"boom")
    cfg = _config(tmp_path, [{"urlPrefix": srv.url, "filterVerb": "filter"}])
    result = Simulator(_cluster([make_node(n) for n in NODES]), cfg, seed=1, max_attempts=1).run(_pods(2))
    assert [p.outcome for p in result.placements] == ["Error", "Error"]
    assert all(p.message.startswith(f"extender {srv.url} failed at filter") for p in result.placements)
    assert not result.all_scheduled


def test_capacity_reports_an_ignorable_extender_failure_once(extender_server, tmp_path: Path) -> None:
    srv = extender_server()
    srv.routes["/filter"] = lambda args: (200, b"{not json")
    cfg = _config(tmp_path, [{"urlPrefix": srv.url, "filterVerb": "filter", "ignorable": True}])
    result = capacity(_web(requests={"cpu": "1"}), _cluster([make_node(n) for n in NODES]), cfg, seed=1,
                      max_copies=5)
    assert result.count == 5 and len(srv.requests) == 5
    assert len(result.warnings) == 1 and "ignorable extender" in result.warnings[0]


def test_diff_simulate_calls_each_sides_extenders_or_none(extender_server, tmp_path: Path) -> None:
    srv = extender_server()
    srv.routes["/filter"] = _only("node2")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    cfg_a = _config(tmp_path / "a", [{"urlPrefix": srv.url, "filterVerb": "filter", "nodeCacheCapable": True}])
    cfg_b = _config(tmp_path / "b", [])
    cluster = _cluster([make_node(n) for n in NODES])
    with_ext = diff_simulate(_pods(3), cluster, cfg_a, cfg_b, seed=1)
    assert srv.paths() == ["/filter"] * 3
    assert {p.a.node for p in with_ext.pods} == {"node2"}
    assert {p.b.node for p in with_ext.pods} != {"node2"}
    assert with_ext.warnings == []
    srv.requests.clear()
    without = diff_simulate(_pods(3), cluster, cfg_a, cfg_b, seed=1, extenders=False)
    assert srv.requests == []
    assert not any(p.moved for p in without.pods)
    assert without.warnings == ["1 configured extender(s) skipped (--no-extenders): kube-scheduler would call them"]
