"""explain() end to end on real plugins: outcomes, messages, PreFilterResult exclusions,
the JSON shape of the contract, seeded tie-breaks and profile selection."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from kschedctl.config import load_config
from kschedctl.errors import UsageError
from kschedctl.plugins.registry import BUILTIN_PLUGINS, Registry
from kschedctl.analyses.explain import Explainer, explain
from tests.framework.fakes import make_node, make_pod

CONFIG = str(Path(__file__).parent / "cases" / "config-implemented.yaml")


@pytest.fixture(scope="module")
def config():
    return load_config(CONFIG)


def cluster(nodes, pods=()):
    return SimpleNamespace(nodes=list(nodes), pods=list(pods), priority_classes={}, namespaces={}, warnings=[])


def web(cpu: str = "1", **spec) -> dict:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
           "spec": {"containers": [{"name": "c", "image": "nginx:1.27", "resources": {"requests": {"cpu": cpu}}}]}}
    pod["spec"].update(spec)
    return pod


def busy(name: str, node: str, cpu: str) -> dict:
    return make_pod(name, node=node, containers=[{"name": "c", "resources": {"requests": {"cpu": cpu}}}])


THREE = [make_node(n) for n in ("node-a", "node-b", "node-c")]


def test_scheduled_on_the_least_allocated_node(config) -> None:
    c = cluster(THREE, [busy("x", "node-a", "2"), busy("y", "node-b", "1")])
    r = explain(web(), c, config, seed=1)
    assert r.outcome == "Scheduled" and r.selected_node == "node-c" and r.message == ""
    assert (r.evaluated_nodes, r.feasible_nodes) == (3, 3)
    node_c = r.node("node-c")
    assert node_c.rank == 1 and node_c.total_score == sum(s.weighted for s in node_c.scores)
    # NodeAffinity and NodePorts returned Skip at PreFilter: their Filter does not run.
    assert [f.plugin for f in node_c.filters] == ["NodeUnschedulable", "NodeName", "TaintToleration",
                                                   "NodeResourcesFit"]
    assert {s.extension_point for s in r.stages} >= {"PreEnqueue", "PreFilter", "PreScore", "Bind"}


def test_unschedulable_message_word_for_word(config) -> None:
    nodes = [make_node("node-a"), make_node("node-b"), make_node("node-c")]
    nodes[2]["spec"] = {"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]}
    r = explain(web("8"), cluster(nodes), config)
    assert r.outcome == "Unschedulable" and r.selected_node is None
    assert r.message == ("0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu.")


def test_gated(config) -> None:
    r = explain(web(schedulingGates=[{"name": "example.com/wait"}]), cluster(THREE), config)
    assert r.outcome == "Gated" and r.message == "waiting for scheduling gates: [example.com/wait]"
    assert r.nodes and not any(n.evaluated for n in r.nodes)


def test_prefilter_result_excludes_nodes_with_one_entry(config) -> None:
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-b"]}]}]}}}
    r = explain(web(affinity=affinity), cluster(THREE), config)
    assert r.selected_node == "node-b"
    excluded = r.node("node-a")
    assert not excluded.evaluated and not excluded.feasible
    assert [(f.plugin, f.code, f.reasons) for f in excluded.filters] == [
        ("NodeAffinity", "UnschedulableAndUnresolvable", ["node(s) didn't satisfy plugin(s) [NodeAffinity]"])]
    assert r.scoring_skipped_upstream  # one feasible node: upstream does not score it


def test_json_shape_of_the_contract(config) -> None:
    d = explain(web(), cluster(THREE), config, seed=3).to_dict()
    assert list(d)[:11] == ["kind", "pod", "profile", "outcome", "selectedNode", "message", "evaluatedNodes",
                            "feasibleNodes", "stages", "nodes", "preemption"]
    assert d["kind"] == "ExplainResult" and d["pod"] == "default/web" and d["profile"] == "default-scheduler"
    assert set(d["stages"][0]) >= {"extensionPoint", "plugin", "code", "reasons"}
    node = d["nodes"][0]
    assert list(node)[:7] == ["name", "evaluated", "feasible", "filters", "scores", "totalScore", "rank"]
    assert set(node["filters"][0]) == {"plugin", "code", "reasons"}
    assert set(node["scores"][0]) == {"plugin", "raw", "normalized", "weight", "weighted"}
    assert d["preemption"] is None


def test_seed_reproduces_the_tie_break(config) -> None:
    nodes = [make_node(f"node-{i}") for i in range(6)]
    picks = {explain(web(), cluster(nodes), config, seed=7).selected_node for _ in range(5)}
    assert len(picks) == 1
    r = explain(web(), cluster(nodes), config, seed=7)
    assert len(r.tied_nodes) == 6 and all(n.tied for n in r.nodes)
    many = {explain(web(), cluster(nodes), config, seed=s).selected_node for s in range(40)}
    assert len(many) > 1


def test_profile_selection(config) -> None:
    c = cluster(THREE, [busy("x", "node-a", "2"), busy("y", "node-b", "1")])
    ex = Explainer(c, config, seed=1)
    assert ex.explain(web(), profile="bin-packing").selected_node == "node-a"
    assert ex.explain(web(schedulerName="bin-packing")).selected_node == "node-a"
    assert ex.explain(web()).selected_node == "node-c"
    with pytest.raises(UsageError, match='no profile with scheduler name "nope"'):
        ex.explain(web(), profile="nope")
    with pytest.raises(UsageError, match='asks for scheduler "other"'):
        ex.explain(web(schedulerName="other"))


def test_all_filters_shows_every_reason(config) -> None:
    nodes = [make_node("node-a")]
    nodes[0]["spec"] = {"taints": [{"key": "k", "effect": "NoSchedule"}]}
    first = explain(web("8"), cluster(nodes), config).node("node-a")
    every = explain(web("8"), cluster(nodes), config, all_filters=True).node("node-a")
    assert [f.plugin for f in first.filters][-1] == "TaintToleration"
    assert [f.plugin for f in every.filters][-1] == "NodeResourcesFit"
    assert every.verdict().plugin == "TaintToleration"


def test_a_plugin_module_that_does_not_import_fails_loudly(config) -> None:
    # a broken built-in is a bug: it raises, it never becomes a stand-in that answers Error
    builtins = dict(BUILTIN_PLUGINS)
    builtins["ImageLocality"] = "kschedctl.plugins.does_not_exist:ImageLocality"
    with pytest.raises(ModuleNotFoundError, match="does_not_exist"):
        Explainer(cluster(THREE), config, registry=Registry(builtins), seed=1).explain(web())
