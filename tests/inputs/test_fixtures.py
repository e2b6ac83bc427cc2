"""The bundled example cluster and pods load, with the shape the README describes."""

from __future__ import annotations

from pathlib import Path

import pytest

from kschedctl.inputs.cluster import load_cluster
from kschedctl.inputs.workloads import load_pods

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = ROOT / "fixtures" / "cluster"
PODS = ROOT / "fixtures" / "pods"


@pytest.fixture(scope="module")
def cluster():
    return load_cluster([str(CLUSTER)])


def test_cluster_counts(cluster) -> None:
    assert cluster.counts() == {
        "Node": 8, "Pod": 10, "Namespace": 3, "PersistentVolume": 1, "PersistentVolumeClaim": 1,
        "StorageClass": 1, "CSIDriver": 1, "PriorityClass": 2, "PodDisruptionBudget": 1, "Service": 3,
        "ReplicaSet": 3, "StatefulSet": 1,
    }
    assert cluster.warnings == []
    assert cluster.implied_namespaces == []


def test_nodes(cluster) -> None:
    zones = {n["metadata"]["labels"]["topology.kubernetes.io/zone"] for n in cluster.nodes}
    assert zones == {"us-east-1a", "us-east-1b", "us-east-1c"}
    for node in cluster.nodes:
        labels = node["metadata"]["labels"]
        for key in ("kubernetes.io/hostname", "topology.kubernetes.io/region", "node.kubernetes.io/instance-type",
                    "kubernetes.io/os", "kubernetes.io/arch"):
            assert key in labels
        assert node["status"]["allocatable"] and node["status"]["capacity"] and node["status"]["images"]
    cordoned = [n for n in cluster.nodes if n.get("spec", {}).get("unschedulable")]
    assert [n["metadata"]["name"] for n in cordoned] == ["node-c2"]
    assert cordoned[0]["spec"]["taints"][0]["key"] == "node.kubernetes.io/unschedulable"
    gpu = [n for n in cluster.nodes if "nvidia.com/gpu" in n["status"]["allocatable"]]
    assert [n["metadata"]["name"] for n in gpu] == ["gpu-a1", "gpu-b1"]
    for node in gpu:
        assert {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"} in node["spec"]["taints"]


def test_running_pods(cluster) -> None:
    assert all(p["spec"].get("nodeName") in cluster.node_by_name for p in cluster.pods)
    assert all(p["metadata"]["ownerReferences"][0]["controller"] for p in cluster.pods)
    priorities = {p["metadata"]["name"]: p["spec"]["priority"] for p in cluster.pods}
    assert priorities["api-6d9f7b8c5d-4mfnc"] == 100000
    assert priorities["coredns-5d78c9869d-h2xkq"] == 2000000000
    assert priorities["finetune-2025-x7k2p"] == 1000
    train = next(p for p in cluster.pods if p["metadata"]["name"] == "finetune-2025-x7k2p")
    assert train["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] == "1"  # from the limit
    anti = [p for p in cluster.pods if (p["spec"].get("affinity") or {}).get("podAntiAffinity")]
    assert len(anti) == 5
    # every owner reference points at an object of the fixtures (or a Job, which the scheduler ignores)
    for pod in cluster.pods:
        ref = pod["metadata"]["ownerReferences"][0]
        key = f"{pod['metadata']['namespace']}/{ref['name']}"
        coll = {"ReplicaSet": cluster.replica_sets, "StatefulSet": cluster.stateful_sets}.get(ref["kind"])
        if coll is not None:
            assert coll[key]["metadata"]["uid"] == ref["uid"]


def test_storage_and_services(cluster) -> None:
    assert cluster.storage_classes["gp3"]["volumeBindingMode"] == "WaitForFirstConsumer"
    assert cluster.pvcs["default/data-cache-0"]["spec"]["volumeName"] == "pv-cache-0"
    assert cluster.services["default/web"]["spec"]["selector"] == {"app": "web"}
    assert cluster.namespaces["ml"]["metadata"]["labels"]["kubernetes.io/metadata.name"] == "ml"


@pytest.mark.parametrize("file,key,owners", [
    pytest.param("web-deployment.yaml", r"default/web-\w+-\w{5}", ["ReplicaSet", "Deployment"], id="Fixture_web"),
    pytest.param("gpu-job.yaml", r"ml/train-resnet-\w{5}", ["Job"], id="Fixture_gpu-job"),
    pytest.param("too-big.yaml", "default/too-big", [], id="Fixture_too-big"),
    pytest.param("spread.yaml", "default/report-extra", [], id="Fixture_spread"),
    pytest.param("pod.yaml", "default/hello", [], id="Fixture_pod"),
])
def test_example_pods(cluster, file: str, key: str, owners: list[str]) -> None:
    import re

    pods = load_pods([str(PODS / file)], cluster)
    assert len(pods) == 1
    assert re.fullmatch(key, pods[0].key)
    assert [o["kind"] for o in pods[0].owners] == owners
    assert pods[0].pod["spec"]["priority"] is not None
    assert pods.warnings == []


def test_gpu_job_wants_a_gpu_and_tolerates_the_pool(cluster) -> None:
    pod = load_pods([str(PODS / "gpu-job.yaml")], cluster)[0].pod
    assert pod["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] == "1"
    assert pod["spec"]["tolerations"][0]["key"] == "nvidia.com/gpu"
    assert pod["spec"]["priority"] == 1000 and pod["spec"]["preemptionPolicy"] == "Never"
