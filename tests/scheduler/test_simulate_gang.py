"""Pods that wait at Permit in ``simulate``: Coscheduling gangs placed together or not at all
(cases/simulate/gang.yaml, on the shipped profiles/coscheduling.yaml), a wait that times out,
and a waiting pod chosen as a preemption victim."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml

from kschedctl.config import load_config
from kschedctl.framework.interfaces import Plugin
from kschedctl.framework.status import Code, Status
from kschedctl.inputs.cluster import ClusterState
from kschedctl.inputs.loader import Document
from kschedctl.plugins.registry import Registry
from kschedctl.plugins.sigs.podgroup import POD_GROUP_LABEL
from kschedctl.scheduler.simulate import Simulator

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).parent / "cases" / "simulate"
COSCHEDULING = str(ROOT / "profiles" / "coscheduling.yaml")


def _node(name: str, cpu: str) -> dict:
    resources = {"cpu": cpu, "memory": "16Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"allocatable": resources, "capacity": resources}}


def _pod(spec: dict) -> dict:
    meta: dict = {"name": spec["name"], "namespace": "default", "labels": dict(spec.get("labels") or {})}
    if spec.get("group"):
        meta["labels"][POD_GROUP_LABEL] = spec["group"]
    pod_spec: dict = {"containers": [{"name": "c", "image": "busybox",
                                      "resources": {"requests": {"cpu": spec.get("cpu", "1")}}}]}
    if spec.get("gated"):
        pod_spec["schedulingGates"] = [{"name": "example.com/hold"}]
    if spec.get("priorityClass"):
        pod_spec["priorityClassName"] = spec["priorityClass"]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": pod_spec}


def _pod_group(name: str, spec: dict) -> dict:
    return {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "default", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": dict(spec)}


#: The PriorityClass the cases name (``priorityClass: high``).
HIGH = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000}


def _cluster(nodes: dict[str, str], objects: list[dict] = ()) -> ClusterState:
    docs = [Document(_node(n, cpu), "<test>", None) for n, cpu in nodes.items()] + [Document(HIGH, "<test>", None)]
    docs += [Document(o, "<test>", None) for o in objects]
    return ClusterState.from_documents(docs)


def _cases() -> list[dict]:
    return yaml.safe_load((CASES / "gang.yaml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def coscheduling_config() -> Any:
    return load_config(COSCHEDULING)


@pytest.mark.parametrize("case", _cases(), ids=lambda c: f"Gang_{c['name']}")
def test_gang_cases(case: dict, coscheduling_config: Any) -> None:
    groups = [_pod_group(name, spec) for name, spec in (case.get("podGroups") or {}).items()]
    sim = Simulator(_cluster(case["nodes"], groups), coscheduling_config, seed=1)
    result = sim.run([_pod(p) for p in case["pods"]])
    for name, want in case["expect"].items():
        got = result.placement(f"default/{name}")
        assert got is not None, name
        outcomes = want["outcome"] if isinstance(want["outcome"], list) else [want["outcome"]]
        assert got.outcome in outcomes, (name, got.outcome, got.message)
        if "node" in want:
            if want["node"] == "*":
                assert got.node, name
            else:
                assert got.node == want["node"], name
        if "message" in want:
            assert got.message == want["message"], name
        if "messageContains" in want:
            assert want["messageContains"] in got.message, (name, got.message)
        if "attempts" in want:
            assert got.attempts == want["attempts"], name
        if "messages" in case:
            short = name
            assert got.message in [m.replace("{pod}", short) for m in case["messages"]], (name, got.message)
    placed = {p.node for p in result.placements if p.outcome == "Scheduled"}
    assert len(placed) == case["placedOn"]
    # What the report says was placed is what the snapshot holds at the end: a pod that waited
    # and was rejected leaves nothing behind.
    on_nodes = sum(n.placed for n in result.nodes)
    assert on_nodes == sum(1 for p in result.placements if p.outcome == "Scheduled")
    batch = {f"default/{p['name']}" for p in case["pods"]}
    held = {pi.key for ni in sim.snapshot.node_infos() for pi in ni.pods if pi.key in batch}
    assert held == {p.pod for p in result.placements if p.outcome == "Scheduled"}
    assert len(sim.waiting_pods) == 0


# -- waits that time out, and a waiting victim --------------------------------------------------


class WaitForLabel(Plugin):
    """A Permit plugin nobody lets through: pods labelled ``wait: "yes"`` wait 30s. Also a
    QueueSort by name, so a test decides which pod goes first whatever their priorities."""

    name = "WaitForLabel"
    default_args: ClassVar[dict] = {}

    def less(self, a: Any, b: Any) -> bool:
        return a.pod_info.name < b.pod_info.name

    def permit(self, state: Any, pod_info: Any, node_name: str) -> tuple[Status | None, float]:
        if pod_info.labels.get("wait") == "yes":
            return Status(Code.Wait), 30.0
        return None, 0.0


def _wait_config() -> tuple[Any, Registry]:
    """cases/simulate/config-wait-for-label.yaml with WaitForLabel registered."""
    registry = Registry()
    registry.register(WaitForLabel.name, WaitForLabel)
    cfg = load_config(str(CASES / "config-wait-for-label.yaml"),
                      extra_plugins={WaitForLabel.name: registry.points_of(WaitForLabel.name)})
    return cfg, registry


def test_a_wait_nobody_ends_times_out_and_leaves_the_node_free() -> None:
    cfg, registry = _wait_config()
    sim = Simulator(_cluster({"n1": "4"}), cfg, registry=registry, seed=1, max_attempts=1)
    result = sim.run([_pod({"name": "held", "cpu": "3", "labels": {"wait": "yes"}})])
    [p] = result.placements
    assert p.outcome == "Rejected"
    assert p.node is None
    assert p.message == "0/1 nodes are available: 1 rejected due to timeout after waiting 30s at plugin WaitForLabel."
    assert sum(n.placed for n in result.nodes) == 0
    assert not sim.snapshot.get("n1").pods
    assert len(sim.waiting_pods) == 0


def test_a_waiting_pod_holds_its_room_until_it_times_out() -> None:
    # "a-held" waits on n1 with 3 of its 4 CPUs; "b-next" (3 CPUs) finds no room while it waits,
    # and gets the node once the wait has timed out and the assumed pod is forgotten.
    cfg, registry = _wait_config()
    sim = Simulator(_cluster({"n1": "4"}), cfg, registry=registry, seed=1, max_attempts=3)
    result = sim.run([_pod({"name": "a-held", "cpu": "3", "labels": {"wait": "yes"}}),
                      _pod({"name": "b-next", "cpu": "3"})])
    held, nxt = result.placement("default/a-held"), result.placement("default/b-next")
    assert nxt.outcome == "Scheduled" and nxt.node == "n1" and nxt.attempts == 2
    assert held.outcome in ("Rejected", "Unschedulable") and held.node is None


def test_a_waiting_victim_is_rejected_as_preempted() -> None:
    # "a-low" (priority 0) waits on the only node; "b-high" (priority 1000) needs its room:
    # DefaultPreemption picks the waiting pod, which is rejected ("preempted"), not deleted.
    cfg, registry = _wait_config()
    sim = Simulator(_cluster({"n1": "4"}), cfg, registry=registry, seed=1)
    result = sim.run([_pod({"name": "a-low", "cpu": "3", "labels": {"wait": "yes"}}),
                      _pod({"name": "b-high", "cpu": "3", "priorityClass": "high"})])
    low, high = result.placement("default/a-low"), result.placement("default/b-high")
    assert [(r.pod, r.node, r.victims) for r in result.preemptions] == [("default/b-high", "n1", ["default/a-low"])]
    assert high.outcome == "Scheduled" and high.node == "n1"
    assert low.outcome == "Rejected" and low.node is None
    assert low.message == "0/1 nodes are available: 1 preempted."
