"""QOSSort: upstream's TestSortLess table."""

from __future__ import annotations

import pytest

from kschedctl.framework.interfaces import QueuedPodInfo, extension_points_of
from kschedctl.plugins.out_of_tree import OUT_OF_TREE_EXTENSION_POINTS
from kschedctl.plugins.sigs.qos_sort import QOSSort
from tests.plugins.harness import pod_info
from tests.plugins.sigs._cases import load


def _queued(name: str, spec: dict) -> QueuedPodInfo:
    resources: dict = {}
    if "requests" in spec:
        resources["requests"] = dict(zip(("cpu", "memory"), spec["requests"]))
    if "limits" in spec:
        resources["limits"] = dict(zip(("cpu", "memory"), spec["limits"]))
    pod = {"metadata": {"name": name},
           "spec": {"priority": spec["priority"], "containers": [{"name": name, "resources": resources}]}}
    return QueuedPodInfo(pod_info(pod), timestamp=float(spec.get("timestamp", 0)))


@pytest.mark.parametrize("case", load(__file__, "qos_sort", "QOSSort"))
def test_less(case: dict) -> None:
    assert QOSSort(None, None).less(_queued("p1", case["p1"]), _queued("p2", case["p2"])) is case["want"]


def test_extension_points() -> None:
    assert tuple(extension_points_of(QOSSort)) == OUT_OF_TREE_EXTENSION_POINTS["QOSSort"]
