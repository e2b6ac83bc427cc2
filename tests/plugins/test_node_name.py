"""NodeName: upstream's TestNodeName cases, run through the harness."""

from __future__ import annotations

import pytest

from kschedctl.framework.interfaces import extension_points_of
from kschedctl.plugins.registry import in_tree_extension_points
from kschedctl.plugins.node_name import NodeName
from tests.plugins.harness import build, expected_status, load_cases, pod_info, run_filters, status_dict


@pytest.mark.parametrize("case", load_cases("node_name"))
def test_filter(case: dict) -> None:
    env = build([case["node"]])
    plugin = NodeName(None, env.handle)
    got = run_filters(plugin, pod_info(case["pod"]), env)
    (status,) = got.values()
    assert status_dict(status) == expected_status(case.get("wantStatus"))
    if "wantDetails" in case:
        assert status is not None and status.details == case["wantDetails"]


def test_extension_points_match_upstream() -> None:
    assert extension_points_of(NodeName) == list(in_tree_extension_points()["NodeName"])
