"""InterPodAffinity, PreFilter and Filter: required pod affinity and anti-affinity.

Upstream: pkg/scheduler/framework/plugins/interpodaffinity/filtering.go (release-1.34).
The plugin class lives in ``inter_pod_affinity``; this module holds the PreFilter state, the
counting done once per cycle, the AddPod/RemovePod updates and the per-node checks.

PreFilter counts, per topology pair (topologyKey, value of that label on a node):
- ``existing_anti``: required anti-affinity terms of existing pods that match the incoming pod
  (namespace selectors of those terms matched against the incoming pod's namespace labels),
  looked for only on nodes that hold pods with required anti-affinity;
- ``affinity``: existing pods matching ALL the incoming pod's required affinity terms (one count
  per term whose topology key the pod's node has);
- ``anti``: existing pods matching each of the incoming pod's required anti-affinity terms.
The incoming pod's terms have their namespace selector resolved into namespace names first
(upstream ``mergeAffinityTermNamespacesIfNotEmpty``), so they are matched without namespace labels.
Within a simulate run, the plugin takes the same counts from ``inter_pod_affinity.incremental``
(kept across cycles) instead of walking the pods again.

Beyond upstream, the state remembers which pods produced the anti-affinity counts, so that a
rejection can name them in ``Status.details``; it never changes a verdict.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping

from kschedctl.framework.status import Code, Status
from kschedctl.framework.types import AffinityTerm
from kschedctl.k8s.selectors import NOTHING
from kschedctl.plugins import names

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = names.INTER_POD_AFFINITY

#: Filter reason: an existing pod's required anti-affinity term matches the incoming pod.
ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules"
#: Filter reason: the incoming pod's required affinity is not satisfied on the node.
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
#: Filter reason: the incoming pod's required anti-affinity is violated on the node.
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"

#: CycleState key of the PreFilter state (upstream "PreFilter" + Name).
PRE_FILTER_STATE_KEY = "PreFilter" + NAME

#: How many pod keys a rejection lists in ``Status.details["pods"]``.
MAX_PODS_IN_DETAILS = 10

Pair = tuple[str, str]


class TopologyCounts:
    """Upstream ``topologyToMatchedTermCount``: (topologyKey, value) -> count, entries at 0 removed.

    With ``witnesses`` it also keeps, per pair, how many counts each pod key contributed, so a
    rejection can say which pods caused it. ``shared`` dicts belong to someone else too (the
    sums kept across cycles): they are copied before the first update.
    """

    __slots__ = ("counts", "witnesses", "shared", "keys")

    def __init__(
        self, counts: dict[Pair, int] | None = None, witnesses: dict[Pair, dict[str, int]] | None = None,
        shared: bool = False, keys: tuple[str, ...] | None = None,
    ) -> None:
        self.counts: dict[Pair, int] = counts if counts is not None else {}
        self.witnesses: dict[Pair, dict[str, int]] | None = witnesses
        self.shared = shared
        #: The topology keys of the pairs counted above 0, when known (see ``topology_keys``).
        self.keys = keys

    def topology_keys(self) -> tuple[str, ...]:
        """The topology keys of the pairs whose count is above 0 (so that Filter looks up the
        node's value of these few keys instead of every label of the node)."""
        keys = self.keys
        if keys is None:
            keys = self.keys = tuple({pair[0]: None for pair, n in self.counts.items() if n > 0})
        return keys

    def update(self, node_labels: Mapping[str, str], topology_key: str, value: int, pod_key: str) -> None:
        """Add ``value`` (may be negative) to the pair of ``topology_key`` on the node, if labelled."""
        if topology_key not in node_labels:
            return
        if self.shared:
            self.counts = dict(self.counts)
            if self.witnesses is not None:
                self.witnesses = {pair: dict(pods) for pair, pods in self.witnesses.items()}
            self.shared = False
        self.keys = None
        pair = (topology_key, node_labels[topology_key])
        counts = self.counts
        n = counts.get(pair, 0) + value
        if n == 0:
            counts.pop(pair, None)
        else:
            counts[pair] = n
        witnesses = self.witnesses
        if witnesses is not None:
            pods = witnesses.get(pair)
            if pods is None:
                pods = witnesses[pair] = {}
            left = pods.get(pod_key, 0) + value
            if left > 0:
                pods[pod_key] = left
            else:
                pods.pop(pod_key, None)
                if not pods:
                    del witnesses[pair]

    def pods_of(self, pair: Pair) -> list[str]:
        """The keys of the pods counted for ``pair`` (sorted), when witnesses are kept."""
        if self.witnesses is None:
            return []
        return sorted(self.witnesses.get(pair) or ())

    def clone(self) -> "TopologyCounts":
        witnesses = None
        if self.witnesses is not None:
            witnesses = {pair: dict(pods) for pair, pods in self.witnesses.items()}
        return TopologyCounts(dict(self.counts), witnesses, keys=self.keys)

    def __len__(self) -> int:
        return len(self.counts)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TopologyCounts):
            return self.counts == other.counts
        if isinstance(other, dict):
            return self.counts == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"TopologyCounts({self.counts!r})"


class PreFilterState:
    """What PreFilter computed for one incoming pod (upstream ``preFilterState``)."""

    __slots__ = ("existing_anti", "affinity", "anti", "pod_info", "affinity_terms", "anti_terms", "namespace_labels",
                 "anti_keys")

    def __init__(
        self,
        pod_info: "PodInfo",
        affinity_terms: list[AffinityTerm],
        anti_terms: list[AffinityTerm],
        namespace_labels: Mapping[str, str],
        existing_anti: TopologyCounts,
        affinity: TopologyCounts,
        anti: TopologyCounts,
    ) -> None:
        self.pod_info = pod_info
        #: The incoming pod's required terms with namespace selectors resolved (upstream mutates
        #: its own PodInfo copy; PodInfos are shared here, so the resolved terms live in the state).
        self.affinity_terms = affinity_terms
        self.anti_terms = anti_terms
        #: The topology keys of ``anti_terms``, in order (what Filter looks up first on a node).
        self.anti_keys = tuple(t.topology_key for t in anti_terms)
        self.namespace_labels = namespace_labels
        self.existing_anti = existing_anti
        self.affinity = affinity
        self.anti = anti

    def clone(self) -> "PreFilterState":
        """Counts copied, terms and the pod shared (they never change), as upstream Clone."""
        return PreFilterState(
            self.pod_info,
            self.affinity_terms,
            self.anti_terms,
            self.namespace_labels,
            self.existing_anti.clone(),
            self.affinity.clone(),
            self.anti.clone(),
        )

    def update_with_pod(self, other: "PodInfo", node_labels: Mapping[str, str], multiplier: int) -> None:
        """Account ``other`` added to (+1) or removed from (-1) a node (upstream updateWithPod)."""
        incoming = self.pod_info
        key = other.key
        existing_anti = self.existing_anti
        for term in other.required_anti_affinity_terms:
            if term.matches(incoming, self.namespace_labels):
                existing_anti.update(node_labels, term.topology_key, multiplier, key)
        terms = self.affinity_terms
        if terms and all(_incoming_term_matches(t, other) for t in terms):
            for term in terms:
                self.affinity.update(node_labels, term.topology_key, multiplier, key)
        # The incoming pod's terms have their namespace selector resolved: no namespace labels.
        for term in self.anti_terms:
            if _incoming_term_matches(term, other):
                self.anti.update(node_labels, term.topology_key, multiplier, key)


# --- PreFilter ------------------------------------------------------------------------------------


def merge_term_namespaces(term: AffinityTerm, namespaces: Mapping[str, Any]) -> AffinityTerm:
    """Upstream ``mergeAffinityTermNamespacesIfNotEmpty`` on a copy: a term whose namespace selector
    is not empty gets the names of the namespaces it selects added to its namespaces, and a
    selector that matches nothing; an empty selector (every namespace) is kept as it is."""
    selector = term.namespace_selector
    if selector.empty:
        return term
    names_ = set(term.namespaces)
    if not selector.nothing:
        for name, namespace in namespaces.items():
            if selector.matches(_object_labels(namespace)):
                names_.add(name)
    return AffinityTerm(names_, term.selector, term.topology_key, NOTHING)


def namespace_labels_of(namespaces: Mapping[str, Any], namespace: str) -> dict[str, str]:
    """Upstream ``GetNamespaceLabelsSnapshot``: the labels of ``namespace``, {} when it is unknown."""
    return dict(_object_labels(namespaces.get(namespace)))


def existing_anti_affinity_counts(
    pod_info: "PodInfo", namespace_labels: Mapping[str, str], nodes: Iterable["NodeInfo"]
) -> TopologyCounts:
    """Upstream ``getExistingAntiAffinityCounts``: for each existing pod with required
    anti-affinity, each of its terms matching the incoming pod counts once for the term's
    topology pair on the existing pod's node."""
    result = TopologyCounts(witnesses={})
    for node_info in nodes:
        labels = node_info.labels
        for existing in node_info.pods_with_required_anti_affinity:
            for term in existing.required_anti_affinity_terms:
                if term.topology_key in labels and term.matches(pod_info, namespace_labels):
                    result.update(labels, term.topology_key, 1, existing.key)
    return result


def incoming_affinity_counts(
    affinity_terms: list[AffinityTerm], anti_terms: list[AffinityTerm], nodes: Iterable["NodeInfo"]
) -> tuple[TopologyCounts, TopologyCounts]:
    """Upstream ``getIncomingAffinityAntiAffinityCounts`` over every pod on ``nodes``.

    An existing pod counts for the affinity terms only if it matches ALL of them (then once per
    term whose topology key its node has); for the anti-affinity terms, once per matching term.
    """
    affinity: dict[Pair, int] = {}
    anti = TopologyCounts(witnesses={})
    if not affinity_terms and not anti_terms:
        return TopologyCounts(affinity), anti
    # Matching is the hot loop: take each term apart once. The incoming pod's terms are matched
    # without namespace labels (their selector was resolved into names), so whether the
    # namespace selector lets every namespace through is fixed per term.
    aff_checks = [(t.namespaces, t.namespace_selector.matches({}), t.selector.matches) for t in affinity_terms]
    anti_checks = [
        (t.namespaces, t.namespace_selector.matches({}), t.selector.matches, t.topology_key) for t in anti_terms
    ]
    aff_keys = [t.topology_key for t in affinity_terms]
    for node_info in nodes:
        labels = node_info.labels
        aff_pairs = [(k, labels[k]) for k in aff_keys if k in labels] if aff_checks else []
        anti_here = [c for c in anti_checks if c[3] in labels]
        if not aff_pairs and not anti_here:
            continue  # no pod here can count: the node has none of the topology keys
        for existing in node_info.pods:
            ns = existing.namespace
            pod_labels = existing.labels
            if aff_pairs:
                for namespaces, all_ns, matches in aff_checks:
                    if not ((all_ns or ns in namespaces) and matches(pod_labels)):
                        break
                else:
                    for pair in aff_pairs:
                        n = affinity.get(pair, 0) + 1
                        affinity[pair] = n
            for namespaces, all_ns, matches, key in anti_here:
                if (all_ns or ns in namespaces) and matches(pod_labels):
                    anti.update(labels, key, 1, existing.key)
    return TopologyCounts(affinity), anti


def parse_error_status(pod_info: "PodInfo") -> Status:
    """PreFilter's answer for a pod whose affinity terms do not parse (upstream "parsing pod: %+v")."""
    return Status(Code.UnschedulableAndUnresolvable, f"parsing pod: {pod_info.parse_error}")


# --- Filter ---------------------------------------------------------------------------------------

_ABSENT = object()


def filter_node(state: PreFilterState, node_labels: Mapping[str, str]) -> Status | None:
    """The three checks below, in order, with the same answer: the node's values of the few
    topology keys that can reject it are looked up first, and a check runs in full (for its
    status and details) only on a node it rejects. Filter runs on every node of every cycle."""
    if state.affinity_terms:
        status = check_pod_affinity(state, node_labels)
        if status is not None:
            return status
    counts = state.anti.counts
    if counts:
        for key in state.anti_keys:
            value = node_labels.get(key, _ABSENT)
            if value is not _ABSENT and counts.get((key, value), 0) > 0:
                return check_pod_anti_affinity(state, node_labels)
    existing = state.existing_anti
    counts = existing.counts
    if counts:
        keys = existing.keys
        for key in keys if keys is not None else existing.topology_keys():
            value = node_labels.get(key, _ABSENT)
            if value is not _ABSENT and counts.get((key, value), 0) > 0:
                return check_existing_anti_affinity(state, node_labels)
    return None



def first_of_group(state: PreFilterState) -> bool:
    """The first pod of a series with affinity to itself, let through anywhere its topology keys
    exist: no pod matches the terms anywhere and the pod matches its own terms."""
    return not state.affinity.counts and bool(state.affinity_terms) and all(
        _incoming_term_matches(t, state.pod_info) for t in state.affinity_terms
    )


def check_pod_affinity(state: PreFilterState, node_labels: Mapping[str, str]) -> Status | None:
    """Upstream ``satisfyPodAffinity``: every topology key present, and a matching pod in each
    term's domain; or no matching pod anywhere and the pod matches all its own terms."""
    counts = state.affinity.counts
    first_unmet: tuple[int, str, str] | None = None
    for i, term in enumerate(state.affinity_terms):
        key = term.topology_key
        if key not in node_labels:
            # All topology labels must exist on the node, even for the first pod of a group.
            return Status(
                Code.UnschedulableAndUnresolvable,
                ERR_REASON_AFFINITY_RULES_NOT_MATCH,
                details={"term": i, "topologyKey": key, "missingTopologyKey": True},
            )
        if first_unmet is None and counts.get((key, node_labels[key]), 0) <= 0:
            first_unmet = (i, key, node_labels[key])
    if first_unmet is None:
        return None
    if first_of_group(state):
        return None
    i, key, value = first_unmet
    return Status(
        Code.UnschedulableAndUnresolvable,
        ERR_REASON_AFFINITY_RULES_NOT_MATCH,
        details={"term": i, "topologyKey": key, "topologyValue": value, "matchingPods": 0},
    )


def check_pod_anti_affinity(state: PreFilterState, node_labels: Mapping[str, str]) -> Status | None:
    """Upstream ``satisfyPodAntiAffinity``: no pod matching a term in that term's domain."""
    anti = state.anti
    if not anti.counts:
        return None
    counts = anti.counts
    for i, term in enumerate(state.anti_terms):
        key = term.topology_key
        if key in node_labels:
            pair = (key, node_labels[key])
            if counts.get(pair, 0) > 0:
                return Status(
                    Code.Unschedulable,
                    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
                    details=_pair_details(anti, pair, term=i),
                )
    return None


def check_existing_anti_affinity(state: PreFilterState, node_labels: Mapping[str, str]) -> Status | None:
    """Upstream ``satisfyExistingPodsAntiAffinity``: no existing pod's anti-affinity term that
    matches the incoming pod covers any topology pair of the node."""
    existing = state.existing_anti
    if not existing.counts:
        return None
    counts = existing.counts
    for key, value in node_labels.items():
        pair = (key, value)
        if counts.get(pair, 0) > 0:
            return Status(
                Code.Unschedulable,
                ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
                details=_pair_details(existing, pair),
            )
    return None


# --- helpers ----------------------------------------------------------------------------------------


def _incoming_term_matches(term: AffinityTerm, pod_info: "PodInfo") -> bool:
    # Upstream podMatchesAllAffinityTerms / anti-affinity counting pass nil namespace labels for
    # the incoming pod's (namespace-resolved) terms.
    return term.matches(pod_info, None)


def _object_labels(obj: Any) -> Mapping[str, str]:
    if not isinstance(obj, dict):
        return {}
    meta = obj.get("metadata")
    labels = meta.get("labels") if isinstance(meta, dict) else None
    return labels if isinstance(labels, dict) else {}


def _pair_details(counts: TopologyCounts, pair: Pair, term: int | None = None) -> dict[str, Any]:
    pods = counts.pods_of(pair)
    details: dict[str, Any] = {}
    if term is not None:
        details["term"] = term
    details["topologyKey"], details["topologyValue"] = pair
    details["matchingPods"] = len(pods)
    details["pods"] = pods[:MAX_PODS_IN_DETAILS]
    return details
