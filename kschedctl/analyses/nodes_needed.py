"""``capacity WORKLOAD... --like NODE --nodes-needed``: the fewest nodes like NODE to add so that
every pod of the workloads is scheduled, the question cluster-autoscaler answers for a node group.

Each try is a whole ``simulate`` run (the same ``Simulator`` as ``kschedctl simulate``, every
plugin of the profile, the cluster's own pending pods first) on the cluster with N copies of
NODE added as ``--add-nodes N --like NODE`` adds them. A try succeeds when every pod of the
workloads is scheduled and none of them got there by preempting a running pod (the question is
what fits beside the running pods, as for ``capacity``).

More nodes help in practice but need not (a spread constraint over zones, or pod affinity, can
turn a bigger cluster down), so the search does not lean on it more than it must: it doubles N
from 1 until a try succeeds, then bisects between the last failing and the first succeeding N.
The answer's two runs, N and N - 1, are full simulations whose results the answer quotes: N
schedules every pod, N - 1 leaves the pod it names pending with the scheduler's own message.
When a try leaves one of the added nodes empty while a pod stays pending, adding more nodes of
that shape cannot help (an empty node like NODE was there and the pod did not take it): the
search stops and says so. It never adds more than ``ADD_NODES_MAX`` nodes (the limit of
``--add-nodes``).

Every try runs with the same seed (one is drawn when none is given and reported), so that a
random tie-break cannot make N succeed once and fail the next time.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from kschedctl.limits import ADD_NODES_MAX
from kschedctl.scheduler.outcome import Outcome

__all__ = ["ShapeAnswer", "NodesNeededResult", "nodes_needed"]


@dataclass
class Try:
    """One simulate run of the search: the nodes added, what it scheduled and the first pod left."""

    nodes: int
    scheduled: int
    pending: int
    preempted: int = 0
    #: The first pod of the workloads left pending (or placed by preemption), and its message.
    pod: str = ""
    message: str = ""
    #: Pods of the workloads per node (added nodes included).
    per_node: dict[str, int] = field(default_factory=dict)
    #: The added nodes, in order, and those of them left without any pod at all.
    new_nodes: list[str] = field(default_factory=list)
    empty_new_nodes: list[str] = field(default_factory=list)

    @property
    def fits(self) -> bool:
        return self.pending == 0 and self.preempted == 0

    def to_dict(self) -> dict[str, Any]:
        return {"nodes": self.nodes, "scheduled": self.scheduled, "pending": self.pending,
                "preempted": self.preempted}


@dataclass
class ShapeAnswer:
    """The answer for one ``--like NODE``."""

    like: str
    #: The fewest nodes to add; None when no number up to the limit (or none at all) does it.
    nodes_needed: int | None = None
    limit_reached: bool = False
    #: Why no number helps: an added node stayed empty while a pod stayed pending.
    hopeless: bool = False
    #: The run with ``nodes_needed`` nodes added (with 0 when the cluster holds them today).
    enough: Try | None = None
    #: The run with one node fewer (None when nothing needs adding), or the last failing run.
    one_fewer: Try | None = None
    tries: list[Try] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"like": self.like, "nodesNeeded": self.nodes_needed,
                               "limitReached": self.limit_reached, "hopeless": self.hopeless}
        if self.enough is not None:
            out["perNode"] = dict(self.enough.per_node)
            out["newNodes"] = list(self.enough.new_nodes)
        if self.one_fewer is not None:
            out["oneFewer"] = {"nodes": self.one_fewer.nodes, "pod": self.one_fewer.pod,
                               "message": self.one_fewer.message, "scheduled": self.one_fewer.scheduled,
                               "pending": self.one_fewer.pending}
        out["tries"] = [t.to_dict() for t in self.tries]
        return out


@dataclass
class NodesNeededResult:
    """The answer (contract: ``kind: NodesNeededResult``)."""

    pods: int
    nodes_today: int
    shapes: list[ShapeAnswer]
    seed: int
    limit: int = ADD_NODES_MAX
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return all(s.nodes_needed is not None for s in self.shapes)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "NodesNeededResult", "pods": self.pods, "nodesToday": self.nodes_today,
                "nodesNeeded": {s.like: s.nodes_needed for s in self.shapes},
                "shapes": [s.to_dict() for s in self.shapes], "limit": self.limit, "seed": self.seed}


def _try(pods: list[dict], cluster: Any, config: Any, like: str, count: int, labels: tuple, taints: tuple,
         profile: str | None, seed: int, registry: Any, extenders: bool, warnings: list[str]) -> Try:
    from kschedctl.cluster.edits import AddNodes
    from kschedctl.scheduler.simulate import Simulator

    state, new_nodes = cluster, []
    if count:
        state, record = AddNodes(like, count, labels, taints).apply(cluster)
        new_nodes = list(record.nodes)
    sim = Simulator(state, config, registry=registry, seed=seed, extenders=extenders)
    result = sim.run(pods, profile)
    warnings.extend(w for w in result.warnings if w not in warnings)
    preemptors = {p.pod for p in result.preemptions}
    mine = [p for p in result.placements if p.source == "file"]
    out = Try(count, 0, 0, new_nodes=new_nodes)
    for p in mine:
        if p.outcome == Outcome.SCHEDULED and p.node:
            out.scheduled += 1
            out.per_node[p.node] = out.per_node.get(p.node, 0) + 1
            if p.pod in preemptors:
                out.preempted += 1
                if not out.pod:
                    out.pod, out.message = p.pod, f"scheduled only by preempting running pods on {p.node}"
        else:
            out.pending += 1
            if not out.pod or out.pod in preemptors:
                out.pod, out.message = p.pod, p.message or str(p.outcome)
    used = {p.node for p in result.placements if p.outcome == Outcome.SCHEDULED and p.node}
    out.empty_new_nodes = [n for n in new_nodes if n not in used]
    return out


def nodes_needed(
    pods: list[dict],
    cluster: Any,
    likes: list[str],
    config: Any = None,
    profile: str | None = None,
    seed: int | None = None,
    registry: Any = None,
    extenders: bool = True,
    labels: tuple[tuple[str, str], ...] = (),
    taints: tuple[str, ...] = (),
    limit: int = ADD_NODES_MAX,
    progress: Callable[[str, int], None] | None = None,
) -> NodesNeededResult:
    """For each node of ``likes``, the fewest copies of it (named, labelled and tainted as
    ``--add-nodes`` makes them) to add to ``cluster`` so that every pod of ``pods`` is scheduled
    beside the running pods. ``progress(like, n)`` is told of each try."""
    started = time.perf_counter()
    seed = random.randrange(1 << 31) if seed is None else seed
    result = NodesNeededResult(len(pods), len(cluster.nodes), [], seed, limit=limit)
    for like in likes:
        answer = ShapeAnswer(like)
        runs: dict[int, Try] = {}

        def attempt(n: int, like: str = like, answer: ShapeAnswer = answer, runs: dict[int, Try] = runs) -> Try:
            if progress is not None:
                progress(like, n)
            run = _try(pods, cluster, config, like, n, labels, taints, profile, seed, registry, extenders,
                       result.warnings)
            runs[n] = run
            answer.tries.append(run)
            return run

        result.shapes.append(answer)
        if attempt(0).fits:
            answer.nodes_needed, answer.enough = 0, runs[0]
            continue
        low, high = 0, 1
        while True:
            run = attempt(high)
            if run.fits:
                break
            if run.empty_new_nodes:
                answer.hopeless, answer.one_fewer = True, run
                break
            low = high
            if high >= limit:
                answer.limit_reached, answer.one_fewer = True, run
                break
            high = min(high * 2, limit)
        if answer.hopeless or answer.limit_reached:
            continue
        while high - low > 1:
            middle = (low + high) // 2
            if attempt(middle).fits:
                high = middle
            else:
                low = middle
        answer.nodes_needed, answer.enough, answer.one_fewer = high, runs[high], runs[high - 1]
    result.seconds = time.perf_counter() - started
    return result
