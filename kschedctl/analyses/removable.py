"""``capacity --removable``: which nodes could go, every evicted pod still scheduled elsewhere.

The scale-down question as cluster-autoscaler answers it (kubernetes/autoscaler, cluster-autoscaler
1.34: ``simulator/drain``, ``simulator/drainability/rules``, ``core/scaledown``; its FAQ "What
types of pods can prevent CA from removing a node?"), with kube-scheduler v1.34.4's own
scheduling cycle, under the run's profile, deciding where each evicted pod goes:

- a candidate is a node whose utilization (the pods' requests over allocatable, the larger of
  cpu and memory, daemon and mirror pods counted as CA counts them by default) is below the
  threshold (``--utilization-below``, CA's ``--scale-down-utilization-threshold``, 0.5), and
  that does not carry ``cluster-autoscaler.kubernetes.io/scale-down-disabled: "true"``;
- the pods on it are sorted as CA's drain rules sort them: DaemonSet and mirror pods (and
  terminating ones) go with the node; a pod annotated
  ``cluster-autoscaler.kubernetes.io/safe-to-evict: "true"`` moves whatever else holds; the
  others block the node when they have no controller (or one of a kind CA does not know, under
  ``skip_nodes_with_custom_controller_pods``), are kube-system pods no PodDisruptionBudget
  covers, use local storage (hostPath, emptyDir not in memory, unless listed in
  ``safe-to-evict-local-volumes``), or are annotated ``safe-to-evict: "false"``; each rule can
  be switched off (``RemovableRules``). CA's messages are kept word for word;
- the pods that move are evicted through the eviction API's PodDisruptionBudget check (the
  drain what-if's, ``cluster_edits``), the budgets charged across the whole search, as CA's
  remaining-PDB tracker does;
- the search is greedy, as CA's: least utilized first, each node drained in the snapshot
  (cordoned as kubectl drain leaves it, its movable pods evicted) and each evicted pod (a
  pending copy, as its controller makes it) run through the real scheduling cycle on the other
  nodes, the earlier removals' pods already placed. Preemption is not acted on (a pod that only
  fits by evicting another does not fit). A node whose pods do not all fit is given back as it
  was, its pods where they were.

The state is incremental: one snapshot for the whole search, in which a node's object and pods
change as the cache would see them change (so the plugins' incremental sums and memos keep up);
the drained node stays listed until it is deleted, as it does while its replacements are
scheduled, so topology spread still counts its domain then, as the real scheduler would.

The set found is then checked from scratch (``verify_removal``): the cluster as read, those
nodes drained (``Drain``: kubectl's semantics, budgets honoured) and every replacement
scheduled by ``Simulator`` in one run, as ``simulate --drain SELECTOR`` does for a selector
matching them: every replacement placed and no pod preempted. The simulation takes all the
pods in queue order, not node by node, and breaks ties with its own seed, so bin packing may
differ: if a pod stays pending there, the last node removed is given back and the check
repeats, so every set reported has passed it.

Known differences from cluster-autoscaler: CA places evicted pods with its predicate checker
(filters only, the first node that passes, its hint first); here the full cycle scores and
picks, as the scheduler will when the pods come back. CA takes the node out of its snapshot;
here it stays, cordoned, as it is while the replacements are scheduled. Node groups' minimum
sizes, scale-down delays, unready-node timings and CA's limits per loop
(``--max-scale-down-parallelism``) are CA's configuration, not the cluster's: not modelled.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from kschedctl.framework.types import PodInfo
from kschedctl.inputs.cluster import ClusterState
from kschedctl.k8s.selectors import SelectorError, label_selector
from kschedctl.cluster.edits import (
    MIRROR_POD_ANNOTATION,
    UNSCHEDULABLE_TAINT_KEY,
    Drain,
    NodeTarget,
    EvictionBudgets,
    apply_edits,
    controller_of,
)
from kschedctl.scheduler.outcome import Outcome
from kschedctl.scheduler.simulate import pod_signature

__all__ = [
    "RemovableRules", "NodeVerdict", "RemovableResult", "removable_nodes", "verify_removal",
    "SAFE_TO_EVICT", "SCALE_DOWN_DISABLED", "ZONE_LABEL",
]

SAFE_TO_EVICT = "cluster-autoscaler.kubernetes.io/safe-to-evict"
SAFE_TO_EVICT_LOCAL_VOLUMES = "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes"
SCALE_DOWN_DISABLED = "cluster-autoscaler.kubernetes.io/scale-down-disabled"
ZONE_LABEL = "topology.kubernetes.io/zone"
#: The controller kinds CA counts as replicating a pod (drain.go's known kinds).
_KNOWN_CONTROLLERS = frozenset({"ReplicationController", "DaemonSet", "Job", "ReplicaSet", "StatefulSet"})

# Why a node stays (``NodeVerdict.reason``); CA's BlockingPodReason names where it has one.
REMOVED = "Removed"
NOT_UNDERUTILIZED = "NotUnderutilized"
SCALE_DOWN_DISABLED_REASON = "ScaleDownDisabledAnnotation"
NO_ALLOCATABLE = "NoAllocatable"
NOT_REPLICATED = "NotReplicated"
UNMOVABLE_KUBE_SYSTEM_POD = "UnmovableKubeSystemPod"
LOCAL_STORAGE_REQUESTED = "LocalStorageRequested"
NOT_SAFE_TO_EVICT = "NotSafeToEvictAnnotation"
NOT_ENOUGH_PDB = "NotEnoughPdb"
NO_PLACE_TO_MOVE_PODS = "NoPlaceToMovePods"
FAILED_CHECK = "FailedSelfCheck"
NOT_TRIED = "NotTried"


@dataclass(frozen=True)
class RemovableRules:
    """What makes a node a candidate and what blocks it (CA's flags and defaults; the last
    three have no CA flag: CA always applies them)."""

    utilization_below: float = 0.5
    skip_nodes_with_system_pods: bool = True
    skip_nodes_with_local_storage: bool = True
    skip_nodes_with_custom_controller_pods: bool = True
    skip_nodes_with_unreplicated_pods: bool = True
    skip_nodes_with_not_safe_to_evict_pods: bool = True
    skip_nodes_with_pdb_blocked_pods: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {"utilizationBelow": self.utilization_below,
                "skipNodesWithSystemPods": self.skip_nodes_with_system_pods,
                "skipNodesWithLocalStorage": self.skip_nodes_with_local_storage,
                "skipNodesWithCustomControllerPods": self.skip_nodes_with_custom_controller_pods,
                "skipNodesWithUnreplicatedPods": self.skip_nodes_with_unreplicated_pods,
                "skipNodesWithNotSafeToEvictPods": self.skip_nodes_with_not_safe_to_evict_pods,
                "skipNodesWithPdbBlockedPods": self.skip_nodes_with_pdb_blocked_pods}


@dataclass
class NodeVerdict:
    """One candidate node: removed (and where its pods go) or kept (and why)."""

    name: str
    zone: str
    utilization: float
    cpu: float
    memory: float
    reason: str
    message: str = ""
    pod: str = ""
    #: evicted pod -> the node the scheduler gives its replacement (removed nodes only)
    moves: dict[str, str] = field(default_factory=dict)

    @property
    def removed(self) -> bool:
        return self.reason == REMOVED

    def line(self) -> str:
        """The one line of why (the table's last column)."""
        if self.removed:
            if not self.moves:
                return "nothing to move"
            return "; ".join(f"{pod} -> {node}" for pod, node in self.moves.items())
        return self.message

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "zone": self.zone, "removed": self.removed,
                               "utilization": round(self.utilization, 4), "cpu": round(self.cpu, 4),
                               "memory": round(self.memory, 4), "reason": self.reason}
        if self.message:
            out["message"] = self.message
        if self.pod:
            out["pod"] = self.pod
        if self.removed:
            out["moves"] = [{"pod": p, "node": n} for p, n in self.moves.items()]
        return out


@dataclass
class RemovableResult:
    """The answer (JSON ``kind: RemovableResult``; ``removable`` is the list of node names)."""

    profile: str
    rules: RemovableRules
    nodes: list[NodeVerdict]
    selector: str = ""
    #: zone -> nodes, candidates, removable (every node of the cluster counted)
    zones: dict[str, dict[str, int]] = field(default_factory=dict)
    #: the set reported went through the self-check (``verify_removal``, nodes given back until it held)
    verified: bool = True
    #: nodes given back because the self-check failed with them
    given_back: list[str] = field(default_factory=list)
    seconds: float = 0.0
    seed: int | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def removable(self) -> list[str]:
        return [v.name for v in self.nodes if v.removed]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": "RemovableResult",
            "profile": self.profile,
            "removable": self.removable,
            "count": len(self.removable),
            "selector": self.selector or None,
            "rules": self.rules.to_dict(),
            "nodes": [v.to_dict() for v in self.nodes],
            "zones": [{"zone": z, **counts} for z, counts in self.zones.items()],
            "verified": self.verified,
        }
        if self.given_back:
            out["givenBack"] = list(self.given_back)
        if self.seed is not None:
            out["seed"] = self.seed
        return out


# ---------------------------------------------------------------------------------------------
# cluster-autoscaler's rules
# ---------------------------------------------------------------------------------------------


def _meta(pod: dict) -> dict:
    return pod.get("metadata") or {}


def _annotations(obj: dict) -> dict:
    return _meta(obj).get("annotations") or {}


def _key(pod: dict) -> str:
    meta = _meta(pod)
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


def _stays_with_node(pod: dict) -> bool:
    """Mirror, DaemonSet and terminating pods: CA does not move them, they go with the node."""
    if MIRROR_POD_ANNOTATION in _annotations(pod) or _meta(pod).get("deletionTimestamp"):
        return True
    controller = controller_of(pod)
    return controller is not None and controller.get("kind") == "DaemonSet"


def _blocking_local_storage(pod: dict) -> bool:
    """A hostPath or non-memory emptyDir volume not listed as safe to evict (HasBlockingLocalStorage)."""
    listed = {v.strip() for v in str(_annotations(pod).get(SAFE_TO_EVICT_LOCAL_VOLUMES) or "").split(",") if v.strip()}
    for volume in (pod.get("spec") or {}).get("volumes") or ():
        if not isinstance(volume, dict) or volume.get("name") in listed:
            continue
        if "hostPath" in volume:
            return True
        empty_dir = volume.get("emptyDir")
        if isinstance(empty_dir, dict) and empty_dir.get("medium") != "Memory":
            return True
    return False


class _PdbIndex:
    """Which pods a PodDisruptionBudget selects (kube-system pods need one to be moved)."""

    def __init__(self, state: ClusterState) -> None:
        self.selectors: list[tuple[str, Any]] = []
        for pdb in state.pdbs.values():
            try:
                selector = label_selector((pdb.get("spec") or {}).get("selector"))
            except (SelectorError, ValueError):
                continue
            self.selectors.append((_meta(pdb).get("namespace") or "default", selector))

    def covers(self, pod: dict) -> bool:
        namespace = _meta(pod).get("namespace") or "default"
        labels = _meta(pod).get("labels") or {}
        return any(ns == namespace and sel.matches(labels) for ns, sel in self.selectors)


def _blocker(pod: dict, rules: RemovableRules, pdbs: _PdbIndex) -> tuple[str, str] | None:
    """(reason, CA's message) when ``pod`` keeps its node, else None (it moves)."""
    annotations = _annotations(pod)
    if annotations.get(SAFE_TO_EVICT) == "true":
        return None
    if ((pod.get("status") or {}).get("phase")) in ("Succeeded", "Failed"):
        return None
    meta = _meta(pod)
    namespace, name = meta.get("namespace") or "default", meta.get("name")
    controller = controller_of(pod)
    replicated = controller is not None and (not rules.skip_nodes_with_custom_controller_pods
                                             or controller.get("kind") in _KNOWN_CONTROLLERS)
    if not replicated and rules.skip_nodes_with_unreplicated_pods:
        return NOT_REPLICATED, f"{namespace}/{name} is not replicated"
    if namespace == "kube-system" and rules.skip_nodes_with_system_pods and not pdbs.covers(pod):
        return (UNMOVABLE_KUBE_SYSTEM_POD,
                f"non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: {name}")
    if rules.skip_nodes_with_local_storage and _blocking_local_storage(pod):
        return LOCAL_STORAGE_REQUESTED, f"pod with local storage present: {name}"
    if rules.skip_nodes_with_not_safe_to_evict_pods and annotations.get(SAFE_TO_EVICT) == "false":
        return NOT_SAFE_TO_EVICT, f"pod annotated as not safe to evict present: {name}"
    return None


def _utilization(node_info: Any) -> tuple[float, float] | None:
    """(cpu, memory) requested over allocatable; None when the node has none of either."""
    alloc, used = node_info.allocatable, node_info.requested
    if alloc.milli_cpu <= 0 or alloc.memory <= 0:
        return None
    return used.milli_cpu / alloc.milli_cpu, used.memory / alloc.memory


def _zone(node: dict | None) -> str:
    return ((_meta(node or {}).get("labels") or {}).get(ZONE_LABEL)) or ""


def _pending_copy(pod: dict) -> dict:
    """The pod its controller makes in place of an evicted one: the same spec (admitted already,
    as the original was), no node, kept under the evicted pod's name (the original is gone)."""
    meta = {k: v for k, v in _meta(pod).items()
            if k not in ("resourceVersion", "creationTimestamp", "deletionTimestamp", "managedFields")}
    meta["uid"] = f"{meta.get('uid') or _key(pod)}-moved"
    spec = {k: v for k, v in (pod.get("spec") or {}).items() if k != "nodeName"}
    status = {"phase": "Pending"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


#: Labels a StatefulSet stamps per replica (inputs.workloads names them too; not imported: below
#: the analyses, kschedctl.inputs is the reader's, not the search's).
_PER_REPLICA_LABELS = frozenset({"statefulset.kubernetes.io/pod-name", "apps.kubernetes.io/pod-index"})


def _memo_signature(pod: dict) -> str:
    """The key the simulator memoizes node-local answers under for ``pod`` (``memo_key``):
    simulate's ``pod_signature`` without what a StatefulSet's or a DRA workload's replicas
    differ by, their claims' names (PersistentVolumeClaims, ResourceClaims), hostname and
    per-replica labels. Only built-in node-local and node-object plugins answer under this key
    (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit,
    ImageLocality, NodeResourcesBalancedAllocation: ``PluginFacts.node_local``), and none reads
    those; the volume and claim plugins, which do, are never memoized. Without it every such
    pod is a signature of its own, and its scan asks every node's node-local filters again."""
    meta = _meta(pod)
    spec = pod.get("spec") or {}
    labels = meta.get("labels") or {}
    volumes = spec.get("volumes") or ()
    claims = spec.get("resourceClaims") or ()
    if not (volumes or claims or "hostname" in spec or _PER_REPLICA_LABELS.intersection(labels)):
        return pod_signature(pod)
    narrowed = dict(spec)
    narrowed.pop("hostname", None)
    if volumes:
        narrowed["volumes"] = [
            {**v, "persistentVolumeClaim": {**v["persistentVolumeClaim"], "claimName": ""}}
            if isinstance(v, dict) and isinstance(v.get("persistentVolumeClaim"), dict) else v
            for v in volumes]
    if claims:
        narrowed["resourceClaims"] = [
            {k: x for k, x in c.items() if k not in ("resourceClaimName", "resourceClaimTemplateName")}
            if isinstance(c, dict) else c for c in claims]
    labels = {k: v for k, v in labels.items() if k not in _PER_REPLICA_LABELS}
    return pod_signature({"metadata": {**meta, "labels": labels}, "spec": narrowed, "status": pod.get("status")})


# ---------------------------------------------------------------------------------------------
# The search
# ---------------------------------------------------------------------------------------------


class _Search:
    """One simulator for the whole search; nodes leave its snapshot and come back."""

    def __init__(self, cluster: ClusterState, config: Any, registry: Any, seed: int | None, profile: str | None,
                 rules: RemovableRules, extenders: bool) -> None:
        from kschedctl.scheduler.simulate import Simulator

        self.cluster = cluster
        self.rules = rules
        self.profile = profile
        self.sim = Simulator(cluster, config, registry=registry, seed=seed, extenders=extenders)
        # a pod that waits at Permit alone is rejected (its wait times out), as for explain
        self.sim.scheduler.hold_waiting_pods = False
        for pi in self.sim.pending_cluster_pods():
            if pi.nominated_node_name:
                self.sim.nominator.add(pi)  # nominated pods hold their room, as for capacity
        self.budgets = EvictionBudgets(cluster)
        self.pdbs = _PdbIndex(cluster)
        self.warnings: list[str] = []
        #: nodes drained so far, and the one being tried
        self.draining: set[str] = set()

    def classify(self, node_info: Any) -> tuple[list[PodInfo], tuple[str, str, str] | None]:
        """The pods that must move off the node, or (reason, message, pod) of the first blocker."""
        movers = []
        for pod_info in node_info.pods:
            pod = pod_info.pod
            if _stays_with_node(pod):
                continue
            blocked = _blocker(pod, self.rules, self.pdbs)
            if blocked is not None:
                return [], (blocked[0], blocked[1], pod_info.key)
            movers.append(pod_info)
        return movers, None

    def charge_budgets(self, movers: list[PodInfo]) -> tuple[str, str] | None:
        """Evict ``movers`` through the budgets; on a refusal, the budgets as they were and
        (message, pod). A pod the budgets refuse blocks the node (CA's NotEnoughPdb)."""
        if not self.rules.skip_nodes_with_pdb_blocked_pods:
            return None
        saved = [dict(entry) for entry in self.budgets.entries]
        for pod_info in movers:
            pod = pod_info.pod
            refusal = self.budgets.evict(pod)
            if refusal:
                for entry, before in zip(self.budgets.entries, saved):
                    entry.update(before)
                meta = _meta(pod)
                return (f"not enough pod disruption budget to move {meta.get('namespace') or 'default'}/"
                        f"{meta.get('name')} ({refusal})"), _key(pod)
        self._saved_budgets = saved
        return None

    def undo_budgets(self) -> None:
        for entry, before in zip(self.budgets.entries, self._saved_budgets):
            entry.update(before)

    def try_remove(self, name: str, movers: list[PodInfo]) -> tuple[dict[str, str] | None, str, str]:
        """Drain ``name`` in the snapshot (cordoned, ``movers`` evicted) and schedule a pending
        copy of each mover on the other nodes: (moves, "", "") when every copy is placed (the
        node stays drained), else (None, pod, message) with everything as it was."""
        sim = self.sim
        snapshot = sim.snapshot
        node_info = snapshot.get(name)
        original = node_info.node
        node_info.set_node(_cordoned(original))
        for pod_info in movers:
            snapshot.forget_pod(pod_info, name)
        self.draining.add(name)
        placed: list[PodInfo] = []
        moves: dict[str, str] = {}
        copies = [(pod_info.key, PodInfo(_pending_copy(pod_info.pod))) for pod_info in movers]
        # the scheduling queue pops the higher priority first (stable otherwise, as created)
        copies.sort(key=lambda kc: -kc[1].priority)
        failed: tuple[str, str] | None = None
        for key, pod_info in copies:
            reason = sim.not_handled_reason(pod_info, self.profile)
            if reason:
                failed = (key, reason)
                break
            fwk = sim.frameworks[sim.pick_profile(pod_info, self.profile)]
            fwk.memo_key = _memo_signature(pod_info.pod) if sim.memoize else None  # type: ignore[attr-defined]
            out = sim.scheduler.run_cycle(fwk, pod_info)
            for warning in out.warnings:
                if warning not in self.warnings:
                    self.warnings.append(warning)
            if out.outcome != Outcome.SCHEDULED or not out.selected_node:
                message = out.message or str(out.outcome)
                if out.preemption is not None and out.preemption.nominated_node_name:
                    message += (f" (it would fit on {out.preemption.nominated_node_name} by preempting "
                                f"{', '.join(out.preemption.victims)}; a scale-down evicts no other pod)")
                failed = (key, message)
                break
            if out.selected_node in self.draining:
                # it tolerates the cordon: it would land on a node that is going away
                failed = (key, f"only fits on {out.selected_node}, a node being removed (it tolerates "
                               f"the cordon's taint)")
                break
            sim._place(pod_info, out.selected_node)
            placed.append(pod_info)
            moves[key] = out.selected_node
        if failed is None:
            return moves, "", ""
        for pod_info in reversed(placed):
            snapshot.forget_pod(pod_info, pod_info.node_name)
            sim._release_claims(pod_info)
            sim._clear_node(pod_info)
        for pod_info in movers:
            snapshot.assume_pod(pod_info, name)
        node_info.set_node(original)
        self.draining.discard(name)
        return None, failed[0], failed[1]


def _cordoned(node: dict) -> dict:
    """``node`` as kubectl cordon leaves it (the node lifecycle controller's taint added)."""
    spec = dict(node.get("spec") or {})
    taints = [t for t in spec.get("taints") or ()
              if not (isinstance(t, dict) and t.get("key") == UNSCHEDULABLE_TAINT_KEY and t.get("effect") == "NoSchedule")]
    spec["taints"] = [*taints, {"key": UNSCHEDULABLE_TAINT_KEY, "effect": "NoSchedule"}]
    spec["unschedulable"] = True
    return {**node, "spec": spec}


def removable_nodes(
    cluster: ClusterState,
    config: Any = None,
    profile: str | None = None,
    rules: RemovableRules | None = None,
    candidates: str | None = None,
    registry: Any = None,
    seed: int | None = None,
    extenders: bool = True,
    verify: bool = True,
    progress: Callable[[int, int], None] | None = None,
    max_removed: int | None = None,
) -> RemovableResult:
    """The largest set of nodes the greedy search finds removable (see the module's docstring).

    ``candidates`` is a node name or label selector (``--nodes``): only those nodes may go.
    ``max_removed`` (``--max``) stops the search once that many nodes are removed, the rest
    ``NotTried``. ``verify=False`` skips the final self-check (the tests that run it themselves)."""
    started = time.perf_counter()
    rules = rules or RemovableRules()
    search = _Search(cluster, config, registry, seed, profile, rules, extenders)
    sim = search.sim
    allowed = set(NodeTarget.parse(candidates).nodes(cluster)) if candidates else None
    profile_name = profile or sim.profile_names()[0]

    ranked: list[tuple[float, str, float, float]] = []
    verdicts: dict[str, NodeVerdict] = {}
    for node_info in sim.snapshot.node_infos():
        if allowed is not None and node_info.name not in allowed:
            continue
        use = _utilization(node_info)
        zone = _zone(node_info.node)
        if use is None:
            verdicts[node_info.name] = NodeVerdict(node_info.name, zone, 0.0, 0.0, 0.0, NO_ALLOCATABLE,
                                                   "the node has no allocatable cpu or memory")
            continue
        ranked.append((max(use), node_info.name, use[0], use[1]))
    ranked.sort()
    order: list[str] = []
    for i, (utilization, name, cpu, memory) in enumerate(ranked):
        node_info = sim.snapshot.get(name)
        verdict = NodeVerdict(name, _zone(node_info.node), utilization, cpu, memory, REMOVED)
        verdicts[name] = verdict
        order.append(name)
        if progress is not None:
            progress(i, len(ranked))
        if _annotations(node_info.node or {}).get(SCALE_DOWN_DISABLED) == "true":
            verdict.reason, verdict.message = SCALE_DOWN_DISABLED_REASON, f"annotated {SCALE_DOWN_DISABLED}: true"
            continue
        if utilization >= rules.utilization_below:
            which = "cpu" if cpu >= memory else "memory"
            verdict.reason = NOT_UNDERUTILIZED
            verdict.message = (f"utilization {utilization:.0%} ({which}) is not below the threshold "
                               f"{rules.utilization_below:g}")
            continue
        if max_removed is not None and len(search.draining) >= max_removed:
            verdict.reason, verdict.message = NOT_TRIED, f"not tried: {max_removed} node(s) removed already (--max)"
            continue
        movers, blocked = search.classify(node_info)
        if blocked is not None:
            verdict.reason, verdict.message, verdict.pod = blocked
            continue
        refused = search.charge_budgets(movers)
        if refused is not None:
            verdict.reason, (verdict.message, verdict.pod) = NOT_ENOUGH_PDB, refused
            continue
        moves, pod, message = search.try_remove(name, movers)
        if moves is None:
            if rules.skip_nodes_with_pdb_blocked_pods:
                search.undo_budgets()
            verdict.reason, verdict.pod = NO_PLACE_TO_MOVE_PODS, pod
            verdict.message = f"{pod} would not fit elsewhere: {message}"
            continue
        verdict.moves = moves
    if progress is not None:
        progress(len(ranked), len(ranked))

    tried = set(order)
    result = RemovableResult(profile_name, rules, [verdicts[n] for n in order]
                             + [v for n, v in verdicts.items() if n not in tried],
                             selector=candidates or "", seed=seed, warnings=search.warnings, verified=verify)
    if verify:
        _self_check(result, cluster, config, profile, rules, registry, seed, extenders)
    result.zones = _zones(cluster, allowed, result)
    result.seconds = time.perf_counter() - started
    return result


def _self_check(result: RemovableResult, cluster: ClusterState, config: Any, profile: str | None,
                rules: RemovableRules, registry: Any, seed: int | None, extenders: bool) -> None:
    """Give back nodes until ``verify_removal`` holds for the set: the nodes the pods left
    pending came from (they keep their pods), else the last node removed."""
    while True:
        removed = result.removable
        if not removed:
            return
        # force: a pod without a controller on a removed node moved (safe-to-evict, or its rule off);
        # kubectl drain deletes such a pod only with --force (the search placed it anyway)
        ok, message, origins = _verify(cluster, removed, config, profile=profile, registry=registry, seed=seed,
                                       extenders=extenders, force=True,
                                       honour_budgets=rules.skip_nodes_with_pdb_blocked_pods)
        if ok:
            return
        back = [v for v in result.nodes if v.removed and v.name in origins] or \
            [next(v for v in reversed(result.nodes) if v.removed)]
        for verdict in back:
            verdict.reason, verdict.moves = FAILED_CHECK, {}
            verdict.message = f"given back: with it, the drain of the set from scratch failed: {message}"
            result.given_back.append(verdict.name)


def verify_removal(cluster: ClusterState, nodes: list[str], config: Any = None, profile: str | None = None,
                   registry: Any = None, seed: int | None = None, extenders: bool = True, force: bool = False,
                   honour_budgets: bool = True, one_by_one: bool = False) -> tuple[bool, str]:
    """Whether ``cluster`` with ``nodes`` drained keeps every pod: each node drained (kubectl
    drain, budgets honoured), every replacement placed away from the drained nodes, no pod
    preempted. (True, "") or (False, why not).

    By default as ``simulate --drain SELECTOR`` answers it for a selector matching the nodes:
    every node drained, then every replacement scheduled in one ``Simulator`` run.
    ``one_by_one`` as ``simulate --drain N1 --drain N2 ...``: each drain's replacements
    scheduled before the next drain (a simulation per node: slow on big clusters)."""
    ok, why, _ = _verify(cluster, nodes, config, profile, registry, seed, extenders, force, honour_budgets, one_by_one)
    return ok, why


def _verify(cluster: ClusterState, nodes: list[str], config: Any = None, profile: str | None = None,
            registry: Any = None, seed: int | None = None, extenders: bool = True, force: bool = False,
            honour_budgets: bool = True, one_by_one: bool = False) -> tuple[bool, str, set[str]]:
    """``verify_removal``, and the nodes the pods left pending came from (all at once only)."""
    from kschedctl.scheduler.simulate import Simulator
    from kschedctl.analyses.what_if import WhatIf

    before = {_key(p) for p in cluster.pods if (p.get("spec") or {}).get("nodeName")}
    if one_by_one:
        drains = [Drain(NodeTarget(n), force=force) for n in nodes]
        state, report = WhatIf(drains).apply(cluster, config, registry=registry, seed=seed, extenders=extenders)
        records = report.records
    else:
        # one drain of every node, as a selector matching them all is drained: one copy of the
        # state and one look at the budgets, not one per node
        state, records = apply_edits(cluster, [Drain(_NodeNames(", ".join(nodes), names=tuple(nodes)), force=force)])
    drained: set[str] = set()
    gone: set[str] = set()
    placements: dict[str, tuple[str | None, str]] = {}
    for record in records:
        drained.update(record.nodes)
        if record.refused:
            pod, why = next(iter(record.refused.items()))
            return False, f"the drain of {record.target} stopped: {pod} {why}", set()
        if record.blocked and honour_budgets:
            pod, why = next(iter(record.blocked.items()))
            return False, f"eviction of {pod} refused: {why}", set()
        gone.update(e.pod for e in record.evicted)
        gone.update(record.deleted)
        for pod, where in record.placements.items():
            # one by one, a node drained later may hold a replacement for a while: judged as it was
            if where[0] in drained:
                return False, f"{pod} went back to {where[0]}, a drained node", set()
            placements[pod] = where
    if not one_by_one:
        wanted = {r for record in records for r in record.replacements}
        if wanted:
            pods = [p for p in state.pods if _key(p) in wanted]
            state = state.copy()
            state.drop(pods=wanted)
            sim = Simulator(state, config, registry=registry, seed=seed, extenders=extenders)
            sim.scheduler.hold_waiting_pods = False
            run = sim.run(pods, profile=profile, include_cluster_pending=False)
            origin = {e.replacement: e.node for record in records for e in record.evicted}
            failed = [p for p in run.placements if p.outcome != Outcome.SCHEDULED or p.node in drained]
            if failed:
                first = failed[0]
                why = (f"{first.pod} stays {first.outcome}: {first.message}" if first.outcome != Outcome.SCHEDULED
                       else f"{first.pod} went back to {first.node}, a drained node")
                return False, why, {origin.get(p.pod, "") for p in failed}
            if run.preemptions:
                first = run.preemptions[0]
                return (False, f"{first.pod} preempted {', '.join(first.victims)} on {first.node}",
                        {origin.get(p.pod, "") for p in run.preemptions})
            return True, "", set()
    for pod, (node, why) in placements.items():
        if node is None:
            return False, f"{pod} stays pending: {why}", set()
    after = {_key(p) for p in state.pods}
    lost = sorted(before - gone - after)
    if lost:
        return False, f"{', '.join(lost[:3])} preempted by a replacement", set()
    return True, "", set()


@dataclass(frozen=True)
class _NodeNames(NodeTarget):
    """These nodes, by name (a drain of several nodes at once)."""

    names: tuple[str, ...] = ()

    def nodes(self, state: ClusterState) -> list[str]:
        return [n for n in self.names if n in state.node_by_name]


def _zones(cluster: ClusterState, allowed: set[str] | None, result: RemovableResult) -> dict[str, dict[str, int]]:
    """Per zone (the zone label; "" without one), in the order zones first appear: nodes,
    candidates (in --nodes), removable, and the nodes left."""
    removed = set(result.removable)
    out: dict[str, dict[str, int]] = {}
    for node in cluster.nodes:
        name = _meta(node).get("name")
        counts = out.setdefault(_zone(node), {"nodes": 0, "candidates": 0, "removable": 0, "left": 0})
        counts["nodes"] += 1
        counts["candidates"] += allowed is None or name in allowed
        counts["removable"] += name in removed
        counts["left"] = counts["nodes"] - counts["removable"]
    return out


def placed_state(cluster: ClusterState, pods: list[dict], result: Any) -> ClusterState:
    """``cluster`` after a simulate run of ``pods``: the scheduled ones bound where the run put
    them (the cluster's pending pods too), the preempted ones gone (a sweep's removable metric
    asks which nodes could go once the workload is placed)."""
    from kschedctl.inputs.cluster import admit

    by_key = {_key(p): admit(p, cluster) for p in pods}  # as the API server stored them
    by_key.update({_key(p): p for p in cluster.pods if not (p.get("spec") or {}).get("nodeName")})
    bound, gone = [], {v for p in result.preemptions for v in p.victims}
    for placement in result.placements:
        pod = by_key.get(placement.pod)
        if pod is None or placement.outcome != Outcome.SCHEDULED or not placement.node:
            continue
        bound.append({**pod, "spec": {**(pod.get("spec") or {}), "nodeName": placement.node},
                      "status": {**(pod.get("status") or {}), "phase": "Running"}})
        gone.add(placement.pod)  # a pending pod of the cluster, now bound
    state = cluster.copy()
    state.drop(pods=gone & {_key(p) for p in cluster.pods})
    for pod in bound:
        state.add_object(pod)
    return state
