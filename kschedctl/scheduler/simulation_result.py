"""What a simulate run answers (the contract's ``SimulationResult``) and the usage it measures
after the run: placements, preemptions, per-node and per-zone requested resources."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kschedctl.framework.snapshot import Snapshot
from kschedctl.framework.twins import (
    ALLOC_CPU,
    ALLOC_EPHEMERAL,
    ALLOC_MEMORY,
    ALLOC_PODS,
    POD_COUNT,
    REQ_CPU,
    REQ_EPHEMERAL,
    REQ_MEMORY,
)
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


class _Table:
    """A usage table of a ``SimulationResult``: a list, or a ``UsageCapture``'s table made when
    first read. A run captures each node's amounts as plain tuples (tens of milliseconds on
    65,000 nodes) and leaves the records, ten times that, to whoever reads them; the capture
    holds values, never the NodeInfos, so what a later run changes does not show."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.slot = "_" + name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return ()  # the dataclass default: an empty table (a tuple, as a default must not be mutable)
        value = obj.__dict__[self.slot]
        if type(value) is UsageCapture:
            value = obj.__dict__[self.slot] = value.table(self.name)
        return value

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__[self.slot] = value if type(value) is UsageCapture else list(value)


@dataclass
class SimulationResult:
    """The answer for a batch (contract: ``kind: SimulationResult``)."""

    placements: list[Placement] = field(default_factory=list)
    preemptions: list[PreemptionRecord] = field(default_factory=list)
    #: Usage per node after the run, snapshot order (assign a ``UsageCapture`` to have it made when read).
    nodes: list[NodeUsage] = _Table()  # type: ignore[assignment]
    #: Usage per zone after the run, in the order the nodes first show each zone.
    zones: list[ZoneUsage] = _Table()  # type: ignore[assignment]
    cycles: int = 0
    seconds: float = 0.0
    seed: int | None = None
    warnings: list[str] = field(default_factory=list)
    #: Cycles whose node was picked at random among nodes tied for the best score.
    tie_breaks: int = 0
    #: Usage per node before the run (the report's before/after charts; not in the JSON, whose
    #: ``nodes`` are after the run).
    nodes_before: list[NodeUsage] = _Table()  # type: ignore[assignment]
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
    capture = UsageCapture(snapshot, placed)
    return capture.table("nodes"), capture.table("zones")


class UsageCapture:
    """Each node's allocatable and requested amounts at one moment, as plain values, and the
    ``NodeUsage``/``ZoneUsage`` tables made from them once asked (``table``).

    Given the run's node columns (``scheduler.columns.NodeColumns``, current and holding every
    node's amounts), the amounts are copied from them and the zones are their zone codes; else
    each node's are read from its NodeInfo. The tables are the same either way."""

    __slots__ = ("_rows", "_placed", "_tables")

    def __init__(self, snapshot: Snapshot, placed: dict[str, int] | None = None, columns: Any = None) -> None:
        self._rows: Any
        if columns is not None:
            self._rows = _ColumnTake(columns)
        else:
            # one tuple per node, scalar amounts copied only where a node has some: the requested
            # amounts are changed in place by later cycles
            self._rows = [(ni.name, _zone_name(ni), a.milli_cpu, a.memory, a.allowed_pod_number, a.ephemeral_storage,
                           dict(a.scalar_resources) if a.scalar_resources else None,
                           r.milli_cpu, r.memory, len(ni.pods), r.ephemeral_storage,
                           dict(r.scalar_resources) if r.scalar_resources else None)
                          for ni, a, r in ((ni, ni.allocatable, ni.requested) for ni in snapshot.node_infos())]
        self._placed = dict(placed) if placed else {}
        self._tables: tuple[list[NodeUsage], list[ZoneUsage]] | None = None

    def table(self, name: str) -> list:
        """``nodes`` (or ``nodes_before``: the same table) or ``zones``, each a new list."""
        if self._tables is None:
            self._tables = self._make()
        nodes, zones = self._tables
        return list(zones if name == "zones" else nodes)

    def _make(self) -> tuple[list[NodeUsage], list[ZoneUsage]]:
        placed = self._placed
        nodes: list[NodeUsage] = []
        zones: dict[str, ZoneUsage] = {}
        for (name, zone, a_cpu, a_memory, a_pods, a_ephemeral, a_scalars,
             r_cpu, r_memory, r_pods, r_ephemeral, r_scalars) in self._rows:
            allocatable = {"cpu": a_cpu, "memory": a_memory, "pods": a_pods}
            requested = {"cpu": r_cpu, "memory": r_memory, "pods": r_pods}
            if a_ephemeral or r_ephemeral:
                allocatable["ephemeral-storage"] = a_ephemeral
                requested["ephemeral-storage"] = r_ephemeral
            if a_scalars or r_scalars:
                a_scalars, r_scalars = a_scalars or {}, r_scalars or {}
                for resource in sorted(set(a_scalars) | set(r_scalars)):
                    allocatable[resource] = a_scalars.get(resource, 0)
                    requested[resource] = r_scalars.get(resource, 0)
            nu = NodeUsage(allocatable, requested, name=name, zone=zone, placed=placed.get(name, 0))
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


#: The node columns' rows a ``_ColumnTake`` copies, in the order of a capture's row.
_TAKEN_ROWS = (ALLOC_CPU, ALLOC_MEMORY, ALLOC_PODS, ALLOC_EPHEMERAL, REQ_CPU, REQ_MEMORY, POD_COUNT, REQ_EPHEMERAL)


class _ColumnTake:
    """Every node's amounts copied out of the node columns, yielding ``UsageCapture``'s rows.

    The columns hold the scalar resources only of those some plugin asked about: those are read
    from the NodeInfos of the nodes that have any."""

    __slots__ = ("_names", "_zone_codes", "_zones", "_amounts", "_scalars")

    def __init__(self, columns: Any) -> None:
        self._names = [node_info.name for node_info in columns.nodes]  # the columns' (snapshot's) order
        self._zone_codes, self._zones = columns.first_label_codes(_ZONE_LABELS)
        self._amounts = columns.fixed[list(_TAKEN_ROWS)]  # a copy: later cycles change the columns
        scalars: dict[int, tuple[dict | None, dict | None]] = {}
        for i, node_info in enumerate(columns.nodes):
            allocated, used = node_info.allocatable.scalar_resources, node_info.requested.scalar_resources
            if allocated or used:
                scalars[i] = (dict(allocated) if allocated else None, dict(used) if used else None)
        self._scalars = scalars

    def __iter__(self) -> Any:
        zones, scalars, no_scalars = self._zones, self._scalars, (None, None)
        for i, (name, code, amounts) in enumerate(zip(self._names, self._zone_codes.tolist(),
                                                       self._amounts.T.tolist())):
            a_cpu, a_memory, a_pods, a_ephemeral, r_cpu, r_memory, r_pods, r_ephemeral = amounts
            a_scalars, r_scalars = scalars.get(i, no_scalars)
            yield (name, zones[code] if code >= 0 else "", a_cpu, a_memory, a_pods, a_ephemeral, a_scalars,
                   r_cpu, r_memory, r_pods, r_ephemeral, r_scalars)


def _zone_name(node_info: Any) -> str:
    labels = node_info.labels or {}
    for label in _ZONE_LABELS:
        if labels.get(label):
            return labels[label]
    return ""
