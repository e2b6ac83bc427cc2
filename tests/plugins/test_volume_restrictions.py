"""VolumeRestrictions: upstream's disk-conflict and ReadWriteOncePod test tables."""

from __future__ import annotations

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interfaces import extension_points_of
from kschedctl.plugins.registry import in_tree_extension_points
from kschedctl.plugins.volume_restrictions import VolumeRestrictions
from tests.plugins.harness import build, expected_status, load_cases, pod_info, status_dict

CASES = load_cases("volume_restrictions")
NODE = {"metadata": {"name": "node-1"}}


@pytest.mark.parametrize("case", CASES)
def test_volume_restrictions(case: dict) -> None:
    env = build([NODE], case.get("pods") or (), case.get("objects") or ())
    plugin = VolumeRestrictions(None, env.handle)
    pod = pod_info(case["pod"])
    state = CycleState()
    result, status = plugin.pre_filter(state, pod, env.node_infos)
    assert result is None
    assert status_dict(status) == expected_status(case.get("wantPreFilterStatus"))
    if status is not None and not status.is_success():
        return
    got = plugin.filter(state, pod, env.node_infos[0])
    assert status_dict(got) == expected_status(case.get("wantStatus"))


def test_preemption_extensions_track_read_write_once_pod_users() -> None:
    """RemovePod of the pod using the ReadWriteOncePod claim clears the conflict; AddPod restores it."""
    claim = {"kind": "PersistentVolumeClaim", "metadata": {"name": "c"}, "spec": {"accessModes": ["ReadWriteOncePod"]}}
    user = {"metadata": {"name": "user"}, "spec": {"nodeName": "node-1",
                                                   "volumes": [{"name": "c", "persistentVolumeClaim": {"claimName": "c"}}]}}
    env = build([NODE], [user], [claim])
    plugin = VolumeRestrictions(None, env.handle)
    pod = pod_info({"metadata": {"name": "new"},
                    "spec": {"volumes": [{"name": "c", "persistentVolumeClaim": {"claimName": "c"}}]}})
    state = CycleState()
    assert plugin.pre_filter(state, pod, env.node_infos) == (None, None)
    node = env.node_infos[0]
    assert plugin.filter(state, pod, node).code.name == "Unschedulable"
    user_info = node.pods[0]
    assert plugin.remove_pod(state, pod, user_info, node) is None
    assert plugin.filter(state, pod, node) is None
    assert plugin.add_pod(state, pod, user_info, node) is None
    assert plugin.filter(state, pod, node).code.name == "Unschedulable"


def test_extension_points_match_upstream() -> None:
    assert extension_points_of(VolumeRestrictions) == list(in_tree_extension_points()["VolumeRestrictions"])
