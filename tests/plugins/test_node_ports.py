"""NodePorts: upstream's TestNodePorts and TestPreFilterDisabled cases.

Each case calls PreFilter and Filter directly, as upstream's test does, so the PreFilter status
(Skip when the pod wants no host port) and the Filter status are checked separately.
"""

from __future__ import annotations

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interfaces import extension_points_of
from kschedctl.framework.status import Code
from kschedctl.plugins.registry import in_tree_extension_points
from kschedctl.plugins.node_ports import NodePorts, fits
from tests.plugins.harness import build, expected_status, load_cases, pod_info, run_filters, status_dict


@pytest.mark.parametrize("case", load_cases("node_ports"))
def test_pre_filter_and_filter(case: dict) -> None:
    env = build([case["node"]], case.get("existingPods") or [])
    plugin = NodePorts(None, env.handle)
    pod = pod_info(case["pod"])
    (node_info,) = env.node_infos
    state = CycleState()
    if case.get("runPreFilter", True):
        result, status = plugin.pre_filter(state, pod, env.node_infos)
        assert result is None
        assert status_dict(status) == expected_status(case.get("wantPreFilterStatus"))
        if status is not None and status.code == Code.Skip:
            return
    status = plugin.filter(state, pod, node_info)
    assert status_dict(status) == expected_status(case.get("wantFilterStatus"))
    if "wantDetails" in case:
        assert status is not None and status.details == case["wantDetails"]
    if case.get("runPreFilter", True):
        # Upstream's exported Fits agrees with Filter.
        assert fits(pod, node_info) == (status is None)


@pytest.mark.parametrize("case", load_cases("node_ports"))
def test_through_the_harness(case: dict) -> None:
    """The framework's view: a Skip means Filter never runs (the node passes)."""
    if not case.get("runPreFilter", True):
        pytest.skip("PreFilter disabled case")
    env = build([case["node"]], case.get("existingPods") or [])
    got = run_filters(NodePorts(None, env.handle), pod_info(case["pod"]), env)
    (status,) = got.values()
    assert status_dict(status) == expected_status(case.get("wantFilterStatus"))


def test_extension_points_match_upstream() -> None:
    assert extension_points_of(NodePorts) == list(in_tree_extension_points()["NodePorts"])
