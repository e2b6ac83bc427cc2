"""VolumeZone: upstream's TestSingleZone, TestMultiZone and TestWithBinding cases.

As upstream's test does, PreFilter runs and then Filter on the node whatever PreFilter returned
(Filter computes the PVs itself when PreFilter wrote no state).
"""

from __future__ import annotations

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interfaces import extension_points_of
from kschedctl.plugins.registry import in_tree_extension_points
from kschedctl.plugins.volume_zone import VolumeZone
from tests.plugins.harness import build, expected_status, load_cases, pod_info, run_filters, status_dict

CASES = load_cases("volume_zone")


@pytest.mark.parametrize("case", CASES)
def test_volume_zone(case: dict) -> None:
    env = build([case["node"]], (), case.get("objects") or ())
    plugin = VolumeZone(None, env.handle)
    pod = pod_info(case["pod"])
    state = CycleState()
    result, status = plugin.pre_filter(state, pod, env.node_infos)
    assert result is None
    assert status_dict(status) == expected_status(case.get("wantPreFilterStatus"))
    got = plugin.filter(state, pod, env.node_infos[0])
    assert status_dict(got) == expected_status(case.get("wantFilterStatus"))


def test_mismatch_details_name_the_volume_and_label() -> None:
    objects = [
        {"kind": "PersistentVolume", "metadata": {"name": "pv", "labels": {"topology.kubernetes.io/zone": "a"}}},
        {"kind": "PersistentVolumeClaim", "metadata": {"name": "c"}, "spec": {"volumeName": "pv"}},
    ]
    env = build([{"metadata": {"name": "n", "labels": {"topology.kubernetes.io/zone": "b"}}}], (), objects)
    pod = pod_info({"spec": {"volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "c"}}]}})
    (status,) = run_filters(VolumeZone(None, env.handle), pod, env).values()
    assert status.details == {"volume": "pv", "label": "topology.kubernetes.io/zone", "volumeValues": ["a"],
                              "nodeValue": "b"}


def test_extension_points_match_upstream() -> None:
    assert extension_points_of(VolumeZone) == list(in_tree_extension_points()["VolumeZone"])
