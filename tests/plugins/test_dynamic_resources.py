"""DynamicResources: the claim-less path as upstream, and claims refused loudly."""

from __future__ import annotations

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interfaces import extension_points_of
from kschedctl.plugins.dynamic_resources import DynamicResources
from kschedctl.plugins.names import IN_TREE_EXTENSION_POINTS
from tests.plugins.harness import expected_status, load_cases, pod_info, status_dict


@pytest.mark.parametrize("case", load_cases("dynamic_resources"))
def test_extension_points(case: dict) -> None:
    plugin = DynamicResources(None, None)
    pod = pod_info(case["pod"])
    state = CycleState()
    assert status_dict(plugin.pre_enqueue(pod)) == expected_status(case["wantPreEnqueue"])
    _, status = plugin.pre_filter(state, pod, [])
    assert status_dict(status) == expected_status(case["wantPreFilter"])
    result, status = plugin.post_filter(state, pod, None)
    assert result is None
    assert status_dict(status) == expected_status(case["wantPostFilter"])


def test_extension_points_match_upstream() -> None:
    assert extension_points_of(DynamicResources) == list(IN_TREE_EXTENSION_POINTS["DynamicResources"])
