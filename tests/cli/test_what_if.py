"""Node what-ifs through the CLI: --without-node(s), --cordon, --drain, --add-nodes on explain,
simulate, capacity and diff, on the bundled fixtures (whose api Deployment has a
PodDisruptionBudget of minAvailable 2 over its 3 replicas)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "fixtures" / "cluster")
POD = str(ROOT / "fixtures" / "pods" / "pod.yaml")
BIN_PACKING = str(ROOT / "profiles" / "bin-packing.yaml")
SPREADING = str(ROOT / "profiles" / "spreading.yaml")
ZONES_A_B = "topology.kubernetes.io/zone in (us-east-1a,us-east-1b)"

COMMANDS = {
    "explain": ["explain", POD, "--cluster", CLUSTER],
    "simulate": ["simulate", POD, "--cluster", CLUSTER, "--seed", "1"],
    "capacity": ["capacity", POD, "--cluster", CLUSTER, "--max", "5"],
    "diff": ["diff", POD, "--cluster", CLUSTER, "-c", BIN_PACKING, "-c", SPREADING],
}
#: flags -> (the line of the what-if block, the first record of the whatIf key).
FLAGS = {
    "without-node": (["--without-node", "node-a1"],
                     "removed 1 node (node-a1) with 2 pods, 2 replaced by their controllers",
                     {"action": "remove", "target": "node-a1", "nodes": ["node-a1"],
                      "removedPods": ["default/api-6d9f7b8c5d-4mfnc", "default/report-7c9d5f6b8-b6xzd"]}),
    "without-nodes": (["--without-nodes", "node.kubernetes.io/instance-type=g5.4xlarge"],
                      "removed 2 nodes (gpu-a1, gpu-b1) with 1 pod, 1 replaced by their controllers",
                      {"action": "remove", "target": "-l node.kubernetes.io/instance-type=g5.4xlarge",
                       "nodes": ["gpu-a1", "gpu-b1"], "removedPods": ["ml/finetune-2025-x7k2p"]}),
    "cordon": (["--cordon", "topology.kubernetes.io/zone=us-east-1b"], "cordoned node-b1, node-b2, gpu-b1",
               {"action": "cordon", "target": "-l topology.kubernetes.io/zone=us-east-1b",
                "nodes": ["node-b1", "node-b2", "gpu-b1"]}),
    "drain": (["--drain", "node-a1"], "drained node-a1: evicted 2 pods", {"action": "drain", "nodes": ["node-a1"]}),
    "add-nodes": (["--add-nodes", "2", "--like", "node-a1", "--set-label", "pool=spare", "--taint",
                   "spare=yes:PreferNoSchedule"],
                  "added 2 nodes like node-a1 (node-a1-new-1, node-a1-new-2), labels pool=spare, taints "
                  "spare=yes:PreferNoSchedule",
                  {"action": "add", "target": "node-a1", "nodes": ["node-a1-new-1", "node-a1-new-2"],
                   "labels": {"pool": "spare"}, "taints": ["spare=yes:PreferNoSchedule"]}),
}


@pytest.mark.parametrize("flag", sorted(FLAGS))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_run_names_what_it_changed(command: str, flag: str) -> None:
    args, line, record = FLAGS[flag]
    table = run_cli(*COMMANDS[command], *args, "--width", "400")
    assert table.exit_code in (0, 1), table.stderr
    lines = table.stdout.splitlines()
    assert lines[0] == "what-if:"
    assert lines[1] == f"  {line}"
    data = json.loads(run_cli(*COMMANDS[command], *args, "-o", "json").stdout)
    assert data["whatIf"][0].items() >= record.items()


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_without_what_ifs_the_output_is_as_before(command: str) -> None:
    result = run_cli(*COMMANDS[command], "-o", "json")
    assert "whatIf" not in json.loads(result.stdout)
    assert not run_cli(*COMMANDS[command]).stdout.startswith("what-if:")


def test_a_drain_reports_the_evictions_a_budget_blocks_and_where_the_replacements_go() -> None:
    result = run_cli(*COMMANDS["simulate"], "--drain", ZONES_A_B, "-o", "json")
    [drain] = json.loads(result.stdout)["whatIf"]
    assert drain["nodes"] == ["node-a1", "node-a2", "node-b1", "node-b2", "gpu-a1", "gpu-b1"]
    # minAvailable 2 of 3 api replicas: the first eviction goes, the second is refused.
    assert drain["blocked"] == [{
        "pod": "default/api-6d9f7b8c5d-8qrwx",
        "message": "Cannot evict pod as it would violate the pod's disruption budget default/api "
                   "(2 healthy, 2 required)"}]
    evicted = {e["pod"]: e for e in drain["evicted"]}
    assert "default/api-6d9f7b8c5d-4mfnc" in evicted and "default/api-6d9f7b8c5d-8qrwx" not in evicted
    rescheduled = {r["pod"]: r for r in drain["rescheduled"]}
    assert set(rescheduled) == {e["replacement"] for e in drain["evicted"]}
    # The api replica cannot go to node-c1 (another api replica runs there) and node-c2 is cordoned.
    api = rescheduled[evicted["default/api-6d9f7b8c5d-4mfnc"]["replacement"]]
    assert api["node"] is None and "didn't match pod anti-affinity rules" in api["message"]
    assert rescheduled[evicted["default/report-7c9d5f6b8-b6xzd"]["replacement"]]["node"] == "node-c1"
    # The table says the same.
    table = run_cli(*COMMANDS["simulate"], "--drain", ZONES_A_B, "--width", "400").stdout
    assert "1 blocked by a PodDisruptionBudget" in table.splitlines()[1]
    assert "  blocked: default/api-6d9f7b8c5d-8qrwx: Cannot evict pod" in table


def test_the_drained_node_is_cordoned_for_the_pods_explained() -> None:
    data = json.loads(run_cli(*COMMANDS["explain"], "--drain", "node-b2", "-o", "json").stdout)
    node = next(n for n in data["nodes"] if n["name"] == "node-b2")
    assert node["filters"][0] == {"plugin": "NodeUnschedulable", "code": "UnschedulableAndUnresolvable",
                                  "reasons": ["node(s) were unschedulable"]}


def test_added_nodes_make_room() -> None:
    before = json.loads(run_cli("capacity", POD, "--cluster", CLUSTER, "-o", "json").stdout)["count"]
    after = json.loads(run_cli("capacity", POD, "--cluster", CLUSTER, "-o", "json", "--add-nodes", "3",
                               "--like", "node-a1").stdout)["count"]
    assert after > before


@pytest.mark.parametrize("args, message", [
    (["--without-node", "node-z9"], "error: --without-node node-z9: no node 'node-z9' in the cluster state (8 nodes)"),
    (["--without-nodes", "pool=none"],
     "error: --without-nodes pool=none: selector 'pool=none' matches no node of the cluster state"),
    (["--cordon", "zone in (a"], "error: --cordon zone in (a: not a node name or label selector: "),
    (["--drain", "node-z9"], "error: --drain node-z9: no node 'node-z9' in the cluster state (8 nodes)"),
    (["--drain-force"], "error: --drain-force goes with --drain"),
    (["--add-nodes", "2"], "error: --add-nodes N needs --like NODE: the node the new ones copy"),
    (["--like", "node-a1"], "error: --like describes the nodes --add-nodes N adds: add --add-nodes"),
    (["--add-nodes", "10001", "--like", "node-a1"],
     "error: --add-nodes 10001: must be between 1 and 10,000 (the limit on nodes added per run)"),
    (["--add-nodes", "0", "--like", "node-a1"], "error: --add-nodes 0: must be between 1 and 10,000"),
    (["--add-nodes", "1", "--like", "node-z9"], "error: --like node-z9: no node 'node-z9' in the cluster state"),
    (["--add-nodes", "1", "--like", "node-a1", "--taint", "spare=yes"],
     "error: --taint spare=yes: expected key[=value]:Effect with Effect one of NoSchedule, PreferNoSchedule, "
     "NoExecute"),
    (["--add-nodes", "1", "--like", "node-a1", "--taint", "bad key:NoSchedule"], "error: --taint bad key:NoSchedule: "),
    (["--add-nodes", "1", "--like", "node-a1", "--set-label", "pool"], "error: --set-label pool: expected key=value"),
])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_bad_what_ifs_are_one_line_exit_2(command: str, args: list[str], message: str) -> None:
    result = run_cli(*COMMANDS[command], *args)
    assert result.exit_code == 2, result.stdout
    assert result.stderr.startswith(message), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_added_nodes_bring_the_devices_their_kubelet_publishes() -> None:
    args = ["capacity", str(ROOT / "profiles" / "scenarios" / "pods" / "dra-one-gpu.yaml"), "--cluster",
            str(ROOT / "profiles" / "scenarios" / "cluster" / "dra-gpus.yaml"), "-o", "json"]
    before = json.loads(run_cli(*args).stdout)["count"]
    after = json.loads(run_cli(*args, "--add-nodes", "2", "--like", "h100-1").stdout)["count"]
    assert after == before + 4  # h100-1's ResourceSlice holds two GPUs, copied to each new node
