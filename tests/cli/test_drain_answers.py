"""``simulate --drain`` as a question on its own (issue 42, item 1): no pod file needed, exit 0
when the drain completes as ``kubectl drain`` would (every evictable pod evicted, every
replacement placed), 1 when a budget refuses an eviction, a replacement stays pending, or a pod
without a controller stops a node's drain; several nodes drain as ``kubectl drain A B`` does
however they are named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "fixtures" / "cluster")
SMALL = str(ROOT / "tests" / "scheduler" / "what_if" / "cluster.yaml")
ZONES_A_B = "topology.kubernetes.io/zone in (us-east-1a,us-east-1b)"


def _drain(*args: str) -> tuple[int, dict]:
    result = run_cli("simulate", *args, "--seed", "1", "-o", "json")
    return result.exit_code, json.loads(result.stdout)


# (cluster, flags, exit code, what the drain record must hold)
CASES = [
    pytest.param(CLUSTER, ["--drain", "node-a1"], 0,
                 {"complete": True, "blocked": [], "notEvictable": []}, id="node-a1 drains: exit 0"),
    pytest.param(CLUSTER, ["--drain", ZONES_A_B], 1,
                 {"complete": False, "blocked": [{
                     "pod": "default/api-6d9f7b8c5d-8qrwx",
                     "message": "Cannot evict pod as it would violate the pod's disruption budget default/api "
                                "(2 healthy, 2 required)"}]},
                 id="a budget refuses and replacements stay pending: exit 1"),
    pytest.param(CLUSTER, ["--without-node", "node-a1"], 0,
                 {"complete": True, "replaced": [
                     {"pod": "default/api-6d9f7b8c5d-4mfnc", "node": "node-a1", "controller": "ReplicaSet/api-6d9f7b8c5d",
                      "replacement": "default/api-6d9f7b8c5d-7rdz5"},
                     {"pod": "default/report-7c9d5f6b8-b6xzd", "node": "node-a1",
                      "controller": "ReplicaSet/report-7c9d5f6b8", "replacement": "default/report-7c9d5f6b8-xnch2"}]},
                 id="a lost node's pods come back elsewhere: exit 0"),
    pytest.param(CLUSTER, ["--without-nodes", "topology.kubernetes.io/zone=us-east-1a"], 1,
                 {"complete": False}, id="zone a lost: cache-0's volume is there, it stays pending: exit 1"),
    # n1's DaemonSet pod, static pod and finished Job pod do not come back; its web replica does
    pytest.param(SMALL, ["--without-node", "n1"], 0,
                 {"removedPods": ["default/web-5d4f-aaaaa", "monitoring/node-exporter-x1", "kube-system/etcd-n1",
                                  "default/report-28f9x"],
                  "rescheduled": [{"pod": "default/web-5d4f-4tbdn", "node": "n2"}]},
                 id="only the pods a controller makes again are replaced"),
    pytest.param(SMALL, ["--drain", "n2"], 1,
                 {"complete": False, "evicted": [], "notEvictable": [{
                     "pod": "default/debug",
                     "reason": "declares no controller (kubectl drain refuses; --force deletes it for good)"}]},
                 id="a pod without a controller stops the drain: exit 1"),
]


@pytest.mark.parametrize(("cluster", "flags", "code", "record"), CASES)
def test_a_drain_alone_is_answered_with_its_exit_code(cluster: str, flags: list[str], code: int,
                                                        record: dict) -> None:
    exit_code, data = _drain("--cluster", cluster, *flags)
    assert exit_code == code
    [drain] = data["whatIf"]
    assert {key: drain[key] for key in record} == record
    assert data["placements"] == [] or code == 1


def test_the_table_says_whether_the_drain_completes() -> None:
    ok = run_cli("simulate", "--cluster", CLUSTER, "--drain", "node-a1", "--width", "300")
    assert ok.exit_code == 0
    assert "drain complete: every evictable pod evicted, every replacement placed" in ok.stdout
    assert "no pod to simulate" not in ok.stdout + ok.stderr
    refused = run_cli("simulate", "--cluster", CLUSTER, "--drain", ZONES_A_B, "--width", "300")
    assert refused.exit_code == 1
    assert ("drain not complete: 1 eviction blocked by a PodDisruptionBudget; 3 replacements pending"
            in refused.stdout)


def test_a_pod_file_and_a_refused_drain_exit_1_even_when_the_pods_fit() -> None:
    result = run_cli("simulate", str(ROOT / "fixtures" / "pods" / "pod.yaml"), "--cluster", SMALL,
                     "--drain", "n2", "--no-cluster-pending")
    assert result.exit_code == 1


SPELLINGS = [
    ["--drain", "node-a1", "--drain", "node-b1"],
    ["--drain", "kubernetes.io/hostname in (node-a1,node-b1)"],
    ["--drain", "node-a1", "--drain", "kubernetes.io/hostname in (node-a1,node-b1)"],
]


def test_several_nodes_drain_the_same_however_they_are_named() -> None:
    answers = []
    for flags in SPELLINGS:
        code, data = _drain("--cluster", CLUSTER, *flags)
        [drain] = data["whatIf"]
        drain.pop("target")
        answers.append((code, drain))
    assert answers[0] == answers[1] == answers[2]
    code, drain = answers[0]
    # kubectl drain node-a1 node-b1: node-a1's api replica goes and its replacement lands on
    # node-a2 before node-b1's evictions, so the budget (2 of 3) lets node-b1's replica go too.
    assert code == 0 and drain["nodes"] == ["node-a1", "node-b1"] and drain["blocked"] == []
    assert [e["node"] for e in drain["evicted"]] == ["node-a1", "node-a1", "node-b1", "node-b1"]
    assert all(r["node"] for r in drain["rescheduled"])
