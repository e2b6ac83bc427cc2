"""CrossNodePreemption: preempt pods on several nodes to resolve cross-node constraints (sample).

Port of kubernetes-sigs/scheduler-plugins ``pkg/crossnodepreemption/cross_node_preemption.go``.
Upstream ships it as a *sample* and, since v0.23, keeps its code commented out and unregistered
(v0.34.7 still does); this port follows the last working version of that code.

PostFilter: when the pod may preempt (the default eligibility rules), take every pod of lower
priority on the nodes where preemption might help (status not UnschedulableAndUnresolvable) and
try **every subset** of them (depth first, "pick" before "skip"): remove the subset from copies of
their nodes and, for each such node, run the profile's filters (nominated pods included); each
node that then fits is a candidate with that subset as victims. The best candidate is chosen
with the default tie-breaks and nominated. The search is exponential in the number of
lower-priority pods: upstream warns never to use it in production; kschedctl refuses to search
more than ``MAX_PODS`` pods (an Error status) instead of hanging.

Differences: with no candidate, the status message is a FitError over every node (upstream's
old code built a FitError without nodes: "0/0 nodes are available:"). Nothing is evicted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from kschedctl.framework.interfaces import Plugin
from kschedctl.framework.preemption import MSG_NOT_HELPFUL, Candidate, Evaluator, StartTimes
from kschedctl.framework.runtime import Diagnosis, FitError, NodeToStatus
from kschedctl.framework.status import Code, PostFilterResult, Status
from kschedctl.plugins.default_preemption import legacy_pod_eligible_to_preempt_others
from kschedctl.plugins.facts import PluginFacts

if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = "CrossNodePreemption"

#: The most lower-priority pods the brute-force search takes on (2**MAX_PODS subsets).
MAX_PODS = 16


class CrossNodePreemption(Plugin):
    """PostFilter sample: tries every set of lower-priority pods, across nodes, as victims."""

    name = NAME

    def post_filter(self, state: "CycleState", pod_info: "PodInfo",
                    filtered_node_status: Any) -> tuple[PostFilterResult | None, Status | None]:
        times = StartTimes()
        m: NodeToStatus = filtered_node_status
        eligible, _ = self._eligible(pod_info, m.get(pod_info.nominated_node_name))
        if not eligible:
            return None, Status(Code.Unschedulable)
        snapshot = self.handle.snapshot()
        all_nodes = snapshot.node_infos()
        if not all_nodes:
            return None, Status(Code.Error, "no nodes available")
        potential = [n for n in all_nodes if m.get(n.name).code != Code.UnschedulableAndUnresolvable]
        pods = [p for n in potential for p in n.pods if p.priority < pod_info.priority]
        if len(pods) > MAX_PODS:
            return None, Status(Code.Error, f"{NAME}: {len(pods)} lower-priority pods would mean 2^{len(pods)} dry "
                                            f"runs; kschedctl stops at {MAX_PODS}")
        candidates: list[Candidate] = []
        _dfs(pods, 0, [], lambda chosen: candidates.extend(self._dry_run(state, pod_info, chosen)))
        if not candidates:
            statuses = NodeToStatus({}, Status(Code.UnschedulableAndUnresolvable, MSG_NOT_HELPFUL))
            for n in potential:
                statuses.set(n.name, m.get(n.name))
            return None, Status(Code.Unschedulable, FitError(pod_info, len(all_nodes), Diagnosis(statuses)).error())
        evaluator = Evaluator(self.name, self.handle, _DefaultPolicy())
        best, _ = evaluator.select_candidate(candidates, times)
        if best is None or not best.name:
            return None, Status(Code.Unschedulable)
        return PostFilterResult(best.name, [v.key for v in best.victims]), Status(Code.Success)

    def _dry_run(self, state: "CycleState", pod_info: "PodInfo", victims: list["PodInfo"]) -> list[Candidate]:
        state_copy = state.clone()
        snapshot = self.handle.snapshot()
        copies: list["NodeInfo"] = []
        for victim in victims:
            node_copy = snapshot.get(victim.node_name).clone()
            copies.append(node_copy)
            node_copy.remove_pod(victim)
            self.handle.run_pre_filter_extension_remove_pod(state_copy, pod_info, victim, node_copy)
        out = []
        for node_copy in copies:
            s = self.handle.run_filter_plugins_with_nominated_pods(state_copy, pod_info, node_copy)
            if s is None or s.code == Code.Success:
                out.append(Candidate(node_copy.name, list(victims)))
        return out

    def _eligible(self, pod_info: "PodInfo", nominated_status: Status | None) -> tuple[bool, str]:
        """Default PodEligibleToPreemptOthers (upstream's old code called DefaultPreemption's)."""
        return legacy_pod_eligible_to_preempt_others(self.handle, pod_info, nominated_status)


class _DefaultPolicy:
    """Only the default tie-breaks are needed from the evaluator."""

    def ordered_score_funcs(self, nodes_to_victims: dict) -> None:
        return None


def _dfs(pods: list, i: int, path: list, visit: Callable[[list], None]) -> None:
    """Every subset of ``pods``: "pick" before "skip", as upstream's dfs."""
    if i >= len(pods):
        visit(path)
        return
    _dfs(pods, i + 1, path + [pods[i]], visit)
    _dfs(pods, i + 1, path, visit)


# -- facts --------------------------------------------------------------------------------------

FACTS = PluginFacts(
    name=CrossNodePreemption.name,
    points=("postFilter",),
    # No events: scheduler-plugins' EventsToRegister is not modelled, so the queue asks it about every
    # event (a pod it rejected is retried after any change, never fewer times than upstream would).
)
