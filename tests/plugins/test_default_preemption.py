"""DefaultPreemption: upstream's default_preemption_test.go tables, run on the real runtime.

Cases: tests/plugins/cases/default_preemption*.yaml
- ``default_preemption_post_filter``: TestPostFilter (NodeResourcesFit + a PreFilter-extension
  test plugin, as upstream registers them);
- ``default_preemption_dry_run``: TestDryRunPreemption (a counting FakeFilter first, then the
  case's plugins; upstream's offsets from ``rand.NewSource(4)`` are written out per cycle);
- ``default_preemption_select_best``: TestSelectBestCandidate;
- ``default_preemption_eligible``: TestPodEligibleToPreemptOthers;
- ``default_preemption_preempt``: TestPreempt (the cases without extenders, which kschedctl
  does not support).

Pods and nodes are written the way upstream's ``st.MakePod()`` / ``st.MakeNode()`` builds them:
``req`` adds one container with those requests, ``capacity`` sets capacity and allocatable with
``pods: 32`` unless given, a node named ``a/b/c`` gets labels hostname=a, zone=b, region=c.
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from kschedctl.errors import InputError
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.runtime import Framework, FrameworkHandle, NodeToStatus, PodNominator
from kschedctl.framework.snapshot import Snapshot
from kschedctl.framework.status import Code, Status
from kschedctl.plugins.default_preemption import DefaultPreemption
from kschedctl.plugins.node_resources_fit import NodeResourcesFit
from tests.framework.fakes import FakeFilter
from tests.plugins.harness import load_cases, pod_info

# --- builders (upstream st.MakePod / st.MakeNode / st.MakePDB) --------------------------------

_LABEL_KEYS = ("hostname", "zone", "region")


def make_pod(spec: dict) -> dict:
    """A pod from a case's shorthand: name, uid, namespace, priority, node, req, labels,
    startTime, preemptionPolicy, nominatedNode, terminating, conditions, containers, spec."""
    name = spec["name"]
    meta: dict[str, Any] = {"name": name, "uid": spec.get("uid", name),
                            "namespace": spec.get("namespace", "default")}
    if spec.get("labels"):
        meta["labels"] = dict(spec["labels"])
    if spec.get("terminating"):
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    pod_spec: dict[str, Any] = {"schedulerName": "default-scheduler", "priority": spec.get("priority", 0)}
    containers = [dict(c) for c in spec.get("containers") or ()]
    if spec.get("req"):
        containers.append({"name": f"con{len(containers)}", "image": "pause",
                           "resources": {"requests": dict(spec["req"])}})
    if containers:
        pod_spec["containers"] = containers
    if spec.get("node"):
        pod_spec["nodeName"] = spec["node"]
    if spec.get("preemptionPolicy"):
        pod_spec["preemptionPolicy"] = spec["preemptionPolicy"]
    pod_spec.update(spec.get("spec") or {})
    status: dict[str, Any] = {}
    if spec.get("startTime"):
        status["startTime"] = spec["startTime"]
    if spec.get("nominatedNode"):
        status["nominatedNodeName"] = spec["nominatedNode"]
    if spec.get("conditions"):
        status["conditions"] = list(spec["conditions"])
    pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": pod_spec}
    if status:
        pod["status"] = status
    return pod


def make_node(spec: dict | str, split: bool = False) -> dict:
    """``name``, ``capacity``, ``labels``; with ``split`` a name ``a/b/c`` becomes node ``a``
    labelled hostname=a, zone=b, region=c (upstream's TestDryRunPreemption / TestPreempt)."""
    if isinstance(spec, str):
        spec = {"name": spec}
    parts = spec["name"].split("/")
    labels = dict(spec.get("labels") or {})
    if split:
        labels.update({_LABEL_KEYS[i]: v for i, v in enumerate(parts)})
    resources = {"pods": "32"}
    resources.update({k: str(v) for k, v in (spec.get("capacity") or {}).items()})
    meta: dict[str, Any] = {"name": parts[0]}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta,
            "status": {"capacity": dict(resources), "allocatable": dict(resources)}}


def make_pdb(spec: dict, index: int = 0) -> dict:
    """``selector`` (matchLabels), ``namespace``, ``disruptionsAllowed``, ``disruptedPods``."""
    meta = {"name": spec.get("name", f"pdb-{index}"), "namespace": spec.get("namespace", "default")}
    pdb: dict[str, Any] = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": meta,
                           "spec": {}, "status": {"disruptionsAllowed": spec.get("disruptionsAllowed", 0)}}
    if "selector" in spec:
        pdb["spec"]["selector"] = spec["selector"]
    if spec.get("disruptedPods"):
        pdb["status"]["disruptedPods"] = {n: "2024-01-01T00:00:00Z" for n in spec["disruptedPods"]}
    return pdb


class ErrorOnLabelPlugin:
    """Upstream's ``test-plugin``: PreFilter extensions fail on nodes labelled error=true."""

    name = "test-plugin"

    def pre_filter(self, state, pod_info, nodes):
        return None, None

    def add_pod(self, state, pod_info, to_add, node_info):
        if node_info.labels.get("error") == "true":
            return Status(Code.Error, f"failed to add pod: {pod_info.name}")
        return None

    def remove_pod(self, state, pod_info, to_remove, node_info):
        if node_info.labels.get("error") == "true":
            return Status(Code.Error, f"failed to remove pod: {pod_info.name}")
        return None

    def filter(self, state, pod_info, node_info):
        return None


class _FalseFilter:
    name = "FalseFilter"

    def filter(self, state, pod_info, node_info):
        return Status(Code.Unschedulable, "Nodes failed the fake plugin")


class _TrueFilter:
    name = "TrueFilter"

    def filter(self, state, pod_info, node_info):
        return None


class _MatchFilter:
    name = "MatchFilter"

    def filter(self, state, pod_info, node_info):
        return None if pod_info.name == node_info.name else Status(Code.Unschedulable, "Nodes failed the fake plugin")


def plugin_instance(name: str, handle: Any) -> Any:
    """A plugin by the name a case uses; real in-tree ones come from kschedctl.plugins."""
    fakes = {"test-plugin": ErrorOnLabelPlugin, "FalseFilter": _FalseFilter, "TrueFilter": _TrueFilter,
             "MatchFilter": _MatchFilter}
    if name in fakes:
        return fakes[name]()
    module = {"NodeResourcesFit": "node_resources_fit", "InterPodAffinity": "inter_pod_affinity",
              "PodTopologySpread": "pod_topology_spread", "TaintToleration": "taint_toleration"}[name]
    mod = importlib.import_module(f"kschedctl.plugins.{module}")
    return getattr(mod, name)(None, handle)


class Env:
    """A framework over the case's nodes, pods and PDBs, with DefaultPreemption built on it."""

    def __init__(self, nodes: list[dict], pods: list[dict], pdbs: list[dict] = (), plugins: list = (),
                 args: dict | None = None, nominated: list[dict] = ()) -> None:
        from kschedctl.inputs.cluster import ClusterState
        from kschedctl.inputs.loader import Document

        self.pod_infos = [pod_info(p) for p in pods]
        self.snapshot = Snapshot(nodes, self.pod_infos)
        docs = [Document(o, "<test>", None) for o in list(pdbs)]
        self.cluster = ClusterState.from_documents(docs)
        self.handle = FrameworkHandle(self.snapshot, self.cluster, 16,
                                      PodNominator(pod_info(p) for p in nominated))
        built = [p if not isinstance(p, str) else plugin_instance(p, self.handle) for p in plugins]
        with_pre_filter = [p for p in built if callable(getattr(p, "pre_filter", None))]
        with_filter = [p for p in built if callable(getattr(p, "filter", None))]
        self.framework = Framework("default-scheduler", {"preFilter": with_pre_filter, "filter": with_filter},
                                   {}, None, self.handle)
        self.plugin = DefaultPreemption(args, self.handle)

    def pre_filter(self, pod) -> CycleState:
        state = CycleState()
        _, status, _ = self.framework.run_pre_filter_plugins(state, pod)
        assert status is None or status.code == Code.Success, status
        return state


def statuses(spec: dict | None, absent: str | None = None) -> NodeToStatus:
    m = NodeToStatus({n: Status(Code[c]) for n, c in (spec or {}).items()},
                     Status(Code[absent]) if absent else None)
    return m


def victims_of(candidate) -> list[str]:
    return sorted(v.name for v in candidate.victims)


# --- TestPostFilter ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", load_cases("default_preemption_post_filter"))
def test_post_filter(case: dict) -> None:
    env = Env([make_node(n) for n in case["nodes"]], [make_pod(p) for p in case.get("pods") or ()],
              [make_pdb(p, i) for i, p in enumerate(case.get("pdbs") or ())],
              case.get("plugins", ["NodeResourcesFit", "test-plugin"]))
    pod = pod_info(make_pod(case["pod"]))
    state = env.pre_filter(pod)
    result, status = env.plugin.post_filter(state, pod, statuses(case.get("statuses"), case.get("absent")))
    want = case["want"]
    assert status.code.name == want["code"]
    assert status.reasons == ([want["message"]] if want.get("message") else [])
    if "result" in want and want["result"] is None:
        assert result is None
    else:
        assert result is not None and result.nominated_node_name == want["nominatedNode"]
        if "victims" in want:
            assert result.victims == want["victims"]


# --- TestDryRunPreemption ---------------------------------------------------------------------


@pytest.mark.parametrize("case", load_cases("default_preemption_dry_run"))
def test_dry_run_preemption(case: dict) -> None:
    nodes = [make_node({"name": n, "capacity": {"cpu": "500m", "memory": "500"}}, split=True)
             for n in case["nodeNames"]]
    fake = FakeFilter({n["metadata"]["name"]: case["fakeFilterCode"] for n in nodes} if case.get("fakeFilterCode")
                      else {}, "FakeFilter")
    env = Env(nodes, [make_pod(p) for p in case.get("initPods") or ()],
              [make_pdb(p, i) for i, p in enumerate(case.get("pdbs") or ())],
              [fake] + list(case.get("plugins") or ()), case.get("args"))
    node_infos = sorted(env.snapshot.node_infos(), key=lambda n: n.name)
    pdbs = env.plugin._pdbs()
    offsets = case.get("offsets") or [0] * len(case["testPods"])
    previous = 0
    for cycle, spec in enumerate(case["testPods"]):
        pod = pod_info(make_pod(spec))
        state = env.pre_filter(pod)
        num_candidates = env.plugin.calculate_num_candidates(len(node_infos))
        run = env.plugin.evaluator.dry_run_preemption(state, pod, node_infos, pdbs, offsets[cycle], num_candidates)
        got = sorted(({"node": c.name, "victims": victims_of(c), "numPDBViolations": c.num_pdb_violations}
                      for c in run.candidates), key=lambda c: c["node"])
        want = [{"numPDBViolations": 0, **c} for c in case["expected"][cycle]]
        assert got == want, f"cycle {cycle}"
        assert fake.num_filter_called - previous == case["expectedNumFilterCalled"][cycle], f"cycle {cycle}"
        previous = fake.num_filter_called


# --- TestSelectBestCandidate ------------------------------------------------------------------


@pytest.mark.parametrize("case", load_cases("default_preemption_select_best"))
def test_select_best_candidate(case: dict) -> None:
    nodes = [make_node({"name": n, "capacity": {"cpu": "500m", "memory": "500"}}) for n in case["nodeNames"]]
    env = Env(nodes, [make_pod(p) for p in case["pods"]], plugins=["NodeResourcesFit"])
    pod = pod_info(make_pod(case["pod"]))
    state = env.pre_filter(pod)
    node_infos = env.snapshot.node_infos()
    offset, num = env.plugin.get_offset_and_num_candidates(len(node_infos))
    run = env.plugin.evaluator.dry_run_preemption(state, pod, node_infos, [], offset, num)
    best, _ = env.plugin.evaluator.select_candidate(run.candidates)
    assert best is not None and best.name in case["expected"]


# --- TestPodEligibleToPreemptOthers -----------------------------------------------------------


@pytest.mark.parametrize("case", load_cases("default_preemption_eligible"))
def test_pod_eligible_to_preempt_others(case: dict) -> None:
    env = Env([make_node(n) for n in case.get("nodes") or ()], [make_pod(p) for p in case.get("pods") or ()])
    pod = pod_info(make_pod(case["pod"]))
    nominated = case.get("nominatedNodeStatus")
    status = None if nominated is None else Status(Code[nominated["code"]], *nominated.get("reasons", ()))
    ok, msg = env.plugin.pod_eligible_to_preempt_others(pod, status)
    assert ok is case["expected"]
    assert msg == case.get("message", "")


# --- TestPreempt ------------------------------------------------------------------------------


@pytest.mark.parametrize("case", load_cases("default_preemption_preempt"))
def test_preempt(case: dict) -> None:
    nodes = [make_node({"name": n, "capacity": {"cpu": "500m", "memory": "500"}}, split=True)
             for n in case["nodeNames"]]
    env = Env(nodes, [make_pod(p) for p in case["pods"]], plugins=case["plugins"])
    pod = pod_info(make_pod(case["pod"]))
    state = env.pre_filter(pod)
    m = NodeToStatus({n.name: Status(Code.Unschedulable) for n in env.snapshot.node_infos()})
    result, status = env.plugin.post_filter(state, pod, m)
    assert status.code in (Code.Success, Code.Unschedulable)
    if case["want"] is None:
        assert result is None
    else:
        assert result.nominated_node_name == case["want"]
        assert sorted(k.split("/", 1)[1] for k in result.victims) == sorted(case["expectedPods"])


# --- args, PreEnqueue, hooks, PDB details -----------------------------------------------------


@pytest.mark.parametrize(("nodes", "pct", "absolute", "want"), [
    (10, 10, 100, 10), (1000, 10, 100, 100), (5000, 10, 100, 500), (5, 40, 1, 2), (5, 40, 2, 2), (0, 10, 100, 0),
])
def test_calculate_num_candidates(nodes: int, pct: int, absolute: int, want: int) -> None:
    plugin = DefaultPreemption({"minCandidateNodesPercentage": pct, "minCandidateNodesAbsolute": absolute}, None)
    assert plugin.calculate_num_candidates(nodes) == want


@pytest.mark.parametrize(("args", "message"), [
    ({"minCandidateNodesPercentage": 101},
     "DefaultPreemption args: minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]"),
    ({"minCandidateNodesAbsolute": -1},
     "DefaultPreemption args: minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"),
    ({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0},
     "DefaultPreemption args: [minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
     "minCandidateNodesAbsolute, minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as "
     "minCandidateNodesPercentage]"),
])
def test_invalid_args(args: dict, message: str) -> None:
    with pytest.raises(InputError) as err:
        DefaultPreemption(args, None)
    assert err.value.message == message


def test_default_args() -> None:
    plugin = DefaultPreemption(None, None)
    assert (plugin.min_candidate_nodes_percentage, plugin.min_candidate_nodes_absolute) == (10, 100)


def test_pre_enqueue_never_holds_back() -> None:
    # v1.34 (async preemption on): only a pod whose preemption is still running is held back.
    env = Env([make_node("node1")], [])
    assert env.plugin.pre_enqueue(pod_info(make_pod({"name": "p", "priority": 1000}))) is None


def test_offset_is_reproducible() -> None:
    nodes = [make_node({"name": f"node{i}", "capacity": {"cpu": "500m", "memory": "500"}}) for i in range(300)]
    pods = [make_pod({"name": f"v{i}", "node": f"node{i}", "req": {"cpu": "300m"}}) for i in range(300)]
    env = Env(nodes, pods, plugins=["NodeResourcesFit"])
    pod = pod_info(make_pod({"name": "p", "priority": 1000, "req": {"cpu": "300m"}}))
    m = NodeToStatus({n.name: Status(Code.Unschedulable, "Insufficient cpu") for n in env.snapshot.node_infos()})
    first = env.plugin.post_filter(env.pre_filter(pod), pod, m)
    again = env.plugin.post_filter(env.pre_filter(pod), pod, m)
    assert first[0].nominated_node_name == again[0].nominated_node_name
    assert first[1].details == again[1].details
    # numCandidates = max(300 * 10 / 100, 100) = 100 of the 300 nodes are dry-run.
    assert first[1].details["numCandidates"] == 100 and first[1].details["evaluatedNodes"] == 100


def test_seeded_rng_from_the_handle() -> None:
    import random

    nodes = [make_node({"name": f"node{i}", "capacity": {"cpu": "500m", "memory": "500"}}) for i in range(300)]
    env = Env(nodes, [], plugins=["NodeResourcesFit"])
    env.handle.rng = random.Random(42)  # type: ignore[attr-defined]
    expected = random.Random(42).randrange(300)
    assert env.plugin.get_offset_and_num_candidates(300) == (expected, 100)


def test_details_name_the_losing_candidates_and_pdbs() -> None:
    # TestPostFilter "pod can be made schedulable on minHighestPriority node", with the details.
    nodes = [make_node({"name": "node1", "capacity": {"pods": "1"}}), make_node({"name": "node2", "capacity": {"pods": "1"}})]
    pods = [
        make_pod({"name": "p1", "priority": 1000, "node": "node1", "labels": {"pdb": "non-violating"}}),
        make_pod({"name": "p2", "priority": 0, "node": "node1", "labels": {"pdb": "violating"}}),
        make_pod({"name": "p3", "priority": 100, "node": "node2", "labels": {"pdb": "violating"}}),
    ]
    pdbs = [make_pdb({"name": "violating-pdb", "selector": {"matchLabels": {"pdb": "violating"}}}),
            make_pdb({"name": "free", "selector": {"matchLabels": {"pdb": "non-violating"}},
                      "disruptionsAllowed": 2147483647})]
    env = Env(nodes, pods, pdbs, ["NodeResourcesFit"])
    pod = pod_info(make_pod({"name": "p", "priority": 10000}))
    result, status = env.plugin.post_filter(env.pre_filter(pod), pod, statuses({"node1": "Unschedulable",
                                                                                "node2": "Unschedulable"}))
    assert result.nominated_node_name == "node2" and result.victims == ["default/p3"]
    by_node = {c["node"]: c for c in status.details["candidates"]}
    assert by_node["node2"]["chosen"] and by_node["node2"]["decidedBy"] == "lowest priority of the most important victim"
    assert by_node["node1"]["lostOn"] == "lowest priority of the most important victim"
    assert by_node["node2"]["pdbViolations"] == {"default/p3": ["default/violating-pdb"]}
    assert by_node["node1"]["victims"] == ["default/p1", "default/p2"]


def test_victims_without_start_time_reprieve_the_last_listed_first() -> None:
    # Go's sort.Slice with MoreImportantPod and no start times: each pod asked about first counts
    # as started first, so insertion sort moves every later pod to the front (reverse order).
    nodes = [make_node({"name": "node1", "capacity": {"cpu": "500m", "memory": "500"}})]
    pods = [make_pod({"name": f"v{i}", "node": "node1", "req": {"cpu": "100m"}}) for i in range(5)]
    env = Env(nodes, pods, plugins=["NodeResourcesFit"])
    pod = pod_info(make_pod({"name": "p", "priority": 1000, "req": {"cpu": "300m"}}))
    result, _ = env.plugin.post_filter(env.pre_filter(pod), pod, statuses({"node1": "Unschedulable"}))
    # v4, v3 reprieved (most important after reversal); v2, v1, v0 are the victims.
    assert result.victims == ["default/v2", "default/v1", "default/v0"]


# --- end to end: explain ----------------------------------------------------------------------

_PROFILE = str(__import__("pathlib").Path(__file__).parent / "cases" / "default_preemption_profile.yaml")


def _explain_cluster(extra: list[dict] = ()) -> Any:
    from kschedctl.inputs.cluster import ClusterState
    from kschedctl.inputs.loader import Document

    def node(name: str, **spec: Any) -> dict:
        n = make_node({"name": name, "capacity": {"cpu": "4", "memory": "32Gi", "pods": "110"}})
        n["metadata"]["labels"] = {"kubernetes.io/hostname": name}
        if spec:
            n["spec"] = spec
        return n

    def running(name: str, node_name: str, cpu: str, priority_class: str, started: str, **labels: str) -> dict:
        pod = make_pod({"name": name, "node": node_name, "req": {"cpu": cpu}, "startTime": started,
                        "labels": labels or None})
        del pod["spec"]["priority"]  # admission sets it from the PriorityClass
        pod["spec"]["priorityClassName"] = priority_class
        pod["status"]["phase"] = "Running"
        return pod

    def priority_class(name: str, value: int, **extra: Any) -> dict:
        return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                "value": value, **extra}

    objects = [
        priority_class("low", 0), priority_class("mid", 100), priority_class("high", 1000),
        priority_class("high-never", 1000, preemptionPolicy="Never"), priority_class("critical", 2000),
        node("node-a"), node("node-b"), node("node-c"),
        running("batch-1", "node-a", "2", "low", "2024-01-01T00:00:00Z", app="batch"),
        running("batch-2", "node-a", "2", "low", "2024-01-02T00:00:00Z", app="batch"),
        running("api", "node-b", "3", "mid", "2024-01-01T00:00:00Z", app="api"),
        running("db", "node-c", "4", "critical", "2024-01-01T00:00:00Z", app="db"),
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "api", "namespace": "default"},
         "spec": {"selector": {"matchLabels": {"app": "api"}}}, "status": {"disruptionsAllowed": 0}},
        *extra,
    ]
    return ClusterState.from_documents([Document(o, "<test>", None) for o in objects])


def _web(cpu: str, priority_class: str = "high") -> dict:
    pod = make_pod({"name": "web", "req": {"cpu": cpu}})
    del pod["spec"]["priority"]
    pod["spec"]["priorityClassName"] = priority_class
    return pod


def test_explain_nominates_a_node_and_names_the_victims() -> None:
    from kschedctl.config import load_config
    from kschedctl.analyses.explain import explain

    r = explain(_web("3"), _explain_cluster(), load_config(_PROFILE), seed=1)
    assert r.outcome == "Unschedulable"
    # Preemption succeeded: upstream's message is the filter part only (empty PostFilter message).
    assert r.message == "0/3 nodes are available: 3 Insufficient cpu."
    preemption = r.to_dict()["preemption"]
    assert {k: preemption[k] for k in ("nominatedNode", "victims")} == {
        "nominatedNode": "node-a", "victims": ["default/batch-1", "default/batch-2"]}
    # kschedctl's extension of the contract: every candidate, and why it won or lost.
    assert [c["node"] for c in preemption["candidates"] if c["chosen"]] == ["node-a"]
    stage = next(s for s in r.to_dict()["stages"] if s["extensionPoint"] == "PostFilter")
    assert stage["plugin"] == "DefaultPreemption" and stage["code"] == "Success"
    assert stage["nominatedNode"] == "node-a"
    by_node = {c["node"]: c for c in stage["details"]["candidates"]}
    # node-b would only cost one pod, but of higher priority (100 > 0), and it breaks a PDB.
    assert by_node["node-b"]["lostOn"] == "fewest PodDisruptionBudget violations"
    assert by_node["node-b"]["pdbViolations"] == {"default/api": ["default/api"]}
    assert by_node["node-a"]["decidedBy"] == "fewest PodDisruptionBudget violations"
    assert stage["details"]["rejections"] == {"UnschedulableAndUnresolvable: No preemption victims found for incoming pod": 1}


def test_explain_message_ends_with_the_preemption_part() -> None:
    from kschedctl.config import load_config
    from kschedctl.analyses.explain import explain

    tainted = _explain_cluster()
    tainted.node_by_name["node-c"]["spec"] = {"taints": [{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]}
    # A priority-0 pod: nothing on node-a (0) or node-b (100) is of lower priority; node-c's
    # taint is UnschedulableAndUnresolvable, so preemption does not try it.
    r = explain(_web("3", "low"), tainted, load_config(_PROFILE), seed=1)
    assert r.message == (
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. "
        "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, "
        "2 No preemption victims found for incoming pod.")
    assert r.to_dict()["preemption"] is None


def test_explain_request_larger_than_any_node() -> None:
    from kschedctl.config import load_config
    from kschedctl.analyses.explain import explain

    r = explain(_web("5"), _explain_cluster(), load_config(_PROFILE), seed=1)
    # v1.34: a request above allocatable is UnschedulableAndUnresolvable: no node is tried.
    assert r.message == ("0/3 nodes are available: 3 Insufficient cpu. "
                         "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")


def test_explain_preemption_policy_never_from_the_priority_class() -> None:
    from kschedctl.config import load_config
    from kschedctl.analyses.explain import explain

    r = explain(_web("3", "high-never"), _explain_cluster(), load_config(_PROFILE), seed=1)
    assert r.message == ("0/3 nodes are available: 3 Insufficient cpu. "
                         "preemption: not eligible due to preemptionPolicy=Never.")
    assert r.to_dict()["preemption"] is None
