"""NodeVolumeLimits: upstream's TestCSILimits cases, with its fake listers rebuilt as objects.

See the header of cases/node_volume_limits.yaml for how a case's fields become cluster objects.
"""

from __future__ import annotations

import copy

import pytest
import yaml

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interfaces import extension_points_of
from kschedctl.plugins.registry import in_tree_extension_points
from kschedctl.plugins.node_volume_limits import NodeVolumeLimits
from tests.plugins.harness import CASES_DIR, build, check_filter_twin, expected_status, load_cases, pod_info, status_dict

CASES = load_cases("node_volume_limits")
_DATA = yaml.safe_load((CASES_DIR / "node_volume_limits.yaml").read_text(encoding="utf-8"))
LIBRARY: dict = _DATA["library"]
CLAIMS: dict = _DATA["claims"]

NODE_NAME = "node-for-max-pd-test-1"
SC_NAME = "csi-sc"
AWS_EBS_IN_TREE = "kubernetes.io/aws-ebs"
HOSTPATH_IN_TREE = "kubernetes.io/hostpath"
#: in-tree plugin -> the PV source field the fixtures give it
IN_TREE_FIELDS = {AWS_EBS_IN_TREE: ("awsElasticBlockStore", "volumeID"), "kubernetes.io/gce-pd": ("gcePersistentDisk", "pdName"),
                  "kubernetes.io/portworx-volume": ("portworxVolume", "volumeID")}


def _pv(name: str, driver: str) -> dict:
    if driver in IN_TREE_FIELDS:
        field, id_key = IN_TREE_FIELDS[driver]
        source = {field: {id_key: name}}
    elif driver == HOSTPATH_IN_TREE:
        source = {"hostPath": {"path": "/tmp"}}
    else:
        source = {"csi": {"driver": driver, "volumeHandle": name}}
    return {"kind": "PersistentVolume", "metadata": {"name": name}, "spec": source}


def _objects(case: dict) -> list[dict]:
    drivers = case["driverNames"]
    objs: list[dict] = []
    for driver in drivers:
        for j in range(4):
            name = f"csi-{driver}-{j}"
            objs.append(_pv(name, driver))
            objs.append({"kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"},
                         "spec": {"volumeName": name, "storageClassName": SC_NAME}})
    objs += [
        {"kind": "PersistentVolumeClaim", "metadata": {"name": "csi-4", "namespace": "default"},
         "spec": {"storageClassName": SC_NAME}},
        {"kind": "PersistentVolumeClaim", "metadata": {"name": "csi-5", "namespace": "default"}, "spec": {}},
        {"kind": "PersistentVolumeClaim", "metadata": {"name": "csi-6", "namespace": "default"},
         "spec": {"storageClassName": SC_NAME, "volumeName": "missing-in-action"}},
        {"kind": "StorageClass", "apiVersion": "storage.k8s.io/v1", "metadata": {"name": SC_NAME},
         "provisioner": drivers[0]},
    ]
    for name in case.get("extraClaims") or ():
        objs.append(copy.deepcopy(CLAIMS[name]))
    source = case.get("limitSource") or ""
    if source in ("csinode", "csinode-with-no-limit"):
        entries = []
        for driver in drivers:
            entry = {"name": driver, "nodeID": NODE_NAME}
            if source == "csinode":
                entry["allocatable"] = {"count": case["maxVols"]}
            entries.append(entry)
        migrated = case.get("migratedPlugins", [AWS_EBS_IN_TREE])
        metadata: dict = {"name": NODE_NAME}
        if migrated:
            metadata["annotations"] = {"storage.alpha.kubernetes.io/migrated-plugins": ",".join(migrated)}
        objs.append({"kind": "CSINode", "apiVersion": "storage.k8s.io/v1", "metadata": metadata,
                     "spec": {"drivers": entries}})
    va_volumes = list(case.get("vaVolumes") or ())
    for i in range(case.get("vaCount") or 0):
        name = f"va-pv-{i}"
        objs.append(_pv(name, drivers[0]))
        va_volumes.append(name)
    for i, pv_name in enumerate(va_volumes):
        objs.append({"kind": "VolumeAttachment", "apiVersion": "storage.k8s.io/v1", "metadata": {"name": f"va-{i}"},
                     "spec": {"attacher": drivers[0], "nodeName": NODE_NAME,
                              "source": {"persistentVolumeName": pv_name}}})
    return objs


def _pod(name: str, node: str | None = None) -> dict:
    pod = copy.deepcopy(LIBRARY[name])
    if node:
        pod["spec"]["nodeName"] = node
    return pod


@pytest.mark.parametrize("case", CASES)
def test_csi_limits(case: dict) -> None:
    existing = [_pod(name, NODE_NAME) for name in case["existingPods"]]
    env = build([{"metadata": {"name": NODE_NAME}}], existing, _objects(case))
    plugin = NodeVolumeLimits(None, env.handle)
    pod = pod_info(_pod(case["newPod"]))
    state = CycleState()
    result, status = plugin.pre_filter(state, pod, env.node_infos)
    assert result is None
    assert status_dict(status) == expected_status(case.get("wantPreFilterStatus"))
    if status is not None and status.is_skip():
        return
    got = plugin.filter(state, pod, env.node_infos[0])
    assert status_dict(got) == expected_status(case.get("wantStatus"))
    # the column twin says what Filter said; it answers exactly when no CSINode sets a limit and
    # the pod's volumes resolve (then Filter passes)
    answered = check_filter_twin(plugin, pod, env, state, {NODE_NAME: got})
    assert answered == (case.get("limitSource") != "csinode" and got is None)


def test_over_limit_details() -> None:
    case = next(p.values[0] for p in CASES if p.values[0]["name"] == "doesn't when node volume limit <= pods CSI volume")
    existing = [_pod(name, NODE_NAME) for name in case["existingPods"]]
    env = build([{"metadata": {"name": NODE_NAME}}], existing, _objects(case))
    got = NodeVolumeLimits(None, env.handle).filter(CycleState(), pod_info(_pod(case["newPod"])), env.node_infos[0])
    assert got.details == {"driver": "ebs.csi.aws.com", "attached": 3, "new": 1, "limit": 2}


def test_extension_points_match_upstream() -> None:
    assert extension_points_of(NodeVolumeLimits) == list(in_tree_extension_points()["NodeVolumeLimits"])
