"""TaintToleration: a node's NoSchedule/NoExecute taints keep off pods that do not tolerate them;
untolerated PreferNoSchedule taints lower a node's score.

Upstream: pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go (release-1.34).
Filter: the first NoSchedule or NoExecute taint (in node order) no toleration of the pod tolerates
makes the node UnschedulableAndUnresolvable. Score: the number of PreferNoSchedule taints not
tolerated by the pod's tolerations whose effect is PreferNoSchedule or empty; NormalizeScore
reverses it (``DefaultNormalizeScore(100, reverse=True)``), so fewer such taints score higher.

Reason text: release-1.34 says "node(s) had untolerated taint(s)" since upstream PR #135023
(cherry pick of #134740, in v1.34.2+); v1.34.0 and v1.34.1 said
"node(s) had untolerated taint {<key>: <value>}". kschedctl follows the branch. The taint itself
is reported in ``Status.details["taint"]`` as ``key=value:Effect``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kschedctl.framework.interfaces import MAX_NODE_SCORE, NodeScore, Plugin
from kschedctl.framework.status import Code, Status
from kschedctl.framework.twins import ColumnTwin
from kschedctl.k8s.tolerations import find_matching_untolerated_taint, taint_to_string, tolerates
from kschedctl.plugins import names
from kschedctl.plugins.facts import PluginFacts
from kschedctl.plugins.helper import default_normalize_score, default_normalize_values, do_not_schedule_taints_filter
from kschedctl.plugins.remedy import RemedyEngine, RemedyScenario, Step

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = names.TAINT_TOLERATION

#: Filter reason for an untolerated NoSchedule/NoExecute taint (release-1.34, v1.34.2+).
ERR_REASON_UNTOLERATED = "node(s) had untolerated taint(s)"

#: CycleState key of the PreScore state (upstream "PreScore" + Name).
PRE_SCORE_STATE_KEY = "PreScore" + NAME


class TaintToleration(Plugin):
    """Filter on NoSchedule/NoExecute taints, Score on PreferNoSchedule taints (reverse-normalized)."""

    name = NAME

    def filter(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> Status | None:
        taints = node_info.taints
        if not taints:
            return None
        taint = find_matching_untolerated_taint(taints, pod_info.tolerations, do_not_schedule_taints_filter)
        if taint is None:
            return None
        return Status(
            Code.UnschedulableAndUnresolvable, ERR_REASON_UNTOLERATED, details={"taint": taint_to_string(taint)}
        )

    def pre_score(self, state: "CycleState", pod_info: "PodInfo", nodes: list["NodeInfo"]) -> Status | None:
        state.write(PRE_SCORE_STATE_KEY, _prefer_no_schedule_tolerations(pod_info.tolerations))
        return None

    def score(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status | None]:
        try:
            tolerations = state.read(PRE_SCORE_STATE_KEY)
        except KeyError as err:
            # PreScore did not run (disabled in the profile): upstream's Error status, word for word.
            return 0, Status(Code.Error, f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found', error=err)
        return count_intolerable_taints_prefer_no_schedule(node_info.taints, tolerations), None

    def normalize_score(self, state: "CycleState", pod_info: "PodInfo", scores: list[NodeScore]) -> Status | None:
        return default_normalize_score(MAX_NODE_SCORE, True, scores)

    def normalize_values(self, state: "CycleState", pod_info: "PodInfo", names: list[str],
                         values: list[int]) -> tuple[list[int] | None, Status | None]:
        """NormalizeScore on plain lists (kschedctl's batch form, used by simulate's runtime)."""
        return default_normalize_values(MAX_NODE_SCORE, True, values), None


def count_intolerable_taints_prefer_no_schedule(taints: list[dict], tolerations: list[dict]) -> int:
    """How many PreferNoSchedule taints of ``taints`` no toleration of ``tolerations`` tolerates."""
    count = 0
    for taint in taints or ():
        if taint.get("effect") != "PreferNoSchedule":
            continue
        for toleration in tolerations:
            if tolerates(toleration, taint):
                break
        else:
            count += 1
    return count


def _prefer_no_schedule_tolerations(tolerations: list[dict]) -> tuple[dict, ...]:
    # An empty effect tolerates every effect, PreferNoSchedule included.
    return tuple(t for t in tolerations or () if not t.get("effect") or t.get("effect") == "PreferNoSchedule")


# -- facts --------------------------------------------------------------------------------------


def remedy(engine: RemedyEngine, scen: RemedyScenario, status: Status) -> Step | None:
    """What would flip this plugin's Filter verdict on the scenario's node (kschedctl.plugins.remedy)."""
    taint = find_matching_untolerated_taint(scen.node_info.taints, scen.pod_info.tolerations,
                                            do_not_schedule_taints_filter)
    if taint is None:
        return None
    toleration = toleration_for(taint)
    text = taint_to_string(taint)
    return Step(f"needs a toleration for {text}",
                [{"kind": "addToleration", "toleration": toleration}],
                {"taints": [text]},
                alternatives=[{"text": f"remove the taint {text} from the node",
                               "changes": [{"kind": "removeNodeTaint", "node": scen.name, "taint": dict(taint)}]}],
                reasons=list(status.reasons))


def toleration_for(taint: dict) -> dict:
    """The narrowest toleration of ``taint``: key, value and effect (Exists when it has no value)."""
    tol: dict[str, Any] = {"key": taint.get("key") or ""}
    if taint.get("value"):
        tol["operator"] = "Equal"
        tol["value"] = taint["value"]
    else:
        tol["operator"] = "Exists"
    if taint.get("effect"):
        tol["effect"] = taint["effect"]
    return tol


FACTS = PluginFacts(
    name=TaintToleration.name,
    points=("filter", "preScore", "score"),
    # Only node events (or updates of the pod itself) can help; a batch has none.
    events={},
    node_local=frozenset({"filter", "score"}),
    # Filter and Score read the pod and the node object only: kept per node object
    object_local=frozenset({"filter", "score"}),
    twin=ColumnTwin("kschedctl.plugins.taint_toleration_columns", ("normalize",)),
    remedy=remedy,
    default_weight=3,
)
