"""``capacity``: how many more copies of a pod fit, and what stops the next one.

The cluster-capacity question (kubernetes-sigs/cluster-capacity): copies of the pod are
scheduled one after another by the profile's full cycle, each placement assumed into the
snapshot for the next, until one copy does not fit. The answer is the number placed, the
number per node, and the message of the copy that did not fit (upstream's event text, e.g.
``0/3 nodes are available: 3 Insufficient cpu.``).

There is no default bound: the answer is the true count. When every plugin that acts on the
pod is node-local and a copy changes only the node it lands on (see ``closed_form_counts``),
each node's share is counted at once, without a cycle per copy: every node then takes copies
until it is full whatever order the scores choose, so the loop's final per-node counts are
those shares. The copies are assumed into the snapshot and the copy after them still runs the
real cycle, for upstream's message. Otherwise the copies run one cycle each, the node-local
filters' failing answers memoized per pod signature and node generation (``_LeanFramework``).

Preemption is not acted on: the question is what fits *beside* the running pods. When the
profile's PostFilter (DefaultPreemption) would make room by evicting pods, the message is
still the one upstream writes in that cycle, and ``preemptionPossible`` names the node and the
victims. Pending pods of the cluster state are not placed first; those with a nominated node
hold their room through the nominator, as they do for ``explain``.

``capacity_of_mix`` answers the same question for sets of several pods (``--ratio 3:1``).
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.status import Code
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.limits import CAPACITY_MAX_COPIES
from kschedctl.plugins import names
from kschedctl.plugins.node_resources_fit import PRE_FILTER_STATE_KEY as FIT_STATE_KEY
from kschedctl.plugins.registry import builtin_facts
from kschedctl.scheduler.outcome import Outcome
from kschedctl.scheduler.simulate import Simulator, pod_signature

#: How the count was found (``method`` in the JSON): each node's share counted at once, or one
#: scheduling cycle per copy.
PER_NODE = "perNode"
CYCLES = "cycles"


@dataclass
class CapacityResult:
    """The answer (contract: ``kind: CapacityResult``)."""

    pod: str
    count: int
    per_node: dict[str, int]
    stop_reason: str
    profile: str = ""
    outcome: Outcome | str = Outcome.UNSCHEDULABLE  # of the copy that stopped the run; "" when --max was reached
    limit_reached: bool = False
    max_copies: int | None = None  # --max; None: no bound given
    preemption_possible: dict[str, Any] | None = None
    seconds: float = 0.0
    seed: int | None = None
    method: str = CYCLES
    #: For the user (stderr), not part of the contract's JSON: skipped or failing extenders.
    warnings: list[str] = field(default_factory=list)
    #: Under a node what-if: the count on the cluster as it is (None without a what-if).
    baseline: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": "CapacityResult",
            "pod": self.pod,
            "count": self.count,
            "perNode": dict(self.per_node),
            "stopReason": self.stop_reason,
            "profile": self.profile,
            "stopOutcome": self.outcome,
            "limitReached": self.limit_reached,
            "max": self.max_copies,
            "preemptionPossible": self.preemption_possible,
            "method": self.method,
        }
        _add_baseline(out, self.count, self.baseline)
        if self.seed is not None:
            out["seed"] = self.seed
        return out


def _add_baseline(out: dict[str, Any], count: int, baseline: int | None) -> None:
    if baseline is not None:
        out["baseline"] = {"count": baseline, "change": count - baseline}


def change_against_today(count: int, baseline: int | None) -> str:
    """``+117 over today's 169``: a what-if's count beside the cluster as it is ("" without one)."""
    if baseline is None:
        return ""
    if count == baseline:
        return f"same as today's {baseline}"
    return f"{count - baseline:+d} {'over' if count > baseline else 'under'} today's {baseline}"


def _clone(pod: dict, index: int, tag: str = "") -> dict:
    """Copy ``index`` of the pod: its own name and uid, its own spec dict (the simulation writes
    spec.nodeName), everything else shared. ``tag`` keeps the uids of a mix's templates apart."""
    meta = dict(pod.get("metadata") or {})
    base = meta.get("name") or "pod"
    meta["name"] = f"{base}-{index}"
    meta["uid"] = f"{meta.get('uid') or base}-capacity-{tag}{index}"
    clone = dict(pod)
    clone["metadata"] = meta
    clone["spec"] = dict(pod.get("spec") or {})
    # each copy gets its own claims from the pod's ResourceClaimTemplates (the controller's work)
    clone["status"] = {k: v for k, v in (pod.get("status") or {}).items()
                       if k not in ("nominatedNodeName", "resourceClaimStatuses")}
    return clone


def _copy_info(template: PodInfo, index: int, tag: str = "") -> PodInfo:
    """``PodInfo(_clone(template.pod, index, tag))`` without parsing the pod again: the copies of
    a pod differ only in name and uid, and everything PodInfo computes from the rest is shared."""
    pod = _clone(template.pod, index, tag)
    info = PodInfo.__new__(PodInfo)
    for slot in PodInfo.__slots__:
        setattr(info, slot, getattr(template, slot))
    meta = pod["metadata"]
    info.pod = pod
    info.name = meta["name"]
    info.key = f"{template.namespace}/{info.name}"
    info.uid = meta["uid"]
    info.node_name = ""
    info.nominated_node_name = ""
    return info


# ---------------------------------------------------------------------------------------------
# Counting each node's share at once
# ---------------------------------------------------------------------------------------------


def _node_local_filter(name: str) -> bool:
    """Whether a built-in filter's verdict depends on the pod and that one node alone (the
    scheduler's own table; read here so that capacity follows it, never a copy of it)."""
    from kschedctl.scheduler import simulate

    return name in simulate.NODE_LOCAL_FILTERS


#: Node-local filters that read the node object but not the pods on it, as their facts say
#: (``object_local``): a copy placed on the node leaves their verdict as it was, so a node they
#: pass stays passed.
_NODE_OBJECT_FILTERS = frozenset(name for name, facts in builtin_facts().items() if "filter" in facts.object_local)
#: Node-local filters whose verdict each copy on the node moves, and how (``_share``).
_COUNTED_FILTERS = frozenset({names.NODE_RESOURCES_FIT, names.NODE_PORTS})


def _builtin(plugin: Any) -> bool:
    return type(plugin).__module__.startswith("kschedctl.plugins.")


def _copies_leave_affinity_alone(pod_info: PodInfo) -> bool:
    """InterPodAffinity's verdict is unchanged by copies of a pod without required pod
    (anti-)affinity terms: its Filter then checks only the existing pods' anti-affinity terms
    against this pod, and copies bring no terms."""
    return not pod_info.required_affinity_terms and not pod_info.required_anti_affinity_terms


def closed_form_state(sim: Simulator, fwk: Any, template: PodInfo) -> tuple[CycleState, Any] | None:
    """The cycle state after PreFilter and the PreFilterResult for copies of ``template`` when
    each node's share can be counted at once, else None (the copies then run one cycle each).

    It can when the copy reaches the filters as it is (no PreEnqueue gate, no extender, no
    nominated pod holding room), nothing after the filters can turn a feasible node down or
    make the copy wait (every Reserve, Permit and PreBind plugin skipped its PreFilter for this
    pod), no plugin is custom, and every filter that did not skip is
    node-local and either reads only the node object or is counted by ``_share``.
    InterPodAffinity is accepted when the copies carry no required pod (anti-)affinity terms.
    """
    if sim.scheduler.extenders or sim.scheduler.all_filters or sim.nominator:
        return None
    spec = template.pod.get("spec") or {}
    if template.is_terminating or spec.get("resourceClaims") or template.pvc_names or any(
            "ephemeral" in v for v in spec.get("volumes") or () if isinstance(v, dict)):
        # devices and volumes are shared state: their plugins (never node-local) decide, and
        # their PreFilters are not run for nothing
        return None
    every = [pl for point in fwk.plugins.values() for pl in point]
    if any(not _builtin(pl) for pl in every):
        return None
    s = fwk.run_pre_enqueue_plugins(template)
    if s is not None and s.code != Code.Success:
        return None
    fwk.begin_trace()
    state = CycleState()
    result, status, _ = fwk.run_pre_filter_plugins(state, template)
    if status is not None and status.code != Code.Success:
        return None
    skipped = state.skip_filter_plugins
    for point in ("reserve", "permit", "preBind"):
        if any(pl.name not in skipped for pl in fwk.plugins.get(point, ())):
            return None
    for pl in fwk.plugins.get("preFilter", ()):
        if pl.name not in skipped and pl.name not in fwk.plugin_names("filter"):
            return None  # a PreFilter that is not one of the filters checked below
    for name in fwk.plugin_names("filter"):
        if name in skipped:
            continue
        if name == names.INTER_POD_AFFINITY and _copies_leave_affinity_alone(template):
            continue
        if not _node_local_filter(name) or name not in _NODE_OBJECT_FILTERS | _COUNTED_FILTERS:
            return None
    return state, result


def _share(state: CycleState, fwk: Any, node_info: NodeInfo) -> int | None:
    """How many copies fit on a node that takes the first one, from what the counted filters
    check: NodeResourcesFit's free allocatable per requested resource and pod slots (its own
    PreFilter state holds the request it checks), one per node for a pod with host ports (a
    copy's ports conflict with the previous copy's). None when no filter limits them."""
    skipped = state.skip_filter_plugins
    active = [n for n in fwk.plugin_names("filter") if n not in skipped]
    share: int | None = None
    if names.NODE_PORTS in active:
        share = 1
    if names.NODE_RESOURCES_FIT in active:
        request = state.read(FIT_STATE_KEY)
        allocatable, requested = node_info.allocatable, node_info.requested
        fit = allocatable.allowed_pod_number - len(node_info.pods)
        for need, have, used in ((request.milli_cpu, allocatable.milli_cpu, requested.milli_cpu),
                                 (request.memory, allocatable.memory, requested.memory),
                                 (request.ephemeral_storage, allocatable.ephemeral_storage,
                                  requested.ephemeral_storage)):
            if need > 0:
                fit = min(fit, (have - used) // need)
        for resource, need in request.scalars:
            have = allocatable.scalar_resources.get(resource, 0)
            used = requested.scalar_resources.get(resource, 0)
            fit = min(fit, (have - used) // need)
        share = fit if share is None else min(share, fit)
    return None if share is None else max(share, 0)


def closed_form_counts(sim: Simulator, fwk: Any, template: PodInfo) -> dict[str, int] | None:
    """Each node's share of the copies (nodes that take none left out), in the snapshot's node
    order; None when it cannot be counted at once (``closed_form_state``) or nothing limits it.

    A node takes copies while its filters pass; they pass for the first copy as for the pod
    itself (the real filters decide that), and the counted filters say how many more."""
    found = closed_form_state(sim, fwk, template)
    if found is None:
        return None
    state, result = found
    allowed = None if result is None or result.all_nodes() else set(result.node_names or ())
    counts: dict[str, int] = {}
    for node_info in sim.snapshot.node_infos():
        if allowed is not None and node_info.name not in allowed:
            continue
        status = fwk.run_filter_plugins(state, template, node_info)
        if status is not None and status.code != Code.Success:
            continue
        share = _share(state, fwk, node_info)
        if share is None:
            return None  # every copy would fit: only the cycle loop's bound can end it
        if share:
            counts[node_info.name] = share
    return counts


# ---------------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------------


class _Copies:
    """Schedules copies of pod templates into one simulator, keeping what the result reports."""

    def __init__(self, sim: Simulator) -> None:
        self.sim = sim
        self.warnings: list[str] = []

    def cycle(self, fwk: Any, copy: PodInfo) -> Any:
        out = self.sim.scheduler.run_cycle(fwk, copy)
        self.warnings.extend(w for w in out.warnings if w not in self.warnings)
        return out


def _stop(result: Any, out: Any) -> None:
    result.outcome = out.outcome
    result.stop_reason = out.message
    if out.preemption is not None and out.preemption.nominated_node_name:
        result.preemption_possible = {"nominatedNode": out.preemption.nominated_node_name,
                                      "victims": list(out.preemption.victims)}


def _limit_reason(max_copies: int | None, what: str = "copies") -> str:
    if max_copies is None:
        return (f"stopped after {CAPACITY_MAX_COPIES:,} {what} (kschedctl's limit: nothing in the profile "
                f"limits the copies of this pod); more may fit")
    return f"stopped after {max_copies} {what} (--max {max_copies}); more may fit"


def _prepare(pod: dict, cluster: Any, config: Any, registry: Any, seed: int | None,
             extenders: bool) -> tuple[Simulator, PodInfo]:
    from kschedctl.inputs.cluster import admit

    sim = Simulator(cluster, config, registry=registry, seed=seed, extenders=extenders)
    pod_info = PodInfo(admit(pod, cluster))
    return sim, pod_info


def _nominate_pending(sim: Simulator, keys: set[str]) -> None:
    for pi in sim.pending_cluster_pods():
        if pi.nominated_node_name and pi.key not in keys:
            sim.nominator.add(pi)


def capacity(
    pod: dict,
    cluster: Any,
    config: Any = None,
    profile: str | None = None,
    seed: int | None = None,
    max_copies: int | None = None,
    registry: Any = None,
    progress: Callable[[int, int | None], None] | None = None,
    extenders: bool = True,
    count_per_node: bool = True,
    tie_break_first: bool = False,
) -> CapacityResult:
    """How many copies of ``pod`` (admitted here, on a copy) fit in ``cluster`` under ``config``;
    ``max_copies`` bounds the answer (None: the true count). ``count_per_node=False`` runs a
    cycle per copy even where each node's share could be counted at once (the reference the
    tests compare with). ``tie_break_first``: among equal top scores the first node, not a random
    one (``--tie-break first``; only the order-dependent cycle loop can tell)."""
    started = time.perf_counter()
    sim, pod_info = _prepare(pod, cluster, config, registry, seed, extenders)
    sim.scheduler.tie_break_first = tie_break_first
    name = sim.pick_profile(pod_info, profile)
    fwk = sim.frameworks[name]
    _nominate_pending(sim, {pod_info.key})
    fwk.memo_key = pod_signature(pod_info.pod) if sim.memoize else None  # type: ignore[attr-defined]
    result = CapacityResult(pod_info.key, 0, {}, "", profile=name, max_copies=max_copies, seed=seed)
    skipped = sim.skipped_extenders_warning()
    if skipped:
        result.warnings.append(skipped)
    copies = _Copies(sim)
    per_node: dict[str, int] = {}
    bound = CAPACITY_MAX_COPIES if max_copies is None else max_copies
    was_enabled = gc.isenabled()
    if sim.fast_paths.process_shortcuts:
        gc.disable()
    try:
        count = 0
        counted = not count_per_node
        while True:
            if count >= bound:
                result.limit_reached = True
                result.outcome = ""
                result.stop_reason = _limit_reason(max_copies)
                break
            copy_info = _copy_info(pod_info, count + 1)
            out = copies.cycle(fwk, copy_info)
            if out.outcome != Outcome.SCHEDULED or not out.selected_node:
                _stop(result, out)
                break
            sim._place(copy_info, out.selected_node)
            per_node[out.selected_node] = per_node.get(out.selected_node, 0) + 1
            count += 1
            if not counted:
                # The first copy ran the whole cycle (gates, scores, Reserve... all said yes): the
                # rest may now be counted per node, then the copy after them runs for real.
                counted = True
                shares = closed_form_counts(sim, fwk, pod_info)
                if shares is not None and count + sum(shares.values()) <= bound:
                    result.method = PER_NODE
                    for node, share in shares.items():
                        for _ in range(share):
                            count += 1
                            sim._place(_copy_info(pod_info, count), node)
                        per_node[node] = per_node.get(node, 0) + share
                    continue
            if progress is not None and (count & 63) == 0:
                progress(count, max_copies)
    finally:
        if was_enabled:
            gc.enable()
    result.warnings.extend(w for w in copies.warnings if w not in result.warnings)
    result.count = count
    # perNode in the order the scheduler lists nodes, only nodes that took a copy
    result.per_node = {n.name: per_node[n.name] for n in sim.snapshot.node_infos() if n.name in per_node}
    result.seconds = time.perf_counter() - started
    return result


# ---------------------------------------------------------------------------------------------
# Capacity of a mix: whole sets of several pods
# ---------------------------------------------------------------------------------------------


def parse_ratio(text: str, templates: int) -> list[int]:
    """``--ratio 3:1``: one positive whole number per template, in the order of the files."""
    from kschedctl.errors import UsageError
    from kschedctl.limits import CAPACITY_MAX_SET_SIZE

    parts = text.split(":")
    text = text if len(text) <= 40 else text[:37] + "..."
    if len(parts) != templates:
        raise UsageError(f"--ratio {text}: {len(parts)} part(s) for {templates} pod files; give one number per "
                         f"file, e.g. --ratio {':'.join(['1'] * templates)}")
    out = []
    for part in parts:
        digits = part.strip()
        if not digits or not all("0" <= c <= "9" for c in digits) or int(digits[:12]) <= 0:
            raise UsageError(f"--ratio {text}: {part[:20]!r} is not a positive whole number")
        # (past 12 digits the set is too large anyway; int() of a huge literal is quadratic)
        out.append(int(digits[:12]) if len(digits) <= 12 else CAPACITY_MAX_SET_SIZE + 1)
    if sum(out) > CAPACITY_MAX_SET_SIZE:
        raise UsageError(f"--ratio {text}: a set of {sum(out):,} pods is more than {CAPACITY_MAX_SET_SIZE:,}")
    return out


def interleaved_order(ratio: list[int]) -> list[int]:
    """The order of one set's pods, as template indexes: smooth weighted round-robin (each pod
    goes to the template furthest behind its share, the earlier file on a tie), so that 3:1
    gives a, a, b, a and 1:1 gives a, b, as two rollouts progressing side by side would."""
    total = sum(ratio)
    current = [0] * len(ratio)
    order = []
    for _ in range(total):
        for i, weight in enumerate(ratio):
            current[i] += weight
        pick = max(range(len(ratio)), key=lambda i: (current[i], -i))
        current[pick] -= total
        order.append(pick)
    return order


@dataclass
class MixCapacityResult:
    """How many whole sets of several pods fit (contract: ``kind: CapacityResult`` with ``mix``)."""

    pods: list[str]
    ratio: list[int]
    order: list[int]
    sets: int = 0
    #: per template (same order as ``pods``): node -> copies in whole sets
    per_node: list[dict[str, int]] = field(default_factory=list)
    #: per template: copies of the set that did not complete
    incomplete_set: list[int] = field(default_factory=list)
    stop_pod: str = ""
    stop_reason: str = ""
    outcome: Outcome | str = Outcome.UNSCHEDULABLE
    profile: str = ""  # of the pod that stopped the run
    profiles: list[str] = field(default_factory=list)
    limit_reached: bool = False
    max_sets: int | None = None
    preemption_possible: dict[str, Any] | None = None
    seconds: float = 0.0
    seed: int | None = None
    warnings: list[str] = field(default_factory=list)
    baseline: int | None = None

    @property
    def pod(self) -> str:
        return " + ".join(self.pods)

    @property
    def count(self) -> int:
        return self.sets

    def total_per_node(self) -> dict[str, int]:
        """Pods of whole sets per node, every template together."""
        out: dict[str, int] = {}
        for counts in self.per_node:
            for node, n in counts.items():
                out[node] = out.get(node, 0) + n
        return out

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": "CapacityResult",
            "pod": self.pod,
            "count": self.sets,
            "perNode": self.total_per_node(),
            "stopReason": self.stop_reason,
            "profile": self.profile,
            "stopOutcome": self.outcome,
            "limitReached": self.limit_reached,
            "max": self.max_sets,
            "preemptionPossible": self.preemption_possible,
            "method": CYCLES,
            "mix": {
                "ratio": dict(zip(self.pods, self.ratio)),
                "order": [self.pods[i] for i in self.order],
                "sets": self.sets,
                "stopPod": self.stop_pod,
                "incompleteSet": dict(zip(self.pods, self.incomplete_set)),
                "templates": [{"pod": key, "profile": profile, "count": self.sets * share, "perNode": dict(counts)}
                              for key, profile, share, counts in zip(self.pods, self.profiles, self.ratio,
                                                                     self.per_node)],
            },
        }
        _add_baseline(out, self.sets, self.baseline)
        if self.seed is not None:
            out["seed"] = self.seed
        return out


def capacity_of_mix(
    pods: list[dict],
    ratio: list[int],
    cluster: Any,
    config: Any = None,
    profile: str | None = None,
    seed: int | None = None,
    max_sets: int | None = None,
    registry: Any = None,
    progress: Callable[[int, int | None], None] | None = None,
    extenders: bool = True,
    tie_break_first: bool = False,
) -> MixCapacityResult:
    """How many whole sets fit, a set being ``ratio[i]`` copies of ``pods[i]``, its pods
    scheduled in ``interleaved_order(ratio)``, set after set, each placement assumed for the next,
    until one pod does not fit (that pod and its message are the stop). Always a cycle per pod:
    the templates compete for the same nodes, so no node's share is known in advance."""
    from kschedctl.inputs.cluster import admit

    started = time.perf_counter()
    sim = Simulator(cluster, config, registry=registry, seed=seed, extenders=extenders)
    sim.scheduler.tie_break_first = tie_break_first
    infos = [PodInfo(admit(pod, cluster)) for pod in pods]
    frameworks = []
    result = MixCapacityResult([pi.key for pi in infos], list(ratio), interleaved_order(ratio), max_sets=max_sets,
                               seed=seed)
    for pi in infos:
        name = sim.pick_profile(pi, profile)
        result.profiles.append(name)
        frameworks.append(sim.frameworks[name])
    _nominate_pending(sim, {pi.key for pi in infos})
    signatures = [pod_signature(pi.pod) if sim.memoize else None for pi in infos]
    skipped = sim.skipped_extenders_warning()
    if skipped:
        result.warnings.append(skipped)
    copies = _Copies(sim)
    placed: list[dict[str, int]] = [{} for _ in infos]
    made = [0] * len(infos)
    bound = CAPACITY_MAX_COPIES // max(sum(ratio), 1) if max_sets is None else max_sets
    was_enabled = gc.isenabled()
    if sim.fast_paths.process_shortcuts:
        gc.disable()
    try:
        stopped = False
        while not stopped:
            if result.sets >= bound:
                result.limit_reached = True
                result.outcome = ""
                result.stop_reason = _limit_reason(max_sets, "sets")
                break
            in_set: list[tuple[int, str]] = []
            for index in result.order:
                fwk = frameworks[index]
                fwk.memo_key = signatures[index]  # type: ignore[attr-defined]
                made[index] += 1
                copy_info = _copy_info(infos[index], made[index], tag=f"{index}-")
                out = copies.cycle(fwk, copy_info)
                if out.outcome != Outcome.SCHEDULED or not out.selected_node:
                    _stop(result, out)
                    result.stop_pod = infos[index].key
                    result.profile = result.profiles[index]
                    stopped = True
                    break
                sim._place(copy_info, out.selected_node)
                in_set.append((index, out.selected_node))
            if stopped:
                result.incomplete_set = [sum(1 for i, _ in in_set if i == t) for t in range(len(infos))]
                break
            for index, node in in_set:
                placed[index][node] = placed[index].get(node, 0) + 1
            result.sets += 1
            if progress is not None:
                progress(result.sets, max_sets)
    finally:
        if was_enabled:
            gc.enable()
    if not result.incomplete_set:
        result.incomplete_set = [0] * len(infos)
    result.warnings.extend(w for w in copies.warnings if w not in result.warnings)
    order = [n.name for n in sim.snapshot.node_infos()]
    result.per_node = [{n: counts[n] for n in order if n in counts} for counts in placed]
    result.seconds = time.perf_counter() - started
    return result
