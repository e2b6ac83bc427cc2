"""The scheduling queue, as far as a what-if batch needs it.

Follows pkg/scheduler/backend/queue (scheduling_queue.go, active_queue.go, backoff_queue.go,
unschedulable_pods.go) of kube-scheduler v1.34, with its v1.34 feature gates
(SchedulerQueueingHints and SchedulerPopFromBackoffQ on):

- a pod entering the queue runs the PreEnqueue plugins; a pod they hold back is *gated* and
  stays in the unschedulable pods (only an update of the pod itself would release it, and a
  what-if batch never updates a pod);
- ``activeQ`` is a heap ordered by the profile's QueueSort ``Less`` (PrioritySort: higher
  priority first, then the earlier queue timestamp);
- a pod that failed goes to the unschedulable pods, remembering the plugins that rejected it
  (``UnschedulablePlugins`` / ``PendingPlugins``); a pod that failed with an error (no rejector)
  goes to the error backoff queue;
- a cluster event (a pod placed: ``AssignedPodAdd``; a victim removed: ``AssignedPodDelete``)
  moves an unschedulable pod to the backoff queue when one of its rejectors' queueing hints
  says the event may make it schedulable (``QueueingHintFn`` returning Queue);
- ``activate`` moves the pods a plugin put into PodsToActivate from the unschedulable pods or a
  backoff queue to activeQ (Coscheduling retrying a gang's siblings);
- the backoff queue is ordered by backoff expiry (1s doubling up to 10s, aligned to 1s windows)
  and, within a window, by ``Less``; with ``SchedulerPopFromBackoffQ`` the scheduler pops from
  it whenever ``activeQ`` is empty.

A what-if batch has no wall clock. kschedctl runs it on a virtual clock that advances one
microsecond per queue operation, i.e. as if the whole batch were scheduled well within the
initial backoff of one second: pods in backoff are retried only once ``activeQ`` is empty,
and the 5-minute flush of leftover unschedulable pods never happens. Upstream's real timing
would retry backed-off pods earlier in a long batch; the pods it places and the reasons stay
the same, the order of retries may differ. The clock jumps ahead only when nothing is left to
pop and a pod waits at Permit: to the first of their deadlines. Plugins read the clock (and
``QueuedPodInfo.initial_attempt_timestamp``) as seconds since the epoch, from ``origin``. ``max_attempts`` bounds how often one pod is tried.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from kschedctl.framework.events import (
    ASSIGNED_POD_ADD,
    ASSIGNED_POD_DELETE,
    QUEUE,
    QUEUE_SKIP,
    RESOURCE_CLAIM_DEALLOCATED,
)
from kschedctl.framework.interfaces import QueuedPodInfo
from kschedctl.framework.status import Code, Status
from kschedctl.plugins.registry import facts_of

#: Upstream defaults of podInitialBackoffSeconds / podMaxBackoffSeconds.
DEFAULT_POD_INITIAL_BACKOFF = 1.0
DEFAULT_POD_MAX_BACKOFF = 10.0
#: backoffQOrderingWindowDuration (SchedulerPopFromBackoffQ).
BACKOFF_ORDERING_WINDOW = 1.0
#: Virtual time one queue operation takes (see the module docstring).
TICK = 1e-6
#: How often one pod is tried at most in a batch, unless the caller says otherwise.
DEFAULT_MAX_ATTEMPTS = 10

# The cluster events a what-if batch produces and the queueing hint values are
# kschedctl.framework.events' (ASSIGNED_POD_ADD, ASSIGNED_POD_DELETE, RESOURCE_CLAIM_DEALLOCATED).

# Where a queued pod is.
ACTIVE = "activeQ"
BACKOFF = "backoffQ"
ERROR_BACKOFF = "errorBackoffQ"
UNSCHEDULABLE = "unschedulablePods"
GATED = "gated"
IN_FLIGHT = "inFlight"
DONE = "done"


@dataclass(eq=False)
class QueuedPod(QueuedPodInfo):
    """A pod in the queue: upstream's QueuedPodInfo plus what the batch needs to report it.

    ``timestamp`` is when the pod last entered the queue (reset on every failure, as upstream),
    ``initial_timestamp`` when it first did; ``attempts`` counts scheduling cycles.
    """

    profile: str = ""
    initial_timestamp: float = 0.0
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    gating_status: Status | None = None
    backoff_expiration: float | None = None
    where: str = ""
    seq: int = 0

    @property
    def key(self) -> str:
        return self.pod_info.key

    @property
    def gated(self) -> bool:
        return self.gating_status is not None


class _Sortable:
    """Wraps a QueuedPod so ``heapq`` orders it with a ``less`` function."""

    __slots__ = ("qp", "less")

    def __init__(self, qp: QueuedPod, less: Callable[[Any, Any], bool]) -> None:
        self.qp = qp
        self.less = less

    def __lt__(self, other: "_Sortable") -> bool:
        a, b = self.qp, other.qp
        if self.less(a, b):
            return True
        if self.less(b, a):
            return False
        return a.seq < b.seq  # Go's heap is not stable; a fixed tie keeps runs reproducible


class _BackoffSortable(_Sortable):
    __slots__ = ()

    def __lt__(self, other: "_Sortable") -> bool:
        ea, eb = self.qp.backoff_expiration or 0.0, other.qp.backoff_expiration or 0.0
        if ea != eb:
            return ea < eb
        return _Sortable.__lt__(self, other)


class _ErrorBackoffSortable(_Sortable):
    __slots__ = ()

    def __lt__(self, other: "_Sortable") -> bool:
        ea, eb = self.qp.backoff_expiration or 0.0, other.qp.backoff_expiration or 0.0
        if ea != eb:
            return ea < eb
        return self.qp.seq < other.qp.seq


# ---------------------------------------------------------------------------------------------
# Queueing hints: which events may make a pod rejected by a plugin schedulable again
# ---------------------------------------------------------------------------------------------

def queueing_hint(plugin: str, event: str, pod_info: Any, other: Any, cluster: Any = None) -> str:
    """Upstream's QueueingHintFn of ``plugin`` for ``event`` about ``other`` (the pod placed or
    removed), as seen by ``pod_info`` (the unschedulable pod). Queue or QueueSkip.

    Plugins register for the events their facts list (``PluginFacts.events``: v1.34's
    EventsToRegister restricted to the events a batch has); a plugin that declares none (a custom
    one) is asked about every event, as upstream treats a plugin without EnqueueExtensions.
    """
    facts = facts_of(plugin)
    events = facts.events if facts is not None else None
    if events is None:
        return QUEUE
    fn = events.get(event)
    if fn is None:
        return QUEUE_SKIP
    return fn(pod_info, other, cluster)


# ---------------------------------------------------------------------------------------------
# The queue
# ---------------------------------------------------------------------------------------------


class SchedulingQueue:
    """activeQ, backoffQ (and its error twin) and the unschedulable pods of one batch.

    ``less`` is the QueueSort plugin's ``Less`` on ``QueuedPodInfo``; ``pre_enqueue(qp)`` runs
    the PreEnqueue plugins of the pod's profile (None = admitted, a Status = gated).
    """

    def __init__(
        self,
        less: Callable[[Any, Any], bool],
        pre_enqueue: Callable[[QueuedPod], Status | None] | None = None,
        initial_backoff: float = DEFAULT_POD_INITIAL_BACKOFF,
        max_backoff: float = DEFAULT_POD_MAX_BACKOFF,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        cluster: Any = None,
        hint: Callable[..., str] = queueing_hint,
        origin: float = 0.0,
    ) -> None:
        self.less = less
        self.pre_enqueue = pre_enqueue
        self.initial_backoff = float(initial_backoff)
        self.max_backoff = float(max_backoff)
        self.max_attempts = max_attempts
        self.cluster = cluster
        self.hint = hint
        self.now = 0.0
        #: Seconds since the epoch at virtual time 0: what plugins see as "now" and as a pod's
        #: initial attempt time (``QueuedPodInfo.initial_attempt_timestamp``).
        self.origin = origin
        self._seq = itertools.count()
        self._active: list[_Sortable] = []
        self._backoff: list[_Sortable] = []
        self._error_backoff: list[_Sortable] = []
        #: key -> pod, for pods that wait for an event (gated ones included).
        self.unschedulable: dict[str, QueuedPod] = {}
        self.pods: dict[str, QueuedPod] = {}

    # -- clock ---------------------------------------------------------------------------------
    def _tick(self) -> float:
        self.now += TICK
        return self.now

    def wall_time(self) -> float:
        """The virtual clock in seconds since the epoch."""
        return self.origin + self.now

    def advance_to(self, when: float) -> None:
        """Let virtual time pass until ``when`` (seconds since the epoch): nothing is left to pop
        and the next thing to happen is a timer (a pod waiting at Permit times out)."""
        self.now = max(self.now, when - self.origin)

    # -- adding --------------------------------------------------------------------------------
    def add(self, pod_info: Any, profile: str = "") -> QueuedPod:
        """A new pending pod (upstream Add): PreEnqueue, then activeQ or the gated pods."""
        now = self._tick()
        qp = QueuedPod(pod_info, now, 0, initial_attempt_timestamp=self.origin + now, profile=profile,
                       initial_timestamp=now, seq=next(self._seq))
        self.pods[pod_info.key] = qp
        status = self.pre_enqueue(qp) if self.pre_enqueue is not None else None
        if status is not None and status.code != Code.Success:
            qp.gating_status = status
            if status.plugin:
                qp.unschedulable_plugins = {status.plugin}
            qp.where = GATED
            self.unschedulable[pod_info.key] = qp
            return qp
        self._push_active(qp)
        return qp

    def add_all(self, items: Iterable[tuple[Any, str]]) -> list[QueuedPod]:
        return [self.add(pod_info, profile) for pod_info, profile in items]

    def _push_active(self, qp: QueuedPod) -> None:
        qp.where = ACTIVE
        heapq.heappush(self._active, _Sortable(qp, self.less))

    # -- popping -------------------------------------------------------------------------------
    def pop(self) -> QueuedPod | None:
        """The next pod to schedule: activeQ first, then (activeQ empty) the backoff queues.

        Increments ``attempts`` and clears the cached backoff expiry, as upstream's Pop does.
        """
        self._tick()
        heap = self._active or self._backoff or self._error_backoff
        if not heap:
            return None
        qp = heapq.heappop(heap).qp
        qp.attempts += 1
        qp.backoff_expiration = None
        qp.where = IN_FLIGHT
        return qp

    def __len__(self) -> int:
        return len(self._active) + len(self._backoff) + len(self._error_backoff)

    def pending(self) -> int:
        """Pods that will still be tried (in activeQ or a backoff queue)."""
        return len(self)

    # -- after a cycle -------------------------------------------------------------------------
    def done(self, qp: QueuedPod) -> None:
        """The pod was scheduled (or will not be tried again): it leaves the queue."""
        qp.where = DONE
        self.unschedulable.pop(qp.key, None)

    def add_unschedulable(self, qp: QueuedPod, unschedulable_plugins: Iterable[str] = (),
                          pending_plugins: Iterable[str] = ()) -> None:
        """Upstream AddUnschedulableIfNotPresent: a pod whose cycle failed waits for an event;
        one that failed without a rejecting plugin (an error) goes to the error backoff queue."""
        qp.timestamp = self._tick()
        qp.unschedulable_plugins = set(unschedulable_plugins)
        qp.pending_plugins = set(pending_plugins)
        if not qp.unschedulable_plugins and not qp.pending_plugins:
            self._push_backoff(qp)
            return
        qp.where = UNSCHEDULABLE
        self.unschedulable[qp.key] = qp

    def _backoff_expiration(self, qp: QueuedPod) -> float:
        if qp.backoff_expiration is None:
            duration = 0.0
            if qp.attempts > 0:
                duration = self.initial_backoff
                for _ in range(1, qp.attempts):
                    if duration > self.max_backoff - duration:
                        duration = self.max_backoff
                        break
                    duration += duration
            # aligned to the ordering window (SchedulerPopFromBackoffQ)
            expiry = qp.timestamp + duration
            qp.backoff_expiration = expiry - (expiry % BACKOFF_ORDERING_WINDOW)
        return qp.backoff_expiration

    def _push_backoff(self, qp: QueuedPod) -> None:
        self._backoff_expiration(qp)
        if not qp.unschedulable_plugins and not qp.pending_plugins:
            qp.where = ERROR_BACKOFF
            heapq.heappush(self._error_backoff, _ErrorBackoffSortable(qp, self.less))
        else:
            qp.where = BACKOFF
            heapq.heappush(self._backoff, _BackoffSortable(qp, self.less))

    def _is_backing_off(self, qp: QueuedPod) -> bool:
        expiry = self._backoff_expiration(qp)
        window_now = self.now - (self.now % BACKOFF_ORDERING_WINDOW)
        return not expiry < window_now

    # -- events --------------------------------------------------------------------------------
    def on_event(self, event: str, other: Any, exclude: QueuedPod | None = None,
                 pre_check: Callable[[QueuedPod], bool] | None = None) -> list[QueuedPod]:
        """A pod was placed (``AssignedPodAdd``) or removed (``AssignedPodDelete``): move the
        unschedulable pods one of whose rejectors' hints says Queue (upstream
        MoveAllToActiveOrBackoffQueue). Gated pods, pods out of attempts, ``exclude`` and pods
        ``pre_check`` refuses (upstream's PreEnqueueCheck) stay. Returns the moved pods."""
        if not self.unschedulable:
            return []
        moved: list[QueuedPod] = []
        for key, qp in list(self.unschedulable.items()):
            if qp.gated or qp.attempts >= self.max_attempts or qp is exclude:
                continue
            if pre_check is not None and not pre_check(qp):
                continue
            if not self._worth_requeuing(qp, event, other):
                continue
            del self.unschedulable[key]
            self._tick()
            if self._is_backing_off(qp):
                self._push_backoff(qp)
            else:
                self._push_active(qp)
            moved.append(qp)
        return moved

    def activate(self, keys: Iterable[str]) -> list[QueuedPod]:
        """Move these pods (``namespace/name``) from the unschedulable pods or a backoff queue to
        activeQ (upstream Activate, asked for by a plugin through PodsToActivate). Pods in
        activeQ, in flight, gated, done or out of attempts stay where they are."""
        moved: list[QueuedPod] = []
        for key in keys:
            qp = self.pods.get(key)
            if qp is None or qp.gated or qp.attempts >= self.max_attempts:
                continue
            if qp.where == UNSCHEDULABLE:
                del self.unschedulable[key]
            elif qp.where in (BACKOFF, ERROR_BACKOFF):
                heap = self._backoff if qp.where == BACKOFF else self._error_backoff
                heap[:] = [s for s in heap if s.qp is not qp]
                heapq.heapify(heap)
            else:
                continue
            self._tick()
            self._push_active(qp)
            moved.append(qp)
        return moved

    def _worth_requeuing(self, qp: QueuedPod, event: str, other: Any) -> bool:
        rejectors = qp.unschedulable_plugins | qp.pending_plugins
        if not rejectors:
            return True
        pod_info = qp.pod_info
        for plugin in rejectors:
            try:
                if self.hint(plugin, event, pod_info, other, self.cluster) == QUEUE:
                    return True
            except Exception:  # upstream: a failing hint counts as Queue
                return True
        return False

    # -- introspection -------------------------------------------------------------------------
    def active_keys(self) -> list[str]:
        """activeQ in pop order (for tests and reports)."""
        return [s.qp.key for s in sorted(self._active)]

    def sizes(self) -> tuple[int, int, int]:
        """Pods in activeQ, in the backoff queues, and waiting for an event (gated ones included)."""
        return len(self._active), len(self._backoff) + len(self._error_backoff), len(self.unschedulable)

    def backoff_keys(self) -> list[str]:
        return [s.qp.key for s in sorted(self._backoff)] + [s.qp.key for s in sorted(self._error_backoff)]


__all__ = [
    "ASSIGNED_POD_ADD",
    "ASSIGNED_POD_DELETE",
    "DEFAULT_MAX_ATTEMPTS",
    "QUEUE",
    "QUEUE_SKIP",
    "RESOURCE_CLAIM_DEALLOCATED",
    "QueuedPod",
    "SchedulingQueue",
    "queueing_hint",
]
