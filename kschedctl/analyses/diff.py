"""``diff``: the same pods on the same cluster under two profiles (A and B), side by side.

Two ways to run the pods, each reusing what the single-profile commands do:

- pod by pod (:func:`diff_pods`): every pod is explained against the same unchanged cluster under
  A and under B (:class:`~kschedctl.analyses.explain.Explainer`); for a pod that lands elsewhere,
  the per-plugin weighted scores of its two nodes under both profiles show what decided it;
- as a batch (:func:`diff_simulations`): both sides run the whole batch with the simulator
  (:mod:`kschedctl.scheduler.simulate`) and the two runs are compared: placements, the first pod
  whose placement diverges, the pods left unschedulable, usage per node and zone, and a
  spread/packing summary.

Both sides use the same tie-break seed (0 unless given), so that equal top scores are broken the
same way and only the profiles differ. ``DiffResult.to_dict()`` is ``kind: DiffResult``.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Sequence

from kschedctl.scheduler.outcome import Outcome
from kschedctl.scheduler.result import ExplainResult, NodeResult

#: The seed both sides use when none is given: a diff must not depend on a random tie-break.
DEFAULT_SEED = 0


@dataclass
class Side:
    """One side of the comparison: its label, configuration file and profile."""

    label: str
    config: str | None = None
    profile: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "config": self.config, "profile": self.profile}


@dataclass
class Placed:
    """Where a pod ended up under one side."""

    outcome: Outcome
    node: str | None = None
    message: str = ""
    nominated_node: str | None = None

    def key(self) -> tuple[str, str | None, str | None]:
        """What must be equal on both sides for the placement to count as unchanged."""
        return self.outcome, self.node, self.nominated_node

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"outcome": self.outcome, "node": self.node, "message": self.message}
        if self.nominated_node:
            out["nominatedNode"] = self.nominated_node
        return out


@dataclass
class PluginScoreChange:
    """One score plugin on the two nodes of a moved pod: weighted scores under A and under B.

    The margin is (score on B's node) - (score on A's node); ``change`` = margin under B - margin
    under A: a positive change pushed the pod towards B's node.
    """

    plugin: str
    a_from: int | None = None
    a_to: int | None = None
    b_from: int | None = None
    b_to: int | None = None
    weight_a: int | None = None
    weight_b: int | None = None

    @property
    def margin_a(self) -> int | None:
        return None if self.a_from is None or self.a_to is None else self.a_to - self.a_from

    @property
    def margin_b(self) -> int | None:
        return None if self.b_from is None or self.b_to is None else self.b_to - self.b_from

    @property
    def change(self) -> int | None:
        ma, mb = self.margin_a, self.margin_b
        if ma is None and mb is None:
            return None
        return (mb or 0) - (ma or 0)

    def to_dict(self) -> dict[str, Any]:
        return {"plugin": self.plugin, "weightA": self.weight_a, "weightB": self.weight_b,
                "a": {"from": self.a_from, "to": self.a_to}, "b": {"from": self.b_from, "to": self.b_to},
                "marginA": self.margin_a, "marginB": self.margin_b, "change": self.change}


@dataclass
class ScoreDiff:
    """Why a pod moved from ``from_node`` (its node under A) to ``to_node`` (under B)."""

    from_node: str
    to_node: str
    plugins: list[PluginScoreChange] = field(default_factory=list)
    total_a: dict[str, int | None] = field(default_factory=dict)
    total_b: dict[str, int | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: The notes that say a filter decided (one node not feasible, or not evaluated, on one side).
    filter_notes: list[str] = field(default_factory=list)
    #: Set when the two nodes tie at the top on a side: the move is the random tie-break's, not a score's.
    tie: str = ""

    def deciding(self) -> list[PluginScoreChange]:
        """The plugins whose change pushed the pod towards B's node, largest first."""
        return [p for p in self.plugins if (p.change or 0) > 0]

    def to_dict(self) -> dict[str, Any]:
        out = {"from": self.from_node, "to": self.to_node, "totalA": dict(self.total_a),
               "totalB": dict(self.total_b), "plugins": [p.to_dict() for p in self.plugins],
               "notes": list(self.notes)}
        if self.tie:
            out["tie"] = self.tie
        return out


@dataclass
class PodDiff:
    """One pod under both sides."""

    pod: str
    a: Placed | None
    b: Placed | None
    score_diff: ScoreDiff | None = None
    reason: str = ""

    @property
    def moved(self) -> bool:
        """True when the placement differs (node, outcome, or nominated node)."""
        if self.a is None or self.b is None:
            return True
        return self.a.key() != self.b.key()

    def to_dict(self) -> dict[str, Any]:
        return {"pod": self.pod, "moved": self.moved, "a": None if self.a is None else self.a.to_dict(),
                "b": None if self.b is None else self.b.to_dict(), "reason": self.reason,
                "scoreDiff": None if self.score_diff is None else self.score_diff.to_dict()}


@dataclass
class UsageSide:
    """Requested/allocatable of one node or zone under one side."""

    placed: int
    requested: dict[str, str]
    allocatable: dict[str, str]
    cpu: float | None
    memory: float | None
    nodes: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"placedPods": self.placed, "requested": dict(self.requested),
                               "allocatable": dict(self.allocatable), "cpuFraction": self.cpu,
                               "memoryFraction": self.memory}
        if self.nodes is not None:
            out["nodes"] = self.nodes
        return out


@dataclass
class UsageDiff:
    """A node (or zone) under both sides."""

    name: str
    a: UsageSide | None
    b: UsageSide | None
    zone: str | None = None

    @property
    def changed(self) -> bool:
        return (self.a.placed if self.a else 0) != (self.b.placed if self.b else 0) or \
            (self.a.requested if self.a else {}) != (self.b.requested if self.b else {})

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.zone is not None:
            out["zone"] = self.zone
        out["a"] = None if self.a is None else self.a.to_dict()
        out["b"] = None if self.b is None else self.b.to_dict()
        return out


@dataclass
class SpreadSummary:
    """How one side spread or packed the batch."""

    pods: int
    scheduled: int
    unschedulable: int
    nodes_used: int
    empty_nodes: int
    max_pods_on_a_node: int
    pods_per_zone: dict[str, int]
    zone_skew: int
    cpu: dict[str, float | None]
    memory: dict[str, float | None]

    def to_dict(self) -> dict[str, Any]:
        return {"pods": self.pods, "scheduled": self.scheduled, "unschedulable": self.unschedulable,
                "nodesUsed": self.nodes_used, "emptyNodes": self.empty_nodes,
                "maxPodsOnANode": self.max_pods_on_a_node, "podsPerZone": dict(self.pods_per_zone),
                "zoneSkew": self.zone_skew, "cpu": dict(self.cpu), "memory": dict(self.memory)}


@dataclass
class DiffResult:
    """The comparison (contract extension: ``kind: DiffResult``)."""

    mode: str
    a: Side
    b: Side
    pods: list[PodDiff] = field(default_factory=list)
    seed: int | None = DEFAULT_SEED
    first_divergence: PodDiff | None = None
    first_divergence_index: int | None = None
    unschedulable_a: list[str] = field(default_factory=list)
    unschedulable_b: list[str] = field(default_factory=list)
    nodes: list[UsageDiff] = field(default_factory=list)
    zones: list[UsageDiff] = field(default_factory=list)
    spread_a: SpreadSummary | None = None
    spread_b: SpreadSummary | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def moved(self) -> list[PodDiff]:
        return [p for p in self.pods if p.moved]

    @property
    def identical(self) -> bool:
        """True when every pod is placed the same way under both sides."""
        return not self.moved

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": "DiffResult",
            "mode": self.mode,
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "identical": self.identical,
            "seed": self.seed,
            "summary": {"pods": len(self.pods), "moved": len(self.moved),
                        "scheduledA": sum(1 for p in self.pods
                                          if p.a is not None and p.a.outcome == Outcome.SCHEDULED),
                        "scheduledB": sum(1 for p in self.pods
                                          if p.b is not None and p.b.outcome == Outcome.SCHEDULED)},
            "pods": [p.to_dict() for p in self.pods],
        }
        if self.mode == "simulate":
            out["firstDivergence"] = None if self.first_divergence is None else {
                "index": self.first_divergence_index, **self.first_divergence.to_dict()}
            out["unschedulable"] = {"a": list(self.unschedulable_a), "b": list(self.unschedulable_b)}
            out["nodes"] = [n.to_dict() for n in self.nodes]
            out["zones"] = [z.to_dict() for z in self.zones]
            out["spread"] = {"a": self.spread_a.to_dict() if self.spread_a else None,
                             "b": self.spread_b.to_dict() if self.spread_b else None}
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


# ---------------------------------------------------------------------------------------------
# Pod by pod (explain)
# ---------------------------------------------------------------------------------------------


def placed_of(result: ExplainResult) -> Placed:
    """The placement an explain result describes."""
    nominated = result.preemption.nominated_node if result.preemption is not None else None
    return Placed(result.outcome, result.selected_node, result.message, nominated)


def _scores(node: NodeResult | None) -> dict[str, Any]:
    return {} if node is None else {s.plugin: s for s in node.scores}


def _filter_note(result: ExplainResult, node_name: str, label: str) -> str | None:
    node = result.node(node_name)
    if node is None:
        return f"{node_name} is not a node under {label}"
    if not node.evaluated:
        return f"{node_name} was not evaluated under {label} (percentageOfNodesToScore stopped the search earlier)"
    if not node.feasible:
        verdict = node.verdict()
        if verdict is not None:
            return f"{node_name} does not pass the filters under {label}: {verdict.plugin}: " \
                   f"{'; '.join(verdict.reasons) or verdict.code}"
        return f"{node_name} does not pass the filters under {label}"
    return None


def score_diff(a: ExplainResult, b: ExplainResult, labels: tuple[str, str] = ("A", "B")) -> ScoreDiff | None:
    """Per score plugin, the weighted scores of the pod's node under A and its node under B, under both.

    None unless the pod is scheduled under both sides, on different nodes.
    """
    if a.selected_node is None or b.selected_node is None or a.selected_node == b.selected_node:
        return None
    x, y = a.selected_node, b.selected_node
    a_x, a_y = _scores(a.node(x)), _scores(a.node(y))
    b_x, b_y = _scores(b.node(x)), _scores(b.node(y))
    names = list(dict.fromkeys([*a.score_plugins, *b.score_plugins, *a_x, *a_y, *b_x, *b_y]))
    out = ScoreDiff(x, y)
    for name in names:
        change = PluginScoreChange(name)
        if name in a_x:
            change.a_from, change.weight_a = a_x[name].weighted, a_x[name].weight
        if name in a_y:
            change.a_to, change.weight_a = a_y[name].weighted, a_y[name].weight
        if name in b_x:
            change.b_from, change.weight_b = b_x[name].weighted, b_x[name].weight
        if name in b_y:
            change.b_to, change.weight_b = b_y[name].weighted, b_y[name].weight
        if all(v is None for v in (change.a_from, change.a_to, change.b_from, change.b_to)):
            continue
        out.plugins.append(change)
    # Largest pushes towards B's node first, then the ones that pulled back.
    out.plugins.sort(key=lambda p: (-(p.change or 0), p.plugin))
    for node_name in (x, y):
        na, nb = a.node(node_name), b.node(node_name)
        out.total_a[node_name] = na.total_score if na is not None else None
        out.total_b[node_name] = nb.total_score if nb is not None else None
    la, lb = labels
    for note in (_filter_note(a, y, la), _filter_note(b, x, lb)):
        if note:
            out.notes.append(note)
            out.filter_notes.append(note)
    _note_ties(out, ((b.tied_nodes, lb, y), (a.tied_nodes, la, x)))
    return out


def _note_ties(out: ScoreDiff, sides: Iterable[tuple[Sequence[str], str, str]]) -> None:
    """Equal top scores are broken by the seeded random pick: say so, it is not a score difference;
    when both nodes are among them, the move itself is that pick (``tie``)."""
    for tied, label, picked in sides:
        if len(tied) > 1:
            out.notes.append(f"under {label}, {', '.join(tied)} tie at the top: the random tie-break picked {picked}")
            if not out.tie and out.from_node in tied and out.to_node in tied:
                out.tie = (f"a tie under {label}: {out.from_node} and {out.to_node} score the same at the top, "
                           f"the random tie-break picked {picked}")


def _reason(a: Placed, b: Placed, sd: ScoreDiff | None, labels: tuple[str, str]) -> str:
    la, lb = labels
    if a.key() == b.key():
        return ""
    if a.outcome != Outcome.SCHEDULED and b.outcome == Outcome.SCHEDULED:
        return f"{a.outcome} under {la}" + (f": {a.message}" if a.message else "")
    if b.outcome != Outcome.SCHEDULED and a.outcome == Outcome.SCHEDULED:
        return f"{b.outcome} under {lb}" + (f": {b.message}" if b.message else "")
    if sd is None:
        if a.nominated_node != b.nominated_node:
            return f"preemption nominates {a.nominated_node or 'no node'} under {la}, " \
                   f"{b.nominated_node or 'no node'} under {lb}"
        return f"{a.outcome} under {la}, {b.outcome} under {lb}"
    if sd.tie and not sd.filter_notes:
        return sd.tie
    parts = [f"{p.plugin} {p.change:+d}" for p in sd.deciding()[:3]]
    if sd.filter_notes:
        # A filter verdict decided it; the scores only say how the newly feasible node ranks.
        text = "; ".join(sd.filter_notes)
        if parts and sd.total_b.get(sd.to_node) is not None:
            text += f"; under {lb} it scores {sd.total_b.get(sd.to_node)} vs {sd.total_b.get(sd.from_node)}"
        return text
    if not parts:
        return sd.notes[0] if sd.notes else f"{sd.to_node} over {sd.from_node}"
    text = f"{sd.to_node} gained over {sd.from_node}: " + ", ".join(parts)
    if sd.notes:
        text += f" ({sd.notes[0]})"
    return text


def compare_results(a: ExplainResult, b: ExplainResult, labels: tuple[str, str] = ("A", "B")) -> PodDiff:
    """One pod's explain results under A and B, compared."""
    pa, pb = placed_of(a), placed_of(b)
    sd = score_diff(a, b, labels) if pa.key() != pb.key() else None
    return PodDiff(a.pod, pa, pb, sd, _reason(pa, pb, sd, labels))


def diff_pods(
    items: Iterable[Any],
    cluster: Any,
    config_a: Any,
    config_b: Any,
    side_a: Side | None = None,
    side_b: Side | None = None,
    registry: Any = None,
    seed: int | None = DEFAULT_SEED,
    all_filters: bool = False,
    extenders: bool = True,
) -> DiffResult:
    """Explain each pod under A and under B against the same unchanged cluster and compare.

    ``items`` are pod dicts or ``PodToExplain`` objects (which bring their owners into the
    cluster view of their own pod). ``config_b`` may be the same object as ``config_a`` (two
    profiles of one file): one snapshot serves both sides then.
    """
    from kschedctl.analyses.explain import Explainer

    side_a = side_a or Side("A")
    side_b = side_b or Side("B")
    explainer_a = Explainer(cluster, config_a, registry=registry, seed=seed, all_filters=all_filters,
                            extenders=extenders)
    explainer_b = explainer_a if config_b is config_a else Explainer(
        cluster, config_b, registry=registry, seed=seed, all_filters=all_filters, extenders=extenders)
    out = DiffResult("explain", side_a, side_b, seed=seed)
    labels = (side_a.label, side_b.label)
    for item in items:
        pod, view = (item, cluster) if isinstance(item, dict) else (item.pod, item.apply(cluster))
        ra = explainer_a.explain(pod, side_a.profile, cluster=view)
        rb = explainer_b.explain(pod, side_b.profile, cluster=view)
        out.pods.append(compare_results(ra, rb, labels))
        for w in [*ra.warnings, *rb.warnings]:
            if w not in out.warnings:
                out.warnings.append(w)
    return out


# ---------------------------------------------------------------------------------------------
# Whole batches (simulate)
# ---------------------------------------------------------------------------------------------


def _placed_of_simulation(p: Any) -> Placed:
    return Placed(p.outcome, p.node, p.message, p.nominated_node if p.outcome != Outcome.SCHEDULED else None)


def _usage_side(u: Any, nodes: int | None = None) -> UsageSide:
    from kschedctl.scheduler.simulation_result import format_resources

    cpu, mem = u.fraction("cpu"), u.fraction("memory")
    return UsageSide(u.placed, format_resources(u.requested), format_resources(u.allocatable),
                     None if cpu is None else round(cpu, 4), None if mem is None else round(mem, 4), nodes)


def _stats(values: Sequence[float]) -> dict[str, float | None]:
    if not values:
        return {"min": None, "max": None, "mean": None}
    return {"min": round(min(values), 4), "max": round(max(values), 4), "mean": round(sum(values) / len(values), 4)}


def spread_summary(result: Any) -> SpreadSummary:
    """Nodes used, per-zone balance and requested/allocatable spread of one simulation."""
    counts = result.counts()
    placed = [n.placed for n in result.nodes]
    per_zone = {z.name or "(no zone)": z.placed for z in result.zones}
    cpu = [f for f in (n.fraction("cpu") for n in result.nodes) if f is not None]
    mem = [f for f in (n.fraction("memory") for n in result.nodes) if f is not None]
    return SpreadSummary(
        pods=len(result.placements),
        scheduled=counts.get(Outcome.SCHEDULED, 0),
        unschedulable=len(result.placements) - counts.get(Outcome.SCHEDULED, 0),
        nodes_used=sum(1 for c in placed if c),
        empty_nodes=sum(1 for n in result.nodes if not n.requested.get("pods")),
        max_pods_on_a_node=max(placed, default=0),
        pods_per_zone=per_zone,
        zone_skew=(max(per_zone.values()) - min(per_zone.values())) if per_zone else 0,
        cpu=_stats(cpu),
        memory=_stats(mem),
    )


def diff_simulations(res_a: Any, res_b: Any, side_a: Side | None = None, side_b: Side | None = None,
                     seed: int | None = DEFAULT_SEED) -> DiffResult:
    """Compare two ``SimulationResult`` of the same batch on the same cluster."""
    side_a = side_a or Side("A")
    side_b = side_b or Side("B")
    labels = (side_a.label, side_b.label)
    out = DiffResult("simulate", side_a, side_b, seed=seed)
    by_b = {p.pod: p for p in res_b.placements}
    seen: set[str] = set()
    for p in res_a.placements:
        seen.add(p.pod)
        q = by_b.get(p.pod)
        pa = _placed_of_simulation(p)
        pb = None if q is None else _placed_of_simulation(q)
        out.pods.append(PodDiff(p.pod, pa, pb))
    for q in res_b.placements:
        if q.pod not in seen:
            out.pods.append(PodDiff(q.pod, None, _placed_of_simulation(q)))
    for i, d in enumerate(out.pods):
        d.reason = _sim_reason(d, labels)
        if d.moved and out.first_divergence is None:
            out.first_divergence, out.first_divergence_index = d, i
    out.unschedulable_a = [p.pod for p in res_a.placements if p.outcome != Outcome.SCHEDULED]
    out.unschedulable_b = [p.pod for p in res_b.placements if p.outcome != Outcome.SCHEDULED]
    nodes_b = {n.name: n for n in res_b.nodes}
    for n in res_a.nodes:
        m = nodes_b.get(n.name)
        out.nodes.append(UsageDiff(n.name, _usage_side(n), None if m is None else _usage_side(m), zone=n.zone))
    zones_b = {z.name: z for z in res_b.zones}
    for z in res_a.zones:
        w = zones_b.get(z.name)
        out.zones.append(UsageDiff(z.name, _usage_side(z, z.nodes), None if w is None else _usage_side(w, w.nodes)))
    out.spread_a, out.spread_b = spread_summary(res_a), spread_summary(res_b)
    for w in [*res_a.warnings, *res_b.warnings]:
        if w not in out.warnings:
            out.warnings.append(w)
    return out


def _sim_reason(d: PodDiff, labels: tuple[str, str]) -> str:
    la, lb = labels
    if d.a is None:
        return f"only in the run under {lb}"
    if d.b is None:
        return f"only in the run under {la}"
    if not d.moved:
        return ""
    if d.a.outcome == Outcome.SCHEDULED and d.b.outcome == Outcome.SCHEDULED:
        return f"{d.a.node} under {la}, {d.b.node} under {lb}"
    return _reason(d.a, d.b, None, labels)


def diff_simulate(
    pods: Sequence[dict],
    cluster: Any,
    config_a: Any,
    config_b: Any,
    side_a: Side | None = None,
    side_b: Side | None = None,
    registry: Any = None,
    seed: int | None = DEFAULT_SEED,
    include_cluster_pending: bool = True,
    max_attempts: int | None = None,
    extenders: bool = True,
) -> DiffResult:
    """Simulate the batch ``pods`` under A and under B (each on its own copy of the cluster) and compare."""
    from kschedctl.scheduler.simulate import Simulator

    side_a = side_a or Side("A")
    side_b = side_b or Side("B")
    results = []
    for cfg, side in ((config_a, side_a), (config_b, side_b)):
        kwargs: dict[str, Any] = {"registry": registry, "seed": seed, "extenders": extenders}
        if max_attempts is not None:
            kwargs["max_attempts"] = max_attempts
        results.append(lambda cfg=cfg, side=side, kwargs=kwargs: Simulator(cluster, cfg, **kwargs).run(
            list(pods), side.profile, include_cluster_pending=include_cluster_pending))
    out = diff_simulations(results[0](), results[1](), side_a, side_b, seed=seed)
    if not (extenders and calls_extenders(config_a, config_b)):
        explain_moves(out, results[0], results[1])
    return out


def calls_extenders(*configs: Any) -> bool:
    """Whether a run under these configurations calls extenders: ``explain_moves`` then does not
    run them again (an extender is a live service: each call is one more request to it)."""
    return any(getattr(cfg, "extenders", None) for cfg in configs)


# ---------------------------------------------------------------------------------------------
# Why a pod of a batch moved: the cycles that placed it
# ---------------------------------------------------------------------------------------------


@contextmanager
def _placing_cycles(keys: set[str]) -> Iterator[dict[str, Any]]:
    """The cycle that (last) placed each pod of ``keys`` in the runs made inside the block."""
    from kschedctl.scheduler.simulate import CYCLE_OBSERVER

    seen: dict[str, Any] = {}

    def observe(pod_info: Any, out: Any) -> None:
        if pod_info.key in keys and out.outcome == Outcome.SCHEDULED and out.selected_node:
            seen[pod_info.key] = out

    token = CYCLE_OBSERVER.set(observe)
    try:
        yield seen
    finally:
        CYCLE_OBSERVER.reset(token)


def _cycle_scores(out: Any) -> dict[str, dict[str, int]]:
    return {ns.name: dict(ns.scores) for ns in out.node_scores or ()}


def cycle_score_diff(a: Any, b: Any, labels: tuple[str, str] = ("A", "B")) -> ScoreDiff:
    """``score_diff`` from the two cycles that placed a pod of a batch (A's on ``x``, B's on ``y``):
    the weighted scores each side gave both nodes at that moment of its own run."""
    x, y = a.selected_node, b.selected_node
    scores_a, scores_b = _cycle_scores(a), _cycle_scores(b)
    a_x, a_y, b_x, b_y = (scores_a.get(x, {}), scores_a.get(y, {}), scores_b.get(x, {}), scores_b.get(y, {}))
    out = ScoreDiff(x, y)
    for name in dict.fromkeys([*a_x, *a_y, *b_x, *b_y]):
        out.plugins.append(PluginScoreChange(name, a_x.get(name), a_y.get(name), b_x.get(name), b_y.get(name),
                                             a.weights.get(name), b.weights.get(name)))
    out.plugins.sort(key=lambda p: (-(p.change or 0), p.plugin))
    totals_a = {ns.name: ns.total_score for ns in a.node_scores or ()}
    totals_b = {ns.name: ns.total_score for ns in b.node_scores or ()}
    out.total_a = {x: totals_a.get(x), y: totals_a.get(y)}
    out.total_b = {x: totals_b.get(x), y: totals_b.get(y)}
    la, lb = labels
    for cycle, node, picked, label in ((a, y, x, la), (b, x, y, lb)):
        if cycle.feasible_nodes == 1:
            note = f"{node} was not feasible under {label} when the pod was placed: {picked} was the only feasible node"
        elif node not in (totals_a if cycle is a else totals_b):
            note = f"{node} was not among the feasible nodes under {label} when the pod was placed"
        else:
            continue
        out.notes.append(note)
        out.filter_notes.append(note)
    _note_ties(out, ((b.tied_nodes, lb, y), (a.tied_nodes, la, x)))
    return out


def explain_moves(out: DiffResult, run_a: Callable[[], Any], run_b: Callable[[], Any]) -> None:
    """Give each pod of a batch diff that is placed under both sides, on different nodes, the
    deciding plugins, as pod mode does: both runs are made again (same seed, same answers) with
    the cycles that placed those pods kept, and their scores compared. Only when some pod moved,
    and not with extenders (see ``calls_extenders``), whose moved pods keep the plain reason."""
    moved = {d.pod: d for d in out.pods if d.moved and d.a is not None and d.b is not None
             and d.a.outcome == Outcome.SCHEDULED and d.b.outcome == Outcome.SCHEDULED and d.a.node and d.b.node}
    if not moved:
        return
    labels = (out.a.label, out.b.label)
    with _placing_cycles(set(moved)) as cycles_a:
        run_a()
    with _placing_cycles(set(moved)) as cycles_b:
        run_b()
    for key, d in moved.items():
        ca, cb = cycles_a.get(key), cycles_b.get(key)
        if ca is None or cb is None or ca.selected_node != d.a.node or cb.selected_node != d.b.node:
            continue  # not the same run again (a custom plugin with its own randomness): keep the plain reason
        d.score_diff = cycle_score_diff(ca, cb, labels)
        d.reason = _reason(d.a, d.b, d.score_diff, labels)


__all__ = ["DiffResult", "PodDiff", "Placed", "ScoreDiff", "PluginScoreChange", "Side", "SpreadSummary",
           "UsageDiff", "UsageSide", "DEFAULT_SEED", "compare_results", "diff_pods", "diff_simulate",
           "diff_simulations", "placed_of", "score_diff", "spread_summary", "cycle_score_diff", "explain_moves"]
