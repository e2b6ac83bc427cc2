"""Upstream's figures in the benchmarks: ``kschedctl-oracle simulate --bench`` reports its loop's
CPU time beside its wall time, and ``benchmarks.goals`` compares kschedctl with it CPU to CPU
(rollout rows) and runs capacity's N + 1 copies through it. Nothing here asserts a speed.

Without Go these tests skip with a one-line reason, except under CI=true, where they must run.
"""

from __future__ import annotations

from benchmarks.goals import QUICK, run_goals


def test_upstream_rollouts_and_capacity_copies_are_measured_in_cpu_time(oracle: str) -> None:  # noqa: F811
    rows = run_goals(["rollout", "preemption", "capacity"], ["realistic"], QUICK, oracle)
    assert [row.workload for row in rows] == ["rollout", "preemption", "capacity"]
    for row in rows:
        figures = row.figures or {}
        upstream = figures["upstream"]
        assert upstream["run_cpu_s"] > 0 and upstream["run_s"] > 0, (row.workload, upstream)
        if row.workload == "capacity":
            # upstream's loop places the N copies capacity counted and leaves the last one over
            assert upstream["pods"] == figures["count"] + 1 and upstream["scheduled"] == figures["count"], upstream
            assert row.upstream.startswith(f"{upstream['run_cpu_s']:.2f} CPU s (") and "NOT" not in row.upstream
        else:
            assert upstream["scheduled"] == upstream["pods"] == figures["pods"], upstream
            assert upstream["pods_per_cpu_s"] == upstream["pods"] / upstream["run_cpu_s"]
            assert figures["ratio"] == figures["pods_per_s"] / upstream["pods_per_cpu_s"]
            assert row.upstream.startswith(f"{upstream['pods_per_cpu_s']:,.0f} pods/CPU-s (")
        if row.workload == "preemption":
            assert upstream["preemptions"] > 0, upstream
