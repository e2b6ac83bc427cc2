"""`kschedctl capacity --removable` end to end: the answer on the bundled cluster (table and
JSON), its self-check through `simulate --drain`, --nodes, the CA-style flags, bad input (exit 2)
and the sweep's removable metric."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "fixtures" / "cluster")


@pytest.fixture(scope="module")
def answer() -> dict:
    r = run_cli("capacity", "--cluster", CLUSTER, "--removable", "-o", "json")
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)


def test_the_bundled_cluster(answer: dict) -> None:
    assert answer["kind"] == "RemovableResult" and answer["verified"] is True
    assert answer["removable"] == ["gpu-b1", "node-c2", "node-c1"] and answer["count"] == 3
    by_name = {n["name"]: n for n in answer["nodes"]}
    assert by_name["node-c1"]["moves"] == [{"pod": "default/api-6d9f7b8c5d-kl5tp", "node": "node-b2"}]
    assert by_name["node-b2"]["reason"] == "UnmovableKubeSystemPod"
    assert by_name["node-b2"]["message"] == ("non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: "
                                             "coredns-5d78c9869d-zt9vw")
    assert by_name["node-a1"]["reason"] == "NotEnoughPdb" and by_name["node-a1"]["pod"] == "default/api-6d9f7b8c5d-4mfnc"
    assert by_name["gpu-a1"]["reason"] == "NoPlaceToMovePods"
    assert by_name["gpu-a1"]["message"].startswith("ml/finetune-2025-x7k2p would not fit elsewhere: 0/8 nodes are "
                                                   "available: ")
    assert answer["zones"][-1] == {"zone": "us-east-1c", "nodes": 2, "candidates": 2, "removable": 2, "left": 0}


def test_the_answer_drained_through_simulate_keeps_every_pod(answer: dict) -> None:
    drains = [arg for node in answer["removable"] for arg in ("--drain", node)]
    # a drain is a question on its own: no pod file, exit 0 once every replacement found a node
    r = run_cli("simulate", "--cluster", CLUSTER, *drains, "-o", "json")
    assert r.exit_code == 0, r.stderr + r.stdout
    records = json.loads(r.stdout)["whatIf"]
    # several --drain flags drain as one `kubectl drain A B ...`: one record naming every node
    assert sorted(n for rec in records for n in rec["nodes"]) == sorted(answer["removable"])
    assert all(p["node"] for rec in records for p in rec["rescheduled"])
    assert not any(rec["blocked"] or rec["notEvictable"] for rec in records)


def test_table() -> None:
    r = run_cli("capacity", "--cluster", CLUSTER, "--removable", "--width", "200")
    assert r.exit_code == 0, r.stderr
    assert "Removable    3: gpu-b1, node-c2, node-c1" in r.stdout
    assert "default/api-6d9f7b8c5d-kl5tp -> node-b2" in r.stdout
    assert "Per zone" in r.stdout and "us-east-1c" in r.stdout


def test_nodes_and_flags() -> None:
    r = run_cli("capacity", "--cluster", CLUSTER, "--removable", "--nodes", "topology.kubernetes.io/zone=us-east-1a",
                "--skip-nodes-with-system-pods=false", "-o", "yaml")
    assert r.exit_code == 0, r.stderr
    data = yaml.safe_load(r.stdout)
    assert data["selector"] == "topology.kubernetes.io/zone=us-east-1a"
    assert data["rules"]["skipNodesWithSystemPods"] is False
    assert {n["zone"] for n in data["nodes"]} == {"us-east-1a"}
    assert "node-a2" in data["removable"]


def test_nothing_removable_is_the_answer_no() -> None:
    r = run_cli("capacity", "--cluster", CLUSTER, "--removable", "--utilization-below", "0", "-o", "json")
    assert r.exit_code == 1
    data = json.loads(r.stdout)
    assert data["removable"] == [] and {n["reason"] for n in data["nodes"]} == {"NotUnderutilized"}


@pytest.mark.parametrize("args, message", [
    (["--removable", "--skip-nodes-with-local-storage=maybe"],
     "--skip-nodes-with-local-storage=maybe: not a boolean (true or false)"),
    (["--removable", "--nodes", "no-such-node"], "--nodes: no node 'no-such-node' in the cluster state"),
    (["--removable", str(ROOT / "fixtures" / "pods" / "pod.yaml")], "capacity --removable takes no pod file"),
    ([str(ROOT / "fixtures" / "pods" / "pod.yaml"), "--nodes", "pool=a"], "--nodes goes with --removable"),
    ([str(ROOT / "fixtures" / "pods" / "pod.yaml"), "--skip-nodes-with-system-pods=false"],
     "--skip-nodes-with-system-pods goes with --removable"),
])
def test_bad_input(args: list[str], message: str) -> None:
    r = run_cli("capacity", "--cluster", CLUSTER, *args)
    assert r.exit_code == 2
    assert message in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_sweep_metric(tmp_path: Path) -> None:
    r = run_cli("sweep", str(ROOT / "profiles" / "sweeps" / "removable.yaml"), "--rank-by", "removable", "-o", "json")
    assert r.exit_code == 0, r.stderr
    cells = json.loads(r.stdout)["cells"]
    assert [c["config"] for c in cells] == ["default", "bin-packing"]
    assert all(isinstance(c["metrics"]["removable"], int) for c in cells)
    csv = run_cli("sweep", str(ROOT / "profiles" / "sweeps" / "removable.yaml"), "-o", "csv")
    assert csv.stdout.splitlines()[0].split(",").count("removable") == 1


def test_max_stops_after_that_many_removals() -> None:
    r = run_cli("capacity", "--cluster", CLUSTER, "--removable", "--max", "1", "-o", "json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["removable"] == ["gpu-b1"]
    reasons = {n["name"]: n["reason"] for n in data["nodes"]}
    assert reasons["node-c2"] == "NotTried" and reasons["node-b2"] == "NotTried"


@pytest.mark.parametrize("value, threshold", [("true", 0.5), ("false", None), ("{utilizationBelow: 0.3}", 0.3)])
def test_sweep_file_removable(value: str, threshold: float | None) -> None:
    from kschedctl.sweep.model import parse_sweep

    text = ("apiVersion: kschedctl/v1\nkind: Sweep\nconfigs: [{name: default}]\nclusters: [a.yaml]\n"
            f"workloads: [w.yaml]\nremovable: {value}\n")
    sweep, findings = parse_sweep(text, "s.yaml")
    assert not findings and sweep is not None
    assert sweep.removable == threshold and sweep.cells()[0].removable == threshold


def test_sweep_file_removable_out_of_range() -> None:
    from kschedctl.sweep.model import parse_sweep

    text = ("apiVersion: kschedctl/v1\nkind: Sweep\nconfigs: [{name: default}]\nclusters: [a.yaml]\n"
            "workloads: [w.yaml]\nremovable: {utilizationBelow: 2}\n")
    sweep, findings = parse_sweep(text, "s.yaml")
    assert sweep is None and findings and findings[0].line == 6
