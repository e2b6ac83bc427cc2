"""Cluster events and queueing hints: upstream's ``ClusterEvent`` and ``QueueingHint``
(pkg/scheduler/framework/types.go, interface.go), as far as a what-if batch has them.

A plugin registers the events that may make a pod it rejected schedulable again
(``EventsToRegister``), each with a queueing hint function ``hint(pod_info, other, cluster)``
answering :data:`QUEUE` or :data:`QUEUE_SKIP` about ``other``, the pod placed or removed.
"""

from __future__ import annotations

from typing import Any, Callable

#: A pod was placed on a node (upstream's Pod/Add of an assigned pod).
ASSIGNED_POD_ADD = "AssignedPodAdd"
#: A placed pod was removed (a victim of preemption; upstream's Pod/Delete).
ASSIGNED_POD_DELETE = "AssignedPodDelete"
#: A ResourceClaim went from allocated to deallocated (DynamicResources' PostFilter, or after
#: its pod was deleted).
RESOURCE_CLAIM_DEALLOCATED = "ResourceClaimDeallocated"

#: Upstream QueueingHint values.
QUEUE = "Queue"
QUEUE_SKIP = "QueueSkip"

#: ``hint(pod_info, other, cluster) -> QUEUE | QUEUE_SKIP``.
QueueingHintFn = Callable[[Any, Any, Any], str]


def always_queue(pod_info: Any, other: Any, cluster: Any) -> str:
    """The hint of an event registered without a hint function: always Queue."""
    return QUEUE
