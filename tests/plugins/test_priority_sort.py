"""PrioritySort: upstream's TestLess cases."""

from __future__ import annotations

import pytest

from kschedctl.framework.interfaces import QueuedPodInfo, extension_points_of
from kschedctl.plugins.registry import in_tree_extension_points
from kschedctl.plugins.priority_sort import PrioritySort
from tests.plugins.harness import load_cases, pod_info


def _queued(spec: dict) -> QueuedPodInfo:
    pod = {"metadata": {"name": "p"}, "spec": {"priority": spec["priority"]}}
    return QueuedPodInfo(pod_info(pod), timestamp=float(spec.get("timestamp", 0)))


@pytest.mark.parametrize("case", load_cases("priority_sort"))
def test_less(case: dict) -> None:
    assert PrioritySort(None, None).less(_queued(case["p1"]), _queued(case["p2"])) is case["expected"]


def test_extension_points_match_upstream() -> None:
    assert extension_points_of(PrioritySort) == list(in_tree_extension_points()["PrioritySort"])
