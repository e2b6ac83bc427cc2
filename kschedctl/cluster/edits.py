"""Node what-ifs: edits to a loaded cluster state, each returning what it changed.

``apply_edits(state, edits)`` applies edits in order and returns the new state with one plain
record per edit; the state given is never changed (a loaded state is shared by diff's two sides
and a sweep's cells), and only the nodes an edit touches are copied. The edits:

- ``RemoveNodes``: the nodes are gone, and the pods bound to them with them (reported); the
  node's CSINode, NodeResourceTopology and node-local ResourceSlices go too, as the kubelet's
  objects are garbage-collected with their Node.
- ``Cordon``: ``spec.unschedulable`` and the ``node.kubernetes.io/unschedulable:NoSchedule``
  taint the node lifecycle controller adds; pods stay.
- ``Drain`` (``drain_nodes``): ``kubectl drain --ignore-daemonsets --delete-emptydir-data NODE...``:
  every node cordoned first, then node after node: DaemonSet and mirror pods stay; a pod that
  declares no controller stops the drain of its node (nothing on it is evicted, as kubectl
  refuses the node) unless ``force``; each eviction goes through the eviction API's
  PodDisruptionBudget check (``disruptionsAllowed`` computed as the disruption controller does,
  from minAvailable/maxUnavailable and the healthy matching pods, decremented per eviction); an
  eviction a budget blocks is reported and the pod stays. Each evicted pod that has a
  controller comes back as a new pending pod (its replacement); where the replacements land
  is the caller's ``place`` to answer (``kschedctl.analyses.what_if``), node after node.
- ``AddNodes``: copies of a node with fresh names (``kubernetes.io/hostname`` set to the name),
  schedulable, with optional extra labels and taints, and no pods.
- ``LabelNodes``, ``TaintNodes``: patch labels and taints; ``NodeReadiness``: turn a node
  NotReady, unreachable or Ready again with the node lifecycle controller's taints (scenarios
  that step through time; ``MarkNotReady`` is what-if's NotReady).

A node target is a node name or a label selector (``NodeTarget.parse``): a word that is a valid
node name is a name, anything with a selector operator is a selector. A name that is no node,
or a selector matching no node, is an ``InputError``.
"""

from __future__ import annotations

import copy
import hashlib
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from kschedctl.errors import InputError
from kschedctl.inputs.cluster import ClusterState, make_uid
from kschedctl.k8s.selectors import SelectorError, label_selector, parse_selector
from kschedctl.k8s.tolerations import taint_to_string
from kschedctl import limits
from kschedctl.limits import ADD_NODES_MAX

__all__ = [
    "NodeTarget", "RemoveNodes", "Cordon", "Drain", "AddNodes", "LabelNodes", "TaintNodes", "NodeReadiness",
    "MarkNotReady", "READINESS", "NOT_READY_TAINT_KEY", "UNREACHABLE_TAINT_KEY",
    "EditRecord", "Eviction", "apply_edits", "drain_nodes", "replace_lost_pods", "parse_taint", "parse_label",
    "UNSCHEDULABLE_TAINT_KEY", "MIRROR_POD_ANNOTATION", "controller_of", "replacement_pod",
]

#: The taint the node lifecycle controller puts on a cordoned node (TaintNodesByCondition).
UNSCHEDULABLE_TAINT_KEY = "node.kubernetes.io/unschedulable"
#: Set by the kubelet on the API server's mirror of a static pod; kubectl drain leaves those.
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
HOSTNAME_LABEL = "kubernetes.io/hostname"
_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_NODE_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
#: The characters of the random suffix of generated names (apimachinery's rand.String).
_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


# ---------------------------------------------------------------------------------------- targets


@dataclass(frozen=True)
class NodeTarget:
    """The nodes an edit applies to: one node by name, or every node a label selector matches."""

    text: str
    selector: bool = False

    @classmethod
    def parse(cls, text: str, *, selector: bool | None = None) -> "NodeTarget":
        """``text`` as a name when it is a valid node name, else as a selector (``selector``
        forces one reading); an invalid selector is an ``InputError``."""
        text = text.strip()
        if not text:
            raise InputError("empty node name or selector")
        as_selector = selector if selector is not None else not _NODE_NAME.fullmatch(text)
        if as_selector:
            try:
                parse_selector(text)
            except (SelectorError, ValueError) as exc:
                raise InputError(f"{text}: not a node name or label selector: {exc}") from None
        return cls(text, as_selector)

    def nodes(self, state: ClusterState) -> list[str]:
        """The names of the nodes meant, in the state's order; ``InputError`` when there are none."""
        if not self.selector:
            if self.text not in state.node_by_name:
                raise InputError(f"no node {self.text!r} in the cluster state ({len(state.nodes)} nodes)")
            return [self.text]
        sel = parse_selector(self.text)
        names = [n["metadata"]["name"] for n in state.nodes if sel.matches(_labels(n))]
        if not names:
            raise InputError(f"selector {self.text!r} matches no node of the cluster state")
        return names

    def __str__(self) -> str:
        return f"-l {self.text}" if self.selector else self.text


# ---------------------------------------------------------------------------------------- records


@dataclass
class Eviction:
    """One pod a drain evicted, and the pod its controller makes in its place (if any)."""

    pod: str
    node: str
    controller: str = ""
    replacement: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pod": self.pod, "node": self.node}
        if self.controller:
            out["controller"] = self.controller
        if self.replacement:
            out["replacement"] = self.replacement
        return out


@dataclass
class EditRecord:
    """What one edit changed, as plain data (``to_dict`` is the JSON form).

    ``pods`` are the pods removed with removed nodes; the drain fields are filled by ``Drain``:
    ``evicted`` (with their replacements), ``kept`` (pod -> why it stays: DaemonSet, mirror
    pod), ``blocked`` (pod -> the budget's refusal), ``refused`` (pod -> why kubectl stops the
    node's drain), ``deleted`` (finished pods, and pods without a controller under ``force``).
    ``placements`` is filled by ``what_if.reschedule``: replacement -> node, or None and why not.
    """

    action: str
    target: str
    nodes: list[str] = field(default_factory=list)
    pods: list[str] = field(default_factory=list)
    evicted: list[Eviction] = field(default_factory=list)
    kept: dict[str, str] = field(default_factory=dict)
    blocked: dict[str, str] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)
    deleted: list[str] = field(default_factory=list)
    labels: dict[str, str | None] = field(default_factory=dict)
    taints: list[str] = field(default_factory=list)
    placements: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    #: pod of ``refused`` -> the node whose drain it stopped.
    refused_nodes: dict[str, str] = field(default_factory=dict)

    @property
    def replacements(self) -> list[str]:
        return [e.replacement for e in self.evicted if e.replacement]

    def moves(self) -> list[dict[str, Any]]:
        """Each eviction with its replacement and where that went: ``pod``, ``node`` (drained),
        ``controller``, ``replacement``, ``to`` (the node, or None) and ``message`` (why not)."""
        out = []
        for eviction in self.evicted:
            node, why = self.placements.get(eviction.replacement, (None, ""))
            out.append({**eviction.to_dict(), "to": node, "message": why})
        return out

    @property
    def pending(self) -> list[str]:
        """The replacements that found no node."""
        return [pod for pod, (node, _) in self.placements.items() if node is None]

    @property
    def undrained(self) -> list[str]:
        """The nodes whose drain a pod without a controller stopped (kubectl drain fails there)."""
        return list(dict.fromkeys(self.refused_nodes.get(pod, "") for pod in self.refused))

    @property
    def complete(self) -> bool:
        """A drain as ``kubectl drain`` ends it well: every evictable pod evicted, no node stopped
        by a pod without a controller; and, for a drain or lost nodes, every replacement placed."""
        return not (self.blocked or self.refused or self.pending)

    def shortfall(self) -> list[str]:
        """What keeps a drain from completing, counted ("1 eviction blocked by a budget", ...)."""
        out = []
        if self.blocked:
            out.append(f"{_count(list(self.blocked), 'eviction')} blocked by a PodDisruptionBudget")
        if self.refused:
            nodes = self.undrained
            out.append(f"{_count(nodes, 'node')} not drained ({', '.join(nodes)}): "
                       f"{_count(list(self.refused), 'pod')} without a controller")
        if self.pending:
            out.append(f"{_count(self.pending, 'replacement')} pending")
        return out

    def summary(self) -> str:
        """One line saying what changed (the table's "what-if:" block)."""
        nodes = ", ".join(self.nodes)
        if self.action == "remove":
            replaced = f", {len(self.evicted)} replaced by their controllers" if self.evicted else ""
            return f"removed {_count(self.nodes, 'node')} ({nodes}) with {_count(self.pods, 'pod')}{replaced}"
        if self.action == "cordon":
            return f"cordoned {nodes}"
        if self.action == "add":
            extra = "".join([f", labels {_labels_text(self.labels)}" if self.labels else "",
                             f", taints {', '.join(self.taints)}" if self.taints else ""])
            return f"added {_count(self.nodes, 'node')} like {self.target} ({nodes}){extra}"
        if self.action == "label":
            return f"labelled {nodes}: {_labels_text(self.labels)}"
        if self.action == "taint":
            return f"tainted {nodes}: {', '.join(self.taints)}"
        if self.action == "not-ready":
            return f"marked {nodes} NotReady"
        if self.action in ("notReady", "unreachable"):
            condition = "NotReady" if self.action == "notReady" else "unreachable"
            return f"{nodes} {condition}: tainted {', '.join(self.taints)}"
        if self.action == "ready":
            return f"{nodes} Ready again"
        if self.action == "untaint":
            return f"untainted {nodes}: {', '.join(self.taints)}"
        parts = [f"drained {nodes}: evicted {_count(self.evicted, 'pod')}"]
        if self.blocked:
            parts.append(f"{len(self.blocked)} blocked by a PodDisruptionBudget")
        if self.refused:
            parts.append(f"{len(self.refused)} not evictable (drain stopped)")
        if self.kept:
            parts.append(f"{len(self.kept)} kept (DaemonSet or mirror pods)")
        if self.deleted:
            parts.append(f"{len(self.deleted)} deleted")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.action, "target": self.target, "nodes": list(self.nodes)}
        if self.action == "remove":
            out["removedPods"] = list(self.pods)
            if self.evicted:
                out["replaced"] = [e.to_dict() for e in self.evicted]
                out["rescheduled"] = self._rescheduled()
                out["complete"] = self.complete
        if self.labels:
            out["labels"] = dict(self.labels)
        if self.taints:
            out["taints"] = list(self.taints)
        if self.action == "drain":
            out["evicted"] = [e.to_dict() for e in self.evicted]
            out["blocked"] = [{"pod": p, "message": m} for p, m in self.blocked.items()]
            out["notEvictable"] = [{"pod": p, "reason": r} for p, r in self.refused.items()]
            out["kept"] = [{"pod": p, "reason": r} for p, r in self.kept.items()]
            out["deleted"] = list(self.deleted)
            out["rescheduled"] = self._rescheduled()
            out["complete"] = self.complete
        return out


    def _rescheduled(self) -> list[dict[str, Any]]:
        return [{"pod": p, "node": node, **({"message": why} if why else {})}
                for p, (node, why) in self.placements.items()]


def _count(items: Sequence[Any], noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def _labels_text(labels: dict[str, str | None]) -> str:
    return ", ".join(f"{k}-" if v is None else f"{k}={v}" for k, v in labels.items())


# ---------------------------------------------------------------------------------------- edits


class Edit:
    """An edit of the cluster state: ``apply`` returns the edited copy and what changed.

    ``origin`` (every edit has it, last) names where the edit was asked for, ``--drain node-a1``
    or a scenario step: ``apply_edits`` puts it in front of the edit's errors."""

    origin: str

    def apply(self, state: ClusterState) -> tuple[ClusterState, EditRecord]:  # pragma: no cover
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover
        raise NotImplementedError


@dataclass(frozen=True)
class RemoveNodes(Edit):
    target: NodeTarget
    origin: str = field(default="", compare=False)

    def describe(self) -> str:
        return f"without {self.target}"

    def apply(self, state: ClusterState) -> tuple[ClusterState, EditRecord]:
        names = self.target.nodes(state)
        gone = set(names)
        pods = [_key(p) for p in state.pods if _node_of(p) in gone]
        new = state.copy()
        new.drop(pods=pods, nodes=names)
        return new, EditRecord("remove", str(self.target), names, pods=pods)


@dataclass(frozen=True)
class Cordon(Edit):
    target: NodeTarget
    origin: str = field(default="", compare=False)

    def describe(self) -> str:
        return f"cordon {self.target}"

    def apply(self, state: ClusterState) -> tuple[ClusterState, EditRecord]:
        names = self.target.nodes(state)
        new = state.copy()
        for name in names:
            _cordon(_own_node(new, name))
        return new, EditRecord("cordon", str(self.target), names)


@dataclass(frozen=True)
class Drain(Edit):
    target: NodeTarget
    #: kubectl drain --force: pods without a controller are deleted (not re-created).
    force: bool = False
    origin: str = field(default="", compare=False)

    def describe(self) -> str:
        return f"drain {self.target}" + (" (force)" if self.force else "")

    def apply(self, state: ClusterState) -> tuple[ClusterState, EditRecord]:
        return drain_nodes(state, [(name, self.force) for name in self.target.nodes(state)], str(self.target))


#: Places a drain's replacement pods (keys) in a state: returns the state with those placed
#: bound, and fills the record's ``placements``.
Place = Callable[[ClusterState, "EditRecord", list[str]], ClusterState]


def drain_nodes(state: ClusterState, nodes: Sequence[tuple[str, bool]], target: str,
                place: Place | None = None) -> tuple[ClusterState, EditRecord]:
    """``kubectl drain NODE...`` on ``nodes`` (name, force) in order: every node cordoned first,
    then node after node, its pods evicted through the PodDisruptionBudget check, and, with
    ``place``, its replacements placed before the next node. The budgets are computed afresh
    from the cluster before each node's evictions, and again after its replacements are placed
    to retry the evictions they refused: a replacement that found a node counts as healthy, as
    once it runs and is Ready (kubectl drain retries a refused eviction until then). An eviction
    still refused when nothing more changes is ``blocked``."""
    record = EditRecord("drain", target, [name for name, _ in nodes])
    new = state.copy()
    for name, _ in nodes:
        _cordon(_own_node(new, name))
    for name, force in nodes:
        on_node = [p for p in new.pods if _node_of(p) == name]
        to_evict: list[dict] = []
        refused: dict[str, str] = {}
        for pod in on_node:
            verdict = _drain_filter(pod, force)
            if verdict is None:
                to_evict.append(pod)
            elif verdict.startswith("keep:"):
                record.kept[_key(pod)] = verdict[5:]
            else:
                refused[_key(pod)] = verdict
        if refused:
            # kubectl lists every pod it cannot delete and leaves the node cordoned, undrained.
            record.refused.update(refused)
            record.refused_nodes.update((pod, name) for pod in refused)
            continue
        while to_evict:
            new, replacements, to_evict = _evict(new, name, to_evict, record)
            if place is None or not replacements:
                break
            new = place(new, record, replacements)
    return new, record


def replace_lost_pods(before: ClusterState, after: ClusterState, record: EditRecord) -> ClusterState:
    """After ``RemoveNodes`` (``after``, a state the caller owns): the pods gone with the nodes
    that their controllers make again, as new pending pods, recorded in ``record.evicted`` with
    their replacements. The pod garbage collector deletes the pods of a deleted node without a
    budget check; DaemonSet and mirror pods, finished pods and pods without a controller do not
    come back."""
    gone = set(record.pods)
    for pod in before.pods:
        key = _key(pod)
        if key not in gone or _finished(pod) or _controller(pod) is None or _drain_filter(pod, True) is not None:
            continue
        replacement = _replacement(pod, after)
        after.add_object(replacement)
        record.evicted.append(Eviction(key, _node_of(pod) or "", _controller_text(pod), _key(replacement)))
    return after


def _evict(state: ClusterState, node: str, pods: list[dict],
           record: EditRecord) -> tuple[ClusterState, list[str], list[dict]]:
    """One round of a node's evictions under the budgets of ``state``: the new state, the
    replacements made (pending in it) and the pods whose eviction a budget refused."""
    budgets = EvictionBudgets(state)
    removed: list[str] = []
    replacements: list[dict] = []
    blocked: list[dict] = []
    for pod in pods:
        key = _key(pod)
        record.blocked.pop(key, None)
        if _finished(pod) or _controller(pod) is None:
            removed.append(key)
            record.deleted.append(key)
            continue
        refusal = budgets.evict(pod)
        if refusal:
            record.blocked[key] = refusal
            blocked.append(pod)
            continue
        removed.append(key)
        replacement = _replacement(pod, state)
        replacements.append(replacement)
        record.evicted.append(Eviction(key, node, _controller_text(pod), _key(replacement)))
    new = state.copy()
    new.drop(pods=removed)
    if replacements:
        # added at once: the state's warnings are taken once, not once per pod (a walk of every pod)
        new = new.with_objects(replacements)
    return new, [_key(p) for p in replacements], blocked


def _drain_filter(pod: dict, force: bool) -> str | None:
    """kubectl drain's filters in its order: None to delete, "keep:why" to skip, else an error."""
    controller = _controller(pod)
    if controller is not None and controller.get("kind") == "DaemonSet":
        return "keep:DaemonSet-managed"
    if MIRROR_POD_ANNOTATION in ((pod.get("metadata") or {}).get("annotations") or {}):
        return "keep:mirror pod (static pod of the kubelet)"
    if controller is None and not _finished(pod) and not force:
        return "declares no controller (kubectl drain refuses; --force deletes it for good)"
    return None


@dataclass(frozen=True)
class AddNodes(Edit):
    like: str
    count: int = 1
    labels: tuple[tuple[str, str], ...] = ()
    taints: tuple[str, ...] = ()
    origin: str = field(default="", compare=False)

    def describe(self) -> str:
        return f"add {self.count} like {self.like}"

    def apply(self, state: ClusterState) -> tuple[ClusterState, EditRecord]:
        if not 1 <= self.count <= ADD_NODES_MAX:
            raise InputError(f"--add-nodes {self.count}: must be between 1 and {ADD_NODES_MAX}")
        template = NodeTarget.parse(self.like, selector=False).nodes(state)[0]
        taints = [parse_taint(t) for t in self.taints]
        limits.charge(limits.NODES_CREATED, self.count)  # the run's budget: before any is made
        new = state.copy()
        names = _fresh_names(template, self.count, new.node_by_name)
        source = state.node_by_name[template]
        for name in names:
            node = copy.deepcopy(source)
            meta = node["metadata"]
            for key in ("uid", "resourceVersion", "creationTimestamp", "managedFields", "generation"):
                meta.pop(key, None)
            meta["name"] = name
            meta["uid"] = make_uid("Node", "", name)
            labels = meta.setdefault("labels", {})
            labels[HOSTNAME_LABEL] = name
            labels.update(dict(self.labels))
            spec = node.setdefault("spec", {})
            # A new node joins schedulable: the template's cordon is not copied.
            spec.pop("unschedulable", None)
            kept = [t for t in spec.get("taints") or () if t.get("key") != UNSCHEDULABLE_TAINT_KEY]
            spec["taints"] = _merge_taints(kept, taints)
            if not spec["taints"]:
                del spec["taints"]
            spec.pop("providerID", None)
            new.add_object(node)
            _copy_node_objects(new, template, name)
        record = EditRecord("add", template, names, labels=dict(self.labels),
                            taints=[taint_to_string(t) for t in taints])
        return new, record


@dataclass(frozen=True)
class LabelNodes(Edit):
    """``kubectl label nodes``: a value sets a label, None removes it."""

    target: NodeTarget
    labels: tuple[tuple[str, str | None], ...]
    origin: str = field(default="", compare=False)

    def describe(self) -> str:
        return f"label {self.target}"

    def apply(self, state: ClusterState) -> tuple[ClusterState, EditRecord]:
        names = self.target.nodes(state)
        new = state.copy()
        for name in names:
            meta = _own_node(new, name)["metadata"]
            labels = dict(meta.get("labels") or {})
            for key, value in self.labels:
                if value is None:
                    labels.pop(key, None)
                else:
                    labels[key] = value
            meta["labels"] = labels
        return new, EditRecord("label", str(self.target), names, labels=dict(self.labels))


@dataclass(frozen=True)
class TaintNodes(Edit):
    """``kubectl taint nodes``: each taint is added or replaces the one of the same key and effect."""

    target: NodeTarget
    taints: tuple[str, ...]
    origin: str = field(default="", compare=False)

    def describe(self) -> str:
        return f"taint {self.target}"

    def apply(self, state: ClusterState) -> tuple[ClusterState, EditRecord]:
        taints = [parse_taint(t) for t in self.taints]
        names = self.target.nodes(state)
        new = state.copy()
        for name in names:
            spec = _own_node(new, name).setdefault("spec", {})
            spec["taints"] = _merge_taints(list(spec.get("taints") or ()), taints)
        return new, EditRecord("taint", str(self.target), names, taints=[taint_to_string(t) for t in taints])


#: The taints the node lifecycle controller puts on a node whose Ready condition is False
#: (not-ready) or Unknown (unreachable).
NOT_READY_TAINT_KEY = "node.kubernetes.io/not-ready"
UNREACHABLE_TAINT_KEY = "node.kubernetes.io/unreachable"
#: Per readiness: the Ready condition's status, its reason (the kubelet's, or the node lifecycle
#: controller's for a kubelet that stopped reporting) and the taint that goes with it.
READINESS: dict[str, tuple[str, str, str | None]] = {
    "notReady": ("False", "KubeletNotReady", NOT_READY_TAINT_KEY),
    "unreachable": ("Unknown", "NodeStatusUnknown", UNREACHABLE_TAINT_KEY),
    "ready": ("True", "KubeletReady", None),
}


@dataclass(frozen=True)
class NodeReadiness(Edit):
    """The node lifecycle controller on a node whose kubelet reports NotReady (``notReady``),
    stopped reporting (``unreachable``), or is Ready again (``ready``): the Ready condition and
    the ``not-ready`` / ``unreachable`` taints, swapped as the controller swaps them
    (NoSchedule by TaintNodesByCondition, NoExecute by taint-based eviction, stamped ``now``
    unless the node had it already). The pods stay bound; evicting those that do not tolerate
    the NoExecute taint is the taint manager's, and a scenario's, next step."""

    target: NodeTarget
    readiness: str = "notReady"
    now: str = "1970-01-01T00:00:00Z"
    origin: str = field(default="", compare=False)

    def describe(self) -> str:
        return f"{self.readiness} {self.target}"

    def apply(self, state: ClusterState) -> tuple[ClusterState, EditRecord]:
        names = self.target.nodes(state)
        new = state.copy()
        status_value, reason, key = READINESS[self.readiness]
        added: list[str] = []
        for name in names:
            node = _own_node(new, name)
            spec = node.setdefault("spec", {})
            old = list(spec.get("taints") or ())
            taints = [t for t in old if t.get("key") not in (NOT_READY_TAINT_KEY, UNREACHABLE_TAINT_KEY)]
            if key is not None:
                kept = {(t.get("key"), t.get("effect")): t for t in old}
                for effect in ("NoSchedule", "NoExecute"):
                    taint = kept.get((key, effect)) or {"key": key, "effect": effect}
                    if effect == "NoExecute":
                        taint = {**taint, "timeAdded": taint.get("timeAdded") or self.now}
                    taints.append(taint)
                    added.append(f"{key}:{effect}")
            if taints:
                spec["taints"] = taints
            else:
                spec.pop("taints", None)
            status = node.setdefault("status", {})
            conditions = [c for c in status.get("conditions") or () if c.get("type") != "Ready"]
            conditions.append({"type": "Ready", "status": status_value, "reason": reason,
                               "lastTransitionTime": self.now})
            status["conditions"] = conditions
        return new, EditRecord(self.readiness, str(self.target), names, taints=sorted(set(added)))


@dataclass(frozen=True)
class MarkNotReady(NodeReadiness):
    """``NodeReadiness`` ``notReady``, as what-if names it: recorded as ``not-ready`` with the
    taints in the order the controller adds them."""

    def describe(self) -> str:
        return f"not-ready {self.target}"

    def apply(self, state: ClusterState) -> tuple[ClusterState, EditRecord]:
        new, record = super().apply(state)
        in_order = sorted(record.taints, key=lambda taint: taint.endswith(":NoExecute"))
        return new, EditRecord("not-ready", record.target, record.nodes, taints=in_order)


def apply_edits(state: ClusterState, edits: Iterable[Edit]) -> tuple[ClusterState, list[EditRecord]]:
    """``state`` with ``edits`` applied in order (``state`` itself unchanged), and their records."""
    records = []
    for edit in edits:
        try:
            state, record = edit.apply(state)
        except InputError as exc:
            if edit.origin and not exc.message.startswith(edit.origin):
                exc.message = f"{edit.origin}: {exc.message}"
                exc.args = (exc.message,)
            raise
        records.append(record)
    return state, records


# ---------------------------------------------------------------------------------------- parsing


def parse_taint(text: str) -> dict:
    """A taint in ``kubectl taint`` syntax, ``key[=value]:Effect``; ``InputError`` if malformed."""
    key_value, sep, effect = text.rpartition(":")
    if not sep or effect not in _TAINT_EFFECTS:
        raise InputError(f"taint {text!r}: expected key[=value]:Effect with Effect one of {', '.join(_TAINT_EFFECTS)}")
    key, _, value = key_value.partition("=")
    from kschedctl.k8s.selectors import label_key_errors, label_value_errors

    errors = label_key_errors(key) + (label_value_errors(value) if value else [])
    if not key or errors:
        raise InputError(f"taint {text!r}: invalid key or value: {'; '.join(errors) or 'empty key'}")
    taint = {"key": key, "effect": effect}
    if value:
        taint["value"] = value
    return taint


def parse_label(text: str) -> tuple[str, str | None]:
    """``key=value`` (or ``key-`` to remove, as ``kubectl label``); ``InputError`` if malformed."""
    from kschedctl.k8s.selectors import label_key_errors, label_value_errors

    if text.endswith("-") and "=" not in text:
        key, value = text[:-1], None
    else:
        key, sep, value = text.partition("=")
        if not sep:
            raise InputError(f"label {text!r}: expected key=value")
    errors = label_key_errors(key) + (label_value_errors(value) if value else [])
    if errors:
        raise InputError(f"label {text!r}: {'; '.join(errors)}")
    return key, value


# ---------------------------------------------------------------------------------------- helpers


def _labels(obj: dict) -> dict:
    return (obj.get("metadata") or {}).get("labels") or {}


def _key(pod: dict) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


def _node_of(pod: dict) -> str | None:
    return (pod.get("spec") or {}).get("nodeName")


def _finished(pod: dict) -> bool:
    return ((pod.get("status") or {}).get("phase")) in ("Succeeded", "Failed")


def _controller(pod: dict) -> dict | None:
    """metav1.GetControllerOf: the owner reference marked controller."""
    for ref in (pod.get("metadata") or {}).get("ownerReferences") or ():
        if isinstance(ref, dict) and ref.get("controller"):
            return ref
    return None


def _controller_text(pod: dict) -> str:
    ref = _controller(pod) or {}
    return f"{ref.get('kind')}/{ref.get('name')}"


def _own_node(state: ClusterState, name: str) -> dict:
    """The node ``name`` of ``state`` as a copy ``state`` alone holds (safe to change)."""
    node = copy.deepcopy(state.node_by_name[name])
    state.add_object(node)
    return node


def _cordon(node: dict) -> None:
    spec = node.setdefault("spec", {})
    spec["unschedulable"] = True
    spec["taints"] = _merge_taints(list(spec.get("taints") or ()),
                                   [{"key": UNSCHEDULABLE_TAINT_KEY, "effect": "NoSchedule"}])


def _merge_taints(taints: list[dict], more: Iterable[dict]) -> list[dict]:
    for taint in more:
        taints = [t for t in taints if not (t.get("key") == taint["key"] and t.get("effect") == taint["effect"])]
        taints.append(dict(taint))
    return taints


def _fresh_names(template: str, count: int, taken: dict) -> list[str]:
    names, i = [], 0
    while len(names) < count:
        i += 1
        name = f"{template}-new-{i}"
        if name not in taken:
            names.append(name)
    return names


def _copy_node_objects(state: ClusterState, template: str, name: str) -> None:
    """The kubelet's objects of the template node (CSINode, node-local ResourceSlices,
    NodeResourceTopology), made for the new node as its kubelet would publish them."""
    for kind, coll in (("CSINode", state.csinodes), ("NodeResourceTopology", state.node_resource_topologies)):
        obj = coll.get(template)
        if obj is not None:
            twin = copy.deepcopy(obj)
            twin["metadata"]["name"] = name
            twin["metadata"].pop("uid", None)
            state.add_object(twin)
    for slice_ in list(state.resource_slices.values()):
        spec = slice_.get("spec") or {}
        if spec.get("nodeName") != template:
            continue
        twin = copy.deepcopy(slice_)
        old_name = slice_["metadata"]["name"]
        twin["metadata"]["name"] = old_name.replace(template, name) if template in old_name else f"{old_name}-{name}"
        twin["spec"]["nodeName"] = name
        pool = twin["spec"].get("pool") or {}
        if pool.get("name") == template:
            pool["name"] = name
        state.add_object(twin)


def _replacement(pod: dict, state: ClusterState) -> dict:
    """The pod the controller makes for an evicted one: the same spec, pending, with a fresh name
    (a StatefulSet's pod comes back under its own name)."""
    meta = pod.get("metadata") or {}
    controller = _controller(pod) or {}
    namespace = meta.get("namespace") or "default"
    if controller.get("kind") == "StatefulSet":
        name = meta["name"]
    else:
        prefix = meta.get("generateName") or f"{controller.get('name') or meta['name']}-"
        name = _generated_name(prefix, meta["name"], namespace, state)
    new_meta = {k: copy.deepcopy(v) for k, v in meta.items()
                if k not in ("uid", "resourceVersion", "creationTimestamp", "deletionTimestamp",
                             "deletionGracePeriodSeconds", "managedFields", "name")}
    new_meta["name"] = name
    new_meta["uid"] = make_uid("Pod", namespace, f"{name}/replacement")
    spec = copy.deepcopy(pod.get("spec") or {})
    spec.pop("nodeName", None)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": new_meta, "spec": spec,
            "status": {"phase": "Pending"}}


def controller_of(pod: dict) -> dict | None:
    """The pod's owner reference marked controller (metav1.GetControllerOf), if any."""
    return _controller(pod)


def replacement_pod(pod: dict, state: ClusterState) -> dict:
    """The pending pod a controller makes in place of ``pod`` (see ``Drain``), named afresh in ``state``."""
    return _replacement(pod, state)


def _generated_name(prefix: str, seed: str, namespace: str, state: ClusterState) -> str:
    """A name as generateName makes (prefix + five random characters), the same on every run."""
    for attempt in range(1000):
        digest = hashlib.sha256(f"{seed}/{attempt}".encode()).digest()
        suffix = "".join(_SUFFIX_ALPHABET[b % len(_SUFFIX_ALPHABET)] for b in digest[:5])
        if not state.has_pod(f"{namespace}/{prefix}{suffix}"):
            return prefix + suffix
    raise InputError(f"no free name for a replacement of {namespace}/{seed}")  # pragma: no cover


# ---------------------------------------------------------------------------------------- budgets


def _ready(pod: dict) -> bool:
    """podutil.IsPodReady, for hand-written fixtures too: the Ready condition when the pod has
    one; without it, a bound pod whose phase is Running (or not given) counts as ready."""
    status = pod.get("status") or {}
    for cond in status.get("conditions") or ():
        if isinstance(cond, dict) and cond.get("type") == "Ready":
            return cond.get("status") == "True"
    return bool(_node_of(pod)) and status.get("phase") in (None, "Running")


class EvictionBudgets:
    """The cluster's PodDisruptionBudgets as the eviction API checks them, with
    ``disruptionsAllowed`` as the disruption controller computes it from the pods."""

    def __init__(self, state: ClusterState) -> None:
        self.state = state
        self.entries: list[dict[str, Any]] = []
        for key, pdb in state.pdbs.items():
            namespace = pdb["metadata"].get("namespace") or "default"
            try:
                selector = label_selector((pdb.get("spec") or {}).get("selector"))
            except (SelectorError, ValueError):
                continue
            # "If a PDB with a nil or empty selector creeps in, it should match nothing."
            if selector.empty or selector.nothing:
                continue
            matching = [p for p in state.pods if (p.get("metadata") or {}).get("namespace") == namespace
                        and selector.matches(_labels(p))]
            healthy = sum(1 for p in matching if not (p.get("metadata") or {}).get("deletionTimestamp")
                          and _ready(p))
            desired, error = self._desired_healthy(pdb, matching)
            allowed = 0 if error else max(healthy - desired, 0)
            self.entries.append({"key": key, "namespace": namespace, "selector": selector, "allowed": allowed,
                                 "healthy": healthy, "desired": desired, "error": error})

    def evict(self, pod: dict) -> str:
        """"" when the eviction API would evict ``pod`` (the budget charged), else its refusal."""
        meta = pod.get("metadata") or {}
        phase = (pod.get("status") or {}).get("phase")
        if phase in ("Succeeded", "Failed", "Pending") or meta.get("deletionTimestamp"):
            return ""  # canIgnorePDB
        matching = [e for e in self.entries if e["namespace"] == (meta.get("namespace") or "default")
                    and e["selector"].matches(_labels(pod))]
        if not matching:
            return ""
        if len(matching) > 1:
            return ("This pod has more than one PodDisruptionBudget, which the eviction subresource does not "
                    f"support ({', '.join(e['key'] for e in matching)})")
        budget = matching[0]
        if not _ready(pod):
            # unhealthyPodEvictionPolicy IfHealthyBudget: an unready pod goes if the budget is met.
            if budget["healthy"] >= budget["desired"] and not budget["error"]:
                return ""
        if budget["allowed"] <= 0:
            why = f" ({budget['error']})" if budget["error"] else (
                f" ({budget['healthy']} healthy, {budget['desired']} required)")
            return (f"Cannot evict pod as it would violate the pod's disruption budget "
                    f"{budget['key']}{why}")
        budget["allowed"] -= 1
        if _ready(pod):
            budget["healthy"] -= 1
        return ""

    def _desired_healthy(self, pdb: dict, pods: list[dict]) -> tuple[int, str]:
        """getExpectedPodCount: desiredHealthy, and why the controller could not compute it."""
        spec = pdb.get("spec") or {}
        max_unavailable, min_available = spec.get("maxUnavailable"), spec.get("minAvailable")
        if max_unavailable is not None:
            expected, error = self._expected_scale(pods)
            if error:
                return 0, error
            return max(expected - _scaled(max_unavailable, expected), 0), ""
        if min_available is not None:
            if isinstance(min_available, int):
                return min_available, ""
            expected, error = self._expected_scale(pods)
            if error:
                return 0, error
            return _scaled(min_available, expected), ""
        return 0, ""

    def _expected_scale(self, pods: list[dict]) -> tuple[int, str]:
        """getExpectedScale: the replicas of each distinct controller of the pods (pods without
        a controller are ignored); a controller whose scale cannot be read is an error."""
        seen: dict[str, int] = {}
        for pod in pods:
            ref = _controller(pod)
            if ref is None:
                continue
            namespace = pod["metadata"].get("namespace") or "default"
            key = f"{ref.get('kind')}/{namespace}/{ref.get('name')}"
            if key in seen:
                continue
            replicas = self._scale_of(ref.get("kind"), namespace, ref.get("name"))
            if replicas is None:
                return 0, f"found no controller {ref.get('kind')}/{ref.get('name')} with a scale"
            seen[key] = replicas
        return sum(seen.values()), ""

    def _scale_of(self, kind: str | None, namespace: str, name: str | None) -> int | None:
        collections = {"ReplicaSet": self.state.replica_sets, "StatefulSet": self.state.stateful_sets,
                       "ReplicationController": self.state.replication_controllers}
        obj = (collections.get(kind or "") or {}).get(f"{namespace}/{name}")
        if obj is None:
            obj = self.state.owners.get(f"{kind}/{namespace}/{name}")
            if obj is None or kind not in ("Deployment", "ReplicaSet", "StatefulSet", "ReplicationController"):
                return None
        if kind == "ReplicaSet":
            # A Deployment's ReplicaSet: the disruption controller reads the Deployment's scale.
            owner = _controller(obj)
            if owner is not None and owner.get("kind") == "Deployment":
                deployment = self.state.owners.get(f"Deployment/{namespace}/{owner.get('name')}")
                if deployment is not None:
                    obj = deployment
        replicas = (obj.get("spec") or {}).get("replicas")
        return 1 if replicas is None else int(replicas)


def _scaled(value: Any, total: int) -> int:
    """intstr.GetScaledValueFromIntOrPercent rounding up."""
    if isinstance(value, int):
        return value
    text = str(value)
    if not text.endswith("%"):
        try:
            return int(text)
        except ValueError:
            raise InputError(f"PodDisruptionBudget: invalid value {text!r} (an integer or a percentage)") from None
    try:
        percent = int(text[:-1])
    except ValueError:
        raise InputError(f"PodDisruptionBudget: invalid percentage {text!r}") from None
    return math.ceil(percent * total / 100)
