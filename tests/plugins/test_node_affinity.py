"""NodeAffinity: upstream's TestNodeAffinity and TestNodeAffinityPriority cases.

Filter cases call PreFilter (unless ``runPreFilter: false``) and then Filter on the one node
whatever PreFilter returned, as upstream's test does; score cases call PreScore when
``runPreScore`` is set, then Score on every node and NormalizeScore.
"""

from __future__ import annotations

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interfaces import NodeScore, extension_points_of
from kschedctl.framework.status import Code
from kschedctl.k8s.selectors import SelectorError
from kschedctl.plugins.registry import in_tree_extension_points
from kschedctl.plugins.node_affinity import NodeAffinity
from tests.plugins.harness import build, expected_status, load_cases, pod_info, run_filters, status_dict

CASES = load_cases("node_affinity")


def _of_kind(kind: str) -> list:
    return [p for p in CASES if p.values[0]["kind"] == kind]


@pytest.mark.parametrize("case", _of_kind("filter"))
def test_filter(case: dict) -> None:
    env = build([case["node"]])
    plugin = NodeAffinity(case.get("args"), env.handle)
    pod = pod_info(case["pod"])
    state = CycleState()
    if case.get("runPreFilter", True):
        result, status = plugin.pre_filter(state, pod, env.node_infos)
        assert status_dict(status) == expected_status(case.get("wantPreFilterStatus"))
        want_result = case.get("wantPreFilterResult")
        if want_result is None:
            assert result is None
        else:
            assert result is not None and result.node_names == set(want_result)
    status = plugin.filter(state, pod, env.node_infos[0])
    assert status_dict(status) == expected_status(case.get("wantStatus"))


@pytest.mark.parametrize("case", _of_kind("filter"))
def test_filter_through_the_harness(case: dict) -> None:
    """The framework's view of the same case: Skip passes the node, a PreFilterResult that
    leaves the node out or a rejecting PreFilter status decides without Filter."""
    if not case.get("runPreFilter", True):
        pytest.skip("PreFilter disabled case")
    env = build([case["node"]])
    (status,) = run_filters(NodeAffinity(case.get("args"), env.handle), pod_info(case["pod"]), env).values()
    pre = expected_status(case.get("wantPreFilterStatus"))
    node_name = case["node"]["metadata"]["name"]
    if pre["code"] == "Skip":
        want = expected_status(None)
    elif pre["code"] != "Success":
        want = pre
    elif case.get("wantPreFilterResult") is not None and node_name not in case["wantPreFilterResult"]:
        want = {"code": "UnschedulableAndUnresolvable", "reasons": ["node(s) didn't satisfy plugin(s) [NodeAffinity]"]}
    else:
        want = expected_status(case.get("wantStatus"))
    assert status_dict(status) == want


@pytest.mark.parametrize("case", _of_kind("score"))
def test_score(case: dict) -> None:
    env = build(case["nodes"])
    plugin = NodeAffinity(case.get("args"), env.handle)
    pod = pod_info(case["pod"])
    state = CycleState()
    if case.get("runPreScore"):
        status = plugin.pre_score(state, pod, env.node_infos)
        assert status_dict(status) == expected_status(case.get("wantPreScoreStatus"))
        if status is not None and not status.is_success():
            return
    scores = []
    for node in case["nodes"]:
        score, status = plugin.score(state, pod, env.snapshot.get(node["metadata"]["name"]))
        assert status is None
        scores.append(NodeScore(node["metadata"]["name"], score))
    if "expectedRaw" in case:
        assert [{"name": s.name, "score": s.score} for s in scores] == case["expectedRaw"]
    assert plugin.normalize_score(state, pod, scores) is None
    assert [{"name": s.name, "score": s.score} for s in scores] == case["expectedList"]


def test_invalid_added_affinity_is_rejected_when_the_plugin_is_built() -> None:
    args = {
        "addedAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Bogus"}]}]
            }
        }
    }
    with pytest.raises(SelectorError, match=r"^parsing addedAffinity\.requiredDuringSchedulingIgnoredDuringExecution: "):
        NodeAffinity(args, None)


def test_score_fallback_reports_a_broken_preferred_term() -> None:
    env = build([{"metadata": {"name": "n"}}])
    pod = pod_info(
        {
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "preferredDuringSchedulingIgnoredDuringExecution": [
                            {"weight": 1, "preference": {"matchExpressions": [{"key": "a b", "operator": "Exists"}]}}
                        ]
                    }
                }
            }
        }
    )
    score, status = NodeAffinity(None, env.handle).score(CycleState(), pod, env.node_infos[0])
    assert score == 0 and status is not None and status.code == Code.Error


def test_extension_points_match_upstream() -> None:
    assert extension_points_of(NodeAffinity) == list(in_tree_extension_points()["NodeAffinity"])
