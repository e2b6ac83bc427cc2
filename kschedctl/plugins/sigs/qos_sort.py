"""QOSSort: queue order by priority, then QoS class, then time in the queue.

Port of kubernetes-sigs/scheduler-plugins ``pkg/qos/queue_sort.go`` (v0.34.7): a higher
priority goes first; at equal priority Guaranteed before Burstable before BestEffort (the
class as ``GetPodQOS`` gives it: ``status.qosClass`` when set, else computed); then the
earlier queue timestamp.
"""

from __future__ import annotations

from kschedctl.framework.interfaces import Plugin, QueuedPodInfo
from kschedctl.k8s.resources import qos_class
from kschedctl.plugins.facts import PluginFacts

NAME = "QOSSort"

#: Precedence of QoS classes (higher first).
_QOS_ORDER = {"BestEffort": 1, "Burstable": 2, "Guaranteed": 3}


class QOSSort(Plugin):
    """Sorts the scheduling queue by priority, then QoS class (Guaranteed, Burstable, BestEffort), then queue time."""

    name = NAME

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        p1, p2 = a.pod_info.priority, b.pod_info.priority
        if p1 != p2:
            return p1 > p2
        q1 = _QOS_ORDER.get(qos_class(a.pod_info.pod), 0)
        q2 = _QOS_ORDER.get(qos_class(b.pod_info.pod), 0)
        if q1 != q2:
            return q1 > q2
        return a.timestamp < b.timestamp


# -- facts --------------------------------------------------------------------------------------

FACTS = PluginFacts(
    name=QOSSort.name,
    points=("queueSort",),
    # A QueueSort plugin rejects no pod: it has no event to register.
)
