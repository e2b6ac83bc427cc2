"""SchedulingGates: upstream's TestPreEnqueue cases."""

from __future__ import annotations

import pytest

from kschedctl.framework.interfaces import extension_points_of
from kschedctl.plugins.registry import in_tree_extension_points
from kschedctl.plugins.scheduling_gates import SchedulingGates
from tests.plugins.harness import expected_status, load_cases, pod_info, status_dict


@pytest.mark.parametrize("case", load_cases("scheduling_gates"))
def test_pre_enqueue(case: dict) -> None:
    got = SchedulingGates(None, None).pre_enqueue(pod_info(case["pod"]))
    assert status_dict(got) == expected_status(case.get("wantStatus"))


def test_extension_points_match_upstream() -> None:
    assert extension_points_of(SchedulingGates) == list(in_tree_extension_points()["SchedulingGates"])
