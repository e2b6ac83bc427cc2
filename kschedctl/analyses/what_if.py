"""Node what-ifs for the commands: the edits applied, and the pods a drain evicted rescheduled.

``WhatIf`` holds the edits a run asks for (``--without-node``, ``--cordon``, ``--drain``,
``--add-nodes``, ...). ``WhatIf.apply(state, config, ...)`` returns the edited cluster state
and a ``WhatIfReport``: the record of each edit and, after a drain, where each replacement pod
the controllers make goes. The replacements are scheduled as kube-scheduler would take them
from its queue right after the drain (``Simulator``, under the run's configuration, before the
command's own pods); those that fit are bound in the returned state, the others stay pending
in it, with the scheduler's message saying why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kschedctl.errors import InputError
from kschedctl.inputs.cluster import ClusterState
from kschedctl.scheduler.outcome import Outcome

if TYPE_CHECKING:
    from kschedctl.cluster.edits import Drain, Edit, EditRecord

__all__ = ["WhatIf", "WhatIfReport"]


@dataclass
class WhatIfReport:
    """What a run changed in the cluster before answering (plain data)."""

    records: list[EditRecord] = field(default_factory=list)
    #: The cluster as it was before the edits (the report's "before"; not in the JSON).
    state_before: ClusterState | None = field(default=None, repr=False)

    def usage_before(self) -> list[Any]:
        """Requested and allocatable per node of the cluster as it is, before the edits
        (``NodeUsage``, as a simulation's ``nodes_before``)."""
        if self.state_before is None:
            return []
        from kschedctl.framework.snapshot import Snapshot
        from kschedctl.framework.types import PodInfo
        from kschedctl.scheduler.simulation_result import usage

        state = self.state_before
        return usage(Snapshot(state.nodes, [PodInfo(p) for p in state.pods]))[0]

    def __bool__(self) -> bool:
        return bool(self.records)

    def lines(self) -> list[str]:
        """The "what-if:" block of a table: one line per edit, then the drain's details."""
        out = []
        for record in self.records:
            out.append(record.summary())
            if record.action == "remove" and record.pods:
                out.append(f"  pods gone with the nodes: {', '.join(record.pods)}")
            for pod, message in record.blocked.items():
                out.append(f"  blocked: {pod}: {message}")
            for pod, reason in record.refused.items():
                out.append(f"  not evictable: {pod}: {reason}")
            for pod in record.deleted:
                out.append(f"  deleted: {pod}")
            verb = "deleted with its node" if record.action == "remove" else "evicted"
            for eviction in record.evicted:
                node, why = record.placements.get(eviction.replacement, (None, ""))
                where = f"-> {node}" if node else f"-> pending: {why}" if why else "-> pending"
                out.append(f"  {verb} {eviction.pod} ({eviction.controller}); "
                           f"its replacement {eviction.replacement} {where}")
            if record.action == "remove" and record.evicted:
                shortfall = record.shortfall()
                out.append(f"  not every pod comes back: {'; '.join(shortfall)}" if shortfall else
                           "  every replacement placed")
            if record.action == "drain":
                shortfall = record.shortfall()
                out.append(f"  drain not complete: {'; '.join(shortfall)}" if shortfall else
                           "  drain complete: every evictable pod evicted, every replacement placed")
        return out

    @property
    def complete(self) -> bool:
        """Every drain complete, as ``kubectl drain`` would end (see ``EditRecord.complete``)."""
        return all(record.complete for record in self.records)

    def to_dict(self) -> list[dict[str, Any]]:
        return [record.to_dict() for record in self.records]


@dataclass
class WhatIf:
    """The edits of one run, in the order they are applied."""

    edits: list[Edit] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.edits)

    @classmethod
    def from_spec(cls, spec: dict[str, Any], where: str = "") -> "WhatIf":
        """The edits of a file's what-if mapping (a sweep's ``whatIfs`` item), in the order the
        command line applies them: ``addNodes: {count, like, labels, taints}``, ``withoutNode``,
        ``withoutNodes``, ``cordon``, ``notReady``, ``drain`` (lists of names or selectors), ``drainForce``.
        Malformed values are an ``InputError`` naming ``where``."""
        from kschedctl.cluster.edits import (AddNodes, Cordon, Drain, MarkNotReady, NodeTarget, RemoveNodes,
                                             parse_label, parse_taint)

        edits: list[Edit] = []

        def at(key: str, parse: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return parse(*args, **kwargs)
            except InputError as exc:
                exc.message = f"{where}.{key}: {exc.message}" if where else f"{key}: {exc.message}"
                exc.args = (exc.message,)
                raise

        add = spec.get("addNodes")
        if add:
            labels = tuple(at("addNodes.labels", parse_label, f"{k}={v}") for k, v in (add.get("labels") or {}).items())
            taints = tuple(add.get("taints") or ())
            for taint in taints:
                at("addNodes.taints", parse_taint, taint)
            edits.append(AddNodes(add["like"], int(add.get("count", 1)), labels, taints,  # type: ignore[arg-type]
                                  origin=f"{where}.addNodes" if where else "addNodes"))
        for key, selector, make in (("withoutNode", False, RemoveNodes), ("withoutNodes", True, RemoveNodes),
                                    ("cordon", None, Cordon), ("notReady", None, MarkNotReady),
                                    ("drain", None, Drain)):
            for text in spec.get(key) or ():
                target = at(key, NodeTarget.parse, text, selector=selector)
                origin = f"{where}.{key} {text}" if where else f"{key} {text}"
                if make is Drain:
                    edits.append(Drain(target, force=bool(spec.get("drainForce")), origin=origin))
                else:
                    edits.append(make(target, origin=origin))
        return cls(edits)

    def describe(self) -> str:
        """A short name of the edits ("drain node-a1; add 2 like node-a1"), "as-is" without any."""
        return "; ".join(edit.describe() for edit in self.edits) or "as-is"

    def apply(self, state: ClusterState, config: Any = None, registry: Any = None, seed: int | None = None,
              extenders: bool = True) -> tuple[ClusterState, WhatIfReport]:
        """``state`` edited (unchanged when there is nothing to do) and what changed."""
        if not self.edits:
            return state, WhatIfReport()
        # Only a run that edits the cluster needs the edits (most runs: none, and no import).
        from kschedctl.cluster.edits import Drain, RemoveNodes, apply_edits, drain_nodes, replace_lost_pods

        records = []
        before = state
        edits = list(self.edits)
        while edits:
            if not isinstance(edits[0], Drain):
                edit = edits.pop(0)
                previous = state
                state, [record] = apply_edits(state, [edit])
                if isinstance(edit, RemoveNodes) and record.pods:
                    # A lost node's pods come back through their controllers, as a drain's do.
                    state = replace_lost_pods(previous, state, record)
                    if record.replacements:
                        state = reschedule(state, record, config, registry=registry, seed=seed,
                                           extenders=extenders)
                records.append(record)
                continue
            drains = []
            while edits and isinstance(edits[0], Drain):
                drains.append(edits.pop(0))

            def place(new: ClusterState, record: EditRecord, keys: list[str]) -> ClusterState:
                return reschedule(new, record, config, registry=registry, seed=seed, extenders=extenders,
                                  keys=keys)

            state, record = drain_nodes(state, _drained_nodes(state, drains),
                                        ", ".join(str(d.target) for d in drains), place=place)
            records.append(record)
        return state, WhatIfReport(records, before)


def _drained_nodes(state: ClusterState, drains: list[Drain]) -> list[tuple[str, bool]]:
    """The nodes of consecutive drains, each once, in the order named: ``--drain A --drain B`` is
    ``kubectl drain A B``, as is a selector matching A and B."""
    nodes: dict[str, bool] = {}
    for drain in drains:
        try:
            names = drain.target.nodes(state)
        except InputError as exc:
            if drain.origin and not exc.message.startswith(drain.origin):
                exc.message = f"{drain.origin}: {exc.message}"
                exc.args = (exc.message,)
            raise
        for name in names:
            nodes.setdefault(name, drain.force)
    return list(nodes.items())


def reschedule(state: ClusterState, record: EditRecord, config: Any = None, registry: Any = None,
               seed: int | None = None, extenders: bool = True, keys: list[str] | None = None) -> ClusterState:
    """Schedule a drain's replacement pods (``keys``, else all of ``record``'s) in ``state``; fill
    ``record.placements`` and return the state with the placed ones bound (a copy; the others
    stay pending)."""
    from kschedctl.scheduler.simulate import Simulator

    wanted = set(record.replacements if keys is None else keys)
    pods = [p for p in state.pods if _key(p) in wanted]
    state = state.copy()
    state.drop(pods=wanted)
    sim = Simulator(state, config, registry=registry, seed=seed, extenders=extenders)
    result = sim.run(pods, include_cluster_pending=False)
    bound = []
    for pod in pods:
        placement = result.placement(_key(pod))
        node = placement.node if placement is not None and placement.outcome == Outcome.SCHEDULED else None
        message = "" if node else (placement.message if placement is not None else "not scheduled")
        record.placements[_key(pod)] = (node, message)
        placed = dict(pod)
        if node:
            placed["spec"] = {**pod["spec"], "nodeName": node}
            placed["status"] = {**(pod.get("status") or {}), "phase": "Running"}
        bound.append(placed)
    victims = {v for p in result.preemptions for v in p.victims}
    if victims:
        state.drop(pods=victims)
    for pod in bound:
        state.add_object(pod)
    return state


def _key(pod: dict) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"
