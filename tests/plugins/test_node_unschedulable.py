"""NodeUnschedulable: upstream's TestNodeUnschedulable cases, run through the harness."""

from __future__ import annotations

import pytest

from kschedctl.plugins.registry import in_tree_extension_points
from kschedctl.framework.interfaces import extension_points_of
from kschedctl.plugins.node_unschedulable import NodeUnschedulable, pod_tolerates_unschedulable
from tests.plugins.harness import build, expected_status, load_cases, pod_info, run_filters, status_dict


@pytest.mark.parametrize("case", load_cases("node_unschedulable"))
def test_filter(case: dict) -> None:
    env = build([case["node"]])
    plugin = NodeUnschedulable(None, env.handle)
    got = run_filters(plugin, pod_info(case["pod"]), env)
    (status,) = got.values()
    assert status_dict(status) == expected_status(case.get("wantStatus"))


def test_extension_points_match_upstream() -> None:
    assert extension_points_of(NodeUnschedulable) == list(in_tree_extension_points()["NodeUnschedulable"])


def test_tolerates_unschedulable_helper() -> None:
    assert not pod_tolerates_unschedulable([])
    assert pod_tolerates_unschedulable([{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}])
