"""PodTopologySpread: spread matching pods evenly across topology domains.

Upstream: pkg/scheduler/framework/plugins/podtopologyspread/ (plugin.go, common.go,
filtering.go, scoring.go) on release-1.34, feature gates at v1.34 defaults
(NodeInclusionPolicyInPodTopologySpread GA, MinDomainsInPodTopologySpread GA,
MatchLabelKeysInPodTopologySpread beta/on). The parts live in ``pod_topology_spread.common``,
``pod_topology_spread.filtering`` and ``pod_topology_spread.scoring``.

- Constraints come from the pod's ``topologySpreadConstraints``; a pod without any gets the
  plugin's default constraints (``defaultingType: System``: hostname maxSkew 3 and zone maxSkew 5,
  both ScheduleAnyway; ``List``: ``defaultConstraints``), with the selector deduced from the
  Services / ReplicationControllers / ReplicaSets / StatefulSets selecting the pod, and only when
  that selector is not empty.
- PreFilter (DoNotSchedule constraints): Skip without any; otherwise the per-domain counts for
  Filter. AddPod/RemovePod keep the counts right for nominated pods and preemption.
- Filter: "node(s) didn't match pod topology spread constraints (missing required label)"
  (UnschedulableAndUnresolvable) when the node lacks a topology key, "node(s) didn't match pod
  topology spread constraints" (Unschedulable) when the skew would exceed maxSkew. The constraint,
  domain, counts and skew are in ``Status.details``.
- PreScore (ScheduleAnyway constraints): Skip without any (or without nodes); Score and
  NormalizeScore as described in ``pod_topology_spread.scoring``.

Known differences: where upstream walks a Go map (random order) to pick the two critical paths,
kschedctl walks the domains in node order (only which of several equally-filled domains is tracked
can differ). Weights use the platform's ``log``, which may differ from Go's ``math.Log`` in the last
bit; a score can then differ only when it lands exactly on .5 after rounding.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kschedctl.fastpaths import settings as fast_path_settings
from kschedctl.framework.events import ASSIGNED_POD_ADD, ASSIGNED_POD_DELETE, QUEUE, QUEUE_SKIP
from kschedctl.framework.interfaces import NodeScore, Plugin
from kschedctl.framework.status import Code, PreFilterResult, Status
from kschedctl.framework.twins import ColumnTwin
from kschedctl.k8s.field import FieldError, child, duplicate, forbidden, index, invalid, not_supported, required
from kschedctl.k8s.validation import validate_label_name
from kschedctl.plugins import names
from kschedctl.plugins.facts import ArgsFacts, PluginFacts
from kschedctl.plugins.helper import controller_ref, int_field
from kschedctl.plugins.pod_topology_spread.common import (
    DO_NOT_SCHEDULE,
    SCHEDULE_ANYWAY,
    SYSTEM_DEFAULT_CONSTRAINTS,
    Constraint,
    build_default_constraints,
    filter_constraints,
)
from kschedctl.plugins.pod_topology_spread.filtering import (
    PreFilterCache,
    PreFilterState,
    calculate_pre_filter_state,
)
from kschedctl.plugins.pod_topology_spread.scoring import (
    PreScoreState,
    count_all_nodes,
    init_pre_score_state,
    normalize_scores,
)
from kschedctl.plugins.pod_topology_spread.scoring import normalize_values as normalize_values_batch
from kschedctl.plugins.pod_topology_spread.scoring import score_nodes as score_nodes_batch
from kschedctl.plugins.remedy import RemedyEngine, RemedyScenario, Step, counts_text, impossible

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = names.POD_TOPOLOGY_SPREAD

#: Filter reason when the skew would exceed maxSkew.
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
#: Filter reason when the node lacks a constraint's topology key.
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

#: CycleState keys (upstream "PreFilter" + Name and "PreScore" + Name).
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME

#: Pod shapes whose default constraints a plugin keeps (then it starts over).
_KEPT_DEFAULTS = 4096

SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"


class PodTopologySpread(Plugin):
    """PreFilter, Filter (with AddPod/RemovePod), PreScore, Score and NormalizeScore on spreading."""

    name = NAME

    def __init__(self, args: dict | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        args = args or {}
        # v1 defaulting: defaultingType System unless set.
        defaulting_type = args.get("defaultingType") or SYSTEM_DEFAULTING
        self.system_defaulted = defaulting_type == SYSTEM_DEFAULTING
        if self.system_defaulted:
            self.default_constraints: tuple[dict, ...] = SYSTEM_DEFAULT_CONSTRAINTS
        else:
            self.default_constraints = tuple(args.get("defaultConstraints") or ())
        # Counts from earlier cycles, so PreFilter recounts only the nodes that changed since.
        self._pre_filter_cache = PreFilterCache() if fast_path_settings().spread_cache else None
        # The default constraints built per pod shape, for one cluster (see _default_constraints).
        self._defaults_for: tuple[Any, dict] = (None, {})

    # --- constraints ----------------------------------------------------------------------------

    def _cluster(self) -> Any:
        handle = self.handle
        return handle.cluster() if handle is not None else None

    def get_constraints(self, pod_info: "PodInfo", action: str) -> list[Constraint]:
        """The pod's constraints of ``action``, or the default ones when the pod has none.

        Raises ValueError with upstream's wording when a selector does not parse.
        """
        spec = pod_info.pod.get("spec") or {}
        own = spec.get("topologySpreadConstraints")
        hard = action == DO_NOT_SCHEDULE
        if own:
            try:
                return filter_constraints(own, pod_info.labels, action)
            except ValueError as err:
                kind = "hard" if hard else "soft"
                raise ValueError(f"obtaining pod's {kind} topology spread constraints: {err}") from err
        if not self.default_constraints:
            return []
        try:
            return self._default_constraints(pod_info, action)
        except ValueError as err:
            kind = "hard" if hard else "soft"
            raise ValueError(f"setting default {kind} topology spread constraints: {err}") from err

    def _default_constraints(self, pod_info: "PodInfo", action: str) -> list[Constraint]:
        """``build_default_constraints`` for the pod, built once per pod shape (namespace, labels,
        controller) and cluster: the Services and controllers a default selector reads are the
        cluster's, which a run never changes in place (a changed cluster is a new ClusterState).
        A new list each time; the Constraints in it are shared and never changed once built."""
        cluster = self._cluster()
        kept_for, kept = self._defaults_for
        if kept_for is not cluster:
            kept = {}
            self._defaults_for = (cluster, kept)
        meta = pod_info.pod.get("metadata") or {}
        owner = controller_ref(pod_info.pod)
        # what build_default_constraints reads of the pod: its namespace, labels and controller
        shape = (action, meta.get("namespace"), frozenset((meta.get("labels") or {}).items()),
                 None if owner is None else (owner.get("apiVersion"), owner.get("kind"), owner.get("name")))
        constraints = kept.get(shape)
        if constraints is None:
            if len(kept) >= _KEPT_DEFAULTS:
                kept.clear()
            constraints = kept[shape] = build_default_constraints(self.default_constraints, pod_info, cluster, action)
        return list(constraints)

    # --- PreFilter / Filter -------------------------------------------------------------------

    def pre_filter(
        self, state: "CycleState", pod_info: "PodInfo", nodes: list["NodeInfo"]
    ) -> tuple[PreFilterResult | None, Status | None]:
        try:
            constraints = self.get_constraints(pod_info, DO_NOT_SCHEDULE)
        except ValueError as err:
            return None, _error(f"get constraints from pod: {err}", err)
        if not constraints:
            return None, Status(Code.Skip)
        s = calculate_pre_filter_state(constraints, pod_info, nodes, self._pre_filter_cache)
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def add_pod(
        self, state: "CycleState", pod_info: "PodInfo", pod_info_to_add: "PodInfo", node_info: "NodeInfo"
    ) -> Status | None:
        s, status = _read_pre_filter_state(state)
        if status is not None:
            return status
        s.update_with_pod(pod_info_to_add, pod_info, node_info, 1)
        return None

    def remove_pod(
        self, state: "CycleState", pod_info: "PodInfo", pod_info_to_remove: "PodInfo", node_info: "NodeInfo"
    ) -> Status | None:
        s, status = _read_pre_filter_state(state)
        if status is not None:
            return status
        s.update_with_pod(pod_info_to_remove, pod_info, node_info, -1)
        return None

    def filter(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> Status | None:
        s, status = _read_pre_filter_state(state)
        if status is not None:
            return status
        constraints = s.constraints
        if not constraints:
            return None  # an empty state tolerates every pod
        labels = node_info.labels
        for i, c in enumerate(constraints):
            key = c.topology_key
            value = labels.get(key)
            if value is None:
                return Status(
                    Code.UnschedulableAndUnresolvable,
                    ERR_REASON_NODE_LABEL_NOT_MATCH,
                    details={"topologyKey": key},
                )
            min_match = s.min_match_num(i)
            self_match = s.self_match[i]
            match_num = s.tp_value_to_match_num[i].get(value, 0)
            skew = match_num + self_match - min_match
            if skew > c.max_skew:
                return Status(
                    Code.Unschedulable,
                    ERR_REASON_CONSTRAINTS_NOT_MATCH,
                    details={
                        "topologyKey": key,
                        "topologyValue": value,
                        "matchNum": match_num,
                        "selfMatchNum": self_match,
                        "minMatchNum": min_match,
                        "skew": skew,
                        "maxSkew": c.max_skew,
                        "domains": len(s.tp_value_to_match_num[i]),
                        "minDomains": c.min_domains,
                    },
                )
        return None

    # --- PreScore / Score -----------------------------------------------------------------------

    def pre_score(self, state: "CycleState", pod_info: "PodInfo", nodes: list["NodeInfo"]) -> Status | None:
        all_nodes = self._all_nodes(nodes)
        if not all_nodes:
            return Status(Code.Skip)
        s = PreScoreState()
        # Nodes must hold every topology key unless the constraints are the system defaults, so
        # that nodes without a zone label still get hostname spreading.
        own = bool((pod_info.pod.get("spec") or {}).get("topologySpreadConstraints"))
        require_all = own or not self.system_defaulted
        try:
            s.constraints = self.get_constraints(pod_info, SCHEDULE_ANYWAY)
        except ValueError as err:
            return _error(f"calculating preScoreState: {err}", err)
        if not s.constraints:
            return Status(Code.Skip)
        init_pre_score_state(s, nodes, require_all)
        count_all_nodes(s, pod_info, all_nodes, require_all)
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    def score(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status | None]:
        s, status = _read_pre_score_state(state)
        if status is not None:
            return 0, status
        return score_nodes_batch(s, pod_info, [node_info])[0], None

    def score_nodes(self, state: "CycleState", pod_info: "PodInfo",
                    nodes: list["NodeInfo"]) -> tuple[list[int] | None, Status | None]:
        """Score for many nodes at once (kschedctl's batch form, used by simulate's runtime)."""
        s, status = _read_pre_score_state(state)
        if status is not None:
            return None, status
        return score_nodes_batch(s, pod_info, nodes), None

    def normalize_values(self, state: "CycleState", pod_info: "PodInfo", names: list[str],
                         values: list[int]) -> tuple[list[int] | None, Status | None]:
        """NormalizeScore on plain lists (kschedctl's batch form, used by simulate's runtime)."""
        s, status = _read_pre_score_state(state)
        if status is not None:
            return None, status
        return normalize_values_batch(s, names, values), None

    def normalize_score(self, state: "CycleState", pod_info: "PodInfo", scores: list[NodeScore]) -> Status | None:
        s, status = _read_pre_score_state(state)
        if status is not None:
            return status
        normalize_scores(s, scores)
        return None

    def _all_nodes(self, filtered: list["NodeInfo"]) -> list["NodeInfo"]:
        handle = self.handle
        snapshot = handle.snapshot() if handle is not None else None
        if snapshot is None:
            return filtered
        return snapshot.node_infos()


def _error(message: str, err: BaseException) -> Status:
    return Status(Code.Error, message, error=err)


def _read_pre_filter_state(state: "CycleState") -> tuple[PreFilterState, Status | None]:
    try:
        return state.read(PRE_FILTER_STATE_KEY), None
    except KeyError as err:
        # PreFilter did not run: upstream's Error status, word for word.
        message = f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found'
        return None, _error(message, err)  # type: ignore[return-value]


def _read_pre_score_state(state: "CycleState") -> tuple[PreScoreState, Status | None]:
    try:
        return state.read(PRE_SCORE_STATE_KEY), None
    except KeyError as err:
        message = f'error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found'
        return None, _error(message, err)  # type: ignore[return-value]


# -- facts --------------------------------------------------------------------------------------


def _schedulable_after_pod_change(pod_info: Any, other: Any, cluster: Any) -> str:
    # isSchedulableAfterPodChange: a pod in the same namespace matching one of the pod's hard
    # (DoNotSchedule) constraints, as getConstraints builds them (matchLabelKeys merged into the
    # selector), changes the counts; a ScheduleAnyway constraint never rejected the pod.
    # Default (system) constraints are derived from the owners' selectors, which are not
    # recomputed here: such pods are queued.
    # involvedInTopologySpreading: the pod itself, or a placed pod of its namespace.
    if other.uid != pod_info.uid and (not other.node_name or other.namespace != pod_info.namespace):
        return QUEUE_SKIP
    own = ((pod_info.pod.get("spec") or {}).get("topologySpreadConstraints")) or ()
    if not own:
        return QUEUE
    try:
        constraints = filter_constraints(own, pod_info.labels, DO_NOT_SCHEDULE)
    except ValueError:
        return QUEUE  # upstream: getConstraints' error makes the hint Queue
    if any(c.selector.matches(other.labels) for c in constraints):
        return QUEUE
    return QUEUE_SKIP


def remedy(engine: RemedyEngine, scen: RemedyScenario, status: Status) -> Step | None:
    """What would flip this plugin's Filter verdict on the scenario's node (kschedctl.plugins.remedy)."""
    from kschedctl.plugins.pod_topology_spread.common import count_pods_match_selector

    d = status.details or {}
    key = d.get("topologyKey")
    try:
        s = scen.state.read(PRE_FILTER_STATE_KEY)
    except KeyError:
        return None
    index = next((i for i, c in enumerate(s.constraints) if c.topology_key == key), None)
    if index is None:
        return None
    c = s.constraints[index]
    counts = dict(s.tp_value_to_match_num[index])
    if "skew" not in d:
        # The node lacks the topology key: give it the least filled domain's value.
        if not counts:
            return impossible(f"no node has the topology key {key}", status)
        value = min(sorted(counts), key=lambda v: counts[v])
        return Step(f"needs label {key} (e.g. {key}={value}, the least filled domain)",
                    [{"kind": "setNodeLabel", "node": scen.name, "key": key, "value": value}],
                    {"constraint": c.to_dict(), "domainCounts": counts}, reasons=list(status.reasons))
    value = d["topologyValue"]
    excess = d["skew"] - d["maxSkew"]
    cache_key = ("pts", index, value)
    candidates = engine.memo.get(cache_key)
    if candidates is None:
        # Matching pods of the domain, as PreFilter counted them (namespace, not terminating,
        # node inclusion), lowest priority first; once per domain, not once per node.
        candidates = []
        for ni in engine.domain_nodes(key, value):
            if s.inclusion is not None and not s.inclusion.matches(c, ni):
                continue
            for p in ni.pods:
                if count_pods_match_selector((p,), c, engine.pod_info.namespace):
                    candidates.append(p)
        candidates.sort(key=lambda p: (p.priority, p.key))
        engine.memo[cache_key] = candidates
    chosen: list[PodInfo] = []
    for p in candidates:
        if len(chosen) >= excess:
            break
        if p.key not in scen.removed:
            chosen.append(p)
    details = {"constraint": c.to_dict(), "topologyValue": value, "skew": d["skew"], "maxSkew": d["maxSkew"],
               "minMatchNum": d.get("minMatchNum"), "domainCounts": counts,
               "domains": d.get("domains"), "minDomains": d.get("minDomains")}
    text = (f"needs {excess} fewer matching pod{'s' if excess != 1 else ''} in {key}={value} "
            f"(skew {d['skew']} > maxSkew {d['maxSkew']}; {counts_text(counts)})")
    alternatives = [{"text": f"raise maxSkew of the {key} constraint to {d['skew']}",
                     "changes": [{"kind": "setMaxSkew", "topologyKey": key, "maxSkew": d["skew"]}]}]
    if len(chosen) < excess:
        return Step(text, [], details, shortfall=excess / max(d.get("matchNum") or 1, 1),
                    alternatives=alternatives, reasons=list(status.reasons))
    return Step(text, [{"kind": "removePods", "pods": [p.key for p in chosen]}], details,
                shortfall=excess / max(d.get("matchNum") or 1, 1), alternatives=alternatives,
                reasons=list(status.reasons))


def default_config_args(a: dict[str, Any]) -> None:
    """``SetDefaults_PodTopologySpreadArgs`` on a v1 args dict, in place."""
    if not a.get("defaultingType"):
        a["defaultingType"] = "System"


def validate_config_args(path: str, a: dict[str, Any]) -> list[FieldError]:
    """``ValidatePodTopologySpreadArgs``: upstream's field errors under ``path``."""
    errs: list[FieldError] = []
    constraints = a.get("defaultConstraints") or []
    dtype = a.get("defaultingType") or ""
    dpath = child(path, "defaultingType")
    if dtype not in ("System", "List"):
        errs.append(not_supported(dpath, dtype, ["System", "List"]))
    elif dtype == "System" and constraints:
        errs.append(invalid(dpath, dtype, "when .defaultConstraints are not empty"))
    cpath = child(path, "defaultConstraints")
    for i, c in enumerate(constraints):
        p = index(cpath, i)
        skew = int_field(c, "maxSkew")
        if skew <= 0:
            errs.append(invalid(child(p, "maxSkew"), skew, "not in valid range (0, inf)"))
        key = c.get("topologyKey") or ""
        if not key:
            errs.append(required(child(p, "topologyKey"), "can not be empty"))
        else:
            errs.extend(validate_label_name(key, child(p, "topologyKey")))
        when = c.get("whenUnsatisfiable") or ""
        if not when:
            errs.append(required(child(p, "whenUnsatisfiable"), "can not be empty"))
        elif when not in ("DoNotSchedule", "ScheduleAnyway"):
            errs.append(not_supported(child(p, "whenUnsatisfiable"), when, ["DoNotSchedule", "ScheduleAnyway"]))
        if c.get("labelSelector") is not None:
            errs.append(forbidden(child(p, "labelSelector"),
                                  "constraint must not define a selector, as they deduced for each pod"))
        for other in constraints[:i]:
            if (other.get("topologyKey") or "") == key and (other.get("whenUnsatisfiable") or "") == when:
                errs.append(duplicate(p, f"{{{key}, {when}}}"))
                break
    return errs


FACTS = PluginFacts(
    name=PodTopologySpread.name,
    points=("preFilter", "filter", "preScore", "score"),
    events={ASSIGNED_POD_ADD: _schedulable_after_pod_change, ASSIGNED_POD_DELETE: _schedulable_after_pod_change},
    args=ArgsFacts("PodTopologySpreadArgs", default_config_args, validate_config_args),
    remedy=remedy,
    default_weight=2,
    twin=ColumnTwin("kschedctl.plugins.pod_topology_spread.columns", ("filter", "score", "normalize")),
)
