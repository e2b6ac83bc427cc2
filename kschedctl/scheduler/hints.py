"""What would make it fit: per node and per blocking filter plugin, the smallest concrete change
that flips the verdict, found with the plugins' own evaluation.

Not upstream: kube-scheduler only reports a histogram of reasons. kschedctl takes each node the
pod does not fit, runs every filter plugin of the profile on it (as ``--all-filters`` does), and
for each plugin that says no, reads what it found (``Status.details`` and its PreFilter state)
to propose a change: the missing amount of a resource (and whether evicting lower-priority pods
of the node would free it), a toleration for the untolerated taint, the node label a node
selector or affinity term wants, the pods holding a host port, the pods to remove from an
overfull topology domain, the pods breaking (anti-)affinity, the zone or limit of a volume.

Every change is applied to a private copy of the node, the pod and the cycle state (pods are
removed and added through the PreFilter plugins' RemovePod/AddPod extensions, as preemption
does), and the plugin is asked again; a plugin that still says no gets its next change (a
second taint, a second constraint) until it says yes. A hint is ``verified`` when its plugin
accepted the changed node; ``fitsAfter`` on the node when every filter accepts it with all
hints applied. Nothing of this touches the verdicts, scores or messages of the cycle.

Nodes are ranked closest to fitting first: nodes whose hints make them fit, then fewest
blocking plugins, then smallest relative shortfall (missing amount / allocatable, pods to
remove / pods there).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.status import Code, Status
from kschedctl.framework.types import HostPortInfo, NodeInfo, PodInfo
from kschedctl.k8s.quantity import format_bytes, format_milli_cpu, humanize_bytes, int_value, milli_value
from kschedctl.k8s.resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, is_hugepage_resource_name
from kschedctl.k8s.selectors import (
    OP_DOES_NOT_EXIST,
    OP_EXISTS,
    OP_GT,
    OP_IN,
    OP_LT,
    OP_NOT_IN,
    node_selector_requirements_as_selector,
)
from kschedctl.k8s.tolerations import find_matching_untolerated_taint, taint_to_string
from kschedctl.scheduler.result import Hint, NodeHints

if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.framework.runtime import Framework
    from kschedctl.scheduler.result import ExplainResult

#: How many changes one plugin may need on one node before kschedctl gives up (taints, constraints).
MAX_STEPS = 16
#: Pods listed in one hint's text before "and N more".
TEXT_PODS = 3
#: The taint the node lifecycle controller puts on cordoned nodes.
UNSCHEDULABLE_TAINT_KEY = "node.kubernetes.io/unschedulable"

_REJECTED = frozenset({Code.Unschedulable, Code.UnschedulableAndUnresolvable, Code.Pending})

#: Change kinds ``Scenario.apply`` simulates; the others (raiseVolumeLimit, ...) are advice.
SIMULATED_KINDS = frozenset({"addToleration", "setNodeName", "setNodeLabel", "removeNodeLabel", "uncordon",
                             "raiseAllocatable", "removePods", "addPod"})


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------


def attach_hints(result: "ExplainResult", fwk: "Framework", snapshot: Any, pod_info: PodInfo) -> None:
    """Give ``result`` its hints: every node's for an Unschedulable pod, and a provider that
    computes one node's on request (``ExplainResult.hints_for``, used by ``--node``)."""
    handle = fwk.handle
    engine = HintEngine(fwk, snapshot, pod_info, cluster=handle.cluster(), nominator=handle.nominator)
    result.hint_provider = engine.hints_for_node
    if result.outcome != "Unschedulable":
        return
    result.pod_hints = engine.pod_hints()
    if result.pod_hints:
        return  # every node got the same PreFilter rejection: the change is to the pod or cluster
    summaries: list[NodeHints] = []
    for node in result.nodes:
        if node.feasible:
            continue
        hints, summary = engine.evaluate(node.name)
        if summary is None:
            continue
        node.hints = hints
        summaries.append(summary)
    result.hints = rank(summaries)


def rank(summaries: list[NodeHints]) -> list[NodeHints]:
    """Closest to fitting first: fits with the hints, fewest blocking plugins, smallest shortfall."""
    ordered = sorted(summaries, key=lambda s: (not s.fits_after, len(s.blocking_plugins), s.shortfall))
    for i, s in enumerate(ordered, start=1):
        s.rank = i
    return ordered


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
            if getattr(pl, "not_implemented", False) is True or not callable(fn) or pl.name in skip:
                continue
            self.filters.append((pl.name, fn, pl))

    # -- pod level ----------------------------------------------------------------------------
    def pod_hints(self) -> list[Hint]:
        """Hints when PreFilter rejected the pod everywhere (the change is the pod's or the cluster's)."""
        with self._pod_context():
            self._prepare()
        s = self.prefilter_status
        if s is None or s.code not in _REJECTED:
            return []
        return [_prefilter_hint(s)]

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

    def _fix(self, plugin: str, status: Status, scen: "Scenario") -> Hint | None:
        """Changes for ``plugin`` until it accepts the scenario's node (or no change is known)."""
        fn = next((f for n, f, _ in self.filters if n == plugin), None)
        if fn is None:
            return None
        status = _call(fn, scen.state, scen.pod_info, scen.node_info)  # earlier changes may have fixed it
        if status is None or status.code == Code.Success:
            return None
        remedy = REMEDIES.get(plugin)
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
            text=" and ".join(_dedupe(s.text for s in steps)),
            changes=[c for s in steps for c in s.changes],
            details=_merge_details(steps),
            verified=verified,
            resolvable=any(s.changes for s in steps),
            shortfall=round(sum(s.shortfall for s in steps), 6),
            alternatives=[a for s in steps for a in s.alternatives],
            reasons=_dedupe(r for s in steps for r in s.reasons),
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


# ---------------------------------------------------------------------------------------------
# Scenario: private copies of the pod, the node and the cycle state, changed step by step
# ---------------------------------------------------------------------------------------------


class Step:
    """One change (or a group) proposed for one plugin, with its one-line text."""

    __slots__ = ("text", "changes", "details", "shortfall", "alternatives", "reasons")

    def __init__(self, text: str, changes: list[dict], details: dict | None = None, shortfall: float = 0.0,
                 alternatives: list[dict] | None = None, reasons: list[str] | None = None) -> None:
        self.text = text
        self.changes = changes
        self.details = details or {}
        self.shortfall = shortfall
        self.alternatives = alternatives or []
        self.reasons = reasons or []


class Scenario:
    """The node, pod and cycle state of one what-if, copied on first write."""

    def __init__(self, engine: HintEngine, state: CycleState, pod_info: PodInfo, node_info: NodeInfo) -> None:
        self.engine = engine
        self.state = state
        self.pod_info = pod_info
        self.node_info = node_info
        self._own_state = False
        self._own_node = False
        self._raised: dict[str, int] = {}
        self.removed: set[str] = set()

    @property
    def name(self) -> str:
        return self.node_info.name

    def _state(self) -> CycleState:
        if not self._own_state:
            self.state = self.state.clone()
            self._own_state = True
        return self.state

    def _node(self) -> NodeInfo:
        if not self._own_node:
            self.node_info = self.node_info.clone()
            self._own_node = True
        return self.node_info

    def _set_node(self, node: dict) -> None:
        ni = self._node()
        ni.set_node(node)
        for resource, amount in self._raised.items():
            _add_resource(ni, resource, amount)

    def _pod(self, pod: dict) -> None:
        self.pod_info = PodInfo(pod)

    def apply(self, change: dict) -> None:
        """Apply one change (the JSON form of a hint's change) to the copies."""
        kind = change["kind"]
        if kind == "addToleration":
            pod = _copy_pod(self.pod_info.pod)
            pod["spec"]["tolerations"] = list(pod["spec"].get("tolerations") or []) + [change["toleration"]]
            self._pod(pod)
        elif kind == "setNodeName":
            pod = _copy_pod(self.pod_info.pod)
            pod["spec"]["nodeName"] = change["nodeName"]
            self._pod(pod)
        elif kind in ("setNodeLabel", "removeNodeLabel"):
            node = _copy_node(self.node_info.node or {})
            labels = node["metadata"]["labels"]
            if kind == "setNodeLabel":
                labels[change["key"]] = change["value"]
            else:
                labels.pop(change["key"], None)
            self._set_node(node)
        elif kind == "uncordon":
            node = _copy_node(self.node_info.node or {})
            node["spec"].pop("unschedulable", None)
            # The node lifecycle controller removes its taint when the node is uncordoned.
            node["spec"]["taints"] = [t for t in node["spec"].get("taints") or ()
                                      if t.get("key") != UNSCHEDULABLE_TAINT_KEY]
            self._set_node(node)
        elif kind == "raiseAllocatable":
            resource = change["resource"]
            amount = _parse_amount(resource, change["by"])
            self._raised[resource] = self._raised.get(resource, 0) + amount
            _add_resource(self._node(), resource, amount)
        elif kind == "removePods":
            for key in change["pods"]:
                self._remove_pod(key)
        elif kind == "addPod":
            self._add_pod(change)
        # Other kinds (e.g. raiseVolumeLimit) are advice only: nothing to simulate.

    def _remove_pod(self, key: str) -> None:
        if key in self.removed:
            return
        found = self.engine.pod_by_key(key)
        if found is None:
            return
        pi, ni = found
        self.removed.add(key)
        target = ni
        if ni.name == self.node_info.name:
            target = self._node()
            target.remove_pod(pi)
        self.engine.fwk.run_pre_filter_extension_remove_pod(self._state(), self.pod_info, pi, target)

    def _add_pod(self, change: dict) -> None:
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": change.get("name") or "hint-pod", "namespace": change.get("namespace") or "default",
                            "uid": f"kschedctl-hint/{change.get('name') or 'hint-pod'}",
                            "labels": dict(change.get("labels") or {})},
               "spec": {"nodeName": self.node_info.name, "containers": [{"name": "c", "image": "pause"}]}}
        pi = PodInfo(pod)
        ni = self._node()
        ni.add_pod(pi)
        self.engine.fwk.run_pre_filter_extension_add_pod(self._state(), self.pod_info, pi, ni)


def _copy_pod(pod: dict) -> dict:
    out = dict(pod)
    out["metadata"] = dict(pod.get("metadata") or {})
    out["spec"] = dict(pod.get("spec") or {})
    return out


def _copy_node(node: dict) -> dict:
    out = dict(node)
    meta = dict(node.get("metadata") or {})
    meta["labels"] = dict(meta.get("labels") or {})
    out["metadata"] = meta
    out["spec"] = dict(node.get("spec") or {})
    return out


def _add_resource(ni: NodeInfo, resource: str, amount: int) -> None:
    alloc = ni.allocatable
    if resource == CPU:
        alloc.milli_cpu += amount
    elif resource == MEMORY:
        alloc.memory += amount
    elif resource == EPHEMERAL_STORAGE:
        alloc.ephemeral_storage += amount
    elif resource == PODS:
        alloc.allowed_pod_number += amount
    else:
        alloc.scalar_resources[resource] = alloc.scalar_resources.get(resource, 0) + amount


# ---------------------------------------------------------------------------------------------
# Remedies, one per default filter plugin
# ---------------------------------------------------------------------------------------------


def _node_resources_fit(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    insufficient = (status.details or {}).get("insufficient") or []
    if not insufficient:
        return None
    texts, changes, short = [], [], []
    missing: dict[str, int] = {}
    unresolvable = False
    for d in insufficient:
        resource = d["resource"]
        need = d["requested"] - (d["capacity"] - d["used"])
        if need <= 0:
            continue
        missing[resource] = need
        unresolvable = unresolvable or bool(d.get("unresolvable"))
        if resource == PODS:
            texts.append(f"room for {need} more pod{'s' if need != 1 else ''} ({d['used']} of {d['capacity']} in use)")
        else:
            texts.append(f"{format_amount(resource, need, for_people=True)} more {resource}")
        changes.append({"kind": "raiseAllocatable", "node": scen.name, "resource": resource,
                        "by": format_amount(resource, need), "to": format_amount(resource, d["capacity"] + need)})
        short.append(need / max(d["capacity"], d["requested"], 1))
    if not changes:
        return None
    eviction = _eviction(engine, scen, missing, unresolvable)
    text = "needs " + " and ".join(texts)
    if eviction.get("possible"):
        text += f" (evicting lower-priority {_pods_text(eviction['pods'])} would free it)"
    elif unresolvable:
        text += " (over the node's whole allocatable: eviction cannot help)"
    alternatives = []
    if eviction.get("possible"):
        alternatives.append({"text": f"evict lower-priority {_pods_text(eviction['pods'], limit=100)}",
                             "changes": [{"kind": "removePods", "pods": list(eviction["pods"])}]})
    details = {"missing": {r: format_amount(r, n) for r, n in missing.items()}, "eviction": eviction}
    return Step(text, changes, details, max(short), alternatives, list(status.reasons))


def _eviction(engine: HintEngine, scen: Scenario, missing: dict[str, int], unresolvable: bool) -> dict:
    """Would evicting the node's lower-priority pods free ``missing``? The victims are chosen as
    preemption chooses them on one node: all lower-priority pods first, then the highest-priority
    ones reprieved while the rest still frees enough. PDBs are not looked at."""
    pod = engine.pod_info
    lower = [p for p in scen.node_info.pods if p.priority < pod.priority]
    policy = (pod.pod.get("spec") or {}).get("preemptionPolicy") or "PreemptLowerPriority"
    out: dict[str, Any] = {"possible": False, "lowerPriorityPods": len(lower), "preemptionPolicy": policy}
    if unresolvable or not lower:
        return out

    def freed(pods: list[PodInfo]) -> dict[str, int]:
        return {r: (len(pods) if r == PODS else sum(p.requests.get(r) for p in pods)) for r in missing}

    def enough(amounts: dict[str, int]) -> bool:
        return all(amounts[r] >= n for r, n in missing.items())

    if not enough(freed(lower)):
        return out
    victims = list(lower)
    for p in sorted(lower, key=lambda p: -p.priority):  # reprieve the most important first
        rest = [v for v in victims if v is not p]
        if enough(freed(rest)):
            victims = rest
    out["possible"] = True
    out["pods"] = sorted(v.key for v in victims)
    out["freed"] = {r: format_amount(r, n) for r, n in freed(victims).items()}
    if policy == "Never":
        out["note"] = "the pod's preemptionPolicy is Never: the scheduler will not evict them itself"
    return out


def _taint_toleration(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    from kschedctl.plugins.helper import do_not_schedule_taints_filter

    taint = find_matching_untolerated_taint(scen.node_info.taints, scen.pod_info.tolerations,
                                            do_not_schedule_taints_filter)
    if taint is None:
        return None
    toleration = toleration_for(taint)
    text = taint_to_string(taint)
    return Step(f"needs a toleration for {text}",
                [{"kind": "addToleration", "toleration": toleration}],
                {"taints": [text]},
                alternatives=[{"text": f"remove the taint {text} from the node",
                               "changes": [{"kind": "removeNodeTaint", "node": scen.name, "taint": dict(taint)}]}],
                reasons=list(status.reasons))


def toleration_for(taint: dict) -> dict:
    """The narrowest toleration of ``taint``: key, value and effect (Exists when it has no value)."""
    tol: dict[str, Any] = {"key": taint.get("key") or ""}
    if taint.get("value"):
        tol["operator"] = "Equal"
        tol["value"] = taint["value"]
    else:
        tol["operator"] = "Exists"
    if taint.get("effect"):
        tol["effect"] = taint["effect"]
    return tol


def _node_unschedulable(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    node = scen.node_info.node or {}
    if not (node.get("spec") or {}).get("unschedulable"):
        return None
    tol = {"key": UNSCHEDULABLE_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}
    return Step("needs to be uncordoned (spec.unschedulable is true)",
                [{"kind": "uncordon", "node": scen.name}],
                {"unschedulable": True},
                alternatives=[{"text": f"add a toleration for {UNSCHEDULABLE_TAINT_KEY}:NoSchedule to the pod",
                               "changes": [{"kind": "addToleration", "toleration": tol}]}],
                reasons=list(status.reasons))


def _node_name(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    wanted = scen.pod_info.node_name
    if not wanted or wanted == scen.name:
        return None
    return Step(f"is not the node the pod names (spec.nodeName: {wanted})",
                [{"kind": "setNodeName", "nodeName": scen.name}],
                {"nodeName": wanted},
                alternatives=[{"text": "remove spec.nodeName from the pod", "changes": [{"kind": "unsetNodeName"}]}],
                reasons=list(status.reasons))


def _node_affinity(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    labels = dict(scen.node_info.labels)
    name = scen.name
    changes: list[dict] = []
    details: dict[str, Any] = {}
    texts: list[str] = []
    plugin = next((pl for n, _, pl in engine.filters if n == "NodeAffinity"), None)
    added = ((getattr(plugin, "args", None) or {}).get("addedAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution")
    if added is not None:
        found = _best_term(added.get("nodeSelectorTerms") or [], labels, name)
        if found is None:
            return _impossible("no term of the scheduler's addedAffinity can match this node by its labels",
                               status)
        term, label_changes = found
        if label_changes:
            details["addedAffinityTerm"] = term
        changes.extend(label_changes)
        _apply_labels(labels, label_changes)
    spec = scen.pod_info.pod.get("spec") or {}
    for key, value in (spec.get("nodeSelector") or {}).items():
        if labels.get(key) != value:
            changes.append({"kind": "setNodeLabel", "node": name, "key": key, "value": str(value)})
            labels[key] = str(value)
            details.setdefault("nodeSelector", {})[key] = value
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution")
    if isinstance(required, dict):
        found = _best_term(required.get("nodeSelectorTerms") or [], labels, name)
        if found is None:
            names = _named_nodes(required.get("nodeSelectorTerms") or [])
            if names:
                return Step(f"is not among the nodes the pod's node affinity names ({', '.join(names)})",
                            [{"kind": "addNodeAffinityName", "nodeName": name}],
                            {"matchFieldsNames": names}, shortfall=0.0, reasons=list(status.reasons))
            return _impossible("no required node affinity term of the pod can match this node", status)
        term, label_changes = found
        if label_changes:
            details["term"] = term
        changes.extend(label_changes)
    if not changes:
        return None
    for c in changes:
        if c["kind"] == "setNodeLabel":
            texts.append(f"label {c['key']}={c['value']}" if c["value"] else f"label {c['key']} (any value)")
        else:
            texts.append(f"label {c['key']} removed")
    return Step("needs " + " and ".join(_dedupe(texts)), changes, details, reasons=list(status.reasons))


def _best_term(terms: list, labels: dict, name: str) -> tuple[int, list[dict]] | None:
    """The term needing the fewest label changes to match (index, changes), None if none can."""
    best: tuple[int, list[dict]] | None = None
    for i, term in enumerate(terms):
        if not isinstance(term, dict) or (not term.get("matchExpressions") and not term.get("matchFields")):
            continue  # an empty term matches nothing, whatever the labels
        if not _fields_match(term.get("matchFields") or [], name):
            continue
        reqs = _requirements_in_order(term.get("matchExpressions") or [])
        if reqs is None:
            continue  # a term that does not parse never matches
        changes: list[dict] = []
        trial = dict(labels)
        ok = True
        for req in reqs:
            if req.matches(trial):
                continue
            change = _label_change_for(req, name)
            if change is None:
                ok = False
                break
            changes.append(change)
            _apply_labels(trial, [change])
        if not ok or not all(r.matches(trial) for r in reqs):
            continue
        if best is None or len(changes) < len(best[1]):
            best = (i, changes)
    return best


def _requirements_in_order(exprs: list) -> list | None:
    """The term's requirements in the order the user wrote them (the parsed selector sorts them)."""
    out = []
    for expr in exprs:
        selector, errors = node_selector_requirements_as_selector([expr])
        if errors or selector is None:
            return None
        out.extend(getattr(selector, "requirements", ()))
    return out


def _label_change_for(req: Any, node: str) -> dict | None:
    op, key, values = req.operator, req.key, list(req.values)
    if op in (OP_IN, "=", "=="):
        return {"kind": "setNodeLabel", "node": node, "key": key, "value": sorted(values)[0]} if values else None
    if op in (OP_NOT_IN, "!=", OP_DOES_NOT_EXIST):
        return {"kind": "removeNodeLabel", "node": node, "key": key}
    if op == OP_EXISTS:
        return {"kind": "setNodeLabel", "node": node, "key": key, "value": ""}
    if op in (OP_GT, OP_LT) and len(values) == 1:
        try:
            bound = int(values[0])
        except ValueError:
            return None
        return {"kind": "setNodeLabel", "node": node, "key": key, "value": str(bound + 1 if op == OP_GT else bound - 1)}
    return None


def _apply_labels(labels: dict, changes: list[dict]) -> None:
    for c in changes:
        if c["kind"] == "setNodeLabel":
            labels[c["key"]] = c["value"]
        elif c["kind"] == "removeNodeLabel":
            labels.pop(c["key"], None)


def _fields_match(fields: list, name: str) -> bool:
    for f in fields:
        if not isinstance(f, dict) or f.get("key") != "metadata.name":
            return False
        values = f.get("values") or []
        inside = name in values
        if (f.get("operator") == "In") != inside:
            return False
    return True


def _named_nodes(terms: list) -> list[str]:
    out: list[str] = []
    for term in terms:
        for f in (term or {}).get("matchFields") or ():
            if f.get("key") == "metadata.name" and f.get("operator") == "In":
                out.extend(v for v in f.get("values") or () if v not in out)
    return out


def _node_ports(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    used = scen.node_info.used_ports
    holders: dict[str, list[str]] = {}
    for ip, protocol, port in scen.pod_info.host_ports:
        if not used.check_conflict(ip, protocol, port):
            continue
        label = f"{port}/{protocol or 'TCP'}" + (f" on {ip}" if ip and ip != "0.0.0.0" else "")
        for other in scen.node_info.pods:
            mine = HostPortInfo()
            for oip, oproto, oport in other.host_ports:
                mine.add(oip, oproto, oport)
            if len(mine) and mine.check_conflict(ip, protocol, port):
                holders.setdefault(label, []).append(other.key)
    if not holders:
        return None
    pods = sorted({k for keys in holders.values() for k in keys})
    parts = [f"host port {label} freed (held by {_pods_text(keys)})" for label, keys in holders.items()]
    return Step("needs " + " and ".join(parts), [{"kind": "removePods", "pods": pods}],
                {"ports": holders}, shortfall=len(pods) / max(len(scen.node_info.pods), 1),
                alternatives=[{"text": "use other hostPort values in the pod", "changes": []}],
                reasons=list(status.reasons))


def _pod_topology_spread(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    from kschedctl.plugins.pod_topology_spread import PRE_FILTER_STATE_KEY
    from kschedctl.plugins.pod_topology_spread_common import count_pods_match_selector

    d = status.details or {}
    key = d.get("topologyKey")
    try:
        s = scen.state.read(PRE_FILTER_STATE_KEY)
    except KeyError:
        return None
    index = next((i for i, c in enumerate(s.constraints) if c.topology_key == key), None)
    if index is None:
        return None
    c = s.constraints[index]
    counts = dict(s.tp_value_to_match_num[index])
    if "skew" not in d:
        # The node lacks the topology key: give it the least filled domain's value.
        if not counts:
            return _impossible(f"no node has the topology key {key}", status)
        value = min(sorted(counts), key=lambda v: counts[v])
        return Step(f"needs label {key} (e.g. {key}={value}, the least filled domain)",
                    [{"kind": "setNodeLabel", "node": scen.name, "key": key, "value": value}],
                    {"constraint": c.to_dict(), "domainCounts": counts}, reasons=list(status.reasons))
    value = d["topologyValue"]
    excess = d["skew"] - d["maxSkew"]
    cache_key = ("pts", index, value)
    candidates = engine.memo.get(cache_key)
    if candidates is None:
        # Matching pods of the domain, as PreFilter counted them (namespace, not terminating,
        # node inclusion), lowest priority first; once per domain, not once per node.
        candidates = []
        for ni in engine.domain_nodes(key, value):
            if s.inclusion is not None and not s.inclusion.matches(c, ni):
                continue
            for p in ni.pods:
                if count_pods_match_selector((p,), c, engine.pod_info.namespace):
                    candidates.append(p)
        candidates.sort(key=lambda p: (p.priority, p.key))
        engine.memo[cache_key] = candidates
    chosen: list[PodInfo] = []
    for p in candidates:
        if len(chosen) >= excess:
            break
        if p.key not in scen.removed:
            chosen.append(p)
    details = {"constraint": c.to_dict(), "topologyValue": value, "skew": d["skew"], "maxSkew": d["maxSkew"],
               "minMatchNum": d.get("minMatchNum"), "domainCounts": counts,
               "domains": d.get("domains"), "minDomains": d.get("minDomains")}
    text = (f"needs {excess} fewer matching pod{'s' if excess != 1 else ''} in {key}={value} "
            f"(skew {d['skew']} > maxSkew {d['maxSkew']}; {_counts_text(counts)})")
    alternatives = [{"text": f"raise maxSkew of the {key} constraint to {d['skew']}",
                     "changes": [{"kind": "setMaxSkew", "topologyKey": key, "maxSkew": d["skew"]}]}]
    if len(chosen) < excess:
        return Step(text, [], details, shortfall=excess / max(d.get("matchNum") or 1, 1),
                    alternatives=alternatives, reasons=list(status.reasons))
    return Step(text, [{"kind": "removePods", "pods": [p.key for p in chosen]}], details,
                shortfall=excess / max(d.get("matchNum") or 1, 1), alternatives=alternatives,
                reasons=list(status.reasons))


def _inter_pod_affinity(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    from kschedctl.plugins.inter_pod_affinity_filtering import (
        ERR_REASON_AFFINITY_RULES_NOT_MATCH,
        ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
        PRE_FILTER_STATE_KEY,
    )

    try:
        s = scen.state.read(PRE_FILTER_STATE_KEY)
    except KeyError:
        return None
    d = status.details or {}
    reason = status.reasons[0] if status.reasons else ""
    if reason == ERR_REASON_AFFINITY_RULES_NOT_MATCH:
        i = d.get("term", 0)
        if i >= len(s.affinity_terms):
            return None
        term = s.affinity_terms[i]
        key = term.topology_key
        domains = sorted({v for (k, v), n in s.affinity.counts.items() if k == key and n > 0})
        if d.get("missingTopologyKey"):
            if not domains:
                return _impossible(f"no node with label {key} runs a pod matching the affinity terms", status)
            return Step(f"needs label {key} (e.g. {key}={domains[0]}, where matching pods run)",
                        [{"kind": "setNodeLabel", "node": scen.name, "key": key, "value": domains[0]}],
                        {"term": i, "topologyKey": key, "domainsWithMatchingPods": domains},
                        reasons=list(status.reasons))
        labels = _labels_matching(s.affinity_terms)
        ns = sorted(term.namespaces)[0] if term.namespaces else engine.pod_info.namespace
        value = d.get("topologyValue")
        text = f"needs a pod matching {_selectors_text(s.affinity_terms)} in {key}={value}"
        if domains:
            more = " ..." if len(domains) > TEXT_PODS else ""
            text += f" (such pods run in {key}={', '.join(domains[:TEXT_PODS])}{more})"
        changes = [] if labels is None else [{"kind": "addPod", "node": scen.name, "namespace": ns,
                                              "name": "hint-affinity-peer", "labels": labels}]
        return Step(text, changes, {"term": i, "topologyKey": key, "topologyValue": value,
                                    "domainsWithMatchingPods": domains}, reasons=list(status.reasons))
    pair = (d.get("topologyKey"), d.get("topologyValue"))
    counts = s.anti if reason == ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH else s.existing_anti
    pods = [p for p in counts.pods_of(pair) if p not in scen.removed] or list(d.get("pods") or ())
    if not pods:
        return None
    if reason == ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH:
        text = f"needs {_pods_text(pods)} gone from {pair[0]}={pair[1]} (the pod's anti-affinity)"
    else:
        text = f"needs {_pods_text(pods)} gone from {pair[0]}={pair[1]} (their anti-affinity rejects the pod)"
    domain_pods = sum(len(ni.pods) for ni in engine.domain_nodes(pair[0], pair[1]))
    return Step(text, [{"kind": "removePods", "pods": pods}],
                {"topologyKey": pair[0], "topologyValue": pair[1], "pods": pods},
                shortfall=len(pods) / max(domain_pods, 1), reasons=list(status.reasons))


def _labels_matching(terms: list) -> dict | None:
    """Labels a new pod would need to match every term's selector (None when unclear)."""
    labels: dict[str, str] = {}
    for term in terms:
        sel = term.selector
        if getattr(sel, "nothing", False):
            return None
        for req in getattr(sel, "requirements", ()):
            if req.operator in (OP_IN, "=", "==") and req.values:
                labels.setdefault(req.key, sorted(req.values)[0])
            elif req.operator == OP_EXISTS:
                labels.setdefault(req.key, "x")
    for term in terms:
        if not term.selector.matches(labels):
            return None
    return labels


def _selectors_text(terms: list) -> str:
    return " and ".join(f"[{term.selector}]" for term in terms) or "[]"


def _volume_zone(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    d = status.details or {}
    label, values = d.get("label"), d.get("volumeValues") or []
    if not label or not values:
        return None
    return Step(f"needs label {label} in ({', '.join(values)}) where PersistentVolume {d.get('volume')} is "
                f"(node has {d.get('nodeValue') if d.get('nodeValue') is not None else 'none'})",
                [{"kind": "setNodeLabel", "node": scen.name, "key": label, "value": values[0]}],
                dict(d), reasons=list(status.reasons))


def _volume_restrictions(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    d = status.details or {}
    if d.get("pod"):
        pods = [d["pod"]]
        text = f"needs {d['pod']} gone (it uses the same disk as volume {d.get('volume')})"
    elif d.get("claims"):
        # The claims are names in the pod's namespace; a scheduled pod using one holds it.
        ns = engine.pod_info.namespace
        claims = {f"{ns}/{c}" for c in d["claims"]}
        memo_key = ("rwop", tuple(sorted(claims)))
        users = engine.memo.get(memo_key)
        if users is None:
            users = engine.memo[memo_key] = sorted(
                pi.key for ni in engine.snapshot.node_infos() for pi in ni.pods if claims & set(pi.pvc_keys))
        pods = [k for k in users if k not in scen.removed]
        if not pods:
            return None
        text = f"needs {_pods_text(pods)} gone (ReadWriteOncePod claim {', '.join(sorted(claims))} in use)"
    else:
        return None
    return Step(text, [{"kind": "removePods", "pods": pods}], dict(d), shortfall=len(pods) / max(
        len(scen.node_info.pods), 1), reasons=list(status.reasons))


def _node_volume_limits(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    d = status.details or {}
    if "limit" not in d:
        return None
    over = d["attached"] + d["new"] - d["limit"]
    return Step(f"needs room for {over} more {d['driver']} volume{'s' if over != 1 else ''} "
                f"({d['attached']} attached + {d['new']} new > limit {d['limit']})",
                [{"kind": "raiseVolumeLimit", "node": scen.name, "driver": d["driver"],
                  "to": d["attached"] + d["new"]}],
                dict(d), shortfall=over / max(d["limit"], 1), reasons=list(status.reasons))


def _volume_binding(engine: HintEngine, scen: Scenario, status: Status) -> Step | None:
    d = status.details or {}
    facts = []
    if d.get("claim") and d.get("volume"):
        facts.append(f"claim {d['claim']} is bound to PersistentVolume {d['volume']}, whose node affinity "
                     f"excludes this node")
    elif d.get("claim") and d.get("selectedNode"):
        facts.append(f"claim {d['claim']} is already being provisioned for node {d['selectedNode']}")
    if d.get("unmatchedClaims"):
        facts.append(f"no available PersistentVolume for {', '.join(d['unmatchedClaims'])} fits this node")
    if not facts:
        return None
    # Advice only: volumes cannot be moved by a label change kschedctl could check.
    return Step("cannot get its volumes here: " + "; ".join(facts), [], dict(d), shortfall=1.0,
                reasons=list(status.reasons))


def _impossible(text: str, status: Status) -> Step:
    return Step(text, [], {}, shortfall=1.0, reasons=list(status.reasons))


#: plugin name -> remedy(engine, scenario, status) -> Step | None
REMEDIES: dict[str, Callable[[HintEngine, Scenario, Status], Step | None]] = {
    "NodeResourcesFit": _node_resources_fit,
    "TaintToleration": _taint_toleration,
    "NodeUnschedulable": _node_unschedulable,
    "NodeName": _node_name,
    "NodeAffinity": _node_affinity,
    "NodePorts": _node_ports,
    "PodTopologySpread": _pod_topology_spread,
    "InterPodAffinity": _inter_pod_affinity,
    "VolumeZone": _volume_zone,
    "VolumeRestrictions": _volume_restrictions,
    "NodeVolumeLimits": _node_volume_limits,
    "VolumeBinding": _volume_binding,
}


# ---------------------------------------------------------------------------------------------
# PreFilter rejections (every node): the change is the pod's or the cluster's
# ---------------------------------------------------------------------------------------------


def _prefilter_hint(s: Status) -> Hint:
    d = dict(s.details or {})
    reason = s.message()
    if d.get("claims"):
        text = f"needs PersistentVolumeClaims {', '.join(d['claims'])} bound first ({reason})"
    elif d.get("claim"):
        text = f"needs PersistentVolumeClaim {d['claim']} to exist and be usable ({reason})"
    elif reason == "pod affinity terms conflict":
        text = "needs node affinity terms that name at least one node (its matchFields name none)"
    else:
        text = f"is rejected by {s.plugin or 'PreFilter'} on every node: {reason}"
    return Hint(plugin=s.plugin or "PreFilter", text=text, changes=[], details=d, verified=False,
                resolvable=False, reasons=list(s.reasons))


# ---------------------------------------------------------------------------------------------
# Formatting
# ---------------------------------------------------------------------------------------------


def format_amount(resource: str, amount: int, for_people: bool = False) -> str:
    """An amount of ``resource`` as a quantity: cpu from millicores, bytes binary-SI, others plain.

    ``for_people`` rounds bytes to a readable unit (hint texts); details and changes stay exact.
    """
    if resource == CPU:
        return format_milli_cpu(amount)
    if resource in (MEMORY, EPHEMERAL_STORAGE) or is_hugepage_resource_name(resource):
        return humanize_bytes(amount) if for_people else format_bytes(amount)
    return str(amount)


def _parse_amount(resource: str, text: str) -> int:
    return milli_value(text) if resource == CPU else int_value(text)


def _pods_text(pods: list[str], limit: int = TEXT_PODS) -> str:
    if len(pods) <= limit:
        return ", ".join(pods)
    return ", ".join(pods[:limit]) + f" and {len(pods) - limit} more"


def _counts_text(counts: dict[str, int], limit: int = 6) -> str:
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    text = ", ".join(f"{k}: {v}" for k, v in items[:limit])
    return "domains " + text + (" ..." if len(items) > limit else "")


def _unresolved_text(plugin: str, status: Status | None) -> str:
    reasons = "; ".join(status.reasons) if status is not None and status.reasons else "rejected"
    return f"is rejected by {plugin} ({reasons}); kschedctl knows no change that would flip it"


def _dedupe(items: Any) -> list[str]:
    return list(dict.fromkeys(items))


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
