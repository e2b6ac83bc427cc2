"""Extenders in the scheduling cycle: upstream TestSchedulerWithExtenders (cases in
cases/extenders.yaml) against real loopback extenders, and the rest of findNodesThatPassExtenders
/ prioritizeNodes as kschedctl runs and records them: statuses and the FitError message, ignorable
and non-ignorable failures, prioritize errors, weights and the x10 scaling, nodeCacheCapable both
ways, numFeasibleNodesToFind, the nominated node, managedResources with ignoredByScheduler, and
what explain() reports (filters/scores entries "extender:<urlPrefix>", notes, warnings)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from kschedctl.config import load_config
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.extender import HTTPExtender
from kschedctl.framework.runtime import FitError
from kschedctl.framework.status import Code
from kschedctl.analyses.explain import Explainer
from kschedctl.scheduler.schedule_one import Scheduler, SchedulingError
from tests.framework.extender_server import (  # noqa: F401 - extender_server is a fixture
    extender_server,
    fake_filter,
    fake_prioritize,
)
from tests.framework.fakes import FAKES, TrueFilter, framework, make_node, make_pod, pod_info

HERE = Path(__file__).parent
CASES = yaml.safe_load((HERE / "cases" / "extenders.yaml").read_text(encoding="utf-8"))["cases"]
IMPLEMENTED = (HERE / "cases" / "config-implemented.yaml").read_text(encoding="utf-8")


class Node2Prioritizer:
    """fake_extender.go's node2PrioritizerPlugin: 100 on node2, 10 elsewhere."""

    name = "Node2Prioritizer"

    def score(self, state, pod_info, node_info):
        return (100 if node_info.name == "node2" else 10), None


class PodCount:
    """Scores 100 minus 40 per pod on the node: tells a NodeInfo with pods from one without."""

    name = "PodCount"

    def score(self, state, pod_info, node_info):
        return max(0, 100 - 40 * len(node_info.pods)), None


def _plugins(specs: list[dict]) -> tuple[dict, dict]:
    plugins: dict[str, list] = {}
    weights: dict[str, int] = {}
    for spec in specs:
        pl = Node2Prioritizer() if spec["kind"] == "Node2Prioritizer" else FAKES[spec["kind"]]()
        if callable(getattr(pl, "filter", None)):
            plugins.setdefault("filter", []).append(pl)
        if callable(getattr(pl, "pre_score", None)):
            plugins.setdefault("preScore", []).append(pl)
        if callable(getattr(pl, "score", None)):
            plugins.setdefault("score", []).append(pl)
            weights[pl.name] = spec.get("weight", 1)
    return plugins, weights


def _extender(srv, spec: dict) -> HTTPExtender:
    """A FakeExtender of the YAML served by ``srv`` under /<name>/."""
    name = spec["name"]
    config: dict = {"urlPrefix": f"{srv.url}/{name}"}
    if spec.get("predicates"):
        config["filterVerb"] = "filter"
        srv.routes[f"/{name}/filter"] = fake_filter(spec["predicates"])
    if spec.get("prioritizers"):
        config["prioritizeVerb"] = "prioritize"
        srv.routes[f"/{name}/prioritize"] = fake_prioritize(spec["prioritizers"])
    config["weight"] = spec.get("weight", 0)
    if spec.get("unInterested"):
        config["managedResources"] = [{"name": "example.com/unused"}]
    if spec.get("ignorable"):
        config["ignorable"] = True
    if spec.get("binder"):
        config["bindVerb"] = "bind"
    return HTTPExtender(config)


@pytest.mark.parametrize("case", [pytest.param(c, id=f"SchedulerWithExtenders_{c['name']}") for c in CASES])
def test_scheduler_with_extenders(case: dict, extender_server) -> None:
    srv = extender_server()
    plugins, weights = _plugins(case["plugins"])
    fwk = framework(plugins, [make_node(n) for n in case["nodes"]], weights=weights)
    # Extenders in the order the test lists them, as upstream's test hands them to the Scheduler.
    extenders = [_extender(srv, spec) for spec in case["extenders"]]
    sched = Scheduler(fwk.handle.snapshot(), 0, seed=1, extenders=extenders)
    pod = pod_info(make_pod("ignored"))
    if case.get("expectsErr"):
        with pytest.raises((FitError, SchedulingError)):
            sched.schedule_pod(fwk, CycleState(), pod)
    else:
        result = sched.schedule_pod(fwk, CycleState(), pod)
        want = case["expectedResult"]
        assert (result.suggested_host, result.evaluated_nodes, result.feasible_nodes) == (
            want["suggestedHost"], want["evaluatedNodes"], want["feasibleNodes"])
    for spec in case["extenders"]:
        if spec.get("unInterested"):
            assert not [p for p in srv.paths() if p.startswith(f"/{spec['name']}/")]
    assert not [p for p in srv.paths() if p.endswith("/bind") or p.endswith("/preempt")]


# -- statuses, messages, failures ---------------------------------------------------------------


def _cycle(srv, extenders: list[dict], plugins=None, weights=None, node_names=("node1", "node2", "node3"),
           pods=(), nominated: str = ""):
    fwk = framework(plugins if plugins is not None else {"filter": [TrueFilter()]},
                    [make_node(n) for n in node_names], pods, weights or {})
    exts = [HTTPExtender({"urlPrefix": srv.url + e.pop("path", ""), **e}) for e in extenders]
    sched = Scheduler(fwk.handle.snapshot(), 0, seed=1, extenders=exts)
    pod = make_pod("web", nominated=nominated)
    return sched, fwk, pod_info(pod)


def test_failed_nodes_get_the_extenders_reasons(extender_server) -> None:
    srv = extender_server()
    srv.routes["/filter"] = lambda args: (200, {
        "NodeNames": [],
        "FailedNodes": {"node1": "gpu busy", "node2": "gpu busy"},
        "FailedAndUnresolvableNodes": {"node2": "no gpu"}})  # node3 is dropped without a message
    sched, fwk, pod = _cycle(srv, [{"filterVerb": "filter", "nodeCacheCapable": True}])
    with pytest.raises(FitError) as err:
        sched.schedule_pod(fwk, CycleState(), pod)
    d = err.value.diagnosis
    assert {n: (s.code, s.reasons) for n, s in d.node_to_status.items()} == {
        "node1": (Code.Unschedulable, ["gpu busy"]),
        "node2": (Code.UnschedulableAndUnresolvable, ["no gpu"])}  # the unresolvable map wins
    assert d.unschedulable_plugins == {"Extender"}
    assert err.value.error() == "0/3 nodes are available: 1 gpu busy, 1 no gpu."


def test_run_cycle_records_extender_verdicts_and_fails_loudly(extender_server) -> None:
    srv = extender_server()
    srv.routes["/filter"] = lambda args: (500, "boom")
    sched, fwk, pod = _cycle(srv, [{"filterVerb": "filter"}])
    out = sched.run_cycle(fwk, pod)
    url = srv.url + "/filter"
    assert out.outcome == "Error"
    assert out.message == f"extender {srv.url} failed at filter: failed filter with extender at URL {url}, code 500"
    [ext] = out.extenders
    assert ext["calls"] == [{"verb": "filter", "url": url, "nodes": 3, "code": "Error", "ignored": False,
                             "message": f"failed filter with extender at URL {url}, code 500",
                             "seconds": ext["calls"][0]["seconds"]}]


def test_ignorable_extender_failure_is_a_warning(extender_server) -> None:
    srv = extender_server()
    srv.routes["/filter"] = lambda args: (200, b"{not json")
    sched, fwk, pod = _cycle(srv, [{"filterVerb": "filter", "ignorable": True}])
    out = sched.run_cycle(fwk, pod)
    assert out.outcome == "Scheduled" and out.selected_node in ("node1", "node2", "node3")
    assert len(out.warnings) == 1
    assert out.warnings[0].startswith(f"ignorable extender {srv.url} failed at filter and was skipped")
    assert out.extenders[0]["calls"][0]["ignored"] is True


def test_prioritize_errors_are_ignored_with_a_warning(extender_server) -> None:
    srv = extender_server()
    srv.routes["/a/prioritize"] = lambda args: (503, "")
    srv.routes["/b/prioritize"] = lambda args: (200, [{"Host": "node3", "Score": 7}])
    sched, fwk, pod = _cycle(srv, [{"path": "/a", "prioritizeVerb": "prioritize", "weight": 100},
                                   {"path": "/b", "prioritizeVerb": "prioritize", "weight": 1}])
    out = sched.run_cycle(fwk, pod)
    assert out.outcome == "Scheduled" and out.selected_node == "node3"
    assert [w.split(";")[0] for w in out.warnings] == [f"extender {srv.url}/a failed at prioritize"]
    totals = {ns.name: ns.total_score for ns in out.node_scores}
    assert totals == {"node1": 0, "node2": 0, "node3": 70}  # 7 x weight 1 x (100 / 10)


def test_extender_scores_are_scaled_weighted_and_added(extender_server) -> None:
    srv = extender_server()
    srv.routes["/prioritize"] = lambda args: (200, [{"Host": "node1", "Score": 2}, {"Host": "node2", "Score": 10},
                                                    {"Host": "node2", "Score": 1}, {"Host": "elsewhere", "Score": 9}])
    plugins = {"filter": [TrueFilter()], "score": [Node2Prioritizer()]}
    sched, fwk, pod = _cycle(srv, [{"prioritizeVerb": "prioritize", "weight": 3}], plugins, {"Node2Prioritizer": 2},
                             node_names=("node1", "node2"))
    fwk.begin_trace()
    scores = sched.prioritize_nodes(fwk, CycleState(), pod, fwk.handle.snapshot().node_infos())
    by = {ns.name: ns for ns in scores}
    plugin = f"extender:{srv.url}"
    assert by["node1"].scores == [("Node2Prioritizer", 20), (plugin, 60)] and by["node1"].total_score == 80
    # A host listed twice counts twice (upstream appends both); unknown hosts are ignored.
    assert by["node2"].scores == [("Node2Prioritizer", 200), (plugin, 330)] and by["node2"].total_score == 530
    trace = fwk.trace
    assert trace.score_plugins == ["Node2Prioritizer", plugin]
    assert trace.raw_scores[plugin] == [2, 11] and trace.normalized_scores[plugin] == [20, 110]
    assert sched.extender_log().weights == {plugin: 3}


@pytest.mark.parametrize("cache_capable", [True, False], ids=["nodeCacheCapable", "notNodeCacheCapable"])
def test_node_cache_capable_both_ways(extender_server, cache_capable: bool) -> None:
    """A non-cache-capable extender answers with Node objects: upstream v1.34 scores them as
    NodeInfos without pods, so the busy node1 looks as empty as node2 (kubernetes#141781)."""
    srv = extender_server()
    srv.routes["/filter"] = fake_filter(["True"])
    plugins = {"filter": [TrueFilter()], "score": [PodCount()]}
    busy = [make_pod("a", node="node1"), make_pod("b", node="node1")]
    sched, fwk, pod = _cycle(srv, [{"filterVerb": "filter", "nodeCacheCapable": cache_capable}], plugins,
                             node_names=("node1", "node2"), pods=busy)
    out = sched.run_cycle(fwk, pod)
    args = srv.requests[0]["args"]
    if cache_capable:
        assert args["NodeNames"] == ["node1", "node2"] and args["Nodes"] is None
        assert {ns.name: ns.total_score for ns in out.node_scores} == {"node1": 20, "node2": 100}
        assert out.selected_node == "node2"
    else:
        assert args["NodeNames"] is None and [n["metadata"]["name"] for n in args["Nodes"]["items"]] == [
            "node1", "node2"]
        assert {ns.name: ns.total_score for ns in out.node_scores} == {"node1": 100, "node2": 100}
        assert sorted(out.tied_nodes) == ["node1", "node2"]
        assert any("not nodeCacheCapable" in n for n in out.extenders[0]["notes"])


def test_num_feasible_nodes_to_find_counts_extenders(extender_server) -> None:
    srv = extender_server()
    srv.routes["/prioritize"] = lambda args: (200, [])
    names = [f"n{i:03d}" for i in range(150)]
    for extenders, want in (([], 1), ([{"prioritizeVerb": "prioritize", "weight": 1}], 100),
                            ([{"filterVerb": "filter"}], 100), ([{"bindVerb": "bind"}], 1)):
        srv.routes["/filter"] = fake_filter(["True"])
        sched, fwk, pod = _cycle(srv, [dict(e) for e in extenders], node_names=names)
        out = sched.run_cycle(fwk, pod)
        assert out.num_nodes_to_find == want, extenders
        assert out.outcome == "Scheduled"


def test_nominated_node_rejected_by_extender_falls_back_to_all_nodes(extender_server) -> None:
    srv = extender_server()
    srv.routes["/filter"] = fake_filter(["Node1"])
    sched, fwk, pod = _cycle(srv, [{"filterVerb": "filter", "nodeCacheCapable": True}],
                             node_names=("node1", "node2"), nominated="node2")
    result = sched.schedule_pod(fwk, CycleState(), pod)
    assert result.suggested_host == "node1"
    assert [r["args"]["NodeNames"] for r in srv.requests] == [["node2"], ["node1", "node2"]]


# -- explain(): the report ------------------------------------------------------------------------


def _config(tmp_path: Path, extenders: list[dict]):
    path = tmp_path / "config.yaml"
    doc = yaml.safe_load(IMPLEMENTED)
    doc["extenders"] = extenders
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return load_config(str(path))


def _cluster(nodes, pods=()):
    return SimpleNamespace(nodes=list(nodes), pods=list(pods), priority_classes={}, namespaces={}, warnings=[])


def _web(**resources) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
            "spec": {"containers": [{"name": "c", "image": "nginx", "resources": resources or {
                "requests": {"cpu": "1"}}}]}}


def test_explain_reports_extender_filters_scores_and_notes(extender_server, tmp_path: Path) -> None:
    srv = extender_server()
    srv.routes["/ext/filter"] = lambda args: (200, {"NodeNames": ["node1", "node2"],
                                                    "FailedNodes": {"node3": "rack full"}})
    srv.routes["/ext/prioritize"] = lambda args: (200, [{"Host": "node2", "Score": 10}])
    url = srv.url + "/ext"
    cfg = _config(tmp_path, [{"urlPrefix": url, "filterVerb": "filter", "prioritizeVerb": "prioritize",
                              "weight": 2, "nodeCacheCapable": True, "bindVerb": "bind", "preemptVerb": "preempt"}])
    r = Explainer(_cluster([make_node(n) for n in ("node1", "node2", "node3")]), cfg, seed=1).explain(_web())
    assert r.outcome == "Scheduled" and r.selected_node == "node2"
    d = r.to_dict()
    plugin = f"extender:{url}"
    nodes = {n["name"]: n for n in d["nodes"]}
    assert nodes["node3"]["filters"][-1] == {"plugin": plugin, "code": "Unschedulable", "reasons": ["rack full"]}
    assert not nodes["node3"]["feasible"] and nodes["node3"]["evaluated"]
    assert nodes["node1"]["filters"][-1] == {"plugin": plugin, "code": "Success", "reasons": []}
    assert nodes["node2"]["scores"][-1] == {"plugin": plugin, "raw": 10, "normalized": 100, "weight": 2,
                                            "weighted": 200}
    assert all(s["plugin"] != plugin for s in nodes["node1"]["scores"])  # not scored by the extender
    assert nodes["node2"]["totalScore"] == sum(s["weighted"] for s in nodes["node2"]["scores"])
    [ext] = d["extenders"]
    assert ext["name"] == url and ext["interested"] is True and ext["supportsPreemption"] is True
    assert [c["verb"] for c in ext["calls"]] == ["filter", "prioritize"]
    assert any(n.startswith('bindVerb "bind" is never called') for n in ext["notes"])
    assert any(n.startswith('preemptVerb "preempt" is never called') for n in ext["notes"])
    assert "/ext/bind" not in srv.paths() and "/ext/preempt" not in srv.paths()


def test_explain_without_extenders(extender_server, tmp_path: Path) -> None:
    srv = extender_server()
    cfg = _config(tmp_path, [{"urlPrefix": srv.url, "filterVerb": "filter"}])
    r = Explainer(_cluster([make_node("node1"), make_node("node2")]), cfg, seed=1, extenders=False).explain(_web())
    assert r.outcome == "Scheduled" and srv.requests == []
    assert r.warnings == ["1 configured extender(s) skipped (--no-extenders): kube-scheduler would call them"]
    assert "extenders" not in r.to_dict()


def test_ignored_by_scheduler_resources_are_left_to_the_extender(extender_server, tmp_path: Path) -> None:
    srv = extender_server()
    srv.routes["/filter"] = lambda args: (200, {"NodeNames": ["node2"], "FailedNodes": {"node1": "no free gpu"}})
    cfg = _config(tmp_path, [{"urlPrefix": srv.url, "filterVerb": "filter", "nodeCacheCapable": True,
                              "managedResources": [{"name": "example.com/gpu", "ignoredByScheduler": True}]}])
    cluster = _cluster([make_node("node1"), make_node("node2")])
    gpu = _web(requests={"cpu": "1", "example.com/gpu": "1"}, limits={"example.com/gpu": "1"})
    r = Explainer(cluster, cfg, seed=1).explain(gpu)
    assert r.outcome == "Scheduled" and r.selected_node == "node2"
    assert r.extenders[0]["interested"] is True
    # Without the extender NodeResourcesFit counts the gpu itself, and no node has one.
    r = Explainer(cluster, cfg, seed=1, extenders=False).explain(gpu)
    assert r.outcome == "Unschedulable"
    assert r.message == "0/2 nodes are available: 2 Insufficient example.com/gpu."
    # A pod that does not use the managed resource never reaches the extender.
    before = len(srv.requests)
    r = Explainer(cluster, cfg, seed=1).explain(_web())
    assert r.outcome == "Scheduled" and len(srv.requests) == before
    assert r.extenders[0]["interested"] is False and r.extenders[0]["calls"] == []


def test_explain_error_outcome_names_the_extender(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    cfg = _config(tmp_path, [{"urlPrefix": url, "filterVerb": "filter", "httpTimeout": "2s"}])
    r = Explainer(_cluster([make_node("node1"), make_node("node2")]), cfg, seed=1).explain(_web())
    assert r.outcome == "Error" and r.selected_node is None
    assert r.message == (f'extender {url} failed at filter: Post "{url}/filter": dial tcp 127.0.0.1:{port}: '
                         f"connect: connection refused")
