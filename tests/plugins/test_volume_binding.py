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
from tests.plugins.harness import build, check_filter_twin, expected_status, load_cases, pod_info, status_dict

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
    statuses = {}
    for ni in env.node_infos:
        got = statuses[ni.name] = plugin.filter(state, pod, ni)
        assert status_dict(got) == expected_status(want.get(ni.name)), ni.name
    assert plugin.pre_score(state, pod, env.node_infos).code == Code.Skip
    check_filter_twin(plugin, pod, env, state, statuses)  # where the column twin answers, as Filter


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


def _bound_claim(name: str, pv: str) -> dict:
    return {"kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": "default", "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
            "spec": {"storageClassName": "wait-sc", "volumeName": pv}, "status": {"phase": "Bound"}}


def _pinned_pv(name: str, claim: str, terms: list[dict] | None) -> dict:
    spec: dict = {"storageClassName": "wait-sc", "claimRef": {"name": claim, "namespace": "default"}}
    if terms is not None:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": terms}}
    return {"kind": "PersistentVolume", "metadata": {"name": name}, "spec": spec, "status": {"phase": "Bound"}}


def _expr(key: str, op: str, *values: str) -> dict:
    out: dict = {"key": key, "operator": op}
    if values:
        out["values"] = list(values)
    return out


_HOST, _ZONE = "kubernetes.io/hostname", "topology.kubernetes.io/zone"

# (case, each claim's PV node selector terms (None: no affinity; "missing": no PV), whether the
# column twin answers)
TWIN_CASES = [
    ("pinned to a host", [[{"matchExpressions": [_expr(_HOST, "In", "n1")]}]], True),
    ("pinned to a zone, two claims", [[{"matchExpressions": [_expr(_ZONE, "In", "z0")]}],
                                      [{"matchExpressions": [_expr(_ZONE, "In", "z0", "z1")]}]], True),
    ("not in a zone", [[{"matchExpressions": [_expr(_ZONE, "NotIn", "z0")]}]], True),
    ("zone label exists, host does not", [[{"matchExpressions": [_expr(_ZONE, "Exists"),
                                                                 _expr("gpu", "DoesNotExist")]}]], True),
    ("no affinity", [None], True),
    ("a PV missing after one that fits", [[{"matchExpressions": [_expr(_ZONE, "Exists")]}], "missing"], True),
    ("two terms", [[{"matchExpressions": [_expr(_HOST, "In", "n0")]},
                    {"matchExpressions": [_expr(_HOST, "In", "n2")]}]], False),
    ("a number compared", [[{"matchExpressions": [_expr("disks", "Gt", "2")]}]], False),
    ("a term of fields only (no name to see)", [[{"matchFields": [_expr("metadata.name", "In", "n1")]}]], True),
    ("no terms", [[]], False),
]


@pytest.mark.parametrize("case, affinities, answers", TWIN_CASES, ids=[c[0] for c in TWIN_CASES])
def test_column_twin_answers_as_filter_when_every_claim_is_bound(case: str, affinities: list, answers: bool) -> None:
    nodes = [{"metadata": {"name": f"n{i}", "labels": {_HOST: f"n{i}", **({_ZONE: f"z{i % 2}"} if i < 3 else {}),
                                                         **({"gpu": "yes", "disks": "4"} if i == 2 else {})}}}
             for i in range(4)]
    objects: list[dict] = []
    volumes = []
    for i, terms in enumerate(affinities):
        claim = f"claim-{i}"
        objects.append(_bound_claim(claim, f"pv-{i}"))
        if terms != "missing":
            objects.append(_pinned_pv(f"pv-{i}", claim, terms))
        volumes.append({"name": f"v{i}", "persistentVolumeClaim": {"claimName": claim}})
    env = build(nodes, (), STORAGE_CLASSES + objects)
    plugin = VolumeBinding(None, env.handle)
    pod = pod_info({"metadata": {"name": "pod", "namespace": "default"}, "spec": {"volumes": volumes}})
    state = CycleState()
    _, status = plugin.pre_filter(state, pod, env.node_infos)
    assert status is None
    statuses = {ni.name: plugin.filter(state, pod, ni) for ni in env.node_infos}
    assert check_filter_twin(plugin, pod, env, state, statuses) is answers
    if answers:  # the cases must tell passing nodes from rejected ones (or say all are rejected)
        assert any(s is not None for s in statuses.values()) or case in ("no affinity", "a term of fields only (no name to see)")
