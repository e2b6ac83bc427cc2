"""``replay``: a recorded trace run again through a profile, and what it would have done differently.

The cluster is rebuilt as it was when recording started (the trace's objects); then the events
are applied in time order. Node changes and deletions are applied as they happened; pod
arrivals (pods created without a node, and the pods pending at the start) are scheduled by the
simulator (``kschedctl.scheduler.simulate``) under the given configuration, each placement
assumed for the next, preemptions evicting their victims. After every event that could let a
pending pod in (an arrival, a deletion, a node added or changed, a pod or volume updated) the
pods still pending in the replay are tried again, as kube-scheduler's queue retries them on
cluster events. Arrivals less than ``BATCH_WINDOW`` apart with nothing else between them are
scheduled as one batch, in queue order, as a scheduler busy with a burst of pods takes them.

What happened is read from the same trace (``PodBound``, ``PodNominated``, ``PodDeleted``);
pods bound at creation (``spec.nodeName`` set by their creator) and pods that another
scheduler places (their ``schedulerName`` names no profile) follow what happened. Each pod that
waited for the scheduler is then classed: same node, different node, would stay pending, was
pending but would schedule, both pending, would be preempted. Pending times are counted in the
trace's own time: in the replay, scheduling takes no time, so a pod waits only for the cluster
event that lets it in.

Where kube-scheduler chooses at random (nodes tied at the top score, upstream ``selectHost``;
preemption candidates equal on every criterion, the first of a Go map), the replay takes the node
the trace shows the real scheduler took, when it is among the tied ones, and reports the pod as a
``tie`` (no difference) rather than another node: the pods after it then see the cluster as it
was. A preemption's victims are the pods whose deletion the trace marks ``PreemptionByScheduler``
(their DisruptionTarget condition), each given to the nearest nomination on its node.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from kschedctl import limits
from kschedctl.errors import InputError
from kschedctl.inputs.cluster import waits_for_scheduler
from kschedctl.inputs.trace import Trace, TraceEvent, parse_time
from kschedctl.scheduler.simulation_result import Placement, PreemptionRecord, SimulationResult
from kschedctl.scheduler.outcome import Outcome

#: Arrivals closer than this (seconds), with no other event between them, form one batch.
BATCH_WINDOW = 1.0

SAME = "same"
#: The real scheduler drew the node among others tied with it, which the replay ties too.
TIE = "tie"
DIFFERENT_NODE = "differentNode"
WOULD_STAY_PENDING = "wouldStayPending"
WOULD_SCHEDULE = "wouldSchedule"
BOTH_PENDING = "bothPending"
WOULD_BE_PREEMPTED = "wouldBePreempted"
#: The deletion reason kube-scheduler's preemption gives its victims (their DisruptionTarget condition).
PREEMPTION_REASON = "PreemptionByScheduler"
#: Every change, in the order the summary lists them; same, tie and bothPending are no difference.
CHANGES = (SAME, TIE, DIFFERENT_NODE, WOULD_STAY_PENDING, WOULD_SCHEDULE, WOULD_BE_PREEMPTED, BOTH_PENDING)
UNCHANGED = frozenset({SAME, TIE, BOTH_PENDING})


@dataclass
class Actual:
    """What happened to a pod, from the trace (seconds from the trace's start)."""

    node: str | None = None
    bound_at: float | None = None
    nominated_node: str | None = None
    deleted_at: float | None = None

    def to_dict(self, arrived: float, end: float) -> dict[str, Any]:
        out: dict[str, Any] = {"outcome": Outcome.SCHEDULED if self.node else Outcome.PENDING, "node": self.node,
                               "boundAt": _seconds(self.bound_at)}
        out.update(_pending(arrived, self.bound_at, self.deleted_at, end))
        if self.nominated_node:
            out["nominatedNode"] = self.nominated_node
        if self.deleted_at is not None:
            out["deletedAt"] = _seconds(self.deleted_at)
        return out


@dataclass
class Replayed:
    """What the replay did with a pod."""

    outcome: str = "Pending"
    node: str | None = None
    bound_at: float | None = None
    message: str = ""
    nominated_node: str | None = None
    preempted_by: str | None = None
    preempted_at: float | None = None
    deleted_at: float | None = None
    #: The nodes tied with the one taken (top scores, or preemption candidates equal on every
    #: criterion) where the decision that placed or nominated the pod was a draw.
    tied: list[str] = field(default_factory=list)

    def to_dict(self, arrived: float, end: float) -> dict[str, Any]:
        out: dict[str, Any] = {"outcome": self.outcome, "node": self.node, "boundAt": _seconds(self.bound_at)}
        gone = self.preempted_at if self.preempted_at is not None else self.deleted_at
        out.update(_pending(arrived, self.bound_at, gone, end))
        if self.message:
            out["message"] = self.message
        if self.nominated_node:
            out["nominatedNode"] = self.nominated_node
        if self.preempted_by:
            out["preemptedBy"] = self.preempted_by
            out["preemptedAt"] = _seconds(self.preempted_at)
        if self.tied:
            out["tiedNodes"] = list(self.tied)
        return out


def _seconds(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _pending(arrived: float, bound: float | None, gone: float | None, end: float) -> dict[str, Any]:
    """Seconds pending; ``stillPending`` when the pod never got a node (then: until deleted or the end)."""
    if bound is not None:
        return {"pendingSeconds": round(max(0.0, bound - arrived), 3)}
    until = gone if gone is not None else end
    return {"pendingSeconds": round(max(0.0, until - arrived), 3), "stillPending": True}


@dataclass
class PodReplay:
    """One pod that waited for the scheduler: what happened, what the replay did, the change."""

    pod: str
    arrived: float
    actual: Actual = field(default_factory=Actual)
    replay: Replayed = field(default_factory=Replayed)
    #: Arrived before recording started (pending in the trace's first list).
    initial: bool = False

    @property
    def change(self) -> str:
        if self.replay.outcome == Outcome.PREEMPTED:
            return WOULD_BE_PREEMPTED
        if self.actual.node and self.replay.node and self.replay.outcome == Outcome.SCHEDULED:
            if self.actual.node in self.replay.tied and self.replay.node in self.replay.tied:
                return TIE
            return SAME if self.actual.node == self.replay.node else DIFFERENT_NODE
        if self.actual.node:
            return WOULD_STAY_PENDING
        if self.replay.node and self.replay.outcome == Outcome.SCHEDULED:
            return WOULD_SCHEDULE
        return BOTH_PENDING

    def to_dict(self, end: float) -> dict[str, Any]:
        return {"pod": self.pod, "arrived": _seconds(self.arrived), "initial": self.initial, "change": self.change,
                "actual": self.actual.to_dict(self.arrived, end), "replay": self.replay.to_dict(self.arrived, end)}


@dataclass
class ReplayPreemption:
    """A preemption: the preemptor, its node, its victims and when; ``tied``: the candidates equal
    on every criterion, of which the node was drawn."""

    at: float
    pod: str
    node: str
    victims: list[str] = field(default_factory=list)
    tied: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out = {"at": _seconds(self.at), "pod": self.pod, "node": self.node, "victims": list(self.victims)}
        if self.tied:
            out["tiedNodes"] = list(self.tied)
        return out


@dataclass
class ReplayResult:
    """The answer of ``kschedctl replay`` (``kind: ReplayResult``)."""

    trace: str
    started: str
    duration: float
    config: str | None
    profile: str | None
    seed: int | None
    events: dict[str, int]
    pods: list[PodReplay] = field(default_factory=list)
    #: Nominations that happened (preemptions, as the trace shows them: the victims are the pods
    #: deleted for a preemption on that node, when the trace says so).
    actual_preemptions: list[ReplayPreemption] = field(default_factory=list)
    replay_preemptions: list[ReplayPreemption] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: Scheduling runs (one per batch of events that let pods in).
    runs: int = 0
    seconds: float = 0.0
    #: The replay as one simulate answer (placements, preemptions, usage at the end): what diff and
    #: sweep compare and measure.
    simulation: SimulationResult = field(default_factory=SimulationResult)

    def summary(self) -> dict[str, int]:
        out = {c: 0 for c in CHANGES}
        for p in self.pods:
            out[p.change] += 1
        return out

    @property
    def differences(self) -> list[PodReplay]:
        return [p for p in self.pods if p.change not in UNCHANGED]

    @property
    def identical(self) -> bool:
        """No pod placed differently (pending times aside) and no preemption the trace does not show."""
        return not self.differences

    def to_dict(self) -> dict[str, Any]:
        summary = self.summary()
        return {
            "kind": "ReplayResult",
            "trace": self.trace,
            "started": self.started,
            "durationSeconds": round(self.duration, 3),
            "config": self.config,
            "profile": self.profile,
            "seed": self.seed,
            "events": dict(self.events),
            "summary": {"pods": len(self.pods), **summary, "differences": len(self.differences),
                        "actualPreemptions": len(self.actual_preemptions),
                        "replayPreemptions": len(self.replay_preemptions), "runs": self.runs},
            "pods": [p.to_dict(self.duration) for p in self.pods],
            "preemptions": {"actual": [p.to_dict() for p in self.actual_preemptions],
                            "replay": [p.to_dict() for p in self.replay_preemptions]},
            "warnings": list(self.warnings),
        }


# ---------------------------------------------------------------------------------------------


def _pod_key(pod: dict) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


def _bound_to(pod: dict, node: str) -> dict:
    out = dict(pod)
    out["spec"] = {**(pod.get("spec") or {}), "nodeName": node}
    status = dict(pod.get("status") or {})
    status.pop("nominatedNodeName", None)
    out["status"] = status
    return out


def _unbound(pod: dict) -> dict:
    out = dict(pod)
    spec = dict(pod.get("spec") or {})
    spec.pop("nodeName", None)
    out["spec"] = spec
    return out


def _run_copy(pod: dict) -> dict:
    out = dict(pod)
    for key in ("spec", "status", "metadata"):
        if isinstance(pod.get(key), dict):
            out[key] = dict(pod[key])
    return out


class Replayer:
    """Replays one trace under one configuration (a Replayer answers once)."""

    def __init__(self, trace: Trace, config: Any = None, profile: str | None = None, registry: Any = None,
                 seed: int | None = None, extenders: bool = True, cluster: Any = None,
                 config_name: str | None = None) -> None:
        """``cluster``: start from this cluster state instead of the trace's (the trace's events
        then run on another cluster: sweep's clusters)."""
        from kschedctl.inputs.cluster import ClusterState

        self.trace = trace
        self.config = config
        self.profile = profile
        self.registry = registry
        self.seed = seed
        self.extenders = extenders
        self.t0 = trace.started
        self.state = cluster.copy() if cluster is not None else ClusterState.from_documents(trace.documents())
        self.pending: dict[str, dict] = {}
        self.records: dict[str, PodReplay] = {}
        self.not_handled: set[str] = set()
        self.gone: set[str] = set()  # pods the replay deleted (preemption victims)
        self._infos: dict[int, Any] = {}
        #: The pending pods the next run tries (None: all of them), and the filter plugins every
        #: profile runs (for the node events' hints).
        self._retry: set[str] | None = None
        self._filters: frozenset[str] | None = None
        #: Where each pod was (the trace's side), and the deletions marked as a preemption's.
        self.actual_nodes: dict[str, str] = {}
        self._preempted: list[tuple[float, str, str]] = []
        #: Per pod, what the real scheduler did with each of its arrivals (bound, nominated), and
        #: with the current one: its draws among tied nodes are followed.
        self._ahead: dict[str, list[dict[str, str]]] = {}
        self.follow: dict[str, dict[str, str]] = {}
        self.result = ReplayResult(trace.file, str(trace.header.get("started")), trace.duration, config_name,
                                   profile, seed, trace.counts())
        for warning in self.state.warnings:
            if warning not in self.result.warnings:
                self.result.warnings.append(warning)
        for pod in self.state.pods:
            node = (pod.get("spec") or {}).get("nodeName")
            if node:
                self.actual_nodes[_pod_key(pod)] = node
        self._ahead = _real_choices(trace, [_pod_key(p) for p in self.state.pods if waits_for_scheduler(p)])
        # Pods pending when recording started: they wait for the scheduler, as arrivals at the start.
        for pod in list(self.state.pods):
            if waits_for_scheduler(pod):
                key = _pod_key(pod)
                self.state.remove_object("Pod", key)
                created = parse_time((pod.get("metadata") or {}).get("creationTimestamp"))
                arrived = min(0.0, created - self.t0) if created is not None else 0.0
                self._arrive(pod, key, arrived, initial=True)

    # -- the run ----------------------------------------------------------------------------------
    def run(self) -> ReplayResult:
        started = time.perf_counter()
        events = sorted(self.trace.events, key=lambda e: e.time)  # stable: equal times keep their order
        dirty = bool(self.pending)
        if dirty:
            self._schedule(0.0)
            dirty = False
        batch_start: float | None = None
        for i, event in enumerate(events):
            at = event.time - self.t0
            limits.charge(limits.EVENTS)
            try:
                lets_in = self._apply(event, at)
            except InputError as exc:  # an object the loaders refuse (a priority class that does not exist...)
                raise exc.at(self.trace.file, event.line) from None
            if lets_in and event.type not in ("NodeAdded", "NodeUpdated"):
                self._retry = None  # an arrival, a deletion, an update: every pending pod is tried
            dirty = dirty or lets_in
            if event.type == "PodCreated" and batch_start is None:
                batch_start = at
            following = events[i + 1] if i + 1 < len(events) else None
            if (following is not None and following.type == "PodCreated" and event.type == "PodCreated"
                    and batch_start is not None and following.time - self.t0 - batch_start < BATCH_WINDOW):
                continue  # the burst goes on: schedule it as one batch
            batch_start = None
            if dirty and self.pending:
                self._schedule(at)
            dirty = False
        self._finish()
        self.result.seconds = time.perf_counter() - started
        return self.result

    def _arrive(self, pod: dict, key: str, at: float, initial: bool = False) -> None:
        from kschedctl.inputs.cluster import admit_pod

        pod = admit_pod(_run_copy(pod), self.state, existing=True)
        self.pending[key] = pod
        choices = self._ahead.get(key)
        self.follow[key] = choices.pop(0) if choices else {}
        record = self.records.get(key)
        if record is None or record.actual.deleted_at is not None:
            self.records[key] = PodReplay(key, at, initial=initial)

    def _apply(self, event: TraceEvent, at: float) -> bool:
        """Apply one event to the replay's cluster; whether pending pods may now fit."""
        kind = event.type
        state = self.state
        if kind in ("NodeAdded", "NodeUpdated"):
            state.add_object(event.object)
            return self._helped_by(event.object)
        if kind == "NodeDeleted":
            state.remove_object("Node", event.node)
            return False
        if kind == "PodCreated":
            pod, key = event.object, event.pod
            if waits_for_scheduler(pod):
                self._arrive(pod, key, at)
                return True
            if (pod.get("spec") or {}).get("nodeName"):
                self.actual_nodes[key] = pod["spec"]["nodeName"]
                state.add_object(pod)  # bound by its creator: the scheduler never saw it
            return False
        if kind == "PodUpdated":
            key = event.pod
            if key in self.pending:
                from kschedctl.inputs.cluster import admit_pod

                self.pending[key] = admit_pod(_run_copy(_unbound(event.object)), state, existing=True)
                return True
            current = next((p for p in state.pods if _pod_key(p) == key), None)
            if current is not None:
                node = (current.get("spec") or {}).get("nodeName")
                state.add_object(_bound_to(event.object, node) if node else event.object)
                return True
            return False
        if kind == "PodBound":
            self.actual_nodes[event.pod] = event.node
            record = self.records.get(event.pod)
            if record is not None and record.actual.node is None:
                record.actual.node, record.actual.bound_at = event.node, at
            if event.pod in self.not_handled and event.pod in self.pending:
                # another scheduler's pod: it goes where that scheduler put it
                state.add_object(_bound_to(self.pending.pop(event.pod), event.node))
                return False
            return False
        if kind == "PodNominated":
            record = self.records.get(event.pod)
            if record is not None:
                record.actual.nominated_node = event.node
            self.result.actual_preemptions.append(ReplayPreemption(at, event.pod, event.node))
            return False
        if kind == "PodDeleted":
            key = event.pod
            if event.data.get("reason") == PREEMPTION_REASON and key in self.actual_nodes:
                self._preempted.append((at, key, self.actual_nodes[key]))
            record = self.records.get(key)
            if record is not None and record.actual.deleted_at is None:
                record.actual.deleted_at = at
            if key in self.pending:
                del self.pending[key]
                if record is not None:
                    record.replay.deleted_at = at
                return False
            if key in self.gone:
                return False
            if state.remove_object("Pod", key) is not None:
                if record is not None:
                    record.replay.deleted_at = at
                return True
            return False
        if kind in ("ObjectAdded", "ObjectUpdated"):
            state.add_object(event.object)
            return True
        if kind == "ObjectDeleted":
            state.remove_object(str(event.data["kind"]), str(event.data["name"]))
            return True
        return False  # Resync: its difference follows as events

    def _helped_by(self, node: dict) -> bool:
        """Mark the pending pods a node event may let in for the next run (upstream's queue moves
        only those: ``node_event_hints``); whether there is any."""
        from kschedctl.scheduler.node_event_hints import node_may_help

        if self._filters is None:
            from kschedctl.scheduler.simulate import Simulator

            sim = Simulator(self.state, self.config, registry=self.registry, seed=self.seed, extenders=False)
            # a check counts only where every profile runs its plugin
            names = [frozenset(fwk.plugin_names("filter")) for fwk in sim.frameworks.values()]
            self._filters = frozenset.intersection(*names) if names else frozenset()
        helped = {key for key, pod in self.pending.items() if node_may_help(pod, node, self._filters)}
        if self._retry is not None:
            self._retry |= helped
        return bool(helped)

    def _schedule(self, at: float) -> None:
        """One simulate run over the pods pending in the replay; placements go into its cluster."""
        from kschedctl.scheduler.simulate import Simulator

        from kschedctl.framework.types import PodInfo

        self.result.runs += 1
        # A bound pod's PodInfo (its requests, affinity terms...) is the same from run to run: made
        # once per pod object, not once per run (a run never changes the PodInfos of bound pods).
        infos: dict[int, PodInfo] = {}
        for pod in self.state.pods:
            info = self._infos.get(id(pod))
            infos[id(pod)] = info if info is not None and info.pod is pod else PodInfo(pod)
        self._infos = infos
        sim = Simulator(self.state, self.config, registry=self.registry, seed=self.seed, extenders=self.extenders,
                        pod_infos=list(infos.values()))
        retry, self._retry = self._retry, set()
        batch = [_run_copy(pod) for key, pod in self.pending.items() if retry is None or key in retry]
        follow = [(key, self.follow.get(key) or {}) for key in self.pending]  # not every pod ever seen
        sim.scheduler.tie_breaks = {key: f["bound"] for key, f in follow if "bound" in f}
        nominated = {key: f.get("nominated") or f["bound"] for key, f in follow if "nominated" in f or "bound" in f}
        for fwk in sim.frameworks.values():
            fwk.handle.tie_breaks = nominated
        from kschedctl.scheduler.simulate import CYCLE_OBSERVER

        # Which decisions were draws: seen in the cycles themselves (a diff's observer, if any,
        # is told of them too).
        score_ties: dict[str, list[str]] = {}
        preemption_ties: dict[str, list[str]] = {}
        outer = CYCLE_OBSERVER.get()

        def observe(pod_info: Any, out: Any) -> None:
            key = pod_info.key
            if out.preemption is not None and len(out.preemption.tied) > 1:
                preemption_ties[key] = sorted(out.preemption.tied)
            if out.selected_node and len(out.tied_nodes) > 1:
                score_ties[key] = sorted(out.tied_nodes)
            if outer is not None:
                outer(pod_info, out)

        token = CYCLE_OBSERVER.set(observe)
        try:
            outcome = sim.run(batch, self.profile, include_cluster_pending=False, admit_pods=False)
        finally:
            CYCLE_OBSERVER.reset(token)
        for warning in outcome.warnings:
            if warning not in self.result.warnings:
                self.result.warnings.append(warning)
        for preemption in outcome.preemptions:
            self.result.replay_preemptions.append(
                ReplayPreemption(at, preemption.pod, preemption.node, list(preemption.victims),
                                 preemption_ties.get(preemption.pod, [])))
            for victim in preemption.victims:
                if self.state.remove_object("Pod", victim) is not None:
                    self.gone.add(victim)
                    record = self.records.get(victim)
                    if record is not None:
                        record.replay.outcome = Outcome.PREEMPTED
                        record.replay.preempted_by, record.replay.preempted_at = preemption.pod, at
        for placement in outcome.placements:
            key = placement.pod
            record = self.records.get(key)
            if key not in self.pending or record is None:
                continue
            replayed = record.replay
            replayed.message = placement.message
            if placement.outcome == Outcome.SCHEDULED and placement.node:
                self.state.add_object(_bound_to(self.pending.pop(key), placement.node))
                replayed.outcome, replayed.node, replayed.bound_at = Outcome.SCHEDULED, placement.node, at
                replayed.message = ""
                if key in score_ties:
                    replayed.tied = score_ties[key]
                elif placement.node in preemption_ties.get(key, ()):
                    replayed.tied = preemption_ties[key]  # preempted, then placed in the same run
                elif replayed.nominated_node != placement.node:
                    replayed.tied = []  # a draw for another node's preemption says nothing of this one
            elif placement.outcome == Outcome.PREEMPTED:
                # placed by this run, then evicted by a later pod of it
                del self.pending[key]
                self.gone.add(key)
                replayed.outcome, replayed.preempted_by, replayed.preempted_at = Outcome.PREEMPTED, placement.preempted_by, at
            elif placement.outcome == Outcome.NOT_HANDLED:
                self.not_handled.add(key)
                replayed.outcome = Outcome.NOT_HANDLED
            else:
                replayed.outcome = placement.outcome if placement.outcome != Outcome.UNSCHEDULABLE else Outcome.PENDING
                if placement.nominated_node:
                    replayed.nominated_node = placement.nominated_node
                    replayed.tied = preemption_ties.get(key, [])
                    self.pending[key].setdefault("status", {})["nominatedNodeName"] = placement.nominated_node

    def _finish(self) -> None:
        """Pods another scheduler places are no difference of this profile: left out; the rest in
        arrival order, and the replay as one simulate answer."""
        from kschedctl.framework.snapshot import Snapshot
        from kschedctl.framework.types import PodInfo
        from kschedctl.scheduler.simulation_result import usage

        result = self.result
        for at, victim, node in self._preempted:
            on_node = [p for p in result.actual_preemptions if p.node == node]
            if on_node:
                min(on_node, key=lambda p: abs(p.at - at)).victims.append(victim)
        result.pods = sorted((r for r in self.records.values() if r.pod not in self.not_handled),
                             key=lambda r: r.arrived)
        placed: dict[str, int] = {}
        sim = result.simulation
        sim.seed = self.seed
        for record in result.pods:
            replayed = record.replay
            outcome = replayed.outcome if replayed.outcome != Outcome.PENDING else Outcome.UNSCHEDULABLE
            sim.placements.append(Placement(record.pod, outcome, replayed.node, replayed.message,
                                            profile=self.profile or "", preempted_by=replayed.preempted_by,
                                            source="trace"))
            if outcome == Outcome.SCHEDULED and replayed.node:
                placed[replayed.node] = placed.get(replayed.node, 0) + 1
        sim.preemptions = [PreemptionRecord(p.pod, p.node, list(p.victims)) for p in result.replay_preemptions]
        snapshot = Snapshot(self.state.nodes, [PodInfo(p) for p in self.state.pods])
        sim.nodes, sim.zones = usage(snapshot, placed)
        sim.cycles = result.runs
        sim.warnings = list(result.warnings)


def _real_choices(trace: Trace, pending_at_start: list[str]) -> dict[str, list[dict[str, str]]]:
    """Per pod, for each time it waited for the scheduler (pending at the start, then each
    arrival), the node the trace binds it to (``bound``) and first nominates it to (``nominated``)."""
    out: dict[str, list[dict[str, str]]] = {key: [{}] for key in pending_at_start}
    for event in sorted(trace.events, key=lambda e: e.time):
        if event.type == "PodCreated" and waits_for_scheduler(event.object):
            out.setdefault(event.pod, []).append({})
        elif event.type in ("PodBound", "PodNominated") and out.get(event.pod):
            out[event.pod][-1].setdefault("bound" if event.type == "PodBound" else "nominated", event.node)
    return out


def replay(trace: Trace, config: Any = None, profile: str | None = None, **kwargs: Any) -> ReplayResult:
    """Replay ``trace`` under ``config`` (the built-in default when None)."""
    return Replayer(trace, config, profile, **kwargs).run()


__all__ = ["Replayer", "ReplayResult", "PodReplay", "Actual", "Replayed", "ReplayPreemption", "replay", "CHANGES",
           "BATCH_WINDOW", "SAME", "TIE", "PREEMPTION_REASON", "DIFFERENT_NODE", "WOULD_STAY_PENDING", "WOULD_SCHEDULE", "BOTH_PENDING",
           "WOULD_BE_PREEMPTED"]
