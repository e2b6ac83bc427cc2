"""``capacity``: how many more copies of a pod fit, and what stops the next one.

The cluster-capacity question (kubernetes-sigs/cluster-capacity): copies of the pod are
scheduled one after another by the profile's full cycle, each placement assumed into the
snapshot for the next, until one copy does not fit. The answer is the number placed, the
number per node, and the message of the copy that did not fit (upstream's event text, e.g.
``0/3 nodes are available: 3 Insufficient cpu.``).

Preemption is not acted on: the question is what fits *beside* the running pods. When the
profile's PostFilter (DefaultPreemption) would make room by evicting pods, the message is
still the one upstream writes in that cycle, and ``preemptionPossible`` names the node and the
victims. Pending pods of the cluster state are not placed first; those with a nominated node
hold their room through the nominator, as they do for ``explain``.
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from kschedctl.framework.types import PodInfo
from kschedctl.scheduler.outcome import Outcome
from kschedctl.scheduler.simulate import Simulator, pod_signature

#: Default bound on the number of copies (``--max``).
DEFAULT_MAX_COPIES = 10_000


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
    max_copies: int = DEFAULT_MAX_COPIES
    preemption_possible: dict[str, Any] | None = None
    seconds: float = 0.0
    seed: int | None = None
    #: For the user (stderr), not part of the contract's JSON: skipped or failing extenders.
    warnings: list[str] = field(default_factory=list)

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
        }
        if self.seed is not None:
            out["seed"] = self.seed
        return out


def _clone(pod: dict, index: int) -> dict:
    """Copy ``index`` of the pod: its own name and uid, its own spec dict (the simulation writes
    spec.nodeName), everything else shared."""
    meta = dict(pod.get("metadata") or {})
    base = meta.get("name") or "pod"
    meta["name"] = f"{base}-{index}"
    meta["uid"] = f"{meta.get('uid') or base}-capacity-{index}"
    clone = dict(pod)
    clone["metadata"] = meta
    clone["spec"] = dict(pod.get("spec") or {})
    # each copy gets its own claims from the pod's ResourceClaimTemplates (the controller's work)
    clone["status"] = {k: v for k, v in (pod.get("status") or {}).items()
                       if k not in ("nominatedNodeName", "resourceClaimStatuses")}
    return clone


def capacity(
    pod: dict,
    cluster: Any,
    config: Any = None,
    profile: str | None = None,
    seed: int | None = None,
    max_copies: int = DEFAULT_MAX_COPIES,
    registry: Any = None,
    progress: Callable[[int, int], None] | None = None,
    extenders: bool = True,
) -> CapacityResult:
    """How many copies of ``pod`` (admitted here, on a copy) fit in ``cluster`` under ``config``."""
    from kschedctl.scheduler.explain import admit

    started = time.perf_counter()
    sim = Simulator(cluster, config, registry=registry, seed=seed, extenders=extenders)
    admitted = admit(pod, cluster)
    pod_info = PodInfo(admitted)
    name = sim.pick_profile(pod_info, profile)
    fwk = sim.frameworks[name]
    for pi in sim.pending_cluster_pods():
        if pi.nominated_node_name and pi.key != pod_info.key:
            sim.nominator.add(pi)
    fwk.memo_key = pod_signature(admitted) if sim.memoize else None  # type: ignore[attr-defined]
    result = CapacityResult(pod_info.key, 0, {}, "", profile=name, max_copies=max_copies, seed=seed)
    skipped = sim.skipped_extenders_warning()
    if skipped:
        result.warnings.append(skipped)
    per_node: dict[str, int] = {}
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        count = 0
        while True:
            if count >= max_copies:
                result.limit_reached = True
                result.outcome = ""
                result.stop_reason = (f"stopped after {max_copies} copies (--max {max_copies}); more copies may fit")
                break
            copy_info = PodInfo(_clone(admitted, count + 1))
            out = sim.scheduler.run_cycle(fwk, copy_info)
            result.warnings.extend(w for w in out.warnings if w not in result.warnings)
            if out.outcome != Outcome.SCHEDULED or not out.selected_node:
                result.outcome = out.outcome
                result.stop_reason = out.message
                if out.preemption is not None and out.preemption.nominated_node_name:
                    result.preemption_possible = {"nominatedNode": out.preemption.nominated_node_name,
                                                  "victims": list(out.preemption.victims)}
                break
            sim._place(copy_info, out.selected_node)
            per_node[out.selected_node] = per_node.get(out.selected_node, 0) + 1
            count += 1
            if progress is not None and (count & 63) == 0:
                progress(count, max_copies)
    finally:
        if was_enabled:
            gc.enable()
    result.count = count
    # perNode in the order the scheduler lists nodes, only nodes that took a copy
    result.per_node = {n.name: per_node[n.name] for n in sim.snapshot.node_infos() if n.name in per_node}
    result.seconds = time.perf_counter() - started
    return result
