"""Result objects of ``explain``; ``to_dict()`` is the contract's JSON (camelCase keys).

Fields the contract fixes: kind, pod, profile, outcome, selectedNode, message, evaluatedNodes,
feasibleNodes, stages, nodes (name, evaluated, feasible, filters, scores, totalScore) and
preemption. kschedctl adds (the contract allows new fields): tiedNodes, numNodesToFind,
scoringSkippedUpstream, provisionalNode, seed, and per node rank, tied,
nominatedPodsConsidered, and ``allocations`` (the devices DynamicResources would allocate to the
pod's ResourceClaims on the node: per claim, its request, driver, pool and device); with
extenders configured, ``extenders`` (each extender's settings,
whether it was interested in the pod, its calls and notes such as "bindVerb is never called")
and ``warnings``. For an Unschedulable pod, "what would make it fit" (kschedctl.analyses.remedies):
per node ``hints`` (one per blocking filter plugin: text, changes, details, verified), a ranked
top-level ``hints`` summary (one line per node, closest to fitting first) and ``podHints`` when
PreFilter rejected the pod on every node. Extender verdicts and scores are entries of nodes[].filters / nodes[].scores
named ``extender:<urlPrefix>``. ``decision`` is the answer in brief, computed from the fields above
(``Decision``): for a scheduled pod the runner-up, the margin and the plugins that decided it; for
one that is not, the blocking plugins with their node counts; ``specNodeName``
when the pod names its node itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kschedctl.framework.extender import PLUGIN_PREFIX as EXTENDER_PLUGIN_PREFIX
from kschedctl.framework.status import Status
from kschedctl.scheduler.outcome import Outcome


def jsonable(value: Any) -> Any:
    """``value`` made of dicts, lists, strings, numbers, booleans and None only."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [jsonable(v) for v in value]
        return sorted(items, key=str) if isinstance(value, (set, frozenset)) else items
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return jsonable(to_dict())
    return str(value)


def _status_dict(status: Status | None) -> dict[str, Any]:
    if status is None:
        return {"code": "Success", "reasons": []}
    out: dict[str, Any] = {"code": str(status.code), "reasons": list(status.reasons)}
    if status.details:
        out["details"] = jsonable(status.details)
    return out


@dataclass(slots=True)
class StageResult:
    """One pod-level plugin call."""

    extension_point: str
    plugin: str
    status: Status | None
    extra: dict | None = None

    @property
    def code(self) -> str:
        return "Success" if self.status is None else str(self.status.code)

    @property
    def reasons(self) -> list[str]:
        return [] if self.status is None else list(self.status.reasons)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"extensionPoint": self.extension_point, "plugin": self.plugin}
        out.update(_status_dict(self.status))
        if self.extra:
            out.update(jsonable(self.extra))
        return out


@dataclass(slots=True)
class FilterResult:
    """One filter plugin's verdict on one node."""

    plugin: str
    status: Status | None

    @property
    def code(self) -> str:
        return "Success" if self.status is None else str(self.status.code)

    @property
    def reasons(self) -> list[str]:
        return [] if self.status is None else list(self.status.reasons)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"plugin": self.plugin}
        out.update(_status_dict(self.status))
        return out


@dataclass(slots=True)
class ScoreResult:
    """One score plugin on one node: raw -> normalized x weight = weighted."""

    plugin: str
    raw: int
    normalized: int
    weight: int
    weighted: int

    def to_dict(self) -> dict[str, Any]:
        return {"plugin": self.plugin, "raw": self.raw, "normalized": self.normalized, "weight": self.weight,
                "weighted": self.weighted}


@dataclass(slots=True)
class Hint:
    """What would flip one blocking filter plugin's verdict on one node (kschedctl.analyses.remedies).

    ``changes`` are YAML-ready edits (``{"kind": "addToleration", "toleration": {...}}``,
    ``raiseAllocatable``, ``setNodeLabel``, ``removeNodeLabel``, ``uncordon``, ``removePods``,
    ``addPod``, ``setNodeName``, ...); ``verified`` says the plugin accepted the node once they were
    applied to a copy; ``alternatives`` are other ways (``{"text", "changes"}``), not checked.
    """

    plugin: str
    text: str
    changes: list[dict] = field(default_factory=list)
    details: dict = field(default_factory=dict)
    verified: bool = False
    resolvable: bool = True
    shortfall: float = 0.0
    alternatives: list[dict] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"plugin": self.plugin, "text": self.text, "reasons": list(self.reasons),
                               "changes": jsonable(self.changes), "verified": self.verified}
        if not self.resolvable:
            out["resolvable"] = False
        if self.details:
            out["details"] = jsonable(self.details)
        if self.alternatives:
            out["alternatives"] = jsonable(self.alternatives)
        return out


@dataclass(slots=True)
class NodeHints:
    """One line of the ranked summary: a node, what blocks it, and whether the hints make it fit."""

    node: str
    blocking_plugins: list[str]
    text: str
    fits_after: bool
    shortfall: float = 0.0
    rank: int = 0
    nominated_pods_considered: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rank": self.rank, "node": self.node, "blockingPlugins": list(self.blocking_plugins),
                               "text": self.text, "fitsAfter": self.fits_after, "shortfall": self.shortfall}
        if self.nominated_pods_considered:
            out["nominatedPodsConsidered"] = True
        return out


@dataclass(slots=True)
class NodeResult:
    """Everything that happened to one node in the cycle."""

    name: str
    evaluated: bool
    feasible: bool
    filters: list[FilterResult] = field(default_factory=list)
    scores: list[ScoreResult] = field(default_factory=list)
    total_score: int | None = None
    rank: int | None = None
    tied: bool = False
    nominated_pods_considered: bool = False
    #: What would make the pod fit here (one per blocking filter plugin); see kschedctl.analyses.remedies.
    hints: list[Hint] = field(default_factory=list)

    def verdict(self) -> FilterResult | None:
        """The filter result that decided this node (the first non-success), if any."""
        for f in self.filters:
            if f.status is not None and f.status.code.name != "Success":
                return f
        return None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "evaluated": self.evaluated,
            "feasible": self.feasible,
            "filters": [f.to_dict() for f in self.filters],
            "scores": [s.to_dict() for s in self.scores],
            "totalScore": self.total_score,
        }
        if self.rank is not None:
            out["rank"] = self.rank
        if self.tied:
            out["tied"] = True
        if self.nominated_pods_considered:
            out["nominatedPodsConsidered"] = True
        if self.hints:
            out["hints"] = [h.to_dict() for h in self.hints]
        allocations = self.allocations()
        if allocations:
            out["allocations"] = allocations
        return out

    def allocations(self) -> list[dict]:
        """The devices a filter plugin would give the pod's ResourceClaims on this node
        (DynamicResources' Success details), one entry per claim."""
        for f in self.filters:
            status = f.status
            if status is not None and status.details and "allocations" in status.details:
                return list(jsonable(status.details["allocations"]))
        return []


@dataclass
class Preemption:
    nominated_node: str
    victims: list[str]
    #: kschedctl addition: every candidate node the dry run kept (victims, PDB violations, and the
    #: tie-break that chose or dropped it), as the PostFilter plugin reported them in its details.
    candidates: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"nominatedNode": self.nominated_node, "victims": list(self.victims)}
        if self.candidates:
            out["candidates"] = [dict(c) for c in self.candidates]
        return out


@dataclass(slots=True)
class Blocker:
    """The nodes one filter plugin rejected (the first plugin that said no on each), and its reasons."""

    plugin: str
    nodes: int
    reasons: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"plugin": self.plugin, "nodes": self.nodes, "reasons": list(self.reasons)}


@dataclass
class Decision:
    """Where the pod goes and why, in brief: what ``explain`` prints first.

    Scheduled: ``runner_up`` is the best-scored node after the chosen one, ``margin`` the
    difference of their totals, ``deciding`` each plugin's weighted difference (chosen minus
    runner-up), largest first, zeros left out; ``only_feasible`` when no other node passed the
    filters. Otherwise: ``blockers``, most nodes first, and ``fix``, the closest hint
    (kschedctl.analyses.remedies). ``spec_node_name`` is the pod's own spec.nodeName: such a pod
    never reaches kube-scheduler.
    """

    node: str | None = None
    runner_up: str | None = None
    margin: int | None = None
    deciding: list[tuple[str, int]] = field(default_factory=list)
    tied: list[str] = field(default_factory=list)
    only_feasible: bool = False
    blockers: list[Blocker] = field(default_factory=list)
    fix: str = ""
    spec_node_name: str = ""
    #: Why the chosen node won, in one sentence (empty when not scheduled, or for a pod with
    #: spec.nodeName, which ``note`` covers): what every renderer shows, so they agree.
    why: str = ""

    @property
    def note(self) -> str:
        """For a pod with spec.nodeName: who takes it instead of kube-scheduler (else empty)."""
        if not self.spec_node_name:
            return ""
        return (f"bound to {self.spec_node_name} already: that node's kubelet admits it (or rejects it: OutOfcpu, "
                "NodeAffinity, ...) without kube-scheduler, which only takes pods with no spec.nodeName. Below, "
                "what its plugins would say, for reference.")

    def to_dict(self) -> dict[str, Any]:
        """The JSON's ``decision``; ``fix`` stays out of it (it is ``hints[0].text`` or ``podHints[0].text``)."""
        out: dict[str, Any] = {}
        if self.runner_up is not None:
            out["runnerUp"] = self.runner_up
        if self.margin is not None:
            out["margin"] = self.margin
        if self.deciding:
            out["deciding"] = [{"plugin": p, "points": d} for p, d in self.deciding]
        if self.only_feasible:
            out["onlyFeasible"] = True
        if self.blockers:
            out["blockers"] = [b.to_dict() for b in self.blockers]
        if self.spec_node_name:
            out["specNodeName"] = self.spec_node_name
        return out


def decide(result: "ExplainResult") -> Decision:
    """The ``Decision`` of ``result``, from its nodes, scores and hints."""
    decision = Decision(node=result.selected_node, spec_node_name=result.spec_node_name,
                        tied=list(result.tied_nodes))
    counts: dict[str, int] = {}
    reasons: dict[str, dict[str, int]] = {}
    for verdict in result.rejecting_verdicts():
        counts[verdict.plugin] = counts.get(verdict.plugin, 0) + 1
        seen = reasons.setdefault(verdict.plugin, {})
        for reason in verdict.reasons or [verdict.code]:
            seen[reason] = seen.get(reason, 0) + 1
    decision.blockers = [
        Blocker(plugin, count, sorted(reasons[plugin], key=lambda r: -reasons[plugin][r]))
        for plugin, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    if result.pod_hints:
        first = result.pod_hints[0]
        decision.fix = first.text
    elif result.hints:
        decision.fix = result.hints[0].text
    chosen = result.node(result.selected_node) if result.selected_node else None
    if chosen is None:
        return decision
    feasible = [n for n in result.nodes if n.feasible]
    decision.only_feasible = len(feasible) == 1
    others = [n for n in result.nodes if n.total_score is not None and n.name != chosen.name]
    if chosen.total_score is not None and others:
        runner_up = min(others, key=lambda n: (-(n.total_score or 0), n.rank or 0))
        decision.runner_up = runner_up.name
        decision.margin = chosen.total_score - (runner_up.total_score or 0)
        theirs = {s.plugin: s.weighted for s in runner_up.scores}
        ours = {s.plugin: s.weighted for s in chosen.scores}
        differences = [(p, ours.get(p, 0) - theirs.get(p, 0)) for p in dict.fromkeys([*ours, *theirs])]
        decision.deciding = sorted(((p, d) for p, d in differences if d), key=lambda pd: -pd[1])
    decision.why = _why(result, decision, chosen)
    return decision


def _why(result: "ExplainResult", d: Decision, chosen: NodeResult) -> str:
    """``Decision.why`` of a scheduled pod: its margin over the runner-up and the plugins that
    made it (chosen minus runner-up, negative differences too), the tie and who broke it, or
    that no other node passed the filters."""
    node = chosen.name
    if d.spec_node_name:
        return ""  # the note says why
    if len(d.tied) > 1:
        seed = f"seed {result.seed}" if result.seed is not None else "no --seed: may differ between runs"
        score = f" at {chosen.total_score} points" if chosen.total_score is not None else ""
        return f"{len(d.tied)} nodes tie{score} ({name_list(d.tied)}); {node} was picked at random ({seed})"
    if d.only_feasible:
        rejected = sum(b.nodes for b in d.blockers)
        if not rejected:
            return f"{node} is the only feasible node"
        return (f"{node} is the only feasible node; the other {rejected} were rejected by "
                + ", ".join(f"{b.plugin} ({b.nodes})" for b in d.blockers))
    if d.runner_up is None or d.margin is None:
        return ""
    points = "point" if d.margin == 1 else "points"
    why = f"{node} by {d.margin} {points} over {d.runner_up}"
    if d.deciding:
        why += ": " + ", ".join(f"{plugin} {diff:+d}" for plugin, diff in d.deciding)
    return why


def name_list(names: list[str], limit: int = 8) -> str:
    """``names`` joined, the first ``limit`` only and how many more."""
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f", … (+{len(names) - limit})"


@dataclass
class ExplainResult:
    """The answer for one pod (contract: ``kind: ExplainResult``)."""

    pod: str
    profile: str
    outcome: Outcome
    selected_node: str | None
    message: str
    evaluated_nodes: int
    feasible_nodes: int
    stages: list[StageResult] = field(default_factory=list)
    nodes: list[NodeResult] = field(default_factory=list)
    preemption: Preemption | None = None
    tied_nodes: list[str] = field(default_factory=list)
    num_nodes_to_find: int = 0
    scoring_skipped_upstream: bool = False
    provisional_node: str | None = None
    seed: int | None = None
    all_filters: bool = False
    score_plugins: list[str] = field(default_factory=list)
    filter_plugins: list[str] = field(default_factory=list)
    #: Configured extenders as the cycle met them (see HTTPExtender.describe, plus interested/calls).
    extenders: list[dict] = field(default_factory=list)
    #: What did not stop the cycle but changes how to read it (ignorable extender failed, ...).
    warnings: list[str] = field(default_factory=list)
    #: Unschedulable pods: the nodes closest to fitting first, one line each (kschedctl.analyses.remedies).
    hints: list[NodeHints] = field(default_factory=list)
    #: Unschedulable at PreFilter on every node: what the pod or the cluster would need.
    pod_hints: list[Hint] = field(default_factory=list)
    #: The pod's own spec.nodeName: kube-scheduler never sees such a pod (the kubelet admits it).
    spec_node_name: str = ""

    @property
    def decision(self) -> Decision:
        """Where the pod goes and why, in brief (computed from the fields, so always current)."""
        return decide(self)

    @property
    def scheduled(self) -> bool:
        return self.outcome == Outcome.SCHEDULED

    def filter_columns(self, nodes: "list[NodeResult] | None" = None) -> list[str]:
        """The filters that ran on ``nodes`` (default: every node), in the order a matrix shows
        them: a PreFilter exclusion first, then the profile's filter plugins, extenders last."""
        nodes = self.nodes if nodes is None else nodes
        plugins = list(self.filter_plugins)
        extenders: list[str] = []
        for n in nodes:
            for f in n.filters:
                if f.plugin.startswith(EXTENDER_PLUGIN_PREFIX):
                    if f.plugin not in extenders:
                        extenders.append(f.plugin)  # extenders filter after the plugins
                elif f.plugin not in plugins:
                    plugins.insert(0, f.plugin)  # a PreFilter exclusion column comes first
        ran = {f.plugin for n in nodes for f in n.filters}
        return [p for p in plugins + extenders if p in ran]

    def rejections(self) -> list[tuple[str, str, str, int]]:
        """Filter rejections counted by (plugin, code, reason), most frequent first."""
        from kschedctl.scheduler.diagnosis import rejections_by_plugin

        entries = []
        for v in self.rejecting_verdicts():
            entries.extend((v.plugin, v.code, reason) for reason in v.reasons or [v.code])
        return rejections_by_plugin(entries)

    def rejecting_verdicts(self) -> list[FilterResult]:
        """The filter result that rejected each node the filters turned away, in node order: what
        the blockers (``decision``) and ``rejections`` both count."""
        out = []
        for n in self.nodes:
            if not n.feasible:
                v = n.verdict()
                if v is not None:
                    out.append(v)
        return out

    def node(self, name: str) -> NodeResult | None:
        for n in self.nodes:
            if n.name == name:
                return n
        return None

    def hints_for(self, name: str) -> list[Hint]:
        """Node ``name``'s hints (empty when it fits, or when they were not asked for: an
        Unschedulable pod has every node's; another pod those of ``Explainer.explain(hint_nodes=)``)."""
        n = self.node(name)
        return n.hints if n is not None else []

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": "ExplainResult",
            "pod": self.pod,
            "profile": self.profile,
            "outcome": self.outcome,
            "selectedNode": self.selected_node,
            "message": self.message,
            "evaluatedNodes": self.evaluated_nodes,
            "feasibleNodes": self.feasible_nodes,
            "stages": [s.to_dict() for s in self.stages],
            "nodes": [n.to_dict() for n in self.nodes],
            "preemption": self.preemption.to_dict() if self.preemption is not None else None,
            "tiedNodes": list(self.tied_nodes),
            "numNodesToFind": self.num_nodes_to_find,
            "scoringSkippedUpstream": self.scoring_skipped_upstream,
        }
        if self.provisional_node:
            out["provisionalNode"] = self.provisional_node
        if self.seed is not None:
            out["seed"] = self.seed
        if self.extenders:
            out["extenders"] = jsonable(self.extenders)
        if self.warnings:
            out["warnings"] = list(self.warnings)
        if self.hints:
            out["hints"] = [h.to_dict() for h in self.hints]
        if self.pod_hints:
            out["podHints"] = [h.to_dict() for h in self.pod_hints]
        decision = self.decision.to_dict()
        if decision:
            out["decision"] = decision
        return out


@dataclass
class ExplainResultList:
    """Several pods (contract: ``kind: ExplainResultList``)."""

    items: list[ExplainResult]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "ExplainResultList", "items": [r.to_dict() for r in self.items]}
