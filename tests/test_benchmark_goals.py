"""Smoke test of ``python -m benchmarks.goals`` and of the realistic cluster generator.

Nothing here is timed: the goals table is run at its ``--quick`` sizes and only its shape is
checked (one Markdown row per workload and cluster shape, every pod placed); the generator is
checked for being deterministic and for holding what the benchmarks rely on.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from benchmarks import simulate
from benchmarks.goals import (ORACLE_RATIO_GOAL, QUICK, WORKLOADS, Row, _inputs, capacity_row, markdown, run_goals,
                              _cluster_file, upstream_cells, write_cluster_file)
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


def _bench_answer(run_s: float, cpu_s: float, outcomes: list[str], preemptions: int = 0) -> dict[str, Any]:
    """An answer as ``kschedctl-oracle simulate --bench -o json`` writes it."""
    return {"kind": "SimulationResult", "runSeconds": run_s, "runCpuSeconds": cpu_s,
            "placements": [{"pod": f"default/p-{i}", "outcome": o, "node": "n" if o == "Scheduled" else "",
                            "message": ""} for i, o in enumerate(outcomes)],
            "preemptions": [{"pod": "default/p-0", "node": "n", "victims": ["default/v"]}] * preemptions}


@pytest.mark.parametrize("run_s, cpu_s, outcomes, preemptions, expected", [
    # the loop ran 2 s of wall time on 3 CPU seconds (both cores busy): 100 pods/CPU-s, 150 pods/s
    (2.0, 3.0, ["Scheduled"] * 300, 0, {"pods_per_cpu_s": 100.0, "pods_per_s": 150.0, "scheduled": 300}),
    # sleeping while bindings settle costs wall time, not CPU time
    (4.0, 1.0, ["Scheduled"] * 9 + ["Unschedulable"], 2,
     {"pods_per_cpu_s": 10.0, "pods_per_s": 2.5, "scheduled": 9, "preemptions": 2}),
    # a loop too short to measure gives 0, not a division by zero
    (0.0, 0.0, ["Scheduled"], 0, {"pods_per_cpu_s": 0.0, "pods_per_s": 0.0}),
])
def test_upstream_figures_are_read_from_the_oracles_bench_answer(run_s: float, cpu_s: float, outcomes: list[str],
                                                                 preemptions: int, expected: dict[str, Any]) -> None:
    figures = simulate.oracle_figures(_bench_answer(run_s, cpu_s, outcomes, preemptions), len(outcomes), 5.0)
    assert figures["run_cpu_s"] == cpu_s and figures["run_s"] == run_s and figures["load_s"] == 5.0 - run_s
    for key, value in expected.items():
        assert figures[key] == pytest.approx(value), key


def test_an_oracle_built_before_cpu_time_was_measured_is_refused_with_what_to_do() -> None:
    answer = _bench_answer(1.0, 1.0, ["Scheduled"])
    del answer["runCpuSeconds"]
    with pytest.raises(RuntimeError, match=r"no runCpuSeconds.*make -C oracle"):
        simulate.oracle_figures(answer, 1, 2.0)


@pytest.mark.parametrize("ours, upstream_cpu, upstream_wall, cell, ratio", [
    (900.0, 60.0, 150.0, "60 pods/CPU-s (150 pods/s of wall time)", "15.0x (met)"),
    (900.0, 100.0, 50.0, "100 pods/CPU-s (50 pods/s of wall time)", "9.0x (not met)"),
    # the ratio is CPU to CPU: upstream's faster wall-time rate does not enter it
    (1200.0, 1200.0, 2400.0, "1,200 pods/CPU-s (2,400 pods/s of wall time)", "1.0x (not met)"),
    (500.0, 0.0, 0.0, "0 pods/CPU-s (0 pods/s of wall time)", "0.0x (not met)"),
])
def test_a_rollout_row_compares_with_upstream_cpu_to_cpu(ours: float, upstream_cpu: float, upstream_wall: float,
                                                          cell: str, ratio: str) -> None:
    got = upstream_cells(ours, {"pods_per_cpu_s": upstream_cpu, "pods_per_s": upstream_wall})
    assert got[:2] == (cell, ratio)


def test_the_table_with_upstream_names_cpu_time_and_the_goal() -> None:
    row = Row("rollout", "realistic", "900 pods/s", ">= 500 pods/s", True, "60 pods/CPU-s", "15.0x (met)")
    lines = markdown([row], QUICK, with_oracle=True).splitlines()
    assert lines[0].endswith(f"| upstream (CPU time) | ours / upstream, CPU to CPU (goal >= {ORACLE_RATIO_GOAL:g}x) |")
    assert lines[2].endswith("| 60 pods/CPU-s | 15.0x (met) |")


def test_the_upstream_capacity_run_is_left_out_above_the_copies_limit(tmp_path: Path) -> None:
    cluster = write_cluster_file("synthetic", QUICK, tmp_path)
    pod, _ = _inputs(tmp_path)
    # the oracle path does not exist: the row must not try to run it
    row = capacity_row("synthetic", cluster, pod, None, oracle=str(tmp_path / "no-oracle"), max_copies=10)
    count = (row.figures or {})["count"]
    assert count > 10
    assert row.upstream == f"not run ({count + 1:,} copies > --oracle-max-copies 10)" and row.ratio == ""


def test_explain_is_measured_against_the_gc_off_floor_and_the_largest_row_is_realistic_only() -> None:
    rows = run_goals(["explain", "largest"], ["synthetic", "realistic"], QUICK)
    assert [(row.shape, row.workload) for row in rows] == [
        ("synthetic", "explain"), ("realistic", "explain"), ("realistic", "largest")]
    for row in rows:
        f = row.figures or {}
        assert f["floor_cpu_s"] > 0 and f["rss_mib"] > 0
        assert f["ratio"] == pytest.approx(f["explain_cpu_s"] / f["floor_cpu_s"])
        assert "x the floor" in row.ours and row.goal.startswith("<= 3x the floor")
    largest = rows[-1]
    assert largest.figures["nodes"] == QUICK.largest_nodes  # type: ignore[index]
    assert largest.goal.endswith("<= 4 GiB") and "at 60 nodes" in largest.ours


def test_the_largest_rollout_row_runs_on_the_largest_realistic_cluster_only() -> None:
    rows = run_goals(["largest-rollout"], ["synthetic", "realistic"], QUICK)
    assert [(row.shape, row.workload) for row in rows] == [("realistic", "largest-rollout")]
    f = rows[0].figures or {}
    assert f["nodes"] == QUICK.largest_nodes and f["pods"] == QUICK.replicas
    assert rows[0].goal == ">= 300 pods/s" and rows[0].met == (f["pods_per_s"] >= 300)
    assert f"{QUICK.largest_nodes:,} nodes" in markdown(rows, QUICK, with_oracle=False)


@pytest.mark.parametrize("shape", ["synthetic", "realistic"])
def test_the_cluster_file_made_in_a_child_is_the_one_made_here(shape: str, tmp_path: Path) -> None:
    """Made in a child, so that explain's peak RSS is not the goals process's memory at the fork."""
    (tmp_path / "child").mkdir()
    (tmp_path / "here").mkdir()
    child = _cluster_file(shape, QUICK, tmp_path / "child")
    here = write_cluster_file(shape, QUICK, tmp_path / "here")
    assert child.parent == tmp_path / "child" and child.name == here.name
    assert child.read_bytes() == here.read_bytes()


def test_explain_rows_take_the_least_of_repeated_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    import benchmarks.goals as goals

    floors, runs = iter([0.5, 0.3, 0.4]), iter([(2.0, 100.0), (1.5, 120.0), (1.8, 90.0)])
    real_child = goals._in_child
    monkeypatch.setattr(goals, "_in_child", lambda request: {"cpu_s": next(floors)} if request.get("gc_off")
                        else real_child(request))
    monkeypatch.setattr(goals, "_kschedctl_measured",
                        lambda args: (*next(runs), subprocess.CompletedProcess(args, 0, "", "")))
    rows = run_goals(["explain"], ["synthetic"], QUICK, repeat=3)
    f = rows[0].figures or {}
    assert (f["floor_cpu_s"], f["explain_cpu_s"], f["rss_mib"]) == (0.3, 1.5, 120.0)  # least times, largest peak
