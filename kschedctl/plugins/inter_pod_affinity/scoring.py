"""InterPodAffinity, PreScore, Score and NormalizeScore: preferred pod affinity, both directions.

Upstream: pkg/scheduler/framework/plugins/interpodaffinity/scoring.go (release-1.34).
PreScore builds, per topology key and value, the sum of:
- +weight for each preferred affinity term of the incoming pod an existing pod matches, and
  -weight for each preferred anti-affinity term (on the existing pod's node's topology value);
- +hardPodAffinityWeight for each required affinity term of an existing pod the incoming pod
  matches (when the weight is > 0), +weight / -weight for each preferred affinity /
  anti-affinity term of an existing pod the incoming pod matches.
Existing pods on nodes without any label are skipped. When the incoming pod has no preferred
terms only nodes holding pods with affinity are visited (and only those pods); with
``ignorePreferredTermsOfExistingPods`` such a pod is not scored at all (Skip). PreScore also
answers Skip when nothing was recorded. Score sums the entries of the node's topology values;
NormalizeScore maps [min, max] linearly onto [0, 100] (truncated), all 0 when min == max, and
leaves the scores untouched when nothing was recorded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from kschedctl.framework.interfaces import MAX_NODE_SCORE, NodeScore
from kschedctl.framework.types import AffinityTerm, WeightedAffinityTerm
from kschedctl.plugins import names

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = names.INTER_POD_AFFINITY

#: CycleState key of the PreScore state (upstream "PreScore" + Name).
PRE_SCORE_STATE_KEY = "PreScore" + NAME

#: topologyKey -> topology value -> score (upstream ``scoreMap``).
ScoreMap = dict[str, dict[str, int]]


class PreScoreState:
    """What PreScore computed (upstream ``preScoreState``); shared by clones, as upstream.
    ``lent``: the map was lent by the sums kept across cycles, and its value dicts never change
    again (the sums copy a dict before changing it)."""

    __slots__ = ("topology_score", "lent")

    def __init__(self, topology_score: ScoreMap, lent: bool = False) -> None:
        self.topology_score = topology_score
        self.lent = lent

    def clone(self) -> "PreScoreState":
        return self


def has_preferred_terms(pod: dict) -> tuple[bool, bool]:
    """Whether the pod spec has preferred pod affinity / anti-affinity terms (read from the spec,
    not from the parsed terms, so that a pod whose terms fail to parse still counts)."""
    affinity = (pod.get("spec") or {}).get("affinity") or {}
    pod_affinity = affinity.get("podAffinity") or {}
    pod_anti_affinity = affinity.get("podAntiAffinity") or {}
    return (
        bool(pod_affinity.get("preferredDuringSchedulingIgnoredDuringExecution")),
        bool(pod_anti_affinity.get("preferredDuringSchedulingIgnoredDuringExecution")),
    )


def topology_scores(
    pod_info: "PodInfo",
    preferred_affinity: list[WeightedAffinityTerm],
    preferred_anti_affinity: list[WeightedAffinityTerm],
    namespace_labels: Mapping[str, str],
    nodes: Iterable["NodeInfo"],
    all_pods: bool,
    hard_pod_affinity_weight: int,
) -> ScoreMap:
    """The score map of upstream PreScore over ``nodes`` (their pods, or only their pods with
    affinity when ``all_pods`` is False). ``preferred_*`` are the incoming pod's terms with the
    namespace selector resolved."""
    scores: ScoreMap = {}
    incoming = incoming_terms(preferred_affinity, preferred_anti_affinity)
    for node_info in nodes:
        for key, value, weight in node_score_items(
            pod_info, incoming, namespace_labels, node_info, all_pods, hard_pod_affinity_weight
        ):
            values = scores.get(key)
            if values is None:
                values = scores[key] = {}
            values[value] = values.get(value, 0) + weight
    return scores


def incoming_terms(
    preferred_affinity: list[WeightedAffinityTerm], preferred_anti_affinity: list[WeightedAffinityTerm]
) -> list[tuple[AffinityTerm, int]]:
    """The incoming pod's preferred terms with their signed weights (anti-affinity negative)."""
    return [(wt.term, wt.weight) for wt in preferred_affinity] + [
        (wt.term, -wt.weight) for wt in preferred_anti_affinity
    ]


def node_score_items(
    pod_info: "PodInfo",
    incoming: list[tuple[AffinityTerm, int]],
    namespace_labels: Mapping[str, str],
    node_info: "NodeInfo",
    all_pods: bool,
    hard_pod_affinity_weight: int,
) -> tuple[tuple[str, str, int], ...]:
    """One node's part of the score map: (topologyKey, value, weight) per matching term, in
    upstream's order (processExistingPod on each pod of the node)."""
    labels = node_info.labels
    if not labels:
        return ()  # upstream processExistingPod returns at once for a node without labels
    pods = node_info.pods if all_pods else node_info.pods_with_affinity
    if not pods:
        return ()
    out: list[tuple[str, str, int]] = []
    for existing in pods:
        existing_pod_score_items(pod_info, incoming, namespace_labels, labels, existing, hard_pod_affinity_weight,
                                 out.append)
    return tuple(out)


def existing_pod_score_items(
    pod_info: "PodInfo",
    incoming: list[tuple[AffinityTerm, int]],
    namespace_labels: Mapping[str, str],
    labels: Mapping[str, str],
    existing: "PodInfo",
    hard_pod_affinity_weight: int,
    append: Callable[[tuple[str, str, int]], Any],
) -> None:
    """One existing pod's part of ``node_score_items`` on a node with ``labels`` (upstream
    processExistingPod), handed to ``append`` in upstream's order."""
    # The incoming pod's terms are matched against existing pods without namespace labels.
    for term, weight in incoming:
        key = term.topology_key
        if key in labels and term.matches(existing, None):
            append((key, labels[key], weight))
    if not existing.has_affinity:
        return
    if hard_pod_affinity_weight > 0:
        for term in existing.required_affinity_terms:
            key = term.topology_key
            if key in labels and term.matches(pod_info, namespace_labels):
                append((key, labels[key], hard_pod_affinity_weight))
    for wt in existing.preferred_affinity_terms:
        term = wt.term
        key = term.topology_key
        if key in labels and term.matches(pod_info, namespace_labels):
            append((key, labels[key], wt.weight))
    for wt in existing.preferred_anti_affinity_terms:
        term = wt.term
        key = term.topology_key
        if key in labels and term.matches(pod_info, namespace_labels):
            append((key, labels[key], -wt.weight))


def node_score(state: PreScoreState, node_labels: Mapping[str, str]) -> int:
    """Upstream Score: the sum of the entries of the node's value of each recorded topology key."""
    score = 0
    for key, values in state.topology_score.items():
        if key in node_labels:
            score += values.get(node_labels[key], 0)
    return score


def normalize(state: PreScoreState, scores: list[NodeScore]) -> None:
    """Upstream NormalizeScore, in place: min-max scaling to [0, MAX_NODE_SCORE], truncated."""
    if not state.topology_score:
        return
    if not scores:
        return
    max_count = max(s.score for s in scores)
    min_count = min(s.score for s in scores)
    diff = max_count - min_count
    for s in scores:
        f = 0.0
        if diff > 0:
            # Same float64 operations as upstream, so that truncation lands on the same integer.
            f = float(MAX_NODE_SCORE) * (float(s.score - min_count) / float(diff))
        s.score = int(f)
