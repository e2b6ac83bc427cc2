"""The hint engine: runs the profile's filters on copies of one pod's nodes, asks each plugin that
says no for its remedy, applies it and asks again (kschedctl.analyses.remedies explains the whole)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.status import Code, Status
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.k8s.resources import CPU, MEMORY, is_extended_resource_name
from kschedctl.plugins.names import NODE_RESOURCES_FIT, TAINT_TOLERATION
from kschedctl.plugins.registry import facts_of
from kschedctl.plugins.remedy import Step, dedupe
from kschedctl.analyses.remedies.prefilter import prefilter_hint
from kschedctl.scheduler.outcome import Outcome
from kschedctl.analyses.remedies.scenario import SIMULATED_KINDS, Scenario
from kschedctl.scheduler.result import Hint, NodeHints

if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.framework.runtime import Framework
    from kschedctl.scheduler.result import ExplainResult


#: How many changes one plugin may need on one node before kschedctl gives up (taints, constraints).
MAX_STEPS = 16

#: The codes of a plugin that said no (an Error is no verdict a change could flip).
REJECTED = frozenset({Code.Unschedulable, Code.UnschedulableAndUnresolvable, Code.Pending})


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------


def attach_hints(result: ExplainResult, fwk: Framework, snapshot: Any, pod_info: PodInfo,
                 nodes: Iterable[str] = ()) -> None:
    """Give ``result`` its hints: every node's for an Unschedulable pod, and those of ``nodes``
    (``--node``) whatever the outcome, so that the result holds them as plain data."""
    handle = fwk.handle
    engine = HintEngine(fwk, snapshot, pod_info, cluster=handle.cluster(), nominator=handle.nominator)
    if result.outcome == Outcome.UNSCHEDULABLE:
        result.pod_hints = engine.pod_hints()
        if not result.pod_hints:  # else every node got the same PreFilter rejection: the change is to the pod
            summaries: list[NodeHints] = []
            for node in result.nodes:
                if node.feasible:
                    continue
                hints, summary = engine.evaluate(node.name)
                if summary is None:
                    continue
                node.hints = hints
                summaries.append(summary)
            result.hints = rank(summaries, _dedicated_elsewhere(engine, summaries))
    for name in nodes:
        node = result.node(name)
        if node is not None and not node.hints and not node.feasible:
            node.hints = engine.hints_for_node(name)


def rank(summaries: list[NodeHints], dedicated: frozenset[str] = frozenset()) -> list[NodeHints]:
    """Closest to fitting first: fits with the hints, fewest blocking plugins, smallest shortfall;
    the ``dedicated`` nodes (``_dedicated_elsewhere``) after every other."""
    ordered = sorted(summaries, key=lambda s: (s.node in dedicated, not s.fits_after, len(s.blocking_plugins),
                                               s.shortfall))
    for i, s in enumerate(ordered, start=1):
        s.rank = i
    return ordered


def _dedicated_elsewhere(engine: "HintEngine", summaries: list[NodeHints]) -> frozenset[str]:
    """The nodes whose fix is tolerating a taint they carry while they offer an extended resource
    (``nvidia.com/gpu``) the pod does not ask for: a dedicated pool, whose taint keeps such pods
    out on purpose. Proposing the toleration as the closest fix would send a pod that is merely too
    big for the other nodes to the GPUs; those nodes go last, and when the fix that leads then is
    about size, it says how much the nodes without such taints have free at most."""
    asked = set(engine.pod_info.requests.scalar_resources)
    out = set()
    for summary in summaries:
        if TAINT_TOLERATION not in summary.blocking_plugins:
            continue
        node_info = engine.snapshot.get_or_none(summary.node)
        if node_info is None:
            continue
        offered = {name for name, amount in node_info.allocatable.scalar_resources.items()
                   if amount > 0 and is_extended_resource_name(name)}
        if offered and not offered & asked:
            out.add(summary.node)
    if not out:
        return frozenset()
    others = [s for s in summaries if s.node not in out]
    lead = min(others, key=lambda s: (not s.fits_after, len(s.blocking_plugins), s.shortfall), default=None)
    if lead is not None and NODE_RESOURCES_FIT in lead.blocking_plugins:
        most = _most_free_untainted(engine, out)
        if most:
            lead.text = f"no untainted node has more than {most}: {lead.text}"
    return frozenset(out)


def _most_free_untainted(engine: "HintEngine", dedicated: set[str]) -> str:
    """``3.92 cpu free`` over the schedulable nodes whose taints the pod tolerates, for each
    resource the pod asks for and some such node lacks."""
    from kschedctl.k8s.tolerations import find_matching_untolerated_taint
    from kschedctl.plugins.remedy import format_amount

    want = engine.pod_info.requests
    best: dict[str, int] = {}
    for ni in engine.snapshot.node_infos():
        node = ni.node or {}
        if ni.name in dedicated or (node.get("spec") or {}).get("unschedulable"):
            continue
        if find_matching_untolerated_taint(ni.taints, engine.pod_info.tolerations,
                                           lambda t: t.get("effect") in ("NoSchedule", "NoExecute")):
            continue
        have, used = ni.allocatable, ni.requested
        for resource, need, free in ((CPU, want.milli_cpu, have.milli_cpu - used.milli_cpu),
                                     (MEMORY, want.memory, have.memory - used.memory)):
            if need > 0:
                best[resource] = max(best.get(resource, 0), free)
    short = [(r, free) for r, free in best.items() if free < (want.milli_cpu if r == CPU else want.memory)]
    return " and ".join(f"{format_amount(r, free, for_people=True)} {r} free" for r, free in short)


# ---------------------------------------------------------------------------------------------
# The engine
# ---------------------------------------------------------------------------------------------


class HintEngine:
    """Runs the profile's filters on copies of one pod's nodes and asks them what would pass.

    ``cluster`` and ``nominator`` are the pod's own (the framework's handle is shared by every pod
    an Explainer explains, so they are put back in place for each computation).
    """

    def __init__(self, fwk: "Framework", snapshot: Any, pod_info: PodInfo, cluster: Any = None,
                 nominator: Any = None) -> None:
        self.fwk = fwk
        self.snapshot = snapshot
        self.pod_info = pod_info
        self.cluster = cluster
        self.nominator = nominator
        self._prepared = False
        self.state: CycleState | None = None
        self.prefilter_status: Status | None = None
        self.filters: list[tuple[str, Callable, Any]] = []
        self._pods: dict[str, tuple[PodInfo, NodeInfo]] | None = None
        self._cache: dict[str, tuple[list[Hint], NodeHints | None]] = {}
        #: What remedies compute once per pod rather than once per node (domain members, ...).
        self.memo: dict[Any, Any] = {}
        self._domains: dict[str, dict[str, list[NodeInfo]]] = {}

    # -- context ------------------------------------------------------------------------------
    @contextmanager
    def _pod_context(self) -> Iterator[None]:
        """The handle as this pod's cycle saw it, and no trace recording (hints are not the cycle)."""
        fwk, handle = self.fwk, self.fwk.handle
        saved = (fwk.trace, handle.cluster(), handle.nominator)
        fwk.trace = None
        if self.cluster is not None:
            handle.set_cluster(self.cluster)
        if self.nominator is not None:
            handle.nominator = self.nominator
        try:
            yield
        finally:
            fwk.trace = saved[0]
            handle.set_cluster(saved[1])
            handle.nominator = saved[2]

    def _prepare(self) -> None:
        """PreFilter once on a fresh cycle state; the filter plugins that would run after it."""
        if self._prepared:
            return
        self._prepared = True
        state = CycleState()
        _, status, _ = self.fwk.run_pre_filter_plugins(state, self.pod_info)
        self.state = state
        if status is not None and status.code != Code.Success:
            self.prefilter_status = status
            return
        skip = state.skip_filter_plugins
        for pl in self.fwk.plugins.get("filter", ()):
            fn = getattr(pl, "filter", None)
            if not callable(fn) or pl.name in skip:
                continue
            self.filters.append((pl.name, fn, pl))

    # -- pod level ----------------------------------------------------------------------------
    def pod_hints(self) -> list[Hint]:
        """Hints when PreFilter rejected the pod everywhere (the change is the pod's or the cluster's)."""
        with self._pod_context():
            self._prepare()
        s = self.prefilter_status
        if s is None or s.code not in REJECTED:
            return []
        return [prefilter_hint(s)]

    # -- node level ---------------------------------------------------------------------------
    def hints_for_node(self, name: str) -> list[Hint]:
        """The hints of one node (empty when it fits or is unknown)."""
        return self.evaluate(name)[0]

    def evaluate(self, name: str) -> tuple[list[Hint], NodeHints | None]:
        """(hints, summary) for node ``name``; summary None when every filter accepts it."""
        cached = self._cache.get(name)
        if cached is not None:
            return cached
        with self._pod_context():
            self._prepare()
            out = self._evaluate(name)
        self._cache[name] = out
        return out

    def _evaluate(self, name: str) -> tuple[list[Hint], NodeHints | None]:
        node_info = self.snapshot.get_or_none(name) if hasattr(self.snapshot, "get_or_none") else None
        if node_info is None or self.state is None or self.prefilter_status is not None:
            return [], None
        state, node, nominated = self._with_nominated(self.state, node_info)
        failing = self._failing(state, self.pod_info, node)
        if not failing:
            return [], None
        scen = Scenario(self, state, self.pod_info, node)
        hints: list[Hint] = []
        for plugin, status in failing:
            hint = self._fix(plugin, status, scen)
            if hint is not None:
                hints.append(hint)
        # A change for one plugin may upset another (rare): fix what newly fails, once.
        left = self._failing(scen.state, scen.pod_info, scen.node_info)
        blocking = [p for p, _ in failing]
        for plugin, status in left:
            if plugin not in blocking and not any(h.plugin == plugin for h in hints):
                hint = self._fix(plugin, status, scen)
                if hint is not None:
                    hint.details["causedByOtherHints"] = True
                    hints.append(hint)
        fits_after = not self._failing(scen.state, scen.pod_info, scen.node_info)
        summary = NodeHints(
            node=name,
            blocking_plugins=blocking,
            text=f"{name} " + "; ".join(h.text for h in hints),
            fits_after=fits_after,
            shortfall=round(sum(h.shortfall for h in hints), 6),
            nominated_pods_considered=nominated,
        )
        return hints, summary

    def _with_nominated(self, state: CycleState, node_info: NodeInfo) -> tuple[CycleState, NodeInfo, bool]:
        """The node as the stricter filter pass sees it: with the nominated pods of equal or
        higher priority added (upstream's first pass of RunFilterPluginsWithNominatedPods)."""
        nominator = self.fwk.handle.nominator
        nominated = nominator.nominated_pods_for_node(node_info.name) if nominator else []
        priority, uid = self.pod_info.priority, self.pod_info.uid
        ge = [pi for pi in nominated if pi.priority >= priority and pi.uid != uid]
        if not ge:
            return state, node_info, False
        node_out, state_out = node_info.clone(), state.clone()
        for pi in ge:
            node_out.add_pod(pi)
            self.fwk.run_pre_filter_extension_add_pod(state_out, self.pod_info, pi, node_out)
        return state_out, node_out, True

    def _failing(self, state: CycleState, pod_info: PodInfo, node_info: NodeInfo) -> list[tuple[str, Status]]:
        out = []
        for name, fn, _ in self.filters:
            status = _call(fn, state, pod_info, node_info)
            if status is not None and status.code != Code.Success:
                out.append((name, status))
        return out

    def _fix(self, plugin: str, status: Status, scen: Scenario) -> Hint | None:
        """Changes for ``plugin`` until it accepts the scenario's node (or no change is known)."""
        fn = next((f for n, f, _ in self.filters if n == plugin), None)
        if fn is None:
            return None
        status = _call(fn, scen.state, scen.pod_info, scen.node_info)  # earlier changes may have fixed it
        if status is None or status.code == Code.Success:
            return None
        facts = facts_of(plugin)
        remedy = facts.remedy if facts is not None else None
        steps: list[Step] = []
        for _ in range(MAX_STEPS):
            step = remedy(self, scen, status) if remedy is not None else None
            if step is None:
                break
            steps.append(step)
            for change in step.changes:
                scen.apply(change)
            if not step.changes or any(c["kind"] not in SIMULATED_KINDS for c in step.changes):
                break  # advice only: asking the plugin again would give the same answer
            status = _call(fn, scen.state, scen.pod_info, scen.node_info)
            if status is None or status.code == Code.Success:
                break
        verified = bool(steps) and (status is None or status.code == Code.Success)
        if not steps:
            return Hint(plugin=plugin, text=_unresolved_text(plugin, status), changes=[],
                        details=_jsonable_details(status), verified=False, resolvable=False,
                        reasons=list(status.reasons))
        hint = Hint(
            plugin=plugin,
            text=" and ".join(dedupe(s.text for s in steps)),
            changes=[c for s in steps for c in s.changes],
            details=_merge_details(steps),
            verified=verified,
            resolvable=any(s.changes for s in steps),
            shortfall=round(sum(s.shortfall for s in steps), 6),
            alternatives=[a for s in steps for a in s.alternatives],
            reasons=dedupe(r for s in steps for r in s.reasons),
        )
        if not verified:
            hint.details["stillRejected"] = list(status.reasons) if status is not None else []
        return hint

    # -- cluster lookups ----------------------------------------------------------------------
    def domain_nodes(self, key: str, value: str) -> list[NodeInfo]:
        """The nodes whose label ``key`` is ``value`` (indexed once per key)."""
        index = self._domains.get(key)
        if index is None:
            index = self._domains[key] = {}
            for ni in self.snapshot.node_infos():
                v = ni.labels.get(key)
                if v is not None:
                    index.setdefault(v, []).append(ni)
        return index.get(value, [])

    def pod_by_key(self, key: str) -> tuple[PodInfo, NodeInfo] | None:
        """An existing pod of the snapshot and its node, by "namespace/name"."""
        if self._pods is None:
            self._pods = {}
            for ni in self.snapshot.node_infos():
                for pi in ni.pods:
                    self._pods.setdefault(pi.key, (pi, ni))
        return self._pods.get(key)


def _call(fn: Callable, state: CycleState, pod_info: PodInfo, node_info: NodeInfo) -> Status | None:
    """A filter call on a what-if copy; a plugin that raises says Error rather than breaking the report."""
    try:
        return fn(state, pod_info, node_info)
    except Exception as exc:
        return Status(Code.Error, f"{type(exc).__name__}: {exc}")




def _unresolved_text(plugin: str, status: Status | None) -> str:
    reasons = "; ".join(status.reasons) if status is not None and status.reasons else "rejected"
    return f"is rejected by {plugin} ({reasons}); kschedctl knows no change that would flip it"


def _merge_details(steps: list[Step]) -> dict:
    """One step's details as they are; several steps' lists joined (taints), else one entry each."""
    if len(steps) == 1:
        return dict(steps[0].details)
    merged: dict[str, Any] = {}
    for step in steps:
        for k, v in step.details.items():
            if k not in merged:
                merged[k] = list(v) if isinstance(v, list) else v
            elif isinstance(merged[k], list) and isinstance(v, list):
                merged[k] += [x for x in v if x not in merged[k]]
            elif merged[k] != v:
                return {"steps": [dict(s.details) for s in steps]}
    return merged


def _jsonable_details(status: Status | None) -> dict:
    return dict(status.details) if status is not None and status.details else {}
