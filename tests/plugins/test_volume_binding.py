"""VolumeBinding: upstream's TestVolumeBinding cases (PreFilter and Filter) plus our own.

Each case runs PreFilter; when it succeeds, Filter runs on every node, as upstream's test does.
The storage classes of upstream's test (immediate-sc, wait-sc, wait-hdd-sc) are in every case.
"""

from __future__ import annotations

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interfaces import extension_points_of
from kschedctl.framework.status import Code
from kschedctl.plugins.registry import in_tree_extension_points
from kschedctl.plugins.volume_binding import VolumeBinding
from tests.plugins.harness import build, expected_status, load_cases, pod_info, status_dict

CASES = load_cases("volume_binding")

STORAGE_CLASSES = [
    {"kind": "StorageClass", "apiVersion": "storage.k8s.io/v1", "metadata": {"name": "immediate-sc"},
     "volumeBindingMode": "Immediate"},
    {"kind": "StorageClass", "apiVersion": "storage.k8s.io/v1", "metadata": {"name": "wait-sc"},
     "volumeBindingMode": "WaitForFirstConsumer"},
    {"kind": "StorageClass", "apiVersion": "storage.k8s.io/v1", "metadata": {"name": "wait-hdd-sc"},
     "volumeBindingMode": "WaitForFirstConsumer"},
]


def _env(case: dict):
    return build(case["nodes"], case.get("pods", ()), STORAGE_CLASSES + list(case.get("objects") or ()))


@pytest.mark.parametrize("case", CASES)
def test_volume_binding(case: dict) -> None:
    env = _env(case)
    plugin = VolumeBinding(None, env.handle)
    pod = pod_info(case["pod"])
    state = CycleState()
    result, status = plugin.pre_filter(state, pod, env.node_infos)
    assert result is None
    assert status_dict(status) == expected_status(case.get("wantPreFilterStatus"))
    if status is not None and not status.is_success():
        return
    want = case.get("wantFilter") or {}
    for ni in env.node_infos:
        got = plugin.filter(state, pod, ni)
        assert status_dict(got) == expected_status(want.get(ni.name)), ni.name
    assert plugin.pre_score(state, pod, env.node_infos).code == Code.Skip


def _pvc_pod() -> dict:
    return {"metadata": {"name": "pod-a"},
            "spec": {"volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "pvc-a"}}]}}


def test_reserve_and_prebind_report_the_binding_without_writing() -> None:
    pvc = {"kind": "PersistentVolumeClaim", "metadata": {"name": "pvc-a"},
           "spec": {"storageClassName": "wait-sc", "resources": {"requests": {"storage": "1Gi"}}}}
    pv = {"kind": "PersistentVolume", "metadata": {"name": "pv-1"},
          "spec": {"storageClassName": "wait-sc", "capacity": {"storage": "2Gi"}}, "status": {"phase": "Available"}}
    env = build([{"metadata": {"name": "node-a"}}], (), STORAGE_CLASSES + [pvc, pv])
    plugin = VolumeBinding(None, env.handle)
    pod = pod_info(_pvc_pod())
    state = CycleState()
    assert plugin.pre_filter(state, pod, env.node_infos) == (None, None)
    assert plugin.filter(state, pod, env.node_infos[0]) is None
    reserved = plugin.reserve(state, pod, "node-a")
    assert reserved.is_success()
    assert reserved.details["assumed"] == {"bind": [{"claim": "default/pvc-a", "volume": "pv-1"}], "provision": []}
    bound = plugin.pre_bind(state, pod, "node-a")
    assert bound.is_success() and bound.details["wouldBind"]["bind"][0]["volume"] == "pv-1"
    # nothing was written back to the cluster objects
    cluster = env.handle.cluster()
    assert "claimRef" not in cluster.pvs["pv-1"]["spec"]
    assert not cluster.pvcs["default/pvc-a"]["spec"].get("volumeName")


def test_smallest_fitting_pv_is_chosen_and_provisioning_is_reported() -> None:
    objects = STORAGE_CLASSES + [
        {"kind": "StorageClass", "apiVersion": "storage.k8s.io/v1", "metadata": {"name": "csi"},
         "provisioner": "csi.example.com", "volumeBindingMode": "WaitForFirstConsumer"},
        {"kind": "PersistentVolumeClaim", "metadata": {"name": "pvc-a"},
         "spec": {"storageClassName": "wait-sc", "resources": {"requests": {"storage": "1Gi"}}}},
        {"kind": "PersistentVolumeClaim", "metadata": {"name": "pvc-b"},
         "spec": {"storageClassName": "csi", "resources": {"requests": {"storage": "1Gi"}}}},
        {"kind": "PersistentVolume", "metadata": {"name": "pv-big"},
         "spec": {"storageClassName": "wait-sc", "capacity": {"storage": "10Gi"}}, "status": {"phase": "Available"}},
        {"kind": "PersistentVolume", "metadata": {"name": "pv-small"},
         "spec": {"storageClassName": "wait-sc", "capacity": {"storage": "2Gi"}}, "status": {"phase": "Available"}},
    ]
    env = build([{"metadata": {"name": "node-a"}}], (), objects)
    plugin = VolumeBinding(None, env.handle)
    pod = pod_info({"metadata": {"name": "pod-a"}, "spec": {"volumes": [
        {"name": "a", "persistentVolumeClaim": {"claimName": "pvc-a"}},
        {"name": "b", "persistentVolumeClaim": {"claimName": "pvc-b"}}]}})
    state = CycleState()
    plugin.pre_filter(state, pod, env.node_infos)
    assert plugin.filter(state, pod, env.node_infos[0]) is None
    details = plugin.reserve(state, pod, "node-a").details["assumed"]
    assert details == {"bind": [{"claim": "default/pvc-a", "volume": "pv-small"}],
                       "provision": [{"claim": "default/pvc-b", "storageClass": "csi"}]}


def test_all_bound_pod_prebind_is_a_no_op() -> None:
    objects = STORAGE_CLASSES + [
        {"kind": "PersistentVolumeClaim",
         "metadata": {"name": "pvc-a", "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
         "spec": {"storageClassName": "wait-sc", "volumeName": "pv-a"}},
        {"kind": "PersistentVolume", "metadata": {"name": "pv-a"}, "spec": {"storageClassName": "wait-sc"}},
    ]
    env = build([{"metadata": {"name": "node-a"}}], (), objects)
    plugin = VolumeBinding(None, env.handle)
    pod = pod_info(_pvc_pod())
    state = CycleState()
    plugin.pre_filter(state, pod, env.node_infos)
    assert plugin.filter(state, pod, env.node_infos[0]) is None
    assert plugin.reserve(state, pod, "node-a") is None
    assert plugin.pre_bind(state, pod, "node-a") is None


def test_extension_points_match_upstream() -> None:
    assert extension_points_of(VolumeBinding) == list(in_tree_extension_points()["VolumeBinding"])
