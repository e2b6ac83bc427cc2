"""Coscheduling: gang scheduling with the PodGroup CRD — all of a group's pods, or none.

Port of kubernetes-sigs/scheduler-plugins ``pkg/coscheduling/coscheduling.go`` and
``core/core.go`` (v0.34.7). A pod joins the group named by its label
``scheduling.x-k8s.io/pod-group`` (the PodGroup in the pod's namespace):

- **QueueSort**: higher priority first; then the earlier of the PodGroup's creation time (or,
  once the group failed, the time of that failure) or the pod's own queue time; then
  ``namespace/name``.
- **PreFilter**: UnschedulableAndUnresolvable (no preemption) when the group backs off after a
  recent failure (``podGroup <ns/pg> failed recently``), when it has fewer pods than
  ``minMember`` (``pre-filter pod <p> cannot find enough sibling pods, current pods number: <n>,
  minMember of group: <m>``), when gated pods leave it short, or when the cluster's free
  resources cannot hold ``minResources`` (``resource gap: ...``).
- **PostFilter**: rejects the whole group (``PodGroup <ns/pg> gets rejected due to Pod <p> is
  unschedulable even after PostFilter``) unless enough pods are already assigned or the gap is
  within ``podGroupRejectPercentage``; the group's pods waiting at Permit are rejected with
  ``optimistic rejection in PostFilter``. ``can not find pod group`` for a pod without a group.
- **Permit**: Success once the assigned pods (this one included) reach ``minMember``, which also
  allows every waiting pod of the group; else **Wait** for ``spec.scheduleTimeoutSeconds`` of
  the PodGroup, or ``permitWaitingTimeSeconds`` (args, default 60s), and the group's first
  waiting pod puts its siblings into the cycle's PodsToActivate; ``PodGroup not found``
  (Unschedulable) for a group that does not exist.
- **Reserve** does nothing; **Unreserve** rejects the group's waiting pods (``rejection in
  Unreserve``) and marks the group failed.

Args (``CoschedulingArgs``): ``permitWaitingTimeSeconds`` (60), ``podGroupBackoffSeconds`` (0),
``podGroupRejectPercentage`` (10), validated as upstream's ``ValidateCoschedulingArgs``.

Differences: upstream keeps the assigned pods of each group in memory (informer events plus
Permit) and the groups that passed the minResources check in a short-lived cache; here assigned
pods are the group's pods on the snapshot's nodes (a pod waiting at Permit is assumed there, as
in upstream's cache) plus the pod at Permit, and minResources is checked every time (same
answer, since the group's own pods are left out of the count). "Now" for backoff and failure
times is the handle's clock: the wall clock for ``explain``, the batch's virtual clock for
``simulate``. Pods are listed as the pod informer would (``handle.list_pods()``), so the pending
pods of a simulated batch count as members of their group.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, ClassVar

from kschedctl.framework.cycle_state import PODS_TO_ACTIVATE_KEY, StateNotFound
from kschedctl.framework.events import ASSIGNED_POD_ADD, always_queue
from kschedctl.framework.interfaces import Plugin, QueuedPodInfo
from kschedctl.framework.status import Code, PostFilterResult, PreFilterResult, Status
from kschedctl.k8s.quantity import format_bytes, format_milli_cpu
from kschedctl.k8s.resources import CPU, MEMORY, PODS, Resource
from kschedctl.plugins.facts import PluginFacts
from kschedctl.plugins.loader import given_args, validated, with_defaults
from kschedctl.plugins.sigs.podgroup import (
    POD_GROUP_LABEL,
    get_pod_group,
    informer_pods,
    min_member,
    parse_time,
    pod_group_full_name,
    pod_group_label,
)

if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = "Coscheduling"

#: Reasons, word for word as upstream.
REASON_NO_POD_GROUP = "can not find pod group"
REASON_POD_GROUP_NOT_FOUND = "PodGroup not found"

#: CycleState key upstream uses to ask for the group's siblings to be activated.
PERMIT_STATE_KEY = "PermitCoscheduling"


class Coscheduling(Plugin):
    """Gang scheduling: a PodGroup's pods wait at Permit until minMember of them have a node."""

    name = NAME
    default_args: ClassVar[dict[str, Any]] = {
        "permitWaitingTimeSeconds": 60,
        "podGroupBackoffSeconds": 0,
        "podGroupRejectPercentage": 10,
    }
    # Upstream decodes args strictly: unknown fields are errors.
    args_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "permitWaitingTimeSeconds": {"type": "integer"},
            "podGroupBackoffSeconds": {"type": "integer"},
            "podGroupRejectPercentage": {"type": "integer"},
        },
    }

    def __init__(self, args: dict | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        merged = with_defaults(self.default_args, given_args(args))
        validated(self, merged)
        #: Seconds a pod waits at Permit when its PodGroup sets no scheduleTimeoutSeconds.
        self.schedule_timeout = float(merged["permitWaitingTimeSeconds"])
        backoff = int(merged["podGroupBackoffSeconds"])
        self.pg_backoff: float | None = float(backoff) if backoff > 0 else None
        self.pg_reject_threshold = float(merged["podGroupRejectPercentage"]) / 100.0
        self._backed_off: dict[str, float] = {}
        self._last_failed: dict[str, float] = {}

    def start_afresh(self) -> None:
        """Forget earlier cycles' gang failures and back-offs (``explain`` asks each pod alone)."""
        self._backed_off.clear()
        self._last_failed.clear()

    @staticmethod
    def validate_args(args: dict) -> list[tuple[str, str, str]]:
        """Upstream ValidateCoschedulingArgs (field paths relative to the args)."""
        out = []
        for key, rule in (("permitWaitingTimeSeconds", "must be greater than 0"),
                          ("podGroupBackoffSeconds", "must be greater than 0")):
            value = args.get(key, 0)
            if isinstance(value, int) and value < 0:
                out.append((key, "Invalid", f"Invalid value: {value}: {rule}"))
        pct = args.get("podGroupRejectPercentage", 10)
        if isinstance(pct, int) and (pct < 0 or pct > 100):
            out.append(("podGroupRejectPercentage", "Invalid", f"Invalid value: {pct}: must be between 0 and 100"))
        return out

    # -- QueueSort ----------------------------------------------------------------------------
    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        p1, p2 = a.pod_info.priority, b.pod_info.priority
        if p1 != p2:
            return p1 > p2
        t1 = self.creation_timestamp(a.pod_info.pod, _initial_attempt(a))
        t2 = self.creation_timestamp(b.pod_info.pod, _initial_attempt(b))
        if t1 == t2:
            return a.pod_info.key < b.pod_info.key
        return t1 < t2

    def creation_timestamp(self, pod: dict, ts: float) -> float:
        """Upstream GetCreationTimestamp: the group's last failure, its creation time, or ``ts``."""
        name = pod_group_label(pod)
        if not name:
            return ts
        full = pod_group_full_name(pod)
        if full in self._last_failed:
            return self._last_failed[full]
        _, pg = get_pod_group(self._cluster(), pod)
        if pg is None:
            return ts
        created = parse_time((pg.get("metadata") or {}).get("creationTimestamp"))
        # A PodGroup without a creation time is Go's zero time: earlier than any queue time.
        return float("-inf") if created is None else created

    def mark_pod_group_schedule_failure(self, full_name: str) -> None:
        self._last_failed[full_name] = self._now()

    def clear_pod_group_schedule_failure(self, full_name: str) -> None:
        self._last_failed.pop(full_name, None)

    # -- PreFilter ----------------------------------------------------------------------------
    def pre_filter(self, state: "CycleState", pod_info: "PodInfo",
                   nodes: list["NodeInfo"]) -> tuple[PreFilterResult | None, Status | None]:
        message = self._pre_filter(pod_info, nodes)
        if message:
            return None, Status(Code.UnschedulableAndUnresolvable, message)
        return None, Status(Code.Success, "")

    def _pre_filter(self, pod_info: "PodInfo", nodes: list["NodeInfo"]) -> str:
        full, pg = get_pod_group(self._cluster(), pod_info.pod)
        if pg is None:
            return ""
        until = self._backed_off.get(full)
        if until is not None and until > self._now():
            return f"podGroup {full} failed recently"
        siblings = self._group_pods(pod_info)
        m = min_member(pg)
        quorum_gap = m - len(siblings)
        if quorum_gap > 0:
            return (f"pre-filter pod {pod_info.name} cannot find enough sibling pods, "
                    f"current pods number: {len(siblings)}, minMember of group: {m}")
        for pod in siblings:
            if (pod.get("spec") or {}).get("schedulingGates"):
                quorum_gap += 1
            if quorum_gap > 0:
                return f"pre-filter pod {pod_info.name} cannot proceed due to gated pods in the same PodGroup"
        min_resources = (pg.get("spec") or {}).get("minResources")
        if not min_resources:
            return ""
        request = Resource.from_list(min_resources)
        request.allowed_pod_number = m
        gap = check_cluster_resource(nodes, request, full)
        return f"resource gap: {gap}" if gap else ""

    # -- PostFilter ---------------------------------------------------------------------------
    def post_filter(self, state: "CycleState", pod_info: "PodInfo",
                    filtered_node_status: Any) -> tuple[PostFilterResult | None, Status | None]:
        full, pg = get_pod_group(self._cluster(), pod_info.pod)
        if pg is None:
            return PostFilterResult(), Status(Code.Unschedulable, REASON_NO_POD_GROUP)
        assigned = self.assigned_pod_count(full)
        m = min_member(pg)
        if assigned >= m:
            return PostFilterResult(), Status(Code.Unschedulable)
        not_assigned = (m - assigned) / m
        if not_assigned <= self.pg_reject_threshold:
            return PostFilterResult(), Status(Code.Unschedulable)
        # One pod of the group failing makes the others unlikely to fit: the waiting ones are let go.
        self._reject_waiting(pod_info.namespace, pod_group_label(pod_info.pod), "optimistic rejection in PostFilter")
        if self.pg_backoff is not None and len(self._group_pods(pod_info)) >= m:
            self._backed_off[full] = self._now() + self.pg_backoff
        self.mark_pod_group_schedule_failure(full)
        return PostFilterResult(), Status(
            Code.Unschedulable, f"PodGroup {full} gets rejected due to Pod {pod_info.name} is unschedulable "
                                "even after PostFilter")

    # -- Reserve / Permit ---------------------------------------------------------------------
    def reserve(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> Status | None:
        return None

    def unreserve(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> None:
        full, pg = get_pod_group(self._cluster(), pod_info.pod)
        if pg is None:
            return
        self._reject_waiting(pod_info.namespace, pod_group_label(pod_info.pod), "rejection in Unreserve")
        self.mark_pod_group_schedule_failure(full)

    def permit(self, state: "CycleState", pod_info: "PodInfo", node_name: str) -> tuple[Status | None, float]:
        full, pg = get_pod_group(self._cluster(), pod_info.pod)
        if not full:
            return Status(Code.Success, ""), 0.0
        if pg is None:
            return Status(Code.Unschedulable, REASON_POD_GROUP_NOT_FOUND), 0.0
        assigned = self._assigned_names(full)
        assigned.add(pod_info.name)
        if len(assigned) >= min_member(pg):
            self.clear_pod_group_schedule_failure(full)
            # The quorum is reached: every waiting pod of the group may bind now.
            handle = self.handle
            if handle is not None and hasattr(handle, "iterate_over_waiting_pods"):
                def allow(waiting: Any) -> None:
                    if pod_group_full_name(waiting.get_pod()) == full:
                        waiting.allow(NAME)
                handle.iterate_over_waiting_pods(allow)
            return Status(Code.Success), 0.0
        if len(assigned) == 1:
            # Only the group's first pod to reach Permit asks for its siblings to be retried.
            state.write(PERMIT_STATE_KEY, {"activate": True})
        timeout = (pg.get("spec") or {}).get("scheduleTimeoutSeconds")
        wait = float(timeout) if timeout is not None else (self.schedule_timeout or 60.0)
        self.activate_siblings(state, pod_info)
        return Status(Code.Wait), wait

    def activate_siblings(self, state: "CycleState", pod_info: "PodInfo") -> None:
        """Upstream ActivateSiblings: when Permit asked for it, the group's other pods go into
        the cycle's PodsToActivate, so the scheduler retries them now."""
        try:
            permit = state.read(PERMIT_STATE_KEY)
        except StateNotFound:
            return
        if not (isinstance(permit, dict) and permit.get("activate")):
            return
        try:
            to_activate = state.read(PODS_TO_ACTIVATE_KEY)
        except StateNotFound:
            return
        for pod in self._group_pods(pod_info):
            meta = pod.get("metadata") or {}
            if meta.get("uid") == pod_info.uid and (meta.get("name") or "") == pod_info.name:
                continue
            to_activate.map[f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"] = pod

    # -- helpers ------------------------------------------------------------------------------
    def assigned_pod_count(self, full_name: str) -> int:
        """Pods of the group with a node (bound, or assumed by the scheduler)."""
        return len(self._assigned_names(full_name))

    def _assigned_names(self, full_name: str) -> set[str]:
        namespace, _, group = full_name.partition("/")
        snapshot = self.handle.snapshot() if self.handle is not None else None
        names: set[str] = set()
        if snapshot is None:
            return names
        for node_info in snapshot.node_infos():
            for pi in node_info.pods:
                if pi.namespace == namespace and pi.labels.get(POD_GROUP_LABEL) == group:
                    names.add(pi.name)
        return names

    def _reject_waiting(self, namespace: str, group: str, message: str) -> None:
        """Reject every pod of ``namespace/group`` waiting at Permit."""
        handle = self.handle
        if handle is None or not hasattr(handle, "iterate_over_waiting_pods"):
            return

        def reject(waiting: Any) -> None:
            pod = waiting.get_pod()
            meta = pod.get("metadata") or {}
            if (meta.get("namespace") or "default") == namespace and pod_group_label(pod) == group:
                waiting.reject(NAME, message)
        handle.iterate_over_waiting_pods(reject)

    def _now(self) -> float:
        now = getattr(self.handle, "now", None)
        return now() if callable(now) else time.time()

    def _group_pods(self, pod_info: "PodInfo") -> list[dict]:
        """The pods of the pod's group in its namespace, as the pod lister lists them."""
        group = pod_group_label(pod_info.pod)
        out = []
        for pod in informer_pods(self.handle, pod_info):
            meta = pod.get("metadata") or {}
            if (meta.get("namespace") or "default") == pod_info.namespace and \
                    (meta.get("labels") or {}).get(POD_GROUP_LABEL) == group:
                out.append(pod)
        return out

    def _cluster(self) -> Any:
        return self.handle.cluster() if self.handle is not None else None


def _initial_attempt(q: QueuedPodInfo) -> float:
    value = getattr(q, "initial_attempt_timestamp", None)
    return float(q.timestamp if value is None else value)


def check_cluster_resource(nodes: list["NodeInfo"], request: Resource, group: str) -> str:
    """Upstream CheckClusterResource: "" when the nodes' free resources (the group's own pods not
    counted) cover ``request``, else the remaining gap as ``map[name:quantity ...]``."""
    remaining: dict[str, int] = {}
    if request.milli_cpu:
        remaining[CPU] = request.milli_cpu
    if request.memory:
        remaining[MEMORY] = request.memory
    if request.ephemeral_storage:
        remaining["ephemeral-storage"] = request.ephemeral_storage
    if request.allowed_pod_number:
        remaining[PODS] = request.allowed_pod_number
    for name, value in request.scalar_resources.items():
        if value:
            remaining[name] = value
    for node_info in nodes:
        if node_info is None or node_info.node is None:
            continue
        free = _node_free(node_info, group)
        for name in list(remaining):
            left = remaining[name] - free.get(name, 0)
            if left <= 0:
                del remaining[name]
            else:
                remaining[name] = left
        if not remaining:
            return ""
    return "map[" + " ".join(f"{n}:{_quantity(n, v)}" for n, v in sorted(remaining.items())) + "]"


def _node_free(node_info: "NodeInfo", group: str) -> dict[str, int]:
    clone = node_info.clone()
    for pi in list(node_info.pods):
        if pod_group_full_name(pi.pod) == group:
            clone.remove_pod(pi)
    alloc, req = clone.allocatable, clone.requested
    free = {
        CPU: alloc.milli_cpu - req.milli_cpu,
        MEMORY: alloc.memory - req.memory,
        "ephemeral-storage": alloc.ephemeral_storage - req.ephemeral_storage,
        PODS: alloc.allowed_pod_number - len(clone.pods),
    }
    for name, value in alloc.scalar_resources.items():
        free[name] = value - req.scalar_resources.get(name, 0)
    return free


def _quantity(name: str, value: int) -> str:
    return format_milli_cpu(value) if name == CPU else format_bytes(value) if name == MEMORY else str(value)


# -- facts --------------------------------------------------------------------------------------

FACTS = PluginFacts(
    name=Coscheduling.name,
    points=("queueSort", "preFilter", "postFilter", "reserve", "permit"),
    # Pod/Add without a hint function (and PodGroup events, which a batch never has): any pod
    # placed may complete its group.
    events={ASSIGNED_POD_ADD: always_queue},
)
