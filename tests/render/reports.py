"""The reports the render tests write: each command on the bundled fixtures, and result objects
whose every name is hostile HTML (what a pull request could put in a pod, node or sweep file)."""

from __future__ import annotations

from pathlib import Path

from kschedctl.framework.status import Code, Status
from kschedctl.analyses.diff import (
    DiffResult,
    Placed,
    PluginScoreChange,
    PodDiff,
    ScoreDiff,
    Side,
    SpreadSummary,
    UsageDiff,
    UsageSide,
)
from kschedctl.scheduler.result import (
    ExplainResult,
    FilterResult,
    Hint,
    NodeHints,
    NodeResult,
    Preemption,
    ScoreResult,
    StageResult,
)
from kschedctl.scheduler.simulation_result import NodeUsage, Placement, PreemptionRecord, SimulationResult, ZoneUsage
from kschedctl.sweep.model import ClusterSource, ConfigSource, Sweep, WorkloadSource
from kschedctl.sweep.run import CellResult, SweepResult

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "fixtures" / "cluster")
PODS = ROOT / "fixtures" / "pods"
PROFILES = ROOT / "profiles"

#: One command line per report, on the bundled fixtures (``--report FILE`` is added by the tests).
COMMANDS: dict[str, list[str]] = {
    # the web pod lands on node-b2; too-big fits nowhere
    "explain": ["explain", str(PODS / "web-deployment.yaml"), str(PODS / "too-big.yaml"), "--cluster", CLUSTER],
    # three web replicas, a business-critical pod that preempts on node-a1, and too-big
    "simulate": ["simulate", str(PODS / "web-deployment.yaml"),
                 str(PROFILES / "scenarios" / "pods" / "critical-on-a1.yaml"), str(PODS / "too-big.yaml"),
                 "--cluster", CLUSTER],
    # default/hello moves from node-b2 to node-a1 under bin-packing; report-extra stays
    "diff": ["diff", "-c", str(PROFILES / "default.yaml"), "-c", str(PROFILES / "bin-packing.yaml"),
             "--cluster", CLUSTER, str(PODS / "pod.yaml"), str(PODS / "spread.yaml")],
    "diff-simulate": ["diff", "-c", str(PROFILES / "default.yaml"), "-c", str(PROFILES / "bin-packing.yaml"),
                      "--cluster", CLUSTER, "--simulate", str(PODS / "web-deployment.yaml")],
    "sweep": ["sweep", str(PROFILES / "sweeps" / "packing.yaml"), "-j", "1", "--no-timings"],
    # kubectl drain of zones a and b: one api eviction refused by its budget, 3 replacements pending
    "simulate-drain": ["simulate", "--cluster", CLUSTER, "--seed", "1",
                       "--drain", "topology.kubernetes.io/zone in (us-east-1a,us-east-1b)"],
    # 69 copies of hello fit once node-a1 is drained
    "capacity": ["capacity", str(PODS / "pod.yaml"), "--cluster", CLUSTER, "--drain", "node-a1", "--seed", "1"],
    "replay": ["replay", str(ROOT / "fixtures" / "traces" / "small.jsonl")],
    "test": ["test", str(PROFILES)],
}

#: Every trick at once: markup, an event handler, a quoted attribute break-out, an entity, a
#: terminal escape and a line break.
HOSTILE = "<script>alert(1)</script>\"'><img src=x onerror=alert(2)>&amp;\x1b[31m\n</svg><b>"


def hostile_results() -> dict[str, object]:
    """One result object per report, every input-derived string hostile."""
    h = HOSTILE
    rejected = NodeResult(h + "-rejected", evaluated=True, feasible=False,
                          filters=[FilterResult(h, Status(Code.Unschedulable, h))])
    winner = NodeResult(h + "-winner", evaluated=True, feasible=True, filters=[FilterResult(h, None)],
                        scores=[ScoreResult(h, 5, 50, 2, 100)], total_score=100, rank=1)
    second = NodeResult(h + "-second", evaluated=True, feasible=True, filters=[FilterResult(h, None)],
                        scores=[ScoreResult(h, 1, 10, 2, 20)], total_score=20, rank=2)
    scheduled = ExplainResult(h, h, "Scheduled", winner.name, h, 3, 2, nodes=[winner, second, rejected],
                              filter_plugins=[h], score_plugins=[h], warnings=[h], seed=1,
                              stages=[StageResult(h, h, Status(Code.Unschedulable, h))])
    unschedulable = ExplainResult(h + "-2", h, "Unschedulable", None, h, 1, 0, nodes=[rejected], filter_plugins=[h],
                                  preemption=Preemption(h, [h], [{"node": h, "victims": [h], "chosen": True,
                                                                  "decidedBy": h}]),
                                  hints=[NodeHints(h, [h], h, False, rank=1)], pod_hints=[Hint(h, h)])
    usage = {"cpu": 1000, "memory": 1 << 30, "pods": 10}
    simulation = SimulationResult(
        placements=[Placement(h, "Scheduled", h, h, h, 1, order=1), Placement(h + "2", "Scheduled", h, order=2),
                    Placement(h + "3", "Unschedulable", None, h, nominated_node=h)],
        preemptions=[PreemptionRecord(h, h, [h, h])],
        nodes=[NodeUsage(dict(usage), {"cpu": 500, "memory": 1 << 29, "pods": 2}, name=h, zone=h, placed=2)],
        zones=[ZoneUsage(dict(usage), {"cpu": 500}, name=h, nodes=1, placed=2)],
        nodes_before=[NodeUsage(dict(usage), {"cpu": 100}, name=h, zone=h)],
        warnings=[h], cycles=3)
    moved = PodDiff(h, Placed("Scheduled", h + "-a"), Placed("Scheduled", h + "-b"),
                    ScoreDiff(h + "-a", h + "-b", [PluginScoreChange(h, 1, 2, 3, 9, 1, 2)], notes=[h]), reason=h)
    failed = PodDiff(h + "2", Placed("Scheduled", h), Placed("Unschedulable", None, h, nominated_node=h), reason=h)
    side = UsageSide(1, {"cpu": h}, {"cpu": h}, 0.5, 0.5)
    spread = SpreadSummary(2, 1, 1, 1, 0, 1, {h: 1}, 0, {"min": 0.1, "max": 0.5}, {"min": 0.1, "max": 0.5})
    diff = DiffResult("simulate", Side(h, h, h), Side(h + "B", h, h), pods=[moved, failed], first_divergence=moved,
                      first_divergence_index=0, nodes=[UsageDiff(h, side, side, zone=h)], spread_a=spread,
                      spread_b=spread, warnings=[h])
    sweep = Sweep(h, h, configs=[ConfigSource(h, None)], clusters=[ClusterSource(h, ())],
                  workloads=[WorkloadSource(h, ())], repetitions=2)
    metrics = {"scheduled": 3, "unschedulable": 1, "unschedulableReasons": {h: 1}, "largestFreeCpu": 1500,
               "largestFreeMemory": 1 << 30, "cpuUtilisation": 12.5, "seconds": 0.5}
    cells = [CellResult(0, h, h, h, 0, 1, metrics=dict(metrics)), CellResult(1, h, h, h, 1, 2, error=h)]
    from kschedctl.scenarios.model import Scenario
    from kschedctl.scenarios.report import CheckResult, ScenarioResult, TestReport
    from kschedctl.analyses.capacity import CapacityResult

    capacity = CapacityResult(h, 2, {h: 2}, h, profile=h, outcome="Unschedulable", warnings=[h])
    scenario = ScenarioResult(Scenario(h, h, 3, None, [], [], []),
                              [CheckResult(h, "failed", 4, pod=h, reason=h, details=[h])])
    return {"explain": [scheduled, unschedulable], "simulate": simulation, "diff": diff,
            "sweep": SweepResult(sweep, cells, "scheduled", 1, 0.5), "capacity": capacity,
            "test": TestReport([scenario])}
