"""kschedctl.analyses.remedies on real plugins: hints never change the cycle's answer, eviction picks
preemption-style victims, hints on request for --node, nominated pods, PreFilter rejections,
plugins kschedctl knows no remedy for, and the JSON shape."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import kschedctl.analyses.explain as explain_module
from kschedctl.config import load_config
from kschedctl.framework.status import Code, Status
from kschedctl.plugins.registry import BUILTIN_PLUGINS, Registry
from kschedctl.analyses.explain import Explainer
from kschedctl.plugins.taint_toleration import toleration_for
from kschedctl.analyses.remedies import rank
from kschedctl.scheduler.result import NodeHints
from tests.framework.fakes import make_node, make_pod


def _class(name: str, value: int) -> dict:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value}


PRIORITY_CLASSES = {c["metadata"]["name"]: c for c in (_class("p1", 1), _class("p5", 5), _class("p100", 100),
                                                       dict(_class("never", 100), preemptionPolicy="Never"))}


def cluster(nodes, pods=()):
    return SimpleNamespace(nodes=list(nodes), pods=list(pods), priority_classes=PRIORITY_CLASSES, namespaces={},
                           warnings=[])


def running(name: str, node: str, cpu: str, priority: int = 0, **spec) -> dict:
    pod = make_pod(name, node=node, priority=priority,
                   containers=[{"name": "c", "resources": {"requests": {"cpu": cpu}}}], **spec)
    pod["status"] = {"phase": "Running"}
    return pod


def incoming(cpu: str = "1", name: str = "web", **spec) -> dict:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
           "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}}
    pod["spec"].update(spec)
    return pod


def tainted(name: str, key: str = "dedicated", value: str = "gpu", cpu: str = "4") -> dict:
    node = make_node(name, cpu=cpu)
    node["spec"] = {"taints": [{"key": key, "value": value, "effect": "NoSchedule"}]}
    return node


def _without_hint_keys(d: dict) -> dict:
    d = dict(d)
    d.pop("hints", None)
    d.pop("podHints", None)
    d["nodes"] = [{k: v for k, v in n.items() if k != "hints"} for n in d["nodes"]]
    return d


def test_hints_do_not_change_the_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    c = cluster([make_node("node-a", cpu="2"), tainted("node-b"), make_node("node-c", cpu="500m")],
                [running("x", "node-a", "1500m")])
    with_hints = Explainer(c, seed=1).explain(incoming("1"))
    monkeypatch.setattr(explain_module, "attach_hints", lambda *a, **k: None)
    without = Explainer(c, seed=1).explain(incoming("1"))
    assert with_hints.outcome == "Unschedulable"
    assert with_hints.message == (
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. "
        "no new claims to deallocate, preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, "
        "2 Preemption is not helpful for scheduling.")
    assert _without_hint_keys(with_hints.to_dict()) == without.to_dict()
    # The first-failure trace is untouched: node-b still shows only the filters up to its taint.
    assert [f.plugin for f in with_hints.node("node-b").filters][-1] == "TaintToleration"


def test_eviction_picks_victims_as_preemption_would() -> None:
    c = cluster([make_node("node-a", cpu="4")],
                [running("low-a", "node-a", "2", priority=1), running("low-b", "node-a", "1", priority=2),
                 running("low-c", "node-a", "1", priority=3)])
    pod = incoming("2", priorityClassName="p100")
    r = Explainer(c).explain(pod)
    hint = r.node("node-a").hints[0]
    assert hint.plugin == "NodeResourcesFit"
    eviction = hint.details["eviction"]
    # All three lower-priority pods free 4; the most important ones are reprieved while 2 stay free.
    assert eviction["possible"] and eviction["pods"] == ["default/low-a"] and eviction["freed"] == {"cpu": "2"}
    assert hint.text == "needs 2 more cpu (evicting lower-priority default/low-a would free it)"
    assert hint.alternatives == [{"text": "evict lower-priority default/low-a",
                                  "changes": [{"kind": "removePods", "pods": ["default/low-a"]}]}]
    never = Explainer(c).explain(incoming("2", priorityClassName="never"))
    assert "preemptionPolicy is Never" in never.node("node-a").hints[0].details["eviction"]["note"]
    # Equal priority is no victim.
    same = Explainer(c).explain(incoming("2", priorityClassName="p1"))
    assert same.node("node-a").hints[0].details["eviction"]["possible"] is False


def test_hints_on_request_for_a_scheduled_pod() -> None:
    c = cluster([make_node("node-a"), tainted("node-b")])
    ex = Explainer(c, seed=1)
    r = ex.explain(incoming("1"))
    assert r.outcome == "Scheduled" and r.hints == [] and r.node("node-b").hints == []
    assert r.hints_for("node-b") == []  # not asked for: the result is plain data, nothing computes later
    other = cluster([make_node("node-a")])
    ex.explain(incoming("1", name="other"), cluster=other)  # the shared handle now holds another cluster
    asked = ex.explain(incoming("1"), hint_nodes=["node-b", "node-a", "nope"], cluster=c)
    hints = asked.hints_for("node-b")
    assert [(h.plugin, h.text, h.verified) for h in hints] == [
        ("TaintToleration", "needs a toleration for dedicated=gpu:NoSchedule", True)]
    assert asked.hints_for("node-a") == []  # feasible: nothing to change
    assert asked.hints_for("nope") == []
    assert asked.hints == []  # only the asked-for nodes, not the ranking of an Unschedulable pod
    assert not any(callable(v) for v in vars(asked).values())  # plain data: no closure over the framework


def test_nominated_pods_count() -> None:
    c = cluster([make_node("node-a", cpu="4")],
                [running("x", "node-a", "1"),
                 make_pod("waiting", priority=10, nominated="node-a",
                          containers=[{"name": "c", "resources": {"requests": {"cpu": "2"}}}])])
    r = Explainer(c).explain(incoming("2", priorityClassName="p5"))
    assert r.outcome == "Unschedulable"
    [summary] = r.hints
    assert summary.nominated_pods_considered and summary.text == (
        "node-a needs 1 more cpu (evicting lower-priority default/x would free it)")
    assert summary.to_dict()["nominatedPodsConsidered"] is True


def test_prefilter_conflict_gives_a_pod_hint() -> None:
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a"]},
                         {"key": "metadata.name", "operator": "In", "values": ["b"]}]}]}}}
    r = Explainer(cluster([make_node("node-a")])).explain(incoming("1", affinity=affinity))
    assert r.outcome == "Unschedulable" and r.hints == []
    assert [(h.plugin, h.text) for h in r.pod_hints] == [
        ("NodeAffinity", "needs node affinity terms that name at least one node (its matchFields name none)")]
    assert r.to_dict()["podHints"][0]["resolvable"] is False


def test_excluded_by_prefilter_result_names_the_nodes() -> None:
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-b"]}]}]}}}
    r = Explainer(cluster([make_node("node-a"), make_node("node-b", cpu="1")])).explain(
        incoming("2", affinity=affinity))
    assert r.outcome == "Unschedulable"
    by_node = {s.node: s for s in r.hints}
    assert by_node["node-a"].text == "node-a is not among the nodes the pod's node affinity names (node-b)"
    assert by_node["node-b"].text == "node-b needs 1 more cpu (over the node's whole allocatable: eviction cannot help)"
    assert [s.node for s in r.hints] == ["node-b", "node-a"]  # a checked fix ranks before advice


class Picky:
    """A filter plugin kschedctl knows no remedy for."""

    name = "Picky"

    def __init__(self, args=None, handle=None) -> None:
        pass

    def filter(self, state, pod_info, node_info):
        if node_info.name == "node-b":
            return Status(Code.Unschedulable, "picky says no")
        return None


def test_unknown_plugin_gets_an_unresolved_hint_ranked_last(tmp_path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("""
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    filter:
      enabled: [{name: Picky}]
""", encoding="utf-8")
    registry = Registry(dict(BUILTIN_PLUGINS))
    registry.register("Picky", Picky)
    cfg = load_config(str(config), extra_plugins={"Picky": registry.points_of("Picky")})
    c = cluster([make_node("node-a", cpu="1"), make_node("node-b"), make_node("node-c", cpu="1")])
    r = Explainer(c, cfg, registry=registry).explain(incoming("2"))
    assert [s.node for s in r.hints][-1] == "node-b"
    last = r.hints[-1]
    assert last.fits_after is False and last.blocking_plugins == ["Picky"]
    [hint] = r.node("node-b").hints
    assert not hint.resolvable and hint.reasons == ["picky says no"]
    assert hint.text == "is rejected by Picky (picky says no); kschedctl knows no change that would flip it"


def test_json_shape() -> None:
    r = Explainer(cluster([tainted("node-a")])).explain(incoming("1"))
    d = r.to_dict()
    assert d["hints"] == [{"rank": 1, "node": "node-a", "blockingPlugins": ["TaintToleration"],
                           "text": "node-a needs a toleration for dedicated=gpu:NoSchedule", "fitsAfter": True,
                           "shortfall": 0.0}]
    [hint] = d["nodes"][0]["hints"]
    assert hint == {
        "plugin": "TaintToleration", "text": "needs a toleration for dedicated=gpu:NoSchedule",
        "reasons": ["node(s) had untolerated taint(s)"],
        "changes": [{"kind": "addToleration",
                     "toleration": {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}}],
        "verified": True,
        "details": {"taints": ["dedicated=gpu:NoSchedule"]},
        "alternatives": [{"text": "remove the taint dedicated=gpu:NoSchedule from the node",
                          "changes": [{"kind": "removeNodeTaint", "node": "node-a",
                                       "taint": {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}}]}],
    }


def test_toleration_for() -> None:
    assert toleration_for({"key": "k", "effect": "NoExecute"}) == {"key": "k", "operator": "Exists",
                                                                     "effect": "NoExecute"}
    assert toleration_for({"key": "k", "value": "v", "effect": "NoSchedule"}) == {
        "key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"}


def test_rank_order() -> None:
    s = [NodeHints("a", ["X", "Y"], "", True, 0.0), NodeHints("b", ["X"], "", True, 0.5),
         NodeHints("c", ["X"], "", False, 0.0), NodeHints("d", ["X"], "", True, 0.1)]
    assert [(h.rank, h.node) for h in rank(s)] == [(1, "d"), (2, "b"), (3, "a"), (4, "c")]
