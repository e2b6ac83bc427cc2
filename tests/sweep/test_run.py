"""Running sweeps: metrics of a cell, failing cells, the same answer whatever the worker count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kschedctl.sweep.metrics import rank, ranking, unschedulable_reasons
from kschedctl.sweep.model import read_sweep
from kschedctl.sweep.run import RunOptions, run_cell, run_sweep
from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]

NODES = """
apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}, topology.kubernetes.io/zone: {zone}}}}}
status:
  allocatable: {{cpu: "4", memory: 16Gi, pods: "110"}}
  capacity: {{cpu: "4", memory: 16Gi, pods: "110"}}
"""

PODS = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 5
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: web, resources: {requests: {cpu: "1", memory: 1Gi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: huge, namespace: default}
spec:
  containers: [{name: c, image: c, resources: {requests: {cpu: "64"}}}]
"""


@pytest.fixture()
def sweep_file(tmp_path: Path) -> Path:
    (tmp_path / "two.yaml").write_text("---".join(NODES.format(name=f"n{i}", zone=f"z{i}") for i in (1, 2)))
    (tmp_path / "three.yaml").write_text("---".join(NODES.format(name=f"m{i}", zone="z1") for i in (1, 2, 3)))
    (tmp_path / "pods.yaml").write_text(PODS)
    (tmp_path / "broken.yaml").write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                                          "percentageOfNodesToScore: 500\n")
    bin_packing = ROOT / "profiles" / "bin-packing.yaml"
    (tmp_path / "sweep.yaml").write_text(f"""
apiVersion: kschedctl/v1
kind: Sweep
name: test
configs:
  - {{name: default}}
  - {bin_packing}
  - broken.yaml
clusters: [two.yaml, three.yaml]
workloads: [pods.yaml]
repetitions: 2
""")
    return tmp_path / "sweep.yaml"


def test_a_cell_reports_what_simulate_did(sweep_file: Path) -> None:
    cells = read_sweep(str(sweep_file)).cells()
    r = run_cell(cells[0])  # default profile, two nodes of 4 CPUs, 5 x 1 CPU + one 64-CPU pod
    assert r.error is None
    m = r.metrics
    assert (m["pods"], m["scheduled"], m["unschedulable"], m["nodesUsed"]) == (6, 5, 1, 2)
    assert m["unschedulableReasons"] == {"Insufficient cpu": 1}
    assert m["cpuUtilisation"] == 62.5 and m["cpuSpreadNodes"] == 12.5  # 3 and 2 of 4 CPUs
    assert (m["largestFreeCpu"], m["largestFreeMemory"]) == (2000, 14 * 1024 ** 3)
    assert m["cpuSpreadZones"] == 12.5 and m["seconds"] >= 0


def test_a_failing_cell_is_reported_and_the_others_complete(sweep_file: Path) -> None:
    sweep = read_sweep(str(sweep_file))
    result = run_sweep(sweep, "scheduled", workers=1)
    failed = [c for c in result.cells if c.error]
    assert [c.config for c in failed] == ["broken"] * 4
    assert "percentageOfNodesToScore" in failed[0].error and "broken.yaml" in failed[0].error
    assert all(c.metrics.get("scheduled") == 5 for c in result.cells if not c.error)
    # failed cells come last in their cluster's block, unranked
    places = result.ranking()
    assert [(r.cell.cluster, r.cell.config, r.rank) for r in places if r.cell.error] == [
        ("two", "broken", None), ("two", "broken", None), ("three", "broken", None), ("three", "broken", None)]
    assert [r.cell.config for r in places][2:6] == ["bin-packing", "bin-packing", "broken", "broken"]


def test_the_same_answer_with_one_worker_or_several(sweep_file: Path) -> None:
    sweep = read_sweep(str(sweep_file))
    one = run_sweep(sweep, "nodesUsed", workers=1).to_dict(timings=False)
    two = run_sweep(sweep, "nodesUsed", workers=2).to_dict(timings=False)
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)
    # The sweep names a profile of this repository from a temporary directory.
    cli_one = run_cli("sweep", str(sweep_file), "-o", "json", "--no-timings", "-j", "1", "--rank-by", "nodesUsed",
                      "--allow-outside-paths")
    cli_two = run_cli("sweep", str(sweep_file), "-o", "json", "--no-timings", "-j", "2", "--rank-by", "nodesUsed",
                      "--allow-outside-paths")
    assert cli_one.exit_code == cli_two.exit_code == 1  # the broken config's cells failed
    assert cli_one.stdout == cli_two.stdout
    assert json.loads(cli_one.stdout)["summary"] == {
        "cells": 12, "failed": 4, "configs": ["default", "bin-packing", "broken"], "clusters": ["two", "three"],
        "workloads": ["pods"], "repetitions": 2}


def test_bin_packing_uses_fewer_nodes_than_spreading(sweep_file: Path) -> None:
    sweep = read_sweep(str(sweep_file))
    result = run_sweep(sweep, "nodesUsed", workers=1)
    used = {(c.config, c.cluster): c.metrics["nodesUsed"] for c in result.cells if not c.error and c.repetition == 0}
    assert used == {("default", "two"): 2, ("bin-packing", "two"): 2, ("default", "three"): 3,
                    ("bin-packing", "three"): 2}
    # ranked within each cluster: on two nodes every profile uses both, a four-way tie; on three,
    # bin-packing's two repetitions share the first rank and default's the third
    assert [(r.cell.config, r.cell.cluster, r.rank, r.tied) for r in result.ranking() if not r.cell.error] == [
        ("default", "two", 1, True), ("default", "two", 1, True), ("bin-packing", "two", 1, True),
        ("bin-packing", "two", 1, True), ("bin-packing", "three", 1, True), ("bin-packing", "three", 1, True),
        ("default", "three", 3, True), ("default", "three", 3, True)]


def test_reasons_are_read_from_upstreams_message() -> None:
    assert unschedulable_reasons([
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s). preemption: 0/3 nodes are "
        "available: 3 No preemption victims found for incoming pod.",
        "0/3 nodes are available: 3 Insufficient cpu.",
        "pod has unbound immediate PersistentVolumeClaims"]) == {
        "Insufficient cpu": 2, "node(s) had untolerated taint(s)": 1, "pod has unbound immediate PersistentVolumeClaims": 1}


def test_rank_puts_the_better_direction_first() -> None:
    from kschedctl.sweep.run import CellResult

    cells = [CellResult(i, "c", "k", "w", 0, 1, {"nodesUsed": n, "scheduled": s}) for i, (n, s) in
             enumerate([(3, 5), (2, 4), (2, 5)])] + [CellResult(3, "c", "k", "w", 0, 1, {}, error="boom")]
    assert [c.index for c in rank(cells, "nodesUsed")] == [1, 2, 0, 3]
    assert [c.index for c in rank(cells, "scheduled")] == [0, 2, 1, 3]
    assert [(r.cell.index, r.rank, r.tied) for r in ranking(cells, "nodesUsed")] == [
        (1, 1, True), (2, 1, True), (0, 3, False), (3, None, False)]
    assert [(r.cell.index, r.rank, r.tied) for r in ranking(cells, "scheduled")] == [
        (0, 1, True), (2, 1, True), (1, 3, False), (3, None, False)]


def test_cells_are_ranked_within_their_cluster_and_workload() -> None:
    """A small cluster uses fewer nodes whatever the profile: its cells are not ranked above the
    big cluster's, each block has its own first."""
    from kschedctl.sweep.run import CellResult

    cells = [CellResult(i, config, cluster, workload, 0, 1, {"nodesUsed": n}) for i, (config, cluster, workload, n)
             in enumerate([("a", "big", "w", 10), ("b", "big", "w", 8), ("a", "small", "w", 2),
                           ("b", "small", "w", 3), ("a", "big", "v", 7), ("b", "big", "v", 7)])]
    assert [(r.cell.config, r.cell.cluster, r.cell.workload, r.rank, r.tied) for r in ranking(cells, "nodesUsed")] == [
        ("b", "big", "w", 1, False), ("a", "big", "w", 2, False), ("a", "small", "w", 1, False),
        ("b", "small", "w", 2, False), ("a", "big", "v", 1, True), ("b", "big", "v", 1, True)]


def test_ray_local_mode(sweep_file: Path) -> None:
    pytest.importorskip("ray", reason="ray is not installed (pip install 'kschedctl[ray]')")
    sweep = read_sweep(str(sweep_file))
    local = run_sweep(sweep, "scheduled", workers=1).to_dict(timings=False)
    on_ray = run_sweep(sweep, "scheduled", ray_address="local").to_dict(timings=False)
    assert json.dumps(local, sort_keys=True) == json.dumps(on_ray, sort_keys=True)


def test_custom_plugins_reach_the_workers(sweep_file: Path) -> None:
    plugin = ROOT / "examples" / "custom-plugin" / "prefer_label.py"
    if not plugin.exists():
        pytest.skip("the example plugin is not there")
    cells = read_sweep(str(sweep_file)).cells()
    assert run_cell(cells[0], RunOptions(plugins=(f"{plugin}:PreferLabel",))).error is None


def test_node_what_ifs_change_each_cells_cluster(tmp_path: Path) -> None:
    (tmp_path / "two.yaml").write_text("---".join(NODES.format(name=f"n{i}", zone=f"z{i}") for i in (1, 2)))
    (tmp_path / "pods.yaml").write_text(PODS)
    (tmp_path / "sweep.yaml").write_text("""
apiVersion: kschedctl/v1
kind: Sweep
configs: [{name: default}]
clusters: [two.yaml]
workloads: [pods.yaml]
whatIfs:
  - name: as-is
  - withoutNode: [n2]
  - {name: four, addNodes: {count: 2, like: n1}}
  - withoutNode: [n9]
""")
    cells = read_sweep(str(tmp_path / "sweep.yaml")).cells()
    results = {c.cluster.name: run_cell(c) for c in cells}
    # Five web replicas of 1 cpu (4 fit on one node of 4 cpus) and a pod too big for any node.
    assert results["two[as-is]"].metrics["scheduled"] == 5
    assert results["two[without n2]"].metrics["scheduled"] == 4
    assert results["two[four]"].metrics["scheduled"] == 5
    assert results["two[four]"].metrics["nodesUsed"] == 4
    assert results["two[without n9]"].error == "two[without n9].withoutNode n9: no node 'n9' in the cluster state (2 nodes)"


def test_seconds_count_the_scheduling_not_the_loading(sweep_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fake clock that jumps 1,000 s whenever a cell's files are loaded (a worker's first cell
    pays for them): ``seconds`` must not see the jump, so that no cell looks slow for being first."""
    from types import SimpleNamespace

    from kschedctl.sweep import run as sweep_run

    clock = [0.0]
    fake = SimpleNamespace(perf_counter=lambda: clock[0])
    monkeypatch.setattr(sweep_run, "time", fake)
    real_cluster, real_config = sweep_run.load_cell_cluster, sweep_run.load_cell_config

    def slow(real):  # noqa: ANN001, ANN202
        def load(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            clock[0] += 1000.0
            return real(*args, **kwargs)
        return load

    monkeypatch.setattr(sweep_run, "load_cell_cluster", slow(real_cluster))
    monkeypatch.setattr(sweep_run, "load_cell_config", slow(real_config))
    cells = read_sweep(str(sweep_file)).cells()
    result = run_cell(cells[0])
    assert result.error is None and result.metrics["seconds"] == 0.0
