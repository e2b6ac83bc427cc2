"""InterPodAffinity: upstream's filtering_test.go and scoring_test.go cases, plus kschedctl's own.

Case files: ``cases/inter_pod_affinity_filter.yaml`` (TestRequiredAffinitySingleNode,
TestRequiredAffinityMultipleNodes, TestGetTPMapMatchingIncomingAffinityAntiAffinity,
TestPreFilterStateAddRemovePod) and ``cases/inter_pod_affinity_score.yaml``
(TestPreferredAffinity, TestPreferredAffinityWithHardPodAffinitySymmetricWeight).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from kschedctl.errors import InputError
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interfaces import NodeScore, extension_points_of
from kschedctl.framework.status import Code
from kschedctl.k8s.admission import merge_match_label_keys
from kschedctl.plugins.inter_pod_affinity import filtering
from kschedctl.plugins.inter_pod_affinity import (
    PRE_FILTER_STATE_KEY,
    InterPodAffinity,
)
from kschedctl.plugins.registry import in_tree_extension_points
from tests.plugins.harness import (
    CASES_DIR,
    build,
    check_filter_twin,
    expected_status,
    load_cases,
    pod_info,
    run_filters,
    run_scores,
    status_dict,
)
from tests.work import calls_made

FILTER_CASES = load_cases("inter_pod_affinity_filter")
SCORE_CASES = load_cases("inter_pod_affinity_score")
#: The cluster objects (Namespaces) every score case has, as upstream's scoring tests.
SCORE_OBJECTS = yaml.safe_load((CASES_DIR / "inter_pod_affinity_score.yaml").read_text(encoding="utf-8"))["objects"]

_DEFAULT_ARGS = {"hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": False}


def _of_kind(cases: list, kind: str) -> list:
    return [p for p in cases if p.values[0].get("kind") == kind]


def _named(pods: list[dict] | None) -> list[dict]:
    """Copies of ``pods``, unnamed ones called "pod-<i>" (upstream's test pods often have no name)."""
    out = []
    for i, pod in enumerate(pods or ()):
        pod = copy.deepcopy(pod)
        meta = pod.setdefault("metadata", {})
        meta.setdefault("name", f"pod-{i}")
        out.append(pod)
    return out


def _env(case: dict, pods: list[dict] | None = None, objects: list[dict] | None = None) -> Any:
    objects = case.get("objects") if objects is None else objects
    return build(case.get("nodes") or [], _named(case.get("pods") if pods is None else pods),
                 copy.deepcopy(objects or []))


def _counts(want: list[dict]) -> dict[tuple[str, str], int]:
    return {(w["key"], w["value"]): w["count"] for w in want}


# --- Filter ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _of_kind(FILTER_CASES, "filter"))
def test_filter(case: dict) -> None:
    env = _env(case)
    plugin = InterPodAffinity(copy.deepcopy(_DEFAULT_ARGS), env.handle)
    pod = pod_info(case["pod"])
    state = CycleState()
    _, status = plugin.pre_filter(state, pod, env.node_infos)
    assert status_dict(status) == expected_status(case.get("wantPreFilterStatus"))
    # TestRequiredAffinitySingleNode stops on any non-success, MultipleNodes only on Skip.
    if case["source"] == "single" and status is not None and not status.is_success():
        return
    if status is not None and status.is_skip():
        return
    want = case.get("wantFilterStatuses") or {}
    statuses = {}
    for node_info in env.node_infos:
        got = statuses[node_info.name] = plugin.filter(state, pod, node_info)
        assert status_dict(got) == expected_status(want.get(node_info.name)), node_info.name
    check_filter_twin(plugin, pod, env, state, statuses)


@pytest.mark.parametrize("case", _of_kind(FILTER_CASES, "filter"))
def test_filter_through_the_harness(case: dict) -> None:
    """The framework's view: Skip passes every node, a rejecting PreFilter rejects every node."""
    env = _env(case)
    got = run_filters(InterPodAffinity(None, env.handle), pod_info(case["pod"]), env)
    pre = expected_status(case.get("wantPreFilterStatus"))
    want = case.get("wantFilterStatuses") or {}
    for name, status in got.items():
        if pre["code"] == "Skip":
            expected = expected_status(None)
        elif pre["code"] != "Success":
            expected = pre
        else:
            expected = expected_status(want.get(name))
        assert status_dict(status) == expected, name


@pytest.mark.parametrize("case", _of_kind(FILTER_CASES, "incomingCounts"))
def test_incoming_affinity_counts(case: dict) -> None:
    env = _env(case)
    pod = pod_info(case["pod"])
    affinity, anti = filtering.incoming_affinity_counts(
        pod.required_affinity_terms, pod.required_anti_affinity_terms, env.node_infos
    )
    assert affinity.counts == _counts(case["wantAffinity"])
    assert anti.counts == _counts(case["wantAntiAffinity"])


@pytest.mark.parametrize("case", _of_kind(FILTER_CASES, "addRemove"))
def test_pre_filter_state_add_remove_pod(case: dict) -> None:
    pending = pod_info(case["pendingPod"])

    def state_of(pods: list[dict]) -> tuple[InterPodAffinity, CycleState, Any]:
        env = _env(case, pods)
        plugin = InterPodAffinity(None, env.handle)
        cycle_state = CycleState()
        _, status = plugin.pre_filter(cycle_state, pending, env.node_infos)
        assert status is None
        return plugin, cycle_state, env

    _, all_state, _ = state_of(case["existingPods"] + [case["addedPod"]])
    all_pods = all_state.read(PRE_FILTER_STATE_KEY)

    plugin, cycle_state, env = state_of(case["existingPods"])
    state = cycle_state.read(PRE_FILTER_STATE_KEY)
    original = state.clone()
    added = pod_info(_named([case["addedPod"]])[0])
    node_info = env.snapshot.get(added.node_name)

    assert plugin.add_pod(cycle_state, pending, added, node_info) is None
    assert state.anti.counts == _counts(case["wantAntiAffinity"])
    assert state.affinity.counts == _counts(case["wantAffinity"])
    assert _snapshot_of(state) == _snapshot_of(all_pods)

    assert plugin.remove_pod(cycle_state, pending, added, node_info) is None
    assert _snapshot_of(state) == _snapshot_of(original)


def _snapshot_of(state: Any) -> tuple:
    """The counts (and, kschedctl's addition, the pods behind them) of a PreFilter state."""
    return (
        state.existing_anti.counts,
        state.affinity.counts,
        state.anti.counts,
        state.existing_anti.witnesses,
        state.anti.witnesses,
    )


def test_pre_filter_disabled() -> None:
    """Upstream TestPreFilterDisabled: Filter without PreFilter state is an Error, word for word."""
    env = build([{"metadata": {"name": "node"}}])
    got = InterPodAffinity(None, env.handle).filter(CycleState(), pod_info({}), env.node_infos[0])
    assert got is not None and got.code == Code.Error
    assert got.reasons == ['error reading "PreFilterInterPodAffinity" from cycleState: not found']


def test_add_remove_pod_without_pre_filter_state() -> None:
    env = build([{"metadata": {"name": "node"}}])
    plugin = InterPodAffinity(None, env.handle)
    other = pod_info({"metadata": {"name": "other"}})
    for method in (plugin.add_pod, plugin.remove_pod):
        got = method(CycleState(), pod_info({}), other, env.node_infos[0])
        assert got is not None and got.code == Code.Error


def test_pre_filter_state_clone_is_independent() -> None:
    """Upstream TestPreFilterStateClone, on the state kschedctl keeps."""
    case = _of_kind(FILTER_CASES, "addRemove")[0].values[0]
    env = _env(case, case["existingPods"])
    plugin = InterPodAffinity(None, env.handle)
    state = CycleState()
    pending = pod_info(case["pendingPod"])
    plugin.pre_filter(state, pending, env.node_infos)
    original = state.read(PRE_FILTER_STATE_KEY)
    clone = state.clone().read(PRE_FILTER_STATE_KEY)
    assert clone is not original and _snapshot_of(clone) == _snapshot_of(original)
    plugin.add_pod(state, pending, pod_info(_named([case["addedPod"]])[0]), env.snapshot.get("nodeB"))
    assert _snapshot_of(clone) != _snapshot_of(original)


# --- Score -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", SCORE_CASES)
def test_score(case: dict) -> None:
    env = _env(case, objects=SCORE_OBJECTS)
    plugin = InterPodAffinity(copy.deepcopy(case.get("args") or _DEFAULT_ARGS), env.handle)
    pod = pod_info(case["pod"])
    state = CycleState()
    status = plugin.pre_score(state, pod, env.node_infos)
    want = case.get("wantPreScoreStatus")
    if status is not None and not status.is_success():
        # As upstream: the code must match and the message contain the expected text.
        assert want is not None, status
        assert status.code.name == want["code"]
        assert want.get("contains", "") in status.message()
        return
    assert want is None or want.get("code", "Success") == "Success"
    scores = []
    for node in case["nodes"]:
        name = node["metadata"]["name"]
        score, s = plugin.score(state, pod, env.snapshot.get(name))
        assert s is None
        scores.append(NodeScore(name, score))
    assert plugin.normalize_score(state, pod, scores) is None
    assert [{"name": s.name, "score": s.score} for s in scores] == case["expectedList"]


@pytest.mark.parametrize("case", [c for c in SCORE_CASES if "expectedList" in c.values[0]])
def test_score_through_the_harness(case: dict) -> None:
    env = _env(case, objects=SCORE_OBJECTS)
    plugin = InterPodAffinity(copy.deepcopy(case.get("args") or _DEFAULT_ARGS), env.handle)
    _, normalized = run_scores(plugin, pod_info(case["pod"]), env)
    assert [{"name": n, "score": s} for n, s in normalized.items()] == case["expectedList"]


def test_score_without_pre_score_state() -> None:
    env = build([{"metadata": {"name": "node"}}])
    plugin = InterPodAffinity(None, env.handle)
    score, status = plugin.score(CycleState(), pod_info({}), env.node_infos[0])
    assert score == 0 and status is not None and status.code == Code.Error
    assert status.reasons == ['failed to read "PreScoreInterPodAffinity" from cycleState: not found']
    status = plugin.normalize_score(CycleState(), pod_info({}), [NodeScore("node", 1)])
    assert status is not None and status.code == Code.Error


def test_normalize_score_min_max() -> None:
    """Min-max scaling with upstream's float64 truncation, negative scores included."""
    from kschedctl.plugins.inter_pod_affinity.scoring import PreScoreState, normalize

    scores = [NodeScore("a", -5), NodeScore("b", 0), NodeScore("c", 1), NodeScore("d", 10)]
    normalize(PreScoreState({"zone": {"z": 1}}), scores)
    # 100 * (0 - -5) / 15 = 33.33.. -> 33; 100 * 6 / 15 = 40.000000000000006 -> 40
    assert [s.score for s in scores] == [0, 33, 40, 100]
    same = [NodeScore("a", 7), NodeScore("b", 7)]
    normalize(PreScoreState({"zone": {"z": 7}}), same)
    assert [s.score for s in same] == [0, 0]
    untouched = [NodeScore("a", 7)]
    normalize(PreScoreState({}), untouched)
    assert untouched[0].score == 7


# --- args ------------------------------------------------------------------------------------------


def test_args_defaults() -> None:
    plugin = InterPodAffinity(None, None)
    assert plugin.plugin_args.hard_pod_affinity_weight == 1
    assert plugin.plugin_args.ignore_preferred_terms_of_existing_pods is False


@pytest.mark.parametrize("weight", [-1, 101])
def test_args_out_of_range_weight_is_rejected(weight: int) -> None:
    with pytest.raises(InputError, match=r"hardPodAffinityWeight: Invalid value: .*: not in valid range \[0, 100\]"):
        InterPodAffinity({"hardPodAffinityWeight": weight}, None)


def test_extension_points_match_upstream() -> None:
    assert extension_points_of(InterPodAffinity) == list(in_tree_extension_points()["InterPodAffinity"])
    assert callable(InterPodAffinity.add_pod) and callable(InterPodAffinity.remove_pod)


# --- kschedctl additions ---------------------------------------------------------------------------

_ZONES = [
    {"metadata": {"name": "a", "labels": {"zone": "z1", "kubernetes.io/hostname": "a"}}},
    {"metadata": {"name": "b", "labels": {"zone": "z1", "kubernetes.io/hostname": "b"}}},
    {"metadata": {"name": "c", "labels": {"zone": "z2", "kubernetes.io/hostname": "c"}}},
]


def _anti(key: str, value: str, topology: str) -> dict:
    return {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {key: value}}, "topologyKey": topology}
            ]
        }
    }


def test_details_name_the_pods_behind_a_rejection() -> None:
    pods = [
        {"metadata": {"name": "web-1", "labels": {"app": "web"}}, "spec": {"nodeName": "a"}},
        {"metadata": {"name": "guard", "labels": {"app": "db"}},
         "spec": {"nodeName": "c", "affinity": _anti("app", "web", "zone")}},
    ]
    env = build(_ZONES, pods)
    incoming = pod_info({"metadata": {"name": "web-2", "labels": {"app": "web"}},
                         "spec": {"affinity": _anti("app", "web", "zone")}})
    got = run_filters(InterPodAffinity(None, env.handle), incoming, env)
    assert got["a"].details == {"term": 0, "topologyKey": "zone", "topologyValue": "z1",
                                "matchingPods": 1, "pods": ["default/web-1"]}
    assert got["b"].details == got["a"].details
    assert got["c"].code == Code.Unschedulable
    assert got["c"].reasons == [filtering.ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH]
    assert got["c"].details == {"topologyKey": "zone", "topologyValue": "z2",
                                "matchingPods": 1, "pods": ["default/guard"]}


def test_details_of_an_affinity_rejection() -> None:
    env = build(_ZONES, [{"metadata": {"name": "db", "labels": {"app": "db"}}, "spec": {"nodeName": "c"}}])
    incoming = pod_info({"metadata": {"name": "web"}, "spec": {"affinity": {"podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"},
            {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "rack"},
        ]}}}})
    got = run_filters(InterPodAffinity(None, env.handle), incoming, env)
    assert got["a"].details == {"term": 1, "topologyKey": "rack", "missingTopologyKey": True}


def test_nominated_pod_added_with_add_pod_blocks_its_domain() -> None:
    """AddPod as the framework uses it for a nominated pod: its anti-affinity counts at once."""
    env = build(_ZONES)
    plugin = InterPodAffinity(None, env.handle)
    incoming = pod_info({"metadata": {"name": "web", "labels": {"app": "web"}}})
    state = CycleState()
    _, status = plugin.pre_filter(state, incoming, env.node_infos)
    assert status is not None and status.is_skip()  # nothing to check without the nominated pod
    # A PreFilter state exists whenever the incoming pod has terms; simulate the nominated pod
    # against a pod with a (harmless) anti-affinity term of its own.
    incoming = pod_info({"metadata": {"name": "web", "labels": {"app": "web"}},
                         "spec": {"affinity": _anti("app", "nothing", "zone")}})
    state = CycleState()
    plugin.pre_filter(state, incoming, env.node_infos)
    nominated = pod_info({"metadata": {"name": "guard"}, "spec": {"nodeName": "c",
                                                                  "affinity": _anti("app", "web", "zone")}})
    c = env.snapshot.get("c").clone()
    c.add_pod(nominated)
    assert plugin.add_pod(state, incoming, nominated, c) is None
    assert plugin.filter(state, incoming, env.snapshot.get("a")) is None
    assert plugin.filter(state, incoming, c).code == Code.Unschedulable
    assert plugin.remove_pod(state, incoming, nominated, c) is None
    assert plugin.filter(state, incoming, c) is None


def test_namespace_selector_resolution_does_not_change_the_shared_pod_info() -> None:
    objects = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "t1", "labels": {"team": "1"}}}]
    env = build(_ZONES, [], objects)
    incoming = pod_info({"metadata": {"name": "web"}, "spec": {"affinity": {"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone",
             "namespaceSelector": {"matchLabels": {"team": "1"}}}]}}}})
    term = incoming.required_anti_affinity_terms[0]
    before = (set(term.namespaces), term.namespace_selector)
    state = CycleState()
    InterPodAffinity(None, env.handle).pre_filter(state, incoming, env.node_infos)
    assert (term.namespaces, term.namespace_selector) == before
    merged = state.read(PRE_FILTER_STATE_KEY).anti_terms[0]
    assert merged.namespaces == {"t1"} and merged.namespace_selector.nothing


def test_match_label_keys_merged_at_admission_take_effect() -> None:
    """A pod read from a file goes through the API server's matchLabelKeys merge first."""
    pods = [
        {"metadata": {"name": "v1-a", "labels": {"app": "web", "pod-template-hash": "v1"}}, "spec": {"nodeName": "a"}},
    ]
    env = build(_ZONES, pods)
    raw = {"metadata": {"name": "v2-a", "labels": {"app": "web", "pod-template-hash": "v2"}},
           "spec": {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
               {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname",
                "matchLabelKeys": ["pod-template-hash"]}]}}}}
    plugin = InterPodAffinity(None, env.handle)
    # Without the merge the old revision's pod blocks node a; with it only pods of v2 count.
    assert run_filters(plugin, pod_info(raw), env)["a"].code == Code.Unschedulable
    assert run_filters(plugin, pod_info(merge_match_label_keys(raw)), env)["a"] is None


def _affinity_cycle_calls(nodes_count: int) -> int:
    """Calls made by PreFilter and Filter on every node, with ten pods per node, one in ten with
    required anti-affinity."""
    nodes = [{"metadata": {"name": f"n{i}", "labels": {"zone": f"z{i % 10}", "kubernetes.io/hostname": f"n{i}"}}}
             for i in range(nodes_count)]
    pods = []
    for i in range(nodes_count * 10):
        pod: dict = {"metadata": {"name": f"p{i}", "labels": {"app": f"app{i % 500}"}},
                     "spec": {"nodeName": f"n{i % nodes_count}"}}
        if i % 10 == 0:
            pod["spec"]["affinity"] = _anti("app", f"app{i % 500}", "kubernetes.io/hostname")
        pods.append(pod)
    env = build(nodes, pods)
    plugin = InterPodAffinity(None, env.handle)
    incoming = pod_info({"metadata": {"name": "new", "labels": {"app": "app0"}},
                         "spec": {"affinity": {
                             **_anti("app", "app0", "kubernetes.io/hostname"),
                             "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                                 {"labelSelector": {"matchLabels": {"app": "app1"}}, "topologyKey": "zone"}]}}}})

    def cycle() -> Any:
        state = CycleState()
        _, status = plugin.pre_filter(state, incoming, env.node_infos)
        for node_info in env.node_infos:
            plugin.filter(state, incoming, node_info)
        return status

    status, calls = calls_made(cycle)
    assert status is None
    return calls


def test_pre_filter_scales_to_a_large_cluster() -> None:
    """PreFilter and Filter grow with the cluster, not with its square (four times the nodes and
    pods: at most five times the calls, where a pod-by-node walk would make sixteen times as many).
    Counted, not timed: 5,000 nodes and 50,000 pods took about 0.2 s."""
    small, large = _affinity_cycle_calls(500), _affinity_cycle_calls(2000)
    assert large <= 5 * small, (small, large)
