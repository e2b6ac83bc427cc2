"""The scoring strategies of NodeResourcesFit and the shared resource-allocation scorer.

Cases: tests/plugins/cases/resource_allocation.yaml (upstream least_allocated_test.go,
most_allocated_test.go, requested_to_capacity_ratio_test.go, resource_allocation_test.go).
Also holds the small pod / node builders the NodeResources* test modules share.
"""

from __future__ import annotations

from typing import Any

import pytest

from kschedctl.errors import InputError
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.status import Code
from kschedctl.plugins.helper import build_broken_linear_function
from kschedctl.plugins.node_resources_fit import NodeResourcesFit
from kschedctl.plugins.resource_allocation import ResourceAllocationScorer, least_allocated_scorer
from tests.plugins.harness import build, check_score_twin, load_cases, pod_info, run_scores

CASES = load_cases("resource_allocation")


# --- builders (like upstream's st.MakePod() / st.MakeNode()) ------------------------------------


def make_container(entry: dict | None, name: str) -> dict:
    """A container from its requests map, or from ``{requests, restartPolicy}``."""
    entry = entry or {}
    container: dict[str, Any] = {"name": name, "image": "pause"}
    if "requests" in entry or "restartPolicy" in entry:
        requests = entry.get("requests") or {}
        if entry.get("restartPolicy"):
            container["restartPolicy"] = entry["restartPolicy"]
    else:
        requests = entry
    if requests:
        container["resources"] = {"requests": {k: str(v) for k, v in requests.items()}}
    return container


def make_pod(spec: dict | None, name: str, node: str | None = None) -> dict:
    """A Pod from a case's short form: containers, init, overhead, resources (pod-level), node."""
    spec = spec or {}
    pod_spec: dict[str, Any] = {
        "containers": [make_container(c, f"c{i}") for i, c in enumerate(spec.get("containers") or [])]
    }
    if spec.get("init"):
        pod_spec["initContainers"] = [make_container(c, f"init{i}") for i, c in enumerate(spec["init"])]
    if spec.get("overhead"):
        pod_spec["overhead"] = {k: str(v) for k, v in spec["overhead"].items()}
    if spec.get("resources"):
        pod_spec["resources"] = {"requests": {k: str(v) for k, v in spec["resources"].items()}}
    node_name = spec.get("node", node)
    if node_name:
        pod_spec["nodeName"] = node_name
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": spec.get("name", name), "namespace": "default"},
        "spec": pod_spec,
    }


def make_node(spec: dict) -> dict:
    """A Node whose capacity and allocatable are the case's ``allocatable`` map."""
    resources = {k: str(v) for k, v in (spec.get("allocatable") or {}).items()}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": spec["name"]},
        "status": {"capacity": dict(resources), "allocatable": resources},
    }


def existing_pods(case: dict, default_node: str | None = None) -> list[dict]:
    return [make_pod(p, f"existing-{i}", default_node) for i, p in enumerate(case.get("existing") or [])]


def score_nodes(plugin: Any, case: dict) -> tuple[dict[str, int], list]:
    """Raw scores per node, with PreScore run unless the case says ``pre_score: false``.

    Returns the scores and the non-success statuses Score returned.
    """
    env = build([make_node(n) for n in case["nodes"]], existing_pods(case))
    pod = pod_info(make_pod(case.get("pod"), "pod"))
    state = CycleState()
    if case.get("pre_score", True):
        status = plugin.pre_score(state, pod, env.node_infos)
        assert status is None, status
    scores: dict[str, int] = {}
    failures = []
    for ni in env.node_infos:
        score, status = plugin.score(state, pod, ni)
        scores[ni.name] = score
        if status is not None:
            failures.append(status)
    if not failures:
        check_score_twin(plugin, pod, env, state, scores)
    return scores, failures


# --- tests -------------------------------------------------------------------------------------


def _fit_args(case: dict) -> dict:
    strategy: dict[str, Any] = {"type": case["strategy"], "resources": case["resources"]}
    if "shape" in case:
        strategy["requestedToCapacityRatio"] = {"shape": case["shape"]}
    return {"scoringStrategy": strategy}


@pytest.mark.parametrize("case", CASES)
def test_resource_allocation(case: dict) -> None:
    if "points" in case:
        function = build_broken_linear_function([tuple(p) for p in case["points"]])
        assert [[p, function(p)] for p, _ in case["assertions"]] == case["assertions"]
        return
    if "requests" in case:
        # Upstream's scorer with useRequested=false: non-zero cpu / memory requests.
        scorer = ResourceAllocationScorer("test", [("cpu", 1), ("memory", 1)], least_allocated_scorer, False)
        cpu, memory = scorer.pod_requests(pod_info(make_pod(case["pod"], "pod")))
        assert {"cpu": cpu, "memory": memory} == case["requests"]
        return
    if "error" in case:
        with pytest.raises(InputError) as err:
            NodeResourcesFit(_fit_args(case), None)
        assert f"{case['error']}:" in str(err.value)
        return
    plugin = NodeResourcesFit(_fit_args(case), None)
    scores, failures = score_nodes(plugin, case)
    if "score_error" in case:
        assert [(s.code, s.reasons) for s in failures] == [(Code.Error, [case["score_error"]])] * len(case["nodes"])
    else:
        assert failures == []
    assert scores == case["scores"]


def test_scores_match_harness_run() -> None:
    """The harness's PreScore + Score run gives the same raw scores (no NormalizeScore)."""
    case = next(p.values[0] for p in CASES if p.values[0]["name"] == "least resources requested, pods scheduled with resources")
    plugin = NodeResourcesFit(_fit_args(case), None)
    env = build([make_node(n) for n in case["nodes"]], existing_pods(case))
    raw, normalized = run_scores(plugin, pod_info(make_pod(case["pod"], "pod")), env)
    assert raw == normalized == case["scores"]


def test_go_rounding_of_weighted_mean() -> None:
    """RequestedToCapacityRatio rounds the weighted mean half away from zero (37.5 -> 38)."""
    from kschedctl.k8s.gomath import go_round as _go_round

    assert [_go_round(x) for x in (37.5, 0.5, 1.49999, 2.5, 0.49999999999999994)] == [38, 1, 1, 3, 0]


def test_fit_score_reads_the_spec_during_a_resize_balanced_the_status() -> None:
    """A pod whose status reports a larger cpu request (a resize in flight): fit.go builds
    NodeResourcesFit's scorer without enableInPlacePodVerticalScaling, so its score reads the
    spec's 1 cpu; BalancedAllocation's scorer reads the status's 3 cpu (v1.34.4)."""
    pod = make_pod({"containers": [{"cpu": "1", "memory": "1Gi"}]}, "pod")
    pod["status"] = {"containerStatuses": [
        {"name": "c0", "resources": {"requests": {"cpu": "3", "memory": "1Gi"}}}]}
    info = pod_info(pod)
    fit = NodeResourcesFit(_fit_args({"strategy": "LeastAllocated", "resources": [{"name": "cpu", "weight": 1}]}), None)
    balanced = ResourceAllocationScorer("balanced", [("cpu", 1)], least_allocated_scorer, True)
    assert fit.scorer.pod_requests(info) == [1000]
    assert balanced.pod_requests(info) == [3000]
