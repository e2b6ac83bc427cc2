"""`kschedctl simulate` end to end through the CLI: exit codes, JSON shape, workloads expanded,
the cluster's pending pods, tables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.cli.helpers import run_cli

CONFIG = str(Path(__file__).resolve().parent.parent / "scheduler" / "cases" / "config-implemented.yaml")


def node(name: str, cpu: str = "4", zone: str = "z1") -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone}},
            "status": {"allocatable": {"cpu": cpu, "memory": "32Gi", "pods": "110"},
                       "capacity": {"cpu": cpu, "memory": "32Gi", "pods": "110"}}}


def pod(name: str, cpu: str = "1", node_name: str | None = None, pc: str | None = None) -> dict:
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
         "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}]}}
    if node_name:
        p["spec"]["nodeName"] = node_name
        p["status"] = {"phase": "Running"}
    if pc:
        p["spec"]["priorityClassName"] = pc
    return p


def deployment(name: str, replicas: int, cpu: str = "1") -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx",
                                                           "resources": {"requests": {"cpu": cpu}}}]}}}}


def write(path: Path, *docs: dict) -> str:
    path.write_text(yaml.safe_dump_all(list(docs)), encoding="utf-8")
    return str(path)


@pytest.fixture
def cluster(tmp_path: Path) -> str:
    high = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
            "value": 1000}
    return write(tmp_path / "cluster.yaml", node("node-a", zone="z1"), node("node-b", zone="z2"),
                 pod("x", "2", "node-a"), high)


def test_everything_fits_exit_0_json(tmp_path: Path, cluster: str) -> None:
    pods = write(tmp_path / "pods.yaml", deployment("web", 3), pod("single", "1"))
    r = run_cli("simulate", pods, "--cluster", cluster, "--config", CONFIG, "--seed", "1", "-o", "json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["kind"] == "SimulationResult"
    assert len(data["placements"]) == 4 and all(p["outcome"] == "Scheduled" for p in data["placements"])
    assert {"pod", "outcome", "node", "message"} <= set(data["placements"][0])
    web = [p["pod"] for p in data["placements"] if p["pod"].startswith("default/web-")]
    assert len(set(web)) == 3
    assert data["preemptions"] == []
    by_name = {n["name"]: n for n in data["nodes"]}
    assert by_name["node-a"]["allocatable"] == {"cpu": "4", "memory": "32Gi", "pods": "110"}
    total = sum(int(n["requested"]["cpu"].rstrip("m")) * (1 if n["requested"]["cpu"].endswith("m") else 1000)
                for n in data["nodes"])
    assert total == 6000
    assert [z["name"] for z in data["zones"]] == ["z1", "z2"]


def test_some_do_not_fit_exit_1_with_messages(tmp_path: Path, cluster: str) -> None:
    pods = write(tmp_path / "pods.yaml", deployment("big", 3, "3"))
    r = run_cli("simulate", pods, "--cluster", cluster, "--config", CONFIG, "-o", "yaml")
    assert r.exit_code == 1, r.stderr
    data = yaml.safe_load(r.stdout)
    outcomes = sorted(p["outcome"] for p in data["placements"])
    assert outcomes == ["Scheduled", "Unschedulable", "Unschedulable"]
    assert {p["message"] for p in data["placements"] if p["outcome"] == "Unschedulable"} == {
        "0/2 nodes are available: 2 Insufficient cpu."}


def test_table_has_every_section(tmp_path: Path, cluster: str) -> None:
    pods = write(tmp_path / "pods.yaml", pod("hi", "3", pc="high"), pod("lo", "3"))
    r = run_cli("simulate", pods, "--cluster", cluster, "--config", CONFIG, "--seed", "2")
    assert r.exit_code == 1
    for text in ("Simulation", "Placements", "Not placed", "Node usage", "Zones", "default/hi", "Insufficient cpu"):
        assert text in r.stdout, text
    assert r.stdout.index("default/hi") < r.stdout.index("default/lo")


def test_cluster_pending_pods_only(tmp_path: Path) -> None:
    cluster = write(tmp_path / "c.yaml", node("node-a"), pod("waiting", "1"))
    r = run_cli("simulate", "--cluster", cluster, "--config", CONFIG, "-o", "json")
    assert r.exit_code == 0, r.stderr
    (p,) = json.loads(r.stdout)["placements"]
    assert p["pod"] == "default/waiting" and p["source"] == "cluster"
    r = run_cli("simulate", "--cluster", cluster, "--config", CONFIG, "--no-cluster-pending")
    assert r.exit_code == 2 and "no pod to simulate" in r.stderr


def test_bad_input_exit_2(tmp_path: Path, cluster: str, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: Pod\nmetadata: [\n", encoding="utf-8")
    r = run_cli("simulate", str(bad), "--cluster", cluster, "--config", CONFIG)
    assert r.exit_code == 2 and "bad.yaml" in r.stderr and "Traceback" not in r.stderr
    r = run_cli("simulate", str(tmp_path / "missing.yaml"), "--cluster", cluster)
    assert r.exit_code == 2
    # Without --cluster the live cluster is read; with no kubeconfig anywhere that is a clear error.
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    r = run_cli("simulate", "pod.yaml")
    assert r.exit_code == 2 and "no kubeconfig found" in r.stderr
    good = write(tmp_path / "p.yaml", pod("p"))
    r = run_cli("simulate", good, "--cluster", cluster, "--config", CONFIG, "--profile", "nope")
    assert r.exit_code == 2 and "nope" in r.stderr


def test_default_profile_with_preemption(tmp_path: Path) -> None:
    high = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
            "value": 1000}
    cluster = write(tmp_path / "c.yaml", node("node-a"), pod("low", "3", "node-a"), high)
    pods = write(tmp_path / "p.yaml", pod("critical", "2", pc="high"))
    r = run_cli("simulate", pods, "--cluster", cluster, "-o", "json", "--seed", "1")
    data = json.loads(r.stdout)
    assert r.exit_code == 0, r.stdout
    assert data["preemptions"] == [{"pod": "default/critical", "node": "node-a", "victims": ["default/low"]}]
    assert data["placements"][0]["node"] == "node-a"
