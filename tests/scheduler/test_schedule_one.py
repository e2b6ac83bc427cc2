"""The scheduling cycle: upstream schedule_one_test.go (TestSchedulerSchedulePod with fake
plugins, TestNumFeasibleNodesToFind, TestFairEvaluationForNodes, TestFindFit*, nominated
node handling) and the kschedctl cycle driver (outcomes, tie-break, recording)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.runtime import FitError, NodePluginScores
from kschedctl.framework.status import Code, Status
from kschedctl.plugins.scheduling_gates import SchedulingGates
from kschedctl.scheduler.schedule_one import (
    NoNodesAvailable,
    Scheduler,
    SchedulingError,
    truncate_message,
)
from kschedctl.framework.runtime import go_duration
from tests.framework.fakes import (
    FAKES,
    FakeFilter,
    FakePreFilter,
    FakePreFilterAndFilter,
    FakePreScoreAndScore,
    MatchFilter,
    NumericMap,
    TestPlugin,
    TrueFilter,
    framework,
    make_node,
    make_pod,
    pod_info,
)

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "schedule_pod.yaml").read_text(encoding="utf-8"))["cases"]


def _status(spec: list | None) -> Status | None:
    if not spec:
        return None
    code, reason = spec[0], spec[1] if len(spec) > 1 else None
    return Status(Code[code], *([reason] if reason else []))


def build_plugins(specs: list[dict]) -> tuple[dict[str, list], dict[str, int]]:
    plugins: dict[str, list] = {}
    weights: dict[str, int] = {}

    def add(point: str, pl: Any) -> None:
        plugins.setdefault(point, []).append(pl)

    for spec in specs:
        kind = spec["kind"]
        if kind == "FakeFilter":
            add("filter", FakeFilter(spec.get("codes"), spec.get("name", "FakeFilter")))
        elif kind == "FakePreFilter":
            add("preFilter", FakePreFilter(spec["name"], spec.get("nodes"), spec.get("code"), spec.get("reason", "")))
        elif kind == "FakePreFilterAndFilter":
            pl = FakePreFilterAndFilter(spec["name"], spec.get("code"), spec.get("codes") or {})
            add("preFilter", pl)
            add("filter", pl)
        elif kind == "FakePreScoreAndScore":
            pl = FakePreScoreAndScore(spec["name"], 0, _status(spec.get("preScore")), _status(spec.get("score")))
            add("preScore", pl)
            add("score", pl)
        else:
            pl = FAKES[kind]()
            add("filter" if callable(getattr(pl, "filter", None)) else "score", pl)
            if callable(getattr(pl, "pre_score", None)):
                add("preScore", pl)
        if "weight" in spec:
            weights[plugins.get("score", [None])[-1].name] = spec["weight"]
    return plugins, weights


def _triple(status: Status) -> list[str]:
    return [status.code.name, status.reasons[0] if status.reasons else "", status.plugin]


@pytest.mark.parametrize("case", [pytest.param(c, id=f"SchedulerSchedulePod_{c['name']}") for c in CASES])
def test_scheduler_schedule_pod(case: dict) -> None:
    plugins, weights = build_plugins(case["plugins"])
    nodes = [make_node(n) for n in case["nodes"]]
    pods = [make_pod(p["name"], node=p["node"]) for p in case.get("pods", ())]
    fwk = framework(plugins, nodes, pods, weights)
    sched = Scheduler(fwk.handle.snapshot(), 0, seed=1)
    pod = pod_info(make_pod(case["pod"]["name"]))
    if "wErr" in case:
        with pytest.raises(FitError) as info:
            sched.schedule_pod(fwk, CycleState(), pod)
        w, got = case["wErr"], info.value
        assert got.num_all_nodes == w["numAllNodes"]
        d = got.diagnosis
        assert {n: _triple(s) for n, s in d.node_to_status.items()} == w["nodeToStatus"]
        if "absent" in w:
            assert _triple(d.node_to_status.absent_nodes_status()) == w["absent"]
        else:
            absent = d.node_to_status.absent_nodes_status()
            assert absent.code == Code.UnschedulableAndUnresolvable and not absent.reasons
        assert d.unschedulable_plugins == set(w["unschedulablePlugins"])
        assert d.pre_filter_msg == w.get("preFilterMsg", "")
        assert got.error() == w["message"]
        return
    if "wError" in case:
        with pytest.raises(SchedulingError) as err:
            sched.schedule_pod(fwk, CycleState(), pod)
        assert err.value.status.message() == case["wError"]
        return
    result = sched.schedule_pod(fwk, CycleState(), pod)
    assert result.suggested_host in case["wantNodes"]
    assert result.evaluated_nodes == case.get("wantEvaluatedNodes", len(nodes))


# -- numFeasibleNodesToFind ----------------------------------------------------------------

NUM_FEASIBLE = [
    # (name, global percentage, profile percentage, nodes, want) from TestNumFeasibleNodesToFind
    ("not set percentageOfNodesToScore and nodes number not more than 50", 0, None, 10, 10),
    ("set profile percentageOfNodesToScore and nodes number not more than 50", 0, 40, 10, 10),
    ("not set percentageOfNodesToScore and nodes number more than 50", 0, None, 1000, 420),
    ("set profile percentageOfNodesToScore and nodes number more than 50", 0, 40, 1000, 400),
    ("set global and profile percentageOfNodesToScore and nodes number more than 50", 100, 40, 1000, 400),
    ("set global percentageOfNodesToScore and nodes number more than 50", 40, None, 1000, 400),
    ("not set percentageOfNodesToScore and nodes number more than 50*125", 0, None, 6000, 300),
    ("set profile percentageOfNodesToScore and nodes number more than 50*125", 0, 40, 6000, 2400),
]


@pytest.mark.parametrize("name,global_pct,profile_pct,nodes,want", NUM_FEASIBLE,
                         ids=[f"NumFeasibleNodesToFind_{c[0]}" for c in NUM_FEASIBLE])
def test_num_feasible_nodes_to_find(name: str, global_pct: int, profile_pct: int | None, nodes: int, want: int) -> None:
    assert Scheduler(None, global_pct).num_feasible_nodes_to_find(profile_pct, nodes) == want


def test_fair_evaluation_for_nodes() -> None:
    num_all = 500
    nodes = [make_node(str(i)) for i in range(num_all)]
    fwk = framework({"filter": [TrueFilter()]}, nodes)
    sched = Scheduler(fwk.handle.snapshot(), 30)  # numAllNodes % nodesToFind != 0
    to_find = sched.num_feasible_nodes_to_find(None, num_all)
    assert to_find == 150
    # the profile has no score plugin upstream either: only the fake Filter; give it one so
    # that numFeasibleNodesToFind applies, as upstream's test framework does via extenders-free scoring
    fwk.plugins["score"] = [NumericMap()]
    for i in range(2 * (num_all // to_find + 1)):
        feasible, _ = sched.find_nodes_that_fit_pod(fwk, CycleState(), pod_info(make_pod("p")))
        assert len(feasible) == to_find
        assert sched.next_start_node_index == (i + 1) * to_find % num_all


def test_the_scan_goes_on_after_enough_nodes_passed_until_one_more_passes() -> None:
    """findNodesThatPassFilters with one worker: after numNodesToFind nodes passed, nodes that
    fail are still visited and recorded; the next node that passes cancels the scan and is
    dropped, and the start index moves past the recorded ones only (found by the differential
    tests against upstream)."""
    nodes = [make_node(str(i)) for i in range(200)]
    failing = FakeFilter({str(i): "Unschedulable" for i in range(100, 105)})
    fwk = framework({"filter": [failing], "score": [NumericMap()]}, nodes)
    sched = Scheduler(fwk.handle.snapshot(), 50)
    assert sched.num_feasible_nodes_to_find(None, 200) == 100
    feasible, diagnosis = sched.find_nodes_that_fit_pod(fwk, CycleState(), pod_info(make_pod("p")))
    assert [n.name for n in feasible] == [str(i) for i in range(100)]
    assert sorted((n for n, _ in diagnosis.node_to_status.items()), key=int) == [str(i) for i in range(100, 105)]
    assert failing.num_filter_called == 106  # node 105 passed and stopped the scan
    assert sched.next_start_node_index == 105


def test_find_fit_all_error() -> None:
    nodes = [make_node(n) for n in ("3", "2", "1")]
    fwk = framework({"filter": [TrueFilter(), MatchFilter()]}, nodes)
    _, diagnosis = Scheduler(fwk.handle.snapshot()).find_nodes_that_fit_pod(fwk, CycleState(), pod_info(make_pod("x")))
    assert {n: (s.code.name, s.reasons, s.plugin) for n, s in diagnosis.node_to_status.items()} == {
        n: ("Unschedulable", ["Nodes failed the fake plugin"], "MatchFilter") for n in ("1", "2", "3")}
    assert diagnosis.unschedulable_plugins == {"MatchFilter"}


def test_find_fit_some_error() -> None:
    nodes = [make_node(n) for n in ("3", "2", "1")]
    fwk = framework({"filter": [TrueFilter(), MatchFilter()]}, nodes)
    _, diagnosis = Scheduler(fwk.handle.snapshot()).find_nodes_that_fit_pod(fwk, CycleState(), pod_info(make_pod("1")))
    assert len(diagnosis.node_to_status) == 2
    assert diagnosis.unschedulable_plugins == {"MatchFilter"}


@pytest.mark.parametrize("pod_priority,expected", [(1000, 1), (0, 2)],
                         ids=["FindFitPredicateCallCounts_nominated pods have lower priority, predicate is called once",
                              "FindFitPredicateCallCounts_nominated pods have higher priority, predicate is called twice"])
def test_find_fit_predicate_call_counts(pod_priority: int, expected: int) -> None:
    plugin = FakeFilter()
    fwk = framework({"filter": [plugin]}, [make_node("1")],
                    nominated=[make_pod("nominated", priority=100, nominated="1")])
    Scheduler(fwk.handle.snapshot()).find_nodes_that_fit_pod(fwk, CycleState(), pod_info(make_pod("1", priority=pod_priority)))
    assert plugin.num_filter_called == expected


@pytest.mark.parametrize("nominated,codes,expected", [
    ("node1", None, 1),
    ("", None, 3),
    ("node1", {"node1": "Unschedulable"}, 4),
], ids=["PreferNominatedNodeFilterCallCounts_pod has the nominated node set, filter is called only once",
        "PreferNominatedNodeFilterCallCounts_pod without the nominated pod, filter is called for each node",
        "PreferNominatedNodeFilterCallCounts_nominated pod cannot pass the filter, filter is called for each node"])
def test_prefer_nominated_node_filter_call_counts(nominated: str, codes: dict | None, expected: int) -> None:
    plugin = FakeFilter(codes)
    # Upstream's profile has no Score plugin, so it looks for one feasible node, yet its 16
    # goroutines check all three; kschedctl checks nodes one by one, so the case gets a Score
    # plugin to make "every node" the number of nodes to find.
    fwk = framework({"filter": [plugin], "score": [FAKES["EqualPrioritizerPlugin"]()]},
                    [make_node(n) for n in ("node1", "node2", "node3")])
    pod = pod_info(make_pod("p_with_nominated_node", priority=1000, nominated=nominated))
    Scheduler(fwk.handle.snapshot()).find_nodes_that_fit_pod(fwk, CycleState(), pod)
    assert plugin.num_filter_called == expected


def test_no_nodes() -> None:
    fwk = framework({"filter": [TrueFilter()]}, [])
    with pytest.raises(NoNodesAvailable, match="no nodes available to schedule pods"):
        Scheduler(fwk.handle.snapshot()).schedule_pod(fwk, CycleState(), pod_info(make_pod("p")))


# -- selectHost ----------------------------------------------------------------------------


def _scores(pairs: list[tuple[str, int]]) -> list[NodePluginScores]:
    return [NodePluginScores(n, [], s) for n, s in pairs]


@pytest.mark.parametrize("pairs,possible", [
    ([("node1.1", 1), ("node2.1", 2)], {"node2.1"}),
    ([("node1.1", 1), ("node1.2", 2), ("node2.1", 2)], {"node1.2", "node2.1"}),
    ([("node1.1", 3), ("node1.2", 3), ("node2.1", 2), ("node3.1", 1), ("node1.3", 3)], {"node1.1", "node1.2", "node1.3"}),
], ids=["SelectHost_unique properly ordered scores", "SelectHost_equal scores",
        "SelectHost_out of order scores"])
def test_select_host(pairs: list, possible: set) -> None:
    sched = Scheduler(None, seed=None)
    for _ in range(10):  # increase the randomness
        host, tied = sched.select_host(_scores(pairs))
        assert host in possible and set(tied) == possible


def test_select_host_empty_list_is_an_error() -> None:
    with pytest.raises(SchedulingError, match="empty priorityList"):
        Scheduler(None).select_host([])


def test_select_host_is_reproducible_with_a_seed_and_uniform_without_bias() -> None:
    pairs = [(f"n{i}", 5) for i in range(4)]
    picks = [Scheduler(None, seed=s).select_host(_scores(pairs))[0] for s in range(400)]
    assert picks == [Scheduler(None, seed=s).select_host(_scores(pairs))[0] for s in range(400)]
    counts = {n: picks.count(n) for n, _ in pairs}
    assert all(60 < c < 140 for c in counts.values()), counts


# -- the whole cycle -----------------------------------------------------------------------

NODES3 = [make_node(n) for n in ("node1", "node2", "node3")]


def _cycle(plugins: dict, pod: dict | None = None, nodes=NODES3, hold_waiting_pods: bool = False, **kw):
    fwk = framework(plugins, nodes, **kw)
    scheduler = Scheduler(fwk.handle.snapshot(), seed=3, hold_waiting_pods=hold_waiting_pods)
    return scheduler.run_cycle(fwk, pod_info(pod or make_pod("p")))


def test_cycle_scheduled_records_stages() -> None:
    out = _cycle({"filter": [TrueFilter()], "score": [NumericMap()]}, nodes=[make_node(n) for n in ("1", "2", "3")])
    assert out.outcome == "Scheduled" and out.selected_node == "3"
    assert [s.point for s in out.trace.stages] == ["Bind"]
    assert out.evaluated_nodes == 3 and out.feasible_nodes == 3


def test_cycle_gated() -> None:
    pod = make_pod("p", schedulingGates=[{"name": "foo"}])
    out = _cycle({"preEnqueue": [SchedulingGates()], "filter": [TrueFilter()]}, pod)
    assert out.outcome == "Gated" and out.message == "waiting for scheduling gates: [foo]"


def test_cycle_reserve_rejection_is_a_fit_error_over_one_node() -> None:
    out = _cycle({"filter": [TrueFilter()], "reserve": [TestPlugin("R", {"reserve": "Unschedulable"})]},
                 nodes=[make_node("node1")])
    assert out.outcome == "Rejected"
    assert out.message == "0/1 nodes are available: 1 injected status."
    assert [s.point for s in out.trace.stages] == ["Reserve", "Unreserve"]


def test_cycle_permit_rejection_message() -> None:
    class OnPermit:
        name = "P"

        def permit(self, state, pod_info, node_name):
            return Status(Code.Unschedulable, "on permit"), 0

    out = _cycle({"filter": [TrueFilter()], "permit": [OnPermit()]}, nodes=[make_node("node1")])
    assert out.outcome == "Rejected" and out.message == "0/1 nodes are available: 1 on permit."


def test_cycle_permit_wait_times_out() -> None:
    out = _cycle({"filter": [TrueFilter()], "permit": [TestPlugin("Coscheduling", {"permit": "Wait", "permitTimeout": 10})]},
                 nodes=[make_node("node1")])
    assert out.outcome == "Rejected"
    assert out.message == ("0/1 nodes are available: 1 rejected due to timeout after waiting 10s at plugin "
                           "Coscheduling.")
    permit = [s for s in out.trace.stages if s.point == "Permit"][0]
    assert permit.status.code == Code.Wait and permit.extra == {"timeout": 10.0}
    assert out.provisional_node == "node1" and out.selected_node is None
    assert any("made the pod wait on node1" in w and "kschedctl simulate" in w for w in out.warnings)


def test_cycle_permit_wait_is_held_when_the_caller_holds_waiting_pods() -> None:
    out = _cycle({"filter": [TrueFilter()], "permit": [TestPlugin("Coscheduling", {"permit": "Wait", "permitTimeout": 10})]},
                 nodes=[make_node("node1")], hold_waiting_pods=True)
    assert out.outcome == "Waiting" and out.provisional_node == "node1"
    assert out.waiting is not None and out.waiting.pending == {"Coscheduling": 10.0} and out.state is not None
    assert not [s for s in out.trace.stages if s.point in ("WaitOnPermit", "Unreserve", "Bind")]


def test_cycle_pre_bind_error() -> None:
    out = _cycle({"filter": [TrueFilter()], "preBind": [TestPlugin("B", {"preBind": "Error"})]})
    assert out.outcome == "Error" and out.message == 'running PreBind plugin "B": injected status'


def test_cycle_unschedulable_with_post_filter_message() -> None:
    post = TestPlugin("DefaultPreemption", {"postFilter": "Unschedulable"})
    out = _cycle({"filter": [FakeFilter({"node1": "Unschedulable", "node2": "Unschedulable", "node3": "Unschedulable"})],
                  "postFilter": [post]})
    assert out.outcome == "Unschedulable"
    assert out.message == "0/3 nodes are available: 3 injecting failure for pod p. injected status"


def test_cycle_single_feasible_node_still_scores_for_display() -> None:
    out = _cycle({"filter": [FakeFilter({"node1": "Unschedulable", "node2": "Unschedulable"})],
                  "score": [NumericMapByIndex()]})
    assert out.outcome == "Scheduled" and out.selected_node == "node3"
    assert out.scoring_skipped_upstream
    assert out.trace.raw_scores == {"Idx": [3]}
    assert out.evaluated_nodes == 3 and out.feasible_nodes == 1


class NumericMapByIndex:
    name = "Idx"

    def score(self, state, pod_info, node_info):
        return int(node_info.name[-1]), None


def test_cycle_prefers_the_nominated_node() -> None:
    pod = make_pod("p", nominated="node2")
    out = _cycle({"filter": [TrueFilter()], "score": [NumericMapByIndex()]}, pod)
    assert out.selected_node == "node2" and out.scoring_skipped_upstream


def test_go_duration_and_truncate() -> None:
    assert [go_duration(s) for s in (0, 10, 90, 1.5, 900, 3600, 0.25)] == ["0s", "10s", "1m30s", "1.5s", "15m0s",
                                                                          "1h0m0s", "250ms"]
    assert truncate_message("x" * 1024) == "x" * 1024
    assert truncate_message("x" * 1025) == "x" * 1020 + " ..."
