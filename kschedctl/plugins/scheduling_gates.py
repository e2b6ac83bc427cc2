"""SchedulingGates: a pod with ``spec.schedulingGates`` stays out of the scheduling queue.

Upstream: pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go (release-1.34).
Differences from upstream: none known (queueing hints do not apply to a what-if run).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kschedctl.framework.interfaces import Plugin
from kschedctl.framework.status import Code, Status
from kschedctl.plugins import names
from kschedctl.plugins.facts import PluginFacts

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.types import PodInfo

NAME = names.SCHEDULING_GATES

#: PreEnqueue reason; the gate names follow as Go prints a string slice: ``[foo bar]``.
ERR_REASON_PREFIX = "waiting for scheduling gates: "


class SchedulingGates(Plugin):
    """PreEnqueue: UnschedulableAndUnresolvable while the pod carries any scheduling gate."""

    name = NAME

    def pre_enqueue(self, pod_info: "PodInfo") -> Status | None:
        gates = (pod_info.pod.get("spec") or {}).get("schedulingGates") or ()
        if not gates:
            return None
        gate_names = [(g or {}).get("name", "") for g in gates]
        return Status(
            Code.UnschedulableAndUnresolvable,
            ERR_REASON_PREFIX + "[" + " ".join(gate_names) + "]",
            details={"schedulingGates": gate_names},
        )


# -- facts --------------------------------------------------------------------------------------


FACTS = PluginFacts(
    name=SchedulingGates.name,
    points=("preEnqueue",),
    # Only node events (or updates of the pod itself) can help; a batch has none.
    events={},
)
