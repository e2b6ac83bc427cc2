"""DefaultBinder: upstream's TestDefaultBinder (the Binding it would create)."""

from __future__ import annotations

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interfaces import extension_points_of
from kschedctl.plugins.default_binder import DefaultBinder
from kschedctl.plugins.registry import in_tree_extension_points
from tests.plugins.harness import load_cases, pod_info


@pytest.mark.parametrize("case", load_cases("default_binder"))
def test_bind(case: dict) -> None:
    status = DefaultBinder(None, None).bind(CycleState(), pod_info(case["pod"]), case["node"])
    assert status is not None and status.is_success()
    assert status.details == {"binding": case["wantBinding"]}


def test_extension_points_match_upstream() -> None:
    assert extension_points_of(DefaultBinder) == list(in_tree_extension_points()["DefaultBinder"])
