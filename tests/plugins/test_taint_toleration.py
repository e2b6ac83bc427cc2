"""TaintToleration: upstream's TestTaintTolerationFilter and TestTaintTolerationScore cases."""

from __future__ import annotations

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interfaces import extension_points_of
from kschedctl.framework.status import Code
from kschedctl.plugins.registry import in_tree_extension_points
from kschedctl.plugins.taint_toleration import TaintToleration
from tests.plugins.harness import (
    build,
    expected_status,
    load_cases,
    pod_info,
    run_filters,
    run_scores,
    status_dict,
)

CASES = load_cases("taint_toleration")


def _of_kind(kind: str) -> list:
    return [p for p in CASES if p.values[0]["kind"] == kind]


@pytest.mark.parametrize("case", _of_kind("filter"))
def test_filter(case: dict) -> None:
    env = build([case["node"]])
    got = run_filters(TaintToleration(None, env.handle), pod_info(case["pod"]), env)
    (status,) = got.values()
    assert status_dict(status) == expected_status(case.get("wantStatus"))
    if "wantDetails" in case:
        assert status is not None and status.details == case["wantDetails"]


@pytest.mark.parametrize("case", _of_kind("score"))
def test_score(case: dict) -> None:
    env = build(case["nodes"])
    raw, normalized = run_scores(TaintToleration(None, env.handle), pod_info(case["pod"]), env)
    # Upstream compares lists in node order.
    order = [n["metadata"]["name"] for n in case["nodes"]]
    assert [{"name": n, "score": normalized[n]} for n in order] == case["expectedList"]
    if "expectedRaw" in case:
        assert [{"name": n, "score": raw[n]} for n in order] == case["expectedRaw"]


def test_score_without_pre_score_is_an_error() -> None:
    env = build([{"metadata": {"name": "n"}}])
    score, status = TaintToleration(None, env.handle).score(CycleState(), pod_info({}), env.node_infos[0])
    assert score == 0 and status is not None and status.code == Code.Error
    assert status.reasons == ['failed to read "PreScoreTaintToleration" from cycleState: not found']


def test_extension_points_match_upstream() -> None:
    assert extension_points_of(TaintToleration) == list(in_tree_extension_points()["TaintToleration"])
