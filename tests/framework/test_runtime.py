"""The framework runtime: upstream's framework_test.go tables (cases/runtime.yaml) and the
kschedctl additions (recording, containment of plugins that raise, start-up refusals)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.runtime import Framework, FrameworkHandle, NodeToStatus, go_list
from kschedctl.framework.status import Code, Status
from tests.framework.fakes import (
    Raising,
    ScorePlugin,
    TestPlugin,
    framework,
    make_node,
    make_pod,
    pod_info,
)

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "runtime.yaml").read_text(encoding="utf-8"))


def cases(section: str) -> list[Any]:
    return [pytest.param(c, id=f"{section}_{c['name']}") for c in CASES[section]]


def plugins_of(specs: list[dict]) -> list[TestPlugin]:
    return [TestPlugin(s["name"], s.get("inj")) for s in specs]


def status_dict(status: Status | None) -> dict | None:
    if status is None:
        return None
    out: dict[str, Any] = {"code": status.code.name, "reasons": list(status.reasons)}
    if status.plugin:
        out["plugin"] = status.plugin
    return out


def want(spec: dict | None) -> dict | None:
    if spec is None:
        return None
    out = {"code": spec["code"], "reasons": list(spec.get("reasons") or [])}
    if spec.get("plugin"):
        out["plugin"] = spec["plugin"]
    return out


def is_success(status: Status | None) -> bool:
    return status is None or status.code == Code.Success


NODES = [make_node("node1"), make_node("node2")]
POD = make_pod("pod")


@pytest.mark.parametrize("case", cases("RunPreFilterPlugins"))
def test_run_pre_filter_plugins(case: dict) -> None:
    fwk = framework({"preFilter": plugins_of(case["plugins"])}, NODES)
    state = CycleState()
    result, status, _ = fwk.run_pre_filter_plugins(state, pod_info(POD))
    code = Code.Success if status is None else status.code
    assert code.name == case["wantStatusCode"]
    assert state.skip_filter_plugins == set(case["wantSkippedPlugins"])
    if "wantPreFilterResult" in case:
        assert result is not None and result.node_names == set(case["wantPreFilterResult"])
    elif code == Code.Success:
        assert result is None or result.all_nodes()
    if "wantReasons" in case:
        assert status is not None and status.reasons == case["wantReasons"]


@pytest.mark.parametrize("case", cases("FilterPlugins"))
def test_filter_plugins(case: dict) -> None:
    fwk = framework({"filter": plugins_of(case["plugins"])}, NODES)
    state = CycleState()
    state.skip_filter_plugins = set(case.get("skippedPlugins") or ())
    node_info = fwk.handle.snapshot().get("node1")
    got = fwk.run_filter_plugins(state, pod_info(POD), node_info)
    if case.get("wantStatus") is None:
        assert is_success(got)
    else:
        assert status_dict(got) == want(case["wantStatus"])


@pytest.mark.parametrize("case", cases("PostFilterPlugins"))
def test_post_filter_plugins(case: dict) -> None:
    fwk = framework({"postFilter": plugins_of(case["plugins"])}, NODES)
    _, got = fwk.run_post_filter_plugins(CycleState(), pod_info(POD), NodeToStatus())
    assert status_dict(got) == want(case["wantStatus"])


@pytest.mark.parametrize("case", cases("FilterPluginsWithNominatedPods"))
def test_filter_plugins_with_nominated_pods(case: dict) -> None:
    plugins: dict[str, list] = {}
    if case.get("preFilterPlugin"):
        plugins["preFilter"] = plugins_of([case["preFilterPlugin"]])
    if case.get("filterPlugin"):
        plugins["filter"] = plugins_of([case["filterPlugin"]])
    nominated = []
    if case.get("nominatedPod"):
        nominated = [make_pod(**case["nominatedPod"], nominated="testNode")]
    fwk = framework(plugins, [make_node("testNode")], nominated=nominated)
    state = CycleState()
    got = fwk.run_filter_plugins_with_nominated_pods(state, pod_info(make_pod(**case["pod"])),
                                                     fwk.handle.snapshot().get("testNode"))
    if case.get("wantStatus") is None:
        assert is_success(got)
    else:
        assert status_dict(got) == want(case["wantStatus"])


def _bind_like(section: str, point: str, run: str):
    @pytest.mark.parametrize("case", cases(section))
    def test(case: dict) -> None:
        fwk = framework({point: plugins_of(case["plugins"])}, NODES)
        got = getattr(fwk, run)(CycleState(), pod_info(POD), "node1")
        if isinstance(got, tuple):
            got, waits = got
            assert waits == case.get("wantWaits", {})
        if case.get("wantStatus") is None:
            assert is_success(got)
        else:
            assert status_dict(got) == want(case["wantStatus"])

    return test


test_pre_bind_plugins = _bind_like("PreBindPlugins", "preBind", "run_pre_bind_plugins")
test_reserve_plugins = _bind_like("ReservePlugins", "reserve", "run_reserve_plugins_reserve")
test_permit_plugins = _bind_like("PermitPlugins", "permit", "run_permit_plugins")


@pytest.mark.parametrize("case", cases("RunScorePlugins"))
def test_run_score_plugins(case: dict) -> None:
    plugins = [ScorePlugin(s["name"], s.get("args"), s.get("normalize", False)) for s in case["plugins"]]
    weights = {s["name"]: s["weight"] for s in case["plugins"] if "weight" in s}
    fwk = framework({"score": plugins}, NODES, weights=weights)
    state = CycleState()
    state.skip_score_plugins = set(case.get("skippedPlugins") or ())
    nodes = fwk.handle.snapshot().node_infos()
    result, status = fwk.run_score_plugins(state, pod_info(POD), nodes)
    if "err" in case:
        assert status is not None and status.code == Code.Error
        assert status.message() == case["err"]
        return
    assert is_success(status)
    got = {ns.name: [[p, s] for p, s in ns.scores] for ns in result}
    assert got == case["want"]
    for ns in result:
        assert ns.total_score == sum(s for _, s in ns.scores)


# -- kschedctl additions -------------------------------------------------------------------


def test_go_list_sorts_and_spaces() -> None:
    assert go_list({"b", "a"}) == "[a b]"


def test_score_weights_default_to_one_and_overflow_is_refused() -> None:
    fwk = framework({"score": [ScorePlugin("a"), ScorePlugin("b")]}, NODES, weights={"b": 0})
    assert fwk.weights == {"a": 1, "b": 1}
    with pytest.raises(ValueError, match="could overflow"):
        framework({"score": [ScorePlugin("a"), ScorePlugin("b")]}, NODES, weights={"a": 2**62, "b": 2**62})


def test_filter_records_every_plugin_in_order_and_stops_at_first_failure() -> None:
    p1, p2, p3 = TestPlugin("A"), TestPlugin("B", {"filter": "Unschedulable"}), TestPlugin("C")
    fwk = framework({"filter": [p1, p2, p3]}, NODES)
    record: list = []
    status = fwk.run_filter_plugins(CycleState(), pod_info(POD), fwk.handle.snapshot().get("node1"), record)
    assert status is not None and status.plugin == "B"
    assert [(p, s.code.name if s else "Success") for p, s in record] == [("A", "Success"), ("B", "Unschedulable")]
    assert "filter" not in p3.calls


def test_all_filters_runs_every_filter_but_keeps_the_first_verdict() -> None:
    p1 = TestPlugin("A", {"filter": "UnschedulableAndUnresolvable"})
    p2 = TestPlugin("B", {"filter": "Unschedulable"})
    p3 = TestPlugin("C", {"filter": "Error"})
    fwk = framework({"filter": [p1, p2, p3]}, NODES)
    fwk.all_filters = True
    record: list = []
    status = fwk.run_filter_plugins(CycleState(), pod_info(POD), fwk.handle.snapshot().get("node1"), record)
    assert status is not None and status.plugin == "A" and status.code == Code.UnschedulableAndUnresolvable
    assert [p for p, _ in record] == ["A", "B", "C"]
    assert record[2][1].message() == 'running "C" filter plugin: injected filter status'


def test_a_plugin_that_raises_is_contained() -> None:
    fwk = framework({"filter": [Raising()], "score": [Raising()]}, NODES)
    node_info = fwk.handle.snapshot().get("node1")
    status = fwk.run_filter_plugins(CycleState(), pod_info(POD), node_info)
    assert status is not None and status.code == Code.Error and status.plugin == "Raising"
    assert status.message() == 'running "Raising" filter plugin: plugin Raising raised ValueError in Filter: boom'
    _, status = fwk.run_score_plugins(CycleState(), pod_info(POD), [node_info])
    assert status is not None and status.code == Code.Error
    assert "plugin Raising raised ValueError in Score: boom" in status.message()


def test_a_plugin_lacking_the_method_of_its_point_is_refused_at_start_up() -> None:
    # upstream NewFramework refuses it; the hot loops then call every plugin they hold
    class FilterOnly:
        name = "FilterOnly"

        def filter(self, state, pod_info, node_info):
            return None

    with pytest.raises(ValueError, match='plugin "FilterOnly" does not extend ScorePlugin plugin'):
        framework({"filter": [FilterOnly()], "score": [FilterOnly()]}, NODES)


def test_post_filter_result_is_recorded_with_victims() -> None:
    class Preempt:
        name = "DefaultPreemption"

        def post_filter(self, state, pod_info, statuses):
            from kschedctl.framework.status import PostFilterResult

            return PostFilterResult("node2", ["default/low"]), Status(Code.Success)

    fwk = framework({"postFilter": [Preempt()]}, NODES)
    trace = fwk.begin_trace()
    result, status = fwk.run_post_filter_plugins(CycleState(), pod_info(POD), NodeToStatus())
    assert result.nominated_node_name == "node2"
    assert trace.stages[0].extra == {"nominatedNode": "node2", "victims": ["default/low"]}


def test_bind_skips_until_a_plugin_binds_and_unreserve_runs_in_reverse() -> None:
    skip = TestPlugin("skipper", {"bind": "Skip"})
    binder = TestPlugin("binder")
    fwk = framework({"bind": [skip, binder]}, NODES)
    assert fwk.run_bind_plugins(CycleState(), pod_info(POD), "node1") is None
    assert binder.calls == {"bind": 1}
    only_skip = framework({"bind": [TestPlugin("s", {"bind": "Skip"})]}, NODES)
    status = only_skip.run_bind_plugins(CycleState(), pod_info(POD), "node1")
    assert status is not None and status.code == Code.Skip

    r1, r2 = TestPlugin("r1"), TestPlugin("r2")
    fwk = framework({"reserve": [r1, r2]}, NODES)
    trace = fwk.begin_trace()
    fwk.run_reserve_plugins_unreserve(CycleState(), pod_info(POD), "node1")
    assert [s.plugin for s in trace.stages] == ["r2", "r1"]


def test_handle_delegates_to_its_framework() -> None:
    handle = FrameworkHandle()
    fwk = Framework("p", {"filter": [TestPlugin("F", {"filter": "Unschedulable"})]}, {}, None, handle)
    assert handle.framework is fwk and handle.profile_name() == "p"
    fwk2 = framework({"filter": [TestPlugin("F", {"filter": "Unschedulable"})]}, NODES)
    status = fwk2.handle.run_filter_plugins_with_nominated_pods(
        CycleState(), pod_info(POD), fwk2.handle.snapshot().get("node1"))
    assert status is not None and status.code == Code.Unschedulable


# -- pods waiting at Permit (upstream waitingPod, waitingPodsMap, Handle) ----------------------


def test_a_waiting_pod_binds_only_once_every_waiting_plugin_allowed_it() -> None:
    from kschedctl.framework.runtime import WaitingPod

    wp = WaitingPod(pod_info(make_pod("p")), "n1", {"A": 10.0, "B": 20.0})
    wp.allow("A")
    assert wp.status is None and wp.get_pending_plugins() == ["B"]
    wp.allow("B")
    assert wp.status is not None and wp.status.code == Code.Success


def test_the_first_answer_to_a_waiting_pod_wins() -> None:
    from kschedctl.framework.runtime import WaitingPod

    wp = WaitingPod(pod_info(make_pod("p")), "n1", {"A": 10.0})
    wp.reject("A", "no")
    wp.allow("A")
    wp.time_out("A")
    assert (wp.status.code, wp.status.message(), wp.status.plugin) == (Code.Unschedulable, "no", "A")


@pytest.mark.parametrize("timeout,text", [(10.0, "10s"), (90.0, "1m30s"), (900.0, "15m0s"), (0.5, "500ms")])
def test_a_timed_out_wait_names_the_plugin_and_the_duration(timeout: float, text: str) -> None:
    from kschedctl.framework.runtime import WaitingPod

    wp = WaitingPod(pod_info(make_pod("p")), "n1", {"Coscheduling": timeout})
    wp.time_out("Coscheduling")
    assert wp.status.message() == f"rejected due to timeout after waiting {text} at plugin Coscheduling"
    assert wp.status.plugin == "Coscheduling"


def test_handle_reaches_the_waiting_pods_shared_by_profiles() -> None:
    from kschedctl.framework.runtime import WaitingPod, WaitingPods

    shared = WaitingPods()
    h1, h2 = FrameworkHandle(waiting_pods=shared), FrameworkHandle(waiting_pods=shared)
    wp = WaitingPod(pod_info(make_pod("p", uid="uid-p")), "n1", {"A": 10.0})
    shared.add(wp)
    seen: list[str] = []
    h2.iterate_over_waiting_pods(lambda w: seen.append(w.get_pod()["metadata"]["name"]))
    assert seen == ["p"] and h1.get_waiting_pod("uid-p") is wp
    assert h1.reject_waiting_pod("uid-p") is True
    assert (wp.status.code, wp.status.message(), wp.status.plugin) == (Code.Unschedulable, "removed", "")
    assert h1.reject_waiting_pod("nobody") is False


def test_pods_to_activate_survive_a_cloned_state() -> None:
    from kschedctl.framework.cycle_state import PODS_TO_ACTIVATE_KEY, PodsToActivate

    state = CycleState()
    state.write(PODS_TO_ACTIVATE_KEY, PodsToActivate())
    state.clone().read(PODS_TO_ACTIVATE_KEY).map["ns/p"] = {}
    assert list(state.read(PODS_TO_ACTIVATE_KEY).map) == ["ns/p"]


def test_handle_lists_the_pods_the_informer_would() -> None:
    from types import SimpleNamespace

    from kschedctl.framework.snapshot import Snapshot

    bound = make_pod("bound", node="n1")
    done = make_pod("done")
    done["status"] = {"phase": "Succeeded"}
    snapshot = Snapshot([make_node("n1")], [pod_info(bound), pod_info(make_pod("assumed", node="n1"))])
    handle = FrameworkHandle(snapshot, SimpleNamespace(pods=[bound, done]))
    handle.unscheduled_pods = [pod_info(make_pod("pending")), pod_info(make_pod("bound"))]
    assert [p["metadata"]["name"] for p in handle.list_pods()] == ["bound", "assumed", "pending"]


# --- the statuses of a scan every node rejected, kept as columns -------------------------------

def _rejected_scan(seed: int):
    from kschedctl.framework.diagnosis import RejectedScan, status_kind
    from kschedctl.framework.snapshot import Snapshot
    from tests.plugins.test_default_preemption import make_node

    rnd = random.Random(seed)
    snapshot = Snapshot([make_node(f"n{i:02d}") for i in range(rnd.randint(1, 40))])
    nodes = snapshot.node_infos()
    choices = [Status(Code.Unschedulable, "Insufficient cpu", plugin="NodeResourcesFit"),
               Status(Code.Unschedulable, "Insufficient cpu", "Insufficient memory", plugin="NodeResourcesFit"),
               Status(Code.UnschedulableAndUnresolvable, "node(s) had untolerated taint {a: b}",
                      plugin="TaintToleration"),
               Status(Code.UnschedulableAndUnresolvable, "node(s) didn't match Pod's node affinity/selector",
                      plugin="NodeAffinity")]
    statuses = [rnd.choice(choices) for _ in nodes]
    kinds: dict = {}
    for s in statuses:
        kinds[status_kind(s)] = kinds.get(status_kind(s), 0) + 1
    scan = RejectedScan(nodes, {n.name: i for i, n in enumerate(nodes)}, statuses, kinds)
    return snapshot, scan, rnd.randrange(len(nodes))


@pytest.mark.parametrize("seed", range(8))
def test_scan_statuses_answer_as_the_map_the_scan_builds(seed: int) -> None:
    """``ScanStatuses`` (a remembered scan's columns and counts) gives what the node -> status map
    built in visit order gives: each node's status, the count, the Unschedulable nodes in the same
    order, the reason counts and FitError's message word for word; changed, it is that map."""
    from kschedctl.framework.diagnosis import Diagnosis, FitError, ScanStatuses

    snapshot, scan, start = _rejected_scan(seed)
    nodes = scan.nodes
    order = nodes[start:] + nodes[:start]
    plain = NodeToStatus({n.name: scan.statuses[nodes.index(n)] for n in order})
    kept = ScanStatuses(scan, start)
    assert len(kept) == len(plain)
    for name in [n.name for n in nodes] + ["absent", ""]:
        assert kept.get(name) == plain.get(name)
    for code in (Code.Unschedulable, Code.UnschedulableAndUnresolvable):
        assert kept.nodes_for_status_code(snapshot, code) == plain.nodes_for_status_code(snapshot, code)
    assert kept.reason_counts() == plain.reason_counts()
    for num in (len(nodes), len(nodes) + 3):
        assert FitError(None, num, Diagnosis(kept)).error() == FitError(None, num, Diagnosis(plain)).error()
    kept.set("n00", Status(Code.Unschedulable, "changed"))
    plain.set("n00", Status(Code.Unschedulable, "changed"))
    assert list(kept.items()) == list(plain.items())
    assert kept.reason_counts() == plain.reason_counts()
    assert kept.nodes_for_status_code(snapshot, Code.Unschedulable) == \
        plain.nodes_for_status_code(snapshot, Code.Unschedulable)


@pytest.mark.parametrize("seed", range(5))
def test_nominator_removes_the_entry_a_walk_over_every_node_removes(seed: int) -> None:
    """``PodNominator.remove`` looks only at the nodes the pod's uid was added to; what it removes
    is what a walk over every node, in the order they were first nominated to, removes first."""
    from kschedctl.framework.nominator import PodNominator
    from tests.plugins.harness import pod_info
    from tests.plugins.test_default_preemption import make_pod

    rnd = random.Random(seed)
    pods = [pod_info(make_pod({"name": f"p{i}", "uid": f"u{i % 4}"})) for i in range(8)]
    nominator = PodNominator()
    walk: dict[str, list] = {}
    for _ in range(30):
        p = rnd.choice(pods)
        if rnd.random() < 0.6:
            node = f"n{rnd.randrange(5)}"
            nominator.add(p, node)
            walk.setdefault(node, []).append(p)
        else:
            nominator.remove(p)
            for node, listed in walk.items():
                hit = next((i for i, o in enumerate(listed) if o.uid == p.uid and o.key == p.key), None)
                if hit is not None:
                    del listed[hit]
                    break
        assert {k: [o.key for o in v] for k, v in nominator.by_node.items()} == \
            {k: [o.key for o in v] for k, v in walk.items()}
