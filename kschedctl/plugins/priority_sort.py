"""PrioritySort: the scheduling queue's order, higher priority first, then first come first served.

Upstream: pkg/scheduler/framework/plugins/queuesort/priority_sort.go (release-1.34).
Differences from upstream: none known. ``QueuedPodInfo.timestamp`` is a float (seconds)
where upstream has a ``time.Time``.
"""

from __future__ import annotations

from kschedctl.framework.interfaces import Plugin, QueuedPodInfo
from kschedctl.plugins import names
from kschedctl.plugins.facts import PluginFacts

NAME = names.PRIORITY_SORT


class PrioritySort(Plugin):
    """QueueSort: ``less(a, b)`` is True when ``a`` leaves the queue before ``b``."""

    name = NAME

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        p1, p2 = a.pod_info.priority, b.pod_info.priority
        return p1 > p2 or (p1 == p2 and a.timestamp < b.timestamp)


# -- facts --------------------------------------------------------------------------------------


FACTS = PluginFacts(
    name=PrioritySort.name,
    points=("queueSort",),
    # Only node events (or updates of the pod itself) can help; a batch has none.
    events={},
)
