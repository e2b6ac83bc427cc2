"""What a sweep measures of one simulate run, and how cells are ranked.

Every metric is a plain number (amounts in millicores and bytes, shares in percent), so that a
cell's metrics are JSON, YAML and CSV alike, and comparable across cells.

Cells are ranked only against the cells that ran the same workload on the same cluster (what a
cell measures depends on both: a smaller cluster uses fewer nodes whatever the profile), and
equal values share a rank (1, 2, 2, 4): a tie is reported as one, never broken by the matrix
order into a "better" cell.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass
from typing import Any

from kschedctl.scheduler.outcome import Outcome

#: metric -> (column title, higher is better?). ``--rank-by`` takes these names.
METRICS: dict[str, tuple[str, bool]] = {
    "scheduled": ("scheduled", True),
    "unschedulable": ("unschedulable", False),
    "preemptions": ("preemptions", False),
    "victims": ("victims", False),
    "nodesUsed": ("nodes used", False),
    "cpuUtilisation": ("cpu %", True),
    "memoryUtilisation": ("memory %", True),
    "cpuSpreadNodes": ("cpu spread (nodes)", False),
    "memorySpreadNodes": ("memory spread (nodes)", False),
    "cpuSpreadZones": ("cpu spread (zones)", False),
    "memorySpreadZones": ("memory spread (zones)", False),
    "largestFreeCpu": ("largest free cpu", True),
    "largestFreeMemory": ("largest free memory", True),
    "removable": ("removable nodes", True),
    "seconds": ("seconds", False),
}
DEFAULT_RANK_BY = "scheduled"

_AVAILABLE = re.compile(r"nodes are available: (.*?)(?:\.\s|\.$|$)")
_COUNTED = re.compile(r"^\d+ (.+)$")


def unschedulable_reasons(messages: list[str]) -> dict[str, int]:
    """How many pods each reason of upstream's FitError message held back ("3 Insufficient cpu,
    2 node(s) had untolerated taint(s)" -> each reason once per pod), most frequent first."""
    counts: dict[str, int] = {}
    for message in messages:
        m = _AVAILABLE.search(message or "")
        reasons = []
        if m:
            for part in m.group(1).split(", "):
                counted = _COUNTED.match(part.strip())
                reasons.append(counted.group(1) if counted else part.strip())
        else:
            reasons.append((message or "no message").split("\n", 1)[0])
        for reason in dict.fromkeys(r for r in reasons if r):
            counts[reason] = counts.get(reason, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _share(requested: int, allocatable: int) -> float | None:
    return None if allocatable <= 0 else 100.0 * requested / allocatable


def _spread(shares: list[float]) -> float:
    return round(statistics.pstdev(shares), 3) if len(shares) > 1 else 0.0


def cell_metrics(result: Any) -> dict[str, Any]:
    """The metrics of one ``SimulationResult`` (with its node and zone usage after the run)."""
    counts = result.counts()
    out: dict[str, Any] = {
        "pods": len(result.placements),
        "scheduled": counts.get(Outcome.SCHEDULED, 0),
        "unschedulable": counts.get(Outcome.UNSCHEDULABLE, 0),
        "gated": counts.get(Outcome.GATED, 0),
        "rejected": counts.get(Outcome.REJECTED, 0),
        "errors": counts.get(Outcome.ERROR, 0),
        "preempted": counts.get(Outcome.PREEMPTED, 0),
        "unschedulableReasons": unschedulable_reasons(
            [p.message for p in result.placements if p.outcome == Outcome.UNSCHEDULABLE]),
        "preemptions": len(result.preemptions),
        "victims": sum(len(p.victims) for p in result.preemptions),
        "nodesUsed": sum(1 for n in result.nodes if n.requested.get("pods", 0) > 0),
    }
    for resource, label in (("cpu", "cpu"), ("memory", "memory")):
        alloc = sum(n.allocatable.get(resource, 0) for n in result.nodes)
        req = sum(n.requested.get(resource, 0) for n in result.nodes)
        share = _share(req, alloc)
        out[f"{label}Utilisation"] = None if share is None else round(share, 3)
        node_shares = [s for s in (_share(n.requested.get(resource, 0), n.allocatable.get(resource, 0))
                                   for n in result.nodes) if s is not None]
        zone_shares = [s for s in (_share(z.requested.get(resource, 0), z.allocatable.get(resource, 0))
                                   for z in result.zones) if s is not None]
        out[f"{label}SpreadNodes"] = _spread(node_shares)
        out[f"{label}SpreadZones"] = _spread(zone_shares)
    free_cpu = [n.allocatable.get("cpu", 0) - n.requested.get("cpu", 0) for n in result.nodes]
    free_memory = [n.allocatable.get("memory", 0) - n.requested.get("memory", 0) for n in result.nodes]
    # fragmentation: the largest request one node can still take (each resource on its own)
    out["largestFreeCpu"] = max(free_cpu, default=0)
    out["largestFreeMemory"] = max(free_memory, default=0)
    return out


@dataclass(frozen=True)
class Ranked:
    """One cell's place: its rank among the cells of its cluster and workload (None when it failed
    or lacks the metric), and whether another cell of that group has the same value."""

    cell: Any
    rank: int | None
    tied: bool


def ranking(cells: list[Any], metric: str) -> list[Ranked]:
    """Cells grouped by (cluster, workload), groups in matrix order; within a group, better first
    by ``metric`` (its better direction), equal values sharing a rank (standard competition
    ranking), matrix order among equals; failed cells and cells without the metric last, unranked."""
    _, higher_better = METRICS[metric]
    groups: dict[tuple[str, str], list[Any]] = {}
    for cell in sorted(cells, key=lambda c: c.index):
        groups.setdefault((cell.cluster, cell.workload), []).append(cell)
    out: list[Ranked] = []
    for members in groups.values():
        valued = [(c, None if c.error else c.metrics.get(metric)) for c in members]
        ranked = sorted(((c, v) for c, v in valued if v is not None),
                        key=lambda cv: (-float(cv[1]) if higher_better else float(cv[1]), cv[0].index))
        counts: dict[float, int] = {}
        for _, v in ranked:
            counts[float(v)] = counts.get(float(v), 0) + 1
        position, previous = 0, None
        for i, (c, v) in enumerate(ranked, 1):
            if previous is None or float(v) != previous:
                position, previous = i, float(v)
            out.append(Ranked(c, position, counts[float(v)] > 1))
        out.extend(Ranked(c, None, False) for c, v in valued if v is None)
    return out


def rank(cells: list[Any], metric: str) -> list[Any]:
    """The cells in ``ranking`` order."""
    return [r.cell for r in ranking(cells, metric)]
