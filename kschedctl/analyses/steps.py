"""Time-stepped scenarios: a cluster state changed step by step on a virtual clock, with the
pending pods scheduled after each step and the controllers kube-controller-manager runs
reacting where the outcome depends on them.

A step is one action (``Step.parse`` reads the mapping a scenario's ``steps:`` item or a
``--steps`` file holds):

- ``create``: pods or workloads (workloads as their replicas), new and pending;
- ``deletePods``: pods by name, or by ``selector`` (and ``namespace``);
- ``deleteNodes``, ``addNodes``, ``cordon``, ``drain``, ``label``, ``taint``: the node what-ifs
  of :mod:`kschedctl.cluster.edits`;
- ``notReady`` / ``unreachable``: the node lifecycle controller's view of a node whose Ready
  condition is False / Unknown: the ``node.kubernetes.io/not-ready`` (``unreachable``) taints
  with effects NoSchedule and NoExecute; ``ready`` takes them away again;
- ``complete``: pods (by name, or ``count`` running pods of a ``job``) succeed and free their node;
- ``advance``: virtual time passes (``5m``, ``1h30m``).

After each action, ``SteppedCluster`` acts as the controllers would, then schedules every
pending pod (``Simulator``, its clock set to the virtual time), repeating while the controllers
make new pods (a preempted replica's replacement), at most ``SETTLE_ROUNDS`` times:

- ReplicaSet, ReplicationController and StatefulSet: a pod deleted, evicted, preempted or gone
  with its node comes back as a new pending pod from the same template (a fresh generated name;
  a StatefulSet's pod under its own name); DaemonSet pods do not;
- Job: a succeeded pod counts toward ``completions``; a deleted or evicted pod counts as failed;
  the Job keeps ``min(parallelism, completions - succeeded)`` pods active (new pods are copies
  of one of its pods), none once it is complete or its failures pass ``backoffLimit`` (6);
- the NoExecute taint manager: a pod on a node with NoExecute taints it does not tolerate is
  evicted at once; one that tolerates them all with ``tolerationSeconds`` is evicted that long
  after the manager saw it there (the least of the matching tolerations' seconds), when virtual
  time reaches it; a toleration without seconds keeps it for good;
- the DefaultTolerationSeconds admission plugin: pods created by steps and controllers tolerate
  ``not-ready`` and ``unreachable`` NoExecute for 300 seconds unless they say otherwise.

Virtual time starts at the run's wall clock (whole seconds) and moves only with ``advance``;
plugins that read "now" (PreemptionToleration, Coscheduling, the Trimaran plugins' metrics
window) and the PodScheduled times written on binding read it.
"""

from __future__ import annotations

import copy
import dataclasses
import re
import time
from dataclasses import dataclass, field
from typing import Any, Iterable

from kschedctl.errors import InputError
from kschedctl.inputs.cluster import ClusterState, waits_for_scheduler
from kschedctl.inputs.workloads import PodsToExplain
from kschedctl.k8s.selectors import SelectorError, parse_selector
from kschedctl.k8s.tolerations import tolerates
from kschedctl.limits import ADD_NODES_MAX, STEPS_MAX, STEPS_VIRTUAL_TIME_MAX_SECONDS
from kschedctl.cluster.edits import (
    AddNodes,
    Cordon,
    Drain,
    Edit,
    EditRecord,
    LabelNodes,
    NodeReadiness,
    NodeTarget,
    NOT_READY_TAINT_KEY,
    UNREACHABLE_TAINT_KEY,
    RemoveNodes,
    TaintNodes,
    apply_edits,
    controller_of,
    parse_label,
    parse_taint,
    replacement_pod,
)
from kschedctl.scheduler.outcome import Outcome

__all__ = ["ACTIONS", "Step", "StepRecord", "SteppedCluster", "parse_duration", "parse_steps",
           "NOT_READY_TAINT_KEY", "UNREACHABLE_TAINT_KEY", "SETTLE_ROUNDS"]

#: DefaultTolerationSeconds' --default-not-ready-toleration-seconds / unreachable default.
DEFAULT_TOLERATION_SECONDS = 300
#: podMaxInUnschedulablePodsDuration: how long upstream's queue keeps a pod no event helped
#: before it tries it again (its flushUnschedulablePodsLeftover, run every 30s; a step takes it
#: at the step's end, so ``advance: 5m`` retries them).
UNSCHEDULABLE_FLUSH_SECONDS = 300.0
#: The Job controller's default spec.backoffLimit.
DEFAULT_BACKOFF_LIMIT = 6
#: Scheduling rounds after one action at most (a round schedules what the last one's
#: preemptions and evictions made the controllers create).
SETTLE_ROUNDS = 10
#: The step actions, in the order the README lists them.
ACTIONS = ("create", "deletePods", "deleteNodes", "addNodes", "cordon", "drain", "label", "taint",
           "notReady", "unreachable", "ready", "complete", "advance")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(h|ms|m|s)")
_UNIT_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
_REPLICATING = ("ReplicaSet", "ReplicationController", "StatefulSet")


def parse_duration(text: Any) -> float:
    """A Go duration (``90s``, ``5m``, ``1h30m``) in seconds; ``InputError`` otherwise."""
    if not isinstance(text, str) or not text or _DURATION.sub("", text) != "":
        raise InputError(f"{text!r} is not a duration (such as 30s, 5m or 1h30m)")
    seconds = sum(float(n) * _UNIT_SECONDS[u] for n, u in _DURATION.findall(text))
    if seconds > STEPS_VIRTUAL_TIME_MAX_SECONDS:
        raise InputError(f"{text}: past the limit of {_duration_text(STEPS_VIRTUAL_TIME_MAX_SECONDS)} "
                         "of virtual time")
    return seconds


def _duration_text(seconds: float) -> str:
    seconds = int(seconds)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return "".join(f"{v}{u}" for v, u in ((h, "h"), (m, "m"), (s, "s")) if v) or "0s"


# ---------------------------------------------------------------------------------------- steps


@dataclass
class Step:
    """One step: an action, its argument as written, and the checks to run after it.

    ``pods`` holds what a ``create`` step creates, resolved by the caller (documents read from
    the files it names and its inline objects): ``Step.parse`` only checks spellings."""

    index: int
    action: str
    value: Any
    line: int | None = None
    name: str = ""
    expect: list[dict] = field(default_factory=list)
    #: Line of each expectation (``steps[i].expect[j]``).
    expect_lines: list[int | None] = field(default_factory=list)
    edit: Edit | None = None
    seconds: float = 0.0
    pods: list[Any] = field(default_factory=list)
    #: The file the step was read from.
    file: str = ""

    @property
    def where(self) -> str:
        return f"steps[{self.index}]"

    @property
    def title(self) -> str:
        return self.name or f"{self.action} {_short(self.value)}"

    @classmethod
    def parse(cls, index: int, spec: dict, line: int | None = None,
              lines: dict[str, int] | None = None) -> "Step":
        """The step of a mapping with exactly one action key (and ``name``, ``expect``);
        ``InputError`` naming ``steps[index]`` and the line of the bad field."""
        lines = lines or {}
        where = f"steps[{index}]"
        actions = [k for k in spec if k in ACTIONS]
        unknown = [k for k in spec if k not in ACTIONS and k not in ("name", "expect")]
        if unknown:
            raise InputError(f"{where}.{unknown[0]}: unknown step (the actions: {', '.join(ACTIONS)})",
                             line=lines.get(f"{where}.{unknown[0]}", line))
        if len(actions) != 1:
            what = "no action" if not actions else f"{len(actions)} actions ({', '.join(actions)})"
            raise InputError(f"{where}: a step has one action, this one has {what} "
                             f"(the actions: {', '.join(ACTIONS)})", line=line)
        action = actions[0]
        value = spec[action]
        field_line = lines.get(f"{where}.{action}", line)
        expect = spec.get("expect") or []
        step = cls(index, action, value, line, str(spec.get("name") or ""), list(expect),
                   [lines.get(f"{where}.expect[{j}]", line) for j in range(len(expect))])
        try:
            step._check(where)
        except InputError as exc:
            if exc.line is None:
                exc.line = field_line
            raise
        return step

    def _check(self, where: str) -> None:
        """Spellings an action needs, checked before anything runs; the edit built."""
        action, value = self.action, self.value
        origin = f"{where}.{action}"
        try:
            if action == "advance":
                self.seconds = parse_duration(value)
            elif action == "create":
                if not isinstance(value, (str, dict, list)) or value in ([], ""):
                    raise InputError("give pod or workload files, or inline objects")
            elif action == "deletePods":
                _pod_selection(value)
            elif action in ("deleteNodes", "cordon", "notReady", "unreachable", "ready"):
                targets = [_target(t) for t in _as_list(value, "a node name or selector, or a list of them")]
                if action == "deleteNodes":
                    self.edit = _Edits([RemoveNodes(t, origin=origin) for t in targets])
                elif action == "cordon":
                    self.edit = _Edits([Cordon(t, origin=origin) for t in targets])
                else:
                    self.edit = _Edits([NodeReadiness(t, action, origin=origin) for t in targets])
            elif action == "drain":
                spec = value if isinstance(value, dict) else {"nodes": value}
                _only(spec, ("nodes", "force"))
                force = bool(spec.get("force", False))
                self.edit = _Edits([Drain(_target(t), force=force, origin=origin)
                                    for t in _as_list(spec.get("nodes"), "nodes: a node name or selector")])
            elif action == "addNodes":
                spec = _mapping(value, "like: NODE, count, labels, taints")
                _only(spec, ("like", "count", "labels", "taints"))
                if not isinstance(spec.get("like"), str):
                    raise InputError("like: the node to copy is missing")
                count = spec.get("count", 1)
                if type(count) is not int:
                    raise InputError(f"count: must be an integer, not {count!r}")
                labels = tuple(parse_label(f"{k}={v}") for k, v in
                               _mapping(spec.get("labels") or {}, "labels: {key: value}").items())
                taints = _strings(spec.get("taints"), "taints: key=value:Effect, or a list of them")
                for t in taints:
                    parse_taint(t)
                self.edit = AddNodes(spec["like"], count, labels, taints, origin=origin)  # type: ignore[arg-type]
                if not 1 <= count <= ADD_NODES_MAX:
                    raise InputError(f"count: {count} must be between 1 and {ADD_NODES_MAX}")
            elif action == "label":
                spec = _mapping(value, "nodes: NODE, labels: {key: value}")
                _only(spec, ("nodes", "labels"))
                labels = spec.get("labels")
                if not isinstance(labels, dict) or not labels:
                    raise InputError("labels: give key: value (null removes the label)")
                parsed = tuple((k, None) if v is None else parse_label(f"{k}={v}") for k, v in labels.items())
                self.edit = _Edits([LabelNodes(_target(t), parsed, origin=origin)  # type: ignore[arg-type]
                                    for t in _as_list(spec.get("nodes"), "nodes: a node name or selector")])
            elif action == "taint":
                spec = _mapping(value, "nodes: NODE, taints: [key=value:Effect], remove: [key:Effect]")
                _only(spec, ("nodes", "taints", "remove"))
                add = _strings(spec.get("taints"), "taints: key=value:Effect, or a list of them")
                remove = _strings(spec.get("remove"), "remove: key or key:Effect, or a list of them")
                if not add and not remove:
                    raise InputError("give taints to add (taints:) or to remove (remove:)")
                for t in add:
                    parse_taint(t)
                for t in remove:
                    _parse_removal(t)
                targets = [_target(t) for t in _as_list(spec.get("nodes"), "nodes: a node name or selector")]
                edits: list[Edit] = []
                for t in targets:
                    if add:
                        edits.append(TaintNodes(t, add, origin=origin))
                    if remove:
                        edits.append(Untaint(t, remove, origin=origin))
                self.edit = _Edits(edits)
            elif action == "complete":
                spec = _mapping(value, "job: NAME, count: N; or pods: [names]")
                _only(spec, ("job", "count", "pods"))
                if ("job" in spec) == ("pods" in spec):
                    raise InputError("give job: (with count:) or pods:, not both")
                if "pods" in spec:
                    _as_list(spec["pods"], "pods: pod names")
                elif not isinstance(spec.get("job"), str) or type(spec.get("count", 1)) is not int \
                        or spec.get("count", 1) < 1:
                    raise InputError("job: a Job's name, count: how many of its running pods succeed (1 or more)")
        except InputError as exc:
            if not exc.message.startswith(origin):
                exc.message = f"{origin}: {exc.message}"
                exc.args = (exc.message,)
            raise


def parse_steps(specs: Any, lines: dict[str, int] | None = None, file: str | None = None) -> list[Step]:
    """The steps of a ``steps:`` list (with the line of each field path in ``lines``); an
    ``InputError`` naming ``file`` and the line for the first bad one."""
    lines = lines or {}
    if not isinstance(specs, list) or not specs:
        raise InputError("steps: give a list of steps", file, lines.get("steps"))
    if len(specs) > STEPS_MAX:
        raise InputError(f"steps: {len(specs):,} steps, past the limit of {STEPS_MAX:,}", file, lines.get("steps"))
    steps = []
    for i, spec in enumerate(specs):
        line = lines.get(f"steps[{i}]")
        if not isinstance(spec, dict):
            raise InputError(f"steps[{i}]: a step is a mapping (one action: {', '.join(ACTIONS)})", file, line)
        try:
            steps.append(Step.parse(i, spec, line, lines))
            steps[-1].file = file or ""
        except InputError as exc:
            exc.file = exc.file or file
            raise
    total = sum(s.seconds for s in steps)
    if total > STEPS_VIRTUAL_TIME_MAX_SECONDS:
        raise InputError(f"steps: advance {_duration_text(total)} in all, past the limit of "
                         f"{_duration_text(STEPS_VIRTUAL_TIME_MAX_SECONDS)} of virtual time", file, lines.get("steps"))
    return steps


def _short(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_short(v) for v in value)
    if isinstance(value, dict):
        if value.get("kind"):
            meta = value.get("metadata")
            return f"{value.get('kind')}/{meta.get('name', '') if isinstance(meta, dict) else ''}"
        return ", ".join(f"{k} {_short(v)}" for k, v in value.items())
    return str(value)


def _as_list(value: Any, what: str) -> list[str]:
    if isinstance(value, str) and value:
        return [value]
    if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
        return list(value)
    raise InputError(f"expected {what}")


def _strings(value: Any, what: str) -> tuple[str, ...]:
    """An optional field holding one string or a list of them (none: empty)."""
    if value is None or value == []:
        return ()
    return tuple(_as_list(value, what))


def _mapping(value: Any, what: str) -> dict:
    if not isinstance(value, dict):
        raise InputError(f"expected a mapping ({what})")
    return value


def _only(spec: dict, keys: tuple[str, ...]) -> None:
    for key in spec:
        if key not in keys:
            raise InputError(f"{key}: unknown field (allowed: {', '.join(keys)})")


def _target(text: str) -> NodeTarget:
    if not isinstance(text, str):
        raise InputError(f"expected a node name or selector, not {text!r}")
    return NodeTarget.parse(text)


def _pod_selection(value: Any) -> tuple[list[str], str | None, str | None]:
    """(pod keys, selector, namespace) of a ``deletePods`` value: names, or ``{selector, namespace}``."""
    if isinstance(value, dict):
        _only(value, ("selector", "namespace"))
        selector = value.get("selector")
        if not isinstance(selector, str) or not selector:
            raise InputError("selector: a label selector (app=web)")
        try:
            parse_selector(selector)
        except (SelectorError, ValueError) as exc:
            raise InputError(f"selector {selector!r}: {exc}") from None
        namespace = value.get("namespace")
        return [], selector, str(namespace) if namespace else None
    names = _as_list(value, "pod names (namespace/name), or selector: and namespace:")
    return [_pod_key(n) for n in names], None, None


def _parse_removal(text: str) -> tuple[str, str | None]:
    """``key:Effect`` or ``key`` (every effect) of a taint to remove, as ``kubectl taint key:Effect-``."""
    key, _, effect = text.rstrip("-").partition(":")
    if not key:
        raise InputError(f"remove {text!r}: expected key or key:Effect")
    if effect and effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
        raise InputError(f"remove {text!r}: effect must be NoSchedule, PreferNoSchedule or NoExecute")
    return key, effect or None


# ---------------------------------------------------------------------------------------- edits


@dataclass(frozen=True)
class _Edits(Edit):
    """Several edits as one (a step naming several nodes)."""

    edits: list[Edit]
    origin: str = ""

    def describe(self) -> str:
        return "; ".join(e.describe() for e in self.edits)

    def apply(self, state: ClusterState) -> tuple[ClusterState, EditRecord]:  # pragma: no cover
        raise NotImplementedError  # SteppedCluster applies each edit


@dataclass(frozen=True)
class Untaint(Edit):
    """``kubectl taint nodes NODE key:Effect-``: taints removed (every effect when none is given)."""

    target: NodeTarget
    taints: tuple[str, ...]
    origin: str = field(default="", compare=False)

    def describe(self) -> str:
        return f"untaint {self.target}"

    def apply(self, state: ClusterState) -> tuple[ClusterState, EditRecord]:
        removals = [_parse_removal(t) for t in self.taints]
        names = self.target.nodes(state)
        new = state.copy()
        for name in names:
            node = copy.deepcopy(new.node_by_name[name])
            spec = node.setdefault("spec", {})
            spec["taints"] = [t for t in spec.get("taints") or () if not _removed(t, removals)]
            if not spec["taints"]:
                del spec["taints"]
            new.add_object(node)
        return new, EditRecord("untaint", str(self.target), names, taints=list(self.taints))


def _removed(taint: dict, removals: list[tuple[str, str | None]]) -> bool:
    return any(taint.get("key") == key and effect in (None, taint.get("effect")) for key, effect in removals)


# ---------------------------------------------------------------------------------------- records


@dataclass
class PodState:
    """Where one pod stands after a step."""

    pod: str
    node: str | None
    phase: str
    message: str = ""

    @property
    def pending(self) -> bool:
        return self.node is None and self.phase not in ("Succeeded", "Failed")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pod": self.pod, "node": self.node, "phase": self.phase}
        if self.message:
            out["message"] = self.message
        return out


@dataclass
class StepRecord:
    """What one step did and the cluster's pods after it (plain data; ``to_dict`` is its JSON)."""

    index: int
    action: str
    title: str
    line: int | None
    #: Virtual time after the step, in seconds since the epoch, and since the run began.
    time: float = 0.0
    elapsed: float = 0.0
    edits: list[EditRecord] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    evicted: dict[str, str] = field(default_factory=dict)
    completed: list[str] = field(default_factory=list)
    #: Pods the controllers made: new pod -> what it replaces or why (Job/x: 2 of 5 succeeded).
    replacements: dict[str, str] = field(default_factory=dict)
    #: Pods placed in this step's scheduling rounds: pod -> node.
    scheduled: dict[str, str] = field(default_factory=dict)
    preempted: dict[str, str] = field(default_factory=dict)
    pods: list[PodState] = field(default_factory=list)
    #: Node name -> zone label, for counts per zone.
    zones: dict[str, str] = field(default_factory=dict)
    labels: dict[str, dict] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def pending(self) -> list[PodState]:
        return [p for p in self.pods if p.pending]

    def lines(self) -> list[str]:
        """What happened, one line each (the table's step block)."""
        out = [e.summary() for e in self.edits]
        for label, items in (("created", self.created), ("deleted", self.deleted), ("succeeded", self.completed)):
            if items:
                out.append(f"{label}: {', '.join(items)}")
        out.extend(f"evicted {pod}: {why}" for pod, why in self.evicted.items())
        out.extend(f"preempted {pod} by {by}" for pod, by in self.preempted.items())
        out.extend(f"{new} created by its controller ({why})" for new, why in self.replacements.items())
        out.extend(f"{pod} -> {node}" for pod, node in self.scheduled.items())
        out.extend(f"{p.pod} pending: {p.message}" if p.message else f"{p.pod} pending" for p in self.pending)
        out.extend(self.notes)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index, "action": self.action, "title": self.title, "line": self.line,
            "time": _rfc3339(self.time), "elapsedSeconds": round(self.elapsed, 3),
            "edits": [e.to_dict() for e in self.edits],
            "created": list(self.created), "deleted": list(self.deleted),
            "evicted": [{"pod": p, "reason": r} for p, r in self.evicted.items()],
            "completed": list(self.completed),
            "replacements": [{"pod": p, "reason": r} for p, r in self.replacements.items()],
            "scheduled": [{"pod": p, "node": n} for p, n in self.scheduled.items()],
            "preempted": [{"pod": p, "by": b} for p, b in self.preempted.items()],
            "pending": [p.to_dict() for p in self.pending],
            "countPerNode": self.count_per_node(),
            **({"notes": list(self.notes)} if self.notes else {}),
        }

    def count_per_node(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for p in self.pods:
            if p.node and p.phase not in ("Succeeded", "Failed"):
                out[p.node] = out.get(p.node, 0) + 1
        return dict(sorted(out.items()))


# ---------------------------------------------------------------------------------------- the run


class SteppedCluster:
    """A cluster state stepped through time: apply a step, let the controllers act, schedule.

    ``create_pods(items)`` turns the items a ``create`` step holds (``PodToExplain``, from
    ``inputs.workloads``) into pending pods; ``run(step)`` returns the step's record.
    """

    def __init__(self, state: ClusterState, config: Any = None, registry: Any = None, seed: int | None = 0,
                 profile: str | None = None, extenders: bool = True, start: float | None = None) -> None:
        self.state = state.copy()
        self.config = config
        self.registry = registry
        self.seed = seed
        self.profile = profile
        self.extenders = extenders
        #: ``--tie-break first`` and ``--max-attempts`` of the scheduling after each step.
        self.tie_break_first = False
        self.max_attempts: int | None = None
        self.start = float(int(time.time())) if start is None else float(start)
        self.now = self.start
        #: The last scheduler message of each pending pod.
        self.messages: dict[str, str] = {}
        #: Job key -> [succeeded, failed], counted as the Job controller does.
        self.jobs: dict[str, list[int]] = {}
        #: Pod key -> (when the taint manager saw it, when it evicts it).
        self.evictions: dict[str, tuple[float, float]] = {}
        #: When the pending pods were last tried (virtual time).
        self.tried_at = self.now
        #: The pending pods the next scheduling tries (None: all): after nodes were added, those
        #: a new node may let in (``node_event_hints``), as upstream's queue moves only those.
        self.retry_only: set[str] | None = None
        self._filters: frozenset[str] | None = None
        for pod in self.state.pods:
            ref = controller_of(pod)
            if ref is not None and ref.get("kind") == "Job" and _phase(pod) == "Succeeded":
                self._job(pod)[0] += 1

    # -- steps ---------------------------------------------------------------------------------
    def run(self, step: Step, items: Iterable[Any] = ()) -> StepRecord:
        """Apply ``step`` (``items``: what a ``create`` step creates), let the controllers and
        the scheduler act, and return what happened; ``InputError`` naming the step otherwise."""
        record = StepRecord(step.index, step.action, step.title, step.line)
        try:
            self._apply(step, _loaded(items), record)
        except InputError as exc:
            if not exc.message.startswith(step.where):
                exc.message = f"{step.where}.{step.action}: {exc.message}"
                exc.args = (exc.message,)
            if exc.file is None and step.file:
                exc.file, exc.line = step.file, exc.line or step.line
            elif exc.line is None:
                exc.line = step.line
            raise
        return self._finish(record)

    def settle(self, items: Iterable[Any] = (), pods: Iterable[dict] = ()) -> StepRecord:
        """Create ``items`` (the scenario's own pods and workloads) or ``pods`` (workloads already
        expanded, their owners in the state) and schedule what is pending, before the first step."""
        record = StepRecord(-1, "schedule", "the pending pods scheduled", None)
        items = _loaded(items)
        if items:
            self._create(items, record)
        self._add_pods(list(pods), self.state, record)
        self._taint_manager(record)
        self._schedule(record)
        return self._finish(record)

    def _finish(self, record: StepRecord) -> StepRecord:
        record.time, record.elapsed = self.now, self.now - self.start
        record.pods = self.pod_states()
        record.zones = {n["metadata"]["name"]: _zone(n) for n in self.state.nodes}
        record.labels = {_key(p): dict((p.get("metadata") or {}).get("labels") or {}) for p in self.state.pods}
        return record

    def pod_states(self) -> list[PodState]:
        out = []
        for pod in self.state.pods:
            key = _key(pod)
            node = (pod.get("spec") or {}).get("nodeName") or None
            out.append(PodState(key, node, _phase(pod) or ("Running" if node else "Pending"),
                                "" if node else self.messages.get(key, "")))
        return out

    def _apply(self, step: Step, items: PodsToExplain, record: StepRecord) -> None:
        action = step.action
        before = {_key(p): p for p in self.state.pods}
        if action == "advance":
            self._advance(self.now + step.seconds, record)
            return
        if action == "create":
            self._create(items, record)
        elif action == "deletePods":
            keys = self._select_pods(step.value)
            self.state.drop(pods=keys)
            record.deleted.extend(keys)
        elif action == "complete":
            self._complete(step.value, record)
        else:
            assert step.edit is not None
            edits = step.edit.edits if isinstance(step.edit, _Edits) else [step.edit]
            for edit in edits:
                if isinstance(edit, NodeReadiness):
                    edit = dataclasses.replace(edit, now=_rfc3339(self.now))
                self.state, [edit_record] = apply_edits(self.state, [edit])
                record.edits.append(edit_record)
                for eviction in edit_record.evicted:
                    record.evicted[eviction.pod] = f"drained ({eviction.node})"
                    if eviction.replacement:
                        record.replacements[eviction.replacement] = f"replaces {eviction.pod}, evicted by the drain"
                        self._admitted(eviction.replacement)
                        self._note_failure(before.get(eviction.pod))
        if step.edit is not None and all(isinstance(e, AddNodes) for e in edits):
            self.retry_only = self._helped_by([n for r in record.edits for n in r.nodes])
        gone = [before[k] for k in before if k not in {_key(p) for p in self.state.pods}]
        replaced = {e.pod for r in record.edits for e in r.evicted}
        self._controllers([p for p in gone if _key(p) not in replaced], record, "deleted")
        self._taint_manager(record)
        self._schedule(record)

    def _helped_by(self, names: list[str]) -> set[str]:
        """The pending pods one of the nodes ``names`` (just added) may let in; a pod nominated to a
        node is always among them (its nomination holds room only while it is tried)."""
        from kschedctl.scheduler.node_event_hints import node_may_help
        from kschedctl.scheduler.simulate import Simulator

        if self._filters is None:
            sim = Simulator(self.state, self.config, registry=self.registry, seed=self.seed, extenders=False)
            names_per_profile = [frozenset(fwk.plugin_names("filter")) for fwk in sim.frameworks.values()]
            self._filters = frozenset.intersection(*names_per_profile) if names_per_profile else frozenset()
        nodes = [self.state.node_by_name[n] for n in names if n in self.state.node_by_name]
        helped = set()
        for pod in self.state.pods:
            if not waits_for_scheduler(pod):
                continue
            if (pod.get("status") or {}).get("nominatedNodeName") or any(
                    node_may_help(pod, node, self._filters) for node in nodes):
                helped.add(_key(pod))
        return helped

    # -- actions -------------------------------------------------------------------------------
    def _create(self, items: PodsToExplain, record: StepRecord) -> None:
        from kschedctl.cluster.replicas import joined_batch

        pods, state = joined_batch(items, self.state)
        self._add_pods(pods, state, record)

    def _add_pods(self, pods: list[dict], state: ClusterState, record: StepRecord) -> None:
        from kschedctl.inputs.cluster import admit

        existing = {_key(p) for p in state.pods}
        state = state.copy()
        for pod in pods:
            new = _with_default_tolerations(admit(pod, state))
            key = _key(new)
            if key in existing:
                raise InputError(f"pod {key} already exists")
            existing.add(key)
            new.setdefault("status", {}).setdefault("phase", "Pending")
            state.add_object(new)
            record.created.append(key)
        self.state = state

    def _select_pods(self, value: Any) -> list[str]:
        keys, selector, namespace = _pod_selection(value)
        present = {_key(p) for p in self.state.pods}
        if selector is None:
            missing = [k for k in keys if k not in present]
            if missing:
                raise InputError(f"no pod {', '.join(missing)} in the cluster")
            return keys
        sel = parse_selector(selector)
        chosen = [_key(p) for p in self.state.pods
                  if (namespace is None or (p.get("metadata") or {}).get("namespace", "default") == namespace)
                  and sel.matches((p.get("metadata") or {}).get("labels") or {})]
        if not chosen:
            raise InputError(f"selector {selector!r} matches no pod" + (f" in {namespace}" if namespace else ""))
        return chosen

    def _complete(self, value: dict, record: StepRecord) -> None:
        if "pods" in value:
            keys = [_pod_key(n) for n in _as_list(value["pods"], "pods: pod names")]
            by_key = {_key(p): p for p in self.state.pods}
            for key in keys:
                pod = by_key.get(key)
                if pod is None or not (pod.get("spec") or {}).get("nodeName") or _phase(pod) in ("Succeeded", "Failed"):
                    raise InputError(f"pod {key} is not running (only a pod bound to a node can complete)")
            pods = [by_key[k] for k in keys]
        else:
            job = _pod_key(value["job"])
            running = [p for p in self.state.pods if _job_key(p) == job and (p.get("spec") or {}).get("nodeName")
                       and _phase(p) not in ("Succeeded", "Failed")]
            count = int(value.get("count", 1))
            if len(running) < count:
                raise InputError(f"Job {job} has {len(running)} running pod{'s' if len(running) != 1 else ''}, "
                                 f"not {count}")
            pods = running[:count]
        for pod in pods:
            done = {**pod, "status": {**(pod.get("status") or {}), "phase": "Succeeded"}}
            self.state.drop(pods=[_key(pod)])
            self.state.add_object(done)
            self.evictions.pop(_key(pod), None)
            record.completed.append(_key(pod))
            if _job_key(pod) is not None:
                self._job(pod)[0] += 1
        for job in dict.fromkeys(_job_key(p) for p in pods if _job_key(p) is not None):
            self._job_sync(job, record)

    def _advance(self, until: float, record: StepRecord) -> None:
        """Let virtual time run to ``until``: the taint manager's evictions fire at their times,
        each followed by the controllers and the scheduler, as they would then."""
        while True:
            due = [(at, key) for key, (_, at) in self.evictions.items() if at <= until]
            if not due:
                break
            at = min(due)[0]
            self.now = max(self.now, at)
            keys = sorted(k for a, k in due if a == at)
            self._evict(keys, record, "tolerationSeconds of its NoExecute toleration ran out")
            self._taint_manager(record)
            self._schedule(record)
        self.now = until
        # Time alone is no cluster event: the pods left pending wait in upstream's unschedulable
        # pods until one comes or until the queue flushes them after UNSCHEDULABLE_FLUSH_SECONDS
        # (1,000 steps of "advance: 1s" retry nothing, as upstream does not).
        if self.now - self.tried_at >= UNSCHEDULABLE_FLUSH_SECONDS:
            self._schedule(record)

    def _evict(self, keys: list[str], record: StepRecord, why: str) -> None:
        by_key = {_key(p): p for p in self.state.pods}
        gone = [by_key[k] for k in keys if k in by_key]
        self.state.drop(pods=[_key(p) for p in gone])
        for pod in gone:
            self.evictions.pop(_key(pod), None)
            record.evicted[_key(pod)] = f"{why} ({pod['spec'].get('nodeName')})"
        self._controllers(gone, record, "evicted")

    # -- controllers ---------------------------------------------------------------------------
    def _controllers(self, gone: list[dict], record: StepRecord, how: str) -> None:
        """What the controllers do about pods that went away (deleted, evicted, preempted)."""
        jobs = []
        for pod in gone:
            self.evictions.pop(_key(pod), None)
            self.messages.pop(_key(pod), None)
            ref = controller_of(pod)
            if ref is None or _phase(pod) in ("Succeeded", "Failed"):
                continue
            kind = ref.get("kind")
            if kind in _REPLICATING:
                new = replacement_pod(pod, self.state)
                self.state.add_object(new)
                self._admitted(_key(new))
                record.replacements[_key(new)] = f"{kind}/{ref.get('name')} replaces {_key(pod)}, {how}"
            elif kind == "Job":
                self._note_failure(pod)
                jobs.append(_job_key(pod))
        for job in dict.fromkeys(jobs):
            self._job_sync(job, record)

    def _admitted(self, key: str) -> None:
        """A pod a controller created goes through admission: DefaultTolerationSeconds."""
        for pod in self.state.pods:
            if _key(pod) == key:
                new = _with_default_tolerations(pod)
                if new is not pod:
                    self.state.drop(pods=[key])
                    self.state.add_object(new)
                return

    def _job(self, pod: dict) -> list[int]:
        return self.jobs.setdefault(_job_key(pod) or "", [0, 0])

    def _note_failure(self, pod: dict | None) -> None:
        if pod is not None and _job_key(pod) is not None and _phase(pod) not in ("Succeeded", "Failed"):
            self._job(pod)[1] += 1

    def _job_sync(self, job: str, record: StepRecord) -> None:
        """The Job controller: keep min(parallelism, completions - succeeded) pods active."""
        namespace, name = job.split("/", 1)
        obj = self.state.owners.get(f"Job/{namespace}/{name}")
        pods = [p for p in self.state.pods if _job_key(p) == job]
        succeeded, failed = self.jobs.get(job, [0, 0])
        if obj is None:
            record.notes.append(f"Job {job}: its object is not in the cluster state; no new pods are made")
            return
        spec = obj.get("spec") or {}
        parallelism = spec.get("parallelism", 1)
        completions = spec.get("completions")
        backoff = spec.get("backoffLimit", DEFAULT_BACKOFF_LIMIT)
        if completions is None:
            # Work-queue Job: done when any pod succeeded; until then, parallelism pods.
            wanted = 0 if succeeded else parallelism
            done = bool(succeeded)
            text = f"{succeeded} succeeded"
        else:
            wanted = max(min(parallelism, completions - succeeded), 0)
            done = succeeded >= completions
            text = f"{succeeded} of {completions} succeeded"
        if done:
            record.notes.append(f"Job {job} complete ({text})")
            return
        if failed > backoff:
            record.notes.append(f"Job {job} failed: {failed} pods failed, past backoffLimit {backoff}")
            return
        active = [p for p in pods if _phase(p) not in ("Succeeded", "Failed")]
        template = active[0] if active else pods[0] if pods else None
        if template is None:
            return
        for _ in range(wanted - len(active)):
            new = replacement_pod(template, self.state)
            new["status"] = {"phase": "Pending"}
            self.state.add_object(new)
            self._admitted(_key(new))
            record.replacements[_key(new)] = f"Job/{name}: {text}"

    def _taint_manager(self, record: StepRecord) -> None:
        """The NoExecute taint manager over every bound pod (processPodOnNode)."""
        taints_of = {n["metadata"]["name"]: [t for t in (n.get("spec") or {}).get("taints") or ()
                                              if t.get("effect") == "NoExecute"] for n in self.state.nodes}
        evict_now = []
        for pod in self.state.pods:
            key = _key(pod)
            node = (pod.get("spec") or {}).get("nodeName")
            if not node or _phase(pod) in ("Succeeded", "Failed"):
                continue
            taints = taints_of.get(node) or []
            if not taints:
                self.evictions.pop(key, None)
                continue
            tolerations = (pod.get("spec") or {}).get("tolerations") or []
            used = []
            for taint in taints:
                match = next((t for t in tolerations if tolerates(t, taint)), None)
                if match is None:
                    used = None
                    break
                used.append(match)
            if used is None:
                evict_now.append(key)
                continue
            seconds = _min_toleration_seconds(used)
            if seconds < 0:
                self.evictions.pop(key, None)
                continue
            scheduled = self.evictions.get(key)
            # An eviction scheduled before now stands as it was (upstream keeps the queued work).
            if scheduled is None or scheduled[0] >= self.now:
                scheduled = self.evictions[key] = (self.now, self.now + seconds)
            if scheduled[1] <= self.now:
                evict_now.append(key)
        if evict_now:
            self._evict(evict_now, record, "its node has a NoExecute taint it does not tolerate")

    def _schedule(self, record: StepRecord) -> None:
        """Schedule every pending pod; repeat while preemption made controllers create pods."""
        from kschedctl.scheduler.simulate import Simulator

        self.tried_at = self.now

        for _ in range(SETTLE_ROUNDS):
            pending = [p for p in self.state.pods if waits_for_scheduler(p)]
            if not pending:
                return
            extra = {"max_attempts": self.max_attempts} if self.max_attempts else {}
            sim = Simulator(self.state, self.config, registry=self.registry, seed=self.seed, extenders=self.extenders,
                            **extra)
            retry, self.retry_only = self.retry_only, None
            if retry is not None:  # the others wait, as in upstream's unschedulable pods
                every = sim.pending_cluster_pods
                sim.pending_cluster_pods = lambda: [pi for pi in every() if pi.key in retry]  # type: ignore[method-assign]
            sim.clock_origin = self.now
            sim.scheduler.tie_break_first = self.tie_break_first
            result = sim.run([], self.profile, include_cluster_pending=True)
            by_key = {_key(p): p for p in self.state.pods}
            victims = []
            for pre in result.preemptions:
                for victim in pre.victims:
                    if victim in by_key and victim not in victims:
                        victims.append(victim)
                        record.preempted[victim] = pre.pod
            bound = []
            for placement in result.placements:
                pod = by_key.get(placement.pod)
                if pod is None:
                    continue
                if placement.outcome == Outcome.SCHEDULED and placement.node:
                    bound.append(_bound(pod, placement.node, self.now))
                    record.scheduled[placement.pod] = placement.node
                    self.messages.pop(placement.pod, None)
                elif placement.pod not in victims:
                    self.messages[placement.pod] = placement.message or placement.outcome
            self.state.drop(pods=[_key(p) for p in bound] + victims)
            for pod in bound:
                self.state.add_object(pod)
            gone = [by_key[v] for v in victims]
            count = len(self.state.pods)
            self._controllers(gone, record, "preempted")
            self._taint_manager(record)
            if len(self.state.pods) == count and not victims:
                return
        record.notes.append(f"stopped after {SETTLE_ROUNDS} scheduling rounds: controllers kept making pods")


# ---------------------------------------------------------------------------------------- helpers


def _key(pod: dict) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


def _pod_key(name: str) -> str:
    return name if "/" in name else f"default/{name}"


def _phase(pod: dict) -> str:
    return str((pod.get("status") or {}).get("phase") or "")


def _job_key(pod: dict) -> str | None:
    ref = controller_of(pod)
    if ref is None or ref.get("kind") != "Job":
        return None
    return f"{(pod.get('metadata') or {}).get('namespace') or 'default'}/{ref.get('name')}"


def _zone(node: dict) -> str:
    labels = (node.get("metadata") or {}).get("labels") or {}
    return labels.get("topology.kubernetes.io/zone", "")


def _rfc3339(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(seconds)))


def _min_toleration_seconds(tolerations: list[dict]) -> float:
    """getMinTolerationTime: 0 without tolerations, -1 (forever) when none has seconds."""
    if not tolerations:
        return 0
    least: float | None = None
    for t in tolerations:
        seconds = t.get("tolerationSeconds")
        if seconds is None:
            continue
        if seconds <= 0:
            return 0
        least = seconds if least is None else min(least, seconds)
    return -1 if least is None else float(least)


def _with_default_tolerations(pod: dict) -> dict:
    """The DefaultTolerationSeconds admission plugin: not-ready and unreachable NoExecute
    tolerated for 300s unless the pod tolerates them already (a copy when it adds any)."""
    spec = pod.get("spec") or {}
    tolerations = list(spec.get("tolerations") or ())
    added = False
    for key in (NOT_READY_TAINT_KEY, UNREACHABLE_TAINT_KEY):
        taint = {"key": key, "effect": "NoExecute"}
        if any(tolerates(t, taint) for t in tolerations):
            continue
        tolerations.append({"key": key, "operator": "Exists", "effect": "NoExecute",
                            "tolerationSeconds": DEFAULT_TOLERATION_SECONDS})
        added = True
    if not added:
        return pod
    return {**pod, "spec": {**spec, "tolerations": tolerations}}


def _bound(pod: dict, node: str, now: float) -> dict:
    """The pod as the API server has it after the binding (at virtual time ``now``)."""
    status = dict(pod.get("status") or {})
    status.pop("nominatedNodeName", None)
    status["phase"] = "Running"
    conditions = [c for c in status.get("conditions") or () if c.get("type") != "PodScheduled"]
    conditions.append({"type": "PodScheduled", "status": "True", "lastTransitionTime": _rfc3339(now)})
    status["conditions"] = conditions
    return {**pod, "spec": {**(pod.get("spec") or {}), "nodeName": node}, "status": status}



def _loaded(items: Iterable[Any]) -> PodsToExplain:
    """``items`` as one ``PodsToExplain``: what the files bring along (a claim beside its pod)
    joins the state when they are created, as it does for simulate's files."""
    return items if isinstance(items, PodsToExplain) else PodsToExplain(items)
