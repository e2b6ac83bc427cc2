"""TopologicalSort: queue the pods of an application in the order of its dependency graph.

Port of kubernetes-sigs/scheduler-plugins v0.34.7 ``pkg/networkaware/topologicalsort/`` and its
args (``TopologicalSortArgs``: ``namespaces``, default ``[default]``, not validated upstream).

Less(a, b): when both pods carry the same non-empty AppGroup label, a goes first when its
workload's index in the AppGroup's ``status.topologyOrder`` is at most b's (a workload the order
does not list has index -1, so it goes first; equal indices answer true both ways, as upstream).
Otherwise the pods are ordered as PrioritySort orders them: higher priority first, then earlier
queue time (upstream's README mentions QoS; its code does not use it).

Difference: when the AppGroup is in none of the configured namespaces, upstream dereferences a
missing object and the scheduler panics; kschedctl takes an empty topology order (both pods -1).
"""

from __future__ import annotations

from typing import Any, ClassVar

from kschedctl.framework.interfaces import Plugin, QueuedPodInfo
from kschedctl.plugins.sigs.networkaware import (
    NAMESPACES_SCHEMA,
    app_group_name,
    check_objects,
    find_object,
    find_pod_order,
    namespaces_arg,
    workload_selector,
)
from kschedctl.plugins.facts import PluginFacts

NAME = "TopologicalSort"


class TopologicalSort(Plugin):
    """Sorts the queue so that the workloads of an AppGroup come in its topology order."""

    name = NAME
    default_args: ClassVar[dict[str, Any]] = {"namespaces": ["default"]}
    args_schema: ClassVar[dict[str, Any]] = {"type": "object", "additionalProperties": False,
                                             "properties": {"namespaces": NAMESPACES_SCHEMA}}

    def __init__(self, args: dict | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        self.namespaces = namespaces_arg(args or {})
        cluster = handle.cluster() if handle is not None else None
        self.app_groups: dict[str, Any] = getattr(cluster, "app_groups", None) or {}
        check_objects(cluster, with_topologies=False)

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        pod_a, pod_b = a.pod_info.pod, b.pod_info.pod
        group = app_group_name(pod_a)
        if not group or group != app_group_name(pod_b):
            p1, p2 = a.pod_info.priority, b.pod_info.priority
            return p1 > p2 or (p1 == p2 and a.timestamp < b.timestamp)
        app_group = find_object(self.app_groups, self.namespaces, group) or {}
        order = (app_group.get("status") or {}).get("topologyOrder") or []
        return find_pod_order(order, workload_selector(pod_a)) <= find_pod_order(order, workload_selector(pod_b))


# -- facts --------------------------------------------------------------------------------------

FACTS = PluginFacts(
    name=TopologicalSort.name,
    points=("queueSort",),
    # A QueueSort plugin rejects no pod: it has no event to register.
)
