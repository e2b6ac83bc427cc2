"""What a simulate run answers (the contract's ``SimulationResult``) and the usage it measures
after the run: placements, preemptions, per-node and per-zone requested resources."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kschedctl.framework.snapshot import Snapshot
from kschedctl.scheduler.outcome import Outcome

_ZONE_LABELS = ("failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone")

@dataclass
class Placement:
    """Where one pod of the batch ended up (its last scheduling attempt decides)."""

    pod: str
    outcome: Outcome
    node: str | None = None
    message: str = ""
    profile: str = ""
    attempts: int = 0
    nominated_node: str | None = None
    source: str = "file"
    order: int | None = None
    preempted_by: str | None = None
    priority: int = 0
    #: kschedctl addition: the devices (driver/pool/device) DynamicResources allocated to the pod's claims.
    devices: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pod": self.pod, "outcome": self.outcome, "node": self.node, "message": self.message,
                               "profile": self.profile, "priority": self.priority, "attempts": self.attempts,
                               "source": self.source}
        if self.devices:
            out["devices"] = list(self.devices)
        if self.nominated_node:
            out["nominatedNode"] = self.nominated_node
        if self.preempted_by:
            out["preemptedBy"] = self.preempted_by
        return out


@dataclass
class PreemptionRecord:
    """One preemption: the preemptor, the node it was nominated to, the pods evicted there."""

    pod: str
    node: str
    victims: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"pod": self.pod, "node": self.node, "victims": list(self.victims)}


@dataclass
class QueueSample:
    """The scheduling queue after one cycle: which pod was tried (its attempt), how the cycle
    ended, and how many pods were then in activeQ, in backoff, and waiting for an event."""

    cycle: int
    pod: str
    attempt: int
    outcome: str
    active: int
    backoff: int
    unschedulable: int
    #: Seconds of the run's virtual clock.
    time: float = 0.0


@dataclass
class ResourceUsage:
    """Requested vs allocatable of a node or a zone; amounts in millicores / bytes / counts."""

    allocatable: dict[str, int]
    requested: dict[str, int]

    def fraction(self, resource: str) -> float | None:
        alloc = self.allocatable.get(resource, 0)
        if alloc <= 0:
            return None
        return self.requested.get(resource, 0) / alloc


@dataclass
class NodeUsage(ResourceUsage):
    name: str = ""
    zone: str = ""
    placed: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "allocatable": format_resources(self.allocatable),
                "requested": format_resources(self.requested), "zone": self.zone, "placedPods": self.placed}


@dataclass
class ZoneUsage(ResourceUsage):
    name: str = ""
    nodes: int = 0
    placed: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "nodes": self.nodes, "allocatable": format_resources(self.allocatable),
                "requested": format_resources(self.requested), "placedPods": self.placed}


@dataclass
class SimulationResult:
    """The answer for a batch (contract: ``kind: SimulationResult``)."""

    placements: list[Placement] = field(default_factory=list)
    preemptions: list[PreemptionRecord] = field(default_factory=list)
    nodes: list[NodeUsage] = field(default_factory=list)
    zones: list[ZoneUsage] = field(default_factory=list)
    cycles: int = 0
    seconds: float = 0.0
    seed: int | None = None
    warnings: list[str] = field(default_factory=list)
    #: Cycles whose node was picked at random among nodes tied for the best score.
    tie_breaks: int = 0
    #: Usage per node before the run (the report's before/after charts; not in the JSON, whose
    #: ``nodes`` are after the run).
    nodes_before: list[NodeUsage] = field(default_factory=list)
    #: The queue after every cycle (the report's queue view; not in the JSON).
    queue: list[QueueSample] = field(default_factory=list)
    #: Pod -> the ``ExplainResult`` of its last cycle, for the pods a run was asked to keep
    #: (``Simulator(decisions=N)``: the report's drill-down; not in the JSON).
    decisions: dict[str, Any] = field(default_factory=dict)

    def attempts(self) -> list[dict[str, Any]]:
        """Per pod tried more than once or not scheduled, in the order first tried: ``pod``,
        ``attempts``, ``cycles`` (each attempt's cycle), ``outcomes`` (each attempt's end) and
        ``outcome`` (its placement's)."""
        tried: dict[str, dict[str, Any]] = {}
        for sample in self.queue:
            entry = tried.setdefault(sample.pod, {"pod": sample.pod, "cycles": [], "outcomes": []})
            entry["cycles"].append(sample.cycle)
            entry["outcomes"].append(sample.outcome)
        final = {p.pod: p.outcome for p in self.placements}
        out = []
        for pod, entry in tried.items():
            entry["attempts"] = len(entry["cycles"])
            entry["outcome"] = final.get(pod, entry["outcomes"][-1])
            if entry["attempts"] > 1 or entry["outcome"] != Outcome.SCHEDULED:
                out.append(entry)
        return out

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for p in self.placements:
            out[p.outcome] = out.get(p.outcome, 0) + 1
        return out

    @property
    def all_scheduled(self) -> bool:
        return all(p.outcome == Outcome.SCHEDULED for p in self.placements)

    def not_placed(self) -> list[Placement]:
        """The pods the run left without a node (neither scheduled nor preempted after it), in order."""
        return [p for p in self.placements if p.outcome not in (Outcome.SCHEDULED, Outcome.PREEMPTED)]

    def not_placed_groups(self) -> list[tuple[str, str, list[str]]]:
        """``not_placed`` grouped by (outcome, message): each group's pods, the largest group first
        (equal sizes in the order they were first met)."""
        groups: dict[tuple[str, str], list[str]] = {}
        for p in self.not_placed():
            groups.setdefault((p.outcome, p.message), []).append(p.pod)
        return [(outcome, message, pods)
                for (outcome, message), pods in sorted(groups.items(), key=lambda kv: -len(kv[1]))]

    def placement(self, pod: str) -> Placement | None:
        for p in self.placements:
            if p.pod == pod:
                return p
        return None

    def to_dict(self) -> dict[str, Any]:
        counts = self.counts()
        out: dict[str, Any] = {
            "kind": "SimulationResult",
            "placements": [p.to_dict() for p in self.placements],
            "preemptions": [p.to_dict() for p in self.preemptions],
            "nodes": [n.to_dict() for n in self.nodes],
            "zones": [z.to_dict() for z in self.zones],
            "summary": {"pods": len(self.placements), "scheduled": counts.get(Outcome.SCHEDULED, 0),
                        "unschedulable": counts.get(Outcome.UNSCHEDULABLE, 0), "gated": counts.get(Outcome.GATED, 0),
                        "rejected": counts.get(Outcome.REJECTED, 0), "preempted": counts.get(Outcome.PREEMPTED, 0),
                        "errors": counts.get(Outcome.ERROR, 0), "notHandled": counts.get(Outcome.NOT_HANDLED, 0),
                        "cycles": self.cycles,
                        "tieBreaks": self.tie_breaks, "seconds": round(self.seconds, 3)},
        }
        if self.seed is not None:
            out["seed"] = self.seed
        return out


def format_resources(amounts: dict[str, int]) -> dict[str, str]:
    """Amounts as canonical quantity strings: cpu from millicores, memory in bytes, pods a count."""
    from kschedctl.k8s.quantity import format_bytes, format_decimal, format_milli_cpu

    out: dict[str, str] = {}
    for name, value in amounts.items():
        if name == "cpu":
            out[name] = format_milli_cpu(value)
        elif name == "pods":
            out[name] = str(value)
        elif name in ("memory", "ephemeral-storage") or name.startswith("hugepages-"):
            out[name] = format_bytes(value)
        else:
            out[name] = format_decimal(value)
    return out


def usage(snapshot: Snapshot, placed: dict[str, int] | None = None) -> tuple[list[NodeUsage], list[ZoneUsage]]:
    """Requested vs allocatable per node (snapshot order) and per zone (first-seen order)."""
    placed = placed or {}
    nodes: list[NodeUsage] = []
    zones: dict[str, ZoneUsage] = {}
    for ni in snapshot.node_infos():
        alloc, req = ni.allocatable, ni.requested
        allocatable = {"cpu": alloc.milli_cpu, "memory": alloc.memory, "pods": alloc.allowed_pod_number}
        requested = {"cpu": req.milli_cpu, "memory": req.memory, "pods": len(ni.pods)}
        if alloc.ephemeral_storage or req.ephemeral_storage:
            allocatable["ephemeral-storage"] = alloc.ephemeral_storage
            requested["ephemeral-storage"] = req.ephemeral_storage
        for name in sorted(set(alloc.scalar_resources) | set(req.scalar_resources)):
            allocatable[name] = alloc.scalar_resources.get(name, 0)
            requested[name] = req.scalar_resources.get(name, 0)
        zone = _zone_name(ni)
        nu = NodeUsage(allocatable, requested, name=ni.name, zone=zone, placed=placed.get(ni.name, 0))
        nodes.append(nu)
        zu = zones.get(zone)
        if zu is None:
            zu = zones[zone] = ZoneUsage({}, {}, name=zone)
        zu.nodes += 1
        zu.placed += nu.placed
        for k, v in allocatable.items():
            zu.allocatable[k] = zu.allocatable.get(k, 0) + v
        for k, v in requested.items():
            zu.requested[k] = zu.requested.get(k, 0) + v
    return nodes, list(zones.values())


def _zone_name(node_info: Any) -> str:
    labels = node_info.labels or {}
    for label in _ZONE_LABELS:
        if labels.get(label):
            return labels[label]
    return ""
