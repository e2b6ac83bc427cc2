"""The generic preemption Evaluator: nodes to try, PDB violations, importance of pods, the dry run
with a fake policy, candidate selection, and Go's sort.Slice.

Cases: tests/framework/cases/preemption.yaml (upstream preemption_test.go, utils_test.go and the
PDB helper of default_preemption.go); the fake-policy tables (TestDryRunPreemption,
TestSelectCandidate of preemption_test.go) are written out below.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.preemption import (
    CRITERIA,
    CRITERION_FIRST,
    Candidate,
    Evaluator,
    StartTimes,
    compile_pdbs,
    earliest_start_time,
    filter_pods_with_pdb_violation,
    go_sort_slice,
    more_important_pod,
    parse_time_ns,
    pick_one_node_for_preemption,
)
from kschedctl.framework.runtime import FrameworkHandle, NodeToStatus
from kschedctl.framework.snapshot import Snapshot
from kschedctl.framework.status import Code, Status
from tests.plugins.harness import pod_info
from tests.plugins.test_default_preemption import make_node, make_pdb, make_pod

_CASES = yaml.safe_load((Path(__file__).parent / "cases" / "preemption.yaml").read_text(encoding="utf-8"))["cases"]


def _cases(kind: str) -> list:
    return [pytest.param(c, id=f"Preemption_{c['name']}") for c in _CASES if c["kind"] == kind]


_NOW = 1_700_000_000 * 10**9


def _time(symbol: str) -> str:
    """t0 / t1 / t2: "now" plus that many seconds, as RFC 3339."""
    import datetime as dt

    seconds = _NOW // 10**9 + int(symbol[1:])
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _pod(spec: dict) -> Any:
    spec = dict(spec)
    if spec.get("startTime"):
        spec["startTime"] = _time(spec["startTime"])
    return pod_info(make_pod(spec))


# --- nodes to try -----------------------------------------------------------------------------


@pytest.mark.parametrize("case", _cases("nodesToTry"))
def test_nodes_where_preemption_might_help(case: dict) -> None:
    snapshot = Snapshot([make_node(f"node{i}") for i in range(1, 5)])
    m = NodeToStatus({n: Status(Code[c], *([r] if r else [])) for n, (c, r) in case["statuses"].items()},
                     Status(Code[case["absent"]]) if case.get("absent") else None)
    got = [n.name for n in m.nodes_for_status_code(snapshot, Code.Unschedulable)]
    assert sorted(got) == sorted(case["expected"])


# --- PDBs -------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _cases("pdbViolation"))
def test_filter_pods_with_pdb_violation(case: dict) -> None:
    pods = [_pod(p) for p in case["pods"]]
    pdbs = compile_pdbs(make_pdb(p, i) for i, p in enumerate(case["pdbs"]))
    violating, non_violating, broken = filter_pods_with_pdb_violation(pods, pdbs)
    assert [p.name for p in violating] == case["violating"]
    assert [p.name for p in non_violating] == [p.name for p in pods if p.name not in case["violating"]]
    assert broken == case.get("broken", {})


# --- importance of pods -----------------------------------------------------------------------


@pytest.mark.parametrize("case", _cases("moreImportant"))
def test_more_important_pod(case: dict) -> None:
    times = StartTimes(_NOW + 10**9 // 2)  # "now" lies between t0 and t1
    assert more_important_pod(_pod(case["p1"]), _pod(case["p2"]), times) is case["expected"]


@pytest.mark.parametrize("case", _cases("earliestStart"))
def test_get_earliest_pod_start_time(case: dict) -> None:
    victims = [_pod(v) for v in case["victims"]]
    assert earliest_start_time(victims, StartTimes(_NOW)) == parse_time_ns(_time(case["expected"]))


def test_earliest_start_time_of_no_victims() -> None:
    assert earliest_start_time([], StartTimes()) is None


@pytest.mark.parametrize(("text", "ns"), [
    ("1970-01-01T00:00:00Z", 0),
    ("1970-01-01T00:00:00.000000001Z", 1),
    ("1970-01-01T00:00:01.5Z", 1_500_000_000),
    ("1970-01-01T01:00:00+01:00", 0),
    ("2024-05-01T10:00:00Z", 1714557600 * 10**9),
])
def test_parse_time_ns(text: str, ns: int) -> None:
    assert parse_time_ns(text) == ns


def test_parse_time_rejects_garbage() -> None:
    with pytest.raises(ValueError):
        parse_time_ns("yesterday")


def test_start_times_now_grows_with_each_call() -> None:
    times = StartTimes(100)
    pod = _pod({"name": "a"})
    assert [times.of(pod), times.of(pod)] == [101, 102]


# --- Go's sort.Slice --------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 2, 5, 12, 13, 30, 49, 50, 51, 200, 1000])
def test_go_sort_slice_sorts(n: int) -> None:
    rng = random.Random(n)
    items = [rng.randrange(max(1, n // 3)) for _ in range(n)]
    got = list(items)
    go_sort_slice(got, lambda a, b: a < b)
    assert got == sorted(items)


@pytest.mark.parametrize("n", [13, 64, 300])
def test_go_sort_slice_descending_and_sorted_inputs(n: int) -> None:
    for items in (list(range(n, 0, -1)), list(range(n)), [1] * n):
        got = list(items)
        go_sort_slice(got, lambda a, b: a < b)
        assert got == sorted(items)


def test_go_sort_slice_up_to_twelve_is_insertion_sort() -> None:
    # With a "less" that is always true (two pods without start time), insertion sort moves each
    # element to the front: the result is the input reversed, as Go produces it.
    items = list(range(12))
    go_sort_slice(items, lambda a, b: True)
    assert items == list(range(11, -1, -1))


def test_go_sort_slice_is_not_stable_beyond_twelve() -> None:
    # Equal keys: pdqsort moves them around (what Go's sort.Slice does too); only the keys are sorted.
    items = [(i % 2, i) for i in range(40)]
    go_sort_slice(items, lambda a, b: a[0] < b[0])
    assert [k for k, _ in items] == sorted(k for k, _ in items)
    assert sorted(items) == sorted((i % 2, i) for i in range(40))


# --- the Evaluator with fake policies (upstream preemption_test.go) ---------------------------


class FakePostFilterPlugin:
    """Upstream's FakePostFilterPlugin: the first pod of each node is the victim."""

    def __init__(self, num_violating_victim: int = 0, score_funcs: bool = False) -> None:
        self.num_violating_victim = num_violating_victim
        self.score_funcs = score_funcs

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        return 0, num_nodes

    def pod_eligible_to_preempt_others(self, pod_info, status):
        return True, ""

    def select_victims_on_node(self, state, pod_info, node_info, pdbs, times):
        return [node_info.pods[0]], self.num_violating_victim, None, {}

    def ordered_score_funcs(self, nodes_to_victims: dict):
        if not self.score_funcs:
            return None

        def fewer_containers(node: str) -> int:
            total = 0
            for v in nodes_to_victims[node].victims:
                spec = v.pod.get("spec") or {}
                total += len(spec.get("containers") or ()) + len(spec.get("initContainers") or ())
            return -total

        return [fewer_containers]


def _evaluator(nodes: list[dict], pods: list[dict], plugin: Any) -> tuple[Evaluator, Snapshot]:
    snapshot = Snapshot(nodes, [pod_info(p) for p in pods])
    return Evaluator("FakePostFilter", FrameworkHandle(snapshot, None), plugin), snapshot


@pytest.mark.parametrize(("name", "violations"), [("no pdb violation", 0), ("pdb violation on each node", 1)])
def test_dry_run_preemption_with_fake_policy(name: str, violations: int) -> None:
    nodes = [make_node({"name": n, "capacity": {"cpu": "500m", "memory": "500"}}) for n in ("node1", "node2")]
    pods = [make_pod({"name": "p1", "node": "node1", "priority": 100}),
            make_pod({"name": "p2", "node": "node2", "priority": 100})]
    ev, snapshot = _evaluator(nodes, pods, FakePostFilterPlugin(violations))
    pod = pod_info(make_pod({"name": "p", "priority": 1000}))
    infos = sorted(snapshot.node_infos(), key=lambda n: n.name)
    run = ev.dry_run_preemption(CycleState(), pod, infos, [], 0, len(infos))
    got = sorted((c.name, [v.name for v in c.victims], c.num_pdb_violations) for c in run.candidates)
    assert got == [("node1", ["p1"], violations), ("node2", ["p2"], violations)]


def test_select_candidate_with_ordered_score_funcs() -> None:
    # Upstream TestSelectCandidate "pod has different number of containers on each node".
    nodes = [make_node({"name": n, "capacity": {"cpu": "500m", "memory": "500"}}) for n in ("node1", "node2", "node3")]
    pods = [
        make_pod({"name": "p1.1", "node": "node1", "priority": 100,
                  "containers": [{"name": "container1"}, {"name": "container2"}]}),
        make_pod({"name": "p2.1", "node": "node2", "priority": 100, "containers": [{"name": "container1"}]}),
        make_pod({"name": "p3.1", "node": "node3", "priority": 100,
                  "containers": [{"name": "container1"}, {"name": "container2"}, {"name": "container3"}]}),
    ]
    ev, snapshot = _evaluator(nodes, pods, FakePostFilterPlugin(1, score_funcs=True))
    for spec in pods:
        pod = pod_info(spec)
        run = ev.dry_run_preemption(CycleState(), pod, snapshot.node_infos(), [], 0, 3)
        best, decisions = ev.select_candidate(run.candidates)
        assert best.name == "node2"
        assert decisions == {"node1": "score function 1", "node2": "score function 1", "node3": "score function 1"}


def test_dry_run_turns_success_without_victims_into_an_error() -> None:
    class NoVictims(FakePostFilterPlugin):
        def select_victims_on_node(self, state, pod_info, node_info, pdbs, times):
            return [], 0, None, {}

    nodes = [make_node("node1")]
    ev, snapshot = _evaluator(nodes, [], NoVictims())
    run = ev.dry_run_preemption(CycleState(), pod_info(make_pod({"name": "p"})), snapshot.node_infos(), [], 0, 1)
    assert run.candidates == []
    assert run.errors == ['expected at least one victim pod on node "node1"']
    result, status = ev.preempt(CycleState(), pod_info(make_pod({"name": "p"})),
                                NodeToStatus({"node1": Status(Code.Unschedulable)}))
    assert result is None and status.code == Code.Error
    assert status.reasons == ['expected at least one victim pod on node "node1"']


def test_preempt_aggregates_several_errors() -> None:
    class Failing(FakePostFilterPlugin):
        def select_victims_on_node(self, state, pod_info, node_info, pdbs, times):
            return [], 0, Status(Code.Error, f"boom on {node_info.name}"), {}

    nodes = [make_node("node1"), make_node("node2")]
    ev, _ = _evaluator(nodes, [], Failing())
    m = NodeToStatus({"node1": Status(Code.Unschedulable), "node2": Status(Code.Unschedulable)})
    _, status = ev.preempt(CycleState(), pod_info(make_pod({"name": "p"})), m)
    assert status.code == Code.Error and status.reasons == ["[boom on node1, boom on node2]"]


# --- pickOneNodeForPreemption -----------------------------------------------------------------


def _candidate(name: str, priorities: list[int], violations: int = 0, starts: list[str] | None = None) -> Candidate:
    victims = []
    for i, prio in enumerate(priorities):
        spec: dict = {"name": f"{name}-v{i}", "priority": prio}
        if starts:
            spec["startTime"] = starts[i]
        victims.append(pod_info(make_pod(spec)))
    return Candidate(name, victims, violations)


@pytest.mark.parametrize(("candidates", "winner", "criterion"), [
    ([_candidate("a", [0], 1), _candidate("b", [100], 0)], "b", CRITERIA[0]),
    ([_candidate("a", [100, 0]), _candidate("b", [50])], "b", CRITERIA[1]),
    ([_candidate("a", [100, 100]), _candidate("b", [100, -100])], "b", CRITERIA[2]),
    # Adjusted sums: with MaxInt32 + 1 added to each, 3 victims weigh more than 2 (raw: -200 < 0).
    ([_candidate("a", [0, -100, -100]), _candidate("b", [0, 0])], "b", CRITERIA[2]),
    # Equal adjusted sums: 2 * 10^9 + 2 * 2^31 == 10^9 - 2 * 573741824 + 3 * 2^31.
    ([_candidate("a", [10**9, 10**9]), _candidate("b", [10**9, -573741824, -573741824])], "a", CRITERIA[3]),
    ([_candidate("a", [100], starts=["2024-01-01T00:00:00Z"]), _candidate("b", [100], starts=["2024-01-02T00:00:00Z"])],
     "b", CRITERIA[4]),
    ([_candidate("a", [100], starts=["2024-01-01T00:00:00Z"]), _candidate("b", [100], starts=["2024-01-01T00:00:00Z"])],
     "a", CRITERION_FIRST),
])
def test_pick_one_node_for_preemption(candidates: list[Candidate], winner: str, criterion: str) -> None:
    name, decisions = pick_one_node_for_preemption({c.name: c for c in candidates})
    assert name == winner
    assert decisions[winner] == criterion


def test_pick_one_node_of_none() -> None:
    assert pick_one_node_for_preemption({}) == ("", {})


# --- the tie-breaks' scores kept with a memoized answer ---------------------------------------

_T0, _T1 = "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z"


@pytest.mark.parametrize(("priorities", "starts"), [
    ([100, 0, 0], [_T1, _T0, _T0]),        # every start time known
    ([100, 100, 0], None),                  # none known: the "now"s the tie-break would take
    ([5], None),
    ([100, 100, 100, 50], None),
    ([100, 100], [_T0, ""]),                # some known: left to the tie-break (no steps)
    ([100], ["not a time"]),                # unparsable: left to the tie-break, which reports it
])
def test_victims_summary_gives_the_tie_breaks_own_scores(priorities: list[int], starts: list[str] | None) -> None:
    """Each score of ``victims_summary`` is what the tie-break computes from the victims, and a
    "now"-only start advances the clock as ``earliest_start_time`` does."""
    from kschedctl.framework.preemption import victims_summary

    victims = _candidate("n", priorities, starts=starts).victims
    high, total, count, earliest, steps = victims_summary(victims)
    assert high == -victims[0].priority and count == -len(victims)
    assert total == -sum(v.priority + 2**31 for v in victims)
    times = StartTimes(_NOW)
    if earliest is not None:
        assert earliest == earliest_start_time(victims, times)
    elif steps is not None:
        mine = StartTimes(_NOW)
        assert mine.tick(*steps) == earliest_start_time(victims, times)
        assert mine.now_ns == times.now_ns
    else:
        assert starts and any(starts) and (not all(starts) or "not a time" in starts)


@pytest.mark.parametrize("seed", range(6))
def test_pick_one_node_with_summaries_as_without(seed: int) -> None:
    """Candidates carrying ``victims_summary`` (a memoized dry-run answer) are picked as those
    without: the same node, the same criterion for each, the clock left at the same "now"."""
    from kschedctl.framework.preemption import victims_summary

    rnd = random.Random(seed)
    plain, summed = {}, {}
    for i in range(rnd.randint(2, 30)):
        priorities = sorted((rnd.choice([0, 10, 100]) for _ in range(rnd.randint(1, 3))), reverse=True)
        kind = rnd.choice(["known", "none", "mixed"])
        starts = None if kind == "none" else [
            rnd.choice([_T0, _T1]) if kind == "known" or j else "" for j in range(len(priorities))]
        c = _candidate(f"n{i:02d}", priorities, rnd.choice([0, 0, 1]), starts)
        plain[c.name] = c
        summed[c.name] = Candidate(c.name, c.victims, c.num_pdb_violations, summary=victims_summary(c.victims))
    t1, t2 = StartTimes(_NOW), StartTimes(_NOW)
    assert pick_one_node_for_preemption(plain, None, t1) == pick_one_node_for_preemption(summed, None, t2)
    assert t1.now_ns == t2.now_ns
