"""PodState: favour nodes with terminating pods, avoid nodes with nominated pods.

Port of kubernetes-sigs/scheduler-plugins ``pkg/podstate/pod_state.go`` (v0.34.7). Score is
``terminating pods on the node - pods nominated to it``; NormalizeScore maps the lowest raw
score to 0 and the highest to 100 linearly (Go integer division), every node 0 when all are
equal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kschedctl.framework.interfaces import NodeScore, Plugin
from kschedctl.framework.status import Status
from kschedctl.plugins.seeds.pod_capacity_of_node import min_max_normalize
from kschedctl.plugins.facts import PluginFacts

if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = "PodState"


class PodState(Plugin):
    """Scores nodes by terminating pods (more is better) minus nominated pods (more is worse)."""

    name = NAME

    def score(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status | None]:
        nominated = len(self.handle.nominated_pods_for_node(node_info.name)) if self.handle is not None else 0
        terminating = sum(1 for p in node_info.pods if p.is_terminating)
        return terminating - nominated, None

    def normalize_score(self, state: "CycleState", pod_info: "PodInfo", scores: list[NodeScore]) -> Status | None:
        min_max_normalize(scores)
        return None


# -- facts --------------------------------------------------------------------------------------

FACTS = PluginFacts(
    name=PodState.name,
    points=("score",),
    # No events: scheduler-plugins' EventsToRegister is not modelled, so the queue asks it about every
    # event (a pod it rejected is retried after any change, never fewer times than upstream would).
)
