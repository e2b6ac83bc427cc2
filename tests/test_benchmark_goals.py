"""Smoke test of ``python -m benchmarks.goals`` and of the realistic cluster generator.

Nothing here is timed: the goals table is run at its ``--quick`` sizes and only its shape is
checked (one Markdown row per workload and cluster shape, every pod placed); the generator is
checked for being deterministic and for holding what the benchmarks rely on.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

from benchmarks.goals import QUICK, WORKLOADS, run_goals
from benchmarks.realistic import cluster_objects, rollout_objects


def test_the_goals_table_prints_one_markdown_row_per_workload_and_shape() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.goals", "--quick", "--workload", "explain", "--workload", "rollout",
         "--workload", "capacity"], capture_output=True, text=True, check=True)
    lines = proc.stdout.strip().splitlines()
    assert lines[0] == "| workload | cluster | ours (CPU time) | goal | met |"
    assert lines[1] == "|---|---|---|---|---|"
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]
    assert [(row[0], row[1].split(",")[0]) for row in rows] == [
        (title, shape) for shape in ("synthetic", "realistic")
        for title in ("explain, every node scored", "plain Deployment rollout", "capacity of a small pod")]
    assert all(len(row) == 5 and row[4] in ("yes", "no", "-") for row in rows)


def test_every_rollout_row_places_its_pods_on_both_cluster_shapes() -> None:
    rows = run_goals(["rollout", "zone-spread", "anti-affinity", "preemption"], ["synthetic", "realistic"], QUICK)
    for row in rows:
        figures = row.figures or {}
        assert figures["scheduled"] == figures["pods"], (row.shape, row.workload, figures)
        if row.workload == "preemption":
            assert figures["preemptions"] > 0, (row.shape, figures)
    assert {row.workload for row in rows} < set(WORKLOADS)


def test_the_realistic_cluster_is_deterministic_and_holds_what_the_issue_names() -> None:
    objects = cluster_objects(100, 1000, seed=3)
    assert objects == cluster_objects(100, 1000, seed=3)
    kinds = Counter(obj["kind"] for obj in objects)
    assert kinds["Node"] == 100 and kinds["Pod"] == 1000
    for kind in ("PersistentVolume", "PersistentVolumeClaim", "ResourceClaim", "ResourceSlice", "DeviceClass",
                 "ReplicaSet", "StatefulSet"):
        assert kinds[kind] > 0, kind
    pods = [obj for obj in objects if obj["kind"] == "Pod"]
    assert len({p["metadata"]["namespace"] for p in pods}) >= 3
    assert len({p["metadata"]["labels"]["app"] for p in pods}) == 40
    assert all(p["metadata"]["ownerReferences"] for p in pods)
    required = sum(1 for p in pods if "requiredDuringSchedulingIgnoredDuringExecution"
                   in (p["spec"].get("affinity") or {}).get("podAntiAffinity", {}))
    spread = sum(1 for p in pods if p["spec"].get("topologySpreadConstraints"))
    assert required == spread == 100
    # each anti-affinity app's pods sit on distinct nodes
    for app in {p["metadata"]["labels"]["app"] for p in pods if p["spec"].get("affinity", {}).get("podAntiAffinity")}:
        hosts = [p["spec"]["nodeName"] for p in pods if p["metadata"]["labels"]["app"] == app]
        assert len(hosts) == len(set(hosts)), app


def test_a_rollout_is_one_replica_set_and_its_pending_pods() -> None:
    owner, pods = rollout_objects(5, "anti-affinity")
    assert owner["kind"] == "ReplicaSet" and len(pods) == 5
    assert all(p["metadata"]["ownerReferences"][0]["uid"] == owner["metadata"]["uid"] for p in pods)
    assert all("nodeName" not in p["spec"] for p in pods)
