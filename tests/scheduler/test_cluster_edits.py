"""Node what-ifs (kschedctl.cluster.edits, what_if): the cases of what_if/cases.yaml
run on what_if/cluster.yaml; each edit's record holds what the case expects."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedctl.errors import InputError
from kschedctl.inputs.cluster import load_cluster
from kschedctl.cluster.edits import (
    UNSCHEDULABLE_TAINT_KEY,
    AddNodes,
    Cordon,
    Drain,
    Edit,
    LabelNodes,
    MarkNotReady,
    NodeReadiness,
    NodeTarget,
    RemoveNodes,
    TaintNodes,
    parse_label,
)
from kschedctl.analyses.what_if import WhatIf

HERE = Path(__file__).parent / "what_if"
CASES = yaml.safe_load((HERE / "cases.yaml").read_text(encoding="utf-8"))


def _edit(spec: dict[str, Any]) -> Edit:
    if "drain" in spec:
        return Drain(NodeTarget.parse(spec["drain"]), force=spec.get("force", False))
    if "remove" in spec:
        return RemoveNodes(NodeTarget.parse(spec["remove"]))
    if "cordon" in spec:
        return Cordon(NodeTarget.parse(spec["cordon"]))
    if "label" in spec:
        return LabelNodes(NodeTarget.parse(spec["label"]), tuple(parse_label(t) for t in spec["labels"]))
    if "taint" in spec:
        return TaintNodes(NodeTarget.parse(spec["taint"]), tuple(spec["taints"]))
    if "notReady" in spec:
        return MarkNotReady(NodeTarget.parse(spec["notReady"]))
    return AddNodes(spec["like"], spec["add"], tuple((spec.get("labels") or {}).items()),
                    tuple(spec.get("taints") or ()))


@pytest.fixture(scope="module")
def cluster() -> Any:
    return load_cluster([str(HERE / "cluster.yaml")])


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_edit(cluster: Any, case: dict[str, Any]) -> None:
    nodes_before, pods_before = copy.deepcopy(cluster.nodes), copy.deepcopy(cluster.pods)
    what_if = WhatIf([_edit(e) for e in case["edits"]])
    if "error" in case:
        with pytest.raises(InputError) as caught:
            what_if.apply(cluster)
        assert str(caught.value).startswith(case["error"])
        return
    state, report = what_if.apply(cluster)
    records = report.to_dict()
    for want, got in zip(case["expect"], records, strict=True):
        for key, value in want.items():
            got_value = got[key]
            if key == "evicted":
                got_value = [{k: v for k, v in e.items() if k != "replacement"} for e in got_value]
            assert got_value == value, key
    if "rescheduled_to" in case:
        assert [r["node"] for r in records[0]["rescheduled"]] == case["rescheduled_to"]
        for r in records[0]["rescheduled"]:
            bound = [p for p in state.pods if f"{p['metadata']['namespace']}/{p['metadata']['name']}" == r["pod"]]
            assert bound[0]["spec"]["nodeName"] == r["node"]
    if "nodes_after" in case:
        assert [n["metadata"]["name"] for n in state.nodes] == case["nodes_after"]
    if "node_after" in case:
        for name, want in case["node_after"].items():
            node = state.node_by_name[name]
            for key, value in want.items():
                got = node["metadata"].get("labels") if key == "labels" else (
                    node["spec"].get("taints") if key == "taints" else node["status"].get("conditions"))
                assert got == value, key
    if "unschedulable" in case:
        for name in case["unschedulable"]:
            node = state.node_by_name[name]
            assert node["spec"]["unschedulable"] is True
            assert {"key": UNSCHEDULABLE_TAINT_KEY, "effect": "NoSchedule"} in node["spec"]["taints"]
    # The state given is never changed: diff's sides and a sweep's cells share it.
    assert cluster.nodes == nodes_before
    assert cluster.pods == pods_before


def test_a_blocked_drain_leaves_the_pod_and_the_budget_lets_one_go(cluster: Any) -> None:
    state, report = WhatIf([Drain(NodeTarget.parse("pool=general"), force=True)]).apply(cluster)
    names = {p["metadata"]["name"]: (p.get("spec") or {}).get("nodeName") for p in state.pods}
    assert names["web-5d4f-bbbbb"] == "n2"  # blocked by the budget: still there
    assert "web-5d4f-aaaaa" not in names and "debug" not in names
    [replacement] = report.records[0].replacements
    assert replacement.startswith("default/web-5d4f-")
    node, message = report.records[0].placements[replacement]
    # n1 and n2 are cordoned, n3 is tainted for the database: the replacement stays pending.
    assert node is None
    assert message.startswith("0/3 nodes are available:")
    assert "2 node(s) were unschedulable" in message
    assert "drained n1, n2: evicted 1 pod, 1 blocked by a PodDisruptionBudget" in report.lines()[0]


def test_a_refused_eviction_is_retried_once_the_nodes_replacements_are_placed(cluster: Any) -> None:
    # Two web replicas on n1 and a budget letting one go: kubectl drain retries the second
    # eviction until the first one's replacement runs; here it found room on the added node.
    state = cluster.copy()
    moved = copy.deepcopy(next(p for p in state.pods if p["metadata"]["name"] == "web-5d4f-bbbbb"))
    moved["spec"]["nodeName"] = "n1"
    state.add_object(moved)
    state, report = WhatIf([AddNodes("n1", 1, (("pool", "spare"),)),
                            Drain(NodeTarget.parse("n1"))]).apply(state)
    drain = report.records[1]
    assert [e.pod for e in drain.evicted] == ["default/web-5d4f-aaaaa", "default/web-5d4f-bbbbb"]
    assert not drain.blocked and drain.complete
    assert all(node for node, _ in drain.placements.values())
    # With no room for the first replacement (n1 and n2 cordoned, n3 tainted), the others stay.
    _, report = WhatIf([Drain(NodeTarget.parse("pool=general"), force=True)]).apply(_moved(cluster))
    drain = report.records[0]
    assert list(drain.blocked) == ["default/web-5d4f-bbbbb", "default/web-5d4f-ccccc"] and not drain.complete
    assert drain.shortfall() == ["2 evictions blocked by a PodDisruptionBudget", "1 replacement pending"]


def _moved(cluster: Any) -> Any:
    """``cluster`` with the three web replicas on n1."""
    state = cluster.copy()
    for name in ("web-5d4f-bbbbb", "web-5d4f-ccccc"):
        moved = copy.deepcopy(next(p for p in state.pods if p["metadata"]["name"] == name))
        moved["spec"]["nodeName"] = "n1"
        state.add_object(moved)
    return state


def test_added_nodes_are_schedulable_copies_with_their_own_hostname(cluster: Any) -> None:
    cordoned, _ = WhatIf([Cordon(NodeTarget.parse("n1"))]).apply(cluster)
    state, report = WhatIf([AddNodes("n1", 1)]).apply(cordoned)
    node = state.node_by_name["n1-new-1"]
    assert node["metadata"]["labels"]["kubernetes.io/hostname"] == "n1-new-1"
    assert "unschedulable" not in node["spec"] and "taints" not in node["spec"]
    assert not [p for p in state.pods if p["spec"].get("nodeName") == "n1-new-1"]
    assert node["status"]["allocatable"] == cordoned.node_by_name["n1"]["status"]["allocatable"]


@pytest.mark.parametrize("text, selector", [("n1", False), ("pool=general", True), ("pool in (a,b)", True),
                                            ("!pool", True), ("node-a1.example.com", False)])
def test_a_target_is_a_name_unless_it_has_a_selector_operator(text: str, selector: bool) -> None:
    assert NodeTarget.parse(text).selector is selector


def test_a_bad_selector_is_an_input_error() -> None:
    with pytest.raises(InputError, match="not a node name or label selector"):
        NodeTarget.parse("pool in (a")


# The node lifecycle controller swaps its taints: one readiness replaces the other's, and a
# NoExecute taint the node already had keeps its timeAdded (taint-based eviction counts from it).
READINESS_CASES = [
    # (edit, taints the node has, taints it ends with)
    (MarkNotReady(NodeTarget.parse("n1"), now="2026-01-01T00:00:00Z"),
     [{"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": "2025-12-31T00:00:00Z"}],
     [("node.kubernetes.io/not-ready", "NoSchedule", None),
      ("node.kubernetes.io/not-ready", "NoExecute", "2026-01-01T00:00:00Z")]),
    (MarkNotReady(NodeTarget.parse("n1"), now="2026-01-01T00:00:00Z"),
     [{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute", "timeAdded": "2025-12-31T00:00:00Z"}],
     [("node.kubernetes.io/not-ready", "NoSchedule", None),
      ("node.kubernetes.io/not-ready", "NoExecute", "2025-12-31T00:00:00Z")]),
    (NodeReadiness(NodeTarget.parse("n1"), "ready"),
     [{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}, {"key": "spot", "effect": "NoSchedule"}],
     [("spot", "NoSchedule", None)]),
]


@pytest.mark.parametrize(("edit", "before", "after"), READINESS_CASES)
def test_readiness_swaps_the_lifecycle_taints(cluster: Any, edit: Any, before: list, after: list) -> None:
    state = cluster.copy()
    node = copy.deepcopy(state.node_by_name["n1"])
    node.setdefault("spec", {})["taints"] = before
    state.add_object(node)
    new, _ = edit.apply(state)
    taints = new.node_by_name["n1"]["spec"].get("taints") or []
    assert [(t["key"], t["effect"], t.get("timeAdded")) for t in taints] == after
