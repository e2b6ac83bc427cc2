"""InterPodAffinity: required pod affinity / anti-affinity filter nodes (both the incoming pod's
terms and the existing pods' anti-affinity against it); preferred terms, in both directions, score.

Upstream: pkg/scheduler/framework/plugins/interpodaffinity/{plugin.go, filtering.go, scoring.go}
(release-1.34). The PreFilter/Filter half is in ``inter_pod_affinity.filtering``, the
PreScore/Score half in ``inter_pod_affinity.scoring``; this module holds the plugin.

- PreFilter: a pod whose affinity terms do not parse is UnschedulableAndUnresolvable
  "parsing pod: <error>". The incoming pod's required terms get their ``namespaceSelector``
  resolved against the cluster's Namespaces; counts per topology pair are taken (existing pods'
  anti-affinity against the pod on nodes with such pods, the pod's own affinity/anti-affinity
  over all nodes). Skip when no existing pod's anti-affinity matches and the pod has no required
  terms. AddPod/RemovePod keep the counts right for nominated pods and preemption.
  Within a run, the counts (and PreScore's scores) of a pod like an earlier one are kept up to
  date from the nodes that changed since (``inter_pod_affinity.incremental``), not walked again.
- Filter, in this order: affinity (UnschedulableAndUnresolvable "node(s) didn't match pod
  affinity rules"; a node missing a topology key always fails; the first pod of a group whose
  terms match itself passes when no pod matches anywhere), the pod's anti-affinity
  (Unschedulable "node(s) didn't match pod anti-affinity rules"), existing pods' anti-affinity
  (Unschedulable "node(s) didn't satisfy existing pods anti-affinity rules"). Without PreFilter
  state: Error 'error reading "PreFilterInterPodAffinity" from cycleState: not found'.
- PreScore/Score/NormalizeScore: see ``inter_pod_affinity.scoring``; args ``hardPodAffinityWeight``
  (default 1, 0..100) and ``ignorePreferredTermsOfExistingPods`` (default false).
- ``matchLabelKeys`` / ``mismatchLabelKeys`` are merged into the selectors when pods are admitted
  (``kschedctl.k8s.admission.merge_match_label_keys``), as the API server does; the plugin only
  sees the merged selectors, as upstream's.

Differences from upstream: none in verdicts or scores. Beyond upstream, a rejection carries
``Status.details`` (the failing term's index, the topology pair, the pods that caused it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from kschedctl.fastpaths import settings as fast_path_settings
from kschedctl.errors import InputError
from kschedctl.framework.events import ASSIGNED_POD_ADD, ASSIGNED_POD_DELETE, QUEUE, QUEUE_SKIP
from kschedctl.framework.interfaces import NodeScore, Plugin
from kschedctl.framework.status import Code, PreFilterResult, Status
from kschedctl.framework.types import WeightedAffinityTerm
from kschedctl.framework.twins import ColumnTwin
from kschedctl.k8s.field import FieldError, child, invalid
from kschedctl.k8s.selectors import OP_EXISTS, OP_IN
from kschedctl.plugins.inter_pod_affinity import filtering
from kschedctl.plugins.inter_pod_affinity import scoring
from kschedctl.plugins import names
from kschedctl.plugins.facts import ArgsFacts, PluginFacts
from kschedctl.plugins.helper import int_field
from kschedctl.plugins.inter_pod_affinity.filtering import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
    PRE_FILTER_STATE_KEY,
    PreFilterState,
)
from kschedctl.plugins.inter_pod_affinity.incremental import IncrementalSums
from kschedctl.plugins.inter_pod_affinity.scoring import PRE_SCORE_STATE_KEY, PreScoreState
from kschedctl.plugins.remedy import RemedyEngine, RemedyScenario, Step, TEXT_PODS, impossible, pods_text

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = names.INTER_POD_AFFINITY

__all__ = [
    "NAME",
    "ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "InterPodAffinityArgs",
    "InterPodAffinity",
]

#: Upstream v1.DefaultHardPodAffinitySymmetricWeight.
DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1


class InterPodAffinityArgs:
    """The plugin's args (upstream config.InterPodAffinityArgs), defaulted and validated."""

    __slots__ = ("hard_pod_affinity_weight", "ignore_preferred_terms_of_existing_pods")

    def __init__(self, args: Mapping[str, Any] | None) -> None:
        args = args or {}
        weight = args.get("hardPodAffinityWeight")
        if weight is None:
            weight = DEFAULT_HARD_POD_AFFINITY_WEIGHT
        if isinstance(weight, bool) or not isinstance(weight, int):
            raise InputError(f"{NAME} args: hardPodAffinityWeight: must be an integer, got {weight!r}")
        if weight < 0 or weight > 100:
            # upstream ValidateInterPodAffinityArgs, which New runs too
            raise InputError(
                f"{NAME} args: hardPodAffinityWeight: Invalid value: {weight}: not in valid range [0, 100]"
            )
        self.hard_pod_affinity_weight: int = weight
        self.ignore_preferred_terms_of_existing_pods: bool = bool(args.get("ignorePreferredTermsOfExistingPods"))


class InterPodAffinity(Plugin):
    """PreFilter (with AddPod/RemovePod), Filter, PreScore, Score and NormalizeScore on pod affinity."""

    name = NAME

    def __init__(self, args: dict | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        self.plugin_args = InterPodAffinityArgs(args)
        # Counts and scores kept across the cycles of a run, per kind of incoming pod, rather than
        # walking the pods every cycle (the same answers; the fast path ``incremental_affinity``).
        self._sums = IncrementalSums() if fast_path_settings().incremental_affinity else None

    # --- PreFilter / extensions / Filter ------------------------------------------------------

    def pre_filter(
        self, state: "CycleState", pod_info: "PodInfo", nodes: list["NodeInfo"]
    ) -> tuple[PreFilterResult | None, Status | None]:
        if pod_info.parse_error is not None:
            return None, filtering.parse_error_status(pod_info)
        namespaces = self._namespaces()
        affinity_terms = [filtering.merge_term_namespaces(t, namespaces) for t in pod_info.required_affinity_terms]
        anti_terms = [filtering.merge_term_namespaces(t, namespaces) for t in pod_info.required_anti_affinity_terms]
        ns_labels = filtering.namespace_labels_of(namespaces, pod_info.namespace)

        sums = self._incremental_sums(nodes)
        existing_anti = incoming = None
        if sums is not None:
            existing_anti = sums.existing_anti_affinity_counts(
                pod_info, ns_labels, nodes, lambda: self._nodes_with_required_anti_affinity(nodes)
            )
            if affinity_terms or anti_terms:
                incoming = sums.incoming_affinity_counts(affinity_terms, anti_terms, nodes)
        if existing_anti is None:
            existing_anti = filtering.existing_anti_affinity_counts(
                pod_info, ns_labels, self._nodes_with_required_anti_affinity(nodes)
            )
        affinity, anti = incoming or filtering.incoming_affinity_counts(affinity_terms, anti_terms, nodes)

        if not existing_anti and not affinity_terms and not anti_terms:
            return None, Status(Code.Skip)
        state.write(
            PRE_FILTER_STATE_KEY,
            PreFilterState(pod_info, affinity_terms, anti_terms, ns_labels, existing_anti, affinity, anti),
        )
        return None, None

    def add_pod(
        self, state: "CycleState", pod_info: "PodInfo", pod_info_to_add: "PodInfo", node_info: "NodeInfo"
    ) -> Status | None:
        s = _pre_filter_state(state)
        if isinstance(s, Status):
            return s
        s.update_with_pod(pod_info_to_add, node_info.labels, 1)
        return None

    def remove_pod(
        self, state: "CycleState", pod_info: "PodInfo", pod_info_to_remove: "PodInfo", node_info: "NodeInfo"
    ) -> Status | None:
        s = _pre_filter_state(state)
        if isinstance(s, Status):
            return s
        s.update_with_pod(pod_info_to_remove, node_info.labels, -1)
        return None

    def filter(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> Status | None:
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:
            return _pre_filter_state(state)  # its error status
        return filtering.filter_node(s, node_info.labels)

    # --- PreScore / Score / NormalizeScore ----------------------------------------------------

    def pre_score(self, state: "CycleState", pod_info: "PodInfo", nodes: list["NodeInfo"]) -> Status | None:
        has_affinity, has_anti_affinity = scoring.has_preferred_terms(pod_info.pod)
        has_constraints = has_affinity or has_anti_affinity
        args = self.plugin_args
        if args.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return Status(Code.Skip)
        # Without preferred terms of its own, only pods with affinity can score the pod.
        snapshot = self._snapshot()
        snapshot_nodes = snapshot.node_infos() if snapshot is not None else None

        def walked() -> list["NodeInfo"]:
            if has_constraints:
                return snapshot_nodes if snapshot_nodes is not None else nodes
            return _have_pods_with_affinity(snapshot, nodes)

        if pod_info.parse_error is not None:
            # Upstream: "Ideally we never reach here, because errors will be caught by PreFilter".
            return Status(Code.Error, f"failed to parse pod: {pod_info.parse_error}")
        namespaces = self._namespaces()
        preferred = [_merge_weighted(wt, namespaces) for wt in pod_info.preferred_affinity_terms]
        preferred_anti = [_merge_weighted(wt, namespaces) for wt in pod_info.preferred_anti_affinity_terms]
        ns_labels = filtering.namespace_labels_of(namespaces, pod_info.namespace)
        topology_score = None
        sums = self._incremental_sums(snapshot_nodes)
        if sums is not None:
            topology_score = sums.topology_scores(
                pod_info, preferred, preferred_anti, ns_labels, snapshot_nodes, walked, has_constraints,
                args.hard_pod_affinity_weight,
            )
        lent = topology_score is not None
        if topology_score is None:
            topology_score = scoring.topology_scores(
                pod_info, preferred, preferred_anti, ns_labels, walked(), has_constraints,
                args.hard_pod_affinity_weight,
            )
        if not topology_score:
            return Status(Code.Skip)
        state.write(PRE_SCORE_STATE_KEY, PreScoreState(topology_score, lent))
        return None

    def score(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status | None]:
        s = _pre_score_state(state)
        if isinstance(s, Status):
            return 0, s
        return scoring.node_score(s, node_info.labels), None

    def normalize_score(self, state: "CycleState", pod_info: "PodInfo", scores: list[NodeScore]) -> Status | None:
        s = _pre_score_state(state)
        if isinstance(s, Status):
            return s
        scoring.normalize(s, scores)
        return None

    # --- helpers --------------------------------------------------------------------------------

    def _snapshot(self) -> Any:
        handle = self.handle
        return handle.snapshot() if handle is not None else None

    def _namespaces(self) -> Mapping[str, Any]:
        """Namespace name -> Namespace object (what upstream's namespace lister lists)."""
        handle = self.handle
        cluster = handle.cluster() if handle is not None else None
        namespaces = getattr(cluster, "namespaces", None)
        return namespaces if isinstance(namespaces, Mapping) else {}

    def _incremental_sums(self, nodes: list["NodeInfo"] | None) -> IncrementalSums | None:
        """The sums kept across cycles, when ``nodes`` is the node list of the snapshot in use."""
        if self._sums is None or nodes is None:
            return None
        snapshot = self._snapshot()
        listing = getattr(snapshot, "node_infos", None)
        if not callable(listing) or listing() is not nodes:
            return None
        return self._sums

    def _nodes_with_required_anti_affinity(self, nodes: list["NodeInfo"]) -> list["NodeInfo"]:
        snapshot = self._snapshot()
        listing = getattr(snapshot, "have_pods_with_required_anti_affinity_list", None)
        if callable(listing):
            return listing()
        return [n for n in nodes if n.pods_with_required_anti_affinity]


def _have_pods_with_affinity(snapshot: Any, nodes: list["NodeInfo"]) -> list["NodeInfo"]:
    listing = getattr(snapshot, "have_pods_with_affinity_list", None)
    if callable(listing):
        return listing()
    return [n for n in nodes if n.pods_with_affinity]


def _merge_weighted(wt: WeightedAffinityTerm, namespaces: Mapping[str, Any]) -> WeightedAffinityTerm:
    term = filtering.merge_term_namespaces(wt.term, namespaces)
    return wt if term is wt.term else WeightedAffinityTerm(term, wt.weight)


def _pre_filter_state(state: "CycleState") -> PreFilterState | Status:
    try:
        return state.read(PRE_FILTER_STATE_KEY)
    except KeyError as err:
        # PreFilter did not run (disabled in the profile): upstream's Error status, word for word.
        return Status(Code.Error, f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found', error=err)


def _pre_score_state(state: "CycleState") -> PreScoreState | Status:
    try:
        return state.read(PRE_SCORE_STATE_KEY)
    except KeyError as err:
        return Status(Code.Error, f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found', error=err)


# -- facts --------------------------------------------------------------------------------------


def _matches_all_terms(terms: Any, other: Any) -> bool:
    # podMatchesAllAffinityTerms: no term matches nothing; every term must match; namespace
    # selectors see no labels (upstream passes nil).
    return bool(terms) and all(t.matches(other, None) for t in terms)


def _schedulable_after_pod_added(pod_info: Any, other: Any, cluster: Any) -> str:
    # isSchedulableAfterPodChange, add: the new pod is placed and matches all of the pod's
    # required affinity terms.
    if not other.node_name:
        return QUEUE_SKIP
    return QUEUE if _matches_all_terms(getattr(pod_info, "required_affinity_terms", ()), other) else QUEUE_SKIP


def _schedulable_after_pod_deleted(pod_info: Any, other: Any, cluster: Any) -> str:
    # isSchedulableAfterPodChange, delete: the removed pod was placed and matched all of the
    # pod's required anti-affinity terms. Upstream does not look at the removed pod's own
    # anti-affinity: a pod rejected by an existing pod's anti-affinity waits for the periodic
    # flush of unschedulable pods, not for that pod's deletion.
    if not other.node_name:
        return QUEUE_SKIP
    return QUEUE if _matches_all_terms(getattr(pod_info, "required_anti_affinity_terms", ()), other) else QUEUE_SKIP


def remedy(engine: RemedyEngine, scen: RemedyScenario, status: Status) -> Step | None:
    """What would flip this plugin's Filter verdict on the scenario's node (kschedctl.plugins.remedy)."""
    from kschedctl.plugins.inter_pod_affinity.filtering import (
        ERR_REASON_AFFINITY_RULES_NOT_MATCH,
        ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
        PRE_FILTER_STATE_KEY,
    )

    try:
        s = scen.state.read(PRE_FILTER_STATE_KEY)
    except KeyError:
        return None
    d = status.details or {}
    reason = status.reasons[0] if status.reasons else ""
    if reason == ERR_REASON_AFFINITY_RULES_NOT_MATCH:
        i = d.get("term", 0)
        if i >= len(s.affinity_terms):
            return None
        term = s.affinity_terms[i]
        key = term.topology_key
        domains = sorted({v for (k, v), n in s.affinity.counts.items() if k == key and n > 0})
        if d.get("missingTopologyKey"):
            if not domains:
                return impossible(f"no node with label {key} runs a pod matching the affinity terms", status)
            return Step(f"needs label {key} (e.g. {key}={domains[0]}, where matching pods run)",
                        [{"kind": "setNodeLabel", "node": scen.name, "key": key, "value": domains[0]}],
                        {"term": i, "topologyKey": key, "domainsWithMatchingPods": domains},
                        reasons=list(status.reasons))
        labels = _labels_matching(s.affinity_terms)
        ns = sorted(term.namespaces)[0] if term.namespaces else engine.pod_info.namespace
        value = d.get("topologyValue")
        text = f"needs a pod matching {_selectors_text(s.affinity_terms)} in {key}={value}"
        if domains:
            more = " ..." if len(domains) > TEXT_PODS else ""
            text += f" (such pods run in {key}={', '.join(domains[:TEXT_PODS])}{more})"
        changes = [] if labels is None else [{"kind": "addPod", "node": scen.name, "namespace": ns,
                                              "name": "hint-affinity-peer", "labels": labels}]
        return Step(text, changes, {"term": i, "topologyKey": key, "topologyValue": value,
                                    "domainsWithMatchingPods": domains}, reasons=list(status.reasons))
    pair = (d.get("topologyKey"), d.get("topologyValue"))
    counts = s.anti if reason == ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH else s.existing_anti
    pods = [p for p in counts.pods_of(pair) if p not in scen.removed] or list(d.get("pods") or ())
    if not pods:
        return None
    if reason == ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH:
        text = f"needs {pods_text(pods)} gone from {pair[0]}={pair[1]} (the pod's anti-affinity)"
    else:
        text = f"needs {pods_text(pods)} gone from {pair[0]}={pair[1]} (their anti-affinity rejects the pod)"
    domain_pods = sum(len(ni.pods) for ni in engine.domain_nodes(pair[0], pair[1]))
    return Step(text, [{"kind": "removePods", "pods": pods}],
                {"topologyKey": pair[0], "topologyValue": pair[1], "pods": pods},
                shortfall=len(pods) / max(domain_pods, 1), reasons=list(status.reasons))


def _labels_matching(terms: list) -> dict | None:
    """Labels a new pod would need to match every term's selector (None when unclear)."""
    labels: dict[str, str] = {}
    for term in terms:
        sel = term.selector
        if getattr(sel, "nothing", False):
            return None
        for req in getattr(sel, "requirements", ()):
            if req.operator in (OP_IN, "=", "==") and req.values:
                labels.setdefault(req.key, sorted(req.values)[0])
            elif req.operator == OP_EXISTS:
                labels.setdefault(req.key, "x")
    for term in terms:
        if not term.selector.matches(labels):
            return None
    return labels


def _selectors_text(terms: list) -> str:
    return " and ".join(f"[{term.selector}]" for term in terms) or "[]"


def default_config_args(a: dict[str, Any]) -> None:
    """``SetDefaults_InterPodAffinityArgs`` on a v1 args dict, in place."""
    if a.get("hardPodAffinityWeight") is None:
        a["hardPodAffinityWeight"] = 1
    # Not a default upstream but the typed field's zero value, which --write-config-to prints.
    a.setdefault("ignorePreferredTermsOfExistingPods", False)


def validate_config_args(path: str, a: dict[str, Any]) -> list[FieldError]:
    """``ValidateInterPodAffinityArgs``: upstream's field errors under ``path``."""
    w = int_field(a, "hardPodAffinityWeight")
    if w < 0 or w > 100:
        return [invalid(child(path, "hardPodAffinityWeight"), w, "not in valid range [0, 100]")]
    return []


FACTS = PluginFacts(
    name=InterPodAffinity.name,
    points=("preFilter", "filter", "preScore", "score"),
    events={ASSIGNED_POD_ADD: _schedulable_after_pod_added, ASSIGNED_POD_DELETE: _schedulable_after_pod_deleted},
    args=ArgsFacts("InterPodAffinityArgs", default_config_args, validate_config_args),
    remedy=remedy,
    default_weight=2,
    twin=ColumnTwin("kschedctl.plugins.inter_pod_affinity.columns", ("filter", "score", "normalize")),
)
